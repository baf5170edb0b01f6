"""Notification integrations: the organization's integrations and (for admins) a form to add one
and one to edit or delete each.

Adding one is :func:`sleuth_shell.admin.add_integration`, the operation ``sleuth admin
add-integration`` runs (the API only lists integrations), so its checks and messages are the CLI's;
editing is :func:`sleuth_shell.admin.update_integration` (the same checks) and deleting
:func:`sleuth_shell.admin.remove_integration` (``sleuth admin remove-integration``: the agents and
digests that notified it stop doing so).
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template

from sleuth_core.ids import encode_global_id
from sleuth_shell.admin import AdminError, add_integration, remove_integration, update_integration
from sleuth_shell.api.common import load_owned
from sleuth_shell.db.models import NotificationIntegration
from sleuth_shell.domain import INTEGRATION_KINDS
from sleuth_shell.web.guard import (
    PAGE_OPTIONS,
    Viewer,
    ViewerDep,
    form_data,
    form_page,
    form_refusal,
    require_admin_viewer,
)
from sleuth_shell.web.rows import org_rows

__all__ = ["ROUTES"]

_BLANK = {"kind": "CHAT_ALERT", "name": "", "url": "", "channel": ""}


async def _page(
    request: Request[Any, Any, Any],
    viewer: Viewer,
    form: dict[str, str],
    error: str | None = None,
) -> Template:
    async with request.app.state.session_factory() as session:
        rows = await org_rows(
            session, NotificationIntegration, viewer.org_id, NotificationIntegration.name
        )
    return form_page(
        "integrations.html",
        viewer,
        "agents",
        title="Notification integrations",
        integrations=[(encode_global_id("NotificationIntegration", r.id), r) for r in rows],
        kinds=INTEGRATION_KINDS,
        form=form,
        error=error,
        notice=request.query_params.get("notice"),
    )


@get("/notification-integrations", **PAGE_OPTIONS)
async def integrations_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """The integrations; for admins the form to add one."""
    return await _page(request, viewer, dict(_BLANK))


@post("/notification-integrations", status_code=303, **PAGE_OPTIONS)
async def add_notification_integration(
    request: Request[Any, Any, Any], viewer: ViewerDep
) -> Response[Any]:
    """Add an integration (admins only): ``ALT_WEBHOOK`` with a URL, ``CHAT_ALERT`` a channel."""
    data = await form_data(request, viewer)
    require_admin_viewer(viewer)
    form = {key: data.get(key, "").strip() for key in _BLANK}
    async with request.app.state.session_factory() as session:
        try:
            await add_integration(
                session,
                viewer.org_name,
                form["kind"],
                form["name"],
                url=form["url"] or None,
                channel=form["channel"] or None,
            )
        except AdminError as exc:
            return await _page(request, viewer, form, await form_refusal(session, exc))
    return Redirect(path="/notification-integrations?notice=added", status_code=303)


async def _stored(
    request: Request[Any, Any, Any], viewer: Viewer, integration_id: str
) -> NotificationIntegration:
    async with request.app.state.session_factory() as session:
        return await load_owned(
            session,
            NotificationIntegration,
            viewer.org_id,
            integration_id,
            "NotificationIntegration",
            "Notification integration",
        )


def _edit_page(
    viewer: Viewer,
    gid: str,
    row: NotificationIntegration,
    form: dict[str, str],
    error: str | None = None,
) -> Template:
    return form_page(
        "integration_form.html",
        viewer,
        "agents",
        title=f"Edit {row.name}",
        gid=gid,
        row=row,
        form=form,
        error=error,
    )


@get("/notification-integrations/{integration_id:str}/edit", **PAGE_OPTIONS)
async def edit_integration_page(
    request: Request[Any, Any, Any], viewer: ViewerDep, integration_id: FromPath[str]
) -> Template:
    """The form to rename an integration or change where it posts, and to delete it (admins
    only)."""
    require_admin_viewer(viewer)
    row = await _stored(request, viewer, integration_id)
    form = {"name": row.name, "url": row.url or "", "channel": row.channel_id or ""}
    return _edit_page(viewer, integration_id, row, form)


@post("/notification-integrations/{integration_id:str}/edit", status_code=303, **PAGE_OPTIONS)
async def update_notification_integration(
    request: Request[Any, Any, Any], viewer: ViewerDep, integration_id: FromPath[str]
) -> Response[Any]:
    """Save the integration (admins only); its kind stays."""
    data = await form_data(request, viewer)
    require_admin_viewer(viewer)
    row = await _stored(request, viewer, integration_id)
    form = {key: data.get(key, "").strip() for key in ("name", "url", "channel")}
    async with request.app.state.session_factory() as session:
        try:
            await update_integration(
                session,
                viewer.org_name,
                integration_id,
                name=form["name"],
                url=form["url"] or None,
                channel=form["channel"] or None,
            )
        except AdminError as exc:
            return _edit_page(viewer, integration_id, row, form, await form_refusal(session, exc))
    return Redirect(path="/notification-integrations?notice=saved", status_code=303)


@post("/notification-integrations/{integration_id:str}/delete", status_code=303, **PAGE_OPTIONS)
async def delete_notification_integration(
    request: Request[Any, Any, Any], viewer: ViewerDep, integration_id: FromPath[str]
) -> Response[Any]:
    """Delete the integration (admins only); agents and digests stop notifying it."""
    await form_data(request, viewer)
    require_admin_viewer(viewer)
    await _stored(request, viewer, integration_id)
    async with request.app.state.session_factory() as session:
        await remove_integration(session, viewer.org_name, integration_id)
    return Redirect(path="/notification-integrations?notice=deleted", status_code=303)


ROUTES: list[Any] = [
    integrations_page,
    add_notification_integration,
    edit_integration_page,
    update_notification_integration,
    delete_notification_integration,
]
