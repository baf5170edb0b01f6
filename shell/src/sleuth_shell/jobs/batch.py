"""Write batches: many jobs' small write transactions committed as one.

On SQLite every write transaction takes the database's single write lock; a light run used to
need four of them (start, finish with its usage row and callback job, the callback's completion,
the claim), and the time the lock spends between transactions (handing it to the next waiter,
each waiter resumed by the event loop) capped the worker at a few dozen runs per second. A
:class:`WriteBatcher` collects the units of work (``async def unit(session) -> T``, writes only,
no commit) that jobs submit while a batch is being committed, runs them one after the other in
one session and commits once. On PostgreSQL it saves a round trip and a commit per unit.

Outcomes stay per unit: when any unit of a batch raises, the batch is rolled back and every unit
of it runs again alone in its own transaction, so one unit's failure (a lost lease, say) never
undoes or fails another's work. Units must therefore only write to the database through the
session they are given (they may run twice; only the committed run counts).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

__all__ = ["MAX_BATCH", "Unit", "WriteBatcher", "write_alone"]

T = TypeVar("T")

Unit = Callable[[AsyncSession], Awaitable[T]]

#: Most units committed in one transaction (bounds how long one batch holds SQLite's write lock).
MAX_BATCH = 64


async def write_alone(sessions: async_sessionmaker[AsyncSession], unit: Unit[T]) -> T:
    """Run ``unit`` in its own transaction and commit it (rolled back if it raises)."""
    async with sessions() as session:
        result = await unit(session)
        await session.commit()
        return result


class WriteBatcher:
    """Commits the units submitted together in one transaction (see the module docstring)."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], *, max_batch: int = MAX_BATCH
    ) -> None:
        if max_batch < 1:
            raise ValueError("max_batch must be at least 1")
        self.sessions = sessions
        self.max_batch = max_batch
        self._queue: list[tuple[Unit[Any], asyncio.Future[Any]]] = []
        self._task: asyncio.Task[None] | None = None
        self.batches = 0
        """Transactions committed so far (batches and units re-run alone), for tests and stats."""

    async def write(self, unit: Unit[T]) -> T:
        """Run ``unit`` in the next batch; returns its result once the batch has committed (or
        raises what it raised when run alone)."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queue.append((unit, future))
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        await asyncio.sleep(0)  # let the units submitted in this loop turn join the batch
        while self._queue:
            batch, self._queue = self._queue[: self.max_batch], self._queue[self.max_batch :]
            batch = [(unit, future) for unit, future in batch if not future.cancelled()]
            if batch:
                await self._commit(batch)

    async def _commit(self, batch: list[tuple[Unit[Any], asyncio.Future[Any]]]) -> None:
        results: list[Any] = []
        try:
            async with self.sessions() as session:
                for unit, _future in batch:
                    results.append(await unit(session))
                await session.commit()
        except asyncio.CancelledError:
            for _unit, future in batch:
                future.cancel()
            raise
        except Exception as exc:
            if len(batch) == 1:  # it ran alone already: that is its outcome
                self.batches += 1
                if not batch[0][1].done():
                    batch[0][1].set_exception(exc)
                return
            for unit, future in batch:
                await self._alone(unit, future)
            return
        self.batches += 1
        for (_unit, future), result in zip(batch, results, strict=True):
            if not future.done():
                future.set_result(result)

    async def _alone(self, unit: Unit[Any], future: asyncio.Future[Any]) -> None:
        if future.done():
            return
        try:
            result = await write_alone(self.sessions, unit)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:
            self.batches += 1
            if not future.done():
                future.set_exception(exc)
        else:
            self.batches += 1
            if not future.done():
                future.set_result(result)

    async def aclose(self) -> None:
        """Wait for the units already submitted to be committed."""
        task = self._task
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await task
