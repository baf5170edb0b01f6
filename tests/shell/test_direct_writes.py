"""The fast path and the session path store the same rows, for every request shape.

``SLEUTH_FAST_PATH`` (:attr:`Settings.fast_path`) switches a synchronous interaction's writes
between a direct transaction on SQLite's driver connection and a session
(:mod:`sleuth_shell.db.executor`). Each shape is asked once through an app with the setting on and
once through an app with it off, on the same database, and everything the request stored is
compared as stored, column by column: the interaction, its usage row, the rollups' change, the
queued jobs (run and notification) and, once the worker delivered them, the chat outbox. On
PostgreSQL both settings take the session path; the comparison runs there too.
"""

from __future__ import annotations

import asyncio
import gc
import json
import pathlib
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from conftest import Factory, OrgHandle
from interaction_helpers import FakeAgent, fakes, run_worker_until
from litestar import Litestar
from litestar.testing import TestClient
from sqlalchemy import Column, Integer, MetaData, Table, bindparam, insert, select, text

from sleuth_shell.app import create_app
from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine
from sleuth_shell.db.dialect import SQLITE_BUSY_TIMEOUT_MS
from sleuth_shell.db.direct_writes import DirectTransaction, engine_direct_writer

pytestmark = pytest.mark.storage

URL = "/api/v1/interactions"
QUESTION = "Why did checkout fail?"
#: Interaction columns that differ between two requests whatever the path.
_PER_REQUEST = ("id", "created_at", "started_at", "completed_at", "scheduled_runtime")
#: Job columns the worker's timing decides (claims, retries) rather than the path.
_WORKER_TIMING = ("id", "run_at", "created_at", "updated_at", "lease_until", "locked_by")


def _rows(settings: Settings, sql: str, **params: Any) -> list[dict[str, Any]]:
    """Rows as the driver returns them (no SQLAlchemy type processing), in id order."""

    async def go() -> list[dict[str, Any]]:
        engine = create_engine(settings.database_url)
        try:
            async with engine.connect() as connection:
                result = await connection.execute(text(sql), params)
                return [dict(row._mapping) for row in result]
        finally:
            await engine.dispose()

    return asyncio.run(go())


def _max_id(settings: Settings, table: str) -> int:
    [row] = _rows(settings, f"SELECT COALESCE(MAX(id), 0) AS top FROM {table}")
    return int(row["top"])


def _rollups(settings: Settings) -> dict[tuple[str, Any], tuple[float, int]]:
    out: dict[tuple[str, Any], tuple[float, int]] = {}
    for table in ("usage_daily", "usage_monthly"):
        for row in _rows(settings, f"SELECT team_key, credits, events FROM {table}"):
            out[(table, row["team_key"])] = (float(row["credits"]), int(row["events"]))
    return out


def _delta(
    before: dict[tuple[str, Any], tuple[float, int]],
    after: dict[tuple[str, Any], tuple[float, int]],
) -> dict[tuple[str, Any], tuple[float, int]]:
    zero = (0.0, 0)
    return {
        key: (value[0] - before.get(key, zero)[0], value[1] - before.get(key, zero)[1])
        for key, value in after.items()
        if value != before.get(key, zero)
    }


def _anonymous(value: Any, interaction_id: str) -> Any:
    """``value`` with the interaction's id (in payloads, URLs and cards) replaced by ``<id>``."""
    if isinstance(value, str):
        return value.replace(interaction_id, "<id>")
    if isinstance(value, dict | list):
        dumped = json.dumps(value, sort_keys=True).replace(interaction_id, "<id>")
        return json.loads(dumped)
    return value


class Path:
    """One app on the test database, with ``SLEUTH_FAST_PATH`` on or off."""

    def __init__(self, settings: Settings, client: TestClient[Litestar], agent: FakeAgent) -> None:
        self.settings = settings
        self.client = client
        self.agent = agent


@pytest.fixture
def paths(settings: Settings) -> Iterator[dict[bool, Path]]:
    out: dict[bool, Path] = {}
    clients = []
    for fast in (True, False):
        agent = FakeAgent()
        path_settings = settings.model_copy(update={"fast_path": fast})
        client = TestClient(app=create_app(path_settings, **fakes(agent)))
        client.__enter__()
        clients.append(client)
        out[fast] = Path(path_settings, client, agent)
    try:
        yield out
    finally:
        for client in clients:
            client.__exit__(None, None, None)


