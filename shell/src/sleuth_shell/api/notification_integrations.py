"""``GET /api/v1/notification-integrations``: alt webhooks and chat channels to notify."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec
from litestar import get
from litestar.params import FromQuery
from sqlalchemy import select

from sleuth_core.ids import encode_global_id
from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.db.models import NotificationIntegration
from sleuth_shell.errors import error_responses

GLOBAL_TYPE = "NotificationIntegration"


class NotificationIntegrationItem(msgspec.Struct):
    """One notification integration."""

    id: str
    name: str
    kind: str
    created_at: datetime


class NotificationIntegrationList(msgspec.Struct):
    notification_integrations: list[NotificationIntegrationItem]


def integration_item(row: NotificationIntegration) -> NotificationIntegrationItem:
    """The API shape of an integration row."""
    return NotificationIntegrationItem(
        id=encode_global_id(GLOBAL_TYPE, row.id),
        name=row.name,
        kind=row.kind,
        created_at=row.created_at,
    )


@get(
    "/notification-integrations",
    operation_id="listNotificationIntegrations",
    responses=error_responses(),
    tags=["alert agents"],
)
async def list_notification_integrations(
    principal: CurrentPrincipal,
    db_session: DbSession,
    kind: FromQuery[Literal["ALT_WEBHOOK", "CHAT_ALERT"] | None] = None,
) -> NotificationIntegrationList:
    """List the notification integrations, optionally only those of one ``kind``."""
    query = select(NotificationIntegration).where(
        NotificationIntegration.org_id == principal.org_id
    )
    if kind is not None:
        query = query.where(NotificationIntegration.kind == kind)
    rows = await db_session.scalars(query.order_by(NotificationIntegration.id))
    return NotificationIntegrationList(
        notification_integrations=[integration_item(r) for r in rows]
    )


ROUTES = [list_notification_integrations]
