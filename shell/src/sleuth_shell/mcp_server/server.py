"""The MCP server at ``/mcp``: the official SDK's Streamable HTTP transport inside the Litestar app.

:class:`McpEndpoint` holds one low-level SDK :class:`~mcp.server.lowlevel.Server` (the tools of
:mod:`.tools`) and its ``StreamableHTTPSessionManager``, stateless and answering in JSON: every
POST is a complete exchange, so a bare ``tools/call`` without ``initialize`` works, any node can
answer any request, and full sessions (``initialize``, ``tools/list``, ...) work the same way.
The manager's task group runs for the app's lifetime (:meth:`McpEndpoint.lifespan`, a Litestar
lifespan manager).

The route (:meth:`McpEndpoint.route`) sits behind the app's middleware like every other route:
:class:`~sleuth_shell.gate.GateMiddleware` resolves ``X-Service-Org-Api-Key`` or, on ``/mcp``,
``Authorization: Bearer <key or OAuth access token>``, and counts the request against the
organization's plan. Errors outside the protocol are JSON-RPC error objects with the HTTP status:
401 for a missing or invalid key or token (with the MCP authorization challenge,
``WWW-Authenticate: Bearer resource_metadata="..."``, RFC 9728), 405 for anything but POST, 429
over the rate limit (with ``Retry-After``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, cast

import jsonschema
from litestar import Litestar, Request, Response
from litestar.exceptions import HTTPException
from litestar.handlers import ASGIRouteHandler, asgi
from litestar.types import Receive, Scope, Send
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import McpError

from sleuth_shell import __version__
from sleuth_shell.auth import current_principal, key_presented
from sleuth_shell.json_body import decode_json_body
from sleuth_shell.mcp_server.tools import TOOLS, ToolCaller, ToolFailure
from sleuth_shell.oauth.policy import challenge
from sleuth_shell.oauth.store import is_access_token
from sleuth_shell.services import Services

__all__ = ["MCP_PATH", "UNAUTHORIZED", "McpEndpoint", "jsonrpc_error"]

log = logging.getLogger("sleuth.mcp")

MCP_PATH = "/mcp"
#: The JSON-RPC error code of a refused request (a server error in the implementation range).
UNAUTHORIZED = -32001
#: The JSON-RPC error code of any other HTTP-level refusal (405, 413, 429).
REFUSED = -32000

#: The parse error of a body holding a lone UTF-16 surrogate escape (no database stores one).
SURROGATE = "Parse error: a lone UTF-16 surrogate escape (\\ud800-\\udfff) in a string"

INSTRUCTIONS = (
    "Sleuth is an on-call investigation assistant. Use sleuth_ask to ask it about production "
    "behaviour (it searches runbooks, logs, traces and metrics and cites its sources); use "
    "sleuth_list_investigations and sleuth_investigation to read the analyses it ran on alerts; "
    "use sleuth_fetch_context to read any Sleuth URL a user shares."
)


def jsonrpc_error(code: int, message: str, request_id: Any = None) -> dict[str, Any]:
    """A JSON-RPC 2.0 error response object."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _error_response(
    status_code: int, code: int, message: str, headers: Mapping[str, str] | None = None
) -> Response[dict[str, Any]]:
    return Response(
        jsonrpc_error(code, message),
        status_code=status_code,
        headers=dict(headers or {}),
        media_type="application/json",
    )


