"""The web app's sign-in, the page guard, and the detail pages every ``url`` field links to.

Pages are server-rendered with Jinja (``sleuth_shell/web/templates``, autoescaped). A page takes
the organization's API key in the ``X-Service-Org-Api-Key`` header, or a browser session: ``/login``
checks a key and opens a server-side session (:mod:`sleuth_shell.web.sessions`) whose random token
is the ``sleuth_session`` cookie (HttpOnly, SameSite=Lax, Secure over https); the key itself never
reaches the browser. A page asked for without either redirects to ``/login?next=...``. Every form
posts the session's CSRF token (the sign-in form a double-submit cookie); a request that
authenticates with the header needs none, as no other site can set it. IDs that are malformed, of
the wrong type or of another organization are 404, as in the API.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias
from urllib.parse import quote

from litestar import MediaType, Request, Response, get, post
from litestar.connection import ASGIConnection
from litestar.datastructures import Cookie
from litestar.di import NamedDependency, Provide
from litestar.exceptions import NotAuthorizedException, PermissionDeniedException
from litestar.handlers.base import BaseRouteHandler
from litestar.params import FromPath
from litestar.response import Redirect, Template
from sqlalchemy import ColumnElement, select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_shell.api.common import MAX_PK
from sleuth_shell.auth import authenticate, current_principal
from sleuth_shell.db.models import (
    AlertResponder,
    Digest,
    DigestRun,
    Interaction,
    Investigation,
    NotificationIntegration,
    Team,
    WebhookSubscription,
    utcnow,
)
from sleuth_shell.errors import not_found
from sleuth_shell.investigations import stop_investigation, stop_pending_investigations
from sleuth_shell.ratelimit import rate_limiter_of
from sleuth_shell.urls import ingest_url
from sleuth_shell.web.render import fire_times
from sleuth_shell.web.sessions import (
    COOKIE_NAME,
    LOGIN_CSRF_COOKIE,
    SESSION_LIFETIME,
    csrf_matches,
    end_session,
    new_token,
    open_session,
    resolve_session,
    sign_token,
    verify_token,
)

__all__ = [
    "PAGE_OPTIONS",
    "ROUTES",
    "VIEWER_SCOPE_KEY",
    "Viewer",
    "ViewerDep",
    "form_data",
    "latest",
    "owned",
    "page",
    "require_admin_viewer",
    "require_page_login",
    "safe_next",
]

RECENT = 20
#: Where the page guard records who is looking (see :class:`Viewer`).
VIEWER_SCOPE_KEY = "sleuth_viewer"


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking at a page: the organization, the key's flags, and the session's CSRF token
    (None when the request authenticated with the API-key header)."""

    org_id: int
    org_name: str
    key_id: int
    admin: bool
    team_id: int | None
    csrf: str | None


#: Handler parameter marker for the ``viewer`` dependency.
ViewerDep: TypeAlias = NamedDependency[Viewer]


