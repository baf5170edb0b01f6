"""The MCP endpoint's OAuth authorization server in process: metadata, registration, consent,
the code grant with PKCE, refresh rotation, revocation, and every refusal.

The whole flow with the MCP SDK's own OAuth client, over real HTTP and Chromium:
``tests/e2e/test_mcp_oauth_e2e.py``.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import re
import secrets
from collections.abc import Iterator
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from alembic.script import ScriptDirectory
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata
from conftest import Factory, OrgHandle
from interaction_helpers import FakeAgent, fakes
from litestar import Litestar
from litestar.testing import TestClient
from sqlalchemy import func, inspect, select, update
from test_ids_never_reused import _downgrade

from sleuth_shell.app import create_app
from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine, create_session_factory, migrate
from sleuth_shell.db.migrate import alembic_config
from sleuth_shell.db.models import (
    ApiKey,
    Interaction,
    OAuthCode,
    OAuthGrant,
    OAuthToken,
    utcnow,
)
from sleuth_shell.oauth.server import RequestData, SleuthAuthorizationServer
from sleuth_shell.oauth.store import commit_exchange, load_exchange

PUBLIC = "https://sleuth.test"
REDIRECT = "http://127.0.0.1/callback"
ACCEPT = {"Accept": "application/json, text/event-stream"}
CHALLENGE = f'Bearer resource_metadata="{PUBLIC}/.well-known/oauth-protected-resource/mcp"'


@pytest.fixture
def oauth_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"public_url": PUBLIC})


@pytest.fixture
def web(oauth_settings: Settings) -> Iterator[TestClient[Litestar]]:
    app = create_app(oauth_settings, **fakes(FakeAgent()))
    with TestClient(
        app=app, raise_server_exceptions=False, base_url="https://sleuth.test"
    ) as client:
        yield client


def _csrf(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, html
    return match.group(1)


def sign_in(client: TestClient[Litestar], key: str) -> None:
    token = _csrf(client.get("/login").text)
    response = client.post(
        "/login", data={"api_key": key, "next": "/", "csrf_token": token}, follow_redirects=False
    )
    assert response.status_code == 303, response.text


def register(client: TestClient[Litestar], **metadata: Any) -> dict[str, Any]:
    body = {
        "client_name": "Test agent",
        "redirect_uris": [REDIRECT],
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        **metadata,
    }
    response = client.post("/oauth/register", json=body)
    assert response.status_code == 201, response.text
    info: dict[str, Any] = response.json()
    return info


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def authorize_params(client_id: str, challenge: str, **extra: str) -> dict[str, str]:
    return {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": "http://127.0.0.1:53682/callback",
        "state": "st-1",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "resource": f"{PUBLIC}/mcp",
        "scope": "mcp",
        **extra,
    }


def approve(client: TestClient[Litestar], params: dict[str, str], decision: str = "approve") -> Any:
    page = client.get(f"/oauth/authorize?{urlencode(params)}")
    assert page.status_code == 200, page.text
    form = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page.text))
    form = {k: v.replace("&amp;", "&") for k, v in form.items()}
    form["decision"] = decision
    return client.post("/oauth/authorize", data=form, follow_redirects=False)


def get_code(client: TestClient[Litestar], client_id: str, challenge: str) -> str:
    response = approve(client, authorize_params(client_id, challenge))
    assert response.status_code == 302, response.text
    location = urlsplit(response.headers["location"])
    assert location.netloc == "127.0.0.1:53682" and location.path == "/callback"
    query = parse_qs(location.query)
    assert query["state"] == ["st-1"]
    return query["code"][0]


def exchange(
    client: TestClient[Litestar], client_id: str, code: str, verifier: str, **extra: str
) -> Any:
    return client.post(
        "/oauth/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": "http://127.0.0.1:53682/callback",
            "client_id": client_id,
            "code_verifier": verifier,
            **extra,
        },
    )


def tokens_for(client: TestClient[Litestar], key: str) -> tuple[str, dict[str, Any]]:
    """Sign in with ``key``, register a public client, approve it; the client id and tokens."""
    sign_in(client, key)
    client_id = register(client)["client_id"]
    verifier, challenge = pkce()
    response = exchange(client, client_id, get_code(client, client_id, challenge), verifier)
    assert response.status_code == 200, response.text
    return client_id, response.json()


def mcp_list(client: TestClient[Litestar], token: str) -> Any:
    return client.post(
        "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={**ACCEPT, "Authorization": f"Bearer {token}"},
    )


def refresh(client: TestClient[Litestar], client_id: str, token: str) -> Any:
    return client.post(
        "/oauth/token",
        data={"grant_type": "refresh_token", "refresh_token": token, "client_id": client_id},
    )


# --- metadata and the challenge ----------------------------------------------------------------


def test_metadata_documents_name_sleuth_as_the_authorization_server(
    web: TestClient[Litestar],
) -> None:
    for path in (
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ):
        resource = web.get(path)
        assert resource.status_code == 200
        assert resource.json()["resource"] == f"{PUBLIC}/mcp"
        assert resource.json()["authorization_servers"] == [PUBLIC]
    server = web.get("/.well-known/oauth-authorization-server").json()
    metadata = AuthorizationServerMetadata(server)
    metadata.validate()  # authlib's RFC 8414 checks
    assert server["issuer"] == PUBLIC
    assert server["code_challenge_methods_supported"] == ["S256"]
    assert server["registration_endpoint"] == f"{PUBLIC}/oauth/register"


def test_every_mcp_401_carries_the_challenge(
    web: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    missing = web.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == CHALLENGE
    for token, message in (
        ("sla_unknown", "Invalid, expired or revoked access token"),
        ("slk_unknown", "Invalid API key"),
        ("junk", "Invalid API key"),
    ):
        refused = mcp_list(web, token)
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"] == CHALLENGE + ', error="invalid_token"'
        assert refused.json()["error"]["message"] == message
    # org keys keep working as bearer and as the header
    assert mcp_list(web, org.key).status_code == 200
    header = web.post(
        "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={**ACCEPT, **org.headers},
    )
    assert header.status_code == 200


# --- the flow ----------------------------------------------------------------------------------


@pytest.mark.storage  # also on PostgreSQL (SLEUTH_TEST_POSTGRES_URL)
def test_consent_needs_sign_in_then_issues_tokens_for_the_approving_key(
    web: TestClient[Litestar], factory: Factory, org: OrgHandle, caplog: pytest.LogCaptureFixture
) -> None:
    client_id = register(web)["client_id"]
    _verifier, challenge = pkce()
    params = authorize_params(client_id, challenge)
    to_login = web.get(f"/oauth/authorize?{urlencode(params)}", follow_redirects=False)
    assert to_login.status_code == 303
    assert to_login.headers["location"].startswith("/login?next=%2Foauth%2Fauthorize%3F")
    factory.team(org, "Payments")
    team_key = factory.key(org, team="Payments")
    caplog.set_level(logging.INFO, "sleuth.oauth")
    _client_id, tokens = tokens_for(web, team_key)
    assert tokens["token_type"] == "Bearer" and tokens["expires_in"] <= 3600
    assert tokens["access_token"].startswith("sla_")
    assert tokens["refresh_token"].startswith("slr_")
    assert any("approved client" in r.getMessage() for r in caplog.records)
    listed = mcp_list(web, tokens["access_token"])
    assert listed.status_code == 200, listed.text
    assert {t["name"] for t in listed.json()["result"]["tools"]} >= {"sleuth_ask"}
    asked = web.post(
        "/mcp",
        json={
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "sleuth_ask", "arguments": {"query": "What failed?"}},
        },
        headers={**ACCEPT, "Authorization": f"Bearer {tokens['access_token']}"},
    )
    assert asked.json()["result"]["isError"] is False, asked.text

    async def stored(session: Any) -> Any:
        grant = (await session.scalars(select(OAuthGrant))).one()
        token = (await session.scalars(select(OAuthToken))).one()
        key = (await session.scalars(select(ApiKey).where(ApiKey.id == grant.api_key_id))).one()
        return grant, token, key

    grant, token, key = factory.run(stored)
    assert key.team_id is not None and grant.org_id == org.id
    # the question is the approving key's: its organization, key and team
    [asked_row] = factory.run(lambda s: s.execute(select(Interaction))).all()
    [interaction] = asked_row
    assert (interaction.org_id, interaction.api_key_id, interaction.team_id) == (
        org.id,
        key.id,
        key.team_id,
    )
    # only hashes at rest
    assert token.access_token_hash == hashlib.sha256(tokens["access_token"].encode()).hexdigest()
    assert tokens["refresh_token"] not in str(vars(token))
    # the token is for /mcp only
    assert (
        web.get(
            "/api/v1/interactions", headers={"Authorization": f"Bearer {tokens['access_token']}"}
        ).status_code
        == 401
    )
    assert (
        web.get(
            "/api/v1/interactions", headers={"X-Service-Org-Api-Key": tokens["access_token"]}
        ).status_code
        == 401
    )


def test_deny_answers_access_denied_and_records_nothing(
    web: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    sign_in(web, org.key)
    client_id = register(web)["client_id"]
    _verifier, challenge = pkce()
    denied = approve(web, authorize_params(client_id, challenge), decision="deny")
    assert denied.status_code == 302
    assert parse_qs(urlsplit(denied.headers["location"]).query)["error"] == ["access_denied"]
    assert factory.run(lambda s: s.scalar(select(func.count()).select_from(OAuthGrant))) == 0


def test_consent_form_needs_the_sessions_csrf_token(
    web: TestClient[Litestar], org: OrgHandle
) -> None:
    sign_in(web, org.key)
    client_id = register(web)["client_id"]
    _verifier, challenge = pkce()
    forged = web.post(
        "/oauth/authorize",
        data={**authorize_params(client_id, challenge), "decision": "approve", "csrf_token": "x"},
        follow_redirects=False,
    )
    assert forged.status_code == 403
    page = web.get(f"/oauth/authorize?{urlencode(authorize_params(client_id, challenge))}")
    assert page.headers["x-frame-options"] == "DENY"


# --- refusals ----------------------------------------------------------------------------------


def test_registration_refuses_bad_redirect_uris(web: TestClient[Litestar]) -> None:
    for uri, error in (
        ("http://evil.example/cb", "invalid_redirect_uri"),
        ("https://app.example/cb#frag", "invalid_redirect_uri"),
        ("javascript://x/alert(1)", "invalid_redirect_uri"),
    ):
        response = web.post("/oauth/register", json={"redirect_uris": [uri]})
        assert response.status_code == 400, response.text
        assert response.json()["error"] == error
    not_json = web.post(
        "/oauth/register", content=b"[1,2]", headers={"Content-Type": "application/json"}
    )
    assert not_json.status_code == 400 and not_json.json()["error"] == "invalid_client_metadata"
    assert (
        web.post(
            "/oauth/register", json={"redirect_uris": [REDIRECT], "grant_types": ["password"]}
        ).status_code
        == 400
    )
    jwt_auth = web.post(
        "/oauth/register",
        json={"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "private_key_jwt"},
    )
    assert jwt_auth.status_code == 400
    # https, loopback and a native app's private-use scheme are accepted
    info = register(
        web,
        redirect_uris=["https://app.example/cb", "cursor://anysphere.cursor-mcp/oauth/callback"],
    )
    assert "client_secret" not in info


def test_authorization_refusals(web: TestClient[Litestar], org: OrgHandle) -> None:
    sign_in(web, org.key)
    client_id = register(web)["client_id"]
    _verifier, challenge = pkce()

    def attempt(**changes: str) -> Any:
        params = {
            k: v for k, v in {**authorize_params(client_id, challenge), **changes}.items() if v
        }
        return web.get(f"/oauth/authorize?{urlencode(params)}", follow_redirects=False)

    # an unregistered redirect URI or unknown client is shown, never redirected
    for changes in ({"redirect_uri": "http://127.0.0.1:9/other"}, {"client_id": "nobody"}):
        shown = attempt(**changes)
        assert shown.status_code == 400 and "cannot be authorized" in shown.text
    # characters OAuth does not allow, which authlib would quote into its error text
    for changes in ({"redirect_uri": 'http://127.0.0.1/cb"\u00e9'}, {"response_type": 'c"\u00e9'}):
        shown = attempt(**changes)
        assert shown.status_code == 400 and "RFC 6749" in shown.text, changes
    # the rest go back to the client with the error
    for changes, error in (
        ({"code_challenge_method": "plain"}, "invalid_request"),
        ({"code_challenge": "", "code_challenge_method": ""}, "invalid_request"),
        ({"resource": "https://elsewhere.example/mcp"}, "invalid_target"),
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"scope": "admin"}, "invalid_scope"),
    ):
        refused = attempt(**changes)
        assert refused.status_code == 302, (changes, refused.text)
        assert parse_qs(urlsplit(refused.headers["location"]).query)["error"] == [error], changes


@pytest.mark.storage  # also on PostgreSQL (SLEUTH_TEST_POSTGRES_URL)
def test_token_refusals_bad_pkce_wrong_redirect_and_reused_code(
    web: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    sign_in(web, org.key)
    client_id = register(web)["client_id"]
    verifier, challenge = pkce()
    code = get_code(web, client_id, challenge)
    bad_pkce = exchange(web, client_id, code, secrets.token_urlsafe(48))
    assert bad_pkce.status_code == 400 and bad_pkce.json()["error"] == "invalid_grant"
    odd = web.post(
        "/oauth/token",
        data={"grant_type": "authorization_code", "code": code},
        headers={"Authorization": "Basic /w=="},  # not UTF-8 once decoded
    )
    assert odd.status_code == 400 and odd.json()["error"] == "invalid_request"
    wrong_redirect = exchange(web, client_id, code, verifier, redirect_uri="http://127.0.0.1:1/x")
    assert wrong_redirect.json()["error"] == "invalid_grant"
    other = register(web)["client_id"]
    assert exchange(web, other, code, verifier).json()["error"] == "invalid_grant"
    first = exchange(web, client_id, code, verifier)
    assert first.status_code == 200, first.text
    reused = exchange(web, client_id, code, verifier)
    assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"
    # a reused code revokes what it was exchanged for
    assert mcp_list(web, first.json()["access_token"]).status_code == 401
    # an expired code
    code = get_code(web, client_id, challenge)

    async def expire(session: Any) -> None:
        await session.execute(update(OAuthCode).values(expires_at=utcnow() - timedelta(seconds=1)))
        await session.commit()

    factory.run(expire)
    assert exchange(web, client_id, code, verifier).json()["error"] == "invalid_grant"


@pytest.mark.storage  # also on PostgreSQL (SLEUTH_TEST_POSTGRES_URL)
def test_refresh_rotates_and_a_rotated_token_ends_the_grant(
    web: TestClient[Litestar], org: OrgHandle
) -> None:
    client_id, tokens = tokens_for(web, org.key)
    rotated = refresh(web, client_id, tokens["refresh_token"])
    assert rotated.status_code == 200, rotated.text
    new = rotated.json()
    assert new["refresh_token"] != tokens["refresh_token"]
    assert mcp_list(web, new["access_token"]).status_code == 200
    assert mcp_list(web, tokens["access_token"]).status_code == 401  # replaced
    again = refresh(web, client_id, tokens["refresh_token"])
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    # presenting the rotated token again revoked the whole grant
    assert mcp_list(web, new["access_token"]).status_code == 401
    assert refresh(web, client_id, new["refresh_token"]).json()["error"] == "invalid_grant"


def test_spent_tokens_are_pruned_a_day_after_they_stop_working(
    web: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    client_id, tokens = tokens_for(web, org.key)
    tokens = refresh(web, client_id, tokens["refresh_token"]).json()

    async def age_rotated(session: Any) -> int:
        await session.execute(
            update(OAuthToken)
            .where(OAuthToken.rotated_at.is_not(None))
            .values(rotated_at=utcnow() - timedelta(days=2))
        )
        await session.commit()
        return int(await session.scalar(select(func.count()).select_from(OAuthToken)))

    assert factory.run(age_rotated) == 2
    assert refresh(web, client_id, tokens["refresh_token"]).status_code == 200
    rows = factory.run(lambda s: s.scalar(select(func.count()).select_from(OAuthToken)))
    assert rows == 2  # the aged row went; the one rotated just now stays (reuse detection)


@pytest.mark.storage  # also on PostgreSQL (SLEUTH_TEST_POSTGRES_URL)
def test_expired_and_revoked_tokens_and_revoked_keys_are_refused(
    web: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    client_id, tokens = tokens_for(web, org.key)

    async def expire(session: Any) -> None:
        await session.execute(
            update(OAuthToken).values(access_expires_at=utcnow() - timedelta(seconds=1))
        )
        await session.commit()

    factory.run(expire)
    assert mcp_list(web, tokens["access_token"]).status_code == 401
    renewed = refresh(web, client_id, tokens["refresh_token"]).json()
    assert mcp_list(web, renewed["access_token"]).status_code == 200
    # RFC 7009: revoking the access token
    revoked = web.post(
        "/oauth/revoke", data={"token": renewed["access_token"], "client_id": client_id}
    )
    assert revoked.status_code == 200
    assert mcp_list(web, renewed["access_token"]).status_code == 401
    # revoking the approving key ends everything issued under it
    second_key = factory.key(org)
    web.cookies.clear()
    client_id, tokens = tokens_for(web, second_key)
    assert mcp_list(web, tokens["access_token"]).status_code == 200

    async def revoke_key(session: Any) -> None:
        await session.execute(
            update(ApiKey).where(ApiKey.prefix == second_key[:10]).values(revoked_at=utcnow())
        )
        await session.commit()

    factory.run(revoke_key)
    assert mcp_list(web, tokens["access_token"]).status_code == 401
    assert refresh(web, client_id, tokens["refresh_token"]).json()["error"] == "invalid_grant"


def test_settings_page_lists_and_revokes_authorized_clients(
    web: TestClient[Litestar], org: OrgHandle
) -> None:
    _client_id, tokens = tokens_for(web, org.key)
    settings = web.get("/settings")
    assert "Authorized applications" in settings.text and "Test agent" in settings.text
    match = re.search(r'action="/settings/oauth/(\d+)/revoke"', settings.text)
    assert match
    forged = web.post(f"/settings/oauth/{match.group(1)}/revoke", data={"csrf_token": "x"})
    assert forged.status_code == 403
    done = web.post(
        f"/settings/oauth/{match.group(1)}/revoke",
        data={"csrf_token": _csrf(settings.text)},
        follow_redirects=False,
    )
    assert done.status_code == 303
    assert mcp_list(web, tokens["access_token"]).status_code == 401
    assert "Test agent" not in web.get("/settings").text


def test_oauth_endpoints_are_limited_per_client_address(
    oauth_settings: Settings,
) -> None:
    limited = oauth_settings.model_copy(update={"oauth_rate_limit": 3})
    with TestClient(app=create_app(limited, **fakes(FakeAgent()))) as client:
        codes = [
            client.get("/.well-known/oauth-authorization-server").status_code for _ in range(4)
        ]
    assert codes == [200, 200, 200, 429]


@pytest.mark.storage  # also on PostgreSQL (SLEUTH_TEST_POSTGRES_URL)
def test_migration_0021_downgrades_and_upgrades_again(database_url: str) -> None:
    tables = {"oauth_clients", "oauth_grants", "oauth_codes", "oauth_tokens"}

    async def names() -> set[str]:
        engine = create_engine(database_url)
        try:
            async with engine.connect() as connection:
                found = await connection.run_sync(lambda sync: inspect(sync).get_table_names())
                return set(found)
        finally:
            await engine.dispose()

    migrate(database_url)
    assert tables <= asyncio.run(names())
    previous = ScriptDirectory.from_config(alembic_config(database_url)).get_revision("0021")
    assert previous is not None and isinstance(previous.down_revision, str)
    asyncio.run(_downgrade(database_url, previous.down_revision))
    assert not tables & asyncio.run(names())
    migrate(database_url)
    assert tables <= asyncio.run(names())


MALFORMED_REGISTRATIONS: list[dict[str, Any]] = [
    {},
    {"redirect_uris": []},
    {"redirect_uris": "http://127.0.0.1/cb"},
    {"redirect_uris": [1]},
    {"redirect_uris": ["x"]},
    {"redirect_uris": ["https://"]},
    {"redirect_uris": ["http://[::1/cb"]},
    {"redirect_uris": ["http://127.0.0.1:99999/cb"]},
    {"redirect_uris": [REDIRECT], "client_name": 5},
    {"redirect_uris": [REDIRECT], "client_name": "a" * 5000},
    {"redirect_uris": [REDIRECT], "grant_types": "authorization_code"},
    {"redirect_uris": [REDIRECT], "grant_types": [5]},
    {"redirect_uris": [REDIRECT], "response_types": [None]},
    {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": 5},
    {"redirect_uris": [REDIRECT], "scope": 5},
    {"redirect_uris": [REDIRECT], "scope": "mcp admin"},
    {"redirect_uris": [REDIRECT], "client_uri": "javascript:alert(1)"},
    {"redirect_uris": [REDIRECT], "logo_uri": 5},
    {"redirect_uris": [REDIRECT], "contacts": "x"},
    {"redirect_uris": [REDIRECT], "jwks": "x"},
]


def test_malformed_requests_get_the_protocols_errors(web: TestClient[Litestar]) -> None:
    for body in MALFORMED_REGISTRATIONS:
        response = web.post("/oauth/register", json=body)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["error"] in {
            "invalid_request",
            "invalid_redirect_uri",
            "invalid_client_metadata",
        }
    for data in (
        {},
        {"grant_type": "refresh_token"},
        {"grant_type": "refresh_token", "refresh_token": "x", "client_id": "nobody"},
        {"grant_type": "authorization_code", "client_id": "nobody", "code": "x"},
        {"grant_type": "client_credentials", "client_id": "x"},
        {"grant_type": "password"},
    ):
        response = web.post("/oauth/token", data=data)
        assert response.status_code in {400, 401}, (data, response.text)
        assert "error" in response.json()
    for data in ({}, {"token": "x"}, {"token": "x", "client_id": "nobody"}):
        response = web.post("/oauth/revoke", data=data)
        assert response.status_code in {400, 401}, (data, response.text)
        assert "error" in response.json()
    for query in ("", "response_type=code", "client_id=x", "client_id=x&redirect_uri=y"):
        shown = web.get(f"/oauth/authorize?{query}", follow_redirects=False)
        assert shown.status_code == 400 and "cannot be authorized" in shown.text


@pytest.mark.storage  # also on PostgreSQL (SLEUTH_TEST_POSTGRES_URL)
def test_of_two_concurrent_exchanges_of_one_code_one_wins(
    web: TestClient[Litestar], org: OrgHandle, oauth_settings: Settings
) -> None:
    """Both requests read the code unused; the conditional update lets only one commit."""
    sign_in(web, org.key)
    client_id = register(web)["client_id"]
    verifier, challenge = pkce()
    code = get_code(web, client_id, challenge)
    data = RequestData(
        method="POST",
        uri=f"{PUBLIC}/oauth/token",
        headers={},
        values={
            "grant_type": ["authorization_code"],
            "code": [code],
            "redirect_uri": ["http://127.0.0.1:53682/callback"],
            "client_id": [client_id],
            "code_verifier": [verifier],
        },
    )

    async def race() -> list[tuple[int, bool]]:
        engine = create_engine(oauth_settings.database_url)
        factory = create_session_factory(engine)
        try:
            async with factory() as first, factory() as second:
                now = utcnow()
                exchanges = [
                    await load_exchange(s, now, client_ids={client_id}, codes={code})
                    for s in (first, second)
                ]
                responses = [
                    SleuthAuthorizationServer(e, PUBLIC).create_token_response(data)
                    for e in exchanges
                ]
                return [
                    (response.status_code, await commit_exchange(session, exchange))
                    for response, session, exchange in zip(
                        responses, (first, second), exchanges, strict=True
                    )
                ]
        finally:
            await engine.dispose()

    assert asyncio.run(race()) == [(200, True), (200, False)]


def test_policy_examples_hold() -> None:
    """The redirect-URI policy's examples (module doc of ``oauth/policy.py``) run as written."""
    import doctest

    from sleuth_shell.oauth import policy

    result = doctest.testmod(policy)
    assert result.attempted >= 10 and result.failed == 0


def test_non_admins_see_and_revoke_only_their_own_keys_grants(
    web: TestClient[Litestar], factory: Factory
) -> None:
    org = factory.org("shop", admin_key=True)
    _client_id, tokens = tokens_for(web, org.key)  # approved with the admin key
    grant_id = factory.run(lambda s: s.scalar(select(OAuthGrant.id)))
    web.cookies.clear()
    sign_in(web, factory.key(org))
    settings = web.get("/settings")
    assert "Test agent" not in settings.text
    refused = web.post(
        f"/settings/oauth/{grant_id}/revoke", data={"csrf_token": _csrf(settings.text)}
    )
    assert refused.status_code == 404
    assert mcp_list(web, tokens["access_token"]).status_code == 200
