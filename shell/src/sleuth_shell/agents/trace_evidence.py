"""Traces as evidence: what the trace store says about a failure, for the root-cause engine and
for the report.

`read_traces` reads an organization's spans over an investigation's look-back
(``ctx.traces``): the failed spans and, for the most recent failing traces, every span of the
trace. From them:

- the *first failing service*: in each failing trace, the failed span none of whose children
  failed (the error started there and travelled up its parent chain); the service that is that
  origin in the most traces;
- the engine's input, in its existing types: failed spans per service and 5-minute bucket
  (`ErrorSeries`, added to the log error counts), the failures' messages (`ErrorSignature`: the
  exception type and message and the innermost stack frames, by file name, of an exception event,
  else the span's status message), calls between services (``dependencies``: a parent span's
  service calls its child's) and how slow each service's spans are: the longest span of each
  5-minute bucket, a latency series named :data:`SPAN_SERIES` (`MetricPoints`), so a service
  whose spans slow down is read as a latency metric that climbs (before its errors, or alone);
- for the report: the slowest spans, and the exceptions with their stack frames.

`add_to_evidence` merges them into an `Evidence`; `traces_section` writes the report's "Traces"
section, every line citing a trace (a source of type ``traces`` whose link opens
``/traces/{trace_id}``); `errors_citer` cites a failing trace for the failures only the traces
show, and `durations_source` cites a service's span durations (the traces page of that service
over the look-back).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import urlencode

from sleuth_core.language import format_ts
from sleuth_core.rca import ErrorSeries, ErrorSignature, Evidence, MetricPoints, message_template
from sleuth_core.stacktrace import parse_stack
from sleuth_shell.agents.base import AgentContext, SourceRecord, Span

__all__ = [
    "SPAN_SERIES",
    "ExceptionFinding",
    "TraceFindings",
    "add_to_evidence",
    "cited_ids",
    "durations_source",
    "errors_citer",
    "failure_of",
    "findings_text",
    "read_traces",
    "stack_frames",
    "trace_source",
    "traces_section",
]

#: Failed spans read per investigation (the longest first).
MAX_ERROR_SPANS = 500
#: Failing traces read whole (for parent chains and calls).
MAX_TRACES = 20
#: Spans read for slowness (the longest first).
MAX_SLOW_SPANS = 50
#: Width of the buckets of the failed-span counts and span durations.
BUCKET_SECONDS = 300
#: The name the engine reads a service's span durations under (the longest span of each bucket).
SPAN_SERIES = "span_duration_ms:max"
#: Services whose span durations are given to the engine (the most spans first).
MAX_DURATION_SERVICES = 20


@dataclass(frozen=True)
class ExceptionFinding:
    """One kind of exception (or failure message) of one service: how often, when, an example
    trace, and the innermost stack frames of the first one seen."""

    service: str
    message: str
    count: int
    first_seen: datetime
    last_seen: datetime
    trace_id: str
    frames: tuple[str, ...] = ()


@dataclass
class TraceFindings:
    """What `read_traces` found (empty when the organization has no spans in the range)."""

    start: datetime
    end: datetime
    errors: tuple[ErrorSeries, ...] = ()
    signatures: tuple[ErrorSignature, ...] = ()
    dependencies: tuple[tuple[str, str], ...] = ()
    origins: list[tuple[str, int, int, str]] = field(default_factory=list)
    """``(service, traces where it failed first, failing traces read, an example trace id)``,
    most often first."""
    exceptions: list[ExceptionFinding] = field(default_factory=list)
    slow: list[Span] = field(default_factory=list)
    durations: tuple[MetricPoints, ...] = ()
    """Each service's :data:`SPAN_SERIES`: the longest span of each bucket, in milliseconds."""
    queries: int = 0

    @property
    def found(self) -> bool:
        return bool(self.errors or self.slow)


def stack_frames(stacktrace: str, limit: int = 3) -> tuple[str, ...]:
    """The innermost frames of a stack trace that name a file, as ``file:line in function``
    (`sleuth_core.stacktrace.parse_stack` reads the trace; Python tracebacks list them last,
    Java and most others first).

    >>> trace = 'Traceback (most recent call last):\\n  File "app.py", line 3, in main\\n'
    >>> trace += '  File "pay.py", line 7, in charge\\nValueError: declined'
    >>> stack_frames(trace)
    ('pay.py:7 in charge', 'app.py:3 in main')
    >>> stack_frames("java.lang.IllegalStateException: x\\n\\tat com.shop.Pay.charge(Pay.java:42)")
    ('Pay.java:42 in com.shop.Pay.charge',)
    """
    frames = (
        f.file
        + (f":{f.line}" if f.line is not None else "")
        + (f" in {f.module}.{f.function}" if f.module and f.function else "")
        + (f" in {f.function}" if f.function and not f.module else "")
        for f in parse_stack(stacktrace).frames
        if f.file
    )
    return tuple(dict.fromkeys(frames))[:limit]


