"""An investigation that pulls its metrics from a local Prometheus against the same investigation
over the embedded metric store (the peer), in one run.

Target (issue 20): pulling stays within 2x the embedded store's time. Both organizations hold
the same logs (the incident of ``tests/prometheus_harness.py``: ``checkout`` failing while
``payments-db`` saturates); one has a data source pointing at Debian's Prometheus (its TSDB
backfilled with the incident by ``promtool``), the other has the very series that pull returns
stored in its own metric store. Each round is one ``RetrievalAgent.investigate`` through the real
stores on one SQLite file: the pulling one discovers series names, runs its range queries over
HTTP and keeps every answer as an evidence snapshot.
Run: python -m pytest benchmarks/test_bench_pull.py --benchmark-only
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from targets import record_target

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test harness
from prometheus_harness import ONSET_BEFORE_ALERT, alert_time, incident_openmetrics, prometheus

from sleuth_shell import admin
from sleuth_shell.agents.base import PullRequest
from sleuth_shell.agents.retrieval import RetrievalAgent
from sleuth_shell.config import Settings
from sleuth_shell.datasources import store
from sleuth_shell.datasources.pull import PrometheusPull
from sleuth_shell.db import create_engine, create_session_factory, migrate
from sleuth_shell.observability import ingest, metric_ingest
from sleuth_shell.services import build_services

ROUNDS = 15
AGENT = RetrievalAgent()


def _logs(fired: Any) -> list[dict[str, Any]]:
    onset = fired - ONSET_BEFORE_ALERT
    records = []
    t = fired - timedelta(hours=12, minutes=55)
    while t < fired + timedelta(minutes=15):
        records.append({"timestamp": t.isoformat(), "service": "checkout", "level": "INFO",
                        "message": "GET /checkout 200"})  # fmt: skip
        t += timedelta(minutes=5)
    t = onset
    while t < fired + timedelta(minutes=15):
        message = "payments-db: timed out acquiring a connection after 2s"
        records.append({"timestamp": t.isoformat(), "service": "checkout", "level": "ERROR",
                        "message": message})  # fmt: skip
        t += timedelta(seconds=30)
    return records


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    fired = alert_time()
    directory = tmp_path_factory.mktemp("bench-pull")
    url = f"sqlite:///{directory / 'sleuth.db'}"
    migrate(url)
    with prometheus(directory / "prometheus", incident_openmetrics(fired)) as prom_url:
        loop = asyncio.new_event_loop()
        engine = create_engine(url)
        sessions = create_session_factory(engine)
        settings = Settings(database_url=url, public_url="http://sleuth.bench")
        services = build_services(settings, sessions, agent=AGENT)
        # The same pull without its plan cache: every investigation discovers the series again.
        cold = build_services(
            settings, sessions, agent=AGENT, data_sources=PrometheusPull(sessions, None, plan_ttl=0)
        )

        async def prepare() -> tuple[int, int]:
            async with sessions() as session:
                pulling = await admin.create_org(session, "pulling", "enterprise")
                embedded = await admin.create_org(session, "embedded", "enterprise")
                for org in (pulling, embedded):
                    rows = ingest.validate_records({"records": _logs(fired)})
                    await ingest.ingest(session, org.id, rows)
                cipher = await store.load_cipher(sessions, None)
                source = store.DataSourceInput("prom", "prometheus", prom_url, "service", {})
                await store.create(session, pulling.id, source, cipher)
            # The embedded organization stores exactly what the pull reads.
            ctx = services.agent_context(pulling.id)
            request = PullRequest(
                ("checkout",), fired - timedelta(hours=12), fired + timedelta(minutes=5)
            )
            pulled = await ctx.data_sources.pull(pulling.id, request)
            series = [
                {"name": s.name, "service": s.service, "labels": s.labels,
                 "points": [[t.isoformat(), v] for t, v in s.points]}
                for s in pulled.series
            ]  # fmt: skip
            async with sessions() as session:
                batches = metric_ingest.validate_metrics({"series": series})
                await metric_ingest.ingest_metrics(session, embedded.id, batches)
            return pulling.id, embedded.id

        pulling_id, embedded_id = loop.run_until_complete(prepare())
        payload = json.dumps(
            {"title": "Checkout 5xx ratio high", "service": "checkout", "time": fired.isoformat()}
        )

        def run(org_id: int, *, discover: bool = False) -> Any:
            ctx = (cold if discover else services).agent_context(org_id)
            return loop.run_until_complete(AGENT.investigate(ctx, "Find the cause.", payload))

        yield {"run": run, "pulling": pulling_id, "embedded": embedded_id}
        loop.run_until_complete(engine.dispose())
        loop.close()


def _rounds(run: Any, setup: dict[str, Any]) -> dict[str, list[float]]:
    """``ROUNDS`` timings of each kind of investigation, interleaved (so a burst of load on the
    machine falls on all of them alike)."""
    kinds = {
        "embedded": lambda: run(setup["embedded"]),
        "pull": lambda: run(setup["pulling"]),
        "pull_discovering": lambda: run(setup["pulling"], discover=True),
    }
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(ROUNDS):
        for kind, call in kinds.items():
            start = time.perf_counter()
            call()
            times[kind].append(time.perf_counter() - start)
    return times


def test_pull_within_twice_the_embedded_store(setup: dict[str, Any], benchmark: Any) -> None:
    run = setup["run"]
    pulled = run(setup["pulling"])
    embedded = run(setup["embedded"])

    # The same evidence reaches the engine both ways (the claim check's counts differ: the
    # pulling report has its "Data sources" section to check as well).
    def engine(analysis: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in analysis.items() if k != "claims"}

    assert engine(pulled.analysis) == engine(embedded.analysis)
    assert "## Data sources" in pulled.markdown and "## Data sources" not in embedded.markdown
    times = _rounds(run, setup)
    benchmark.pedantic(run, args=(setup["pulling"],), rounds=ROUNDS, iterations=1)
    peer = statistics.median(times["embedded"])
    info: dict[str, float] = {}
    for kind, values in times.items():
        info[f"{kind}_median_ms"] = statistics.median(values) * 1000
        info[f"{kind}_min_ms"] = min(values) * 1000
    ratio = statistics.median(times["pull"]) / peer
    discovering = statistics.median(times["pull_discovering"]) / peer
    info.update({"ratio": ratio, "ratio_discovering": discovering})
    benchmark.extra_info.update(info)
    met = record_target(
        "pull", "investigation pulling / embedded store", ratio, 2.0, at_least=False
    )
    met_cold = record_target(
        "pull", "same, discovering every time / embedded", discovering, 2.0, at_least=False
    )
    assert met and met_cold
