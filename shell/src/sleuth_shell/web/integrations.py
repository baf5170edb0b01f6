"""Notification integrations: the organization's integrations and (for admins) a form to add one.

Adding one is :func:`sleuth_shell.admin.add_integration`, the operation ``sleuth admin
add-integration`` runs (the API only lists integrations), so its checks and messages are the CLI's.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post
from litestar.response import Redirect, Template
from sqlalchemy import select

from sleuth_shell.admin import AdminError, add_integration
from sleuth_shell.db.models import NotificationIntegration
from sleuth_shell.domain import INTEGRATION_KINDS
from sleuth_shell.web.guard import (
    PAGE_OPTIONS,
    Viewer,
    ViewerDep,
    form_data,
    page,
    require_admin_viewer,
)

__all__ = ["ROUTES"]

_BLANK = {"kind": "CHAT_ALERT", "name": "", "url": "", "channel": ""}


async def _page(
    request: Request[Any, Any, Any],
    viewer: Viewer,
    form: dict[str, str],
    error: str | None = None,
) -> Template:
    async with request.app.state.session_factory() as session:
        rows = (
            await session.scalars(
                select(NotificationIntegration)
                .where(NotificationIntegration.org_id == viewer.org_id)
                .order_by(NotificationIntegration.name)
            )
        ).all()
    return page(
        "integrations.html",
        viewer,
        "agents",
        status_code=400 if error else 200,
        title="Notification integrations",
        integrations=rows,
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
            await session.rollback()
            return await _page(request, viewer, form, str(exc))
    return Redirect(path="/notification-integrations?notice=added", status_code=303)


ROUTES: list[Any] = [integrations_page, add_notification_integration]
