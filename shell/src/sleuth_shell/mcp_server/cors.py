"""CORS for browser-based MCP clients (the MCP Inspector, web IDEs): the MCP endpoint, the OAuth
metadata documents and the OAuth registration, token and revocation endpoints, and nothing else.

A page of any origin may call them (``Access-Control-Allow-Origin: *``, never with credentials):
they authenticate with a bearer key or token in a header, never with the web app's cookie, so a
page gains nothing a script outside a browser could not do, and a browser client's origin (a
``localhost`` port, an IDE's own host) is not known in advance. The cookie-authenticated pages,
``/oauth/authorize`` (a browser navigation, not a fetch) and the REST API send no CORS headers.

The headers are the ones :class:`litestar.config.cors.CORSConfig` computes for :data:`POLICY`.
Litestar's own CORS support applies to every path of the application, so it is not used; instead
:func:`add_cors_headers` is the application's ``before_send`` hook, which sees every response,
the 401 and 429 the gate raises included (a browser client must read their ``WWW-Authenticate``
and ``Retry-After``). A preflight (``OPTIONS``) is answered 204 by the route: Litestar's own
``OPTIONS`` handler for the OAuth routes, :class:`~sleuth_shell.mcp_server.server.McpEndpoint`
for ``/mcp``.
"""

from __future__ import annotations

from litestar.config.cors import CORSConfig
from litestar.datastructures import MutableScopeHeaders
from litestar.types import Message, Scope

from sleuth_shell.domain import API_KEY_HEADER

__all__ = ["CORS_PATHS", "POLICY", "add_cors_headers"]

#: The paths that answer browser clients of any origin.
CORS_PATHS = frozenset(
    {
        "/mcp",
        "/mcp/",
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
        "/oauth/register",
        "/oauth/token",
        "/oauth/revoke",
    }
)

#: What a browser client may send and read: the bearer token (or API key header), the MCP
#: transport's headers, and the challenge, session and rate-limit headers of the answers.
POLICY = CORSConfig(
    allow_origins=["*"],
    allow_methods=["GET", "POST", "OPTIONS"],
    allow_headers=[
        "authorization",
        "content-type",
        "last-event-id",
        "mcp-protocol-version",
        "mcp-session-id",
        API_KEY_HEADER.lower(),
    ],
    expose_headers=[
        "WWW-Authenticate",
        "Mcp-Session-Id",
        "Mcp-Protocol-Version",
        "Retry-After",
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
    ],
    allow_credentials=False,
    max_age=86400,
)


async def add_cors_headers(message: Message, scope: Scope) -> None:
    """The ``before_send`` hook: on a response of a :data:`CORS_PATHS` path, the preflight
    headers (an ``OPTIONS`` request) or the simple ones (any other). A coroutine function, as
    Litestar would run a plain function in a worker thread for every message of every response."""
    if message["type"] != "http.response.start" or scope.get("path") not in CORS_PATHS:
        return
    headers = MutableScopeHeaders.from_message(message)
    if scope.get("method") == "OPTIONS":
        headers.update(POLICY.preflight_headers)
        headers["Access-Control-Expose-Headers"] = POLICY.simple_headers[
            "Access-Control-Expose-Headers"
        ]
    else:
        headers.update(POLICY.simple_headers)
