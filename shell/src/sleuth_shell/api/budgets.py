"""``GET /api/v1/billing/budgets``: the organization's team budgets and this month's use (DESIGN
7). Budgets are set by the operator (``sleuth admin set-budget``); see
:mod:`sleuth_shell.billing.budgets`."""

from __future__ import annotations

import msgspec
from litestar import get

from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.billing.budgets import list_budgets
from sleuth_shell.db.models import utcnow
from sleuth_shell.errors import error_responses

__all__ = ["ROUTES"]


class Budget(msgspec.Struct):
    team_name: str
    month: str
    budget: float
    used: float


class BudgetList(msgspec.Struct):
    budgets: list[Budget]


@get(
    "/billing/budgets",
    operation_id="listBudgets",
    responses=error_responses(),
    tags=["billing"],
)
async def budgets(principal: CurrentPrincipal, db_session: DbSession) -> BudgetList:
    """Each team's monthly budget for automated runs and the credits they used this month."""
    rows = await list_budgets(db_session, principal.org_id, utcnow())
    return BudgetList(budgets=[Budget(r.team_name, r.month, r.budget, r.used) for r in rows])


ROUTES = [budgets]
