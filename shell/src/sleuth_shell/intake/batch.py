"""Group commit of webhook deliveries: many concurrent deliveries, one write transaction.

Every accepted delivery is a write: a record per alert it carries (one for most providers, one
per entry of ``alerts`` for Alertmanager and Grafana), and for each new alert an investigation
claim and a job per matching agent; a delivery's alerts are always written in one transaction.
Written one delivery per transaction, the single SQLite writer (and on PostgreSQL the round
trips) cap the intake at a few dozen deliveries a second under concurrent load, whatever the
CPU: each transaction holds the write lock across several statements, each a hop to the
driver's thread and back through a busy event loop (docs/performance.md, "Alert intake").

A :class:`DeliveryBatcher` (one per application) is the
:class:`~sleuth_shell.db.group_commit.GroupCommit` of deliveries: concurrent requests hand it their
delivery (:meth:`~sleuth_shell.db.group_commit.GroupCommit.submit`, after the request has
authenticated, read and matched it) and all that are waiting are written in one transaction
(:func:`write_batch`): one read of the already recorded deliveries, the alert log with the
decisions and the investigations they open (:func:`~sleuth_shell.alerts.decisions.record_alerts`),
one insert of the delivery records, one commit. Each request is answered only once the
transaction holding its delivery has committed; the answers are exactly those of the one-at-a-time
path (:func:`~sleuth_shell.intake.service.receive_alert` without a batcher):

- an alert already recorded (same subscription and delivery id; or a second copy of one in the
  same batch) gets the recorded answer and writes nothing;
- when a batch fails (a delivery recorded first by a parallel transaction of another process or
  node, or any other reason), it is rolled back and each of its deliveries is written alone
  (:func:`write_alone`, in its own transaction with the usual retries, which finds a parallel
  record), so one bad delivery cannot fail the others and its own request still gets its own
  error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import Insert, select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_core.intake import AlertEvent
from sleuth_shell.alerts.decisions import NewAlert, record_alerts
from sleuth_shell.db.dialect import insert_ignore_rows
from sleuth_shell.db.group_commit import GroupCommit
from sleuth_shell.db.models import WebhookDelivery

__all__ = [
    "MAX_BATCH",
    "DeliveredAlert",
    "Delivery",
    "DeliveryBatcher",
    "LostRace",
    "alert_count",
    "delivery_values",
    "write_alone",
    "write_batch",
]

#: Most alerts written in one transaction (a delivery with more is written alone).
MAX_BATCH = 128
#: Rows per statement (10 bound values each in the record insert).
_CHUNK = 500
_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class DeliveredAlert:
    """One alert of a delivery: its event, the body stored with it, the agents it matched.

    ``matched`` are the ids of the agents subscribed to the source whose rules matched (whether
    they are still ACTIVE is checked when writing); ``payload`` is the alert's body as text (the
    delivery's body, or for a grouped delivery the group with only this alert)."""

    event: AlertEvent
    payload: str
    matched: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Delivery:
    """An authenticated, read and matched delivery, ready to be recorded: its alerts, in order
    (one for most providers, one per entry of ``alerts`` for Alertmanager and Grafana; none for
    an empty generic array). All of them are written in one transaction."""

    subscription_id: int
    org_id: int
    alerts: tuple[DeliveredAlert, ...]
    now: datetime
    subscribed: tuple[int, ...] = ()
    """Every agent subscribed to the source (each gets a decision on each alert)."""
    source: tuple[str, str] = ("", "")
    """The subscription's ``(type, remote_id)``."""


@dataclass(frozen=True, slots=True)
class _Row:
    """One alert of one delivery of a batch, where its answer goes."""

    delivery: int
    alert: DeliveredAlert
    subscription_id: int
    org_id: int
    now: datetime

    @property
    def key(self) -> tuple[int, str]:
        return (self.subscription_id, self.alert.event.delivery_id[:255])


class LostRace(Exception):
    """A delivery of the batch was recorded by a parallel transaction first (roll back, retry)."""


def delivery_values(row: _Row, ids: Sequence[int]) -> dict[str, Any]:
    """The ``webhook_deliveries`` row of one alert of a delivery, answered with ``ids``."""
    event = row.alert.event
    return {
        "org_id": row.org_id,
        "subscription_id": row.subscription_id,
        "delivery_id": event.delivery_id[:255],
        "kind": event.kind,
        "event_type": event.event_type[:200],
        "dedup_key": event.dedup_key[:255],
        "title": event.title[:200],
        "occurred_at": event.occurred_at,
        "received_at": row.now,
        "investigation_ids": list(ids),
    }


@lru_cache(maxsize=4)
def _delivery_insert(dialect: str) -> Insert:
    """The delivery records' ``INSERT ... ON CONFLICT DO NOTHING RETURNING id`` for ``dialect``,
    built once (its cache key is computed once, not on every batch)."""
    table = WebhookDelivery.__table__
    return insert_ignore_rows(
        dialect, table, conflict_columns=["subscription_id", "delivery_id"]
    ).returning(table.c.id)


