"""OTLP/HTTP intake in process: decoding, mapping, the protocol's answers and errors, the trace
store and its API reads. (The real SDK exporters against a running server:
tests/e2e/test_otlp_e2e.py.)

Storage-touching tests are marked ``storage`` (SQLite, and PostgreSQL when
``SLEUTH_TEST_POSTGRES_URL`` is set).
"""

from __future__ import annotations

import gzip
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import FIXED_NOW
from google.rpc import error_details_pb2, status_pb2
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.logs.v1 import logs_pb2
from opentelemetry.proto.resource.v1 import resource_pb2
from opentelemetry.proto.trace.v1 import trace_pb2
from sqlalchemy import func, select

from sleuth_shell.db.models import LogRecord, MetricPoint, MetricSeriesRow, SpanRow
from sleuth_shell.observability import otlp


def _fixtures() -> Path:
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "fixtures" / "otlp"
        if candidate.is_dir():
            return candidate
    raise AssertionError("no shared/fixtures/otlp beside the repository")


PB = {"Content-Type": "application/x-protobuf"}
JS = {"Content-Type": "application/json"}

# One app and database per back end for the module, an organization per test
# (tests/shell/conftest.py, SharedApps).
pytestmark = [pytest.mark.storage, pytest.mark.shared_app]


def fixture(name: str) -> bytes:
    return (_fixtures() / name).read_bytes()


def kv(key, value):
    if isinstance(value, str):
        return common_pb2.KeyValue(key=key, value=common_pb2.AnyValue(string_value=value))
    return common_pb2.KeyValue(key=key, value=common_pb2.AnyValue(int_value=value))


def logs_request(n=3, service="checkout", trace_id=b"\x01" * 16):
    records = [
        logs_pb2.LogRecord(
            time_unix_nano=1_764_000_000_000_000_000 + i,
            severity_number=17 if i == 0 else 9,
            severity_text="ERROR" if i == 0 else "INFO",
            body=common_pb2.AnyValue(string_value=f"line {i}"),
            attributes=[kv("http.route", "/pay"), kv("attempt", i)],
            trace_id=trace_id,
            span_id=b"\x02" * 8,
        )
        for i in range(n)
    ]
    return logs_service_pb2.ExportLogsServiceRequest(
        resource_logs=[
            logs_pb2.ResourceLogs(
                resource=resource_pb2.Resource(attributes=[kv("service.name", service)]),
                scope_logs=[logs_pb2.ScopeLogs(log_records=records)],
            )
        ]
    )


def count(factory, model, org=None) -> int:
    """Rows of ``model``: the organization's, or every organization's without ``org``."""
    query = select(func.count()).select_from(model)
    if org is not None and model is MetricPoint:
        query = query.join(MetricSeriesRow, MetricPoint.series_id == MetricSeriesRow.id)
        query = query.where(MetricSeriesRow.org_id == org.id)
    elif org is not None:
        query = query.where(model.org_id == org.id)

    async def go(session):
        return (await session.execute(query)).scalar_one()

    return factory.run(go)


def status_of(response) -> status_pb2.Status:
    found = status_pb2.Status()
    if response.headers["content-type"].startswith("application/json"):
        from google.protobuf import json_format

        json_format.Parse(response.text, found)
    else:
        found.ParseFromString(response.content)
    return found


def test_protobuf_logs_are_stored_with_their_ids(client, org, factory) -> None:
    body = logs_request().SerializeToString()
    response = client.post("/otlp/v1/logs", content=body, headers={**PB, **org.headers})
    assert response.status_code == 200, response.content
    assert response.headers["content-type"].startswith("application/x-protobuf")
    answer = logs_service_pb2.ExportLogsServiceResponse.FromString(response.content)
    assert not answer.HasField("partial_success")

    async def go(session):
        mine = select(LogRecord).where(LogRecord.org_id == org.id)
        return (await session.scalars(mine.order_by(LogRecord.id))).all()

    rows = factory.run(go)
    assert [(r.service, r.level, r.message) for r in rows] == [
        ("checkout", "ERROR", "line 0"),
        ("checkout", "INFO", "line 1"),
        ("checkout", "INFO", "line 2"),
    ]
    assert rows[0].trace_id == "01" * 16 and rows[0].span_id == "02" * 8
    assert rows[1].attributes == {"service.name": "checkout", "http.route": "/pay", "attempt": 1}


