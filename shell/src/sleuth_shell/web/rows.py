"""The pages' reads of single rows and short lists, scoped to the viewer's organization: IDs
that are malformed, of the wrong type or of another organization name nothing (404), as in the API.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.db.models import (
    Team,
)
from sleuth_shell.domain import MAX_PK

__all__ = ["RECENT", "org_rows", "owned", "team_names"]

RECENT = 20

_M = TypeVar("_M")


async def owned(session: AsyncSession, model: Any, pk: int | str | None, org_id: int) -> Any:
    """The ``model`` row ``pk`` when it belongs to ``org_id``, else None."""
    if pk is None or (isinstance(pk, int) and pk > MAX_PK):
        return None  # larger IDs name nothing (and would overflow PostgreSQL's INTEGER)
    row = await session.get(model, pk)
    return row if row is not None and row.org_id == org_id else None


async def team_names(session: AsyncSession, org_id: int) -> dict[int, str]:
    """The organization's team names by id."""
    rows = await session.execute(select(Team.id, Team.name).where(Team.org_id == org_id))
    return {tid: name for tid, name in rows.all()}


async def org_rows(
    session: AsyncSession, model: type[_M], org_id: int, order_by: Any, *where: Any
) -> Sequence[_M]:
    """The organization's ``model`` rows (those that meet ``where`` too), in ``order_by`` order."""
    table: Any = model
    return (
        await session.scalars(
            select(model).where(table.org_id == org_id, *where).order_by(order_by)
        )
    ).all()