def alert_count(delivery: Delivery) -> int:
    """How many records ``delivery`` writes (one per alert; at least one unit of batch room)."""
    return max(1, len(delivery.alerts))


async def write_batch(
    session: AsyncSession, deliveries: Sequence[Delivery]
) -> list[list[list[int]]]:
    """Record ``deliveries``: their alerts, each subscribed agent's decision on each
    (:mod:`sleuth_shell.alerts.decisions`), the investigations opened and the delivery records,
    in ``session``'s transaction (the caller commits); the answer of each delivery, in order: for
    each of its alerts, the investigation pks it started, reused or joined.

    Raises :class:`LostRace` (the caller rolls back and may retry) when a parallel transaction
    recorded one of the alerts first; any other failure propagates likewise.
    """
    rows = [
        _Row(index, alert, d.subscription_id, d.org_id, d.now)
        for index, d in enumerate(deliveries)
        for alert in d.alerts
    ]
    keys = [row.key for row in rows]
    recorded: dict[tuple[int, str], list[int]] = {}
    by_subscription: dict[int, set[str]] = {}
    for subscription_id, delivery_id in keys:
        by_subscription.setdefault(subscription_id, set()).add(delivery_id)
    for subscription_id, delivery_ids in by_subscription.items():
        wanted_ids = sorted(delivery_ids)
        for start in range(0, len(wanted_ids), _CHUNK):
            found = await session.execute(
                select(WebhookDelivery.delivery_id, WebhookDelivery.investigation_ids).where(
                    WebhookDelivery.subscription_id == subscription_id,
                    WebhookDelivery.delivery_id.in_(wanted_ids[start : start + _CHUNK]),
                )
            )
            for delivery_id, ids in found.all():
                recorded[(subscription_id, delivery_id)] = [int(i) for i in ids]

    first: dict[tuple[int, str], int] = {}  # each new alert's first copy in the batch
    for index, key in enumerate(keys):
        if key not in recorded:
            first.setdefault(key, index)
    answers: dict[int, list[int]] = {index: [] for index in first.values()}
    if first:
        # The alert log first (its insert takes SQLite's write lock; see record_alerts).
        order = sorted(first.values())
        decided = await record_alerts(
            session,
            [
                NewAlert(
                    org_id=rows[index].org_id,
                    subscription_id=rows[index].subscription_id,
                    source=deliveries[rows[index].delivery].source,
                    event=rows[index].alert.event,
                    payload=rows[index].alert.payload,
                    subscribed=deliveries[rows[index].delivery].subscribed,
                    matched=rows[index].alert.matched,
                    now=rows[index].now,
                )
                for index in order
            ],
        )
        for index, per_alert in zip(order, decided, strict=True):
            for item in per_alert:
                pk = item.investigation_id
                if pk is not None and pk not in answers[index]:
                    answers[index].append(pk)

    if first:
        statement = _delivery_insert(session.get_bind().dialect.name)
        # In key order, like the claims: two nodes' batches then wait for each other, never
        # deadlock, on PostgreSQL's unique index.
        values = [delivery_values(rows[first[key]], answers[first[key]]) for key in sorted(first)]
        inserted = 0
        for start in range(0, len(values), _CHUNK):
            result = await session.execute(statement, values[start : start + _CHUNK])
            inserted += len(result.all())
        if inserted != len(first):
            raise LostRace
    out: list[list[list[int]]] = [[] for _ in deliveries]
    for row, key in zip(rows, keys, strict=True):
        out[row.delivery].append(recorded[key] if key in recorded else answers[first[key]])
    return out


async def write_alone(session: AsyncSession, delivery: Delivery) -> list[list[int]]:
    """Record one delivery in its own transaction(s) of ``session``, committed: :func:`write_batch`
    of one, retried when it loses a race (a unique claim, SQLite's lock held by another process,
    a parallel record); the retry finds what the winner wrote."""
    for attempt in range(1, _ATTEMPTS + 1):
        try:
            (answer,) = await write_batch(session, [delivery])
            await session.commit()
            return answer
        except (IntegrityError, OperationalError, LostRace):
            await session.rollback()
            if attempt == _ATTEMPTS:
                raise
        except BaseException:
            await session.rollback()
            raise
    raise AssertionError("unreachable")  # pragma: no cover


class DeliveryBatcher(GroupCommit[Delivery, list[list[int]]]):
    """The group commit of deliveries (module doc): batches of whole deliveries up to
    :data:`MAX_BATCH` alerts, written ahead of the background jobs' writes (a request waits for
    them); a batch that fails is written again one delivery at a time (:func:`write_alone`)."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], *, max_batch: int = MAX_BATCH
    ) -> None:
        super().__init__(
            sessions,
            write_batch,
            write_one=write_alone,
            retry_alone_on=(IntegrityError, OperationalError, LostRace),
            max_size=max(1, min(max_batch, MAX_BATCH)),
            size=alert_count,
            urgent=True,
        )
