"""SQLite reads without a thread hop: an aiosqlite connection that runs non-blocking calls inline.

aiosqlite runs every call on its connection's thread and resolves a future back on the event
loop: two thread switches (and a GIL hand-over) per call, several calls per query. On a busy
2-core machine that hop, not SQLite, was most of the cost of an authenticated read (see
docs/performance.md).

:class:`InlineReadConnection` runs a call directly on the event loop thread when it cannot wait
for a lock: a ``SELECT`` (in WAL mode, set by
:func:`~sleuth_shell.db.dialect.install_connection_setup`, readers never wait for the writer),
fetching rows, closing cursors, creating a cursor, and a commit or rollback with no transaction
open (a no-op). Everything that can wait on the database lock or write to disk (``INSERT``,
``UPDATE``, ``DELETE``, ``BEGIN``, real commits, pragmas, connecting, closing) still goes through
aiosqlite's thread, so the busy timeout never blocks the event loop. A ``SELECT`` that must wait
(a WAL checkpoint restart, rare and short) is the one exception, accepted for the common case.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import aiosqlite

__all__ = ["InlineReadConnection", "connect_inline_reads"]

_CURSOR_INLINE = frozenset({"fetchone", "fetchmany", "fetchall", "close"})
_READ_PREFIXES = ("SELECT", "select")


def _is_read(sql: object) -> bool:
    return isinstance(sql, str) and sql.lstrip().startswith(_READ_PREFIXES)


class InlineReadConnection(aiosqlite.Connection):
    """An aiosqlite connection whose non-blocking calls run on the event loop thread."""

    def _inline(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> bool:
        owner = getattr(fn, "__self__", None)
        name = getattr(fn, "__name__", "")
        if isinstance(owner, sqlite3.Cursor):
            if name in _CURSOR_INLINE:
                return True
            return name == "execute" and bool(args) and _is_read(args[0])
        if isinstance(owner, sqlite3.Connection):
            if name == "cursor":
                return True
            if name in ("commit", "rollback"):
                return not owner.in_transaction
        return False

    async def _execute(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self._connection is not None and self._running and self._inline(fn, args):
            return fn(*args, **kwargs)
        return await super()._execute(fn, *args, **kwargs)  # type: ignore[no-untyped-call]


def connect_inline_reads(database: str, **kwargs: Any) -> InlineReadConnection:
    """Like :func:`aiosqlite.connect`, returning an :class:`InlineReadConnection` (SQLAlchemy's
    ``async_creator_fn`` connect argument of the aiosqlite dialect)."""
    # The connection is used from the event loop thread and from aiosqlite's thread, one call at
    # a time; sqlite3 must not insist on a single thread.
    kwargs["check_same_thread"] = False

    def connector() -> sqlite3.Connection:
        connection: sqlite3.Connection = sqlite3.connect(database, **kwargs)
        return connection

    connection = InlineReadConnection(connector, 64)
    connection._thread.daemon = True  # as SQLAlchemy does for aiosqlite's own connections
    return connection
