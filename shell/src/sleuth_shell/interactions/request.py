"""Validation of ``POST /api/v1/interactions`` bodies, with the SPEC's four 400 details.

:func:`parse_interaction_request` takes the decoded JSON body and the current time and returns an
:class:`InteractionRequest`, or raises :class:`InvalidInteraction` with ``detail`` exactly one of

- ``Invalid question``: missing, not a string, or blank;
- ``Context must be a list``: ``context`` present (not null) and not an array;
- ``Invalid callback_url: <url>``: ``notifications.web.callback_url`` is not an absolute http(s)
  URL (the address check happens later, in :mod:`sleuth_shell.notify.urls`);
- ``Invalid payload``: anything else (not an object, wrong types, both ``scheduled_runtime`` and
  ``scheduled_runtimes``, a runtime in the past or over 24 h ahead, more than 10 runtimes, a chat
  channel ID not starting with C or G, a malformed context item or alt webhook URL, bad headers).

Checks run in that order: the body shape, ``question``, ``context``, the other members, and last
the callback URL, so a request with several problems always gets the same answer. A member the
request does not define (a misspelled ``notifcations``, at the top level or inside ``notifications``
or a context item) is ``Invalid payload``, never silently ignored. JSON ``null`` counts as absent
for every optional member.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sleuth_shell.domain import is_channel_id
from sleuth_shell.notify.urls import UnsafeURL, parse_http_url

__all__ = [
    "BODY_MEMBERS",
    "MAX_CONTEXT_ITEMS",
    "MAX_RUNTIMES",
    "MAX_SCHEDULE_AHEAD",
    "ContextItem",
    "InteractionRequest",
    "InvalidInteraction",
    "Notifications",
    "parse_interaction_request",
]

INVALID_PAYLOAD = "Invalid payload"
INVALID_QUESTION = "Invalid question"
CONTEXT_NOT_LIST = "Context must be a list"

#: At most this many entries in ``scheduled_runtimes``.
MAX_RUNTIMES = 10
#: A runtime may be at most this far ahead of now.
MAX_SCHEDULE_AHEAD = timedelta(hours=24)
#: At most this many context items per request.
MAX_CONTEXT_ITEMS = 100
#: At most this many chat channels / alt webhook URLs per request.
MAX_TARGETS = 20
#: Longest accepted ``user_id``.
MAX_USER_ID_LENGTH = 255

#: The members of the request body, of a context item, and of ``notifications`` and its parts.
BODY_MEMBERS = frozenset(
    {
        "question",
        "context",
        "user_id",
        "use_tools",
        "async",
        "scheduled_runtimes",
        "scheduled_runtime",
        "notifications",
    }
)
CONTEXT_MEMBERS = frozenset({"interaction_id", "content"})
NOTIFICATION_MEMBERS = frozenset({"chat", "alt", "web"})
CHAT_MEMBERS = frozenset({"chat_channel_ids"})
ALT_MEMBERS = frozenset({"alt_webhook_urls"})
WEB_MEMBERS = frozenset({"callback_url", "custom_headers"})

_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$")


class InvalidInteraction(ValueError):
    """The request body is not acceptable; ``detail`` is the 400 ``detail`` to answer with."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


@dataclass(frozen=True)
class ContextItem:
    """One context item: an earlier interaction to continue, and/or a user message."""

    interaction_id: str | None
    content: str | None

    def to_json(self) -> dict[str, str]:
        """The stored form (only the members that are set)."""
        item: dict[str, str] = {}
        if self.interaction_id is not None:
            item["interaction_id"] = self.interaction_id
        if self.content is not None:
            item["content"] = self.content
        return item


