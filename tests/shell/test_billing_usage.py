"""The SQL credit-usage report equals the core's aggregation of the same ledger rows.

``credit_usage`` (rollups + partial edge days) and ``credit_usage_from_ledger`` (raw rows) are
compared with :func:`sleuth_core.credits.aggregate_usage` fed the organization's ledger rows, on
random data with awkward amounts, edge timestamps at range bounds, midnights and month starts,
null teams, many teams, a deleted team and a second organization. Marked ``storage``.
"""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, date, datetime, time, timedelta
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, select

from sleuth_core.credits import UsageEvent as CoreEvent
from sleuth_core.credits import aggregate_usage
from sleuth_shell import admin
from sleuth_shell.billing import FEATURE_DIGEST, FEATURE_INTERACTION, record_usage
from sleuth_shell.billing.usage import credit_usage, credit_usage_from_ledger, plan_range
from sleuth_shell.db import create_engine, create_session_factory, migrate
from sleuth_shell.db.models import Team, UsageEvent

BASE = datetime(2025, 1, 1, tzinfo=UTC)
SPAN_DAYS = 400

instants = st.datetimes(
    min_value=datetime(2024, 1, 1), max_value=datetime(2027, 1, 1), timezones=st.just(UTC)
)


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time(0), tzinfo=UTC)


class TestPlanRange:
    @settings(max_examples=400, deadline=None)
    @given(
        start=instants,
        length=st.one_of(
            st.timedeltas(min_value=timedelta(microseconds=1), max_value=timedelta(days=366)),
            st.integers(1, 366).map(lambda d: timedelta(days=d)),
            st.integers(1, 48).map(lambda h: timedelta(hours=h)),
        ),
        snap=st.booleans(),
    )
    def test_parts_cover_the_range_exactly_once(
        self, start: datetime, length: timedelta, snap: bool
    ) -> None:
        if snap:
            start = _midnight(start.date())
        end = start + length
        partial, days, months = plan_range(start, end)
        pieces: list[tuple[datetime, datetime]] = list(partial)
        for lower, upper in partial:
            assert lower < upper
            assert lower.date() == (upper - timedelta(microseconds=1)).date()  # one UTC day
        for first, stop in days:
            assert first < stop
            pieces.append((_midnight(first), _midnight(stop)))
        if months is not None:
            first_month = datetime.strptime(months[0], "%Y-%m").replace(tzinfo=UTC)
            end_month = datetime.strptime(months[1], "%Y-%m").replace(tzinfo=UTC)
            assert first_month < end_month
            pieces.append((first_month, end_month))
        pieces.sort()
        assert pieces[0][0] == start and pieces[-1][1] == end
        for (_, upper), (lower, _) in pairwise(pieces):
            assert upper == lower
        assert len(partial) <= 2 and len(days) <= 2
        if length <= timedelta(days=366):
            assert sum((stop - first).days for first, stop in days) <= 60
            if months is not None:
                lo_year, lo_month = map(int, months[0].split("-"))
                hi_year, hi_month = map(int, months[1].split("-"))
                assert (hi_year - lo_year) * 12 + hi_month - lo_month <= 12

    def test_a_year_mid_day_uses_every_level(self) -> None:
        start = datetime(2025, 1, 20, 13, 7, tzinfo=UTC)
        partial, days, months = plan_range(start, start + timedelta(days=366))
        assert partial == [
            (start, datetime(2025, 1, 21, tzinfo=UTC)),
            (datetime(2026, 1, 21, tzinfo=UTC), datetime(2026, 1, 21, 13, 7, tzinfo=UTC)),
        ]
        assert days == [
            (date(2025, 1, 21), date(2025, 2, 1)),
            (date(2026, 1, 1), date(2026, 1, 21)),
        ]
        assert months == ("2025-02", "2026-01")


def _amount(rng: random.Random) -> float:
    return rng.choice(
        [
            0.005,
            0.015,
            0.025,
            0.125,
            1 / 3,
            2.675,
            1e-7,
            round(rng.uniform(0, 5), 3),
            rng.uniform(0, 100),
            rng.expovariate(0.2),
        ]
    )


def _timestamp(rng: random.Random, bounds: list[datetime]) -> datetime:
    kind = rng.random()
    if kind < 0.15 and bounds:  # exactly at a future range bound, or a hair off it
        return rng.choice(bounds) + rng.choice(
            [timedelta(0), timedelta(microseconds=-1), timedelta(microseconds=1)]
        )
    if kind < 0.3:  # exactly at a midnight or a month start
        day = BASE.date() + timedelta(days=rng.randrange(SPAN_DAYS))
        return _midnight(day if rng.random() < 0.7 else day.replace(day=1))
    return BASE + timedelta(microseconds=rng.randrange(SPAN_DAYS * 86_400_000_000))


