"""The reads of interactions, once for every front-end: the API (cursor pages, one by id, its
analysis), the web app (the recent and the unfinished questions, one question's page) and MCP
(one by id). Every read is scoped to one organization, so another organization's interaction
reads exactly like an unknown one."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.db.models import Interaction
from sleuth_shell.db.paging import Page, PageRequest, fetch_page

__all__ = ["list_interactions", "load_interaction"]

#: Longest interaction ID (a UUID4 string); a longer value names nothing.
_MAX_ID = 36


async def list_interactions(
    session: AsyncSession,
    org_id: int,
    page: PageRequest,
    *,
    status: Sequence[str] | None = None,
) -> Page:
    """The organization's interactions, newest first (created, then id), optionally in one of
    ``status``; ``page`` says which. Rows are ``(Interaction,)``. Raises
    :class:`~sleuth_shell.db.paging.InvalidCursor` for a cursor that names no row."""
    query = select(Interaction).where(Interaction.org_id == org_id)
    if status is not None:
        query = query.where(Interaction.status.in_(status))
    return await fetch_page(
        session, query, page, created=Interaction.created_at, key=Interaction.id
    )


async def load_interaction(
    session: AsyncSession, org_id: int, interaction_id: str
) -> Interaction | None:
    """The organization's interaction ``interaction_id``, or None."""
    if len(interaction_id) > _MAX_ID:
        return None
    row: Interaction | None = await session.scalar(
        select(Interaction).where(Interaction.id == interaction_id, Interaction.org_id == org_id)
    )
    return row
