"""Durable jobs: claim, lease, retry, failure, restart, and exclusive claims across workers."""

from __future__ import annotations

import asyncio
import collections
import random
from collections.abc import AsyncIterator, Callable
from datetime import timedelta

import pytest
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import Job, utcnow
from sleuth_shell.jobs import (
    DONE,
    FAILED,
    PENDING,
    RUNNING,
    JobContext,
    JobRegistry,
    LeaseLost,
    RetryJob,
    Worker,
    enqueue,
    queue,
)
from sleuth_shell.services import build_services

pytestmark = [pytest.mark.anyio, pytest.mark.storage]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Database:
    """A migrated, empty database and a way to open independent engines on it."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._engines: list[AsyncEngine] = []

    def sessions(self) -> async_sessionmaker[AsyncSession]:
        """A session factory over a new engine (a separate 'process' view of the database)."""
        engine = create_engine(self.url)
        self._engines.append(engine)
        return create_session_factory(engine)

    async def dispose(self) -> None:
        for engine in self._engines:
            await engine.dispose()


@pytest.fixture
async def db(migrated_url: str) -> AsyncIterator[Database]:
    """A migrated database: SQLite, and PostgreSQL too when ``SLEUTH_TEST_POSTGRES_URL`` is set."""
    database = Database(migrated_url)
    yield database
    await database.dispose()


def make_worker(
    db: Database, registry: JobRegistry, *, retry_base: float = 0.01, **kwargs: object
) -> Worker:
    settings = Settings(database_url=db.url)
    services = build_services(settings, db.sessions(), retry_base_seconds=retry_base)
    options: dict[str, object] = {"poll_interval": 0.05, "lease": 60.0, **kwargs}
    return Worker(services, registry, **options)  # type: ignore[arg-type]


async def add_jobs(
    db: Database, kind: str, payloads: list[dict[str, object]], **kwargs: object
) -> list[int]:
    async with db.sessions()() as session:
        jobs = [await enqueue(session, kind, p, **kwargs) for p in payloads]  # type: ignore[arg-type]
        await session.commit()
        return [job.id for job in jobs]


async def job_rows(db: Database) -> dict[int, Job]:
    async with db.sessions()() as session:
        return {job.id: job for job in (await session.scalars(select(Job))).all()}


async def wait_for(predicate: Callable[[], object], *, timeout: float = 10.0) -> None:
    """Poll ``predicate`` (sync or async) until true; fail after ``timeout`` seconds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        result = predicate()
        if asyncio.iscoroutine(result):
            result = await result
        if result:
            return
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached before the deadline")
        await asyncio.sleep(0.02)


async def test_enqueued_job_runs_once_and_is_done(db: Database) -> None:
    seen: list[object] = []
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        seen.append(ctx.payload["n"])

    registry.register("test.record", handler)
    [job_id] = await add_jobs(db, "test.record", [{"n": 7}])
    worker = make_worker(db, registry)
    assert await worker.run_until_idle() == 1
    assert await worker.run_until_idle() == 0
    assert seen == [7]
    row = (await job_rows(db))[job_id]
    assert row.status == DONE
    assert row.attempts == 1
    assert row.locked_by is None or row.lease_until is None


async def test_future_job_waits_for_its_time(db: Database) -> None:
    seen: list[object] = []
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        seen.append(ctx.payload["n"])

    registry.register("test.record", handler)
    await add_jobs(db, "test.record", [{"n": 1}], run_at=utcnow() + timedelta(hours=1))
    await add_jobs(db, "test.record", [{"n": 2}])
    worker = make_worker(db, registry)
    await worker.run_until_idle()
    assert seen == [2]
    rows = await job_rows(db)
    assert sorted(row.status for row in rows.values()) == [DONE, PENDING]


async def test_retry_with_backoff_then_failure_is_recorded(db: Database) -> None:
    attempts: list[int] = []
    failures: list[str] = []
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        attempts.append(ctx.job.attempt)
        raise RetryJob("receiver answered 503")

    async def on_failure(ctx: JobContext, session: AsyncSession, error: str) -> None:
        failures.append(error)

    registry.register("test.flaky", handler, on_failure=on_failure)
    [job_id] = await add_jobs(db, "test.flaky", [{}], max_attempts=3)
    worker = make_worker(db, registry, retry_base=0.05)
    await worker.start()
    try:
        await wait_for(lambda: len(failures) == 1)
    finally:
        await worker.stop()
    assert attempts == [1, 2, 3]
    row = (await job_rows(db))[job_id]
    assert row.status == FAILED
    assert row.last_error == "receiver answered 503 (after 3 attempts)"
    assert failures == [row.last_error]


