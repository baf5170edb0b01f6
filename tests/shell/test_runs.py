"""The run lifecycle (sleuth_shell.runs): every transition of the state diagram, on a real database.

The interaction kind is the subject; investigations show a further terminal status (``STOPPED``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar

import pytest
from conftest import OrgHandle
from interaction_helpers import (
    CREDITS,
    LOGS,
    FakeAgent,
    execute,
    fakes,
    interaction_row,
    jobs,
    make_services,
    run_worker_until,
    usage,
)
from litestar import Litestar
from litestar.testing import TestClient
from sqlalchemy import update

from sleuth_shell import runs
from sleuth_shell.agents.base import AgentContext, AgentResult
from sleuth_shell.app import create_app
from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import Interaction, Investigation, utcnow
from sleuth_shell.interactions.service import INTERACTION, Answer
from sleuth_shell.investigations import INVESTIGATION as INVESTIGATION_KIND
from sleuth_shell.investigations import InvestigationOutcome
from sleuth_shell.services import Services
from sleuth_shell.statuses import InvestigationStatus

T = TypeVar("T")
URL = "/api/v1/interactions"


def _with_services(
    settings: Settings, agent: FakeAgent, action: Callable[[Services], Awaitable[T]]
) -> T:
    async def go() -> T:
        engine = create_engine(settings.database_url)
        services = make_services(settings, agent, create_session_factory(engine))
        try:
            return await action(services)
        finally:
            await services.aclose()
            await engine.dispose()

    return asyncio.run(go())


def _transition(settings: Settings, step: Callable[[Any], Awaitable[bool]]) -> bool:
    """Run one transition in its own committed transaction."""

    async def action(services: Services) -> bool:
        async with services.sessions() as session:
            changed = await step(session)
            await session.commit()
            return changed

    return _with_services(settings, FakeAgent(), action)


def _start(settings: Settings, kind: Any, run_id: Any) -> Any:
    """``runs.start`` in its own committed transaction: the started row, or None."""

    async def action(services: Services) -> Any:
        async with services.sessions() as session:
            started = await runs.start(session, kind, run_id)
            await session.commit()
            return started

    return _with_services(settings, FakeAgent(), action)


def _answer() -> Answer:
    result = AgentResult(markdown="Done [[source:7]]", sources={7: LOGS}, credits=CREDITS)
    return Answer(result=result, content="Done [1]", sources=[LOGS])


def _finish(settings: Settings, run_id: str, kind: runs.RunKind[Any, Any] = INTERACTION) -> bool:
    async def action(services: Services) -> bool:
        async with services.sessions() as session:
            return await runs.finish(session, services, kind, run_id, _answer())

    return _with_services(settings, FakeAgent(), action)


@pytest.fixture
def rc(settings: Settings) -> Any:
    with TestClient(
        app=create_app(settings, **fakes(FakeAgent())), raise_server_exceptions=False
    ) as client:
        yield client


def pending(client: TestClient[Litestar], org: OrgHandle, **notifications: Any) -> str:
    """A background interaction (``PENDING``, with its job), created over HTTP."""
    body: dict[str, Any] = {"question": "why?", "async": True}
    if notifications:
        body["notifications"] = notifications
    response = client.post(URL, json=body, headers=org.headers)
    assert response.status_code == 200, response.text
    return str(response.json()["interactions"][0]["interaction_id"])


def _set_status(settings: Settings, run_id: str, status: str) -> None:
    execute(
        settings,
        update(Interaction).where(Interaction.id == run_id).values(status=status),
    )


# --- start ---------------------------------------------------------------------------------------


def test_start_moves_pending_to_in_progress_and_keeps_the_first_start(
    rc: Any, org: OrgHandle, settings: Settings
) -> None:
    run_id = pending(rc, org)
    assert interaction_row(settings, run_id).status == "PENDING"
    started = _start(settings, INTERACTION, run_id)
    first = interaction_row(settings, run_id)
    assert first.status == "IN_PROGRESS" and first.started_at is not None
    # The started row as the update returned it: what the run's job works from.
    assert (started.id, started.status, started.question) == (run_id, "IN_PROGRESS", "why?")
    assert started.started_at == first.started_at and started.org_id == first.org_id
    # A job re-run after a crash starts an IN_PROGRESS run again; started_at is kept.
    execute(
        settings,
        update(Interaction)
        .where(Interaction.id == run_id)
        .values(started_at=utcnow() - timedelta(hours=1)),
    )
    kept = interaction_row(settings, run_id).started_at
    assert _start(settings, INTERACTION, run_id).started_at == kept
    assert interaction_row(settings, run_id).started_at == kept


@pytest.mark.parametrize("status", ["COMPLETED", "FAILED"])
def test_a_finished_run_is_not_started(
    rc: Any, org: OrgHandle, settings: Settings, status: str
) -> None:
    run_id = pending(rc, org)
    _set_status(settings, run_id, status)
    assert _start(settings, INTERACTION, run_id) is None
    assert interaction_row(settings, run_id).status == status


def test_start_of_a_missing_run_is_refused(settings: Settings) -> None:
    assert _start(settings, INTERACTION, "nope") is None


# --- finish --------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["PENDING", "IN_PROGRESS"])
def test_finish_completes_once_with_usage_and_notifications(
    rc: Any, org: OrgHandle, settings: Settings, status: str
) -> None:
    run_id = pending(rc, org, chat={"chat_channel_ids": ["C0123"]})
    _set_status(settings, run_id, status)
    assert _finish(settings, run_id) is True
    row = interaction_row(settings, run_id)
    assert (row.status, row.content, row.sources, row.error) == (
        "COMPLETED",
        "Done [1]",
        [LOGS],
        None,
    )
    assert row.completed_at is not None
    assert [event.credits for event in usage(settings)] == [CREDITS]
    assert len(jobs(settings, "notify.chat")) == 1
    # A second finish (another worker, a re-run) writes nothing.
    assert _finish(settings, run_id) is False
    assert [event.credits for event in usage(settings)] == [CREDITS]
    assert len(jobs(settings, "notify.chat")) == 1


def test_finish_does_not_overwrite_a_failed_run(
    rc: Any, org: OrgHandle, settings: Settings
) -> None:
    run_id = pending(rc, org)
    assert _transition(settings, lambda s: runs.fail(s, INTERACTION, run_id, "boom")) is True
    assert _finish(settings, run_id) is False
    row = interaction_row(settings, run_id)
    assert (row.status, row.error, row.content) == ("FAILED", "boom", None)
    assert usage(settings) == []


def test_finish_of_a_missing_run_is_refused(settings: Settings) -> None:
    assert _finish(settings, "nope") is False
    assert usage(settings) == []


# --- fail ----------------------------------------------------------------------------------------


def test_fail_once_keeps_the_first_error_and_the_kind_values(
    rc: Any, org: OrgHandle, settings: Settings
) -> None:
    run_id = pending(rc, org, web={"callback_url": "http://127.0.0.1:9/cb"})
    assert interaction_row(settings, run_id).callback_api_key is not None
    assert _transition(settings, lambda s: runs.fail(s, INTERACTION, run_id, "first")) is True
    assert _transition(settings, lambda s: runs.fail(s, INTERACTION, run_id, "second")) is False
    row = interaction_row(settings, run_id)
    assert (row.status, row.error, row.callback_api_key) == ("FAILED", "first", None)
    assert row.completed_at is not None


def test_fail_does_not_overwrite_a_completed_run(
    rc: Any, org: OrgHandle, settings: Settings
) -> None:
    run_id = pending(rc, org)
    assert _finish(settings, run_id) is True
    assert _transition(settings, lambda s: runs.fail(s, INTERACTION, run_id, "late")) is False
    row = interaction_row(settings, run_id)
    assert (row.status, row.error) == ("COMPLETED", None)


# --- a further terminal status (investigations' STOPPED) ----------------------------------------


def _investigation(settings: Settings, org: OrgHandle, status: str) -> int:
    async def action(services: Services) -> int:
        async with services.sessions() as session:
            row = Investigation(
                org_id=org.id, team_id=org.default_team_id, name="n", status=status, prompt="p"
            )
            session.add(row)
            await session.commit()
            return row.id

    return _with_services(settings, FakeAgent(), action)


def test_an_extra_terminal_status_is_never_left(
    rc: Any, org: OrgHandle, settings: Settings
) -> None:
    kind = INVESTIGATION_KIND
    assert InvestigationStatus.STOPPED in kind.statuses.terminal
    outcome = InvestigationOutcome(result="r", sources=[], credits=1.0)

    def finish(run_id: int) -> bool:
        async def action(services: Services) -> bool:
            async with services.sessions() as session:
                return await runs.finish(session, services, kind, run_id, outcome)

        return _with_services(settings, FakeAgent(), action)

    def status(run_id: int) -> str:
        async def action(services: Services) -> str:
            async with services.sessions() as session:
                row = await session.get(Investigation, run_id)
                assert row is not None
                return row.status

        return _with_services(settings, FakeAgent(), action)

    stopped = _investigation(settings, org, InvestigationStatus.STOPPED)
    assert _start(settings, kind, stopped) is None
    assert _transition(settings, lambda s: runs.fail(s, kind, stopped, "x")) is False
    assert finish(stopped) is False
    assert status(stopped) == InvestigationStatus.STOPPED
    # The same finish of an unfinished one goes through.
    working = _investigation(settings, org, InvestigationStatus.IN_PROGRESS)
    assert finish(working) is True
    assert status(working) == InvestigationStatus.COMPLETED


# --- run_now: the synchronous mode ---------------------------------------------------------------


def test_run_now_fails_the_run_when_the_request_is_cancelled(
    rc: Any, org: OrgHandle, settings: Settings
) -> None:
    run_id = pending(rc, org)
    _set_status(settings, run_id, "IN_PROGRESS")

    class Hanging(FakeAgent):
        async def answer(self, ctx: AgentContext, question: str, **kwargs: Any) -> AgentResult:
            await asyncio.sleep(60)
            raise AssertionError("not cancelled")

    row = interaction_row(settings, run_id)

    async def action(services: Services) -> None:
        task = asyncio.create_task(runs.run_now(services, INTERACTION, row))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    _with_services(settings, Hanging(), action)
    row = interaction_row(settings, run_id)
    assert (row.status, row.error) == ("FAILED", runs.INTERRUPTED)


# --- agent output the core refuses (InvalidSources) ---------------------------------------------


class CollidingSources(FakeAgent):
    """A plug-in agent citing source ids ``7`` and ``"7"``, which the renderer refuses."""

    async def answer(self, ctx: AgentContext, question: str, **kwargs: Any) -> AgentResult:
        return AgentResult(
            markdown="See [[source:7]]",
            sources={7: LOGS, "7": LOGS},  # type: ignore[dict-item]
            credits=1.0,
        )

    async def digest_section(self, ctx: AgentContext, section: str, prompt: str) -> AgentResult:
        return await self.answer(ctx, prompt)


REFUSED = "The agent's answer could not be rendered: two sources share the marker id '7'"


def test_refused_sources_fail_a_sync_interaction_with_a_clear_detail(
    settings: Settings, org: OrgHandle
) -> None:
    app = create_app(settings, **fakes(CollidingSources()))
    with TestClient(app=app, raise_server_exceptions=False) as client:
        response = client.post(URL, json={"question": "why?"}, headers=org.headers)
        assert response.status_code == 500
        assert response.json() == {"detail": REFUSED}
        [row] = [r for r in _all_interactions(settings)]
        assert (row.status, row.error) == ("FAILED", REFUSED)
        shown = client.get(f"{URL}/{row.id}", headers=org.headers).json()
        assert shown["status"] == "FAILED"
    assert usage(settings) == []


def test_refused_sources_fail_a_background_interaction(settings: Settings, org: OrgHandle) -> None:
    agent = CollidingSources()
    app = create_app(settings, **fakes(agent))
    with TestClient(app=app, raise_server_exceptions=False) as client:
        run_id = pending(client, org)
    run_worker_until(settings, agent)
    row = interaction_row(settings, run_id)
    assert (row.status, row.error) == ("FAILED", REFUSED)
    [job] = jobs(settings, INTERACTION.job_kind)
    assert (job.status, job.last_error) == ("failed", REFUSED)


def test_refused_sources_fail_a_sync_digest_run(settings: Settings, org: OrgHandle) -> None:
    app = create_app(settings, **fakes(CollidingSources()))
    with TestClient(app=app, raise_server_exceptions=False) as client:
        created = client.post(
            "/api/v1/digests",
            json={
                "team_name": "Default",
                "name": "Morning",
                "sections": [{"section": "Errors", "prompt": "What failed?"}],
                "schedule": "0 9 * * 0-4",
            },
            headers=org.headers,
        )
        assert created.status_code == 200, created.text
        digest_id = created.json()["id"]
        response = client.post(
            f"/api/v1/digests/{digest_id}/run", json={"run_sync": True}, headers=org.headers
        )
        assert response.status_code == 500
        assert response.json() == {"detail": REFUSED}


def _all_interactions(settings: Settings) -> list[Interaction]:
    from interaction_helpers import fetch

    return fetch(settings, Interaction)
