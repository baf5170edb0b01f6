"""Traces, the pages a ``traces`` source ``link`` opens: ``/traces/{trace_id}`` draws one trace as
a waterfall (:func:`sleuth_shell.web.charts.waterfall_chart`: a server-rendered SVG with its text
equivalent, and the same spans as a table for screen readers and text browsers, with each span's
events and exception stack traces, and the log records written in the trace); ``/traces`` lists
recent traces, filtered by service, failure and duration.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from litestar import Request, get
from litestar.params import FromPath
from litestar.response import Template

from sleuth_core.language import format_ts
from sleuth_shell.agents.base import Span
from sleuth_shell.db.models import utcnow
from sleuth_shell.errors import bad_request, not_found
from sleuth_shell.observability.store import DatabaseLogStore
from sleuth_shell.observability.traces import SqlTraceStore, summarize
from sleuth_shell.web.charts import Bar, waterfall_chart
from sleuth_shell.web.filters import form_time
from sleuth_shell.web.guard import PAGE_OPTIONS, ViewerDep, page

__all__ = ["ROUTES", "WaterfallRow", "waterfall"]

#: Spans drawn at most (a bigger trace shows its earliest ones and says so).
MAX_DRAWN = 500
#: Traces the list page shows.
TRACE_PAGE = 50
#: The trace page's log records: its services' records this long before and after it are read
#: (at most ``MAX_LOG_SCAN``, the newest) and those written in the trace shown (at most
#: ``MAX_TRACE_LOGS``, oldest first).
LOG_MARGIN = timedelta(minutes=1)
MAX_LOG_SCAN = 2000
MAX_TRACE_LOGS = 200


@dataclass(frozen=True)
class WaterfallRow:
    """One span of the waterfall: its nesting depth and its start offset from the trace's start
    (ms)."""

    span: Span
    depth: int
    offset_ms: float

    def bar(self) -> Bar:
        """The span as the chart draws it."""
        return Bar(
            label=f"{self.span.service}: {self.span.name}",
            depth=self.depth,
            start_ms=self.offset_ms,
            duration_ms=self.span.duration_ms,
            failed=self.span.status == "error",
            detail=self.span.status_message or "",
        )


def _ordered(spans: Sequence[Span]) -> list[tuple[Span, int]]:
    """Spans depth first, children after their parent by start time; spans whose parent is not
    in the trace start their own subtree."""
    ids = {s.span_id for s in spans}
    children: dict[str | None, list[Span]] = {}
    for span in sorted(spans, key=lambda s: (s.start, s.span_id)):
        parent = span.parent_span_id if span.parent_span_id in ids else None
        children.setdefault(parent, []).append(span)
    out: list[tuple[Span, int]] = []
    stack: list[tuple[Span, int]] = [(s, 0) for s in reversed(children.get(None, []))]
    while stack:
        span, depth = stack.pop()
        out.append((span, depth))
        stack.extend((c, depth + 1) for c in reversed(children.get(span.span_id, [])))
    return out


def waterfall(spans: Sequence[Span]) -> tuple[list[WaterfallRow], float]:
    """The rows of a trace's waterfall and its duration (ms).

    >>> from datetime import UTC, datetime
    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> root = Span("a" * 32, "1" * 16, None, "web", "GET /", "server", t, 100.0, "ok")
    >>> child = Span("a" * 32, "2" * 16, "1" * 16, "db", "SELECT", "client",
    ...              t + timedelta(milliseconds=50), 50.0, "error")
    >>> rows, total = waterfall([child, root])
    >>> [(r.span.name, r.depth, r.offset_ms) for r in rows], total
    ([('GET /', 0, 0.0), ('SELECT', 1, 50.0)], 100.0)
    """
    if not spans:
        return [], 0.0
    first = min(s.start for s in spans)
    total = max((s.start - first) / timedelta(milliseconds=1) + s.duration_ms for s in spans)
    rows = [
        WaterfallRow(
            span=span,
            depth=depth,
            offset_ms=round((span.start - first) / timedelta(milliseconds=1), 3),
        )
        for span, depth in _ordered(spans)
    ]
    return rows, round(total, 3)


def _exceptions(span: Span) -> list[dict[str, Any]]:
    return [e for e in span.events if e.get("name") == "exception"]


@get("/traces/{trace_id:str}", **PAGE_OPTIONS)
async def trace_page(
    trace_id: FromPath[str], request: Request[Any, Any, Any], viewer: ViewerDep
) -> Template:
    """One trace: a summary, the waterfall (SVG and table), the failed spans' exceptions."""
    store = SqlTraceStore(request.app.state.session_factory)
    spans = await store.trace(viewer.org_id, trace_id)
    if not spans:
        raise not_found("Trace")
    summary = summarize(spans[0].trace_id, spans)
    rows, total = waterfall(spans)
    drawn = rows[:MAX_DRAWN]
    # The log records written in this trace: its services' records around its time, by id.
    logs = DatabaseLogStore(request.app.state.session_factory)
    nearby = await logs.query(
        viewer.org_id,
        summary.start - LOG_MARGIN,
        summary.start + timedelta(milliseconds=total) + LOG_MARGIN,
        services=sorted({s.service for s in spans}),
        limit=MAX_LOG_SCAN,
        newest=True,
    )
    written = [r for r in reversed(nearby) if r.trace_id == summary.trace_id][:MAX_TRACE_LOGS]
    return page(
        "trace.html",
        viewer,
        "traces",
        title=f"Trace {summary.root_service}: {summary.root_name}",
        summary=summary,
        rows=drawn,
        hidden=len(rows) - len(drawn),
        total_ms=total,
        chart=waterfall_chart(
            "waterfall",
            "Waterfall",
            [r.bar() for r in drawn],
            hidden=len(rows) - len(drawn),
            caption=False,
        ),
        failed=[(r.span, _exceptions(r.span)) for r in rows if r.span.status == "error"],
        logs=written,
    )


@get("/traces", **PAGE_OPTIONS)
async def traces_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Recent traces (the last 24 hours unless a range is given), the most recent first: of one
    service, failed ones only, or lasting at least some milliseconds."""
    params = request.query_params
    end = form_time(params.get("to"), "to") or utcnow()
    start = form_time(params.get("from"), "from") or end - timedelta(hours=24)
    if end <= start:
        raise bad_request("Invalid time range: to must be after from")
    service = (params.get("service") or "").strip()
    errors_only = params.get("status") == "error"
    raw = (params.get("min_duration_ms") or "").strip()
    least = None
    if raw:
        try:
            least = float(raw)
        except ValueError:
            least = None
        if least is None or not 0 <= least < float("inf"):
            raise bad_request("Invalid min_duration_ms: a non-negative number is required")
    store = SqlTraceStore(request.app.state.session_factory)
    found = await store.traces(
        viewer.org_id,
        start,
        end,
        service or None,
        errors_only=errors_only,
        min_duration_ms=least,
        limit=TRACE_PAGE,
    )
    return page(
        "traces.html",
        viewer,
        "traces",
        title="Traces",
        traces=found,
        form={
            "service": service,
            "status": "error" if errors_only else "",
            "min_duration_ms": raw,
            "from": format_ts(start),
            "to": format_ts(end),
        },
    )


ROUTES: list[Any] = [traces_page, trace_page]
