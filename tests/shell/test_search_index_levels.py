"""The SQLite full-text index survives many writes of documents (migration 0025).

Every write of documents used to run FTS5's ``merge`` with a negative page count (an incremental
``optimize``), which adds two levels to the index per write and never gives them back; on SQLite
3.40 an index of more than 2,000 levels reads as corrupt (``database disk image is malformed``),
after about 1,000 document writes in one database. These tests write more than that, on a real
SQLite file.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from sleuth_shell import admin
from sleuth_shell.db import create_engine, create_session_factory, migrate
from sleuth_shell.knowledge import documents
from sleuth_shell.knowledge.search import DatabaseKnowledgeSearch

pytestmark = pytest.mark.storage

#: Document writes, one transaction each: well past the 1,000 to 1,100 at which the per-write
#: optimize made the index unreadable (about two levels each, 2,000 levels at most).
WRITES = 1_500


def _run(url: str, action: Any) -> Any:
    async def go() -> Any:
        engine = create_engine(url)
        try:
            return await action(create_session_factory(engine))
        finally:
            await engine.dispose()

    return asyncio.run(go())


def _hits(url: str, org_id: int, query: str) -> list[str]:
    async def go(sessions: Any) -> list[str]:
        found = await DatabaseKnowledgeSearch(sessions).search(org_id, query, 10 * WRITES)
        return [hit.title for hit in found]

    return _run(url, go)


def _integrity_check(path: Path) -> None:
    """FTS5's own check of the index against the documents (raises when they differ)."""
    connection = sqlite3.connect(path)
    try:
        connection.execute("INSERT INTO knowledge_fts(knowledge_fts) VALUES ('integrity-check')")
        connection.commit()
    finally:
        connection.close()


def test_many_document_writes_keep_the_index_readable(tmp_path: Path) -> None:
    """Documents created one transaction each (as ``POST /api/v1/knowledge/documents`` does), more
    than the per-write optimize allowed: every write succeeds and a search finds them all."""
    path = tmp_path / "k.db"
    url = f"sqlite:///{path}"
    migrate(url)

    async def write(sessions: Any) -> int:
        async with sessions() as session:
            org_id = (await admin.create_org(session, "acme")).id
        for n in range(WRITES):
            async with sessions() as session:
                await documents.create(
                    session, org_id, f"Runbook {n}", f"restart the worker pool {n}", None
                )
        return org_id

    org_id = _run(url, write)
    titles = _hits(url, org_id, "restart worker pool")
    assert sorted(titles) == sorted(f"Runbook {n}" for n in range(WRITES))
    _integrity_check(path)


def test_upgrade_repairs_an_index_past_the_level_limit(tmp_path: Path) -> None:
    """A database at 0024 whose index the per-write optimize made unreadable: the upgrade
    rebuilds it from the documents, and searches and writes work again."""
    path = tmp_path / "k.db"
    url = f"sqlite:///{path}"
    migrate(url, "0024")
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA synchronous = OFF")  # a faster set-up; the writes are the same
    connection.execute(
        "INSERT INTO organizations (name, plan, signing_secret, created_at) "
        "VALUES ('acme', 'enterprise', 's1', '2026-11-27 09:00:00')"
    )
    written = 0
    with pytest.raises(sqlite3.DatabaseError, match="malformed"):
        for n in range(3 * WRITES):  # what merge_search_index did before 0025, a write at a time
            connection.execute("BEGIN")
            connection.execute(
                "INSERT INTO knowledge_documents (org_id, title, content, created_at) VALUES "
                "(1, ?, ?, '2026-11-27 09:00:00')",
                (f"Runbook {n}", f"restart the worker pool {n}"),
            )
            connection.execute(
                "INSERT INTO knowledge_fts(knowledge_fts, rank) VALUES ('merge', -500)"
            )
            connection.execute("COMMIT")
            written += 1
    if connection.in_transaction:  # the failed statement may have ended it already
        connection.execute("ROLLBACK")
    connection.close()
    assert written > 500  # the index broke from its level count, not at once

    migrate(url)

    assert sorted(_hits(url, 1, "restart worker pool")) == sorted(
        f"Runbook {n}" for n in range(written)
    )

    async def more(sessions: Any) -> None:
        async with sessions() as session:
            await documents.create(session, 1, "Runbook extra", "restart the worker pool", None)
        async with sessions() as session:
            value = (
                await session.execute(
                    text("SELECT v FROM knowledge_fts_config WHERE k = 'usermerge'")
                )
            ).scalar_one()
            assert value == 2

    _run(url, more)
    assert "Runbook extra" in _hits(url, 1, "restart worker pool")
    _integrity_check(path)