def test_json_fixtures_are_stored(client, org, factory) -> None:
    """The OpenTelemetry project's own OTLP/JSON examples, posted byte for byte."""
    for path, name in [
        ("/otlp/v1/logs", "logs.json"),
        ("/otlp/v1/logs", "events.json"),
        ("/otlp/v1/metrics", "metrics.json"),
        ("/otlp/v1/traces", "trace.json"),
    ]:
        response = client.post(path, content=fixture(name), headers={**JS, **org.headers})
        assert response.status_code == 200, (name, response.text)
        assert response.headers["content-type"].startswith("application/json")
        assert response.json() == {}, name

    async def go(session):
        logs = (
            await session.scalars(
                select(LogRecord).where(LogRecord.org_id == org.id).order_by(LogRecord.id)
            )
        ).all()
        spans = (await session.scalars(select(SpanRow).where(SpanRow.org_id == org.id))).all()
        series = (
            await session.scalars(select(MetricSeriesRow).where(MetricSeriesRow.org_id == org.id))
        ).all()
        return logs, spans, series

    logs, spans, series = factory.run(go)
    first = logs[0]
    assert (first.service, first.level, first.message) == (
        "my.service",
        "INFO",
        "Example log record",
    )
    assert first.trace_id == "5b8efff798038103d269b633813fc60c"
    assert first.span_id == "eee19b7ec3c1b174"
    assert first.attributes["boolean.attribute"] is True
    assert first.attributes["int.attribute"] == 10
    assert first.attributes["array.attribute"] == ["many", "values"]
    assert first.attributes["map.attribute"] == {"some.map.key": "some value"}
    assert logs[1].attributes["event.name"] == "browser.page_view"
    (span,) = spans
    assert (span.trace_id, span.span_id, span.parent_span_id) == (
        "5b8efff798038103d269b633813fc60c",
        "eee19b7ec3c1b174",
        "eee19b7ec3c1b173",
    )
    assert (span.service, span.name, span.kind, span.status) == (
        "my.service",
        "I'm a server span",
        "server",
        "unset",
    )
    assert span.duration_ms == pytest.approx(1000.0)
    names = sorted({row.name for row in series})
    assert "my.counter" in names and "my.gauge" in names
    assert {"my.histogram_count", "my.histogram_sum", "my.histogram_p50"} <= set(names)
    assert {"my.exponential.histogram_count", "my.exponential.histogram_p99"} <= set(names)


def test_gzip_and_bearer_auth(client, org, factory) -> None:
    body = gzip.compress(logs_request(2).SerializeToString())
    key = org.headers["X-Service-Org-Api-Key"]
    response = client.post(
        "/otlp/v1/logs",
        content=body,
        headers={**PB, "Content-Encoding": "gzip", "Authorization": f"Bearer {key}"},
    )
    assert response.status_code == 200, response.content
    assert count(factory, LogRecord, org) == 2


BAD_BODIES = [
    (PB, b"\xff\xff\xff\xff garbage", 400, "Invalid protobuf body"),
    (JS, b'{"resourceLogs": [', 400, "Invalid OTLP/JSON body"),
    (
        JS,
        b'{"resourceLogs": 3, "resourceMetrics": 3, "resourceSpans": 3}',
        400,
        "Invalid OTLP/JSON body",
    ),
    (JS, b"[1, 2]", 400, "a JSON object is required"),
    (
        JS,
        b'{"resourceLogs": [{"scopeLogs": [{"logRecords": [{"traceId": "zz"}]}]}],'
        b' "resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "zz"}]}]}],'
        b' "resourceMetrics": [{"scopeMetrics": [{"metrics": [{"gauge": {"dataPoints":'
        b' [{"exemplars": [{"traceId": "zz"}]}]}}]}]}]}',
        400,
        "not a hex string",
    ),
    ({**PB, "Content-Encoding": "gzip"}, b"not gzip at all", 400, "Invalid gzip body"),
    ({**PB, "Content-Encoding": "gzip"}, gzip.compress(b"x" * 1000)[:20], 400, "truncated"),
    ({**PB, "Content-Encoding": "br"}, b"x", 415, "Unsupported Content-Encoding"),
    ({"Content-Type": "text/plain"}, b"x", 415, "Unsupported Content-Type"),
]


