"""Scheduling benchmark: 10,000 scheduled interactions with callbacks to a local receiver
(``make bench-jobs``).

One ``sleuth serve`` (with its default job worker, one ``sleuth worker`` child; SQLite by
default) on a fresh database with one
enterprise organization and no knowledge loaded. ``--count`` interactions (10 runtimes per request)
are spread evenly over a ``--window``-second window that opens ``--lead`` seconds after the
start, each with ``notifications.web.callback_url`` pointing at a receiver in this process.
Printed: runs per second, and the delay percentiles from each scheduled time to the run's start
(``started_at``) and to its callback's arrival; with the load average next to the figures.

    python benchmarks/http/bench_jobs.py [--count 10000] [--window 60] [--lead 40]
        [--database-url URL | --postgres postgresql://server/db]   # default: a fresh SQLite
                                                                   # file; --postgres: a fresh
                                                                   # database on that server
        [--workers N]   # N separate `sleuth worker` processes instead of serve's own worker
        [--worker-processes N]   # SLEUTH_WORKER_PROCESSES of serve (0: in-process worker)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import harness
import httpx
from sqlalchemy import select

RUNTIMES_PER_REQUEST = 10


class Receiver:
    """A minimal HTTP/1.1 server that records when each interaction's callback arrives."""

    def __init__(self) -> None:
        self.arrivals: dict[str, float] = {}
        self.duplicates = 0
        self.done = asyncio.Event()
        self.expected = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                body = await reader.readexactly(length)
                now = time.time()
                interaction_id = json.loads(body)["interaction_id"]
                if interaction_id in self.arrivals:
                    self.duplicates += 1
                else:
                    self.arrivals[interaction_id] = now
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
                await writer.drain()
                if self.expected and len(self.arrivals) >= self.expected:
                    self.done.set()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@contextlib.contextmanager
