"""Root-cause investigation for the embedded agent: gather evidence, run the engine, write it up.

`gather` reads, for an alert (or a "why" question), the hours before it: per-service error
histograms and distinct error messages (``ctx.logs``), metric series (``ctx.metrics``, and the
series the organization's data sources answer, ``ctx.data_sources``: read alike), change
records and the commits deploys ship (``ctx.changes``), and status notices and the service
catalog's dependency lines (``ctx.knowledge``). `sleuth_core.rca.analyze` finds the onset, ranks the
suspects and gives the verdict; `report` writes markdown with the verdict in its first sentence,
every claim cited with ``[[source:N]]``, and `analysis_dict` the structured result whose
``evidence`` lists the cited source ids.

When the organization sends no change records, the deploy lines of its logs (``deployed ...``)
become deploy change records for the engine, each cited as its log line. Source records come from
``sleuth_shell.agents.sources``.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sleuth_core.language import format_ts, parse_window
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
from sleuth_shell.agents.base import (
    AgentContext,
    ChangeRecord,
    KnowledgeHit,
    LogRecord,
    LogStore,
    Pulled,
    PulledQuery,
    SourceRecord,
)
from sleuth_shell.agents.claims import change_text
from sleuth_shell.agents.embedded_run import code, inline, ts
from sleuth_shell.agents.pulled import pull_for, pulled_section, pulled_source, pulled_text
from sleuth_shell.agents.sources import (
    change_source,
    knowledge_source,
    log_source,
    metric_source,
    subject_line,
)
from sleuth_shell.agents.trace_evidence import (
    SPAN_SERIES,
    TraceFindings,
    add_to_evidence,
    durations_source,
    read_traces,
)

__all__ = [
    "CHANGE_LOOKBACK",
    "ERROR_LEVELS",
    "LOOKBACK",
    "Gathered",
    "analysis_dict",
    "change_source",
    "error_series",
    "errors_text",
    "final_analysis",
    "fired_at",
    "gather",
    "look_back",
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
#: How long after an alert an investigation still reads whether the failure went on.
AFTER_ALERT = timedelta(hours=24)
#: Read that only when the investigation runs this long after the look-back's end.
_LATER = timedelta(minutes=5)
_BUCKET_SECONDS = 300
_MAX_SERVICES = 10
_MAX_LINE_SERVICES = 8
_MAX_LINES = 2000
_RECENT = timedelta(hours=3)
#: A deploy that undoes an earlier one (its summary or id says so).
_ROLLBACK = re.compile(r"\broll(?:ed|s|ing)?[ -]?back\b|\brevert", re.IGNORECASE)
#: A catalog entry: a list item (``- name: ...``) or a table row (``| **name** | ... |``).
_CATALOG_LINE = re.compile(
    r"^\s*(?:[-*+]|\|)\s*(?:\*\*|`)?([A-Za-z0-9_.-]+)(?:\*\*|`)?\s*(?::|\||\s[-\u2013\u2014]\s)(.*)$"
)
_CALLS = re.compile(r"\b(?:calls|depends on|uses|reads from|talks to)\b([^;.\n]*)", re.IGNORECASE)
_STATUS_TITLE = re.compile(
    r"status|outage|degrad|disruption|health|service (?:issue|notice|incident)", re.IGNORECASE
)
#: A document written as a status page's updates ("Investigating (10:04 UTC): ...", "Resolved -").
_STATUS_UPDATES = re.compile(
    r"\b(?:investigating|identified|monitoring|resolved)\b\s*(?:[:(\u2013\u2014-]|\d)|"
    r"\bwe are (?:investigating|seeing elevated|aware of)",
    re.IGNORECASE,
)


_SEVERITY = {"WARNING": 1, "ERROR": 2, "CRITICAL": 3}
#: Attribute keys that locate an error in code (stack traces, exception types, frames).
_CODE_KEYS = re.compile(
    r"stack|trace(?!_id)|exception|exc|panic|backtrace|crash|error[._]?(?:type|kind|class)|"
    r"frame|file|line|func|"
    r"method|caller|location|source",
    re.IGNORECASE,
)


def code_location(attributes: Mapping[str, Any]) -> str:
    """The text of a log record's attributes that locate it in code (stack trace, exception
    type, ``file:line``, function), one ``key: value`` per line; "" when it has none.

    >>> code_location({"exception": "KeyError", "stack": "File \\"a.py\\", line 3, in f", "x": 1})
    'exception: KeyError\\nstack: File "a.py", line 3, in f'
    """
    out = []
    for key, value in attributes.items():
        if not _CODE_KEYS.search(str(key)) or str(key).lower().endswith(("_id", "id")):
            continue
        if isinstance(value, Mapping):
            value = " ".join(f"{k}={v}" for k, v in value.items())
        elif isinstance(value, list):
            value = "\n".join(str(v) for v in value)
        out.append(f"{key}: {str(value)[:2000]}")
    return "\n".join(out)


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
    has_logs: bool = False
    changes_from_logs: bool = False
    asked: bool = False
    """A question about the window ``start``..``end``, not an alert: the report says so."""
    #: What each cited source vouches for (source id -> text), from what was read here, so the
    #: claim check need not read it again.
    texts: dict[int, str] = field(default_factory=dict)
    traced: TraceFindings | None = None
    """What the trace store showed (already in ``evidence``)."""
    logged: set[str] = field(default_factory=set)
    """The services with errors in the logs."""

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


def fired_at(alert_time: datetime | None, prompt: str, now: datetime) -> datetime:
    """When the alert an investigation reads fired: the payload's own time, or ``now`` when it
    has none or a later one; when the responder's instructions name a window ("the last 6
    hours") and that time lies outside it, the window's end (the instructions win).

    >>> from datetime import UTC
    >>> now = datetime(2026, 1, 1, 12, tzinfo=UTC)
    >>> old = datetime(2021, 6, 4, 13, 35, tzinfo=UTC)
    >>> fired_at(old, "", now) == old
    True
    >>> fired_at(old, "What failed in the last 6 hours?", now) == now
    True
    """
    fired = alert_time if alert_time is not None and alert_time <= now else now
    asked = parse_window(prompt, now) if prompt.strip() else None
    if asked is not None and not asked.start <= fired <= asked.end:
        fired = min(asked.end, now)
    return fired


def look_back(fired: datetime, now: datetime) -> tuple[datetime, datetime]:
    """The window read for an alert that fired at ``fired``: `LOOKBACK` before it to five minutes
    after (no later than ``now`` unless the alert is dated later).

    >>> from datetime import UTC
    >>> t = datetime(2026, 1, 1, 12, tzinfo=UTC)
    >>> [format_ts(x) for x in look_back(t, t)]
    ['2026-01-01T00:00:00Z', '2026-01-01T12:00:00Z']
    """
    return fired - LOOKBACK, min(fired + timedelta(minutes=5), max(now, fired))


async def error_series(
    logs: LogStore,
    org: int,
    start: datetime,
    end: datetime,
    services: Sequence[str],
    since: datetime,
) -> list[ErrorSeries]:
    """Error-level log counts per 5-minute bucket of each of ``services`` in ``start``..``end``
    (services with no errors left out), each series starting at ``since``'s bucket with a zero
    when its first error comes later, so the baseline is the quiet time. What the engine reads
    and what the investigation page draws."""
    series: list[ErrorSeries] = []
    first = datetime.fromtimestamp(
        since.timestamp() // _BUCKET_SECONDS * _BUCKET_SECONDS, tz=since.tzinfo
    )
    for svc in services:
        histogram = await logs.histogram(
            org, start, end, _BUCKET_SECONDS, [svc], list(ERROR_LEVELS)
        )
        if histogram:
            points = [(first, 0.0)] if histogram[0][0] > first else []
            points += [(t, float(n)) for t, n in histogram]
            series.append(ErrorSeries(svc, _BUCKET_SECONDS, tuple(points)))
    return series


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
    onset: datetime | None = None,
) -> Gathered:
    """Read what the engine needs for an alert that fired at ``fired`` (see the module doc), or
    for a question about the window ``window_start``..``fired`` (then only that window is read
    for the onset, and the report speaks of the window, not of an alert); ``expression`` is the
    alert's own query, read from the data sources too; ``onset`` is when the alert or question
    says the failure began (`sleuth_core.language.stated_onset`), if it says so."""
    asked = window_start is not None
    start, end = look_back(fired, ctx.now)
    if window_start is not None:
        start = window_start
    # The data sources answer over the network: their pull runs while the stores are read (its
    # series join the stored ones where the engine's input is put together), and so does the
    # reading of the trace store.
    pulling = asyncio.create_task(
        pull_for(ctx, services=[service, *known], start=start, end=end, expression=expression)
    )
    tracing = asyncio.create_task(read_traces(ctx, start, end))
    try:
        await asyncio.sleep(0)  # the pull sends its first request before the stores are read
        gathered = await _gather_stores(
            ctx, pulling, title, service, fired, text, known, start, end, asked, onset
        )
        traced = await tracing
    finally:
        for task in (pulling, tracing):
            if not task.done():  # a store failed: the others are not waited for
                task.cancel()
            elif not task.cancelled():
                task.exception()  # seen: the first failure is the one raised
    logged = gathered.evidence
    gathered.logged = {e.service for e in logged.errors} | {s.service for s in logged.signatures}
    gathered.evidence = add_to_evidence(gathered.evidence, traced)
    gathered.traced = traced
    gathered.queries += traced.queries
    return gathered


async def _gather_stores(
    ctx: AgentContext,
    pulling: asyncio.Task[Pulled],
    title: str,
    service: str,
    fired: datetime,
    text: str,
    known: Sequence[str],
    start: datetime,
    end: datetime,
    asked: bool,
    onset: datetime | None = None,
) -> Gathered:
    """`gather`'s reading of the stores, ``pulling`` (the data sources' pull) awaited where its
    series are needed."""
    org = ctx.org_id
    queries = 0
    # Changes and metrics first (the logs are read in any case).
    metrics = await ctx.metrics.query(org, start, end, None, None, 300)
    records = await ctx.changes.query(org, fired - CHANGE_LOOKBACK, end, None, None, None, 1000)
    queries += 2
    bounds = await ctx.logs.time_bounds(org)
    queries += 1
    from_logs = False
    if not records and bounds is not None:
        # No change records sent: the deploy and rollback lines of the logs stand in for them.
        markers = await ctx.logs.query(
            org, fired - CHANGE_LOOKBACK, end, None, None, DEPLOY_MARKER, 200
        )
        queries += 1
        records = [_marker_change(line) for line in markers]
        from_logs = bool(records)
    since = max(start, bounds[0]) if bounds is not None else start
    counts = await ctx.logs.counts(org, start, end, None)
    queries += 1
    # Looked at well after the alert: which services still logged errors since the look-back
    # ended (a failure quiet since then no longer holds).
    until = min(ctx.now, fired + AFTER_ALERT) if not asked else None
    errors_after: frozenset[str] = frozenset()
    if until is not None and until - end >= _LATER:
        later = await ctx.logs.counts(org, end, until, None)
        queries += 1
        errors_after = frozenset(svc for svc, level, n in later if level in ERROR_LEVELS and n)
    else:
        until = None
    errors_by_service: dict[str, int] = {}
    for svc, level, count in counts:
        if level in SIGNAL_LEVELS:
            errors_by_service[svc] = errors_by_service.get(svc, 0) + count
    noisy = sorted(errors_by_service, key=lambda s: (-errors_by_service[s], s))[:_MAX_SERVICES]
    series = await error_series(ctx.logs, org, start, end, noisy, since)
    queries += len(noisy)
    signatures: list[ErrorSignature] = []
    for svc in noisy[:_MAX_LINE_SERVICES]:
        # The error lines themselves (oldest first), grouped by message template: messages that
        # differ only in numbers and ids are one failure.
        levels = list(SIGNAL_LEVELS)
        lines = await ctx.logs.query(org, start, end, [svc], levels, None, _MAX_LINES)
        queries += 1
        if len(lines) >= _MAX_LINES:
            # A chatty service: the oldest lines filled the page, so read the recent hours too
            # (where the failure usually is); counts in between are then a lower bound.
            recent_start = max(start, fired - _RECENT)
            recent = await ctx.logs.query(org, recent_start, end, [svc], levels, None, _MAX_LINES)
            queries += 1
            seen = {line.id for line in lines}
            lines = sorted(
                [*lines, *(r for r in recent if r.id not in seen)],
                key=lambda r: (r.timestamp, r.id),
            )
        groups: dict[str, list[Any]] = {}
        for line in lines:
            group = groups.setdefault(
                message_template(line.message), [line.message, 0, None, None, "", "", True]
            )
            group[6] = group[6] and line.message == group[0]
            group[1] += 1
            group[2] = group[2] or line.timestamp
            group[3] = line.timestamp
            if _SEVERITY.get(line.level, 0) > _SEVERITY.get(group[4], 0):
                group[4] = line.level
            if not group[5] and line.attributes:
                group[5] = code_location(line.attributes)
        for sample, count, first, last, level, detail, same in groups.values():
            signatures.append(
                ErrorSignature(svc, sample, count, first, last, level, detail, same and count > 1)
            )
    pulled = await pulling
    metrics = [*metrics, *pulled.series]
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
        if _STATUS_TITLE.search(hit.title) or _STATUS_UPDATES.search(hit.content):
            ref = f"doc:{hit.id}"
            documents[ref] = hit
            signals.append(ExternalSignal(hit.title, hit.content, None, ref))
    searches += 1
    evidence = Evidence(
        alert=Alert(title, service, fired, text, asked, onset),
        errors=tuple(series),
        signatures=tuple(signatures),
        metrics=tuple(metric_points),
        changes=tuple(
            Change(
                r.change_id,
                r.service,
                r.kind,
                r.timestamp,
                f"{r.summary} {r.attributes.get('note') or ''}".strip() if r.id == 0 else r.summary,
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
        until=until,
        errors_after=errors_after,
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
        has_logs=bounds is not None,
        changes_from_logs=from_logs,
        asked=asked,
    )


#: A log line recording a deploy or a rollback contains this word.
DEPLOY_MARKER = "deployed"
_VERSION = re.compile(r"\bv?\d+\.\d+(?:\.\d+)?\b")


def _marker_change(line: LogRecord) -> ChangeRecord:
    """A deploy marker line of the logs as a deploy change record (``id`` 0: not stored; its
    citation is the log line, see `report`)."""
    target = str(line.attributes.get("target") or line.attributes.get("service") or line.service)
    version = _VERSION.search(line.message)
    # The id is what the line itself spells (its version, else the line), so citing the line
    # vouches for it.
    change_id = version.group(0) if version else " ".join(line.message.split())[:80]
    note = line.attributes.get("change")
    author = line.attributes.get("author")
    return ChangeRecord(
        0,
        change_id,
        line.timestamp,
        target,
        "deploy",
        line.message,
        str(author) if author else None,
        attributes={
            "log_service": line.service,
            "log_id": line.id,
            "note": note if isinstance(note, str) else "",
        },
    )


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

    def noted(marker: str, text: str) -> str:
        gathered.texts[_cite_id(marker)] = text
        return marker

    def change_cite(change_id: str) -> str:
        record = gathered.records.get(change_id)
        if record is None:
            return ""
        if record.id == 0 and "log_id" in record.attributes:
            # A deploy line of the logs: cite that line (its second, its service, the marker).
            at = record.timestamp.replace(microsecond=0)
            return noted(
                cite(
                    log_source(
                        0,
                        start=at,
                        end=at + timedelta(seconds=1),
                        services=[str(record.attributes["log_service"])],
                        levels=None,
                        text=DEPLOY_MARKER,
                        description=f"Deploy line in the logs: {inline(record.summary, 120)}",
                        public_url=public_url,
                    )
                ),
                f"{record.attributes['log_service']} {record.summary} {record.change_id}",
            )
        return noted(
            cite(change_source(0, change=record, public_url=public_url)), change_text(record)
        )

    pulled_markers: dict[str, str] = {}

    def pulled_cite(query: PulledQuery) -> str:
        """The marker citing a pulled query, vouched for by its text (both made once per
        query)."""
        marker = pulled_markers.get(query.artifact_id)
        if marker is None:
            marker = noted(cite(pulled_source(query)), pulled_text(query, gathered.pulled.notes))
            pulled_markers[query.artifact_id] = marker
        return marker

    def metric_cite(service: str, name: str) -> str:
        pulled = gathered.pulled.query_of(service, name)
        if pulled is not None:
            return pulled_cite(pulled)
        points = " ".join(
            f"{v:g}"
            for m in ev.metrics
            if m.service == service and m.name == name
            for _, v in m.points
        )
        if name == SPAN_SERIES and gathered.traced is not None:
            # The traces' span durations: cited as the service's traces, not the metric store.
            record = durations_source(gathered.traced, service, public_url)
            return noted(cite(record), f"{service} {name} {points}")
        return noted(
            cite(
                metric_source(
                    0,
                    start=gathered.start,
                    end=gathered.end,
                    services=[service],
                    names=[name],
                    description=f"Metric {name} of {service}",
                    public_url=public_url,
                )
            ),
            f"{service} {name} {points}",
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
    first_failure = _first_failure(ev, origin, analysis.onset) if origin else None
    onset_text = (
        f"**{inline(origin, 100)}** began failing at {ts(analysis.onset)}"
        + _first_failure_text(first_failure, analysis.onset)
        if origin and analysis.onset
        else ""
    )
    downstream = [s for s in affected if s != origin]
    down_text = (
        f", then {', '.join(f'**{inline(s, 100)}**' for s in downstream)}" if downstream else ""
    )
    parts: list[str] = []
    if analysis.verdict == "change" and analysis.change_id:
        record = gathered.records.get(analysis.change_id)
        cc = use(change_cite(analysis.change_id))
        deploy = analysis.deploy_id
        dc = use(change_cite(deploy)) if deploy else ""
        subject = subject_line(record.summary) if record else ""
        summary = f" ({code(subject, 160)})" if subject else ""
        deploy_record = gathered.records.get(deploy) if deploy else None
        version = _version(deploy_record) if deploy_record else ""
        named = (
            f" ({inline(deploy_record.service, 100)} {inline(version, 60)})"
            if deploy_record and version
            else ""
        )
        shipped = f", shipped by deploy {code(deploy, 160)}{named} {dc}" if deploy else ""
        for marker in onset_cites:
            use(marker)
        parts.append(
            f"**Root cause: {record.kind if record else 'change'} {code(analysis.change_id, 160)}"
            f"**{summary} {cc}{shipped}. {category_phrase(analysis.category)}. "
            f"{onset_text}{down_text} "
            + " ".join(onset_cites)
            + f". **Confidence: {analysis.confidence}**."
        )
    elif analysis.verdict == "external":
        ext_cites = list(onset_cites)
        for signal in ev.signals:
            if signal.title.strip() and signal.title.strip() in analysis.external_cause:
                hit = gathered.documents.get(signal.ref)
                if hit is not None:
                    marker = cite(_knowledge(hit, public_url, ev.alert.fired_at))
                    ext_cites.insert(0, noted(marker, f"{hit.title}\n{hit.content}"))
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
            f"{inline(analysis.external_cause, 300)} "
            + " ".join(ext_cites)
            + f". {category_phrase(analysis.category)}. "
            + (f"{onset_text}{down_text}. " if onset_text else "")
            + f"**Confidence: {analysis.confidence}**."
        )
    else:
        for marker in onset_cites:
            use(marker)
        looked = f"from {ts(gathered.start)} to {ts(gathered.end)}"
        if origin and analysis.category == "healthy":
            lead = (
                "**Healthy: the alert's condition no longer holds**, and no change in the data "
                f"explains the failure before it. {category_phrase('healthy')}. {onset_text}"
                f"{down_text} " + " ".join(onset_cites) + ", and it has since ended."
            )
        elif origin:
            lead = (
                "**No change in the data explains this**, and no cause is established. "
                f"{category_phrase(analysis.category)}. {onset_text}{down_text} "
                + " ".join(onset_cites)
                + "."
            )
        elif analysis.category == "healthy":
            quiet = cite_errors(None)
            use(quiet)
            condition = "the asked failure" if gathered.asked else "the alert's condition"
            lead = (
                "**No change in the data explains this**: the data shows no failure, so "
                f"{condition} does not hold (healthy). {category_phrase('healthy')}. No "
                f"service's error rate or metrics shifted {looked} {quiet}: the condition has "
                "cleared or never held."
            )
        else:
            lead = (
                "**No change in the data explains this**: no service's error rate or metrics "
                f"changed {looked}. "
                f"{category_phrase(analysis.category)}."
            )
        parts.append(lead + f" **Confidence: {analysis.confidence}**.")
    # Evidence.
    bullets: list[str] = []
    if analysis.verdict == "change" and analysis.change_id:
        best = next(s for s in analysis.suspects if s.change.change_id == analysis.change_id)
        terms = _spelled_terms(best, gathered.records.get(best.change.change_id), 5)
        shows = f" ({terms})" if terms else ""
        began = f" at {ts(analysis.onset)} {errors_cite}" if analysis.onset and errors_cite else ""
        if terms:
            why = f"touches what the failure shows{shows} {change_cite(best.change.change_id)}"
        elif "errors stopped when it was rolled back" in best.matched:
            why = "the errors stopped when it was rolled back (see Recovery)"
        elif "deployed minutes before the onset" in best.matched:
            why = "it is the one change on that service just before (it has no diff to read)"
        else:
            why = f"touches what the failure shows {change_cite(best.change.change_id)}"
        bullets.append(
            f"- {best.change.kind.capitalize()} {code(best.change.change_id, 160)} "
            "reached production at "
            f"{ts(best.effective_at)} {change_cite(best.change.change_id)}, before the failure "
            f"began{began}, and {why}."
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
            f"- **{inline(sig.service, 100)}** {code(sig.message, 160)}: "
            f"{sig.count} time(s), first "
            f"{ts(sig.first_seen)}, last {ts(sig.last_seen)} {cite_errors([sig.service])}"
        )
    erring = {e.service for e in ev.errors}
    for onset in analysis.onsets:
        if onset.basis == "metric":
            how = (
                "before the errors (a slow build-up)"
                if onset.service in erring
                else "with no error to show it (the failure shows in this series)"
            )
            bullets.append(
                f"- {code(onset.metric, 160)} of **{inline(onset.service, 100)}** "
                "left its baseline at "
                f"{ts(onset.at)}, {how} {metric_cite(onset.service, onset.metric)}"
            )
    if bullets:
        parts.append("## Evidence\n\n" + "\n".join(bullets))
    ruled = _hypothesis_lines(analysis, metric_cite, change_cite)
    if ruled:
        parts.append("## Ruled out\n\n" + "\n".join(ruled))
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
                f"{ts(suspect.effective_at)} {ch.kind} {code(ch.change_id, 160)} on "
                f"**{inline(ch.service, 100)}**: {code(_summary_of(ch, gathered), 160)} "
                f"{change_cite(ch.change_id)}",
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
                (
                    f"{ts(onset.at)} **{inline(onset.service, 100)}** began failing {shown_by}"
                ).rstrip(),
            )
        )
    if not gathered.asked:
        events.append((ev.alert.fired_at, 2, f"{ts(ev.alert.fired_at)} the alert fired"))
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
    elif not analysis.suspects:
        none = (
            "No change was weighed: the data dates no failure to weigh the changes against."
            if analysis.onset is None and gathered.has_changes
            else "No change records before the failure."
        )
        parts.append("## Suspects considered\n\n" + none)
    sources_section = pulled_section(gathered.pulled, pulled_cite)
    if sources_section:
        parts.append(sources_section)
    recovery = _recovery(analysis, ev.alert.fired_at, gathered, change_cite, cite_errors)
    if recovery:
        parts.append("## Recovery\n\n" + recovery)
    parts.append("## Remediation\n\n" + inline(analysis.remediation, 400))
    if gathered.catalog is not None and analysis.affected_services:
        parts.append(
            "Dependencies were read from "
            f"*{inline(gathered.catalog.title, 200)}* "
            + noted(
                cite(_knowledge(gathered.catalog, public_url, ev.alert.fired_at)),
                f"{gathered.catalog.title}\n{gathered.catalog.content}",
            )
            + "."
        )
    return "\n\n".join(parts), evidence_ids


_CATEGORY_WORDS = {
    "code_defect": "a code defect",
    "configuration_error": "a configuration error",
    "resource_exhaustion": "resource exhaustion",
    "dependency_failure": "a dependency failure",
    "infrastructure": "an infrastructure failure",
    "data_quality": "a data-quality failure",
    "healthy": "healthy",
    "unknown": "unknown",
}


def category_phrase(category: str) -> str:
    """The failure category as the report's first line states it.

    >>> category_phrase("code_defect")
    'Category: code_defect (a code defect)'
    """
    return f"Category: {category} ({_CATEGORY_WORDS.get(category, category)})"


def _first_failure(
    evidence: Evidence, service: str, onset: datetime | None
) -> ErrorSignature | None:
    """The most frequent error message ``service`` began logging at or after its onset, else
    the most frequent it still logged then (one that began earlier), if any."""
    if onset is None:
        return None
    found = [
        s
        for s in evidence.signatures
        if s.service == service and s.last_seen >= onset and s.count >= 2
    ]
    began = [s for s in found if s.first_seen >= onset - _SAME_MOMENT]
    return max(began or found, key=lambda s: (s.count, -s.first_seen.timestamp()), default=None)


def _first_failure_text(first: ErrorSignature | None, onset: datetime) -> str:
    """How the headline names the origin's error (`_first_failure`): "with" it when it began at
    the onset, else with its own first time (warnings or a metric can start a failure minutes
    before its errors do, and an error logged since long before is not what began then)."""
    if first is None:
        return ""
    if abs(first.first_seen - onset) <= _SAME_MOMENT:
        return f" with {code(first.message, 160)}"
    if first.first_seen > onset:
        return f"; {code(first.message, 160)} from {ts(first.first_seen)}"
    return f"; {code(first.message, 160)} logged since {ts(first.first_seen)}"


#: How far apart an onset and an error's first record may be for the two to be "the same time".
_SAME_MOMENT = timedelta(minutes=1)


def errors_text(gathered: Gathered, services: Sequence[str] | None) -> str:
    """What a citation of the gathered errors of ``services`` vouches for: each distinct
    message with its service, level, stack detail and count, and each service's total."""
    lines = []
    totals: dict[str, int] = {}
    for sig in gathered.evidence.signatures:
        if services and sig.service not in services:
            continue
        lines.append(f"{sig.service} {sig.level} {sig.message} {sig.count} {sig.detail}")
        totals[sig.service] = totals.get(sig.service, 0) + sig.count
    lines += [f"{service} {total}" for service, total in totals.items()]
    lines.append(" ".join(services or ()))  # the query names its services
    return "\n".join(lines)


