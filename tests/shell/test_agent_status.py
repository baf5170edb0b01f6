"""``set_alert_responder_status`` on every back end (one statement on PostgreSQL, a transaction of
prebuilt statements on SQLite): each effect of a pause and a resume (the status and
``updated_at``, the agent-version bump and its change row, the prune of old change rows, the stop
of the agent's pending investigations and of no one else's), nothing at all for another
organization's agent, and concurrent changes that each get their own version."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest
from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_core.ids import encode_global_id
from sleuth_shell.api.alert_responders import set_alert_responder_status
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.agent_versions import KEEP_CHANGES
from sleuth_shell.db.hot_reads import HotReader, dispose_engine, shared_reader
from sleuth_shell.db.models import (
    AgentIndexVersion,
    AlertResponder,
    AlertResponderChange,
    Investigation,
)
from sleuth_shell.errors import ApiError
from sleuth_shell.statuses import InvestigationStatus

pytestmark = pytest.mark.storage

T = TypeVar("T")
Sessions = async_sessionmaker[AsyncSession]


def with_db(url: str, action: Callable[[HotReader, Sessions], Awaitable[T]]) -> T:
    """Run ``action(reader, sessions)`` on a fresh engine of ``url`` (closed afterwards)."""

    async def go() -> T:
        engine = create_engine(url)
        try:
            return await action(shared_reader(engine), create_session_factory(engine))
        finally:
            await dispose_engine(engine)

    return asyncio.run(go())


async def add_agents(sessions: Sessions, org: Any, count: int) -> list[int]:
    async with sessions() as session:
        agents = [
            AlertResponder(
                org_id=org.id,
                team_id=org.default_team_id,
                name=f"agent {n}",
                match_rules={"conditions": []},
            )
            for n in range(count)
        ]
        session.add_all(agents)
        await session.commit()
        return [agent.id for agent in agents]


async def add_investigation(sessions: Sessions, org: Any, agent_id: int, status: str) -> int:
    async with sessions() as session:
        row = Investigation(
            org_id=org.id,
            team_id=org.default_team_id,
            alert_responder_id=agent_id,
            name=f"{status} of {agent_id}",
            status=status,
            prompt="p",
        )
        session.add(row)
        await session.commit()
        return row.id


async def snapshot(sessions: Sessions, org_id: int) -> dict[str, Any]:
    """The organization's agents (status, updated_at), version, change rows and investigations."""
    async with sessions() as session:
        agents = {
            agent_id: (status, updated_at)
            for agent_id, status, updated_at in await session.execute(
                select(AlertResponder.id, AlertResponder.status, AlertResponder.updated_at).where(
                    AlertResponder.org_id == org_id
                )
            )
        }
        version = await session.scalar(
            select(AgentIndexVersion.version).where(AgentIndexVersion.org_id == org_id)
        )
        changes = [
            (int(v), int(a))
            for v, a in await session.execute(
                select(AlertResponderChange.version, AlertResponderChange.alert_responder_id)
                .where(AlertResponderChange.org_id == org_id)
                .order_by(AlertResponderChange.version)
            )
        ]
        investigations = dict(
            (await session.execute(select(Investigation.id, Investigation.status))).all()
        )
        return {
            "agents": agents,
            "version": version,
            "changes": changes,
            "investigations": investigations,
        }


def gid(agent_id: int) -> str:
    return encode_global_id("AlertResponder", agent_id)


