"""``GET /api/v1/webhook-subscriptions``: the organization's inbound webhook sources."""

from __future__ import annotations

import msgspec
from litestar import get
from sqlalchemy import select

from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.db.models import WebhookSubscription
from sleuth_shell.errors import error_responses


class WebhookSubscriptionItem(msgspec.Struct):
    """One webhook subscription (its secret is never listed)."""

    type: str
    remote_id: str
    name: str


class WebhookSubscriptionList(msgspec.Struct):
    webhook_subscriptions: list[WebhookSubscriptionItem]


@get(
    "/webhook-subscriptions",
    operation_id="listWebhookSubscriptions",
    responses=error_responses(),
    tags=["alert agents"],
)
async def list_webhook_subscriptions(
    principal: CurrentPrincipal, db_session: DbSession
) -> WebhookSubscriptionList:
    """List the webhook subscriptions: valid ``webhook_sources`` for alert agents."""
    rows = await db_session.scalars(
        select(WebhookSubscription)
        .where(WebhookSubscription.org_id == principal.org_id)
        .order_by(WebhookSubscription.id)
    )
    return WebhookSubscriptionList(
        webhook_subscriptions=[
            WebhookSubscriptionItem(type=row.type, remote_id=row.remote_id, name=row.name)
            for row in rows
        ]
    )


ROUTES = [list_webhook_subscriptions]
