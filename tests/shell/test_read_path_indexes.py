"""Migration 0015: log records indexed by (org, service, level, time), the search index merged.

The error histograms of a root-cause investigation read the new index alone (SQLite's own query
plan says so); a database written before 0015 has its full-text index merged by the upgrade
(documents written since are merged as they are written: test_knowledge_search.py).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from test_ids_never_reused import _downgrade, sql

from sleuth_shell.db import create_engine, create_session_factory, migrate
from sleuth_shell.observability.store import DatabaseLogStore

pytestmark = pytest.mark.storage

INDEX = "ix_log_records_org_id_service_level_timestamp"
T0 = datetime(2026, 11, 24, 4, 0, tzinfo=UTC)


def _indexes(url: str, backend: str) -> set[str]:
    if backend == "sqlite":
        query = "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'log_records'"
    else:
        query = "SELECT indexname FROM pg_indexes WHERE tablename = 'log_records'"
    [rows] = sql(url, query)
    return {name for (name,) in rows}


def _fill_0014(url: str) -> None:
    """An organization, log lines, and documents written one transaction each."""
    sql(
        url,
        (
            "INSERT INTO organizations (name, plan, signing_secret, created_at) "
            "VALUES ('acme', 'enterprise', 's1', :t)",
            {"t": T0},
        ),
    )
    for n in range(6):
        sql(
            url,
            (
                "INSERT INTO log_records (org_id, timestamp, service, level, message, attributes)"
                " VALUES (1, :t, 'payments-api', :level, 'pool exhausted', '{}')",
                {"t": T0 + timedelta(minutes=n), "level": "ERROR" if n % 2 else "INFO"},
            ),
        )
        sql(
            url,
            (
                "INSERT INTO knowledge_documents (org_id, title, content, created_at) VALUES "
                "(1, :title, 'restart the worker pool', :t)",
                {"title": f"Runbook {n}", "t": T0},
            ),
        )


def test_0015_adds_the_index_merges_the_search_index_and_downgrades(
    database_url: str, backend: str
) -> None:
    migrate(database_url, "0014")
    _fill_0014(database_url)
    assert INDEX not in _indexes(database_url, backend)
    if backend == "sqlite":
        [[(before,)]] = sql(database_url, "SELECT count(*) FROM knowledge_fts_data")
    migrate(database_url)
    assert INDEX in _indexes(database_url, backend)
    if backend == "sqlite":
        [[(after,)]] = sql(database_url, "SELECT count(*) FROM knowledge_fts_data")
        assert after < before  # six one-document b-trees merged into one
        sql(database_url, "INSERT INTO knowledge_fts(knowledge_fts) VALUES ('integrity-check')")
    asyncio.run(_downgrade(database_url, "0014"))
    assert INDEX not in _indexes(database_url, backend)
    migrate(database_url)
    assert INDEX in _indexes(database_url, backend)


def test_error_histograms_read_the_index_alone(migrated_url: str, backend: str) -> None:
    if backend != "sqlite":
        pytest.skip("the query plan checked is SQLite's (PostgreSQL plans by its statistics)")
    _fill_0014(migrated_url)

    async def go() -> tuple[list[tuple[datetime, int]], str]:
        engine = create_engine(migrated_url)
        try:
            store = DatabaseLogStore(create_session_factory(engine))
            start, end = T0 - timedelta(hours=1), T0 + timedelta(hours=1)
            histogram = await store.histogram(
                1, start, end, 300, ["payments-api"], ["ERROR", "CRITICAL"]
            )
            [(_statement, compiled)] = store._hot._built.values()
            assert compiled is not None
            params = {
                "org_id": 1,
                "start": start,
                "end": end,
                "s0": "payments-api",
                "l0": "ERROR",
                "l1": "CRITICAL",
            }
            async with engine.connect() as connection:
                driver: Any = (await connection.get_raw_connection()).driver_connection
                cursor = await driver.execute(
                    "EXPLAIN QUERY PLAN " + compiled.sql, compiled.arguments(params)
                )
                plan = " | ".join(row[3] for row in await cursor.fetchall())
            return histogram, plan
        finally:
            await engine.dispose()

    histogram, plan = asyncio.run(go())
    # Minutes 1, 3 and 5 are ERROR: two in the 04:00 bucket, one in 04:05.
    assert histogram == [(T0, 2), (T0 + timedelta(minutes=5), 1)]
    assert f"USING COVERING INDEX {INDEX}" in plan, plan
