"""OTLP/HTTP in: ``POST /otlp/v1/logs``, ``/otlp/v1/metrics`` and ``/otlp/v1/traces``.

An OpenTelemetry SDK or Collector exports here with ``endpoint`` ``{SLEUTH_PUBLIC_URL}/otlp``
(the exporters add ``/v1/<signal>``). The protocol is OTLP/HTTP as its specification defines it:
binary protobuf (``application/x-protobuf``) or OTLP/JSON (``application/json``) bodies, optionally
``Content-Encoding: gzip``; the answer is the signal's ``Export*ServiceResponse`` in the request's
encoding, with ``partial_success`` when some records were rejected. Every error answer is a
``google.rpc.Status`` in the request's encoding: 400 for a body that does not decode (with a
``BadRequest`` detail when a field is named), 401 for a missing or invalid key, 413 over
:data:`~sleuth_shell.observability.otlp.MAX_BODY_BYTES` (compressed or decompressed), 415 for
another media type or content coding, 429 over the organization's rate limit and 503 when the
database cannot take the write (both with ``Retry-After``, which exporters honour).

Authentication is the organization's API key in ``X-Service-Org-Api-Key`` or ``Authorization:
Bearer <key>`` (what ``OTEL_EXPORTER_OTLP_HEADERS`` sets); each request counts against the
organization's rate limit like any API request (:mod:`sleuth_shell.gate`). A request's records are
written in one transaction: all of the accepted ones, or nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from litestar import Request, Response, Router, post
from litestar.exceptions import HTTPException
from litestar.handlers import HTTPRouteHandler
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.db.models import utcnow
from sleuth_shell.errors import RETRY_AFTER_SECONDS, database_unavailable, otlp_status_response
from sleuth_shell.gate import API_KEY_REQUIRED
from sleuth_shell.observability import ingest, metric_ingest, otlp, traces
from sleuth_shell.observability.otlp import OtlpError

__all__ = ["RETRY_AFTER_SECONDS", "otlp_router"]

log = logging.getLogger("sleuth.otlp")

#: Messages replacing the framework's own (the 401 and 429 keep the gate's).
_MESSAGES = {413: f"Request body too large: over {otlp.MAX_BODY_BYTES} bytes"}


def _otlp_error(request: Request[Any, Any, Any], exc: OtlpError) -> Response[bytes]:
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)} if exc.status == 503 else None
    return otlp_status_response(request, exc.status, exc.message, headers, exc.violations)


def _http_error(request: Request[Any, Any, Any], exc: HTTPException) -> Response[bytes]:
    status = exc.status_code
    message = _MESSAGES.get(status) or exc.detail or "Error"
    return otlp_status_response(request, status, message, dict(exc.headers or {}))


def _unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    if database_unavailable(exc):
        log.warning("OTLP write refused for now (503): %s", exc)
        return _otlp_error(request, OtlpError(503, "The service cannot store telemetry now"))
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return otlp_status_response(request, 500, "Internal server error")


async def _read(request: Request[Any, Any, Any]) -> tuple[str, bytes]:
    raw = await request.body()
    return otlp.decode_body(
        request.headers.get("content-type"), request.headers.get("content-encoding"), raw
    )


def _answer(response: Any, encoding: str) -> Response[bytes]:
    return Response(
        content=otlp.encode_message(response, encoding), status_code=200, media_type=encoding
    )


_OPTIONS: dict[str, Any] = {
    "status_code": 200,
    "include_in_schema": False,
    "request_max_body_size": otlp.MAX_BODY_BYTES,
}


_Batch = otlp.LogsBatch | otlp.MetricsBatch | otlp.SpansBatch


@dataclass(frozen=True, slots=True)
class _Signal:
    """One OTLP signal: its request and response messages, the ``partial_success`` member
    counting what was rejected, and how its records are stored."""

    path: str
    request: type[Any]
    response: type[Any]
    rejected_field: str
    store: Callable[
        [AsyncSession, int, Any], Awaitable[otlp.LogsBatch | otlp.MetricsBatch | otlp.SpansBatch]
    ]


async def _store_logs(session: AsyncSession, org_id: int, message: Any) -> otlp.LogsBatch:
    batch = otlp.logs_rows(message, utcnow())
    await ingest.ingest(session, org_id, batch.rows)
    return batch


async def _store_metrics(session: AsyncSession, org_id: int, message: Any) -> otlp.MetricsBatch:
    batch = otlp.metrics_batches(message)
    await metric_ingest.ingest_metrics(session, org_id, batch.batches)
    return batch


async def _store_spans(session: AsyncSession, org_id: int, message: Any) -> otlp.SpansBatch:
    batch = otlp.span_rows(message)
    await traces.ingest_spans(session, org_id, batch.rows)
    return batch


_SIGNALS = (
    _Signal(
        "/v1/logs",
        otlp.ExportLogsServiceRequest,
        otlp.ExportLogsServiceResponse,
        "rejected_log_records",
        _store_logs,
    ),
    _Signal(
        "/v1/metrics",
        otlp.ExportMetricsServiceRequest,
        otlp.ExportMetricsServiceResponse,
        "rejected_data_points",
        _store_metrics,
    ),
    _Signal(
        "/v1/traces",
        otlp.ExportTraceServiceRequest,
        otlp.ExportTraceServiceResponse,
        "rejected_spans",
        _store_spans,
    ),
)


async def _export(
    request: Request[Any, Any, Any], org_id: int, session: AsyncSession, signal: _Signal
) -> Response[bytes]:
    """Decode the signal's ``Export*ServiceRequest``, store its records, and answer its
    ``Export*ServiceResponse`` (with ``partial_success`` when some were rejected)."""
    encoding, payload = await _read(request)
    message = otlp.parse_request(signal.request, encoding, payload)
    batch = await signal.store(session, org_id, message)
    response = signal.response()
    if batch.rejected:
        setattr(response.partial_success, signal.rejected_field, batch.rejected)
        response.partial_success.error_message = batch.error_message
    return _answer(response, encoding)


def _handler(signal: _Signal) -> HTTPRouteHandler:
    async def export(
        request: Request[Any, Any, Any], principal: CurrentPrincipal, db_session: DbSession
    ) -> Response[bytes]:
        """The signal's ``Export*ServiceRequest`` -> its store."""
        return await _export(request, principal.org_id, db_session, signal)

    return post(signal.path, **_OPTIONS)(export)


def otlp_router() -> Router:
    """The ``/otlp`` router: an API key on every route, errors as ``google.rpc.Status``."""
    return Router(
        path="/otlp",
        route_handlers=[_handler(signal) for signal in _SIGNALS],
        opt={API_KEY_REQUIRED: True},
        exception_handlers={
            OtlpError: _otlp_error,
            HTTPException: _http_error,
            Exception: _unexpected,
        },
        include_in_schema=False,
    )