def test_bad_bodies_get_a_status_and_write_nothing(client, org, factory) -> None:
    for headers, body, status, needle in BAD_BODIES:
        for path in ("/otlp/v1/logs", "/otlp/v1/metrics", "/otlp/v1/traces"):
            response = client.post(path, content=body, headers={**headers, **org.headers})
            assert response.status_code == status, (path, needle, response.content)
            json_request = headers.get("Content-Type") == JS["Content-Type"]
            wanted = "application/json" if json_request else "application/x-protobuf"
            assert response.headers["content-type"].startswith(wanted)
            assert needle in status_of(response).message, (path, status_of(response).message)
    assert count(factory, LogRecord, org) == 0
    assert count(factory, SpanRow, org) == 0
    assert count(factory, MetricSeriesRow, org) == 0


def test_a_bad_json_id_names_the_field(client, org) -> None:
    body = b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "nothex"}]}]}]}'
    response = client.post("/otlp/v1/traces", content=body, headers={**JS, **org.headers})
    assert response.status_code == 400
    found = status_of(response)
    detail = error_details_pb2.BadRequest()
    assert found.details[0].Unpack(detail)
    assert detail.field_violations[0].field == "$.resourceSpans[0].scopeSpans[0].spans[0].traceId"


def test_oversize_bodies_are_413(client, org, factory) -> None:
    huge = b"\x00" * (otlp.MAX_BODY_BYTES + 1)
    bomb = gzip.compress(huge)
    assert len(bomb) < otlp.MAX_BODY_BYTES
    response = client.post(
        "/otlp/v1/logs", content=bomb, headers={**PB, "Content-Encoding": "gzip", **org.headers}
    )
    assert response.status_code == 413
    assert "too large" in status_of(response).message
    response = client.post("/otlp/v1/logs", content=huge, headers={**PB, **org.headers})
    assert response.status_code == 413
    assert status_of(response).message
    assert count(factory, LogRecord, org) == 0


def test_wrong_auth_is_401_status(client, org, factory) -> None:
    body = logs_request().SerializeToString()
    before = count(factory, LogRecord)
    for headers in ({}, {"X-Service-Org-Api-Key": "nope"}, {"Authorization": "Bearer nope"}):
        response = client.post("/otlp/v1/logs", content=body, headers={**PB, **headers})
        assert response.status_code == 401
        assert response.headers["content-type"].startswith("application/x-protobuf")
        assert "API key" in status_of(response).message
    response = client.post(
        "/otlp/v1/logs", content=b"{}", headers={**JS, "Authorization": "Bearer x"}
    )
    assert response.status_code == 401
    assert "API key" in response.json()["message"]
    assert count(factory, LogRecord) == before  # nothing stored for any organization


def test_partial_success_names_rejected_spans(client, org, factory) -> None:
    good = trace_pb2.Span(
        trace_id=b"\x0a" * 16,
        span_id=b"\x0b" * 8,
        name="GET /pay",
        kind=trace_pb2.Span.SPAN_KIND_SERVER,
        start_time_unix_nano=1_764_000_000_000_000_000,
        end_time_unix_nano=1_764_000_000_250_000_000,
        status=trace_pb2.Status(code=trace_pb2.Status.STATUS_CODE_ERROR, message="boom"),
        events=[
            trace_pb2.Span.Event(
                name="exception",
                time_unix_nano=1_764_000_000_100_000_000,
                attributes=[
                    kv("exception.type", "ValueError"),
                    kv("exception.stacktrace", "Traceback...\n  File pay.py, line 3"),
                ],
            )
        ],
    )
    bad = trace_pb2.Span(trace_id=b"\x00" * 16, span_id=b"\x01" * 8, name="bad")
    request = trace_service_pb2.ExportTraceServiceRequest(
        resource_spans=[
            trace_pb2.ResourceSpans(
                resource=resource_pb2.Resource(attributes=[kv("service.name", "payments")]),
                scope_spans=[trace_pb2.ScopeSpans(spans=[good, bad])],
            )
        ]
    )
    response = client.post(
        "/otlp/v1/traces", content=request.SerializeToString(), headers={**PB, **org.headers}
    )
    assert response.status_code == 200
    answer = trace_service_pb2.ExportTraceServiceResponse.FromString(response.content)
    assert answer.partial_success.rejected_spans == 1
    assert (
        "resourceSpans[0].scopeSpans[0].spans[1]: traceId" in answer.partial_success.error_message
    )
    assert count(factory, SpanRow, org) == 1

    listed = client.get(
        "/api/v1/observability/traces",
        params={"start": "2025-11-24T00:00:00Z", "end": "2025-11-25T00:00:00Z", "status": "error"},
        headers=org.headers,
    )
    assert listed.status_code == 200, listed.text
    (item,) = listed.json()["traces"]
    assert item == {
        "trace_id": "0a" * 16,
        "root_service": "payments",
        "root_name": "GET /pay",
        "start": "2025-11-24T16:00:00Z",
        "duration_ms": 250.0,
        "error": True,
        "span_count": 1,
    }
    one = client.get(f"/api/v1/observability/traces/{'0A' * 16}", headers=org.headers)
    assert one.status_code == 200
    (span,) = one.json()["spans"]
    assert span["status"] == "error" and span["status_message"] == "boom"
    assert span["events"][0]["attributes"]["exception.type"] == "ValueError"
    assert (
        client.get(f"/api/v1/observability/traces/{'0c' * 16}", headers=org.headers).status_code
        == 404
    )


