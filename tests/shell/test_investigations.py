"""Investigations as a run kind: every lifecycle transition, stop, pause/delete before the start,
the list over HTTP, the runbook's impact section, usage and notifications (local HTTP receiver
and the chat outbox)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from callback_receiver import CallbackReceiver
from conftest import PUBLIC_URL, Factory, OrgHandle
from interaction_helpers import LOGS, MARKDOWN, RUNBOOK, FakeAgent, fakes, fetch, jobs, usage
from interaction_helpers import run_worker_until as _run_worker
from litestar import Litestar
from litestar.testing import TestClient
from sqlalchemy import select, update

from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_shell.agents.base import AgentContext, AgentResult
from sleuth_shell.app import create_app
from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import Alert, AlertResponder, Investigation, Organization
from sleuth_shell.investigations import DEFAULT_PROMPT, open_investigation, stop_investigation
from sleuth_shell.notify.signing import verify

BASE = "/api/v1/investigations"
PAYLOAD = '{"event": {"event_type": "incident.triggered", "data": {"title": "Checkout 5xx"}}}'
EXPECTED_RESULT = (
    "Checkout errors spiked [1] at 2026-01-01T10:00:00Z. "
    "Follow the runbook [2]; the errors [1] stop after a restart.\n\n"
    "Sources:\n"
    f"[1] [{LOGS['display_text']}]({LOGS['link']})\n"
    f"[2] [{RUNBOOK['display_text']}]({RUNBOOK['link']})"
)
INVESTIGATE_CREDITS = 2.0
ANSWER_CREDITS = 1.25


class InvestigatingAgent(FakeAgent):
    """Investigates deterministically; records every call and the run's status during it."""

    def __init__(self, settings: Settings, *, fail: str | None = None) -> None:
        super().__init__()
        self.settings = settings
        self.investigate_fail = fail
        self.investigations: list[dict[str, Any]] = []
        self.during: Any = None  # an async action run during the call (e.g. a stop)

    async def investigate(
        self, ctx: AgentContext, prompt: str, event_payload: str, *, title: str = ""
    ) -> AgentResult:
        engine = create_engine(self.settings.database_url)
        try:
            async with create_session_factory(engine)() as session:
                status = await session.scalar(
                    select(Investigation.status).where(Investigation.name == title)
                )
                if self.during is not None:
                    await self.during(session)
                    await session.commit()
        finally:
            await engine.dispose()
        self.investigations.append(
            {
                "org_id": ctx.org_id,
                "prompt": prompt,
                "payload": event_payload,
                "title": title,
                "status": status,
            }
        )
        if self.investigate_fail is not None:
            raise RuntimeError(self.investigate_fail)
        return AgentResult(
            markdown=MARKDOWN, sources={3: RUNBOOK, 7: LOGS}, credits=INVESTIGATE_CREDITS
        )


@pytest.fixture
def agent(settings: Settings) -> InvestigatingAgent:
    return InvestigatingAgent(settings)


@pytest.fixture
def ic(settings: Settings, agent: InvestigatingAgent) -> Iterator[TestClient[Litestar]]:
    with TestClient(app=create_app(settings, **fakes(agent)), raise_server_exceptions=False) as c:
        yield c


def run_worker(settings: Settings, agent: InvestigatingAgent) -> None:
    _run_worker(settings, agent)


def make_agent(
    client: TestClient[Litestar],
    factory: Factory,
    org: OrgHandle,
    name: str = "checkout",
    **extra: Any,
) -> str:
    hook = factory.webhook(org, "PROVIDER_A", f"hook-{name}")
    body = {
        "team_name": "Default",
        "name": name,
        "webhook_sources": [{"type": "PROVIDER_A", "remote_id": hook.remote_id}],
        "matching_criteria": {"text_matches": ["checkout"]},
        **extra,
    }
    response = client.post("/api/v1/alert-responders", json=body, headers=org.headers)
    assert response.status_code == 200, response.text
    gid: str = response.json()["id"]
    return gid


