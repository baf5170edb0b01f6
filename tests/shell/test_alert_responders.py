"""Alert agents: create (idempotent), get, list, update, delete, enable, disable, and every 400."""

from __future__ import annotations

import pytest

from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_shell.api.alert_responders import DEFAULT_PROMPT

# One app and database per back end for the module, an organization per test
# (tests/shell/conftest.py, SharedApps).
pytestmark = pytest.mark.shared_app

BASE = "/api/v1/alert-responders"


@pytest.fixture
def hook(factory, org):
    return factory.webhook(org, "PROVIDER_A", "pager")


def webhook_body(hook, **extra):
    body = {
        "team_name": "Default",
        "name": "db errors",
        "webhook_sources": [{"type": hook.type, "remote_id": hook.remote_id}],
        "matching_criteria": {"text_matches": ["database", "*timeout*"]},
    }
    body.update(extra)
    return body


def chat_body(**extra):
    body = {
        "team_name": "Default",
        "name": "chat alerts",
        "chat_channel_id": "C0ALERTS",
        "matching_criteria": {"text_matches": ["FIRING"], "chat_bot_app_user_id": "B0BOT"},
    }
    body.update(extra)
    return body


def create(client, org, body):
    response = client.post(BASE, json=body, headers=org.headers)
    assert response.status_code == 200, response.text
    return response.json()


def error(response, status):
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"detail"}
    return body["detail"]


def test_create_webhook_agent_and_read_it(client, org, hook) -> None:
    created = create(client, org, webhook_body(hook))
    assert set(created) == {"id", "url", "name", "status"}
    assert created["status"] == "ACTIVE" and created["name"] == "db errors"
    assert decode_global_id(created["id"], "AlertResponder") is not None
    assert created["url"] == f"http://sleuth.test/alert-responders/{created['id']}"

    record = client.get(f"{BASE}/{created['id']}", headers=org.headers).json()
    assert record == {
        "id": created["id"],
        "url": created["url"],
        "organization_name": org.name,
        "team_name": "Default",
        "name": "db errors",
        "runbook": None,
        "matching_criteria": {
            "text_matches": ["database", "*timeout*"],
            "match_rules": {
                "operator": "AND",
                "conditions": [
                    {"type": "contains", "value": "database"},
                    {"type": "contains", "value": "timeout"},
                ],
            },
        },
        "webhook_sources": [{"type": "PROVIDER_A", "remote_id": hook.remote_id}],
        "chat_channel_id": None,
        "status": "ACTIVE",
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
    }
    assert record["created_at"].endswith("Z") or "+00:00" in record["created_at"]


def test_create_chat_agent_with_rules_and_integrations(client, factory, org) -> None:
    integration = factory.integration(org, "ALT_WEBHOOK", "alt")
    integration_id = encode_global_id("NotificationIntegration", integration.id)
    rules = {
        "operator": "OR",
        "conditions": [
            {"type": "starts_with", "value": "[P1]"},
            {"type": "regex", "value": "disk (full|low)"},
        ],
    }
    created = create(
        client,
        org,
        chat_body(
            matching_criteria={"match_rules": rules, "chat_bot_app_user_id": "B0BOT"},
            runbook={"investigation_prompt": "Check the disks."},
            notification_integration_ids=[integration_id],
        ),
    )
    record = client.get(f"{BASE}/{created['id']}", headers=org.headers).json()
    assert record["matching_criteria"] == {
        "text_matches": [],
        "match_rules": rules,
        "chat_bot_app_user_id": "B0BOT",
    }
    assert record["webhook_sources"] == []
    assert record["chat_channel_id"] == "C0ALERTS"
    assert record["runbook"] == {"investigation_prompt": "Check the disks."}
    assert record["notification_integration_ids"] == [integration_id]


def test_match_rules_win_over_text_matches(client, org, hook) -> None:
    rules = {"operator": "AND", "conditions": [{"type": "ends_with", "value": "down"}]}
    created = create(
        client,
        org,
        webhook_body(hook, matching_criteria={"text_matches": ["ignored"], "match_rules": rules}),
    )
    criteria = client.get(f"{BASE}/{created['id']}", headers=org.headers).json()[
        "matching_criteria"
    ]
    assert criteria == {"text_matches": ["*down"], "match_rules": rules}


