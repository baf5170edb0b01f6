"""The job table operations: enqueue, claim with a lease, complete, retry, fail, release, cancel.

Every background and scheduled piece of work is one row of ``jobs``
(:class:`sleuth_shell.db.models.Job`). Its life::

    pending --claim--> running --handler returns--> done
       ^                  |  \\--handler asks to retry (attempts left)--> pending (run_at later)
       |                  |   \\-handler fails / no attempts left--------> failed (last_error)
       |                  \\--lease expires (worker died)--> claimable again by any worker
       \\---------------------- graceful shutdown releases a running job --/
    pending --cancel(kind, key)--> (deleted; running, done and failed jobs are not touched)

A job may carry a ``key`` naming what it is about (a digest's id, say). Features find and cancel
their jobs by ``(kind, key)`` (:func:`cancel`, :func:`unfinished_keys`, :func:`duplicate_of`) and
never read the payload or the states of jobs other than those they are handed.

A claim is one ``UPDATE ... WHERE id IN (SELECT ... LIMIT n) RETURNING`` statement: on PostgreSQL
the inner selects take ``FOR UPDATE SKIP LOCKED`` row locks, so concurrent workers claim disjoint
rows; on SQLite the statement runs under the single database write lock, which makes it atomic.
Each claim stamps ``locked_by`` and ``lease_until``; every later transition is conditional on the
row still being ``running`` and ``locked_by`` the same worker, so a worker that lost its lease can
never overwrite the outcome of the worker that took over.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    Integer,
    Select,
    and_,
    bindparam,
    delete,
    event,
    func,
    insert,
    or_,
    select,
    union_all,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from sleuth_shell.db.dialect import supports_skip_locked
from sleuth_shell.db.direct_writes import execute_many
from sleuth_shell.db.executor import Executor, SessionExecutor
from sleuth_shell.db.models import Job, utcnow

__all__ = [
    "DONE",
    "FAILED",
    "PENDING",
    "RUNNING",
    "ClaimedJob",
    "LeaseLost",
    "cancel",
    "claim_due",
    "duplicate_of",
    "enqueue",
    "enqueue_in",
    "enqueue_many",
    "extend_lease",
    "fail",
    "finish",
    "finish_many",
    "mark_done",
    "next_due",
    "purge_finished",
    "register_waker",
    "release",
    "schedule_retry",
    "unfinished_keys",
]

PENDING = "pending"
RUNNING = "running"
DONE = "done"
FAILED = "failed"

#: Longest error text kept in ``jobs.last_error``.
MAX_ERROR_LENGTH = 2000

#: Longest job key (``jobs.key``).
MAX_KEY_LENGTH = 255


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
    key: str | None = None


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


def _watch(session: AsyncSession) -> None:
    SessionExecutor(session).after_commit(_wake_all)


# --- operations ----------------------------------------------------------------------------------


def _error_text(error: str) -> str:
    return error if len(error) <= MAX_ERROR_LENGTH else error[: MAX_ERROR_LENGTH - 1] + "…"


def _job_values(
    kind: str,
    payload: dict[str, Any],
    *,
    run_at: datetime | None,
    max_attempts: int,
    key: str | None,
) -> dict[str, Any]:
    """The columns of a new job (checked; see :func:`enqueue`)."""
    if not kind:
        raise ValueError("a job needs a kind")
    if key is not None and not 0 < len(key) <= MAX_KEY_LENGTH:
        raise ValueError(f"a job key has 1 to {MAX_KEY_LENGTH} characters")
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    now = utcnow()
    return {
        "kind": kind,
        "key": key,
        "payload": payload,
        "run_at": run_at or now,
        "status": PENDING,
        "attempts": 0,
        "max_attempts": max_attempts,
        "created_at": now,
        "updated_at": now,
    }


async def enqueue(
    session: AsyncSession,
    kind: str,
    payload: dict[str, Any],
    *,
    run_at: datetime | None = None,
    max_attempts: int = 1,
    key: str | None = None,
) -> Job:
    """Add a job to ``session``'s transaction; it becomes visible to workers on commit.

    ``run_at`` (aware) defaults to now; ``max_attempts`` bounds the handler's retries (a job whose
    worker died is re-run after its lease expires, counted separately). ``key`` (at most
    :data:`MAX_KEY_LENGTH` characters) names what the job is about, for :func:`cancel` and
    :func:`unfinished_keys`; several jobs may share one. In-process workers are woken as soon as
    the transaction commits.
    """
    job = Job(**_job_values(kind, payload, run_at=run_at, max_attempts=max_attempts, key=key))
    session.add(job)
    await session.flush()
    _watch(session)
    return job


_INSERT: list[Any] = []


def _insert_statement() -> Any:
    """The prebuilt ``INSERT`` of one job row (every column :func:`_job_values` gives bound)."""
    if not _INSERT:
        table = Job.__table__
        names = _job_values("k", {}, run_at=None, max_attempts=1, key=None)
        columns = {name: bindparam(name, type_=table.c[name].type) for name in names}
        _INSERT.append(insert(table).values(columns))
    return _INSERT[0]


async def enqueue_in(
    executor: Executor,
    kind: str,
    payload: dict[str, Any],
    *,
    max_attempts: int = 1,
    key: str | None = None,
) -> None:
    """:func:`enqueue` for operations written over an :class:`~sleuth_shell.db.executor.Executor`
    (the same row, one prebuilt ``INSERT``; no :class:`Job` object back). Due now. The row is
    written at the commit with the transaction's other such rows, in one ``executemany``
    (:meth:`~sleuth_shell.db.executor.Executor.insert_at_commit`: a batch of runs' callbacks)."""
    values = _job_values(kind, payload, run_at=None, max_attempts=max_attempts, key=key)
    executor.insert_at_commit(_insert_statement(), values)
    executor.after_commit(_wake_all)


async def enqueue_many(
    session: AsyncSession, kind: str, jobs: Sequence[tuple[dict[str, Any], str | None]]
) -> None:
    """Add one ``kind`` job per ``(payload, key)`` of ``jobs`` to ``session``'s transaction in one
    statement (run now, one attempt each); as :func:`enqueue` otherwise. For callers that write
    many jobs at once (a batch of alert deliveries) and need no :class:`Job` objects back."""
    if not kind:
        raise ValueError("a job needs a kind")
    if not jobs:
        return
    for _payload, key in jobs:
        if key is not None and not 0 < len(key) <= MAX_KEY_LENGTH:
            raise ValueError(f"a job key has 1 to {MAX_KEY_LENGTH} characters")
    now = utcnow()
    rows = [
        {
            "kind": kind,
            "key": key,
            "payload": payload,
            "run_at": now,
            "status": PENDING,
            "attempts": 0,
            "max_attempts": 1,
            "created_at": now,
            "updated_at": now,
        }
        for payload, key in jobs
    ]
    # The prebuilt insert as one executemany (on SQLite without the session's per-row parameter
    # machinery: docs/performance.md, "Overlapping agents, third round").
    await execute_many(session, _insert_statement(), rows)
    _watch(session)


async def claim_due(
    session: AsyncSession,
    worker_id: str,
    *,
    limit: int,
    lease: timedelta,
    exclude_kinds: Collection[str] = (),
    only_kinds: Collection[str] | None = None,
    exclude_keys: Collection[str] = (),
) -> list[ClaimedJob]:
    """Claim up to ``limit`` due jobs for ``worker_id`` and commit the claim (one statement).

    Due means ``pending`` with ``run_at <= now``, or ``running`` with an expired lease (its worker
    died). Oldest ``run_at`` first. Jobs of ``exclude_kinds`` are left for later (a worker whose
    share of slots for a kind is taken), and so are jobs of kinds not in ``only_kinds`` (when
    given: a worker's lane for some kinds) and jobs whose key is in ``exclude_keys`` (targets a
    worker already waits on enough). Must be the first statement of ``session``'s transaction.
    """
    if limit <= 0 or (only_kinds is not None and not only_kinds):
        return []
    now = utcnow()
    io_lane = only_kinds is not None
    lane: dict[str, Any] = (
        {"only_kinds": list(only_kinds or ()), "exclude_keys": list(exclude_keys)}
        if io_lane
        else {"exclude_kinds": list(exclude_kinds)}
    )
    if io_lane and exclude_kinds:
        lane["only_kinds"] = [kind for kind in lane["only_kinds"] if kind not in exclude_kinds]
    if not io_lane and exclude_keys:
        raise ValueError("exclude_keys goes with only_kinds (a worker's I/O lane)")
    stmt = _claim_statement(supports_skip_locked(session.get_bind().dialect.name), io_lane)
    params = {"now": now, "limit": limit, "worker_id": worker_id, "lease_until": now + lease}
    connection = await session.connection()
    rows = (await connection.execute(stmt, {**params, **lane})).all()
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
            key=row.key,
        )
        for row in rows
    ]
    claimed.sort(key=lambda job: (job.run_at, job.id))
    return claimed