def failure_of(span: Span) -> tuple[str, tuple[str, ...]]:
    """A failed span's message (its first exception, else its status message) and frames."""
    for event in span.events:
        attrs = event.get("attributes") or {}
        if event.get("name") == "exception" or "exception.type" in attrs:
            kind = str(attrs.get("exception.type") or "exception")
            text = str(attrs.get("exception.message") or "").strip()
            frames = stack_frames(str(attrs.get("exception.stacktrace") or ""))
            return (f"{kind}: {text}" if text else kind), frames
    text = span.status_message.strip()
    return (f"{span.name} failed: {text}" if text else f"{span.name} failed"), ()


def _bucket(at: datetime, seconds: int) -> datetime:
    stamp = int(at.timestamp())
    return datetime.fromtimestamp(stamp - stamp % seconds, UTC)


def _origins(spans: Sequence[Span]) -> list[Span]:
    """The failed spans of one trace none of whose children failed, earliest first."""
    failed_parents = {s.parent_span_id for s in spans if s.status == "error" and s.parent_span_id}
    return sorted(
        (s for s in spans if s.status == "error" and s.span_id not in failed_parents),
        key=lambda s: (s.start, s.span_id),
    )


async def read_traces(
    ctx: AgentContext, start: datetime, end: datetime, *, bucket_seconds: int = BUCKET_SECONDS
) -> TraceFindings:
    """What the trace store shows in ``[start, end)`` (see the module doc)."""
    org = ctx.org_id
    found = TraceFindings(start, end)
    failed = await ctx.traces.spans(org, start, end, errors_only=True, limit=MAX_ERROR_SPANS)
    slow = await ctx.traces.spans(org, start, end, limit=MAX_SLOW_SPANS)
    found.queries = 2
    if not failed and not slow:
        return found
    # Failed spans per service and bucket; their messages grouped by template.
    counts: dict[str, Counter[datetime]] = {}
    groups: dict[tuple[str, str], list[tuple[Span, str, tuple[str, ...]]]] = {}
    for span in sorted(failed, key=lambda s: (s.start, s.span_id)):
        counts.setdefault(span.service, Counter())[_bucket(span.start, bucket_seconds)] += 1
        message, frames = failure_of(span)
        groups.setdefault((span.service, message_template(message)), []).append(
            (span, message, frames)
        )
    # Each series starts at the look-back's first bucket, so the quiet time before is its
    # baseline (buckets left out count as zero).
    first_bucket = _bucket(start, bucket_seconds)
    for c in counts.values():
        c[first_bucket] += 0
    found.errors = tuple(
        ErrorSeries(service, bucket_seconds, tuple(sorted((t, float(n)) for t, n in c.items())))
        for service, c in sorted(counts.items())
    )
    for (service, _template), items in groups.items():
        first, message, _ = items[0]
        frames = next((f for _, _, f in items if f), ())
        # The engine reads service names in messages as calls: frames by file name only (a
        # monorepo path such as checkout/api.py would name another service).
        names = [f.rsplit("/", 1)[-1] for f in frames]
        text = f"{message} at {', '.join(names)}" if names else message
        found.signatures += (
            ErrorSignature(service, text, len(items), first.start, items[-1][0].start),
        )
        found.exceptions.append(
            ExceptionFinding(
                service,
                message,
                len(items),
                first.start,
                items[-1][0].start,
                items[-1][0].trace_id,
                frames,
            )
        )
    found.exceptions.sort(key=lambda e: (-e.count, e.first_seen, e.service))
    # The most recent failing traces, whole: where each failure began, and who calls whom.
    latest = sorted(failed, key=lambda s: s.start, reverse=True)
    trace_ids = list(dict.fromkeys(s.trace_id for s in latest))[:MAX_TRACES]
    origin_counts: Counter[str] = Counter()
    example: dict[str, str] = {}
    calls: set[tuple[str, str]] = set()
    # The slowest span's trace too: who calls whom when nothing fails but something is slow.
    slowest_trace = [s.trace_id for s in slow[:1] if s.trace_id not in trace_ids]
    for trace_id in [*trace_ids, *slowest_trace]:
        spans = await ctx.traces.trace(org, trace_id)
        found.queries += 1
        by_id = {s.span_id: s for s in spans}
        for span in spans:
            parent = by_id.get(span.parent_span_id or "")
            if parent is not None and parent.service != span.service:
                calls.add((parent.service, span.service))
        origins = _origins(spans)
        if origins:
            origin_counts[origins[0].service] += 1
            example.setdefault(origins[0].service, trace_id)
    found.dependencies = tuple(sorted(calls))
    found.origins = [
        (service, n, len(trace_ids), example[service])
        for service, n in sorted(origin_counts.items(), key=lambda item: (-item[1], item[0]))
    ]
    # The slowest spans (one per service and name), for the report.
    slowest: dict[tuple[str, str], Span] = {}
    for span in sorted(slow, key=lambda s: (-s.duration_ms, s.start)):
        slowest.setdefault((span.service, span.name), span)
    found.slow = list(slowest.values())[:3]
    # How slow each service's spans are, bucket by bucket (for the engine, as a latency series).
    by_service: dict[str, list[tuple[datetime, float]]] = {}
    spans_of: Counter[str] = Counter()
    for row in await ctx.traces.durations(org, start, end, bucket_seconds):
        by_service.setdefault(row.service, []).append((row.bucket, row.longest_ms))
        spans_of[row.service] += row.spans
    found.queries += 1
    busiest = sorted(spans_of, key=lambda s: (-spans_of[s], s))[:MAX_DURATION_SERVICES]
    found.durations = tuple(
        MetricPoints(SPAN_SERIES, service, tuple(sorted(by_service[service])))
        for service in sorted(busiest)
    )
    return found