async def store_alert(
    session: Any, org_id: int, payload: str, *, title: str = "Checkout 5xx", key: str = "k"
) -> int:
    """An alert-log row holding ``payload`` (what an investigation runs on), as the intake
    stores one; its pk."""
    now = datetime.now(UTC)
    alert = Alert(
        org_id=org_id,
        source_type="PROVIDER_A",
        source_remote_id="test",
        delivery_id=key,
        kind="new_alert",
        event_type="incident.triggered",
        title=title,
        service="",
        severity="",
        dedup_key=key,
        group_key=title,
        match_text=title,
        payload=payload,
        occurred_at=now,
        received_at=now,
    )
    session.add(alert)
    await session.flush()
    return int(alert.id)


def open_for(
    settings: Settings,
    agent_gid: str,
    name: str = "Checkout 5xx",
    *,
    dedup_key: str | None = None,
) -> str:
    """Open an investigation as alert intake does; its Global ID."""
    agent_pk = decode_global_id(agent_gid, "AlertResponder")

    async def go() -> int:
        engine = create_engine(settings.database_url)
        try:
            async with create_session_factory(engine)() as session:
                agent = await session.get(AlertResponder, agent_pk)
                assert agent is not None
                pk, _ = await open_investigation(
                    session,
                    org_id=agent.org_id,
                    agent=agent,
                    name=name,
                    alert_id=await store_alert(session, agent.org_id, PAYLOAD, title=name),
                    dedup_key=dedup_key,
                    now=datetime.now(UTC),
                )
                await session.commit()
                return pk
        finally:
            await engine.dispose()

    return encode_global_id("Investigation", asyncio.run(go()))


