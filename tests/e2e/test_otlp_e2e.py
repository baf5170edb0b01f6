"""OTLP/HTTP against a running ``sleuth serve``: the real OpenTelemetry Python SDK and its
``opentelemetry-exporter-otlp-proto-http`` exporters (spans, logs, metrics), the OpenTelemetry
project's own OTLP/JSON examples, the Collector ``otlphttp`` block of docs/opentelemetry.md, and
bad bodies, which get the protocol's errors and write nothing. One server for the module."""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import yaml
from e2e_harness import ROOT, cli_batch, free_port, serve, sleuth_env
from google.rpc import status_pb2
from opentelemetry import trace
from opentelemetry._logs import SeverityNumber
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("otlp_e2e")]

#: Before the OpenTelemetry project's examples (December 2018).
EARLY = "2018-01-01T00:00:00Z"


def _fixtures() -> Path:
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "fixtures" / "otlp"
        if candidate.is_dir():
            return candidate
    raise AssertionError("no shared/fixtures/otlp beside the repository")


@dataclass
class Server:
    base_url: str
    key: str
    other_key: str

    def get(self, path: str, key: str | None = None, **params: str) -> httpx.Response:
        """``GET`` an API path with an organization's key (default: ``key``'s)."""
        headers = {"X-Service-Org-Api-Key": key or self.key}
        return httpx.get(f"{self.base_url}{path}", params=params, headers=headers, timeout=30)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("e2e-otlp")
    env = sleuth_env(f"sqlite:///{tmp / 'sleuth.db'}")
    _, _, key, other = cli_batch(
        env,
        ["admin", "create-org", "shop"],
        ["admin", "create-org", "rival"],
        ["admin", "create-key", "shop"],
        ["admin", "create-key", "rival"],
    )
    port = free_port()
    env["SLEUTH_PUBLIC_URL"] = f"http://127.0.0.1:{port}"
    with serve(env, tmp / "server.log", port) as base_url:
        yield Server(base_url, key["key"], other["key"])


def test_sdk_exporters_store_spans_logs_and_metrics(server: Server) -> None:
    bearer = {"Authorization": f"Bearer {server.key}"}
    otlp = f"{server.base_url}/otlp"
    span_exporter = OTLPSpanExporter(endpoint=f"{otlp}/v1/traces", headers=bearer, timeout=10)
    checkout = TracerProvider(resource=Resource.create({"service.name": "checkout"}))
    payments = TracerProvider(resource=Resource.create({"service.name": "payments"}))
    for provider in (checkout, payments):
        provider.add_span_processor(SimpleSpanProcessor(span_exporter))
    logs = LoggerProvider(resource=Resource.create({"service.name": "payments"}))
    logs.add_log_record_processor(
        SimpleLogRecordProcessor(
            OTLPLogExporter(
                endpoint=f"{otlp}/v1/logs",
                headers={"X-Service-Org-Api-Key": server.key},
                compression=Compression.Gzip,
                timeout=10,
            )
        )
    )
    logger = logs.get_logger("payments")

    with checkout.get_tracer("shop").start_as_current_span(
        "POST /checkout", kind=trace.SpanKind.SERVER
    ) as root:
        trace_id = format(root.get_span_context().trace_id, "032x")
        with payments.get_tracer("payments").start_as_current_span(
            "charge card", kind=trace.SpanKind.CLIENT
        ) as child:
            try:
                raise ValueError("card declined by issuer")
            except ValueError as exc:
                child.record_exception(exc)
                child.set_status(trace.Status(trace.StatusCode.ERROR, "card declined"))
                logger.emit(
                    severity_number=SeverityNumber.ERROR,
                    body="charge failed: card declined by issuer",
                    attributes={"card.network": "visa"},
                )
        root.set_status(trace.Status(trace.StatusCode.ERROR))
    for provider in (checkout, payments):
        provider.shutdown()
    logs.shutdown()

    reader = PeriodicExportingMetricReader(
        OTLPMetricExporter(endpoint=f"{otlp}/v1/metrics", headers=bearer, timeout=10),
        export_interval_millis=3_600_000,
    )
    meters = MeterProvider(
        resource=Resource.create({"service.name": "payments"}), metric_readers=[reader]
    )
    meter = meters.get_meter("payments")
    meter.create_counter("payments.charges").add(3, {"outcome": "declined"})
    latency = meter.create_histogram("payments.latency", unit="ms")
    for value in (5, 5, 5, 5, 5, 5, 5, 5, 120, 900):
        latency.record(value, {"route": "/charge"})
    meter.create_gauge("payments.queue_depth").set(42)
    assert meters.force_flush(timeout_millis=10_000)
    meters.shutdown()

    found = server.get(f"/api/v1/observability/traces/{trace_id}")
    assert found.status_code == 200, found.text
    spans = {s["name"]: s for s in found.json()["spans"]}
    assert set(spans) == {"POST /checkout", "charge card"}
    top, charge = spans["POST /checkout"], spans["charge card"]
    assert (top["service"], top["kind"], top["parent_span_id"]) == ("checkout", "server", None)
    assert (charge["service"], charge["kind"], charge["status"]) == ("payments", "client", "error")
    assert charge["parent_span_id"] == top["span_id"]
    assert charge["status_message"] == "card declined"
    (event,) = charge["events"]
    assert event["name"] == "exception"
    assert event["attributes"]["exception.type"] == "ValueError"
    assert "card declined by issuer" in event["attributes"]["exception.stacktrace"]

    listed = server.get("/api/v1/observability/traces", status="error", service="payments")
    assert [t["trace_id"] for t in listed.json()["traces"]] == [trace_id]
    assert listed.json()["traces"][0]["root_service"] == "checkout"
    assert listed.json()["traces"][0]["span_count"] == 2

    records = server.get("/api/v1/observability/logs", service="payments").json()["records"]
    (record,) = records
    assert record["level"] == "ERROR"
    assert record["message"] == "charge failed: card declined by issuer"
    assert (record["trace_id"], record["span_id"]) == (trace_id, charge["span_id"])
    assert record["attributes"]["card.network"] == "visa"
    assert record["attributes"]["service.name"] == "payments"

    def series(name: str) -> list[dict]:
        response = server.get("/api/v1/observability/metrics", service="payments", name=name)
        return response.json()["series"]

    (charges,) = series("payments.charges")
    assert charges["labels"] == {"outcome": "declined"} and charges["points"][-1][1] == 3
    assert series("payments.queue_depth")[0]["points"][-1][1] == 42
    assert series("payments.latency_count")[0]["points"][-1][1] == 10
    assert series("payments.latency_sum")[0]["points"][-1][1] == 1060
    p50 = series("payments.latency_p50")[0]["points"][-1][1]
    p99 = series("payments.latency_p99")[0]["points"][-1][1]
    assert 0 < p50 <= 10 < 100 <= p99 <= 900

    # Another organization sees none of it.
    assert (
        server.get(f"/api/v1/observability/traces/{trace_id}", server.other_key).status_code == 404
    )


