"""Alembic environment: runs migrations on a given connection or on the configured URL (async)."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlalchemy.engine import Connection

from sleuth_shell.db.engine import create_engine
from sleuth_shell.db.models import Base, UTCDateTime
from sleuth_shell.db.search_index import include_object

config = context.config
target_metadata = Base.metadata


def _render_item(type_: str, obj: Any, autogen_context: AutogenContext) -> str | Literal[False]:
    # Migrations stay independent of the model module: UTCDateTime is a timezone-aware DateTime.
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def _run(connection: Connection) -> None:
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        # Some migrations rebuild tables (create a copy, drop the original, rename the copy). With
        # foreign keys enforced, dropping a parent table deletes its rows first and so cascades to
        # every child. The pragma only takes effect outside a transaction, so it is set before the
        # first statement; the migrations end with a foreign-key check instead. The connection is
        # not reused afterwards (``migrate`` and the path below dispose of their engine).
        connection.exec_driver_sql("PRAGMA foreign_keys = OFF")
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_item=_render_item,
        compare_type=True,
        include_object=include_object,
    )
    with context.begin_transaction():
        context.run_migrations()
        if sqlite:
            broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
            if broken:
                raise RuntimeError(f"migration left rows with dangling foreign keys: {broken[:5]}")


async def _run_async(url: str) -> None:
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_run)
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    """Use the connection handed over by :func:`sleuth_shell.db.migrate` or open one."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("set sqlalchemy.url (or pass a connection) to run migrations")
    asyncio.run(_run_async(url))


if context.is_offline_mode():
    raise RuntimeError("offline (SQL script) migrations are not supported")
run_migrations_online()