def get(client: TestClient[Litestar], org: OrgHandle, gid: str) -> dict[str, Any]:
    response = client.get(f"{BASE}/{gid}", headers=org.headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def stop(client: TestClient[Litestar], org: OrgHandle, gid: str) -> Any:
    return client.post(f"{BASE}/{gid}/stop", headers=org.headers)


def detail(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    assert set(response.json()) == {"detail"}
    text: str = response.json()["detail"]
    return text


def outbox(client: TestClient[Litestar], org: OrgHandle, channel: str) -> list[dict[str, Any]]:
    response = client.get(
        "/api/v1/chat/messages", params={"channel_id": channel}, headers=org.headers
    )
    assert response.status_code == 200
    messages: list[dict[str, Any]] = response.json()["messages"]
    return messages


# --- lifecycle -----------------------------------------------------------------------------------


def test_pending_in_progress_completed(
    ic: TestClient[Litestar],
    factory: Factory,
    org: OrgHandle,
    settings: Settings,
    agent: InvestigatingAgent,
) -> None:
    agent_gid = make_agent(ic, factory, org)
    gid = open_for(settings, agent_gid)
    pending = get(ic, org, gid)
    assert pending["status"] == "PENDING"
    assert pending["started_at"] is None and pending["completed_at"] is None
    assert pending["prompt"] == DEFAULT_PROMPT and pending["event_payload"] == PAYLOAD
    assert pending["name"] == "Checkout 5xx" and pending["team_name"] == "Default"
    assert pending["result"] == ""

    run_worker(settings, agent)
    # The agent was asked once, with the prompt, the alert and its title, while IN_PROGRESS.
    assert agent.investigations == [
        {
            "org_id": org.id,
            "prompt": DEFAULT_PROMPT,
            "payload": PAYLOAD,
            "title": "Checkout 5xx",
            "status": "IN_PROGRESS",
        }
    ]
    done = get(ic, org, gid)
    assert done["status"] == "COMPLETED"
    assert done["result"] == EXPECTED_RESULT
    assert "§" not in done["result"] and "[[source:" not in done["result"]
    assert done["started_at"] is not None and done["completed_at"] is not None
    # Usage: one unattributed row.
    [event] = usage(settings)
    assert (event.org_id, event.team_id, event.feature) == (org.id, None, "investigation")
    assert event.credits == pytest.approx(INVESTIGATE_CREDITS)
    # A second worker pass asks nothing again.
    run_worker(settings, agent)
    assert len(agent.investigations) == 1


def test_agent_failure_is_errored(
    ic: TestClient[Litestar], factory: Factory, org: OrgHandle, settings: Settings
) -> None:
    failing = InvestigatingAgent(settings, fail="model unavailable")
    agent_gid = make_agent(ic, factory, org)
    gid = open_for(settings, agent_gid)
    run_worker(settings, failing)
    record = get(ic, org, gid)
    assert record["status"] == "ERRORED"
    assert record["result"] == "" and record["completed_at"] is not None
    [row] = fetch(settings, Investigation)
    assert row.error == "The investigation failed: model unavailable"
    assert usage(settings) == []
    assert jobs(settings, "notify.chat") == [] and jobs(settings, "notify.alt") == []


def test_runbook_prompt_is_the_investigations_prompt(
    ic: TestClient[Litestar],
    factory: Factory,
    org: OrgHandle,
    settings: Settings,
    agent: InvestigatingAgent,
) -> None:
    agent_gid = make_agent(ic, factory, org, runbook={"investigation_prompt": "Check the pool."})
    gid = open_for(settings, agent_gid)
    assert get(ic, org, gid)["prompt"] == "Check the pool."
    run_worker(settings, agent)
    assert agent.investigations[0]["prompt"] == "Check the pool."


# --- stop ----------------------------------------------------------------------------------------


def test_stop_pending_then_never_runs(
    ic: TestClient[Litestar],
    factory: Factory,
    org: OrgHandle,
    settings: Settings,
    agent: InvestigatingAgent,
) -> None:
    gid = open_for(settings, make_agent(ic, factory, org))
    response = stop(ic, org, gid)
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "STOPPED" and response.json()["id"] == gid
    assert [j.status for j in jobs(settings, "investigation.run")] == []  # its job was dropped
    run_worker(settings, agent)
    assert agent.investigations == []
    assert get(ic, org, gid)["status"] == "STOPPED"
    # Stopping again changes nothing.
    assert stop(ic, org, gid).json() == get(ic, org, gid)


def test_stop_while_in_progress_discards_the_answer(
    ic: TestClient[Litestar],
    factory: Factory,
    org: OrgHandle,
    settings: Settings,
    agent: InvestigatingAgent,
) -> None:
    chat = factory.integration(org, "CHAT_ALERT", "alerts", channel="C0ALERTS")
    gid = open_for(
        settings,
        make_agent(
            ic,
            factory,
            org,
            notification_integration_ids=[encode_global_id("NotificationIntegration", chat.id)],
        ),
    )
    pk = decode_global_id(gid, "Investigation")
    assert pk is not None

    async def stop_now(session: Any) -> None:
        assert await stop_investigation(session, org.id, pk)

    agent.during = stop_now
    run_worker(settings, agent)
    record = get(ic, org, gid)
    assert record["status"] == "STOPPED" and record["result"] == ""
    assert usage(settings) == [] and jobs(settings, "notify.chat") == []


def test_stop_finished_changes_nothing(
    ic: TestClient[Litestar],
    factory: Factory,
    org: OrgHandle,
    settings: Settings,
    agent: InvestigatingAgent,
) -> None:
    gid = open_for(settings, make_agent(ic, factory, org))
    run_worker(settings, agent)
    before = get(ic, org, gid)
    response = stop(ic, org, gid)
    assert response.status_code == 200
    assert response.json() == before and before["status"] == "COMPLETED"


def test_stop_404s(
    ic: TestClient[Litestar], factory: Factory, org: OrgHandle, settings: Settings
) -> None:
    gid = open_for(settings, make_agent(ic, factory, org))
    other = factory.org("other")
    assert detail(stop(ic, other, gid), 404) == "Investigation not found"
    assert get(ic, org, gid)["status"] == "PENDING"  # another org's stop changed nothing
    for bad in ("junk", encode_global_id("Investigation", 999_999), encode_global_id("Digest", 1)):
        assert detail(stop(ic, org, bad), 404) == "Investigation not found"


# --- the agent paused or deleted before the start ------------------------------------------------


@pytest.mark.parametrize("how", ["pause", "delete"])
def test_paused_or_deleted_agent_before_start_is_stopped(
    ic: TestClient[Litestar],
    factory: Factory,
    org: OrgHandle,
    settings: Settings,
    agent: InvestigatingAgent,
    how: str,
) -> None:
    agent_gid = make_agent(ic, factory, org)
    gid = open_for(settings, agent_gid)
    url = f"/api/v1/alert-responders/{agent_gid}"
    if how == "pause":
        assert ic.post(f"{url}/disable", headers=org.headers).status_code == 200
    else:
        assert ic.delete(url, headers=org.headers).status_code == 200
    assert get(ic, org, gid)["status"] == "STOPPED"
    run_worker(settings, agent)
    assert agent.investigations == []
    record = get(ic, org, gid)
    assert record["status"] == "STOPPED" and record["started_at"] is None


def test_agent_paused_after_the_pause_sweep_is_seen_at_start(
    ic: TestClient[Litestar],
    factory: Factory,
    org: OrgHandle,
    settings: Settings,
    agent: InvestigatingAgent,
) -> None:
    """The race the pause's own sweep can miss (the opening committed after it): the run sees
    the paused agent when it starts, and stops without asking it."""
    agent_gid = make_agent(ic, factory, org)
    gid = open_for(settings, agent_gid)
    pk = decode_global_id(agent_gid, "AlertResponder")

    async def pause() -> None:
        engine = create_engine(settings.database_url)
        try:
            async with create_session_factory(engine)() as session:
                await session.execute(
                    update(AlertResponder).where(AlertResponder.id == pk).values(status="PAUSED")
                )
                await session.commit()
        finally:
            await engine.dispose()

    asyncio.run(pause())
    assert get(ic, org, gid)["status"] == "PENDING"
    run_worker(settings, agent)
    assert agent.investigations == []
    record = get(ic, org, gid)
    assert record["status"] == "STOPPED" and record["started_at"] is None
    assert usage(settings) == []
    assert [j.status for j in jobs(settings, "investigation.run")] == ["done"]


# --- list ----------------------------------------------------------------------------------------


def test_list_newest_first_with_cursor_paging_and_filters(
    ic: TestClient[Litestar],
    factory: Factory,
    org: OrgHandle,
    settings: Settings,
    agent: InvestigatingAgent,
) -> None:
    first_agent = make_agent(ic, factory, org, "first")
    second_agent = make_agent(ic, factory, org, "second")
    ids = [open_for(settings, first_agent, f"alert {i}") for i in range(5)]
    other_ids = [open_for(settings, second_agent, f"other {i}") for i in range(2)]
    assert stop(ic, org, ids[1]).status_code == 200

    def page(**params: Any) -> dict[str, Any]:
        response = ic.get(BASE, params=params, headers=org.headers)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    everything = page()
    assert [i["id"] for i in everything["investigations"]] == list(reversed(ids + other_ids))
    assert everything["next_cursor"] is None

    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        body = page(
            alert_responder_id=first_agent, limit=2, **({"cursor": cursor} if cursor else {})
        )
        assert len(body["investigations"]) <= 2
        seen += [i["id"] for i in body["investigations"]]
        pages += 1
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert seen == list(reversed(ids)) and pages == 3

    assert [i["id"] for i in page(status="STOPPED")["investigations"]] == [ids[1]]
    assert [
        i["id"] for i in page(status="PENDING", alert_responder_id=second_agent)["investigations"]
    ] == list(reversed(other_ids))
    # Records are full investigations.
    assert page(limit=1)["investigations"][0] == get(ic, org, other_ids[1])
    # Another organization sees none of them, even filtering by this org's agent.
    other = factory.org("other")
    response = ic.get(BASE, params={"alert_responder_id": first_agent}, headers=other.headers)
    assert response.json() == {"investigations": [], "next_cursor": None}


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"limit": "0"}, "Invalid limit: 0 (a whole number from 1 to 100)"),
        ({"limit": "101"}, "Invalid limit: 101 (a whole number from 1 to 100)"),
        ({"limit": "ten"}, "Invalid limit: ten (a whole number from 1 to 100)"),
        ({"limit": "-1"}, "Invalid limit: -1 (a whole number from 1 to 100)"),
        (
            {"status": "DONE"},
            "Invalid status: DONE (one of PENDING, IN_PROGRESS, ERRORED, COMPLETED, STOPPED)",
        ),
        ({"cursor": "junk"}, "Invalid cursor: junk"),
        (
            {"cursor": encode_global_id("Investigation", 3)},
            f"Invalid cursor: {encode_global_id('Investigation', 3)}",
        ),
        ({"alert_responder_id": "junk"}, "Invalid alert_responder_id: junk"),
    ],
)
def test_list_bad_params_are_400(
    ic: TestClient[Litestar], org: OrgHandle, params: dict[str, str], message: str
) -> None:
    assert detail(ic.get(BASE, params=params, headers=org.headers), 400) == message


