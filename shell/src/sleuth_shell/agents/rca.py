"""Root-cause investigation for the embedded agent: gather evidence, run the engine, write it up.

`gather` reads, for an alert (or a "why" question), the hours before it: per-service error
histograms and distinct error messages (``ctx.logs``), metric series (``ctx.metrics``, and the
series the organization's data sources answer, ``ctx.data_sources``: read alike), change
records and the commits deploys ship (``ctx.changes``), and status notices and the service
catalog's dependency lines (``ctx.knowledge``). `sleuth_core.rca.analyze` finds the onset, ranks the
suspects and gives the verdict; `report` writes markdown with the verdict in its first sentence,
every claim cited with ``[[source:N]]``, and `analysis_dict` the structured result whose
``evidence`` lists the cited source ids.

Source records for change records and metric queries are built by ``sleuth_shell.agents.sources``
(`change_source`, `metric_source`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sleuth_core.rca import (
    Alert,
    Analysis,
    Change,
    ErrorSeries,
    ErrorSignature,
    Evidence,
    ExternalSignal,
    MetricPoints,
    Suspect,
    analyze,
    message_template,
)
from sleuth_core.render import RenderedAnswer, render_answer
from sleuth_shell.agents.base import AgentContext, ChangeRecord, KnowledgeHit, Pulled, SourceRecord
from sleuth_shell.agents.pulled import pull_for, pulled_section, pulled_source
from sleuth_shell.agents.sources import (
    change_source,
    knowledge_source,
    metric_source,
)
from sleuth_shell.text import format_ts

__all__ = [
    "ERROR_LEVELS",
    "LOOKBACK",
    "Gathered",
    "analysis_dict",
    "change_source",
    "final_analysis",
    "gather",
    "metric_source",
    "render_numbered",
    "report",
]

ERROR_LEVELS: tuple[str, ...] = ("ERROR", "CRITICAL")
#: The levels whose messages make a failure's signature (warnings included: rejections, limits).
SIGNAL_LEVELS: tuple[str, ...] = ("WARNING", "ERROR", "CRITICAL")
#: How far before the alert the onset is looked for (slow leaks start hours before the alert).
LOOKBACK = timedelta(hours=12)
#: How far before the alert changes are considered (delayed-onset faults).
CHANGE_LOOKBACK = timedelta(hours=72)
_BUCKET_SECONDS = 300
_MAX_SERVICES = 10
_MAX_LINE_SERVICES = 8
_MAX_LINES = 2000
_RECENT = timedelta(hours=3)
#: A deploy that undoes an earlier one (its summary or id says so).
_ROLLBACK = re.compile(r"\broll(?:ed|s|ing)?[ -]?back\b|\brevert", re.IGNORECASE)
_CATALOG_LINE = re.compile(r"^\s*[-*]\s*`?([A-Za-z0-9_.-]+)`?\s*:(.*)$")
_CALLS = re.compile(r"\b(?:calls|depends on|uses|reads from|talks to)\b([^;.\n]*)", re.IGNORECASE)
_STATUS_TITLE = re.compile(
    r"status|outage|degrad|disruption|health|service (?:issue|notice|incident)", re.IGNORECASE
)


@dataclass
class Gathered:
    """What `gather` read: the engine's input, and the records to cite for each part of it."""

    evidence: Evidence
    start: datetime
    end: datetime
    records: dict[str, ChangeRecord] = field(default_factory=dict)
    documents: dict[str, KnowledgeHit] = field(default_factory=dict)
    catalog: KnowledgeHit | None = None
    queries: int = 0
    searches: int = 0
    has_changes: bool = False
    pulled: Pulled = field(default_factory=Pulled)
    asked: bool = False
    """A question about the window ``start``..``end``, not an alert: the report says so."""

    @property
    def has_data(self) -> bool:
        return self.has_changes or bool(self.evidence.metrics) or self.pulled.consulted > 0


def _catalog_dependencies(content: str, known: Sequence[str]) -> list[tuple[str, str]]:
    """``(caller, callee)`` pairs from service-catalog lines like ``- a: ...; calls b, c``."""
    pairs: list[tuple[str, str]] = []
    names = {k.lower(): k for k in known}
    for line in content.splitlines():
        match = _CATALOG_LINE.match(line)
        if not match or match.group(1).lower() not in names:
            continue
        caller = names[match.group(1).lower()]
        for calls in _CALLS.finditer(match.group(2)):
            for word in re.findall(r"[A-Za-z0-9_.-]+", calls.group(1)):
                callee = names.get(word.lower().strip("."))
                if callee and callee != caller:
                    pairs.append((caller, callee))
    return pairs