def safe_next(value: str | None) -> str:
    """Where to go after signing in: a local path only (no open redirect), else ``/``."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    return value


async def require_page_login(
    connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
) -> None:
    """Guard for pages: the API-key header or a live session, else the sign-in form.

    Pages are rate-limited here, not by the gate: a signed-in page counts against its
    organization's plan (``org:<id>``, the window its API calls use) whether it came with the
    API-key header or a browser session, so colleagues behind one address do not share the
    anonymous per-address budget; a request that is neither counts against its address."""
    app = connection.app
    settings = app.state.settings
    principal = current_principal(connection.scope)
    if principal is not None:
        viewer = Viewer(
            org_id=principal.org_id,
            org_name=principal.org_name,
            key_id=principal.key_id,
            admin=principal.admin,
            team_id=principal.team_id,
            csrf=None,
        )
        plan = principal.plan
    else:
        state = app.state
        session = await resolve_session(
            state.session_factory,
            verify_token(connection.cookies.get(COOKIE_NAME), state.session_signing_key),
            utcnow(),
        )
        if session is None:
            client = connection.client
            address = client.host if client else "unknown"
            await rate_limiter_of(app).hit(app, f"addr:{address}", settings.rate_limit_for("free"))
            raise NotAuthorizedException(detail="Sign in required")
        viewer = Viewer(
            org_id=session.org_id,
            org_name=session.org_name,
            key_id=session.key_id,
            admin=session.admin,
            team_id=session.team_id,
            csrf=session.csrf_token,
        )
        plan = session.plan
    await rate_limiter_of(app).hit(app, f"org:{viewer.org_id}", settings.rate_limit_for(plan))
    connection.scope[VIEWER_SCOPE_KEY] = viewer  # type: ignore[literal-required]


def provide_viewer(request: Request[Any, Any, Any]) -> Viewer:
    """Dependency ``viewer``: set by :func:`require_page_login`."""
    viewer: Viewer | None = request.scope.get(VIEWER_SCOPE_KEY)  # type: ignore[assignment]
    if viewer is None:
        raise NotAuthorizedException(detail="Sign in required")
    return viewer


def _to_login(request: Request[Any, Any, Any], exc: NotAuthorizedException) -> Response[Any]:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    if request.method != "GET":
        target = "/"
    return Redirect(path=f"/login?next={quote(target, safe='')}", status_code=303)


#: Handler keyword arguments that make a route a signed-in HTML page.
PAGE_OPTIONS: dict[str, Any] = {
    "include_in_schema": False,
    "opt": {"skip_rate_limit": True},  # counted by require_page_login, by organization
    "guards": [require_page_login],
    "exception_handlers": {NotAuthorizedException: _to_login},
    "dependencies": {"viewer": Provide(provide_viewer, sync_to_thread=False)},
}


def require_admin_viewer(viewer: Viewer) -> None:
    """403 ``Admin API key required`` unless the viewer signed in with an admin key."""
    if not viewer.admin:
        raise PermissionDeniedException(detail="Admin API key required")


async def form_data(request: Request[Any, Any, Any], viewer: Viewer) -> dict[str, str]:
    """The posted form (last value per field), after checking its CSRF token.

    A session's forms must send back ``csrf_token``; a request authenticated with the API-key
    header needs none (no other site can make a browser send that header).
    """
    form = await request.form()
    data = {key: str(value) for key, value in form.items() if isinstance(value, str)}
    if viewer.csrf is not None and not csrf_matches(viewer.csrf, data.get("csrf_token")):
        raise PermissionDeniedException(detail="The form expired or was not sent by this site")
    return data


def page(
    template: str, viewer: Viewer | None, nav: str, status_code: int = 200, **context: Any
) -> Template:
    """A page response: ``template`` with the layout's context (viewer, CSRF token, now)."""
    return Template(
        template_name=template,
        context={
            "me": viewer,
            "csrf": viewer.csrf if viewer else None,
            "nav": nav,
            "now": utcnow(),
            **context,
        },
        media_type=MediaType.HTML,
        status_code=status_code,
        headers={"Cache-Control": "no-store"},
    )


async def owned(session: AsyncSession, model: Any, pk: int | str | None, org_id: int) -> Any:
    """The ``model`` row ``pk`` when it belongs to ``org_id``, else None."""
    if pk is None or (isinstance(pk, int) and pk > MAX_PK):
        return None  # larger IDs name nothing (and would overflow PostgreSQL's INTEGER)
    row = await session.get(model, pk)
    return row if row is not None and row.org_id == org_id else None


async def latest(
    session: AsyncSession,
    model: Any,
    condition: ColumnElement[bool],
    limit: int = RECENT,
    *,
    newest: Any = None,
) -> Sequence[Any]:
    """The newest ``limit`` rows of ``model`` meeting ``condition`` (by ``newest``, default the
    id, descending)."""
    order = newest if newest is not None else model.id
    query = select(model).where(condition).order_by(order.desc()).limit(limit)
    return (await session.scalars(query)).all()


async def team_names(session: AsyncSession, org_id: int) -> dict[int, str]:
    """The organization's team names by id."""
    rows = await session.execute(select(Team.id, Team.name).where(Team.org_id == org_id))
    return {tid: name for tid, name in rows.all()}


def gid(kind: str, pk: int) -> str:
    """The global ID of row ``pk`` of type ``kind``."""
    return encode_global_id(kind, pk)


# --- detail pages ---------------------------------------------------------------------------------


