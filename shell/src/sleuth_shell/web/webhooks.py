"""Webhook subscriptions: the organization's inbound sources with the ingest URL to give each
provider, and (for admins) a form to add one, whose secret is shown once, right after creation.

Adding one is :func:`sleuth_shell.admin.add_webhook`, the operation ``sleuth admin add-webhook``
runs (the API only lists subscriptions), so its checks and messages are the CLI's.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, get, post
from litestar.response import Template
from sqlalchemy import select

from sleuth_shell.admin import AdminError, add_webhook
from sleuth_shell.db.models import WebhookSubscription
from sleuth_shell.domain import SUBSCRIPTION_TYPES
from sleuth_shell.urls import ingest_url
from sleuth_shell.web.guard import (
    PAGE_OPTIONS,
    Viewer,
    ViewerDep,
    form_data,
    page,
    require_admin_viewer,
)

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
        rows = (
            await session.scalars(
                select(WebhookSubscription)
                .where(WebhookSubscription.org_id == viewer.org_id)
                .order_by(WebhookSubscription.id)
            )
        ).all()
    return page(
        "webhooks.html",
        viewer,
        "agents",
        status_code=400 if error else 200,
        title="Webhook subscriptions",
        subscriptions=[(row, ingest_url(public_url, row.type, row.remote_id)) for row in rows],
        types=SUBSCRIPTION_TYPES,
        form=form or {"type": "GENERIC", "name": "", "provider_secret": "", "service": ""},
        error=error,
        created=created,
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
            await session.rollback()
            return await _page(request, viewer, form=form, error=str(exc))
        created = {
            "name": row.name,
            "type": row.type,
            "secret": row.secret,
            "ingest_url": ingest_url(
                request.app.state.settings.public_url, row.type, row.remote_id
            ),
        }
    return await _page(request, viewer, created=created)


ROUTES: list[Any] = [webhooks_page, add_webhook_subscription]
