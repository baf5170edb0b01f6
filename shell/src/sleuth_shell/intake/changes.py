"""GitHub and GitLab deliveries in, change records out (``GITHUB`` / ``GITLAB`` subscriptions).

:func:`authenticate_change` checks the provider's own credential (GitHub's
``X-Hub-Signature-256``, GitLab's ``X-Gitlab-Token``; nothing else is accepted), and
:func:`receive_changes` reads the delivery with :func:`~sleuth_core.intake.parse_change_delivery`,
validates its records with the rules of ``POST /api/v1/changes``
(:func:`~sleuth_shell.changes.ingest.validate_records`) and, in one transaction, stores them
(:func:`~sleuth_shell.changes.ingest.store_changes`) and records the delivery in
``webhook_deliveries`` (kind ``change``, or ``ignored`` for an event that is no change). A
delivery already recorded for the subscription (same ``X-GitHub-Delivery``, GitLab
``Idempotency-Key`` / ``X-Gitlab-Event-UUID``, else the body's hash) writes nothing and gets the
same answer.

A commit can arrive twice, from a push and as a pull request's merge commit: the second record
keeps the first's file lists and attributes where it has none of its own, so the order of the
two deliveries does not lose what the push said.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.intake import parse_change_delivery, verify_native
from sleuth_shell.changes.ingest import store_changes, validate_records
from sleuth_shell.db.dialect import insert_ignore_rows
from sleuth_shell.db.models import ChangeRow, WebhookDelivery
from sleuth_shell.intake.batch import retry_races
from sleuth_shell.intake.service import Subscription

__all__ = ["ChangeAnswer", "authenticate_change", "receive_changes"]


@dataclass(frozen=True, slots=True)
class ChangeAnswer:
    """What a change delivery was read as: its event, the change ids it records (empty for an
    event that is no change) and the reason in words."""

    event: str
    change_ids: list[str]
    reason: str


def authenticate_change(sub: Subscription, headers: Mapping[str, str], body: bytes) -> bool:
    """Whether the delivery carries the provider's credential made with the subscription's
    ``secret`` (or its provider secret, when one is set): GitHub's ``X-Hub-Signature-256`` over
    the raw body, GitLab's ``X-Gitlab-Token``. Unsigned deliveries are refused."""
    secrets = [sub.secret, *([sub.provider_secret] if sub.provider_secret else [])]
    found = False
    for secret in secrets:  # every one is checked: the time taken does not say which matched
        if verify_native(sub.type, headers, body, secret, now=0.0):
            found = True
    return found


def _merge(new: dict[str, Any], old: ChangeRow | None) -> dict[str, Any]:
    if old is None:
        return new
    merged = dict(new)
    merged["files"] = new["files"] or list(old.files or [])
    merged["attributes"] = {**(old.attributes or {}), **new["attributes"]}
    merged["author"] = new["author"] or old.author
    merged["url"] = new["url"] or old.url
    return merged


async def receive_changes(
    session: AsyncSession,
    sub: Subscription,
    body: bytes,
    headers: Mapping[str, str],
    *,
    now: datetime,
) -> ChangeAnswer:
    """Read, store and record one authenticated change delivery (module doc); committed before
    it returns. Raises :class:`~sleuth_core.errors.InvalidAlertPayload` (400) for a body that is
    not a JSON object, :class:`~sleuth_shell.changes.ingest.IngestError` (400) for a record the
    change rules refuse."""
    delivery = parse_change_delivery(sub.type, body, headers, received_at=now, service=sub.service)
    rows = validate_records({"records": list(delivery.records)}) if delivery.records else []
    answer = ChangeAnswer(
        event=delivery.event,
        change_ids=[row["change_id"] for row in rows],
        reason=delivery.reason,
    )

    async def write() -> ChangeAnswer:
        await _write(session, sub, delivery.delivery_id, delivery.event, rows, answer, now)
        return answer

    return await retry_races(session, write, (IntegrityError, OperationalError))


async def _write(
    session: AsyncSession,
    sub: Subscription,
    delivery_id: str,
    event: str,
    rows: list[dict[str, Any]],
    answer: ChangeAnswer,
    now: datetime,
) -> None:
    seen = await session.scalar(
        select(WebhookDelivery.id).where(
            WebhookDelivery.subscription_id == sub.id, WebhookDelivery.delivery_id == delivery_id
        )
    )
    if seen is not None:
        return  # a redelivery: already stored, nothing to write
    if rows:
        known = {
            row.change_id: row
            for row in await session.scalars(
                select(ChangeRow).where(
                    ChangeRow.org_id == sub.org_id,
                    ChangeRow.change_id.in_([r["change_id"] for r in rows]),
                )
            )
        }
        await store_changes(
            session, sub.org_id, [_merge(r, known.get(r["change_id"])) for r in rows]
        )
    table = WebhookDelivery.__table__
    statement = insert_ignore_rows(
        session.get_bind().dialect.name, table, conflict_columns=["subscription_id", "delivery_id"]
    ).returning(table.c.id)
    result = await session.execute(
        statement,
        [
            {
                "org_id": sub.org_id,
                "subscription_id": sub.id,
                "delivery_id": delivery_id,
                "kind": "change" if rows else "ignored",
                "event_type": event[:200],
                "dedup_key": f"{sub.type}:{delivery_id}"[:255],
                "title": answer.reason[:200],
                "occurred_at": now,
                "received_at": now,
                "investigation_ids": [],
            }
        ],
    )
    if not result.all():  # a parallel copy recorded it first: keep what it wrote
        await session.rollback()
        return
    await session.commit()
