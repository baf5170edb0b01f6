"""Investigations: the list (newest first, by agent and status, paged), one investigation's page
and its Stop button.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from litestar import Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template
from sqlalchemy import select

from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_shell.alerts import alerts_of_investigation
from sleuth_shell.db.models import (
    AlertResponder,
    Investigation,
)
from sleuth_shell.db.paging import PageRequest
from sleuth_shell.domain import MAX_PK
from sleuth_shell.errors import bad_request, not_found
from sleuth_shell.investigations import stop_investigation
from sleuth_shell.investigations.queries import list_investigations, load_investigation
from sleuth_shell.statuses import INVESTIGATION
from sleuth_shell.web.filters import PER_PAGE, page_links, page_number
from sleuth_shell.web.guard import PAGE_OPTIONS, ViewerDep, form_data, page
from sleuth_shell.web.rows import owned

__all__ = ["ROUTES"]


@get("/investigations", **PAGE_OPTIONS)
async def investigations_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Investigations, newest first, filtered by agent and status, 25 a page."""
    number = page_number(request)
    status = request.query_params.get("status") or ""
    agent_gid = request.query_params.get("agent") or ""
    if status and status not in INVESTIGATION.values:
        raise bad_request(f"Invalid status: must be one of {', '.join(INVESTIGATION.values)}")
    agent_id = None
    if agent_gid:
        pk = decode_global_id(agent_gid, "AlertResponder")
        agent_id = pk if pk is not None and pk <= MAX_PK else -1  # names no agent: lists none
    async with request.app.state.session_factory() as session:
        agents = (
            await session.scalars(
                select(AlertResponder)
                .where(AlertResponder.org_id == viewer.org_id)
                .order_by(AlertResponder.name)
            )
        ).all()
        found = await list_investigations(
            session,
            viewer.org_id,
            PageRequest(limit=PER_PAGE, offset=(number - 1) * PER_PAGE),
            status=status or None,
            agent_id=agent_id,
        )
    rows = [item.row for item in found.items]
    names = {a.id: a.name for a in agents}
    return page(
        "investigations.html",
        viewer,
        "investigations",
        title="Investigations",
        rows=[
            (encode_global_id("Investigation", i.id), i, names.get(i.alert_responder_id or 0, "-"))
            for i in rows
        ],
        agents=[(encode_global_id("AlertResponder", a.id), a.name) for a in agents],
        statuses=INVESTIGATION.values,
        status=status,
        agent=agent_gid,
        number=number,
        links=page_links(request, number, found.next_cursor is not None),
    )


@get("/investigations/{investigation_id:str}", **PAGE_OPTIONS)
async def investigation_page(
    request: Request[Any, Any, Any], viewer: ViewerDep, investigation_id: FromPath[str]
) -> Template:
    """One investigation: status, prompt, the alerts it covers, the alert payload, and the cited
    analysis."""
    async with request.app.state.session_factory() as session:
        pk = decode_global_id(investigation_id, "Investigation")
        found = (
            await load_investigation(session, viewer.org_id, pk)
            if pk is not None and pk <= MAX_PK
            else None
        )
        if found is None:
            raise not_found("Investigation")
        inv = found.row
        agent = (
            await owned(session, AlertResponder, inv.alert_responder_id, viewer.org_id)
            if inv.alert_responder_id is not None
            else None
        )
        covered = await alerts_of_investigation(session, viewer.org_id, inv.id)
    return page(
        "investigation.html",
        viewer,
        "investigations",
        title=inv.name,
        inv=inv,
        team=found.team_name or "-",
        gid=investigation_id,
        agent=agent,
        agent_gid=encode_global_id("AlertResponder", agent.id) if agent is not None else None,
        alerts=[(encode_global_id("Alert", c.alert.id), c.alert) for c in covered],
    )


@post("/investigations/{investigation_id:str}/stop", status_code=303, **PAGE_OPTIONS)
async def stop_investigation_form(
    request: Request[Any, Any, Any], viewer: ViewerDep, investigation_id: FromPath[str]
) -> Response[Any]:
    """The Stop button: as ``POST /api/v1/investigations/{id}/stop``, an unfinished
    investigation becomes ``STOPPED`` (a finished one is left as it is); back to its page."""
    await form_data(request, viewer)
    async with request.app.state.session_factory() as session:
        pk = decode_global_id(investigation_id, "Investigation")
        inv = await owned(session, Investigation, pk, viewer.org_id)
        if inv is None:
            raise not_found("Investigation")
        await stop_investigation(session, viewer.org_id, inv.id)
        await session.commit()
    return Redirect(path=f"/investigations/{quote(investigation_id, safe='=')}", status_code=303)


ROUTES: list[Any] = [investigations_page, investigation_page, stop_investigation_form]
