"""Write batches (jobs/batch.py): units committed together, each unit's outcome its own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import Job
from sleuth_shell.jobs import enqueue
from sleuth_shell.jobs.batch import WriteBatcher

pytestmark = [pytest.mark.anyio, pytest.mark.storage]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def batcher(migrated_url: str) -> AsyncIterator[WriteBatcher]:
    engine = create_engine(migrated_url)
    yield WriteBatcher(create_session_factory(engine))
    await engine.dispose()


def add(name: str, *, then_fail: bool = False):  # type: ignore[no-untyped-def]
    async def unit(session: AsyncSession) -> str:
        await enqueue(session, "test.batch", {"name": name})
        if then_fail:
            raise ValueError(f"{name} refuses")
        return name

    return unit


async def names(batcher: WriteBatcher) -> list[str]:
    async with batcher.sessions() as session:
        rows = await session.scalars(select(Job).order_by(Job.id))
        return [str(job.payload["name"]) for job in rows]


async def test_units_submitted_together_commit_in_one_transaction(batcher: WriteBatcher) -> None:
    results = await asyncio.gather(*(batcher.submit(add(f"u{i}")) for i in range(5)))
    assert results == [f"u{i}" for i in range(5)]
    assert batcher.batches == 1
    assert await names(batcher) == [f"u{i}" for i in range(5)]


async def test_a_failing_unit_fails_alone_and_the_others_commit(batcher: WriteBatcher) -> None:
    results = await asyncio.gather(
        batcher.submit(add("a")),
        batcher.submit(add("b", then_fail=True)),
        batcher.submit(add("c")),
        return_exceptions=True,
    )
    assert results[0] == "a" and results[2] == "c"
    assert isinstance(results[1], ValueError) and str(results[1]) == "b refuses"
    # The batch was rolled back and each unit ran alone once: no unit's writes twice, b's none.
    assert await names(batcher) == ["a", "c"]
    assert batcher.batches == 3


async def test_a_unit_alone_that_fails_is_not_run_again(batcher: WriteBatcher) -> None:
    calls = 0

    async def unit(session: AsyncSession) -> None:
        nonlocal calls
        calls += 1
        await enqueue(session, "test.batch", {"name": "x"})
        raise RuntimeError("no")

    with pytest.raises(RuntimeError, match="no"):
        await batcher.submit(unit)
    assert calls == 1
    assert await names(batcher) == []


async def test_batches_hold_at_most_max_batch_units(batcher: WriteBatcher) -> None:
    batcher.max_size = 2
    await asyncio.gather(*(batcher.submit(add(f"u{i}")) for i in range(5)))
    assert batcher.batches == 3
    # On PostgreSQL the batches are written at the same time: their ids interleave.
    assert sorted(await names(batcher)) == [f"u{i}" for i in range(5)]


async def test_on_a_server_batches_are_written_at_the_same_time(
    batcher: WriteBatcher, backend: str
) -> None:
    """A batch waiting on the server does not hold the next one back (PostgreSQL); SQLite's
    single write lock takes one batch at a time."""
    batcher.max_size = 1
    first_started, second_started = asyncio.Event(), asyncio.Event()
    order: list[str] = []

    async def first(session: AsyncSession) -> str:
        first_started.set()
        await enqueue(session, "test.batch", {"name": "first"})
        if backend == "postgresql":
            await asyncio.wait_for(second_started.wait(), 10)
        order.append("first")
        return "first"

    async def second(session: AsyncSession) -> str:
        order.append("second")
        second_started.set()
        await enqueue(session, "test.batch", {"name": "second"})
        return "second"

    task = asyncio.create_task(batcher.submit(first))
    await first_started.wait()
    assert await batcher.submit(second) == "second"
    assert await task == "first"
    # PostgreSQL: the second batch ran while the first was still open; SQLite: after it.
    assert order == (["second", "first"] if backend == "postgresql" else ["first", "second"])
    assert sorted(await names(batcher)) == ["first", "second"]