_CLAIMS: dict[tuple[bool, bool], Any] = {}


def _claim_statement(skip_locked: bool, io_lane: bool) -> Any:
    """:func:`claim_due`'s statement, built once per dialect family and lane (a Core ``UPDATE
    ... RETURNING`` with bound parameters: building and caching a statement per claim was a
    tenth of a busy worker's time)."""
    stmt = _CLAIMS.get((skip_locked, io_lane))
    if stmt is None:
        jobs = Job.__table__.c
        now = bindparam("now", type_=jobs.run_at.type)
        if io_lane:
            filters = [
                jobs.kind.in_(bindparam("only_kinds", expanding=True)),
                or_(jobs.key.is_(None), jobs.key.not_in(bindparam("exclude_keys", expanding=True))),
            ]
        else:
            filters = [jobs.kind.not_in(bindparam("exclude_kinds", expanding=True))]
        candidates = _due_ids(now, bindparam("limit", type_=Integer), filters, skip_locked)
        stmt = (
            update(Job.__table__)
            .where(jobs.id.in_(candidates.scalar_subquery()))
            .values(
                status=RUNNING,
                locked_by=bindparam("worker_id"),
                lease_until=bindparam("lease_until", type_=jobs.lease_until.type),
                attempts=jobs.attempts + 1,
                updated_at=now,
            )
            .returning(
                jobs.id, jobs.kind, jobs.payload, jobs.attempts, jobs.max_attempts, jobs.run_at,
                jobs.key,
            )
        )  # fmt: skip
        _CLAIMS[(skip_locked, io_lane)] = stmt
    return stmt


