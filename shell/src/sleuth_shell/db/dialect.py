"""Everything that differs between SQLite and PostgreSQL, in one place.

The rest of the shell writes portable SQLAlchemy Core/ORM code and asks this module when it needs
something dialect-specific: the async driver for a URL, SQLite's connection pragmas, an
``INSERT ... ON CONFLICT`` statement, and whether ``SELECT ... FOR UPDATE SKIP LOCKED`` exists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Table, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession
from sqlalchemy.sql.dml import Insert

__all__ = [
    "SQLITE_BUSY_TIMEOUT_MS",
    "async_url",
    "dialect_name",
    "execute_in_chunks",
    "insert_ignore",
    "insert_ignore_rows",
    "install_connection_setup",
    "supports_skip_locked",
    "upsert",
    "upsert_rows",
]

#: How long a SQLite connection waits for a lock held by another connection before failing.
SQLITE_BUSY_TIMEOUT_MS = 10_000

_ASYNC_DRIVERS = {"sqlite": "aiosqlite", "postgresql": "asyncpg"}


def async_url(url: str | URL) -> URL:
    """Return ``url`` with the async driver Sleuth uses for its dialect.

    ``sqlite:///x.db`` becomes ``sqlite+aiosqlite:///x.db``; ``postgresql://`` (or ``postgres://``)
    becomes ``postgresql+asyncpg://``. An explicit async driver is kept; a sync one is replaced.
    """
    parsed = (
        make_url(str(url).replace("postgres://", "postgresql://", 1))
        if isinstance(url, str)
        else url
    )
    backend = parsed.get_backend_name()
    if backend not in _ASYNC_DRIVERS:
        raise ValueError(f"unsupported database: {backend!r} (use sqlite or postgresql)")
    return parsed.set(drivername=f"{backend}+{_ASYNC_DRIVERS[backend]}")


def dialect_name(url: str | URL) -> str:
    """Return ``"sqlite"`` or ``"postgresql"`` for ``url``."""
    return async_url(url).get_backend_name()


def install_connection_setup(engine: AsyncEngine) -> None:
    """Configure every new DBAPI connection of ``engine`` for its dialect.

    SQLite: write-ahead logging (readers never block the writer), a busy timeout instead of
    immediate ``database is locked`` errors, enforced foreign keys and ``synchronous=NORMAL``
    (durable with WAL). PostgreSQL needs nothing.
    """
    if engine.dialect.name != "sqlite":
        return

    @event.listens_for(engine.sync_engine, "connect")
    def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
            cursor.execute("PRAGMA foreign_keys = ON")
        finally:
            cursor.close()


def _insert(dialect: str, table: Table) -> sqlite.Insert | postgresql.Insert:
    if dialect == "sqlite":
        return sqlite.insert(table)
    if dialect == "postgresql":
        return postgresql.insert(table)
    raise ValueError(f"unsupported dialect: {dialect!r}")


def upsert(
    dialect: str,
    table: Table,
    values: Mapping[str, Any],
    *,
    conflict_columns: Sequence[str],
    update_columns: Sequence[str],
) -> Insert:
    """``INSERT ... ON CONFLICT (conflict_columns) DO UPDATE SET update_columns = excluded.*``."""
    stmt = _insert(dialect, table).values(**values)
    return stmt.on_conflict_do_update(
        index_elements=list(conflict_columns),
        set_={name: stmt.excluded[name] for name in update_columns},
    )


def insert_ignore(
    dialect: str, table: Table, values: Mapping[str, Any], *, conflict_columns: Sequence[str]
) -> Insert:
    """``INSERT ... ON CONFLICT (conflict_columns) DO NOTHING``."""
    stmt = _insert(dialect, table).values(**values)
    return stmt.on_conflict_do_nothing(index_elements=list(conflict_columns))


def upsert_rows(
    dialect: str,
    table: Table,
    *,
    conflict_columns: Sequence[str],
    update_columns: Sequence[str],
) -> Insert:
    """:func:`upsert` without values: execute it with a list of rows (one statement per batch).

    PostgreSQL refuses a batch that names the same conflict key twice; callers send each key once.
    """
    stmt = _insert(dialect, table)
    return stmt.on_conflict_do_update(
        index_elements=list(conflict_columns),
        set_={name: stmt.excluded[name] for name in update_columns},
    )


async def execute_in_chunks(
    session: AsyncSession, statement: Any, values: Sequence[Mapping[str, Any]], size: int
) -> None:
    """Execute ``statement`` with ``values`` as parameter sets, ``size`` at a time (a bounded
    number of bound parameters per call), in the session's transaction."""
    for start in range(0, len(values), size):
        await session.execute(statement, values[start : start + size])


def insert_ignore_rows(dialect: str, table: Table, *, conflict_columns: Sequence[str]) -> Insert:
    """``INSERT ... ON CONFLICT (conflict_columns) DO NOTHING`` without values, to execute with a
    list of rows: SQLAlchemy sends them as multi-row ``VALUES`` (its "insertmanyvalues", also with
    ``RETURNING``, which then returns the inserted rows only) from one cached compilation."""
    return _insert(dialect, table).on_conflict_do_nothing(index_elements=list(conflict_columns))


def supports_skip_locked(dialect: str) -> bool:
    """Whether ``SELECT ... FOR UPDATE SKIP LOCKED`` is available (PostgreSQL yes, SQLite no).

    On SQLite a single writer holds the database lock, so claiming rows in one write
    transaction is already exclusive.
    """
    return dialect == "postgresql"