@get("/alert-responders/{responder_id:str}", **PAGE_OPTIONS)
async def alert_responder_page(
    request: Request[Any, Any, Any], viewer: ViewerDep, responder_id: FromPath[str]
) -> Template:
    """An alert agent: criteria in both forms, sources, integrations, ingest URL, investigations."""
    public_url = request.app.state.settings.public_url
    async with request.app.state.session_factory() as session:
        pk = decode_global_id(responder_id, "AlertResponder")
        agent = await owned(session, AlertResponder, pk, viewer.org_id)
        if agent is None:
            raise not_found("Alert responder")
        investigations = await latest(
            session, Investigation, Investigation.alert_responder_id == agent.id
        )
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
        investigations=[(gid("Investigation", i.id), i) for i in investigations],
    )


async def _set_agent_status(
    request: Request[Any, Any, Any], viewer: Viewer, responder_id: str, status: str
) -> Response[Any]:
    await form_data(request, viewer)
    async with request.app.state.session_factory() as session:
        pk = decode_global_id(responder_id, "AlertResponder")
        agent = await owned(session, AlertResponder, pk, viewer.org_id)
        if agent is None:
            raise not_found("Alert responder")
        agent.status = status
        if status == "PAUSED":  # as POST /api/v1/alert-responders/{id}/disable
            await stop_pending_investigations(session, agent.id)
        await session.commit()
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


