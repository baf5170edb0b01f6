"""SQLite connection setup (the dialect module's pragmas)."""

from __future__ import annotations

import asyncio

from sqlalchemy import text

from sleuth_shell.db import create_engine, create_session_factory, migrate


def run(url: str, action):
    async def go():
        engine = create_engine(url)
        try:
            async with create_session_factory(engine)() as session:
                return await action(session)
        finally:
            await engine.dispose()

    return asyncio.run(go())


def test_sqlite_pragmas(database_url: str) -> None:
    migrate(database_url)

    async def go(session):
        return [
            (await session.execute(text(f"PRAGMA {name}"))).scalar()
            for name in ("journal_mode", "foreign_keys", "busy_timeout")
        ]

    journal, foreign_keys, busy = run(database_url, go)
    assert (journal.lower(), foreign_keys, busy) == ("wal", 1, 10_000)
