"""IDs are never reused: a deleted object's ID answers 404 for ever, on SQLite and PostgreSQL.

SQLite reuses the largest rowid once its row is deleted unless the table is ``AUTOINCREMENT``;
migration 0004 rebuilds every table with an integer id that way (keeping rows, ids, indexes,
constraints and the knowledge full-text triggers) and gives queued digest jobs their key.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
from conftest import Factory, OrgHandle
from litestar import Litestar
from litestar.testing import TestClient
from sqlalchemy import Integer, inspect, text

from sleuth_core.ids import decode_global_id
from sleuth_shell.db import create_engine, migrate
from sleuth_shell.db.models import Base

pytestmark = pytest.mark.storage

AGENTS = "/api/v1/alert-responders"
DIGESTS = "/api/v1/digests"
DOCUMENTS = "/api/v1/knowledge/documents"

#: Every table whose primary key is an integer ``id`` (the tables migration 0004 rebuilds).
ID_TABLES = sorted(
    table.name
    for table in Base.metadata.tables.values()
    if [(column.name, type(column.type)) for column in table.primary_key.columns]
    == [("id", Integer)]
)


def agent_body(name: str) -> dict[str, Any]:
    return {
        "team_name": "Default",
        "name": name,
        "chat_channel_id": "C0ALERTS",
        "matching_criteria": {"text_matches": ["FIRING"], "chat_bot_app_user_id": "B0BOT"},
    }


def digest_body(name: str) -> dict[str, Any]:
    return {
        "team_name": "Default",
        "name": name,
        "sections": [{"section": "Incidents", "prompt": "Summarise yesterday's incidents."}],
        "schedule": "0 9 * * 0-4",
    }


def created_id(client: TestClient[Litestar], url: str, org: OrgHandle, body: Any) -> Any:
    response = client.post(url, json=body, headers=org.headers)
    assert response.status_code == 200, response.text
    return response.json()["id"]


def deleted(client: TestClient[Litestar], url: str, org: OrgHandle) -> None:
    response = client.delete(url, headers=org.headers)
    assert response.status_code == 200 and response.json() == {"success": True}


@pytest.mark.parametrize(
    ("base", "body", "global_type"),
    [(AGENTS, agent_body, "AlertResponder"), (DIGESTS, digest_body, "Digest")],
)
def test_a_deleted_objects_id_stays_404_after_a_new_one_is_created(
    client: TestClient[Litestar], factory: Factory, base: str, body: Any, global_type: str
) -> None:
    acme, globex = factory.org("acme"), factory.org("globex")
    created_id(client, base, acme, body("first"))
    old = created_id(client, base, acme, body("newest"))  # the largest id: SQLite reused it
    deleted(client, f"{base}/{old}", acme)
    new = created_id(client, base, globex, body("another org's"))
    assert new != old
    old_pk, new_pk = decode_global_id(old, global_type), decode_global_id(new, global_type)
    assert old_pk is not None and new_pk is not None and new_pk > old_pk
    for org in (acme, globex):
        response = client.get(f"{base}/{old}", headers=org.headers)
        assert response.status_code == 404, response.text
        assert set(response.json()) == {"detail"}
    assert client.get(f"{base}/{new}", headers=globex.headers).status_code == 200


def test_a_deleted_knowledge_documents_id_is_not_issued_again(
    client: TestClient[Litestar], org: OrgHandle
) -> None:
    body = {"title": "Runbook", "content": "Restart the checkout service."}
    old = created_id(client, DOCUMENTS, org, body)
    deleted(client, f"{DOCUMENTS}/{old}", org)
    new = created_id(client, DOCUMENTS, org, body)
    assert new > old
    listed = client.get(DOCUMENTS, headers=org.headers).json()["documents"]
    assert [document["id"] for document in listed] == [new]


# --- the schema and migration 0004 ---------------------------------------------------------------


async def _sql(url: str, statements: list[tuple[str, dict[str, Any]]]) -> list[list[Any]]:
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            results = []
            for statement, params in statements:
                result = await connection.execute(text(statement), params)
                results.append([tuple(row) for row in result.all()] if result.returns_rows else [])
            return results
    finally:
        await engine.dispose()


def sql(url: str, *statements: str | tuple[str, dict[str, Any]]) -> list[list[Any]]:
    pairs = [s if isinstance(s, tuple) else (s, {}) for s in statements]
    return asyncio.run(_sql(url, pairs))


def test_every_integer_id_table_is_autoincrement_on_sqlite(database_url: str, backend: str) -> None:
    if backend != "sqlite":
        pytest.skip("AUTOINCREMENT is SQLite's; PostgreSQL sequences never reuse values")
    migrate(database_url)
    assert {"alert_responders", "digest_runs", "digests", "investigations", "teams"} <= set(
        ID_TABLES
    ) and "notification_integrations" in ID_TABLES
    [rows] = sql(database_url, "SELECT name, sql FROM sqlite_master WHERE type = 'table'")
    schema = dict(rows)
    for table in ID_TABLES:
        assert "AUTOINCREMENT" in schema[table], table
    # The model declares it too, so a database created from the models would match.
    for table in ID_TABLES:
        assert Base.metadata.tables[table].kwargs.get("sqlite_autoincrement") is True, table


NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def _fill_0003(url: str) -> None:
    """Rows in a database at revision 0003: two organizations and their objects."""
    stamp = {"t": NOW}
    sql(
        url,
        (
            "INSERT INTO organizations (name, plan, signing_secret, created_at) "
            "VALUES ('acme', 'free', 's1', :t), ('globex', 'free', 's2', :t)",
            stamp,
        ),
        (
            "INSERT INTO teams (org_id, name, created_at) "
            "VALUES (1, 'Default', :t), (2, 'Default', :t)",
            stamp,
        ),
        (
            "INSERT INTO alert_responders (org_id, team_id, name, runbook_active, "
            "text_matches, match_rules, webhook_sources, status, created_at, updated_at) VALUES "
            "(1, 1, 'a1', true, '[]', '{}', '[]', 'ACTIVE', :t, :t), "
            "(1, 1, 'a2', true, '[\"x\"]', '{}', '[]', 'ACTIVE', :t, :t), "
            "(2, 2, 'b1', false, '[]', '{}', '[]', 'ACTIVE', :t, :t)",
            stamp,
        ),
        (
            "INSERT INTO digests (org_id, team_id, name, sections, schedule, created_at, "
            "updated_at) VALUES (1, 1, 'Morning', '[]', '0 9 * * 0-4', :t, :t)",
            stamp,
        ),
        (
            "INSERT INTO digest_runs (org_id, digest_id, status, results, created_at) "
            "VALUES (1, 1, 'COMPLETED', '[]', :t)",
            stamp,
        ),
        (
            "INSERT INTO knowledge_documents (org_id, title, content, created_at) VALUES "
            "(1, 'Checkout runbook', 'Restart the checkout pods', :t), "
            "(2, 'Billing', 'Invoices are generated nightly', :t)",
            stamp,
        ),
        (
            "INSERT INTO jobs (kind, payload, run_at, status, attempts, max_attempts, "
            "created_at, updated_at) VALUES "
            "('digest.cron', '{\"digest_id\": 1, \"fire_at\": 1767603600}', :t, 'pending', "
            "0, 1, :t, :t), ('notify.chat', '{\"org_id\": 1}', :t, 'done', 1, 5, :t, :t)",
            stamp,
        ),
    )


def test_migration_0004_keeps_the_data_and_stops_reusing_ids(
    database_url: str, backend: str
) -> None:
    migrate(database_url, "0003")
    _fill_0003(database_url)
    migrate(database_url)

    agents, teams, digests, runs, docs, jobs = sql(
        database_url,
        "SELECT id, org_id, team_id, name, text_matches FROM alert_responders ORDER BY id",
        "SELECT id, org_id, name FROM teams ORDER BY id",
        "SELECT id, name, schedule FROM digests",
        "SELECT id, digest_id, status FROM digest_runs",
        "SELECT id, title FROM knowledge_documents ORDER BY id",
        'SELECT id, kind, "key", status FROM jobs ORDER BY id',
    )
    assert [(a[0], a[1], a[2], a[3]) for a in agents] == [
        (1, 1, 1, "a1"),
        (2, 1, 1, "a2"),
        (3, 2, 2, "b1"),
    ]
    assert teams == [(1, 1, "Default"), (2, 2, "Default")]
    assert digests == [(1, "Morning", "0 9 * * 0-4")]
    assert runs == [(1, 1, "COMPLETED")]
    assert docs == [(1, "Checkout runbook"), (2, "Billing")]
    # The queued digest job got its key; other jobs have none.
    assert jobs == [(1, "digest.cron", "1", "pending"), (2, "notify.chat", None, "done")]

    # Delete the newest rows; the ids come back no more.
    stamp = {"t": NOW}
    sql(
        database_url,
        "DELETE FROM alert_responders WHERE id = 3",
        "DELETE FROM digests WHERE id = 1",
    )
    new_agent, new_digest = sql(
        database_url,
        (
            "INSERT INTO alert_responders (org_id, team_id, name, runbook_active, text_matches, "
            "match_rules, webhook_sources, status, created_at, updated_at) VALUES "
            "(2, 2, 'b2', true, '[]', '{}', '[]', 'ACTIVE', :t, :t) RETURNING id",
            stamp,
        ),
        (
            "INSERT INTO digests (org_id, team_id, name, sections, schedule, created_at, "
            "updated_at) VALUES (2, 2, 'Evening', '[]', '0 18 * * *', :t, :t) RETURNING id",
            stamp,
        ),
    )
    assert new_agent == [(4,)] and new_digest == [(2,)]

    # Foreign keys still hold and cascade: deleting an organization removes its rows.
    [before] = sql(database_url, "SELECT count(*) FROM digest_runs")
    assert before == [(0,)]  # the run went with its digest
    sql(database_url, "DELETE FROM organizations WHERE id = 2")
    agents_left, teams_left = sql(
        database_url,
        "SELECT id FROM alert_responders ORDER BY id",
        "SELECT id FROM teams ORDER BY id",
    )
    assert agents_left == [(1,), (2,)] and teams_left == [(1,)]

    if backend == "sqlite":
        # The full-text index still answers for migrated rows and follows new writes.
        matches = sql(
            database_url,
            "SELECT rowid FROM knowledge_fts WHERE knowledge_fts MATCH 'checkout'",
            (
                "INSERT INTO knowledge_documents (org_id, title, content, created_at) "
                "VALUES (1, 'Checkout deploys', 'Roll back', :t)",
                stamp,
            ),
            "SELECT rowid FROM knowledge_fts WHERE knowledge_fts MATCH 'checkout' ORDER BY rowid",
            "DELETE FROM knowledge_documents WHERE id = 1",
            "SELECT rowid FROM knowledge_fts WHERE knowledge_fts MATCH 'checkout'",
        )
        assert matches[0] == [(1,)]
        assert matches[2] == [(1,), (3,)]
        assert matches[4] == [(3,)]


def test_migration_0004_downgrades_and_upgrades_again(database_url: str) -> None:
    migrate(database_url, "0003")
    _fill_0003(database_url)
    migrate(database_url)
    asyncio.run(_downgrade(database_url, "0003"))

    async def columns() -> list[str]:
        engine = create_engine(database_url)
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(
                    lambda sync: [c["name"] for c in inspect(sync).get_columns("jobs")]
                )
        finally:
            await engine.dispose()

    assert "key" not in asyncio.run(columns())
    [agents] = sql(database_url, "SELECT id FROM alert_responders ORDER BY id")
    assert agents == [(1,), (2,), (3,)]
    migrate(database_url)
    assert "key" in asyncio.run(columns())


async def _downgrade(url: str, revision: str) -> None:
    from alembic import command

    from sleuth_shell.db.migrate import alembic_config

    engine = create_engine(url)
    try:
        async with engine.begin() as connection:

            def go(sync_connection: Any) -> None:
                config = alembic_config(url)
                config.attributes["connection"] = sync_connection
                command.downgrade(config, revision)

            await connection.run_sync(go)
    finally:
        await engine.dispose()
