"""`db/hot_reads.py`: a hot read returns exactly what the ORM session would, sees every commit made
before it, and takes the plain-sqlite3 path only where a second connection sees the same data."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import LargeBinary, bindparam, func, select, text, update
from sqlalchemy.ext.asyncio import create_async_engine

from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.hot_reads import HotRead, HotReader
from sleuth_shell.db.models import AlertResponder, ApiKey, Organization, Team
from tests.shell.conftest import Factory, OrgHandle

_agents, _teams = AlertResponder.__table__, Team.__table__
AGENT_WITH_TEAM = HotRead(
    select(*_agents.columns, _teams.c.name.label("team_name"))
    .join(_teams, _teams.c.id == _agents.c.team_id)
    .where(_agents.c.id == bindparam("pk"), _agents.c.org_id == bindparam("org_id"))
)
KEYS_OF_ORG = HotRead(
    select(ApiKey.id, ApiKey.last_used_at)
    .where(ApiKey.org_id == bindparam("org_id"))
    .order_by(ApiKey.id)
)


def _agent(factory: Factory, org: OrgHandle) -> AlertResponder:
    row: AlertResponder = factory.add(
        AlertResponder(
            org_id=org.id,
            team_id=org.default_team_id,
            name="Checkout errors",
            runbook_prompt="Check the dashboards, then the deploy log.",
            runbook_active=True,
            text_matches=["checkout*", "payments ERROR"],
            match_rules={"rules": [{"contains": "checkout"}]},
            chat_channel_id="C0CHECKOUT",
            webhook_sources=[],
            notification_integration_ids=[3, 5],
            status="ACTIVE",
        )
    )
    return row


async def _session_read(url: str, params: dict[str, Any]) -> dict[str, Any] | None:
    engine = create_engine(url)
    try:
        async with create_session_factory(engine)() as session:
            row = (await session.execute(AGENT_WITH_TEAM.statement, params)).mappings().first()
            return None if row is None else dict(row)
    finally:
        await engine.dispose()


@pytest.mark.storage
def test_a_hot_read_equals_the_session_read(
    migrated_url: str, backend: str, factory: Factory, org: OrgHandle
) -> None:
    agent = _agent(factory, org)
    params = {"pk": agent.id, "org_id": org.id}

    async def go() -> tuple[dict[str, Any] | None, dict[str, Any] | None, bool]:
        engine = create_engine(migrated_url)
        reader = HotReader(engine)
        try:
            hot = await AGENT_WITH_TEAM.first(reader, params)
            other_org = await AGENT_WITH_TEAM.first(reader, {"pk": agent.id, "org_id": org.id + 1})
            assert other_org is None
            return hot, await _session_read(migrated_url, params), reader.inline
        finally:
            await reader.aclose()
            await engine.dispose()

    hot, via_session, inline = asyncio.run(go())
    assert inline is (backend == "sqlite")
    assert hot is not None and hot == via_session
    # Types are converted as the ORM converts them: JSON columns, aware UTC datetimes.
    assert hot["text_matches"] == ["checkout*", "payments ERROR"]
    assert hot["match_rules"] == {"rules": [{"contains": "checkout"}]}
    assert hot["notification_integration_ids"] == [3, 5]
    assert hot["team_name"] == "Default"
    assert isinstance(hot["created_at"], datetime) and hot["created_at"].tzinfo is not None


@pytest.mark.storage
def test_a_hot_read_sees_every_commit_made_before_it(
    migrated_url: str, factory: Factory, org: OrgHandle
) -> None:
    """The reader's connection keeps no snapshot between reads: a write committed through the
    async engine (another connection, another thread on SQLite) is visible to the next read."""
    stamp = datetime(2026, 11, 23, 12, 30, tzinfo=UTC)

    async def go() -> list[list[dict[str, Any]]]:
        engine = create_engine(migrated_url)
        reader = HotReader(engine)
        sessions = create_session_factory(engine)
        try:
            seen = [await KEYS_OF_ORG.all(reader, {"org_id": org.id})]
            async with sessions() as session:
                await session.execute(
                    update(ApiKey).where(ApiKey.org_id == org.id).values(last_used_at=stamp)
                )
                await session.commit()
            seen.append(await KEYS_OF_ORG.all(reader, {"org_id": org.id}))
            return seen
        finally:
            await reader.aclose()
            await engine.dispose()

    before, after = asyncio.run(go())
    assert [row["last_used_at"] for row in before] == [None]
    assert [row["last_used_at"] for row in after] == [stamp]


def test_an_in_memory_database_is_read_through_the_engine() -> None:
    """A second sqlite3 connection to ``:memory:`` would see an empty database of its own."""

    async def go() -> bool:
        engine = create_async_engine("sqlite+aiosqlite:///:memory:")
        try:
            return HotReader(engine).inline
        finally:
            await engine.dispose()

    assert asyncio.run(go()) is False


def test_the_reader_cannot_write(migrated_url: str, factory: Factory, org: OrgHandle) -> None:
    """The plain connection is opened ``query_only``: a statement that writes fails instead of
    taking SQLite's write lock on the event loop thread."""

    async def go() -> None:
        engine = create_engine(migrated_url)
        reader = HotReader(engine)
        try:
            with pytest.raises(sqlite3.OperationalError, match="readonly"):
                reader._connection().execute("DELETE FROM api_keys")
        finally:
            reader.close()
            await engine.dispose()

    asyncio.run(go())


