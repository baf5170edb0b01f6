"""The alert log (DESIGN 7): reading stored alerts and their decisions, explaining and dry-running
criteria over them, investigating one on request, and pruning old ones.

The alerts and decisions are written by the intake (:mod:`sleuth_shell.alerts.decisions`, in the
group-commit transaction); everything that reads them (the API, the pages, the retention job)
calls this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, case, delete, exists, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.matching import MatchIndex, explain
from sleuth_shell.billing.budgets import over_budget
from sleuth_shell.db.models import (
    AgentSet,
    AgentSetMember,
    Alert,
    AlertDecision,
    AlertResponder,
    ChatDelivery,
    Investigation,
    WebhookDelivery,
)
from sleuth_shell.db.paging import PageRequest, fetch_page
from sleuth_shell.investigations import Opening, open_investigations_detailed

__all__ = [
    "DECISIONS",
    "DRY_RUN_DEFAULT",
    "DRY_RUN_EXAMPLES",
    "DRY_RUN_MAX",
    "GLOBAL_TYPE",
    "InvestigateRefused",
    "StoredAlert",
    "alerts_of_investigation",
    "dry_run",
    "investigate_alert",
    "list_alerts",
    "prune_alert_log",
    "read_alert",
    "retention_cutoff",
    "trace_alert",
]

GLOBAL_TYPE = "Alert"
#: Every decision, in the order they are checked (``lifecycle`` stands apart).
DECISIONS: tuple[str, ...] = (
    "not_matched",
    "paused",
    "suppressed",
    "recorded",
    "deduplicated",
    "grouped",
    "over_budget",
    "capped",
    "matched",
    "lifecycle",
)
#: Stored alerts a dry run examines by default, and at most.
DRY_RUN_DEFAULT = 500
DRY_RUN_MAX = 10_000
#: Most examples a dry run returns.
DRY_RUN_EXAMPLES = 20
#: Decisions that name an investigation.
WITH_INVESTIGATION = frozenset({"matched", "deduplicated", "grouped"})


@dataclass(frozen=True, slots=True)
class StoredAlert:
    """An alert and its decisions (``(agent pk, decision, reason, investigation pk)``)."""

    alert: Alert
    decisions: list[tuple[int, str, str, int | None]]


#: The decisions stored with the alert (its quiet agents), not as rows.
QUIET = frozenset({"not_matched", "lifecycle"})


def _quiet(alert: Alert, members: Sequence[int]) -> list[tuple[int, str, str, int | None]]:
    """The alert's quiet decisions: ``members`` (its ``quiet_set_id``'s agents) but those of
    ``quiet_except``."""
    if not members:
        return []
    decision = alert.quiet_decision
    if decision == "lifecycle":
        reason = f"{alert.event_type or 'lifecycle event'}: a lifecycle event starts nothing"
    elif alert.kind != "new_alert":
        reason = f"not an alert ({alert.event_type or 'ignored event'})"
    else:
        reason = "the agent's matching criteria do not match the alert"
    loud = {int(agent) for agent in alert.quiet_except.strip(",").split(",") if agent}
    return [(agent, decision, reason, None) for agent in members if agent not in loud]


#: The agents of some sets (``,1,5,7,``).
_MEMBERS = select(AgentSet.id, AgentSet.agent_ids).where(
    AgentSet.id.in_(bindparam("sets", expanding=True))
)


async def _with_decisions(session: AsyncSession, rows: Sequence[Alert]) -> list[StoredAlert]:
    if not rows:
        return []
    sets = sorted({row.quiet_set_id for row in rows if row.quiet_set_id is not None})
    members: dict[int, list[int]] = {}
    if sets:
        for set_id, agent_ids in (await session.execute(_MEMBERS, {"sets": sets})).all():
            members[int(set_id)] = [int(agent) for agent in agent_ids.strip(",").split(",")]
    found: dict[int, list[tuple[int, str, str, int | None]]] = {
        row.id: _quiet(row, members.get(row.quiet_set_id, ()) if row.quiet_set_id else ())
        for row in rows
    }
    decisions = await session.execute(
        select(
            AlertDecision.alert_id,
            AlertDecision.alert_responder_id,
            AlertDecision.decision,
            AlertDecision.reason,
            AlertDecision.investigation_id,
        )
        .where(AlertDecision.alert_id.in_(list(found)))
        .order_by(AlertDecision.alert_id, AlertDecision.alert_responder_id)
    )
    for alert_id, agent_id, decision, reason, investigation_id in decisions.all():
        found[int(alert_id)].append((int(agent_id), decision, reason, investigation_id))
    return [StoredAlert(row, sorted(found[row.id])) for row in rows]


def _decided(org_id: int, agent_id: int | None, decision: str | None) -> Any:
    """The condition "``agent_id`` (any, when None) decided ``decision`` (any, when None)"."""
    row = select(AlertDecision.id).where(
        AlertDecision.alert_id == Alert.id, AlertDecision.org_id == org_id
    )
    if agent_id is not None:
        row = row.where(AlertDecision.alert_responder_id == agent_id)
    quiet: Any = Alert.quiet_set_id.is_not(None)
    if agent_id is not None:
        # Quiet on the alert: in its subscribers' set, and not one of its exceptions.
        quiet = and_(
            Alert.quiet_set_id.in_(
                select(AgentSetMember.set_id).where(AgentSetMember.agent_id == int(agent_id))
            ),
            Alert.quiet_except.not_like(f"%,{int(agent_id)},%"),
        )
    if decision is None:
        return or_(exists(row), quiet)
    if decision in QUIET:
        return and_(Alert.quiet_decision == decision, quiet)
    return exists(row.where(AlertDecision.decision == decision))


async def list_alerts(
    session: AsyncSession,
    org_id: int,
    page: PageRequest,
    *,
    agent_id: int | None = None,
    decision: str | None = None,
) -> tuple[list[StoredAlert], str | None]:
    """One page of the organization's alerts, newest first (by receipt, then id: the keyset
    paging of :func:`sleuth_shell.db.paging.fetch_page`, whose :class:`InvalidCursor` it
    raises); only those on which ``agent_id`` decided (``decision`` when given: any agent's, or
    that agent's); and the cursor of the next page (``None`` on the last)."""
    query = select(Alert).where(Alert.org_id == org_id)
    if agent_id is not None or decision is not None:
        query = query.where(_decided(org_id, agent_id, decision))
    found = await fetch_page(session, query, page, created=Alert.received_at, key=Alert.id)
    return await _with_decisions(session, [row[0] for row in found.rows]), found.next_cursor


async def read_alert(session: AsyncSession, org_id: int, pk: int) -> StoredAlert | None:
    """One alert of the organization with its decisions, or None."""
    row = await session.scalar(select(Alert).where(Alert.id == pk, Alert.org_id == org_id))
    if row is None:
        return None
    return (await _with_decisions(session, [row]))[0]


async def alerts_of_investigation(
    session: AsyncSession, org_id: int, investigation_id: int
) -> list[StoredAlert]:
    """The alerts an investigation covers (it was opened, reused or joined for them), oldest
    first."""
    rows = (
        await session.scalars(
            select(Alert)
            .where(
                Alert.org_id == org_id,
                exists(
                    select(AlertDecision.id).where(
                        AlertDecision.alert_id == Alert.id,
                        AlertDecision.investigation_id == investigation_id,
                    )
                ),
            )
            .order_by(Alert.received_at, Alert.id)
        )
    ).all()
    return await _with_decisions(session, list(rows))


def trace_alert(rules: Mapping[str, Any], text: str) -> dict[str, Any]:
    """``{matched, text, trace}`` of ``rules`` against ``text`` (a stored alert's
    ``match_text``, or any text)."""
    trace = explain(rules, text)
    return {"matched": trace["matched"], "text": text, "trace": trace}


async def dry_run(
    session: AsyncSession,
    org_id: int,
    rules: Mapping[str, Any],
    *,
    sources: Sequence[tuple[str, str]] = (),
    limit: int = DRY_RUN_DEFAULT,
) -> dict[str, Any]:
    """What ``rules`` would have matched among the organization's newest ``limit`` stored alerts
    (of ``sources`` when given): ``{examined, matched, examples}``, each example
    ``(alert pk, title, match_text, trace)``.

    The alerts are screened with the core's :class:`MatchIndex` (one prefilter pass per text),
    and only the matches are traced, so 10,000 alerts take well under a second (see
    docs/performance.md)."""
    query = (
        select(Alert.id, Alert.title, Alert.match_text)
        .where(Alert.org_id == org_id, Alert.kind == "new_alert")
        .order_by(Alert.received_at.desc(), Alert.id.desc())
        .limit(max(1, min(limit, DRY_RUN_MAX)))
    )
    if sources:
        pairs = [(Alert.source_type == t) & (Alert.source_remote_id == r) for t, r in sources]
        condition = pairs[0]
        for pair in pairs[1:]:
            condition = condition | pair
        query = query.where(condition)
    rows = (await session.execute(query)).all()
    index: MatchIndex[int] = MatchIndex()
    index.add(0, dict(rules))
    matched = 0
    examples: list[tuple[int, str, str, dict[str, Any]]] = []
    for pk, title, text in rows:
        if not index.match(text):
            continue
        matched += 1
        if len(examples) < DRY_RUN_EXAMPLES:
            examples.append((int(pk), str(title), str(text), explain(rules, text)))
    return {"examined": len(rows), "matched": matched, "examples": examples}


class InvestigateRefused(Exception):
    """``POST /alerts/{id}/investigate`` cannot start a run (the message says why: 400)."""


async def investigate_alert(
    session: AsyncSession,
    org_id: int,
    alert: Alert,
    *,
    agent_id: int | None,
    now: datetime,
) -> list[int]:
    """Investigate a stored alert on request: with ``agent_id``, or (None) with every ACTIVE
    agent whose criteria matched it (any decision but ``not_matched``, ``paused`` and
    ``lifecycle``); open (or reuse) the investigation and make the decision ``matched``; the
    investigation pks. Caps do not apply; the team's budget does. The caller commits.

    Raises :class:`InvestigateRefused` when there is no such agent, it is not ACTIVE, or its
    team's budget for the month is used."""
    if alert.kind != "new_alert":
        raise InvestigateRefused("Only new alerts can be investigated, not lifecycle events")
    query = select(AlertResponder).where(AlertResponder.org_id == org_id)
    if agent_id is not None:
        query = query.where(AlertResponder.id == agent_id)
    else:
        matched = select(AlertDecision.alert_responder_id).where(
            AlertDecision.alert_id == alert.id,
            AlertDecision.decision.not_in(("not_matched", "paused", "lifecycle")),
        )
        query = query.where(AlertResponder.id.in_(matched), AlertResponder.status == "ACTIVE")
    agents = list((await session.scalars(query.order_by(AlertResponder.id))).all())
    if not agents:
        raise InvestigateRefused(
            "No alert agent matched this alert: give alert_responder_id"
            if agent_id is None
            else "Alert responder not found"
        )
    for agent in agents:
        if agent.status != "ACTIVE":
            raise InvestigateRefused(f"Alert responder {agent.name} is paused")
    if await over_budget(session, {agent.team_id for agent in agents}, now):
        raise InvestigateRefused("The team's budget for automated runs this month is used")
    openings = [
        Opening(
            org_id=org_id,
            agent=agent,
            name=alert.title,
            alert_id=alert.id,
            dedup_key=alert.dedup_key,
            now=now,
            group_key=alert.group_key,
        )
        for agent in agents
    ]
    opened = await open_investigations_detailed(session, openings)
    ids: list[int] = []
    for agent, (pk, _created) in zip(agents, opened, strict=True):
        changed = await session.execute(
            update(AlertDecision)
            .where(
                AlertDecision.alert_id == alert.id,
                AlertDecision.alert_responder_id == agent.id,
            )
            .values(decision="matched", reason="investigated on request", investigation_id=pk)
            .execution_options(synchronize_session=False)
        )
        if not changed.rowcount:  # type: ignore[attr-defined]
            await session.execute(
                AlertDecision.__table__.insert().values(
                    alert_id=alert.id,
                    org_id=org_id,
                    alert_responder_id=agent.id,
                    decision="matched",
                    reason="investigated on request",
                    investigation_id=pk,
                )
            )
            # It was quiet on the alert (or not subscribed): its decision is now the row, so
            # it joins the exceptions (appended in the statement: concurrent requests for
            # other agents each add theirs).
            await session.execute(
                update(Alert)
                .where(Alert.id == alert.id, Alert.quiet_set_id.is_not(None))
                .values(
                    quiet_except=case(
                        (Alert.quiet_except == "", f",{agent.id},"),
                        else_=Alert.quiet_except + f"{agent.id},",
                    )
                )
                .execution_options(synchronize_session=False)
            )
        if pk not in ids:
            ids.append(pk)
    return ids


async def prune_alert_log(session: AsyncSession, older_than: datetime) -> dict[str, int]:
    """Delete alerts (with their decisions) and webhook and chat delivery records received
    before ``older_than``; how many rows of each. The caller commits.

    An investigation keeps the payload it ran on: one that references a pruned alert gets a copy
    of the alert's payload first (``event_payload``, its ``alert_id`` cleared), so its answer
    does not change."""
    counts: dict[str, int] = {}
    pruned = select(Alert.id).where(Alert.received_at < older_than)
    await session.execute(
        update(Investigation)
        .where(Investigation.alert_id.in_(pruned))
        .values(
            event_payload=select(Alert.payload)
            .where(Alert.id == Investigation.alert_id)
            .scalar_subquery(),
            alert_id=None,
        )
        .execution_options(synchronize_session=False)
    )
    await session.execute(
        delete(AlertDecision).where(
            AlertDecision.alert_id.in_(select(Alert.id).where(Alert.received_at < older_than))
        )
    )
    for name, statement in (
        ("alerts", delete(Alert).where(Alert.received_at < older_than)),
        (
            "webhook_deliveries",
            delete(WebhookDelivery).where(WebhookDelivery.received_at < older_than),
        ),
        ("chat_deliveries", delete(ChatDelivery).where(ChatDelivery.created_at < older_than)),
    ):
        result = await session.execute(statement.execution_options(synchronize_session=False))
        counts[name] = int(result.rowcount or 0)  # type: ignore[attr-defined]
    return counts


def retention_cutoff(now: datetime, days: int) -> datetime:
    """The oldest receipt time kept when alerts are kept ``days`` days."""
    return now - timedelta(days=days)
