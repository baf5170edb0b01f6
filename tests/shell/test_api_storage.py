"""The API over every storage back end: the alert-agent lifecycle, digests, and inputs that a
stricter database (PostgreSQL) would refuse at the driver - they must be 400/404, never 500."""

from __future__ import annotations

import pytest

from sleuth_core.ids import decode_global_id, encode_global_id

# One app and database per back end for the module, an organization per test
# (tests/shell/conftest.py, SharedApps).
pytestmark = [pytest.mark.storage, pytest.mark.shared_app]

BASE = "/api/v1/alert-responders"


def test_lifecycle_and_isolation(client, factory, org) -> None:
    hook = factory.webhook(org, "PROVIDER_C", "c")
    body = {
        "team_name": "Default",
        "name": "ünïcode ✓",
        "webhook_sources": [{"type": "PROVIDER_C", "remote_id": hook.remote_id}],
        "matching_criteria": {"text_matches": ["*disk*full*"]},
    }
    created = client.post(BASE, json=body, headers=org.headers).json()
    assert client.post(BASE, json=body, headers=org.headers).json() == created
    url = f"{BASE}/{created['id']}"
    record = client.get(url, headers=org.headers).json()
    assert record["name"] == "ünïcode ✓"
    assert record["matching_criteria"]["match_rules"]["conditions"] == [
        {"type": "regex", "value": "disk.*full"}
    ]
    assert client.put(url, json={"runbook": None}, headers=org.headers).status_code == 200
    assert client.get(url, headers=org.headers).json()["runbook"] is None
    assert client.post(f"{url}/disable", headers=org.headers).json()["status"] == "PAUSED"
    other = factory.org("other")
    assert client.get(url, headers=other.headers).status_code == 404
    assert client.delete(url, headers=org.headers).json() == {"success": True}
    assert client.get(url, headers=org.headers).status_code == 404

    digest = client.post(
        "/api/v1/digests",
        json={
            "team_name": "Default",
            "name": "d",
            "sections": [{"section": "s", "prompt": "p"}],
            "schedule": "*/15 * * * *",
        },
        headers=org.headers,
    ).json()
    assert client.get(f"/api/v1/digests/{digest['id']}", headers=org.headers).status_code == 200


@pytest.mark.parametrize(
    ("path", "body", "status", "detail"),
    [
        (
            BASE,
            {
                "team_name": "Default",
                "name": "a\x00b",
                "chat_channel_id": "C1",
                "matching_criteria": {"text_matches": ["x"]},
            },
            400,
            "name must not contain NUL characters",
        ),
        (
            BASE,
            {
                "team_name": "De\x00fault",
                "name": "n",
                "chat_channel_id": "C1",
                "matching_criteria": {"text_matches": ["x"]},
            },
            400,
            "Unknown team: De\x00fault",
        ),
        (
            BASE,
            {
                "team_name": "Default",
                "name": "n",
                "chat_channel_id": "C1",
                "matching_criteria": {"text_matches": ["x"], "chat_bot_app_user_id": "B\x00"},
            },
            400,
            "chat_bot_app_user_id must not contain NUL characters",
        ),
        (
            BASE,
            {
                "team_name": "T" * 5000,
                "name": "n",
                "chat_channel_id": "C1",
                "matching_criteria": {"text_matches": ["x"]},
            },
            400,
            "Unknown team: " + "T" * 5000,
        ),
        (
            "/api/v1/digests",
            {
                "team_name": "Default",
                "name": "n",
                "sections": [{"section": "s\x00", "prompt": "p"}],
                "schedule": "* * * * *",
            },
            400,
            "section must not contain NUL characters",
        ),
    ],
)
def test_driver_hostile_input_is_refused(client, org, path, body, status, detail) -> None:
    response = client.post(path, json=body, headers=org.headers)
    assert (response.status_code, response.json()) == (status, {"detail": detail})


@pytest.mark.parametrize("pk", [2**31, 2**63, 10**30])
def test_out_of_range_ids_are_404(client, org, pk) -> None:
    for path, detail in [
        (f"{BASE}/{encode_global_id('AlertResponder', pk)}", "Alert responder not found"),
        (f"/api/v1/digests/{encode_global_id('Digest', pk)}", "Digest not found"),
        (
            f"/api/v1/investigations/{encode_global_id('Investigation', pk)}",
            "Investigation not found",
        ),
    ]:
        response = client.get(path, headers=org.headers)
        assert (response.status_code, response.json()) == (404, {"detail": detail})
    gid = encode_global_id("NotificationIntegration", pk)
    response = client.post(
        BASE,
        json={
            "team_name": "Default",
            "name": "n",
            "chat_channel_id": "C1",
            "matching_criteria": {"text_matches": ["x"]},
            "notification_integration_ids": [gid],
        },
        headers=org.headers,
    )
    assert response.json() == {"detail": f"Unknown notification integration: {gid}"}


def test_enable_writes_only_a_change(client, factory, org) -> None:
    """Enabling an ACTIVE agent writes nothing (no agent version, the same ``updated_at``); a
    pause and an enable of the paused agent each bump the organization's agent version."""
    from sqlalchemy import select

    from sleuth_shell.db.models import AgentIndexVersion, AlertResponderChange

    hook = factory.webhook(org, "PROVIDER_C", "enable")
    body = {
        "team_name": "Default",
        "name": "enable twice",
        "webhook_sources": [{"type": "PROVIDER_C", "remote_id": hook.remote_id}],
        "matching_criteria": {"text_matches": ["disk"]},
    }
    created = client.post(BASE, json=body, headers=org.headers).json()
    url = f"{BASE}/{created['id']}"

    async def version(session):
        return await session.scalar(
            select(AgentIndexVersion.version).where(AgentIndexVersion.org_id == org.id)
        )

    before = factory.run(version)
    updated_at = client.get(url, headers=org.headers).json()["updated_at"]
    for _ in range(2):
        response = client.post(f"{url}/enable", headers=org.headers)
        assert response.json() == {"id": created["id"], "status": "ACTIVE"}
    assert factory.run(version) == before
    assert client.get(url, headers=org.headers).json()["updated_at"] == updated_at
    assert client.post(f"{url}/disable", headers=org.headers).json()["status"] == "PAUSED"
    assert factory.run(version) == before + 1
    paused = client.get(url, headers=org.headers).json()
    assert (paused["status"], paused["updated_at"] > updated_at) == ("PAUSED", True)
    assert client.post(f"{url}/disable", headers=org.headers).json()["status"] == "PAUSED"
    assert factory.run(version) == before + 1  # already paused: no change
    assert client.post(f"{url}/enable", headers=org.headers).json()["status"] == "ACTIVE"
    assert factory.run(version) == before + 2
    assert client.get(url, headers=org.headers).json()["status"] == "ACTIVE"

    async def changes(session):
        rows = await session.execute(
            select(AlertResponderChange.version, AlertResponderChange.alert_responder_id)
            .where(AlertResponderChange.org_id == org.id, AlertResponderChange.version > before)
            .order_by(AlertResponderChange.version)
        )
        return [tuple(row) for row in rows]

    agent_id = decode_global_id(created["id"], "AlertResponder")
    assert factory.run(changes) == [(before + 1, agent_id), (before + 2, agent_id)]
    unknown = f"{BASE}/{encode_global_id('AlertResponder', 999_999)}/enable"
    response = client.post(unknown, headers=org.headers)
    assert (response.status_code, response.json()) == (404, {"detail": "Alert responder not found"})
