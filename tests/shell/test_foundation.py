"""The service foundation: health, auth, error shapes, rate limits, listings, OpenAPI."""

from __future__ import annotations

from conftest import FIXED_NOW
from litestar import Litestar, get
from litestar.testing import TestClient

from sleuth_shell.app import create_app
from sleuth_shell.config import Settings


def test_health_needs_no_key(client: TestClient[Litestar]) -> None:
    response = client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "x-ratelimit-limit" not in response.headers


def test_missing_and_invalid_key(client: TestClient[Litestar]) -> None:
    response = client.get("/api/v1/webhook-subscriptions")
    assert (response.status_code, response.json()) == (401, {"detail": "Missing API key"})
    response = client.get(
        "/api/v1/webhook-subscriptions", headers={"X-Service-Org-Api-Key": "slk_nope"}
    )
    assert (response.status_code, response.json()) == (401, {"detail": "Invalid API key"})
    assert response.headers["x-ratelimit-limit"] == "60"


def test_unknown_route_and_method(client, org) -> None:
    response = client.get("/api/v1/nothing-here", headers=org.headers)
    assert (response.status_code, response.json()) == (404, {"detail": "Not found"})
    response = client.delete("/api/v1/webhook-subscriptions", headers=org.headers)
    assert (response.status_code, response.json()) == (405, {"detail": "Method not allowed"})


def test_listings_are_scoped_to_the_org(client, factory, org) -> None:
    hook = factory.webhook(org, "PROVIDER_B", "pager")
    factory.integration(org, "CHAT_ALERT", "chat", channel="C123")
    factory.integration(org, "ALT_WEBHOOK", "alt", url="https://alt.example.com/x")
    other = factory.org("other")
    factory.webhook(other, "PROVIDER_A", "theirs")
    factory.integration(other, "CHAT_ALERT", "theirs", channel="C999")

    response = client.get("/api/v1/webhook-subscriptions", headers=org.headers)
    assert response.status_code == 200
    assert response.json() == {
        "webhook_subscriptions": [
            {"type": "PROVIDER_B", "remote_id": hook.remote_id, "name": "pager"}
        ]
    }
    response = client.get("/api/v1/notification-integrations", headers=org.headers)
    items = response.json()["notification_integrations"]
    assert [(i["name"], i["kind"]) for i in items] == [
        ("chat", "CHAT_ALERT"),
        ("alt", "ALT_WEBHOOK"),
    ]
    assert set(items[0]) == {"id", "name", "kind", "created_at"}
    response = client.get(
        "/api/v1/notification-integrations", params={"kind": "ALT_WEBHOOK"}, headers=org.headers
    )
    assert [i["name"] for i in response.json()["notification_integrations"]] == ["alt"]
    response = client.get(
        "/api/v1/notification-integrations", params={"kind": "BOGUS"}, headers=org.headers
    )
    assert response.status_code == 400
    assert set(response.json()) == {"detail"}


def test_rate_limit_per_org(settings: Settings, factory) -> None:
    now = [1_800_000_000.0]  # a multiple of 60: a window starts here
    app = create_app(
        settings.model_copy(update={"rate_limits": {"free": 3, "team": 5, "enterprise": 9}}),
        clock=lambda: now[0],
    )
    free = factory.org("free-org")
    team = factory.org("team-org", plan="team")
    with TestClient(app=app) as client:
        for remaining in (2, 1, 0):
            response = client.get("/api/v1/webhook-subscriptions", headers=free.headers)
            assert response.status_code == 200
            assert response.headers["x-ratelimit-limit"] == "3"
            assert response.headers["x-ratelimit-remaining"] == str(remaining)
            assert response.headers["x-ratelimit-reset"] == "1800000060"
        now[0] += 15
        response = client.get("/api/v1/webhook-subscriptions", headers=free.headers)
        assert (response.status_code, response.json()) == (429, {"detail": "Rate limit exceeded"})
        assert response.headers["retry-after"] == "45"
        assert response.headers["x-ratelimit-remaining"] == "0"
        # Another organization has its own budget, by its plan.
        response = client.get("/api/v1/webhook-subscriptions", headers=team.headers)
        assert response.headers["x-ratelimit-limit"] == "5"
        assert response.headers["x-ratelimit-remaining"] == "4"
        # The next window starts afresh.
        now[0] += 45
        response = client.get("/api/v1/webhook-subscriptions", headers=free.headers)
        assert response.status_code == 200
        assert response.headers["x-ratelimit-remaining"] == "2"


def test_unauthenticated_requests_are_limited_by_address(settings: Settings) -> None:
    app = create_app(
        settings.model_copy(update={"rate_limits": {"free": 2, "team": 5, "enterprise": 9}}),
        clock=lambda: FIXED_NOW,
    )
    with TestClient(app=app) as client:
        statuses = [client.get("/api/v1/webhook-subscriptions").status_code for _ in range(3)]
    assert statuses == [401, 401, 429]


def test_body_too_large_and_unexpected_errors(settings: Settings, org) -> None:
    from litestar import post
    from litestar.params import JSONBody

    @post("/echo-size")
    async def echo_size(data: JSONBody[dict[str, str]]) -> dict[str, int]:
        return {"n": len(data)}

    @get("/boom")
    async def boom() -> None:
        raise RuntimeError("secret internals")

    app = create_app(settings)
    app.register(echo_size)
    app.register(boom)
    with TestClient(app=app, raise_server_exceptions=False) as client:
        big = '{"a": "' + "x" * (1024 * 1024) + '"}'
        response = client.post(
            "/echo-size", content=big, headers={"Content-Type": "application/json"}
        )
        assert (response.status_code, response.json()) == (
            413,
            {"detail": "Request body too large"},
        )
        response = client.post(
            "/echo-size", content='{"a": 1}', headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 400
        assert set(response.json()) == {"detail"}
        response = client.get("/boom")
        assert (response.status_code, response.json()) == (500, {"detail": "Internal server error"})
        assert "secret" not in response.text


def test_openapi_document(client: TestClient[Litestar]) -> None:
    response = client.get("/schema/openapi.json")
    assert response.status_code == 200
    document = response.json()
    assert "/api/v1/webhook-subscriptions" in document["paths"]
    assert document["components"]["securitySchemes"]["ApiKey"]["name"] == "X-Service-Org-Api-Key"
