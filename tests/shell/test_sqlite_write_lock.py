"""``sqlite_reads.WriteLock``: urgent writers (the intake's delivery batches) alternate with the
others instead of queueing behind every background job; cancelled waiters never hold it."""

from __future__ import annotations

import asyncio

import pytest

from sleuth_shell.db.sqlite_reads import WriteLock


def test_urgent_and_ordinary_waiters_take_turns() -> None:
    async def go() -> list[str]:
        lock = WriteLock()
        order: list[str] = []
        await lock.acquire()  # an ordinary holder

        async def writer(name: str, urgent: bool) -> None:
            await lock.acquire(urgent=urgent)
            order.append(name)
            await asyncio.sleep(0)
            lock.release()

        tasks = [asyncio.create_task(writer(f"job{i}", False)) for i in range(3)]
        tasks += [asyncio.create_task(writer(f"batch{i}", True)) for i in range(2)]
        await asyncio.sleep(0)  # all five are queued
        lock.release()
        await asyncio.gather(*tasks)
        assert not lock.locked()
        return order

    assert asyncio.run(go()) == ["batch0", "job0", "batch1", "job1", "job2"]


def test_a_cancelled_waiter_never_holds_the_lock() -> None:
    async def go() -> None:
        lock = WriteLock()
        await lock.acquire()
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(lock.acquire(urgent=True), 0.01)
        late = asyncio.create_task(lock.acquire())
        await asyncio.sleep(0)
        lock.release()
        assert await late is True and lock.locked()
        lock.release()
        assert not lock.locked()

        # Handed over at the moment the waiter is cancelled: it passes the lock on.
        await lock.acquire()
        first = asyncio.create_task(lock.acquire())
        second = asyncio.create_task(lock.acquire())
        await asyncio.sleep(0)
        lock.release()  # granted to `first`...
        first.cancel()  # ...which is cancelled before it runs
        with pytest.raises(asyncio.CancelledError):
            await first
        assert await second is True
        lock.release()
        assert not lock.locked()
        with pytest.raises(RuntimeError):
            lock.release()

    asyncio.run(go())
