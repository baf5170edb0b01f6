"""The alert log (DESIGN 7): ``GET /api/v1/alerts``, ``GET /api/v1/alerts/{id}``,
``POST /api/v1/alerts/{id}/investigate``, ``GET /api/v1/investigations/{id}/alerts``, and the
criteria tools ``POST /api/v1/alert-responders/{id}/explain`` and
``POST /api/v1/alert-responders/dry-run``.

Every read goes through :mod:`sleuth_shell.alerts` (the pages call the same functions).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from litestar import get, post
from litestar.params import FromPath, FromQuery
from msgspec import UNSET, UnsetType
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.errors import InvalidAlertPayload, InvalidCriteria
from sleuth_core.ids import encode_global_id
from sleuth_core.intake import parse_alert
from sleuth_core.matching import normalize_criteria
from sleuth_shell.alerts import (
    DECISIONS,
    DRY_RUN_DEFAULT,
    DRY_RUN_MAX,
    InvestigateRefused,
    StoredAlert,
    alerts_of_investigation,
    dry_run,
    investigate_alert,
    list_alerts,
    read_alert,
    trace_alert,
)
from sleuth_shell.alerts.service import GLOBAL_TYPE, WITH_INVESTIGATION
from sleuth_shell.api.body import StrictBody
from sleuth_shell.api.common import (
    choice_filter,
    decode_id_or_404,
    id_filter,
    load_owned,
    parse_page,
)
from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.db.models import AlertResponder, Investigation, utcnow
from sleuth_shell.db.paging import InvalidCursor
from sleuth_shell.errors import bad_request, error_responses, not_found

__all__ = ["ROUTES", "AlertRecord", "DryRunBody", "alert_record", "run_dry_run"]

THING = "Alert"
DEFAULT_LIMIT = 50
#: Longest ``text`` explain takes (the intake's body limit).
MAX_EXPLAIN_TEXT = 1_048_576


class AlertSource(msgspec.Struct):
    type: str
    remote_id: str


class Decision(msgspec.Struct):
    """What one agent decided about the alert, and why."""

    alert_responder_id: str
    decision: str
    reason: str
    investigation_id: str | None


class AlertRecord(msgspec.Struct, kw_only=True):
    """A stored alert, as its adapter read it, with one decision per subscribed agent."""

    id: str
    received_at: datetime
    source: AlertSource
    title: str
    service: str
    dedup_key: str
    group_key: str
    payload: str
    decisions: list[Decision]


class AlertList(msgspec.Struct):
    alerts: list[AlertRecord]
    next_cursor: str | None


class CoveredAlerts(msgspec.Struct):
    alerts: list[AlertRecord]


class InvestigateBody(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    alert_responder_id: str | UnsetType | None = UNSET


class InvestigateAnswer(msgspec.Struct):
    investigation_ids: list[str]


class ExplainBody(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Exactly one of ``text``, ``event_payload`` (a provider body, read by the adapter of the
    agent's first source) or ``alert_id`` (a stored alert)."""

    text: str | UnsetType = UNSET
    event_payload: str | dict[str, Any] | UnsetType = UNSET
    alert_id: str | UnsetType = UNSET


class ExplainAnswer(msgspec.Struct):
    matched: bool
    text: str
    trace: dict[str, Any]


class DryRunSource(msgspec.Struct):
    type: str
    remote_id: str