@pytest.mark.storage
def test_a_read_that_meets_a_dropped_connection_is_tried_again(
    migrated_url: str, backend: str, factory: Factory, org: OrgHandle
) -> None:
    """PostgreSQL: the reader's pool pings nothing on checkout, so a connection the server
    dropped (here: terminated by an administrator) fails one read, which is tried again on a
    fresh connection; the caller sees the row."""
    if backend != "postgresql":
        pytest.skip("SQLite connections are files of this process; nothing can drop them")
    agent = _agent(factory, org)
    params = {"pk": agent.id, "org_id": org.id}

    backend_pid = HotRead(select(func.pg_backend_pid().label("pid")))

    async def go() -> tuple[dict[str, Any] | None, dict[str, Any] | None, list[int]]:
        engine = create_engine(migrated_url)
        reader = HotReader(engine)
        try:
            first = await AGENT_WITH_TEAM.first(reader, params)
            pid = (await backend_pid.first(reader, {}) or {})["pid"]  # the pooled connection
            async with engine.connect() as admin:
                await admin.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            again = await AGENT_WITH_TEAM.first(reader, params)  # fails once, tried again
            new_pid = (await backend_pid.first(reader, {}) or {})["pid"]
            return first, again, [pid, new_pid]
        finally:
            await reader.aclose()
            await engine.dispose()

    first, again, (pid, new_pid) = asyncio.run(go())
    assert first is not None and again == first
    assert new_pid != pid  # the dropped connection was replaced


@pytest.mark.storage
def test_the_session_pool_pings_a_connection_that_sat_idle(migrated_url: str, backend: str) -> None:
    """PostgreSQL: a pooled connection unused for over a second is pinged on checkout, so one the
    server dropped meanwhile is replaced before the session uses it (the session succeeds); one
    used a moment ago is not pinged (its session fails, and the pool starts afresh)."""
    if backend != "postgresql":
        pytest.skip("SQLite connections are files of this process; they are never pinged")
    from sleuth_shell.db.engine import PING_AFTER_IDLE

    async def pid_of(sessions: Any) -> int:
        async with sessions() as session:
            return int(await session.scalar(select(func.pg_backend_pid())))

    async def go() -> tuple[int, int, int, bool]:
        engine = create_engine(migrated_url)
        sessions = create_session_factory(engine)
        admin = create_async_engine(engine.url)
        try:
            first = await pid_of(sessions)
            async with admin.connect() as connection:
                await connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": first})
            await asyncio.sleep(PING_AFTER_IDLE + 0.5)  # idle: pinged, found dead, replaced
            second = await pid_of(sessions)
            async with admin.connect() as connection:
                await connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": second})
            failed = False
            try:  # used a moment ago: not pinged, so the dead connection fails its statement
                await pid_of(sessions)
            except Exception:
                failed = True
            third = await pid_of(sessions)  # the pool was invalidated: a fresh connection
            return first, second, third, failed
        finally:
            await admin.dispose()
            await engine.dispose()

    first, second, third, failed = asyncio.run(go())
    assert first != second and third not in (first, second)
    assert failed


