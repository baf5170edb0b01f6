"""Webhook subscriptions: the organization's inbound sources with the ingest URL to give each
provider, and (for admins) a form to add one, whose secret is shown once, right after creation,
and one to edit or delete each.

Adding one is :func:`sleuth_shell.admin.add_webhook`, the operation ``sleuth admin add-webhook``
runs (the API only lists subscriptions), so its checks and messages are the CLI's; editing is
:func:`sleuth_shell.admin.update_webhook` (its checks) and deleting
:func:`sleuth_shell.admin.remove_webhook` (``sleuth admin remove-webhook``: refused while an alert
agent listens to it).
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template
from sqlalchemy import select

from sleuth_shell.admin import AdminError, add_webhook, remove_webhook, update_webhook
from sleuth_shell.db.models import WebhookSubscription
from sleuth_shell.domain import CHANGE_SOURCE_TYPES, SUBSCRIPTION_TYPES
from sleuth_shell.errors import not_found
from sleuth_shell.urls import ingest_url
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


async def _page(
    request: Request[Any, Any, Any],
    viewer: Viewer,
    *,
    form: dict[str, str] | None = None,
    error: str | None = None,
    created: dict[str, str] | None = None,
) -> Template:
    public_url = request.app.state.settings.public_url
    async with request.app.state.session_factory() as session:
        rows = await org_rows(session, WebhookSubscription, viewer.org_id, WebhookSubscription.id)
    return form_page(
        "webhooks.html",
        viewer,
        "agents",
        title="Webhook subscriptions",
        subscriptions=[(row, ingest_url(public_url, row.type, row.remote_id)) for row in rows],
        types=SUBSCRIPTION_TYPES,
        form=form or {"type": "GENERIC", "name": "", "provider_secret": "", "service": ""},
        error=error,
        created=created,
        notice=request.query_params.get("notice"),
    )


@get("/webhook-subscriptions", **PAGE_OPTIONS)
async def webhooks_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """The subscriptions with their ingest URLs; for admins the form to add one."""
    return await _page(request, viewer)


@post("/webhook-subscriptions", status_code=200, **PAGE_OPTIONS)
async def add_webhook_subscription(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Add a subscription (admins only) and show its ingest URL and secret, this once."""
    data = await form_data(request, viewer)
    require_admin_viewer(viewer)
    form = {key: data.get(key, "") for key in ("type", "name", "provider_secret", "service")}
    async with request.app.state.session_factory() as session:
        try:
            row = await add_webhook(
                session,
                viewer.org_name,
                form["type"],
                form["name"],
                provider_secret=form["provider_secret"] or None,
                service=form["service"] or None,
            )
        except AdminError as exc:
            return await _page(request, viewer, form=form, error=await form_refusal(session, exc))
        created = {
            "name": row.name,
            "type": row.type,
            "secret": row.secret,
            "ingest_url": ingest_url(
                request.app.state.settings.public_url, row.type, row.remote_id
            ),
        }
    return await _page(request, viewer, created=created)


async def _stored(
    request: Request[Any, Any, Any], viewer: Viewer, remote_id: str
) -> WebhookSubscription:
    async with request.app.state.session_factory() as session:
        row: WebhookSubscription | None = await session.scalar(
            select(WebhookSubscription).where(
                WebhookSubscription.org_id == viewer.org_id,
                WebhookSubscription.remote_id == remote_id,
            )
        )
    if row is None:
        raise not_found("Webhook subscription")
    return row


def _edit_page(
    request: Request[Any, Any, Any],
    viewer: Viewer,
    row: WebhookSubscription,
    form: dict[str, str],
    error: str | None = None,
) -> Template:
    return form_page(
        "webhook_form.html",
        viewer,
        "agents",
        title=f"Edit {row.name}",
        row=row,
        ingest_url=ingest_url(request.app.state.settings.public_url, row.type, row.remote_id),
        change_source=row.type in CHANGE_SOURCE_TYPES,
        form=form,
        error=error,
    )


@get("/webhook-subscriptions/{remote_id:str}/edit", **PAGE_OPTIONS)
async def edit_webhook_page(
    request: Request[Any, Any, Any], viewer: ViewerDep, remote_id: FromPath[str]
) -> Template:
    """The form to rename a subscription, set its service or replace the provider's secret,
    and to delete it (admins only)."""
    require_admin_viewer(viewer)
    row = await _stored(request, viewer, remote_id)
    form = {"name": row.name, "service": row.service or ""}
    return _edit_page(request, viewer, row, form)


@post("/webhook-subscriptions/{remote_id:str}/edit", status_code=303, **PAGE_OPTIONS)
async def update_webhook_subscription(
    request: Request[Any, Any, Any], viewer: ViewerDep, remote_id: FromPath[str]
) -> Response[Any]:
    """Save the subscription (admins only); an empty provider secret keeps the stored one."""
    data = await form_data(request, viewer)
    require_admin_viewer(viewer)
    row = await _stored(request, viewer, remote_id)
    form = {"name": data.get("name", ""), "service": data.get("service", "")}
    secret = data.get("provider_secret", "")
    async with request.app.state.session_factory() as session:
        try:
            await update_webhook(
                session,
                viewer.org_name,
                remote_id,
                name=form["name"],
                service=form["service"] or None,
                provider_secret=secret or None,
            )
        except AdminError as exc:
            return _edit_page(request, viewer, row, form, await form_refusal(session, exc))
    return Redirect(path="/webhook-subscriptions?notice=saved", status_code=303)


@post("/webhook-subscriptions/{remote_id:str}/delete", status_code=303, **PAGE_OPTIONS)
async def delete_webhook_subscription(
    request: Request[Any, Any, Any], viewer: ViewerDep, remote_id: FromPath[str]
) -> Response[Any]:
    """Delete the subscription (admins only): its ingest URL stops accepting deliveries.
    Refused, with the alert agents named, while agents listen to it."""
    await form_data(request, viewer)
    require_admin_viewer(viewer)
    row = await _stored(request, viewer, remote_id)
    async with request.app.state.session_factory() as session:
        try:
            await remove_webhook(session, viewer.org_name, remote_id)
        except AdminError as exc:
            form = {"name": row.name, "service": row.service or ""}
            return _edit_page(request, viewer, row, form, await form_refusal(session, exc))
    return Redirect(path="/webhook-subscriptions?notice=deleted", status_code=303)


ROUTES: list[Any] = [
    webhooks_page,
    add_webhook_subscription,
    edit_webhook_page,
    update_webhook_subscription,
    delete_webhook_subscription,
]