def _summary_of(change: Change, gathered: Gathered) -> str:
    """What a change record says of itself: its stored summary's subject line (not the
    engine's reading)."""
    record = gathered.records.get(change.change_id)
    return subject_line(record.summary if record is not None else change.summary)


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


def _spelled_terms(suspect: Suspect, record: ChangeRecord | None, limit: int) -> str:
    """The suspect's matched terms that its record spells out, as code spans (the engine matches
    stems and word pieces, which the record may not contain verbatim)."""
    spelled = _record_text(record)
    terms = [
        t
        for t in suspect.matched
        if " " not in t and re.search(rf"(?<![\w]){re.escape(t.lower())}(?![\w])", spelled)
    ]
    return ", ".join(code(t, 60) for t in terms[:limit])


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
        f"- {ch.kind} {code(ch.change_id, 160)} on **{inline(ch.service, 100)}** at "
        f"{ts(suspect.effective_at)} — {why} {change_cite(ch.change_id)}"
    )


def _hypothesis_lines(
    analysis: Analysis,
    metric_cite: Callable[[str, str], str],
    change_cite: Callable[[str], str],
) -> list[str]:
    """One line per hypothesis the data rules out, with the evidence and its citation."""
    lines = []
    for hypothesis in analysis.hypotheses:
        if hypothesis.supported:
            continue
        cites = [metric_cite(svc, name) for svc, name in hypothesis.metrics]
        cites += [c for c in (change_cite(cid) for cid in hypothesis.changes) if c]
        lines.append(
            f"- {hypothesis.name.capitalize()}: {inline(hypothesis.evidence, 300)}"
            + (" " + " ".join(cites) if cites else "")
            + "."
        )
    return lines


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
    line = (
        f"- {code(rollback.summary, 160)} at {ts(rollback.timestamp)} "
        f"{change_cite(rollback.change_id)}"
    )
    if (
        last_error is not None
        and last_error >= rollback.timestamp - timedelta(minutes=1)
        and last_error <= fired_at - timedelta(minutes=5)
    ):
        line += (
            f"; the last error from **{inline(origin, 100)}** was at {ts(last_error)} "
            f"{cite_errors([origin])}. Errors stopped after the rollback."
        )
    else:
        line += "."
    return line


