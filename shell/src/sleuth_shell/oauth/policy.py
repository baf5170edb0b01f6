"""The rules of Sleuth's OAuth authorization server that need no storage: lifetimes, token shapes,
the redirect-URI policy and the two metadata documents.

Redirect URIs (RFC 7591 registration, RFC 8252): ``https``, ``http`` on a loopback host
(``127.0.0.1``, ``[::1]``, ``localhost``), or a private-use scheme of a native app (``cursor://``);
never a fragment, never a web or script scheme. A requested URI must equal a registered one,
except that a loopback URI's port may differ (RFC 8252 section 7.3: the app picks a free port).

>>> redirect_uri_problem("https://app.example.com/cb") is None
True
>>> redirect_uri_problem("http://127.0.0.1/callback") is None
True
>>> redirect_uri_problem("cursor://anysphere.cursor-mcp/oauth/callback") is None
True
>>> redirect_uri_problem("http://app.example.com/cb")
'http redirect URIs must be loopback (127.0.0.1, [::1] or localhost): http://app.example.com/cb'
>>> redirect_uri_problem("https://app.example.com/cb#x")
'redirect URIs must not have a fragment: https://app.example.com/cb#x'
>>> redirect_uri_problem("javascript://x/%0aalert(1)")
'redirect URIs must not use the javascript scheme'
>>> redirect_uri_matches(["http://127.0.0.1/callback"], "http://127.0.0.1:53682/callback")
True
>>> redirect_uri_matches(["http://127.0.0.1/callback"], "http://127.0.0.1:53682/other")
False
>>> redirect_uri_matches(["https://app.example.com/cb"], "https://app.example.com:8443/cb")
False
>>> resource_matches("https://sleuth.example.com", "https://sleuth.example.com/mcp/")
True
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "ACCESS_TOKEN_LIFETIME",
    "ACCESS_TOKEN_PREFIX",
    "AUTH_METHODS",
    "CODE_LIFETIME",
    "GRANT_TYPES",
    "REFRESH_TOKEN_LIFETIME",
    "REFRESH_TOKEN_PREFIX",
    "SCOPE",
    "authorization_server_metadata",
    "challenge",
    "hash_secret",
    "is_loopback",
    "protected_resource_metadata",
    "redirect_uri_matches",
    "redirect_uri_problem",
    "resource_matches",
    "resource_metadata_url",
    "resource_url",
]

#: How long an access token is good for (the MCP endpoint refuses it afterwards).
ACCESS_TOKEN_LIFETIME = timedelta(hours=1)
#: How long a refresh token is good for (each use replaces it with a new one).
REFRESH_TOKEN_LIFETIME = timedelta(days=30)
#: How long an authorization code is good for (it is good once).
CODE_LIFETIME = timedelta(minutes=5)
#: Access tokens start with this (API keys with ``slk_``), refresh tokens with the other.
ACCESS_TOKEN_PREFIX = "sla_"
REFRESH_TOKEN_PREFIX = "slr_"
#: The one scope: the MCP endpoint's tools, acting for the approving key.
SCOPE = "mcp"
#: The client authentication methods at the token and revocation endpoints.
AUTH_METHODS = ("none", "client_secret_basic", "client_secret_post")
GRANT_TYPES = ("authorization_code", "refresh_token")

_MCP_PATH = "/mcp"
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*$")
#: Schemes a browser would open as a page or a script, or that name no app: never a callback.
_FORBIDDEN_SCHEMES = frozenset(
    {"javascript", "data", "vbscript", "file", "about", "blob", "filesystem", "ws", "wss", "ftp"}
)


def hash_secret(value: str) -> str:
    """The SHA-256 hex digest under which a code, token or client secret is stored."""
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def is_loopback(uri: str) -> bool:
    """Whether ``uri`` is an ``http`` URI on a loopback host."""
    try:
        parts = urlsplit(uri)
        return parts.scheme == "http" and (parts.hostname or "") in _LOOPBACK_HOSTS
    except ValueError:
        return False


def redirect_uri_problem(uri: str) -> str | None:
    """Why ``uri`` cannot be registered as a redirect URI, or None when it can."""
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        return f"not a valid URI: {uri}"
    scheme = parts.scheme.lower()
    if not scheme or not _SCHEME.match(scheme):
        return f"not an absolute URI: {uri}"
    if scheme in _FORBIDDEN_SCHEMES:
        return f"redirect URIs must not use the {scheme} scheme"
    if parts.fragment or uri.endswith("#"):
        return f"redirect URIs must not have a fragment: {uri}"
    if scheme == "https":
        return None if parts.hostname else f"not a valid URI: {uri}"
    if scheme == "http":
        if (parts.hostname or "") in _LOOPBACK_HOSTS:
            return None
        return f"http redirect URIs must be loopback (127.0.0.1, [::1] or localhost): {uri}"
    if not (parts.netloc or parts.path):
        return f"not a valid URI: {uri}"
    return None


def redirect_uri_matches(registered: Sequence[str], requested: str) -> bool:
    """Whether ``requested`` is one of ``registered``: exactly, or for a loopback URI with any
    port (RFC 8252 section 7.3)."""
    if requested in registered:
        return True
    if not is_loopback(requested):
        return False
    want = urlsplit(requested)
    for uri in registered:
        if not is_loopback(uri):
            continue
        have = urlsplit(uri)
        if (have.hostname, have.path, have.query) == (want.hostname, want.path, want.query):
            return True
    return False


def resource_url(public_url: str) -> str:
    """The protected resource: the MCP endpoint (RFC 8707 ``resource``, RFC 9728 ``resource``)."""
    return public_url + _MCP_PATH


def resource_matches(public_url: str, value: str) -> bool:
    """Whether an RFC 8707 ``resource`` parameter names the MCP endpoint (or the service)."""
    value = value.rstrip("/")
    return value in {resource_url(public_url), public_url}


def resource_metadata_url(public_url: str) -> str:
    """Where the MCP endpoint's protected-resource metadata is (RFC 9728 section 3.1)."""
    return f"{public_url}/.well-known/oauth-protected-resource{_MCP_PATH}"


