"""Investigations (runs of alert agents): ``GET /api/v1/investigations`` (newest first, cursor
paged), ``GET /api/v1/investigations/{id}`` and ``POST /api/v1/investigations/{id}/stop``.

The list takes ``alert_responder_id`` (an alert agent's Global ID; one of another organization
lists nothing), ``status`` (one of the investigation statuses), ``limit`` (1-100, default
20) and ``cursor`` (the ``next_cursor`` of the previous page, opaque), paged by
:func:`~sleuth_shell.api.common.parse_page`/:func:`~sleuth_shell.api.common.fetch_page` like every
list; any malformed one is 400 naming it. ``next_cursor`` is null on the last page.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from litestar import get, post
from litestar.params import FromPath, FromQuery
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.ids import encode_global_id
from sleuth_shell.api.common import choice_filter, decode_id_or_404, id_filter, parse_page
from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.auth import Principal
from sleuth_shell.db.paging import InvalidCursor
from sleuth_shell.errors import bad_request, error_responses, not_found
from sleuth_shell.investigations import stop_investigation
from sleuth_shell.investigations.queries import InvestigationRead, load_investigation
from sleuth_shell.investigations.queries import list_investigations as list_investigations_of
from sleuth_shell.statuses import INVESTIGATION as STATUSES

__all__ = [
    "GLOBAL_TYPE",
    "ROUTES",
    "InvestigationList",
    "InvestigationRecord",
    "investigation_record",
]

GLOBAL_TYPE = "Investigation"
THING = "Investigation"


class InvestigationRecord(msgspec.Struct, kw_only=True):
    """An investigation: its prompt, the alert it ran on, and the rendered result."""

    id: str
    organization_name: str
    team_name: str | None
    name: str
    status: str
    started_at: datetime | None
    completed_at: datetime | None
    prompt: str
    event_payload: str
    result: str
    analysis: dict[str, Any] | None = None
    """The structured root-cause result (additive to SPEC): ``{verdict: change|external|unknown,
    change_id, deploy_id, service, affected_services, confidence: CONFIRMED|LIKELY|INCONCLUSIVE,
    remediation, external_cause, onset, evidence: [citation numbers of result]}``; null until the
    agent produced one."""


def investigation_record(found: InvestigationRead, organization_name: str) -> InvestigationRecord:
    """The API shape of an investigation as :mod:`sleuth_shell.investigations.queries` reads it
    (``result`` is stored already rendered; ``event_payload`` is its alert's)."""
    row = found.row
    return InvestigationRecord(
        id=encode_global_id(GLOBAL_TYPE, row.id),
        organization_name=organization_name,
        team_name=found.team_name,
        name=row.name,
        status=row.status,
        started_at=row.started_at,
        completed_at=row.completed_at,
        prompt=row.prompt,
        event_payload=found.event_payload,
        result=row.result,
        analysis=row.analysis,
    )


class InvestigationList(msgspec.Struct, kw_only=True):
    """One page of investigations, newest first; ``next_cursor`` is null on the last page."""

    investigations: list[InvestigationRecord]
    next_cursor: str | None


async def _record_of(session: AsyncSession, principal: Principal, pk: int) -> InvestigationRecord:
    found = await load_investigation(session, principal.org_id, pk, fresh=True)
    if found is None:
        raise not_found(THING)
    return investigation_record(found, principal.org_name)


@get(
    "/investigations",
    operation_id="listInvestigations",
    responses=error_responses(400),
    tags=["investigations"],
)
async def list_investigations(
    principal: CurrentPrincipal,
    db_session: DbSession,
    alert_responder_id: FromQuery[str | None] = None,
    status: FromQuery[str | None] = None,
    limit: FromQuery[str | None] = None,
    cursor: FromQuery[str | None] = None,
) -> InvestigationList:
    """The organization's investigations, newest first, optionally of one alert agent and in
    one status; page on with ``cursor`` = the previous page's ``next_cursor``."""
    agent_id = id_filter(alert_responder_id, "AlertResponder", "alert_responder_id")
    wanted_status = choice_filter(status, "status", STATUSES.values)
    page = parse_page(limit, cursor)
    try:
        found = await list_investigations_of(
            db_session, principal.org_id, page, status=wanted_status, agent_id=agent_id
        )
    except InvalidCursor:
        raise bad_request(f"Invalid cursor: {cursor}") from None
    return InvestigationList(
        investigations=[investigation_record(item, principal.org_name) for item in found.items],
        next_cursor=found.next_cursor,
    )


@post(
    "/investigations/{investigation_id:str}/stop",
    operation_id="stopInvestigation",
    responses=error_responses(404),
    status_code=200,
    tags=["investigations"],
)
async def stop(
    investigation_id: FromPath[str], principal: CurrentPrincipal, db_session: DbSession
) -> InvestigationRecord:
    """Stop an investigation that has not finished (it becomes ``STOPPED``); a finished one is
    returned unchanged."""
    pk = decode_id_or_404(investigation_id, GLOBAL_TYPE, THING)
    await stop_investigation(db_session, principal.org_id, pk)
    await db_session.commit()
    return await _record_of(db_session, principal, pk)


@get(
    "/investigations/{investigation_id:str}",
    operation_id="getInvestigation",
    responses=error_responses(404),
    tags=["investigations"],
)
async def get_investigation(
    investigation_id: FromPath[str], principal: CurrentPrincipal, db_session: DbSession
) -> InvestigationRecord:
    """One investigation of the organization."""
    pk = decode_id_or_404(investigation_id, GLOBAL_TYPE, THING)
    return await _record_of(db_session, principal, pk)


ROUTES = [list_investigations, get_investigation, stop]
