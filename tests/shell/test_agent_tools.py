"""The openai agent's data tools (`sleuth_shell.agents.tools`) on in-memory stores: schemas,
validation, bounded results, source records, credits."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

from llm_standin import MemoryChanges, MemoryLogs, MemoryMetrics
from test_agent_openai import NOW, T0, WINDOW, context

from sleuth_shell.agents.base import ChangeRecord, LogRecord, MetricSeries
from sleuth_shell.agents.sources import CostModel, change_source, log_source, metric_source
from sleuth_shell.agents.tools import MAX_RESULT_CHARS, TOOLS, ToolRun, tool_definitions


def call(run: ToolRun, name: str, args: Any) -> dict[str, Any]:
    (text,) = asyncio.run(run.execute([(name, args)]))
    result: dict[str, Any] = json.loads(text)
    return result


def test_definitions_are_closed_json_schemas() -> None:
    definitions = tool_definitions()
    names = [d["function"]["name"] for d in definitions]
    assert len(names) == len(set(names)) == len(TOOLS) == 12
    for d in definitions:
        parameters = d["function"]["parameters"]
        assert parameters["type"] == "object" and parameters["additionalProperties"] is False
        assert set(parameters["required"]) <= set(parameters["properties"])
        assert d["function"]["description"]


def test_source_records_have_the_spec_members() -> None:
    spec = set(
        log_source(
            1,
            start=NOW,
            end=NOW,
            services=None,
            levels=None,
            text=None,
            description="d",
            public_url="http://x",
        )
    )
    change = change_source(
        2,
        change=ChangeRecord(7, "a", NOW, "api", "commit", "Fix the retry loop"),
        public_url="http://x",
    )
    metric = metric_source(
        3, start=NOW, end=NOW, services=["s"], names=None, description="m", public_url="http://x"
    )
    assert set(change) == set(metric) == spec
    assert (change["type"], change["log_type_name"], change["artifact_id"]) == (
        "change",
        "Change records",
        "a",
    )
    assert (metric["type"], metric["log_type_name"]) == ("metrics", "Metrics")
    assert json.loads(metric["query"])["services"] == ["s"]


def test_log_results_are_bounded() -> None:
    records = [
        LogRecord(
            i, T0 + timedelta(seconds=i), "api", "ERROR", f"{i} " + "x" * 2000, {"k": "v" * 2000}
        )
        for i in range(50)
    ]
    run = ToolRun(context(logs=MemoryLogs(records)), CostModel())
    (text,) = asyncio.run(run.execute([("log_records", {**WINDOW, "limit": 50})]))
    assert len(text) <= MAX_RESULT_CHARS
    result = json.loads(text)
    assert result["truncated"] is True
    assert len(result["records"]) + result["omitted"] == 50
    assert all(len(r["message"]) <= 500 and len(r["attributes"]) <= 500 for r in result["records"])
    assert run.found_data and run.credits == 1.1


def test_metrics_are_downsampled_with_their_peak() -> None:
    points = tuple((T0 + timedelta(seconds=5 * i), float(i % 100)) for i in range(600))
    points = (*points[:333], (points[333][0], 999.0), *points[334:])
    series = MetricSeries(1, "latency_p99", "api", {}, points)
    run = ToolRun(context(metrics=MemoryMetrics([series])), CostModel())
    result = call(run, "query_metrics", {**WINDOW, "names": ["latency_p99"]})
    (item,) = result["series"]
    assert len(item["buckets"]) == 60 and item["bucket_format"] == ["start", "mean", "max"]
    assert item["summary"]["max"] == 999.0
    assert item["summary"]["max_at"] == "2026-11-22T09:27:45Z"
    assert max(b[2] for b in item["buckets"]) == 999.0
    assert item["summary"]["count"] == 600
    assert run.sources[result["source_id"]]["type"] == "metrics"


def test_change_diffs_are_bounded_and_missing_ids_reported() -> None:
    change = ChangeRecord(
        1,
        "c1",
        T0,
        "api",
        "commit",
        "big",
        files=tuple(f"f{i}" for i in range(40)),
        diff="+" * 10_000,
    )
    run = ToolRun(context(changes=MemoryChanges([change])), CostModel())
    result = call(run, "get_changes", {"change_ids": ["c1", "zz"]})
    (item,) = result["changes"]
    assert len(item["diff"]) == 2000 and item["diff"].endswith("…")
    assert len(item["files"]) == 30 and item["files_omitted"] == 10
    assert result["not_found"] == ["zz"]
    # The one change found is cited by its own page.
    source = run.sources[result["source_id"]]
    assert (source["start"], source["end"]) == ("2026-11-22T09:00:00Z", "2026-11-22T09:00:00Z")
    assert (source["link"], source["artifact_id"]) == ("http://sleuth.test/changes/1", "c1")


def test_knowledge_search_and_document_share_one_source() -> None:
    run = ToolRun(context(), CostModel())
    found = call(run, "search_knowledge", {"query": "payments database pool size"})
    doc = found["results"][0]
    read = call(run, "read_document", {"document_id": doc["document_id"]})
    assert read["source_id"] == doc["source_id"] == 1 and len(run.sources) == 1
    assert "Pool size: 50" in read["content"]
    missing = call(run, "read_document", {"document_id": 999})
    assert missing == {"error": "no knowledge document 999 in this organization"}
    assert run.knowledge_searches == 3 and run.credits == 1.75


def test_a_weak_search_returns_nothing_to_cite() -> None:
    run = ToolRun(context(), CostModel())
    result = call(run, "search_knowledge", {"query": "kubernetes etcd quorum"})
    assert result["results"] == [] and "etcd" in result["key_terms"]
    assert run.sources == {} and run.found_data is False
    assert run.searched == ['the knowledge catalog for "kubernetes etcd quorum"']


def test_histogram_and_unknown_services() -> None:
    run = ToolRun(context(), CostModel())
    result = call(
        run,
        "log_histogram",
        {
            **WINDOW,
            "services": ["payments-api", "ghost"],
            "levels": ["ERROR"],
            "bucket_seconds": 600,
        },
    )
    assert result["buckets"] == [["2026-11-22T09:40:00Z", 20]]
    assert result["unknown_services"] == ["ghost"]
    assert "Log histogram (600 s buckets)" in run.sources[1]["display_text"]


def test_future_window_is_refused_without_a_charge() -> None:
    run = ToolRun(context(), CostModel())
    later = (NOW + timedelta(hours=1)).isoformat()
    result = call(run, "log_counts", {"start": later, "end": later.replace("13:", "14:")})
    assert result["error"].startswith("log_counts: start is after the current time")
    assert run.credits == 1.0 and run.searched == []


ARGUMENT_CASES = [
    ({**WINDOW, "levels": ["error"], "limit": 5.0}, None),
    ({**WINDOW, "levels": "ERROR"}, "levels must be an array"),
    ({**WINDOW, "limit": "5"}, "limit must be an integer"),
    ({**WINDOW, "text": "x" * 501}, "text is longer than 500 characters"),
    ({"start": WINDOW["start"]}, "missing required argument(s): end"),
    ([1, 2], "arguments must be a JSON object"),
]


def test_arguments_are_checked_by_json_schema() -> None:
    """`parse_arguments` validates with jsonschema and normalizes enums and whole floats."""
    from sleuth_shell.agents.tools import ToolArgumentError, parse_arguments

    tool = next(t for t in TOOLS if t.name == "log_records")
    for raw, error in ARGUMENT_CASES:
        if error is None:
            args = parse_arguments(tool, json.dumps(raw))
            assert args["levels"] == ["ERROR"] and args["limit"] == 5
            assert isinstance(args["limit"], int)
            continue
        try:
            parse_arguments(tool, json.dumps(raw))
        except ToolArgumentError as exc:
            assert str(exc) == error, raw
        else:
            raise AssertionError(f"accepted {raw!r}")