@pytest.mark.storage
def test_reads_made_together_each_get_their_own_row(
    migrated_url: str, backend: str, factory: Factory, org: OrgHandle
) -> None:
    """``first`` reads made in the same turn of the event loop (concurrent requests) each get
    what they would get alone: their organization's row, None for another organization's agent
    or an unknown one. On PostgreSQL they are one round trip (the reads of a batch)."""
    other = factory.org("globex")
    mine, theirs = _agent(factory, org), _agent(factory, other)
    asks = [
        {"pk": mine.id, "org_id": org.id},
        {"pk": theirs.id, "org_id": other.id},
        {"pk": theirs.id, "org_id": org.id},  # another organization's agent: nothing
        {"pk": mine.id, "org_id": org.id},  # the same read twice
        {"pk": theirs.id + 1000, "org_id": other.id},  # no such agent
    ]

    async def go() -> tuple[list[Any], list[Any], int]:
        engine = create_engine(migrated_url)
        reader = HotReader(engine)
        trips = 0
        fetch = reader._fetch

        async def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal trips
            trips += 1
            return await fetch(*args, **kwargs)

        reader._fetch = counted  # type: ignore[method-assign]
        try:
            alone = [await AGENT_WITH_TEAM.first(reader, ask) for ask in asks]
            trips = 0
            together = await asyncio.gather(*(AGENT_WITH_TEAM.first(reader, a) for a in asks))
            return alone, together, trips
        finally:
            await reader.aclose()
            await engine.dispose()

    alone, together, trips = asyncio.run(go())
    assert together == alone
    assert [row and (row["id"], row["org_id"]) for row in together] == [
        (mine.id, org.id),
        (theirs.id, other.id),
        None,
        (mine.id, org.id),
        None,
    ]
    assert together[0] is not None and together[0]["match_rules"] == mine.match_rules
    if backend == "postgresql":
        assert trips == 1


@pytest.mark.storage
def test_a_read_the_database_refuses_fails_alone(
    migrated_url: str, backend: str, factory: Factory, org: OrgHandle
) -> None:
    """PostgreSQL: a reader whose value the statement refuses (an id beyond the column's
    ``INTEGER``) gets its error, and the others read with it in the same turn their rows."""
    if backend != "postgresql":
        pytest.skip("the SQLite reads are not batched (each runs inline)")
    agent = _agent(factory, org)
    good = {"pk": agent.id, "org_id": org.id}

    async def go() -> list[Any]:
        engine = create_engine(migrated_url)
        reader = HotReader(engine)
        try:
            return await asyncio.gather(
                AGENT_WITH_TEAM.first(reader, good),
                AGENT_WITH_TEAM.first(reader, {"pk": 2**40, "org_id": org.id}),
                AGENT_WITH_TEAM.first(reader, good),
                return_exceptions=True,
            )
        finally:
            await reader.aclose()
            await engine.dispose()

    first, refused, last = asyncio.run(go())
    assert isinstance(refused, Exception) and "out of int32 range" in str(refused)
    assert isinstance(first, dict) and first["id"] == agent.id and last == first