async def test_retry_waits_for_backoff(db: Database) -> None:
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        raise RetryJob("later")

    registry.register("test.later", handler)
    [job_id] = await add_jobs(db, "test.later", [{}], max_attempts=5)
    worker = make_worker(db, registry, retry_base=100)
    before = utcnow()
    assert await worker.run_until_idle() == 1  # the retry is not due yet
    row = (await job_rows(db))[job_id]
    assert row.status == PENDING
    assert row.attempts == 1
    assert row.last_error == "later"
    assert row.run_at >= before + timedelta(seconds=100)


async def test_unexpected_error_fails_at_once_with_the_error(db: Database) -> None:
    calls: list[int] = []
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        calls.append(1)
        raise KeyError("interaction_id")

    registry.register("test.broken", handler)
    [job_id] = await add_jobs(db, "test.broken", [{}], max_attempts=5)
    await make_worker(db, registry).run_until_idle()
    row = (await job_rows(db))[job_id]
    assert calls == [1]
    assert row.status == FAILED
    assert row.last_error == "KeyError: 'interaction_id'"


async def test_unknown_kind_fails(db: Database) -> None:
    [job_id] = await add_jobs(db, "test.nobody", [{}])
    await make_worker(db, JobRegistry()).run_until_idle()
    row = (await job_rows(db))[job_id]
    assert row.status == FAILED
    assert row.last_error == "no handler registered for job kind 'test.nobody'"


async def test_expired_lease_is_reclaimed_and_run_by_another_worker(db: Database) -> None:
    seen: list[str] = []
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        seen.append(ctx.job.worker_id)

    registry.register("test.record", handler)
    [job_id] = await add_jobs(db, "test.record", [{}])
    # A worker claims the job and dies: nothing ever finishes or renews it.
    async with db.sessions()() as session:
        [dead] = await queue.claim_due(session, "dead-worker", limit=5, lease=timedelta(hours=1))
    assert dead.id == job_id

    survivor = make_worker(db, registry, worker_id="survivor")
    assert await survivor.run_until_idle() == 0  # still leased to the dead worker
    # Time passes: the lease runs out.
    async with db.sessions()() as session:
        await session.execute(
            Job.__table__.update()
            .where(Job.id == job_id)
            .values(lease_until=utcnow() - timedelta(seconds=1))
        )
        await session.commit()
    assert await survivor.run_until_idle() == 1
    assert seen == ["survivor"]
    row = (await job_rows(db))[job_id]
    assert row.status == DONE
    assert row.attempts == 2

    # The dead worker coming back cannot overwrite the outcome.
    async with db.sessions()() as session:
        await queue.mark_done(session, dead)
        with pytest.raises(LeaseLost):
            await session.commit()
        await session.rollback()
        assert not await queue.release(session, dead)
    assert (await job_rows(db))[job_id].status == DONE


async def test_job_recovered_too_often_is_abandoned(db: Database) -> None:
    failures: list[str] = []
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        raise AssertionError("must not run")

    async def on_failure(ctx: JobContext, session: AsyncSession, error: str) -> None:
        failures.append(error)

    registry.register("test.crashy", handler, on_failure=on_failure)
    [job_id] = await add_jobs(db, "test.crashy", [{}], max_attempts=1)
    async with db.sessions()() as session:
        await session.execute(Job.__table__.update().where(Job.id == job_id).values(attempts=4))
        await session.commit()
    await make_worker(db, registry).run_until_idle()
    row = (await job_rows(db))[job_id]
    assert row.status == FAILED
    assert row.last_error == "abandoned: its worker stopped during 4 attempts"
    assert failures == [row.last_error]


async def test_lease_is_renewed_while_a_long_job_runs(db: Database) -> None:
    release = asyncio.Event()
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        await release.wait()

    registry.register("test.long", handler)
    [job_id] = await add_jobs(db, "test.long", [{}])
    worker = make_worker(db, registry, lease=3.0)
    await worker.start()
    try:
        await wait_for(lambda: worker._running)
        first = (await job_rows(db))[job_id].lease_until
        assert first is not None

        async def renewed() -> bool:
            lease_until = (await job_rows(db))[job_id].lease_until
            return lease_until is not None and lease_until > first

        await wait_for(renewed)
        # Another worker never gets the job while its lease is being renewed.
        other = make_worker(db, registry, worker_id="other")
        assert await other.run_until_idle() == 0
        release.set()
        await wait_for(lambda: not worker._running)
    finally:
        release.set()
        await worker.stop()
    assert (await job_rows(db))[job_id].status == DONE


