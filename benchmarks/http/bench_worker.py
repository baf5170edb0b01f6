"""The worker alone, in process: CPU per light run (``python benchmarks/http/bench_worker.py``).

``--count`` interactions (an organization with no knowledge, callbacks to a receiver in this
process) are all due at once; one worker (the real one, ``job_registry()``) drains them. Printed:
the process CPU time per run plus its callback (``time.process_time``: what the work costs,
largely independent of how much of a core a shared machine leaves the process), the wall-clock
rate, duplicates and early starts; with ``--locks``, how long SQLite's in-process write lock was
held (the contended resource of a single-file database) and how many transactions took it; with
``--statements``, what the worker sent to the database per run (statements by their first word,
transactions begun, pool checkouts and pings) and, on PostgreSQL, the server's side of it: its
transactions (``pg_stat_database``) and the CPU its backends spent, per run.

    python benchmarks/http/bench_worker.py [--count 300] [--locks] [--statements]
        [--database-url URL | --postgres URL]   # --postgres: a fresh database on that server
                                                # ('': $SLEUTH_TEST_POSTGRES_URL), dropped after

Compare two commits by running it from each checkout alternately at the same load.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import harness
from bench_jobs import Receiver


def time_write_lock() -> list[float]:
    """Patch the SQLite write lock to add up how long it is held: ``[seconds, times]``."""
    from sleuth_shell.db import sqlite_reads

    held = [0.0, 0.0]

    class TimedLock(asyncio.Lock):
        since = 0.0

        async def acquire(self) -> bool:
            result = await super().acquire()
            self.since = time.perf_counter()
            return result

        def release(self) -> None:
            held[0] += time.perf_counter() - self.since
            held[1] += 1
            super().release()

    locks: dict[str, asyncio.Lock] = {}
    sqlite_reads.write_lock = lambda database: locks.setdefault(database, TimedLock())  # type: ignore[assignment]
    return held


def count_statements(engine: Any) -> collections.Counter[str]:
    """Count what ``engine`` sends: statements by first word, ``BEGIN``s, pool checkouts, pings."""
    from sqlalchemy import event

    counts: collections.Counter[str] = collections.Counter()
    sync = engine.sync_engine

    @event.listens_for(sync, "before_cursor_execute")
    def statement(_conn: Any, _cursor: Any, text: str, *_args: Any) -> None:
        counts[text.split(None, 1)[0].upper()] += 1
        if os.environ.get("BENCH_STATEMENTS_VERBOSE"):
            counts["  " + " ".join(text.split())[:110]] += 1

    @event.listens_for(sync, "begin")
    def begin(_conn: Any) -> None:
        counts["(begin)"] += 1

    @event.listens_for(sync.pool, "checkout")
    def checkout(*_args: Any) -> None:
        counts["(checkout)"] += 1

    @event.listens_for(sync.pool, "reset")
    def reset(*_args: Any) -> None:
        counts["(reset on return)"] += 1

    do_ping = sync.dialect.do_ping

    def ping(dbapi_connection: Any) -> bool:
        counts["(ping)"] += 1
        return bool(do_ping(dbapi_connection))

    sync.dialect.do_ping = ping
    return counts


class ServerSide:
    """PostgreSQL: the transactions of ``url``'s database (``pg_stat_database``) and the CPU its
    backends spend (``/proc`` of the server on this machine, polled: pooled connections come and
    go)."""

    def __init__(self, url: str) -> None:
        from sqlalchemy.engine import make_url

        parsed = make_url(url)
        self.database = parsed.database
        self.dsn = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
        self.first: dict[int, int] = {}
        self.last: dict[int, int] = {}
        self.xacts = 0
        self._task: asyncio.Task[None] | None = None

    async def _poll(self, conn: Any) -> int:
        xacts = await conn.fetchval(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = $1",
            self.database,
        )
        rows = await conn.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            self.database,
        )
        for row in rows:
            with contextlib.suppress(OSError):
                fields = Path(f"/proc/{row['pid']}/stat").read_text().rsplit(")", 1)[1].split()
                ticks = int(fields[11]) + int(fields[12])
                self.first.setdefault(row["pid"], ticks)
                self.last[row["pid"]] = ticks
        return int(xacts)

    async def start(self) -> None:
        import asyncpg  # type: ignore[import-untyped]

        conn = await asyncpg.connect(self.dsn)
        self.xacts = await self._poll(conn)
        self.first = dict(self.last)

        async def poll() -> None:
            try:
                while True:
                    await asyncio.sleep(0.5)
                    await self._poll(conn)
            finally:
                await conn.close()

        self._task = asyncio.create_task(poll())

    async def stop(self) -> tuple[int, float]:
        """Transactions since :meth:`start` and the backends' CPU seconds."""
        import asyncpg

        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        conn = await asyncpg.connect(self.dsn)
        try:
            xacts = await self._poll(conn) - self.xacts
        finally:
            await conn.close()
        ticks = sum(last - self.first.get(pid, 0) for pid, last in self.last.items())
        return xacts, ticks / os.sysconf("SC_CLK_TCK")


