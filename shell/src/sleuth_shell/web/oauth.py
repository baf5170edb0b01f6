"""The consent step of the MCP authorization flow, and revoking a grant from the settings page.

``GET /oauth/authorize`` is the authorization endpoint: authlib validates the request first (an
unknown client or an unregistered redirect URI is shown to the person, never redirected; any other
error goes back to the client), then a person who is not signed in is sent to the web app's
sign-in (``/login?next=...``, any organization API key) and comes back to the consent page, which
names the client, where it will be sent, and the organization, team and rights the client will
act with. ``POST /oauth/authorize`` carries the answer (the session's CSRF token required): approve
issues a code bound to the grant (:mod:`sleuth_shell.oauth`), deny answers ``access_denied``.
The page may not be framed.

``POST /settings/oauth/{grant_id}/revoke`` revokes a grant and its tokens: an admin any of the
organization's, anyone else those approved with their own key.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit

from litestar import MediaType, Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template

from sleuth_shell.db.models import ApiKey, Team, utcnow
from sleuth_shell.errors import not_found
from sleuth_shell.oauth.routes import OAUTH_RATE_LIMIT
from sleuth_shell.oauth.server import (
    AuthorizationProblem,
    check_authorization,
    complete_authorization,
    read_request,
)
from sleuth_shell.oauth.store import Approver, revoke_authorization
from sleuth_shell.web.guard import PAGE_OPTIONS, ViewerDep, form_data
from sleuth_shell.web.sessions import (
    COOKIE_NAME,
    SessionPrincipal,
    csrf_matches,
    resolve_session,
    verify_token,
)

__all__ = ["ROUTES"]

_NO_FRAMING = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'",
}
_OPTIONS: dict[str, Any] = {"include_in_schema": False, OAUTH_RATE_LIMIT: True}


async def _signed_in(request: Request[Any, Any, Any]) -> SessionPrincipal | None:
    state = request.app.state
    return await resolve_session(
        state.session_factory,
        verify_token(request.cookies.get(COOKIE_NAME), state.session_signing_key),
        utcnow(),
    )


def _page(
    template: str, me: SessionPrincipal | None, status_code: int = 200, **context: Any
) -> Template:
    return Template(
        template_name=template,
        context={
            "me": me,
            "csrf": me.csrf_token if me else None,
            "nav": "settings",
            "now": utcnow(),
            **context,
        },
        media_type=MediaType.HTML,
        status_code=status_code,
        headers=_NO_FRAMING,
    )


def _problem(me: SessionPrincipal | None, detail: str, status_code: int = 400) -> Template:
    return _page(
        "error.html",
        me,
        status_code,
        title="Authorization refused",
        heading="This application cannot be authorized",
        detail=detail,
    )


def _destination(redirect_uri: str) -> str:
    """Where the browser goes after the answer, for the person to recognise (scheme and host)."""
    parts = urlsplit(redirect_uri)
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else f"{parts.scheme}:"


@get("/oauth/authorize", **_OPTIONS)
async def authorize_page(request: Request[Any, Any, Any]) -> Response[Any]:
    """Validate the authorization request, then sign in (if needed) and ask the person."""
    state = request.app.state
    public_url = state.settings.public_url
    data = await read_request(request, public_url)
    me = await _signed_in(request)
    try:
        checked = await check_authorization(state.session_factory, public_url, data, utcnow())
    except AuthorizationProblem as exc:
        return _problem(me, str(exc))
    if isinstance(checked, Response):
        return checked
    if me is None:
        target = f"{request.url.path}?{request.url.query}"
        return Redirect(path=f"/login?next={quote(target, safe='')}", status_code=303)
    async with state.session_factory() as session:
        key = await session.get(ApiKey, me.key_id)
        team = await session.get(Team, me.team_id) if me.team_id else None
    return _page(
        "oauth_consent.html",
        me,
        title="Authorize an application",
        consent=checked,
        destination=_destination(checked.redirect_uri),
        key_prefix=key.prefix if key else "",
        team=team.name if team else None,
    )


@post("/oauth/authorize", status_code=302, **_OPTIONS)
async def authorize(request: Request[Any, Any, Any]) -> Response[Any]:
    """The person's answer (``decision`` = ``approve`` or ``deny``), back to the client."""
    state = request.app.state
    public_url = state.settings.public_url
    me = await _signed_in(request)
    data = await read_request(request, public_url)
    if me is None:
        return _problem(
            None, "Your sign-in ended; start the connection from the application again.", 403
        )
    if not csrf_matches(me.csrf_token, data.first("csrf_token")):
        return _problem(me, "The form expired or was not sent by this site.", 403)
    approver = None
    if data.first("decision") == "approve":
        approver = Approver(org_id=me.org_id, key_id=me.key_id, admin=me.admin, team_id=me.team_id)
    try:
        return await complete_authorization(
            state.session_factory, public_url, data, approver, utcnow()
        )
    except AuthorizationProblem as exc:
        return _problem(me, str(exc))


@post("/settings/oauth/{grant_id:int}/revoke", status_code=303, **PAGE_OPTIONS)
async def revoke_grant(
    request: Request[Any, Any, Any], viewer: ViewerDep, grant_id: FromPath[int]
) -> Response[Any]:
    """Revoke an authorized application (its grant and every token issued under it): an admin
    any of the organization's, anyone else those approved with their own key."""
    await form_data(request, viewer)
    async with request.app.state.session_factory() as session:
        done = await revoke_authorization(
            session,
            viewer.org_id,
            grant_id,
            utcnow(),
            key_id=None if viewer.admin else viewer.key_id,
            by_key_id=viewer.key_id,
        )
    if not done:
        raise not_found("Authorized application")
    return Redirect(path="/settings?notice=oauth-revoked", status_code=303)


ROUTES: list[Any] = [authorize_page, authorize, revoke_grant]
