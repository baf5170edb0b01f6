"""``GET /api/v1/chat/messages?channel_id=C...``: the embedded chat client's outbox."""

from __future__ import annotations

from typing import Any

from litestar import get
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromQuery

from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.api.interactions import ErrorBody
from sleuth_shell.domain import is_channel_id
from sleuth_shell.errors import bad_request
from sleuth_shell.notify.chat import list_outbox

__all__ = ["ROUTES"]


@get(
    "/chat/messages",
    operation_id="listChatMessages",
    tags=["chat"],
    responses={
        400: ResponseSpec(
            data_container=ErrorBody,
            description="Missing or bad channel_id",
            generate_examples=False,
        )
    },
)
async def list_chat_messages(
    principal: CurrentPrincipal,
    db_session: DbSession,
    channel_id: FromQuery[str | None] = None,
) -> dict[str, Any]:
    """The messages Sleuth posted to one chat channel, oldest first (the newest 100)."""
    if channel_id is None or not channel_id.strip():
        raise bad_request("channel_id is required")
    if not is_channel_id(channel_id):
        raise bad_request(f"Invalid channel_id: {channel_id}")
    messages = await list_outbox(db_session, principal.org_id, channel_id)
    return {"messages": messages}


ROUTES = [list_chat_messages]
