"""One protocol for the writes every path shares: :class:`Executor` (``execute``, ``commit``).

An operation that writes (finishing a run, recording usage, queueing notifications) is written
once, over an :class:`Executor`, and runs unchanged on either implementation:

- :class:`SessionExecutor`: an ``AsyncSession``'s connection (its transaction); any database, and
  the only choice where the operation shares its transaction with ORM work (a job's completion,
  the group commit of :mod:`sleuth_shell.jobs`).
- :class:`~sleuth_shell.db.direct_writes.DirectTransaction`: prebuilt statements on SQLite's
  driver connection without SQLAlchemy's per-execute machinery (the fast path, see
  :mod:`sleuth_shell.db.direct_writes`).

:func:`write_transaction` picks one for a short transaction of its own: the direct transaction
when ``fast`` (the ``SLEUTH_FAST_PATH`` setting) and the engine has a direct writer, else a
session's. ``execute`` takes a Core statement with named bound parameters and returns its rows
(a ``SELECT``'s or a ``RETURNING``'s) as dicts, converted as SQLAlchemy converts them.

``add_at_commit`` defers an upsert that adds to a shared row (the usage rollups) to the
transaction's commit: the additions to one row within one transaction are summed and written by
one statement just before the commit, all such rows in one order (:class:`CommitTotals`). A row
that every transaction adds to (an organization's usage of the day) is then locked for the commit
only, and always in the same order, rather than from the first addition of a long transaction (a
worker's batch of runs) to its end.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Session

from sleuth_shell.db.commit_totals import CommitTotals
from sleuth_shell.db.direct_writes import direct_writer

__all__ = ["CommitTotals", "Executor", "SessionExecutor", "as_executor", "write_transaction"]


class Executor(Protocol):
    """Where a shared operation runs its statements (see the module doc)."""

    @property
    def dialect_name(self) -> str:
        """``sqlite`` or ``postgresql``: the statements built per dialect (upserts) pick by it."""
        ...

    async def execute(self, statement: Any, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Run ``statement`` with ``params``; its result rows as dicts (``[]`` when none)."""
        ...

    async def commit(self) -> None:
        """Commit the transaction (and run the :meth:`after_commit` callbacks)."""
        ...

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once after the transaction commits (never after a rollback); the
        same callback registered twice runs once."""
        ...

    def add_at_commit(
        self,
        order: int,
        statement: Any,
        key: tuple[Any, ...],
        params: Mapping[str, Any],
        totals: Sequence[str],
    ) -> None:
        """Run ``statement`` with ``params`` just before the commit, once per ``(statement,
        key)``: the ``totals`` parameters of the calls with the same statement and key are summed
        (see :class:`CommitTotals`)."""
        ...

    def insert_at_commit(self, statement: Any, params: Mapping[str, Any]) -> None:
        """Insert the row ``params`` with ``statement`` (a prebuilt ``INSERT``, no ``RETURNING``)
        just before the commit, with the transaction's other rows of that statement in one
        ``executemany`` (a batch of runs: one round trip for all their ledger rows). Nothing in
        the transaction sees the row before the commit; an error it meets fails the commit."""
        ...


_CALLBACKS = "sleuth_after_commit"
_TOTALS = "sleuth_commit_totals"


def _run_callbacks(sync_session: Session) -> None:
    for callback in sync_session.info.pop(_CALLBACKS, {}):
        callback()


def _drop_callbacks(sync_session: Session) -> None:
    sync_session.info.pop(_CALLBACKS, None)
    sync_session.info.pop(_TOTALS, None)


def _write_totals(sync_session: Session) -> None:
    """The session's deferred additions, just before its commit (run inside the async session's
    commit, so the statements go out on its connection like a flush's)."""
    totals: CommitTotals | None = sync_session.info.pop(_TOTALS, None)
    if totals is None:
        return
    connection = sync_session.connection()
    for statement, rows in totals.drain_inserts():
        connection.execute(statement, rows)
    for statement, params in totals.drain():
        connection.execute(statement, params)


class SessionExecutor:
    """:class:`Executor` on ``session``'s connection; Core statements, in its transaction.

    :meth:`after_commit` callbacks run after the session's next commit, whoever commits it (the
    caller, or a job's group commit).
    """

    __slots__ = ("session",)

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    @property
    def dialect_name(self) -> str:
        return self.session.get_bind().dialect.name

    async def execute(self, statement: Any, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        connection = await self.session.connection()
        result = await connection.execute(statement, params)
        if not result.returns_rows:
            return []
        return [dict(row) for row in result.mappings()]

    async def commit(self) -> None:
        await self.session.commit()

    def after_commit(self, callback: Callable[[], None]) -> None:
        sync_session = self.session.sync_session
        # A dict keeps one entry per callback, in registration order.
        sync_session.info.setdefault(_CALLBACKS, {})[callback] = None
        _listen(sync_session)

    def add_at_commit(
        self,
        order: int,
        statement: Any,
        key: tuple[Any, ...],
        params: Mapping[str, Any],
        totals: Sequence[str],
    ) -> None:
        self._totals().add(order, statement, key, params, totals)

    def insert_at_commit(self, statement: Any, params: Mapping[str, Any]) -> None:
        self._totals().insert(statement, params)

    def _totals(self) -> CommitTotals:
        sync_session = self.session.sync_session
        if sync_session.get_transaction() is None:
            # The deferred writes belong to a transaction: begun now (no I/O: the connection is
            # taken by the first statement), so that a rollback before any statement drops them.
            sync_session.begin()
        found = sync_session.info.get(_TOTALS)
        if found is None:
            found = sync_session.info[_TOTALS] = CommitTotals()
        _listen(sync_session)
        return found


def _listen(sync_session: Session) -> None:
    if not event.contains(sync_session, "after_commit", _run_callbacks):
        event.listen(sync_session, "before_commit", _write_totals)
        event.listen(sync_session, "after_commit", _run_callbacks)
        event.listen(sync_session, "after_rollback", _drop_callbacks)


def as_executor(target: AsyncSession | Executor) -> Executor:
    """``target`` itself when it is an :class:`Executor`, else its session's executor."""
    if isinstance(target, AsyncSession):
        return SessionExecutor(target)
    return target


def write_transaction(
    sessions: async_sessionmaker[AsyncSession], *, fast: bool
) -> AbstractAsyncContextManager[Executor]:
    """One write transaction of its own: a direct transaction when ``fast`` and the sessions'
    engine has a direct writer (SQLite), else a new session's. Rolled back when the block is
    left without :meth:`Executor.commit`."""
    writer = direct_writer(sessions) if fast else None
    if writer is not None:
        return writer.transaction()
    return _session_transaction(sessions)


@asynccontextmanager
async def _session_transaction(
    sessions: async_sessionmaker[AsyncSession],
) -> AsyncIterator[Executor]:
    async with sessions() as session:
        yield SessionExecutor(session)
