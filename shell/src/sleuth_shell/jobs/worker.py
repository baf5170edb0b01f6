"""The worker loop: claim due jobs, run their handlers, record the outcome.

One loop serves both ``sleuth serve`` (in-process, unless ``SLEUTH_WORKERS_INLINE=false``) and
``sleuth worker``. Any number of workers may share one database:

- it sleeps until the earliest due job (the smallest ``run_at`` of a pending job, or lease expiry
  of a running one), never longer than ``poll_interval`` seconds (0.5 s by default: the bound for
  jobs enqueued by another process), and wakes at once when a job is enqueued and committed in
  the same process or one of its own jobs finishes; a job never starts before its ``run_at``;
- it claims as many due jobs as it has free slots in one statement, and runs up to
  ``concurrency`` jobs at a time (32 by default), each in its own task; no kind may take more
  than ``kind_share`` of the slots (3/4 by default), so one kind of work cannot stall the others;
- jobs of ``io_bound`` kinds (the notification deliveries, which wait on other people's servers)
  run in a lane of their own: up to ``io_concurrency`` (128) at a time beside the other jobs,
  claimed in their own statement, so a callback never waits for a slot behind a backlog of runs
  and a run never waits behind callbacks; at most ``key_limit`` (16) of them with one ``key`` (one
  organization's target) talk to it at a time (a handler calls ``ctx.target_done()`` once its
  POST is answered, so recording the outcome does not hold the key), and jobs of a key at its
  limit are left in the queue for later, so a slow or dead receiver holds ``key_limit`` slots of
  the lane and never delays the other keys' deliveries;
- it keeps the leases of running jobs alive (renewed every third of ``lease``), so a job is
  held by exactly one live worker;
- handlers that do not complete their job in their own transaction are marked done in batches
  (one statement for all the jobs that finished together); handlers write through
  ``JobContext.write``, which commits the writes of the jobs finishing together in one
  transaction (:mod:`sleuth_shell.jobs.batch`);
- a job whose worker died is claimed again once its lease has expired; after
  :data:`LEASE_RECOVERIES` such recoveries beyond ``max_attempts`` it is failed as abandoned
  (a job that kills its worker cannot loop forever);
- ``done`` jobs older than ``keep_done`` (7 days) are deleted every 10 minutes; failed jobs stay;
- :meth:`Worker.stop` is graceful: no new claims, running jobs get ``shutdown_timeout`` seconds to
  finish, and the ones still running are cancelled and released (pending again, attempt not
  counted) so the next worker picks them up at once.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import socket
import traceback
import uuid
from datetime import timedelta
from typing import Any

from sleuth_shell.db.models import utcnow
from sleuth_shell.jobs import queue
from sleuth_shell.jobs.batch import WriteBatcher
from sleuth_shell.jobs.queue import ClaimedJob, LeaseLost
from sleuth_shell.jobs.registry import (
    JobContext,
    JobFailed,
    JobRegistry,
    RetryJob,
    WorkerServices,
)

__all__ = ["LEASE_RECOVERIES", "PURGE_INTERVAL", "Worker"]

log = logging.getLogger("sleuth.jobs")

#: How many times a job may be recovered from a dead worker beyond its ``max_attempts``.
LEASE_RECOVERIES = 3
#: Seconds between two purges of old ``done`` jobs (failed jobs are kept for inspection).
PURGE_INTERVAL = 600.0


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Worker:
    """Claims and runs jobs until stopped. Use :meth:`start`/:meth:`stop` or ``await run()``."""

    def __init__(
        self,
        services: WorkerServices,
        registry: JobRegistry,
        *,
        worker_id: str | None = None,
        concurrency: int = 32,
        io_concurrency: int = 128,
        key_limit: int = 16,
        poll_interval: float = 0.5,
        kind_share: float = 0.75,
        lease: float = 60.0,
        shutdown_timeout: float = 10.0,
        keep_done: timedelta = timedelta(days=7),
    ) -> None:
        if concurrency < 1 or io_concurrency < 1 or key_limit < 1:
            raise ValueError("concurrency, io_concurrency and key_limit must be at least 1")
        if poll_interval <= 0 or lease <= 0:
            raise ValueError("poll_interval and lease must be positive")
        if not 0 < kind_share <= 1:
            raise ValueError("kind_share must be in (0, 1]")
        self.services = services
        self.registry = registry
        self.worker_id = worker_id or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.concurrency = concurrency
        self.kind_limit = max(1, int(concurrency * kind_share))
        """At most this many jobs of one kind run at a time (I/O-bound kinds excepted)."""
        self.io_concurrency = io_concurrency
        self.key_limit = key_limit
        """At most this many jobs of I/O-bound kinds with one key run at a time."""
        self.poll_interval = poll_interval
        self.lease = timedelta(seconds=lease)
        self.shutdown_timeout = shutdown_timeout
        self.keep_done = keep_done
        self._next_purge = 0.0
        self._running: dict[asyncio.Task[None], ClaimedJob] = {}
        self._done_with_target: set[int] = set()
        """Running I/O-bound jobs past their POST (recording the outcome): not counted per key."""
        self._stopping = False
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._waker_handle: object | None = None
        self._to_finish: list[tuple[ClaimedJob, asyncio.Future[None]]] = []
        self._finisher: asyncio.Task[None] | None = None
        self.writer = WriteBatcher(services.sessions)
        """Commits the writes the running jobs submit together (``JobContext.write``)."""

    # --- lifecycle ------------------------------------------------------------------------------

    def wake(self) -> None:
        """Make the loop look for due jobs now (safe to call from any thread)."""
        loop, event = self._loop, self._wake
        if loop is None or event is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            event.set()
        else:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(event.set)

    async def start(self) -> None:
        """Start the loop as a background task of the running event loop."""
        if self._task is not None:
            raise RuntimeError("worker already started")
        self._task = asyncio.create_task(self.run(), name=f"sleuth-worker-{self.worker_id}")

    async def stop(self) -> None:
        """Stop gracefully (see the module docstring) and wait until the loop has ended."""
        self._stopping = True
        self.wake()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def run(self) -> None:
        """Claim and run jobs until :meth:`stop` is called."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._waker_handle = queue.register_waker(self.wake)
        log.info("worker %s started", self.worker_id)
        try:
            while not self._stopping:
                self._wake.clear()
                await self._maybe_purge()
                io_kinds = self.registry.io_bound_kinds()
                more = False
                for io_lane in (False, True):
                    asked = self._claim_limit(io_lane, io_kinds)
                    claimed = await self._claim(asked, io_lane, io_kinds)
                    for job in claimed:
                        task = asyncio.create_task(self._run_job(job))
                        self._running[task] = job
                        task.add_done_callback(self._job_finished)
                    more = more or (asked > 0 and len(claimed) == asked)
                if more:
                    continue  # got all it asked for: more may be due, look again
                timeout = await self._idle_timeout()
                if timeout > 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._wake.wait(), timeout)
        finally:
            await self._shutdown()
            self._waker_handle = None
            log.info("worker %s stopped", self.worker_id)

    async def _idle_timeout(self) -> float:
        """Seconds until the earliest due job, at most ``poll_interval`` (0: look again now)."""
        io_kinds = self.registry.io_bound_kinds()
        if self._lane_full(False, io_kinds) and self._lane_full(True, io_kinds):
            return self.poll_interval  # a finishing job wakes the loop
        try:
            async with self.services.sessions() as session:
                due = await queue.next_due(session)
        except Exception:
            log.exception("worker %s could not read the next due time", self.worker_id)
            return self.poll_interval
        if due is None:
            return self.poll_interval
        wait = (due - utcnow()).total_seconds()
        if wait <= 0:
            # Due now but not claimed: jobs of kinds or keys at their limit, or of a full lane (a
            # finishing job wakes us), or another worker's claim raced ours.
            blocked = (
                self._saturated_kinds(io_kinds)
                or self._saturated_keys(io_kinds)
                or self._lane_full(False, io_kinds)
                or self._lane_full(True, io_kinds)
            )
            return self.poll_interval if blocked else 0.0
        # A timer may fire a little early; the claim never takes a job before its run_at.
        return min(wait + 0.001, self.poll_interval)

    def _lane(self, io_lane: bool, io_kinds: frozenset[str]) -> list[ClaimedJob]:
        """The running jobs of one lane (the I/O-bound kinds', or the others')."""
        return [job for job in self._running.values() if (job.kind in io_kinds) is io_lane]

    def _lane_full(self, io_lane: bool, io_kinds: frozenset[str]) -> bool:
        size = self.io_concurrency if io_lane else self.concurrency
        return len(self._lane(io_lane, io_kinds)) >= size

    def _kind_counts(self, io_kinds: frozenset[str]) -> collections.Counter[str]:
        return collections.Counter(job.kind for job in self._lane(False, io_kinds))

    def _key_counts(self, io_kinds: frozenset[str]) -> collections.Counter[str]:
        jobs = self._lane(True, io_kinds)
        return collections.Counter(
            job.key for job in jobs if job.key is not None and job.id not in self._done_with_target
        )

    def _saturated_kinds(self, io_kinds: frozenset[str]) -> set[str]:
        counts = self._kind_counts(io_kinds)
        return {kind for kind, count in counts.items() if count >= self.kind_limit}

    def _saturated_keys(self, io_kinds: frozenset[str]) -> set[str]:
        counts = self._key_counts(io_kinds)
        return {key for key, count in counts.items() if count >= self.key_limit}

    def _claim_limit(self, io_lane: bool, io_kinds: frozenset[str]) -> int:
        """How many jobs of a lane to claim now: its free slots, but no more than any kind (in
        the I/O lane: key) that may still be claimed has left of its share (so one claim cannot
        overfill a kind or a key)."""
        if io_lane:
            if not io_kinds:
                return 0
            size, share, counts = self.io_concurrency, self.key_limit, self._key_counts(io_kinds)
        else:
            size, share, counts = self.concurrency, self.kind_limit, self._kind_counts(io_kinds)
        free = size - len(self._lane(io_lane, io_kinds))
        open_counts = [count for count in counts.values() if count < share]
        return max(0, min(free, share - max(open_counts, default=0)))

    async def _maybe_purge(self) -> None:
        """Every :data:`PURGE_INTERVAL` seconds, delete ``done`` jobs older than ``keep_done``."""
        now = asyncio.get_running_loop().time()
        if now < self._next_purge:
            return
        self._next_purge = now + PURGE_INTERVAL
        try:
            async with self.services.sessions() as session:
                removed = await queue.purge_finished(session, utcnow() - self.keep_done)
        except Exception:
            log.exception("worker %s could not purge finished jobs", self.worker_id)
            return
        if removed:
            log.info("worker %s purged %d finished jobs", self.worker_id, removed)

    def _job_finished(self, task: asyncio.Task[None]) -> None:
        job = self._running.pop(task, None)
        if job is not None:
            self._done_with_target.discard(job.id)
        if self._wake is not None:
            self._wake.set()

    def _target_done(self, job: ClaimedJob) -> None:
        """A delivery no longer talks to its target: its key may take another job (at the next
        claim; the job's own end wakes the loop soon after)."""
        self._done_with_target.add(job.id)

    async def _shutdown(self) -> None:
        if self._running:
            tasks = list(self._running)
            _done, pending = await asyncio.wait(tasks, timeout=self.shutdown_timeout)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending)
        await self.writer.aclose()

    async def run_until_idle(self, *, max_rounds: int = 1000) -> int:
        """Run due jobs until none is due (tests, one-shot draining). Returns how many ran."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        count = 0
        for _ in range(max_rounds):
            claimed = await self._claim(limit=self.concurrency)
            if not claimed:
                break
            count += len(claimed)
            await asyncio.gather(*(self._run_job(job) for job in claimed))
        return count

    # --- one job ----------------------------------------------------------------------------------

    async def _claim(
        self, limit: int, io_lane: bool = False, io_kinds: frozenset[str] = frozenset()
    ) -> list[ClaimedJob]:
        """Claim up to ``limit`` due jobs of a lane (no lanes: ``run_until_idle``'s claim)."""
        if limit <= 0:
            return []
        if io_lane:
            lane: dict[str, Any] = {
                "only_kinds": io_kinds,
                "exclude_keys": self._saturated_keys(io_kinds),
            }
        else:
            lane = {"exclude_kinds": self._saturated_kinds(io_kinds) | io_kinds}
        try:
            async with self.services.sessions() as session:
                return await queue.claim_due(
                    session, self.worker_id, limit=limit, lease=self.lease, **lane
                )
        except Exception:
            log.exception("worker %s could not claim jobs", self.worker_id)
            return []

    async def _keep_lease(self, job: ClaimedJob) -> None:
        interval = self.lease.total_seconds() / 3
        while True:
            await asyncio.sleep(interval)
            try:
                async with self.services.sessions() as session:
                    held = await queue.extend_lease(session, job, self.lease)
            except Exception:
                log.exception("could not renew the lease of job %s", job.id)
                continue
            if not held:
                log.warning("job %s (%s) lost its lease", job.id, job.kind)
                return

    async def _run_job(self, job: ClaimedJob) -> None:
        ctx = JobContext(
            job=job,
            services=self.services,
            writer=self.writer,
            on_target_done=lambda: self._target_done(job),
        )
        kind = self.registry.get(job.kind)
        if kind is None:
            await self._fail(ctx, f"no handler registered for job kind {job.kind!r}")
            return
        if job.attempt > job.max_attempts + LEASE_RECOVERIES:
            await self._fail(
                ctx, f"abandoned: its worker stopped during {job.attempt - 1} attempts"
            )
            return
        keeper = asyncio.create_task(self._keep_lease(job))
        try:
            await kind.handler(ctx)
        except asyncio.CancelledError:
            keeper.cancel()
            await self._release(job)
            raise
        except LeaseLost:
            log.warning("job %s (%s) was taken over by another worker", job.id, job.kind)
        except RetryJob as exc:
            await self._retry_or_fail(ctx, exc)
        except JobFailed as exc:
            log.warning("job %s (%s) failed: %s", job.id, job.kind, exc)
            await self._fail(ctx, str(exc) or "failed")
        except Exception as exc:
            log.warning("job %s (%s) failed: %s", job.id, job.kind, _describe(exc))
            log.debug("%s", traceback.format_exc())
            await self._fail(ctx, _describe(exc))
        else:
            if not ctx.completed:
                try:
                    await self._finish(job)
                except Exception:
                    log.exception("could not mark job %s done", job.id)
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper

    async def _finish(self, job: ClaimedJob) -> None:
        """Mark ``job`` done together with the other jobs that finish at the same moment."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._to_finish.append((job, future))
        if self._finisher is None or self._finisher.done():
            self._finisher = asyncio.create_task(self._finish_batches())
        await future

    async def _finish_batches(self) -> None:
        await asyncio.sleep(0)  # let the jobs finishing in this loop turn join the batch
        while self._to_finish:
            batch, self._to_finish = self._to_finish, []
            try:
                async with self.services.sessions() as session:
                    await queue.finish_many(session, [job for job, _future in batch])
            except Exception as exc:
                for _job, future in batch:
                    if not future.done():
                        future.set_exception(exc)
            else:
                for _job, future in batch:
                    if not future.done():
                        future.set_result(None)

    async def _retry_or_fail(self, ctx: JobContext, exc: RetryJob) -> None:
        job = ctx.job
        message = str(exc) or "retry requested"
        if job.attempt >= job.max_attempts:
            await self._fail(ctx, f"{message} (after {job.attempt} attempts)")
            return
        delay = exc.delay if exc.delay is not None else self.services.backoff(job.attempt)
        log.info("job %s (%s) retries in %.2fs: %s", job.id, job.kind, delay, message)
        try:
            async with self.services.sessions() as session:
                await queue.schedule_retry(
                    session, job, message, utcnow() + timedelta(seconds=delay)
                )
        except Exception:
            log.exception("could not schedule the retry of job %s", job.id)

    async def _fail(self, ctx: JobContext, error: str) -> None:
        job = ctx.job
        kind = self.registry.get(job.kind)
        try:
            async with self.services.sessions() as session:
                if not await queue.fail(session, job, error):
                    await session.rollback()
                    return
                if kind is not None and kind.on_failure is not None:
                    await kind.on_failure(ctx, session, error)
                await session.commit()
        except Exception:
            log.exception("could not record the failure of job %s (%s)", job.id, job.kind)

    async def _release(self, job: ClaimedJob) -> None:
        try:
            async with self.services.sessions() as session:
                await queue.release(session, job)
        except Exception:
            log.exception("could not release job %s", job.id)
