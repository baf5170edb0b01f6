"""The detail pages every ``url`` field links to, and the browser sign-in.

``/alert-responders/{id}``, ``/investigations/{id}``, ``/digests/{id}``,
``/digests/{id}/runs/{run_id}`` and ``/interactions/{id}`` (DESIGN.md section 4) are server-rendered
HTML. They show an organization's data, so they need its API key: the ``X-Service-Org-Api-Key``
header, or the ``sleuth_key`` cookie that ``/login`` sets (HttpOnly, SameSite=Strict; it counts only
for reading pages, never for the API). A page asked for without a key redirects to ``/login``; an ID
that is malformed, of the wrong type or of another organization is 404, as in the API.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated, Any
from urllib.parse import quote

from litestar import MediaType, Request, Response, get, post
from litestar.connection import ASGIConnection
from litestar.enums import RequestEncodingType
from litestar.exceptions import NotAuthorizedException
from litestar.handlers.base import BaseRouteHandler
from litestar.params import Body, FromPath
from litestar.response import Redirect
from sqlalchemy import ColumnElement, select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_shell.api.common import MAX_PK
from sleuth_shell.api.deps import CurrentPrincipal
from sleuth_shell.auth import SESSION_COOKIE, Principal, authenticate, current_principal
from sleuth_shell.db.models import (
    AlertResponder,
    Digest,
    DigestRun,
    Interaction,
    Investigation,
    Team,
)
from sleuth_shell.errors import not_found
from sleuth_shell.html import cells, definition_list, escape, markdown_html, page, table

__all__ = ["PAGE_OPTIONS", "ROUTES", "require_page_login", "safe_next"]

_RECENT = 20


def safe_next(value: str | None) -> str:
    """Where to go after signing in: a local path only (no open redirect), else ``/``."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    return value


def require_page_login(
    connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
) -> None:
    """Guard for pages: without a valid key (header or cookie) go to the sign-in form."""
    if current_principal(connection.scope) is None:
        raise NotAuthorizedException(detail="Sign in required")


def _to_login(request: Request[Any, Any, Any], exc: NotAuthorizedException) -> Response[Any]:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return Redirect(path=f"/login?next={quote(target, safe='')}", status_code=303)


#: Handler keyword arguments that make a route a signed-in HTML page.
PAGE_OPTIONS: dict[str, Any] = {
    "include_in_schema": False,
    "guards": [require_page_login],
    "exception_handlers": {NotAuthorizedException: _to_login},
}


def _ts(value: Any) -> str:
    return value.isoformat().replace("+00:00", "Z") if value is not None else "-"


def _status(value: str) -> str:
    return f'<span class="{escape(value)}">{escape(value)}</span>'


def _pre(value: Any) -> str:
    return f"<pre>{escape(value)}</pre>"


async def _team_name(session: AsyncSession, team_id: int | None) -> str:
    if team_id is None:
        return "-"
    team = await session.get(Team, team_id)
    return team.name if team is not None else "-"


async def _owned(session: AsyncSession, model: Any, pk: int | str | None, org_id: int) -> Any:
    if pk is None or (isinstance(pk, int) and pk > MAX_PK):
        return None  # larger IDs name nothing (and would overflow PostgreSQL's INTEGER)
    row = await session.get(model, pk)
    return row if row is not None and row.org_id == org_id else None


async def _latest(
    session: AsyncSession, model: Any, condition: ColumnElement[bool]
) -> Sequence[Any]:
    """The newest ``model`` rows matching ``condition``, highest id first."""
    query = select(model).where(condition).order_by(model.id.desc()).limit(_RECENT)
    return (await session.scalars(query)).all()


def _html(principal: Principal, title: str, body: str) -> Response[str]:
    return Response(
        page(title, body, org_name=principal.org_name),
        media_type=MediaType.HTML,
        headers={"Cache-Control": "no-store"},
    )


