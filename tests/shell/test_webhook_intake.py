"""``POST /api/v1/webhooks/{type}/{remote_id}`` in process: credentials, errors, delivery record,
matching, and the matching index kept current as agents change."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from conftest import FIXED_NOW
from sqlalchemy import func, select

from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_core.intake import sign_firehydrant, sign_generic, sign_pagerduty, sign_rootly
from sleuth_shell import admin
from sleuth_shell.api.webhooks import agent_index_of
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import Investigation, Job, WebhookDelivery


def _fixtures_dir() -> Path:
    """``shared/`` sits beside the repository (CI clones it there); a worktree looks further up."""
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "fixtures" / "alert-payloads"
        if candidate.is_dir():
            return candidate
    raise AssertionError("no shared/fixtures/alert-payloads found")


FIXTURES = _fixtures_dir()
TRIGGERED = (FIXTURES / "pagerduty/incident_triggered.json").read_bytes()


def url(hook, type_=None):
    return f"/api/v1/webhooks/{type_ or hook.type}/{hook.remote_id}"


def signed(hook, body: bytes) -> dict[str, str]:
    return {"X-Service-Webhook-Signature": sign_generic(body, hook.secret)}


def make_agent(client, org, hook, name="all", patterns=("*",), **extra):
    body = {
        "team_name": "Default",
        "name": name,
        "webhook_sources": [{"type": hook.type, "remote_id": hook.remote_id}],
        "matching_criteria": {"text_matches": list(patterns)},
        **extra,
    }
    response = client.post("/api/v1/alert-responders/", json=body, headers=org.headers)
    assert response.status_code == 200, response.text
    return response.json()["id"]


def count(factory, model, **where) -> int:
    async def go(session):
        query = select(func.count()).select_from(model)
        for key, value in where.items():
            query = query.where(getattr(model, key) == value)
        return await session.scalar(query)

    return factory.run(go)


@pytest.fixture
def hook(factory, org):
    return factory.webhook(org, "PROVIDER_A", "pager")


def test_no_api_key_needed_and_the_answer_lists_one_investigation_per_matching_agent(
    client, factory, org, hook
):
    every = make_agent(client, org, hook, "every")
    test_incident = make_agent(client, org, hook, "tests", ["*Test Incident*"])
    make_agent(client, org, hook, "db", ["postgres"])
    other_hook = factory.webhook(org, "PROVIDER_A", "other")
    make_agent(client, org, other_hook, "elsewhere")

    response = client.post(url(hook), content=TRIGGERED, headers=signed(hook, TRIGGERED))
    assert response.status_code == 202, response.text
    ids = response.json()["investigation_ids"]
    assert len(ids) == 2
    for gid in ids:
        got = client.get(f"/api/v1/investigations/{gid}", headers=org.headers)
        assert got.status_code == 200
        assert got.json()["name"] == "Test Incident 3"
        assert got.json()["status"] == "PENDING"  # runs later, in the job queue
        assert got.json()["event_payload"] == TRIGGERED.decode()
    rows = factory.run(
        lambda s: s.execute(select(Investigation.id, Investigation.alert_responder_id))
    )
    by_agent = {agent: encode_global_id("Investigation", pk) for pk, agent in rows.all()}
    wanted = {
        decode_global_id(every, "AlertResponder"),
        decode_global_id(test_incident, "AlertResponder"),
    }
    assert set(by_agent) == wanted and sorted(by_agent.values()) == sorted(ids)
    assert count(factory, Job, kind="investigation.run") == 2


def test_redelivery_gets_the_same_answer_without_new_work(client, factory, org, hook):
    make_agent(client, org, hook)
    first = client.post(url(hook), content=TRIGGERED, headers=signed(hook, TRIGGERED))
    again = client.post(url(hook), content=TRIGGERED, headers=signed(hook, TRIGGERED))
    assert first.status_code == again.status_code == 202
    assert again.json() == first.json() and len(first.json()["investigation_ids"]) == 1
    assert count(factory, Investigation) == 1
    assert count(factory, WebhookDelivery) == 1


def test_same_incident_in_another_delivery_reuses_the_investigation(client, factory, org, hook):
    make_agent(client, org, hook)
    first = client.post(url(hook), content=TRIGGERED, headers=signed(hook, TRIGGERED))
    payload = json.loads(TRIGGERED)
    payload["event"]["id"] = "another-delivery"
    body = json.dumps(payload).encode()
    second = client.post(url(hook), content=body, headers=signed(hook, body))
    assert second.json() == first.json()
    assert count(factory, Investigation) == 1
    assert count(factory, WebhookDelivery) == 2


def test_lifecycle_and_ignored_events_are_recorded_and_start_nothing(client, factory, org, hook):
    make_agent(client, org, hook)
    for name in ("incident_resolved.json", "service_updated.json"):
        body = (FIXTURES / "pagerduty" / name).read_bytes()
        response = client.post(url(hook), content=body, headers=signed(hook, body))
        assert response.status_code == 202
        assert response.json()["investigation_ids"] == []
    assert count(factory, Investigation) == 0
    assert count(factory, WebhookDelivery, kind="lifecycle") == 1
    assert count(factory, WebhookDelivery, kind="ignored") == 1


def test_credentials(client, factory, org, hook):
    make_agent(client, org, hook)
    target = url(hook)
    bad = [
        {},
        {"X-Service-Webhook-Signature": "v1=" + "0" * 64},
        {"X-Service-Webhook-Signature": sign_generic(TRIGGERED, "wrong")},
        {"X-PagerDuty-Signature": sign_pagerduty(TRIGGERED, hook.secret)},  # no provider secret
    ]
    for headers in bad:
        response = client.post(target, content=TRIGGERED, headers=headers)
        assert response.status_code == 401, headers
        assert response.json() == {"detail": "Invalid webhook token"}
    assert client.post(target + "?token=nope", content=TRIGGERED).status_code == 401
    assert count(factory, WebhookDelivery) == 0 and count(factory, Investigation) == 0
    # an API key is no credential here
    assert client.post(target, content=TRIGGERED, headers=org.headers).status_code == 401
    ok = client.post(f"{target}?token={hook.secret}", content=TRIGGERED)
    assert ok.status_code == 202 and len(ok.json()["investigation_ids"]) == 1


def test_native_signatures_when_a_provider_secret_is_set(client, factory, org):
    secret = "provider-issued"
    cases = {
        "PROVIDER_A": ("pagerduty/incident_triggered.json", "X-PagerDuty-Signature"),
        "PROVIDER_C": ("firehydrant/incident_created.json", "fh-signature"),
        "PROVIDER_D": ("rootly/incident_created.json", "X-Rootly-Signature"),
    }
    for type_, (path, header) in cases.items():
        hook = factory.run(
            lambda s, t=type_: admin.add_webhook(s, org.name, t, t, provider_secret=secret)
        )
        make_agent(client, org, hook, f"agent {type_}")
        body = (FIXTURES / path).read_bytes()
        now = int(time.time())
        values = {
            "PROVIDER_A": sign_pagerduty(body, secret),
            "PROVIDER_C": sign_firehydrant(body, secret),
            "PROVIDER_D": sign_rootly(body, secret, now),
        }
        wrong = client.post(url(hook), content=body, headers={header: "v1=00"})
        assert wrong.status_code == 401
        if type_ == "PROVIDER_D":  # outside the 5-minute window
            stale = client.post(
                url(hook), content=body, headers={header: sign_rootly(body, secret, now - 600)}
            )
            assert stale.status_code == 401
        response = client.post(url(hook), content=body, headers={header: values[type_]})
        assert response.status_code == 202, (type_, response.text)
        assert len(response.json()["investigation_ids"]) == 1


def test_not_found_and_bad_bodies(client, factory, org, hook):
    make_agent(client, org, hook)
    factory.webhook(org, "CHAT", "workspace")  # exists, but is not what these URLs name
    opsgenie = factory.webhook(org, "PROVIDER_B", "genie")
    cases = [
        ("/api/v1/webhooks/PROVIDER_A/wh_unknown", TRIGGERED, signed(hook, TRIGGERED)),
        (url(hook, "PROVIDER_B"), TRIGGERED, signed(hook, TRIGGERED)),  # type mismatch
        (url(hook, "NOPE"), TRIGGERED, signed(hook, TRIGGERED)),
        # A provider subscription posted as a chat delivery: the chat route finds no CHAT
        # subscription there. (The CHAT subscription's own deliveries are the chat route's.)
        (url(hook, "CHAT"), b"{}", signed(hook, b"{}")),
    ]
    for target, body, headers in cases:
        response = client.post(target, content=body, headers=headers)
        assert response.status_code == 404, target
        assert response.json() == {"detail": "Webhook subscription not found"}
    for body in (b"not json", b"[1, 2]", b"\xff\xfe"):
        response = client.post(url(opsgenie), content=body, headers=signed(opsgenie, body))
        assert response.status_code == 400, body
        assert set(response.json()) == {"detail"}
    huge = b'{"action": "Create", "pad": "' + b"x" * (1024 * 1024) + b'"}'
    response = client.post(url(opsgenie), content=huge, headers=signed(opsgenie, huge))
    assert response.status_code == 413
    assert count(factory, WebhookDelivery) == 0


@pytest.mark.storage
def test_a_remote_id_with_a_nul_byte_is_404(client, org):
    """A NUL byte names no subscription (PostgreSQL text cannot hold one: the lookup itself would
    fail, a 500), alone or read in one batch with other deliveries' lookups."""
    for type_ in ("PROVIDER_A", "GENERIC"):
        response = client.post(f"/api/v1/webhooks/{type_}/wh%00x", content=TRIGGERED)
        assert response.status_code == 404, type_
        assert response.json() == {"detail": "Webhook subscription not found"}