@pytest.mark.storage
def test_a_reader_that_goes_away_leaves_the_others_their_rows(
    migrated_url: str, backend: str, factory: Factory, org: OrgHandle
) -> None:
    """PostgreSQL: a request cancelled while its read waits for its batch (its client left) does
    not disturb the reads made with it."""
    if backend != "postgresql":
        pytest.skip("a SQLite read runs inline: nothing waits")
    agent = _agent(factory, org)
    params = {"pk": agent.id, "org_id": org.id}

    async def go() -> list[Any]:
        engine = create_engine(migrated_url)
        reader = HotReader(engine)
        try:
            reads = [asyncio.ensure_future(AGENT_WITH_TEAM.first(reader, params)) for _ in "abc"]
            await asyncio.sleep(0)  # each is waiting for its row now
            reads[1].cancel()
            return await asyncio.gather(*reads, return_exceptions=True)
        finally:
            await reader.aclose()
            await engine.dispose()

    first, cancelled, last = asyncio.run(go())
    assert isinstance(first, dict) and first["id"] == agent.id and last == first
    assert isinstance(cancelled, asyncio.CancelledError)


async def _alone_and_together(
    url: str, read: HotRead, asks: list[dict[str, Any]]
) -> tuple[list[Any], list[Any]]:
    """``read``'s first row for each of ``asks`` read one at a time, then all in one turn of the
    event loop (one batch on PostgreSQL); an error as its type name."""

    def shown(outcome: Any) -> Any:
        return type(outcome).__name__ if isinstance(outcome, BaseException) else outcome

    engine = create_engine(url)
    reader = HotReader(engine)
    try:
        alone = []
        for ask in asks:
            try:
                alone.append(await read.first(reader, ask))
            except Exception as exc:
                alone.append(exc)
        together = await asyncio.gather(
            *(read.first(reader, ask) for ask in asks), return_exceptions=True
        )
        return [shown(o) for o in alone], [shown(o) for o in together]
    finally:
        await reader.aclose()
        await engine.dispose()


@pytest.mark.storage
def test_a_batched_read_filters_each_set_by_its_own_values(
    migrated_url: str, backend: str, factory: Factory, org: OrgHandle
) -> None:
    """Reads made together get what each gets alone, whatever the statement's shape: a string
    longer than its column is compared whole (an array of ``VARCHAR(64)`` would cut it to the
    stored value), a statement whose only FROM is its parameters computes each reader's own
    value (not the first reader's), and a named parameter that carries a default is the one
    each reader gives."""
    stored = "a" * 64
    key = factory.add(ApiKey(org_id=org.id, key_hash=stored, prefix="p", admin=False))
    by_hash = HotRead(select(ApiKey.id).where(ApiKey.key_hash == bindparam("key_hash")))
    no_table = HotRead(select(func.length(bindparam("blob", type_=LargeBinary)).label("n")))
    defaulted = HotRead(
        select(ApiKey.id).where(
            ApiKey.id == bindparam("pk", -1), ApiKey.org_id == bindparam("org_id")
        )
    )
    cases = [
        (by_hash, [{"key_hash": stored + "b"}, {"key_hash": stored}]),
        (no_table, [{"blob": b"abc"}, {"blob": b"\x00\x01"}, {"blob": None}]),
        (defaulted, [{"pk": key.id, "org_id": org.id}, {"org_id": org.id}]),
    ]
    answers = [asyncio.run(_alone_and_together(migrated_url, read, asks)) for read, asks in cases]
    for alone, together in answers:
        assert together == alone
    assert [alone for alone, _ in answers] == [
        [None, {"id": key.id}],
        [{"n": 3}, {"n": 2}, {"n": None}],
        [{"id": key.id}, None],
    ]