async def test_in_process_enqueue_wakes_the_worker(db: Database) -> None:
    done = asyncio.Event()
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        done.set()

    registry.register("test.wake", handler)
    # Polling every 60 s: only the wake-up can make the job run within the deadline.
    worker = make_worker(db, registry, poll_interval=60.0)
    await worker.start()
    try:
        await asyncio.sleep(0.1)  # let the worker reach its idle wait
        await add_jobs(db, "test.wake", [{}])
        await asyncio.wait_for(done.wait(), timeout=10)
    finally:
        await worker.stop()


async def test_graceful_stop_releases_a_running_job_for_the_next_worker(db: Database) -> None:
    started = asyncio.Event()
    runs: list[str] = []
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        runs.append(ctx.job.worker_id)
        if ctx.job.worker_id == "first":
            started.set()
            await asyncio.sleep(3600)

    registry.register("test.slow", handler)
    [job_id] = await add_jobs(db, "test.slow", [{}])
    first = make_worker(db, registry, worker_id="first", shutdown_timeout=0.1)
    await first.start()
    await asyncio.wait_for(started.wait(), timeout=10)
    await first.stop()
    row = (await job_rows(db))[job_id]
    assert row.status == PENDING
    assert row.attempts == 0
    assert row.locked_by is None

    second = make_worker(db, registry, worker_id="second")
    assert await second.run_until_idle() == 1
    assert runs == ["first", "second"]
    assert (await job_rows(db))[job_id].status == DONE


async def test_restart_runs_each_pending_scheduled_job_exactly_once(db: Database) -> None:
    runs: collections.Counter[int] = collections.Counter()
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        runs[int(ctx.payload["n"])] += 1  # type: ignore[call-overload]

    registry.register("test.scheduled", handler)
    later = utcnow() + timedelta(hours=1)
    scheduled = await add_jobs(db, "test.scheduled", [{"n": n} for n in range(5)], run_at=later)
    await add_jobs(db, "test.scheduled", [{"n": n} for n in range(5, 10)])

    first = make_worker(db, registry, worker_id="before-restart")
    await first.start()
    await wait_for(lambda: len(runs) == 5)
    await first.stop()  # the service stops before the scheduled jobs are due
    assert set(runs) == set(range(5, 10))

    # While the service is down, the scheduled time arrives.
    async with db.sessions()() as session:
        await session.execute(
            Job.__table__.update()
            .where(Job.id.in_(scheduled))
            .values(run_at=utcnow() - timedelta(seconds=1))
        )
        await session.commit()

    second = make_worker(db, registry, worker_id="after-restart")  # a new engine: a new process
    await second.start()
    try:
        await wait_for(lambda: len(runs) == 10)
        await wait_for(lambda: not second._running)
    finally:
        await second.stop()
    assert runs == collections.Counter({n: 1 for n in range(10)})
    assert {row.status for row in (await job_rows(db)).values()} == {DONE}


async def test_two_concurrent_workers_never_run_the_same_job(db: Database) -> None:
    runs: collections.Counter[int] = collections.Counter()
    by_worker: collections.Counter[str] = collections.Counter()
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        runs[int(ctx.payload["n"])] += 1  # type: ignore[call-overload]
        by_worker[ctx.job.worker_id] += 1
        await asyncio.sleep(0.002)

    registry.register("test.many", handler)
    total = 300
    await add_jobs(db, "test.many", [{"n": n} for n in range(total)])
    workers = [make_worker(db, registry, worker_id=f"w{i}", concurrency=8) for i in range(2)]
    for worker in workers:
        await worker.start()
    try:
        await wait_for(lambda: sum(runs.values()) >= total, timeout=180)
        for worker in workers:
            await wait_for(lambda w=worker: not w._running)
    finally:
        for worker in workers:
            await worker.stop()
    assert sorted(runs) == list(range(total))
    assert set(runs.values()) == {1}
    assert sum(by_worker.values()) == total
    assert {row.status for row in (await job_rows(db)).values()} == {DONE}


