"""The storage suite: migrations, models, dialect helpers and admin actions on every back end.

Marked ``storage``: each test runs on SQLite and, when ``SLEUTH_TEST_POSTGRES_URL`` is set, on a
fresh PostgreSQL database.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, select

from sleuth_shell import admin
from sleuth_shell.db import create_engine, create_session_factory, migrate
from sleuth_shell.db.dialect import async_url, insert_ignore, supports_skip_locked, upsert
from sleuth_shell.db.models import (
    AdvancedSettings,
    AlertResponder,
    ApiKey,
    Base,
    Investigation,
    Organization,
    Team,
)
from sleuth_shell.knowledge.search import include_object

pytestmark = pytest.mark.storage


def run(url: str, action):
    async def go():
        engine = create_engine(url)
        try:
            async with create_session_factory(engine)() as session:
                return await action(session)
        finally:
            await engine.dispose()

    return asyncio.run(go())


def test_migrations_create_every_table_and_match_the_models(database_url: str) -> None:
    migrate(database_url)
    migrate(database_url)  # idempotent

    async def check():
        engine = create_engine(database_url)
        try:
            async with engine.connect() as connection:

                def inspect_sync(sync_connection):
                    tables = set(inspect(sync_connection).get_table_names())
                    context = MigrationContext.configure(
                        sync_connection,
                        opts={"compare_type": True, "include_object": include_object},
                    )
                    return tables, compare_metadata(context, Base.metadata)

                return await connection.run_sync(inspect_sync)
        finally:
            await engine.dispose()

    tables, diff = asyncio.run(check())
    assert set(Base.metadata.tables) <= tables
    assert "alembic_version" in tables
    assert diff == []


def test_timestamps_are_aware_utc(database_url: str) -> None:
    migrate(database_url)
    moment = datetime(2026, 3, 1, 12, 30, tzinfo=timezone(timedelta(hours=2)))

    async def go(session):
        org = await admin.create_org(session, "tz", "free")
        org.created_at = moment
        await session.commit()
        session.expunge_all()
        return await session.scalar(select(Organization).where(Organization.name == "tz"))

    org = run(database_url, go)
    assert org.created_at == moment
    assert org.created_at.tzinfo is not None and org.created_at.utcoffset() == timedelta(0)


def test_admin_actions_and_constraints(database_url: str) -> None:
    migrate(database_url)

    async def go(session):
        org = await admin.create_org(session, "acme", "team")
        with pytest.raises(admin.AdminError, match="Organization already exists: acme"):
            await admin.create_org(session, "acme")
        with pytest.raises(admin.AdminError, match="Unknown organization: nope"):
            await admin.create_team(session, "nope", "x")
        await admin.create_team(session, "acme", "SRE")
        with pytest.raises(admin.AdminError, match="Team already exists: SRE"):
            await admin.create_team(session, "acme", "SRE")
        row, key = await admin.create_key(session, "acme", admin=True, team_name="SRE")
        with pytest.raises(admin.AdminError, match="Unknown team: Ops"):
            await admin.create_key(session, "acme", team_name="Ops")
        teams = (await session.scalars(select(Team.name).where(Team.org_id == org.id))).all()
        stored = await session.scalar(select(ApiKey).where(ApiKey.id == row.id))
        return sorted(teams), key, stored

    teams, key, stored = run(database_url, go)
    assert teams == ["Default", "SRE"]
    assert key.startswith("slk_") and len(key) > 40
    assert stored.key_hash == admin.hash_api_key(key) and key not in stored.key_hash
    assert stored.admin is True and stored.team_id is not None


def test_json_columns_round_trip_and_foreign_keys(database_url: str) -> None:
    migrate(database_url)
    rules = {"operator": "AND", "conditions": [{"type": "contains", "value": "ünïcode"}]}

    async def go(session):
        org = await admin.create_org(session, "json", "free")
        team = await session.scalar(select(Team).where(Team.org_id == org.id))
        agent = AlertResponder(
            org_id=org.id,
            team_id=team.id,
            name="a",
            text_matches=["*ünïcode*"],
            match_rules=rules,
            webhook_sources=[{"type": "PROVIDER_A", "remote_id": "x"}],
        )
        session.add(agent)
        await session.flush()
        inv = Investigation(org_id=org.id, alert_responder_id=agent.id, name="i", prompt="p")
        session.add(inv)
        await session.commit()
        await session.delete(agent)
        await session.commit()
        session.expunge_all()
        inv = await session.get(Investigation, inv.id)
        return inv

    inv = run(database_url, go)
    # ON DELETE SET NULL is enforced (SQLite needs foreign_keys=ON for that).
    assert inv.alert_responder_id is None
    assert inv.status == "PENDING" and inv.created_at.tzinfo is UTC


def test_dialect_upsert_and_insert_ignore(database_url: str) -> None:
    migrate(database_url)
    dialect = async_url(database_url).get_backend_name()
    table = AdvancedSettings.__table__
    now = datetime.now(UTC)

    async def go(session):
        org = await admin.create_org(session, "up", "free")
        for doc in ({"v": 1}, {"v": 2}):
            await session.execute(
                upsert(
                    dialect,
                    table,
                    {"org_id": org.id, "document": doc, "updated_at": now},
                    conflict_columns=["org_id"],
                    update_columns=["document", "updated_at"],
                )
            )
        await session.execute(
            insert_ignore(
                dialect,
                table,
                {"org_id": org.id, "document": {"v": 3}, "updated_at": now},
                conflict_columns=["org_id"],
            )
        )
        await session.commit()
        return (await session.scalars(select(AdvancedSettings.document))).all()

    assert run(database_url, go) == [{"v": 2}]
    assert supports_skip_locked(dialect) is (dialect == "postgresql")
