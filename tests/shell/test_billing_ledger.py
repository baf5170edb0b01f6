"""The credit ledger: record_usage, its validation, the rollups and their consistency.

Marked ``storage``: each test runs on SQLite and, when ``SLEUTH_TEST_POSTGRES_URL`` is set, on a
fresh PostgreSQL database (where the concurrent-writer test is the one that matters).
"""

from __future__ import annotations

import asyncio
import math
import random
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import event, insert, select, text

from sleuth_shell import admin
from sleuth_shell.billing import (
    CREDIT_RESOLUTION,
    FEATURE_DIGEST,
    FEATURE_INTERACTION,
    FEATURE_INVESTIGATION,
    FEATURES,
    quantize_credits,
    rebuild_rollups,
    record_usage,
)
from sleuth_shell.db import create_engine, create_session_factory, migrate
from sleuth_shell.db.models import UsageDaily, UsageEvent, UsageMonthly

pytestmark = pytest.mark.storage


def run(url: str, action: Any) -> Any:
    async def go() -> Any:
        engine = create_engine(url)
        try:
            async with create_session_factory(engine)() as session:
                return await action(session)
        finally:
            await engine.dispose()

    return asyncio.run(go())


async def _org_with_teams(session: Any, name: str, teams: int) -> tuple[int, list[int]]:
    org = await admin.create_org(session, name, "free")
    ids = [(await admin.create_team(session, name, f"team-{i}")).id for i in range(teams)]
    await session.commit()
    return org.id, ids


