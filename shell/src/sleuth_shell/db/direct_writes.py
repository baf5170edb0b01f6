"""Direct writes: a short write transaction of prebuilt Core statements, run on the SQLite
driver connection without an ORM session and without SQLAlchemy's per-execute machinery.

A synchronous interaction pays two small write transactions whatever the agent answers (the row
inserted ``IN_PROGRESS`` and committed before the agent runs; then the finishing ``UPDATE ...
RETURNING``, the usage row, both rollups, any notification jobs and the commit). Through an
``AsyncSession`` each statement costs a greenlet switch, a cache key, ``_init_compiled`` and result
set-up, and each commit the session's bookkeeping: about half of the request's CPU (see
docs/performance.md).

:class:`DirectTransaction` is one of the two :class:`~sleuth_shell.db.executor.Executor`
implementations: the operations are written once over that protocol and run here or on a
session's connection unchanged.

:class:`DirectWriter` keeps SQLAlchemy's meaning of each statement (it is compiled once per
dialect, with the engine's bind and result processors: JSON, UTC datetimes) and runs it on the
driver connection of a pooled engine connection: on SQLite the aiosqlite
:class:`~sleuth_shell.db.sqlite_reads.InlineReadConnection`, so that every statement and the
commit run on the event loop thread with the process's write lock held as for any other writer
(first write tried inline, then on aiosqlite's thread when another process writes); once the
transaction holds the write lock, its further statements go straight to the sqlite3 connection
(:meth:`~sleuth_shell.db.sqlite_reads.InlineReadConnection.execute_held`: no aiosqlite cursor,
future or dispatch for a call that runs inline anyway). Every other
engine (PostgreSQL) gets ``None`` from :func:`direct_writer` and takes the session path.

A transaction that is left without :meth:`DirectTransaction.commit` (an exception, a change of
plan) is rolled back before its connection goes back to the pool.

:func:`execute_many` runs a prebuilt ``INSERT``'s rows inside a session's own transaction, the
same way on SQLite (one ``executemany`` on the session's driver connection) and through the
session elsewhere: the intake's jobs and alert decisions, written beside the ORM work of its
group commit.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import aiosqlite
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.pool import PoolProxiedConnection
from sqlalchemy.util import greenlet_spawn

from sleuth_shell.db.commit_totals import CommitTotals
from sleuth_shell.db.compiled import CompiledStatement
from sleuth_shell.db.sqlite_reads import InlineReadConnection

__all__ = [
    "DirectTransaction",
    "DirectWriter",
    "direct_writer",
    "engine_direct_writer",
    "execute_many",
]


class DirectTransaction:
    """One write transaction on a driver connection (see the module doc): an
    :class:`~sleuth_shell.db.executor.Executor`."""

    dialect_name = "sqlite"

    def __init__(self, writer: DirectWriter, driver: aiosqlite.Connection) -> None:
        self._writer = writer
        self._driver = driver
        self._callbacks: dict[Callable[[], None], None] = {}
        self._totals = CommitTotals()
        self.open = True

    async def execute(self, statement: Any, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Run ``statement`` (a prebuilt Core statement with named bound parameters); its rows
        (a ``SELECT``'s or a ``RETURNING``'s) as dicts converted like SQLAlchemy's result, else
        ``[]``."""
        compiled = self._writer.compiled(statement)
        arguments = compiled.arguments(params)
        driver = self._driver
        # Once the transaction holds the write lock (after its first write), on the sqlite3
        # connection directly (the engines of create_engine connect InlineReadConnections).
        held = (
            driver.execute_held(compiled.sql, arguments)
            if isinstance(driver, InlineReadConnection)
            else None
        )
        rows: Iterable[Any]
        if held is not None:
            rows = held
        else:
            cursor = await driver.cursor()
            try:
                await cursor.execute(compiled.sql, arguments)
                rows = await cursor.fetchall() if compiled.names else []
            finally:
                await cursor.close()
        if not compiled.names:
            return []
        return [compiled.row(values) for values in rows]

    async def execute_many(self, statement: Any, rows: Sequence[Mapping[str, Any]]) -> None:
        """Run ``statement`` (a prebuilt Core ``INSERT`` with named bound parameters) once per
        row, as one ``executemany``."""
        compiled = self._writer.compiled(statement)
        cursor = await self._driver.cursor()
        try:
            await cursor.executemany(compiled.sql, compiled.arguments_many(rows))
        finally:
            await cursor.close()

    def add_at_commit(
        self,
        order: int,
        statement: Any,
        key: tuple[Any, ...],
        params: Mapping[str, Any],
        totals: Sequence[str],
    ) -> None:
        """Run ``statement`` once per key just before :meth:`commit`, ``totals`` summed (see
        :class:`~sleuth_shell.db.executor.CommitTotals`)."""
        self._totals.add(order, statement, key, params, totals)

    def insert_at_commit(self, statement: Any, params: Mapping[str, Any]) -> None:
        """Insert the row just before :meth:`commit`, with the other rows of ``statement`` in one
        ``executemany`` (see :meth:`~sleuth_shell.db.executor.Executor.insert_at_commit`)."""
        self._totals.insert(statement, params)

    async def commit(self) -> None:
        for statement, rows in self._totals.drain_inserts():
            await self.execute_many(statement, rows)
        for statement, params in self._totals.drain():
            await self.execute(statement, params)
        await self._driver.commit()
        self.open = False
        callbacks, self._callbacks = self._callbacks, {}
        for callback in callbacks:
            callback()

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once after :meth:`commit` (never after a rollback)."""
        self._callbacks[callback] = None

    async def rollback(self) -> None:
        self.open = False
        self._callbacks.clear()
        self._totals = CommitTotals()
        await self._driver.rollback()


class DirectWriter:
    """The direct-write path of one SQLite engine (one per engine, see :func:`direct_writer`).

    It keeps one pooled connection checked out between its transactions (the parked connection)
    and runs the next transaction on it when it is free, without the pool's checkout and return
    (each a greenlet hop, the return also a reset rollback). A transaction that starts while
    another has it checks a connection out of the pool as before; at its end a connection is
    parked again when none is, else returned. The parked connection is closed when the engine is
    disposed. Locking is unchanged: every transaction is still its own SQLite transaction on its
    own connection, taking the process's write lock at its first write."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._compiled: dict[Any, CompiledStatement] = {}
        self._parked: PoolProxiedConnection | None = None
        self._generation = 0  # engine disposals seen: a connection of an older pool is returned
        event.listen(engine.sync_engine, "engine_disposed", self._disposed)

    def _disposed(self, engine: Engine) -> None:
        # Runs inside AsyncEngine.dispose's greenlet: the close below may await the driver.
        # Forgotten by :func:`engine_direct_writer` (the next use of the engine makes a new writer):
        # this writer refers to its engine, so the weak key alone would never let the pair go (a
        # process that makes and disposes engine after engine, as the test suite does, would keep
        # every one with its compiled statements).
        if _writers.get(engine) is self:
            del _writers[engine]
        self._generation += 1
        parked, self._parked = self._parked, None
        if parked is not None:
            parked.invalidate()

    def compiled(self, statement: Any) -> CompiledStatement:
        found = self._compiled.get(statement)
        if found is None:
            found = self._compiled[statement] = CompiledStatement(statement, self.engine.dialect)
        return found

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[DirectTransaction]:
        """A driver connection for one transaction (the parked one when free, else a pooled one);
        rolled back when the block is left without a commit."""
        generation = self._generation
        pooled = self._parked
        if pooled is not None:
            self._parked = None
        else:
            # A pooled DBAPI connection without a Connection around it (one greenlet hop).
            pooled = await self.engine.raw_connection()
        ended = False
        try:
            driver = pooled.driver_connection
            assert isinstance(driver, aiosqlite.Connection)
            transaction = DirectTransaction(self, driver)
            try:
                yield transaction
            finally:
                if transaction.open:
                    await transaction.rollback()
                # Outside a transaction (committed or rolled back), unless the block wrote again
                # after its commit: that transaction goes back to the pool, whose reset rolls it
                # back (parked, the next transaction would join it and commit it).
                ended = not driver.in_transaction
        finally:
            if ended and self._parked is None and generation == self._generation:
                self._parked = pooled
            else:
                # Back to the pool (its reset on return is a no-op rollback outside a
                # transaction, a real one after a failed rollback).
                await greenlet_spawn(pooled.close)


