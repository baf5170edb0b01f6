"""Chat messages in: ``POST /api/v1/chat/events`` and ``POST /api/v1/webhooks/CHAT/{remote_id}``.

- ``/chat/events`` (organization API key): a message the chat bot saw, as
  ``{channel_id, text, user_id?, bot_app_user_id?, ts?, thread_ts?}``.
- ``/webhooks/CHAT/{remote_id}`` (no API key): the chat platform's own Events API deliveries to a
  ``CHAT`` webhook subscription, signed ``X-Chat-Signature: v0=<hex HMAC-SHA256>`` over
  ``v0:{X-Chat-Request-Timestamp}:{body}`` with the subscription's provider secret when one was set
  (the platform's signing secret, ``sleuth admin set-webhook-secret``), else with its own secret;
  the timestamp must be within 5 minutes. The platform's own header names
  (``X-Slack-Signature``, ``X-Slack-Request-Timestamp``) are read when the neutral ones are absent,
  so the platform can post straight to Sleuth. ``url_verification`` is answered 200 with its
  challenge; an ``event_callback`` is recorded by its ``event_id`` (a retry gets the first
  answer again and starts nothing) and by its message (channel and ``ts``: the same message
  delivered as ``message`` and as ``app_mention`` is run, and replied to, once) and, when it is
  a top-level message, run exactly as ``/chat/events`` runs it. This static route is matched
  before the providers' generic ``/webhooks/{type}/{remote_id}``.

Platform deliveries are counted against the subscription's organization and its plan, in a window
of their own (``chat-org:<id>``), not per client address: every workspace's events arrive from the
platform's shared addresses. Failed signatures count against the client address, which is refused
(429) before anything is read once over the ``free`` plan's limit, as on the webhook intake.

Both answer 202 ``{"investigation_ids": [...], "replies": n}``: the investigations the message
opened (or reused) and the trigger replies queued (0 or 1). See :mod:`sleuth_shell.chat`.
"""

from __future__ import annotations

import time
from typing import Any

from litestar import Request, Response, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath
from litestar.status_codes import HTTP_200_OK, HTTP_202_ACCEPTED, HTTP_401_UNAUTHORIZED
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from sleuth_core.intake import ChatChallenge, parse_chat_event, verify_chat
from sleuth_shell.api.body import decode_json_body
from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.chat import handle_message, message_from_event, message_from_request
from sleuth_shell.db.models import ChatDelivery, Organization, WebhookSubscription, utcnow
from sleuth_shell.domain import is_channel_id
from sleuth_shell.errors import ApiError, bad_request, error_responses, not_found
from sleuth_shell.ratelimit import (
    check_failed_authentications,
    count_failed_authentication,
    rate_limiter_of,
)

__all__ = ["ROUTES"]

#: The 401 detail of a delivery whose signature is missing, wrong or stale.
INVALID_TOKEN = "Invalid webhook token"
#: Longest accepted id or timestamp member of a ``/chat/events`` body.
MAX_ID_LENGTH = 64
#: Longest accepted message text (the body limit is 1 MiB anyway).
MAX_TEXT_LENGTH = 40_000
_OPTIONAL = ("user_id", "bot_app_user_id", "ts", "thread_ts")


def _column(value: str, size: int) -> str:
    """``value`` fit for a ``String(size)`` column (no NUL, which PostgreSQL refuses)."""
    return value.replace("\x00", "")[:size]


def _accepted(body: dict[str, Any]) -> Response[dict[str, Any]]:
    return Response(content=body, status_code=HTTP_202_ACCEPTED)


def _read_event_body(raw: bytes) -> dict[str, Any]:
    """The validated ``/chat/events`` body; 400 naming the first problem."""
    try:
        body = decode_json_body(raw)
    except ValueError as exc:
        raise bad_request(str(exc)) from None
    if not isinstance(body, dict):
        raise bad_request("The body must be a JSON object")
    channel_id = body.get("channel_id")
    if not isinstance(channel_id, str) or not channel_id:
        raise bad_request("channel_id is required")
    if not is_channel_id(channel_id):
        raise bad_request(f"Invalid channel_id: {channel_id}")
    text = body.get("text")
    if not isinstance(text, str) or not text.strip():
        raise bad_request("text must be a non-empty string")
    if len(text) > MAX_TEXT_LENGTH or "\x00" in text:
        raise bad_request(f"text must be at most {MAX_TEXT_LENGTH} characters, without NUL")
    for name in _OPTIONAL:
        value = body.get(name)
        if value is None:
            continue
        if not isinstance(value, str) or len(value) > MAX_ID_LENGTH or "\x00" in value:
            raise bad_request(f"{name} must be a string of at most {MAX_ID_LENGTH} characters")
    return body


@post(
    "/chat/events",
    operation_id="postChatEvent",
    tags=["chat"],
    status_code=HTTP_202_ACCEPTED,
    responses=error_responses(413),
)
async def post_chat_event(
    request: Request[Any, Any, Any], principal: CurrentPrincipal, db_session: DbSession
) -> Response[dict[str, Any]]:
    """A chat message seen by the bot: runs the channel's chat alert agents and the chat
    triggers. Answers 202 ``{"investigation_ids": [...], "replies": n}``."""
    raw = await request.body()
    body = _read_event_body(raw)
    message = message_from_request(
        channel_id=body["channel_id"],
        text=body["text"],
        bot_app_user_id=body.get("bot_app_user_id"),
        ts=body.get("ts"),
        thread_ts=body.get("thread_ts"),
        body=raw.decode("utf-8"),
    )
    outcome = await handle_message(
        db_session, org_id=principal.org_id, message=message, now=utcnow()
    )
    await db_session.commit()
    return _accepted(outcome.as_json())


