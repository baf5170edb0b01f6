"""The credit-usage report: credits per team and month over a range, summed in SQL.

:func:`credit_usage` splits ``[start, end)`` at UTC month and day boundaries
(:func:`plan_range`). Whole months come from the ``usage_monthly`` rollup (one row per team and
month), the whole days outside them from ``usage_daily`` (one row per team and day), and the partial
first and last days from the raw ``usage_events`` ledger through its covering
``(org_id, occurred_at, team_id, credits)`` index. A 366-day report thus reads at most 12
monthly rows, 60 daily rows and 2 days of ledger rows per team, however large the ledger. All
parts are read by one statement (a ``UNION ALL`` of the parts, each grouped by team and month,
grouped again and joined to the team names), whose few rows are handed to
:func:`sleuth_core.credits.aggregate_usage` as one event per team and month, so the ordering, the
2-decimal rounding and the monthly totals are
the core's. Because ledger amounts lie on an exact binary grid (see
:mod:`sleuth_shell.billing.ledger`), the partial sums add up without rounding and the report equals
the core's aggregation of the raw rows exactly.

:func:`credit_usage_from_ledger` computes the same report by grouping the raw ledger rows alone. It
is the reference the rollups are tested against and the peer of the benchmark.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from typing import Any

from sqlalchemy import Integer, Select, String, and_, bindparam, func, literal, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.credits import aggregate_usage
from sleuth_shell.billing.ledger import UNATTRIBUTED_TEAM_KEY, month_expression
from sleuth_shell.db.models import Team, UsageDaily, UsageEvent, UsageMonthly

__all__ = ["credit_usage", "credit_usage_from_ledger", "plan_range"]


def _as_utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time(0), tzinfo=UTC)


def _month_start(month: str) -> datetime:
    year, number = month.split("-")
    return datetime(int(year), int(number), 1, tzinfo=UTC)


def _check_range(start: datetime, end: datetime) -> tuple[datetime, datetime]:
    start, end = _as_utc(start), _as_utc(end)
    if end <= start:
        raise ValueError("end must be after start")
    return start, end


def _next_month(day: date) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, 1)


def plan_range(
    start: datetime, end: datetime
) -> tuple[list[tuple[datetime, datetime]], list[tuple[date, date]], tuple[str, str] | None]:
    """Split ``[start, end)`` (aware UTC) into what each source answers.

    Returns ``(partial_days, whole_days, whole_months)``: half-open timestamp ranges for the raw
    ledger, each inside one UTC day; half-open day ranges for the daily rollup; and a half-open
    ``YYYY-MM`` range for the monthly rollup, or ``None``. Together they cover the range exactly
    once. A 366-day range reads at most two partial days, 60 whole days and 12 whole months.
    """
    first_day = (
        start.date()
        if start.timetz() == time(0, tzinfo=UTC)
        else (start.date() + timedelta(days=1))
    )
    end_day = end.date()  # every day before this one ends at or before `end`
    if first_day >= end_day:
        # No whole day inside: the range lies within the day of `start` and the next one.
        next_midnight = _midnight(start.date() + timedelta(days=1))
        edges = [(start, min(end, next_midnight)), (next_midnight, end)]
        return [(lo, hi) for lo, hi in edges if lo < hi], [], None
    edges = [(start, _midnight(first_day)), (_midnight(end_day), end)]
    partial_days = [(lo, hi) for lo, hi in edges if lo < hi]
    first_month = first_day if first_day.day == 1 else _next_month(first_day)
    end_month = end_day.replace(day=1)
    if first_month >= end_month:
        return partial_days, [(first_day, end_day)], None
    days = [(first_day, first_month), (end_month, end_day)]
    whole_days = [(lo, hi) for lo, hi in days if lo < hi]
    months = (first_month.strftime("%Y-%m"), end_month.strftime("%Y-%m"))
    return partial_days, whole_days, months


async def credit_usage(
    session: AsyncSession, *, org_id: int, start: datetime, end: datetime
) -> dict[str, Any]:
    """Credits of organization ``org_id`` over ``[start, end)``, per team and month.

    Returns what :func:`sleuth_core.credits.aggregate_usage` returns for the organization's ledger
    rows in the range: ``{"data": [...], "monthly_totals": {...}}`` (SPEC "Credit usage row"). The
    range is taken as validated (:func:`sleuth_core.credits.parse_usage_range`); naive values are
    UTC. Raises :class:`ValueError` when ``end`` is not after ``start``.

    Reads whole months from ``usage_monthly``, the other whole days from ``usage_daily`` and the
    partial days at the edges from the ledger (see :func:`plan_range`), in one statement.
    """
    start, end = _check_range(start, end)
    partial_days, whole_days, whole_months = plan_range(start, end)
    params: dict[str, Any] = {"org_id": org_id}
    if whole_months is not None:
        params["month_lo"], params["month_hi"] = whole_months
    for index, (first_day, end_day) in enumerate(whole_days):
        params[f"day{index}_lo"], params[f"day{index}_hi"] = first_day, end_day
    for index, (lower, upper) in enumerate(partial_days):
        params[f"edge{index}_lo"], params[f"edge{index}_hi"] = lower, upper
        params[f"edge{index}_month"] = lower.strftime("%Y-%m")
    statement = _report_statement(whole_months is not None, len(whole_days), len(partial_days))
    rows = await session.execute(statement, params)
    return _report(rows.all(), start, end)


@lru_cache(maxsize=32)
def _report_statement(months: bool, day_ranges: int, edge_ranges: int) -> Select[Any]:
    """The report's one statement for a plan of this shape, with bound parameters.

    Built once per shape (at most 3 x 3 x 3 of them) so each request only binds values: the parts
    of :func:`plan_range` as a ``UNION ALL``, each grouped by team and month, grouped again and
    joined to the team names (an unattributed or deleted team gets a null name).
    """
    org_id = bindparam("org_id", type_=Integer)
    parts: list[Select[*tuple[Any, ...]]] = []
    if months:
        monthly = UsageMonthly.__table__
        parts.append(
            select(monthly.c.team_key, monthly.c.month, monthly.c.credits).where(
                monthly.c.org_id == org_id,
                monthly.c.month >= bindparam("month_lo"),
                monthly.c.month < bindparam("month_hi"),
            )
        )
    daily = UsageDaily.__table__
    for index in range(day_ranges):
        parts.append(
            select(daily.c.team_key, daily.c.month, func.sum(daily.c.credits).label("credits"))
            .where(
                daily.c.org_id == org_id,
                daily.c.day >= bindparam(f"day{index}_lo"),
                daily.c.day < bindparam(f"day{index}_hi"),
            )
            .group_by(daily.c.team_key, daily.c.month)
        )
    ledger = UsageEvent.__table__
    for index in range(edge_ranges):
        team_key = func.coalesce(ledger.c.team_id, literal(UNATTRIBUTED_TEAM_KEY, Integer))
        parts.append(
            select(
                team_key.label("team_key"),
                bindparam(f"edge{index}_month", type_=String).label("month"),
                func.sum(ledger.c.credits).label("credits"),
            )
            .where(
                ledger.c.org_id == org_id,
                ledger.c.occurred_at >= bindparam(f"edge{index}_lo"),
                ledger.c.occurred_at < bindparam(f"edge{index}_hi"),
            )
            .group_by(team_key)
        )
    union = (parts[0] if len(parts) == 1 else union_all(*parts)).subquery("part")
    teams = Team.__table__
    return (
        select(union.c.team_key, teams.c.name, union.c.month, func.sum(union.c.credits))
        .select_from(
            union.outerjoin(teams, and_(teams.c.id == union.c.team_key, teams.c.org_id == org_id))
        )
        .group_by(union.c.team_key, teams.c.name, union.c.month)
    )


async def credit_usage_from_ledger(
    session: AsyncSession, *, org_id: int, start: datetime, end: datetime
) -> dict[str, Any]:
    """The same report as :func:`credit_usage`, grouped from the raw ledger rows only (no rollup).

    Reads every ledger row of the range, so it is slow on large ledgers; it serves as the reference
    implementation and the benchmark's peer.
    """
    start, end = _check_range(start, end)
    ledger = UsageEvent.__table__
    teams = Team.__table__
    month = month_expression(session.get_bind().dialect.name, ledger.c.occurred_at)
    rows = await session.execute(
        select(ledger.c.team_id, teams.c.name, month, func.sum(ledger.c.credits))
        .select_from(
            ledger.outerjoin(teams, and_(teams.c.id == ledger.c.team_id, teams.c.org_id == org_id))
        )
        .where(
            ledger.c.org_id == org_id,
            ledger.c.occurred_at >= start,
            ledger.c.occurred_at < end,
        )
        .group_by(ledger.c.team_id, teams.c.name, month)
    )
    return _report(rows.all(), start, end)


def _report(sums: Iterable[Any], start: datetime, end: datetime) -> dict[str, Any]:
    """Hand ``(team_id, team_name, month, credits)`` sums to the core as one event each.

    A team id that has no name (unattributed usage, or a team that is no longer one of the
    organization's: the ledger's ``ON DELETE SET NULL`` made that usage unattributed too) counts as
    unattributed. Each event is placed at the later of ``start`` and the start of its month, which
    is inside both the range and the month.
    """
    placed: dict[str, datetime] = {}
    events: list[tuple[int | None, str | None, datetime, float]] = []
    for team_id, name, month, credits in sums:
        at = placed.get(month)
        if at is None:
            at = placed[month] = max(start, _month_start(month))
        events.append((None if name is None else team_id, name, at, credits))
    return aggregate_usage(events, start, end)
