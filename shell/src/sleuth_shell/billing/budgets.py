"""Team budgets for automated runs (DESIGN 7): credits per calendar month (UTC) per team.

An automated run (an investigation an alert opened) counts against its agent's team: what its
completed runs of the month cost (``investigations.credits``, by completion time). Once a team's
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

from sleuth_shell.db.models import Investigation, Team, TeamBudget

__all__ = ["BudgetRow", "automated_use", "list_budgets", "month_start"]


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
    rows = await session.execute(
        select(Investigation.team_id, func.coalesce(func.sum(Investigation.credits), 0.0))
        .where(
            Investigation.team_id.in_(team_ids),
            Investigation.completed_at >= month_start(now),
            Investigation.credits.is_not(None),
        )
        .group_by(Investigation.team_id)
    )
    return {int(team or 0): float(used or 0.0) for team, used in rows.all()}


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