def test_partial_success_of_logs_and_metrics_counts_in_their_own_member(
    client, org, factory
) -> None:
    from opentelemetry.proto.metrics.v1 import metrics_pb2

    logs = logs_request(n=2)
    logs.resource_logs[0].scope_logs[0].log_records[1].span_id = b"\x02" * 3
    response = client.post(
        "/otlp/v1/logs", content=logs.SerializeToString(), headers={**PB, **org.headers}
    )
    assert response.status_code == 200
    answer = logs_service_pb2.ExportLogsServiceResponse.FromString(response.content)
    assert answer.partial_success.rejected_log_records == 1
    assert "logRecords[1]: spanId must be 8 bytes" in answer.partial_success.error_message
    assert count(factory, LogRecord, org) == 1

    points = [
        metrics_pb2.NumberDataPoint(time_unix_nano=1_764_000_000_000_000_000, as_double=0.5),
        metrics_pb2.NumberDataPoint(time_unix_nano=1_764_000_060_000_000_000, as_double=0.7),
        metrics_pb2.NumberDataPoint(as_double=0.9),
    ]
    metrics = metrics_service_pb2.ExportMetricsServiceRequest(
        resource_metrics=[
            metrics_pb2.ResourceMetrics(
                resource=resource_pb2.Resource(attributes=[kv("service.name", "api")]),
                scope_metrics=[
                    metrics_pb2.ScopeMetrics(
                        metrics=[
                            metrics_pb2.Metric(
                                name="queue.depth", gauge=metrics_pb2.Gauge(data_points=points)
                            )
                        ]
                    )
                ],
            )
        ]
    )
    response = client.post(
        "/otlp/v1/metrics", content=metrics.SerializeToString(), headers={**PB, **org.headers}
    )
    assert response.status_code == 200
    answer = metrics_service_pb2.ExportMetricsServiceResponse.FromString(response.content)
    assert answer.partial_success.rejected_data_points == 1
    assert "timeUnixNano is required" in answer.partial_success.error_message
    assert count(factory, MetricPoint, org) == 2

    whole = client.post(
        "/otlp/v1/logs",
        content=logs_request(n=1).SerializeToString(),
        headers={**PB, **org.headers},
    )
    answer = logs_service_pb2.ExportLogsServiceResponse.FromString(whole.content)
    assert not answer.HasField("partial_success")


def test_logs_api_lists_every_record_newest_first(client, org) -> None:
    client.post(
        "/api/v1/observability/logs",
        json={
            "records": [
                {
                    "timestamp": "2025-11-24T16:00:05Z",
                    "service": "web",
                    "level": "warn",
                    "message": "slow",
                }
            ]
        },
        headers=org.headers,
    )
    client.post(
        "/otlp/v1/logs", content=logs_request(2).SerializeToString(), headers={**PB, **org.headers}
    )
    response = client.get(
        "/api/v1/observability/logs",
        params={"start": "2025-11-24T00:00:00Z", "end": "2025-11-25T00:00:00Z"},
        headers=org.headers,
    )
    assert response.status_code == 200, response.text
    records = response.json()["records"]
    assert [r["message"] for r in records] == ["slow", "line 1", "line 0"]
    assert records[0]["trace_id"] is None and records[1]["trace_id"] == "01" * 16
    only = client.get(
        "/api/v1/observability/logs",
        params={
            "start": "2025-11-24T00:00:00Z",
            "service": "checkout",
            "level": "error",
            "q": "LINE",
        },
        headers=org.headers,
    ).json()["records"]
    assert [r["message"] for r in only] == ["line 0"]