async def test_complete_in_handler_transaction_commits_result_and_completion(db: Database) -> None:
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        async with ctx.services.sessions() as session:
            await enqueue(session, "test.followup", {"from": ctx.job.id})
            await ctx.complete(session)
            await session.commit()

    registry.register("test.chain", handler)
    registry.register("test.followup", lambda ctx: asyncio.sleep(0))
    [job_id] = await add_jobs(db, "test.chain", [{}])
    worker = make_worker(db, registry)
    assert await worker.run_until_idle() == 2
    rows = await job_rows(db)
    assert rows[job_id].status == DONE
    followups = [row for row in rows.values() if row.kind == "test.followup"]
    assert [row.payload for row in followups] == [{"from": job_id}]
    assert followups[0].status == DONE


def test_registry_refuses_a_second_handler_for_a_kind() -> None:
    registry = JobRegistry()
    registry.register("a", lambda ctx: asyncio.sleep(0))
    with pytest.raises(ValueError, match="already registered"):
        registry.register("a", lambda ctx: asyncio.sleep(0))
    assert list(registry) == ["a"]
    assert "a" in registry and "b" not in registry


async def test_worker_purges_old_done_jobs_and_keeps_failed_ones(db: Database) -> None:
    registry = JobRegistry()
    registry.register("test.noop", lambda ctx: asyncio.sleep(0))
    old_done, old_failed, recent_done = await add_jobs(db, "test.noop", [{}, {}, {}])
    long_ago = utcnow() - timedelta(days=8)
    async with db.sessions()() as session:
        for job_id, status, when in (
            (old_done, DONE, long_ago),
            (old_failed, FAILED, long_ago),
            (recent_done, DONE, utcnow()),
        ):
            await session.execute(
                Job.__table__.update()
                .where(Job.id == job_id)
                .values(status=status, updated_at=when)
            )
        await session.commit()
    worker = make_worker(db, registry)
    await worker.start()
    try:
        await wait_for(lambda: worker._next_purge > 0)
    finally:
        await worker.stop()
    assert sorted(await job_rows(db)) == [old_failed, recent_done]


# --- keys: cancel(kind, key), unfinished_keys, duplicate_of ---------------------------------------


async def set_status(db: Database, job_id: int, status: str, **values: object) -> None:
    async with db.sessions()() as session:
        await session.execute(
            Job.__table__.update().where(Job.id == job_id).values(status=status, **values)
        )
        await session.commit()


async def test_enqueue_stores_the_key_and_the_claim_carries_it(db: Database) -> None:
    seen: list[str | None] = []
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        seen.append(ctx.job.key)

    registry.register("test.keyed", handler)
    keyed, unkeyed = await add_jobs(db, "test.keyed", [{"n": 1}], key="digest-7") + await add_jobs(
        db, "test.keyed", [{"n": 2}]
    )
    rows = await job_rows(db)
    assert (rows[keyed].key, rows[unkeyed].key) == ("digest-7", None)
    await make_worker(db, registry).run_until_idle()
    assert sorted(seen, key=str) == [None, "digest-7"]


@pytest.mark.parametrize("key", ["", "k" * (queue.MAX_KEY_LENGTH + 1)])
async def test_enqueue_refuses_an_empty_or_overlong_key(db: Database, key: str) -> None:
    async with db.sessions()() as session:
        with pytest.raises(ValueError, match="job key"):
            await enqueue(session, "test.keyed", {}, key=key)
    assert await job_rows(db) == {}


async def test_cancel_deletes_only_pending_jobs_of_that_kind_and_key(db: Database) -> None:
    pending_a, pending_b = await add_jobs(db, "test.keyed", [{"n": 1}, {"n": 2}], key="a")
    running, done, failed = await add_jobs(db, "test.keyed", [{}, {}, {}], key="a")
    other_key = (await add_jobs(db, "test.keyed", [{}], key="b"))[0]
    other_kind = (await add_jobs(db, "test.other", [{}], key="a"))[0]
    unkeyed = (await add_jobs(db, "test.keyed", [{}]))[0]
    await set_status(db, running, "running", locked_by="w1", lease_until=utcnow())
    await set_status(db, done, DONE)
    await set_status(db, failed, FAILED)
    async with db.sessions()() as session:
        assert await queue.cancel(session, "test.keyed", "a") == 2
        await session.rollback()  # cancelling is part of the caller's transaction
    assert pending_a in await job_rows(db)
    async with db.sessions()() as session:
        assert await queue.cancel(session, "test.keyed", "a") == 2
        await session.commit()
    assert sorted(await job_rows(db)) == sorted(
        [running, done, failed, other_key, other_kind, unkeyed]
    )
    assert pending_b not in await job_rows(db)
    async with db.sessions()() as session:
        assert await queue.cancel(session, "test.keyed", "a") == 0


