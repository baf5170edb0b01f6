"""Write batches: many jobs' small write transactions committed as one.

On SQLite every write transaction takes the database's single write lock; a light run used to need
four of them (start, finish with its usage row and callback job, the callback's completion, the
claim). The worker's :class:`WriteBatcher` is a :class:`~sleuth_shell.db.group_commit.GroupCommit`
of units of work (``async def unit(session) -> T``, writes only, no commit) that jobs submit
(:meth:`~sleuth_shell.jobs.registry.JobContext.write`): the units waiting together run one after
the other in one session, committed once. On PostgreSQL it saves a round trip and a commit per
unit.

Outcomes stay per unit (the group commit's rule): when any unit of a batch raises, the batch is
rolled back and every unit of it runs again alone in its own transaction, so one unit's failure (a
lost lease, say) never undoes or fails another's work; a unit that failed alone is not run again.
Units must therefore only write to the database through the session they are given (they may run
twice; only the committed run counts).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.db.group_commit import GroupCommit

__all__ = ["MAX_BATCH", "SERVER_BATCHES", "Unit", "WriteBatcher", "write_alone"]

T = TypeVar("T")

Unit = Callable[[AsyncSession], Awaitable[T]]

#: Most units committed in one transaction (bounds how long one batch holds SQLite's write lock).
MAX_BATCH = 64

#: Batches a worker writes at once on a database server (PostgreSQL): a batch waits on a round
#: trip per statement, one after the other, so one batch in flight bounded a worker's runs a
#: second well below what its CPU allowed (docs/performance.md, "PostgreSQL bursts: the writer").
SERVER_BATCHES = 4


async def write_alone(sessions: async_sessionmaker[AsyncSession], unit: Unit[T]) -> T:
    """Run ``unit`` in its own transaction and commit it (rolled back if it raises)."""
    async with sessions() as session:
        result = await unit(session)
        await session.commit()
        return result


async def _run_units(session: AsyncSession, units: Sequence[Unit[Any]]) -> list[Any]:
    return [await unit(session) for unit in units]


class WriteBatcher(GroupCommit[Unit[Any], Any]):
    """The worker's group commit of units of ``sessions`` (see the module doc): one batch in
    flight on SQLite (its single write lock), :data:`SERVER_BATCHES` on a database server."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], *, max_batch: int = MAX_BATCH
    ) -> None:
        bind = sessions.kw.get("bind")
        server = getattr(getattr(bind, "dialect", None), "name", "sqlite") != "sqlite"
        super().__init__(
            sessions, _run_units, max_size=max_batch, parallel=SERVER_BATCHES if server else 1
        )