def test_create_is_idempotent_by_team_and_name(client, factory, org, hook) -> None:
    first = create(client, org, webhook_body(hook))
    again = create(client, org, webhook_body(hook, matching_criteria={"text_matches": ["x"]}))
    assert again == first
    factory.team(org, "SRE")
    other_team = create(client, org, webhook_body(hook, team_name="SRE"))
    assert other_team["id"] != first["id"]
    listed = client.get(BASE, headers=org.headers).json()["alert_responders"]
    assert len(listed) == 2
    # The repeated create changed nothing.
    record = client.get(f"{BASE}/{first['id']}", headers=org.headers).json()
    assert record["matching_criteria"]["text_matches"] == ["database", "*timeout*"]


def test_list_and_team_filter(client, factory, org, hook) -> None:
    factory.team(org, "SRE")
    a = create(client, org, webhook_body(hook, name="a"))
    b = create(client, org, chat_body(name="b", team_name="SRE"))
    listed = client.get(BASE, headers=org.headers).json()
    assert listed == {
        "alert_responders": [
            {
                "id": a["id"],
                "name": "a",
                "team_name": "Default",
                "status": "ACTIVE",
                "url": a["url"],
            },
            {"id": b["id"], "name": "b", "team_name": "SRE", "status": "ACTIVE", "url": b["url"]},
        ]
    }
    only = client.get(BASE, params={"team_name": "SRE"}, headers=org.headers).json()
    assert [item["name"] for item in only["alert_responders"]] == ["b"]
    # An unknown team is a filter nothing matches: an empty list, not an error.
    for unknown in ("Nope", "De\x00fault", "T" * 5000):
        response = client.get(BASE, params={"team_name": unknown}, headers=org.headers)
        assert response.status_code == 200
        assert response.json() == {"alert_responders": []}


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        ({"team_name": "Ghosts"}, "Unknown team: Ghosts"),
        ({"chat_channel_id": "C0X"}, "Use either webhook_sources or chat_channel_id, not both"),
        ({"webhook_sources": []}, "Either webhook_sources or chat_channel_id is required"),
        (
            {"webhook_sources": [{"type": "PROVIDER_A", "remote_id": "wh_unknown"}]},
            "Unknown webhook source: PROVIDER_A wh_unknown",
        ),
        (
            {"matching_criteria": {"text_matches": ["x"], "chat_bot_app_user_id": "B1"}},
            "chat_bot_app_user_id is only allowed on chat alert agents",
        ),
        ({"matching_criteria": {"text_matches": []}}, None),
        ({"matching_criteria": {}}, None),
        (
            {
                "matching_criteria": {
                    "match_rules": {
                        "operator": "AND",
                        "conditions": [{"type": "regex", "value": "("}],
                    }
                }
            },
            None,
        ),
        (
            {
                "matching_criteria": {
                    "match_rules": {
                        "operator": "AND",
                        "conditions": [
                            {
                                "operator": "OR",
                                "conditions": [
                                    {
                                        "operator": "AND",
                                        "conditions": [{"type": "contains", "value": "x"}],
                                    }
                                ],
                            }
                        ],
                    }
                }
            },
            None,
        ),
        (
            {"notification_integration_ids": ["bm9wZQ=="]},
            "Unknown notification integration: bm9wZQ==",
        ),
        ({"name": "   "}, "name must not be empty"),
        ({"name": "x" * 201}, "name must be at most 200 characters"),
        (
            {"runbook": {"investigation_prompt": ""}},
            "runbook.investigation_prompt must not be empty",
        ),
        ({"name": 5}, None),
    ],
)
def test_create_webhook_agent_errors(client, org, hook, change, detail) -> None:
    response = client.post(BASE, json=webhook_body(hook, **change), headers=org.headers)
    message = error(response, 400)
    if detail is not None:
        assert message == detail
    assert client.get(BASE, headers=org.headers).json() == {"alert_responders": []}


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        (
            {"chat_channel_id": "D0123"},
            "Invalid chat_channel_id: D0123 (a channel ID starts with C or G)",
        ),
        ({"chat_channel_id": "C"}, "Invalid chat_channel_id: C (a channel ID starts with C or G)"),
        (
            {"matching_criteria": {"text_matches": ["x"], "chat_bot_app_user_id": "B" * 65}},
            "chat_bot_app_user_id must be at most 64 characters",
        ),
    ],
)
def test_create_chat_agent_errors(client, org, change, detail) -> None:
    response = client.post(BASE, json=chat_body(**change), headers=org.headers)
    assert error(response, 400) == detail


