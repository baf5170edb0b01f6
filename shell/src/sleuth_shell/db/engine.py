"""Engine and session factory creation from a database URL."""

from __future__ import annotations

from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.ext.asyncio import create_async_engine as _create_async_engine

from sleuth_shell.db.dialect import async_url, install_connection_setup

__all__ = ["create_engine", "create_session_factory"]


def create_engine(url: str | URL, *, echo: bool = False) -> AsyncEngine:
    """Create the async engine for ``url`` (``sqlite:///...`` or ``postgresql://...``).

    The driver is chosen by :func:`sleuth_shell.db.dialect.async_url` and every connection is set
    up by :func:`sleuth_shell.db.dialect.install_connection_setup` (SQLite pragmas).
    """
    engine = _create_async_engine(async_url(url), echo=echo, pool_pre_ping=True)
    install_connection_setup(engine)
    return engine


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Return the session factory the app and workers use (objects stay usable after commit)."""
    return async_sessionmaker(engine, expire_on_commit=False)