@pytest.fixture
def commits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts direct-transaction commits (a spy on the class, not a switch of paths)."""
    counted: list[int] = []
    original = DirectTransaction.commit

    async def commit(transaction: DirectTransaction) -> None:
        counted.append(1)
        await original(transaction)

    monkeypatch.setattr(DirectTransaction, "commit", commit)
    return counted


Shape = Callable[[Factory, OrgHandle, str], tuple[dict[str, Any], dict[str, str] | None]]
"""A request: (factory, org, an earlier interaction's id) -> (body, headers or the org's)."""

SHAPES: dict[str, Shape] = {
    "plain": lambda f, o, earlier: ({"question": QUESTION}, None),
    "no tools, user": lambda f, o, earlier: (
        {"question": QUESTION, "use_tools": False, "user_id": "U042"},
        None,
    ),
    "team key": lambda f, o, earlier: (
        {"question": QUESTION},
        {"X-Service-Org-Api-Key": f.key(o, team="Payments")},
    ),
    "notifications": lambda f, o, earlier: (
        {
            "question": QUESTION,
            "notifications": {
                "chat": {"chat_channel_ids": ["C0INCIDENT", "G0PRIVATE"]},
                "alt": {"alt_webhook_urls": ["http://127.0.0.1:9/alt"]},
            },
        },
        None,
    ),
    "context": lambda f, o, earlier: (
        {
            "question": "And what about payments?",
            "context": [{"interaction_id": earlier}, {"content": "It began after the deploy."}],
        },
        None,
    ),
    "background": lambda f, o, earlier: ({"question": QUESTION, "async": True}, None),
    "background with callback": lambda f, o, earlier: (
        {
            "question": QUESTION,
            "notifications": {
                "web": {"callback_url": "http://127.0.0.1:9/cb"},
                "chat": {"chat_channel_ids": ["C0INCIDENT"]},
            },
        },
        None,
    ),
    "chat delivered": lambda f, o, earlier: (
        {"question": QUESTION, "notifications": {"chat": {"chat_channel_ids": ["C0DELIVER"]}}},
        None,
    ),
}
#: Shapes whose queued jobs the worker runs before the rows are compared.
_WORKED = {"background", "background with callback", "chat delivered"}


def _without_clock(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_clock(v) for k, v in value.items() if k != "scheduled_runtime"}
    if isinstance(value, list):
        return [_without_clock(v) for v in value]
    return value


def _stored(path: Path, shape: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    """Ask once through ``path``; everything the request stored, ids made anonymous."""
    settings = path.settings
    if shape in _WORKED:
        # Earlier shapes' queued notifications are delivered first, not during this request.
        run_worker_until(settings, path.agent)
    top = {table: _max_id(settings, table) for table in ("jobs", "usage_events", "chat_messages")}
    rollups = _rollups(settings)
    response = path.client.post(URL, json=body, headers=headers)
    assert response.status_code == 200, response.text
    answer = response.json()
    interaction_id = answer.get("interaction_id") or answer["interactions"][0]["interaction_id"]
    if shape in _WORKED:

        def delivered() -> bool:
            [row] = _rows(
                settings, "SELECT status FROM interactions WHERE id = :id", id=interaction_id
            )
            chat = _rows(
                settings,
                "SELECT id FROM chat_messages WHERE id > :top",
                top=top["chat_messages"],
            )
            return row["status"] == "COMPLETED" and (shape == "background" or bool(chat))

        run_worker_until(settings, path.agent, delivered)
    [interaction] = _rows(settings, "SELECT * FROM interactions WHERE id = :id", id=interaction_id)
    assert interaction["status"] == "COMPLETED", interaction
    new = {
        table: _rows(settings, f"SELECT * FROM {table} WHERE id > :top ORDER BY id", top=top[table])
        for table in top
    }
    jobs_left_out = _WORKER_TIMING + (
        ("status", "attempts", "last_error") if shape in _WORKED else ()
    )
    return {
        # The answer less its clock (a background answer's scheduled_runtime, in seconds).
        "answer": _anonymous(_without_clock(answer), interaction_id),
        "interaction": {
            k: _anonymous(v, interaction_id)
            for k, v in interaction.items()
            if k not in _PER_REQUEST
        },
        "stored types": {k: type(interaction[k]) for k in _PER_REQUEST},
        "jobs": sorted(
            (
                {k: _anonymous(v, interaction_id) for k, v in job.items() if k not in jobs_left_out}
                for job in new["jobs"]
            ),
            key=lambda job: json.dumps(job, sort_keys=True, default=str),
        ),
        "usage": [
            {k: v for k, v in event.items() if k not in ("id", "occurred_at")}
            for event in new["usage_events"]
        ],
        "usage time format": [len(str(event["occurred_at"])) for event in new["usage_events"]],
        "rollups": _delta(rollups, _rollups(settings)),
        "chat outbox": [
            {
                k: _anonymous(v, interaction_id)
                for k, v in m.items()
                if k not in ("id", "created_at")
            }
            for m in new["chat_messages"]
        ],
    }


def test_every_request_shape_stores_the_same_on_both_paths(
    paths: dict[bool, Path], factory: Factory, org: OrgHandle, backend: str, commits: list[int]
) -> None:
    factory.team(org, "Payments")
    first = paths[True].client.post(URL, json={"question": QUESTION}, headers=org.headers)
    assert first.status_code == 200, first.text
    earlier = first.json()["interaction_id"]
    for shape, make in SHAPES.items():
        body, headers = make(factory, org, earlier)
        headers = headers or org.headers
        commits.clear()
        fast = _stored(paths[True], shape, body, headers)
        fast_commits = len(commits)
        commits.clear()
        through_session = _stored(paths[False], shape, body, headers)
        assert commits == [], shape  # the setting off: no direct transaction at all
        assert fast == through_session, shape
        # What was stored is what the shape asks for (not merely equal on both paths).
        assert fast["usage"] and fast["interaction"]["content"], shape
        assert fast["rollups"], shape
        if backend == "sqlite" and shape not in ("background", "background with callback"):
            # The synchronous row, then the completion with its usage and notification jobs.
            assert fast_commits == 2, shape
        else:
            assert fast_commits == 0, shape
        if shape == "notifications":
            assert sorted(job["kind"] for job in fast["jobs"]) == [
                "notify.alt",
                "notify.chat",
                "notify.chat",
            ]
        if shape == "background with callback":
            assert sorted(job["kind"] for job in fast["jobs"]) == [
                "interaction.run",
                "notify.chat",
                "notify.web",
            ]
        if shape == "chat delivered":
            assert [m["channel_id"] for m in fast["chat outbox"]] == ["C0DELIVER"]
        if shape == "team key":
            assert fast["interaction"]["team_id"] != org.default_team_id
            assert fast["usage"][0]["team_id"] == fast["interaction"]["team_id"]
        if shape == "context":
            history = paths[True].agent.calls[-1]["history"]
            assert paths[False].agent.calls[-1]["history"] == history
            assert [m.role for m in history] == ["user", "assistant", "user"]


def test_a_direct_transaction_runs_on_the_parked_connection_only_when_it_is_free(
    tmp_path: pathlib.Path,
) -> None:
    """The writer's parked connection serves one transaction at a time: one opened meanwhile has
    its own connection and its own snapshot; a connection goes back to the park only when none
    is there, also after a rollback; disposing of the engine closes it."""
    path = tmp_path / "parked.db"
    with sqlite3.connect(path) as setup:
        setup.execute("PRAGMA journal_mode=WAL")
        setup.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)")
    setup.close()
    table = Table("t", MetaData(), Column("id", Integer, primary_key=True), Column("v", Integer))
    add = insert(table).values(v=bindparam("v"))
    values = select(table.c.v).order_by(table.c.id)

    async def go() -> None:
        engine = create_engine(f"sqlite:///{path}")
        writer = engine_direct_writer(engine)
        assert writer is not None
        pool = engine.sync_engine.pool
        # Two pooled connections opened beforehand (opening one waits for the write lock).
        async with engine.connect(), engine.connect():
            pass
        async with writer.transaction() as first:
            await first.execute(add, {"v": 1})
            async with writer.transaction() as second:
                assert second._driver is not first._driver
                assert await second.execute(values, {}) == []  # the first is not committed
            await first.commit()
        parked = second._driver
        assert pool.checkedout() == 1  # one parked, the other returned
        with pytest.raises(RuntimeError):
            async with writer.transaction() as third:
                assert third._driver is parked
                await third.execute(add, {"v": 2})
                raise RuntimeError("a change of plan")
        async with writer.transaction() as fourth:
            assert fourth._driver is parked  # parked again after the rollback
            assert await fourth.execute(values, {}) == [{"v": 1}]
            await fourth.commit()
        await engine.dispose()
        assert writer._parked is None
        assert parked._connection is None  # closed

    asyncio.run(go())


def test_the_busy_timeout_stays_zero_from_an_inline_first_write_to_a_call_that_may_wait(
    tmp_path: pathlib.Path,
) -> None:
    """An inline first write sets the connection's busy timeout to 0 (it must fail at once, not
    sleep on the event loop, when another process writes) and leaves it there: the next
    transaction that begins with a write sets nothing; a read outside a write transaction gets
    the normal timeout back first (a thread call too: see test_request_path.py)."""
    path = tmp_path / "busy.db"
    with sqlite3.connect(path) as setup:
        setup.execute("PRAGMA journal_mode=WAL")
        setup.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)")
    setup.close()
    table = Table("t", MetaData(), Column("id", Integer, primary_key=True), Column("v", Integer))
    add = insert(table).values(v=bindparam("v"))
    values = select(table.c.v).order_by(table.c.id)

    def busy_timeout(driver: Any) -> int:
        return int(driver._connection.execute("PRAGMA busy_timeout").fetchone()[0])

    async def go() -> None:
        engine = create_engine(f"sqlite:///{path}")
        writer = engine_direct_writer(engine)
        assert writer is not None
        try:
            async with writer.transaction() as first:
                driver = first._driver
                assert busy_timeout(driver) == SQLITE_BUSY_TIMEOUT_MS
                await first.execute(add, {"v": 1})
                await first.commit()
            assert busy_timeout(driver) == 0
            statements: list[str] = []
            driver._connection.set_trace_callback(statements.append)
            async with writer.transaction() as second:
                assert second._driver is driver
                await second.execute(add, {"v": 2})
                await second.commit()
            driver._connection.set_trace_callback(None)
            assert statements and not [s for s in statements if "PRAGMA" in s], statements
            async with writer.transaction() as third:
                assert await third.execute(values, {}) == [{"v": 1}, {"v": 2}]
            assert busy_timeout(driver) == SQLITE_BUSY_TIMEOUT_MS
        finally:
            await engine.dispose()

    asyncio.run(go())


def test_a_write_after_the_commit_is_rolled_back_not_parked(tmp_path: pathlib.Path) -> None:
    """A transaction block that writes again after its commit and is left without another one is
    rolled back, as a session's would be (the block's contract): its connection is not parked
    with that transaction open, which the next transaction would otherwise join and commit (and
    which would hold the process's write lock meanwhile)."""
    path = tmp_path / "after.db"
    with sqlite3.connect(path) as setup:
        setup.execute("PRAGMA journal_mode=WAL")
        setup.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)")
    setup.close()
    table = Table("t", MetaData(), Column("id", Integer, primary_key=True), Column("v", Integer))
    add = insert(table).values(v=bindparam("v"))
    values = select(table.c.v).order_by(table.c.id)

    async def go() -> list[dict[str, Any]]:
        engine = create_engine(f"sqlite:///{path}")
        writer = engine_direct_writer(engine)
        assert writer is not None
        try:
            async with writer.transaction() as first:
                await first.execute(add, {"v": 1})
                await first.commit()
                await first.execute(add, {"v": 2})  # never committed
            async with writer.transaction() as second:
                await second.execute(add, {"v": 3})
                await second.commit()
            async with writer.transaction() as third:
                return await third.execute(values, {})
        finally:
            await engine.dispose()

    assert asyncio.run(go()) == [{"v": 1}, {"v": 3}]