def test_a_wrong_key_fails_the_export_and_writes_nothing(server: Server) -> None:
    exporter = OTLPSpanExporter(
        endpoint=f"{server.base_url}/otlp/v1/traces",
        headers={"Authorization": "Bearer not-a-key"},
        timeout=5,
    )
    provider = TracerProvider(resource=Resource.create({"service.name": "intruder"}))
    spans = []

    class Keep(SimpleSpanProcessor):
        def on_end(self, span):  # type: ignore[no-untyped-def]
            spans.append(span)

    provider.add_span_processor(Keep(exporter))
    with provider.get_tracer("x").start_as_current_span("sneak"):
        pass
    assert exporter.export(spans) == SpanExportResult.FAILURE
    listed = server.get("/api/v1/observability/traces", service="intruder")
    assert listed.json() == {"traces": []}


def test_the_projects_json_examples_and_bad_bodies(server: Server) -> None:
    headers = {"X-Service-Org-Api-Key": server.other_key, "Content-Type": "application/json"}
    fixtures = _fixtures()
    with httpx.Client(base_url=f"{server.base_url}/otlp", headers=headers, timeout=30) as client:
        for path, name in [
            ("/v1/traces", "trace.json"),
            ("/v1/logs", "logs.json"),
            ("/v1/logs", "events.json"),
            ("/v1/metrics", "metrics.json"),
        ]:
            response = client.post(path, content=(fixtures / name).read_bytes())
            assert response.status_code == 200, (name, response.text)
            assert response.headers["content-type"] == "application/json"
            assert response.json() == {}
        gzipped = client.post(
            "/v1/traces",
            content=gzip.compress((fixtures / "trace.json").read_bytes()),
            headers={"Content-Encoding": "gzip"},
        )
        assert gzipped.status_code == 200
        before = server.get("/api/v1/observability/logs", server.other_key, start=EARLY).json()[
            "records"
        ]
        assert len(before) == 2
        bad = [
            ({"Content-Type": "application/x-protobuf"}, b"\x0a\xff\xff\xff\xff", 400),
            ({}, b'{"resourceLogs": [{"scopeLogs": "nope"}]}', 400),
            ({"Content-Encoding": "gzip"}, b"\x1f\x8b\x08\x00broken", 400),
            (
                {"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"},
                gzip.compress(b"\x00" * (9 * 1024 * 1024)),
                413,
            ),
            ({"X-Service-Org-Api-Key": "wrong"}, b"{}", 401),
        ]
        for extra, body, status in bad:
            response = client.post("/v1/logs", content=body, headers=extra)
            assert response.status_code == status, (extra, response.text)
            found = status_pb2.Status()
            if response.headers["content-type"] == "application/json":
                assert isinstance(response.json()["message"], str)
            else:
                found.ParseFromString(response.content)
                assert found.message
        after = server.get("/api/v1/observability/logs", server.other_key, start=EARLY).json()[
            "records"
        ]
        assert after == before


def test_the_guides_collector_exporter_block_reaches_sleuth(server: Server) -> None:
    """The ``otlphttp`` exporter of docs/opentelemetry.md: its endpoint plus the signal path,
    with its headers, is where a Collector sends."""
    text = (ROOT / "docs" / "opentelemetry.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(.*?)```", text, re.DOTALL)
    assert block is not None
    config = yaml.safe_load(block.group(1))
    exporter = config["exporters"]["otlphttp/sleuth"]
    endpoint = re.sub(r"http://127\.0\.0\.1:\d+", server.base_url, exporter["endpoint"])
    headers = {
        name: value.replace("${env:SLEUTH_API_KEY}", server.key)
        for name, value in exporter["headers"].items()
    }
    body = (_fixtures() / "trace.json").read_bytes()
    response = httpx.post(
        f"{endpoint}/v1/traces",
        content=body,
        headers={**headers, "Content-Type": "application/json"},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    pipelines = config["service"]["pipelines"]
    assert {"traces", "metrics", "logs"} <= set(pipelines)
    assert all("otlphttp/sleuth" in p["exporters"] for p in pipelines.values())
    listed = server.get("/api/v1/observability/traces", service="my.service", start=EARLY)
    assert [t["root_name"] for t in listed.json()["traces"]] == ["I'm a server span"]
