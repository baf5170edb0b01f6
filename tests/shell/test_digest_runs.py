"""Digest runs in-process: every mode of POST /digests/{id}/run, GET of a run, notifications,
unattributed usage, and the cron fire jobs (scheduled, replaced, cancelled, run)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from callback_receiver import CallbackReceiver
from conftest import PUBLIC_URL, Factory, OrgHandle
from interaction_helpers import (
    LOGS,
    MARKDOWN,
    RUNBOOK,
    FakeAgent,
    execute,
    fakes,
    fetch,
    jobs,
    usage,
)
from interaction_helpers import run_worker_until as _run_worker
from litestar import Litestar
from litestar.testing import TestClient
from sqlalchemy import update

from sleuth_core.cron import parse_cron
from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_shell.agents.base import AgentContext, AgentResult
from sleuth_shell.app import create_app
from sleuth_shell.config import Settings
from sleuth_shell.db.models import DigestRun, Job

BASE = "/api/v1/digests"
SECTIONS = [
    {"section": "Incidents", "prompt": "Summarise yesterday's incidents."},
    {"section": "Deploys", "prompt": "List the deploys."},
]
SECTION_CREDITS = 0.75
#: The rendered result of every section: numbered citations and a Sources section.
EXPECTED_RESULT = (
    "Checkout errors spiked [1] at 2026-01-01T10:00:00Z. "
    "Follow the runbook [2]; the errors [1] stop after a restart.\n\n"
    "Sources:\n"
    f"[1] [{LOGS['display_text']}]({LOGS['link']})\n"
    f"[2] [{RUNBOOK['display_text']}]({RUNBOOK['link']})"
)


#: What the claim check of a section found (recorded on the run, not returned).
CLAIMS = {"checked": 5, "supported": 5, "share": 1.0, "dropped": 0}


class DigestAgent(FakeAgent):
    """The fake agent, writing digest sections (or failing on the section named ``fail_on``)."""

    def __init__(self, *, fail_on: str | None = None) -> None:
        super().__init__()
        self.fail_on = fail_on
        self.sections: list[tuple[int, str, str]] = []

    async def digest_section(self, ctx: AgentContext, section: str, prompt: str) -> AgentResult:
        self.sections.append((ctx.org_id, section, prompt))
        if section == self.fail_on:
            raise RuntimeError("model unavailable")
        return AgentResult(
            markdown=MARKDOWN,
            sources={3: RUNBOOK, 7: LOGS},
            credits=SECTION_CREDITS,
            analysis={"claims": CLAIMS},
        )


@pytest.fixture
def agent() -> DigestAgent:
    return DigestAgent()


def _client(settings: Settings, agent: DigestAgent) -> TestClient[Litestar]:
    app = create_app(settings, **fakes(agent))
    return TestClient(app=app, raise_server_exceptions=False)


@pytest.fixture
def dc(settings: Settings, agent: DigestAgent) -> Iterator[TestClient[Litestar]]:
    """A client whose agent is the fake (no inline worker: tests drain jobs themselves)."""
    with _client(settings, agent) as client:
        yield client


def run_worker(settings: Settings, agent: DigestAgent) -> None:
    _run_worker(settings, agent)  # type: ignore[arg-type]


def create(client: TestClient[Litestar], org: OrgHandle, **extra: Any) -> str:
    data = {"team_name": "Default", "name": "Morning", "sections": SECTIONS}
    data["schedule"] = "0 9 * * 0-4"
    data.update(extra)
    response = client.post(BASE, json=data, headers=org.headers)
    assert response.status_code == 200, response.text
    gid: str = response.json()["id"]
    return gid


def run(client: TestClient[Litestar], org: OrgHandle, digest_id: str, body: Any = None) -> Any:
    if body is None:
        return client.post(f"{BASE}/{digest_id}/run", headers=org.headers)
    return client.post(f"{BASE}/{digest_id}/run", json=body, headers=org.headers)


def detail(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    assert set(response.json()) == {"detail"}
    text: str = response.json()["detail"]
    return text


def get_run(client: TestClient[Litestar], org: OrgHandle, digest_id: str, run_id: str) -> Any:
    response = client.get(f"{BASE}/{digest_id}/runs/{run_id}", headers=org.headers)
    assert response.status_code == 200, response.text
    return response.json()


def outbox(client: TestClient[Litestar], org: OrgHandle, channel: str) -> list[dict[str, Any]]:
    response = client.get(
        "/api/v1/chat/messages", params={"channel_id": channel}, headers=org.headers
    )
    assert response.status_code == 200
    messages: list[dict[str, Any]] = response.json()["messages"]
    return messages


def digest_pk(gid: str) -> int:
    pk = decode_global_id(gid, "Digest")
    assert pk is not None
    return pk


def cron_jobs(settings: Settings, digest_id: str, status: str = "pending") -> list[Job]:
    pk = digest_pk(digest_id)
    return [
        job
        for job in jobs(settings, "digest.cron")
        if job.payload["digest_id"] == pk and job.status == status
    ]


EXPECTED_RESULTS = [{**s, "result": EXPECTED_RESULT} for s in SECTIONS]
#: What the run row holds: each result with its section's claim check.
STORED_RESULTS = [{**item, "claims": CLAIMS} for item in EXPECTED_RESULTS]


# --- modes ---------------------------------------------------------------------------------------


@pytest.mark.storage
def test_sync_run_returns_results_and_stays_retrievable(
    dc: TestClient[Litestar], org: OrgHandle, agent: DigestAgent, settings: Settings
) -> None:
    digest_id = create(dc, org)
    response = run(dc, org, digest_id, {"run_sync": True})
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"id", "url", "results"}
    run_pk = decode_global_id(body["id"], "DigestRun")
    assert run_pk is not None
    assert body["url"] == f"{PUBLIC_URL}/digests/{digest_id}/runs/{body['id']}"
    assert body["results"] == EXPECTED_RESULTS
    assert agent.sections == [(org.id, s["section"], s["prompt"]) for s in SECTIONS]
    assert get_run(dc, org, digest_id, body["id"]) == {
        "id": body["id"],
        "digest_id": digest_id,
        "status": "COMPLETED",
        "scheduled_runtime": pytest.approx(time.time(), abs=60),
        "results": EXPECTED_RESULTS,
    }
    assert jobs(settings, "digest.run") == []
    # The run page exists for the returned URL.
    page = dc.get(f"/digests/{digest_id}/runs/{body['id']}", headers=org.headers)
    assert page.status_code == 200 and "Incidents" in page.text


def test_async_run_goes_pending_then_completed(
    dc: TestClient[Litestar], org: OrgHandle, agent: DigestAgent, settings: Settings
) -> None:
    digest_id = create(dc, org)
    for body in (None, {}, {"run_sync": False}, {"run_sync": None, "scheduled_runtime": None}):
        response = run(dc, org, digest_id, body)
        assert response.status_code == 200, response.text
        created = response.json()
        assert set(created) == {"id", "url"}
        assert created["url"] == f"{PUBLIC_URL}/digests/{digest_id}/runs/{created['id']}"
        pending = get_run(dc, org, digest_id, created["id"])
        assert pending["status"] == "PENDING" and pending["results"] == []
    assert agent.sections == []
    run_worker(settings, agent)
    for row in fetch(settings, DigestRun):
        view = get_run(dc, org, digest_id, encode_global_id("DigestRun", row.id))
        assert view["status"] == "COMPLETED"
        assert view["results"] == EXPECTED_RESULTS
        # The run records each section's claim check; the SPEC's result shape omits it.
        assert row.results == STORED_RESULTS
    assert len(agent.sections) == 4 * len(SECTIONS)


def test_scheduled_run_is_due_at_its_time(
    dc: TestClient[Litestar], org: OrgHandle, agent: DigestAgent, settings: Settings
) -> None:
    digest_id = create(dc, org)
    when = int(time.time()) + 3600
    response = run(dc, org, digest_id, {"scheduled_runtime": when, "run_sync": False})
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"id", "url", "scheduled_runtime"}
    assert body["scheduled_runtime"] == when
    [job] = jobs(settings, "digest.run")
    assert job.status == "pending" and int(job.run_at.timestamp()) == when
    run_worker(settings, agent)  # not due yet: nothing runs
    view = get_run(dc, org, digest_id, body["id"])
    assert view["status"] == "PENDING" and view["scheduled_runtime"] == when
    # Time passes: the job becomes due and runs.
    execute(settings, update(Job).where(Job.id == job.id).values(run_at=datetime.now(UTC)))
    run_worker(settings, agent)
    assert get_run(dc, org, digest_id, body["id"])["status"] == "COMPLETED"


# --- errors --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([1], "The request body must be a JSON object"),
        ({"run_sync": "yes"}, "run_sync must be a boolean"),
        ({"scheduled_runtime": "soon"}, "scheduled_runtime must be an integer Unix timestamp"),
        ({"scheduled_runtime": 1.5e9}, "scheduled_runtime must be an integer Unix timestamp"),
        ({"scheduled_runtime": True}, "scheduled_runtime must be an integer Unix timestamp"),
        ({"scheduled_runtime": 1_000_000}, "scheduled_runtime must be in the future"),
        ({"scheduled_runtime": 10**12}, "scheduled_runtime must be at most 366 days ahead"),
        (
            {"run_sync": True, "scheduled_runtime": int(time.time()) + 3600},
            "run_sync and scheduled_runtime cannot be combined",
        ),
    ],
)
def test_run_400s(
    dc: TestClient[Litestar], org: OrgHandle, settings: Settings, body: Any, message: str
) -> None:
    digest_id = create(dc, org)
    assert detail(run(dc, org, digest_id, body), 400).startswith(message)
    assert fetch(settings, DigestRun) == []


def test_invalid_json_is_400(dc: TestClient[Litestar], org: OrgHandle) -> None:
    digest_id = create(dc, org)
    response = dc.post(
        f"{BASE}/{digest_id}/run",
        content=b"{nope",
        headers={**org.headers, "Content-Type": "application/json"},
    )
    assert detail(response, 400) == "The request body must be a JSON object"


def test_run_404s(dc: TestClient[Litestar], org: OrgHandle, factory: Factory) -> None:
    digest_id = create(dc, org)
    other = factory.org("other")
    for bad in ("nope", encode_global_id("Digest", 999_999), encode_global_id("Team", 1)):
        assert detail(run(dc, org, bad, {}), 404) == "Digest not found"
    assert detail(run(dc, other, digest_id, {}), 404) == "Digest not found"
    run_id = run(dc, org, digest_id, {}).json()["id"]
    url = f"{BASE}/{digest_id}/runs/{run_id}"
    assert detail(dc.get(url, headers=other.headers), 404) == "Digest not found"
    second = create(dc, org, name="Evening")
    wrong_digest = f"{BASE}/{second}/runs/{run_id}"
    assert detail(dc.get(wrong_digest, headers=org.headers), 404) == "Digest run not found"
    for bad in ("nope", digest_id, encode_global_id("DigestRun", 999_999)):
        response = dc.get(f"{BASE}/{digest_id}/runs/{bad}", headers=org.headers)
        assert detail(response, 404) == "Digest run not found"


def test_sync_failure_is_500_and_recorded(settings: Settings, org: OrgHandle) -> None:
    agent = DigestAgent(fail_on="Deploys")
    with _client(settings, agent) as client:
        digest_id = create(client, org)
        response = run(client, org, digest_id, {"run_sync": True})
        message = detail(response, 500)
        assert "Deploys" in message and "model unavailable" in message
        [row] = fetch(settings, DigestRun)
        assert row.status == "FAILED" and row.error == message
        assert usage(settings) == []


def test_background_failure_marks_the_run_failed(settings: Settings, org: OrgHandle) -> None:
    agent = DigestAgent(fail_on="Incidents")
    with _client(settings, agent) as client:
        digest_id = create(client, org)
        run_id = run(client, org, digest_id, {}).json()["id"]
        run_worker(settings, agent)
        view = get_run(client, org, digest_id, run_id)
    assert view["status"] == "FAILED" and view["results"] == []
    [job] = jobs(settings, "digest.run")
    assert job.status == "failed" and "model unavailable" in (job.last_error or "")


# --- usage and notifications ---------------------------------------------------------------------


def test_usage_is_unattributed(
    dc: TestClient[Litestar], org: OrgHandle, settings: Settings
) -> None:
    digest_id = create(dc, org)
    run(dc, org, digest_id, {"run_sync": True})
    [event] = usage(settings)
    assert (event.org_id, event.team_id, event.feature) == (org.id, None, "digest")
    assert event.credits == pytest.approx(SECTION_CREDITS * len(SECTIONS))


@pytest.mark.parametrize("mode", ["sync", "async", "scheduled"])
def test_every_mode_notifies_channel_and_integrations(
    dc: TestClient[Litestar],
    org: OrgHandle,
    factory: Factory,
    agent: DigestAgent,
    settings: Settings,
    mode: str,
) -> None:
    chat = factory.integration(org, "CHAT_ALERT", "alerts", channel="G0ALERTS")
    with CallbackReceiver() as alt:
        hook = factory.integration(org, "ALT_WEBHOOK", "alt", url=alt.url + "/digest")
        ids = [encode_global_id("NotificationIntegration", i.id) for i in (chat, hook)]
        digest_id = create(dc, org, chat_channel_id="C0DIGEST", notification_integration_ids=ids)
        body: dict[str, Any] = {
            "sync": {"run_sync": True},
            "async": {},
            "scheduled": {"scheduled_runtime": int(time.time()) + 3600},
        }[mode]
        run_id = run(dc, org, digest_id, body).json()["id"]
        if mode == "scheduled":
            execute(
                settings,
                update(Job).where(Job.kind == "digest.run").values(run_at=datetime.now(UTC)),
            )
        run_worker(settings, agent)
        [card] = alt.wait_for(1)
    assert card.path == "/digest"
    content = card.json()["attachments"][0]["content"]
    assert content["body"][0]["text"] == "Morning"
    assert content["actions"][0]["url"] == f"{PUBLIC_URL}/digests/{digest_id}/runs/{run_id}"
    for channel in ("C0DIGEST", "G0ALERTS"):
        [message] = outbox(dc, org, channel)
        assert message["text"].startswith("*Morning*")
        assert "*Incidents*" in message["text"] and "*Deploys*" in message["text"]
        assert "Sources:" in message["text"]
    assert all(job.status == "done" for job in jobs(settings, "notify.chat"))


def test_no_targets_no_notifications(
    dc: TestClient[Litestar], org: OrgHandle, agent: DigestAgent, settings: Settings
) -> None:
    digest_id = create(dc, org)
    run(dc, org, digest_id, {"run_sync": True})
    assert jobs(settings, "notify.chat") == [] and jobs(settings, "notify.alt") == []


# --- cron ----------------------------------------------------------------------------------------


def test_create_schedules_the_next_fire_and_update_replaces_it(
    dc: TestClient[Litestar], org: OrgHandle, settings: Settings
) -> None:
    before = datetime.now(UTC)
    digest_id = create(dc, org, schedule="0 9 * * 0-4")
    [job] = cron_jobs(settings, digest_id)
    expected = parse_cron("0 9 * * 0-4").next_after(before)
    assert job.run_at == expected and job.payload["fire_at"] == int(expected.timestamp())

    response = dc.put(f"{BASE}/{digest_id}", json={"schedule": "30 6 * * *"}, headers=org.headers)
    assert response.status_code == 200
    [replaced] = cron_jobs(settings, digest_id)
    assert replaced.run_at != job.run_at or replaced.id != job.id
    assert replaced.run_at == parse_cron("30 6 * * *").next_after(datetime.now(UTC))
    # Another digest keeps its own fire.
    other = create(dc, org, name="Evening")
    assert len(cron_jobs(settings, other)) == 1 and len(cron_jobs(settings, digest_id)) == 1


def test_delete_cancels_pending_jobs(
    dc: TestClient[Litestar], org: OrgHandle, settings: Settings
) -> None:
    digest_id = create(dc, org)
    keep = create(dc, org, name="Evening")
    run(dc, org, digest_id, {"scheduled_runtime": int(time.time()) + 3600})
    assert len(jobs(settings, "digest.run")) == 1
    assert dc.delete(f"{BASE}/{digest_id}", headers=org.headers).json() == {"success": True}
    assert cron_jobs(settings, digest_id) == []
    assert jobs(settings, "digest.run") == []
    assert len(cron_jobs(settings, keep)) == 1


def _make_due(settings: Settings, job: Job, fire: datetime) -> None:
    execute(
        settings,
        update(Job)
        .where(Job.id == job.id)
        .values(run_at=fire, payload={**job.payload, "fire_at": int(fire.timestamp())}),
    )


def test_due_cron_job_runs_the_digest_and_schedules_the_next(
    dc: TestClient[Litestar], org: OrgHandle, agent: DigestAgent, settings: Settings
) -> None:
    digest_id = create(dc, org, chat_channel_id="C0DIGEST", schedule="*/5 * * * *")
    [job] = cron_jobs(settings, digest_id)
    fire = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=30)
    _make_due(settings, job, fire)
    run_worker(settings, agent)

    [row] = fetch(settings, DigestRun)
    assert row.status == "COMPLETED" and row.scheduled_runtime == fire
    assert row.results == STORED_RESULTS
    assert len(outbox(dc, org, "C0DIGEST")) == 1
    [event] = usage(settings)
    assert event.team_id is None and event.feature == "digest"
    [done] = cron_jobs(settings, digest_id, "done")
    assert done.id == job.id
    [following] = cron_jobs(settings, digest_id)
    assert following.run_at > datetime.now(UTC) - timedelta(seconds=5)
    assert following.run_at == parse_cron("*/5 * * * *").next_after(following.created_at)


def test_a_second_job_for_the_same_fire_creates_no_second_run(
    dc: TestClient[Litestar], org: OrgHandle, agent: DigestAgent, settings: Settings
) -> None:
    digest_id = create(dc, org, schedule="*/5 * * * *")
    [job] = cron_jobs(settings, digest_id)
    fire = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=30)
    _make_due(settings, job, fire)
    run_worker(settings, agent)
    assert len(fetch(settings, DigestRun)) == 1
    # A duplicate of the already handled fire (e.g. enqueued twice) is a no-op ...
    [following] = cron_jobs(settings, digest_id)
    _make_due(settings, following, fire)
    run_worker(settings, agent)
    assert len(fetch(settings, DigestRun)) == 1
    # ... but still keeps the schedule going.
    assert len(cron_jobs(settings, digest_id)) == 1


def test_cron_job_of_a_deleted_digest_is_a_no_op(
    dc: TestClient[Litestar], org: OrgHandle, agent: DigestAgent, settings: Settings
) -> None:
    digest_id = create(dc, org)
    [job] = cron_jobs(settings, digest_id)
    # Simulate a fire claimed just before the digest disappeared: keep the job, drop the digest.
    execute(settings, update(Job).where(Job.id == job.id).values(kind="held"))
    dc.delete(f"{BASE}/{digest_id}", headers=org.headers)
    execute(
        settings,
        update(Job).where(Job.id == job.id).values(kind="digest.cron", run_at=datetime.now(UTC)),
    )
    run_worker(settings, agent)
    assert fetch(settings, DigestRun) == []
    assert [j.status for j in jobs(settings, "digest.cron")] == ["done"]


def test_startup_gives_digests_without_a_fire_their_next_one(
    dc: TestClient[Litestar], org: OrgHandle, agent: DigestAgent, settings: Settings
) -> None:
    digest_id = create(dc, org)
    kept = create(dc, org, name="Evening")
    [kept_job] = cron_jobs(settings, kept)
    # A digest that lost its fire (created before cron jobs existed).
    execute(
        settings,
        update(Job).where(Job.id == cron_jobs(settings, digest_id)[0].id).values(status="failed"),
    )
    assert cron_jobs(settings, digest_id) == []
    with _client(settings, agent):  # the app's startup schedules the missing fire
        pass
    [job] = cron_jobs(settings, digest_id)
    assert job.run_at == parse_cron("0 9 * * 0-4").next_after(job.created_at)
    assert [j.id for j in cron_jobs(settings, kept)] == [kept_job.id]  # untouched


def test_a_cron_fire_is_skipped_once_the_teams_budget_is_used(
    dc: TestClient[Litestar], org: OrgHandle, agent: DigestAgent, settings: Settings
) -> None:
    """The first fire runs and its cost counts against the team; with the budget set at that
    cost, the next fire starts no run but keeps the schedule going."""
    import asyncio

    from sleuth_shell import admin
    from sleuth_shell.billing.budgets import automated_use
    from sleuth_shell.db import create_engine, create_session_factory

    digest_id = create(dc, org, schedule="*/5 * * * *")
    [job] = cron_jobs(settings, digest_id)
    fire = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=30)
    _make_due(settings, job, fire)
    run_worker(settings, agent)
    [first] = fetch(settings, DigestRun)
    assert first.status == "COMPLETED" and first.credits and first.credits > 0

    async def budget_at_use() -> float:
        engine = create_engine(settings.database_url)
        try:
            async with create_session_factory(engine)() as session:
                used = await automated_use(session, {org.default_team_id}, datetime.now(UTC))
                await admin.set_budget(session, org.name, "Default", used[org.default_team_id])
                return used[org.default_team_id]
        finally:
            await engine.dispose()

    assert asyncio.run(budget_at_use()) == first.credits
    [following] = cron_jobs(settings, digest_id)
    later = fire + timedelta(minutes=5)
    _make_due(settings, following, min(later, datetime.now(UTC).replace(microsecond=0)))
    run_worker(settings, agent)
    assert len(fetch(settings, DigestRun)) == 1  # no second run
    assert len(cron_jobs(settings, digest_id)) == 1  # the schedule goes on