# --- impact section ------------------------------------------------------------------------------


def test_impact_and_severity_section(
    ic: TestClient[Litestar],
    factory: Factory,
    org: OrgHandle,
    settings: Settings,
    agent: InvestigatingAgent,
) -> None:
    agent_gid = make_agent(
        ic, factory, org, runbook={"impact_and_severity_prompt": "Who is affected and how badly?"}
    )
    gid = open_for(settings, agent_gid)
    run_worker(settings, agent)
    record = get(ic, org, gid)
    assert record["status"] == "COMPLETED"
    assert record["prompt"] == DEFAULT_PROMPT
    [call] = agent.calls
    assert call["question"].startswith("Who is affected and how badly?")
    assert "The alert: Checkout 5xx" in call["question"]
    # The section follows the analysis; the same sources keep their numbers, one Sources list.
    analysis, _, rest = record["result"].partition("\n\n## Impact and severity\n\n")
    assert analysis == EXPECTED_RESULT.split("\n\nSources:")[0]
    section, _, sources = rest.partition("\n\nSources:\n")
    assert section == (
        "Checkout errors spiked [1] at 2026-01-01T10:00:00Z. "
        "Follow the runbook [2]; the errors [1] stop after a restart."
    )
    assert sources == EXPECTED_RESULT.split("Sources:\n")[1]
    [event] = usage(settings)
    assert event.team_id is None
    assert event.credits == pytest.approx(INVESTIGATE_CREDITS + 1.25)


