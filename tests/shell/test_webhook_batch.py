"""Group commit of webhook deliveries (``sleuth_shell.intake.batch``): a batch answers exactly as
one delivery at a time would, a failing delivery cannot fail the others of its batch, and two
processes writing the same deliveries at once agree; on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from datetime import UTC, datetime, timedelta

import pytest
from conftest import Factory, OrgHandle
from sqlalchemy import func, select

from sleuth_core.intake import parse_alert
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import AlertResponder, Investigation, Job, WebhookDelivery
from sleuth_shell.intake.batch import (
    DeliveredAlert,
    Delivery,
    DeliveryBatcher,
    write_alone,
    write_batch,
)

pytestmark = pytest.mark.storage

T0 = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)


def _agent(
    factory: Factory,
    org: OrgHandle,
    name: str,
    status: str = "ACTIVE",
    group_window_seconds: int | None = None,
) -> int:
    agent = factory.add(
        AlertResponder(
            org_id=org.id,
            team_id=org.default_team_id,
            name=name,
            status=status,
            runbook_prompt="Look at the payments dashboards first.",
            runbook_active=True,
            text_matches=["*"],
            match_rules={"and": [{"contains": ""}]},
            webhook_sources=[],
            group_window_seconds=group_window_seconds,
        )
    )
    return int(agent.id)


def _delivery(
    sub_id: int,
    org: OrgHandle,
    event_id: str,
    incident: str,
    agents: tuple[int, ...],
    *,
    event_type: str = "incident.triggered",
    now: datetime = T0,
) -> Delivery:
    body = json.dumps(
        {
            "event": {
                "id": event_id,
                "event_type": event_type,
                "resource_type": "incident",
                "occurred_at": "2026-11-23T10:00:00.000Z",
                "data": {
                    "id": incident,
                    "type": "incident",
                    "title": f"Checkout errors ({incident})",
                    "status": "triggered",
                    "service": {"summary": "checkout-api"},
                },
            }
        }
    )
    event = parse_alert("PROVIDER_A", body.encode(), received_at=now)
    return Delivery(
        subscription_id=sub_id,
        org_id=org.id,
        alerts=(DeliveredAlert(event=event, payload=body, matched=agents),),
        now=now,
    )


async def _submit(batcher: DeliveryBatcher, delivery: Delivery) -> list[int]:
    """The answer of a one-alert delivery: its alert's investigations."""
    [answer] = await batcher.submit(delivery)
    return answer


def _count(factory: Factory, model: type) -> int:
    async def go(session):  # type: ignore[no-untyped-def]
        return await session.scalar(select(func.count()).select_from(model))

    return int(factory.run(go))


async def _one_by_one(url: str, deliveries: list[Delivery]) -> list[list[int]]:
    engine = create_engine(url)
    try:
        async with create_session_factory(engine)() as session:
            return [(await write_alone(session, d))[0] for d in deliveries]
    finally:
        await engine.dispose()


async def _batch(url: str, deliveries: list[Delivery]) -> list[list[int]]:
    engine = create_engine(url)
    try:
        async with create_session_factory(engine)() as session:
            answers = await write_batch(session, deliveries)
            await session.commit()  # the caller commits (the group commit, write_alone)
            return [answer for [answer] in answers]
    finally:
        await engine.dispose()


def test_a_batch_answers_as_one_delivery_at_a_time_would(
    migrated_url: str, factory: Factory, org: OrgHandle
) -> None:
    a = _agent(factory, org, "a")
    b = _agent(factory, org, "b")
    paused = _agent(factory, org, "paused", status="PAUSED")
    sub = factory.webhook(org, "PROVIDER_A", "pager")
    deliveries = [
        _delivery(sub.id, org, "E1", "INC-1", (a, b, paused)),
        _delivery(sub.id, org, "E2", "INC-2", (b,)),
        _delivery(sub.id, org, "E1", "INC-1", (a, b, paused)),  # a copy of the first
        _delivery(sub.id, org, "E3", "INC-1", (b, a)),  # same incident, another delivery
        _delivery(sub.id, org, "E4", "INC-1", (a,), event_type="incident.resolved"),
        _delivery(sub.id, org, "E5", "INC-3", ()),
    ]
    answers = asyncio.run(_batch(migrated_url, deliveries))
    first, second, copy, same_incident, resolved, unmatched = answers
    assert len(first) == 2 and len(second) == 1
    assert copy == first
    assert sorted(same_incident) == sorted(first)
    assert resolved == [] and unmatched == []
    assert _count(factory, Investigation) == 3
    assert _count(factory, Job) == 3
    assert _count(factory, WebhookDelivery) == 5

    async def rows(session):  # type: ignore[no-untyped-def]
        found = await session.execute(
            select(Investigation.id, Investigation.alert_responder_id, Investigation.prompt)
        )
        return sorted(tuple(r) for r in found)

    assert {agent for _pk, agent, _prompt in factory.run(rows)} == {a, b}
    assert {prompt for *_, prompt in factory.run(rows)} == {
        "Look at the payments dashboards first."
    }

    # Delivered again, one by one: every answer comes from the records, nothing new is written.
    assert asyncio.run(_one_by_one(migrated_url, deliveries)) == answers
    assert _count(factory, Investigation) == 3 and _count(factory, WebhookDelivery) == 5


