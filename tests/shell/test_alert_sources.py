"""Alertmanager, Grafana and generic JSON subscriptions through ``POST /api/v1/webhooks/...`` in
process: one alert per entry of a group, the 202 answer per alert, Bearer and Grafana HMAC
credentials, bodies not of their provider's shape read generically, change sources refused as
alert agents' sources."""

from __future__ import annotations

import json
import time
import typing

import pytest
from sqlalchemy import func, select
from test_webhook_intake import FIXTURES, make_agent, url

from sleuth_core.intake import sign_github, sign_grafana
from sleuth_shell.db.models import Investigation, WebhookDelivery
from sleuth_shell.domain import ALERT_SOURCE_TYPES, CHANGE_SOURCE_TYPES

# One app and database per back end for the module, an organization per test
# (tests/shell/conftest.py, SharedApps).
pytestmark = pytest.mark.shared_app

TWO = (FIXTURES / "alertmanager/firing_two_alerts.json").read_bytes()
THREE = (FIXTURES / "grafana/firing_three_alerts.json").read_bytes()


def bearer(hook) -> dict[str, str]:
    return {"Authorization": f"Bearer {hook.secret}"}


def count(factory, model, org) -> int:
    """The organization's rows of ``model``."""
    query = select(func.count()).select_from(model).where(model.org_id == org.id)
    return int(factory.run(lambda s: s.scalar(query)))


def test_the_source_types_accepted_by_agents_are_the_intake_types():
    from sleuth_shell.api.alert_responders import ProviderType

    assert set(typing.get_args(ProviderType)) == {*ALERT_SOURCE_TYPES, *CHANGE_SOURCE_TYPES}


def test_an_alertmanager_group_is_one_alert_per_entry(client, factory, org):
    hook = factory.webhook(org, "ALERTMANAGER", "prometheus")
    # group_window_seconds 0: an investigation per alert, not per group
    make_agent(client, org, hook, "all", group_window_seconds=0)
    make_agent(
        client, org, hook, "second host only", ["*c2ea85182f28cbd9*"], group_window_seconds=0
    )
    listed = client.get("/api/v1/webhook-subscriptions", headers=org.headers).json()
    assert {"type": "ALERTMANAGER", "remote_id": hook.remote_id, "name": "prometheus"} in listed[
        "webhook_subscriptions"
    ]

    response = client.post(url(hook), content=TWO, headers=bearer(hook))
    assert response.status_code == 202, response.text
    answer = response.json()
    first, second = answer["alerts"]
    assert [a["dedup_key"] for a in answer["alerts"]] == [
        "ALERTMANAGER:a1bc48475b20e73d",
        "ALERTMANAGER:c2ea85182f28cbd9",
    ]
    assert {a["group_key"] for a in answer["alerts"]} == {"{}/{}:{}"}
    assert {a["kind"] for a in answer["alerts"]} == {"new_alert"}
    assert len(first["investigation_ids"]) == 1  # only "all" matched the first host
    assert len(second["investigation_ids"]) == 2
    # the flat list: every investigation once
    assert sorted(answer["investigation_ids"]) == sorted(
        set(first["investigation_ids"] + second["investigation_ids"])
    )
    assert count(factory, Investigation, org) == 3
    assert count(factory, WebhookDelivery, org) == 2
    # each investigation holds its own alert (the group with only that entry)
    got = client.get(f"/api/v1/investigations/{first['investigation_ids'][0]}", headers=org.headers)
    payload = json.loads(got.json()["event_payload"])
    assert [a["fingerprint"] for a in payload["alerts"]] == ["a1bc48475b20e73d"]
    assert got.json()["name"] == "High CPU core temperature"

    # Alertmanager sends the group again (repeat interval): same answer, nothing new
    again = client.post(url(hook), content=TWO, headers=bearer(hook))
    assert again.json() == answer
    assert count(factory, Investigation, org) == 3 and count(factory, WebhookDelivery, org) == 2


def test_a_resolved_alert_is_a_lifecycle_event(client, factory, org):
    hook = factory.webhook(org, "ALERTMANAGER", "prometheus")
    make_agent(client, org, hook)
    firing = (FIXTURES / "alertmanager/firing_single.json").read_bytes()
    resolved = (FIXTURES / "alertmanager/resolved_single.json").read_bytes()
    assert (
        len(
            client.post(url(hook), content=firing, headers=bearer(hook)).json()["investigation_ids"]
        )
        == 1
    )
    answer = client.post(url(hook), content=resolved, headers=bearer(hook)).json()
    assert answer["investigation_ids"] == [] and answer["alerts"][0]["kind"] == "lifecycle"
    assert count(factory, Investigation, org) == 1 and count(factory, WebhookDelivery, org) == 2