@get("/alert-responders/{responder_id:str}", **PAGE_OPTIONS)
async def alert_responder_page(
    request: Request[Any, Any, Any], principal: CurrentPrincipal, responder_id: FromPath[str]
) -> Response[str]:
    """An alert agent: its criteria, sources, runbook and latest investigations."""
    async with request.app.state.session_factory() as session:
        pk = decode_global_id(responder_id, "AlertResponder")
        agent = await _owned(session, AlertResponder, pk, principal.org_id)
        if agent is None:
            raise not_found("Alert responder")
        investigations = await _latest(
            session, Investigation, Investigation.alert_responder_id == agent.id
        )
        team = await _team_name(session, agent.team_id)
    source = (
        f"chat channel {agent.chat_channel_id}"
        if agent.chat_channel_id
        else ", ".join(f"{s['type']} {s['remote_id']}" for s in agent.webhook_sources) or "-"
    )
    rows = [
        f'<tr><td><a href="/investigations/{escape(encode_global_id("Investigation", i.id))}">'
        f"{escape(i.name)}</a></td>{cells([i.status, _ts(i.created_at)])}</tr>"
        for i in investigations
    ]
    body = (
        f"<h1>{escape(agent.name)}</h1>"
        + definition_list(
            [
                ("Status", _status(agent.status)),
                ("Team", escape(team)),
                ("Alerts from", escape(source)),
                ("Text matches", escape(", ".join(agent.text_matches) or "-")),
                ("Match rules", _pre(json.dumps(agent.match_rules, indent=2))),
                (
                    "Runbook prompt",
                    escape(agent.runbook_prompt)
                    if agent.runbook_active and agent.runbook_prompt
                    else "default prompt",
                ),
                ("Updated", escape(_ts(agent.updated_at))),
            ]
        )
        + "<h2>Latest investigations</h2>"
        + (table(["Name", "Status", "Created"], rows) if rows else "<p>None yet.</p>")
    )
    return _html(principal, agent.name, body)


@get("/investigations/{investigation_id:str}", **PAGE_OPTIONS)
async def investigation_page(
    request: Request[Any, Any, Any], principal: CurrentPrincipal, investigation_id: FromPath[str]
) -> Response[str]:
    """One investigation: status, the alert it started from, and its cited analysis."""
    async with request.app.state.session_factory() as session:
        pk = decode_global_id(investigation_id, "Investigation")
        inv = await _owned(session, Investigation, pk, principal.org_id)
        if inv is None:
            raise not_found("Investigation")
        team = await _team_name(session, inv.team_id)
    agent_link = "-"
    if inv.alert_responder_id is not None:
        gid = escape(encode_global_id("AlertResponder", inv.alert_responder_id))
        agent_link = f'<a href="/alert-responders/{gid}">alert agent</a>'
    body = (
        f"<h1>{escape(inv.name)}</h1>"
        + definition_list(
            [
                ("Status", _status(inv.status)),
                ("Team", escape(team)),
                ("Started by", agent_link),
                ("Started", escape(_ts(inv.started_at))),
                ("Completed", escape(_ts(inv.completed_at))),
                ("Prompt", escape(inv.prompt)),
            ]
        )
        + "<h2>Analysis</h2>"
        + (markdown_html(inv.result) if inv.result else "<p>Not finished yet.</p>")
        + (f"<h2>Error</h2>{_pre(inv.error)}" if inv.error else "")
        + "<h2>Alert payload</h2>"
        + _pre(inv.event_payload)
    )
    return _html(principal, inv.name, body)


@get("/digests/{digest_id:str}", **PAGE_OPTIONS)
async def digest_page(
    request: Request[Any, Any, Any], principal: CurrentPrincipal, digest_id: FromPath[str]
) -> Response[str]:
    """A digest agent: schedule, sections and latest runs."""
    async with request.app.state.session_factory() as session:
        pk = decode_global_id(digest_id, "Digest")
        digest = await _owned(session, Digest, pk, principal.org_id)
        if digest is None:
            raise not_found("Digest")
        runs = await _latest(session, DigestRun, DigestRun.digest_id == digest.id)
        team = await _team_name(session, digest.team_id)
    sections = "".join(
        f"<dt>{escape(s.get('section', ''))}</dt><dd>{escape(s.get('prompt', ''))}</dd>"
        for s in digest.sections
    )
    run_rows = [
        f'<tr><td><a href="/digests/{escape(digest_id)}/runs/'
        f'{escape(encode_global_id("DigestRun", r.id))}">{escape(_ts(r.created_at))}</a></td>'
        f"{cells([r.status, _ts(r.scheduled_runtime)])}</tr>"
        for r in runs
    ]
    body = (
        f"<h1>{escape(digest.name)}</h1>"
        + definition_list(
            [
                ("Team", escape(team)),
                ("Schedule (UTC, day 0 = Monday)", f"<code>{escape(digest.schedule)}</code>"),
                ("Chat channel", escape(digest.chat_channel_id or "-")),
            ]
        )
        + f"<h2>Sections</h2><dl>{sections}</dl><h2>Latest runs</h2>"
        + (table(["Run", "Status", "Scheduled for"], run_rows) if run_rows else "<p>None yet.</p>")
    )
    return _html(principal, digest.name, body)


