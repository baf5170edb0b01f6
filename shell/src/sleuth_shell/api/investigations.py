"""``GET /api/v1/investigations/{investigation_id}``: one run of an alert agent."""

from __future__ import annotations

from datetime import datetime

import msgspec
from litestar import get
from litestar.params import FromPath
from sqlalchemy import select

from sleuth_core.ids import encode_global_id
from sleuth_shell.api.common import decode_id_or_404
from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.db.models import Investigation, Team
from sleuth_shell.errors import error_responses, not_found

__all__ = ["GLOBAL_TYPE", "ROUTES", "InvestigationRecord", "investigation_record"]

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


def investigation_record(
    row: Investigation, organization_name: str, team_name: str | None
) -> InvestigationRecord:
    """The API shape of an investigation row (``result`` is stored already rendered)."""
    return InvestigationRecord(
        id=encode_global_id(GLOBAL_TYPE, row.id),
        organization_name=organization_name,
        team_name=team_name,
        name=row.name,
        status=row.status,
        started_at=row.started_at,
        completed_at=row.completed_at,
        prompt=row.prompt,
        event_payload=row.event_payload,
        result=row.result,
    )


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
    found = (
        await db_session.execute(
            select(Investigation, Team.name)
            .outerjoin(Team, Team.id == Investigation.team_id)
            .where(Investigation.id == pk, Investigation.org_id == principal.org_id)
        )
    ).first()
    if found is None:
        raise not_found(THING)
    row, team_name = found
    return investigation_record(row, principal.org_name, team_name)


ROUTES = [get_investigation]
