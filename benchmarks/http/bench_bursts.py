"""Scheduled bursts (issue 25): scheduled interactions with callbacks, measured as a new user
would (``make bench-bursts``).

For each target (this checkout, and with ``--baseline REV`` that commit's code, exported with
``git archive``), alternated over ``--rounds``: a fresh database (a SQLite file, or with
``--postgres URL`` a fresh database on that server, dropped after), one ``sleuth serve`` with its
defaults (it starts ``--worker-processes`` worker children: 1 on SQLite, 2 on PostgreSQL), a
callback receiver in its own process (``bursts_receiver.py``: a plain ASGI app under uvicorn,
keep-alive HTTP/1.1). ``10,000 x --scale`` interactions are scheduled through the API (10
runtimes per request, one enterprise organization) spread evenly over ``--window`` seconds that
open ``--lead`` seconds after the start; ``--capacity`` makes them all due at the same second
(the drain rate is then the figure).

``--hung F`` gives the fraction F of the requests to a second organization whose callback URL is
a socket that accepts connections and never answers (a hung receiver); the figures are then those
of the first organization's interactions, which must not wait for the hung ones.

Printed per measurement, with the load average: runs per second (completed runs / seconds from
the window's opening to the last completion), done per second (callbacks received / seconds from
the window's opening to the last arrival: the whole interaction, run and callback), the delay
percentiles from each scheduled time to the run's start (``started_at``) and to the callback's
arrival at the receiver, the callbacks received (each exactly once), runs started early (none
allowed) and how many TCP connections the callbacks came on. Exits non-zero when a callback is
missing or duplicated or a run started early.

    python benchmarks/http/bench_bursts.py [--scale 1.0] [--window 60] [--lead 30] [--capacity]
        [--postgres URL]          # default: SQLite; $SLEUTH_TEST_POSTGRES_URL with --postgres ""
        [--worker-processes N]    # SLEUTH_WORKER_PROCESSES (default 1 on SQLite, 2 on PostgreSQL)
        [--baseline REV] [--rounds N] [--hung F]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import harness
import httpx
from bench_interactions import export
from bench_jobs import interaction_rows, percentile, ts

RUNTIMES_PER_REQUEST = 10
FULL_COUNT = 10_000


@dataclass
class Result:
    target: str
    runs_per_s: float
    done_per_s: float
    start: list[float]
    callback: list[float]
    callbacks: int
    expected: int
    duplicates: int
    early: int
    connections: int
    load_before: str
    load_after: str

    @property
    def ok(self) -> bool:
        return self.callbacks == self.expected and self.duplicates == 0 and self.early == 0

    def line(self) -> str:
        def pct(values: list[float]) -> str:
            return (
                f"p50 {percentile(values, 50):6.2f}s p99 {percentile(values, 99):6.2f}s"
                f" max {max(values, default=float('nan')):6.2f}s"
            )

        return (
            f"{self.target:>8}: {self.runs_per_s:6.1f} runs/s {self.done_per_s:6.1f} done/s"
            f" | start {pct(self.start)} | "
            f"callback {pct(self.callback)} | callbacks {self.callbacks}/{self.expected}"
            f" dup {self.duplicates} early {self.early} on {self.connections} connections"
            f" | load {self.load_before} -> {self.load_after}"
        )


@contextlib.contextmanager
def receiver(log: Path) -> Iterator[str]:
    """The callback receiver process; yields its callback URL."""
    port = harness.free_port()
    args = [
        "-m", "uvicorn", "bursts_receiver:app", "--app-dir", str(harness.HERE),
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
        "--lifespan", "off",
    ]  # fmt: skip
    with harness.server(args, port, env={"RECEIVER_LOG": str(log)}):
        yield f"http://127.0.0.1:{port}/callback"


@contextlib.contextmanager
def hung_receiver() -> Iterator[str]:
    """A socket that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1024)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/callback"