async def _send_error(
    send: Send, status: int, code: int, message: str, headers: Mapping[str, str]
) -> None:
    body = json.dumps(jsonrpc_error(code, message)).encode()
    raw = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode("latin-1")),
        *(
            (name.lower().encode("latin-1"), value.encode("latin-1"))
            for name, value in headers.items()
        ),
    ]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _http_exception(
    request: Request[Any, Any, Any], exc: HTTPException
) -> Response[dict[str, Any]]:
    """An HTTP-level refusal (e.g. 429 from the rate limiter) as a JSON-RPC error."""
    code = UNAUTHORIZED if exc.status_code == 401 else REFUSED
    return _error_response(exc.status_code, code, exc.detail, exc.headers)


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole request body, or None once it passes ``limit`` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(raw: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the SDK the body already read, then the connection's own
    messages (its disconnect)."""
    sent = False

    async def replay() -> Any:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}
        return await receive()

    return replay


def _unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[dict[str, Any]]:
    log.exception("MCP request failed", exc_info=exc)
    return _error_response(500, types.INTERNAL_ERROR, "Internal error")


def _text(text: str, *, is_error: bool = False) -> types.ServerResult:
    return types.ServerResult(
        types.CallToolResult(content=[types.TextContent(type="text", text=text)], isError=is_error)
    )


class McpEndpoint:
    """One app's MCP server: the SDK server with Sleuth's tools and its stateless transport."""

    def __init__(self, *, max_body_bytes: int) -> None:
        self.max_body_bytes = max_body_bytes
        self.server: Server[Any, Any] = Server(
            "sleuth", version=__version__, instructions=INSTRUCTIONS
        )
        self.server.request_handlers[types.ListToolsRequest] = self._list_tools
        self.server.request_handlers[types.CallToolRequest] = self._call_tool
        self.manager = StreamableHTTPSessionManager(
            app=self.server,
            json_response=True,
            stateless=True,
            # The key travels in a header a page cannot add, so DNS rebinding gains nothing; the
            # service answers on whatever host name it is deployed under.
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_request_body_size=max_body_bytes,
        )

    def lifespan(self, app: Litestar) -> AbstractAsyncContextManager[None]:
        """The Litestar lifespan manager that runs the transport's task group."""
        return self.manager.run()

    def route(self) -> ASGIRouteHandler:
        """The ``/mcp`` route (``/mcp/`` reaches it too)."""

        @asgi(
            MCP_PATH,
            copy_scope=True,
            name="mcp",
            exception_handlers={HTTPException: _http_exception, Exception: _unexpected},
        )
        async def mcp_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
            await self.handle(scope, receive, send)

        return mcp_endpoint

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a CORS preflight, refuse what is not an authenticated POST, hand the rest to
        the SDK transport."""
        if scope.get("method") == "OPTIONS":
            # The CORS headers are added by the application's hook (mcp_server/cors.py).
            allow = [(b"allow", b"OPTIONS, POST")]
            await send({"type": "http.response.start", "status": 204, "headers": allow})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        elif scope.get("method") != "POST":
            await _send_error(
                send,
                405,
                REFUSED,
                "Method not allowed: this stateless MCP server takes POST only",
                {"Allow": "POST"},
            )
        elif current_principal(scope) is None:
            presented = key_presented(scope)
            message = "Invalid API key" if presented else "Missing API key"
            if presented and _bearer_access_token(scope):
                message = "Invalid, expired or revoked access token"
            public_url = scope["litestar_app"].state.settings.public_url
            await _send_error(
                send,
                401,
                UNAUTHORIZED,
                message,
                {"WWW-Authenticate": challenge(public_url, invalid_token=presented)},
            )
        else:
            raw = await _read_body(receive, self.max_body_bytes)
            if raw is None:
                await _send_error(send, 413, REFUSED, "Request body too large", {})
                return
            try:
                decode_json_body(raw, not_json="Parse error: not valid JSON", surrogate=SURROGATE)
            except ValueError as exc:
                await _send_error(send, 400, types.PARSE_ERROR, str(exc), {})
                return
            # Litestar's ASGI types are narrower TypedDicts than the SDK's (Starlette's) mappings;
            # the values are the same.
            await self.manager.handle_request(
                cast(Any, scope), cast(Any, _replay(raw, receive)), cast(Any, send)
            )

    async def _list_tools(self, request: types.ListToolsRequest) -> types.ServerResult:
        return types.ServerResult(
            types.ListToolsResult(
                tools=[
                    types.Tool(
                        name=spec.name,
                        title=spec.title,
                        description=spec.description,
                        inputSchema=spec.input_schema,
                        annotations=types.ToolAnnotations(
                            title=spec.title,
                            readOnlyHint=spec.read_only,
                            destructiveHint=False,
                            openWorldHint=False,
                        ),
                    )
                    for spec in TOOLS.values()
                ]
            )
        )

    async def _call_tool(self, request: types.CallToolRequest) -> types.ServerResult:
        name = request.params.name
        spec = TOOLS.get(name)
        if spec is None:
            raise McpError(
                types.ErrorData(code=types.INVALID_PARAMS, message=f"Unknown tool: {name}")
            )
        arguments = request.params.arguments or {}
        problem = _argument_problem(spec.input_schema, arguments)
        if problem is not None:
            return _text(f"Invalid arguments for {name}: {problem}", is_error=True)
        caller = self._caller()
        try:
            return _text(await spec.run(caller, arguments))
        except ToolFailure as exc:
            return _text(str(exc), is_error=True)
        except Exception:
            log.exception("MCP tool %s failed", name)
            return _text(f"{name} failed unexpectedly; try again later", is_error=True)

    def _caller(self) -> ToolCaller:
        http_request = self.server.request_context.request
        scope: Scope = http_request.scope  # type: ignore[union-attr]
        principal = current_principal(scope)
        if principal is None:  # the route refuses unauthenticated requests before this
            raise McpError(types.ErrorData(code=UNAUTHORIZED, message="Missing API key"))
        services: Services = scope["litestar_app"].state.services
        return ToolCaller(principal=principal, services=services)


def _bearer_access_token(scope: Scope) -> bool:
    """Whether the request's ``Authorization: Bearer`` carries an OAuth access token."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, credentials = value.decode("latin-1").strip().partition(" ")
            return scheme.lower() == "bearer" and is_access_token(credentials.strip())
    return False


#: Longest argument value quoted in a tool error, and longest problem text.
_MAX_QUOTED = 80
_MAX_PROBLEM = 500


def _argument_problem(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
    """The first way ``arguments`` break ``schema`` (one line, naming the argument), or None."""
    validator = jsonschema.Draft202012Validator(dict(schema))
    error = jsonschema.exceptions.best_match(validator.iter_errors(dict(arguments)))
    if error is None:
        return None
    message = error.message
    shown = repr(error.instance)
    if len(shown) > _MAX_QUOTED:  # name the value by its start, never echo it whole
        message = message.replace(shown, f"{shown[:_MAX_QUOTED]}... ({len(shown)} characters)")
    where = ".".join(str(part) for part in error.absolute_path)
    text = f"{where}: {message}" if where else message
    return text if len(text) <= _MAX_PROBLEM else f"{text[:_MAX_PROBLEM]}..."
