"""Synchronous interaction throughput over the demo data (``make bench-interactions``).

For each target (this checkout, and with ``--baseline REV`` that commit's code, exported with
``git archive`` into a temporary directory): a fresh SQLite database, an enterprise organization
(its rate limit raised out of the way with ``SLEUTH_RATE_LIMIT_ENTERPRISE``) with an admin API key,
``sleuth admin load-demo`` (runbooks, a day of logs with an incident, and on newer code change
records and metrics), then ``sleuth serve`` run from that target's sources. Each round loads every
target in turn for ``--duration`` seconds with ``--connections`` concurrent keep-alive connections
doing synchronous ``POST /api/v1/interactions`` with a rotating set of questions about the demo
data (runbook facts, log questions, "why" questions). The client is a minimal HTTP/1.1 client on
asyncio streams with the requests built beforehand, so that the load generator takes little of
the shared CPU.

Printed per round and target: requests/s, p50, p99, errors (every response must be a 200; any
other status or a dropped connection is an error and makes the exit status 1) and the load
average; then the same-round ratios current / baseline and their median. ``--profile DIR`` adds
one more load of each target under ``py-spy record -r 100 -f raw`` (written to
``DIR/<target>.txt``) and prints the top of each profile.

    python benchmarks/http/bench_interactions.py [--baseline f03baec | --no-baseline]
        [--rounds 3] [--duration 15] [--connections 8] [--profile DIR] [--no-why]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import harness

# Questions a user of the demo organization would ask (scripts/demo.sh, evals/questions_*.json):
# runbook facts, log questions over the incident's hours, and "why" questions.
QUESTIONS = [
    "Why is checkout failing? What errors did payments-api log in the last 6 hours?",
    "How do I roll back a deploy?",
    "What errors did payments-api log in the last 3 hours?",
    "What checkout error rate makes it a SEV-1?",
    "What is the root cause of the checkout outage?",
    "How do I replay the orders dead-letter queue?",
    "What warnings did storefront log in the last 12 hours?",
    "When does the secondary on-call get paged?",
    "What Redis eviction policy does cache-main use?",
    "How long is a session token valid in auth-api?",
    "What errors did checkout-api report in the last 6 hours?",
    "What is the maximum pool size we may set for payments-api?",
]
ACTIVE = list(QUESTIONS)
RATE_LIMIT = "100000000"
#: The "why" questions: on code with change records and metrics (after f03baec) the root-cause
#: engine answers them, on older code the log report (``--no-why`` leaves them out).
WHY = ("Why is", "root cause")


@dataclass
class Target:
    """One server under test: its sources, database and API key."""

    name: str
    src: Path  # the checkout root whose core/src and shell/src run
    workdir: Path
    port: int = 0
    key: str = ""
    proc: subprocess.Popen[bytes] | None = None
    results: list[Result] = field(default_factory=list)

    @property
    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            PYTHONPATH=os.pathsep.join(
                [str(self.src / "core" / "src"), str(self.src / "shell" / "src")]
            ),
            SLEUTH_DATABASE_URL=f"sqlite:///{self.workdir / 'sleuth.db'}",
            SLEUTH_PUBLIC_URL=f"http://127.0.0.1:{self.port}",
            SLEUTH_RATE_LIMIT_ENTERPRISE=RATE_LIMIT,
        )
        return env

    def cli(self, *args: str) -> dict[str, object]:
        out = subprocess.run(
            [harness.PYTHON, "-m", "sleuth_shell", *args],
            env=self.env,
            cwd=self.workdir,
            capture_output=True,
            text=True,
        )
        if out.returncode != 0:
            raise RuntimeError(f"{self.name}: sleuth {' '.join(args)} failed:\n{out.stderr}")
        return json.loads(out.stdout)  # type: ignore[no-any-return]

    def setup(self) -> None:
        self.port = harness.free_port()
        self.cli("admin", "create-org", "bench", "--plan", "enterprise")
        self.key = str(self.cli("admin", "create-key", "bench", "--admin")["key"])
        loaded = self.cli("admin", "load-demo", "bench")
        print(f"{self.name}: demo data loaded {loaded}", flush=True)


@dataclass(frozen=True)
class Result:
    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    errors: int
    load: str


@contextlib.contextmanager
def serving(target: Target) -> Iterator[None]:
    log = open(target.workdir / "serve.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [
            harness.PYTHON,
            "-m",
            "sleuth_shell",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(target.port),
        ],
        env=target.env,
        cwd=target.workdir,
        stdout=log,
        stderr=log,
    )
    target.proc = proc
    try:
        harness.wait_http(f"http://127.0.0.1:{target.port}/health", proc=proc)
        yield
    finally:
        harness.stop(proc)
        log.close()


def requests_for(target: Target, questions: list[str]) -> list[bytes]:
    out = []
    for question in questions:
        body = json.dumps({"question": question}).encode()
        head = (
            f"POST /api/v1/interactions HTTP/1.1\r\nHost: 127.0.0.1:{target.port}\r\n"
            f"Content-Type: application/json\r\nX-Service-Org-Api-Key: {target.key}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        out.append(head.encode() + body)
    return out


async def load(target: Target, duration: float, connections: int) -> Result:
    """``connections`` keep-alive connections posting the rotating questions for ``duration`` s."""
    requests = requests_for(target, ACTIVE)
    latencies: list[float] = []
    errors = 0
    counter = 0
    before = harness.loadavg()
    deadline = time.perf_counter() + duration

    async def client() -> None:
        nonlocal errors, counter
        reader, writer = await asyncio.open_connection("127.0.0.1", target.port)
        try:
            while time.perf_counter() < deadline:
                request = requests[counter % len(requests)]
                counter += 1
                start = time.perf_counter()
                writer.write(request)
                try:
                    status, _body = await harness.read_response(reader)
                except (asyncio.IncompleteReadError, ConnectionError, StopIteration):
                    errors += 1
                    return
                latencies.append(time.perf_counter() - start)
                if status != 200:
                    errors += 1
        finally:
            writer.close()

    start = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(connections)))
    wall = time.perf_counter() - start
    latencies.sort()

    def pct(q: float) -> float:
        if not latencies:
            return float("nan")
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000

    return Result(
        rps=len(latencies) / wall,
        p50_ms=pct(0.50),
        p99_ms=pct(0.99),
        requests=len(latencies),
        errors=errors,
        load=f"{before} -> {harness.loadavg()}",
    )


def show(name: str, result: Result) -> str:
    return (
        f"{name:9} {result.rps:7.1f} req/s  p50 {result.p50_ms:7.1f} ms"
        f"  p99 {result.p99_ms:7.1f} ms"
        f"  n={result.requests:5d}  errors {result.errors}  load {result.load}"
    )


def profile(target: Target, duration: float, connections: int, out: Path) -> Result:
    """One more load of ``target`` while ``py-spy record`` samples its server."""
    assert target.proc is not None
    py_spy = Path(harness.PYTHON).with_name("py-spy")
    spy = subprocess.Popen(
        [str(py_spy), "record", "-r", "100", "-f", "raw", "-p", str(target.proc.pid),
         "-d", f"{int(duration)}", "-o", str(out), "--nonblocking"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    time.sleep(1)  # py-spy attaches
    result = asyncio.run(load(target, duration, connections))
    try:
        spy.wait(timeout=duration + 30)
    except subprocess.TimeoutExpired:
        spy.send_signal(signal.SIGINT)
        spy.wait(timeout=30)
    return result


def export(rev: str, into: Path) -> str:
    """``git archive rev`` unpacked into ``into``; returns the short commit."""
    archive = subprocess.run(
        ["git", "archive", rev], cwd=harness.ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return subprocess.run(
        ["git", "rev-parse", "--short", rev],
        cwd=harness.ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default="f03baec", help="git revision to compare with")
    parser.add_argument("--no-baseline", action="store_true", help="only this checkout")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=15.0, help="seconds per load")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--profile", type=Path, default=None, metavar="DIR")
    parser.add_argument("--no-why", action="store_true", help="leave out the 'why' questions")
    args = parser.parse_args()
    if args.no_why:
        ACTIVE[:] = [q for q in QUESTIONS if not any(w in q for w in WHY)]

    with tempfile.TemporaryDirectory(prefix="sleuth-bench-interactions-") as tmp:
        root = Path(tmp)
        targets: list[Target] = []
        if not args.no_baseline:
            src = root / "baseline-src"
            src.mkdir()
            commit = export(args.baseline, src)
            (root / "baseline").mkdir()
            targets.append(Target("baseline", src, root / "baseline"))
            print(f"baseline: {args.baseline} ({commit}), exported to {src}")
        (root / "current").mkdir()
        targets.append(Target("current", harness.ROOT, root / "current"))
        for target in targets:
            target.setup()
        print(harness.describe_machine())
        print(
            f"{args.connections} connections, {args.duration:g} s per load, {args.rounds} rounds,"
            f" {len(ACTIVE)} rotating questions"
        )
        with contextlib.ExitStack() as stack:
            for target in targets:
                stack.enter_context(serving(target))
            for target in targets:  # warm up: every question once
                warm = asyncio.run(load(target, 3.0, 2))
                if warm.errors:
                    print(f"{target.name}: {warm.errors} errors while warming up", file=sys.stderr)
            for n in range(1, args.rounds + 1):
                print(f"round {n}")
                for target in targets:
                    result = asyncio.run(load(target, args.duration, args.connections))
                    target.results.append(result)
                    print("  " + show(target.name, result), flush=True)
            if args.profile is not None:
                args.profile.mkdir(parents=True, exist_ok=True)
                for target in targets:
                    out = args.profile / f"{target.name}.txt"
                    result = profile(target, args.duration, args.connections, out)
                    print("profiled " + show(target.name, result), flush=True)
                    harness.top_of_profile(out, ours=True)

    errors = sum(r.errors for t in targets for r in t.results)
    print()
    current = targets[-1]
    for target in targets:
        rs = target.results
        print(
            f"median {target.name:9} {statistics.median(r.rps for r in rs):7.1f} req/s"
            f"  p50 {statistics.median(r.p50_ms for r in rs):7.1f} ms"
            f"  p99 {statistics.median(r.p99_ms for r in rs):7.1f} ms"
        )
    if len(targets) == 2:
        base = targets[0]
        ratios = [c.rps / b.rps for b, c in zip(base.results, current.results, strict=True)]
        print("same-round ratios current/baseline: " + ", ".join(f"{r:.2f}x" for r in ratios))
        print(f"median ratio: {statistics.median(ratios):.2f}x (goal: at least 4x)")
    if errors:
        print(f"{errors} errors (non-200 responses or dropped connections): figures invalid")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
