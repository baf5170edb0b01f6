"""HTTP benchmark: Sleuth's authenticated ``GET /api/v1/alert-responders/{id}`` against the
Litestar and FastAPI hello-world apps, in one run, alternated over rounds (``make bench-http``).

Each server is a uvicorn process with one worker and the access log on, as ``sleuth serve`` runs.
Sleuth gets a fresh database with many enterprise organizations and agents, so the per-organization
rate limits never cap the load; every request picks a random (key, agent) pair. Beside the GET, an
authenticated write that changes state is measured on each database (``--no-writes`` skips it):
``POST /api/v1/alert-responders/{id}/disable`` and ``.../enable``, each request flipping one agent
(``toggle.lua``: each wrk thread walks its share of the agents in turn, disabling them all on one
pass and enabling them on the next; every agent is set ACTIVE again in the database before each
run). So every write is a real change: the status ``UPDATE``, the agent-version bump and its change
row, and for a disable the stop of the agent's pending investigations. (An enable of an ACTIVE
agent changes nothing and is one read: ``inproc_get.py``'s ``write`` target measures that.)

The machine is shared, so the figures that matter are the same-run
ratios; the load average is printed next to every measurement. Each measurement also gives the
server process's CPU time per answered request (``/proc``), which other work on the machine barely
moves: the Litestar hello-world's over a target's is what the req/s ratio would be with a core free
for the server (PostgreSQL's own CPU is not in it).

PostgreSQL is measured too when ``--postgres`` names a server (default: the environment's
``SLEUTH_BENCH_POSTGRES_URL``, else ``SLEUTH_TEST_POSTGRES_URL``); each run creates a fresh
database there and drops it afterwards. ``--baseline DIR`` also serves another checkout (a git
worktree of the baseline commit) on the same databases, alternated with this one.

    python benchmarks/http/bench_http.py [--rounds 3] [--duration 5] [--connections 50]
        [--postgres postgresql://user@host/db] [--baseline ../main-worktree] [--no-writes]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import harness

from sleuth_core.ids import encode_global_id


@contextlib.contextmanager
def postgres_database(base_url: str) -> Iterator[str]:
    """A fresh PostgreSQL database next to ``base_url``'s, dropped afterwards."""
    import asyncpg  # type: ignore[import-untyped]
    from sqlalchemy.engine import make_url

    url = make_url(base_url)
    name = f"sleuth_bench_{uuid.uuid4().hex[:8]}"
    admin_dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)

    async def run(sql: str) -> None:
        conn = await asyncpg.connect(admin_dsn)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run(f'CREATE DATABASE "{name}"'))
    try:
        yield url.set(drivername="postgresql", database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


ROTATE = harness.HERE / "rotate.lua"
TOGGLE = harness.HERE / "toggle.lua"
#: wrk's threads (``toggle.lua`` splits the agents between them).
THREADS = 2


def write_targets(path: Path, triples: list[tuple[str, int, int]], suffix: str = "") -> None:
    """One ``key path`` line per (key, agent): the agent's URL, plus ``suffix``."""
    lines = [
        f"{key} /api/v1/alert-responders/{encode_global_id('AlertResponder', agent_id)}{suffix}"
        for key, _org, agent_id in triples
    ]
    path.write_text("\n".join(lines) + "\n")


def check_answers(port: int, triple: tuple[str, int, int], writes: bool) -> None:
    """One authenticated GET (and a disable and an enable) answers 200: the load measures
    answers, not errors."""
    import urllib.request

    key, _org, agent_id = triple
    url = f"http://127.0.0.1:{port}/api/v1/alert-responders/"
    url += encode_global_id("AlertResponder", agent_id)
    checks = [urllib.request.Request(url, headers={"X-Service-Org-Api-Key": key})]
    if writes:
        checks.extend(
            urllib.request.Request(
                url + verb, headers={"X-Service-Org-Api-Key": key}, method="POST"
            )
            for verb in ("/disable", "/enable")
        )
    for request in checks:
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200, response.status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--orgs", type=int, default=200)
    parser.add_argument("--agents", type=int, default=5, help="alert agents per organization")
    parser.add_argument(
        "--postgres",
        default=os.environ.get("SLEUTH_BENCH_POSTGRES_URL")
        or os.environ.get("SLEUTH_TEST_POSTGRES_URL"),
        help="also measure Sleuth on this server (default: $SLEUTH_BENCH_POSTGRES_URL, else "
        "$SLEUTH_TEST_POSTGRES_URL)",
    )
    parser.add_argument(
        "--baseline", type=Path, default=None, help="also serve this checkout (same databases)"
    )
    parser.add_argument("--no-writes", action="store_true", help="measure the GET only")
    parser.add_argument(
        "--warmup", type=float, default=3.0, help="seconds of untimed load on each target first"
    )
    args = parser.parse_args()
    writes = not args.no_writes
    checkouts = {"sleuth": harness.ROOT}
    if args.baseline is not None:
        checkouts["base"] = args.baseline.resolve()

    wrk = harness.ensure_wrk()
    print(harness.describe_machine())
    print(f"load average at start: {harness.loadavg()}")

    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="sleuth-bench-")))
        targets: dict[str, tuple[str, Path | None, list[str], int]] = {}
        resets: dict[str, str] = {}  # write target -> its database, reset before each run
        databases = {"sqlite": f"sqlite:///{tmp / 'sleuth.db'}"}
        if args.postgres:
            databases["postgres"] = stack.enter_context(postgres_database(args.postgres))
        for db_name, url in databases.items():
            triples = asyncio.run(harness.seed(url, args.orgs, args.agents))
            read_file = tmp / f"{db_name}-get.txt"
            write_targets(read_file, triples)
            # The writes' agents in a shuffled order: in seed order a wrk thread's consecutive
            # requests (those in flight together) would change the agents of a few organizations
            # and queue on their agent-version rows.
            toggle_file = tmp / f"{db_name}-toggle.txt"
            write_targets(toggle_file, random.Random(7).sample(triples, len(triples)))
            for label, root in checkouts.items():
                port = harness.free_port()
                proc = stack.enter_context(harness.sleuth_server(url, port, root=root))
                check_answers(port, triples[0], writes)
                base = f"http://127.0.0.1:{port}"
                targets[f"{label}-{db_name}"] = (base, ROTATE, [str(read_file)], proc.pid)
                if writes:
                    targets[f"{label}-{db_name}-write"] = (
                        base,
                        TOGGLE,
                        [str(toggle_file), str(THREADS)],
                        proc.pid,
                    )
                    resets[f"{label}-{db_name}-write"] = url
        for name, module in (
            ("litestar-hello", "hello_litestar"),
            ("fastapi-hello", "hello_fastapi"),
        ):
            port = harness.free_port()
            proc = stack.enter_context(harness.hello_server(module, port))
            targets[name] = (f"http://127.0.0.1:{port}/", None, [], proc.pid)

        # Untimed warm-up of every target: the first load on a server pays one-off work (each
        # key's first lookup and its last-use write, statement caches), and so did whichever
        # checkout came first in round 1 (measured: the same code 0.36x first, 0.68x second).
        for name, (url, script, script_args, _pid) in targets.items():
            if name in resets:
                asyncio.run(harness.activate_agents(resets[name]))
            harness.run_wrk(
                wrk,
                url,
                duration=args.warmup,
                connections=args.connections,
                threads=THREADS,
                script=script,
                script_args=script_args or None,
            )
        results: dict[str, list[harness.WrkResult]] = {name: [] for name in targets}
        for round_no in range(1, args.rounds + 1):
            for name, (url, script, script_args, pid) in targets.items():
                if name in resets:
                    asyncio.run(harness.activate_agents(resets[name]))
                result = harness.run_wrk(
                    wrk,
                    url,
                    duration=args.duration,
                    connections=args.connections,
                    threads=THREADS,
                    script=script,
                    script_args=script_args or None,
                    server_pid=pid,
                )
                results[name].append(result)
                print(
                    f"round {round_no} {name:22} {result.rps:9.0f} req/s"
                    f"  p50 {result.p50_ms:7.2f} ms  p99 {result.p99_ms:7.2f} ms"
                    f"  server CPU {result.server_cpu_us or 0:6.0f} us/request"
                    f"  errors {result.errors}  load {result.load}",
                    flush=True,
                )

    print()
    print(
        "| target | median req/s | median p50 ms | median p99 ms"
        " | req/s vs Litestar | p99 vs Litestar |"
    )
    print("|---|---|---|---|---|---|")
    ref = results["litestar-hello"]
    ref_rps = statistics.median(r.rps for r in ref)
    ref_p99 = statistics.median(r.p99_ms for r in ref)
    for name, runs in results.items():
        rps = statistics.median(r.rps for r in runs)
        p50 = statistics.median(r.p50_ms for r in runs)
        p99 = statistics.median(r.p99_ms for r in runs)
        print(
            f"| {name} | {rps:.0f} | {p50:.2f} | {p99:.2f}"
            f" | {rps / ref_rps:.2f}x | {p99 / ref_p99:.2f}x |"
        )
    # Per-round ratios (same round, adjacent in time) say more than medians on a busy machine.
    for name in results:
        if not name.endswith("-hello"):
            ratios = [s.rps / r.rps for s, r in zip(results[name], ref, strict=True)]
            print(f"{name} / litestar-hello per round: " + ", ".join(f"{x:.2f}x" for x in ratios))
    # The server's CPU per request hardly depends on what else runs: hello's CPU / the target's is
    # the throughput ratio a machine with a core free for the server would show (without
    # PostgreSQL's own CPU, which the server process does not count).
    print()
    print("| target | median server CPU us/request | litestar-hello's / target's |")
    print("|---|---|---|")
    ref_cpu = statistics.median(r.server_cpu_us or 0.0 for r in ref)
    for name, runs in results.items():
        cpu = statistics.median(r.server_cpu_us or 0.0 for r in runs)
        print(f"| {name} | {cpu:.0f} | {ref_cpu / cpu if cpu else 0:.2f}x |")
    print(f"load average at end: {harness.loadavg()}")
    errors = sum(r.errors for runs in results.values() for r in runs)
    if errors:
        print(
            f"{errors} non-2xx responses or timeouts: the figures above are not valid",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