class DryRunCriteria(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    text_matches: list[str] | UnsetType | None = UNSET
    match_rules: dict[str, Any] | UnsetType | None = UNSET


class DryRunBody(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    matching_criteria: DryRunCriteria
    webhook_sources: list[DryRunSource] | UnsetType | None = UNSET
    chat_channel_id: str | UnsetType | None = UNSET
    limit: int | UnsetType | None = UNSET


class DryRunExample(msgspec.Struct):
    alert_id: str
    title: str
    trace: dict[str, Any]


class DryRunAnswer(msgspec.Struct):
    examined: int
    matched: int
    examples: list[DryRunExample]


def alert_record(stored: StoredAlert) -> AlertRecord:
    """The API shape of a stored alert."""
    row = stored.alert
    return AlertRecord(
        id=encode_global_id(GLOBAL_TYPE, row.id),
        received_at=row.received_at,
        source=AlertSource(type=row.source_type, remote_id=row.source_remote_id),
        title=row.title,
        service=row.service,
        dedup_key=row.dedup_key,
        group_key=row.group_key,
        payload=row.payload,
        decisions=[
            Decision(
                alert_responder_id=encode_global_id("AlertResponder", agent_id),
                decision=decision,
                reason=reason,
                investigation_id=(
                    encode_global_id("Investigation", investigation_id)
                    if investigation_id is not None and decision in WITH_INVESTIGATION
                    else None
                ),
            )
            for agent_id, decision, reason, investigation_id in stored.decisions
        ],
    )


@get("/alerts", operation_id="listAlerts", responses=error_responses(400), tags=["alert log"])
async def list_all(
    principal: CurrentPrincipal,
    db_session: DbSession,
    alert_responder_id: FromQuery[str | None] = None,
    decision: FromQuery[str | None] = None,
    limit: FromQuery[str | None] = None,
    cursor: FromQuery[str | None] = None,
) -> AlertList:
    """The organization's stored alerts, newest first (``limit`` 1-100, default 50), optionally
    only those one agent decided on and with one decision; page on with ``cursor``."""
    agent_id = id_filter(alert_responder_id, "AlertResponder", "alert_responder_id")
    wanted = choice_filter(decision, "decision", DECISIONS)
    page = parse_page(limit if limit is not None else str(DEFAULT_LIMIT), cursor)
    try:
        found, next_cursor = await list_alerts(
            db_session, principal.org_id, page, agent_id=agent_id, decision=wanted
        )
    except InvalidCursor:
        raise bad_request(f"Invalid cursor: {cursor}") from None
    return AlertList(alerts=[alert_record(item) for item in found], next_cursor=next_cursor)


async def _stored(db_session: DbSession, org_id: int, alert_id: str) -> StoredAlert:
    pk = decode_id_or_404(alert_id, GLOBAL_TYPE, THING)
    stored = await read_alert(db_session, org_id, pk)
    if stored is None:
        raise not_found(THING)
    return stored


@get(
    "/alerts/{alert_id:str}",
    operation_id="getAlert",
    responses=error_responses(404),
    tags=["alert log"],
)
async def get_one(
    alert_id: FromPath[str], principal: CurrentPrincipal, db_session: DbSession
) -> AlertRecord:
    """One stored alert with its decisions."""
    return alert_record(await _stored(db_session, principal.org_id, alert_id))


@post(
    "/alerts/{alert_id:str}/investigate",
    operation_id="investigateAlert",
    responses=error_responses(400, 404),
    status_code=200,
    tags=["alert log"],
)
async def investigate(
    alert_id: FromPath[str],
    principal: CurrentPrincipal,
    db_session: DbSession,
    data: StrictBody[InvestigateBody | None] = None,
) -> InvestigateAnswer:
    """Investigate a stored alert now: with ``alert_responder_id``, or with every agent subscribed
    to its source that decided on it. Caps do not apply; team budgets do."""
    stored = await _stored(db_session, principal.org_id, alert_id)
    agent_id: int | None = None
    if data is not None and isinstance(data.alert_responder_id, str):
        agent_id = decode_id_or_404(data.alert_responder_id, "AlertResponder", "Alert responder")
    try:
        ids = await investigate_alert(
            db_session, principal.org_id, stored.alert, agent_id=agent_id, now=utcnow()
        )
    except InvestigateRefused as exc:
        await db_session.rollback()
        if str(exc) == "Alert responder not found":
            raise not_found("Alert responder") from None
        raise bad_request(str(exc)) from None
    await db_session.commit()
    return InvestigateAnswer(investigation_ids=[encode_global_id("Investigation", i) for i in ids])


@get(
    "/investigations/{investigation_id:str}/alerts",
    operation_id="listInvestigationAlerts",
    responses=error_responses(404),
    tags=["alert log"],
)
async def investigation_alerts(
    investigation_id: FromPath[str], principal: CurrentPrincipal, db_session: DbSession
) -> CoveredAlerts:
    """The alerts an investigation covers: the one that opened it, repeats of the incident and
    the related alerts that joined its group, oldest first."""
    pk = decode_id_or_404(investigation_id, "Investigation", "Investigation")
    owner = await db_session.scalar(
        select(Investigation.id).where(
            Investigation.id == pk, Investigation.org_id == principal.org_id
        )
    )
    if owner is None:
        raise not_found("Investigation")
    found = await alerts_of_investigation(db_session, principal.org_id, pk)
    return CoveredAlerts(alerts=[alert_record(item) for item in found])


@post(
    "/alert-responders/{alert_id:str}/explain",
    operation_id="explainAlertResponder",
    responses=error_responses(400, 404),
    status_code=200,
    tags=["alert agents"],
)
async def explain_agent(
    alert_id: FromPath[str],
    principal: CurrentPrincipal,
    db_session: DbSession,
    data: StrictBody[ExplainBody],
) -> ExplainAnswer:
    """Why the agent's criteria match a text, a provider payload or a stored alert, or not:
    every rule evaluated, each matching leaf with its span in ``text``."""
    agent = await load_owned(
        db_session, AlertResponder, principal.org_id, alert_id, "AlertResponder", "Alert responder"
    )
    given = [
        name for name in ("text", "event_payload", "alert_id") if getattr(data, name) is not UNSET
    ]
    if len(given) != 1:
        raise bad_request("Give exactly one of text, event_payload or alert_id")
    rules = dict(agent.match_rules)
    if isinstance(data.text, str):
        if len(data.text) > MAX_EXPLAIN_TEXT:
            raise bad_request(f"text must be at most {MAX_EXPLAIN_TEXT} characters")
        text = data.text
    elif isinstance(data.alert_id, str):
        text = (await _stored(db_session, principal.org_id, data.alert_id)).alert.match_text
    else:
        payload = data.event_payload
        body = payload.encode() if isinstance(payload, str) else msgspec.json.encode(payload)
        sources = [s for s in agent.webhook_sources if isinstance(s, dict)]
        kind = str(sources[0].get("type")) if sources else "GENERIC"
        try:
            text = parse_alert(kind, body, received_at=utcnow(), headers={}).match_text
        except InvalidAlertPayload as exc:
            raise bad_request(f"event_payload: {exc}") from None
    answer = trace_alert(rules, text)
    return ExplainAnswer(matched=answer["matched"], text=answer["text"], trace=answer["trace"])


@post(
    "/alert-responders/dry-run",
    operation_id="dryRunAlertResponder",
    responses=error_responses(400),
    status_code=200,
    tags=["alert agents"],
)
async def dry_run_criteria(
    principal: CurrentPrincipal, db_session: DbSession, data: StrictBody[DryRunBody]
) -> DryRunAnswer:
    """Which of the organization's newest stored alerts (``limit``, default 500, at most 10,000;
    of the given sources, else all) these criteria would have matched, with up to 20 traced."""
    result = await run_dry_run(db_session, principal.org_id, data)
    return DryRunAnswer(
        examined=result["examined"],
        matched=result["matched"],
        examples=[
            DryRunExample(alert_id=encode_global_id(GLOBAL_TYPE, pk), title=title, trace=trace)
            for pk, title, _text, trace in result["examples"]
        ],
    )


async def run_dry_run(session: AsyncSession, org_id: int, data: DryRunBody) -> dict[str, Any]:
    """The dry run of ``data`` (checked as the API checks it: 400 :class:`ApiError` with the
    API's detail): :func:`sleuth_shell.alerts.dry_run`'s answer. The API and the alert agent
    form's preview both call it."""
    raw = {
        name: getattr(data.matching_criteria, name)
        for name in ("text_matches", "match_rules")
        if getattr(data.matching_criteria, name) not in (UNSET, None)
    }
    try:
        rules = normalize_criteria(raw)["match_rules"]
    except InvalidCriteria as exc:
        raise bad_request(str(exc)) from None
    limit = DRY_RUN_DEFAULT
    if isinstance(data.limit, int):
        if isinstance(data.limit, bool) or not 1 <= data.limit <= DRY_RUN_MAX:
            raise bad_request(f"limit must be a whole number from 1 to {DRY_RUN_MAX}")
        limit = data.limit
    sources: list[tuple[str, str]] = []
    if isinstance(data.webhook_sources, list):
        sources = [(s.type, s.remote_id) for s in data.webhook_sources]
    if isinstance(data.chat_channel_id, str):
        sources.append(("CHAT", data.chat_channel_id))
    return await dry_run(session, org_id, rules, sources=sources, limit=limit)


ROUTES = [
    list_all,
    get_one,
    investigate,
    investigation_alerts,
    explain_agent,
    dry_run_criteria,
]