async def gather(
    ctx: AgentContext,
    *,
    title: str,
    service: str,
    fired: datetime,
    text: str = "",
    known: Sequence[str] = (),
    expression: str | None = None,
    window_start: datetime | None = None,
) -> Gathered:
    """Read what the engine needs for an alert that fired at ``fired`` (see the module doc), or
    for a question about the window ``window_start``..``fired`` (then only that window is read
    for the onset, and the report speaks of the window, not of an alert); ``expression`` is the
    alert's own query, read from the data sources too."""
    org = ctx.org_id
    asked = window_start is not None
    start = window_start if window_start is not None else fired - LOOKBACK
    end = min(fired + timedelta(minutes=5), max(ctx.now, fired))
    queries = 0
    # Changes and metrics first: without either there is nothing for the engine to reason over,
    # and the caller writes its log-only answer (these two empty look-ups are not charged).
    metrics = await ctx.metrics.query(org, start, end, None, None, 300)
    pulled = await pull_for(
        ctx, services=[service, *known], start=start, end=end, expression=expression
    )
    metrics = [*metrics, *pulled.series]
    records = await ctx.changes.query(org, fired - CHANGE_LOOKBACK, end, None, None, None, 1000)
    if not metrics and not records and not pulled.consulted:
        return Gathered(Evidence(Alert(title, service, fired, text)), start, end, asked=asked)
    queries += 2
    bounds = await ctx.logs.time_bounds(org)
    queries += 1
    since = max(start, bounds[0]) if bounds is not None else start
    counts = await ctx.logs.counts(org, start, end, None)
    queries += 1
    errors_by_service: dict[str, int] = {}
    for svc, level, count in counts:
        if level in SIGNAL_LEVELS:
            errors_by_service[svc] = errors_by_service.get(svc, 0) + count
    noisy = sorted(errors_by_service, key=lambda s: (-errors_by_service[s], s))[:_MAX_SERVICES]
    series: list[ErrorSeries] = []
    for svc in noisy:
        histogram = await ctx.logs.histogram(
            org, start, end, _BUCKET_SECONDS, [svc], list(ERROR_LEVELS)
        )
        queries += 1
        if histogram:
            # Start the series at the look-back's first bucket so the baseline is the quiet time.
            first = datetime.fromtimestamp(
                since.timestamp() // _BUCKET_SECONDS * _BUCKET_SECONDS, tz=since.tzinfo
            )
            points = [(first, 0.0)] if histogram[0][0] > first else []
            points += [(t, float(n)) for t, n in histogram]
            series.append(ErrorSeries(svc, _BUCKET_SECONDS, tuple(points)))
    signatures: list[ErrorSignature] = []
    for svc in noisy[:_MAX_LINE_SERVICES]:
        # The error lines themselves (oldest first), grouped by message template: messages that
        # differ only in numbers and ids are one failure.
        levels = list(SIGNAL_LEVELS)
        lines = await ctx.logs.messages(org, start, end, [svc], levels, _MAX_LINES)
        queries += 1
        if len(lines) >= _MAX_LINES:
            # A chatty service: the oldest lines filled the page, so read the recent hours too
            # (where the failure usually is); counts in between are then a lower bound.
            recent_start = max(start, fired - _RECENT)
            recent = await ctx.logs.messages(org, recent_start, end, [svc], levels, _MAX_LINES)
            queries += 1
            seen = {line[0] for line in lines}
            lines = sorted(
                [*lines, *(r for r in recent if r[0] not in seen)],
                key=lambda r: (r[1], r[0]),
            )
        groups: dict[str, list[Any]] = {}
        for _line_id, timestamp, message in lines:
            group = groups.setdefault(message_template(message), [message, 0, None, None])
            group[1] += 1
            group[2] = group[2] or timestamp
            group[3] = timestamp
        for sample, count, first, last in groups.values():
            signatures.append(ErrorSignature(svc, sample, count, first, last))
    metric_points = [
        MetricPoints(m.name, m.service, m.points, tuple(sorted(m.labels.items()))) for m in metrics
    ]
    have = {r.change_id for r in records}
    shipped = sorted({c for r in records for c in r.ships if c not in have})
    if shipped:
        records = records + await ctx.changes.get_many(org, shipped)
        queries += 1
    by_id = {r.change_id: r for r in records}
    all_services = list(dict.fromkeys([*known, *errors_by_service, *(m.service for m in metrics)]))
    all_services += [r.service for r in records if r.service not in all_services]
    # Knowledge: the service catalog (dependencies) and provider status notices.
    searches = 0
    catalog = None
    deps: list[tuple[str, str]] = []
    signals: list[ExternalSignal] = []
    documents: dict[str, KnowledgeHit] = {}
    for hit in await ctx.knowledge.search(org, "service catalog dependencies calls", 3):
        if "catalog" in hit.title.lower() or len(_catalog_dependencies(hit.content, all_services)):
            catalog = hit
            deps = _catalog_dependencies(hit.content, all_services)
            break
    searches += 1
    words = " ".join(
        dict.fromkeys(
            w
            for sig in signatures[:8]
            for w in re.findall(r"[A-Za-z][A-Za-z0-9.-]{3,}", sig.message)
        )
    )
    status_query = f"status incident outage degraded {words}"[:400]
    for hit in await ctx.knowledge.search(org, status_query, 5):
        if _STATUS_TITLE.search(hit.title):
            ref = f"doc:{hit.id}"
            documents[ref] = hit
            signals.append(ExternalSignal(hit.title, hit.content, None, ref))
    searches += 1
    evidence = Evidence(
        alert=Alert(title, service, fired, text),
        errors=tuple(series),
        signatures=tuple(signatures),
        metrics=tuple(metric_points),
        changes=tuple(
            Change(
                r.change_id,
                r.service,
                r.kind,
                r.timestamp,
                r.summary,
                tuple(r.files),
                r.diff,
                tuple(r.ships),
                r.author or "",
            )
            for r in sorted(by_id.values(), key=lambda r: (r.timestamp, r.change_id))
        ),
        signals=tuple(signals),
        dependencies=tuple(deps),
        services=tuple(all_services),
        since=since,
    )
    return Gathered(
        evidence,
        start,
        end,
        by_id,
        documents,
        catalog,
        queries,
        searches,
        has_changes=bool(records),
        pulled=pulled,
        asked=asked,
    )


