"""Every error response of the service, in one place: the body is always ``{"detail": str}``.

- :data:`CORE_ERROR_STATUS` maps each :class:`sleuth_core.errors.CoreError` subclass to its HTTP
  status (all 400: they are validation errors), with ``str(error)`` as the detail. A test walks the
  hierarchy and fails on an unmapped class.
- Litestar's HTTP exceptions keep their status and headers; their framework-default details are
  replaced by ours (404, 405, 413, validation errors; an unknown member of a strict body is
  ``Unknown field: <name>``; a query, path, header or cookie parameter Litestar refuses is
  ``Invalid <name>: <value>``, or ``Missing <where> parameter: <name>`` when it is absent).
- A ``RecursionError`` (JSON nested too deeply for a decoder) or ``UnicodeError`` (a body that is
  not UTF-8, text with lone surrogates) is 400: it comes from the request, never from the service.
  The detail is the route's ``invalid_body_detail`` option when set (see
  :mod:`sleuth_shell.api.body`), else :data:`TOO_DEEP` / :data:`NOT_UTF8`.
- Anything else is logged and answered 500 ``Internal server error`` (never a traceback).
- A browser asking for a page (a path outside ``/api/`` with ``text/html`` in ``Accept``) gets the
  same status as an HTML page showing the detail; the API always answers JSON.

Handlers raise :class:`ApiError` (or its helpers :func:`bad_request`, :func:`not_found`,
:func:`conflict`) for their own errors.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import msgspec
from litestar import Litestar, MediaType, Request, Response
from litestar.enums import ParamType
from litestar.exceptions import (
    HTTPException,
    MethodNotAllowedException,
    NotFoundException,
    ValidationException,
)
from litestar.openapi.datastructures import ResponseSpec
from litestar.routes import HTTPRoute
from litestar.status_codes import (
    HTTP_400_BAD_REQUEST,
    HTTP_404_NOT_FOUND,
    HTTP_409_CONFLICT,
    HTTP_413_REQUEST_ENTITY_TOO_LARGE,
    HTTP_500_INTERNAL_SERVER_ERROR,
    HTTP_502_BAD_GATEWAY,
    HTTP_503_SERVICE_UNAVAILABLE,
)
from litestar.types import ExceptionHandlersMap
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from sleuth_core.errors import (
    CoreError,
    InvalidAlertPayload,
    InvalidCriteria,
    InvalidRange,
    InvalidSchedule,
    InvalidSettings,
    InvalidSources,
)
from sleuth_shell.json_body import MAX_JSON_DEPTH, NOT_JSON, NOT_UTF8, TOO_DEEP
from sleuth_shell.observability import otlp
from sleuth_shell.web.render import PAGE_HEADERS, render

__all__ = [
    "CORE_ERROR_STATUS",
    "INVALID_BODY_OPT",
    "MAX_JSON_DEPTH",
    "NOT_JSON",
    "NOT_UTF8",
    "OTLP_PREFIX",
    "RETRY_AFTER_SECONDS",
    "TOO_DEEP",
    "ApiError",
    "ErrorBody",
    "bad_request",
    "conflict",
    "database_unavailable",
    "document_default_errors",
    "error_response",
    "error_responses",
    "exception_handlers",
    "invalid_body_detail",
    "not_found",
    "otlp_status_response",
]

logger = logging.getLogger("sleuth.errors")

#: The route option naming the 400 detail for a malformed body (e.g. SPEC's ``Invalid payload``).
INVALID_BODY_OPT = "invalid_body_detail"


class ErrorBody(msgspec.Struct):
    """Every error response: ``{"detail": "<what went wrong>"}``."""

    detail: str


_ERROR_DESCRIPTIONS = {
    400: "Invalid request",
    401: "Missing or invalid API key",
    403: "Admin API key required",
    404: "Not found",
    409: "Conflict",
    413: "Request body too large",
    429: "Rate limit exceeded",
}


def error_responses(*status_codes: int, authenticated: bool = True) -> dict[int, ResponseSpec]:
    """OpenAPI error responses (``{"detail": str}``) for a route: 400, plus 401 and 429 when
    ``authenticated`` and rate limited, plus ``status_codes`` (e.g. 404, 409, 413)."""
    codes = {400, *status_codes}
    if authenticated:
        codes |= {401, 429}
    return {
        code: ResponseSpec(data_container=ErrorBody, description=_ERROR_DESCRIPTIONS[code])
        for code in sorted(codes)
    }


#: HTTP status for every core error class (looked up along the MRO, most specific first).
CORE_ERROR_STATUS: dict[type[CoreError], int] = {
    CoreError: HTTP_400_BAD_REQUEST,
    InvalidCriteria: HTTP_400_BAD_REQUEST,
    InvalidSchedule: HTTP_400_BAD_REQUEST,
    InvalidRange: HTTP_400_BAD_REQUEST,
    InvalidSettings: HTTP_400_BAD_REQUEST,
    InvalidAlertPayload: HTTP_400_BAD_REQUEST,
    # Agent output the renderer refuses: the server's agent is at fault, not the request (runs
    # catch it and end FAILED; this entry only covers a render outside a run).
    InvalidSources: HTTP_502_BAD_GATEWAY,
}

_DEFAULT_DETAILS = {
    404: "Not found",
    405: "Method not allowed",
    413: "Request body too large",
    500: "Internal server error",
}

#: ``Retry-After`` (seconds) of a 503: the database could not serve the request now.
RETRY_AFTER_SECONDS = 5
#: The detail of that 503 on the REST API.
DATABASE_BUSY = "The database is busy; retry in a few seconds"
#: SQLSTATE classes of a database that cannot serve now rather than a wrong statement:
#: connection exception, transaction rollback (serialization failure, deadlock), insufficient
#: resources (too many connections), operator intervention (shutting down, query canceled).
_TRANSIENT_SQLSTATE_CLASSES = frozenset({"08", "40", "53", "57"})


def database_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot serve now, so a retry later may succeed: a
    SQLite write lock held past the busy timeout, no pooled connection free in time, a lost or
    refused PostgreSQL connection, a deadlock or serialization failure. A wrong statement
    (``no such table``, a syntax error) is not: that stays a 500.

    >>> from sqlalchemy.exc import OperationalError
    >>> database_unavailable(OperationalError("INSERT", {}, Exception("database is locked")))
    True
    >>> database_unavailable(OperationalError("SELECT", {}, Exception("no such table: x")))
    False
    """
    if isinstance(exc, PoolTimeout):
        return True
    if not isinstance(exc, DBAPIError):
        return False
    if exc.connection_invalidated:
        return True
    sqlstate = str(getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None) or "")
    if sqlstate[:2] in _TRANSIENT_SQLSTATE_CLASSES:
        return True
    message = str(exc.orig).lower()
    return "database is locked" in message or "database is busy" in message