def test_chat_subscription_is_no_webhook_source(client, factory, org) -> None:
    chat = factory.webhook(org, "CHAT", "workspace")
    body = {
        "team_name": "Default",
        "name": "n",
        "webhook_sources": [{"type": "CHAT", "remote_id": chat.remote_id}],
        "matching_criteria": {"text_matches": ["x"]},
    }
    error(client.post(BASE, json=body, headers=org.headers), 400)
    # A provider type that does not match the subscription's own type is unknown too.
    hook = factory.webhook(org, "PROVIDER_B", "b")
    body["webhook_sources"] = [{"type": "PROVIDER_C", "remote_id": hook.remote_id}]
    assert error(client.post(BASE, json=body, headers=org.headers), 400) == (
        f"Unknown webhook source: PROVIDER_C {hook.remote_id}"
    )


def test_other_org_resources_are_refused(client, factory, org) -> None:
    other = factory.org("other")
    their_hook = factory.webhook(other, "PROVIDER_A", "theirs")
    their_integration = factory.integration(other)
    their_gid = encode_global_id("NotificationIntegration", their_integration.id)
    response = client.post(
        BASE,
        json={
            "team_name": "Default",
            "name": "n",
            "webhook_sources": [{"type": "PROVIDER_A", "remote_id": their_hook.remote_id}],
            "matching_criteria": {"text_matches": ["x"]},
        },
        headers=org.headers,
    )
    assert error(response, 400) == f"Unknown webhook source: PROVIDER_A {their_hook.remote_id}"
    response = client.post(
        BASE, json=chat_body(notification_integration_ids=[their_gid]), headers=org.headers
    )
    assert error(response, 400) == f"Unknown notification integration: {their_gid}"


def test_org_isolation_of_agents(client, factory, org, hook) -> None:
    created = create(client, org, webhook_body(hook))
    other = factory.org("other")
    url = f"{BASE}/{created['id']}"
    assert error(client.get(url, headers=other.headers), 404) == "Alert responder not found"
    assert error(client.put(url, json={"name": "x"}, headers=other.headers), 404)
    assert error(client.post(f"{url}/disable", headers=other.headers), 404)
    assert error(client.post(f"{url}/enable", headers=other.headers), 404)
    assert client.delete(url, headers=other.headers).json() == {"success": True}
    assert client.get(BASE, headers=other.headers).json() == {"alert_responders": []}
    # Still there, unchanged, for its owner.
    assert client.get(url, headers=org.headers).json()["status"] == "ACTIVE"


@pytest.mark.parametrize(
    "bad_id",
    [
        "nope",
        encode_global_id("Digest", 1),
        encode_global_id("AlertResponder", 999),
        encode_global_id("AlertResponder", 10**12),
        "QWxlcnRSZXNwb25kZXI6MDE=",  # "AlertResponder:01": not canonical
    ],
)
def test_unknown_ids_are_404(client, org, hook, bad_id) -> None:
    create(client, org, webhook_body(hook))
    url = f"{BASE}/{bad_id}"
    assert error(client.get(url, headers=org.headers), 404) == "Alert responder not found"
    assert error(client.put(url, json={}, headers=org.headers), 404) == "Alert responder not found"
    assert error(client.post(f"{url}/enable", headers=org.headers), 404)
    assert client.delete(url, headers=org.headers).json() == {"success": True}


