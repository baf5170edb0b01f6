"""Observability data in: ``POST /api/v1/observability/logs`` (application log records) and
``POST /api/v1/observability/metrics`` (metric points); ``GET /api/v1/observability/metrics``
reads metric series back with their points."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import msgspec
from litestar import Request, get, post
from litestar.openapi.spec import Schema
from litestar.openapi.spec.enums import OpenAPIFormat, OpenAPIType
from litestar.params import FromQuery

from sleuth_core.language import parse_instant
from sleuth_shell.api.body import documented_json_body
from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.api.knowledge import json_body
from sleuth_shell.db.models import utcnow
from sleuth_shell.errors import bad_request, error_responses
from sleuth_shell.observability import ingest, metric_ingest
from sleuth_shell.observability.metric_store import SqlMetricStore

__all__ = [
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


def _time(value: str | None, name: str) -> datetime | None:
    if value is None or not value.strip():
        return None
    parsed = parse_instant(value) if "\x00" not in value and len(value) <= 64 else None
    if parsed is None:
        raise bad_request(f"Invalid {name}: an ISO 8601 date-time or Unix seconds is required")
    return parsed


def _filter(value: str | None, name: str) -> list[str] | None:
    if value is None or not value.strip():
        return None
    if "\x00" in value or len(value) > 200:
        raise bad_request(f"Invalid {name}: at most 200 characters, without NUL")
    return [value.strip()]


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
    until = _time(end, "end") or utcnow()
    since = _time(start, "start") or until - DEFAULT_WINDOW
    if until <= since:
        raise bad_request("Invalid time range: end must be after start")
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


ROUTES = [ingest_logs, ingest_metrics, query_metrics]