class ApiError(HTTPException):
    """An error a handler answers with: ``ApiError(404, "Digest not found")``."""

    def __init__(self, status_code: int, detail: str, headers: dict[str, str] | None = None):
        super().__init__(status_code=status_code, detail=detail, headers=headers)


def bad_request(detail: str) -> ApiError:
    """400 with ``detail``."""
    return ApiError(HTTP_400_BAD_REQUEST, detail)


def not_found(thing: str) -> ApiError:
    """404 ``<thing> not found`` (e.g. ``not_found("Alert responder")``)."""
    return ApiError(HTTP_404_NOT_FOUND, f"{thing} not found")


def conflict(detail: str) -> ApiError:
    """409 with ``detail``."""
    return ApiError(HTTP_409_CONFLICT, detail)


def error_response(
    status_code: int, detail: str, headers: dict[str, str] | None = None
) -> Response[Any]:
    """The one error response shape: ``{"detail": detail}``."""
    return Response(
        content={"detail": detail},
        status_code=status_code,
        headers=headers,
        media_type=MediaType.JSON,
    )


# msgspec's message for a member a ``forbid_unknown_fields`` struct does not define.
_UNKNOWN_FIELD = re.compile(r"^Object contains unknown field `(.*)`$", re.DOTALL)


_REQUEST_PARAMETERS = (ParamType.QUERY, ParamType.PATH, ParamType.HEADER, ParamType.COOKIE)


