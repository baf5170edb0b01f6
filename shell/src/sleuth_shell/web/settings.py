"""Settings: the advanced settings (editable by admins) and the API keys (admins revoke them)."""

from __future__ import annotations

import json
from typing import Any

from litestar import Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template
from sqlalchemy import delete

from sleuth_core.errors import InvalidSettings
from sleuth_shell.admin import AdminError, set_budget
from sleuth_shell.billing.budgets import list_budgets
from sleuth_shell.db.models import (
    ApiKey,
    WebSession,
    utcnow,
)
from sleuth_shell.errors import bad_request, not_found
from sleuth_shell.oauth.store import list_authorizations
from sleuth_shell.org_settings import load_advanced_settings, save_advanced_settings
from sleuth_shell.web.guard import (
    PAGE_OPTIONS,
    Viewer,
    ViewerDep,
    form_data,
    form_refusal,
    page,
    require_admin_viewer,
)
from sleuth_shell.web.rows import org_rows, owned, team_names

__all__ = ["ROUTES"]


async def _settings_context(request: Request[Any, Any, Any], viewer: Viewer) -> dict[str, Any]:
    async with request.app.state.session_factory() as session:
        document = await load_advanced_settings(session, viewer.org_id)
        keys = await org_rows(
            session, ApiKey, viewer.org_id, ApiKey.id, ApiKey.revoked_at.is_(None)
        )
        teams = await team_names(session, viewer.org_id)
        authorizations = await list_authorizations(
            session, viewer.org_id, key_id=None if viewer.admin else viewer.key_id
        )
        budgets = await list_budgets(session, viewer.org_id, utcnow())
    return {
        "budgets": budgets,
        "document": json.dumps(document, indent=2, ensure_ascii=False),
        "keys": [(k, teams.get(k.team_id or 0, "-")) for k in keys],
        "authorizations": authorizations,
        "error": None,
        "budget_error": None,
        "team_list": sorted(teams.values()),
        "notice": request.query_params.get("notice"),
    }


@get("/settings", **PAGE_OPTIONS)
async def settings_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """The advanced settings (editable by admins), the teams' budgets for automated runs, for
    admins the API keys, and the applications authorized to use the MCP endpoint (an admin sees
    the organization's, anyone else their own key's; revoking one is
    :mod:`sleuth_shell.web.oauth`)."""
    context = await _settings_context(request, viewer)
    return page("settings.html", viewer, "settings", title="Settings", **context)


@post("/settings", status_code=303, **PAGE_OPTIONS)
async def save_settings(request: Request[Any, Any, Any], viewer: ViewerDep) -> Response[Any]:
    """Replace the advanced settings (admins only); a bad document is shown again with the
    validation message next to the field and nothing changes."""
    data = await form_data(request, viewer)
    require_admin_viewer(viewer)
    text = data.get("document", "")
    error = None
    try:
        document = json.loads(text)
    except ValueError as exc:
        error = f"Not valid JSON: {exc}"
    if error is None:
        async with request.app.state.session_factory() as session:
            try:
                await save_advanced_settings(session, viewer.org_id, document)
            except InvalidSettings as exc:
                error = str(exc)
            else:
                await session.commit()
    if error is not None:
        context = await _settings_context(request, viewer)
        context.update(document=text, error=error)
        return page(
            "settings.html", viewer, "settings", title="Settings", status_code=400, **context
        )
    return Redirect(path="/settings?notice=saved", status_code=303)


@post("/settings/api-keys/{key_id:int}/revoke", status_code=303, **PAGE_OPTIONS)
async def revoke_key(
    request: Request[Any, Any, Any], viewer: ViewerDep, key_id: FromPath[int]
) -> Response[Any]:
    """Revoke one of the organization's API keys (admins only; ``revoked_at`` is set as by
    ``sleuth admin revoke-key``, so its interactions stay attributed) and end its sessions. An admin
    cannot revoke the key they are signed in with (that would lock the page out mid-action)."""
    await form_data(request, viewer)
    require_admin_viewer(viewer)
    if key_id == viewer.key_id:
        raise bad_request("You cannot revoke the key you are signed in with")
    async with request.app.state.session_factory() as session:
        key = await owned(session, ApiKey, key_id, viewer.org_id)
        if key is None:
            raise not_found("API key")
        await session.execute(delete(WebSession).where(WebSession.api_key_id == key.id))
        if key.revoked_at is None:
            key.revoked_at = utcnow()
        await session.commit()
    return Redirect(path="/settings?notice=revoked", status_code=303)


@post("/settings/budgets", status_code=303, **PAGE_OPTIONS)
async def set_team_budget(request: Request[Any, Any, Any], viewer: ViewerDep) -> Response[Any]:
    """Set or remove a team's monthly budget for automated runs (admins only), through
    :func:`sleuth_shell.admin.set_budget` (what ``sleuth admin set-budget`` runs)."""
    data = await form_data(request, viewer)
    require_admin_viewer(viewer)
    raw = data.get("credits", "").strip()
    error = None
    credits: float | None = None
    if raw:
        try:
            credits = float(raw)
        except ValueError:
            error = f"Invalid budget: {raw} (a number of credits from 0 to 1e12)"
    if error is None:
        async with request.app.state.session_factory() as session:
            try:
                await set_budget(session, viewer.org_name, data.get("team", ""), credits)
            except AdminError as exc:
                error = await form_refusal(session, exc)
    if error is not None:
        context = await _settings_context(request, viewer)
        context.update(budget_error=error)
        return page(
            "settings.html", viewer, "settings", title="Settings", status_code=400, **context
        )
    return Redirect(path="/settings?notice=budget", status_code=303)


ROUTES: list[Any] = [settings_page, save_settings, revoke_key, set_team_budget]