async def test_a_cancelled_job_never_runs(db: Database) -> None:
    seen: list[object] = []
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        seen.append(ctx.payload["n"])

    registry.register("test.keyed", handler)
    await add_jobs(db, "test.keyed", [{"n": 1}], key="gone")
    await add_jobs(db, "test.keyed", [{"n": 2}], key="kept")
    async with db.sessions()() as session:
        await queue.cancel(session, "test.keyed", "gone")
        await session.commit()
    assert await make_worker(db, registry).run_until_idle() == 1
    assert seen == [2]


async def test_unfinished_keys_are_those_of_pending_and_running_jobs(db: Database) -> None:
    await add_jobs(db, "test.keyed", [{}, {}], key="pending")
    running, done, failed = [
        (await add_jobs(db, "test.keyed", [{}], key=key))[0]
        for key in ("running", "done", "failed")
    ]
    await add_jobs(db, "test.other", [{}], key="other-kind")
    await add_jobs(db, "test.keyed", [{}])
    await set_status(db, running, "running", locked_by="w1", lease_until=utcnow())
    await set_status(db, done, DONE)
    await set_status(db, failed, FAILED)
    async with db.sessions()() as session:
        assert await queue.unfinished_keys(session, "test.keyed") == {"pending", "running"}
        assert await queue.unfinished_keys(session, "test.missing") == set()


async def test_duplicate_of_finds_done_or_earlier_running_twins_only(db: Database) -> None:
    payload = {"digest_id": 1, "fire_at": 100}
    ids = await add_jobs(db, "test.keyed", [payload] * 4, key="1")
    first, second, third, fourth = ids
    await add_jobs(db, "test.keyed", [{"digest_id": 1, "fire_at": 200}], key="1")
    async with db.sessions()() as session:
        [claimed] = await queue.claim_due(session, "w1", limit=1, lease=timedelta(minutes=1))
    assert (claimed.id, claimed.key) == (first, "1")

    async def duplicate(job_id: int) -> int | None:
        rows = await job_rows(db)
        row = rows[job_id]
        job = queue.ClaimedJob(
            id=row.id,
            kind=row.kind,
            payload=row.payload,
            attempt=1,
            max_attempts=1,
            run_at=row.run_at,
            worker_id="w2",
            key=row.key,
        )
        async with db.sessions()() as session:
            return await queue.duplicate_of(session, job)

    # first is running: a later twin defers to it, first itself has no earlier twin.
    assert await duplicate(first) is None
    assert await duplicate(second) == first
    # once done it is the twin of every other job with that payload, earlier or later.
    await set_status(db, first, DONE)
    await set_status(db, second, "running", locked_by="w2", lease_until=utcnow())
    assert await duplicate(second) == first
    # failed jobs did not do the work.
    await set_status(db, first, FAILED)
    assert await duplicate(third) == second  # running and earlier
    await set_status(db, second, FAILED)
    assert await duplicate(third) is None
    assert await duplicate(fourth) is None  # a pending twin is no duplicate either


async def test_duplicate_of_needs_a_key(db: Database) -> None:
    first, second = await add_jobs(db, "test.unkeyed", [{"n": 1}, {"n": 1}])
    await set_status(db, first, DONE)
    job = queue.ClaimedJob(
        id=second,
        kind="test.unkeyed",
        payload={"n": 1},
        attempt=1,
        max_attempts=1,
        run_at=utcnow(),
        worker_id="w1",
    )
    async with db.sessions()() as session:
        assert await queue.duplicate_of(session, job) is None


# --- waking, concurrency, isolation (issue 11) ---------------------------------------------------
# No timed assertions: the deadlines below only keep a broken worker from hanging the suite; every
# worker polls every 60 s, so only the behaviour under test can make the job run in time.


async def _insert_without_wakeup(db: Database, kind: str, run_at_in: float) -> int:
    """A pending job written as another process would: no in-process wake-up follows."""
    now = utcnow()
    async with db.sessions()() as session:
        job = Job(
            kind=kind,
            payload={},
            run_at=now + timedelta(seconds=run_at_in),
            status=PENDING,
            attempts=0,
            max_attempts=1,
            created_at=now,
            updated_at=now,
        )
        session.add(job)
        await session.commit()
        return job.id


