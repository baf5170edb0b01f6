"""The web app's authoring forms through the test client: the alert agent form creates and edits
agents through the API's own operations (same rules, same error texts), previews its criteria
with the dry run, and checks its CSRF token."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from test_alert_log import deliver, incident
from test_web import sign_in

from sleuth_core.ids import encode_global_id
from sleuth_shell import admin
from sleuth_shell.billing.ledger import FEATURE_INTERACTION, FEATURE_INVESTIGATION, record_usage
from sleuth_shell.db.models import (
    AlertResponder,
    Digest,
    Interaction,
    Suppression,
    TeamBudget,
    WebhookSubscription,
)

# One app and database per back end for the module, an organization per test
# (tests/shell/conftest.py, SharedApps).
pytestmark = pytest.mark.shared_app


def _form(hook, **changes):
    form = {
        "name": "Checkout latency",
        "team_name": "Default",
        "sources": f"{hook.type} {hook.remote_id}",
        "chat_channel_id": "",
        "criteria_kind": "patterns",
        "text_matches": "*latency*\n\n",
        "match_rules": "",
        "runbook_prompt": "Look at the checkout deploys first.",
        "impact_prompt": "",
        "max_runs_per_hour": "4",
        "max_runs_per_day": "",
        "group_window_seconds": "600",
        "investigate": "always",
        "action": "save",
    }
    form.update(changes)
    return form


async def _agents(session, org):
    """The organization's rows, oldest first."""
    rows = select(AlertResponder).where(AlertResponder.org_id == org.id).order_by(AlertResponder.id)
    return (await session.scalars(rows)).all()


