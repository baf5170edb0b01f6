"""Chat platform deliveries: the Slack-style Events API envelope (INTEGRATIONS 5).

:func:`parse_chat_event` reads one delivery to ``POST /webhooks/CHAT/{remote_id}`` and returns a
:class:`ChatChallenge` (answer ``url_verification`` with it) or a :class:`ChatEvent` whose
``kind`` says whether the message counts. Only top-level messages count: edits, deletions, joins
and other subtypes, thread replies and the app's own messages are ``ignored`` with a reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sleuth_core.errors import InvalidAlertPayload
from sleuth_core.intake._values import (
    MAX_TITLE_LENGTH,
    body_digest,
    first_text,
    get,
    load_object,
    parse_time,
    text,
)

ChatKind = Literal["message", "ignored"]

#: Message subtypes that are still a new message: a plain one has no subtype; other bots post
#: ``bot_message``; a thread reply also sent to the channel is ``thread_broadcast``.
COUNTED_SUBTYPES = frozenset({"", "bot_message", "thread_broadcast"})


@dataclass(frozen=True, slots=True)
class ChatChallenge:
    """A ``url_verification`` handshake: answer 200 with ``challenge``."""

    challenge: str


@dataclass(frozen=True, slots=True)
class ChatEvent:
    """One ``event_callback`` delivery.

    - ``kind``: ``message`` when it is a new top-level message, else ``ignored`` (``reason`` says
      why: ``not a message``, ``subtype message_changed``, ``thread reply``, ``own message``...).
    - ``event_id``: the delivery id, the same on the platform's retries (``sha256:<hex>`` of the
      body when absent).
    - ``dedup_key``: ``chat:<team>:<channel>:<ts>``, the message's identity (a message delivered
      both as ``message`` and ``app_mention`` has one key).
    - ``sender_ids``: the sender's user id, bot id and app ids, to compare with an agent's
      ``chat_bot_app_user_id``.
    - ``name``: the message's first line, at most 200 characters (an investigation's name).
    - ``match_text``: the message text plus the text of its attachments and blocks.
    """

    kind: ChatKind
    reason: str
    event_id: str
    team_id: str
    channel_id: str
    ts: str
    thread_ts: str | None
    user_id: str
    sender_ids: frozenset[str]
    text: str
    name: str
    dedup_key: str
    occurred_at: datetime
    match_text: str


def parse_chat_event(body: bytes | str, *, received_at: datetime) -> ChatChallenge | ChatEvent:
    """Read one Events API delivery. ``received_at`` is used when the message has no ``ts``.

    Raises :class:`~sleuth_core.errors.InvalidAlertPayload` when the body is not a JSON object,
    has no known ``type``, a handshake has no challenge, or an ``event_callback`` has no event.
    """
    payload, _raw = load_object(body, "CHAT")
    envelope_type = text(payload.get("type"))
    if envelope_type == "url_verification":
        challenge = payload.get("challenge")
        if not isinstance(challenge, str) or not challenge:
            raise InvalidAlertPayload("CHAT payload has no challenge")
        return ChatChallenge(challenge)
    if envelope_type != "event_callback":
        raise InvalidAlertPayload("CHAT payload type must be url_verification or event_callback")
    event = payload.get("event")
    if not isinstance(event, dict):
        raise InvalidAlertPayload('CHAT payload has no "event" object')
    return _read_event(payload, event, received_at, body)


def _read_event(
    payload: dict[str, Any], event: dict[str, Any], received_at: datetime, body: bytes | str
) -> ChatEvent:
    team_id = first_text(payload.get("team_id"), event.get("team"))
    channel_id = text(event.get("channel"))
    ts = first_text(event.get("ts"), event.get("event_ts"))
    thread_ts = text(event.get("thread_ts")) or None
    subtype = text(event.get("subtype"))
    user_id = text(event.get("user"))
    sender_ids = frozenset(
        found
        for found in (
            user_id,
            text(event.get("bot_id")),
            text(event.get("app_id")),
            text(get(event, "bot_profile", "app_id")),
        )
        if found
    )
    raw_text = event.get("text")
    message_text = raw_text if isinstance(raw_text, str) else ""
    extra = _attachment_texts(event)
    reason = _ignored_reason(payload, event, subtype, channel_id, ts, thread_ts, user_id)
    name_source = message_text.strip() or next((line for line in extra if line.strip()), "")
    first_line = name_source.strip().splitlines()[0].strip() if name_source.strip() else ""
    return ChatEvent(
        kind="ignored" if reason else "message",
        reason=reason,
        event_id=text(payload.get("event_id")) or body_digest(body),
        team_id=team_id,
        channel_id=channel_id,
        ts=ts,
        thread_ts=thread_ts,
        user_id=user_id,
        sender_ids=sender_ids,
        text=message_text,
        name=(first_line or "Chat message")[:MAX_TITLE_LENGTH].rstrip(),
        dedup_key=f"chat:{team_id}:{channel_id}:{ts}",
        occurred_at=parse_time(ts) or parse_time(payload.get("event_time")) or received_at,
        match_text="\n".join([message_text, *extra]).strip(),
    )


def _ignored_reason(
    payload: dict[str, Any],
    event: dict[str, Any],
    subtype: str,
    channel_id: str,
    ts: str,
    thread_ts: str | None,
    user_id: str,
) -> str:
    if text(event.get("type")) not in {"message", "app_mention"}:
        return "not a message"
    if subtype not in COUNTED_SUBTYPES:
        return f"subtype {subtype}"
    if not channel_id or not ts:
        return "no channel or ts"
    if thread_ts is not None and thread_ts != ts and subtype != "thread_broadcast":
        return "thread reply"
    own_app = text(payload.get("api_app_id"))
    app_ids = {text(event.get("app_id")), text(get(event, "bot_profile", "app_id"))}
    authorizations = payload.get("authorizations")
    own_users = {
        text(get(entry, "user_id"))
        for entry in (authorizations if isinstance(authorizations, list) else [])
        if get(entry, "is_bot") is True
    }
    if (own_app and own_app in app_ids) or (user_id and user_id in own_users):
        return "own message"
    return ""


def _attachment_texts(event: dict[str, Any]) -> list[str]:
    """Text of ``attachments`` (pretext, title, text, fallback, field values) and ``blocks``."""
    found: list[str] = []
    attachments = event.get("attachments")
    for attachment in attachments if isinstance(attachments, list) else []:
        if not isinstance(attachment, dict):
            continue
        for key in ("pretext", "title", "text", "fallback"):
            value = attachment.get(key)
            if isinstance(value, str) and value.strip():
                found.append(value)
        fields = attachment.get("fields")
        for field in fields if isinstance(fields, list) else []:
            value = get(field, "value")
            if isinstance(value, str) and value.strip():
                found.append(value)
        _block_texts(attachment.get("blocks"), found, 0)
    _block_texts(event.get("blocks"), found, 0)
    message = event.get("text")
    seen = {message.strip()} if isinstance(message, str) else set()
    unique: list[str] = []
    for item in found:  # blocks usually repeat the text; keep each text once
        if item.strip() not in seen:
            seen.add(item.strip())
            unique.append(item)
    return unique


def _block_texts(value: object, found: list[str], depth: int) -> None:
    """Collect ``text`` strings of section/rich_text/context blocks, depth-bounded."""
    if depth > 16:
        return
    if isinstance(value, list):
        for item in value:
            _block_texts(item, found, depth + 1)
    elif isinstance(value, dict):
        if text(value.get("type")) in {"actions", "image", "button"}:
            return
        inner = value.get("text")
        if isinstance(inner, str) and inner.strip():
            found.append(inner)
        else:
            _block_texts(inner, found, depth + 1)
        for key in ("elements", "fields"):
            _block_texts(value.get(key), found, depth + 1)