def _due_ids(now: Any, limit: Any, filters: Sequence[Any], skip_locked: bool) -> Select[Any]:
    """The ids of the ``limit`` oldest due jobs (``run_at``, then id) that pass ``filters``, as
    :func:`claim_due`'s subquery.

    The two kinds of due job as two branches, each read in ``(status, run_at, id)`` order from
    ``ix_jobs_status_run_at_id`` and cut at ``limit``, then the best ``limit`` of both. The top
    ``limit`` of a union is the top ``limit`` of the two branches' own tops, so the result is the
    same as one statement over ``pending OR expired``; but both databases ran that one as a
    multi-index OR and sorted every due row to keep ``limit`` of them, so a claim cost in
    proportion to the backlog (SQLite: 1.7 ms with 12,000 due jobs, 0.025 ms this way;
    PostgreSQL: 3.1 ms with 10,000 due, 0.4 ms this way), and a worker that fell behind spent ever
    more of its time claiming. On PostgreSQL (claims made concurrently by several workers) each
    branch takes ``FOR UPDATE SKIP LOCKED`` row locks, so concurrent workers claim disjoint rows; a
    row a branch locked but the outer cut left out (only when jobs of both kinds are due) is free
    again at the claim's commit. SQLite runs a claim under its single write lock.
    """
    jobs = Job.__table__.c
    pending = and_(jobs.status == PENDING, jobs.run_at <= now)
    expired = and_(jobs.status == RUNNING, jobs.lease_until < now)
    branches = []
    for due in (pending, expired):
        branch = select(jobs.id, jobs.run_at).where(due, *filters)
        branch = branch.order_by(jobs.run_at, jobs.id).limit(limit)
        if skip_locked:
            branch = branch.with_for_update(skip_locked=True)
        branches.append(select(branch.subquery()))
    both = union_all(*branches).subquery()
    return select(both.c.id).order_by(both.c.run_at, both.c.id).limit(limit)


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


_jobs = Job.__table__.c

#: running -> done for the held jobs a transaction completes, built once (the hot path of every
#: handler's completion). A Core statement on the table: the ORM's bulk-update machinery is most
#: of the cost of a small UPDATE.
_MARK_DONE = (
    update(Job.__table__)
    .where(
        _jobs.id.in_(bindparam("job_ids", expanding=True)),
        _jobs.status == RUNNING,
        _jobs.locked_by == bindparam("worker_id"),
    )
    .values(
        status=DONE,
        lease_until=None,
        last_error=None,
        updated_at=bindparam("now", type_=_jobs.updated_at.type),
    )
    .returning(_jobs.id)
)

_COMPLETING = "sleuth_completing_jobs"


async def mark_done(session: AsyncSession, job: ClaimedJob) -> None:
    """Mark ``job`` done in ``session``'s transaction, at its commit (the caller commits).

    Handlers call this (through ``JobContext.complete``) in the same transaction that writes their
    result, so the result and the completion commit together. The jobs a transaction completes
    (a worker's batch of them) are marked by one statement just before its commit; the commit
    raises :class:`LeaseLost` when one of them is no longer held by its worker, and the
    transaction is then rolled back.
    """
    sync_session = session.sync_session
    completing: dict[str, list[int]] | None = sync_session.info.get(_COMPLETING)
    if completing is None:
        completing = sync_session.info[_COMPLETING] = {}
        if not event.contains(sync_session, "before_commit", _complete_held):
            event.listen(sync_session, "before_commit", _complete_held)
            event.listen(sync_session, "after_rollback", _forget_completing)
    completing.setdefault(job.worker_id, []).append(job.id)