def _merged(existing: Sequence[ErrorSeries], added: Sequence[ErrorSeries]) -> list[ErrorSeries]:
    """Error counts per service, log and span failures summed per bucket (one series per
    service, as the engine reads them)."""
    by_service = {s.service: s for s in existing}
    out = [s for s in existing if s.service not in {a.service for a in added}]
    for series in added:
        old = by_service.get(series.service)
        if old is None:
            out.append(series)
            continue
        width = old.bucket_seconds
        total: dict[datetime, float] = {}
        for at, n in old.points:
            total[at] = total.get(at, 0.0) + n
        for at, n in series.points:
            key = _bucket(at, width)
            total[key] = total.get(key, 0.0) + n
        out.append(ErrorSeries(series.service, width, tuple(sorted(total.items()))))
    return out


def add_to_evidence(evidence: Evidence, found: TraceFindings) -> Evidence:
    """``evidence`` with the traces' failed-span counts, failure messages, calls between
    services, span durations and services added."""
    if not found.found:
        return evidence
    named = dict.fromkeys(
        [*(e.service for e in found.errors), *(d.service for d in found.durations)]
    )
    services = [*evidence.services, *(s for s in named if s not in evidence.services)]
    return dataclasses.replace(
        evidence,
        errors=tuple(_merged(evidence.errors, found.errors)),
        signatures=evidence.signatures + found.signatures,
        metrics=evidence.metrics + found.durations,
        dependencies=tuple(dict.fromkeys([*evidence.dependencies, *found.dependencies])),
        services=tuple(services),
    )


def errors_citer(
    found: TraceFindings,
    logged: set[str],
    cite_logs: Callable[[Sequence[str] | None], str],
    cite: Callable[[SourceRecord], str],
    public_url: str,
) -> Callable[[Sequence[str] | None], str]:
    """The report's citation of some services' errors: their log records, unless only the traces
    show those services failing (none of them in ``logged``, the services with log errors), then
    a failing trace of theirs."""

    def cite_errors(services: Sequence[str] | None) -> str:
        wanted = set(services or ())
        if not wanted or wanted & logged:
            return cite_logs(services)
        for finding in found.exceptions:
            if finding.service in wanted:
                return cite(
                    trace_source(
                        0,
                        trace_id=finding.trace_id,
                        start=found.start,
                        end=found.end,
                        description=f"{finding.service}: {finding.message}",
                        public_url=public_url,
                    )
                )
        return cite_logs(services)

    return cite_errors