@pytest.mark.parametrize(
    ("path", "params", "detail"),
    [
        ("logs", {"limit": "0"}, "Invalid limit: 0 (a whole number from 1 to 1000)"),
        ("logs", {"limit": "x"}, "Invalid limit: x (a whole number from 1 to 1000)"),
        ("logs", {"limit": "\u00b2"}, "Invalid limit: \u00b2 (a whole number from 1 to 1000)"),
        ("traces", {"limit": "101"}, "Invalid limit: 101 (a whole number from 1 to 100)"),
        ("logs", {"q": "a" * 201}, "Invalid q: at most 200 characters, without NUL"),
        ("logs", {"service": "s\x00"}, "Invalid service: at most 200 characters, without NUL"),
        ("traces", {"end": "x"}, "Invalid end: an ISO 8601 date-time or Unix seconds is required"),
        (
            "traces",
            {"start": "2026-01-02", "end": "2026-01-01"},
            "Invalid time range: end must be after start",
        ),
        ("traces", {"status": "ok"}, "Invalid status: only error is supported"),
        (
            "logs",
            {"start": "0001-01-01T00:00:00+01:00"},
            "Invalid start: an ISO 8601 date-time or Unix seconds is required",
        ),
    ],
)
def test_list_parameters_are_checked(client, org, path, params, detail) -> None:
    response = client.get(f"/api/v1/observability/{path}", params=params, headers=org.headers)
    assert (response.status_code, response.json()) == (400, {"detail": detail})


def test_histogram_quantiles_are_estimated_from_buckets() -> None:
    from opentelemetry.proto.metrics.v1 import metrics_pb2

    point = metrics_pb2.HistogramDataPoint(
        time_unix_nano=1_764_000_000_000_000_000,
        count=100,
        sum=2500.0,
        explicit_bounds=[10.0, 50.0, 100.0],
        bucket_counts=[50, 40, 9, 1],
        min=1.0,
        max=400.0,
    )
    request = metrics_service_pb2.ExportMetricsServiceRequest(
        resource_metrics=[
            metrics_pb2.ResourceMetrics(
                resource=resource_pb2.Resource(attributes=[kv("service.name", "api")]),
                scope_metrics=[
                    metrics_pb2.ScopeMetrics(
                        metrics=[
                            metrics_pb2.Metric(
                                name="http.server.duration",
                                histogram=metrics_pb2.Histogram(data_points=[point]),
                            ),
                            metrics_pb2.Metric(
                                name="queue.depth",
                                gauge=metrics_pb2.Gauge(
                                    data_points=[
                                        metrics_pb2.NumberDataPoint(
                                            time_unix_nano=1, as_double=float("nan")
                                        )
                                    ]
                                ),
                            ),
                        ]
                    )
                ],
            )
        ]
    )
    batch = otlp.metrics_batches(request)
    values = {b.name: next(iter(b.points.values())) for b in batch.batches}
    assert values["http.server.duration_count"] == 100
    assert values["http.server.duration_sum"] == 2500.0
    assert values["http.server.duration_p50"] == pytest.approx(10.0)
    assert values["http.server.duration_p95"] == pytest.approx(50 + 50 * 5 / 9)
    assert values["http.server.duration_p99"] == pytest.approx(100.0)
    assert batch.rejected == 1 and "not a finite number" in batch.error_message


