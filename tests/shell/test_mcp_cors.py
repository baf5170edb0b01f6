"""CORS for browser-based MCP clients: the MCP endpoint, the OAuth metadata and the OAuth
registration, token and revocation endpoints answer preflights and carry the CORS headers on every
answer (the 401 and 429 included); the cookie-authenticated pages and the REST API do not."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import FIXED_NOW, PUBLIC_URL, Factory
from interaction_helpers import FakeAgent, fakes
from litestar import Litestar
from litestar.testing import TestClient
from test_mcp import ACCEPT, bearer, rpc

from sleuth_shell.app import create_app
from sleuth_shell.config import Settings

ORIGIN = {"Origin": "http://localhost:6274"}  # the MCP Inspector's own page
OAUTH_PATHS = [
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-authorization-server",
    "/oauth/register",
    "/oauth/token",
    "/oauth/revoke",
]


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient[Litestar]]:
    with TestClient(app=create_app(settings, **fakes(FakeAgent()))) as c:
        yield c


def _listed(value: str | None) -> set[str]:
    return {part.strip().lower() for part in (value or "").split(",") if part.strip()}


def _preflight(client: TestClient[Litestar], path: str, method: str, headers: str) -> object:
    return client.options(
        path,
        headers={
            **ORIGIN,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": headers,
        },
    )


@pytest.mark.parametrize("path", ["/mcp", "/mcp/"])
def test_mcp_preflight_allows_the_transport_headers(client, path) -> None:
    response = _preflight(
        client, path, "POST", "authorization, content-type, mcp-protocol-version, mcp-session-id"
    )
    assert response.status_code == 204, response.text
    assert response.headers["access-control-allow-origin"] == "*"
    assert "access-control-allow-credentials" not in response.headers
    allowed = _listed(response.headers["access-control-allow-headers"])
    assert {"authorization", "content-type", "mcp-protocol-version", "mcp-session-id"} <= allowed
    assert {"post", "get", "options"} <= _listed(response.headers["access-control-allow-methods"])
    assert int(response.headers["access-control-max-age"]) >= 600
    assert response.content == b""


def test_mcp_answers_carry_the_cors_headers_with_the_challenge_exposed(client, org) -> None:
    refused = rpc(client, "tools/list", headers=ORIGIN)
    assert refused.status_code == 401
    assert refused.headers["access-control-allow-origin"] == "*"
    exposed = _listed(refused.headers["access-control-expose-headers"])
    assert {"www-authenticate", "mcp-session-id", "mcp-protocol-version", "retry-after"} <= exposed
    assert "resource_metadata=" in refused.headers["www-authenticate"]
    listed = rpc(client, "tools/list", headers={**ORIGIN, **bearer(org.key)})
    assert listed.status_code == 200 and listed.json()["result"]["tools"]
    assert listed.headers["access-control-allow-origin"] == "*"
    assert "x-ratelimit-remaining" in _listed(listed.headers["access-control-expose-headers"])
    # The GET the transport refuses is readable by the page too.
    assert client.get("/mcp", headers=ORIGIN).headers["access-control-allow-origin"] == "*"


@pytest.mark.parametrize("path", OAUTH_PATHS)
def test_oauth_endpoints_answer_preflights(client, path) -> None:
    method = "GET" if path.startswith("/.well-known") else "POST"
    response = _preflight(client, path, method, "content-type, authorization")
    assert response.status_code == 204, response.text
    assert response.headers["access-control-allow-origin"] == "*"
    assert "content-type" in _listed(response.headers["access-control-allow-headers"])


def test_oauth_answers_carry_the_cors_headers(client) -> None:
    metadata = client.get("/.well-known/oauth-authorization-server", headers=ORIGIN)
    assert metadata.status_code == 200
    assert metadata.headers.get_list("access-control-allow-origin") == ["*"]  # once, not twice
    registered = client.post(
        "/oauth/register",
        json={
            "client_name": "Inspector",
            "redirect_uris": ["http://localhost:6274/oauth/callback"],
        },
        headers=ORIGIN,
    )
    assert registered.status_code == 201, registered.text
    assert registered.headers["access-control-allow-origin"] == "*"
    bad = client.post(
        "/oauth/token", data={"grant_type": "authorization_code", "code": "x"}, headers=ORIGIN
    )
    assert bad.status_code in (400, 401) and bad.headers["access-control-allow-origin"] == "*"


def test_pages_the_api_and_the_consent_page_send_no_cors_headers(client, org) -> None:
    for path in ["/", "/login", "/settings", "/oauth/authorize", "/api/v1/alert-responders"]:
        response = client.get(path, headers={**ORIGIN, **ACCEPT}, follow_redirects=False)
        assert "access-control-allow-origin" not in response.headers, path
        preflight = _preflight(client, path, "POST", "content-type")
        assert "access-control-allow-origin" not in preflight.headers, path
    api = client.get("/api/v1/alert-responders", headers={**ORIGIN, **org.headers})
    assert api.status_code == 200 and "access-control-allow-origin" not in api.headers


def test_a_refused_rate_limit_is_readable_by_the_page(migrated_url: str, factory: Factory) -> None:
    settings = Settings(
        database_url=migrated_url,
        public_url=PUBLIC_URL,
        workers_inline=False,
        rate_limits={"free": 1, "team": 100},
    )
    busy = factory.org("busy")
    app = create_app(settings, clock=lambda: FIXED_NOW, **fakes(FakeAgent()))
    with TestClient(app=app) as client:
        assert rpc(client, "tools/list", headers={**ORIGIN, **bearer(busy.key)}).status_code == 200
        refused = rpc(client, "tools/list", headers={**ORIGIN, **bearer(busy.key)})
        assert refused.status_code == 429
        assert refused.headers["access-control-allow-origin"] == "*"
        assert "retry-after" in _listed(refused.headers["access-control-expose-headers"])
