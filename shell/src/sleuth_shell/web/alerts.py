"""The alert log's pages: ``/alerts`` (every stored alert, newest first, filtered by agent and
decision) and ``/alerts/{id}`` (the alert as its adapter read it, each subscribed agent's decision
and why, the match trace of each agent with the matched spans of the text highlighted, the
payload, and an Investigate button). They read through :mod:`sleuth_shell.alerts`, as the API
does.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from litestar import Request, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template
from sqlalchemy import select

from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_shell.alerts import (
    DECISIONS,
    InvestigateRefused,
    investigate_alert,
    list_alerts,
    read_alert,
    trace_alert,
)
from sleuth_shell.alerts.service import GLOBAL_TYPE, StoredAlert
from sleuth_shell.db.models import AlertResponder, utcnow
from sleuth_shell.db.paging import PageRequest
from sleuth_shell.errors import bad_request, not_found
from sleuth_shell.web.guard import PAGE_OPTIONS, ViewerDep, form_data, page

__all__ = ["PER_PAGE", "ROUTES", "highlight", "leaf_spans"]

PER_PAGE = 25
#: Longest stretch of text shown on the page (the rest is cut, with a note).
SHOWN_TEXT = 20_000


def leaf_spans(trace: dict[str, Any]) -> list[list[int]]:
    spans: list[list[int]] = []
    for item in trace["conditions"]:
        if "operator" in item:
            spans.extend(leaf_spans(item))
        elif item["span"] is not None:
            spans.append(item["span"])
    return spans


def highlight(text: str, spans: list[list[int]]) -> list[tuple[str, bool]]:
    """``text`` as pieces ``(piece, marked)``: the union of ``spans`` marked, in order.

    >>> highlight("db-7 is down", [[0, 4], [8, 12], [2, 3]])
    [('db-7', True), (' is ', False), ('down', True)]
    """
    merged: list[list[int]] = []
    for start, end in sorted(s for s in spans if s[1] > s[0]):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    pieces: list[tuple[str, bool]] = []
    at = 0
    for start, end in merged:
        if start > at:
            pieces.append((text[at:start], False))
        pieces.append((text[start:end], True))
        at = end
    if at < len(text):
        pieces.append((text[at:], False))
    return pieces


async def _agents(request: Request[Any, Any, Any], org_id: int) -> list[AlertResponder]:
    async with request.app.state.session_factory() as session:
        return list(
            (
                await session.scalars(
                    select(AlertResponder)
                    .where(AlertResponder.org_id == org_id)
                    .order_by(AlertResponder.name)
                )
            ).all()
        )


@get("/alerts", **PAGE_OPTIONS)
async def alerts_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Stored alerts, newest first, 25 a page, optionally of one agent and one decision."""
    agent_gid = request.query_params.get("agent") or ""
    decision = request.query_params.get("decision") or ""
    if decision and decision not in DECISIONS:
        raise bad_request(f"Invalid decision: must be one of {', '.join(DECISIONS)}")
    before = request.query_params.get("before") or ""
    after = None
    if before:
        pk = decode_global_id(before, GLOBAL_TYPE)
        if pk is None:
            raise bad_request("Invalid before: an alert ID is required")
        async with request.app.state.session_factory() as session:
            anchor = await read_alert(session, viewer.org_id, pk)
        if anchor is None:
            raise not_found("Alert")
        after = (anchor.alert.received_at, str(anchor.alert.id))
    agents = await _agents(request, viewer.org_id)
    agent_id = decode_global_id(agent_gid, "AlertResponder") if agent_gid else None
    async with request.app.state.session_factory() as session:
        found, next_cursor = await list_alerts(
            session,
            viewer.org_id,
            PageRequest(limit=PER_PAGE, after=after),
            agent_id=(agent_id if agent_id is not None else -1) if agent_gid else None,
            decision=decision or None,
        )
    names = {a.id: a.name for a in agents}
    older = None
    if next_cursor is not None and found:
        params = {"agent": agent_gid, "decision": decision}
        last = encode_global_id(GLOBAL_TYPE, found[-1].alert.id)
        older = urlencode({**{k: v for k, v in params.items() if v}, "before": last})
    return page(
        "alerts.html",
        viewer,
        "alerts",
        title="Alerts",
        rows=[(encode_global_id(GLOBAL_TYPE, s.alert.id), s, _summary(s, names)) for s in found],
        agents=[(encode_global_id("AlertResponder", a.id), a.name) for a in agents],
        agent=agent_gid,
        decisions=DECISIONS,
        decision=decision,
        older=older,
    )