def _span(gathered: Gathered) -> str:
    """The time the report looked at, in words: the asked window, or the hours before the alert."""
    if gathered.asked:
        return f"between {_t(gathered.start)} and {_t(gathered.end)}"
    return f"in the {int(LOOKBACK.total_seconds() // 3600)} hours before the alert"


def _i(text: object, limit: int = 200) -> str:
    """Inline-safe text: one line, no markers, bounded."""
    line = " ".join(str(text).split()).replace("§", "").replace("[[", "[ [")
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _c(text: object, limit: int = 160) -> str:
    return "`" + _i(text, limit).replace("`", "'") + "`"


def _t(value: datetime) -> str:
    return f"§{format_ts(value)}§"


Cite = Callable[[SourceRecord], str]
"""Registers a source record and returns its ``[[source:N]]`` marker."""


def _cite_id(marker: str) -> int:
    return int(marker[len("[[source:") : -2])


def report(
    gathered: Gathered,
    analysis: Analysis,
    cite: Cite,
    *,
    public_url: str,
    cite_errors: Callable[[Sequence[str] | None], str],
) -> tuple[str, list[int]]:
    """The investigation's markdown (verdict first) and the source ids of its evidence."""
    ev = gathered.evidence
    evidence_ids: list[int] = []

    def use(marker: str) -> str:
        sid = _cite_id(marker)
        if sid not in evidence_ids:
            evidence_ids.append(sid)
        return marker

    def change_cite(change_id: str) -> str:
        record = gathered.records.get(change_id)
        return cite(change_source(0, change=record, public_url=public_url)) if record else ""

    def metric_cite(service: str, name: str) -> str:
        pulled = gathered.pulled.query_of(service, name)
        if pulled is not None:
            return cite(pulled_source(pulled))
        return cite(
            metric_source(
                0,
                start=gathered.start,
                end=gathered.end,
                services=[service],
                names=[name],
                description=f"Metric {name} of {service}",
                public_url=public_url,
            )
        )

    origin = analysis.service
    affected = list(analysis.affected_services)
    errors_cite = cite_errors(affected or None) if affected else ""
    onset_cites: list[str] = []
    if errors_cite:
        onset_cites.append(errors_cite)
    for onset in analysis.onsets:
        if onset.basis == "metric" and onset.service == origin:
            onset_cites.insert(0, metric_cite(onset.service, onset.metric))
    if analysis.onset is None:
        origin = None
    onset_text = (
        f"**{_i(origin, 100)}** began failing at {_t(analysis.onset)}"
        if origin and analysis.onset
        else ""
    )
    downstream = [s for s in affected if s != origin]
    down_text = f", then {', '.join(f'**{_i(s, 100)}**' for s in downstream)}" if downstream else ""
    parts: list[str] = []
    if analysis.verdict == "change" and analysis.change_id:
        record = gathered.records.get(analysis.change_id)
        cc = use(change_cite(analysis.change_id))
        deploy = analysis.deploy_id
        dc = use(change_cite(deploy)) if deploy else ""
        summary = f" ({_c(record.summary)})" if record and record.summary else ""
        deploy_record = gathered.records.get(deploy) if deploy else None
        version = _version(deploy_record) if deploy_record else ""
        named = (
            f" ({_i(deploy_record.service, 100)} {_i(version, 60)})"
            if deploy_record and version
            else ""
        )
        shipped = f", shipped by deploy {_c(deploy)}{named} {dc}" if deploy else ""
        for marker in onset_cites:
            use(marker)
        parts.append(
            f"**Root cause: {record.kind if record else 'change'} {_c(analysis.change_id)}"
            f"**{summary} {cc}{shipped}. {onset_text}{down_text} "
            + " ".join(onset_cites)
            + f". **Confidence: {analysis.confidence}**."
        )
    elif analysis.verdict == "external":
        ext_cites = list(onset_cites)
        for signal in ev.signals:
            if signal.title.strip() and signal.title.strip() in analysis.external_cause:
                hit = gathered.documents.get(signal.ref)
                if hit is not None:
                    ext_cites.insert(0, cite(_knowledge(hit, public_url, ev.alert.fired_at)))
        cited_metrics = {
            (m.service, m.name)
            for m in ev.metrics
            if m.name in analysis.external_cause and m.service in analysis.external_cause
        }
        for service_name, metric_name in sorted(cited_metrics):
            ext_cites.insert(0, metric_cite(service_name, metric_name))
        for marker in ext_cites:
            use(marker)
        parts.append(
            "**No change in the data explains this**: the evidence points outside, to "
            f"{_i(analysis.external_cause, 300)} "
            + " ".join(ext_cites)
            + f". {onset_text}{down_text}. **Confidence: {analysis.confidence}**."
        )
    else:
        for marker in onset_cites:
            use(marker)
        lead = (
            f"**No change in the data explains this**, and no cause is established. "
            f"{onset_text}{down_text} " + " ".join(onset_cites) + "."
            if origin
            else "**No change in the data explains this**: no service's error rate or metrics "
            f"changed {_span(gathered)}."
        )
        parts.append(lead + f" **Confidence: {analysis.confidence}**.")
    # Evidence.
    bullets: list[str] = []
    if analysis.verdict == "change" and analysis.change_id:
        best = next(s for s in analysis.suspects if s.change.change_id == analysis.change_id)
        terms = _spelled_terms(best, gathered.records.get(best.change.change_id), 5)
        shows = f" ({terms})" if terms else ""
        lead_time = analysis.onset - best.effective_at if analysis.onset else timedelta(0)
        began = f" at {_t(analysis.onset)} {errors_cite}" if analysis.onset and errors_cite else ""
        bullets.append(
            f"- {best.change.kind.capitalize()} {_c(best.change.change_id)} reached production at "
            f"{_t(best.effective_at)} {change_cite(best.change.change_id)}, "
            f"{_duration(lead_time)} before the failure began{began}, and touches what the "
            f"failure shows{shows} {change_cite(best.change.change_id)}."
        )
    onset_floor = (analysis.onset or ev.alert.fired_at) - timedelta(hours=1)
    new_sigs = sorted(
        (
            s
            for s in ev.signatures
            if s.service in affected and s.first_seen >= onset_floor and s.count >= 2
        ),
        key=lambda s: (-s.count, s.first_seen),
    )[:5]
    for sig in new_sigs:
        bullets.append(
            f"- **{_i(sig.service, 100)}** {_c(sig.message)}: {sig.count} time(s), first "
            f"{_t(sig.first_seen)}, last {_t(sig.last_seen)} {cite_errors([sig.service])}"
        )
    for onset in analysis.onsets:
        if onset.basis == "metric":
            bullets.append(
                f"- {_c(onset.metric)} of **{_i(onset.service, 100)}** started climbing at "
                f"{_t(onset.at)}, before the errors (a slow build-up) "
                f"{metric_cite(onset.service, onset.metric)}"
            )
    parts.append("## Evidence\n\n" + "\n".join(bullets))
    # Timeline.
    events: list[tuple[datetime, int, str]] = []
    onset_at = analysis.onset or ev.alert.fired_at
    shown = sorted(
        (s for s in analysis.suspects if s.change.kind != "deploy" or not s.ruled_out),
        key=lambda s: (
            bool(s.ruled_out),
            -s.relatedness,
            abs((onset_at - s.effective_at).total_seconds()),
        ),
    )
    near = [
        s
        for s in analysis.suspects
        if onset_at - timedelta(hours=3) <= s.effective_at <= ev.alert.fired_at
        or s.change.change_id in (analysis.change_id, analysis.deploy_id)
    ]
    for suspect in near[:15]:
        ch = suspect.change
        events.append(
            (
                suspect.effective_at,
                0,
                f"{_t(suspect.effective_at)} {ch.kind} {_c(ch.change_id)} on "
                f"**{_i(ch.service, 100)}**: {_c(ch.summary)} {change_cite(ch.change_id)}",
            )
        )
    for onset in analysis.onsets:
        shown_by = (
            metric_cite(onset.service, onset.metric)
            if onset.basis == "metric"
            else cite_errors([onset.service])
        )
        events.append(
            (
                onset.at,
                1,
                f"{_t(onset.at)} **{_i(onset.service, 100)}** began failing {shown_by}".rstrip(),
            )
        )
    if not gathered.asked:
        events.append((ev.alert.fired_at, 2, f"{_t(ev.alert.fired_at)} the alert fired"))
    events.sort(key=lambda e: (e[0], e[1], e[2]))
    parts.append("## Timeline\n\n" + "\n".join(f"- {e[2]}" for e in events))
    # Suspects.
    lines = []
    for suspect in shown[:8]:
        lines.append(
            _suspect_line(
                suspect, change_cite, analysis, gathered.records.get(suspect.change.change_id)
            )
        )
    if lines:
        parts.append("## Suspects considered\n\n" + "\n".join(lines))
    else:
        before = "before the window's end" if gathered.asked else "before the alert"
        parts.append(f"## Suspects considered\n\nNo change records {before}.")
    sources_section = pulled_section(gathered.pulled, cite)
    if sources_section:
        parts.append(sources_section)
    recovery = _recovery(analysis, ev.alert.fired_at, gathered, change_cite, cite_errors)
    if recovery:
        parts.append("## Recovery\n\n" + recovery)
    parts.append("## Remediation\n\n" + _i(analysis.remediation, 400))
    if gathered.catalog is not None and analysis.affected_services:
        parts.append(
            "Dependencies were read from "
            f"*{_i(gathered.catalog.title)}* "
            + cite(_knowledge(gathered.catalog, public_url, ev.alert.fired_at))
            + "."
        )
    return "\n\n".join(parts), evidence_ids


