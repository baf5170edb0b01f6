"""Suppressions (DESIGN 7): ``POST /api/v1/suppressions``, ``GET /api/v1/suppressions`` (the
active ones) and ``DELETE /api/v1/suppressions/{id}``.

Alerts whose text (what agents match) satisfies a suppression's criteria are recorded
``suppressed`` until it expires: for every agent of the organization, or only for
``alert_responder_id`` when given (:mod:`sleuth_shell.alerts.decisions`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from litestar import delete, get, post
from litestar.params import FromPath
from msgspec import UNSET, UnsetType
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.errors import InvalidCriteria
from sleuth_core.ids import encode_global_id
from sleuth_core.language import parse_instant
from sleuth_core.matching import normalize_criteria
from sleuth_shell.api.body import StrictBody
from sleuth_shell.api.common import check_text, decode_id_or_404
from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.db.models import AlertResponder, Suppression, utcnow
from sleuth_shell.errors import ApiError, bad_request, error_responses, not_found

__all__ = [
    "GLOBAL_TYPE",
    "ROUTES",
    "SuppressionCreate",
    "active_suppressions",
    "create_suppression",
    "end_suppression",
]

GLOBAL_TYPE = "Suppression"
MAX_REASON_LENGTH = 2000


class SuppressionCriteria(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    text_matches: list[str] | UnsetType | None = UNSET
    match_rules: dict[str, Any] | UnsetType | None = UNSET


class SuppressionCreate(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    matching_criteria: SuppressionCriteria
    expires_at: str | int | float
    reason: str
    alert_responder_id: str | UnsetType | None = UNSET


class SuppressionCriteriaOut(msgspec.Struct):
    text_matches: list[str]
    match_rules: dict[str, Any]


class SuppressionRecord(msgspec.Struct, kw_only=True):
    id: str
    matching_criteria: SuppressionCriteriaOut
    expires_at: datetime
    reason: str
    alert_responder_id: str | None
    created_at: datetime


class SuppressionList(msgspec.Struct):
    suppressions: list[SuppressionRecord]


class Success(msgspec.Struct):
    success: bool


def _record(row: Suppression) -> SuppressionRecord:
    return SuppressionRecord(
        id=encode_global_id(GLOBAL_TYPE, row.id),
        matching_criteria=SuppressionCriteriaOut(
            text_matches=list(row.text_matches), match_rules=dict(row.match_rules)
        ),
        expires_at=row.expires_at,
        reason=row.reason,
        alert_responder_id=(
            encode_global_id("AlertResponder", row.alert_responder_id)
            if row.alert_responder_id is not None
            else None
        ),
        created_at=row.created_at,
    )


async def create_suppression(
    session: AsyncSession, org_id: int, data: SuppressionCreate
) -> Suppression:
    """Store the suppression ``data`` describes (committed); bad input is 400 (404 for another
    organization's agent) :class:`ApiError` with the API's detail. The API and the page call it."""
    raw = {
        name: getattr(data.matching_criteria, name)
        for name in ("text_matches", "match_rules")
        if getattr(data.matching_criteria, name) not in (UNSET, None)
    }
    try:
        criteria = normalize_criteria(raw)
    except InvalidCriteria as exc:
        raise bad_request(str(exc)) from None
    expires = parse_instant(data.expires_at)
    now = utcnow()
    if expires is None:
        raise bad_request("expires_at must be an ISO 8601 time or Unix seconds")
    if expires <= now:
        raise bad_request("expires_at must be in the future")
    reason = check_text(data.reason, "reason", max_length=MAX_REASON_LENGTH)
    agent_id: int | None = None
    if isinstance(data.alert_responder_id, str):
        agent_id = decode_id_or_404(data.alert_responder_id, "AlertResponder", "Alert responder")
        owner = await session.scalar(
            select(AlertResponder.id).where(
                AlertResponder.id == agent_id, AlertResponder.org_id == org_id
            )
        )
        if owner is None:
            raise not_found("Alert responder")
    row = Suppression(
        org_id=org_id,
        alert_responder_id=agent_id,
        text_matches=criteria["text_matches"],
        match_rules=criteria["match_rules"],
        reason=reason,
        expires_at=expires,
        created_at=now,
    )
    session.add(row)
    await session.commit()
    return row


async def active_suppressions(session: AsyncSession, org_id: int) -> list[Suppression]:
    """The organization's suppressions that have not expired, oldest first."""
    rows = await session.scalars(
        select(Suppression)
        .where(Suppression.org_id == org_id, Suppression.expires_at > utcnow())
        .order_by(Suppression.id)
    )
    return list(rows)


async def end_suppression(session: AsyncSession, org_id: int, suppression_id: str) -> None:
    """End a suppression now (committed); nothing for an unknown or malformed ID."""
    try:
        pk = decode_id_or_404(suppression_id, GLOBAL_TYPE, "Suppression")
    except ApiError:
        return
    await session.execute(
        Suppression.__table__.delete().where(Suppression.id == pk, Suppression.org_id == org_id)
    )
    await session.commit()


@post(
    "/suppressions",
    operation_id="createSuppression",
    responses=error_responses(400, 404),
    status_code=200,
    tags=["alert log"],
)
async def create(
    principal: CurrentPrincipal, db_session: DbSession, data: StrictBody[SuppressionCreate]
) -> SuppressionRecord:
    """Suppress matching alerts until ``expires_at`` (ISO 8601 or Unix seconds, in the future),
    for every agent or one (``alert_responder_id``)."""
    return _record(await create_suppression(db_session, principal.org_id, data))


@get(
    "/suppressions",
    operation_id="listSuppressions",
    responses=error_responses(),
    tags=["alert log"],
)
async def list_active(principal: CurrentPrincipal, db_session: DbSession) -> SuppressionList:
    """The organization's suppressions that have not expired, oldest first."""
    rows = await active_suppressions(db_session, principal.org_id)
    return SuppressionList(suppressions=[_record(row) for row in rows])


@delete(
    "/suppressions/{suppression_id:str}",
    operation_id="deleteSuppression",
    responses=error_responses(),
    status_code=200,
    tags=["alert log"],
)
async def remove(
    suppression_id: FromPath[str], principal: CurrentPrincipal, db_session: DbSession
) -> Success:
    """End a suppression now; succeeds for any ID (already gone, unknown, malformed)."""
    await end_suppression(db_session, principal.org_id, suppression_id)
    return Success(success=True)


ROUTES = [create, list_active, remove]