def test_the_dedup_window_holds_in_a_batch(
    migrated_url: str, factory: Factory, org: OrgHandle
) -> None:
    a = _agent(factory, org, "a")
    sub = factory.webhook(org, "PROVIDER_A", "pager")
    [old] = asyncio.run(_one_by_one(migrated_url, [_delivery(sub.id, org, "E1", "INC-1", (a,))]))
    later = T0 + timedelta(hours=23)
    much_later = T0 + timedelta(hours=25)
    [reused] = asyncio.run(
        _batch(migrated_url, [_delivery(sub.id, org, "E2", "INC-1", (a,), now=later)])
    )
    assert reused == old
    [fresh] = asyncio.run(
        _batch(migrated_url, [_delivery(sub.id, org, "E3", "INC-1", (a,), now=much_later)])
    )
    assert fresh != old and len(fresh) == 1
    assert _count(factory, Investigation) == 2 and _count(factory, Job) == 2


def test_a_failing_delivery_does_not_fail_its_batch(
    migrated_url: str, factory: Factory, org: OrgHandle
) -> None:
    a = _agent(factory, org, "a")
    sub = factory.webhook(org, "PROVIDER_A", "pager")
    good = [_delivery(sub.id, org, f"E{i}", f"INC-{i}", (a,)) for i in range(5)]
    bad = _delivery(sub.id, org, "EBAD", "INC-BAD", (a,))
    [alert] = bad.alerts
    long_key = dataclasses.replace(alert.event, dedup_key="k" * 300)
    bad = dataclasses.replace(bad, alerts=(dataclasses.replace(alert, event=long_key),))

    async def go() -> tuple[DeliveryBatcher, list[object]]:
        engine = create_engine(migrated_url)
        try:
            batcher = DeliveryBatcher(create_session_factory(engine))
            results = await asyncio.gather(
                *(_submit(batcher, d) for d in [*good[:2], bad, *good[2:]]), return_exceptions=True
            )
            return batcher, list(results)
        finally:
            await engine.dispose()

    batcher, results = asyncio.run(go())
    assert isinstance(results[2], ValueError)
    answers = [r for i, r in enumerate(results) if i != 2]
    assert all(isinstance(r, list) and len(r) == 1 for r in answers)
    assert batcher.fallbacks == 1
    assert _count(factory, Investigation) == 5 and _count(factory, WebhookDelivery) == 5


def test_concurrent_submissions_share_transactions(
    migrated_url: str, factory: Factory, org: OrgHandle
) -> None:
    agents = tuple(_agent(factory, org, f"agent {i}") for i in range(3))
    sub = factory.webhook(org, "PROVIDER_A", "pager")
    deliveries = [_delivery(sub.id, org, f"E{i}", f"INC-{i % 7}", agents) for i in range(40)]

    async def go() -> tuple[DeliveryBatcher, list[list[int]]]:
        engine = create_engine(migrated_url)
        try:
            batcher = DeliveryBatcher(create_session_factory(engine))
            return batcher, list(await asyncio.gather(*(_submit(batcher, d) for d in deliveries)))
        finally:
            await engine.dispose()

    batcher, answers = asyncio.run(go())
    assert batcher.batches < len(deliveries)  # the first goes alone, the rest wait together
    assert all(len(answer) == 3 for answer in answers)
    for i, answer in enumerate(answers):  # same incident, same investigations
        assert answer == answers[i % 7]
    assert _count(factory, Investigation) == 21 and _count(factory, Job) == 21
    assert _count(factory, WebhookDelivery) == 40