def _version(record: ChangeRecord) -> str:
    """A deploy's version (``v2.14.0``) from its attributes, or ""."""
    for key in ("version", "to_version", "new_version"):
        value = record.attributes.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _record_text(record: ChangeRecord | None) -> str:
    """Everything a change record spells out, lowercased (what citing it can vouch for)."""
    if record is None:
        return ""
    parts = [record.change_id, record.service, record.summary, *record.files, *record.ships]
    return " ".join(" ".join(parts).split()).lower() + " " + record.diff.lower()


def _duration(delta: timedelta) -> str:
    minutes = max(0, int(delta.total_seconds() // 60))
    if minutes < 120:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{minutes // 60} hours"


def _spelled_terms(suspect: Suspect, record: ChangeRecord | None, limit: int) -> str:
    """The suspect's matched terms that its record spells out, as code spans (the engine matches
    stems and word pieces, which the record may not contain verbatim)."""
    spelled = _record_text(record)
    terms = [t for t in suspect.matched if " " not in t and t.lower() in spelled]
    return ", ".join(_c(t, 60) for t in terms[:limit])


def _suspect_line(
    suspect: Suspect,
    change_cite: Callable[[str], str],
    analysis: Analysis,
    record: ChangeRecord | None,
) -> str:
    ch = suspect.change
    terms = _spelled_terms(suspect, record, 4)
    if ch.change_id == analysis.change_id and analysis.verdict == "change":
        why = f"the cause: touches {terms}" if terms else "the cause"
    elif suspect.ruled_out:
        why = f"ruled out: {suspect.ruled_out}"
    elif suspect.relatedness < 0.5:
        why = f"too weakly related ({terms})" if terms else "too weakly related"
    else:
        why = f"related ({terms}) but less than the verdict's evidence"
    return (
        f"- {ch.kind} {_c(ch.change_id)} on **{_i(ch.service, 100)}** at "
        f"{_t(suspect.effective_at)} — {why} {change_cite(ch.change_id)}"
    )


def _recovery(
    analysis: Analysis,
    fired_at: datetime,
    gathered: Gathered,
    change_cite: Callable[[str], str],
    cite_errors: Callable[[Sequence[str] | None], str],
) -> str:
    """A rollback of the first failing service after the onset, and whether its errors stopped
    with it (the last error within a minute before the rollback or soon after, and quiet for at
    least five minutes before the alert): "" when no rollback followed the onset."""
    origin, onset = analysis.service, analysis.onset
    if not origin or onset is None:
        return ""
    rollbacks = sorted(
        (
            r
            for r in gathered.records.values()
            if r.service == origin
            and r.kind == "deploy"
            and onset < r.timestamp <= fired_at
            and (_ROLLBACK.search(r.summary) or _ROLLBACK.search(r.change_id))
        ),
        key=lambda r: r.timestamp,
    )
    if not rollbacks:
        return ""
    rollback = rollbacks[0]
    last_error = max(
        (sig.last_seen for sig in gathered.evidence.signatures if sig.service == origin),
        default=None,
    )
    line = f"- {_c(rollback.summary)} at {_t(rollback.timestamp)} {change_cite(rollback.change_id)}"
    if (
        last_error is not None
        and last_error >= rollback.timestamp - timedelta(minutes=1)
        and last_error <= fired_at - timedelta(minutes=5)
    ):
        line += (
            f"; the last error from **{_i(origin, 100)}** was at {_t(last_error)} "
            f"{cite_errors([origin])}. Errors stopped after the rollback."
        )
    else:
        line += "."
    return line


def _knowledge(hit: KnowledgeHit, public_url: str, at: datetime) -> SourceRecord:
    return knowledge_source(
        0,
        doc_id=hit.id,
        title=_i(hit.title),
        url=hit.url,
        search=hit.title,
        at=at,
        public_url=public_url,
    )


def analysis_dict(analysis: Analysis, evidence: Sequence[int]) -> dict[str, Any]:
    """The structured result (``AgentResult.analysis``)."""
    return {
        "verdict": analysis.verdict,
        "change_id": analysis.change_id,
        "deploy_id": analysis.deploy_id,
        "service": analysis.service,
        "affected_services": list(analysis.affected_services),
        "confidence": analysis.confidence,
        "remediation": analysis.remediation,
        "external_cause": analysis.external_cause or None,
        "onset": format_ts(analysis.onset) if analysis.onset else None,
        "evidence": list(evidence),
    }


def run_engine(gathered: Gathered) -> Analysis:
    """`sleuth_core.rca.analyze` over what was gathered."""
    return analyze(gathered.evidence)


_KEY = "__sleuth_source_key"


def render_numbered(
    markdown: str, sources: Mapping[Any, Mapping[str, Any]], *, sources_section: bool
) -> tuple[RenderedAnswer, dict[str, int]]:
    """`sleuth_core.render.render_answer`, and each cited source id's final citation number
    (``[n]``: its position in the rendered sources, from 1)."""
    tagged = {key: {**record, _KEY: str(key)} for key, record in sources.items()}
    rendered = render_answer(markdown, tagged, sources_section=sources_section)
    numbers: dict[str, int] = {}
    for n, record in enumerate(rendered.sources, start=1):
        numbers[str(record.pop(_KEY))] = n
    return rendered, numbers


def final_analysis(
    analysis: Mapping[str, Any] | None, numbers: Mapping[str, int]
) -> dict[str, Any] | None:
    """``analysis`` with ``evidence`` as final citation numbers (see `render_numbered`);
    evidence the rendered answer does not cite is left out."""
    if not analysis:
        return None
    out = dict(analysis)
    evidence = [numbers[str(e)] for e in out.get("evidence") or [] if str(e) in numbers]
    out["evidence"] = sorted(set(evidence))
    return out