def read_arrivals(log: Path) -> tuple[dict[str, float], int, int]:
    """First arrival per interaction, duplicates, distinct client connections."""
    arrivals: dict[str, float] = {}
    duplicates = 0
    ports: set[str] = set()
    if log.exists():
        for line in log.read_text().splitlines():
            moment, interaction_id, port = line.split()
            ports.add(port)
            if interaction_id in arrivals:
                duplicates += 1
            else:
                arrivals[interaction_id] = float(moment)
    return arrivals, duplicates, len(ports)


async def measure(
    args: argparse.Namespace, target: str, root: Path, database_url: str, workdir: Path
) -> Result:
    seeded = await harness.seed(database_url, 2 if args.hung else 1, 1, root=root)
    key, org_id = seeded[0][0], seeded[0][1]
    hung_key = seeded[1][0] if args.hung else None
    count = max(RUNTIMES_PER_REQUEST, round(FULL_COUNT * args.scale))
    count -= count % RUNTIMES_PER_REQUEST
    window = 1 if args.capacity else args.window
    log = workdir / f"arrivals-{target}.txt"
    log.unlink(missing_ok=True)
    env = {"SLEUTH_WORKER_PROCESSES": str(args.worker_processes)}
    port = harness.free_port()
    with (
        receiver(log) as callback_url,
        hung_receiver() as hung_url,
        harness.sleuth_server(database_url, port, env, root=root),
    ):
        opens = int(time.time()) + args.lead
        runtimes = [opens + (i * window) // count for i in range(count)]  # whole seconds
        every = round(1 / args.hung) if args.hung else 0
        requests = []
        for n, i in enumerate(range(0, count, RUNTIMES_PER_REQUEST)):
            hung = bool(every) and n % every == every - 1
            body = {
                "question": f"What changed in service {i}?",
                "scheduled_runtimes": runtimes[i : i + RUNTIMES_PER_REQUEST],
                "notifications": {"web": {"callback_url": hung_url if hung else callback_url}},
            }
            requests.append((hung_key if hung else key, body))
        load_before = harness.loadavg()
        started = time.monotonic()
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            pending = list(reversed(requests))

            async def post_all() -> None:
                while pending:
                    api_key, body = pending.pop()
                    response = await client.post(
                        "/api/v1/interactions",
                        json=body,
                        headers={"X-Service-Org-Api-Key": api_key},
                    )
                    if response.status_code != 200:
                        raise RuntimeError(
                            f"schedule failed: {response.status_code} {response.text}"
                        )

            await asyncio.gather(*(post_all() for _ in range(8)))
        left = opens - time.time()
        print(
            f"  [{target}] scheduled {count} runs in {time.monotonic() - started:.1f}s, window"
            f" ({window}s) opens in {left:.1f}s",
            flush=True,
        )
        if left < 0:
            raise SystemExit("scheduling overran the window's start: raise --lead")
        expected = count - (
            count // RUNTIMES_PER_REQUEST // every * RUNTIMES_PER_REQUEST if every else 0
        )
        deadline = opens + window + args.timeout
        while time.time() < deadline:
            await asyncio.sleep(2)
            got = len(read_arrivals(log)[0])
            if got >= expected:
                break
        await asyncio.sleep(1)  # a duplicate would show up now
        load_after = harness.loadavg()

    rows = await interaction_rows(database_url, org_id)
    arrivals, duplicates, connections = read_arrivals(log)
    start, callback, completions = [], [], []
    early = 0
    for interaction_id, scheduled, started_at, completed_at, _status in rows:
        due = ts(scheduled)
        assert due is not None
        if started_at is not None:
            start.append(ts(started_at) - due)  # type: ignore[operator]
            early += start[-1] < 0
        if completed_at is not None:
            completions.append(ts(completed_at))
        if interaction_id in arrivals:
            callback.append(arrivals[interaction_id] - due)
    span = (max(completions) - opens) if completions else float("nan")  # type: ignore[type-var]
    called_back = max(arrivals.values(), default=float("nan")) - opens
    return Result(
        target=target,
        runs_per_s=len(completions) / span if span > 0 else float("nan"),
        done_per_s=len(arrivals) / called_back if called_back > 0 else float("nan"),
        start=start,
        callback=callback,
        callbacks=len(arrivals),
        expected=len(rows),
        duplicates=duplicates,
        early=early,
        connections=connections,
        load_before=load_before,
        load_after=load_after,
    )


@contextlib.contextmanager
def fresh_database(args: argparse.Namespace, workdir: Path, name: str) -> Iterator[str]:
    if args.postgres is not None:
        from bench_http import postgres_database

        with postgres_database(args.postgres) as url:
            yield url
    else:
        path = workdir / f"{name}.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        yield f"sqlite:///{path}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="of 10,000 interactions")
    parser.add_argument("--window", type=int, default=60, help="seconds the runtimes spread over")
    parser.add_argument("--capacity", action="store_true", help="all due at once (window 1 s)")
    parser.add_argument("--lead", type=int, default=30, help="seconds until the window opens")
    parser.add_argument("--timeout", type=int, default=120, help="seconds to wait after it")
    parser.add_argument(
        "--postgres",
        default=None,
        help="a fresh database on this PostgreSQL server ('' : $SLEUTH_TEST_POSTGRES_URL)",
    )
    parser.add_argument("--worker-processes", type=int, default=None)
    parser.add_argument("--baseline", default=None, help="git revision to compare with")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--hung", type=float, default=0.0, help="share of requests to a hung org")
    args = parser.parse_args()
    if args.postgres == "":
        args.postgres = os.environ.get("SLEUTH_TEST_POSTGRES_URL") or None
        if args.postgres is None:
            parser.error("--postgres '' needs SLEUTH_TEST_POSTGRES_URL")
    if args.worker_processes is None:
        args.worker_processes = 2 if args.postgres else 1
    print(harness.describe_machine())
    mode = "capacity (all due at once)" if args.capacity else f"window {args.window}s"
    print(
        f"{'PostgreSQL' if args.postgres else 'SQLite'}, {args.worker_processes} worker"
        f" process(es), scale {args.scale}, {mode}"
        f"{f', hung share {args.hung}' if args.hung else ''}",
        flush=True,
    )
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="sleuth-bench-bursts-") as tmp:
        workdir = Path(tmp)
        targets = [("current", harness.ROOT)]
        if args.baseline:
            src = workdir / "baseline-src"
            src.mkdir()
            print(f"baseline: {args.baseline} ({export(args.baseline, src)})")
            targets.append(("baseline", src))
        for round_no in range(args.rounds):
            order = targets if round_no % 2 == 0 else list(reversed(targets))
            for target, root in order:
                with fresh_database(args, workdir, f"{target}-{round_no}") as url:
                    result = asyncio.run(measure(args, target, root, url, workdir))
                print(f"round {round_no + 1} {result.line()}", flush=True)
                results.append(result)
    print()
    for target, _root in targets:
        mine = [r for r in results if r.target == target]
        print(
            f"{target:>8}: median runs/s {statistics.median(r.runs_per_s for r in mine):.1f};"
            f" median done/s {statistics.median(r.done_per_s for r in mine):.1f};"
            f" start p99 {', '.join(f'{percentile(r.start, 99):.2f}' for r in mine)} s;"
            f" callback p99 {', '.join(f'{percentile(r.callback, 99):.2f}' for r in mine)} s"
        )
    if args.baseline:
        pairs = zip(
            [r for r in results if r.target == "current"],
            [r for r in results if r.target == "baseline"],
            strict=True,
        )
        pairs_list = list(pairs)
        for name in ("runs_per_s", "done_per_s"):
            ratios = [getattr(c, name) / getattr(b, name) for c, b in pairs_list]
            print(
                f"same-round {name.replace('_per_s', '/s')} ratios current/baseline: "
                + ", ".join(f"{r:.2f}x" for r in ratios)
            )
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