def challenge(public_url: str, *, invalid_token: bool = False) -> str:
    """The ``WWW-Authenticate`` value of a 401 from the MCP endpoint (RFC 9728 section 5.1,
    RFC 6750 section 3).

    >>> challenge("https://s.example")
    'Bearer resource_metadata="https://s.example/.well-known/oauth-protected-resource/mcp"'
    """
    value = f'Bearer resource_metadata="{resource_metadata_url(public_url)}"'
    if invalid_token:
        value += ', error="invalid_token"'
    return value


def protected_resource_metadata(public_url: str) -> dict[str, Any]:
    """The MCP endpoint's RFC 9728 metadata: Sleuth itself is its authorization server."""
    return {
        "resource": resource_url(public_url),
        "authorization_servers": [public_url],
        "scopes_supported": [SCOPE],
        "bearer_methods_supported": ["header"],
        "resource_name": "Sleuth",
    }


def authorization_server_metadata(public_url: str) -> dict[str, Any]:
    """The RFC 8414 metadata of the authorization server whose issuer is ``public_url``."""
    return {
        "issuer": public_url,
        "authorization_endpoint": f"{public_url}/oauth/authorize",
        "token_endpoint": f"{public_url}/oauth/token",
        "registration_endpoint": f"{public_url}/oauth/register",
        "revocation_endpoint": f"{public_url}/oauth/revoke",
        "scopes_supported": [SCOPE],
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": list(GRANT_TYPES),
        "token_endpoint_auth_methods_supported": list(AUTH_METHODS),
        "revocation_endpoint_auth_methods_supported": list(AUTH_METHODS),
        "code_challenge_methods_supported": ["S256"],
    }