@pytest.mark.parametrize("fast", [True, False])
def test_pause_and_resume_make_every_effect(migrated_url, factory, org, fast) -> None:
    other = factory.org("other")
    pending, done = InvestigationStatus.PENDING, InvestigationStatus.COMPLETED

    async def go(reader: HotReader, sessions: Sessions) -> list[dict[str, Any]]:
        agent, neighbour = await add_agents(sessions, org, 2)
        (stranger,) = await add_agents(sessions, other, 1)
        for agent_id, owner in ((agent, org), (neighbour, org), (stranger, other)):
            await add_investigation(sessions, owner, agent_id, pending)
        await add_investigation(sessions, org, agent, pending)
        await add_investigation(sessions, org, agent, done)
        states = [await snapshot(sessions, org.id)]
        for status in ("PAUSED", "PAUSED", "ACTIVE", "ACTIVE"):
            await set_alert_responder_status(
                reader, sessions, org.id, gid(agent), status, fast=fast
            )
            states.append(await snapshot(sessions, org.id))
        return [{"agent": agent, "neighbour": neighbour, "stranger": stranger}, *states]

    ids, before, paused, paused_again, resumed, resumed_again = with_db(migrated_url, go)
    agent, neighbour = ids["agent"], ids["neighbour"]
    version = before["version"]
    # The pause: PAUSED with a later updated_at, one version with its change row, the agent's two
    # pending investigations stopped; its finished one, the neighbour's and the other
    # organization's pending ones untouched.
    assert paused["agents"][agent][0] == "PAUSED"
    assert paused["agents"][agent][1] > before["agents"][agent][1]
    assert paused["agents"][neighbour] == before["agents"][neighbour]
    assert paused["version"] == version + 1
    assert paused["changes"] == [*before["changes"], (version + 1, agent)]
    stopped = {
        key
        for key, status in paused["investigations"].items()
        if status != before["investigations"][key]
    }
    assert len(stopped) == 2
    assert {paused["investigations"][key] for key in stopped} == {InvestigationStatus.STOPPED}
    assert sorted(paused["investigations"].values()).count(InvestigationStatus.PENDING) == 2
    # A second pause changes nothing but would stop a pending investigation (none left).
    assert paused_again == paused
    # The resume: ACTIVE, one more version and change row; the stopped stay stopped.
    assert resumed["agents"][agent][0] == "ACTIVE"
    assert resumed["version"] == version + 2
    assert resumed["changes"] == [*paused["changes"], (version + 2, agent)]
    assert resumed["investigations"] == paused["investigations"]
    # Enabling an ACTIVE agent writes nothing (not even updated_at).
    assert resumed_again == resumed


@pytest.mark.parametrize("status", ["PAUSED", "ACTIVE"])
def test_another_organizations_agent_is_404_and_untouched(
    migrated_url, factory, org, status
) -> None:
    other = factory.org("other")

    async def go(reader: HotReader, sessions: Sessions) -> tuple[Any, Any, list[str]]:
        (agent,) = await add_agents(sessions, org, 1)
        await add_investigation(sessions, org, agent, InvestigationStatus.PENDING)
        async with sessions() as session:  # a paused agent, for the resume
            await session.execute(
                update(AlertResponder.__table__)
                .where(AlertResponder.__table__.c.id == agent)
                .values(status="PAUSED" if status == "ACTIVE" else "ACTIVE")
            )
            await session.commit()
        before = await snapshot(sessions, org.id)
        details = []
        for target in (gid(agent), gid(agent + 1000), "not-an-id"):
            with pytest.raises(ApiError) as raised:
                await set_alert_responder_status(
                    reader, sessions, other.id, target, status, fast=True
                )
            details.append(f"{raised.value.status_code} {raised.value.detail}")
        return before, await snapshot(sessions, org.id), details

    before, after, details = with_db(migrated_url, go)
    assert details == ["404 Alert responder not found"] * 3
    assert after == before


def test_old_change_rows_are_pruned(migrated_url, org) -> None:
    async def go(reader: HotReader, sessions: Sessions) -> tuple[int, dict[str, Any]]:
        (agent,) = await add_agents(sessions, org, 1)
        changes = AlertResponderChange.__table__
        async with sessions() as session:
            await session.execute(
                update(AgentIndexVersion.__table__)
                .where(AgentIndexVersion.__table__.c.org_id == org.id)
                .values(version=KEEP_CHANGES + 1)
            )
            await session.execute(
                insert(changes),
                [
                    {"org_id": org.id, "version": v, "alert_responder_id": v}
                    for v in (2, 3, 4, KEEP_CHANGES + 1)
                ],
            )
            await session.commit()
        await set_alert_responder_status(reader, sessions, org.id, gid(agent), "PAUSED", fast=True)
        return agent, await snapshot(sessions, org.id)

    agent, state = with_db(migrated_url, go)
    # Version KEEP_CHANGES + 2: the rows up to version 2 are pruned, 3 and later stay.
    assert state["version"] == KEEP_CHANGES + 2
    assert [v for v, _ in state["changes"]] == [3, 4, KEEP_CHANGES + 1, KEEP_CHANGES + 2]
    assert state["changes"][-1] == (KEEP_CHANGES + 2, agent)