@get("/digests/{digest_id:str}/runs/{run_id:str}", **PAGE_OPTIONS)
async def digest_run_page(
    request: Request[Any, Any, Any],
    principal: CurrentPrincipal,
    digest_id: FromPath[str],
    run_id: FromPath[str],
) -> Response[str]:
    """One digest run and its sections' results."""
    async with request.app.state.session_factory() as session:
        digest = await _owned(
            session, Digest, decode_global_id(digest_id, "Digest"), principal.org_id
        )
        run = await _owned(
            session, DigestRun, decode_global_id(run_id, "DigestRun"), principal.org_id
        )
        if digest is None or run is None or run.digest_id != digest.id:
            raise not_found("Digest run")
    results = "".join(
        f"<h2>{escape(r.get('section', ''))}</h2>{markdown_html(str(r.get('result', '')))}"
        for r in run.results
    )
    body = (
        f'<h1>{escape(digest.name)}</h1><p class="meta">Run of '
        f'<a href="/digests/{escape(digest_id)}">this digest</a></p>'
        + definition_list(
            [
                ("Status", _status(run.status)),
                ("Scheduled for", escape(_ts(run.scheduled_runtime))),
                ("Completed", escape(_ts(run.completed_at))),
            ]
        )
        + (results or "<p>No results yet.</p>")
        + (f"<h2>Error</h2>{_pre(run.error)}" if run.error else "")
    )
    return _html(principal, digest.name, body)


@get("/interactions/{interaction_id:str}", **PAGE_OPTIONS)
async def interaction_page(
    request: Request[Any, Any, Any], principal: CurrentPrincipal, interaction_id: FromPath[str]
) -> Response[str]:
    """One interaction: the question, its status, the answer and its sources."""
    async with request.app.state.session_factory() as session:
        interaction = await _owned(session, Interaction, interaction_id, principal.org_id)
        if interaction is None:
            raise not_found("Interaction")
    source_rows = [
        f'<tr><td>[{n}]</td><td><a href="{escape(s.get("link", ""))}">'
        f"{escape(s.get('display_text', ''))}</a></td>"
        f"{cells([s.get('log_type_name', ''), s.get('start', ''), s.get('end', '')])}</tr>"
        for n, s in enumerate(interaction.sources, start=1)
    ]
    body = (
        f"<h1>{escape(interaction.question)}</h1>"
        + definition_list(
            [
                ("Status", _status(interaction.status)),
                ("Scheduled for", escape(_ts(interaction.scheduled_runtime))),
                ("Completed", escape(_ts(interaction.completed_at))),
            ]
        )
        + "<h2>Answer</h2>"
        + (markdown_html(interaction.content) if interaction.content else "<p>No answer yet.</p>")
        + (
            "<h2>Sources</h2>" + table(["#", "Source", "Data", "From", "To"], source_rows)
            if source_rows
            else ""
        )
    )
    return _html(principal, interaction.question[:80], body)


_LOGIN_FORM = (
    "<h1>Sign in to Sleuth</h1>{message}"
    '<form method="post" action="/login"><input type="hidden" name="next" value="{next}">'
    '<p><label>Organization API key<br><input type="password" name="api_key" size="60" '
    'autocomplete="off" required></label></p><p><button>Sign in</button></p></form>'
)


@get("/login", include_in_schema=False, media_type=MediaType.HTML)
async def login_form(request: Request[Any, Any, Any]) -> str:
    """The sign-in form: the organization API key, kept in an HttpOnly cookie for pages."""
    target = safe_next(request.query_params.get("next"))
    return page("Sign in", _LOGIN_FORM.format(message="", next=escape(target)))


@post("/login", include_in_schema=False, status_code=303)
async def login(
    request: Request[Any, Any, Any],
    data: Annotated[dict[str, str], Body(media_type=RequestEncodingType.URL_ENCODED)],
) -> Response[str]:
    """Check the key; on success set the cookie and go to ``next``, else show the form again."""
    target = safe_next(data.get("next"))
    key = (data.get("api_key") or "").strip()
    principal = await authenticate(request.app.state.session_factory, key)
    if principal is None:
        form = _LOGIN_FORM.format(
            message='<p class="FAILED">That API key is not valid.</p>', next=escape(target)
        )
        return Response(page("Sign in", form), status_code=401, media_type=MediaType.HTML)
    secure = request.app.state.settings.public_url.startswith("https://")
    response: Response[str] = Redirect(path=target, status_code=303)
    response.set_cookie(
        SESSION_COOKIE, key, httponly=True, samesite="strict", secure=secure, path="/"
    )
    return response


@post("/logout", include_in_schema=False, status_code=303)
async def logout() -> Response[str]:
    """Forget the sign-in cookie."""
    response: Response[str] = Redirect(path="/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


ROUTES = [
    alert_responder_page,
    investigation_page,
    digest_page,
    digest_run_page,
    interaction_page,
    login_form,
    login,
    logout,
]
