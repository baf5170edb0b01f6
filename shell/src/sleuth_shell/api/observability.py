"""Observability data in: ``POST /api/v1/observability/logs`` (application log records) and
``POST /api/v1/observability/metrics`` (metric points); ``GET /api/v1/observability/metrics``
reads metric series back with their points, ``GET /api/v1/observability/logs`` log records (newest
first, however they came in), ``GET /api/v1/observability/traces`` trace summaries and
``GET /api/v1/observability/traces/{trace_id}`` one trace's spans (sent over OTLP,
:mod:`sleuth_shell.api.otlp`)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

import msgspec
from litestar import Request, get, post
from litestar.openapi.spec import Schema
from litestar.openapi.spec.enums import OpenAPIFormat, OpenAPIType
from litestar.params import FromPath, FromQuery

from sleuth_shell.agents.base import LOG_LEVELS
from sleuth_shell.api.body import documented_json_body
from sleuth_shell.api.common import query_limit, query_text, query_time
from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.api.knowledge import json_body
from sleuth_shell.db.models import utcnow
from sleuth_shell.errors import bad_request, error_responses, not_found
from sleuth_shell.observability import ingest, metric_ingest
from sleuth_shell.observability.metric_store import SqlMetricStore
from sleuth_shell.observability.store import DatabaseLogStore
from sleuth_shell.observability.traces import SqlTraceStore

__all__ = [
    "DEFAULT_LOG_LIMIT",
    "DEFAULT_TRACE_LIMIT",
    "DEFAULT_WINDOW",
    "MAX_RESPONSE_POINTS",
    "MAX_RESPONSE_SERIES",
    "METRICS_BODY",
    "ROUTES",
    "Ingested",
]

#: Series one ``GET /api/v1/observability/metrics`` returns at most.
MAX_RESPONSE_SERIES = 100
#: Points per series it returns at most (the latest ones; ``truncated`` says when some were cut).
MAX_RESPONSE_POINTS = 5000
#: The range read when ``start`` is not given: this long before ``end``.
DEFAULT_WINDOW = timedelta(hours=24)


_TIMESTAMP = Schema(
    one_of=[
        Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.DATE_TIME),
        Schema(type=OpenAPIType.NUMBER),
    ],
    description="ISO 8601 date-time or Unix seconds",
)
#: The documented request body of ``POST /api/v1/observability/metrics`` (validated by the handler).
METRICS_BODY = Schema(
    type=OpenAPIType.OBJECT,
    required=["series"],
    additional_properties=False,
    properties={
        "series": Schema(
            type=OpenAPIType.ARRAY,
            max_items=metric_ingest.MAX_SERIES,
            items=Schema(
                type=OpenAPIType.OBJECT,
                required=["name", "service", "points"],
                additional_properties=False,
                properties={
                    "name": Schema(type=OpenAPIType.STRING, max_length=200),
                    "service": Schema(type=OpenAPIType.STRING, max_length=200),
                    "labels": Schema(
                        type=OpenAPIType.OBJECT,
                        additional_properties=Schema(type=OpenAPIType.STRING),
                        max_properties=metric_ingest.MAX_LABELS,
                    ),
                    "points": Schema(
                        type=OpenAPIType.ARRAY,
                        items=Schema(
                            type=OpenAPIType.ARRAY,
                            description="[timestamp (ISO 8601 or Unix seconds), value]",
                            prefix_items=[
                                _TIMESTAMP,
                                Schema(type=OpenAPIType.NUMBER),
                            ],
                            min_items=2,
                            max_items=2,
                        ),
                    ),
                },
            ),
        )
    },
)


class Ingested(msgspec.Struct):
    ingested: int


class MetricSeriesItem(msgspec.Struct):
    """One series and its points in the range, oldest first, as ``[timestamp, value]`` pairs."""

    name: str
    service: str
    labels: dict[str, str]
    points: list[tuple[datetime, float]]
    truncated: bool


class MetricSeriesList(msgspec.Struct):
    series: list[MetricSeriesItem]


@post(
    "/observability/logs",
    operation_id="ingestLogs",
    tags=["observability"],
    status_code=200,
)
async def ingest_logs(
    request: Request[Any, Any, Any], principal: CurrentPrincipal, db_session: DbSession
) -> Ingested:
    """Store ``{records: [{timestamp, service, level, message, attributes?}]}`` (all or none)."""
    try:
        rows = ingest.validate_records(await json_body(request))
    except ingest.IngestError as exc:
        raise bad_request(str(exc)) from None
    return Ingested(ingested=await ingest.ingest(db_session, principal.org_id, rows))


@post(
    "/observability/metrics",
    operation_id="ingestMetrics",
    tags=["observability"],
    status_code=200,
    operation_class=documented_json_body(METRICS_BODY, "Metric series and points (all or none)"),
)
async def ingest_metrics(
    request: Request[Any, Any, Any], principal: CurrentPrincipal, db_session: DbSession
) -> Ingested:
    """Store ``{series: [{name, service, labels?, points: [[timestamp, value], ...]}]}`` (all or
    none; a point sent again for the same series and time overwrites it); ``ingested`` is the
    number of points stored (one per series and timestamp)."""
    try:
        batches = metric_ingest.validate_metrics(await json_body(request))
    except ingest.IngestError as exc:
        raise bad_request(str(exc)) from None
    count = await metric_ingest.ingest_metrics(db_session, principal.org_id, batches)
    return Ingested(ingested=count)


def _filter(value: str | None, name: str) -> list[str] | None:
    wanted = query_text(value, name)
    return [wanted] if wanted is not None else None


def _range(start: str | None, end: str | None) -> tuple[datetime, datetime]:
    until = query_time(end, "end") or utcnow()
    since = query_time(start, "start") or until - DEFAULT_WINDOW
    if until <= since:
        raise bad_request("Invalid time range: end must be after start")
    return since, until


@get(
    "/observability/metrics",
    operation_id="queryMetrics",
    tags=["observability"],
    responses=error_responses(),
)
async def query_metrics(
    request: Request[Any, Any, Any],
    principal: CurrentPrincipal,
    service: FromQuery[str | None] = None,
    name: FromQuery[str | None] = None,
    start: FromQuery[str | None] = None,
    end: FromQuery[str | None] = None,
) -> MetricSeriesList:
    """The organization's metric series with a point in ``[start, end)`` (ISO 8601 or Unix
    seconds; default: the 24 hours before now), of one ``service`` and one metric ``name``,
    sorted by service, name and labels: at most 100 series, each with its points oldest first
    (at most 5000, the latest; ``truncated`` when more were in the range)."""
    since, until = _range(start, end)
    store = SqlMetricStore(request.app.state.session_factory)
    found = await store.query(
        principal.org_id,
        since,
        until,
        services=_filter(service, "service"),
        names=_filter(name, "name"),
        limit=MAX_RESPONSE_SERIES,
        max_points=MAX_RESPONSE_POINTS + 1,
    )
    return MetricSeriesList(
        series=[
            MetricSeriesItem(
                name=s.name,
                service=s.service,
                labels=s.labels,
                points=list(s.points[-MAX_RESPONSE_POINTS:]),
                truncated=len(s.points) > MAX_RESPONSE_POINTS,
            )
            for s in found
        ]
    )


#: Log records one ``GET /api/v1/observability/logs`` returns by default, and at most.
DEFAULT_LOG_LIMIT = 100
MAX_LOG_LIMIT = 1000
#: Traces one ``GET /api/v1/observability/traces`` returns by default, and at most.
DEFAULT_TRACE_LIMIT = 20
MAX_TRACE_LIMIT = 100


class LogItem(msgspec.Struct):
    timestamp: datetime
    service: str
    level: str
    message: str
    attributes: dict[str, Any]
    trace_id: str | None
    span_id: str | None


class LogList(msgspec.Struct):
    records: list[LogItem]


class TraceItem(msgspec.Struct):
    trace_id: str
    root_service: str
    root_name: str
    start: datetime
    duration_ms: float
    error: bool
    span_count: int


class TraceList(msgspec.Struct):
    traces: list[TraceItem]


class SpanItem(msgspec.Struct):
    span_id: str
    parent_span_id: str | None
    service: str
    name: str
    kind: str
    start: datetime
    duration_ms: float
    status: str
    status_message: str
    attributes: dict[str, Any]
    events: list[dict[str, Any]]


class TraceDetail(msgspec.Struct):
    trace_id: str
    spans: list[SpanItem]


@get(
    "/observability/logs",
    operation_id="queryLogs",
    tags=["observability"],
    responses=error_responses(),
)
async def query_logs(
    request: Request[Any, Any, Any],
    principal: CurrentPrincipal,
    service: FromQuery[str | None] = None,
    level: FromQuery[str | None] = None,
    start: FromQuery[str | None] = None,
    end: FromQuery[str | None] = None,
    q: FromQuery[str | None] = None,
    limit: FromQuery[str | None] = None,
) -> LogList:
    """The organization's log records in ``[start, end)`` (ISO 8601 or Unix seconds; default: the
    24 hours before now), newest first, however they came in (``POST /observability/logs``,
    OTLP): of one ``service``, at one ``level``, whose message contains ``q`` (any case); at
    most ``limit`` (default 100, at most 1000). ``trace_id`` and ``span_id`` are set for records
    written in a span."""
    since, until = _range(start, end)
    levels = None
    if level is not None and level.strip():
        canonical = level.strip().upper()
        canonical = ingest.LEVEL_ALIASES.get(canonical, canonical)
        if canonical not in LOG_LEVELS:
            raise bad_request(f"Invalid level: must be one of {', '.join(LOG_LEVELS)}")
        levels = [canonical]
    text = query_text(q, "q")
    store = DatabaseLogStore(request.app.state.session_factory)
    found = await store.query(
        principal.org_id,
        since,
        until,
        services=_filter(service, "service"),
        levels=levels,
        text=text,
        limit=query_limit(limit, DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT),
        newest=True,
    )
    return LogList(
        records=[
            LogItem(
                timestamp=r.timestamp,
                service=r.service,
                level=r.level,
                message=r.message,
                attributes=r.attributes,
                trace_id=r.trace_id,
                span_id=r.span_id,
            )
            for r in found
        ]
    )


@get(
    "/observability/traces",
    operation_id="listTraces",
    tags=["observability"],
    responses=error_responses(),
)
async def list_traces(
    request: Request[Any, Any, Any],
    principal: CurrentPrincipal,
    service: FromQuery[str | None] = None,
    start: FromQuery[str | None] = None,
    end: FromQuery[str | None] = None,
    status: FromQuery[str | None] = None,
    min_duration_ms: FromQuery[str | None] = None,
    limit: FromQuery[str | None] = None,
) -> TraceList:
    """Traces with a span starting in ``[start, end)`` (default: the 24 hours before now), the
    most recent first: with a span of ``service``; with a failed span when ``status=error``;
    whose longest span (the root, in a whole trace) lasts at least ``min_duration_ms``; at most
    ``limit`` (default 20, at most 100). Ids are lower-case hex."""
    since, until = _range(start, end)
    wanted = (status or "").strip().lower()
    if wanted not in ("", "error"):
        raise bad_request("Invalid status: only error is supported")
    least: float | None = None
    if min_duration_ms is not None and min_duration_ms.strip():
        least = parse_number(min_duration_ms)
        if least is None or least < 0:
            raise bad_request("Invalid min_duration_ms: a non-negative number is required")
    services = _filter(service, "service")
    store = SqlTraceStore(request.app.state.session_factory)
    found = await store.traces(
        principal.org_id,
        since,
        until,
        services[0] if services else None,
        errors_only=wanted == "error",
        min_duration_ms=least,
        limit=query_limit(limit, DEFAULT_TRACE_LIMIT, MAX_TRACE_LIMIT),
    )
    return TraceList(
        traces=[
            TraceItem(
                trace_id=t.trace_id,
                root_service=t.root_service,
                root_name=t.root_name,
                start=t.start,
                duration_ms=round(t.duration_ms, 3),
                error=t.error,
                span_count=t.span_count,
            )
            for t in found
        ]
    )


@get(
    "/observability/traces/{trace_id:str}",
    operation_id="getTrace",
    tags=["observability"],
    responses=error_responses(404),
)
async def get_trace(
    request: Request[Any, Any, Any], principal: CurrentPrincipal, trace_id: FromPath[str]
) -> TraceDetail:
    """One trace's spans, earliest first (404 ``Trace not found``)."""
    store = SqlTraceStore(request.app.state.session_factory)
    spans = await store.trace(principal.org_id, trace_id)
    if not spans:
        raise not_found("Trace")
    return TraceDetail(
        trace_id=spans[0].trace_id,
        spans=[
            SpanItem(
                span_id=s.span_id,
                parent_span_id=s.parent_span_id,
                service=s.service,
                name=s.name,
                kind=s.kind,
                start=s.start,
                duration_ms=round(s.duration_ms, 3),
                status=s.status,
                status_message=s.status_message,
                attributes=s.attributes,
                events=s.events,
            )
            for s in spans
        ],
    )


def parse_number(value: str) -> float | None:
    """A finite decimal number, or None.

    >>> parse_number("12.5"), parse_number("nan"), parse_number("x")
    (12.5, None, None)
    """
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None


ROUTES = [ingest_logs, ingest_metrics, query_metrics, query_logs, list_traces, get_trace]
