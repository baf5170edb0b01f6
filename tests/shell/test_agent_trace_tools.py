"""The ``openai`` agent's trace and data-source tools (``query_spans``, ``read_trace``,
``query_data_sources``) against the real stores: the trace store on SQLite (and PostgreSQL when
``SLEUTH_TEST_POSTGRES_URL`` is set) and Debian's Prometheus, driven by the LLM stand-in."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import datetime, timedelta
from typing import Any

import pytest
from llm_standin import (
    MemoryChanges,
    MemoryKnowledge,
    MemoryLogs,
    MemoryMetrics,
    completion,
    standin_llm,
    tool_calls,
)
from test_agent_openai import agent_for, tool_messages
from test_data_sources import SECRET, _cipher, _rows
from test_trace_evidence import FIRED, ONSET, run_with_traces, spans

from sleuth_shell.agents.base import AgentContext, NoTraces
from sleuth_shell.agents.sources import CostModel
from sleuth_shell.agents.tools import ToolRun
from sleuth_shell.datasources import store
from sleuth_shell.datasources.pull import PrometheusPull
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import EvidenceSnapshot

WINDOW = {
    "start": (FIRED - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "end": FIRED.strftime("%Y-%m-%dT%H:%M:%SZ"),
}


def context(**stores: Any) -> AgentContext:
    values: dict[str, Any] = {
        "org_id": 1,
        "now": FIRED + timedelta(minutes=10),
        "knowledge": MemoryKnowledge([]),
        "logs": MemoryLogs([]),
        "public_url": "http://sleuth.test",
        "changes": MemoryChanges([]),
        "metrics": MemoryMetrics([]),
    }
    return AgentContext(**(values | stores))


def call(run: ToolRun, name: str, args: Any) -> dict[str, Any]:
    (text,) = asyncio.run(run.execute([(name, args)]))
    result: dict[str, Any] = json.loads(text)
    return result


@pytest.mark.storage
def test_span_and_trace_tools_are_cited_as_traces(migrated_url: str) -> None:
    failing = next(r["trace_id"] for r in spans() if r["start"] >= ONSET)
    with standin_llm() as llm:
        llm.replies += [
            tool_calls(("query_spans", {**WINDOW, "errors_only": True, "limit": 3})),
            tool_calls(("read_trace", {"trace_id": failing.upper()})),
            completion(
                "**payments** failed first with `GatewayTimeout: card gateway did not answer "
                "within 2s` at `payments/gateway.py:88 in charge` [[source:2]]. The failed "
                "**checkout** spans took 2100 ms [[source:1]]. The gateway threw "
                "`NullPointerException` [[source:2]]."
            ),
        ]
        agent = agent_for(llm)

        async def action(traces: Any) -> Any:
            return await agent.answer(context(traces=traces), "Why is checkout failing?")

        result = run_with_traces(migrated_url, action)
        first, second, third = llm.bodies()
    offered = [t["function"]["name"] for t in first["tools"]]
    assert {"query_spans", "read_trace", "query_data_sources"} <= set(offered)
    assert "query_spans and read_trace" in first["messages"][1]["content"]
    [found] = tool_messages(second)
    assert found["source_id"] == 1 and len(found["spans"]) == 3
    assert {s["status"] for s in found["spans"]} == {"error"}
    # The longest failed spans first: checkout's roots, with the failure each carries.
    top = found["spans"][0]
    assert (top["service"], top["duration_ms"], top["failure"]) == (
        "checkout",
        2100.0,
        "POST /checkout failed: payment failed",
    )
    [trace] = tool_messages(third)[1:]
    assert trace["source_id"] == 2 and trace["trace_id"] == failing
    child = next(s for s in trace["spans"] if s["service"] == "payments")
    assert child["parent_span_id"] == next(s["span_id"] for s in trace["spans"] if s is not child)
    assert child["failure"] == "GatewayTimeout: card gateway did not answer within 2s"
    assert child["frames"] == ["payments/gateway.py:88 in charge", "checkout/api.py:40 in pay"]

    searched, whole = result.sources[1], result.sources[2]
    assert {searched["type"], whole["type"]} == {"traces"}
    assert searched["tool_id"] == whole["tool_id"] == "trace_query"
    assert searched["link"].startswith("http://sleuth.test/traces?")
    assert "status=error" in searched["link"]
    assert json.loads(searched["query"])["errors_only"] is True
    assert whole["link"] == f"http://sleuth.test/traces/{failing}"
    # What the spans hold is checked: the sentences they support stay, the invented one goes.
    assert "payments/gateway.py:88 in charge" in result.markdown
    assert "2100 ms [[source:1]]" in result.markdown
    assert "NullPointerException" not in result.markdown
    # run 1 + two queries 0.1 + 3,000 tokens at 0.5 per 1k
    assert result.credits == pytest.approx(1 + 0.2 + 1.5)


def test_trace_tool_arguments_are_checked() -> None:
    run = ToolRun(context(traces=NoTraces()), CostModel())
    assert call(run, "read_trace", {"trace_id": "xyz"}) == {
        "error": "read_trace: trace_id must match ^[0-9a-fA-F]{32}$"
    }
    assert call(run, "query_spans", {**WINDOW, "min_duration_ms": -1}) == {
        "error": "query_spans: min_duration_ms must be between 0 and 86400000"
    }
    assert call(run, "query_spans", {**WINDOW, "errors_only": "yes"}) == {
        "error": "query_spans: errors_only must be true or false"
    }
    assert call(run, "query_data_sources", {**WINDOW, "expression": ""}) == {
        "error": "query_data_sources: expression must not be empty"
    }
    assert call(run, "read_trace", {"trace_id": "0" * 32}) == {
        "error": f"no trace {'0' * 32} in this organization"
    }
    assert call(run, "query_data_sources", WINDOW) == {
        "queries": [],
        "note": "This organization has no data sources.",
    }
    assert run.sources == {} and run.queries == 2


@pytest.mark.xdist_group("prometheus")
def test_data_source_tool_cites_each_query_and_its_snapshot(
    prometheus_incident: tuple[str, datetime], factory: Any, migrated_url: str
) -> None:
    prom_url, fired = prometheus_incident
    org = factory.org()
    cipher = asyncio.run(_cipher(factory.url))

    async def add(session: Any) -> None:
        data = store.DataSourceInput("prom", "prometheus", prom_url, "service", {"A": SECRET})
        await store.create(session, org.id, data, cipher)

    factory.run(add)
    window = {
        "start": (fired - timedelta(hours=12)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "end": (fired + timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "services": ["checkout"],
    }

    with standin_llm() as llm:
        llm.replies += [
            tool_calls(("query_data_sources", window)),
            completion(
                "The data source **prom** shows the 5xx rate of **checkout** [[source:1]]. "
                "It peaked at 9999 [[source:1]]."
            ),
        ]
        agent = agent_for(llm)

        async def go() -> Any:
            engine = create_engine(migrated_url)
            pull = PrometheusPull(create_session_factory(engine), None)
            try:
                ctx = context(org_id=org.id, now=fired + timedelta(minutes=10), data_sources=pull)
                return await agent.answer(ctx, "Is checkout failing?")
            finally:
                await pull.aclose()
                await engine.dispose()

        result = asyncio.run(go())
        answered = tool_messages(llm.bodies()[1])[0]

    roles = {(q["role"], q["service"]) for q in answered["queries"]}
    assert ("errors", "checkout") in roles and ("saturation", "payments-db") in roles
    errors = next(q for q in answered["queries"] if q["role"] == "errors")
    assert errors["data_source"] == "prom" and errors["step_seconds"] == 300.0
    [series] = errors["series"]
    assert series["name"] == "http_requests_total:5xx"
    assert series["summary"]["max"] == pytest.approx(5.0)
    kept = {r.id: r for r in _rows(migrated_url, EvidenceSnapshot)}
    assert {q["artifact_id"] for q in answered["queries"]} == set(kept)
    # Each query is its own source, cited as an investigation cites it.
    ids = [q["source_id"] for q in answered["queries"]]
    assert ids == list(range(1, len(ids) + 1))
    [cited] = result.sources.values()
    assert cited["type"] == "metrics" and cited["tool_id"] == "prometheus_query"
    assert cited["log_type_name"] == "prom"
    assert cited["artifact_id"] == answered["queries"][0]["artifact_id"]
    assert cited["link"].startswith(f"{prom_url}/graph?g0.expr=")
    assert json.loads(cited["query"])["promql"] == answered["queries"][0]["promql"]
    # The snapshot's values vouch for the answer: the invented peak is dropped.
    assert "**prom**" in result.markdown and "9999" not in result.markdown
    assert re.findall(r"\[\[source:(\d+)\]\]", result.markdown) == ["1"]
