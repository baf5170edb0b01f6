"""HTTP deliveries in the worker's I/O lane: connections reused, one organization's hung or refusing
receiver never delays another organization's deliveries nor other work (issue 25).

Real parts: the real worker loop and job registry, real receivers on 127.0.0.1 (an HTTP/1.1
server, a socket that accepts and never answers, a closed port). Assertions are about what
arrived while something else was still hanging, not about wall-clock durations.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import pytest
from callback_receiver import CallbackReceiver
from sqlalchemy import select

from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import Job
from sleuth_shell.jobs import JobContext, Worker, enqueue
from sleuth_shell.notify.delivery import ALT_KIND, delivery_key, enqueue_alt
from sleuth_shell.notify.http import AiohttpPoster
from sleuth_shell.runtime import job_registry
from sleuth_shell.services import build_services

pytestmark = [pytest.mark.storage]

TICK = "test.tick"


@contextmanager
def hung_target() -> Iterator[str]:
    """A URL whose server accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/hook"


@contextmanager
def refusing_target() -> Iterator[str]:
    """A URL on a port nothing listens on (connections refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    yield f"http://127.0.0.1:{port}/hook"


@asynccontextmanager
async def running_worker(migrated_url: str, ticks: list[int]) -> AsyncIterator[Worker]:
    """The real worker loop (production registry plus a plain ``test.tick`` kind), with a
    poster whose timeout (60 s) outlasts every wait of these tests: a hung POST stays hung."""
    settings = Settings.from_env(
        {"SLEUTH_DATABASE_URL": migrated_url, "SLEUTH_ALLOW_PRIVATE_URLS": "true"}
    )
    engine = create_engine(migrated_url)
    sessions = create_session_factory(engine)
    services = build_services(settings, sessions, poster=AiohttpPoster(timeout=60))
    registry = job_registry()

    async def tick(ctx: JobContext) -> None:
        ticks.append(int(str(ctx.payload["n"])))

    registry.register(TICK, tick)
    worker = Worker(services, registry, poll_interval=0.05, shutdown_timeout=0.5)
    await worker.start()
    try:
        yield worker
    finally:
        await worker.stop()
        await services.aclose()
        await engine.dispose()


async def _enqueue_alts(migrated_url: str, org_id: int, url: str, count: int) -> None:
    engine = create_engine(migrated_url)
    try:
        async with create_session_factory(engine)() as session:
            for n in range(count):
                await enqueue_alt(session, org_id, url, {"text": f"{org_id}-{n}"})
            await session.commit()
    finally:
        await engine.dispose()


async def _jobs_of(migrated_url: str, key: str) -> list[Job]:
    engine = create_engine(migrated_url)
    try:
        async with create_session_factory(engine)() as session:
            return list(await session.scalars(select(Job).where(Job.key == key)))
    finally:
        await engine.dispose()


async def _until(condition, what: str, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    """Poll ``condition`` (a plain callable) until true; fail after ``timeout`` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def test_deliveries_to_one_target_reuse_connections(migrated_url: str, factory) -> None:  # type: ignore[no-untyped-def]
    org = factory.org("reuse")
    count = 40

    async def go(receiver: CallbackReceiver) -> int:
        async with running_worker(migrated_url, []) as worker:
            await _enqueue_alts(migrated_url, org.id, receiver.url + "/hook", count)
            worker.wake()
            await _until(lambda: len(list(receiver)) >= count, f"{count} deliveries")
            return worker.key_limit

    with CallbackReceiver(keep_alive=True) as receiver:
        key_limit = asyncio.run(go(receiver))
        received = list(receiver)
    assert sorted(r.json()["text"] for r in received) == sorted(
        f"{org.id}-{n}" for n in range(count)
    )
    connections = {r.peer for r in received}
    # several deliveries per connection: never more connections than deliveries in flight
    assert len(connections) <= key_limit < count


@pytest.mark.parametrize("failure", ["hangs", "refuses"])
def test_a_broken_receiver_never_delays_other_orgs(
    migrated_url: str,
    factory,  # type: ignore[no-untyped-def]
    failure: str,
) -> None:
    org_a, org_b = factory.org("broken"), factory.org("healthy")
    ticks: list[int] = []

    async def go(bad_url: str, receiver: CallbackReceiver) -> tuple[list[Job], int]:
        # A's deliveries are queued first (older: claimed first), then B's and other work.
        await _enqueue_alts(migrated_url, org_a.id, bad_url, 100)
        async with running_worker(migrated_url, ticks) as worker:
            await asyncio.sleep(0.3)  # A's deliveries are claimed and hanging / refused
            await _enqueue_alts(migrated_url, org_b.id, receiver.url + "/hook", 20)
            engine = create_engine(migrated_url)
            async with create_session_factory(engine)() as session:
                for n in range(50):
                    await enqueue(session, TICK, {"n": n})
                await session.commit()
            await engine.dispose()
            worker.wake()
            await _until(lambda: len(list(receiver)) >= 20 and len(ticks) >= 50, "B and ticks")
            a_jobs = await _jobs_of(migrated_url, delivery_key(org_a.id, bad_url))
            return a_jobs, worker.key_limit

    target = hung_target() if failure == "hangs" else refusing_target()
    with target as bad_url, CallbackReceiver() as receiver:
        a_jobs, key_limit = asyncio.run(go(bad_url, receiver))
        received = list(receiver)

    assert sorted(r.json()["text"] for r in received) == sorted(
        f"{org_b.id}-{n}" for n in range(20)
    )
    assert sorted(ticks) == list(range(50))
    assert len(a_jobs) == 100 and {job.kind for job in a_jobs} == {ALT_KIND}
    if failure == "hangs":
        # Every one of A's attempts was still hanging when B's last delivery arrived: no attempt
        # had ended (none retried or failed), and A held no more than its key's share of slots.
        assert all(job.last_error is None for job in a_jobs)
        running = [job for job in a_jobs if job.status == "running"]
        assert 1 <= len(running) <= key_limit
    else:
        # A's attempts were refused (and rescheduled) while B's deliveries went through.
        assert any(job.last_error for job in a_jobs)
        assert all(job.status != "done" for job in a_jobs)