def _knowledge(hit: KnowledgeHit, public_url: str, at: datetime) -> SourceRecord:
    return knowledge_source(
        0,
        doc_id=hit.id,
        title=inline(hit.title, 200),
        url=hit.url,
        search=hit.title,
        at=at,
        public_url=public_url,
    )


def analysis_dict(
    analysis: Analysis, evidence: Sequence[int], gathered: Gathered
) -> dict[str, Any]:
    """The structured result (``AgentResult.analysis``); ``window`` is the look-back read, what
    the investigation page charts."""
    return {
        "verdict": analysis.verdict,
        "change_id": analysis.change_id,
        "deploy_id": analysis.deploy_id,
        "service": analysis.service,
        "affected_services": list(analysis.affected_services),
        "confidence": analysis.confidence,
        "remediation": analysis.remediation,
        "external_cause": analysis.external_cause or None,
        "category": analysis.category,
        "ruled_out": [
            {"hypothesis": h.name, "evidence": h.evidence}
            for h in analysis.hypotheses
            if not h.supported
        ],
        "onset": format_ts(analysis.onset) if analysis.onset else None,
        "window": {"start": format_ts(gathered.start), "end": format_ts(gathered.end)},
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
    if "evidence" in out:  # a claims record alone has none
        evidence = [numbers[str(e)] for e in out["evidence"] or [] if str(e) in numbers]
        out["evidence"] = sorted(set(evidence))
    return out
