"""Traces as evidence: an investigation over the real trace store (SQLite, and PostgreSQL when
``SLEUTH_TEST_POSTGRES_URL`` is set) finds the first failing service from failed spans' parent
chains, reads the exceptions and their stack frames, and cites traces as sources of type
``traces`` that open ``/traces/{trace_id}``."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from rca_memory import MemoryChanges, MemoryKnowledge, MemoryLogs, MemoryMetrics

from sleuth_shell import admin
from sleuth_shell.agents.base import AgentContext, ChangeRecord
from sleuth_shell.agents.retrieval import RetrievalAgent
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.observability.traces import SqlTraceStore, store_spans

pytestmark = pytest.mark.storage

T0 = datetime(2026, 5, 6, 6, 0, tzinfo=UTC)
FIRED = T0 + timedelta(hours=8)
ONSET = FIRED - timedelta(minutes=25)
STACK = (
    "Traceback (most recent call last):\n"
    '  File "checkout/api.py", line 40, in pay\n'
    '  File "payments/gateway.py", line 88, in charge\n'
    "GatewayTimeout: card gateway did not answer within 2s"
)


def spans() -> list[dict[str, Any]]:
    rows = []
    t = T0
    n = 0
    while t < FIRED + timedelta(minutes=5):
        n += 1
        failing = t >= ONSET
        trace_id = f"{n:032x}"
        root, child = f"{2 * n:016x}", f"{2 * n + 1:016x}"
        events = []
        if failing:
            events = [
                {
                    "name": "exception",
                    "time": (t + timedelta(milliseconds=5)).isoformat(),
                    "attributes": {
                        "exception.type": "GatewayTimeout",
                        "exception.message": "card gateway did not answer within 2s",
                        "exception.stacktrace": STACK,
                    },
                }
            ]
        common = {"trace_id": trace_id, "attributes": {}, "resource": {}}
        rows.append(
            {
                **common,
                "span_id": root,
                "parent_span_id": None,
                "service": "checkout",
                "name": "POST /checkout",
                "kind": "server",
                "start": t,
                "duration_ms": 2100.0 if failing else 80.0,
                "status": "error" if failing else "unset",
                "status_message": "payment failed" if failing else "",
                "events": [],
            }
        )
        rows.append(
            {
                **common,
                "span_id": child,
                "parent_span_id": root,
                "service": "payments",
                "name": "charge card",
                "kind": "client",
                "start": t + timedelta(milliseconds=10),
                "duration_ms": 2000.0 if failing else 50.0,
                "status": "error" if failing else "ok",
                "status_message": "timeout" if failing else "",
                "events": events,
            }
        )
        t += timedelta(minutes=1)
    return rows


GUILTY = ChangeRecord(
    1,
    "be4d1e55",
    ONSET - timedelta(minutes=20),
    "payments",
    "commit",
    "gateway: lower the card gateway timeout to 2s",
    files=("payments/gateway.py",),
    diff="-TIMEOUT = 30\n+TIMEOUT = 2  # card gateway\n",
)
SHIP = ChangeRecord(
    2,
    "deploy-payments-7",
    ONSET - timedelta(minutes=10),
    "payments",
    "deploy",
    "Deploy payments",
    ships=("be4d1e55",),
)
DECOY = ChangeRecord(
    3,
    "c0c0a111",
    ONSET - timedelta(minutes=5),
    "checkout",
    "commit",
    "copy: new footer",
    files=("checkout/footer.html",),
    diff="-Hello\n+Hi\n",
)


def run_with_traces(url: str, action, rows=None):
    """Load the spans (``rows``, else `spans`) for organization 1 and run ``action(store)`` on
    one event loop (an asyncpg engine belongs to the loop that made it)."""

    async def go():
        engine = create_engine(url)
        try:
            sessions = create_session_factory(engine)
            async with sessions() as session:
                await admin.create_org(session, "acme", "team")
                await store_spans(session, 1, spans() if rows is None else rows)
                await session.commit()
            return await action(SqlTraceStore(sessions))
        finally:
            await engine.dispose()

    return asyncio.run(go())


def context(store, changes) -> AgentContext:
    return AgentContext(
        org_id=1,
        now=FIRED + timedelta(minutes=10),
        knowledge=MemoryKnowledge([]),
        logs=MemoryLogs([]),
        public_url="http://sleuth.test",
        changes=MemoryChanges(changes),
        metrics=MemoryMetrics([]),
        traces=store,
    )


PAYLOAD = json.dumps(
    {"title": "Checkout error rate high", "service": "checkout", "time": FIRED.isoformat()}
)


def test_investigation_reads_traces_and_cites_them(migrated_url: str) -> None:
    async def action(store):
        ctx = context(store, [GUILTY, SHIP, DECOY])
        result = await RetrievalAgent().investigate(ctx, "Find it.", PAYLOAD)
        cited = re.findall(r"\[\[source:(\d+)\]\]", result.markdown.split("## Traces", 1)[-1])
        traces = {int(n): await store.trace(1, result.sources[int(n)]["link"][-32:]) for n in cited}
        return result, traces

    result, traces = run_with_traces(migrated_url, action)
    analysis = result.analysis
    assert analysis is not None
    assert analysis["service"] == "payments"
    assert analysis["affected_services"][0] == "payments"
    assert analysis["verdict"] == "change" and analysis["change_id"] == "be4d1e55"
    assert "## Traces" in result.markdown
    section = result.markdown.split("## Traces", 1)[1]
    assert "begin failing at **payments**" in section
    assert "GatewayTimeout: card gateway did not answer within 2s" in section
    assert "payments/gateway.py:88 in charge" in section
    cited = [int(n) for n in re.findall(r"\[\[source:(\d+)\]\]", section)]
    assert cited
    for source_id in cited:
        source = result.sources[source_id]
        assert source["type"] == "traces" and source["tool_id"] == "trace_query"
        trace_id = source["link"].rsplit("/", 1)[1]
        assert source["link"] == f"http://sleuth.test/traces/{trace_id}"
        assert traces[source_id]
        assert source_id in analysis["evidence"]


def test_traces_alone_reach_the_engine(migrated_url: str) -> None:
    """No change records, metrics or logs: the spans alone are evidence."""

    async def action(store):
        return await RetrievalAgent().answer(context(store, []), "Why is checkout failing?")

    result = run_with_traces(migrated_url, action)
    assert result.analysis is not None
    assert result.analysis["service"] == "payments"
    assert any(s["type"] == "traces" for s in result.sources.values())


def slow_spans() -> list[dict[str, Any]]:
    """``frontend`` serves ``GET /search`` by calling ``search``; from the onset ``search``
    takes 2.5 s instead of 40 ms. No span fails."""
    rows = []
    t = T0
    n = 0
    while t < FIRED + timedelta(minutes=5):
        n += 1
        slow = t >= ONSET
        common = {"trace_id": f"{n:032x}", "attributes": {}, "resource": {}, "events": []}
        common |= {"status": "ok", "status_message": ""}
        rows.append(
            {
                **common,
                "span_id": f"{2 * n:016x}",
                "parent_span_id": None,
                "service": "frontend",
                "name": "GET /search",
                "kind": "server",
                "start": t,
                "duration_ms": 2560.0 if slow else 60.0,
            }
        )
        rows.append(
            {
                **common,
                "span_id": f"{2 * n + 1:016x}",
                "parent_span_id": f"{2 * n:016x}",
                "service": "search",
                "name": "query index",
                "kind": "server",
                "start": t + timedelta(milliseconds=5),
                "duration_ms": 2500.0 if slow else 40.0 + n % 3,
            }
        )
        t += timedelta(seconds=30)
    return rows


def test_span_durations_by_service_and_bucket(migrated_url: str) -> None:
    async def action(store):
        return await store.durations(
            1, ONSET - timedelta(minutes=10), ONSET + timedelta(minutes=5), 300
        )

    rows = run_with_traces(migrated_url, action, slow_spans())
    by = {(r.service, r.bucket): (r.spans, r.longest_ms) for r in rows}
    assert [r.service for r in rows] == ["frontend"] * 3 + ["search"] * 3
    assert by[("search", ONSET - timedelta(minutes=10))] == (10, 42.0)
    assert by[("search", ONSET)] == (10, 2500.0)
    assert by[("frontend", ONSET - timedelta(minutes=5))] == (10, 60.0)


def test_slow_spans_services_reach_the_engine(migrated_url: str) -> None:
    """Spans that slow down, no failure anywhere else: the service whose spans slowed first (the
    one called) is the failing one, its onset shown by its span durations and cited as its
    traces."""
    payload = json.dumps(
        {"title": "Search latency high", "service": "frontend", "time": FIRED.isoformat()}
    )

    async def action(store):
        return await RetrievalAgent().investigate(context(store, []), "Find it.", payload)

    result = run_with_traces(migrated_url, action, slow_spans())
    analysis = result.analysis
    assert analysis is not None
    assert analysis["service"] == "search"
    assert analysis["onset"] == ONSET.strftime("%Y-%m-%dT%H:%M:%SZ")
    cited = [result.sources[int(n)] for n in re.findall(r"\[\[source:(\d+)\]\]", result.markdown)]
    durations = [s for s in cited if s["link"].startswith("http://sleuth.test/traces?")]
    assert durations, result.markdown
    assert {s["type"] for s in durations} == {"traces"}
    assert "service=search" in " ".join(s["link"] for s in durations)
    assert json.loads(durations[0]["query"])["series"] == "span_duration_ms:max"
    assert "span_duration_ms:max" in result.markdown