def _summary(stored: StoredAlert, names: dict[int, str]) -> list[tuple[str, str]]:
    return [
        (names.get(agent, "(deleted agent)"), decision) for agent, decision, *_ in stored.decisions
    ]


@get("/alerts/{alert_id:str}", **PAGE_OPTIONS)
async def alert_page(
    request: Request[Any, Any, Any], viewer: ViewerDep, alert_id: FromPath[str]
) -> Template:
    """One alert: what was read, who decided what and why, the match traces, the payload."""
    pk = decode_global_id(alert_id, GLOBAL_TYPE)
    async with request.app.state.session_factory() as session:
        stored = await read_alert(session, viewer.org_id, pk) if pk is not None else None
        if stored is None:
            raise not_found("Alert")
        ids = [agent for agent, *_ in stored.decisions]
        agents = {
            a.id: a
            for a in (
                await session.scalars(
                    select(AlertResponder).where(
                        AlertResponder.id.in_(ids), AlertResponder.org_id == viewer.org_id
                    )
                )
            ).all()
        }
    text = stored.alert.match_text
    shown = text[:SHOWN_TEXT]
    decisions = []
    for agent_id, decision, reason, investigation_id in stored.decisions:
        agent = agents.get(agent_id)
        trace = trace_alert(agent.match_rules, text)["trace"] if agent is not None else None
        decisions.append(
            {
                "agent": agent,
                "agent_gid": encode_global_id("AlertResponder", agent_id),
                "decision": decision,
                "reason": reason,
                "investigation": (
                    encode_global_id("Investigation", investigation_id)
                    if investigation_id is not None
                    else None
                ),
                "trace": trace,
                "pieces": highlight(shown, leaf_spans(trace)) if trace is not None else [],
            }
        )
    return page(
        "alert.html",
        viewer,
        "alerts",
        title=stored.alert.title,
        gid=alert_id,
        alert=stored.alert,
        decisions=decisions,
        cut=len(text) > SHOWN_TEXT,
        can_investigate=stored.alert.kind == "new_alert" and bool(stored.decisions),
        error=request.query_params.get("error") or "",
    )


@post("/alerts/{alert_id:str}/investigate", **PAGE_OPTIONS, status_code=303)
async def investigate_page(
    request: Request[Any, Any, Any], viewer: ViewerDep, alert_id: FromPath[str]
) -> Redirect:
    """The Investigate button: investigate with every agent that decided on the alert (or the
    one chosen), then back to the alert."""
    form = await form_data(request, viewer)
    pk = decode_global_id(alert_id, GLOBAL_TYPE)
    agent_gid = form.get("alert_responder_id") or ""
    agent_id = decode_global_id(agent_gid, "AlertResponder") if agent_gid else None
    async with request.app.state.session_factory() as session:
        stored = await read_alert(session, viewer.org_id, pk) if pk is not None else None
        if stored is None:
            raise not_found("Alert")
        try:
            await investigate_alert(
                session, viewer.org_id, stored.alert, agent_id=agent_id, now=utcnow()
            )
        except InvestigateRefused as exc:
            await session.rollback()
            return Redirect(
                path=f"/alerts/{alert_id}?{urlencode({'error': str(exc)})}", status_code=303
            )
        await session.commit()
    return Redirect(path=f"/alerts/{alert_id}", status_code=303)


ROUTES = [alerts_page, alert_page, investigate_page]
