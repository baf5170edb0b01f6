"""The alert log (DESIGN 7) in process: every delivery stored with one decision per subscribed
agent, the list and detail API, grouping, caps, on-request investigation, explain and dry run."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select
from test_webhook_intake import TRIGGERED, make_agent, url

from sleuth_core.ids import decode_global_id
from sleuth_core.intake import sign_generic
from sleuth_shell.alerts.service import list_alerts
from sleuth_shell.db.models import AgentSet, AgentSetMember, Alert, AlertDecision, Investigation
from sleuth_shell.db.paging import PageRequest
from sleuth_shell.investigations.queries import load_investigation


@pytest.fixture
def hook(factory, org):
    return factory.webhook(org, "PROVIDER_A", "pager")


RESOLVED = TRIGGERED.replace(b"incident.triggered", b"incident.resolved")


def incident(n: int, *, title: str = "Checkout latency high", service: str = "checkout") -> bytes:
    """A PagerDuty ``incident.triggered`` of incident ``INC-n`` with that title and service."""
    payload = json.loads(TRIGGERED)
    payload["event"]["id"] = f"event-{n}"
    payload["event"]["data"]["id"] = f"INC-{n}"
    payload["event"]["data"]["title"] = title
    payload["event"]["data"]["service"]["summary"] = service
    return json.dumps(payload).encode()


def deliver(client, hook, body: bytes) -> list[str]:
    headers = {"X-Service-Webhook-Signature": sign_generic(body, hook.secret)}
    response = client.post(url(hook), content=body, headers=headers)
    assert response.status_code == 202, response.text
    return response.json()["investigation_ids"]


def alerts(client, org, **params) -> dict:
    response = client.get("/api/v1/alerts", params=params, headers=org.headers)
    assert response.status_code == 200, response.text
    return response.json()


def decisions_of(alert: dict) -> dict[str, tuple[str, str | None]]:
    return {
        d["alert_responder_id"]: (d["decision"], d["investigation_id"]) for d in alert["decisions"]
    }


@pytest.mark.storage
def test_every_delivery_is_stored_with_one_decision_per_subscribed_agent(
    client, factory, org, hook
):
    every = make_agent(client, org, hook, "every")
    db = make_agent(client, org, hook, "db", ["postgres"])
    paused = make_agent(client, org, hook, "paused")
    assert client.post(f"/api/v1/alert-responders/{paused}/disable", headers=org.headers).is_success
    other_hook = factory.webhook(org, "PROVIDER_A", "other")
    make_agent(client, org, other_hook, "elsewhere")

    started = deliver(client, hook, incident(1))
    deliver(client, hook, RESOLVED)

    listed = alerts(client, org)
    assert listed["next_cursor"] is None
    assert [a["title"] for a in listed["alerts"]] == ["Test Incident 3", "Checkout latency high"]
    resolved, first = listed["alerts"]
    assert first["service"] == "checkout" and first["dedup_key"] == "PROVIDER_A:INC-1"
    assert first["group_key"] == "checkout/Checkout latency high"
    assert first["source"] == {"type": "PROVIDER_A", "remote_id": hook.remote_id}
    assert json.loads(first["payload"])["event"]["id"] == "event-1"
    assert decisions_of(first) == {
        every: ("matched", started[0]),
        db: ("not_matched", None),
        paused: ("paused", None),
    }
    assert {d["decision"] for d in resolved["decisions"]} == {"lifecycle"}
    assert all(d["reason"] for d in first["decisions"])

    one = client.get(f"/api/v1/alerts/{first['id']}", headers=org.headers)
    assert one.status_code == 200 and one.json() == first
    assert alerts(client, org, decision="paused")["alerts"] == [first]
    assert alerts(client, org, alert_responder_id=db, decision="matched")["alerts"] == []
    assert [a["id"] for a in alerts(client, org, alert_responder_id=every)["alerts"]] == [
        resolved["id"],
        first["id"],
    ]
    page = alerts(client, org, limit=1)
    assert page["alerts"] == [resolved] and page["next_cursor"]
    assert alerts(client, org, limit=1, cursor=page["next_cursor"])["alerts"] == [first]

    bad = client.get("/api/v1/alerts", params={"decision": "maybe"}, headers=org.headers)
    assert bad.status_code == 400 and bad.json()["detail"].startswith("Invalid decision: maybe")
    for params in ({"limit": "0"}, {"limit": "101"}, {"cursor": "x"}):
        assert client.get("/api/v1/alerts", params=params, headers=org.headers).status_code == 400
    missing = client.get("/api/v1/alerts/QWxlcnQ6OTk5OQ", headers=org.headers)
    assert missing.status_code == 404


def test_other_organizations_see_none_of_the_alerts(client, factory, org, hook):
    make_agent(client, org, hook, "every")
    deliver(client, hook, incident(1))
    stranger = factory.org("stranger")
    assert alerts(client, stranger)["alerts"] == []
    gid = alerts(client, org)["alerts"][0]["id"]
    assert client.get(f"/api/v1/alerts/{gid}", headers=stranger.headers).status_code == 404


def test_related_alerts_join_the_groups_investigation(client, factory, org, hook):
    agent = make_agent(client, org, hook, "every")
    first = deliver(client, hook, incident(1))
    second = deliver(client, hook, incident(2))  # another incident, same service and title
    third = deliver(client, hook, incident(3, title="Disk full"))
    assert second == first and third != first
    assert factory.run(lambda s: s.scalar(select(func.count()).select_from(Investigation))) == 2
    grouped = alerts(client, org, decision="grouped")["alerts"]
    assert [decisions_of(a)[agent] for a in grouped] == [("grouped", first[0])]

    covered = client.get(f"/api/v1/investigations/{first[0]}/alerts", headers=org.headers)
    assert covered.status_code == 200
    assert [a["dedup_key"] for a in covered.json()["alerts"]] == [
        "PROVIDER_A:INC-1",
        "PROVIDER_A:INC-2",
    ]
    shown = client.get(f"/investigations/{first[0]}", headers=org.headers).text
    assert "Alerts covered" in shown and shown.count('href="/alerts/') == 2

    # A window of 0 turns grouping off.
    updated = client.put(
        f"/api/v1/alert-responders/{agent}", json={"group_window_seconds": 0}, headers=org.headers
    )
    assert updated.status_code == 200
    assert deliver(client, hook, incident(4)) not in ([], first)


def test_caps_bound_the_runs_of_an_agent(client, factory, org, hook):
    agent = make_agent(client, org, hook, "every", max_runs_per_hour=2, group_window_seconds=0)
    answers = [deliver(client, hook, incident(n, title=f"alert {n}")) for n in range(4)]
    assert [len(a) for a in answers] == [1, 1, 0, 0]
    capped = alerts(client, org, decision="capped")["alerts"]
    assert len(capped) == 2
    assert all("max_runs_per_hour (2)" in a["decisions"][0]["reason"] for a in capped)
    record = client.get(f"/api/v1/alert-responders/{agent}", headers=org.headers).json()
    assert record["max_runs_per_hour"] == 2 and record["group_window_seconds"] == 0
    assert "max_runs_per_day" not in record and "investigate" not in record


def test_on_request_agents_record_and_investigate_when_asked(client, factory, org, hook):
    agent = make_agent(client, org, hook, "every", investigate="on_request")
    assert deliver(client, hook, incident(1)) == []
    (alert,) = alerts(client, org, decision="recorded")["alerts"]
    started = client.post(f"/api/v1/alerts/{alert['id']}/investigate", headers=org.headers)
    assert started.status_code == 200, started.text
    (investigation,) = started.json()["investigation_ids"]
    after = client.get(f"/api/v1/alerts/{alert['id']}", headers=org.headers).json()
    assert decisions_of(after) == {agent: ("matched", investigation)}
    again = client.post(
        f"/api/v1/alerts/{alert['id']}/investigate",
        json={"alert_responder_id": agent},
        headers=org.headers,
    )
    assert again.json()["investigation_ids"] == [investigation]  # the same incident: reused
    unknown = client.post(
        f"/api/v1/alerts/{alert['id']}/investigate",
        json={"alert_responder_id": "QWxlcnRSZXNwb25kZXI6OTk5"},
        headers=org.headers,
    )
    assert unknown.status_code == 404


def test_agent_bounds_are_validated(client, org, hook):
    for field, value in (
        ("max_runs_per_hour", 0),
        ("max_runs_per_day", -1),
        ("max_runs_per_hour", True),
        ("group_window_seconds", 10**9),
        ("investigate", "sometimes"),
    ):
        body = {
            "team_name": "Default",
            "name": f"bad {field}",
            "webhook_sources": [{"type": hook.type, "remote_id": hook.remote_id}],
            "matching_criteria": {"text_matches": ["*"]},
            field: value,
        }
        response = client.post("/api/v1/alert-responders/", json=body, headers=org.headers)
        assert response.status_code == 400, (field, value)
        assert field in response.json()["detail"]


def test_explain_traces_text_payloads_and_stored_alerts(client, org, hook):
    rules = {
        "operator": "AND",
        "conditions": [
            {"type": "contains", "value": "latency"},
            {"operator": "OR", "conditions": [{"type": "regex", "value": "INC-\\d+"}]},
        ],
    }
    agent = make_agent(client, org, hook, "explained")
    client.put(
        f"/api/v1/alert-responders/{agent}",
        json={"matching_criteria": {"match_rules": rules}},
        headers=org.headers,
    )

    def explain(body):
        return client.post(
            f"/api/v1/alert-responders/{agent}/explain", json=body, headers=org.headers
        )

    answer = explain({"text": "Latency of INC-7"}).json()
    assert answer["matched"] is True and answer["text"] == "Latency of INC-7"
    assert answer["trace"]["conditions"][0]["span"] == [0, 7]
    assert answer["trace"]["conditions"][1]["conditions"][0]["span"] == [11, 16]
    assert explain({"text": "all quiet"}).json()["trace"]["conditions"][0]["span"] is None

    from_payload = explain({"event_payload": json.loads(incident(5))}).json()
    assert from_payload["matched"] is True and "INC-5" in from_payload["text"]
    deliver(client, hook, incident(6))
    stored = alerts(client, org)["alerts"][0]
    from_alert = explain({"alert_id": stored["id"]}).json()
    assert from_alert["matched"] is True and "INC-6" in from_alert["text"]

    assert explain({}).status_code == 400
    assert explain({"text": "a", "alert_id": stored["id"]}).status_code == 400
    assert explain({"alert_id": "QWxlcnQ6OTk5OQ"}).status_code == 404


def test_dry_run_counts_what_criteria_would_have_matched(client, org, hook, factory):
    make_agent(client, org, hook, "every", group_window_seconds=0)
    for n in range(5):
        deliver(client, hook, incident(n, title="Disk full" if n % 2 else "Checkout latency high"))
    response = client.post(
        "/api/v1/alert-responders/dry-run",
        json={"matching_criteria": {"text_matches": ["*disk*"]}, "limit": 4},
        headers=org.headers,
    )
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["examined"] == 4 and answer["matched"] == 2
    assert [e["title"] for e in answer["examples"]] == ["Disk full", "Disk full"]
    assert answer["examples"][0]["trace"]["matched"] is True
    other = client.post(
        "/api/v1/alert-responders/dry-run",
        json={
            "matching_criteria": {"text_matches": ["*"]},
            "webhook_sources": [{"type": "PROVIDER_B", "remote_id": "nothing"}],
        },
        headers=org.headers,
    )
    assert other.json() == {"examined": 0, "matched": 0, "examples": []}
    for body in (
        {"matching_criteria": {"text_matches": ["*"]}, "limit": 10_001},
        {"matching_criteria": {}},
        {"matching_criteria": {"match_rules": {"operator": "XOR", "conditions": []}}},
    ):
        bad = client.post("/api/v1/alert-responders/dry-run", json=body, headers=org.headers)
        assert bad.status_code == 400, body


def test_decisions_are_written_with_the_alert_in_one_transaction(client, factory, org, hook):
    a = make_agent(client, org, hook, "a")
    b = make_agent(client, org, hook, "b", ["nothing-matches-this"])
    deliver(client, hook, incident(1))

    async def read(session):
        alerts_ = (
            await session.execute(
                select(Alert.id, Alert.title, Alert.quiet_set_id, Alert.quiet_except)
            )
        ).all()
        members = (
            await session.execute(
                select(AgentSetMember.set_id, AgentSetMember.agent_id).order_by(
                    AgentSetMember.agent_id
                )
            )
        ).all()
        decided = (
            await session.execute(select(AlertDecision.alert_responder_id, AlertDecision.decision))
        ).all()
        return alerts_, members, decided

    stored, members, decided = factory.run(read)
    a_pk, b_pk = decode_global_id(a, "AlertResponder"), decode_global_id(b, "AlertResponder")
    # the matched agent's decision is a row; the one that did not match is quiet: the alert names
    # the set of subscribed agents (stored once) and the matched one as its exception
    [(_pk, title, set_id, loud)] = stored
    assert (title, loud) == ("Checkout latency high", f",{a_pk},")
    assert members == [(set_id, a_pk), (set_id, b_pk)]
    assert decided == [(a_pk, "matched")]
    assert decode_global_id(alerts(client, org)["alerts"][0]["id"], "Alert") == stored[0][0]
    assert alerts(client, org, alert_responder_id=b, decision="not_matched")["alerts"]
    assert not alerts(client, org, alert_responder_id=a, decision="not_matched")["alerts"]


def test_an_alertmanager_group_is_one_investigation(client, factory, org):
    from test_alert_sources import TWO

    hook = factory.webhook(org, "ALERTMANAGER", "prometheus")
    agent = make_agent(client, org, hook, "all")
    response = client.post(
        url(hook), content=TWO, headers={"Authorization": f"Bearer {hook.secret}"}
    )
    assert response.status_code == 202, response.text
    first, second = response.json()["alerts"]
    assert first["investigation_ids"] == second["investigation_ids"] and first["investigation_ids"]
    listed = alerts(client, org)["alerts"]
    assert sorted(decisions_of(a)[agent][0] for a in listed) == ["grouped", "matched"]
    assert {a["group_key"] for a in listed} == {"{}/{}:{}"}
    covered = client.get(
        f"/api/v1/investigations/{first['investigation_ids'][0]}/alerts", headers=org.headers
    ).json()["alerts"]
    assert len(covered) == 2


def test_suppressions_hold_matching_alerts_until_they_expire(client, factory, org, hook):
    agent = make_agent(client, org, hook, "every", group_window_seconds=0)
    other = make_agent(client, org, hook, "other", group_window_seconds=0)
    created = client.post(
        "/api/v1/suppressions",
        json={
            "matching_criteria": {"text_matches": ["*maintenance*"]},
            "expires_at": "2999-01-01T00:00:00Z",
            "reason": "planned maintenance",
            "alert_responder_id": agent,
        },
        headers=org.headers,
    )
    assert created.status_code == 200, created.text
    suppression = created.json()
    assert suppression["alert_responder_id"] == agent
    assert suppression["matching_criteria"]["text_matches"] == ["*maintenance*"]
    listed = client.get("/api/v1/suppressions", headers=org.headers).json()["suppressions"]
    assert [s["id"] for s in listed] == [suppression["id"]]

    assert len(deliver(client, hook, incident(1, title="DB maintenance window"))) == 1
    (alert,) = alerts(client, org, decision="suppressed")["alerts"]
    decided = decisions_of(alert)
    assert decided[agent] == ("suppressed", None) and decided[other][0] == "matched"
    assert "planned maintenance" in next(
        d["reason"] for d in alert["decisions"] if d["decision"] == "suppressed"
    )
    assert len(deliver(client, hook, incident(2, title="Disk full"))) == 2  # not suppressed

    gone = client.delete(f"/api/v1/suppressions/{suppression['id']}", headers=org.headers)
    assert gone.status_code == 200 and gone.json() == {"success": True}
    assert client.get("/api/v1/suppressions", headers=org.headers).json()["suppressions"] == []
    assert len(deliver(client, hook, incident(3, title="DB maintenance window"))) == 2

    for body, detail in (
        ({"expires_at": 1}, "expires_at must be in the future"),
        ({"expires_at": "soon"}, "expires_at must be an ISO 8601 time or Unix seconds"),
        ({"matching_criteria": {}}, "matching_criteria needs text_matches or match_rules"),
        ({"reason": ""}, "reason"),
    ):
        payload = {
            "matching_criteria": {"text_matches": ["x"]},
            "expires_at": 4102444800,
            "reason": "r",
            **body,
        }
        bad = client.post("/api/v1/suppressions", json=payload, headers=org.headers)
        assert bad.status_code == 400, body
        assert detail in bad.json()["detail"]
    missing_agent = client.post(
        "/api/v1/suppressions",
        json={
            "matching_criteria": {"text_matches": ["x"]},
            "expires_at": 4102444800,
            "reason": "r",
            "alert_responder_id": "QWxlcnRSZXNwb25kZXI6OTk5",
        },
        headers=org.headers,
    )
    assert missing_agent.status_code == 404


def test_the_retention_job_prunes_old_alerts_and_delivery_records(client, factory, org, hook):
    import asyncio
    from datetime import timedelta

    from sqlalchemy import update

    from sleuth_shell.alerts.jobs import PRUNE_KIND, ensure_prune_job
    from sleuth_shell.config import Settings
    from sleuth_shell.db import create_engine, create_session_factory
    from sleuth_shell.db.models import ChatDelivery, Job, WebhookDelivery, utcnow
    from sleuth_shell.jobs import Worker
    from sleuth_shell.runtime import job_registry
    from sleuth_shell.services import build_services

    make_agent(client, org, hook, "every", group_window_seconds=0)
    for n in range(3):
        deliver(client, hook, incident(n, title=f"alert {n}"))
    old = utcnow() - timedelta(days=31)

    async def age(session):
        for model, column in (
            (Alert, Alert.received_at),
            (WebhookDelivery, WebhookDelivery.received_at),
        ):
            await session.execute(update(model).where(model.id <= 2).values({column.key: old}))
        session.add(
            ChatDelivery(
                org_id=org.id,
                subscription_id=hook.id,
                event_id="Ev-old",
                kind="ignored",
                created_at=old,
            )
        )
        await session.commit()

    factory.run(age)
    settings = Settings.from_env({"SLEUTH_DATABASE_URL": client.app.state.settings.database_url})

    async def run() -> tuple[bool, bool]:
        engine = create_engine(settings.database_url)
        sessions = create_session_factory(engine)
        services = build_services(settings, sessions)
        try:
            first = await ensure_prune_job(sessions)  # the app's start scheduled it already
            second = await ensure_prune_job(sessions)
            await Worker(services, job_registry(), poll_interval=0.05).run_until_idle()
            return first, second
        finally:
            await services.aclose()
            await engine.dispose()

    assert asyncio.run(run()) == (False, False)
    left = alerts(client, org)["alerts"]
    assert [a["title"] for a in left] == ["alert 2"]

    async def counts(session):
        return (
            await session.scalar(select(func.count()).select_from(AlertDecision)),
            await session.scalar(select(func.count()).select_from(WebhookDelivery)),
            await session.scalar(select(func.count()).select_from(ChatDelivery)),
            await session.scalar(
                select(func.count())
                .select_from(Job)
                .where(Job.kind == PRUNE_KIND, Job.status == "pending")
            ),
        )

    assert factory.run(counts) == (1, 1, 0, 1)  # and the next run is scheduled


def test_the_alert_pages_show_decisions_traces_and_investigate(client, factory, org, hook):
    agent = make_agent(client, org, hook, "latency", ["*latency*"], investigate="on_request")
    make_agent(client, org, hook, "disks", ["*disk*"])
    deliver(client, hook, incident(1))
    (alert,) = alerts(client, org)["alerts"]

    listed = client.get("/alerts", headers=org.headers)
    assert listed.status_code == 200
    assert f'href="/alerts/{alert["id"]}"' in listed.text
    assert "latency: recorded" in listed.text and "disks: not_matched" in listed.text
    only = client.get("/alerts", params={"decision": "matched"}, headers=org.headers)
    assert f'href="/alerts/{alert["id"]}"' not in only.text
    assert client.get("/alerts", params={"decision": "x"}, headers=org.headers).status_code == 400

    shown = client.get(f"/alerts/{alert['id']}", headers=org.headers)
    assert shown.status_code == 200
    assert "<mark>latency</mark>" in shown.text  # the matched span, highlighted
    assert "the agent investigates on request" in shown.text
    assert 'action="/alerts/' in shown.text and ">Investigate</button>" in shown.text

    pressed = client.post(
        f"/alerts/{alert['id']}/investigate", headers=org.headers, follow_redirects=False
    )
    assert pressed.status_code == 303
    after = decisions_of(client.get(f"/api/v1/alerts/{alert['id']}", headers=org.headers).json())
    assert after[agent][0] == "matched"
    assert [d for d, _ in after.values()].count("not_matched") == 1  # "disks" did not run
    assert client.get("/alerts/QWxlcnQ6OTk5OQ", headers=org.headers).status_code == 404
    stranger = factory.org("stranger")
    assert client.get(f"/alerts/{alert['id']}", headers=stranger.headers).status_code == 404


@pytest.mark.storage
def test_migration_0020_downgrades_and_upgrades_again(database_url: str) -> None:
    import asyncio

    from sqlalchemy import inspect
    from test_ids_never_reused import _downgrade

    from sleuth_shell.db import create_engine
    from sleuth_shell.db.migrate import migrate

    migrate(database_url)

    async def tables() -> set[str]:
        engine = create_engine(database_url)
        try:
            async with engine.connect() as connection:
                return set(await connection.run_sync(lambda c: inspect(c).get_table_names()))
        finally:
            await engine.dispose()

    assert {"alerts", "alert_decisions", "suppressions", "team_budgets"} <= asyncio.run(tables())
    asyncio.run(_downgrade(database_url, "0019"))
    assert not {"alerts", "alert_decisions", "suppressions"} & asyncio.run(tables())
    migrate(database_url)
    assert "alerts" in asyncio.run(tables())


def test_budgets_are_listed_and_shown_in_the_web_app(client, factory, org):
    from sleuth_shell import admin

    factory.run(lambda s: admin.set_budget(s, org.name, "Default", 120))
    listed = client.get("/api/v1/billing/budgets", headers=org.headers).json()["budgets"]
    assert [(b["team_name"], b["budget"], b["used"]) for b in listed] == [("Default", 120.0, 0.0)]
    assert len(listed[0]["month"]) == 7
    page = client.get("/settings", headers=org.headers)
    assert page.status_code == 200 and "Team budgets" in page.text and ">120<" in page.text
    factory.run(lambda s: admin.set_budget(s, org.name, "Default", None))
    assert client.get("/api/v1/billing/budgets", headers=org.headers).json() == {"budgets": []}


def test_chat_messages_are_in_the_alert_log_and_bounded_alike(client, org):
    created = client.post(
        "/api/v1/alert-responders/",
        json={
            "team_name": "Default",
            "name": "chat disks",
            "chat_channel_id": "C0OPS",
            "matching_criteria": {"text_matches": ["*disk*"]},
            "max_runs_per_day": 1,
        },
        headers=org.headers,
    )
    assert created.status_code == 200, created.text
    agent = created.json()["id"]
    answers = [
        client.post(
            "/api/v1/chat/events",
            json={"channel_id": "C0OPS", "text": text, "ts": f"1719209506.00000{n}"},
            headers=org.headers,
        ).json()
        for n, text in enumerate(["disk full on db-1", "disk full on db-2", "all good"])
    ]
    assert [len(a["investigation_ids"]) for a in answers] == [1, 0, 0]
    listed = alerts(client, org)["alerts"]
    assert {a["source"]["type"] for a in listed} == {"CHAT"}
    assert [decisions_of(a)[agent][0] for a in listed] == ["not_matched", "capped", "matched"]
    dry = client.post(
        "/api/v1/alert-responders/dry-run",
        json={"matching_criteria": {"text_matches": ["*db-*"]}, "chat_channel_id": "C0OPS"},
        headers=org.headers,
    ).json()
    assert (dry["examined"], dry["matched"]) == (3, 2)


@pytest.mark.storage
def test_quiet_agents_are_read_from_the_shared_set_of_subscribers(client, factory, org, hook):
    every = make_agent(client, org, hook, "every")
    db = make_agent(client, org, hook, "db", ["postgres"])
    disks = make_agent(client, org, hook, "disks", ["*disk*"])
    deliver(client, hook, incident(1))
    deliver(client, hook, incident(2, title="Disk full"))
    later = make_agent(client, org, hook, "later", ["nothing-matches-this"])
    deliver(client, hook, RESOLVED)

    resolved, disk, latency = alerts(client, org)["alerts"]
    assert {k: d for k, (d, _) in decisions_of(latency).items()} == {
        every: "matched",
        db: "not_matched",
        disks: "not_matched",
    }
    assert {k: d for k, (d, _) in decisions_of(disk).items()} == {
        every: "matched",
        db: "not_matched",
        disks: "matched",
    }
    assert {k: d for k, (d, _) in decisions_of(resolved).items()} == dict.fromkeys(
        (every, db, disks, later), "lifecycle"
    )
    assert [d["alert_responder_id"] for d in latency["decisions"]] == sorted(
        [every, db, disks], key=lambda gid: decode_global_id(gid, "AlertResponder")
    )

    def ids(**params) -> list[str]:
        return [a["id"] for a in alerts(client, org, **params)["alerts"]]

    # "Why didn't agent X fire": the alerts on which it was quiet, and only those.
    assert ids(alert_responder_id=db, decision="not_matched") == [disk["id"], latency["id"]]
    assert ids(alert_responder_id=disks, decision="not_matched") == [latency["id"]]
    assert ids(alert_responder_id=every, decision="not_matched") == []
    assert ids(alert_responder_id=later, decision="not_matched") == []
    assert ids(alert_responder_id=later) == [resolved["id"]]
    assert ids(alert_responder_id=disks) == [resolved["id"], disk["id"], latency["id"]]
    assert ids(decision="not_matched") == [disk["id"], latency["id"]]
    assert ids(alert_responder_id=db, decision="lifecycle") == [resolved["id"]]

    async def stored(session):
        return (
            await session.scalar(select(func.count()).select_from(AgentSet)),
            (await session.execute(select(Alert.quiet_set_id).order_by(Alert.id))).scalars().all(),
        )

    # The two alerts with the same subscribers share one set; the later agent made a second.
    sets, referenced = factory.run(stored)
    assert sets == 2 and referenced[0] == referenced[1] != referenced[2]


@pytest.mark.storage
def test_an_agent_investigated_on_request_is_no_longer_quiet_on_the_alert(
    client, factory, org, hook
):
    """A quiet agent (``not_matched``) asked to investigate the alert decides ``matched``, once:
    it is listed with that decision only, and no longer among the alerts it was quiet on."""
    every = make_agent(client, org, hook, "every")
    db = make_agent(client, org, hook, "db", ["postgres"])
    deliver(client, hook, incident(1))
    (alert,) = alerts(client, org)["alerts"]
    assert decisions_of(alert)[db][0] == "not_matched"
    started = client.post(
        f"/api/v1/alerts/{alert['id']}/investigate",
        json={"alert_responder_id": db},
        headers=org.headers,
    )
    assert started.status_code == 200, started.text
    (investigation,) = started.json()["investigation_ids"]
    after = client.get(f"/api/v1/alerts/{alert['id']}", headers=org.headers).json()
    assert [(d["alert_responder_id"], d["decision"]) for d in after["decisions"]] == [
        (every, "matched"),
        (db, "matched"),
    ]
    assert decisions_of(after)[db] == ("matched", investigation)
    assert alerts(client, org, alert_responder_id=db, decision="not_matched")["alerts"] == []
    assert [a["id"] for a in alerts(client, org, alert_responder_id=db)["alerts"]] == [alert["id"]]


@pytest.mark.storage
def test_each_investigation_reads_the_payload_its_alert_holds_once(client, factory, org, hook):
    from sleuth_shell.alerts.service import prune_alert_log
    from sleuth_shell.db.models import utcnow

    make_agent(client, org, hook, "every")
    make_agent(client, org, hook, "latency", ["*latency*"])
    body = incident(7)
    started = deliver(client, hook, body)
    other = deliver(client, hook, incident(8, title="Disk full"))
    assert len(started) == 2 and len(other) == 1

    def payloads(gids: list[str]) -> list[str]:
        answers = [client.get(f"/api/v1/investigations/{gid}", headers=org.headers) for gid in gids]
        assert all(a.status_code == 200 for a in answers)
        return [a.json()["event_payload"] for a in answers]

    assert payloads(started) == [body.decode()] * 2
    assert payloads(other) == [incident(8, title="Disk full").decode()]
    listed = client.get("/api/v1/investigations", headers=org.headers).json()["investigations"]
    assert sorted(i["event_payload"] for i in listed) == sorted(
        [body.decode()] * 2 + [incident(8, title="Disk full").decode()]
    )

    async def rows(session):
        return (
            await session.execute(
                select(Investigation.alert_id, Investigation.event_payload).order_by(
                    Investigation.id
                )
            )
        ).all()

    first_alert = decode_global_id(alerts(client, org)["alerts"][-1]["id"], "Alert")
    # Stored once: the investigations reference the alert-log row and hold no copy.
    assert [tuple(r) for r in factory.run(rows)][:2] == [(first_alert, "")] * 2

    async def prune(session):
        await prune_alert_log(session, utcnow() + timedelta(seconds=1))
        await session.commit()

    factory.run(prune)
    assert alerts(client, org)["alerts"] == []
    # Pruned from the log, the alerts' payloads stay with the investigations that ran on them.
    assert payloads(started) == [body.decode()] * 2
    assert payloads(other) == [incident(8, title="Disk full").decode()]
    assert [r[0] for r in factory.run(rows)] == [None, None, None]


@pytest.mark.storage
def test_migration_0024_converts_payloads_and_quiet_agents(database_url: str) -> None:
    """Rows written before 0024: investigations that copied their alert's payload reference it
    (their copy cleared), one opened before the alert log keeps its own; each alert's quiet
    agents become a shared set less its exceptions, and read back the same; downgrade restores
    both."""
    import asyncio

    from sqlalchemy import text
    from test_ids_never_reused import _downgrade

    from sleuth_shell.db import create_engine, create_session_factory
    from sleuth_shell.db.migrate import migrate

    migrate(database_url, "0023")
    stamp = {"t": datetime(2026, 11, 1, tzinfo=UTC)}

    async def run(*statements: str) -> list[list[tuple[object, ...]]]:
        engine = create_engine(database_url)
        out = []
        try:
            async with engine.begin() as connection:
                for statement in statements:
                    result = await connection.execute(text(statement), stamp)
                    out.append(list(result.all()) if result.returns_rows else [])
        finally:
            await engine.dispose()
        return out

    alert_columns = (
        "INSERT INTO alerts (org_id, source_type, source_remote_id, delivery_id, kind, event_type,"
        " title, service, severity, dedup_key, group_key, match_text, payload, occurred_at,"
        " received_at, quiet_decision, quiet_agents) VALUES "
    )
    asyncio.run(
        run(
            "INSERT INTO organizations (name, plan, signing_secret, created_at) "
            "VALUES ('o', 'free', 's', :t)",
            alert_columns + "(1, 'PROVIDER_A', 'r', 'd1', 'new_alert', 'e', 'one', '', '', 'k1',"
            " 'g', 'one', 'P1', :t, :t, 'not_matched', ',11,13,14,'),"
            " (1, 'PROVIDER_A', 'r', 'd2', 'new_alert', 'e', 'two', '', '', 'k2', 'g', 'two', 'P2',"
            " :t, :t, 'not_matched', ',11,12,14,'),"
            " (1, 'PROVIDER_A', 'r', 'd3', 'lifecycle', 'e', 'three', '', '', 'k1', 'g', 'three',"
            " 'P3', :t, :t, 'lifecycle', ',11,12,13,14,'),"
            " (1, 'PROVIDER_A', 'r', 'd4', 'new_alert', 'e', 'four', '', '', 'k4', 'g', 'four',"
            " 'P4', :t, :t, 'not_matched', '')",
            "INSERT INTO investigations (org_id, name, status, prompt, event_payload, result,"
            " sources, created_at) VALUES (1, 'one', 'PENDING', 'p', 'P1', '', '[]', :t),"
            " (1, 'two', 'PENDING', 'p', 'P2', '', '[]', :t),"
            " (1, 'before the log', 'PENDING', 'p', 'OLD', '', '[]', :t),"
            " (1, 'four', 'PENDING', 'p', 'P4', '', '[]', :t)",
            "INSERT INTO alert_decisions (alert_id, org_id, alert_responder_id, decision, reason,"
            " investigation_id) VALUES (1, 1, 12, 'matched', 'r', 1),"
            " (2, 1, 13, 'matched', 'r', 2), (4, 1, 11, 'matched', 'r', 4),"
            " (4, 1, 12, 'grouped', 'r', 1)",
        )
    )
    migrate(database_url)

    async def read():
        engine = create_engine(database_url)
        try:
            async with create_session_factory(engine)() as session:
                listed, _ = await list_alerts(session, 1, PageRequest(limit=10))
                found = [await load_investigation(session, 1, pk) for pk in (1, 2, 3, 4)]
                return (
                    {s.alert.title: s.decisions for s in listed},
                    [(f.row.alert_id, f.row.event_payload, f.event_payload) for f in found if f],
                    await session.scalar(select(func.count()).select_from(AgentSet)),
                    [
                        [s.alert.id for s in (await list_alerts(session, 1, page, **w))[0]]
                        for page, w in (
                            (PageRequest(limit=10), {"agent_id": 12, "decision": "not_matched"}),
                            (PageRequest(limit=10), {"agent_id": 14, "decision": "not_matched"}),
                            (PageRequest(limit=10), {"agent_id": 11}),
                        )
                    ],
                )
        finally:
            await engine.dispose()

    decided, investigations, sets, filtered = asyncio.run(read())
    quiet = "the agent's matching criteria do not match the alert"
    assert decided["one"] == [
        (11, "not_matched", quiet, None),
        (12, "matched", "r", 1),
        (13, "not_matched", quiet, None),
        (14, "not_matched", quiet, None),
    ]
    assert decided["two"] == [
        (11, "not_matched", quiet, None),
        (12, "not_matched", quiet, None),
        (13, "matched", "r", 2),
        (14, "not_matched", quiet, None),
    ]
    assert [d[:2] for d in decided["three"]] == [(a, "lifecycle") for a in (11, 12, 13, 14)]
    assert decided["four"] == [(11, "matched", "r", 4), (12, "grouped", "r", 1)]
    assert sets == 1  # alerts one, two and three had the same subscribers
    assert investigations == [(1, "", "P1"), (2, "", "P2"), (None, "OLD", "OLD"), (4, "", "P4")]
    assert filtered == [[2], [2, 1], [4, 3, 2, 1]]

    asyncio.run(_downgrade(database_url, "0023"))
    back = asyncio.run(
        run(
            "SELECT title, quiet_agents FROM alerts ORDER BY id",
            "SELECT event_payload FROM investigations ORDER BY id",
        )
    )
    assert back == [
        [("one", ",11,13,14,"), ("two", ",11,12,14,"), ("three", ",11,12,13,14,"), ("four", "")],
        [("P1",), ("P2",), ("OLD",), ("P4",)],
    ]
    migrate(database_url)
