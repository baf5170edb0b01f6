"""Engine and session factory creation from a database URL."""

from __future__ import annotations

from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.ext.asyncio import create_async_engine as _create_async_engine

from sleuth_shell.db.dialect import async_url, install_connection_setup
from sleuth_shell.db.sqlite_reads import connect_inline_reads

__all__ = ["POOL_OVERFLOW", "POOL_SIZE", "create_engine", "create_session_factory"]

#: Connections an engine keeps open.
POOL_SIZE = 10
#: Connections an engine may open beyond :data:`POOL_SIZE` under load (closed when returned).
POOL_OVERFLOW = 40


def create_engine(url: str | URL, *, echo: bool = False) -> AsyncEngine:
    """Create the async engine for ``url`` (``sqlite:///...`` or ``postgresql://...``).

    The driver is chosen by :func:`sleuth_shell.db.dialect.async_url` and every connection is set
    up by :func:`sleuth_shell.db.dialect.install_connection_setup` (SQLite pragmas).

    PostgreSQL connections are pinged on checkout (a server restart or an idle timeout drops
    them); SQLite connections are files in this process and cannot go stale, so they are not (the
    ping was one extra thread hop through aiosqlite on every checkout).
    SQLite reads run on the event loop thread (:mod:`sleuth_shell.db.sqlite_reads`).

    The pool keeps :data:`POOL_SIZE` connections and opens up to :data:`POOL_OVERFLOW` more under
    load, enough for the HTTP requests and a worker's 32 concurrent jobs of one process; on SQLite
    the ones opened under load are kept open (file handles of this process, cheap to keep and
    costly to reopen).
    """
    parsed = async_url(url)
    if parsed.get_backend_name() == "sqlite":
        # Every connection is kept: an overflow connection closed on return and opened again on
        # the next burst costs a thread start and the pragmas' thread hops (a file connection
        # holds no server resources, only its idle thread).
        engine = _create_async_engine(
            parsed,
            echo=echo,
            connect_args={"async_creator_fn": connect_inline_reads},
            # The same ceiling, but connections opened under load stay open: opening one is a
            # thread start, a file open and the schema parse, which the worker's 32 jobs
            # otherwise paid again and again (see docs/performance.md).
            pool_size=POOL_SIZE + POOL_OVERFLOW,
            max_overflow=0,
        )
    else:
        engine = _create_async_engine(
            parsed,
            echo=echo,
            pool_pre_ping=True,
            pool_size=POOL_SIZE,
            max_overflow=POOL_OVERFLOW,
        )
    install_connection_setup(engine)
    return engine


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Return the session factory the app and workers use (objects stay usable after commit)."""
    return async_sessionmaker(engine, expire_on_commit=False)
