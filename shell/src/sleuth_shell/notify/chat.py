"""The chat platform seam and its embedded implementation, the chat outbox.

Sleuth posts chat notifications through a :class:`ChatClient`. The embedded default,
:class:`OutboxChatClient`, stores each message as a ``chat_messages`` row that
``GET /api/v1/chat/messages?channel_id=...`` lists, so a self-hosted Sleuth works (and is testable)
without a chat workspace.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.db.models import ChatMessage, utcnow

__all__ = [
    "ChatClient",
    "OutboxChatClient",
    "list_outbox",
]


class ChatClient(Protocol):
    """Posts a message to a chat channel (optionally in a thread)."""

    async def post_message(
        self, session: AsyncSession, org_id: int, channel_id: str, text: str, thread_ts: str | None
    ) -> None:
        """Post ``text`` to ``channel_id`` within ``session``'s transaction (the caller commits)."""
        ...


class OutboxChatClient:
    """The embedded chat client: messages go to the ``chat_messages`` outbox table."""

    async def post_message(
        self, session: AsyncSession, org_id: int, channel_id: str, text: str, thread_ts: str | None
    ) -> None:
        """Append the message to the outbox."""
        session.add(
            ChatMessage(
                org_id=org_id,
                channel_id=channel_id,
                text=text,
                thread_ts=thread_ts,
                created_at=utcnow(),
            )
        )
        await session.flush()


def _iso(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


async def list_outbox(
    session: AsyncSession, org_id: int, channel_id: str, *, limit: int = 100
) -> list[dict[str, str | None]]:
    """The newest ``limit`` outbox messages of one channel, oldest first, in the API shape."""
    rows = (
        await session.scalars(
            select(ChatMessage)
            .where(ChatMessage.org_id == org_id, ChatMessage.channel_id == channel_id)
            .order_by(ChatMessage.id.desc())
            .limit(limit)
        )
    ).all()
    return [
        {
            "channel_id": row.channel_id,
            "text": row.text,
            "thread_ts": row.thread_ts,
            "created_at": _iso(row.created_at),
        }
        for row in reversed(rows)
    ]