def test_concurrent_changes_each_get_a_version(migrated_url, org) -> None:
    """Twelve agents of one organization paused at once, each also paused twice more at the same
    time: twelve changes, twelve consecutive versions, one change row each."""

    async def go(reader: HotReader, sessions: Sessions) -> tuple[list[int], Any, Any]:
        agents = await add_agents(sessions, org, 12)
        before = await snapshot(sessions, org.id)
        await asyncio.gather(
            *(
                set_alert_responder_status(
                    reader, sessions, org.id, gid(agent), "PAUSED", fast=True
                )
                for agent in agents * 3
            )
        )
        return agents, before, await snapshot(sessions, org.id)

    agents, before, after = with_db(migrated_url, go)
    version = before["version"]
    assert {status for status, _ in after["agents"].values()} == {"PAUSED"}
    assert after["version"] == version + len(agents)
    new = after["changes"][len(before["changes"]) :]
    assert [v for v, _ in new] == list(range(version + 1, version + len(agents) + 1))
    assert sorted(a for _, a in new) == sorted(agents)


@pytest.mark.parametrize("fast", [True, False])
def test_pauses_and_resumes_at_once_each_change_is_bumped_once(migrated_url, org, fast) -> None:
    """One agent paused and resumed by many requests at the same time, while investigations of it
    are opened: every change that happened has exactly one version and one change row (no bump
    without a change, none lost), the status is what the number of changes says, and a last
    pause leaves no pending investigation behind (whatever was opened meanwhile)."""
    rounds = 24

    async def go(reader: HotReader, sessions: Sessions) -> tuple[int, Any, Any, Any]:
        (agent,) = await add_agents(sessions, org, 1)
        before = await snapshot(sessions, org.id)
        changes = [
            set_alert_responder_status(
                reader, sessions, org.id, gid(agent), "PAUSED" if n % 2 else "ACTIVE", fast=fast
            )
            for n in range(rounds)
        ]
        openings = [
            add_investigation(sessions, org, agent, InvestigationStatus.PENDING)
            for _ in range(rounds // 3)
        ]
        await asyncio.gather(*changes, *openings)
        middle = await snapshot(sessions, org.id)
        await set_alert_responder_status(reader, sessions, org.id, gid(agent), "PAUSED", fast=fast)
        return agent, before, middle, await snapshot(sessions, org.id)

    agent, before, middle, after = with_db(migrated_url, go)
    new = middle["changes"][len(before["changes"]) :]
    version = before["version"] or 0
    assert middle["version"] == version + len(new)
    assert [v for v, _ in new] == list(range(version + 1, version + len(new) + 1))
    assert {a for _, a in new} <= {agent}
    # Each change flips the status: from ACTIVE, an odd number of changes leaves it PAUSED.
    assert middle["agents"][agent][0] == ("PAUSED" if len(new) % 2 else "ACTIVE")
    assert len(new) >= 1
    assert InvestigationStatus.PENDING not in after["investigations"].values()


def test_a_pause_racing_a_delete_of_the_agent_never_deadlocks(
    migrated_url, org, backend, monkeypatch
) -> None:
    """PostgreSQL: a delete that has stopped the agent's pending investigations (its first write)
    and a pause that has changed the agent's status (its first) each wait for the other's row
    locks unless both lock the agent row first: the pause would then wait for the
    investigations, the delete for the agent row, and the server would abort one with a
    deadlock error (a 500). Both succeed, and the agent is gone."""
    if backend != "postgresql":
        pytest.skip("SQLite has one writer at a time: the two never interleave")
    from sleuth_shell.api import alert_responders

    stop = alert_responders.stop_pending_investigations

    async def go(reader: HotReader, sessions: Sessions) -> tuple[list[Any], Any]:
        (agent,) = await add_agents(sessions, org, 1)
        await add_investigation(sessions, org, agent, InvestigationStatus.PENDING)
        pausing: list[asyncio.Task[None]] = []

        async def stop_then_let_the_pause_in(target: Any, agent_id: int) -> None:
            await stop(target, agent_id)
            pausing.append(
                asyncio.create_task(
                    set_alert_responder_status(
                        reader, sessions, org.id, gid(agent), "PAUSED", fast=True
                    )
                )
            )
            await asyncio.sleep(0.3)  # the pause runs up to its first lock wait

        monkeypatch.setattr(
            alert_responders, "stop_pending_investigations", stop_then_let_the_pause_in
        )

        async def delete() -> None:
            async with sessions() as session:
                await alert_responders.delete_alert_responder(session, org.id, gid(agent))

        outcomes = await asyncio.gather(delete(), return_exceptions=True)
        outcomes += await asyncio.gather(*pausing, return_exceptions=True)
        return outcomes, await snapshot(sessions, org.id)

    outcomes, after = with_db(migrated_url, go)
    assert outcomes == [None, None]
    assert after["agents"] == {}