def test_agent_form_creates_an_agent_as_the_api_does(client, factory, org):
    hook = factory.webhook(org, "PROVIDER_A", "pager")
    integration = factory.integration(org, "CHAT_ALERT", "oncall-room")
    token = sign_in(client, org.key)
    page = client.get("/alert-responders/new")
    assert page.status_code == 200 and "pager" in page.text and "oncall-room" in page.text
    integration_id = encode_global_id("NotificationIntegration", integration.id)
    response = client.post(
        "/alert-responders/new",
        data={**_form(hook, integrations=integration_id), "csrf_token": token},
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    (agent,) = factory.run(lambda s: _agents(s, org))
    assert response.headers["location"] == "/alert-responders/" + encode_global_id(
        "AlertResponder", agent.id
    )
    assert agent.name == "Checkout latency" and agent.text_matches == ["*latency*"]
    assert agent.webhook_sources == [{"type": "PROVIDER_A", "remote_id": hook.remote_id}]
    assert agent.runbook_prompt == "Look at the checkout deploys first." and agent.runbook_active
    assert agent.notification_integration_ids == [integration.id]
    assert (agent.max_runs_per_hour, agent.max_runs_per_day) == (4, None)
    assert (agent.group_window_seconds, agent.investigate) == (600, "always")
    # The API reads back what the form wrote.
    gid = encode_global_id("AlertResponder", agent.id)
    record = client.get(f"/api/v1/alert-responders/{gid}", headers=org.headers).json()
    assert record["matching_criteria"]["text_matches"] == ["*latency*"]
    assert record["max_runs_per_hour"] == 4 and "max_runs_per_day" not in record


def test_agent_form_shows_the_apis_error_texts_and_keeps_the_input(client, factory, org):
    hook = factory.webhook(org, "PROVIDER_A", "pager")
    token = sign_in(client, org.key)
    cases = [
        (
            {"sources": "", "chat_channel_id": ""},
            "Either webhook_sources or chat_channel_id is required",
        ),
        ({"chat_channel_id": "C0123456789"}, "Use either webhook_sources or chat_channel_id"),
        ({"max_runs_per_hour": "0"}, "max_runs_per_hour must be a whole number from 1 to"),
        ({"group_window_seconds": "-1"}, "group_window_seconds must be a whole number from 0 to"),
        ({"team_name": "Nope"}, "Unknown team: Nope"),
        ({"name": "   "}, "name must not be empty"),
        ({"criteria_kind": "rules", "match_rules": "{not json"}, "match_rules: Not valid JSON"),
        ({"sources": "PROVIDER_A missing"}, "Unknown webhook source: PROVIDER_A missing"),
    ]
    for changes, detail in cases:
        form = _form(hook, **changes)
        response = client.post("/alert-responders/new", data={**form, "csrf_token": token})
        assert response.status_code == 400, (changes, response.text)
        assert detail in html.unescape(response.text), changes
        assert 'role="alert"' in response.text
        # The input comes back as typed.
        assert html.escape(form["runbook_prompt"], quote=False) in response.text
    # A rule tree the core refuses: the core's message, as the API gives it.
    bad_tree = '{"operator": "XOR", "conditions": []}'
    form = _form(hook, criteria_kind="rules", match_rules=bad_tree)
    page = client.post("/alert-responders/new", data={**form, "csrf_token": token})
    api = client.post(
        "/api/v1/alert-responders",
        json={
            "name": "x",
            "team_name": "Default",
            "matching_criteria": {"match_rules": {"operator": "XOR", "conditions": []}},
            "webhook_sources": [{"type": "PROVIDER_A", "remote_id": hook.remote_id}],
        },
        headers=org.headers,
    )
    assert page.status_code == api.status_code == 400
    assert api.json()["detail"] in html.unescape(page.text)
    assert factory.run(lambda s: _agents(s, org)) == []


def test_agent_form_refuses_a_missing_or_wrong_csrf_token(client, factory, org):
    hook = factory.webhook(org, "PROVIDER_A", "pager")
    sign_in(client, org.key)
    for token in (None, "forged"):
        data = _form(hook) if token is None else {**_form(hook), "csrf_token": token}
        assert client.post("/alert-responders/new", data=data).status_code == 403
    assert factory.run(lambda s: _agents(s, org)) == []


def test_agent_form_edits_an_agent_and_clears_what_is_emptied(client, factory, org):
    hook = factory.webhook(org, "PROVIDER_A", "pager")
    token = sign_in(client, org.key)
    client.post("/alert-responders/new", data={**_form(hook), "csrf_token": token})
    (agent,) = factory.run(lambda s: _agents(s, org))
    gid = encode_global_id("AlertResponder", agent.id)
    edit = client.get(f"/alert-responders/{gid}/edit")
    assert edit.status_code == 200 and "*latency*" in edit.text and 'value="600"' in edit.text
    rules = '{"operator": "OR", "conditions": [{"type": "contains", "value": "disk"}]}'
    changed = _form(
        hook,
        name="Disk alerts",
        criteria_kind="rules",
        match_rules=rules,
        runbook_prompt="",
        max_runs_per_hour="",
        investigate="",
    )
    del changed["team_name"]
    response = client.post(
        f"/alert-responders/{gid}/edit",
        data={**changed, "csrf_token": token},
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    (agent,) = factory.run(lambda s: _agents(s, org))
    assert agent.name == "Disk alerts"
    assert agent.match_rules["conditions"][0]["value"] == "disk"
    assert not agent.runbook_active and agent.runbook_prompt is None
    assert (agent.max_runs_per_hour, agent.investigate) == (None, None)
    # Unchecking every source is the API's refusal, and nothing changes.
    refused = client.post(
        f"/alert-responders/{gid}/edit",
        data={**changed, "sources": "", "name": "Renamed", "csrf_token": token},
    )
    assert refused.status_code == 400 and "webhook_sources must not be empty" in refused.text
    assert factory.run(lambda s: _agents(s, org))[0].name == "Disk alerts"
    missing = encode_global_id("AlertResponder", 99999)
    assert client.get(f"/alert-responders/{missing}/edit").status_code == 404


def test_agent_form_preview_shows_the_matching_alerts_highlighted(client, factory, org):
    hook = factory.webhook(org, "PROVIDER_A", "pager")
    for n in range(3):
        deliver(client, hook, incident(n, title="Disk full on db-7" if n else "Checkout slow"))
    token = sign_in(client, org.key)
    response = client.post(
        "/alert-responders/new",
        data={**_form(hook, text_matches="*disk full*", action="preview"), "csrf_token": token},
    )
    assert response.status_code == 200, response.text
    assert "Matches 2 of the 3 newest stored alerts" in response.text
    assert response.text.count("<mark>Disk full</mark>") >= 2
    assert "Checkout slow" not in response.text
    assert factory.run(lambda s: _agents(s, org)) == []  # a preview saves nothing
    bad = client.post(
        "/alert-responders/new",
        data={**_form(hook, text_matches="", action="preview"), "csrf_token": token},
    )
    api = client.post(
        "/api/v1/alert-responders/dry-run",
        json={"matching_criteria": {"text_matches": []}},
        headers=org.headers,
    )
    assert bad.status_code == api.status_code == 400
    assert api.json()["detail"] in html.unescape(bad.text)


def _digest_form(**changes):
    form = {
        "name": "Morning report",
        "team_name": "Default",
        "section": ["Errors", ""],
        "prompt": ["Errors overnight in payments-api", ""],
        "schedule": "0 9 * * 0-4",
        "chat_channel_id": "",
        "action": "save",
    }
    form.update(changes)
    return form


async def _digests(session, org):
    """The organization's rows, oldest first."""
    rows = select(Digest).where(Digest.org_id == org.id).order_by(Digest.id)
    return (await session.scalars(rows)).all()


def test_digest_form_creates_edits_and_shows_the_next_five_fire_times(client, factory, org):
    token = sign_in(client, org.key)
    new = client.get("/digests/new")
    assert new.status_code == 200
    # day 0 = Monday: "0-4" is Monday to Friday, so no Saturday or Sunday among the fire times.
    fires = re.findall(r'<time datetime="([^"]+)">(\w{3}) ', new.text)
    assert len(fires) == 5 and {day for _, day in fires} <= {"Mon", "Tue", "Wed", "Thu", "Fri"}
    assert all(stamp.endswith("09:00:00+00:00") for stamp, _ in fires)
    times = client.post(
        "/digests/new",
        data={**_digest_form(schedule="30 6 * * 5", action="times"), "csrf_token": token},
    )
    assert times.status_code == 200
    assert {day for day in re.findall(r'<time datetime="[^"]+">(\w{3}) ', times.text)} == {"Sat"}
    tokyo = client.get("/digests/new?tz=Asia/Tokyo").text
    # 09:00 UTC is 18:00 in Tokyo (no daylight saving there).
    assert re.search(r"UTC</time> · <span class=\"local\">\w{3} \S+ 18:00 Asia/Tokyo", tokyo)
    assert "Unknown time zone: Mars/Base" in client.get("/digests/new?tz=Mars/Base").text
    assert 'value="Errors overnight' not in times.text  # a textarea keeps the prompt as text
    assert "Errors overnight in payments-api" in times.text
    created = client.post(
        "/digests/new", data={**_digest_form(), "csrf_token": token}, follow_redirects=False
    )
    assert created.status_code == 303, created.text
    (digest,) = factory.run(lambda s: _digests(s, org))
    assert digest.sections == [{"section": "Errors", "prompt": "Errors overnight in payments-api"}]
    gid = encode_global_id("Digest", digest.id)
    assert created.headers["location"] == f"/digests/{gid}"
    record = client.get(f"/api/v1/digests/{gid}", headers=org.headers).json()
    assert record["schedule"] == "0 9 * * 0-4" and record["name"] == "Morning report"
    edit = client.get(f"/digests/{gid}/edit")
    assert edit.status_code == 200 and "Errors overnight in payments-api" in edit.text
    changed = _digest_form(
        name="Evening report",
        section=["Errors", "Deploys"],
        prompt=["Errors today", "What shipped today"],
        schedule="0 18 * * *",
    )
    del changed["team_name"]
    saved = client.post(
        f"/digests/{gid}/edit", data={**changed, "csrf_token": token}, follow_redirects=False
    )
    assert saved.status_code == 303, saved.text
    (digest,) = factory.run(lambda s: _digests(s, org))
    assert digest.name == "Evening report" and digest.schedule == "0 18 * * *"
    assert [s["section"] for s in digest.sections] == ["Errors", "Deploys"]


def test_digest_form_shows_the_apis_error_texts_and_checks_csrf(client, factory, org):
    token = sign_in(client, org.key)
    for changes, body in [
        ({"schedule": "61 * * * *"}, {"schedule": "61 * * * *"}),
        ({"section": ["", ""], "prompt": ["", ""]}, {"sections": []}),
        (
            {"section": ["Errors", ""], "prompt": ["  ", ""]},
            {"sections": [{"section": "Errors", "prompt": "  "}]},
        ),
        ({"chat_channel_id": "nope"}, {"chat_channel_id": "nope"}),
    ]:
        page = client.post("/digests/new", data={**_digest_form(**changes), "csrf_token": token})
        api_body = {
            "team_name": "Default",
            "name": "x",
            "schedule": "0 9 * * *",
            "sections": [{"section": "Errors", "prompt": "Errors overnight"}],
            **body,
        }
        api = client.post("/api/v1/digests", json=api_body, headers=org.headers)
        assert page.status_code == api.status_code == 400, (changes, page.text)
        assert api.json()["detail"] in html.unescape(page.text), changes
    assert client.post("/digests/new", data=_digest_form()).status_code == 403
    forged = client.post("/digests/new", data={**_digest_form(), "csrf_token": "forged"})
    assert forged.status_code == 403
    assert factory.run(lambda s: _digests(s, org)) == []


async def _suppressions(session, org):
    """The organization's rows, oldest first."""
    rows = select(Suppression).where(Suppression.org_id == org.id).order_by(Suppression.id)
    return (await session.scalars(rows)).all()


def test_suppression_form_adds_refuses_with_the_apis_text_and_ends(client, factory, org):
    token = sign_in(client, org.key)
    until = (datetime.now(UTC) + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    form = {"text_matches": "*disk*", "expires_at": until, "reason": "Maintenance"}
    added = client.post("/suppressions", data={**form, "csrf_token": token}, follow_redirects=False)
    assert added.status_code == 303, added.text
    (row,) = factory.run(lambda s: _suppressions(s, org))
    assert row.text_matches == ["*disk*"] and row.reason == "Maintenance"
    listed = client.get("/api/v1/suppressions", headers=org.headers).json()["suppressions"]
    assert [s["reason"] for s in listed] == ["Maintenance"]
    assert "Maintenance" in client.get("/suppressions").text
    for changes, api_changes in [
        ({"expires_at": "2001-01-01T00:00:00Z"}, {"expires_at": "2001-01-01T00:00:00Z"}),
        ({"expires_at": "soon"}, {"expires_at": "soon"}),
        ({"reason": " "}, {"reason": " "}),
        ({"text_matches": ""}, {"matching_criteria": {"text_matches": []}}),
    ]:
        page = client.post("/suppressions", data={**form, **changes, "csrf_token": token})
        api_body = {
            "matching_criteria": {"text_matches": ["*disk*"]},
            "expires_at": until,
            "reason": "Maintenance",
            **api_changes,
        }
        api = client.post("/api/v1/suppressions", json=api_body, headers=org.headers)
        assert page.status_code == api.status_code == 400, (changes, page.text)
        assert api.json()["detail"] in html.unescape(page.text), changes
    assert client.post("/suppressions", data=form).status_code == 403
    gid = encode_global_id("Suppression", row.id)
    assert client.post(f"/suppressions/{gid}/end", data={}).status_code == 403
    ended = client.post(
        f"/suppressions/{gid}/end", data={"csrf_token": token}, follow_redirects=False
    )
    assert ended.status_code == 303
    assert factory.run(lambda s: _suppressions(s, org)) == []


def test_billing_page_charts_credits_per_team_and_month_with_a_table(client, factory, org):
    now = datetime.now(UTC)

    async def spend(session):
        await record_usage(
            session,
            org_id=org.id,
            team_id=org.default_team_id,
            feature=FEATURE_INTERACTION,
            credits=2.5,
            occurred_at=now,
        )
        await record_usage(
            session,
            org_id=org.id,
            team_id=None,
            feature=FEATURE_INVESTIGATION,
            credits=1.25,
            occurred_at=now,
        )
        await session.commit()

    factory.run(spend)
    sign_in(client, org.key)
    response = client.get("/billing")
    assert response.status_code == 200
    text = response.text
    month = now.strftime("%Y-%m")
    assert "<svg" in text and 'role="img"' in text
    assert f"Default, {month}: 2.5 credits" in text and f"unattributed, {month}: 1.25" in text
    assert f"<tr><td>{month}</td><td>Default</td><td>2.5</td></tr>" in text
    assert f"{month}: 3.75" in text
    # The page's numbers are the API's report.
    api = client.post(
        "/api/v1/billing/credit-usage",
        json={"start": f"{month}-01T00:00:00Z", "end": (now + timedelta(minutes=1)).isoformat()},
        headers=org.headers,
    ).json()
    assert api["monthly_totals"] == {month: 3.75}
    assert (
        len(re.findall(r"<text [^>]*>\d{4}-\d{2}</text>", client.get("/billing?months=3").text))
        == 3
    )


def test_interactions_lists_past_questions_newest_first_by_status(client, factory, org):
    start = datetime(2026, 11, 1, 8, 0, tzinfo=UTC)
    for n in range(30):
        factory.add(
            Interaction(
                org_id=org.id,
                question=f"question-{n:02d}",
                status="FAILED" if n == 7 else "COMPLETED",
                created_at=start + timedelta(minutes=n),
            )
        )
    sign_in(client, org.key)
    first = client.get("/interactions").text
    assert first.index("question-29") < first.index("question-28")
    assert "question-04" not in first and "page=2" in first
    assert "question-04" in client.get("/interactions?page=2").text
    failed = client.get("/interactions?status=FAILED").text
    assert "question-07" in failed and "question-08" not in failed
    assert client.get("/interactions?status=BOGUS").status_code == 400


def test_webhook_subscription_form_is_admin_only_and_shows_the_secret_once(client, factory):
    admin_org = factory.org("initech", admin_key=True)
    token = sign_in(client, admin_org.key)
    added = client.post(
        "/webhook-subscriptions",
        data={"type": "PROVIDER_A", "name": "Pager", "csrf_token": token},
    )
    assert added.status_code == 200, added.text
    (row,) = factory.run(lambda s: _webhooks(s, admin_org))
    assert row.name == "Pager" and row.type == "PROVIDER_A"
    assert row.secret in added.text and f"/api/v1/webhooks/PROVIDER_A/{row.remote_id}" in added.text
    listing = client.get("/webhook-subscriptions").text
    assert row.remote_id in listing and row.secret not in listing  # shown once only
    refused = client.post(
        "/webhook-subscriptions", data={"type": "NOPE", "name": "x", "csrf_token": token}
    )
    assert refused.status_code == 400 and "Unknown webhook type: NOPE" in refused.text
    assert (
        client.post("/webhook-subscriptions", data={"type": "GENERIC", "name": "y"}).status_code
        == 403
    )
    # A key without the admin flag reads the list but cannot add.
    user_key = factory.run(lambda s: _user_key(s, admin_org.name))
    client.cookies.clear()
    user_token = sign_in(client, user_key)
    assert "Add a subscription" not in client.get("/webhook-subscriptions").text
    denied = client.post(
        "/webhook-subscriptions", data={"type": "GENERIC", "name": "z", "csrf_token": user_token}
    )
    assert denied.status_code == 403
    assert len(factory.run(lambda s: _webhooks(s, admin_org))) == 1


async def _webhooks(session, org):
    """The organization's webhook subscriptions, oldest first."""
    rows = select(WebhookSubscription).where(WebhookSubscription.org_id == org.id)
    return (await session.scalars(rows.order_by(WebhookSubscription.id))).all()


async def _user_key(session, org_name):
    _, key = await admin.create_key(session, org_name, admin=False)
    return key


def test_integration_form_is_admin_only_with_the_operations_messages(client, factory):
    admin_org = factory.org("umbrella", admin_key=True)
    token = sign_in(client, admin_org.key)
    added = client.post(
        "/notification-integrations",
        data={
            "kind": "CHAT_ALERT",
            "name": "oncall",
            "channel": "C0123456789",
            "csrf_token": token,
        },
        follow_redirects=False,
    )
    assert added.status_code == 303, added.text
    assert "C0123456789" in client.get("/notification-integrations").text
    refused = client.post(
        "/notification-integrations",
        data={"kind": "ALT_WEBHOOK", "name": "hook", "url": "ftp://x", "csrf_token": token},
    )
    assert refused.status_code == 400
    assert "ALT_WEBHOOK needs --url with an absolute http(s) URL" in refused.text
    no_csrf = {"kind": "CHAT_ALERT", "name": "x", "channel": "C1"}
    assert client.post("/notification-integrations", data=no_csrf).status_code == 403
    user_key = factory.run(lambda s: _user_key(s, admin_org.name))
    client.cookies.clear()
    user_token = sign_in(client, user_key)
    denied = client.post(
        "/notification-integrations",
        data={
            "kind": "CHAT_ALERT",
            "name": "x",
            "channel": "C0123456780",
            "csrf_token": user_token,
        },
    )
    assert denied.status_code == 403
    listed = client.get("/api/v1/notification-integrations", headers=admin_org.headers).json()
    assert [i["name"] for i in listed["notification_integrations"]] == ["oncall"]


def test_budget_form_is_admin_only_and_sets_and_removes_a_budget(client, factory):
    admin_org = factory.org("hooli", admin_key=True)
    token = sign_in(client, admin_org.key)
    saved = client.post(
        "/settings/budgets",
        data={"team": "Default", "credits": "250", "csrf_token": token},
        follow_redirects=False,
    )
    assert saved.status_code == 303, saved.text
    assert factory.run(lambda s: _budget(s, admin_org.default_team_id)) == 250.0
    assert "<td>Default</td>" in client.get("/settings").text
    refused = client.post(
        "/settings/budgets", data={"team": "Default", "credits": "-1", "csrf_token": token}
    )
    assert refused.status_code == 400
    assert "Invalid budget: -1.0 (a number of credits from 0 to 1e12)" in refused.text
    unknown = client.post(
        "/settings/budgets", data={"team": "Nope", "credits": "5", "csrf_token": token}
    )
    assert unknown.status_code == 400 and 'id="budget-error"' in unknown.text
    no_csrf = {"team": "Default", "credits": "1"}
    assert client.post("/settings/budgets", data=no_csrf).status_code == 403
    removed = client.post(
        "/settings/budgets",
        data={"team": "Default", "credits": "", "csrf_token": token},
        follow_redirects=False,
    )
    assert removed.status_code == 303
    assert factory.run(lambda s: _budget(s, admin_org.default_team_id)) is None
    user_key = factory.run(lambda s: _user_key(s, admin_org.name))
    client.cookies.clear()
    user_token = sign_in(client, user_key)
    assert 'action="/settings/budgets"' not in client.get("/settings").text
    denied = client.post(
        "/settings/budgets", data={"team": "Default", "credits": "5", "csrf_token": user_token}
    )
    assert denied.status_code == 403
    assert factory.run(lambda s: _budget(s, admin_org.default_team_id)) is None


async def _budget(session, team_id):
    row = await session.get(TeamBudget, team_id)
    return None if row is None else row.credits


def test_data_source_form_adds_refuses_with_the_apis_text_and_tests_the_connection(client, factory):
    admin_org = factory.org("stark", admin_key=True)
    token = sign_in(client, admin_org.key)
    form = {
        "name": "prom",
        "url": "http://127.0.0.1:9",  # the discard port: nothing answers there
        "service_label": "job",
        "headers": "Authorization: Bearer s3cret",
        "csrf_token": token,
    }
    added = client.post("/data-sources", data=form, follow_redirects=False)
    assert added.status_code == 303, added.text
    listed = client.get("/api/v1/data-sources", headers=admin_org.headers).json()
    (source,) = listed["data_sources"]
    assert source["header_names"] == ["Authorization"] and source["service_label"] == "job"
    page = client.get("/data-sources").text
    assert "s3cret" not in page and "Authorization" in page
    for changes, api_body in [
        ({"url": "not a url"}, {"name": "x", "kind": "prometheus", "url": "not a url"}),
        ({}, {"name": "prom", "kind": "prometheus", "url": "http://127.0.0.1:9"}),
        (
            {"service_label": "9bad"},
            {"name": "y", "kind": "prometheus", "url": "http://a", "service_label": "9bad"},
        ),
    ]:
        refused = client.post("/data-sources", data={**form, **changes, "headers": ""})
        api = client.post("/api/v1/data-sources", json=api_body, headers=admin_org.headers)
        assert refused.status_code == 400 and api.status_code in (400, 409), changes
        assert api.json()["detail"] in html.unescape(refused.text), changes
    checked = client.post(f"/data-sources/{source['id']}/test", data={"csrf_token": token})
    api_check = client.post(
        f"/api/v1/data-sources/{source['id']}/test", headers=admin_org.headers
    ).json()
    assert checked.status_code == 200 and api_check["ok"] is False
    assert "prom: not connected" in html.unescape(checked.text)
    assert client.post(f"/data-sources/{source['id']}/test", data={}).status_code == 403
    user_key = factory.run(lambda s: _user_key(s, admin_org.name))
    client.cookies.clear()
    user_token = sign_in(client, user_key)
    assert "Test connection" not in client.get("/data-sources").text
    denied = client.post(f"/data-sources/{source['id']}/test", data={"csrf_token": user_token})
    assert denied.status_code == 403
    denied_add = client.post("/data-sources", data={**form, "name": "z", "csrf_token": user_token})
    assert denied_add.status_code == 403


def test_agent_and_digest_forms_delete_as_the_api_does(client, factory, org):
    token = sign_in(client, org.key)
    hook = factory.run(lambda s: admin.add_webhook(s, org.name, "PROVIDER_A", "Pager"))
    created = client.post(
        "/alert-responders/new", data={**_form(hook), "csrf_token": token}, follow_redirects=False
    )
    assert created.status_code == 303, created.text
    agent_url = created.headers["location"]
    assert "Delete this agent" in client.get(f"{agent_url}/edit").text
    assert client.post(f"{agent_url}/delete", data={}).status_code == 403  # no CSRF token
    assert len(factory.run(lambda s: _agents(s, org))) == 1
    deleted = client.post(f"{agent_url}/delete", data={"csrf_token": token}, follow_redirects=False)
    assert deleted.status_code == 303 and deleted.headers["location"].endswith("=deleted")
    assert factory.run(lambda s: _agents(s, org)) == []
    assert client.get(agent_url, headers=org.headers).status_code == 404
    # An ID that names nothing is already deleted, as in the API.
    again = client.post(f"{agent_url}/delete", data={"csrf_token": token}, follow_redirects=False)
    assert again.status_code == 303
    made = client.post(
        "/digests/new", data={**_digest_form(), "csrf_token": token}, follow_redirects=False
    )
    digest_url = made.headers["location"]
    assert "Delete this digest" in client.get(f"{digest_url}/edit").text
    assert client.post(f"{digest_url}/delete", data={}).status_code == 403
    gone = client.post(f"{digest_url}/delete", data={"csrf_token": token}, follow_redirects=False)
    assert gone.status_code == 303 and factory.run(lambda s: _digests(s, org)) == []
    assert "Digest deleted." in client.get("/digests?notice=deleted").text


def test_webhook_subscription_edit_and_delete_are_admin_only_with_the_operations_checks(
    client, factory
):
    admin_org = factory.org("globex", admin_key=True)
    token = sign_in(client, admin_org.key)
    hook = factory.run(lambda s: admin.add_webhook(s, admin_org.name, "GITHUB", "Repo"))
    url = f"/webhook-subscriptions/{hook.remote_id}"
    assert f'href="{url}/edit"' in client.get("/webhook-subscriptions").text
    edit = client.get(f"{url}/edit")
    assert edit.status_code == 200 and hook.remote_id in edit.text and hook.secret not in edit.text
    saved = client.post(
        f"{url}/edit",
        data={
            "name": "Monorepo",
            "service": "checkout",
            "provider_secret": "",
            "csrf_token": token,
        },
        follow_redirects=False,
    )
    assert saved.status_code == 303, saved.text
    (row,) = factory.run(lambda s: _webhooks(s, admin_org))
    assert (row.name, row.service, row.provider_secret) == ("Monorepo", "checkout", None)
    assert row.secret == hook.secret and row.remote_id == hook.remote_id  # the URL stays
    secret = client.post(
        f"{url}/edit",
        data={
            "name": "Monorepo",
            "service": "",
            "provider_secret": "gh-s3cret",
            "csrf_token": token,
        },
        follow_redirects=False,
    )
    assert secret.status_code == 303
    (row,) = factory.run(lambda s: _webhooks(s, admin_org))
    assert (row.service, row.provider_secret) == (None, "gh-s3cret")
    for changes, message in [
        ({"name": " "}, "Webhook name must not be empty"),
        ({"service": "x" * 201}, "Service must be 1-200 printable characters"),
        ({"provider_secret": " padded "}, "Provider secret must not be empty or start or end"),
    ]:
        form = {"name": "Monorepo", "service": "", "provider_secret": "", **changes}
        refused = client.post(f"{url}/edit", data={**form, "csrf_token": token})
        assert refused.status_code == 400 and message in html.unescape(refused.text), changes
    assert client.post(f"{url}/edit", data={"name": "x"}).status_code == 403
    assert client.get("/webhook-subscriptions/wh_nope/edit").status_code == 404
    # An alert source cannot be deleted while an agent listens to it (the CLI's refusal).
    pager = factory.run(lambda s: admin.add_webhook(s, admin_org.name, "PROVIDER_A", "Pager"))
    agent = client.post(
        "/alert-responders/new", data={**_form(pager), "csrf_token": token}, follow_redirects=False
    )
    assert agent.status_code == 303, agent.text
    refused = client.post(
        f"/webhook-subscriptions/{pager.remote_id}/delete", data={"csrf_token": token}
    )
    assert refused.status_code == 400
    assert "is a source of alert agents: Checkout latency" in html.unescape(refused.text)
    user_key = factory.run(lambda s: _user_key(s, admin_org.name))
    client.cookies.clear()
    user_token = sign_in(client, user_key)
    assert f'href="{url}/edit"' not in client.get("/webhook-subscriptions").text
    assert client.get(f"{url}/edit").status_code == 403
    denied = client.post(f"{url}/delete", data={"csrf_token": user_token})
    assert denied.status_code == 403 and len(factory.run(lambda s: _webhooks(s, admin_org))) == 2
    client.cookies.clear()
    token = sign_in(client, admin_org.key)
    deleted = client.post(f"{url}/delete", data={"csrf_token": token}, follow_redirects=False)
    assert deleted.status_code == 303
    assert [r.remote_id for r in factory.run(lambda s: _webhooks(s, admin_org))] == [
        pager.remote_id
    ]


def test_integration_edit_and_delete_are_admin_only_and_agents_stop_notifying_it(client, factory):
    admin_org = factory.org("soylent", admin_key=True)
    token = sign_in(client, admin_org.key)
    chat = factory.run(
        lambda s: admin.add_integration(s, admin_org.name, "CHAT_ALERT", "oncall", channel="C01")
    )
    gid = encode_global_id("NotificationIntegration", chat.id)
    assert (
        f'href="/notification-integrations/{gid}/edit"'
        in client.get("/notification-integrations").text
    )
    saved = client.post(
        f"/notification-integrations/{gid}/edit",
        data={"name": "sre", "channel": "C0999", "csrf_token": token},
        follow_redirects=False,
    )
    assert saved.status_code == 303, saved.text
    listed = client.get("/api/v1/notification-integrations", headers=admin_org.headers).json()
    (item,) = listed["notification_integrations"]
    assert item["name"] == "sre" and item["kind"] == "CHAT_ALERT"
    assert "<code>C0999</code>" in client.get("/notification-integrations").text
    refused = client.post(
        f"/notification-integrations/{gid}/edit",
        data={"name": "sre", "channel": "nope", "csrf_token": token},
    )
    assert refused.status_code == 400
    assert "CHAT_ALERT needs --channel with a channel ID starting with C or G" in refused.text
    assert client.post(f"/notification-integrations/{gid}/edit", data={}).status_code == 403
    bad = encode_global_id("NotificationIntegration", chat.id + 1000)
    assert client.get(f"/notification-integrations/{bad}/edit").status_code == 404
    hook = factory.run(lambda s: admin.add_webhook(s, admin_org.name, "PROVIDER_A", "Pager"))
    agent = client.post(
        "/alert-responders/new",
        data={**_form(hook), "integrations": gid, "csrf_token": token},
        follow_redirects=False,
    )
    assert agent.status_code == 303, agent.text
    assert factory.run(lambda s: _agents(s, admin_org))[0].notification_integration_ids == [chat.id]
    user_key = factory.run(lambda s: _user_key(s, admin_org.name))
    client.cookies.clear()
    user_token = sign_in(client, user_key)
    assert client.get(f"/notification-integrations/{gid}/edit").status_code == 403
    denied = client.post(
        f"/notification-integrations/{gid}/delete", data={"csrf_token": user_token}
    )
    assert denied.status_code == 403
    client.cookies.clear()
    token = sign_in(client, admin_org.key)
    deleted = client.post(
        f"/notification-integrations/{gid}/delete",
        data={"csrf_token": token},
        follow_redirects=False,
    )
    assert deleted.status_code == 303
    listed = client.get("/api/v1/notification-integrations", headers=admin_org.headers).json()
    assert listed["notification_integrations"] == []
    assert factory.run(lambda s: _agents(s, admin_org))[0].notification_integration_ids is None


def test_data_source_edit_and_delete_as_the_api_does(client, factory):
    admin_org = factory.org("tyrell", admin_key=True)
    token = sign_in(client, admin_org.key)
    body = {"name": "prom", "kind": "prometheus", "url": "http://127.0.0.1:9"}
    body["headers"] = {"Authorization": "Bearer s3cret"}
    source = client.post("/api/v1/data-sources", json=body, headers=admin_org.headers).json()
    other = client.post(
        "/api/v1/data-sources",
        json={"name": "vm", "kind": "prometheus", "url": "http://127.0.0.1:8"},
        headers=admin_org.headers,
    ).json()
    url = f"/data-sources/{source['id']}"
    assert f'href="{url}/edit"' in client.get("/data-sources").text
    edit = client.get(f"{url}/edit")
    assert edit.status_code == 200 and "Authorization" in edit.text and "s3cret" not in edit.text
    form = {"name": "prom-eu", "url": "http://127.0.0.1:19", "service_label": "app", "headers": ""}
    saved = client.post(f"{url}/edit", data={**form, "csrf_token": token}, follow_redirects=False)
    assert saved.status_code == 303, saved.text
    item = client.get(f"/api/v1{url}", headers=admin_org.headers).json()
    assert (item["name"], item["url"], item["service_label"]) == (
        "prom-eu",
        "http://127.0.0.1:19",
        "app",
    )
    assert item["header_names"] == ["Authorization"]  # empty lines keep the headers
    cleared = client.post(
        f"{url}/edit",
        data={**form, "service_label": "", "clear_headers": "1", "csrf_token": token},
        follow_redirects=False,
    )
    assert cleared.status_code == 303
    item = client.get(f"/api/v1{url}", headers=admin_org.headers).json()
    assert item["header_names"] == [] and item["service_label"] == "service"
    for changes, api_changes in [
        ({"url": "ftp://x"}, {"url": "ftp://x"}),
        ({"name": "vm"}, {"name": "vm"}),
        ({"service_label": "9bad"}, {"service_label": "9bad"}),
    ]:
        refused = client.post(f"{url}/edit", data={**form, **changes, "csrf_token": token})
        api = client.put(f"/api/v1{url}", json=api_changes, headers=admin_org.headers)
        assert refused.status_code == 400 and api.status_code in (400, 409), changes
        assert api.json()["detail"] in html.unescape(refused.text), changes
    bad_header = client.post(f"{url}/edit", data={**form, "headers": "x", "csrf_token": token})
    assert bad_header.status_code == 400 and "Not a header line" in bad_header.text
    assert client.post(f"{url}/edit", data=form).status_code == 403
    user_key = factory.run(lambda s: _user_key(s, admin_org.name))
    client.cookies.clear()
    user_token = sign_in(client, user_key)
    assert client.get(f"{url}/edit").status_code == 403
    assert client.post(f"{url}/delete", data={"csrf_token": user_token}).status_code == 403
    client.cookies.clear()
    token = sign_in(client, admin_org.key)
    deleted = client.post(f"{url}/delete", data={"csrf_token": token}, follow_redirects=False)
    assert deleted.status_code == 303
    listed = client.get("/api/v1/data-sources", headers=admin_org.headers).json()["data_sources"]
    assert [s["id"] for s in listed] == [other["id"]]
    assert client.get(f"{url}/edit").status_code == 404


def test_knowledge_form_adds_with_the_apis_text_and_deletes(client, factory, org):
    token = sign_in(client, org.key)
    assert 'href="/knowledge/new"' in client.get("/knowledge").text
    form = {"title": "Checkout runbook", "content": "# Steps\n\nRoll back.", "url": ""}
    added = client.post(
        "/knowledge/new", data={**form, "csrf_token": token}, follow_redirects=False
    )
    assert added.status_code == 303, added.text
    doc_url = added.headers["location"]
    shown = client.get(doc_url).text
    assert "<h1>Steps</h1>" in shown and "Delete this document" in shown
    listed = client.get("/api/v1/knowledge/documents", headers=org.headers).json()["documents"]
    assert [d["title"] for d in listed] == ["Checkout runbook"]
    for changes, api_body in [
        ({"title": " "}, {"title": " ", "content": "x"}),
        ({"content": ""}, {"title": "t", "content": ""}),
        ({"url": "ftp://x"}, {"title": "t", "content": "x", "url": "ftp://x"}),
    ]:
        refused = client.post("/knowledge/new", data={**form, **changes, "csrf_token": token})
        api = client.post("/api/v1/knowledge/documents", json=api_body, headers=org.headers)
        assert refused.status_code == api.status_code == 400, changes
        assert api.json()["detail"] in html.unescape(refused.text), changes
    assert client.post("/knowledge/new", data=form).status_code == 403
    assert client.post(f"{doc_url}/delete", data={}).status_code == 403
    deleted = client.post(f"{doc_url}/delete", data={"csrf_token": token}, follow_redirects=False)
    assert deleted.status_code == 303
    assert client.get("/api/v1/knowledge/documents", headers=org.headers).json()["documents"] == []
    assert client.get(doc_url).status_code == 404
