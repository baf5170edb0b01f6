"""CPU per synchronous interaction, in process (no network, no server): a profiling aid.

A fresh SQLite database with the demo organization (as ``bench_interactions.py`` sets it up, through
this checkout's CLI), then the ASGI app built in this process and called directly with prebuilt
``POST /api/v1/interactions`` requests, one at a time. Prints, per question kind ("why", log,
catalog), the CPU time of a request (``time.process_time``: every thread of the process), min and
median of ``--repeat`` rounds. ``--answers FILE`` writes every answer (content, sources, analysis;
the interaction id and URL left out) to compare two versions' outputs (``--workdir DIR`` keeps
the database for a second run, ``--now`` freezes the agents' clock so that both answer as of one
instant); ``--profile FILE`` runs cProfile over ``--profile-rounds`` more rounds and prints the
top of it. The collector is tuned as ``sleuth serve`` tunes it (``sleuth_shell.gc_tuning``) unless
``--default-gc``.

    python benchmarks/http/inproc_interactions.py [--repeat 20] [--answers FILE] [--profile FILE]
        [--default-gc]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import harness
from bench_interactions import QUESTIONS, WHY, Target


def kind_of(question: str) -> str:
    if any(w in question for w in WHY):
        return "why"
    if " log" in question or " report" in question:
        return "logs"
    return "catalog"


async def call(app: Any, body: bytes, key: str) -> tuple[int, bytes]:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/v1/interactions",
        "raw_path": b"/api/v1/interactions",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"content-type", b"application/json"),
            (b"x-service-org-api-key", key.encode()),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    sent = False
    status = 0
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)


async def run(args: argparse.Namespace, workdir: Path) -> int:
    target = Target("current", harness.ROOT, workdir)
    saved = workdir / "key.txt"
    if saved.exists():  # --workdir of an earlier run: the same data (compare two versions)
        target.port = 8000
        target.key = saved.read_text().strip()
    else:
        target.setup()
        saved.write_text(target.key)
    os.environ.update(target.env)
    if args.now is not None:  # every answer as of this instant (same answers on the same data)
        import sleuth_shell.services

        frozen = datetime.fromisoformat(args.now)
        sleuth_shell.services.utcnow = lambda: frozen  # type: ignore[attr-defined]
    from sleuth_shell.app import create_app
    from sleuth_shell.cli import load_checked_agent, load_settings

    settings = load_settings()
    app = create_app(settings, agent=load_checked_agent(settings))
    bodies = [(q, json.dumps({"question": q}).encode()) for q in QUESTIONS]
    cpu: dict[str, list[float]] = {q: [] for q in QUESTIONS}
    answers: dict[str, Any] = {}
    for hook in app.on_startup:
        result = hook()
        if asyncio.iscoroutine(result):
            await result
    if not args.default_gc:  # as `sleuth serve` runs: startup heap frozen, young threshold raised
        from sleuth_shell.gc_tuning import tune_for_serving

        print(tune_for_serving().describe())
    try:
        for q, body in bodies:  # warm up
            status, out = await call(app, body, target.key)
            if status != 200:
                print(f"{status} for {q!r}: {out[:300]!r}", file=sys.stderr)
                return 1
            data = json.loads(out)
            answers[q] = {k: data.get(k) for k in ("content", "sources", "analysis")}
        for _ in range(args.repeat):
            for q, body in bodies:
                start = time.process_time()
                status, _out = await call(app, body, target.key)
                cpu[q].append((time.process_time() - start) * 1000)
                assert status == 200
        if args.profile is not None:
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(args.profile_rounds):
                for q, body in bodies:
                    if args.only is None or kind_of(q) == args.only:
                        await call(app, body, target.key)
            prof.disable()
            prof.dump_stats(str(args.profile))
    finally:
        for hook in app.on_shutdown:
            result = hook()
            if asyncio.iscoroutine(result):
                await result
    print(harness.describe_machine(), "load", harness.loadavg())
    by_kind: dict[str, list[float]] = {}
    for q in QUESTIONS:
        low, med = min(cpu[q]), statistics.median(cpu[q])
        by_kind.setdefault(kind_of(q), []).append(low)
        p90 = statistics.quantiles(cpu[q], n=10)[-1] if len(cpu[q]) > 1 else low
        print(f"  {kind_of(q):8} min {low:7.2f} ms  median {med:7.2f} ms  p90 {p90:7.2f} ms  {q}")
    total = 0.0
    for kind, values in by_kind.items():
        total += sum(values)
        print(f"{kind:8} mean of mins {statistics.mean(values):7.2f} ms ({len(values)} questions)")
    print(f"rotation of {len(QUESTIONS)}: {total:.1f} ms CPU, {total / len(QUESTIONS):.2f} ms each")
    # The mins leave out what only some requests pay (the collector's passes): the mean has it.
    mean = sum(statistics.mean(cpu[q]) for q in QUESTIONS)
    median = sum(statistics.median(cpu[q]) for q in QUESTIONS)
    print(f"rotation of {len(QUESTIONS)}: median {median:.1f} ms, mean {mean:.1f} ms CPU")
    if args.answers is not None:
        args.answers.write_text(json.dumps(answers, indent=1, sort_keys=True))
    if args.profile is not None:
        stats = pstats.Stats(str(args.profile))
        stats.sort_stats("tottime").print_stats(30)
        stats.sort_stats("cumulative").print_stats(45)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--answers", type=Path, default=None)
    parser.add_argument("--profile", type=Path, default=None)
    parser.add_argument("--profile-rounds", type=int, default=10)
    parser.add_argument("--workdir", type=Path, default=None, help="keep or reuse the database")
    parser.add_argument("--now", default=None, help="answer as of this ISO time (with --workdir)")
    parser.add_argument("--only", choices=("why", "logs", "catalog"), help="profile one kind")
    parser.add_argument(
        "--default-gc", action="store_true", help="keep the interpreter's collector settings"
    )
    args = parser.parse_args()
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
        return asyncio.run(run(args, args.workdir))
    with tempfile.TemporaryDirectory(prefix="sleuth-inproc-") as tmp:
        return asyncio.run(run(args, Path(tmp)))


if __name__ == "__main__":
    sys.exit(main())
