"""One provider webhook delivery in, investigation ids out (``POST /webhooks/{type}/{remote_id}``).

:func:`find_subscription` (one query: the subscription and its organization's agent version and
plan), :func:`authenticate` (native signature, else Sleuth's own credential) and
:func:`receive_alert` (adapter, delivery record, matching, investigations) are called in that
order by the route, which maps their outcomes to 404, 401, 400 and 202.

Delivery record and single flight: a delivery already recorded for the subscription (same
delivery id: the provider's event id, or the body hash) is answered from its record, with no new
work. Otherwise, for a new alert, every matching ACTIVE agent subscribed to the source gets
:func:`~sleuth_shell.investigations.open_investigation` (which reuses the agent's investigation
of the same dedup key within 24 h and is single flight across processes), and the delivery is
recorded with ``INSERT ... ON CONFLICT DO NOTHING`` in the same transaction. When a parallel copy
of the delivery recorded first, this transaction is rolled back and that record's answer
returned, so every copy gets the same answer. Lifecycle and ignored events are recorded with no
investigations. The investigations run later as durable jobs, never in the request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.intake import AlertEvent, parse_alert, verify_generic, verify_native
from sleuth_shell.db.dialect import insert_ignore
from sleuth_shell.db.models import (
    AgentIndexVersion,
    AlertResponder,
    Organization,
    WebhookDelivery,
    WebhookSubscription,
)
from sleuth_shell.domain import WEBHOOK_PROVIDER_TYPES
from sleuth_shell.intake.agent_index import AgentIndexCache
from sleuth_shell.investigations import open_investigation

__all__ = [
    "INTAKE_TYPES",
    "Subscription",
    "authenticate",
    "find_subscription",
    "receive_alert",
]

#: Webhook types this intake serves (``CHAT`` has its own route).
INTAKE_TYPES: frozenset[str] = frozenset({*WEBHOOK_PROVIDER_TYPES, "GENERIC"})
_NATIVE = frozenset({"PROVIDER_A", "PROVIDER_C", "PROVIDER_D"})
_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class Subscription:
    """A webhook subscription as the intake needs it."""

    id: int
    org_id: int
    plan: str
    type: str
    remote_id: str
    secret: str
    provider_secret: str | None
    agents_version: int
    """The organization's alert-agent version when the subscription was read."""


async def find_subscription(
    session: AsyncSession, type_: str, remote_id: str
) -> Subscription | None:
    """The subscription ``remote_id`` when it exists with type ``type_`` and the intake serves
    that type; ``None`` otherwise (404 ``Webhook subscription not found``)."""
    if type_ not in INTAKE_TYPES or len(remote_id) > 64:
        return None
    row = (
        await session.execute(
            select(WebhookSubscription, Organization.plan, AgentIndexVersion.version)
            .join(Organization, Organization.id == WebhookSubscription.org_id)
            .outerjoin(AgentIndexVersion, AgentIndexVersion.org_id == WebhookSubscription.org_id)
            .where(WebhookSubscription.remote_id == remote_id)
        )
    ).first()
    if row is None or row[0].type != type_:
        return None
    sub, plan, version = row
    return Subscription(
        id=sub.id,
        org_id=sub.org_id,
        plan=plan,
        type=sub.type,
        remote_id=sub.remote_id,
        secret=sub.secret,
        provider_secret=sub.provider_secret,
        agents_version=int(version or 0),
    )


def authenticate(
    sub: Subscription, headers: Mapping[str, str], body: bytes, token: str | None, *, now: float
) -> bool:
    """Whether the delivery carries a valid credential: the provider's native signature when the
    subscription has a provider secret (PROVIDER_A, C, D), else (or when that is absent or wrong)
    ``X-Service-Webhook-Signature`` / ``?token=`` with the subscription's own secret."""
    if (
        sub.provider_secret
        and sub.type in _NATIVE
        and verify_native(sub.type, headers, body, sub.provider_secret, now=now)
    ):
        return True
    signature = next(
        (v for k, v in headers.items() if k.lower() == "x-service-webhook-signature"), None
    )
    return verify_generic(body, signature, token, sub.secret)


async def _recorded(session: AsyncSession, sub: Subscription, delivery_id: str) -> list[int] | None:
    found = await session.scalar(
        select(WebhookDelivery.investigation_ids).where(
            WebhookDelivery.subscription_id == sub.id,
            WebhookDelivery.delivery_id == delivery_id,
        )
    )
    return None if found is None else [int(i) for i in found]


async def _process(
    session: AsyncSession,
    cache: AgentIndexCache,
    sub: Subscription,
    event: AlertEvent,
    body: bytes,
    now: datetime,
) -> list[int]:
    recorded = await _recorded(session, sub, event.delivery_id)
    if recorded is not None:
        return recorded
    ids: list[int] = []
    if event.kind == "new_alert":
        matched = await cache.match(
            session, sub.org_id, sub.agents_version, (sub.type, sub.remote_id), event.match_text
        )
        if matched:
            agents = await session.scalars(
                select(AlertResponder)
                .where(AlertResponder.id.in_(matched), AlertResponder.status == "ACTIVE")
                .order_by(AlertResponder.id)
            )
            payload = body.decode("utf-8")
            for agent in agents:
                investigation_id, _created = await open_investigation(
                    session,
                    org_id=sub.org_id,
                    agent=agent,
                    name=event.title,
                    event_payload=payload,
                    dedup_key=event.dedup_key,
                    now=now,
                )
                if investigation_id not in ids:
                    ids.append(investigation_id)
    values: dict[str, Any] = {
        "org_id": sub.org_id,
        "subscription_id": sub.id,
        "delivery_id": event.delivery_id[:255],
        "kind": event.kind,
        "event_type": event.event_type[:200],
        "dedup_key": event.dedup_key[:255],
        "title": event.title[:200],
        "occurred_at": event.occurred_at,
        "received_at": now,
        "investigation_ids": ids,
    }
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    result: Any = await session.execute(
        insert_ignore(
            dialect,
            WebhookDelivery.__table__,
            values,
            conflict_columns=["subscription_id", "delivery_id"],
        )
    )
    if result.rowcount == 0:  # a parallel copy of this delivery recorded first: its answer
        await session.rollback()
        return await _recorded(session, sub, event.delivery_id) or []
    await session.commit()
    return ids


async def receive_alert(
    session: AsyncSession,
    cache: AgentIndexCache,
    sub: Subscription,
    body: bytes,
    headers: Mapping[str, str],
    *,
    now: datetime,
) -> list[int]:
    """Read, record and act on one authenticated delivery; the investigation ids of the answer.

    Raises :class:`~sleuth_core.errors.InvalidAlertPayload` (400) for a body the adapter cannot
    read. Commits its own work; a transaction that loses a race (a unique claim, SQLite's lock)
    is retried, and the retry finds what the winner recorded. (On SQLite the engine's in-process
    write lock, :mod:`sleuth_shell.db.sqlite_reads`, makes the process's writers take turns.)
    """
    event = parse_alert(sub.type, body, received_at=now, headers=headers)
    for attempt in range(1, _ATTEMPTS + 1):
        try:
            return await _process(session, cache, sub, event, body, now)
        except (IntegrityError, OperationalError):
            await session.rollback()
            if attempt == _ATTEMPTS:
                raise
    raise AssertionError("unreachable")  # pragma: no cover