def test_credentials(client, factory, org):
    hook = factory.webhook(org, "ALERTMANAGER", "prometheus")
    for headers, target in [
        ({}, url(hook)),
        ({"Authorization": "Bearer wrong"}, url(hook)),
        ({"Authorization": f"Basic {hook.secret}"}, url(hook)),
        ({"Authorization": "Bearer"}, url(hook)),
    ]:
        response = client.post(target, content=TWO, headers=headers)
        assert response.status_code == 401, headers
        assert response.json() == {"detail": "Invalid webhook token"}
    assert count(factory, WebhookDelivery, org) == 0
    assert client.post(f"{url(hook)}?token={hook.secret}", content=TWO).status_code == 202
    assert (
        client.post(url(hook), content=TWO, headers={"X-Webhook-Token": hook.secret}).status_code
        == 202
    )
    signed = {"X-Signature": sign_github(TWO, hook.secret)}  # sha256=<hex>, INTEGRATIONS 8.3
    assert client.post(url(hook), content=TWO, headers=signed).status_code == 202
    forged = {"X-Signature": sign_github(TWO, "other")}
    assert client.post(url(hook), content=TWO, headers=forged).status_code == 401


def test_grafana_hmac_signature_with_a_provider_secret(client, factory, org):
    from sleuth_shell import admin

    hook = factory.webhook(org, "GRAFANA", "grafana")
    factory.run(lambda s: admin.set_webhook_secret(s, org.name, hook.remote_id, "hmac-secret"))
    make_agent(client, org, hook, group_window_seconds=0)
    now = int(time.time())
    plain = {"X-Grafana-Alerting-Signature": sign_grafana(THREE, "hmac-secret")}
    stamped = {
        "X-Grafana-Alerting-Signature": sign_grafana(THREE, "hmac-secret", now),
        "X-Grafana-Alerting-Timestamp": str(now),
    }
    stale = {
        "X-Grafana-Alerting-Signature": sign_grafana(THREE, "hmac-secret", now - 3600),
        "X-Grafana-Alerting-Timestamp": str(now - 3600),
    }
    forged = {"X-Grafana-Alerting-Signature": sign_grafana(THREE, "other")}
    for headers in (stale, forged, {}):
        assert client.post(url(hook), content=THREE, headers=headers).status_code == 401
    assert count(factory, WebhookDelivery, org) == 0
    response = client.post(url(hook), content=THREE, headers=plain)
    assert response.status_code == 202, response.text
    assert len(response.json()["alerts"]) == 3
    assert len(response.json()["investigation_ids"]) == 3
    assert client.post(url(hook), content=THREE, headers=stamped).json() == response.json()
    assert client.post(url(hook), content=THREE, headers=bearer(hook)).status_code == 202


@pytest.mark.parametrize(
    ("type_", "body", "title"),
    [
        ("GENERIC", {"event": {"data": {"title": "Disk full on db-1"}}}, "Disk full on db-1"),
        # a PagerDuty body on an Opsgenie subscription: read generically, never refused
        (
            "PROVIDER_B",
            {"event": {"id": "E9", "event_type": "incident.triggered", "data": {"title": "PD"}}},
            "PD",
        ),
        # a monitoring tool's own JSON on a PagerDuty subscription
        ("PROVIDER_A", {"check": {"name": "api health"}, "state": "CRITICAL"}, "api health"),
        ("ALERTMANAGER", {"summary": "not a group"}, "not a group"),
    ],
)
def test_any_json_is_an_alert(client, factory, org, type_, body, title):
    hook = factory.webhook(org, type_, "source")
    make_agent(client, org, hook)
    raw = json.dumps(body).encode()
    response = client.post(url(hook), content=raw, headers=bearer(hook))
    assert response.status_code == 202, response.text
    [alert] = response.json()["alerts"]
    assert alert["title"] == title and alert["dedup_key"].startswith("GENERIC:")
    assert len(response.json()["investigation_ids"]) == 1
    assert count(factory, Investigation, org) == 1


def test_change_sources_are_no_alert_agent_sources(client, factory, org):
    for type_ in CHANGE_SOURCE_TYPES:
        hook = factory.webhook(org, type_, "repo")
        body = {
            "team_name": "Default",
            "name": "from git",
            "webhook_sources": [{"type": type_, "remote_id": hook.remote_id}],
            "matching_criteria": {"text_matches": ["*"]},
        }
        response = client.post("/api/v1/alert-responders/", json=body, headers=org.headers)
        assert response.status_code == 400
        assert response.json() == {
            "detail": f"Webhook source {type_} {hook.remote_id} is a change source: {type_} "
            "subscriptions record commits and deploys, not alerts, so they cannot be an alert "
            "agent's webhook_sources"
        }
