"""``open_investigation``: creation, the 24 h dedup window (injected clock) and single flight under
N concurrent openings, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from conftest import Factory, OrgHandle
from sqlalchemy import func, select
from test_investigations import store_alert

from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import AlertResponder, Investigation, Job
from sleuth_shell.investigations import DEFAULT_PROMPT, open_investigation
from sleuth_shell.investigations.queries import load_investigation

pytestmark = pytest.mark.storage

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def make_agent(factory: Factory, org: OrgHandle, name: str = "payments", **extra: object) -> int:
    values: dict[str, object] = {
        "org_id": org.id,
        "team_id": org.default_team_id,
        "name": name,
        "runbook_prompt": None,
        "runbook_active": False,
        "text_matches": ["*"],
        "match_rules": {"and": [{"contains": ""}]},
        "webhook_sources": [],
        **extra,
    }
    agent = factory.add(AlertResponder(**values))
    return int(agent.id)


async def _open(
    url: str, agent_id: int, *, dedup_key: str | None, now: datetime, name: str = "CPU high"
) -> tuple[int, bool]:
    engine = create_engine(url)
    try:
        async with create_session_factory(engine)() as session:
            agent = await session.get(AlertResponder, agent_id)
            assert agent is not None
            result = await open_investigation(
                session,
                org_id=agent.org_id,
                agent=agent,
                name=name,
                alert_id=await store_alert(session, agent.org_id, '{"title": "CPU high"}'),
                dedup_key=dedup_key,
                now=now,
            )
            await session.commit()
            return result
    finally:
        await engine.dispose()


def _rows(factory: Factory) -> list[Investigation]:
    async def go(session):  # type: ignore[no-untyped-def]
        return list((await session.scalars(select(Investigation).order_by(Investigation.id))).all())

    return factory.run(go)


def _jobs(factory: Factory) -> list[Job]:
    async def go(session):  # type: ignore[no-untyped-def]
        kind = "investigation.run"
        return list((await session.scalars(select(Job).where(Job.kind == kind))).all())

    return factory.run(go)


def test_creates_a_pending_row_with_its_job(
    migrated_url: str, factory: Factory, org: OrgHandle
) -> None:
    agent_id = make_agent(factory, org)
    long_title = "Disk full on db-1 " * 20 + "\nsecond line"
    pk, created = asyncio.run(
        _open(migrated_url, agent_id, dedup_key="K1", now=T0, name=long_title)
    )
    assert created is True
    [row] = _rows(factory)
    assert row.id == pk
    assert row.status == "PENDING"
    assert row.prompt == DEFAULT_PROMPT
    assert row.team_id == org.default_team_id
    assert row.name == long_title.split("\n")[0].strip()[:200]
    assert len(row.name) == 200
    # The payload is the alert's, stored once in the alert log: the row only references it.
    assert row.event_payload == "" and row.alert_id is not None
    read = factory.run(lambda session: load_investigation(session, org.id, pk))
    assert read is not None and read.event_payload == '{"title": "CPU high"}'
    assert row.created_at == T0
    [job] = _jobs(factory)
    assert job.payload == {"investigation_id": pk}
    assert job.key == str(pk)


def test_runbook_prompt_is_used_when_set(
    migrated_url: str, factory: Factory, org: OrgHandle
) -> None:
    agent_id = make_agent(factory, org, runbook_prompt="Check the queue depth", runbook_active=True)
    asyncio.run(_open(migrated_url, agent_id, dedup_key=None, now=T0))
    assert [r.prompt for r in _rows(factory)] == ["Check the queue depth"]


def test_dedup_within_and_after_24_hours(
    migrated_url: str, factory: Factory, org: OrgHandle
) -> None:
    agent_id = make_agent(factory, org)
    other_agent = make_agent(factory, org, name="other")
    first, created = asyncio.run(_open(migrated_url, agent_id, dedup_key="INC-1", now=T0))
    assert created
    # Within 24 h: the same investigation, nothing new.
    again = asyncio.run(
        _open(migrated_url, agent_id, dedup_key="INC-1", now=T0 + timedelta(hours=23, minutes=59))
    )
    assert again == (first, False)
    # Another incident, or the same incident for another agent: new investigations.
    assert asyncio.run(_open(migrated_url, agent_id, dedup_key="INC-2", now=T0))[1] is True
    assert asyncio.run(_open(migrated_url, other_agent, dedup_key="INC-1", now=T0))[1] is True
    # 24 h later: a new one, which the next repeat reuses.
    later, created = asyncio.run(
        _open(migrated_url, agent_id, dedup_key="INC-1", now=T0 + timedelta(hours=24))
    )
    assert created and later != first
    assert asyncio.run(
        _open(migrated_url, agent_id, dedup_key="INC-1", now=T0 + timedelta(hours=25))
    ) == (later, False)
    assert len(_rows(factory)) == 4
    assert len(_jobs(factory)) == 4


def test_no_dedup_key_always_creates(migrated_url: str, factory: Factory, org: OrgHandle) -> None:
    agent_id = make_agent(factory, org)
    a = asyncio.run(_open(migrated_url, agent_id, dedup_key=None, now=T0))
    b = asyncio.run(_open(migrated_url, agent_id, dedup_key=None, now=T0))
    assert a[1] and b[1] and a[0] != b[0]


def test_a_rolled_back_opening_leaves_nothing(
    migrated_url: str, factory: Factory, org: OrgHandle
) -> None:
    agent_id = make_agent(factory, org)

    async def go() -> None:
        engine = create_engine(migrated_url)
        try:
            async with create_session_factory(engine)() as session:
                agent = await session.get(AlertResponder, agent_id)
                assert agent is not None
                await open_investigation(
                    session,
                    org_id=org.id,
                    agent=agent,
                    name="x",
                    alert_id=await store_alert(session, org.id, "{}"),
                    dedup_key="K",
                    now=T0,
                )
                await session.rollback()
        finally:
            await engine.dispose()

    asyncio.run(go())
    assert _rows(factory) == [] and _jobs(factory) == []
    # The claim was not kept: the next opening creates.
    assert asyncio.run(_open(migrated_url, agent_id, dedup_key="K", now=T0))[1] is True


@pytest.mark.parametrize("expired", [False, True], ids=["fresh", "after-window"])
def test_single_flight_under_concurrent_openings(
    migrated_url: str, factory: Factory, org: OrgHandle, expired: bool
) -> None:
    """N openings of one incident at once (each its own engine and connection): exactly one
    investigation is created and every caller gets its id."""
    agent_id = make_agent(factory, org)
    old = None
    if expired:
        old, _ = asyncio.run(_open(migrated_url, agent_id, dedup_key="INC-9", now=T0))
    now = T0 + timedelta(days=2)
    n = 12

    async def burst() -> list[tuple[int, bool]]:
        return list(
            await asyncio.gather(
                *(_open(migrated_url, agent_id, dedup_key="INC-9", now=now) for _ in range(n))
            )
        )

    results = asyncio.run(burst())
    ids = {pk for pk, _ in results}
    assert len(ids) == 1
    assert old not in ids
    assert sum(created for _, created in results) == 1

    async def count(session):  # type: ignore[no-untyped-def]
        return await session.scalar(
            select(func.count())
            .select_from(Investigation)
            .where(Investigation.dedup_key == "INC-9")
        )

    assert factory.run(count) == (2 if expired else 1)
    assert len(_jobs(factory)) == (2 if expired else 1)


def test_migration_0007_backfills_the_claim_and_forgets_default_runbooks(
    database_url: str, backend: str
) -> None:
    """Existing rows: the newest investigation of each (agent, dedup key) takes the claim (so a
    repeat reuses it); agents that stored the default prompt for "no runbook" read null."""
    from sqlalchemy import text

    from sleuth_shell.db import migrate

    migrate(database_url, "0006")
    stamp = {"t": T0}

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

    asyncio.run(
        run(
            "INSERT INTO organizations (name, plan, signing_secret, created_at) "
            "VALUES ('o', 'free', 's', :t)",
            "INSERT INTO teams (org_id, name, created_at) VALUES (1, 'Default', :t)",
            "INSERT INTO alert_responders (org_id, team_id, name, runbook_prompt, runbook_active, "
            "text_matches, match_rules, webhook_sources, status, created_at, updated_at) VALUES "
            f"(1, 1, 'default', '{DEFAULT_PROMPT}', true, '[]', '{{}}', '[]', 'ACTIVE', :t, :t), "
            "(1, 1, 'custom', 'Look.', true, '[]', '{}', '[]', 'ACTIVE', :t, :t), "
            f"(1, 1, 'impact', '{DEFAULT_PROMPT}', true, '[]', '{{}}', '[]', 'ACTIVE', :t, :t)",
            "UPDATE alert_responders SET runbook_impact_prompt = 'How bad?' WHERE name = 'impact'",
            "INSERT INTO investigations (org_id, alert_responder_id, name, status, prompt, "
            "event_payload, result, sources, dedup_key, created_at) VALUES "
            "(1, 1, 'a', 'COMPLETED', 'p', '', '', '[]', 'K', :t), "
            "(1, 1, 'b', 'PENDING', 'p', '', '', '[]', 'K', :t), "
            "(1, 1, 'c', 'PENDING', 'p', '', '', '[]', NULL, :t)",
        )
    )
    migrate(database_url)
    agents, claims = asyncio.run(
        run(
            "SELECT name, runbook_prompt, runbook_active FROM alert_responders ORDER BY id",
            "SELECT id, dedup_active FROM investigations ORDER BY id",
        )
    )
    assert [(a[0], a[1], bool(a[2])) for a in agents] == [
        ("default", None, False),
        ("custom", "Look.", True),
        ("impact", DEFAULT_PROMPT, True),
    ]
    assert [(c[0], c[1] if c[1] is None else bool(c[1])) for c in claims] == [
        (1, None),
        (2, True),
        (3, None),
    ]
