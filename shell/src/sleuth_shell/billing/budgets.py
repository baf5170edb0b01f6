"""Team budgets for automated runs (DESIGN 7): credits per calendar month (UTC) per team.

An automated run counts against its team: what the completed investigations of the team's agents
and runs of its digests cost this month (``investigations.credits``, ``digest_runs.credits``, by
completion time). A digest's cron fire is skipped once its team's budget is used. Once a team's
use this month has reached its budget, intake records ``over_budget`` instead of opening
investigations (:mod:`sleuth_shell.alerts.decisions`), and ``POST /alerts/{id}/investigate``
refuses too. ``sleuth admin set-budget`` sets budgets (:func:`sleuth_shell.admin.set_budget`).
The credit-usage report is unchanged: investigations stay unattributed there.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.db.models import Digest, DigestRun, Investigation, Team, TeamBudget

__all__ = ["BudgetRow", "automated_use", "list_budgets", "month_start", "over_budget"]


def month_start(now: datetime) -> datetime:
    """Midnight UTC of the first day of ``now``'s month."""
    now = now.astimezone(UTC)
    return datetime(now.year, now.month, 1, tzinfo=UTC)


async def automated_use(
    session: AsyncSession, team_ids: set[int], now: datetime
) -> dict[int, float]:
    """Credits the automated runs of each of ``team_ids`` cost in ``now``'s month."""
    if not team_ids:
        return {}
    start = month_start(now)
    rows = await session.execute(
        select(Investigation.team_id, func.coalesce(func.sum(Investigation.credits), 0.0))
        .where(
            Investigation.team_id.in_(team_ids),
            Investigation.completed_at >= start,
            Investigation.credits.is_not(None),
        )
        .group_by(Investigation.team_id)
    )
    used = {int(team or 0): float(total or 0.0) for team, total in rows.all()}
    digests = await session.execute(
        select(Digest.team_id, func.coalesce(func.sum(DigestRun.credits), 0.0))
        .join(Digest, Digest.id == DigestRun.digest_id)
        .where(
            Digest.team_id.in_(team_ids),
            DigestRun.completed_at >= start,
            DigestRun.credits.is_not(None),
        )
        .group_by(Digest.team_id)
    )
    for team, total in digests.all():
        used[int(team)] = used.get(int(team), 0.0) + float(total or 0.0)
    return used


async def over_budget(session: AsyncSession, team_ids: set[int], now: datetime) -> set[int]:
    """Those of ``team_ids`` whose automated runs this month reached their budget."""
    budgets = dict(
        (
            await session.execute(
                select(TeamBudget.team_id, TeamBudget.credits).where(
                    TeamBudget.team_id.in_(team_ids)
                )
            )
        ).all()
    )
    if not budgets:
        return set()
    used = await automated_use(session, set(budgets), now)
    return {int(team) for team, budget in budgets.items() if used.get(team, 0.0) >= budget}


@dataclass(frozen=True, slots=True)
class BudgetRow:
    team_name: str
    month: str
    budget: float
    used: float


async def list_budgets(session: AsyncSession, org_id: int, now: datetime) -> list[BudgetRow]:
    """The organization's budgets with this month's use, by team name."""
    rows = (
        await session.execute(
            select(Team.id, Team.name, TeamBudget.credits)
            .join(TeamBudget, TeamBudget.team_id == Team.id)
            .where(Team.org_id == org_id)
            .order_by(Team.name)
        )
    ).all()
    used = await automated_use(session, {int(row[0]) for row in rows}, now)
    month = month_start(now).strftime("%Y-%m")
    return [
        BudgetRow(team_name=name, month=month, budget=float(credits), used=used.get(int(pk), 0.0))
        for pk, name, credits in rows
    ]
