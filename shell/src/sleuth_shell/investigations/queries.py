"""The reads of investigations, once for every front-end: the API (cursor pages), the web app
(numbered pages) and MCP (the newest few) list with :func:`list_investigations` and read one with
:func:`load_investigation`. Every read is scoped to one organization, so another organization's
investigation reads exactly like an unknown one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.db.models import Alert, Investigation, Team
from sleuth_shell.db.paging import PageRequest, fetch_page

__all__ = [
    "PAYLOAD",
    "InvestigationPage",
    "InvestigationRead",
    "list_investigations",
    "load_investigation",
]


@dataclass(frozen=True, slots=True)
class InvestigationRead:
    """An investigation row with its team's name and the alert payload it runs on
    (``event_payload``: its alert-log row's, :data:`PAYLOAD`)."""

    row: Investigation
    team_name: str | None
    event_payload: str


#: An investigation's alert payload: stored once in its alert-log row (``alert_id``), else (no
#: alert, or pruned: the prune copied it) in its own ``event_payload``.
PAYLOAD = func.coalesce(Alert.payload, Investigation.event_payload)


def _read(query: Select[Investigation, str]) -> Select[Investigation, str, str]:
    """``query`` (of an investigation and its team's name) with the alert payload it runs on."""
    return query.add_columns(PAYLOAD).outerjoin(Alert, Alert.id == Investigation.alert_id)


@dataclass(frozen=True, slots=True)
class InvestigationPage:
    """One page of investigations, newest first; ``next_cursor`` is None on the last page."""

    items: list[InvestigationRead]
    next_cursor: str | None


async def list_investigations(
    session: AsyncSession,
    org_id: int,
    page: PageRequest,
    *,
    status: str | Sequence[str] | None = None,
    agent_id: int | None = None,
) -> InvestigationPage:
    """The organization's investigations, newest first (created, then id), optionally in one
    ``status`` (or any of several) and of one alert agent; ``page`` says which (a cursor, an
    offset, or the newest).
    Raises :class:`~sleuth_shell.db.paging.InvalidCursor` for a cursor that names no row."""
    query = _read(
        select(Investigation, Team.name)
        .outerjoin(Team, Team.id == Investigation.team_id)
        .where(Investigation.org_id == org_id)
    )
    if agent_id is not None:
        query = query.where(Investigation.alert_responder_id == agent_id)
    if isinstance(status, str):
        query = query.where(Investigation.status == status)
    elif status is not None:
        query = query.where(Investigation.status.in_(status))
    found = await fetch_page(
        session, query, page, created=Investigation.created_at, key=Investigation.id
    )
    return InvestigationPage(
        items=[InvestigationRead(row, team, payload) for row, team, payload in found.rows],
        next_cursor=found.next_cursor,
    )


async def load_investigation(
    session: AsyncSession, org_id: int, pk: int, *, fresh: bool = False
) -> InvestigationRead | None:
    """The organization's investigation ``pk`` with its team's name, or None (``fresh``: read
    the row again even when the session holds it, e.g. after an update in the same session)."""
    query = _read(
        select(Investigation, Team.name)
        .outerjoin(Team, Team.id == Investigation.team_id)
        .where(Investigation.id == pk, Investigation.org_id == org_id)
    )
    if fresh:
        query = query.execution_options(populate_existing=True)
    found = (await session.execute(query)).first()
    if found is None:
        return None
    row, team_name, payload = found
    return InvestigationRead(row, team_name, payload)