def test_deliveries_count_against_the_subscription_orgs_plan(
    settings, factory, monkeypatch, org, hook
):
    from litestar.testing import TestClient

    from sleuth_shell.app import create_app

    limited = settings.model_copy(update={"rate_limits": {"free": 3}})
    with TestClient(create_app(limited, clock=lambda: FIXED_NOW)) as client:
        codes = []
        headers = []
        for _ in range(4):
            response = client.post(url(hook), content=TRIGGERED, headers=signed(hook, TRIGGERED))
            codes.append(response.status_code)
            headers.append(response.headers.get("X-RateLimit-Remaining"))
        assert codes == [202, 202, 202, 429]
        assert response.json() == {"detail": "Rate limit exceeded"}
        assert headers == ["2", "1", "0", "0"]
        assert int(response.headers["Retry-After"]) >= 1


def test_the_index_follows_agent_changes_incrementally(client, factory, org, hook):
    agent = make_agent(client, org, hook, "db", ["Test Incident"])
    post = lambda body: client.post(url(hook), content=body, headers=signed(hook, body))  # noqa: E731
    counter = iter(range(1000))

    def body() -> bytes:
        payload = json.loads(TRIGGERED)
        n = next(counter)
        payload["event"]["id"] = f"delivery-{n}"
        payload["event"]["data"]["id"] = f"incident-{n}"
        return json.dumps(payload).encode()

    cache = agent_index_of(client.app.state)
    assert len(post(body()).json()["investigation_ids"]) == 1
    assert cache.full_loads == 1

    headers = org.headers
    client.post(f"/api/v1/alert-responders/{agent}/disable", headers=headers)
    assert post(body()).json()["investigation_ids"] == []
    client.post(f"/api/v1/alert-responders/{agent}/enable", headers=headers)
    assert len(post(body()).json()["investigation_ids"]) == 1
    update = {"matching_criteria": {"text_matches": ["nothing-like-this"]}}
    assert (
        client.put(f"/api/v1/alert-responders/{agent}", json=update, headers=headers).status_code
        == 200
    )
    assert post(body()).json()["investigation_ids"] == []
    second = make_agent(client, org, hook, "second")
    assert len(post(body()).json()["investigation_ids"]) == 1
    client.delete(f"/api/v1/alert-responders/{second}", headers=headers)
    assert post(body()).json()["investigation_ids"] == []
    assert cache.full_loads == 1 and cache.partial_loads == 5