def _complete_held(sync_session: Session) -> None:
    """The transaction's :func:`mark_done` jobs, marked just before its commit (inside the async
    session's commit, on its connection like a flush)."""
    completing: dict[str, list[int]] | None = sync_session.info.pop(_COMPLETING, None)
    if not completing:
        return
    connection = sync_session.connection()
    now = utcnow()
    for worker_id, job_ids in completing.items():
        params = {"job_ids": job_ids, "worker_id": worker_id, "now": now}
        marked = set(connection.execute(_MARK_DONE, params).scalars())
        lost = [job_id for job_id in job_ids if job_id not in marked]
        if lost:
            raise LeaseLost(f"jobs {lost} are no longer held by {worker_id}")


def _forget_completing(sync_session: Session) -> None:
    sync_session.info.pop(_COMPLETING, None)


async def finish(session: AsyncSession, job: ClaimedJob) -> bool:
    """Mark ``job`` done unless it already is (or was taken over); commit. True if marked."""
    changed = await _transition(session, job, status=DONE, lease_until=None, last_error=None)
    await session.commit()
    return changed


async def finish_many(session: AsyncSession, jobs: Sequence[ClaimedJob]) -> set[int]:
    """:func:`finish` for several jobs of one worker in one statement; commit. Returns the ids
    that were marked (the others were already done or taken over)."""
    if not jobs:
        return set()
    worker_ids = {job.worker_id for job in jobs}
    if len(worker_ids) != 1:
        raise ValueError("finish_many takes the jobs of one worker")
    now = utcnow()
    rows = await session.execute(
        update(Job)
        .where(
            Job.id.in_([job.id for job in jobs]),
            Job.status == RUNNING,
            Job.locked_by == worker_ids.pop(),
        )
        .values(status=DONE, lease_until=None, last_error=None, updated_at=now)
        .returning(Job.id)
        .execution_options(synchronize_session=False)
    )
    marked = {int(job_id) for job_id in rows.scalars()}
    await session.commit()
    return marked


_NEXT_DUE = select(
    select(func.min(_jobs.run_at)).where(_jobs.status == PENDING).scalar_subquery(),
    select(func.min(_jobs.lease_until)).where(_jobs.status == RUNNING).scalar_subquery(),
)
"""The earliest ``run_at`` of a pending job and ``lease_until`` of a running one, in one
statement (one round trip to a database server)."""


async def next_due(session: AsyncSession) -> datetime | None:
    """When the next job becomes claimable: the earliest ``run_at`` of a pending job or
    ``lease_until`` of a running one (None: no such job). May be in the past."""
    connection = await session.connection()
    pending, leased = (await connection.execute(_NEXT_DUE)).one()
    times = [moment for moment in (pending, leased) if moment is not None]
    return min(times) if times else None


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


async def cancel(session: AsyncSession, kind: str, key: str) -> int:
    """Delete the pending jobs of ``kind`` with ``key`` in ``session``'s transaction (the caller
    commits). Returns how many. Running jobs finish; done and failed ones stay for the record.
    """
    result = await session.execute(
        delete(Job)
        .where(Job.kind == kind, Job.key == key, Job.status == PENDING)
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


async def unfinished_keys(session: AsyncSession, kind: str) -> set[str]:
    """The keys of the jobs of ``kind`` that are still to run or running (pending or running)."""
    rows = await session.scalars(
        select(Job.key)
        .where(Job.kind == kind, Job.key.is_not(None), Job.status.in_((PENDING, RUNNING)))
        .distinct()
    )
    return {key for key in rows if key is not None}


async def duplicate_of(session: AsyncSession, job: ClaimedJob) -> int | None:
    """Another job that did, or is doing, the work of ``job``; its id, or None.

    A duplicate has ``job``'s kind, key and payload and is either done, or running and enqueued
    before ``job`` (so of two duplicates running at once exactly one goes ahead). Failed jobs do
    not count. A job without a key has no duplicates. A handler whose job may have been enqueued
    twice (by two processes racing) calls this and skips the work when it finds one.
    """
    if job.key is None:
        return None
    rows = await session.execute(
        select(Job.id, Job.payload)
        .where(
            Job.kind == job.kind,
            Job.key == job.key,
            Job.id != job.id,
            (Job.status == DONE) | ((Job.status == RUNNING) & (Job.id < job.id)),
        )
        .order_by(Job.id)
    )
    for other_id, payload in rows.all():
        if payload == job.payload:
            return int(other_id)
    return None
