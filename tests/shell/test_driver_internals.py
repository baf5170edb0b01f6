"""The private parts of SQLAlchemy and aiosqlite the SQLite fast path relies on
(``db/sqlite_reads.py``, ``db/compiled.py``, ``db/hot_reads.py``, ``db/direct_writes.py``).

shell/pyproject.toml pins both libraries to a minor version; a release that moves any of these
fails here, by name, before the fast path misbehaves. Upgrading means re-checking the modules
above and these tests together.
"""

from __future__ import annotations

import asyncio
import inspect
import sqlite3
from pathlib import Path

import aiosqlite
import sqlalchemy
from sqlalchemy import Column, Integer, MetaData, String, Table, bindparam, insert, select
from sqlalchemy.dialects import sqlite

from sleuth_shell.db.compiled import CompiledStatement
from sleuth_shell.db.sqlite_reads import InlineReadConnection, connect_inline_reads


def test_the_pinned_minor_versions_are_the_ones_installed() -> None:
    pins = Path(__file__).resolve().parents[2] / "shell" / "pyproject.toml"
    text = pins.read_text(encoding="utf-8")
    sa_minor = ".".join(sqlalchemy.__version__.split(".")[:2])
    assert f'"sqlalchemy[asyncio]=={sa_minor}.*"' in text, sqlalchemy.__version__
    import importlib.metadata

    aio_minor = ".".join(importlib.metadata.version("aiosqlite").split(".")[:2])
    assert f'"aiosqlite=={aio_minor}.*"' in text, aio_minor


def test_aiosqlite_connection_internals() -> None:
    init = inspect.signature(aiosqlite.Connection.__init__)
    assert list(init.parameters)[1:3] == ["connector", "iter_chunk_size"]
    assert inspect.iscoroutinefunction(aiosqlite.Connection._execute)
    assert callable(aiosqlite.Connection.stop)

    async def go(path: str) -> None:
        connection = connect_inline_reads(path)
        assert isinstance(connection, InlineReadConnection)
        assert connection._thread.daemon  # the worker thread the subclass marks daemon
        async with connection:
            assert connection._running is True
            assert isinstance(connection._connection, sqlite3.Connection)
            cursor = await connection.execute("SELECT 41 + 1")
            assert await cursor.fetchone() == (42,)

    asyncio.run(go(":memory:"))


def test_sqlalchemy_compiler_and_type_internals() -> None:
    table = Table("t", MetaData(), Column("id", Integer, primary_key=True), Column("name", String))
    dialect = sqlite.dialect()
    query = select(table.c.id, table.c.name).where(
        table.c.id == bindparam("pk"), table.c.name.in_(["a", "b"])
    )
    compiled = query.compile(dialect=dialect)
    assert isinstance(compiled._bind_processors, dict)
    state = compiled.construct_expanded_state(compiled.construct_params(_check=False))
    assert isinstance(state.statement, str) and "IN (?, ?)" in state.statement
    assert list(state.positiontup or ()) and isinstance(state.processors, dict)
    assert isinstance(state.parameters, dict)
    processor = String()._cached_result_processor(dialect, None)
    assert processor is None or callable(processor)
    # And the module built on them still compiles and binds a statement.
    built = CompiledStatement(query, dialect)
    assert built.names == ("id", "name")
    assert built.arguments({"pk": 7})[0] == 7
    returning = CompiledStatement(
        insert(table).values(name=bindparam("n")).returning(table.c.id), dialect
    )
    assert returning.names == ("id",)


def test_arguments_many_processes_a_value_shared_with_the_row_before_once() -> None:
    things = Table("things", MetaData(), Column("id", Integer), Column("name", String))
    stmt = CompiledStatement(
        insert(things).values(id=bindparam("id"), name=bindparam("name")), sqlite.dialect()
    )
    calls: list[object] = []

    def upper(value: str) -> str:
        calls.append(value)
        return value.upper()

    stmt.bind = {"name": upper}
    shared = "gear"
    rows = [{"id": 1, "name": shared}, {"id": 2, "name": shared}, {"id": 3, "name": "cog"}]
    assert stmt.arguments_many(rows) == [[1, "GEAR"], [2, "GEAR"], [3, "COG"]]
    assert calls == ["gear", "cog"]