def test_log_records_map_severity_body_attributes_and_ids() -> None:
    """Every branch of the log mapping: severity numbers by range (the text only without one),
    bodies of each kind, attributes of each kind (the record's over the resource's), the event
    name, ids (all-zero ones are no id), the time (observed time, then ``now``)."""
    any_ = common_pb2.AnyValue

    def record(number=0, text="", body=None, attrs=(), **fields):
        return logs_pb2.LogRecord(
            severity_number=number, severity_text=text, body=body, attributes=attrs, **fields
        )

    now = otlp._EPOCH.replace(year=2026)
    records = [
        record(5, body=any_(string_value="plain"), time_unix_nano=1_500_000_123_456_789),
        record(12, "ERROR", body=any_(string_value=""), observed_time_unix_nano=2_000_000_000),
        record(13, body=any_(int_value=7), trace_id=bytes(16), span_id=bytes(8)),
        record(20, body=any_(kvlist_value=common_pb2.KeyValueList(values=[kv("a", 1)]))),
        record(21, event_name="checkout.done", trace_id=b"\xab" * 16, span_id=b"\xcd" * 8),
        record(30, body=any_(array_value=common_pb2.ArrayValue(values=[any_(bool_value=True)]))),
        record(0, " warn ", body=any_(string_value="a\x00b")),
        record(0, "nonsense"),
        record(
            -1,
            "fatal",
            attrs=[
                kv("host.name", "node-9"),
                kv("empty", ""),
                common_pb2.KeyValue(key="ok", value=any_(bool_value=False)),
                common_pb2.KeyValue(key="ratio", value=any_(double_value=0.5)),
                common_pb2.KeyValue(key="inf", value=any_(double_value=float("inf"))),
                common_pb2.KeyValue(key="raw", value=any_(bytes_value=b"\x00\x01")),
                common_pb2.KeyValue(key="unset", value=any_()),
                kv("n", -3),
            ],
        ),
        record(9, body=any_(), event_name="only.event"),
        record(9, trace_id=b"\x01" * 15),
        record(9, span_id=b"\x01" * 9),
    ]
    request = logs_service_pb2.ExportLogsServiceRequest(
        resource_logs=[
            logs_pb2.ResourceLogs(
                resource=resource_pb2.Resource(
                    attributes=[kv("service.name", " pay "), kv("host.name", "node-1")]
                ),
                scope_logs=[logs_pb2.ScopeLogs(log_records=records)],
            ),
            logs_pb2.ResourceLogs(
                resource=resource_pb2.Resource(attributes=[kv("service.name", "x" * 201)]),
                scope_logs=[logs_pb2.ScopeLogs(log_records=[record(9)])],
            ),
        ]
    )
    batch = otlp.logs_rows(request, now)
    rows = batch.rows
    assert [row["level"] for row in rows] == [
        "DEBUG",
        "INFO",
        "WARNING",
        "ERROR",
        "CRITICAL",
        "CRITICAL",
        "WARNING",
        "INFO",
        "CRITICAL",
        "INFO",
    ]
    assert [row["message"] for row in rows] == [
        "plain",
        "",
        "7",
        '{"a":1}',
        "checkout.done",
        "[true]",
        "a\ufffdb",
        "",
        "",
        "only.event",
    ]
    assert {row["service"] for row in rows} == {"pay"}
    assert rows[0]["timestamp"] == otlp._EPOCH + timedelta(microseconds=1_500_000_123_456)
    assert rows[1]["timestamp"] == otlp._EPOCH + timedelta(seconds=2)
    assert rows[2]["timestamp"] == now
    assert (rows[2]["trace_id"], rows[2]["span_id"]) == (None, None)
    assert (rows[4]["trace_id"], rows[4]["span_id"]) == ("ab" * 16, "cd" * 8)
    assert rows[4]["attributes"] == {
        "service.name": " pay ",
        "host.name": "node-1",
        "event.name": "checkout.done",
    }
    assert rows[8]["attributes"] == {
        "service.name": " pay ",
        "host.name": "node-9",
        "empty": "",
        "ok": False,
        "ratio": 0.5,
        "inf": "inf",
        "raw": "AAE=",
        "unset": None,
        "n": -3,
    }
    assert batch.rejected == 3
    assert batch.error_message == (
        "rejected 3 log records: "
        "resourceLogs[0].scopeLogs[0].logRecords[10]: traceId must be 16 bytes (32 hex digits); "
        "resourceLogs[0].scopeLogs[0].logRecords[11]: spanId must be 8 bytes (16 hex digits); "
        "resourceLogs[1].scopeLogs[0].logRecords[0]: service.name longer than 200 characters"
    )


