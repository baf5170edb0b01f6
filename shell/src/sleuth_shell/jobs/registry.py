"""Job kinds and their handlers.

A handler is an ``async def handler(ctx: JobContext) -> None`` registered under a job ``kind``.
It reads ``ctx.job.payload``, does the work, and either

- returns normally: the job is done (a handler that writes a result should call
  ``await ctx.complete(session)`` inside the transaction that writes it, so the result and the
  completion commit together and a re-run after a crash sees the work as done);
- raises :class:`RetryJob`: the job runs again later (exponential backoff) while attempts are left,
  then fails with that message;
- raises :class:`JobFailed`: the job fails at once with that message;
- raises anything else: the job fails at once and the error (type and message) is recorded in
  ``jobs.last_error``.

When a job fails for good, the kind's optional ``on_failure(ctx, session, error)`` hook runs in the
transaction that records the failure (the worker commits both together), so the feature can record
it on its own row (an interaction becomes ``FAILED``, a kept API key is wiped).

A kind registered ``io_bound`` (notification deliveries: their time is spent waiting on someone
else's server) runs in the worker's I/O lane, beside the other jobs rather than in their slots,
and its jobs' ``key`` names the target they wait on: a worker runs at most ``key_limit`` jobs of
one key at a time, so a slow target holds a few slots of the lane and no more
(:class:`~sleuth_shell.jobs.worker.Worker`).
Handlers must be idempotent: a job whose worker died mid-run is run again after its lease expires.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.jobs.batch import Unit, WriteBatcher, write_alone
from sleuth_shell.jobs.queue import ClaimedJob, mark_done

T = TypeVar("T")

__all__ = [
    "FailureHook",
    "Handler",
    "JobContext",
    "JobFailed",
    "JobKind",
    "JobRegistry",
    "RetryJob",
    "WorkerServices",
]


class WorkerServices(Protocol):
    """What the worker itself needs of the services it hands to handlers.

    The application's container (:class:`sleuth_shell.services.Services`) provides this and more;
    a feature's handler narrows ``ctx.services`` to the container it was registered with.
    """

    @property
    def sessions(self) -> async_sessionmaker[AsyncSession]:
        """Database sessions."""
        ...

    def backoff(self, attempt: int) -> float:
        """Seconds to wait before retrying after failed attempt number ``attempt`` (1-based)."""
        ...


class RetryJob(Exception):
    """Raised by a handler for a transient failure: run the job again later.

    ``delay`` (seconds) overrides the worker's exponential backoff for this retry.
    """

    def __init__(self, message: str, *, delay: float | None = None) -> None:
        super().__init__(message)
        self.delay = delay


class JobFailed(Exception):
    """Raised by a handler to fail the job for good; ``str()`` is recorded as the error."""


@dataclass
class JobContext:
    """What a handler gets: the claimed job and the worker's services."""

    job: ClaimedJob
    services: WorkerServices
    writer: WriteBatcher | None = field(default=None, repr=False)
    """The worker's write batcher (None: :meth:`write` commits each unit alone)."""
    on_target_done: Callable[[], None] | None = field(default=None, repr=False)
    """What :meth:`target_done` tells the worker (None: nothing)."""
    completed: bool = field(default=False, init=False)

    def target_done(self) -> None:
        """An I/O-bound handler is done with its key's target (its POST answered or failed): the
        worker no longer counts it against the key's limit while it records the outcome."""
        if self.on_target_done is not None:
            self.on_target_done()

    @property
    def payload(self) -> dict[str, object]:
        """The job's payload (as enqueued)."""
        return self.job.payload

    async def write(self, unit: Unit[T]) -> T:
        """Run ``unit(session)`` (writes only, no commit) in a transaction shared with other
        jobs' writes, and return its result once committed (see :mod:`sleuth_shell.jobs.batch`).

        The unit may run twice (a batch rolled back because of another unit is re-run unit by
        unit), so it must only touch the database, through the session it is given. Exceptions
        it raises reach the caller, with its writes rolled back.
        """
        if self.writer is None:
            return await write_alone(self.services.sessions, unit)
        result: T = await self.writer.submit(unit)
        return result

    async def complete(self, session: AsyncSession) -> None:
        """Mark the job done inside ``session``'s transaction (commit it yourself).

        The commit raises :class:`~sleuth_shell.jobs.queue.LeaseLost` when another worker took
        the job over, and the transaction is rolled back (leaving the result to that worker).
        """
        await mark_done(session, self.job)
        self.completed = True


Handler = Callable[[JobContext], Awaitable[None]]
FailureHook = Callable[[JobContext, AsyncSession, str], Awaitable[None]]


@dataclass(frozen=True)
class JobKind:
    """A registered kind: its handler, failure hook and the default attempts for new jobs."""

    kind: str
    handler: Handler
    on_failure: FailureHook | None = None
    io_bound: bool = False


class JobRegistry:
    """Handlers by job kind. Workers refuse (fail) jobs of unknown kinds."""

    def __init__(self) -> None:
        self._kinds: dict[str, JobKind] = {}

    def register(
        self,
        kind: str,
        handler: Handler,
        *,
        on_failure: FailureHook | None = None,
        io_bound: bool = False,
    ) -> None:
        """Register ``handler`` (and its failure hook) for ``kind``; a kind is registered once.
        ``io_bound``: the kind's jobs run in the I/O lane (see the module docstring)."""
        if kind in self._kinds:
            raise ValueError(f"job kind {kind!r} is already registered")
        self._kinds[kind] = JobKind(kind, handler, on_failure, io_bound)

    def io_bound_kinds(self) -> frozenset[str]:
        """The kinds registered ``io_bound``."""
        return frozenset(kind for kind, entry in self._kinds.items() if entry.io_bound)

    def get(self, kind: str) -> JobKind | None:
        """The registration for ``kind``, or None."""
        return self._kinds.get(kind)

    def __contains__(self, kind: object) -> bool:
        return kind in self._kinds

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._kinds))
