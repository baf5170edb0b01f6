"""Issue 13's API surface: the digest and interaction lists (cursor-paged, newest first),
``notification_integration_ids`` omitted when none are configured, and query-parameter errors
worded as the API words its own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sleuth_core.ids import encode_global_id
from sleuth_shell.db.models import Interaction

# One app and database per back end for the module, an organization per test
# (tests/shell/conftest.py, SharedApps).
pytestmark = pytest.mark.shared_app

DIGESTS = "/api/v1/digests"
INTERACTIONS = "/api/v1/interactions"
AGENTS = "/api/v1/alert-responders"


def digest_body(name: str, **extra):
    body = {
        "team_name": "Default",
        "name": name,
        "sections": [{"section": "S", "prompt": "p"}],
        "schedule": "0 9 * * *",
    }
    body.update(extra)
    return body


def error(response, status):
    assert response.status_code == status, response.text
    assert set(response.json()) == {"detail"}
    return response.json()["detail"]


def walk(client, url, headers, key, limit):
    """Every item of a paged list, following next_cursor; also the number of pages."""
    items, pages, cursor = [], 0, None
    while True:
        params = {"limit": str(limit)}
        if cursor is not None:
            params["cursor"] = cursor
        response = client.get(url, params=params, headers=headers)
        assert response.status_code == 200, response.text
        body = response.json()
        assert set(body) == {key, "next_cursor"}
        assert len(body[key]) <= limit
        items += body[key]
        pages += 1
        cursor = body["next_cursor"]
        if cursor is None:
            return items, pages


@pytest.mark.storage
def test_digests_list_newest_first_paged_and_isolated(client, factory, org) -> None:
    ids = [
        client.post(DIGESTS, json=digest_body(f"d{i}"), headers=org.headers).json()["id"]
        for i in range(5)
    ]
    other = factory.org("other")
    client.post(DIGESTS, json=digest_body("theirs"), headers=other.headers)

    items, pages = walk(client, DIGESTS, org.headers, "digests", 2)
    assert [item["id"] for item in items] == ids[::-1]
    assert pages == 3
    first = items[0]
    assert set(first) == {"id", "name", "team_name", "schedule", "created_at", "url"}
    assert first["name"] == "d4" and first["team_name"] == "Default"
    assert first["url"] == f"http://sleuth.test/digests/{first['id']}"
    assert first["created_at"].endswith("Z")

    whole = client.get(DIGESTS, headers=org.headers).json()
    assert [item["id"] for item in whole["digests"]] == ids[::-1]
    assert whole["next_cursor"] is None


def test_digests_list_team_filter(client, factory, org) -> None:
    factory.team(org, "SRE")
    client.post(DIGESTS, json=digest_body("mine"), headers=org.headers)
    sre = client.post(DIGESTS, json=digest_body("sre", team_name="SRE"), headers=org.headers)
    only = client.get(DIGESTS, params={"team_name": "SRE"}, headers=org.headers).json()
    assert [item["id"] for item in only["digests"]] == [sre.json()["id"]]
    for unknown in ("Nope", "T" * 5000):
        response = client.get(DIGESTS, params={"team_name": unknown}, headers=org.headers)
        assert response.json() == {"digests": [], "next_cursor": None}


def _interaction(org, question: str, created: datetime) -> Interaction:
    return Interaction(org_id=org.id, question=question, status="COMPLETED", created_at=created)


@pytest.mark.storage
def test_interactions_list_newest_first_with_ties(client, factory, org) -> None:
    base = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    # Three share a timestamp: the keyset cursor must neither repeat nor drop one of them.
    for i, offset in enumerate([0, 1, 1, 1, 2, 3, 5]):
        factory.add(_interaction(org, f"q{i}", base + timedelta(seconds=offset)))
    other = factory.org("other")
    factory.add(_interaction(other, "not yours", base + timedelta(seconds=9)))

    for limit in (1, 2, 3, 100):
        items, _ = walk(client, INTERACTIONS, org.headers, "interactions", limit)
        questions = [item["question"] for item in items]
        assert sorted(questions) == [f"q{i}" for i in range(7)]
        assert questions[:3] == ["q6", "q5", "q4"] and questions[-1] == "q0"
        stamps = [item["created_at"] for item in items]
        assert stamps == sorted(stamps, reverse=True)
    item = items[0]
    assert set(item) == {"interaction_id", "question", "status", "created_at", "url"}
    assert item["created_at"] == "2026-03-01T12:00:05Z"
    assert item["url"] == f"http://sleuth.test/interactions/{item['interaction_id']}"


def test_interactions_list_needs_a_key(client) -> None:
    assert error(client.get(INTERACTIONS), 401) == "Unauthorized"


@pytest.mark.parametrize("url", [DIGESTS, INTERACTIONS])
@pytest.mark.parametrize(
    ("params", "detail"),
    [
        ({"limit": "0"}, "Invalid limit: 0 (a whole number from 1 to 100)"),
        ({"limit": "101"}, "Invalid limit: 101 (a whole number from 1 to 100)"),
        ({"limit": "ten"}, "Invalid limit: ten (a whole number from 1 to 100)"),
        ({"cursor": "nonsense"}, "Invalid cursor: nonsense"),
    ],
)
def test_list_parameter_errors(client, org, url, params, detail) -> None:
    assert error(client.get(url, params=params, headers=org.headers), 400) == detail


def test_a_uuid_cursor_is_refused_on_an_integer_list(client, org) -> None:
    from sleuth_shell.api.common import encode_cursor

    cursor = encode_cursor(datetime(2026, 1, 1, tzinfo=UTC), "not-a-number")
    response = client.get(DIGESTS, params={"cursor": cursor}, headers=org.headers)
    assert error(response, 400) == f"Invalid cursor: {cursor}"


def test_query_parameter_errors_in_the_api_language(client, org) -> None:
    response = client.get(
        "/api/v1/notification-integrations", params={"kind": "BOGUS"}, headers=org.headers
    )
    assert error(response, 400) == "Invalid kind: BOGUS"


def test_empty_integration_list_is_omitted(client, factory, org) -> None:
    integration = factory.integration(org)
    gid = encode_global_id("NotificationIntegration", integration.id)
    digest = client.post(
        DIGESTS, json=digest_body("d", notification_integration_ids=[gid]), headers=org.headers
    ).json()
    url = f"{DIGESTS}/{digest['id']}"
    assert client.get(url, headers=org.headers).json()["notification_integration_ids"] == [gid]
    assert (
        client.put(url, json={"notification_integration_ids": []}, headers=org.headers)
    ).status_code == 200
    assert "notification_integration_ids" not in client.get(url, headers=org.headers).json()
    empty = client.post(
        DIGESTS, json=digest_body("e", notification_integration_ids=[]), headers=org.headers
    ).json()
    record = client.get(f"{DIGESTS}/{empty['id']}", headers=org.headers).json()
    assert "notification_integration_ids" not in record

    agent = client.post(
        AGENTS,
        json={
            "team_name": "Default",
            "name": "a",
            "chat_channel_id": "C0ALERTS",
            "matching_criteria": {"text_matches": ["x"]},
            "notification_integration_ids": [gid],
        },
        headers=org.headers,
    ).json()
    url = f"{AGENTS}/{agent['id']}"
    assert client.get(url, headers=org.headers).json()["notification_integration_ids"] == [gid]
    client.put(url, json={"notification_integration_ids": []}, headers=org.headers)
    assert "notification_integration_ids" not in client.get(url, headers=org.headers).json()