def trace_source(
    source_id: int,
    *,
    trace_id: str,
    start: datetime,
    end: datetime,
    description: str,
    public_url: str,
) -> SourceRecord:
    """The source record citing one trace: type ``traces``, its link the trace's page."""
    return {
        "log_type_name": "Traces",
        "query": json.dumps({"trace_id": trace_id}, separators=(",", ":")),
        "start": format_ts(start),
        "end": format_ts(end),
        "link": f"{public_url}/traces/{trace_id}",
        "artifact_id": None,
        "tool_id": "trace_query",
        "type": "traces",
        "source_id": source_id,
        "display_text": description[:200],
    }


def durations_source(found: TraceFindings, service: str, public_url: str) -> SourceRecord:
    """The source record citing ``service``'s :data:`SPAN_SERIES`: its traces over the
    look-back (the traces page, filtered to the service and the range)."""
    start, end = format_ts(found.start), format_ts(found.end)
    query = {"service": service, "series": SPAN_SERIES, "bucket_seconds": BUCKET_SECONDS}
    return {
        "log_type_name": "Traces",
        "query": json.dumps(query, separators=(",", ":"), sort_keys=True),
        "start": start,
        "end": end,
        "link": f"{public_url}/traces?" + urlencode({"service": service, "from": start, "to": end}),
        "artifact_id": None,
        "tool_id": "trace_query",
        "type": "traces",
        "source_id": 0,
        "display_text": f"Longest span of {service} every {BUCKET_SECONDS // 60} minutes"[:200],
    }


def _inline(text: str, limit: int = 160) -> str:
    flat = " ".join(str(text).split())
    flat = flat if len(flat) <= limit else flat[: limit - 1] + "…"
    return flat.replace("`", "'")


def findings_text(found: TraceFindings) -> str:
    """What the traces read for one run vouch for, as text (for the claim check of the report's
    "Traces" section, whose lines state counts over every trace read, not one trace's spans)."""
    parts = [f"{s} {n} {total} {t}" for s, n, total, t in found.origins]
    parts += [
        f"{f.service} {f.message} {', '.join(f.frames)} {f.count} {format_ts(f.first_seen)} "
        f"{format_ts(f.last_seen)} {f.trace_id}"
        for f in found.exceptions
    ]
    parts += [
        f"{s.service} {s.name} {s.duration_ms:.0f} {format_ts(s.start)} {s.trace_id}"
        for s in found.slow
    ]
    return "\n".join(parts)


def traces_section(
    found: TraceFindings, cite: Callable[[SourceRecord], str], public_url: str
) -> str:
    """The report's "Traces" section (markdown, every line citing a trace), or "" when the
    traces show nothing."""
    if not found.found:
        return ""

    def cite_trace(trace_id: str, description: str) -> str:
        return cite(
            trace_source(
                0,
                trace_id=trace_id,
                start=found.start,
                end=found.end,
                description=description,
                public_url=public_url,
            )
        )

    lines: list[str] = []
    if found.origins:
        service, n, total, trace_id = found.origins[0]
        mark = cite_trace(trace_id, f"A failing trace that begins failing at {service}")
        lines.append(
            f"- Failing traces begin failing at **{_inline(service, 100)}**: its span is the "
            f"deepest failed one (the error travelled up from there) in {n} of the {total} "
            f"failing trace(s) read {mark}."
        )
    for finding in found.exceptions[:3]:
        frames = f", at `{_inline(', '.join(finding.frames), 200)}`" if finding.frames else ""
        mark = cite_trace(finding.trace_id, f"{finding.service}: {finding.message}")
        lines.append(
            f"- **{_inline(finding.service, 100)}** failed with `{_inline(finding.message)}`"
            f"{frames}: {finding.count} span(s), first {format_ts(finding.first_seen)}, last "
            f"{format_ts(finding.last_seen)} {mark}."
        )
    for span in found.slow[:2]:
        mark = cite_trace(span.trace_id, f"{span.service}: {span.name}, {span.duration_ms:.0f} ms")
        lines.append(
            f"- Slowest: **{_inline(span.service, 100)}** `{_inline(span.name)}` took "
            f"{span.duration_ms:.0f} ms at {format_ts(span.start)} {mark}."
        )
    return "## Traces\n\n" + "\n".join(lines) if lines else ""


def cited_ids(markdown: str) -> list[int]:
    """The source ids a text cites, in order, once each.

    >>> cited_ids("a [[source:3]] b [[source:1]] c [[source:3]]")
    [3, 1]
    """
    return list(dict.fromkeys(int(n) for n in re.findall(r"\[\[source:(\d+)\]\]", markdown)))