def _parameter_value(request: Request[Any, Any, Any], source: ParamType, key: str) -> str | None:
    """The value the request gave for parameter ``key`` of ``source``, as sent."""
    if source is ParamType.QUERY:
        return request.query_params.get(key)
    if source is ParamType.PATH:
        value = request.path_params.get(key)
        return None if value is None else str(value)
    if source is ParamType.HEADER:
        return request.headers.get(key)
    return request.cookies.get(key)


def _validation_detail(request: Request[Any, Any, Any], exc: ValidationException) -> str:
    override = request.scope.get("route_handler") and request.route_handler.opt.get(
        "validation_detail"
    )
    if override:
        return str(override)
    messages: list[str] = []
    extra = exc.extra
    if isinstance(extra, list):
        for item in extra:
            if isinstance(item, dict):
                message = str(item.get("message", "")).strip()
                key = item.get("key")
                source = item.get("source")
                if source in _REQUEST_PARAMETERS and key:
                    # A parameter, not the body: name it with the value given, as our own
                    # handlers do (``Invalid kind: BOGUS``), never Litestar's wording.
                    value = _parameter_value(request, source, str(key))
                    if value is None:
                        return f"Missing {source.value} parameter: {key}"
                    return f"Invalid {key}: {value}"
                unknown = _UNKNOWN_FIELD.match(message)
                if unknown:  # a strict body (forbid_unknown_fields): name the member
                    where = f"{key}." if key and key != "data" and source == "body" else ""
                    return f"Unknown field: {where}{unknown.group(1)}"
                if key and key not in message:
                    where = f"{source} parameter {key}" if source and source != "body" else key
                    message = f"{message} ({where})" if message else f"Invalid {where}"
                if message:
                    messages.append(message)
    if messages:
        return "Invalid request: " + "; ".join(messages)
    return "Invalid request body"


_HEADINGS = {
    403: "Not allowed",
    404: "Not found",
    500: "Something went wrong",
    503: "Busy for a moment",
}


def _wants_html(request: Request[Any, Any, Any]) -> bool:
    """A browser asking for a page: outside ``/api/`` and accepting ``text/html``."""
    return not request.url.path.startswith("/api/") and "text/html" in request.headers.get(
        "accept", ""
    )


def _browser_error(request: Request[Any, Any, Any], response: Response[Any]) -> Response[Any]:
    """The JSON error ``response`` as an HTML page when a browser asked for a page."""
    if not _wants_html(request) or not isinstance(response.content, dict):
        return response
    status = int(response.status_code or 500)
    html = render(
        "error.html",
        me=request.scope.get("sleuth_viewer"),
        csrf=getattr(request.scope.get("sleuth_viewer"), "csrf", None),
        status_code=status,
        heading=_HEADINGS.get(status, "Error"),
        detail=response.content.get("detail", ""),
    )
    headers = {k: v for k, v in response.headers.items() if k.lower() != "content-type"}
    return Response(
        html, status_code=status, media_type=MediaType.HTML, headers={**headers, **PAGE_HEADERS}
    )


#: The OTLP/HTTP routes (``/otlp/v1/...``) answer every error as a ``google.rpc.Status``.
OTLP_PREFIX = "/otlp/"


def otlp_status_response(
    request: Request[Any, Any, Any],
    status: int,
    message: str,
    headers: dict[str, str] | None = None,
    violations: tuple[tuple[str, str], ...] = (),
) -> Response[bytes]:
    """An OTLP error: a ``google.rpc.Status`` in the request's encoding (JSON for a JSON
    request, else binary protobuf)."""
    encoding = otlp.response_encoding(request.headers.get("content-type"))
    return Response(
        content=otlp.status_body(status, message, encoding, violations),
        status_code=status,
        media_type=encoding,
        headers=headers,
    )


