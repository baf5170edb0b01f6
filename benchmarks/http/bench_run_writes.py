"""CPU of a synchronous interaction's writes, this checkout against a baseline commit.

An instant agent (a fixed answer, no tools) isolates what the request writes: the ``IN_PROGRESS``
row and its commit, then the finish (``UPDATE ... RETURNING``, usage row, rollups, notification
jobs) and its commit, through ``submit_interactions`` called in process (no HTTP). Each
measurement is a child process on a fresh SQLite database, ``--requests`` calls after a warm-up,
timed with ``time.process_time`` (CPU of the process, less sensitive than wall time to a shared
machine's load). Rounds alternate the targets and their order; printed per shape: each round's
CPU microseconds per request, the same-round ratios current / baseline and their median, and the
load average.

Shapes: ``plain`` (a question, nothing to notify) and ``chat`` (one chat channel to notify).
Targets: ``baseline`` (``--baseline REV`` exported with ``git archive``), ``current`` (this
checkout) and ``session`` (this checkout with ``SLEUTH_FAST_PATH=false``: the same operations on
a session's connection).

    python benchmarks/http/bench_run_writes.py [--baseline dffd39f] [--rounds 6] [--requests 400]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import harness

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import asyncio, json, os, sys, tempfile, time
from datetime import UTC, datetime

from sleuth_shell import admin
from sleuth_shell.agents.base import AgentResult
from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.migrate import migrate_async
from sleuth_shell.interactions.request import parse_interaction_request
from sleuth_shell.interactions.service import submit_interactions
from sleuth_shell.services import build_services


class Agent:
    name = "instant"

    async def answer(self, ctx, question, *, history=(), use_tools=True):
        return AgentResult(markdown="It is the deploy.", sources={}, credits=1.0)


async def main(requests, shape, fast):
    directory = tempfile.mkdtemp()
    url = f"sqlite:///{directory}/bench.db"
    await migrate_async(url)
    engine = create_engine(url)
    sessions = create_session_factory(engine)
    async with sessions() as session:
        org = await admin.create_org(session, "acme", "enterprise")
        await session.commit()
    options = {} if fast is None else {"fast_path": fast}
    settings = Settings(database_url=url, allow_private_urls=True, **options)
    services = build_services(settings, sessions, agent=Agent())
    body = {"question": "Why is checkout failing?"}
    if shape == "chat":
        body["notifications"] = {"chat": {"chat_channel_ids": ["C0INCIDENT"]}}

    async def one():
        now = datetime.now(UTC)
        await submit_interactions(
            None, services, org_id=org.id, team_id=None, api_key_id=None, api_key=None,
            request=parse_interaction_request(body, now), now=now,
        )

    for _ in range(50):
        await one()
    start = time.process_time()
    for _ in range(requests):
        await one()
    print(json.dumps((time.process_time() - start) / requests * 1e6))
    await services.aclose()
    await engine.dispose()


fast = {"": None, "1": True, "0": False}[sys.argv[3]]
asyncio.run(main(int(sys.argv[1]), sys.argv[2], fast))
"""


def measure(source: Path, requests: int, shape: str, fast: str) -> float:
    env = {
        **os.environ,
        "PYTHONPATH": f"{source / 'core' / 'src'}{os.pathsep}{source / 'shell' / 'src'}",
    }
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(requests), shape, fast],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return float(json.loads(out.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="dffd39f")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--requests", type=int, default=400)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sleuth-bench-writes-") as tmp:
        base = Path(tmp) / "baseline-src"
        base.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.baseline, "core/src", "shell/src"],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        print(f"{harness.describe_machine()}; baseline {args.baseline}")
        targets = {"baseline": (base, ""), "current": (ROOT, "1"), "session": (ROOT, "0")}
        for shape in ("plain", "chat"):
            results: dict[str, list[float]] = {name: [] for name in targets}
            for round_number in range(1, args.rounds + 1):
                load = harness.loadavg()
                # Odd rounds start with the baseline, even ones end with it.
                order = list(targets) if round_number % 2 else list(reversed(targets))
                for name in order:
                    source, fast = targets[name]
                    results[name].append(measure(source, args.requests, shape, fast))
                line = "  ".join(f"{name} {results[name][-1]:7.1f}" for name in targets)
                print(f"{shape:5} round {round_number}: {line} us/request  load {load}")
            for name in ("current", "session"):
                ratios = [c / b for c, b in zip(results[name], results["baseline"], strict=True)]
                print(
                    f"{shape:5} {name}/baseline CPU: "
                    + ", ".join(f"{r:.2f}" for r in ratios)
                    + f"  median {statistics.median(ratios):.2f}x"
                )


if __name__ == "__main__":
    main()