@dataclass(frozen=True)
class Notifications:
    """Where results go besides the API: chat channels, alt webhooks, a callback."""

    chat_channel_ids: tuple[str, ...] = ()
    alt_webhook_urls: tuple[str, ...] = ()
    callback_url: str | None = None
    custom_headers: dict[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        """The stored form (``interactions.notifications``), omitting empty members."""
        doc: dict[str, Any] = {}
        if self.chat_channel_ids:
            doc["chat"] = {"chat_channel_ids": list(self.chat_channel_ids)}
        if self.alt_webhook_urls:
            doc["alt"] = {"alt_webhook_urls": list(self.alt_webhook_urls)}
        if self.callback_url is not None:
            web: dict[str, Any] = {"callback_url": self.callback_url}
            if self.custom_headers:
                web["custom_headers"] = dict(self.custom_headers)
            doc["web"] = web
        return doc


@dataclass(frozen=True)
class InteractionRequest:
    """A validated create request. ``runtimes`` are aware UTC datetimes (empty: run now)."""

    question: str
    context: tuple[ContextItem, ...] = ()
    user_id: str | None = None
    use_tools: bool = True
    run_async: bool = False
    runtimes: tuple[datetime, ...] = ()
    legacy_runtime: bool = False
    """True when the deprecated singular ``scheduled_runtime`` was used (legacy response shape)."""
    notifications: Notifications = field(default_factory=Notifications)

    @property
    def mode(self) -> str:
        """``sync``, ``background`` (callback or ``async: true``) or ``scheduled``."""
        if self.runtimes:
            return "scheduled"
        if self.notifications.callback_url is not None or self.run_async:
            return "background"
        return "sync"


def _payload_error() -> InvalidInteraction:
    return InvalidInteraction(INVALID_PAYLOAD)


def _known(value: dict[str, Any], members: frozenset[str]) -> dict[str, Any]:
    if not members.issuperset(value):
        raise _payload_error()
    return value


def _optional(body: dict[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise _payload_error()
    return value


def _runtime(value: Any, now: datetime) -> datetime:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _payload_error()
    try:
        moment = datetime.fromtimestamp(value, UTC)
    except (OverflowError, OSError, ValueError):
        raise _payload_error() from None
    if moment <= now or moment > now + MAX_SCHEDULE_AHEAD:
        raise _payload_error()
    return moment


def _context(value: Any) -> tuple[ContextItem, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise InvalidInteraction(CONTEXT_NOT_LIST)
    if len(value) > MAX_CONTEXT_ITEMS:
        raise _payload_error()
    items: list[ContextItem] = []
    for raw in value:
        if not isinstance(raw, dict):
            raise _payload_error()
        _known(raw, CONTEXT_MEMBERS)
        interaction_id = _optional(raw, "interaction_id", str)
        content = _optional(raw, "content", str)
        if interaction_id is not None and not interaction_id.strip():
            raise _payload_error()
        if interaction_id is None and content is None:
            raise _payload_error()
        items.append(ContextItem(interaction_id=interaction_id, content=content))
    return tuple(items)


def _string_list(value: Any, *, valid: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > MAX_TARGETS:
        raise _payload_error()
    for item in value:
        if not isinstance(item, str) or not valid(item):
            raise _payload_error()
    return tuple(dict.fromkeys(value))


def _is_http_url(value: str) -> bool:
    try:
        parse_http_url(value)
    except UnsafeURL:
        return False
    return True


def _headers(value: Any) -> dict[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _payload_error()
    headers: dict[str, str] = {}
    for name, text in value.items():
        if not isinstance(text, str) or not _HEADER_NAME.match(name):
            raise _payload_error()
        if any(ch in text for ch in "\r\n\x00") or len(text) > 8192:
            raise _payload_error()
        headers[name] = text
    return headers


def _notifications(value: Any) -> tuple[Notifications, Any]:
    """Parse ``notifications``; the callback URL comes back unchecked (it is checked last)."""
    if value is None:
        return Notifications(), None
    if not isinstance(value, dict):
        raise _payload_error()
    _known(value, NOTIFICATION_MEMBERS)
    chat = _known(_optional(value, "chat", dict) or {}, CHAT_MEMBERS)
    alt = _known(_optional(value, "alt", dict) or {}, ALT_MEMBERS)
    web = _known(_optional(value, "web", dict) or {}, WEB_MEMBERS)
    channels = _string_list(chat.get("chat_channel_ids"), valid=is_channel_id)
    alt_urls = _string_list(alt.get("alt_webhook_urls"), valid=_is_http_url)
    callback_url = web.get("callback_url")
    if callback_url is not None and not isinstance(callback_url, str):
        raise _payload_error()
    headers = _headers(web.get("custom_headers"))
    notifications = Notifications(
        chat_channel_ids=channels,
        alt_webhook_urls=alt_urls,
        callback_url=callback_url,
        custom_headers=headers if callback_url is not None else None,
    )
    return notifications, callback_url


def _holds_nul(value: Any) -> bool:
    """Whether any string in the decoded JSON ``value`` (keys included) holds a NUL character."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_nul(v) for v in value)
    return False


def parse_interaction_request(body: Any, now: datetime) -> InteractionRequest:
    """Validate a decoded request body at time ``now`` (aware). See the module docstring.

    A NUL character in any string is ``Invalid payload``: PostgreSQL cannot store one.
    """
    if not isinstance(body, dict) or _holds_nul(body):
        raise _payload_error()
    question = body.get("question")
    if not isinstance(question, str) or not question.strip():
        raise InvalidInteraction(INVALID_QUESTION)
    context = _context(body.get("context"))
    _known(body, BODY_MEMBERS)
    user_id = _optional(body, "user_id", str)
    if user_id is not None and len(user_id) > MAX_USER_ID_LENGTH:
        raise _payload_error()
    use_tools = _optional(body, "use_tools", bool)
    run_async = _optional(body, "async", bool)

    plural = body.get("scheduled_runtimes")
    singular = body.get("scheduled_runtime")
    if plural is not None and singular is not None:
        raise _payload_error()
    runtimes: tuple[datetime, ...] = ()
    if plural is not None:
        if not isinstance(plural, list) or len(plural) > MAX_RUNTIMES:
            raise _payload_error()
        runtimes = tuple(_runtime(value, now) for value in plural)
    elif singular is not None:
        runtimes = (_runtime(singular, now),)

    notifications, callback_url = _notifications(body.get("notifications"))
    if callback_url is not None and not _is_http_url(callback_url):
        raise InvalidInteraction(f"Invalid callback_url: {callback_url}")
    return InteractionRequest(
        question=question,
        context=context,
        user_id=user_id,
        use_tools=True if use_tools is None else use_tools,
        run_async=bool(run_async),
        runtimes=runtimes,
        legacy_runtime=singular is not None,
        notifications=notifications,
    )
