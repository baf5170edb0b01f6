"""``POST /api/v1/webhooks/{type}/{remote_id}``: inbound provider alerts (no API key).

Order of checks: the subscription (404 ``Webhook subscription not found`` when it is unknown, of
another type, or ``CHAT``, which has its own route), the credential (401 ``Invalid webhook
token``; nothing is read or written), the rate limit, then the body (400 when the adapter cannot
read it; 413 over 1 MiB is the app-wide limit). The answer is 202 ``{"investigation_ids": [...]}``
(Global IDs); the investigations run later in the job queue.

Rate limit: deliveries count against the subscription's organization and its plan limit, in a
window of their own (``webhook-org:<id>``), so a busy API client cannot make the organization
lose alerts and alert storms cannot starve its API calls. Over the limit: 429 ``Rate limit
exceeded`` with ``Retry-After`` (providers retry). The route is excluded from the address-based
limit unauthenticated requests get.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import msgspec
from litestar import Request, Response, post
from litestar.datastructures import State
from litestar.exceptions import NotAuthorizedException, TooManyRequestsException
from litestar.params import FromPath
from litestar.status_codes import HTTP_202_ACCEPTED

from sleuth_core.ids import encode_global_id
from sleuth_shell.api.deps import AppSettings, DbSession
from sleuth_shell.db.models import utcnow
from sleuth_shell.errors import error_responses, not_found
from sleuth_shell.intake import (
    AgentIndexCache,
    Subscription,
    authenticate,
    find_subscription,
    receive_alert,
)

__all__ = ["ROUTES", "agent_index_of"]

_CACHE_KEY = "agent_index_cache"
#: The Litestar store the rate limiter counts in (``sleuth_shell.ratelimit.RATE_LIMIT_STORE``; a
#: sibling layer, so named here, and a test checks the two agree).
RATE_LIMIT_STORE = "rate_limit"
_LOCK_KEY = "webhook_rate_lock"
_WRITER_KEY = "webhook_sqlite_writer"


class WebhookAnswer(msgspec.Struct):
    """The investigations the delivery started or reused (empty for lifecycle events)."""

    investigation_ids: list[str]


def agent_index_of(state: State) -> AgentIndexCache:
    """The application's matching-index cache (made on first use)."""
    cache = state.get(_CACHE_KEY)
    if cache is None:
        cache = AgentIndexCache()
        state[_CACHE_KEY] = cache
    assert isinstance(cache, AgentIndexCache)
    return cache


def _headers(limit: int, count: int, reset: int) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": str(max(limit - count, 0)),
        "X-RateLimit-Reset": str(reset),
    }


def _sqlite_writer(state: State, session: Any) -> asyncio.Lock | None:
    """On SQLite, the process's one lock for intake write transactions (see ``receive_alert``)."""
    if session.get_bind().dialect.name != "sqlite":
        return None
    lock = state.get(_WRITER_KEY)
    if lock is None:
        lock = state[_WRITER_KEY] = asyncio.Lock()
    assert isinstance(lock, asyncio.Lock)
    return lock


async def _count(request: Request[Any, Any, Any], sub: Subscription, limit: int) -> dict[str, str]:
    app = request.app
    store = app.stores.get(RATE_LIMIT_STORE)
    window = app.state.settings.rate_limit_window
    clock: Callable[[], float] = getattr(app.state, "clock", time.time)
    now = int(clock())
    start = now - now % window
    key = f"webhook-org:{sub.org_id}:{start}"
    lock = app.state.get(_LOCK_KEY)
    if lock is None:
        lock = app.state[_LOCK_KEY] = asyncio.Lock()
    async with lock:
        raw = await store.get(key)
        count = int(raw) if raw else 0
        if count >= limit:
            headers = _headers(limit, count, start + window)
            headers["Retry-After"] = str(max(start + window - now, 1))
            raise TooManyRequestsException(detail="Rate limit exceeded", headers=headers)
        count += 1
        await store.set(key, str(count).encode(), expires_in=window + 1)
    return _headers(limit, count, start + window)


@post(
    "/webhooks/{type:str}/{remote_id:str}",
    operation_id="receiveWebhook",
    status_code=HTTP_202_ACCEPTED,
    responses=error_responses(404, 413, authenticated=True),
    opt={"public": True, "skip_rate_limit": True},
    security=[],
    tags=["alert intake"],
)
async def receive_webhook(
    request: Request[Any, Any, Any],
    db_session: DbSession,
    settings: AppSettings,
    type: FromPath[str],
    remote_id: FromPath[str],
) -> Response[WebhookAnswer]:
    """Receive one alert from a provider (PROVIDER_A..D, GENERIC): authenticated by the
    provider's native signature (when a provider secret is set), ``X-Service-Webhook-Signature:
    v1=<hex HMAC-SHA256 of the body>`` or ``?token=<secret>``. Answers with one investigation
    per matching ACTIVE agent subscribed to the source."""
    sub = await find_subscription(db_session, type, remote_id)
    if sub is None:
        raise not_found("Webhook subscription")
    body = await request.body()
    clock: Callable[[], float] = getattr(request.app.state, "clock", time.time)
    headers = dict(request.headers)
    if not authenticate(sub, headers, body, request.query_params.get("token"), now=clock()):
        raise NotAuthorizedException(detail="Invalid webhook token")
    rate_headers = await _count(request, sub, settings.rate_limit_for(sub.plan))
    state = request.app.state
    ids = await receive_alert(
        db_session,
        agent_index_of(state),
        sub,
        body,
        headers,
        now=utcnow(),
        writer=_sqlite_writer(state, db_session),
    )
    return Response(
        WebhookAnswer(investigation_ids=[encode_global_id("Investigation", i) for i in ids]),
        status_code=HTTP_202_ACCEPTED,
        headers=rate_headers,
    )


ROUTES = [receive_webhook]
