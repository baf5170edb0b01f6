"""The chat platform seam and its two implementations: the chat outbox and the Web API.

Sleuth posts chat notifications through a :class:`ChatClient`; :func:`chat_client_for` picks one
from the settings:

- :class:`OutboxChatClient` (the default, no ``SLEUTH_CHAT_BOT_TOKEN``) stores each message as a
  ``chat_messages`` row that ``GET /api/v1/chat/messages?channel_id=...`` lists, so a self-hosted
  Sleuth works (and is testable) without a chat workspace.
- :class:`WebApiChatClient` (``SLEUTH_CHAT_BOT_TOKEN`` set) calls the platform's
  ``chat.postMessage`` at ``SLEUTH_CHAT_API_URL`` through the outbound HTTP seam
  (:class:`~sleuth_shell.notify.http.HttpPoster`). It retries a few times in process (429 after
  ``Retry-After``, network errors, 5xx and the platform's transient errors, with backoff) and then
  raises :class:`ChatDeliveryError`, which says whether a later attempt may succeed; the
  ``notify.chat`` job turns that into a durable retry or a recorded failure.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.db.models import ChatMessage, utcnow
from sleuth_shell.notify.http import DeliveryNetworkError, HttpPoster, PostResult

if TYPE_CHECKING:
    from sleuth_shell.config import Settings

__all__ = [
    "TRANSIENT_API_ERRORS",
    "ChatClient",
    "ChatDeliveryError",
    "OutboxChatClient",
    "WebApiChatClient",
    "chat_client_for",
    "list_outbox",
]

log = logging.getLogger("sleuth.notify.chat")

#: ``{"ok": false, "error": ...}`` codes worth retrying; every other code is permanent (a bad
#: channel, token, scope or message: ``channel_not_found``, ``not_in_channel``, ``is_archived``,
#: ``invalid_auth``, ``msg_too_long``, ...), since sending the same request again cannot fix it.
TRANSIENT_API_ERRORS = frozenset(
    {
        "ratelimited",
        "rate_limited",
        "internal_error",
        "fatal_error",
        "service_unavailable",
        "request_timeout",
    }
)


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


class ChatDeliveryError(Exception):
    """A chat message could not be posted. ``permanent`` is False when a later attempt may work;
    ``retry_after`` (seconds) is the platform's requested wait, when it gave one."""

    def __init__(self, message: str, *, permanent: bool, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.permanent = permanent
        self.retry_after = retry_after


def _retry_after(result: PostResult, default: float) -> float:
    """The ``Retry-After`` seconds of a response (``default`` when absent or not a number)."""
    value = result.headers.get("retry-after", "").strip()
    try:
        seconds = float(value)
    except ValueError:
        return default
    return seconds if seconds >= 0 else default


class WebApiChatClient:
    """Posts through the chat platform's Web API ``chat.postMessage`` (JSON, Bearer token).

    The body is ``{"channel", "text", "mrkdwn": true, "unfurl_links": false}`` plus ``thread_ts``
    for a thread reply; ``text`` is already the platform's mrkdwn (core ``to_chat``). Up to
    ``attempts`` requests per call: after a 429 it waits ``Retry-After`` seconds (1 when missing)
    unless that is longer than ``max_wait``, in which case it gives up at once and reports the wait
    in :attr:`ChatDeliveryError.retry_after`; network errors, 5xx answers, bodies that are not
    JSON and :data:`TRANSIENT_API_ERRORS` wait ``backoff * 2**n`` seconds. Other ``ok: false``
    errors and other 4xx/3xx answers fail at once as permanent. ``sleep`` is injectable for tests.
    """

    def __init__(
        self,
        token: str,
        poster: HttpPoster,
        *,
        base_url: str = "https://slack.com/api",
        attempts: int = 3,
        backoff: float = 0.5,
        max_wait: float = 10.0,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        self._token = token
        self._poster = poster
        self.url = base_url.rstrip("/") + "/chat.postMessage"
        self._attempts = attempts
        self._backoff = backoff
        self._max_wait = max_wait
        self._sleep = sleep

    def request_body(self, channel_id: str, text: str, thread_ts: str | None) -> bytes:
        """The exact JSON body sent for one message."""
        body: dict[str, object] = {
            "channel": channel_id,
            "text": text,
            "mrkdwn": True,
            "unfurl_links": False,
        }
        if thread_ts is not None:
            body["thread_ts"] = thread_ts
        return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    async def post_message(
        self, session: AsyncSession, org_id: int, channel_id: str, text: str, thread_ts: str | None
    ) -> None:
        """Post the message, retrying transient failures; raise :class:`ChatDeliveryError`."""
        body = self.request_body(channel_id, text, thread_ts)
        headers = {
            "Authorization": f"Bearer {self._token}",
            "Content-Type": "application/json; charset=utf-8",
        }
        where = f"chat.postMessage to {channel_id} (org {org_id})"
        problem = ""
        retry_after: float | None = None
        for attempt in range(1, self._attempts + 1):
            wait = self._backoff * 2 ** (attempt - 1)
            retry_after = None
            try:
                result = await self._poster.post(self.url, content=body, headers=headers)
            except DeliveryNetworkError as exc:
                problem = f"network error: {exc}"
            else:
                status = result.status_code
                if status == 429:
                    retry_after = wait = _retry_after(result, 1.0)
                    problem = f"rate limited (HTTP 429, Retry-After {wait:g} s)"
                elif status >= 500:
                    problem = f"HTTP {status}"
                elif not 200 <= status < 300:
                    raise self._permanent(where, f"HTTP {status}: {result.body_excerpt}")
                else:
                    try:
                        answer = json.loads(result.text)
                    except ValueError:
                        answer = None
                    if not isinstance(answer, dict):
                        problem = f"HTTP {status} with a body that is not a JSON object"
                    elif answer.get("ok") is True:
                        return
                    else:
                        error = str(answer.get("error") or "unknown_error")
                        if error not in TRANSIENT_API_ERRORS:
                            raise self._permanent(where, f"error {error}")
                        problem = f"error {error}"
                        if "retry-after" in result.headers:
                            retry_after = wait = _retry_after(result, wait)
            if attempt == self._attempts or (retry_after is not None and wait > self._max_wait):
                break
            log.info(
                "%s failed (%s); attempt %d again in %.2f s", where, problem, attempt + 1, wait
            )
            await self._sleep(wait)
        log.warning("%s failed, will be retried later: %s", where, problem)
        raise ChatDeliveryError(
            f"{where} failed: {problem}", permanent=False, retry_after=retry_after
        )

    @staticmethod
    def _permanent(where: str, problem: str) -> ChatDeliveryError:
        log.warning("%s failed for good: %s", where, problem)
        return ChatDeliveryError(f"{where} failed: {problem}", permanent=True)


def chat_client_for(settings: Settings, poster: HttpPoster) -> ChatClient:
    """The configured chat client: the Web API with ``SLEUTH_CHAT_BOT_TOKEN``, else the outbox."""
    if settings.chat_bot_token:
        return WebApiChatClient(settings.chat_bot_token, poster, base_url=settings.chat_api_url)
    return OutboxChatClient()


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