@get("/investigations/{investigation_id:str}", **PAGE_OPTIONS)
async def investigation_page(
    request: Request[Any, Any, Any], viewer: ViewerDep, investigation_id: FromPath[str]
) -> Template:
    """One investigation: status, prompt, the alert payload, and the cited analysis."""
    async with request.app.state.session_factory() as session:
        pk = decode_global_id(investigation_id, "Investigation")
        inv = await owned(session, Investigation, pk, viewer.org_id)
        if inv is None:
            raise not_found("Investigation")
        agent = (
            await owned(session, AlertResponder, inv.alert_responder_id, viewer.org_id)
            if inv.alert_responder_id is not None
            else None
        )
        teams = await team_names(session, viewer.org_id)
    return page(
        "investigation.html",
        viewer,
        "investigations",
        title=inv.name,
        inv=inv,
        team=teams.get(inv.team_id or 0, "-"),
        gid=investigation_id,
        agent=agent,
        agent_gid=gid("AlertResponder", agent.id) if agent is not None else None,
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


@get("/digests/{digest_id:str}", **PAGE_OPTIONS)
async def digest_page(
    request: Request[Any, Any, Any], viewer: ViewerDep, digest_id: FromPath[str]
) -> Template:
    """A digest agent: schedule in words and next fire times, sections, Run now, latest runs."""
    async with request.app.state.session_factory() as session:
        pk = decode_global_id(digest_id, "Digest")
        digest = await owned(session, Digest, pk, viewer.org_id)
        if digest is None:
            raise not_found("Digest")
        runs = await latest(session, DigestRun, DigestRun.digest_id == digest.id)
        teams = await team_names(session, viewer.org_id)
    return page(
        "digest.html",
        viewer,
        "digests",
        title=digest.name,
        digest=digest,
        gid=digest_id,
        team=teams.get(digest.team_id, "-"),
        next_times=fire_times(digest.schedule, utcnow()),
        runs=[(gid("DigestRun", r.id), r) for r in runs],
        notice=request.query_params.get("notice"),
    )


@get("/digests/{digest_id:str}/runs/{run_id:str}", **PAGE_OPTIONS)
async def digest_run_page(
    request: Request[Any, Any, Any],
    viewer: ViewerDep,
    digest_id: FromPath[str],
    run_id: FromPath[str],
) -> Template:
    """One digest run and its sections' results."""
    async with request.app.state.session_factory() as session:
        digest = await owned(session, Digest, decode_global_id(digest_id, "Digest"), viewer.org_id)
        run = await owned(session, DigestRun, decode_global_id(run_id, "DigestRun"), viewer.org_id)
        if digest is None or run is None or run.digest_id != digest.id:
            raise not_found("Digest run")
    return page(
        "digest_run.html",
        viewer,
        "digests",
        title=digest.name,
        digest=digest,
        gid=digest_id,
        run=run,
    )


@get("/interactions/{interaction_id:str}", **PAGE_OPTIONS)
async def interaction_page(
    request: Request[Any, Any, Any], viewer: ViewerDep, interaction_id: FromPath[str]
) -> Template:
    """One question: its status, the answer with numbered citations, its sources, a follow-up."""
    async with request.app.state.session_factory() as session:
        interaction = await owned(session, Interaction, interaction_id, viewer.org_id)
        if interaction is None:
            raise not_found("Interaction")
        earlier = []
        for item in interaction.context or []:
            ref = item.get("interaction_id") if isinstance(item, Mapping) else None
            if isinstance(ref, str):
                row = await owned(session, Interaction, ref, viewer.org_id)
                if row is not None:
                    earlier.append(row)
    return page(
        "interaction.html",
        viewer,
        "ask",
        title=interaction.question[:80],
        interaction=interaction,
        earlier=earlier,
    )


# --- sign-in --------------------------------------------------------------------------------------


def _secure(request: Request[Any, Any, Any]) -> bool:
    return bool(
        request.app.state.settings.public_url.startswith("https://")
        or request.url.scheme == "https"
    )


def _login_page(
    request: Request[Any, Any, Any], target: str, message: str = "", status_code: int = 200
) -> Template:
    token = new_token()
    response = Template(
        template_name="login.html",
        context={
            "me": None,
            "csrf": None,
            "next": target,
            "message": message,
            "login_csrf": token,
            "lifetime_hours": int(SESSION_LIFETIME.total_seconds() // 3600),
        },
        media_type=MediaType.HTML,
        status_code=status_code,
        headers={"Cache-Control": "no-store"},
        cookies=[
            Cookie(
                key=LOGIN_CSRF_COOKIE,
                value=token,
                httponly=True,
                samesite="strict",
                secure=_secure(request),
                path="/login",
                max_age=3600,
            )
        ],
    )
    return response


@get("/login", include_in_schema=False)
async def login_form(request: Request[Any, Any, Any]) -> Template:
    """The sign-in form (organization API key)."""
    return _login_page(request, safe_next(request.query_params.get("next")))


@post("/login", include_in_schema=False, status_code=303)
async def login(request: Request[Any, Any, Any]) -> Response[Any]:
    """Check the key; on success open a session and go to ``next``, else show the form again."""
    form = await request.form()
    data = {key: str(value) for key, value in form.items() if isinstance(value, str)}
    target = safe_next(data.get("next"))
    if not csrf_matches(request.cookies.get(LOGIN_CSRF_COOKIE), data.get("csrf_token")):
        return _login_page(
            request, target, "The sign-in form expired; please try again.", status_code=403
        )
    state = request.app.state
    principal = await authenticate(
        state.hot_reader, state.session_factory, (data.get("api_key") or "").strip()
    )
    if principal is None:
        return _login_page(request, target, "That API key is not valid.", status_code=401)
    async with state.session_factory() as session:
        token = await open_session(session, principal.key_id, principal.org_id, utcnow())
    response: Response[Any] = Redirect(path=target, status_code=303)
    response.set_cookie(
        COOKIE_NAME,
        sign_token(token, state.session_signing_key),
        httponly=True,
        samesite="lax",
        secure=_secure(request),
        path="/",
        max_age=int(SESSION_LIFETIME.total_seconds()),
    )
    response.delete_cookie(LOGIN_CSRF_COOKIE, path="/login")
    return response


@post("/logout", status_code=303, **PAGE_OPTIONS)
async def logout(request: Request[Any, Any, Any], viewer: ViewerDep) -> Response[Any]:
    """End the session (the row is deleted, so the cookie opens nothing even if kept)."""
    await form_data(request, viewer)
    state = request.app.state
    await end_session(
        state.session_factory,
        verify_token(request.cookies.get(COOKIE_NAME), state.session_signing_key),
    )
    response: Response[Any] = Redirect(path="/login", status_code=303)
    response.delete_cookie(COOKIE_NAME, path="/")
    return response


ROUTES: list[Any] = [
    alert_responder_page,
    pause_agent,
    resume_agent,
    investigation_page,
    stop_investigation_form,
    digest_page,
    digest_run_page,
    interaction_page,
    login_form,
    login,
    logout,
]