def worker_process(database_url: str) -> Iterator[subprocess.Popen[bytes]]:
    """A ``sleuth worker`` process on ``database_url`` until the block ends."""
    env = dict(os.environ)
    env.update(
        SLEUTH_DATABASE_URL=database_url,
        SLEUTH_ALLOW_PRIVATE_URLS="true",
        PYTHONPATH=harness.source_path(),
    )
    proc = subprocess.Popen(
        [harness.PYTHON, "-m", "sleuth_shell", "worker"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield proc
    finally:
        harness.stop(proc)


def ts(moment: datetime | None) -> float | None:
    """Unix seconds of a stored (naive UTC or aware) time."""
    return moment.replace(tzinfo=moment.tzinfo or UTC).timestamp() if moment else None


async def interaction_rows(database_url: str, org_id: int | None = None) -> list[Any]:
    """``(id, scheduled_runtime, started_at, completed_at, status)`` of every interaction (of
    ``org_id`` when given)."""
    from sleuth_shell.db import create_engine, create_session_factory
    from sleuth_shell.db.models import Interaction

    query = select(
        Interaction.id,
        Interaction.scheduled_runtime,
        Interaction.started_at,
        Interaction.completed_at,
        Interaction.status,
    )
    if org_id is not None:
        query = query.where(Interaction.org_id == org_id)
    engine = create_engine(database_url)
    try:
        async with create_session_factory(engine)() as session:
            return list((await session.execute(query)).all())
    finally:
        await engine.dispose()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


async def run(args: argparse.Namespace, database_url: str) -> int:
    key = (await harness.seed(database_url, 1, 1))[0][0]
    receiver = Receiver()
    receiver.expected = args.count
    server = await asyncio.start_server(receiver.handle, "127.0.0.1", 0)
    callback_port = server.sockets[0].getsockname()[1]
    callback_url = f"http://127.0.0.1:{callback_port}/callback"
    port = harness.free_port()
    extra_env = {"SLEUTH_WORKERS_INLINE": "false"} if args.workers else {}
    if args.worker_processes is not None:
        extra_env["SLEUTH_WORKER_PROCESSES"] = str(args.worker_processes)
    with harness.sleuth_server(database_url, port, extra_env), contextlib.ExitStack() as workers:
        for _ in range(args.workers):
            workers.enter_context(worker_process(database_url))
        base = f"http://127.0.0.1:{port}"
        opens = int(time.time()) + args.lead
        runtimes = [opens + (i * args.window) // args.count for i in range(args.count)]
        bodies = [
            {
                "question": f"What changed in service {i}?",
                "scheduled_runtimes": runtimes[i : i + RUNTIMES_PER_REQUEST],
                "notifications": {"web": {"callback_url": callback_url}},
            }
            for i in range(0, args.count, RUNTIMES_PER_REQUEST)
        ]
        print(f"load average before scheduling: {harness.loadavg()}", flush=True)
        started = time.monotonic()
        async with httpx.AsyncClient(
            base_url=base, headers={"X-Service-Org-Api-Key": key}, timeout=60
        ) as client:
            queue: asyncio.Queue[dict[str, object]] = asyncio.Queue()
            for body in bodies:
                queue.put_nowait(body)

            async def post_all() -> None:
                while not queue.empty():
                    body = queue.get_nowait()
                    response = await client.post("/api/v1/interactions", json=body)
                    if response.status_code != 200:
                        raise RuntimeError(
                            f"schedule failed: {response.status_code} {response.text}"
                        )

            await asyncio.gather(*(post_all() for _ in range(8)))
        scheduled_in = time.monotonic() - started
        left = opens - time.time()
        print(
            f"scheduled {args.count} interactions in {scheduled_in:.1f}s; the window opens in "
            f"{left:.1f}s (load {harness.loadavg()})",
            flush=True,
        )
        if left < 0:
            print("scheduling overran the window's start: raise --lead", file=sys.stderr)
            return 1
        deadline = opens + args.window + args.timeout
        loads = []
        while not receiver.done.is_set() and time.time() < deadline:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(receiver.done.wait(), 5)
            loads.append(harness.loadavg())
            print(
                f"  {time.time() - opens:6.1f}s after opening: {len(receiver.arrivals)} callbacks"
                f" (load {loads[-1]})",
                flush=True,
            )
        server.close()

    rows = await interaction_rows(database_url)
    start_delays, callback_delays, completions = [], [], []
    early = 0
    statuses: dict[str, int] = {}
    for interaction_id, scheduled, started_at, completed_at, status in rows:
        statuses[status] = statuses.get(status, 0) + 1
        due = ts(scheduled)
        assert due is not None
        if started_at is not None:
            delay = ts(started_at) - due  # type: ignore[operator]
            start_delays.append(delay)
            early += delay < 0
        if completed_at is not None:
            completions.append(ts(completed_at))
        if interaction_id in receiver.arrivals:
            callback_delays.append(receiver.arrivals[interaction_id] - due)
    span = (max(completions) - opens) if completions else float("nan")
    callbacks = len(receiver.arrivals)
    print()
    print(harness.describe_machine())
    print(f"interactions: {len(rows)}, statuses {statuses}")
    print(f"callbacks received: {callbacks} (duplicates {receiver.duplicates})")
    print(f"runs started early: {early}")
    print(
        f"runs/s: {len(completions) / span:.0f} (completed runs / seconds from the window's opening"
        f" to the last completion; due rate {args.count / args.window:.0f}/s)"
    )
    for name, values in (("start", start_delays), ("callback", callback_delays)):
        print(
            f"delay scheduled -> {name:8}: p50 {percentile(values, 50):.3f}s"
            f"  p90 {percentile(values, 90):.3f}s  p99 {percentile(values, 99):.3f}s"
            f"  max {max(values, default=float('nan')):.3f}s  (n={len(values)})"
        )
    print(f"load average during the window: {', '.join(loads[:1] + loads[-1:])}")
    ok = callbacks == args.count and receiver.duplicates == 0 and early == 0
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--window", type=int, default=60, help="seconds the runtimes spread over")
    parser.add_argument("--lead", type=int, default=40, help="seconds until the window opens")
    parser.add_argument("--timeout", type=int, default=120, help="seconds to wait after it")
    parser.add_argument("--database-url", default=None)
    parser.add_argument(
        "--postgres",
        default=None,
        help="a fresh database on this PostgreSQL server (dropped after)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help="run N separate `sleuth worker` processes instead of serve's own worker",
    )
    parser.add_argument(
        "--worker-processes",
        type=int,
        default=None,
        help="SLEUTH_WORKER_PROCESSES of serve (default: the product's default, 1)",
    )
    args = parser.parse_args()
    if args.postgres:
        from bench_http import postgres_database

        with postgres_database(args.postgres) as url:
            return asyncio.run(run(args, url))
    with tempfile.TemporaryDirectory(prefix="sleuth-bench-jobs-") as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'sleuth.db'}"
        return asyncio.run(run(args, url))


if __name__ == "__main__":
    sys.exit(main())