def test_partial_update(client, factory, org, hook) -> None:
    created = create(client, org, webhook_body(hook, runbook={"investigation_prompt": "Look."}))
    url = f"{BASE}/{created['id']}"
    before = client.get(url, headers=org.headers).json()

    response = client.put(url, json={"name": "renamed"}, headers=org.headers)
    assert response.status_code == 200
    assert response.json() == {
        "id": created["id"],
        "url": created["url"],
        "name": "renamed",
        "status": "ACTIVE",
    }
    after = client.get(url, headers=org.headers).json()
    assert after["name"] == "renamed"
    for field in ("runbook", "matching_criteria", "webhook_sources", "chat_channel_id"):
        assert after[field] == before[field]

    second = factory.webhook(org, "PROVIDER_D", "second")
    client.put(
        url,
        json={
            "matching_criteria": {"text_matches": ["cpu*"]},
            "webhook_sources": [{"type": "PROVIDER_D", "remote_id": second.remote_id}],
        },
        headers=org.headers,
    )
    after = client.get(url, headers=org.headers).json()
    assert after["matching_criteria"]["text_matches"] == ["cpu*"]
    assert after["matching_criteria"]["match_rules"]["conditions"] == [
        {"type": "starts_with", "value": "cpu"}
    ]
    assert after["webhook_sources"] == [{"type": "PROVIDER_D", "remote_id": second.remote_id}]
    assert after["name"] == "renamed" and after["runbook"] == {"investigation_prompt": "Look."}


def test_runbook_updates(client, org, hook) -> None:
    created = create(client, org, webhook_body(hook, runbook={"investigation_prompt": "Look."}))
    url = f"{BASE}/{created['id']}"

    def runbook():
        return client.get(url, headers=org.headers).json()["runbook"]

    client.put(url, json={"runbook": None}, headers=org.headers)
    assert runbook() is None
    client.put(url, json={"runbook": {"investigation_prompt": "New."}}, headers=org.headers)
    client.put(url, json={"runbook": {}}, headers=org.headers)
    assert runbook() is None
    client.put(url, json={"runbook": {"investigation_prompt": "New."}}, headers=org.headers)
    assert runbook() == {"investigation_prompt": "New."}
    client.put(url, json={"name": "still"}, headers=org.headers)
    assert runbook() == {"investigation_prompt": "New."}
    # The runbook is replaced by exactly what is sent: the prompt not sent is gone.
    client.put(
        url, json={"runbook": {"impact_and_severity_prompt": "How bad?"}}, headers=org.headers
    )
    assert runbook() == {"impact_and_severity_prompt": "How bad?"}
    client.put(
        url,
        json={"runbook": {"investigation_prompt": "A.", "impact_and_severity_prompt": None}},
        headers=org.headers,
    )
    assert runbook() == {"investigation_prompt": "A."}


def test_runbook_is_null_unless_set_on_create(client, org, hook) -> None:
    """Absent, null or {} reads back as null (never the default filled in: a declarative client
    would see a diff that never converges); a runbook that was set reads back exactly."""
    cases = [
        ("absent", None),
        ("null", None),
        ("empty", None),
        ("impact-null", None),
        ("prompt", {"investigation_prompt": DEFAULT_PROMPT}),
        ("impact", {"impact_and_severity_prompt": "Who is affected?"}),
        ("both", {"investigation_prompt": "Look.", "impact_and_severity_prompt": "How bad?"}),
    ]
    sent = {
        "absent": {},
        "null": {"runbook": None},
        "empty": {"runbook": {}},
        "impact-null": {"runbook": {"impact_and_severity_prompt": None}},
        "prompt": {"runbook": {"investigation_prompt": DEFAULT_PROMPT}},
        "impact": {"runbook": {"impact_and_severity_prompt": "Who is affected?"}},
        "both": {
            "runbook": {"investigation_prompt": "Look.", "impact_and_severity_prompt": "How bad?"}
        },
    }
    for name, expected in cases:
        created = create(client, org, webhook_body(hook, name=name, **sent[name]))
        record = client.get(f"{BASE}/{created['id']}", headers=org.headers).json()
        assert record["runbook"] == expected, name


