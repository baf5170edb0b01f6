"""Group commit: the writes that concurrent tasks hand over while a transaction is being
committed are written together, in the next transaction.

On SQLite every write transaction takes the database's single write lock, and the time the lock
spends between transactions (handed to the next waiter, each waiter resumed by a busy event loop)
caps the writers at a few dozen transactions a second whatever the CPU; on PostgreSQL each
transaction costs its round trips and a commit. A :class:`GroupCommit` takes items (a job's
unit of writes, a webhook delivery) from any number of tasks (:meth:`GroupCommit.submit`) and
writes all that are waiting with one call of its ``write_many`` in one session, then commits
once. There is no timer: while one batch is being written the next items queue up, so a lone item
is written at once and a burst is written in few transactions. Each caller gets its own item's
result once the transaction holding it has committed.

``parallel`` batches may be in flight at once, each in its own session (default one). On
PostgreSQL a batch's time is mostly its statements' round trips, one after the other, so a
single batch in flight bounds the items a second at about the batch size over that time
whatever the CPU left; a second batch written while the first waits on the server doubles that
bound. Items of batches in flight together must not depend on each other's order (a unit is
submitted after the unit before it of the same job has committed, so they never do).

Outcomes stay per item: when a batch fails, it is rolled back and each of its items is written
again alone (``write_one`` in a session of its own), so one item's failure never undoes or fails
another's work, and its own caller gets its own error. An item alone in a batch that failed has
had its outcome already, unless the error is one of ``retry_alone_on`` (the errors ``write_one``
retries: a lost race with another node). Items must therefore write to the database only through
the session they are given: they may run twice, and only the committed run counts.

The jobs' completions and light runs (:mod:`sleuth_shell.jobs.batch`) and the webhook intake's
deliveries (:mod:`sleuth_shell.intake.batch`) are its two users.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.db.sqlite_reads import urgent_writes

__all__ = ["GroupCommit"]

log = logging.getLogger("sleuth.db")

I = TypeVar("I")  # noqa: E741 - the item type
R = TypeVar("R")


def _one(_item: object) -> int:
    return 1


class GroupCommit(Generic[I, R]):
    """Writes the items concurrent tasks submit in shared transactions (see the module doc).

    ``write_many(session, items)`` writes ``items`` in ``session`` (no commit) and returns their
    results in order; ``write_one(session, item)`` writes one item alone (default: ``write_many``
    of that item). A batch holds whole items up to ``max_size`` by ``size`` (always at least one
    item). ``urgent``: on SQLite the batches take the write lock ahead of ordinary writers
    (:func:`~sleuth_shell.db.sqlite_reads.urgent_writes`: a request is waiting for them).
    """

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        write_many: Callable[[AsyncSession, Sequence[I]], Awaitable[Sequence[R]]],
        *,
        write_one: Callable[[AsyncSession, I], Awaitable[R]] | None = None,
        retry_alone_on: tuple[type[Exception], ...] = (),
        max_size: int = 64,
        size: Callable[[I], int] = _one,
        urgent: bool = False,
        parallel: int = 1,
    ) -> None:
        if max_size < 1 or parallel < 1:
            raise ValueError("max_size and parallel must be at least 1")
        self.sessions = sessions
        self.max_size = max_size
        self._write_many = write_many
        self._write_one = write_one
        self._retry_alone_on = retry_alone_on
        self._size = size
        self._urgent = urgent
        self._waiting: list[tuple[I, asyncio.Future[R]]] = []
        self._parallel = parallel
        self._tasks: set[asyncio.Task[None]] = set()
        """The batches in flight (at most ``parallel``), each a task writing while items wait."""
        self.batches = 0
        """Transactions committed so far (batches and items written alone), for tests and
        benchmarks."""
        self.fallbacks = 0
        """Batches that failed and were written again item by item."""

    async def submit(self, item: I) -> R:
        """Write ``item`` with whatever else is waiting; its result once committed (or what it
        raised when written alone)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[R] = loop.create_future()
        self._waiting.append((item, future))
        # A task that has ended (its done callbacks may not have run yet) or belongs to another
        # event loop (tests) writes nothing more: only the live ones of this loop count.
        live = {task for task in self._tasks if not task.done() and task.get_loop() is loop}
        if len(live) < self._parallel:
            live.add(loop.create_task(self._drain()))
        self._tasks = live
        return await future

    async def aclose(self) -> None:
        """Wait for the items already submitted to be committed."""
        while pending := [task for task in self._tasks if not task.done()]:
            with contextlib.suppress(asyncio.CancelledError):
                await pending[0]

    async def _drain(self) -> None:
        with urgent_writes() if self._urgent else contextlib.nullcontext():
            await asyncio.sleep(0)  # let the items submitted in this loop turn join the batch
            while self._waiting:
                taken, room = 0, self.max_size
                while taken < len(self._waiting) and (
                    taken == 0 or self._size(self._waiting[taken][0]) <= room
                ):
                    room -= self._size(self._waiting[taken][0])
                    taken += 1
                batch = [pair for pair in self._waiting[:taken] if not pair[1].cancelled()]
                del self._waiting[:taken]
                try:
                    if batch:
                        await self._commit(batch)
                except BaseException:  # cancelled (shutdown): nobody is left to answer
                    for _item, future in [*batch, *self._waiting]:
                        if not future.done():
                            future.cancel()
                    self._waiting.clear()
                    raise

    async def _commit(self, batch: list[tuple[I, asyncio.Future[R]]]) -> None:
        try:
            async with self.sessions() as session:
                try:
                    results = await self._write_many(session, [item for item, _future in batch])
                    await session.commit()
                except BaseException:
                    await session.rollback()
                    raise
        except Exception as exc:
            if len(batch) == 1 and not isinstance(exc, self._retry_alone_on):
                self.batches += 1  # it ran alone already: that is its outcome
                if not batch[0][1].done():
                    batch[0][1].set_exception(exc)
                return
            self.fallbacks += 1
            log.warning("a batch of %d writes failed; writing them one by one", len(batch))
            for item, future in batch:
                await self._alone(item, future)
            return
        self.batches += 1
        for (_item, future), result in zip(batch, results, strict=True):
            if not future.done():
                future.set_result(result)

    async def _alone(self, item: I, future: asyncio.Future[R]) -> None:
        if future.done():
            return
        try:
            async with self.sessions() as session:
                try:
                    if self._write_one is not None:
                        result = await self._write_one(session, item)
                    else:
                        (result,) = await self._write_many(session, [item])
                    await session.commit()
                except BaseException:
                    await session.rollback()
                    raise
        except Exception as exc:
            self.batches += 1
            if not future.done():
                future.set_exception(exc)
        else:
            self.batches += 1
            if not future.done():
                future.set_result(result)