def _http_exception(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    if request.url.path.startswith(OTLP_PREFIX):
        # Raised before a route is found (an unknown path, a method other than POST).
        detail = _DEFAULT_DETAILS.get(exc.status_code, exc.detail or "Error")
        if isinstance(exc, MethodNotAllowedException):
            detail = "Method not allowed: OTLP/HTTP takes POST"
        return otlp_status_response(request, exc.status_code, detail, dict(exc.headers or {}))
    return _browser_error(request, _http_error(request, exc))


def _http_error(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    status = exc.status_code
    headers = dict(exc.headers or {})
    if isinstance(exc, ApiError):
        return error_response(status, exc.detail, headers)
    if isinstance(exc, ValidationException) and status == HTTP_400_BAD_REQUEST:
        return error_response(status, _validation_detail(request, exc), headers)
    if status in _DEFAULT_DETAILS and (
        status in (HTTP_413_REQUEST_ENTITY_TOO_LARGE, HTTP_500_INTERNAL_SERVER_ERROR)
        or isinstance(exc, MethodNotAllowedException)
        or (isinstance(exc, NotFoundException) and exc.detail in ("Not Found", ""))
    ):
        if status == HTTP_500_INTERNAL_SERVER_ERROR:
            logger.error("internal server error: %s", exc.detail)
        return error_response(status, _DEFAULT_DETAILS[status], headers)
    return error_response(status, exc.detail or _DEFAULT_DETAILS.get(status, "Error"), headers)


def core_error_status(exc: CoreError) -> int:
    """The HTTP status of a core error (the nearest mapped class in its MRO)."""
    for cls in type(exc).__mro__:
        if cls in CORE_ERROR_STATUS:
            return CORE_ERROR_STATUS[cls]
    return HTTP_400_BAD_REQUEST


def _core_error(request: Request[Any, Any, Any], exc: CoreError) -> Response[Any]:
    return error_response(core_error_status(exc), str(exc))


def invalid_body_detail(request: Request[Any, Any, Any], default: str) -> str:
    """The route's own detail for a malformed body (option ``invalid_body_detail``), else
    ``default``."""
    if request.scope.get("route_handler") is None:
        return default
    return str(request.route_handler.opt.get(INVALID_BODY_OPT) or default)


def _too_deep(request: Request[Any, Any, Any], exc: RecursionError) -> Response[Any]:
    logger.warning("refused %s %s: %s", request.method, request.url.path, exc)
    return error_response(HTTP_400_BAD_REQUEST, invalid_body_detail(request, TOO_DEEP))


def _not_unicode(request: Request[Any, Any, Any], exc: UnicodeError) -> Response[Any]:
    return error_response(HTTP_400_BAD_REQUEST, invalid_body_detail(request, NOT_UTF8))


def _unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    if database_unavailable(exc):
        logger.warning("refused %s %s for now (503): %s", request.method, request.url.path, exc)
        return _browser_error(
            request,
            error_response(
                HTTP_503_SERVICE_UNAVAILABLE,
                DATABASE_BUSY,
                {"Retry-After": str(RETRY_AFTER_SECONDS)},
            ),
        )
    logger.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return _browser_error(
        request, error_response(HTTP_500_INTERNAL_SERVER_ERROR, _DEFAULT_DETAILS[500])
    )


def document_default_errors(app: Litestar, prefix: str = "/api/v1") -> None:
    """Give every operation under ``prefix`` the error responses any of them can answer.

    400, 401 and 429 everywhere; 413 where a body is accepted; 404 where the path has
    parameters. A handler's own ``responses`` (e.g. 403, 409) are kept and win. Runs before the
    OpenAPI document is first built, so the document lists exactly what the service can answer.
    """
    for route in app.routes:
        if not isinstance(route, HTTPRoute) or not route.path.startswith(prefix):
            continue
        for handler in route.route_handlers:
            codes: set[int] = set()
            if set(handler.http_methods) & {"POST", "PUT", "PATCH"}:
                codes.add(HTTP_413_REQUEST_ENTITY_TOO_LARGE)
            if route.path_parameters:
                codes.add(HTTP_404_NOT_FOUND)
            handler.responses = {**error_responses(*codes), **(handler.responses or {})}


def exception_handlers() -> ExceptionHandlersMap:
    """The app-level exception handlers (register with ``Litestar(exception_handlers=...)``)."""
    return {
        HTTPException: _http_exception,
        CoreError: _core_error,
        RecursionError: _too_deep,
        UnicodeError: _not_unicode,
        Exception: _unexpected,
    }