def test_update_notification_integrations(client, factory, org, hook) -> None:
    created = create(client, org, webhook_body(hook))
    url = f"{BASE}/{created['id']}"
    assert "notification_integration_ids" not in client.get(url, headers=org.headers).json()
    integration = factory.integration(org)
    gid = encode_global_id("NotificationIntegration", integration.id)
    client.put(url, json={"notification_integration_ids": [gid, gid]}, headers=org.headers)
    assert client.get(url, headers=org.headers).json()["notification_integration_ids"] == [gid]
    client.put(url, json={"notification_integration_ids": None}, headers=org.headers)
    assert "notification_integration_ids" not in client.get(url, headers=org.headers).json()
    response = client.put(url, json={"notification_integration_ids": ["junk"]}, headers=org.headers)
    assert error(response, 400) == "Unknown notification integration: junk"


def test_update_refuses_type_mixing(client, org, hook) -> None:
    webhook_agent = create(client, org, webhook_body(hook))
    chat_agent = create(client, org, chat_body())
    response = client.put(
        f"{BASE}/{webhook_agent['id']}", json={"chat_channel_id": "C0X"}, headers=org.headers
    )
    assert error(response, 400) == "chat_channel_id cannot be set on a webhook alert agent"
    response = client.put(
        f"{BASE}/{chat_agent['id']}",
        json={"webhook_sources": [{"type": "PROVIDER_A", "remote_id": hook.remote_id}]},
        headers=org.headers,
    )
    assert error(response, 400) == "webhook_sources cannot be set on a chat alert agent"
    response = client.put(
        f"{BASE}/{webhook_agent['id']}",
        json={"matching_criteria": {"text_matches": ["x"], "chat_bot_app_user_id": "B1"}},
        headers=org.headers,
    )
    assert error(response, 400) == "chat_bot_app_user_id is only allowed on chat alert agents"
    # A chat agent may change its channel and bot filter.
    response = client.put(
        f"{BASE}/{chat_agent['id']}",
        json={"chat_channel_id": "G0PRIVATE", "matching_criteria": {"text_matches": ["y"]}},
        headers=org.headers,
    )
    assert response.status_code == 200
    record = client.get(f"{BASE}/{chat_agent['id']}", headers=org.headers).json()
    assert record["chat_channel_id"] == "G0PRIVATE"
    assert record["matching_criteria"] == {
        "text_matches": ["y"],
        "match_rules": {"operator": "AND", "conditions": [{"type": "contains", "value": "y"}]},
    }


def test_rename_onto_existing_name_is_409(client, factory, org, hook) -> None:
    a = create(client, org, webhook_body(hook, name="a"))
    create(client, org, webhook_body(hook, name="b"))
    response = client.put(f"{BASE}/{a['id']}", json={"name": "b"}, headers=org.headers)
    assert error(response, 409) == "An alert responder named b already exists in this team"
    # Same name as itself, or a name used only in another team, is fine.
    assert (
        client.put(f"{BASE}/{a['id']}", json={"name": "a"}, headers=org.headers).status_code == 200
    )
    factory.team(org, "SRE")
    create(client, org, webhook_body(hook, name="c", team_name="SRE"))
    assert (
        client.put(f"{BASE}/{a['id']}", json={"name": "c"}, headers=org.headers).status_code == 200
    )


def test_enable_disable_delete(client, factory, org, hook) -> None:
    from sleuth_shell.db.models import Investigation

    created = create(client, org, webhook_body(hook))
    url = f"{BASE}/{created['id']}"
    agent_pk = decode_global_id(created["id"], "AlertResponder")
    pending = factory.add(
        Investigation(org_id=org.id, alert_responder_id=agent_pk, name="p", prompt="x")
    )
    response = client.post(f"{url}/disable", headers=org.headers)
    assert (response.status_code, response.json()) == (
        200,
        {"id": created["id"], "status": "PAUSED"},
    )
    assert client.get(url, headers=org.headers).json()["status"] == "PAUSED"
    inv_url = f"/api/v1/investigations/{encode_global_id('Investigation', pending.id)}"
    assert client.get(inv_url, headers=org.headers).json()["status"] == "STOPPED"
    response = client.post(f"{url}/enable", headers=org.headers)
    assert response.json() == {"id": created["id"], "status": "ACTIVE"}
    assert client.get(BASE, headers=org.headers).json()["alert_responders"][0]["status"] == "ACTIVE"

    response = client.delete(url, headers=org.headers)
    assert (response.status_code, response.json()) == (200, {"success": True})
    assert error(client.get(url, headers=org.headers), 404) == "Alert responder not found"
    assert client.delete(url, headers=org.headers).json() == {"success": True}
    # Its investigations remain readable.
    assert client.get(inv_url, headers=org.headers).status_code == 200


