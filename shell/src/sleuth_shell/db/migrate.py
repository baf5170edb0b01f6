"""Apply the packaged Alembic migrations programmatically."""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import URL, Connection

from sleuth_shell.db.engine import create_engine

__all__ = ["MIGRATIONS_DIR", "alembic_config", "migrate", "migrate_async"]

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


def alembic_config(url: str | URL | None = None) -> Config:
    """An Alembic configuration pointing at the packaged migrations (no ``alembic.ini`` needed)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url is not None:
        config.set_main_option(
            "sqlalchemy.url",
            str(url).replace("%", "%%")
            if isinstance(url, str)
            else url.render_as_string(hide_password=False).replace("%", "%%"),
        )
    return config


async def migrate_async(url: str | URL, revision: str = "head") -> None:
    """Upgrade the database at ``url`` to ``revision`` (default: newest), in a running loop."""
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_upgrade, url, revision)
    finally:
        await engine.dispose()


def _upgrade(connection: Connection, url: str | URL, revision: str) -> None:
    config = alembic_config(url)
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


def migrate(url: str | URL, revision: str = "head") -> None:
    """Upgrade the database at ``url`` to ``revision`` (default: the newest).

    Creates the schema on an empty database and is a no-op on an up-to-date one. Must not be
    called from a running event loop (use :func:`migrate_async` there).
    """
    asyncio.run(migrate_async(url, revision))
