"""One chat message in: chat alert agents open investigations, a chat trigger queues a reply.

A message counts only when it is top level (no ``thread_ts``, or ``thread_ts == ts``); for the
platform's own deliveries :func:`sleuth_core.intake.parse_chat_event` has already dropped edits,
deletions, joins, thread replies and the app's own messages.

- **Chat alert agents**: a message in a channel that chat agents watch is stored in the alert log
  (source ``CHAT`` and the channel) with one decision per agent of the channel, by the path the
  webhook intake takes (:func:`~sleuth_shell.alerts.decisions.record_alerts`: suppressions,
  ``on_request``, grouping, budgets and caps apply alike). An agent "matches" when its
  ``chat_bot_app_user_id`` (when set) is one of the sender's ids and its criteria match the
  message text (core :func:`~sleuth_core.matching.matches`); a matched ACTIVE agent opens an
  investigation: name = the message's first line (at most 200 characters), ``event_payload`` =
  the body as received, dedup key = the message's identity (the same message delivered twice
  opens one investigation). Messages in channels no agent watches are not stored.
- **Chat triggers**: the first assignment of the advanced settings that fires for the message
  (core :func:`~sleuth_core.settings.triggered_assignments`, document order) queues one
  ``chat.trigger`` job (:mod:`.triggers`), which decides and posts the reply in the message's
  thread. One message gets at most one reply.

Everything is written in the caller's transaction; the caller commits.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.ids import encode_global_id
from sleuth_core.intake import AlertEvent, ChatEvent
from sleuth_core.matching import matches
from sleuth_shell.alerts.decisions import NewAlert, record_alerts
from sleuth_shell.chat.triggers import queue_trigger_reply
from sleuth_shell.db.models import AlertResponder
from sleuth_shell.investigations import investigation_name

__all__ = [
    "ChatOutcome",
    "IncomingMessage",
    "handle_message",
    "message_from_event",
    "message_from_request",
]


@dataclass(frozen=True)
class IncomingMessage:
    """A chat message as the intake needs it, whichever way it arrived.

    ``text`` is what triggers read and the filter agent classifies; ``match_text`` what agents'
    criteria are matched against (the text plus attachments and blocks for platform deliveries);
    ``sender_ids`` the sender's user, bot and app ids; ``ts`` the message's own timestamp (the
    reply's ``thread_ts``), None when the caller gave none.
    """

    channel_id: str
    text: str
    match_text: str
    name: str
    sender_ids: frozenset[str]
    ts: str | None
    thread_ts: str | None
    dedup_key: str
    event_payload: str

    @property
    def top_level(self) -> bool:
        """Not a reply inside a thread."""
        return self.thread_ts is None or self.thread_ts == self.ts


@dataclass(frozen=True)
class ChatOutcome:
    """What a message started: investigation Global IDs and the number of replies queued."""

    investigation_ids: list[str]
    replies: int

    def as_json(self) -> dict[str, Any]:
        """The ``202`` body: ``{"investigation_ids": [...], "replies": n}``."""
        return {"investigation_ids": list(self.investigation_ids), "replies": self.replies}


def _clean(value: str) -> str:
    """No NUL characters (PostgreSQL refuses them in text)."""
    return value.replace("\x00", "")


def message_from_event(event: ChatEvent, body: str) -> IncomingMessage:
    """The message of a platform delivery (``event.kind`` must be ``message``)."""
    return IncomingMessage(
        channel_id=_clean(event.channel_id),
        text=_clean(event.text or event.match_text),
        match_text=_clean(event.match_text),
        name=event.name,
        sender_ids=event.sender_ids,
        ts=_clean(event.ts) or None,
        thread_ts=_clean(event.thread_ts) if event.thread_ts is not None else None,
        dedup_key=_clean(event.dedup_key)[:255],
        event_payload=body,
    )


def message_from_request(
    *,
    channel_id: str,
    text: str,
    bot_app_user_id: str | None,
    ts: str | None,
    thread_ts: str | None,
    body: str,
) -> IncomingMessage:
    """The message of a ``POST /chat/events`` body.

    ``bot_app_user_id`` is the sender id an agent's ``chat_bot_app_user_id`` is compared with
    (DESIGN 4; the body's ``user_id`` is kept in the event payload only). The dedup key is
    ``chat:<channel>:<ts>``, or, without ``ts``, ``chat:<channel>:sha256:<hex of the text>``:
    the same text in the same channel is one alert.
    """
    identity = ts or "sha256:" + hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()
    return IncomingMessage(
        channel_id=channel_id,
        text=text,
        match_text=text,
        name=investigation_name(text) if text.strip() else "Chat message",
        sender_ids=frozenset(i for i in (bot_app_user_id,) if i),
        ts=ts or None,
        thread_ts=thread_ts or None,
        dedup_key=f"chat:{channel_id}:{identity}"[:255],
        event_payload=body,
    )


async def handle_message(
    session: AsyncSession, *, org_id: int, message: IncomingMessage, now: datetime
) -> ChatOutcome:
    """Run the chat alert agents and chat triggers of ``org_id`` on ``message``."""
    if not message.top_level:
        return ChatOutcome([], 0)
    agents = (
        await session.scalars(
            select(AlertResponder)
            .where(
                AlertResponder.org_id == org_id,
                AlertResponder.chat_channel_id == message.channel_id,
                AlertResponder.status.in_(("ACTIVE", "PAUSED")),
            )
            .order_by(AlertResponder.id)
        )
    ).all()
    ids: list[str] = []
    if agents:
        matched = tuple(
            agent.id
            for agent in agents
            if (not agent.chat_bot_app_user_id or agent.chat_bot_app_user_id in message.sender_ids)
            and matches(agent.match_rules, message.match_text)
        )
        event = AlertEvent(
            source="GENERIC",
            kind="new_alert",
            event_type="chat message",
            title=investigation_name(message.name),
            description="",
            service="",
            severity="",
            tags=(),
            dedup_key=message.dedup_key,
            delivery_id=message.dedup_key,
            occurred_at=now,
            url=None,
            match_text=message.match_text,
        )
        (decided,) = await record_alerts(
            session,
            [
                NewAlert(
                    org_id=org_id,
                    subscription_id=None,
                    source=("CHAT", message.channel_id),
                    event=event,
                    payload=message.event_payload,
                    subscribed=tuple(agent.id for agent in agents),
                    matched=matched,
                    now=now,
                )
            ],
        )
        for row in decided:
            if row.investigation_id is not None:
                gid = encode_global_id("Investigation", row.investigation_id)
                if gid not in ids:
                    ids.append(gid)
    replies = await queue_trigger_reply(
        session, org_id=org_id, channel_id=message.channel_id, text=message.text, ts=message.ts
    )
    return ChatOutcome(ids, replies)
