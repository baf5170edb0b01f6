"""Sign-in and sign-out: ``/login`` checks an organization API key and opens a server-side session
(see :mod:`sleuth_shell.web.guard`); ``/logout`` ends it.
"""

from __future__ import annotations

from typing import Any

from litestar import MediaType, Request, Response, get, post
from litestar.datastructures import Cookie
from litestar.response import Redirect, Template

from sleuth_shell.auth import authenticate
from sleuth_shell.db.models import (
    utcnow,
)
from sleuth_shell.web.guard import PAGE_OPTIONS, ViewerDep, form_data, safe_next
from sleuth_shell.web.render import PAGE_HEADERS
from sleuth_shell.web.sessions import (
    COOKIE_NAME,
    LOGIN_CSRF_COOKIE,
    SESSION_LIFETIME,
    csrf_matches,
    end_session,
    new_token,
    open_session,
    sign_token,
    verify_token,
)

__all__ = ["ROUTES"]


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
        headers=PAGE_HEADERS,
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


ROUTES: list[Any] = [login_form, login, logout]