def test_two_processes_writing_the_same_deliveries_agree(
    migrated_url: str, factory: Factory, org: OrgHandle
) -> None:
    """Two engines (two nodes), each with its batcher, receive the same 30 deliveries at once:
    every delivery gets one answer on both, one record, one investigation per incident."""
    agents = tuple(_agent(factory, org, f"agent {i}") for i in range(2))
    sub = factory.webhook(org, "PROVIDER_A", "pager")
    deliveries = [_delivery(sub.id, org, f"E{i}", f"INC-{i % 10}", agents) for i in range(30)]

    async def node(order: list[Delivery]) -> dict[str, list[int]]:
        engine = create_engine(migrated_url)
        try:
            batcher = DeliveryBatcher(create_session_factory(engine))
            answers = await asyncio.gather(*(_submit(batcher, d) for d in order))
            return {d.alerts[0].event.delivery_id: a for d, a in zip(order, answers, strict=True)}
        finally:
            await engine.dispose()

    async def both() -> list[dict[str, list[int]]]:
        return list(await asyncio.gather(node(deliveries), node(deliveries[::-1])))

    one, other = asyncio.run(both())
    assert one == other
    assert _count(factory, WebhookDelivery) == 30
    assert _count(factory, Investigation) == 20 and _count(factory, Job) == 20


def _group(sub_id: int, org: OrgHandle, tag: str, size: int, agents: tuple[int, ...]) -> Delivery:
    """An Alertmanager delivery of ``size`` alerts (one Delivery, several DeliveredAlerts)."""
    from sleuth_core.intake import parse_alerts

    body = json.dumps(
        {
            "version": "4",
            "groupKey": f"{{}}:{{group={tag!r}}}",
            "status": "firing",
            "alerts": [
                {
                    "status": "firing",
                    "labels": {"alertname": f"{tag} {i}", "service": "checkout"},
                    "annotations": {"summary": f"{tag} alert {i}"},
                    "startsAt": "2026-11-23T10:00:00Z",
                    "fingerprint": f"{tag}-{i:04d}",
                }
                for i in range(size)
            ],
        }
    )
    events = parse_alerts("ALERTMANAGER", body, received_at=T0)
    return Delivery(
        subscription_id=sub_id,
        org_id=org.id,
        alerts=tuple(DeliveredAlert(e, e.body or body, agents) for e in events),
        now=T0,
    )


def test_a_delivery_of_many_alerts_is_written_whole_or_not_at_all(
    migrated_url: str, factory: Factory, org: OrgHandle
) -> None:
    # group_window_seconds 0: an investigation per alert, not one per group
    a = _agent(factory, org, "a", group_window_seconds=0)
    b = _agent(factory, org, "b", group_window_seconds=0)
    sub = factory.webhook(org, "ALERTMANAGER", "prometheus")
    # more alerts than one batch holds, more openings than one statement takes
    big = _group(sub.id, org, "big", 300, (a, b))
    small = _group(sub.id, org, "small", 3, (a,))
    broken = _group(sub.id, org, "broken", 3, (a,))
    long_key = dataclasses.replace(broken.alerts[1].event, dedup_key="k" * 300)
    broken = dataclasses.replace(
        broken,
        alerts=(
            broken.alerts[0],
            dataclasses.replace(broken.alerts[1], event=long_key),
            broken.alerts[2],
        ),
    )

    async def go() -> list[object]:
        engine = create_engine(migrated_url)
        try:
            batcher = DeliveryBatcher(create_session_factory(engine))
            return list(
                await asyncio.gather(
                    *(batcher.submit(d) for d in (big, broken, small)), return_exceptions=True
                )
            )
        finally:
            await engine.dispose()

    big_answer, broken_answer, small_answer = asyncio.run(go())
    assert isinstance(broken_answer, ValueError)
    assert isinstance(big_answer, list) and len(big_answer) == 300
    assert all(len(ids) == 2 for ids in big_answer)
    assert len({i for ids in big_answer for i in ids}) == 600
    assert isinstance(small_answer, list) and len(small_answer) == 3
    # nothing of the broken delivery was written, all of the others
    assert _count(factory, WebhookDelivery) == 303
    assert _count(factory, Investigation) == 603