def test_rate_limit_is_429_status_with_retry_after(migrated_url, factory) -> None:
    from litestar.testing import TestClient

    from sleuth_shell.app import create_app
    from sleuth_shell.config import Settings

    settings = Settings(
        database_url=migrated_url,
        public_url="http://sleuth.test",
        workers_inline=False,
        rate_limits={"free": 1, "team": 1, "enterprise": 1},
    )
    busy = factory.org("busy")
    body = logs_request(1).SerializeToString()
    with TestClient(app=create_app(settings, clock=lambda: FIXED_NOW)) as client:
        assert (
            client.post("/otlp/v1/logs", content=body, headers={**PB, **busy.headers}).status_code
            == 200
        )
        refused = client.post("/otlp/v1/logs", content=body, headers={**PB, **busy.headers})
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) >= 1
        assert status_of(refused).message == "Rate limit exceeded"
    assert count(factory, LogRecord, busy) == 1


def test_a_database_that_cannot_write_is_503_with_retry_after(client, org, monkeypatch) -> None:
    from sqlalchemy.exc import OperationalError

    from sleuth_shell.api import otlp as otlp_api

    async def locked(*args, **kwargs):
        raise OperationalError("INSERT INTO spans", {}, Exception("database is locked"))

    monkeypatch.setattr(otlp_api.traces, "ingest_spans", locked)
    response = client.post(
        "/otlp/v1/traces", content=fixture("trace.json"), headers={**JS, **org.headers}
    )
    assert response.status_code == 503
    assert response.headers["retry-after"] == str(otlp_api.RETRY_AFTER_SECONDS)
    assert response.json()["message"] == "The service cannot store telemetry now"