# --- notifications -------------------------------------------------------------------------------


def test_completion_notifies_chat_and_signed_alt_webhook(
    ic: TestClient[Litestar],
    factory: Factory,
    org: OrgHandle,
    settings: Settings,
    agent: InvestigatingAgent,
) -> None:
    chat = factory.integration(org, "CHAT_ALERT", "alerts", channel="C0ALERTS")
    with CallbackReceiver() as alt:
        hook = factory.integration(org, "ALT_WEBHOOK", "alt", url=alt.url + "/teams")
        integration_ids = [encode_global_id("NotificationIntegration", i.id) for i in (chat, hook)]
        agent_gid = make_agent(ic, factory, org, notification_integration_ids=integration_ids)
        gid = open_for(settings, agent_gid)
        run_worker(settings, agent)
        [card] = alt.wait_for(1)
    assert card.path == "/teams"
    content = card.json()["attachments"][0]["content"]
    assert content["body"][0]["text"] == "Investigation: Checkout 5xx"
    assert content["actions"][0]["url"] == f"{PUBLIC_URL}/investigations/{gid}"
    [secret] = fetch(settings, Organization, Organization.id == org.id)
    headers = {k.lower(): v for k, v in card.headers.items()}
    assert verify(card.body, secret.signing_secret, headers["x-service-signature"])
    assert headers["x-service-timestamp"].isdigit()
    [message] = outbox(ic, org, "C0ALERTS")
    assert message["text"].startswith("*Investigation: Checkout 5xx*")
    assert "Sources:" in message["text"] and "Checkout runbook" in message["text"]
    assert f"{PUBLIC_URL}/investigations/{gid}" in message["text"]


# --- the embedded agent --------------------------------------------------------------------------