def test_auth_details(client, org) -> None:
    assert error(client.get(BASE), 401) == "Missing API key"
    assert error(client.post(BASE, json={}, headers={"X-Service-Org-Api-Key": "x"}), 401) == (
        "Invalid API key"
    )


def test_malformed_bodies(client, org) -> None:
    response = client.post(
        BASE, content=b"not json", headers={**org.headers, "Content-Type": "application/json"}
    )
    error(response, 400)
    error(client.post(BASE, json=[1, 2], headers=org.headers), 400)
    error(client.post(BASE, json={"team_name": "Default"}, headers=org.headers), 400)


def test_names_are_compared_normalised(client, org, hook) -> None:
    nfc, nfd = "Caf\u00e9 agent", "Cafe\u0301 agent"
    first = create(client, org, webhook_body(hook, name=nfc))
    for same in (nfd, f"{nfc} ", f" {nfd}\t"):
        again = create(client, org, webhook_body(hook, name=same))
        assert again["id"] == first["id"], repr(same)
    listed = client.get(BASE, headers=org.headers).json()["alert_responders"]
    assert [a["name"] for a in listed] == [nfc]
    other = create(client, org, webhook_body(hook, name="other"))
    for clash in (nfd, f"{nfc} "):
        response = client.put(f"{BASE}/{other['id']}", json={"name": clash}, headers=org.headers)
        assert error(response, 409) == f"An alert responder named {nfc} already exists in this team"
    # A rename that only changes the form of the name is no rename.
    response = client.put(f"{BASE}/{first['id']}", json={"name": nfd}, headers=org.headers)
    assert response.status_code == 200 and response.json()["name"] == nfc


def test_put_of_the_record_read_back_is_accepted(client, org, hook) -> None:
    webhook_agent = create(client, org, webhook_body(hook))
    chat_agent = create(client, org, chat_body())
    for agent in (webhook_agent, chat_agent):
        url = f"{BASE}/{agent['id']}"
        record = client.get(url, headers=org.headers).json()
        record["name"] = f"{record['name']} renamed"
        response = client.put(url, json=record, headers=org.headers)
        assert response.status_code == 200, response.text
        after = client.get(url, headers=org.headers).json()
        assert after["name"] == record["name"]
        assert after["webhook_sources"] == record["webhook_sources"]
        assert after["chat_channel_id"] == record["chat_channel_id"]
    # The empty list GET shows on a chat agent is accepted alone too; a source is not.
    url = f"{BASE}/{chat_agent['id']}"
    assert client.put(url, json={"webhook_sources": []}, headers=org.headers).status_code == 200
    record = client.get(url, headers=org.headers).json()
    changed = {
        "id": encode_global_id("AlertResponder", 999_999),
        "url": "http://elsewhere.test/x",
        "organization_name": "globex",
        "team_name": "SRE",
        "status": "PAUSED",
        "created_at": "2020-01-01T00:00:00Z",
        "updated_at": "2020-01-01T00:00:00Z",
    }
    for member, value in changed.items():
        response = client.put(url, json={**record, member: value}, headers=org.headers)
        assert error(response, 400) == (f"{member} is read-only: send it unchanged or leave it out")
    assert client.get(url, headers=org.headers).json() == record  # nothing changed
    response = client.put(url, json={"bogus": 1}, headers=org.headers)
    assert error(response, 400) == "Unknown field: bogus"
