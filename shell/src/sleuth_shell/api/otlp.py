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
from typing import Any

from litestar import Request, Response, Router, post
from litestar.exceptions import HTTPException
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.db.models import utcnow
from sleuth_shell.errors import otlp_status_response
from sleuth_shell.gate import API_KEY_REQUIRED
from sleuth_shell.observability import ingest, metric_ingest, otlp, traces
from sleuth_shell.observability.otlp import OtlpError

__all__ = ["RETRY_AFTER_SECONDS", "otlp_router"]

log = logging.getLogger("sleuth.otlp")

#: ``Retry-After`` of a 503 (the database could not take the write now).
RETRY_AFTER_SECONDS = 5

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
    if isinstance(exc, OperationalError | PoolTimeout):
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


@post("/v1/logs", **_OPTIONS)
async def export_logs(
    request: Request[Any, Any, Any], principal: CurrentPrincipal, db_session: DbSession
) -> Response[bytes]:
    """``ExportLogsServiceRequest`` -> the log store."""
    encoding, payload = await _read(request)
    message = otlp.parse_request(otlp.ExportLogsServiceRequest, encoding, payload)
    batch = otlp.logs_rows(message, utcnow())
    await ingest.ingest(db_session, principal.org_id, batch.rows)
    response = otlp.ExportLogsServiceResponse()
    if batch.rejected:
        response.partial_success.rejected_log_records = batch.rejected
        response.partial_success.error_message = batch.error_message
    return _answer(response, encoding)


@post("/v1/metrics", **_OPTIONS)
async def export_metrics(
    request: Request[Any, Any, Any], principal: CurrentPrincipal, db_session: DbSession
) -> Response[bytes]:
    """``ExportMetricsServiceRequest`` -> the metric store."""
    encoding, payload = await _read(request)
    message = otlp.parse_request(otlp.ExportMetricsServiceRequest, encoding, payload)
    batch = otlp.metrics_batches(message)
    await metric_ingest.ingest_metrics(db_session, principal.org_id, batch.batches)
    response = otlp.ExportMetricsServiceResponse()
    if batch.rejected:
        response.partial_success.rejected_data_points = batch.rejected
        response.partial_success.error_message = batch.error_message
    return _answer(response, encoding)


@post("/v1/traces", **_OPTIONS)
async def export_traces(
    request: Request[Any, Any, Any], principal: CurrentPrincipal, db_session: DbSession
) -> Response[bytes]:
    """``ExportTraceServiceRequest`` -> the trace store."""
    encoding, payload = await _read(request)
    message = otlp.parse_request(otlp.ExportTraceServiceRequest, encoding, payload)
    batch = otlp.span_rows(message)
    await traces.ingest_spans(db_session, principal.org_id, batch.rows)
    response = otlp.ExportTraceServiceResponse()
    if batch.rejected:
        response.partial_success.rejected_spans = batch.rejected
        response.partial_success.error_message = batch.error_message
    return _answer(response, encoding)


def otlp_router() -> Router:
    """The ``/otlp`` router: an API key on every route, errors as ``google.rpc.Status``."""
    return Router(
        path="/otlp",
        route_handlers=[export_logs, export_metrics, export_traces],
        opt={API_KEY_REQUIRED: True},
        exception_handlers={
            OtlpError: _otlp_error,
            HTTPException: _http_error,
            Exception: _unexpected,
        },
        include_in_schema=False,
    )