def test_one_transaction_per_request(client, org, factory, monkeypatch) -> None:
    """A metrics request whose points fail to store leaves no new series behind."""
    from sleuth_shell.observability import metric_ingest

    real = metric_ingest.upsert_rows

    def failing(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(metric_ingest, "upsert_rows", failing)
    response = client.post(
        "/otlp/v1/metrics", content=fixture("metrics.json"), headers={**JS, **org.headers}
    )
    assert response.status_code == 500
    assert response.json()["message"] == "Internal server error"
    assert count(factory, MetricSeriesRow, org) == 0
    monkeypatch.setattr(metric_ingest, "upsert_rows", real)
    response = client.post(
        "/otlp/v1/metrics", content=fixture("metrics.json"), headers={**JS, **org.headers}
    )
    assert response.status_code == 200
    assert count(factory, MetricPoint, org) > 0


def test_trace_page_draws_a_waterfall_with_a_text_equivalent(client, org) -> None:
    spans = [
        trace_pb2.Span(
            trace_id=b"\x0d" * 16,
            span_id=b"\x01" * 8,
            name="POST /checkout",
            kind=trace_pb2.Span.SPAN_KIND_SERVER,
            start_time_unix_nano=1_764_000_000_000_000_000,
            end_time_unix_nano=1_764_000_000_400_000_000,
        ),
        trace_pb2.Span(
            trace_id=b"\x0d" * 16,
            span_id=b"\x02" * 8,
            parent_span_id=b"\x01" * 8,
            name="charge <card>",
            kind=trace_pb2.Span.SPAN_KIND_CLIENT,
            start_time_unix_nano=1_764_000_000_100_000_000,
            end_time_unix_nano=1_764_000_000_300_000_000,
            status=trace_pb2.Status(code=trace_pb2.Status.STATUS_CODE_ERROR, message="declined"),
            events=[
                trace_pb2.Span.Event(
                    name="exception",
                    attributes=[
                        kv("exception.type", "CardDeclined"),
                        kv("exception.stacktrace", 'File "pay.py", line 7, in charge'),
                    ],
                )
            ],
        ),
    ]
    request = trace_service_pb2.ExportTraceServiceRequest(
        resource_spans=[
            trace_pb2.ResourceSpans(
                resource=resource_pb2.Resource(attributes=[kv("service.name", "checkout")]),
                scope_spans=[trace_pb2.ScopeSpans(spans=spans)],
            )
        ]
    )
    posted = client.post(
        "/otlp/v1/traces", content=request.SerializeToString(), headers={**PB, **org.headers}
    )
    assert posted.status_code == 200
    logged = client.post(
        "/otlp/v1/logs",
        content=logs_request(2, trace_id=b"\x0d" * 16).SerializeToString(),
        headers={**PB, **org.headers},
    )
    assert logged.status_code == 200
    page = client.get(f"/traces/{'0d' * 16}", headers={**org.headers, "Accept": "text/html"})
    assert page.status_code == 200, page.text
    html = page.text
    assert html.count("<rect ") == 2
    assert 'role="img"' in html and 'id="chart-waterfall-d"' in html
    assert "2 spans over 400 ms" in html and "Failed: checkout: charge &lt;card&gt; at 100" in html
    assert "charge &lt;card&gt;" in html and "<card>" not in html
    assert "CardDeclined" in html and "pay.py" in html
    # The text equivalent: one table row per span with its offset and duration.
    assert "<td>100.0</td><td>200.0</td>" in html
    # The log records written in the trace (same service, time, trace id).
    assert "Log records in this trace" in html and "line 1" in html
    listing = client.get("/traces?from=2025-11-24T00:00:00Z", headers=org.headers)
    assert listing.status_code == 200
    assert f"/traces/{'0d' * 16}" in listing.text
    missing = client.get(f"/traces/{'0e' * 16}", headers={**org.headers, "Accept": "text/html"})
    assert missing.status_code == 404


def test_log_ingest_is_all_or_nothing(migrated_url, factory, org) -> None:
    """A batch whose third row the database refuses leaves no row of it behind."""
    import asyncio
    from datetime import UTC, datetime

    from sleuth_shell.db import create_engine, create_session_factory
    from sleuth_shell.observability import ingest

    at = datetime(2026, 1, 1, tzinfo=UTC)
    row = {"timestamp": at, "service": "a", "level": "INFO", "message": "m", "attributes": {}}
    rows = [row, row, {**row, "service": None}, row]

    async def go():
        engine = create_engine(migrated_url)
        try:
            async with create_session_factory(engine)() as session:
                with pytest.raises(Exception, match=r"(?i)not null|null value"):
                    await ingest.ingest(session, org.id, rows)
            async with create_session_factory(engine)() as session:
                assert await ingest.ingest(session, org.id, [row, row]) == 2
        finally:
            await engine.dispose()

    asyncio.run(go())
    assert count(factory, LogRecord, org) == 2


def test_other_methods_and_paths_answer_a_status(client, org) -> None:
    wrong_method = client.get("/otlp/v1/logs", headers=org.headers)
    assert wrong_method.status_code == 405
    assert "POST" in status_of(wrong_method).message
    json_charset = client.post(
        "/otlp/v1/logs",
        content=fixture("logs.json"),
        headers={"Content-Type": "application/json; charset=utf-8", **org.headers},
    )
    assert json_charset.status_code == 200
    assert json_charset.headers["content-type"].startswith("application/json")


def test_the_logs_page_links_a_record_to_its_trace(client, org) -> None:
    posted = client.post(
        "/otlp/v1/logs", content=logs_request(1).SerializeToString(), headers={**PB, **org.headers}
    )
    assert posted.status_code == 200
    page = client.get("/logs?from=2025-11-24T00:00:00Z", headers=org.headers)
    assert page.status_code == 200
    assert f'href="/traces/{"01" * 16}"' in page.text


def test_migration_0017_downgrades_and_upgrades_again(database_url: str) -> None:
    """The trace store's migration keeps the log records it finds, both ways."""
    import asyncio

    from sqlalchemy import inspect
    from test_ids_never_reused import _downgrade, sql

    from sleuth_shell.db import create_engine, migrate

    migrate(database_url)
    sql(
        database_url,
        "INSERT INTO organizations (id, name, plan, signing_secret, created_at) "
        "VALUES (1, 'o', 'free', 's', '2026-01-01 00:00:00')",
        "INSERT INTO log_records (org_id, timestamp, service, level, message, attributes, "
        "trace_id) VALUES (1, '2026-01-01 00:00:00', 'a', 'INFO', 'kept', '{}', 'ab')",
    )

    async def tables() -> tuple[list[str], list[str]]:
        engine = create_engine(database_url)
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(
                    lambda sync: (
                        inspect(sync).get_table_names(),
                        [c["name"] for c in inspect(sync).get_columns("log_records")],
                    )
                )
        finally:
            await engine.dispose()

    asyncio.run(_downgrade(database_url, "0016"))
    names, columns = asyncio.run(tables())
    assert "spans" not in names and "trace_id" not in columns
    migrate(database_url)
    names, columns = asyncio.run(tables())
    assert "spans" in names and {"trace_id", "span_id"} <= set(columns)
    [messages] = sql(database_url, "SELECT message FROM log_records")
    assert messages == [("kept",)]