_writers: weakref.WeakKeyDictionary[Engine, DirectWriter | None] = weakref.WeakKeyDictionary()


def direct_writer(sessions: async_sessionmaker[AsyncSession]) -> DirectWriter | None:
    """The :class:`DirectWriter` of the sessions' engine when it is SQLite through aiosqlite
    (the engines of :func:`~sleuth_shell.db.engine.create_engine` connect with
    :func:`~sleuth_shell.db.sqlite_reads.connect_inline_reads`), else ``None``."""
    return engine_direct_writer(sessions.kw.get("bind"))


def engine_direct_writer(engine: Any) -> DirectWriter | None:
    """:func:`direct_writer` for an engine (a session's ``bind``)."""
    if not isinstance(engine, AsyncEngine):
        return None
    sync_engine = engine.sync_engine
    try:
        return _writers[sync_engine]
    except KeyError:
        pass
    writer = None
    if engine.dialect.name == "sqlite" and engine.dialect.driver == "aiosqlite":
        writer = DirectWriter(engine)
    _writers[sync_engine] = writer
    return writer


async def execute_many(
    session: AsyncSession, statement: Any, rows: Sequence[Mapping[str, Any]]
) -> None:
    """Run ``statement`` (a prebuilt Core ``INSERT`` whose values are named bound parameters,
    every one given by every row) once per row, in ``session``'s transaction: on SQLite one
    ``executemany`` of its compiled form on the session's driver connection (the direct writer's
    compilation and bind processors, without the session's per-row parameter machinery, which cost
    more than SQLite's own work for the rows of an alert batch; see docs/performance.md), elsewhere
    through the session."""
    if not rows:
        return
    writer = engine_direct_writer(session.bind)
    if writer is None:
        await session.execute(statement, rows)
        return
    connection = await session.connection()
    pooled = await connection.get_raw_connection()
    driver = pooled.driver_connection
    assert isinstance(driver, aiosqlite.Connection)
    compiled = writer.compiled(statement)
    cursor = await driver.cursor()
    try:
        await cursor.executemany(compiled.sql, compiled.arguments_many(rows))
    finally:
        await cursor.close()