async def test_the_worker_sleeps_until_the_earliest_due_job_and_never_starts_it_early(
    db: Database,
) -> None:
    started_at: list[object] = []
    done = asyncio.Event()
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        started_at.append(utcnow())
        done.set()

    registry.register("test.due", handler)
    job_id = await _insert_without_wakeup(db, "test.due", 0.3)
    worker = make_worker(db, registry, poll_interval=60.0)
    await worker.start()
    try:
        await asyncio.wait_for(done.wait(), timeout=10)
    finally:
        await worker.stop()
    row = (await job_rows(db))[job_id]
    assert row.status == DONE
    assert started_at[0] >= row.run_at  # type: ignore[operator]


async def test_an_enqueue_earlier_than_the_wake_up_wakes_the_worker(db: Database) -> None:
    ran: list[str] = []
    done = asyncio.Event()
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        ran.append(str(ctx.payload["name"]))
        done.set()

    registry.register("test.order", handler)
    # The worker's next wake-up is for a job an hour ahead (capped by the 60 s poll)...
    await add_jobs(db, "test.order", [{"name": "later"}], run_at=utcnow() + timedelta(hours=1))
    worker = make_worker(db, registry, poll_interval=60.0)
    await worker.start()
    try:
        await wait_for(lambda: worker._wake is not None and not worker._wake.is_set())
        # ...then a job due now is enqueued in this process: it runs at once.
        await add_jobs(db, "test.order", [{"name": "now"}])
        await asyncio.wait_for(done.wait(), timeout=10)
    finally:
        await worker.stop()
    assert ran == ["now"]


async def test_claimed_jobs_run_concurrently(db: Database) -> None:
    """Job A waits for job B: with one job at a time this could never finish."""
    b_ran = asyncio.Event()
    finished: list[str] = []
    registry = JobRegistry()

    async def handler(ctx: JobContext) -> None:
        name = str(ctx.payload["name"])
        if name == "a":
            await b_ran.wait()
        else:
            b_ran.set()
        finished.append(name)

    registry.register("test.pair", handler)
    await add_jobs(db, "test.pair", [{"name": "a"}, {"name": "b"}])
    worker = make_worker(db, registry, concurrency=4)
    await worker.start()
    try:
        await wait_for(lambda: len(finished) == 2)
    finally:
        await worker.stop()
    assert finished == ["b", "a"]
    assert {row.status for row in (await job_rows(db)).values()} == {DONE}


async def test_a_slow_kind_cannot_take_every_slot(db: Database) -> None:
    """Callbacks to a target that never answers hold at most the kind's share of the slots;
    other work enqueued after them still runs, and they finish once the target answers."""
    release = asyncio.Event()
    slow_running = 0
    most_slow_at_once = 0
    fast_done = asyncio.Event()
    registry = JobRegistry()

    async def slow(ctx: JobContext) -> None:
        nonlocal slow_running, most_slow_at_once
        slow_running += 1
        most_slow_at_once = max(most_slow_at_once, slow_running)
        try:
            await release.wait()
        finally:
            slow_running -= 1

    async def fast(ctx: JobContext) -> None:
        fast_done.set()

    registry.register("test.slow_target", slow)
    registry.register("test.other", fast)
    slow_ids = await add_jobs(db, "test.slow_target", [{"n": i} for i in range(6)])
    [fast_id] = await add_jobs(db, "test.other", [{}])
    worker = make_worker(db, registry, concurrency=4, kind_share=0.5, poll_interval=60.0)
    await worker.start()
    try:
        await asyncio.wait_for(fast_done.wait(), timeout=10)
        assert slow_running == 2  # the slow kind's share of 4 slots, still blocked
        release.set()
        await wait_for(lambda: _all_done(db, [*slow_ids, fast_id]), timeout=20)
    finally:
        release.set()
        await worker.stop()
    assert most_slow_at_once == 2


async def _all_done(db: Database, ids: list[int]) -> bool:
    rows = await job_rows(db)
    return all(rows[i].status == DONE for i in ids)


