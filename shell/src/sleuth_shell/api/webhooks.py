"""``POST /api/v1/webhooks/{type}/{remote_id}``: inbound alerts and changes (no API key).

Order of checks: the client address's failed authentications (429 ``Too many failed
authentications`` with ``Retry-After`` once the address failed more than the ``free`` plan's limit
in the current window, before anything is read: forged deliveries cost next to nothing, and valid
ones never count), the subscription (404 ``Webhook subscription not found`` when it is unknown,
of another type, or ``CHAT``, which has its own route), the credential (401 ``Invalid webhook
token``; nothing is written; the failure counts against the address), the rate limit, then the
body (400 when it is not JSON; any JSON object is read, by its provider's adapter or else
generically; 413 over 1 MiB is the app-wide limit). The answer is 202 ``{"investigation_ids":
[...], "alerts": [...]}`` (Global IDs; ``alerts`` one entry per alert of the delivery), sent once
the delivery is committed (with other requests' deliveries, see :mod:`sleuth_shell.intake.batch`);
the investigations run later in the job queue.

Change sources (``GITHUB``, ``GITLAB``) take the same route: their own credential only
(``X-Hub-Signature-256`` / ``X-Gitlab-Token``; 401 otherwise, nothing written), then 202
``{"event", "change_ids", "recorded"}`` once the records are stored
(:mod:`sleuth_shell.intake.changes`); an event that is no change stores nothing.

Rate limit: deliveries count against the subscription's organization and its plan limit, in a
window of their own (``webhook-org:<id>``), so a busy API client cannot make the organization
lose alerts and alert storms cannot starve its API calls. Over the limit: 429 ``Rate limit
exceeded`` with ``Retry-After`` (providers retry). The route is excluded from the address-based
limit unauthenticated requests get.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import msgspec
from litestar import Request, Response, post
from litestar.datastructures import State
from litestar.exceptions import NotAuthorizedException
from litestar.params import FromPath
from litestar.status_codes import HTTP_202_ACCEPTED

from sleuth_core.ids import encode_global_id
from sleuth_shell.changes.ingest import IngestError
from sleuth_shell.config import Settings
from sleuth_shell.db.hot_reads import hot_reader_of
from sleuth_shell.db.models import utcnow
from sleuth_shell.domain import CHANGE_SOURCE_TYPES
from sleuth_shell.errors import bad_request, error_responses, not_found
from sleuth_shell.intake import (
    AgentIndexCache,
    DeliveryBatcher,
    authenticate,
    find_subscription,
    receive_alert,
)
from sleuth_shell.intake.changes import authenticate_change, receive_changes
from sleuth_shell.ratelimit import (
    check_failed_authentications,
    count_failed_authentication,
    rate_limiter_of,
)

__all__ = ["ROUTES", "agent_index_of", "delivery_batcher_of"]

_CACHE_KEY = "agent_index_cache"
_BATCHER_KEY = "delivery_batcher"


class AlertOutcome(msgspec.Struct):
    """One alert of the delivery: what it was read as, and the investigations (one per matching
    agent, without repeats) it started or joined; empty for a lifecycle event."""

    title: str
    dedup_key: str
    kind: str
    group_key: str | None
    investigation_ids: list[str]


class ChangeDeliveryAnswer(msgspec.Struct):
    """A GITHUB or GITLAB delivery: its event, the change records it stored (their ids; empty
    for an event that is no change) and what it was read as."""

    event: str
    change_ids: list[str]
    recorded: str


class WebhookAnswer(msgspec.Struct):
    """The investigations the delivery started or joined, without repeats (empty for lifecycle
    events), and the same per alert of the delivery."""

    investigation_ids: list[str]
    alerts: list[AlertOutcome]


def agent_index_of(state: State) -> AgentIndexCache:
    """The application's matching-index cache (made on first use)."""
    cache = state.get(_CACHE_KEY)
    if cache is None:
        cache = AgentIndexCache()
        state[_CACHE_KEY] = cache
    assert isinstance(cache, AgentIndexCache)
    return cache


def delivery_batcher_of(state: State) -> DeliveryBatcher:
    """The application's delivery batcher (made on first use; group commit of deliveries)."""
    batcher = state.get(_BATCHER_KEY)
    if batcher is None:
        batcher = DeliveryBatcher(state.session_factory)
        state[_BATCHER_KEY] = batcher
    assert isinstance(batcher, DeliveryBatcher)
    return batcher


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
    type: FromPath[str],
    remote_id: FromPath[str],
) -> Response[WebhookAnswer | ChangeDeliveryAnswer]:
    """Receive one delivery from an alert source (PROVIDER_A..D, ALERTMANAGER, GRAFANA,
    GENERIC): authenticated by the provider's native signature (when a provider secret is set),
    ``X-Service-Webhook-Signature: v1=<hex HMAC-SHA256 of the body>``, ``Authorization: Bearer
    <secret>`` or ``?token=<secret>``. Answers, for each alert of the delivery, with one
    investigation per matching ACTIVE agent subscribed to the source. A change source (GITHUB:
    ``X-Hub-Signature-256``; GITLAB: ``X-Gitlab-Token``) answers with the change records its
    delivery stored."""
    # No injected dependencies (each costs Litestar a task): the subscription comes from the
    # hot-read path, and receive_alert opens a session only if the agent index must catch up.
    state = request.app.state
    settings: Settings = state.settings
    address = request.client.host if request.client else "unknown"
    await check_failed_authentications(request.app, address)
    sub = await find_subscription(hot_reader_of(request.app), type, remote_id)
    if sub is None:
        raise not_found("Webhook subscription")
    body = await request.body()
    clock: Callable[[], float] = getattr(state, "clock", time.time)
    headers = dict(request.headers)
    if sub.type in CHANGE_SOURCE_TYPES:
        if not authenticate_change(sub, headers, body):
            await count_failed_authentication(request.app, address)
            raise NotAuthorizedException(detail="Invalid webhook token")
    elif not authenticate(sub, headers, body, request.query_params.get("token"), now=clock()):
        await count_failed_authentication(request.app, address)
        raise NotAuthorizedException(detail="Invalid webhook token")
    window = await rate_limiter_of(request.app).hit(
        request.app, f"webhook-org:{sub.org_id}", settings.rate_limit_for(sub.plan)
    )
    if sub.type in CHANGE_SOURCE_TYPES:
        async with state.session_factory() as session:
            try:
                change = await receive_changes(session, sub, body, headers, now=utcnow())
            except IngestError as exc:
                raise bad_request(str(exc)) from None
        return Response(
            ChangeDeliveryAnswer(
                event=change.event, change_ids=change.change_ids, recorded=change.reason
            ),
            status_code=HTTP_202_ACCEPTED,
            headers=window.headers(),
        )
    answers = await receive_alert(
        state.session_factory,
        agent_index_of(state),
        sub,
        body,
        headers,
        now=utcnow(),
        batcher=delivery_batcher_of(state),
    )
    outcomes = [
        AlertOutcome(
            title=answer.event.title,
            dedup_key=answer.event.dedup_key,
            kind=answer.event.kind,
            group_key=answer.event.group_key or None,
            investigation_ids=[
                encode_global_id("Investigation", i) for i in answer.investigation_ids
            ],
        )
        for answer in answers
    ]
    every = list(dict.fromkeys(i for outcome in outcomes for i in outcome.investigation_ids))
    return Response(
        WebhookAnswer(investigation_ids=every, alerts=outcomes),
        status_code=HTTP_202_ACCEPTED,
        headers=window.headers(),
    )


ROUTES = [receive_webhook]