def test_embedded_agent_investigates_with_the_demo_data(
    ic: TestClient[Litestar], factory: Factory, org: OrgHandle, settings: Settings
) -> None:
    """The default (retrieval) agent, end to end through the job: the result names the alert,
    cites the stores with numbered citations and ends with the Sources section, impact included."""
    from sleuth_shell.demo import load_demo
    from sleuth_shell.jobs import Worker
    from sleuth_shell.runtime import job_registry
    from sleuth_shell.services import build_services

    now = datetime.now(UTC)

    async def demo(session: Any) -> None:
        await load_demo(session, org.id, now=now)

    factory.run(demo)
    agent_gid = make_agent(
        ic, factory, org, runbook={"impact_and_severity_prompt": "Which customers are affected?"}
    )
    payload = (
        '{"title": "Checkout 5xx rate high", "service": "checkout-api", "severity": "critical", '
        f'"startsAt": "{now.strftime("%Y-%m-%dT%H:%M:%SZ")}"}}'
    )
    agent_pk = decode_global_id(agent_gid, "AlertResponder")

    async def go() -> int:
        engine = create_engine(settings.database_url)
        sessions = create_session_factory(engine)
        try:
            async with sessions() as session:
                agent = await session.get(AlertResponder, agent_pk)
                assert agent is not None
                pk, _ = await open_investigation(
                    session,
                    org_id=org.id,
                    agent=agent,
                    name="Checkout 5xx rate high",
                    alert_id=await store_alert(session, org.id, payload),
                    dedup_key="demo-1",
                    now=now,
                )
                await session.commit()
            services = build_services(settings, sessions)
            worker = Worker(services, job_registry(), poll_interval=0.05)
            await worker.run_until_idle()
            await services.aclose()
            return pk
        finally:
            await engine.dispose()

    gid = encode_global_id("Investigation", asyncio.run(go()))
    record = get(ic, org, gid)
    assert record["status"] == "COMPLETED", record
    result = record["result"]
    assert "Checkout 5xx rate high" in result
    assert "[1]" in result and "\n\nSources:\n[1] [" in result
    assert "\n\n## Impact and severity\n\n" in result
    assert "§" not in result and "[[source:" not in result
    # Every citation in the text has its line in the Sources section, and only those.
    body, _, sources = result.partition("\n\nSources:\n")
    numbers = sorted({int(n) for n in __import__("re").findall(r"\[(\d+)\]", body)})
    assert numbers == list(range(1, len(sources.splitlines()) + 1))
    [event] = usage(settings)
    assert event.team_id is None and event.feature == "investigation" and event.credits > 0


# --- the structured analysis ---------------------------------------------------------------------


class AnalysingAgent(InvestigatingAgent):
    """Investigates like `InvestigatingAgent` and adds a root-cause analysis citing its agent-side
    source ids 3 (the runbook) and 7 (the logs) and one id the markdown never cites."""

    async def investigate(
        self, ctx: AgentContext, prompt: str, event_payload: str, *, title: str = ""
    ) -> AgentResult:
        found = await super().investigate(ctx, prompt, event_payload, title=title)
        analysis = {
            "verdict": "change",
            "change_id": "abc1234",
            "service": "checkout",
            "affected_services": ["checkout"],
            "confidence": "LIKELY",
            "remediation": "Revert commit abc1234.",
            "evidence": [3, 7, 99],
        }
        return AgentResult(found.markdown, found.sources, found.credits, analysis)


def test_analysis_is_stored_with_final_citation_numbers(
    factory: Factory, org: OrgHandle, settings: Settings
) -> None:
    analysing = AnalysingAgent(settings)
    with TestClient(app=create_app(settings, **fakes(analysing))) as client:
        gid = open_for(settings, make_agent(client, factory, org))
        assert get(client, org, gid)["analysis"] is None  # null until there is one
        run_worker(settings, analysing)
        done = get(client, org, gid)
    assert done["result"] == EXPECTED_RESULT  # logs are [1], the runbook [2]
    analysis = done["analysis"]
    assert analysis["verdict"] == "change" and analysis["change_id"] == "abc1234"
    # Agent ids 7 and 3 became citations [1] and [2]; 99 was never cited, so it is left out.
    assert analysis["evidence"] == [1, 2]
    [row] = fetch(settings, Investigation)
    assert row.analysis == analysis