async def _chat_subscription(
    db_session: DbSession, remote_id: str
) -> tuple[WebhookSubscription, str]:
    """The ``CHAT`` subscription and its organization's plan; 404 otherwise (also for an ID with
    a NUL byte, which names none: PostgreSQL text cannot hold it and would refuse the lookup)."""
    if "\x00" in remote_id:
        raise not_found("Webhook subscription")
    found = (
        await db_session.execute(
            select(WebhookSubscription, Organization.plan)
            .join(Organization, Organization.id == WebhookSubscription.org_id)
            .where(WebhookSubscription.remote_id == remote_id)
        )
    ).first()
    if found is None or found[0].type != "CHAT":
        raise not_found("Webhook subscription")
    return found[0], str(found[1])


async def _recorded(
    db_session: DbSession, subscription_id: int, event_id: str, message: tuple[str, str] | None
) -> dict[str, Any] | None:
    """The answer recorded for this event id, or (``message``: its channel and ts) for the same
    message delivered under another event id (``message`` and ``app_mention``)."""
    response = await db_session.scalar(
        select(ChatDelivery.response).where(
            ChatDelivery.subscription_id == subscription_id, ChatDelivery.event_id == event_id
        )
    )
    if response is None and message is not None:
        response = await db_session.scalar(
            select(ChatDelivery.response).where(
                ChatDelivery.subscription_id == subscription_id,
                ChatDelivery.kind == "message",
                ChatDelivery.channel_id == message[0],
                ChatDelivery.ts == message[1],
            )
        )
    return dict(response) if response is not None else None


@post(
    "/webhooks/CHAT/{remote_id:str}",
    operation_id="postChatPlatformEvent",
    tags=["chat"],
    status_code=HTTP_202_ACCEPTED,
    opt={"public": True, "skip_rate_limit": True},
    security=[{}],
    responses={
        200: ResponseSpec(
            data_container=dict[str, str],
            description='url_verification: the challenge, as {"challenge": ...}',
            generate_examples=False,
        ),
        **error_responses(401, 404, 413, authenticated=False),
    },
)
async def post_chat_platform_event(
    request: Request[Any, Any, Any], remote_id: FromPath[str], db_session: DbSession
) -> Response[dict[str, Any]]:
    """The chat platform's own signed Events API delivery to a ``CHAT`` subscription."""
    address = request.client.host if request.client else "unknown"
    await check_failed_authentications(request.app, address)
    subscription, plan = await _chat_subscription(db_session, remote_id)
    # Plain values: a rollback below expires the ORM object.
    subscription_id, org_id = subscription.id, subscription.org_id
    raw = await request.body()
    clock = getattr(request.app.state, "clock", time.time)
    secret = subscription.provider_secret or subscription.secret
    headers = request.headers
    signature = headers.get("x-chat-signature") or headers.get("x-slack-signature")
    stamp = headers.get("x-chat-request-timestamp") or headers.get("x-slack-request-timestamp")
    if not verify_chat(raw, signature, stamp, secret, now=clock()):
        await count_failed_authentication(request.app, address)
        raise ApiError(HTTP_401_UNAUTHORIZED, INVALID_TOKEN)
    # Counted against the organization's plan, in a window of its own (as provider webhooks
    # are): every workspace's events come from the platform's few shared addresses.
    await rate_limiter_of(request.app).hit(
        request.app, f"chat-org:{org_id}", request.app.state.settings.rate_limit_for(plan)
    )
    now = utcnow()
    parsed = parse_chat_event(raw, received_at=now)
    if isinstance(parsed, ChatChallenge):
        return Response(content={"challenge": parsed.challenge}, status_code=HTTP_200_OK)
    event_id = _column(parsed.event_id, 255)
    channel_id, ts = _column(parsed.channel_id, 64), _column(parsed.ts, 64)
    message = (channel_id, ts) if parsed.kind == "message" else None
    previous = await _recorded(db_session, subscription_id, event_id, message)
    if previous is not None:
        return _accepted(previous)
    delivery = ChatDelivery(
        org_id=org_id,
        subscription_id=subscription_id,
        event_id=event_id,
        kind=parsed.kind,
        reason=_column(parsed.reason, 255),
        channel_id=channel_id,
        ts=ts,
        response={"investigation_ids": [], "replies": 0},
        created_at=now,
    )
    db_session.add(delivery)
    try:
        # Claim the event (and the message) first: a concurrent retry, or the same message under
        # another event id, waits here (PostgreSQL) or behind the single writer (SQLite), then
        # finds the claim taken.
        await db_session.flush()
    except IntegrityError:
        await db_session.rollback()
        previous = await _recorded(db_session, subscription_id, event_id, message)
        return _accepted(previous or {"investigation_ids": [], "replies": 0})
    if parsed.kind == "message":
        outcome = await handle_message(
            db_session,
            org_id=org_id,
            message=message_from_event(parsed, raw.decode("utf-8")),
            now=now,
        )
        delivery.response = outcome.as_json()
    answer = dict(delivery.response)
    await db_session.commit()
    return _accepted(answer)


ROUTES = [post_chat_event, post_chat_platform_event]