def test_a_cancelled_transaction_writes_nothing_and_frees_the_write_lock(
    tmp_path: pathlib.Path,
) -> None:
    """Cancelled while it waits for the write lock, or while it holds it (after a write, before
    its commit): each transaction is rolled back, the lock goes to the next writer at once and
    the connections are parked or returned (none left checked out but the parked one)."""
    path = tmp_path / "cancel.db"
    with sqlite3.connect(path) as setup:
        setup.execute("PRAGMA journal_mode=WAL")
        setup.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)")
    setup.close()
    table = Table("t", MetaData(), Column("id", Integer, primary_key=True), Column("v", Integer))
    add = insert(table).values(v=bindparam("v"))
    values = select(table.c.v).order_by(table.c.id)

    async def go() -> tuple[list[dict[str, Any]], int]:
        engine = create_engine(f"sqlite:///{path}")
        writer = engine_direct_writer(engine)
        assert writer is not None
        wrote, never = asyncio.Event(), asyncio.Event()

        async def write(v: int, *, hold: bool) -> None:
            async with writer.transaction() as tx:
                await tx.execute(add, {"v": v})
                if hold:
                    wrote.set()
                    await never.wait()  # cancelled here, holding the write lock
                await tx.commit()

        try:
            holder = asyncio.create_task(write(1, hold=True))
            await wrote.wait()
            waiter = asyncio.create_task(write(2, hold=False))
            await asyncio.sleep(0.05)  # waiting for the write lock
            assert not waiter.done()
            waiter.cancel()
            holder.cancel()
            for task in (waiter, holder):
                with pytest.raises(asyncio.CancelledError):
                    await task
            # The lock is free: this commits without waiting for WRITE_LOCK_TIMEOUT.
            await asyncio.wait_for(write(3, hold=False), 2)
            async with writer.transaction() as tx:
                found = await tx.execute(values, {})
            return found, engine.sync_engine.pool.checkedout()
        finally:
            await engine.dispose()

    found, checked_out = asyncio.run(go())
    assert found == [{"v": 3}]
    assert checked_out == 1  # the parked connection only