async def test_finish_many_marks_the_held_jobs_in_one_statement(db: Database) -> None:
    ids = await add_jobs(db, "test.batch", [{"n": i} for i in range(3)])
    async with db.sessions()() as session:
        claimed = await queue.claim_due(session, "w1", limit=3, lease=timedelta(seconds=60))
    assert sorted(job.id for job in claimed) == sorted(ids)
    # Job 0 was taken over by another worker meanwhile: it is not this worker's to finish.
    async with db.sessions()() as session:
        await queue.release(session, claimed[0])
        marked = await queue.finish_many(session, claimed)
    assert marked == {job.id for job in claimed[1:]}
    rows = await job_rows(db)
    assert rows[claimed[0].id].status == PENDING
    assert all(rows[job.id].status == DONE for job in claimed[1:])


async def test_jobs_that_finish_together_are_marked_done_together(db: Database) -> None:
    registry = JobRegistry()
    gate = asyncio.Event()
    started = 0

    async def handler(ctx: JobContext) -> None:
        nonlocal started
        started += 1
        if started == 5:
            gate.set()
        await gate.wait()

    registry.register("test.together", handler)
    ids = await add_jobs(db, "test.together", [{"n": i} for i in range(5)])
    calls: list[int] = []
    original = queue.finish_many

    async def spy(session: AsyncSession, jobs: list[queue.ClaimedJob]) -> set[int]:
        calls.append(len(jobs))
        return await original(session, jobs)

    queue.finish_many = spy  # type: ignore[assignment]
    try:
        worker = make_worker(db, registry, concurrency=8)
        await worker.start()
        try:
            await wait_for(lambda: _all_done(db, ids))
        finally:
            await worker.stop()
    finally:
        queue.finish_many = original  # type: ignore[assignment]
    assert sum(calls) == 5
    assert len(calls) < 5  # at least two completions shared one statement


async def test_claims_take_the_oldest_due_jobs_like_a_reference(db: Database) -> None:
    """Differential: over random queues (pending, running with live or expired leases, done;
    three kinds; ties in ``run_at``), a claim takes exactly the ``limit`` oldest due jobs by
    ``(run_at, id)`` that are not of an excluded kind, as a plain Python reading of the rule
    picks them (SQLite claims through two index-ordered branches, PostgreSQL through one
    ``SKIP LOCKED`` select: queue._due_ids)."""
    rng = random.Random(11)
    sessions = db.sessions()
    cut = 0  # scenarios with more due jobs than the claim may take
    for scenario in range(12):
        now = utcnow()
        async with sessions() as session:
            await session.execute(delete(Job))
            for _ in range(rng.randint(0 if scenario == 0 else 10, 60)):
                status = rng.choice([PENDING, PENDING, RUNNING, DONE])
                offset = timedelta(seconds=rng.choice([-90, -60, -30, -30, 0, 30, 60]))
                lease = None
                if status == RUNNING:
                    lease = now + timedelta(seconds=rng.choice([-20, -5, 5, 20]))
                session.add(
                    Job(
                        kind=rng.choice(["k.a", "k.b", "k.c"]),
                        payload={},
                        run_at=now + offset,
                        status=status,
                        attempts=1 if status == RUNNING else 0,
                        max_attempts=5,
                        lease_until=lease,
                        locked_by="other" if status == RUNNING else None,
                        created_at=now,
                        updated_at=now,
                    )
                )
            await session.commit()
        rows = await job_rows(db)
        limit = rng.randint(1, 8)  # usually fewer than are due: which ones is the question
        exclude = rng.sample(["k.a", "k.b", "k.c"], rng.randint(0, 2))
        # Due as of the claim (a little after ``now``: none of the offsets is that close to it).
        due = [
            job
            for job in rows.values()
            if job.kind not in exclude
            and (
                (job.status == PENDING and job.run_at <= now)
                or (job.status == RUNNING and job.lease_until is not None and job.lease_until < now)
            )
        ]
        expected = [job.id for job in sorted(due, key=lambda j: (j.run_at, j.id))[:limit]]
        cut += len(due) > limit
        async with sessions() as session:
            claimed = await queue.claim_due(
                session, "w1", limit=limit, lease=timedelta(minutes=1), exclude_kinds=exclude
            )
        assert [job.id for job in claimed] == expected, scenario
        after = await job_rows(db)
        assert all(after[i].status == RUNNING and after[i].locked_by == "w1" for i in expected)
        untouched = set(rows) - set(expected)
        assert all(after[i].locked_by == rows[i].locked_by for i in untouched)
    assert cut >= 6
