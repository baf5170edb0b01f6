"""Alert agents: the list with their state and investigation counts, one agent's page (criteria,
sources, integrations, ingest URLs, latest investigations) and its Pause/Resume buttons.
"""

from __future__ import annotations

import json
from typing import Any, Literal
from urllib.parse import quote

from litestar import Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template
from sqlalchemy import func, select

from sleuth_core.ids import encode_global_id
from sleuth_shell.api.alert_responders import load_alert_responder, set_alert_responder_status
from sleuth_shell.db.hot_reads import hot_reader_of
from sleuth_shell.db.models import (
    AlertResponder,
    Investigation,
    NotificationIntegration,
    WebhookSubscription,
)
from sleuth_shell.db.paging import PageRequest
from sleuth_shell.investigations.queries import list_investigations
from sleuth_shell.urls import ingest_url
from sleuth_shell.web.guard import PAGE_OPTIONS, Viewer, ViewerDep, form_data, page
from sleuth_shell.web.rows import RECENT, org_rows, team_names

__all__ = ["ROUTES"]


@get("/alert-responders", **PAGE_OPTIONS)
async def agents_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """The organization's alert agents with their state and latest investigation."""
    async with request.app.state.session_factory() as session:
        agents = await org_rows(session, AlertResponder, viewer.org_id, AlertResponder.name)
        counts = dict(
            (
                await session.execute(
                    select(Investigation.alert_responder_id, func.count())
                    .where(Investigation.org_id == viewer.org_id)
                    .group_by(Investigation.alert_responder_id)
                )
            ).all()
        )
        teams = await team_names(session, viewer.org_id)
    return page(
        "agents.html",
        viewer,
        "agents",
        title="Alert agents",
        agents=[
            (
                encode_global_id("AlertResponder", a.id),
                a,
                teams.get(a.team_id, "-"),
                counts.get(a.id, 0),
            )
            for a in agents
        ],
        notice=request.query_params.get("notice"),
    )


@get("/alert-responders/{responder_id:str}", **PAGE_OPTIONS)
async def alert_responder_page(
    request: Request[Any, Any, Any], viewer: ViewerDep, responder_id: FromPath[str]
) -> Template:
    """An alert agent: criteria in both forms, sources, integrations, ingest URL, investigations."""
    public_url = request.app.state.settings.public_url
    async with request.app.state.session_factory() as session:
        agent = await load_alert_responder(session, viewer.org_id, responder_id)
        found = await list_investigations(
            session, viewer.org_id, PageRequest(limit=RECENT), agent_id=agent.id
        )
        investigations = [item.row for item in found.items]
        teams = await team_names(session, viewer.org_id)
        remote_ids = [s.get("remote_id") for s in agent.webhook_sources if isinstance(s, dict)]
        subs = {
            s.remote_id: s
            for s in (
                await session.scalars(
                    select(WebhookSubscription).where(
                        WebhookSubscription.org_id == viewer.org_id,
                        WebhookSubscription.remote_id.in_([r for r in remote_ids if r]),
                    )
                )
            ).all()
        }
        integration_ids = [
            i for i in agent.notification_integration_ids or [] if isinstance(i, int)
        ]
        integrations = (
            await session.scalars(
                select(NotificationIntegration).where(
                    NotificationIntegration.org_id == viewer.org_id,
                    NotificationIntegration.id.in_(integration_ids),
                )
            )
        ).all()
    sources = []
    for source in agent.webhook_sources:
        if not isinstance(source, dict):
            continue
        sub = subs.get(source.get("remote_id"))
        sources.append(
            {
                "name": sub.name if sub is not None else source.get("remote_id"),
                "type": source.get("type", ""),
                "ingest_url": ingest_url(
                    public_url, str(source.get("type", "")), str(source.get("remote_id", ""))
                ),
            }
        )
    return page(
        "agent.html",
        viewer,
        "agents",
        title=agent.name,
        agent=agent,
        gid=responder_id,
        team=teams.get(agent.team_id, "-"),
        sources=sources,
        integrations=integrations,
        match_rules=json.dumps(agent.match_rules, indent=2, ensure_ascii=False),
        investigations=[(encode_global_id("Investigation", i.id), i) for i in investigations],
    )


async def _set_agent_status(
    request: Request[Any, Any, Any],
    viewer: Viewer,
    responder_id: str,
    status: Literal["ACTIVE", "PAUSED"],
) -> Response[Any]:
    await form_data(request, viewer)
    await set_alert_responder_status(
        hot_reader_of(request.app),
        request.app.state.session_factory,
        viewer.org_id,
        responder_id,
        status,
        fast=request.app.state.settings.fast_path,
    )
    return Redirect(path=f"/alert-responders/{quote(responder_id, safe='=')}", status_code=303)


@post("/alert-responders/{responder_id:str}/pause", status_code=303, **PAGE_OPTIONS)
async def pause_agent(
    request: Request[Any, Any, Any], viewer: ViewerDep, responder_id: FromPath[str]
) -> Response[Any]:
    """The Pause button: the agent ignores alerts until resumed."""
    return await _set_agent_status(request, viewer, responder_id, "PAUSED")


@post("/alert-responders/{responder_id:str}/resume", status_code=303, **PAGE_OPTIONS)
async def resume_agent(
    request: Request[Any, Any, Any], viewer: ViewerDep, responder_id: FromPath[str]
) -> Response[Any]:
    """The Resume button: the agent processes alerts again."""
    return await _set_agent_status(request, viewer, responder_id, "ACTIVE")


ROUTES: list[Any] = [agents_page, alert_responder_page, pause_agent, resume_agent]