def test_a_transaction_cancelled_while_another_process_writes_is_cancelled_cleanly(
    tmp_path: pathlib.Path,
) -> None:
    """A first write that waits on aiosqlite's thread for another process's write lock, then is
    cancelled (a worker's shutdown): the task ends cancelled (not with ``Recursive use of
    cursors``: its cursor's close and its rollback wait for the statement on the thread instead
    of running inline beside it), the event loop keeps running meanwhile (the rollback does not
    block it until the other process commits), and nothing of it is stored."""
    path = tmp_path / "busy_cancel.db"
    with sqlite3.connect(path) as setup:
        setup.execute("PRAGMA journal_mode=WAL")
        setup.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)")
    setup.close()
    table = Table("t", MetaData(), Column("id", Integer, primary_key=True), Column("v", Integer))
    add = insert(table).values(v=bindparam("v"))
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another process's write transaction
    other.execute("INSERT INTO t (v) VALUES (100)")
    loop_ran = threading.Event()
    seen: list[bool] = []

    def other_commits() -> None:
        # Commits once the event loop has run on after the cancel (or gives up waiting).
        seen.append(loop_ran.wait(5))
        other.execute("COMMIT")

    async def go() -> BaseException | None:
        engine = create_engine(f"sqlite:///{path}")
        writer = engine_direct_writer(engine)
        assert writer is not None

        async def write(v: int) -> None:
            async with writer.transaction() as tx:
                await tx.execute(add, {"v": v})
                await tx.commit()

        committer = threading.Thread(target=other_commits)
        try:
            task = asyncio.create_task(write(2))
            await asyncio.sleep(0.3)  # past the inline tries: waiting on aiosqlite's thread
            assert not task.done()
            committer.start()
            task.cancel()
            await asyncio.sleep(0.05)  # runs only if the cancel did not block the loop
            loop_ran.set()
            try:
                await task
            except BaseException as exc:  # what the task ended with
                ended: BaseException | None = exc
            else:
                ended = None
            await write(3)
            return ended
        finally:
            loop_ran.set()
            await asyncio.to_thread(committer.join)
            await engine.dispose()

    ended = asyncio.run(go())
    other.close()
    assert isinstance(ended, asyncio.CancelledError), repr(ended)
    assert seen == [True]
    with sqlite3.connect(path) as check:
        assert [v for (v,) in check.execute("SELECT v FROM t ORDER BY id")] == [100, 3]
    check.close()


def test_a_disposed_engine_is_freed_with_its_writer_and_reader(tmp_path: pathlib.Path) -> None:
    """The per-engine writer and hot reader refer to their engine, so the registries' weak keys
    alone never let the pair go: disposal forgets both (a process that makes engine after engine
    frees each one's pool, compiled statements and caches)."""
    from sleuth_shell.db.hot_reads import dispose_engine, shared_reader

    async def go(with_reader: bool) -> weakref.ref[Any]:
        engine = create_engine(f"sqlite:///{tmp_path / 'freed.db'}")
        writer = engine_direct_writer(engine)
        assert writer is not None and engine_direct_writer(engine) is writer
        if with_reader:
            shared_reader(engine)
            await dispose_engine(engine)
        else:
            await engine.dispose()
        again = engine_direct_writer(engine)  # the engine is usable again, with a new writer
        assert again is not None and again is not writer
        await engine.dispose()
        return weakref.ref(engine.sync_engine)

    for with_reader in (True, False):
        freed = asyncio.run(go(with_reader))
        gc.collect()
        assert freed() is None, with_reader
