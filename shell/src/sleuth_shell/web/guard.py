"""The web app's page guard and what every page handler shares: who is looking (:class:`Viewer`),
the guard that signs a browser in or reads the API-key header (:data:`PAGE_OPTIONS`), forms with
their CSRF check, and the page response.

A page takes the organization's API key in the ``X-Service-Org-Api-Key`` header, or a browser
session: ``/login`` (:mod:`sleuth_shell.web.signin`) checks a key and opens a server-side session
(:mod:`sleuth_shell.web.sessions`) whose random token is the ``sleuth_session`` cookie (HttpOnly,
SameSite=Lax, Secure over https); the key itself never reaches the browser. A page asked for
without either redirects to ``/login?next=...``. Every form posts the session's CSRF token (the
sign-in form a double-submit cookie); a request that authenticates with the header needs none, as
no other site can set it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeAlias
from urllib.parse import quote

from litestar import MediaType, Request, Response
from litestar.connection import ASGIConnection
from litestar.di import NamedDependency, Provide
from litestar.exceptions import NotAuthorizedException, PermissionDeniedException
from litestar.handlers.base import BaseRouteHandler
from litestar.response import Redirect, Template
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.auth import current_principal
from sleuth_shell.db.models import (
    utcnow,
)
from sleuth_shell.errors import ApiError
from sleuth_shell.ratelimit import rate_limiter_of
from sleuth_shell.web.render import PAGE_HEADERS
from sleuth_shell.web.sessions import (
    COOKIE_NAME,
    csrf_matches,
    resolve_session,
    verify_token,
)

__all__ = [
    "PAGE_OPTIONS",
    "VIEWER_SCOPE_KEY",
    "Viewer",
    "ViewerDep",
    "form_data",
    "form_page",
    "form_refusal",
    "page",
    "require_admin_viewer",
    "require_page_login",
    "safe_next",
]

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
        headers=PAGE_HEADERS,
    )


def form_page(
    template: str, viewer: Viewer, nav: str, *, error: str | None, **context: Any
) -> Template:
    """A page holding a form: ``error`` shown with a 400 when the posted form was refused, else
    a 200."""
    return page(template, viewer, nav, status_code=400 if error else 200, error=error, **context)


async def delete_form(
    request: Request[Any, Any, Any],
    viewer: Viewer,
    delete: Callable[[AsyncSession], Awaitable[object]],
    listing: str,
    *,
    admin: bool = False,
) -> Redirect:
    """A page's Delete button: the form checked (CSRF, then admin rights when ``admin``),
    ``delete`` run in a session of its own, then back to ``listing`` with a notice. ``delete``
    is the API's own operation, so the page deletes exactly as the API does."""
    await form_data(request, viewer)
    if admin:
        require_admin_viewer(viewer)
    async with request.app.state.session_factory() as session:
        await delete(session)
    return Redirect(path=f"{listing}?notice=deleted", status_code=303)


async def form_refusal(session: AsyncSession, exc: Exception) -> str:
    """What a form shows when the operation refused what was posted (``session`` rolled back):
    the API's ``detail`` or the error's text. A 404 (the record being edited is gone) is raised
    again, for the not-found page."""
    await session.rollback()
    if isinstance(exc, ApiError):
        if exc.status_code == 404:
            raise exc
        return exc.detail
    return str(exc)