@pytest.mark.storage
def test_a_statement_that_cannot_be_batched_is_read_alone(
    migrated_url: str, backend: str, factory: Factory, org: OrgHandle
) -> None:
    """A parameter of no type (inside a function: no array type to send the sets as) makes the
    statement one that is not batched: readers made together get their rows, not the batch's
    failure (each reader's request cancelled)."""
    stored = "b" * 64
    key = factory.add(ApiKey(org_id=org.id, key_hash=stored, prefix="p", admin=False))
    lowered = HotRead(select(ApiKey.id).where(ApiKey.key_hash == func.lower(bindparam("text"))))
    alone, together = asyncio.run(
        _alone_and_together(migrated_url, lowered, [{"text": stored.upper()}, {"text": "x"}])
    )
    assert alone == [{"id": key.id}, None]
    assert together == alone


@pytest.mark.storage
def test_closing_the_reader_answers_the_reads_waiting_for_their_batch(
    migrated_url: str, backend: str, factory: Factory, org: OrgHandle
) -> None:
    """PostgreSQL: a read asked in the turn the reader is closed (its batch not started yet) is
    answered before the pool closes, and opens no pool after it (one nobody would close)."""
    if backend != "postgresql":
        pytest.skip("a SQLite read runs inline: nothing waits")
    agent = _agent(factory, org)
    params = {"pk": agent.id, "org_id": org.id}

    async def go() -> tuple[Any, bool]:
        engine = create_engine(migrated_url)
        reader = HotReader(engine)
        try:
            await AGENT_WITH_TEAM.first(reader, params)  # the pool is open
            while reader._batches:  # that read's batch is over
                await asyncio.sleep(0)
            read = asyncio.ensure_future(AGENT_WITH_TEAM.first(reader, params))
            await asyncio.sleep(0)  # the read waits for its batch, not started yet
            await reader.aclose()
            row = await read
            return row, reader._pool is not None
        finally:
            if reader._pool is not None:
                await reader._pool.close()
            await engine.dispose()

    row, reopened = asyncio.run(go())
    assert isinstance(row, dict) and row["id"] == agent.id
    assert not reopened


@pytest.mark.storage
def test_a_parameter_in_a_subquery_filters_only_its_own_read(
    migrated_url: str, backend: str, factory: Factory, org: OrgHandle
) -> None:
    """A statement whose parameter is inside a subquery (``IN (SELECT ...)``): read together,
    each organization's read gets its own key, never another organization's (a subquery of the
    batch that read every set's parameters would match any of them)."""
    other = factory.org("globex")
    by_org_name = HotRead(
        select(ApiKey.id, ApiKey.org_id)
        .where(
            ApiKey.org_id.in_(
                select(Organization.id).where(Organization.name == bindparam("org_name"))
            )
        )
        .order_by(ApiKey.id)
    )
    alone, together = asyncio.run(
        _alone_and_together(
            migrated_url, by_org_name, [{"org_name": org.name}, {"org_name": other.name}]
        )
    )
    assert [row and row["org_id"] for row in alone] == [org.id, other.id]
    assert together == alone


def test_a_statement_is_compiled_for_the_dialect_it_runs_on_not_one_gone_before() -> None:
    """The compiled forms are kept per dialect object: a new dialect that happens to get the
    address (``id``) of one already garbage-collected (engines made and disposed in turn, as the
    tests do with both back ends) gets its own compilation, never the other's SQL."""
    import gc

    from sqlalchemy.dialects import postgresql, sqlite

    read = HotRead(select(ApiKey.id).where(ApiKey.org_id == bindparam("org_id")))
    wrong = []
    for n in range(20):
        dialect = postgresql.asyncpg.dialect() if n % 2 else sqlite.aiosqlite.dialect()
        positional = "$1" in read._for(dialect).sql
        batched = read._batched_for(dialect)
        if (
            positional != (dialect.name == "postgresql")
            or batched is None
            or ("$1" in batched[0].sql) != positional
        ):
            wrong.append(n)
        del dialect, batched
        gc.collect(1)  # the dialect freed now: its id is free for the next one
    assert wrong == []
