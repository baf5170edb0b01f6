"""Every alt-webhook and callback delivery carries ``X-Service-Delivery-Id``: the same on every
attempt of one notification (so receivers drop the repeats at-least-once delivery makes), another
for another notification."""

from __future__ import annotations

import asyncio

from callback_receiver import CallbackReceiver
from sqlalchemy import update

from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import Job, utcnow
from sleuth_shell.jobs import Worker
from sleuth_shell.notify.delivery import DELIVERY_ID_HEADER, enqueue_alt
from sleuth_shell.runtime import job_registry
from sleuth_shell.services import build_services


def test_an_alt_delivery_keeps_its_id_across_attempts(migrated_url: str, factory, org) -> None:
    settings = Settings.from_env(
        {"SLEUTH_DATABASE_URL": migrated_url, "SLEUTH_ALLOW_PRIVATE_URLS": "true"}
    )

    async def go(url: str) -> None:
        engine = create_engine(migrated_url)
        sessions = create_session_factory(engine)
        services = build_services(settings, sessions)
        worker = Worker(services, job_registry(), poll_interval=0.05)
        try:
            async with sessions() as session:
                await enqueue_alt(session, org.id, url, {"text": "one"})
                await enqueue_alt(session, org.id, url, {"text": "two"})
                await session.commit()
            await worker.run_until_idle()
            # the first attempt of "one" got a 500: its retry is due later; make it due now
            async with sessions() as session:
                await session.execute(
                    update(Job).where(Job.status == "pending").values(run_at=utcnow())
                )
                await session.commit()
            await worker.run_until_idle()
        finally:
            await services.aclose()
            await engine.dispose()

    with CallbackReceiver([500]) as receiver:
        asyncio.run(go(receiver.url + "/hook"))
        received = receiver.wait_for(3)
    ids = [
        {k.lower(): v for k, v in r.headers.items()}[DELIVERY_ID_HEADER.lower()] for r in received
    ]
    by_text: dict[str, set[str]] = {}
    for request, delivery_id in zip(received, ids, strict=True):
        by_text.setdefault(request.json()["text"], set()).add(delivery_id)
    assert sorted(len(v) for v in by_text.values()) == [1, 1]  # one id per notification
    assert by_text["one"] != by_text["two"]
    assert all(i.startswith("alt:") for i in ids)
    assert [r.json()["text"] for r in received].count("one") + [
        r.json()["text"] for r in received
    ].count("two") == 3
