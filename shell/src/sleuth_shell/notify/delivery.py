"""Notification deliveries as durable jobs: one job per target, retried with backoff.

Job kinds (register them with :func:`register_notification_jobs`):

``notify.web``
    The result callback of an interaction: POST ``{interaction_id, question, content, sources}`` to
    ``notifications.web.callback_url`` with the ``custom_headers`` given at creation, else
    ``X-Service-Org-Api-Key: <the key that created the interaction>``, plus
    ``X-Service-Signature`` and ``X-Service-Timestamp`` (:mod:`sleuth_shell.notify.signing`).
    The plain key is read from ``interactions.callback_api_key`` and wiped from there once the
    delivery succeeded or failed for good.
``notify.alt``
    POST a card message (JSON) to an alt incoming-webhook URL, signed like callbacks
    (``X-Service-Signature`` with the organization's signing secret, ``X-Service-Timestamp``).
``notify.chat``
    Post a message to a chat channel through the :class:`~sleuth_shell.notify.chat.ChatClient`
    (the embedded outbox, or the platform's Web API when ``SLEUTH_CHAT_BOT_TOKEN`` is set).

Every callback and alt-webhook POST carries ``X-Service-Delivery-Id`` (:data:`DELIVERY_ID_HEADER`),
the same on every attempt and redelivery of one notification (``web:<interaction id>``,
``alt:<job id>``). Delivery is at least once: a worker that dies after the receiver answered but
before the job was marked done delivers again, so receivers drop repeats by this id.

HTTP deliveries (``notify.web`` and ``notify.alt``) are I/O-bound jobs
(:mod:`sleuth_shell.jobs.registry`): they run in the worker's I/O lane, beside the runs, and
their job key is :func:`delivery_key` (the organization and the target's origin), so a receiver
that hangs or refuses holds a few of the lane's slots (the worker's ``key_limit``) and never
delays other organizations' deliveries or any run. The POSTs go through the services' one
:class:`~sleuth_shell.notify.http.AiohttpPoster`, whose pool keeps connections alive across
deliveries to the same target.

HTTP deliveries make up to :data:`DELIVERY_ATTEMPTS` attempts with exponential backoff on network
errors, 429 and 5xx answers; any other 4xx (and a 3xx: redirects are not followed) fails at once.
The target URL is checked again right before each attempt, and the connection is pinned to the
vetted address (see :mod:`sleuth_shell.notify.urls`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any, Protocol, cast
from urllib.parse import urlsplit

from sqlalchemy import Select, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.config import Settings
from sleuth_shell.db.executor import Executor, as_executor
from sleuth_shell.db.hot_reads import hot_statements
from sleuth_shell.db.models import Interaction, NotificationIntegration, Organization
from sleuth_shell.domain import API_KEY_HEADER
from sleuth_shell.jobs import JobContext, JobFailed, JobRegistry, RetryJob, enqueue_in
from sleuth_shell.jobs.queue import MAX_KEY_LENGTH
from sleuth_shell.notify.chat import (
    ChatClient,
    ChatDeliveryError,
    chat_client_for,
)
from sleuth_shell.notify.http import DeliveryNetworkError, HttpPoster
from sleuth_shell.notify.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, sign
from sleuth_shell.notify.urls import Resolver, UnsafeURL, resolve_for_delivery

__all__ = [
    "ALT_KIND",
    "API_KEY_HEADER",
    "CHAT_KIND",
    "DELIVERY_ATTEMPTS",
    "DELIVERY_ID_HEADER",
    "WEB_KIND",
    "DeliveryRefused",
    "callback_body",
    "delivery_key",
    "enqueue_alt",
    "enqueue_chat",
    "enqueue_web_callback",
    "integration_targets",
    "register_notification_jobs",
]

WEB_KIND = "notify.web"
ALT_KIND = "notify.alt"
CHAT_KIND = "notify.chat"

#: The header naming one notification, equal on every attempt and redelivery of it.
DELIVERY_ID_HEADER = "X-Service-Delivery-Id"
#: Attempts per HTTP delivery (the first try and four retries).
DELIVERY_ATTEMPTS = 5


class DeliveryRefused(JobFailed):
    """The receiver refused the delivery for good (a 4xx other than 429, a redirect, a bad URL)."""


# --- enqueueing ----------------------------------------------------------------------------------


def delivery_key(org_id: int, url: str) -> str:
    """The job key of an HTTP delivery: the organization and the URL's origin
    (``org 7 https://hooks.example.com:443``). A worker runs at most its ``key_limit`` deliveries
    of one key at a time."""
    try:
        parts = urlsplit(url)
        port = parts.port or {"https": 443, "http": 80}.get(parts.scheme.lower(), 0)
        origin = f"{parts.scheme.lower()}://{(parts.hostname or '').lower()}:{port}"
    except ValueError:  # a malformed URL: the delivery refuses it; any key does
        origin = url
    return f"org {org_id} {origin}"[:MAX_KEY_LENGTH]


async def enqueue_web_callback(target: AsyncSession | Executor, interaction: Interaction) -> None:
    """Queue the result callback of a completed ``interaction`` (in ``target``'s transaction: a
    session's or an :class:`~sleuth_shell.db.executor.Executor`'s)."""
    web = (interaction.notifications or {}).get("web") or {}
    await enqueue_in(
        as_executor(target),
        WEB_KIND,
        {"interaction_id": interaction.id},
        max_attempts=DELIVERY_ATTEMPTS,
        key=delivery_key(interaction.org_id, str(web.get("callback_url") or "")),
    )


async def enqueue_alt(
    target: AsyncSession | Executor, org_id: int, url: str, message: dict[str, Any]
) -> None:
    """Queue the POST of a card ``message`` to an alt webhook ``url``."""
    await enqueue_in(
        as_executor(target),
        ALT_KIND,
        {"org_id": org_id, "url": url, "message": message},
        max_attempts=DELIVERY_ATTEMPTS,
        key=delivery_key(org_id, url),
    )


async def enqueue_chat(
    target: AsyncSession | Executor,
    org_id: int,
    channel_id: str,
    text: str,
    thread_ts: str | None = None,
) -> None:
    """Queue a chat message to ``channel_id``."""
    await enqueue_in(
        as_executor(target),
        CHAT_KIND,
        {"org_id": org_id, "channel_id": channel_id, "text": text, "thread_ts": thread_ts},
        max_attempts=DELIVERY_ATTEMPTS,
    )


_INTEGRATIONS = (
    select(
        NotificationIntegration.id.label("id"),
        NotificationIntegration.kind.label("kind"),
        NotificationIntegration.channel_id.label("channel_id"),
        NotificationIntegration.url.label("url"),
    )
    .where(NotificationIntegration.org_id == bindparam("org_id"))
    .order_by(NotificationIntegration.id)
)


async def integration_targets(
    target: AsyncSession | Executor, org_id: int, integration_ids: Sequence[Any]
) -> tuple[list[str], list[str]]:
    """The chat channels and alt-webhook URLs of ``org_id``'s notification integrations named by
    ``integration_ids`` (in id order, each once); integrations gone or of another organization
    are skipped. One prebuilt read of the organization's integrations, filtered here."""
    wanted = {int(i) for i in integration_ids}
    if not wanted:
        return [], []
    rows = await as_executor(target).execute(_INTEGRATIONS, {"org_id": org_id})
    channels: list[str] = []
    alt_urls: list[str] = []
    for row in rows:
        if row["id"] not in wanted:
            continue
        if row["kind"] == "CHAT_ALERT" and row["channel_id"]:
            channels.append(row["channel_id"])
        elif row["kind"] == "ALT_WEBHOOK" and row["url"]:
            alt_urls.append(row["url"])
    return list(dict.fromkeys(channels)), list(dict.fromkeys(alt_urls))


# --- HTTP ----------------------------------------------------------------------------------------


def callback_body(
    interaction_id: str, question: str, content: str | None, sources: Sequence[Any] | None
) -> bytes:
    """The exact bytes of an interaction's callback body (UTF-8 JSON)."""
    payload = {
        "interaction_id": interaction_id,
        "question": question,
        "content": content or "",
        "sources": list(sources or []),
    }
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class DeliveryServices(Protocol):
    """What delivery needs of the worker's services (:class:`sleuth_shell.services.Services`)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def resolver(self) -> Resolver: ...

    @property
    def poster(self) -> HttpPoster: ...


async def _post(ctx: JobContext, url: str, body: bytes, headers: dict[str, str]) -> None:
    """One delivery attempt: vet the URL, POST, and classify the outcome."""
    services = cast(DeliveryServices, ctx.services)
    try:
        address = await resolve_for_delivery(
            url, allow_private=services.settings.allow_private_urls, resolver=services.resolver
        )
    except UnsafeURL as exc:
        raise DeliveryRefused(f"refused {url}: {exc}") from None
    except OSError as exc:
        raise RetryJob(f"could not resolve {url}: {exc}") from None
    try:
        result = await services.poster.post(url, content=body, headers=headers, connect_to=address)
    except DeliveryNetworkError as exc:
        raise RetryJob(f"POST {url} failed: {exc}") from None
    finally:
        ctx.target_done()  # the outcome's record does not hold the target's key
    status = result.status_code
    if 200 <= status < 300:
        return
    if status == 429 or status >= 500:
        raise RetryJob(f"POST {url} answered {status}")
    raise DeliveryRefused(f"POST {url} answered {status}")


def _callback_read() -> Select[Any]:
    interactions, organizations = Interaction.__table__, Organization.__table__
    c = interactions.c
    return (
        select(
            c.question,
            c.content,
            c.sources,
            c.notifications,
            c.callback_api_key,
            organizations.c.signing_secret,
        )
        .join_from(interactions, organizations, organizations.c.id == c.org_id)
        .where(c.id == bindparam("interaction_id"))
    )


async def _deliver_web(ctx: JobContext) -> None:
    interaction_id = str(ctx.payload["interaction_id"])
    # One prebuilt read of what the callback needs (the hot-read path: on SQLite the process's
    # plain sqlite3 connection; the run that enqueued this job has committed).
    rows = await hot_statements(ctx.services.sessions).rows(
        WEB_KIND, _callback_read, {"interaction_id": interaction_id}
    )
    if not rows:
        raise DeliveryRefused(f"interaction {interaction_id} no longer exists")
    question, content, sources, notifications, callback_api_key, secret = rows[0]
    web = (notifications or {}).get("web") or {}
    url = web.get("callback_url")
    if not isinstance(url, str):
        raise DeliveryRefused(f"interaction {interaction_id} has no callback_url")
    body = callback_body(interaction_id, question, content, sources)
    custom = web.get("custom_headers")
    headers: dict[str, str] = {"Content-Type": "application/json"}
    if isinstance(custom, dict) and custom:
        headers.update({str(k): str(v) for k, v in custom.items()})
    elif callback_api_key:
        headers[API_KEY_HEADER] = callback_api_key
    headers[SIGNATURE_HEADER] = sign(body, secret)
    headers[TIMESTAMP_HEADER] = str(int(time.time()))
    headers[DELIVERY_ID_HEADER] = f"web:{interaction_id}"
    await _post(ctx, url, body, headers)

    async def delivered(session: AsyncSession) -> None:
        await _forget_key(session, interaction_id)
        await ctx.complete(session)

    await ctx.write(delivered)


_FORGET_KEY = (
    update(Interaction.__table__)
    .where(Interaction.__table__.c.id == bindparam("interaction_id"))
    .values(callback_api_key=None)
)


async def _forget_key(session: AsyncSession, interaction_id: str) -> None:
    await session.execute(_FORGET_KEY, {"interaction_id": interaction_id})


async def _web_failed(ctx: JobContext, session: AsyncSession, error: str) -> None:
    await _forget_key(session, str(ctx.payload.get("interaction_id")))


async def _deliver_alt(ctx: JobContext) -> None:
    url = str(ctx.payload["url"])
    body = json.dumps(ctx.payload["message"], ensure_ascii=False, separators=(",", ":"))
    content = body.encode("utf-8")
    headers = {"Content-Type": "application/json", DELIVERY_ID_HEADER: f"alt:{ctx.job.id}"}
    org_id = ctx.payload.get("org_id")
    if org_id is not None:
        query = select(Organization.signing_secret).where(Organization.id == int(str(org_id)))
        async with ctx.services.sessions() as session:
            secret = await session.scalar(query)
        if secret:
            headers[SIGNATURE_HEADER] = sign(content, secret)
            headers[TIMESTAMP_HEADER] = str(int(time.time()))
    await _post(ctx, url, content, headers)


# --- chat ----------------------------------------------------------------------------------------


async def _deliver_chat(ctx: JobContext, client: ChatClient) -> None:
    payload = ctx.payload
    thread_ts = payload.get("thread_ts")
    async with ctx.services.sessions() as session:
        try:
            await client.post_message(
                session,
                int(payload["org_id"]),  # type: ignore[call-overload]
                str(payload["channel_id"]),
                str(payload["text"]),
                str(thread_ts) if thread_ts is not None else None,
            )
        except ChatDeliveryError as exc:
            if exc.permanent:
                raise DeliveryRefused(str(exc)) from None
            raise RetryJob(str(exc), delay=exc.retry_after) from None
        await ctx.complete(session)
        await session.commit()


def register_notification_jobs(registry: JobRegistry, *, chat: ChatClient | None = None) -> None:
    """Register the ``notify.*`` job kinds.

    Chat messages go to ``chat`` when given, else to the client the worker's settings choose
    (:func:`~sleuth_shell.notify.chat.chat_client_for`: the Web API with a bot token, else the
    outbox). A permanent chat failure fails the job with the platform's error in
    ``jobs.last_error``; a transient one retries the job (after ``Retry-After`` when given).
    """

    async def deliver_chat(ctx: JobContext) -> None:
        services = cast(DeliveryServices, ctx.services)
        client = chat if chat is not None else chat_client_for(services.settings, services.poster)
        await _deliver_chat(ctx, client)

    registry.register(WEB_KIND, _deliver_web, on_failure=_web_failed, io_bound=True)
    registry.register(ALT_KIND, _deliver_alt, io_bound=True)
    registry.register(CHAT_KIND, deliver_chat)