async def _rollups(
    session: Any, org_id: int
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    daily = (
        await session.execute(
            select(
                UsageDaily.day,
                UsageDaily.team_key,
                UsageDaily.month,
                UsageDaily.credits,
                UsageDaily.events,
            )
            .where(UsageDaily.org_id == org_id)
            .order_by(UsageDaily.day, UsageDaily.team_key)
        )
    ).all()
    monthly = (
        await session.execute(
            select(
                UsageMonthly.month, UsageMonthly.team_key, UsageMonthly.credits, UsageMonthly.events
            )
            .where(UsageMonthly.org_id == org_id)
            .order_by(UsageMonthly.month, UsageMonthly.team_key)
        )
    ).all()
    return [tuple(r) for r in daily], [tuple(r) for r in monthly]


class TestQuantize:
    def test_rounds_to_the_grid(self) -> None:
        assert quantize_credits(2.5) == 2.5
        assert quantize_credits(0) == 0.0
        value = quantize_credits(0.1)
        assert value == round(0.1 / CREDIT_RESOLUTION) * CREDIT_RESOLUTION
        assert abs(value - 0.1) <= CREDIT_RESOLUTION / 2
        assert (value / CREDIT_RESOLUTION).is_integer()

    def test_sums_on_the_grid_are_exact_in_any_order(self) -> None:
        rng = random.Random(7)
        values = [
            quantize_credits(rng.choice([0.005, 0.015, 1 / 3, rng.random() * 50]))
            for _ in range(2000)
        ]
        forward = 0.0
        for v in values:
            forward += v
        backward = 0.0
        for v in reversed(values):
            backward += v
        assert forward == backward == math.fsum(values)

    @pytest.mark.parametrize(
        ("value", "error"),
        [
            (-0.01, ValueError),
            (float("nan"), ValueError),
            (float("inf"), ValueError),
            (2.0**30, ValueError),
            (True, TypeError),
            ("1.5", TypeError),
            (None, TypeError),
        ],
    )
    def test_refuses_bad_amounts(self, value: Any, error: type[Exception]) -> None:
        with pytest.raises(error):
            quantize_credits(value)


def test_record_usage_writes_the_ledger_row_and_both_rollups(database_url: str) -> None:
    migrate(database_url)

    async def go(session: Any) -> Any:
        org_id, (team,) = await _org_with_teams(session, "acme", 1)
        when = datetime(2026, 3, 31, 23, 30, tzinfo=timezone(timedelta(hours=-2)))  # Apr 1 UTC
        await record_usage(
            session,
            org_id=org_id,
            team_id=team,
            feature=FEATURE_INTERACTION,
            credits=0.1,
            occurred_at=when,
        )
        await record_usage(
            session,
            org_id=org_id,
            team_id=team,
            feature=FEATURE_INTERACTION,
            credits=1.25,
            occurred_at=datetime(2026, 4, 1, 8, 0),  # naive: UTC
        )
        await record_usage(
            session,
            org_id=org_id,
            team_id=None,
            feature=FEATURE_INVESTIGATION,
            credits=3,
            occurred_at=datetime(2026, 3, 31, 12, 0, tzinfo=UTC),
        )
        await session.commit()
        ledger = (
            await session.execute(
                select(
                    UsageEvent.team_id,
                    UsageEvent.feature,
                    UsageEvent.credits,
                    UsageEvent.occurred_at,
                )
                .where(UsageEvent.org_id == org_id)
                .order_by(UsageEvent.id)
            )
        ).all()
        return team, ledger, await _rollups(session, org_id)

    team, ledger, (daily, monthly) = run(database_url, go)
    tenth = quantize_credits(0.1)
    assert [tuple(r) for r in ledger] == [
        (team, "interaction", tenth, datetime(2026, 4, 1, 1, 30, tzinfo=UTC)),
        (team, "interaction", 1.25, datetime(2026, 4, 1, 8, 0, tzinfo=UTC)),
        (None, "investigation", 3.0, datetime(2026, 3, 31, 12, 0, tzinfo=UTC)),
    ]
    assert daily == [
        (date(2026, 3, 31), 0, "2026-03", 3.0, 1),
        (date(2026, 4, 1), team, "2026-04", tenth + 1.25, 2),
    ]
    assert monthly == [("2026-03", 0, 3.0, 1), ("2026-04", team, tenth + 1.25, 2)]


@pytest.mark.parametrize(
    ("feature", "team", "message"),
    [
        ("chat", None, "unknown usage feature"),
        (FEATURE_INTERACTION, None, "must be attributed"),
        (FEATURE_DIGEST, 1, "is unattributed"),
        (FEATURE_INTERACTION, 0, "positive team id"),
    ],
)
def test_record_usage_enforces_features_and_attribution(
    database_url: str, feature: str, team: int | None, message: str
) -> None:
    migrate(database_url)

    async def go(session: Any) -> None:
        with pytest.raises(ValueError, match=message):
            await record_usage(
                session,
                org_id=1,
                team_id=team,
                feature=feature,
                credits=1.0,
                occurred_at=datetime(2026, 1, 1, tzinfo=UTC),
            )

    run(database_url, go)
    assert {"interaction", "investigation", "digest", "chat_trigger", "filter"} == FEATURES


def test_rollback_discards_the_ledger_row_and_the_rollup_change(database_url: str) -> None:
    migrate(database_url)

    async def go(session: Any) -> Any:
        org_id, (team,) = await _org_with_teams(session, "acme", 1)
        when = datetime(2026, 2, 1, 12, tzinfo=UTC)
        await record_usage(
            session,
            org_id=org_id,
            team_id=team,
            feature="interaction",
            credits=2.0,
            occurred_at=when,
        )
        await session.commit()
        await record_usage(
            session,
            org_id=org_id,
            team_id=team,
            feature="interaction",
            credits=5.0,
            occurred_at=when,
        )
        await session.rollback()
        count = len((await session.execute(select(UsageEvent.id))).all())
        return count, await _rollups(session, org_id)

    count, (daily, monthly) = run(database_url, go)
    assert count == 1
    assert [row[3:] for row in daily] == [(2.0, 1)]
    assert [row[2:] for row in monthly] == [(2.0, 1)]


def test_rollups_equal_a_rebuild_from_the_ledger(database_url: str) -> None:
    migrate(database_url)
    rng = random.Random(11)

    async def go(session: Any) -> Any:
        org_id, teams = await _org_with_teams(session, "acme", 6)
        other_id, other_teams = await _org_with_teams(session, "other", 2)
        base = datetime(2025, 12, 31, tzinfo=UTC)
        for _ in range(600):
            org, pool = rng.choice([(org_id, teams), (org_id, teams), (other_id, other_teams)])
            team = rng.choice([*pool, None])
            await record_usage(
                session,
                org_id=org,
                team_id=team,
                feature=FEATURE_INTERACTION if team else FEATURE_DIGEST,
                credits=rng.choice([0.005, 0.015, 1 / 3, rng.random() * 20]),
                occurred_at=base + timedelta(seconds=rng.randrange(0, 70 * 86400)),
            )
        await session.commit()
        kept = await _rollups(session, org_id), await _rollups(session, other_id)
        await rebuild_rollups(session, org_id)
        await session.commit()
        rebuilt_one = await _rollups(session, org_id), await _rollups(session, other_id)
        await rebuild_rollups(session)
        await session.commit()
        rebuilt_all = await _rollups(session, org_id), await _rollups(session, other_id)
        return kept, rebuilt_one, rebuilt_all

    kept, rebuilt_one, rebuilt_all = run(database_url, go)
    assert kept[0][0] and kept[0][1] and kept[1][0]
    assert kept == rebuilt_one == rebuilt_all


def test_concurrent_writers_lose_no_credit(database_url: str) -> None:
    """Many sessions add to the same rollup rows at once; every addition survives."""
    migrate(database_url)
    writers, per_writer = 8, 25
    when = datetime(2026, 5, 17, 10, tzinfo=UTC)

    async def go() -> Any:
        engine = create_engine(database_url)
        factory = create_session_factory(engine)
        try:
            async with factory() as session:
                org_id, (team,) = await _org_with_teams(session, "acme", 1)

            async def writer(index: int) -> None:
                async with factory() as session:
                    for step in range(per_writer):
                        await record_usage(
                            session,
                            org_id=org_id,
                            team_id=team if step % 2 else None,
                            feature=FEATURE_INTERACTION if step % 2 else FEATURE_DIGEST,
                            credits=0.25 + index,
                            occurred_at=when + timedelta(minutes=step),
                        )
                        await session.commit()

            await asyncio.gather(*(writer(i) for i in range(writers)))
            async with factory() as session:
                return await _rollups(session, org_id)
        finally:
            await engine.dispose()

    daily, monthly = asyncio.run(go())
    half = per_writer // 2
    per_round = sum(0.25 + i for i in range(writers))
    expected_team = (half * per_round, half * writers)
    expected_none = ((per_writer - half) * per_round, (per_writer - half) * writers)
    assert [row[3:] for row in daily] == [expected_none, expected_team]
    assert [row[2:] for row in monthly] == [expected_none, expected_team]


def test_rebuild_while_writers_write_keeps_every_credit(database_url: str) -> None:
    """Rebuilds interleaved with concurrent writers leave the rollups equal to the ledger's sums."""
    migrate(database_url)
    writers, per_writer, rebuilds = 4, 15, 5
    when = datetime(2026, 6, 30, 23, 50, tzinfo=UTC)

    async def go() -> Any:
        engine = create_engine(database_url)
        factory = create_session_factory(engine)
        try:
            async with factory() as session:
                org_id, (team,) = await _org_with_teams(session, "acme", 1)

            async def writer(index: int) -> None:
                async with factory() as session:
                    for step in range(per_writer):
                        await record_usage(
                            session,
                            org_id=org_id,
                            team_id=team,
                            feature=FEATURE_INTERACTION,
                            credits=0.5 * (index + 1),
                            occurred_at=when + timedelta(minutes=step),  # across a month end
                        )
                        await session.commit()
                        await asyncio.sleep(0)

            async def rebuilder() -> None:
                async with factory() as session:
                    for _ in range(rebuilds):
                        await rebuild_rollups(session, org_id)
                        await session.commit()
                        await asyncio.sleep(0.01)

            await asyncio.gather(rebuilder(), *(writer(i) for i in range(writers)))
            async with factory() as session:
                kept = await _rollups(session, org_id)
                await rebuild_rollups(session, org_id)
                return kept, await _rollups(session, org_id)
        finally:
            await engine.dispose()

    kept, rebuilt = asyncio.run(go())
    assert kept == rebuilt
    assert sum(row[4] for row in kept[0]) == writers * per_writer
    assert sum(row[3] for row in kept[0]) == per_writer * 0.5 * sum(range(1, writers + 1))


def test_migration_backfills_rollups_from_existing_ledger_rows(database_url: str) -> None:
    migrate(database_url, "0001")

    async def seed(session: Any) -> int:
        org_id, (team,) = await _org_with_teams(session, "acme", 1)
        await session.execute(
            insert(UsageEvent),
            [
                {
                    "org_id": org_id,
                    "team_id": team if i % 3 else None,
                    "feature": "interaction" if i % 3 else "digest",
                    "credits": 0.1 * (i + 1),
                    "occurred_at": datetime(2026, 1, 30, tzinfo=UTC) + timedelta(hours=7 * i),
                }
                for i in range(30)
            ],
        )
        await session.commit()
        return org_id

    org_id = run(database_url, seed)
    migrate(database_url)

    async def check(session: Any) -> Any:
        credits = (await session.scalars(select(UsageEvent.credits))).all()
        migrated = await _rollups(session, org_id)
        await rebuild_rollups(session, org_id)
        return credits, migrated, await _rollups(session, org_id)

    credits, migrated, rebuilt = run(database_url, check)
    assert all((value / CREDIT_RESOLUTION).is_integer() for value in credits)
    assert migrated == rebuilt
    assert sum(row[4] for row in migrated[0]) == 30
    assert {row[0] for row in migrated[1]} == {"2026-01", "2026-02"}


def test_sqlite_rollups_are_clustered_on_their_key(database_url: str) -> None:
    if not database_url.startswith("sqlite"):
        pytest.skip("SQLite storage detail")
    migrate(database_url)

    async def go(session: Any) -> list[str]:
        rows = await session.execute(
            text("SELECT sql FROM sqlite_master WHERE name IN ('usage_daily', 'usage_monthly')")
        )
        return [r[0] for r in rows]

    assert all("WITHOUT ROWID" in sql for sql in run(database_url, go))


def test_the_usage_of_one_transaction_adds_to_each_rollup_row_once_at_its_commit(
    database_url: str,
) -> None:
    """Three usages of one team and day in one transaction: one ledger row each, all three in one
    executemany, and the rollups written by one addition per row, all just before the commit
    (nothing before it, nothing after a rollback)."""
    migrate(database_url)
    when = datetime(2026, 5, 17, 10, tzinfo=UTC)

    async def go(session: Any) -> Any:
        org_id, (team,) = await _org_with_teams(session, "acme", 1)
        upserts: list[str] = []

        def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
            if statement.lstrip().upper().startswith("INSERT INTO USAGE_"):
                upserts.append(statement.split()[2])

        engine = session.get_bind()
        event.listen(engine, "before_cursor_execute", count)

        async def usage(credits: float) -> None:
            await record_usage(
                session,
                org_id=org_id,
                team_id=team,
                feature=FEATURE_INTERACTION,
                credits=credits,
                occurred_at=when,
            )

        await usage(9.0)
        await session.rollback()  # its additions go with it
        for credits in (1.0, 2.5, 0.25):
            await usage(credits)
        before_commit = (list(upserts), await _rollups(session, org_id))
        await session.commit()
        event.remove(engine, "before_cursor_execute", count)
        return before_commit, upserts, await _rollups(session, org_id)

    (seen, rollups_before), upserts, (daily, monthly) = run(database_url, go)
    # Nothing is written before the commit (the rolled-back usage never is): then the three
    # ledger rows in one executemany, and one addition per rollup row.
    assert seen == [] and rollups_before == ([], [])
    assert upserts == ["usage_events", "usage_daily", "usage_monthly"]
    team_key = daily[0][1]
    assert daily == [(date(2026, 5, 17), team_key, "2026-05", 3.75, 3)]
    assert monthly == [("2026-05", team_key, 3.75, 3)]
