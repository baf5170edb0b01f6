"""One alert-source webhook delivery in, its alerts and their investigation ids out
(``POST /webhooks/{type}/{remote_id}``; a delivery carries one alert, or for Alertmanager and
Grafana one per entry of its group).

:func:`find_subscription` (one query: the subscription and its organization's agent version and
plan), :func:`authenticate` (native signature, else Sleuth's own credential) and
:func:`receive_alert` (adapter, delivery record, matching, investigations) are called in that
order by the route, which maps their outcomes to 404, 401, 400 and 202.

Alert log, delivery record and single flight (written by :mod:`.batch`, several concurrent
deliveries per transaction): every new alert is stored in the alert log with one decision per
agent subscribed to its source (:mod:`sleuth_shell.alerts.decisions`); an alert already recorded
for the subscription (same delivery id: the provider's event id, the body hash, or an
Alertmanager/Grafana alert's fingerprint, status and start) is answered from its record, with no
new work. Otherwise, for a new alert, every matching ACTIVE agent subscribed to the source that
nothing holds back (suppressions, grouping, budgets, caps) gets an investigation through
:func:`~sleuth_shell.investigations.open_investigations` (which reuses the agent's investigation
of the same dedup key within 24 h and is single flight across processes), and the delivery is
recorded with ``INSERT ... ON CONFLICT DO NOTHING`` in the same transaction. When a parallel copy
of the delivery recorded first, the transaction is rolled back and run again, which returns that
record's answer, so every copy gets the same answer. Lifecycle and ignored events are recorded
with no investigations. The investigations run later as durable jobs, never in the request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_core.intake import (
    AlertEvent,
    bearer_token,
    parse_alerts,
    verify_generic,
    verify_github,
    verify_native,
)
from sleuth_shell.db.hot_reads import HotRead, HotReader
from sleuth_shell.db.models import AgentIndexVersion, Organization, WebhookSubscription
from sleuth_shell.domain import ALERT_SOURCE_TYPES, CHANGE_SOURCE_TYPES
from sleuth_shell.intake.agent_index import AgentIndexCache
from sleuth_shell.intake.batch import DeliveredAlert, Delivery, DeliveryBatcher, write_alone

__all__ = [
    "INTAKE_TYPES",
    "AlertAnswer",
    "Subscription",
    "authenticate",
    "find_subscription",
    "receive_alert",
]

#: Webhook types this intake serves (``CHAT`` has its own route).
INTAKE_TYPES: frozenset[str] = frozenset(ALERT_SOURCE_TYPES)
_NATIVE = frozenset({"PROVIDER_A", "PROVIDER_C", "PROVIDER_D", "GRAFANA"})


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
    service: str | None
    """GITHUB and GITLAB: the service their changes are recorded on (else the repository's)."""
    agents_version: int
    """The organization's alert-agent version when the subscription was read."""


_SUBSCRIPTION = HotRead(
    select(
        WebhookSubscription.id,
        WebhookSubscription.org_id,
        WebhookSubscription.type,
        WebhookSubscription.remote_id,
        WebhookSubscription.secret,
        WebhookSubscription.provider_secret,
        WebhookSubscription.service,
        Organization.plan,
        AgentIndexVersion.version,
    )
    .join(Organization, Organization.id == WebhookSubscription.org_id)
    .outerjoin(AgentIndexVersion, AgentIndexVersion.org_id == WebhookSubscription.org_id)
    .where(WebhookSubscription.remote_id == bindparam("remote_id"))
)


async def find_subscription(reader: HotReader, type_: str, remote_id: str) -> Subscription | None:
    """The subscription ``remote_id`` when it exists with type ``type_`` and the intake serves
    that type (an alert source, or a change source: GITHUB, GITLAB); ``None`` otherwise (404
    ``Webhook subscription not found``). One indexed query on
    the hot-read path (:mod:`sleuth_shell.db.hot_reads`: no ORM session), read afresh for every
    delivery, so a changed secret or agent version is seen by the next alert."""
    if (
        (type_ not in INTAKE_TYPES and type_ not in CHANGE_SOURCE_TYPES)
        or len(remote_id) > 64
        or "\x00" in remote_id  # names none (PostgreSQL text cannot hold it: refused there)
    ):
        return None
    row = await _SUBSCRIPTION.first(reader, {"remote_id": remote_id})
    if row is None or row["type"] != type_:
        return None
    return Subscription(
        id=row["id"],
        org_id=row["org_id"],
        plan=row["plan"],
        type=row["type"],
        remote_id=row["remote_id"],
        secret=row["secret"],
        provider_secret=row["provider_secret"],
        service=row["service"],
        agents_version=int(row["version"] or 0),
    )


def authenticate(
    sub: Subscription, headers: Mapping[str, str], body: bytes, token: str | None, *, now: float
) -> bool:
    """Whether the delivery carries a valid credential: the provider's native signature when the
    subscription has a provider secret (PROVIDER_A, C, D; GRAFANA's HMAC header), else (or when
    that is absent or wrong) the subscription's own secret as ``X-Service-Webhook-Signature``,
    ``Authorization: Bearer <secret>`` (what Alertmanager's ``http_config.authorization`` and
    Grafana's authorization header send), ``X-Webhook-Token``, ``?token=`` or ``X-Signature:
    sha256=<hex HMAC-SHA256 of the body>``."""
    if (
        sub.provider_secret
        and sub.type in _NATIVE
        and verify_native(sub.type, headers, body, sub.provider_secret, now=now)
    ):
        return True
    lowered = {k.lower(): v for k, v in headers.items()}
    generic = verify_generic(
        body,
        lowered.get("x-service-webhook-signature"),
        token,
        sub.secret,
        bearer=bearer_token(lowered.get("authorization")) or lowered.get("x-webhook-token"),
    )
    # INTEGRATIONS 8.3's signature form: ``X-Signature: sha256=<hex HMAC-SHA256 of the body>``
    return verify_github(body, lowered.get("x-signature"), sub.secret) or generic


@dataclass(frozen=True, slots=True)
class AlertAnswer:
    """One alert of a delivery and the investigations (pks) it started or joined."""

    event: AlertEvent
    investigation_ids: list[int]


async def receive_alert(
    sessions: async_sessionmaker[AsyncSession],
    cache: AgentIndexCache,
    sub: Subscription,
    body: bytes,
    headers: Mapping[str, str],
    *,
    now: datetime,
    batcher: DeliveryBatcher | None = None,
) -> list[AlertAnswer]:
    """Read, record and act on one authenticated delivery; each of its alerts with the
    investigations of the answer.

    Raises :class:`~sleuth_core.errors.InvalidAlertPayload` (400) for a body that is not JSON
    (:func:`~sleuth_core.intake.parse_alerts`: any other shape is read as generic JSON). Each
    new alert is matched against the cached index (a session of ``sessions`` is opened only when
    the index must first catch up with the organization's agent version); the delivery's alerts
    are then written by ``batcher`` together with other requests' deliveries
    (:mod:`sleuth_shell.intake.batch`), or, without one, alone in a session of ``sessions``;
    either way in one transaction, committed before this returns. A transaction that loses a
    race (a unique claim, SQLite's lock, a parallel record) is retried, and the retry finds what
    the winner recorded.
    """
    events = parse_alerts(sub.type, body, received_at=now, headers=headers)
    text = body.decode("utf-8", errors="replace")  # JSON may come as UTF-16/32
    source = (sub.type, sub.remote_id)
    alerts: list[DeliveredAlert] = []
    subscribed: tuple[int, ...] = ()
    if cache.behind(sub.org_id, sub.agents_version):
        async with sessions() as session:
            await cache.refresh(session, sub.org_id, sub.agents_version)
    for event in events:
        routing = cache.route(
            sub.org_id, source, event.match_text if event.kind == "new_alert" else None
        )
        subscribed = routing.subscribed
        alerts.append(
            DeliveredAlert(
                event=event,
                payload=event.body if event.body is not None else text,
                matched=routing.matched,
            )
        )
    delivery = Delivery(
        subscription_id=sub.id,
        org_id=sub.org_id,
        alerts=tuple(alerts),
        now=now,
        subscribed=subscribed,
        source=source,
    )
    if batcher is None:
        async with sessions() as session:
            answers = await write_alone(session, delivery)
    else:
        answers = await batcher.submit(delivery)
    return [
        AlertAnswer(event=event, investigation_ids=ids)
        for event, ids in zip(events, answers, strict=True)
    ]
