"""The authorization server's JSON endpoints: the two metadata documents (RFC 9728, RFC 8414),
client registration (RFC 7591), the token endpoint and revocation (RFC 7009).

The consent step (``/oauth/authorize``) is a page of the web app (:mod:`sleuth_shell.web.oauth`).
Every route here answers in the protocol's own format (OAuth error objects, never
``{"detail": ...}``), takes no API key, and is counted per client address against
``SLEUTH_OAUTH_RATE_LIMIT`` (route option :data:`OAUTH_RATE_LIMIT`).
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post

from sleuth_shell.db.models import utcnow
from sleuth_shell.oauth.policy import authorization_server_metadata, protected_resource_metadata
from sleuth_shell.oauth.server import read_request, register_client, revoke, token

__all__ = ["OAUTH_RATE_LIMIT", "ROUTES"]

#: The route option that makes the gate count a request per client address against the OAuth
#: limit.
OAUTH_RATE_LIMIT = "oauth_rate_limit"
_OPTIONS: dict[str, Any] = {"include_in_schema": False, OAUTH_RATE_LIMIT: True}
#: The CORS headers of every route here come from the application's hook (mcp_server/cors.py).
_METADATA_HEADERS = {"Cache-Control": "public, max-age=300"}


def _public_url(request: Request[Any, Any, Any]) -> str:
    public_url: str = request.app.state.settings.public_url
    return public_url


@get(
    ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"],
    **_OPTIONS,
)
async def protected_resource(request: Request[Any, Any, Any]) -> Response[dict[str, Any]]:
    """RFC 9728 metadata of the MCP endpoint (also at the path-suffixed address)."""
    return Response(protected_resource_metadata(_public_url(request)), headers=_METADATA_HEADERS)


@get("/.well-known/oauth-authorization-server", **_OPTIONS)
async def authorization_server(request: Request[Any, Any, Any]) -> Response[dict[str, Any]]:
    """RFC 8414 metadata of the authorization server (the issuer is ``SLEUTH_PUBLIC_URL``)."""
    return Response(authorization_server_metadata(_public_url(request)), headers=_METADATA_HEADERS)


@post("/oauth/register", status_code=201, **_OPTIONS)
async def register(request: Request[Any, Any, Any]) -> Response[bytes]:
    """RFC 7591 dynamic client registration (open)."""
    public_url = _public_url(request)
    data = await read_request(request, public_url, json_body=True)
    return await register_client(request.app.state.session_factory, public_url, data, utcnow())


@post("/oauth/token", status_code=200, **_OPTIONS)
async def token_endpoint(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The token endpoint: ``authorization_code`` (with the PKCE verifier) or ``refresh_token``."""
    public_url = _public_url(request)
    data = await read_request(request, public_url)
    return await token(request.app.state.session_factory, public_url, data, utcnow())


@post("/oauth/revoke", status_code=200, **_OPTIONS)
async def revocation(request: Request[Any, Any, Any]) -> Response[bytes]:
    """RFC 7009 token revocation."""
    public_url = _public_url(request)
    data = await read_request(request, public_url)
    return await revoke(request.app.state.session_factory, public_url, data, utcnow())


ROUTES: list[Any] = [protected_resource, authorization_server, register, token_endpoint, revocation]
