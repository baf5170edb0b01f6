"""Digests (create, get, update, delete) and reading investigations."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_shell.db.models import Investigation

# One app and database per back end for the module, an organization per test
# (tests/shell/conftest.py, SharedApps).
pytestmark = pytest.mark.shared_app

BASE = "/api/v1/digests"
SECTIONS = [
    {"section": "Incidents", "prompt": "Summarise yesterday's incidents."},
    {"section": "Deploys", "prompt": "List the deploys."},
]


def body(**extra):
    data = {
        "team_name": "Default",
        "name": "Morning",
        "sections": SECTIONS,
        "schedule": "0 9 * * 0-4",
    }
    data.update(extra)
    return data


def error(response, status):
    assert response.status_code == status, response.text
    assert set(response.json()) == {"detail"}
    return response.json()["detail"]


def create(client, org, **extra):
    response = client.post(BASE, json=body(**extra), headers=org.headers)
    assert response.status_code == 200, response.text
    return response.json()


def test_create_and_get(client, org) -> None:
    created = create(client, org)
    assert set(created) == {"id", "url"}
    assert decode_global_id(created["id"], "Digest") is not None
    assert created["url"] == f"http://sleuth.test/digests/{created['id']}"
    record = client.get(f"{BASE}/{created['id']}", headers=org.headers).json()
    assert record == {
        "organization_name": org.name,
        "team_name": "Default",
        "id": created["id"],
        "name": "Morning",
        "sections": SECTIONS,
        "schedule": "0 9 * * 0-4",
    }


def test_optional_channel_and_integrations(client, factory, org) -> None:
    integration = factory.integration(org, "ALT_WEBHOOK", "alt")
    gid = encode_global_id("NotificationIntegration", integration.id)
    created = create(client, org, chat_channel_id="C0DIGEST", notification_integration_ids=[gid])
    record = client.get(f"{BASE}/{created['id']}", headers=org.headers).json()
    assert record["chat_channel_id"] == "C0DIGEST"
    assert record["notification_integration_ids"] == [gid]


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        ({"schedule": "0 9 * * 7"}, "Invalid schedule: "),
        ({"schedule": "0 9 * *"}, "Invalid schedule: "),
        ({"schedule": "@daily"}, "Invalid schedule: "),
        ({"schedule": "61 * * * *"}, "Invalid schedule: "),
        ({"team_name": "Ghosts"}, "Unknown team: Ghosts"),
        ({"sections": []}, "sections must not be empty"),
        ({"sections": [{"section": "", "prompt": "p"}]}, "section must not be empty"),
        ({"sections": [{"section": "s", "prompt": " "}]}, "prompt must not be empty"),
        ({"sections": [{"section": "s"}]}, None),
        (
            {"chat_channel_id": "X123"},
            "Invalid chat_channel_id: X123 (a channel ID starts with C or G)",
        ),
        (
            {"notification_integration_ids": ["bm9wZQ=="]},
            "Unknown notification integration: bm9wZQ==",
        ),
        ({"name": ""}, "name must not be empty"),
        ({"schedule": 5}, None),
    ],
)
def test_create_errors(client, org, change, detail) -> None:
    message = error(client.post(BASE, json=body(**change), headers=org.headers), 400)
    if detail is not None:
        assert message.startswith(detail)
        if detail == "Invalid schedule: ":
            assert len(message) > len(detail)


def test_partial_update(client, factory, org) -> None:
    created = create(client, org, chat_channel_id="C0DIGEST")
    url = f"{BASE}/{created['id']}"
    response = client.put(
        url, json={"name": "Evening", "schedule": "0 18 * * *"}, headers=org.headers
    )
    assert response.status_code == 200
    assert response.json() == created
    record = client.get(url, headers=org.headers).json()
    assert (record["name"], record["schedule"], record["sections"]) == (
        "Evening",
        "0 18 * * *",
        SECTIONS,
    )
    assert record["chat_channel_id"] == "C0DIGEST"

    client.put(url, json={"sections": SECTIONS[:1], "chat_channel_id": None}, headers=org.headers)
    record = client.get(url, headers=org.headers).json()
    assert record["sections"] == SECTIONS[:1] and "chat_channel_id" not in record

    assert error(
        client.put(url, json={"schedule": "* * * * 8"}, headers=org.headers), 400
    ).startswith("Invalid schedule: ")
    assert client.get(url, headers=org.headers).json()["schedule"] == "0 18 * * *"

    integration = factory.integration(org)
    gid = encode_global_id("NotificationIntegration", integration.id)
    client.put(url, json={"notification_integration_ids": [gid]}, headers=org.headers)
    assert client.get(url, headers=org.headers).json()["notification_integration_ids"] == [gid]
    client.put(url, json={"notification_integration_ids": None}, headers=org.headers)
    assert "notification_integration_ids" not in client.get(url, headers=org.headers).json()


def test_delete_is_idempotent(client, org) -> None:
    created = create(client, org)
    url = f"{BASE}/{created['id']}"
    assert client.delete(url, headers=org.headers).json() == {"success": True}
    assert error(client.get(url, headers=org.headers), 404) == "Digest not found"
    assert client.delete(url, headers=org.headers).json() == {"success": True}
    assert client.delete(f"{BASE}/junk", headers=org.headers).json() == {"success": True}


@pytest.mark.parametrize(
    "bad_id", ["junk", encode_global_id("AlertResponder", 1), encode_global_id("Digest", 99)]
)
def test_unknown_digest_ids(client, org, bad_id) -> None:
    create(client, org)
    url = f"{BASE}/{bad_id}"
    assert error(client.get(url, headers=org.headers), 404) == "Digest not found"
    assert (
        error(client.put(url, json={"name": "x"}, headers=org.headers), 404) == "Digest not found"
    )


def test_digest_org_isolation(client, factory, org) -> None:
    created = create(client, org)
    other = factory.org("other")
    url = f"{BASE}/{created['id']}"
    assert error(client.get(url, headers=other.headers), 404) == "Digest not found"
    assert (
        error(client.put(url, json={"name": "x"}, headers=other.headers), 404) == "Digest not found"
    )
    assert client.delete(url, headers=other.headers).json() == {"success": True}
    assert client.get(url, headers=org.headers).status_code == 200


def test_investigation_record(client, factory, org) -> None:
    started = datetime(2026, 5, 1, 10, 0, tzinfo=UTC)
    row = factory.add(
        Investigation(
            org_id=org.id,
            team_id=org.default_team_id,
            name="DB down",
            status="COMPLETED",
            prompt="Investigate.",
            event_payload='{"title": "DB down"}',
            result="It was the disk [1].\n\nSources:\n[1] [logs](https://x)",
            started_at=started,
            completed_at=started.replace(minute=5),
        )
    )
    gid = encode_global_id("Investigation", row.id)
    response = client.get(f"/api/v1/investigations/{gid}", headers=org.headers)
    assert response.status_code == 200
    record = response.json()
    assert record == {
        "id": gid,
        "organization_name": org.name,
        "team_name": "Default",
        "name": "DB down",
        "status": "COMPLETED",
        "started_at": record["started_at"],
        "completed_at": record["completed_at"],
        "prompt": "Investigate.",
        "event_payload": '{"title": "DB down"}',
        "result": "It was the disk [1].\n\nSources:\n[1] [logs](https://x)",
        "analysis": None,
    }
    assert datetime.fromisoformat(record["started_at"]) == started
    assert datetime.fromisoformat(record["completed_at"]) == started.replace(minute=5)


def test_pending_investigation_without_team(client, factory, org) -> None:
    row = factory.add(Investigation(org_id=org.id, name="n", prompt="p"))
    gid = encode_global_id("Investigation", row.id)
    record = client.get(f"/api/v1/investigations/{gid}", headers=org.headers).json()
    assert record["team_name"] is None
    assert record["started_at"] is None and record["completed_at"] is None
    assert record["status"] == "PENDING" and record["result"] == ""


def test_investigation_404s(client, factory, org) -> None:
    other = factory.org("other")
    theirs = factory.add(Investigation(org_id=other.id, name="n", prompt="p"))
    for bad in [
        encode_global_id("Investigation", theirs.id),
        encode_global_id("Investigation", 12345),
        encode_global_id("Digest", theirs.id),
        "%%%",
    ]:
        response = client.get(f"/api/v1/investigations/{bad}", headers=org.headers)
        assert error(response, 404) == "Investigation not found"
    mine = encode_global_id("Investigation", theirs.id)
    assert client.get(f"/api/v1/investigations/{mine}", headers=other.headers).status_code == 200
