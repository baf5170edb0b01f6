"""SQLite reads without a thread hop: an aiosqlite connection that runs non-blocking calls inline.

aiosqlite runs every call on its connection's thread and resolves a future back on the event
loop: two thread switches (and a GIL hand-over) per call, several calls per query. On a busy
2-core machine that hop, not SQLite, was most of the cost of an authenticated read (see
docs/performance.md).

:class:`InlineReadConnection` runs a call directly on the event loop thread when it cannot wait
for a lock: a ``SELECT`` (in WAL mode, set by
:func:`~sleuth_shell.db.dialect.install_connection_setup`, readers never wait for the writer),
fetching rows, closing cursors, creating a cursor, and a commit or rollback with no transaction
open (a no-op). The first writing statement of a transaction takes SQLite's write lock: it is tried
on the loop thread with a busy timeout of 0, tried again after short sleeps on the loop while
another process writes (:data:`BUSY_RETRY_DELAYS`, about 60 ms), and only then handed to
aiosqlite's thread with the normal busy timeout, so a busy database never blocks the event loop.
Pragmas, connecting and closing go through the thread. Once a transaction holds the
write lock, its further statements, its commit and its rollback cannot wait for any lock (in WAL
mode readers never block the writer) and run inline too: a write transaction costs no thread hop
(each hand-over waited for the GIL behind the busy event loop, which made
the write lock's hold time, and so the job throughput, several times longer; see
docs/performance.md). A ``SELECT`` that must wait (a WAL checkpoint restart, rare and short) is the
one exception, accepted for the common case. Nothing runs inline while a call still runs on
aiosqlite's thread (a first write waiting there for another process, whose caller may have been
cancelled meanwhile): the call queues behind it on the thread, as aiosqlite would run it, instead of
sharing the sqlite3 connection with it (a cursor closed under its running statement, a rollback
blocking the event loop until that statement ends).

Writers of one process take turns through an asyncio lock per database file (:func:`write_lock`,
a :class:`WriteLock`: writers marked urgent with :func:`urgent_writes` alternate with the others),
held from the first writing statement of a transaction to its commit or rollback. SQLite allows one
writer at a time anyway; without the lock, concurrent writers (the worker's jobs, requests) collide
on the database lock and sleep in SQLite's busy handler (1 ms to 100 ms backoff), which left the
database idle most of the time under load. Writers of other processes still meet SQLite's busy
timeout. Waiting for the lock longer than the busy timeout fails like SQLite would, with
``database is locked``.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import sqlite3
import weakref
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import aiosqlite

from sleuth_shell.db.dialect import SQLITE_BUSY_TIMEOUT_MS

__all__ = [
    "InlineReadConnection",
    "WriteLock",
    "connect_inline_reads",
    "urgent_writes",
    "write_lock",
]

#: Seconds a writer waits for the in-process write lock before failing (SQLite's busy timeout).
WRITE_LOCK_TIMEOUT = 10.0
#: Sleeps (seconds) between inline tries of a first write while another process writes (about
#: 60 ms in all); after them the write waits on aiosqlite's thread with SQLite's busy timeout.
BUSY_RETRY_DELAYS = (0.0005, 0.001, 0.001, 0.002, 0.002, 0.004, 0.004, 0.008, 0.008, 0.015, 0.015)

_urgent: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "sleuth_urgent_writes", default=False
)


@contextmanager
def urgent_writes() -> Iterator[None]:
    """Within this block (of the current task), write transactions are *urgent*: they take the
    write lock ahead of ordinary writers (see :class:`WriteLock`). For work a client is waiting
    for while background jobs write (the alert intake's delivery batches)."""
    token = _urgent.set(True)
    try:
        yield
    finally:
        _urgent.reset(token)


class WriteLock:
    """An asyncio lock handed over in turns: urgent and ordinary waiters alternate.

    When both kinds wait, an urgent waiter goes next after an ordinary holder and an ordinary one
    after an urgent holder, so urgent writers (a request's delivery batch) wait for at most one
    ordinary transaction however many background jobs queue, and the jobs still get every other
    turn. Within a kind, first come, first served."""

    def __init__(self) -> None:
        self._held = False
        self._last_urgent = False
        self._waiters: dict[bool, deque[asyncio.Future[None]]] = {True: deque(), False: deque()}

    def locked(self) -> bool:
        """Whether someone holds the lock."""
        return self._held

    async def acquire(self, *, urgent: bool = False) -> bool:
        """Wait for the lock (cancellable; a cancelled waiter never ends up holding it)."""
        if not self._held and not self._waiters[True] and not self._waiters[False]:
            self._held = True
            self._last_urgent = urgent
            return True
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._waiters[urgent]
        queue.append(future)
        try:
            await future
        except asyncio.CancelledError:
            if future in queue:
                queue.remove(future)
            elif future.done() and not future.cancelled():
                self.release()  # handed over just as we were cancelled: pass it on
            raise
        return True

    def release(self) -> None:
        """Hand the lock to the next waiter (see the class doc), or free it."""
        if not self._held:
            raise RuntimeError("WriteLock is not acquired")
        order = (False, True) if self._last_urgent else (True, False)
        for urgent in order:
            queue = self._waiters[urgent]
            while queue:
                future = queue.popleft()
                if not future.done():
                    self._last_urgent = urgent
                    future.set_result(None)
                    return
        self._held = False


_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, WriteLock]] = (
    weakref.WeakKeyDictionary()
)


