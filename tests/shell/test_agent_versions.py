"""The per-organization agent version on every back end: the ORM hook's ``bump`` and the
``Executor``'s ``bump_with`` (the direct writer on SQLite, a session elsewhere) advance one
version, record each change and prune what is more than ``KEEP_CHANGES`` versions old."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import insert, select

from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.agent_versions import KEEP_CHANGES, bump, bump_with
from sleuth_shell.db.executor import write_transaction
from sleuth_shell.db.models import AgentIndexVersion, AlertResponderChange

pytestmark = pytest.mark.storage


@pytest.mark.parametrize("fast", [True, False])
def test_bump_and_bump_with_record_and_prune(migrated_url, org, fast) -> None:
    changes = AlertResponderChange.__table__

    async def go() -> tuple[int, int, list[tuple[int, int]]]:
        engine = create_engine(migrated_url)
        sessions = create_session_factory(engine)
        try:
            async with sessions() as session:
                await session.execute(
                    insert(AgentIndexVersion.__table__).values(
                        org_id=org.id, version=KEEP_CHANGES - 1
                    )
                )
                await session.execute(
                    insert(changes),
                    [{"org_id": org.id, "version": v, "alert_responder_id": v} for v in (1, 2, 3)],
                )
                # The ORM hook's path: on a sync connection, the version row taken by the upsert.
                hooked = await session.run_sync(lambda s: bump(s.connection(), org.id, [11]))
                await session.commit()
            async with write_transaction(sessions, fast=fast) as executor:
                driven = await bump_with(executor, org.id, [12, 13])
                await executor.commit()
            async with sessions() as session:
                rows = await session.execute(
                    select(changes.c.version, changes.c.alert_responder_id)
                    .where(changes.c.org_id == org.id)
                    .order_by(changes.c.version)
                )
                return hooked, driven, [(int(v), int(a)) for v, a in rows]
        finally:
            await engine.dispose()

    hooked, driven, rows = asyncio.run(go())
    assert (hooked, driven) == (KEEP_CHANGES, KEEP_CHANGES + 2)
    # Versions up to 1002 - KEEP_CHANGES = 2 are pruned; 3 and the three new changes stay.
    assert rows == [
        (3, 3),
        (KEEP_CHANGES, 11),
        (KEEP_CHANGES + 1, 12),
        (KEEP_CHANGES + 2, 13),
    ]