def _ranges(rng: random.Random, count: int) -> list[tuple[datetime, datetime]]:
    ranges = []
    for _ in range(count):
        start = (
            BASE
            - timedelta(days=5)
            + timedelta(microseconds=rng.randrange((SPAN_DAYS + 10) * 86_400_000_000))
        )
        style = rng.random()
        if style < 0.2:
            start = _midnight(start.date())
        elif style < 0.3:
            start = _midnight(start.date().replace(day=1))
        length = rng.choice(
            [
                timedelta(days=366),
                timedelta(days=rng.randint(1, 366)),
                timedelta(seconds=rng.randrange(1, 366 * 86400)),
                timedelta(hours=rng.randint(1, 50)),
                timedelta(microseconds=rng.randint(1, 10**6)),
            ]
        )
        ranges.append((start, start + length))
    return ranges


@pytest.mark.storage
def test_sql_report_equals_core_aggregation_on_random_data(database_url: str) -> None:
    migrate(database_url)
    rng = random.Random(20261122)
    ranges = _ranges(rng, 80)
    bounds = [moment for pair in ranges for moment in pair]

    async def go() -> None:
        engine = create_engine(database_url)
        try:
            async with create_session_factory(engine)() as session:
                org = await admin.create_org(session, "acme", "team")
                other = await admin.create_org(session, "other", "team")
                teams = [
                    (await admin.create_team(session, "acme", f"t{i:02d}")).id for i in range(30)
                ]
                other_team = (await admin.create_team(session, "other", "x")).id
                for _ in range(1200):
                    team = rng.choice([*teams, None, None])
                    await record_usage(
                        session,
                        org_id=org.id,
                        team_id=team,
                        feature=FEATURE_INTERACTION if team else FEATURE_DIGEST,
                        credits=_amount(rng),
                        occurred_at=_timestamp(rng, bounds),
                    )
                for _ in range(100):  # another organization's usage never shows
                    await record_usage(
                        session,
                        org_id=other.id,
                        team_id=other_team,
                        feature=FEATURE_INTERACTION,
                        credits=_amount(rng),
                        occurred_at=_timestamp(rng, bounds),
                    )
                await session.commit()
                # A deleted team: the ledger nulls its rows, the rollups keep its id.
                await session.execute(delete(Team).where(Team.id == teams[0]))
                await session.commit()

                names = dict((await session.execute(select(Team.id, Team.name))).all())
                rows = (
                    await session.execute(
                        select(
                            UsageEvent.team_id, UsageEvent.occurred_at, UsageEvent.credits
                        ).where(UsageEvent.org_id == org.id)
                    )
                ).all()
                assert not any(team == teams[0] for team, _, _ in rows)
                events = [
                    CoreEvent(team, names.get(team) if team else None, at, credits)
                    for team, at, credits in rows
                ]
                non_empty = 0
                for start, end in ranges:
                    expected = aggregate_usage(events, start, end)
                    got = await credit_usage(session, org_id=org.id, start=start, end=end)
                    assert got == expected, (start, end)
                    raw = await credit_usage_from_ledger(
                        session, org_id=org.id, start=start, end=end
                    )
                    assert raw == expected, (start, end)
                    non_empty += bool(expected["data"])
                assert non_empty > 50
        finally:
            await engine.dispose()

    asyncio.run(go())


@pytest.mark.storage
def test_report_ordering_rounding_and_totals(database_url: str) -> None:
    migrate(database_url)

    async def go() -> Any:
        engine = create_engine(database_url)
        try:
            async with create_session_factory(engine)() as session:
                org = await admin.create_org(session, "acme", "team")
                ops = (await admin.create_team(session, "acme", "Ops")).id
                web = (await admin.create_team(session, "acme", "Web")).id

                async def use(team: int | None, credits: float, at: datetime) -> None:
                    await record_usage(
                        session,
                        org_id=org.id,
                        team_id=team,
                        feature=FEATURE_INTERACTION if team else FEATURE_DIGEST,
                        credits=credits,
                        occurred_at=at,
                    )

                jan, feb = datetime(2026, 1, 10, tzinfo=UTC), datetime(2026, 2, 3, tzinfo=UTC)
                await use(ops, 1.004, jan)
                await use(ops, 1.004, jan)  # 2.008 -> 2.01
                await use(web, 5.5, jan)
                await use(None, 0.333, jan)
                await use(web, 1.0, feb)
                await use(None, 4.0, feb)
                await use(None, 9.0, datetime(2026, 3, 1, tzinfo=UTC))  # == end: excluded
                await session.commit()
                return (
                    ops,
                    web,
                    await credit_usage(
                        session,
                        org_id=org.id,
                        start=datetime(2026, 1, 1, tzinfo=UTC),
                        end=datetime(2026, 3, 1, tzinfo=UTC),
                    ),
                )
        finally:
            await engine.dispose()

    ops, web, report = asyncio.run(go())
    assert report["data"] == [
        {"team_id": web, "team_name": "Web", "month": "2026-01", "credits": 5.5},
        {"team_id": ops, "team_name": "Ops", "month": "2026-01", "credits": 2.01},
        {"team_id": None, "team_name": None, "month": "2026-01", "credits": 0.33},
        {"team_id": None, "team_name": None, "month": "2026-02", "credits": 4.0},
        {"team_id": web, "team_name": "Web", "month": "2026-02", "credits": 1.0},
    ]
    assert report["monthly_totals"] == {"2026-01": 7.84, "2026-02": 5.0}
