"""The job table operations: enqueue, claim with a lease, complete, retry, fail, release.

Every background and scheduled piece of work is one row of ``jobs``
(:class:`sleuth_shell.db.models.Job`). Its life::

    pending --claim--> running --handler returns--> done
       ^                  |  \\--handler asks to retry (attempts left)--> pending (run_at later)
       |                  |   \\-handler fails / no attempts left--------> failed (last_error)
       |                  \\--lease expires (worker died)--> claimable again by any worker
       \\---------------------- graceful shutdown releases a running job --/

A claim is one ``UPDATE ... WHERE id IN (SELECT ... LIMIT n) RETURNING`` statement: on PostgreSQL
the inner select takes ``FOR UPDATE SKIP LOCKED`` row locks, so concurrent workers claim disjoint
rows; on SQLite the statement runs under the single database write lock, which makes it atomic.
Each claim stamps ``locked_by`` and ``lease_until``; every later transition is conditional on the
row still being ``running`` and ``locked_by`` the same worker, so a worker that lost its lease can
never overwrite the outcome of the worker that took over.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, event, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from sleuth_shell.db.dialect import supports_skip_locked
from sleuth_shell.db.models import Job, utcnow

__all__ = [
    "DONE",
    "FAILED",
    "PENDING",
    "RUNNING",
    "ClaimedJob",
    "LeaseLost",
    "claim_due",
    "enqueue",
    "extend_lease",
    "fail",
    "finish",
    "mark_done",
    "purge_finished",
    "register_waker",
    "release",
    "schedule_retry",
]

PENDING = "pending"
RUNNING = "running"
DONE = "done"
FAILED = "failed"

#: Longest error text kept in ``jobs.last_error``.
MAX_ERROR_LENGTH = 2000


class LeaseLost(RuntimeError):
    """The job is no longer held by this worker (its lease expired and another worker took it)."""


@dataclass(frozen=True)
class ClaimedJob:
    """A job a worker holds: what to run, and which attempt this is (1-based)."""

    id: int
    kind: str
    payload: dict[str, Any]
    attempt: int
    max_attempts: int
    run_at: datetime
    worker_id: str


# --- waking in-process workers -------------------------------------------------------------------

_wakers: weakref.WeakSet[_Waker] = weakref.WeakSet()


class _Waker:
    """Something a committed enqueue should poke (a running :class:`~sleuth_shell.jobs.Worker`)."""

    def __init__(self, callback: Callable[[], None]) -> None:
        self.callback = callback


def register_waker(callback: Callable[[], None]) -> object:
    """Call ``callback`` after every commit that enqueued a job in this process.

    Returns a handle; the registration lasts while the handle is referenced.
    """
    waker = _Waker(callback)
    _wakers.add(waker)
    return waker


def _wake_all() -> None:
    for waker in list(_wakers):
        waker.callback()


_ENQUEUED = "sleuth_jobs_enqueued"


def _after_commit(sync_session: Session) -> None:
    if sync_session.info.pop(_ENQUEUED, False):
        _wake_all()


def _after_rollback(sync_session: Session) -> None:
    sync_session.info.pop(_ENQUEUED, None)


def _watch(session: AsyncSession) -> None:
    sync_session = session.sync_session
    sync_session.info[_ENQUEUED] = True
    if not event.contains(sync_session, "after_commit", _after_commit):
        event.listen(sync_session, "after_commit", _after_commit)
        event.listen(sync_session, "after_rollback", _after_rollback)


# --- operations ----------------------------------------------------------------------------------


def _error_text(error: str) -> str:
    return error if len(error) <= MAX_ERROR_LENGTH else error[: MAX_ERROR_LENGTH - 1] + "…"


async def enqueue(
    session: AsyncSession,
    kind: str,
    payload: dict[str, Any],
    *,
    run_at: datetime | None = None,
    max_attempts: int = 1,
) -> Job:
    """Add a job to ``session``'s transaction; it becomes visible to workers on commit.

    ``run_at`` (aware) defaults to now; ``max_attempts`` bounds the handler's retries (a job whose
    worker died is re-run after its lease expires, counted separately). In-process workers are woken
    as soon as the transaction commits.
    """
    if not kind:
        raise ValueError("a job needs a kind")
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    now = utcnow()
    job = Job(
        kind=kind,
        payload=payload,
        run_at=run_at or now,
        status=PENDING,
        attempts=0,
        max_attempts=max_attempts,
        created_at=now,
        updated_at=now,
    )
    session.add(job)
    await session.flush()
    _watch(session)
    return job


async def claim_due(
    session: AsyncSession, worker_id: str, *, limit: int, lease: timedelta
) -> list[ClaimedJob]:
    """Claim up to ``limit`` due jobs for ``worker_id`` and commit the claim.

    Due means ``pending`` with ``run_at <= now``, or ``running`` with an expired lease (its worker
    died). Oldest ``run_at`` first. Must be the first statement of ``session``'s transaction.
    """
    if limit <= 0:
        return []
    now = utcnow()
    due = or_(
        and_(Job.status == PENDING, Job.run_at <= now),
        and_(Job.status == RUNNING, Job.lease_until < now),
    )
    candidates = select(Job.id).where(due).order_by(Job.run_at, Job.id).limit(limit)
    if supports_skip_locked(session.get_bind().dialect.name):
        candidates = candidates.with_for_update(skip_locked=True)
    stmt = (
        update(Job)
        .where(Job.id.in_(candidates.scalar_subquery()))
        .values(
            status=RUNNING,
            locked_by=worker_id,
            lease_until=now + lease,
            attempts=Job.attempts + 1,
            updated_at=now,
        )
        .returning(Job.id, Job.kind, Job.payload, Job.attempts, Job.max_attempts, Job.run_at)
        .execution_options(synchronize_session=False)
    )
    rows = (await session.execute(stmt)).all()
    await session.commit()
    claimed = [
        ClaimedJob(
            id=row.id,
            kind=row.kind,
            payload=dict(row.payload or {}),
            attempt=row.attempts,
            max_attempts=row.max_attempts,
            run_at=row.run_at,
            worker_id=worker_id,
        )
        for row in rows
    ]
    claimed.sort(key=lambda job: (job.run_at, job.id))
    return claimed


def _held(job: ClaimedJob) -> Any:
    return and_(Job.id == job.id, Job.status == RUNNING, Job.locked_by == job.worker_id)


async def _transition(session: AsyncSession, job: ClaimedJob, **values: Any) -> bool:
    stmt = (
        update(Job)
        .where(_held(job))
        .values(updated_at=utcnow(), **values)
        .execution_options(synchronize_session=False)
    )
    result = await session.execute(stmt)
    return bool(result.rowcount)  # type: ignore[attr-defined]


async def mark_done(session: AsyncSession, job: ClaimedJob) -> None:
    """Mark ``job`` done inside ``session``'s transaction (the caller commits).

    Handlers call this (through ``JobContext.complete``) in the same transaction that writes their
    result, so the result and the completion commit together. Raises :class:`LeaseLost` when the
    job is no longer held by this worker; the caller must then roll back.
    """
    if not await _transition(session, job, status=DONE, lease_until=None, last_error=None):
        raise LeaseLost(f"job {job.id} is no longer held by {job.worker_id}")


async def finish(session: AsyncSession, job: ClaimedJob) -> bool:
    """Mark ``job`` done unless it already is (or was taken over); commit. True if marked."""
    changed = await _transition(session, job, status=DONE, lease_until=None, last_error=None)
    await session.commit()
    return changed


async def schedule_retry(
    session: AsyncSession, job: ClaimedJob, error: str, run_at: datetime
) -> bool:
    """Put ``job`` back to ``pending`` at ``run_at``, recording ``error``; commit."""
    changed = await _transition(
        session,
        job,
        status=PENDING,
        run_at=run_at,
        lease_until=None,
        locked_by=None,
        last_error=_error_text(error),
    )
    await session.commit()
    return changed


async def fail(session: AsyncSession, job: ClaimedJob, error: str) -> bool:
    """Mark ``job`` failed for good, recording ``error``, in ``session``'s transaction."""
    return await _transition(
        session, job, status=FAILED, lease_until=None, last_error=_error_text(error)
    )


async def extend_lease(session: AsyncSession, job: ClaimedJob, lease: timedelta) -> bool:
    """Push the lease of a running job forward; commit. False when the job was lost."""
    changed = await _transition(session, job, lease_until=utcnow() + lease)
    await session.commit()
    return changed


async def release(session: AsyncSession, job: ClaimedJob) -> bool:
    """Give a running job back unfinished (graceful shutdown): pending, attempt not counted."""
    changed = await _transition(
        session,
        job,
        status=PENDING,
        lease_until=None,
        locked_by=None,
        attempts=Job.attempts - 1,
    )
    await session.commit()
    return changed


async def purge_finished(session: AsyncSession, older_than: datetime) -> int:
    """Delete ``done`` jobs last updated before ``older_than``; commit. Returns how many."""
    result = await session.execute(
        delete(Job).where(Job.status == DONE, Job.updated_at < older_than)
    )
    await session.commit()
    return int(result.rowcount)  # type: ignore[attr-defined]