async def run(args: argparse.Namespace, url: str) -> None:
    from sqlalchemy import select

    from sleuth_shell.config import Settings
    from sleuth_shell.db import create_engine, create_session_factory
    from sleuth_shell.db.hot_reads import dispose_engine
    from sleuth_shell.db.models import Interaction, Organization, utcnow
    from sleuth_shell.interactions.request import parse_interaction_request
    from sleuth_shell.interactions.service import create_interactions
    from sleuth_shell.jobs import Worker
    from sleuth_shell.runtime import job_registry
    from sleuth_shell.services import build_services

    await harness.seed(url, 1, 1)
    receiver = Receiver()
    receiver.expected = args.count
    server = await asyncio.start_server(receiver.handle, "127.0.0.1", 0)
    callback = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/cb"
    held = time_write_lock() if args.locks else None
    engine = create_engine(url)
    counts = count_statements(engine) if args.statements else None
    postgres = engine.dialect.name == "postgresql"
    sessions = create_session_factory(engine)
    settings = Settings(database_url=url, allow_private_urls=True, workers_inline=False)
    services = build_services(settings, sessions)
    now = utcnow()
    due = int(now.timestamp()) + 2
    async with sessions() as session:
        org_id = await session.scalar(select(Organization.id))
        assert org_id is not None
        for first in range(0, args.count, 10):
            body: dict[str, Any] = {
                "question": f"What changed in service {first}?",
                "scheduled_runtimes": [due] * min(10, args.count - first),
                "notifications": {"web": {"callback_url": callback}},
            }
            await create_interactions(
                session,
                services,
                org_id=org_id,
                team_id=None,
                api_key_id=None,
                api_key="bench",
                request=parse_interaction_request(body, now),
                now=now,
            )
        await session.commit()
    await asyncio.sleep(max(0.0, due - time.time()))
    worker = Worker(services, job_registry())
    if counts is not None:
        counts.clear()
    server_side = ServerSide(url) if postgres and args.statements else None
    if server_side is not None:
        await server_side.start()
    wall, cpu = time.perf_counter(), time.process_time()
    await worker.start()
    await asyncio.wait_for(receiver.done.wait(), args.timeout)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    on_server = await server_side.stop() if server_side is not None else None
    await worker.stop()
    sent = dict(counts) if counts is not None else None
    async with sessions() as session:
        rows = (
            await session.execute(select(Interaction.scheduled_runtime, Interaction.started_at))
        ).all()
    server.close()
    await services.aclose()
    await dispose_engine(engine)
    early = sum(1 for scheduled, started in rows if started is not None and started < scheduled)
    print(harness.describe_machine())
    print(
        f"{args.count} runs with callbacks: CPU {cpu / args.count * 1000:.1f} ms each;"
        f" all called back in {wall:.1f} s ({args.count / wall:.0f}/s wall);"
        f" duplicates {receiver.duplicates}, early starts {early}; load {harness.loadavg()}"
    )
    if held is not None:
        print(f"write lock held {held[0]:.1f} s of {wall:.1f} s, taken {int(held[1])} times")
    if sent is not None:
        per_run = ", ".join(
            f"{name} {n / args.count:.2f}" for name, n in sorted(sent.items(), key=lambda p: -p[1])
        )
        statements = sum(n for name, n in sent.items() if name[0] not in "( ")
        print(f"per run and its callback: {statements / args.count:.2f} statements ({per_run})")
    if on_server is not None:
        print(
            f"server: {on_server[0] / args.count:.2f} transactions per run, backends' CPU"
            f" {on_server[1] / args.count * 1000:.2f} ms per run"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--postgres", default=None, help="a fresh database on this server")
    parser.add_argument("--locks", action="store_true", help="time SQLite's write lock")
    parser.add_argument("--statements", action="store_true", help="count what is sent")
    args = parser.parse_args()
    if args.postgres is not None:
        from bench_http import postgres_database

        server = args.postgres or os.environ.get("SLEUTH_TEST_POSTGRES_URL")
        if not server:
            parser.error("--postgres '' needs SLEUTH_TEST_POSTGRES_URL")
        with postgres_database(server) as url:
            asyncio.run(run(args, url))
        return 0
    with tempfile.TemporaryDirectory(prefix="sleuth-bench-worker-") as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'sleuth.db'}"
        asyncio.run(run(args, url))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("SLEUTH_LOG_LEVEL", "WARNING")
    sys.exit(main())
