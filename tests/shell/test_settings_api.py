"""``GET``/``PUT /api/v1/settings/advanced``: any key reads, only admin keys write, bad documents
change nothing."""

from __future__ import annotations

import pytest

# One app and database per back end for the module, an organization per test
# (tests/shell/conftest.py, SharedApps).
pytestmark = pytest.mark.shared_app

PATH = "/api/v1/settings/advanced"

DOCUMENT = {
    "assignments": [
        {
            "type": "watch_chat",
            "_comment": "answer deploy questions in #ops",
            "channel": "C0OPS",
            "text_match": ["deploy", "?"],
            "filtering_instructions": "Only questions about deploys",
            "static_response": "See the deploy runbook.",
        }
    ],
    "ext_channels": ["C0FEEDBACK"],
    "future_member": {"kept": True},
}


@pytest.fixture
def admin_headers(factory, org):
    return {"X-Service-Org-Api-Key": factory.key(org, admin_key=True)}


def test_empty_until_saved_then_read_by_any_key(client, org, admin_headers):
    assert client.get(PATH, headers=org.headers).json() == {}
    saved = client.put(PATH, json=DOCUMENT, headers=admin_headers)
    assert saved.status_code == 200
    assert saved.json() == DOCUMENT
    assert client.get(PATH, headers=org.headers).json() == DOCUMENT
    # A second PUT replaces the whole document.
    assert client.put(PATH, json={"ext_channels": []}, headers=admin_headers).status_code == 200
    assert client.get(PATH, headers=org.headers).json() == {"ext_channels": []}


def test_only_admin_keys_write(client, org):
    response = client.put(PATH, json=DOCUMENT, headers=org.headers)
    assert response.status_code == 403
    assert response.json() == {"detail": "Admin API key required"}
    assert client.get(PATH, headers=org.headers).json() == {}


@pytest.mark.parametrize(
    ("document", "detail"),
    [
        (
            {"assignments": [{"type": "watch_slack", "text_match": ["x"]}]},
            "assignments[0].type",
        ),
        ({"assignments": [{"type": "watch_chat", "text_match": []}]}, "text_match"),
        ({"ext_channels": ["D0DIRECT"]}, "ext_channels[0]"),
    ],
)
def test_invalid_documents_are_refused_and_change_nothing(
    client, org, admin_headers, document, detail
):
    client.put(PATH, json=DOCUMENT, headers=admin_headers)
    response = client.put(PATH, json=document, headers=admin_headers)
    assert response.status_code == 400
    assert detail in response.json()["detail"]
    assert client.get(PATH, headers=org.headers).json() == DOCUMENT


def test_body_must_be_a_json_object(client, admin_headers):
    response = client.put(PATH, json=["not", "an", "object"], headers=admin_headers)
    assert response.status_code == 400
    assert set(response.json()) == {"detail"}


def test_settings_are_per_organization(client, factory, org, admin_headers):
    other = factory.org("globex")
    client.put(PATH, json=DOCUMENT, headers=admin_headers)
    assert client.get(PATH, headers=other.headers).json() == {}


def test_needs_a_key(client):
    assert client.get(PATH).json() == {"detail": "Missing API key"}