def test_a_change_made_elsewhere_is_seen_by_the_next_alert(client, factory, org, hook, settings):
    """Another node (here: another engine and session) pauses the agent; this process's cache
    sees it on the next alert."""
    agent = make_agent(client, org, hook)
    first = client.post(url(hook), content=TRIGGERED, headers=signed(hook, TRIGGERED))
    assert len(first.json()["investigation_ids"]) == 1

    async def pause() -> None:
        from sleuth_shell.db.models import AlertResponder

        engine = create_engine(settings.database_url)
        async with create_session_factory(engine)() as session:
            row = await session.get(AlertResponder, decode_global_id(agent, "AlertResponder"))
            row.status = "PAUSED"
            await session.commit()
        await engine.dispose()

    asyncio.run(pause())
    payload = json.loads(TRIGGERED)
    payload["event"]["id"] = "after-pause"
    payload["event"]["data"]["id"] = "another-incident"
    body = json.dumps(payload).encode()
    response = client.post(url(hook), content=body, headers=signed(hook, body))
    assert response.json()["investigation_ids"] == []


def test_a_generic_source_feeds_its_agents(client, factory, org):
    hook = factory.webhook(org, "GENERIC", "anything")
    make_agent(client, org, hook, "generic", ["*disk*"])
    body = json.dumps({"title": "Disk almost full on db-1", "severity": "warning"}).encode()
    response = client.post(url(hook), content=body, headers=signed(hook, body))
    assert response.status_code == 202, response.text
    [gid] = response.json()["investigation_ids"]
    got = client.get(f"/api/v1/investigations/{gid}", headers=org.headers).json()
    assert got["event_payload"] == body.decode()