def write_lock(database: str) -> WriteLock:
    """The lock the writers of ``database`` take turns with, in the running event loop."""
    loop = asyncio.get_running_loop()
    per_loop = _locks.setdefault(loop, {})
    lock = per_loop.get(database)
    if lock is None:
        lock = per_loop[database] = WriteLock()
    return lock


def _lock_key(database: str) -> str | None:
    """The file a connection string names, or None for an in-memory database (no sharing)."""
    if database == ":memory:" or "mode=memory" in database:
        return None
    path = database[len("file:") :].split("?", 1)[0] if database.startswith("file:") else database
    return os.path.realpath(path)


_CURSOR_INLINE = frozenset({"fetchone", "fetchmany", "fetchall", "close"})
_READ_PREFIXES = ("SELECT", "select")


_DML_PREFIXES = ("INSERT", "UPDATE", "DELETE", "insert", "update", "delete")


def _is_dml(sql: object) -> bool:
    return isinstance(sql, str) and sql.lstrip().startswith(_DML_PREFIXES)


def _is_read(sql: object) -> bool:
    return isinstance(sql, str) and sql.lstrip().startswith(_READ_PREFIXES)


class _Busy(Exception):
    """Another connection holds SQLite's write lock."""


class InlineReadConnection(aiosqlite.Connection):
    """An aiosqlite connection whose non-blocking calls run on the event loop thread and whose
    write transactions take turns with the process's other writers of the same file."""

    def __init__(
        self,
        connector: Callable[[], sqlite3.Connection],
        iter_chunk_size: int,
        lock_key: str | None,
    ) -> None:
        super().__init__(connector, iter_chunk_size)
        self._lock_key = lock_key
        self._write_lock: WriteLock | None = None
        # The sqlite3 connection's busy timeout is 0 (not SQLITE_BUSY_TIMEOUT_MS) since its last
        # inline first write: set back before the next call that could wait for a lock.
        self._no_wait = False
        # Calls handed to aiosqlite's thread (counted on the loop) and finished there (counted on
        # the thread): while they differ, a call is still running there (also one whose caller
        # was cancelled meanwhile) and nothing runs inline beside it (see :meth:`_thread_idle`).
        self._queued = 0
        self._finished = 0

    def _in_transaction(self) -> bool:
        connection = self._connection
        if connection is None:
            return False
        try:
            return connection.in_transaction
        except sqlite3.ProgrammingError:  # closed
            return False

    def _release_if_idle(self) -> None:
        if self._write_lock is not None and not self._in_transaction():
            lock, self._write_lock = self._write_lock, None
            if lock.locked():
                lock.release()

    def _thread_idle(self) -> bool:
        """Whether no call runs (or waits to run) on aiosqlite's thread. A call the loop ran
        inline beside one would share its sqlite3 connection: a cursor's ``close`` while its
        ``execute`` waits for another process's write lock fails (``Recursive use of cursors``),
        a ``rollback`` blocks the event loop until that statement ends (up to the busy timeout)."""
        return self._queued == self._finished

    def _holds_write(self) -> bool:
        """True inside a write transaction this connection began (it holds SQLite's write lock)."""
        return self._write_lock is not None and self._in_transaction()

    def execute_held(self, sql: str, arguments: Sequence[Any]) -> list[Any] | None:
        """``sql`` straight on the sqlite3 connection, when this connection is in a write
        transaction it began (its statements cannot wait for a lock, so they would run inline
        anyway): its rows (``[]`` for none). ``None`` when it is not (nothing run: the caller
        runs the statement the usual way). Without aiosqlite's cursor, future and dispatch."""
        if not self._holds_write() or not self._thread_idle():
            return None
        connection = self._connection
        assert connection is not None
        try:
            cursor = connection.execute(sql, arguments)
            try:
                return cursor.fetchall()
            finally:
                cursor.close()
        finally:
            self._release_if_idle()  # as after any call (an error may have ended the transaction)

    def _inline(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> bool:
        owner = getattr(fn, "__self__", None)
        name = getattr(fn, "__name__", "")
        if isinstance(owner, sqlite3.Cursor):
            if name in _CURSOR_INLINE:
                return True
            if name in ("execute", "executemany") and self._holds_write():
                return True
            return name == "execute" and bool(args) and _is_read(args[0])
        if isinstance(owner, sqlite3.Connection):
            if name == "cursor":
                return True
            if name in ("commit", "rollback"):
                return not owner.in_transaction or self._holds_write()
        return False

    def _wait_when_busy(self) -> None:
        """The normal busy timeout again, after an inline first write set it to 0."""
        if self._no_wait and self._connection is not None:
            self._connection.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            self._no_wait = False

    async def _execute(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if (
            self._connection is not None
            and self._running
            and self._thread_idle()
            and self._inline(fn, args)
        ):
            if (
                self._no_wait
                and getattr(fn, "__name__", "") == "execute"
                and not self._holds_write()
            ):
                self._wait_when_busy()  # a read outside a write transaction may wait
            try:
                return fn(*args, **kwargs)
            finally:
                self._release_if_idle()
        if (
            self._lock_key is not None
            and self._write_lock is None
            and self._connection is not None
            and getattr(fn, "__name__", "") in ("execute", "executemany", "executescript")
            and not self._in_transaction()
        ):
            lock = write_lock(self._lock_key)
            urgent = _urgent.get()
            if not lock.locked():
                await lock.acquire(urgent=urgent)  # free: taken without yielding to the loop
            else:
                try:
                    await asyncio.wait_for(lock.acquire(urgent=urgent), WRITE_LOCK_TIMEOUT)
                except TimeoutError:
                    raise sqlite3.OperationalError("database is locked") from None
            self._write_lock = lock
            if (
                self._running
                and self._thread_idle()
                and isinstance(getattr(fn, "__self__", None), sqlite3.Cursor)
                and args
                and _is_dml(args[0])
            ):
                try:
                    return await self._first_write_soon(fn, args, kwargs)
                except _Busy:
                    pass  # another process keeps writing: wait for it on aiosqlite's thread
                finally:
                    self._release_if_idle()
        # On aiosqlite's thread, anything may wait: the normal busy timeout first (there, after
        # any call still running on it).
        wait = self._no_wait
        self._no_wait = False
        self._queued += 1

        def on_thread() -> Any:
            try:
                connection = self._connection
                if wait and connection is not None:
                    connection.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
                return fn(*args, **kwargs)
            finally:
                self._finished += 1

        try:
            return await super()._execute(on_thread)  # type: ignore[no-untyped-call]
        finally:
            self._release_if_idle()

    async def _first_write_soon(
        self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """The first write inline, retried after short sleeps on the event loop while another
        process holds SQLite's write lock (:data:`BUSY_RETRY_DELAYS`); raises :class:`_Busy` when
        it still does. SQLite's own busy handler sleeps 1, 2, 5, 10, 15, 20 ms and so on between
        tries; another ``sleuth`` process's write transactions last a millisecond or two, so
        trying again after a millisecond takes the lock soon after it is released."""
        for delay in BUSY_RETRY_DELAYS:
            try:
                return self._first_write_inline(fn, args, kwargs)
            except _Busy:
                await asyncio.sleep(delay)
        return self._first_write_inline(fn, args, kwargs)

    def _first_write_inline(
        self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """Run a transaction's first write on the event loop thread, without waiting: raises
        :class:`_Busy` (nothing written) when another process holds SQLite's write lock."""
        connection = self._connection
        assert connection is not None
        if not self._no_wait:
            # Left at 0 until a call that may wait (:meth:`_wait_when_busy`): consecutive
            # transactions of one connection that begin with a write set it once.
            connection.execute("PRAGMA busy_timeout = 0")
            self._no_wait = True
        try:
            return fn(*args, **kwargs)
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_BUSY:
                raise _Busy from exc
            raise

    def stop(self) -> asyncio.Future[Any] | None:
        """Stop the thread (closing the connection rolls back): give up the write lock too."""
        lock, self._write_lock = self._write_lock, None
        if lock is not None and lock.locked():
            lock.release()
        future: asyncio.Future[Any] | None = super().stop()
        return future


def connect_inline_reads(database: str, **kwargs: Any) -> InlineReadConnection:
    """Like :func:`aiosqlite.connect`, returning an :class:`InlineReadConnection` (SQLAlchemy's
    ``async_creator_fn`` connect argument of the aiosqlite dialect)."""
    # The connection is used from the event loop thread and from aiosqlite's thread, one call at
    # a time; sqlite3 must not insist on a single thread.
    kwargs["check_same_thread"] = False

    def connector() -> sqlite3.Connection:
        connection: sqlite3.Connection = sqlite3.connect(database, **kwargs)
        return connection

    connection = InlineReadConnection(connector, 64, _lock_key(database))
    connection._thread.daemon = True  # as SQLAlchemy does for aiosqlite's own connections
    return connection
