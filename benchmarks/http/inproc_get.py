"""CPU per request of ``make bench-http``'s requests, in process (no network, no server): a
profiling aid for the request path's fixed cost.

A fresh database seeded as ``bench_http.py`` seeds it (SQLite, or PostgreSQL with ``--postgres``),
the application built in this process as ``sleuth serve`` builds it (collector tuned the same way)
and Litestar's hello-world (``hello_litestar.py``), both called directly as ASGI apps with prebuilt
requests, one at a time: the authenticated ``GET /api/v1/alert-responders/{id}``, the write
``POST .../enable`` of an ACTIVE agent (as ``bench_http.py`` sends it), ``change`` (a
``.../disable`` then an ``.../enable`` of each agent: every request changes the agent) and the
hello-world's ``GET /``. Prints the CPU time of a request (``time.process_time``), min and median
over ``--chunks`` chunks of ``--requests`` requests, and the ratio hello / target. With
``--concurrency N`` the requests of a chunk are sent by N clients at once, each sending its next
request once its last is answered (as ``wrk``'s connections do): what concurrent requests share
(the PostgreSQL reads of one turn of the event loop, read in one round trip) shows only then.
``--profile FILE`` runs cProfile over one more chunk of the ``--profile-target`` and prints the top
of it.

    python benchmarks/http/inproc_get.py [--postgres URL] [--chunks 8] [--requests 300]
        [--concurrency 1] [--profile FILE] [--profile-target get|write|change|hello]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import harness
from bench_http import postgres_database

from sleuth_core.ids import encode_global_id

Request = tuple[str, str, bytes]  # method, path, API key


def scope_of(method: str, path: str, key: bytes) -> dict[str, Any]:
    headers = [(b"host", b"127.0.0.1"), (b"user-agent", b"wrk")]
    if key:
        headers.append((b"x-service-org-api-key", key))
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }


async def call(app: Any, method: str, path: str, key: bytes) -> int:
    status = 0

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(scope_of(method, path, key), receive, send)
    return status


async def lifespan(app: Any, event: str) -> None:
    hooks = app.on_startup if event == "startup" else app.on_shutdown
    for hook in hooks:
        result = hook()
        if asyncio.iscoroutine(result):
            await result


async def run(args: argparse.Namespace, database_url: str) -> int:
    triples = await harness.seed(database_url, args.orgs, args.agents)
    os.environ.update(
        {
            "SLEUTH_DATABASE_URL": database_url,
            "SLEUTH_PUBLIC_URL": "http://127.0.0.1:8000",
            "SLEUTH_ALLOW_PRIVATE_URLS": "true",
            "SLEUTH_WORKERS_INLINE": "false",
        }
    )
    sys.path.insert(0, str(harness.HERE))
    from hello_litestar import app as hello

    from sleuth_shell.app import create_app
    from sleuth_shell.cli import load_checked_agent, load_settings
    from sleuth_shell.gc_tuning import tune_for_serving

    settings = load_settings()
    app = create_app(settings, agent=load_checked_agent(settings))
    rng = random.Random(1)
    picks = [rng.choice(triples) for _ in range(args.requests)]

    def requests_of(target: str) -> list[tuple[Any, str, str, bytes]]:
        if target == "hello":
            return [(hello, "GET", "/", b"")] * args.requests
        if target == "change":  # a disable then an enable of each agent: every one a change
            return [
                (
                    app,
                    "POST",
                    f"/api/v1/alert-responders/{encode_global_id('AlertResponder', agent)}/{verb}",
                    key.encode(),
                )
                for key, _org, agent in picks[: args.requests // 2]
                for verb in ("disable", "enable")
            ]
        suffix = "/enable" if target == "write" else ""
        method = "POST" if target == "write" else "GET"
        return [
            (
                app,
                method,
                f"/api/v1/alert-responders/{encode_global_id('AlertResponder', agent)}{suffix}",
                key.encode(),
            )
            for key, _org, agent in picks
        ]

    targets = ["get", "hello"] + ([] if args.no_writes else ["write", "change"])
    if args.only:
        targets = [target for target in targets if target in (args.only, "hello")]
    work = {target: requests_of(target) for target in targets}
    cpu: dict[str, list[float]] = {target: [] for target in targets}

    async def client(target: str, batch: list[tuple[Any, str, str, bytes]]) -> None:
        for application, method, path, key in batch:
            status = await call(application, method, path, key)
            if status != 200:
                raise RuntimeError(f"{target}: {status} for {method} {path}")

    async def chunk(target: str) -> float:
        batch = work[target]
        start = time.process_time()
        if args.concurrency == 1:
            await client(target, batch)
        else:  # like wrk's connections: each client sends its next request once answered
            n = args.concurrency
            await asyncio.gather(*(client(target, batch[i::n]) for i in range(n)))
        return (time.process_time() - start) / len(batch) * 1e6

    await lifespan(app, "startup")
    print(tune_for_serving().describe())
    try:
        for target in targets:  # warm up: caches, prepared statements, pools
            await chunk(target)
        for _ in range(args.chunks):
            for target in targets:
                cpu[target].append(await chunk(target))
        if args.profile is not None:
            profiler = cProfile.Profile()
            run_chunk: Callable[[str], Awaitable[float]] = chunk
            profiler.enable()
            await run_chunk(args.profile_target)
            profiler.disable()
            profiler.dump_stats(str(args.profile))
    finally:
        await lifespan(app, "shutdown")
    print(harness.describe_machine(), "load", harness.loadavg(), "database", database_url[:10])
    for target in targets:
        low, median = min(cpu[target]), statistics.median(cpu[target])
        print(f"  {target:6} min {low:7.1f} us  median {median:7.1f} us CPU a request")
    for target in targets:
        if target != "hello":
            print(f"  hello / {target}: {min(cpu['hello']) / min(cpu[target]):.2f}x (mins)")
    if args.profile is not None:
        stats = pstats.Stats(str(args.profile))
        stats.sort_stats("tottime").print_stats(35)
        stats.sort_stats("cumulative").print_stats(60)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--postgres", default=None, help="a PostgreSQL server instead of SQLite")
    parser.add_argument("--chunks", type=int, default=8)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--orgs", type=int, default=50)
    parser.add_argument("--agents", type=int, default=5)
    parser.add_argument("--no-writes", action="store_true")
    parser.add_argument(
        "--concurrency",
        type=int,
        default=1,
        help="requests in flight at once (clients that each send the next once answered)",
    )
    parser.add_argument(
        "--only", choices=("get", "write", "change"), help="measure this and the hello only"
    )
    parser.add_argument("--profile", type=Path, default=None)
    parser.add_argument(
        "--profile-target", choices=("get", "write", "change", "hello"), default="get"
    )
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        if args.postgres:
            url = stack.enter_context(postgres_database(args.postgres))
        else:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="sleuth-inproc-"))
            url = f"sqlite:///{Path(tmp) / 'sleuth.db'}"
        return asyncio.run(run(args, url))
    return 1


if __name__ == "__main__":
    sys.exit(main())
