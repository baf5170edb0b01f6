"""OTLP/HTTP bodies in: decoding (binary protobuf or OTLP/JSON, gzip), the mapping of logs, metrics
and spans onto Sleuth's stores, and the protocol's answers (``Export*ServiceResponse`` and
``google.rpc.Status``) in the request's encoding.

The messages are the official ``opentelemetry-proto`` classes; nothing here encodes protobuf by
hand. OTLP/JSON is the proto3 JSON mapping with the protocol's deviations: ``traceId``, ``spanId``
and ``parentSpanId`` are hex strings (turned into the bytes the protobuf JSON parser expects before
it runs) and unknown members are ignored.

A record that cannot be stored (a span without a 16-byte trace id, a metric point that is not a
finite number...) is *rejected*: the others are stored and the answer's ``partial_success`` counts
the rejected ones and names the first problems (``resourceLogs[0].scopeLogs[0].logRecords[3]:
...``).

Mapping (docs/decisions.md, "OTLP"):

- logs: resource ``service.name`` -> service (``unknown_service`` without one), severity -> level
  (severity number ranges; else the severity text; else ``INFO``), body -> message (a string as is,
  any other value as JSON), resource and record attributes -> attributes (the record's win), the
  event name -> ``event.name``, trace and span ids kept in lower-case hex.
- metrics: gauges and sums -> one series per metric name, service and point attributes (values as
  reported); histograms and exponential histograms -> ``<name>_count``, ``<name>_sum`` and the
  estimated ``<name>_p50``, ``<name>_p95``, ``<name>_p99`` (`bucket_quantile`); summaries ->
  ``<name>_count``, ``<name>_sum`` and ``<name>`` with a ``quantile`` label per reported quantile.
- spans -> the trace store's rows (`SpanRow` columns).
"""

from __future__ import annotations

import base64
import json
import math
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final, TypeVar

import msgspec
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from google.rpc import error_details_pb2, status_pb2
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.metrics.v1 import metrics_pb2

from sleuth_shell.agents.base import LOG_LEVELS
from sleuth_shell.observability.ingest import LEVEL_ALIASES
from sleuth_shell.observability.metric_ingest import (
    MAX_LABELS,
    MAX_LABELS_KEY_CHARS,
    SeriesBatch,
    labels_key,
)

__all__ = [
    "JSON",
    "MAX_BODY_BYTES",
    "PROTOBUF",
    "ExportLogsServiceRequest",
    "ExportLogsServiceResponse",
    "ExportMetricsServiceRequest",
    "ExportMetricsServiceResponse",
    "ExportTraceServiceRequest",
    "ExportTraceServiceResponse",
    "LogsBatch",
    "MetricsBatch",
    "OtlpError",
    "SpansBatch",
    "bucket_quantile",
    "decode_body",
    "encode_message",
    "logs_rows",
    "metrics_batches",
    "parse_request",
    "response_encoding",
    "span_rows",
    "status_body",
]

PROTOBUF: Final = "application/x-protobuf"
JSON: Final = "application/json"
#: The largest request body, compressed or not (the limit applies to the decompressed body too).
MAX_BODY_BYTES = 8 * 1024 * 1024
#: Problems named in a partial success's ``error_message`` (the count covers them all).
MAX_PROBLEMS = 5
#: Service of telemetry whose resource has no ``service.name`` (the OpenTelemetry SDKs' default).
UNKNOWN_SERVICE = "unknown_service"
MAX_SERVICE_CHARS = 200
MAX_NAME_CHARS = 200
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ZERO_TRACE = bytes(16)
_ZERO_SPAN = bytes(8)
_ID_KEYS = frozenset({"traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id"})
_KINDS = ("unspecified", "internal", "server", "client", "producer", "consumer")
_STATUS = ("unset", "ok", "error")
_QUANTILES = ((0.5, "p50"), (0.95, "p95"), (0.99, "p99"))

M = TypeVar("M", bound=Message)

ExportLogsServiceRequest = logs_service_pb2.ExportLogsServiceRequest
ExportLogsServiceResponse = logs_service_pb2.ExportLogsServiceResponse
ExportMetricsServiceRequest = metrics_service_pb2.ExportMetricsServiceRequest
ExportMetricsServiceResponse = metrics_service_pb2.ExportMetricsServiceResponse
ExportTraceServiceRequest = trace_service_pb2.ExportTraceServiceRequest
ExportTraceServiceResponse = trace_service_pb2.ExportTraceServiceResponse


class OtlpError(Exception):
    """A request the server refuses: ``status`` is the HTTP status, the message the
    ``google.rpc.Status`` message; ``violations`` become a ``BadRequest`` detail."""

    def __init__(
        self, status: int, message: str, violations: Sequence[tuple[str, str]] = ()
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.violations = tuple(violations)


# --- the wire ---------------------------------------------------------------------------------


def response_encoding(content_type: str | None) -> str:
    """The encoding of the answer: JSON for a JSON request, else binary protobuf."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    return JSON if media == JSON else PROTOBUF


def _inflate(raw: bytes, limit: int) -> bytes:
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    out = bytearray()
    data = raw
    try:
        while True:
            out += inflater.decompress(data, limit + 1 - len(out))
            if len(out) > limit:
                raise OtlpError(413, f"Request body too large: over {limit} bytes decompressed")
            if inflater.eof:
                if inflater.unused_data.strip(b"\x00"):
                    # Concatenated gzip members are one stream (RFC 1952).
                    data = inflater.unused_data
                    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
                    continue
                return bytes(out)
            data = inflater.unconsumed_tail
            if not data:
                raise OtlpError(400, "Invalid gzip body: the stream is truncated")
    except zlib.error as exc:
        raise OtlpError(400, f"Invalid gzip body: {exc}") from None


def decode_body(
    content_type: str | None,
    content_encoding: str | None,
    raw: bytes,
    limit: int = MAX_BODY_BYTES,
) -> tuple[str, bytes]:
    """``(encoding, payload)``: the request's encoding (`PROTOBUF` or `JSON`) and its body,
    decompressed; `OtlpError` 415 for another media type or content coding, 400 for bad gzip,
    413 for a body over ``limit`` bytes decompressed.

    >>> import gzip
    >>> decode_body("application/json", "gzip", gzip.compress(b"{}"))
    ('application/json', b'{}')
    """
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media not in (PROTOBUF, JSON):
        raise OtlpError(
            415, f"Unsupported Content-Type {media or '(none)'}: use {PROTOBUF} or {JSON}"
        )
    coding = (content_encoding or "identity").strip().lower()
    if coding == "gzip":
        return media, _inflate(raw, limit)
    if coding not in ("identity", ""):
        raise OtlpError(415, f"Unsupported Content-Encoding {coding}: use gzip or none")
    if len(raw) > limit:
        raise OtlpError(413, f"Request body too large: over {limit} bytes")
    return media, raw


def _hex_ids(node: Any, path: str) -> Any:
    """The OTLP/JSON tree with hex ``traceId``/``spanId``/``parentSpanId`` as base64 (what the
    protobuf JSON parser reads for bytes)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _ID_KEYS and isinstance(value, str):
                try:
                    node[key] = base64.b64encode(bytes.fromhex(value)).decode("ascii")
                except ValueError:
                    raise OtlpError(
                        400,
                        f"Invalid OTLP/JSON body: {path}.{key} is not a hex string",
                        [(f"{path}.{key}", "a hex string is required")],
                    ) from None
            elif isinstance(value, dict | list):
                _hex_ids(value, f"{path}.{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            if isinstance(item, dict | list):
                _hex_ids(item, f"{path}[{index}]")
    return node


def parse_request(message_class: type[M], encoding: str, payload: bytes) -> M:
    """The ``Export*ServiceRequest`` in ``payload``; `OtlpError` 400 when it does not decode."""
    message = message_class()
    if encoding == PROTOBUF:
        try:
            message.ParseFromString(payload)
        except (DecodeError, RecursionError, ValueError) as exc:
            raise OtlpError(400, f"Invalid protobuf body: {exc or 'cannot be decoded'}") from None
        return message
    try:
        tree = msgspec.json.decode(payload)
    except (msgspec.DecodeError, RecursionError, UnicodeError) as exc:
        raise OtlpError(400, f"Invalid OTLP/JSON body: {exc}") from None
    if not isinstance(tree, dict):
        raise OtlpError(400, "Invalid OTLP/JSON body: a JSON object is required")
    try:
        json_format.ParseDict(_hex_ids(tree, "$"), message, ignore_unknown_fields=True)
    except (json_format.ParseError, RecursionError, ValueError, TypeError) as exc:
        raise OtlpError(400, f"Invalid OTLP/JSON body: {exc}") from None
    return message


def encode_message(message: Message, encoding: str) -> bytes:
    """``message`` in ``encoding`` (OTLP/JSON: lowerCamelCase, 64-bit integers as strings)."""
    if encoding == JSON:
        return json.dumps(json_format.MessageToDict(message), separators=(",", ":")).encode()
    return message.SerializeToString()


def status_body(
    status: int, message: str, encoding: str, violations: Iterable[tuple[str, str]] = ()
) -> bytes:
    """A ``google.rpc.Status`` (``code`` the gRPC code of ``status``, a ``BadRequest`` detail
    with ``violations``) in ``encoding``."""
    found = status_pb2.Status(code=_GRPC_CODES.get(status, 2), message=message)
    pairs = list(violations)
    if pairs:
        detail = error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(field=where, description=what)
                for where, what in pairs
            ]
        )
        found.details.add().Pack(detail)
    return encode_message(found, encoding)


#: HTTP status -> gRPC code (google.rpc.Code), for ``Status.code``.
_GRPC_CODES = {400: 3, 401: 16, 403: 7, 404: 5, 413: 3, 415: 3, 429: 8, 500: 13, 503: 14}


# --- values -----------------------------------------------------------------------------------


def any_value(value: common_pb2.AnyValue) -> Any:
    """A plain value of an ``AnyValue`` (bytes as base64, arrays as lists, maps as dicts)."""
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "int_value":
        return value.int_value
    if kind == "double_value":
        number = value.double_value
        return number if math.isfinite(number) else str(number)
    if kind == "array_value":
        return [any_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return attributes(value.kvlist_value.values)
    if kind == "bytes_value":
        return base64.b64encode(value.bytes_value).decode("ascii")
    return None


def attributes(pairs: Sequence[common_pb2.KeyValue]) -> dict[str, Any]:
    """Key-value pairs (a repeated ``KeyValue`` field) as a dict (a repeated key: the last
    wins)."""
    out: dict[str, Any] = {}
    # Sliced first: the protobuf container builds the list of messages at once, faster than
    # iterating over it.
    for pair in pairs[:]:
        value = pair.value
        # A non-empty string read first, at the cost of one protobuf read: most attributes are
        # strings (a batch of log records holds thousands), the rest are told apart below.
        text = value.string_value
        if text:
            out[pair.key] = text
            continue
        kind = value.WhichOneof("value")
        if kind == "int_value":
            out[pair.key] = value.int_value
        elif kind == "string_value":
            out[pair.key] = text
        else:
            out[pair.key] = any_value(value)
    return out


def _label(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _text(value: str) -> str:
    """Text a database stores (PostgreSQL refuses NUL)."""
    return value.replace("\x00", "\ufffd") if "\x00" in value else value


def _service(resource: Mapping[str, Any]) -> str:
    name = resource.get("service.name")
    text = _text(name.strip()) if isinstance(name, str) else ""
    return text or UNKNOWN_SERVICE


def _time(nanos: int) -> datetime:
    return _EPOCH + timedelta(microseconds=nanos // 1000)


@dataclass
class _Rejections:
    what: str
    count: int = 0
    problems: list[str] = field(default_factory=list)

    def add(self, where: str, problem: str, count: int = 1) -> None:
        self.count += count
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(f"{where}: {problem}")

    def message(self) -> str:
        if not self.count:
            return ""
        more = "; ..." if self.count > len(self.problems) else ""
        return f"rejected {self.count} {self.what}: " + "; ".join(self.problems) + more


# --- logs -------------------------------------------------------------------------------------


@dataclass
class LogsBatch:
    """The log rows to insert (without ``org_id``) and what was rejected."""

    rows: list[dict[str, Any]]
    rejected: int
    error_message: str


#: Level of each severity number (OTLP's ranges: 1-4 TRACE and 5-8 DEBUG are ``DEBUG``, 9-12
#: ``INFO``, 13-16 ``WARNING``, 17-20 ``ERROR``, 21-24 ``CRITICAL``); 0 (unspecified) is None: the
#: severity text decides.
_SEVERITY_LEVELS: Final = (
    None,
    *["DEBUG"] * 8,
    *["INFO"] * 4,
    *["WARNING"] * 4,
    *["ERROR"] * 4,
    *["CRITICAL"] * 4,
)


def _level(number: int, text: str) -> str:
    if 0 < number < len(_SEVERITY_LEVELS):
        return _SEVERITY_LEVELS[number]  # type: ignore[return-value]
    if number >= len(_SEVERITY_LEVELS):
        return "CRITICAL"
    canonical = text.strip().upper()
    canonical = LEVEL_ALIASES.get(canonical, canonical)
    return canonical if canonical in LOG_LEVELS else "INFO"


def _hex_id(raw: bytes, size: int) -> str | None:
    """Lower-case hex of an id of ``size`` bytes; None when empty or all zero (no id)."""
    if len(raw) != size or not any(raw):
        return None
    return raw.hex()


def logs_rows(request: logs_service_pb2.ExportLogsServiceRequest, now: datetime) -> LogsBatch:
    """The log store rows of an ``ExportLogsServiceRequest`` (see the module doc); ``now`` is
    the time of records with neither a time nor an observed time."""
    rows: list[dict[str, Any]] = []
    append = rows.append
    rejected = _Rejections("log records")
    epoch, delta, levels, top = _EPOCH, timedelta, _SEVERITY_LEVELS, len(_SEVERITY_LEVELS)
    for r_index, resource_logs in enumerate(request.resource_logs):
        resource = attributes(resource_logs.resource.attributes)
        service = _service(resource)
        too_long = len(service) > MAX_SERVICE_CHARS
        for s_index, scope_logs in enumerate(resource_logs.scope_logs):
            for l_index, record in enumerate(scope_logs.log_records):
                # Every field read once, and only when needed: each read of a protobuf field
                # makes a Python object, and a batch holds hundreds of records.
                trace_id, span_id = record.trace_id, record.span_id
                if (
                    too_long
                    or (trace_id and len(trace_id) != 16)
                    or (span_id and len(span_id) != 8)
                ):
                    where = f"resourceLogs[{r_index}].scopeLogs[{s_index}].logRecords[{l_index}]"
                    rejected.add(
                        where,
                        f"service.name longer than {MAX_SERVICE_CHARS} characters"
                        if too_long
                        else "traceId must be 16 bytes (32 hex digits)"
                        if trace_id and len(trace_id) != 16
                        else "spanId must be 8 bytes (16 hex digits)",
                    )
                    continue
                nanos = record.time_unix_nano or record.observed_time_unix_nano
                event_name = record.event_name
                body = record.body
                message = body.string_value
                if not message:
                    kind = body.WhichOneof("value")
                    if kind is None or kind == "string_value":
                        message = event_name if kind is None else ""
                    else:
                        value = any_value(body)
                        message = (
                            value
                            if isinstance(value, str)
                            else event_name
                            if value is None
                            else json.dumps(value, separators=(",", ":"), ensure_ascii=False)
                        )
                attrs = {**resource, **attributes(record.attributes)}
                if event_name:
                    attrs.setdefault("event.name", event_name)
                number = record.severity_number
                append(
                    {
                        "timestamp": epoch + delta(microseconds=nanos // 1000) if nanos else now,
                        "service": service,
                        "level": levels[number]
                        if 0 < number < top
                        else _level(number, record.severity_text),
                        "message": _text(message) if "\x00" in message else message,
                        "attributes": attrs,
                        "trace_id": trace_id.hex()
                        if trace_id and trace_id != _ZERO_TRACE
                        else None,
                        "span_id": span_id.hex() if span_id and span_id != _ZERO_SPAN else None,
                    }
                )
    return LogsBatch(rows, rejected.count, rejected.message())


# --- metrics ----------------------------------------------------------------------------------


@dataclass
class MetricsBatch:
    """The series to store (`SeriesBatch`, points merged per identity) and what was rejected
    (counted in data points: a histogram point is one)."""

    batches: list[SeriesBatch]
    rejected: int
    error_message: str


def bucket_quantile(q: float, buckets: Sequence[tuple[float, float, int]]) -> float | None:
    """The ``q``-quantile of a distribution given as ``(lower, upper, count)`` buckets in
    ascending order, interpolating linearly inside the bucket the rank falls in (the method of
    Prometheus' ``histogram_quantile``); None when the buckets are empty.

    >>> bucket_quantile(0.5, [(0.0, 10.0, 10), (10.0, 20.0, 10)])
    10.0
    >>> bucket_quantile(0.9, [(0.0, 10.0, 10), (10.0, 20.0, 10)])
    18.0
    """
    total = sum(count for _, _, count in buckets)
    if total <= 0:
        return None
    rank = q * total
    seen = 0
    for lower, upper, count in buckets:
        if count <= 0:
            continue
        if seen + count >= rank:
            if not math.isfinite(upper):
                return lower
            if not math.isfinite(lower):
                return upper
            return lower + (upper - lower) * (rank - seen) / count
        seen += count
    return buckets[-1][1]


def _explicit_buckets(point: metrics_pb2.HistogramDataPoint) -> list[tuple[float, float, int]]:
    bounds = list(point.explicit_bounds)
    counts = list(point.bucket_counts)
    if not counts or len(counts) != len(bounds) + 1:
        return []
    low = point.min if point.HasField("min") else (0.0 if bounds and bounds[0] > 0 else -math.inf)
    high = point.max if point.HasField("max") else math.inf
    edges = [low, *bounds, high]
    return [(edges[i], edges[i + 1], int(count)) for i, count in enumerate(counts)]


def _power(base: float, exponent: int) -> float:
    try:
        return float(base**exponent)
    except OverflowError:
        return math.inf


def _exponential_buckets(
    point: metrics_pb2.ExponentialHistogramDataPoint,
) -> list[tuple[float, float, int]]:
    base = 2.0 ** (2.0**-point.scale)
    buckets: list[tuple[float, float, int]] = []
    negative = point.negative
    for i in reversed(range(len(negative.bucket_counts))):
        index = negative.offset + i
        buckets.append(
            (-_power(base, index + 1), -_power(base, index), int(negative.bucket_counts[i]))
        )
    if point.zero_count:
        threshold = point.zero_threshold
        buckets.append((-threshold, threshold, int(point.zero_count)))
    positive = point.positive
    for i, count in enumerate(positive.bucket_counts):
        index = positive.offset + i
        buckets.append((_power(base, index), _power(base, index + 1), int(count)))
    return buckets


def _clamp(value: float, point: Any) -> float:
    if point.HasField("min"):
        value = max(value, point.min)
    if point.HasField("max"):
        value = min(value, point.max)
    return value


def metrics_batches(request: metrics_service_pb2.ExportMetricsServiceRequest) -> MetricsBatch:
    """The metric store's series of an ``ExportMetricsServiceRequest`` (see the module doc)."""
    batches: dict[tuple[str, str, str], SeriesBatch] = {}
    rejected = _Rejections("data points")
    no_value = metrics_pb2.DataPointFlags.DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK

    def put(name: str, service: str, labels: dict[str, str], at: datetime, value: float) -> None:
        batch = SeriesBatch(name=name, service=service, labels=labels)
        batches.setdefault(batch.key, batch).points[at] = value

    for r_index, resource_metrics in enumerate(request.resource_metrics):
        service = _service(attributes(resource_metrics.resource.attributes))
        for s_index, scope_metrics in enumerate(resource_metrics.scope_metrics):
            for m_index, metric in enumerate(scope_metrics.metrics):
                path = f"resourceMetrics[{r_index}].scopeMetrics[{s_index}].metrics[{m_index}]"
                kind = metric.WhichOneof("data")
                points: Sequence[Any] = getattr(metric, kind).data_points if kind else ()
                name = _text(metric.name.strip())
                problem = None
                if not name:
                    problem = "a metric name is required"
                elif len(name) > MAX_NAME_CHARS - 6:
                    problem = f"name longer than {MAX_NAME_CHARS - 6} characters"
                elif len(service) > MAX_SERVICE_CHARS:
                    problem = f"service.name longer than {MAX_SERVICE_CHARS} characters"
                if problem:
                    if points:
                        rejected.add(path, problem, len(points))
                    continue
                for p_index, point in enumerate(points):
                    where = f"{path}.{kind}.dataPoints[{p_index}]"
                    if point.flags & no_value:
                        continue  # a point marked as having no value: nothing to store
                    labels = {
                        _text(k): _text(_label(v)) for k, v in attributes(point.attributes).items()
                    }
                    if len(labels) > MAX_LABELS - 1 or (
                        len(labels_key(labels)) > MAX_LABELS_KEY_CHARS - 40
                    ):
                        rejected.add(where, "too many or too long attributes")
                        continue
                    if not point.time_unix_nano:
                        rejected.add(where, "timeUnixNano is required")
                        continue
                    at = _time(point.time_unix_nano)
                    values = _point_values(kind or "", name, labels, point)
                    if values is None:
                        rejected.add(where, "the value is not a finite number")
                        continue
                    for series_name, series_labels, value in values:
                        put(series_name, service, series_labels, at, value)
    return MetricsBatch(list(batches.values()), rejected.count, rejected.message())


def _finite(value: float) -> bool:
    return math.isfinite(value)


def _point_values(
    kind: str, name: str, labels: dict[str, str], point: Any
) -> list[tuple[str, dict[str, str], float]] | None:
    """``(series name, labels, value)`` of one data point; None when its value is not finite."""
    if kind in ("gauge", "sum"):
        which = point.WhichOneof("value")
        value = float(point.as_int) if which == "as_int" else float(point.as_double)
        return [(name, labels, value)] if _finite(value) else None
    if kind == "summary":
        out = [(f"{name}_count", labels, float(point.count))]
        if _finite(point.sum):
            out.append((f"{name}_sum", labels, float(point.sum)))
        for quantile in point.quantile_values:
            if not (_finite(quantile.value) and _finite(quantile.quantile)):
                return None
            out.append((name, {**labels, "quantile": _label(quantile.quantile)}, quantile.value))
        return out
    if kind in ("histogram", "exponential_histogram"):
        out = [(f"{name}_count", labels, float(point.count))]
        if point.HasField("sum"):
            if not _finite(point.sum):
                return None
            out.append((f"{name}_sum", labels, float(point.sum)))
        buckets: Callable[[Any], list[tuple[float, float, int]]] = (
            _explicit_buckets if kind == "histogram" else _exponential_buckets
        )
        found = buckets(point)
        for q, suffix in _QUANTILES:
            estimate = bucket_quantile(q, found)
            if estimate is not None and _finite(estimate):
                out.append((f"{name}_{suffix}", labels, _clamp(estimate, point)))
        return out
    return []


# --- spans ------------------------------------------------------------------------------------


@dataclass
class SpansBatch:
    """The span rows to upsert (without ``org_id``; one per trace and span id, the last sent
    wins) and what was rejected."""

    rows: list[dict[str, Any]]
    rejected: int
    error_message: str


def _event(event: Any) -> dict[str, Any]:
    return {
        "name": _text(event.name),
        "time": _time(event.time_unix_nano).isoformat() if event.time_unix_nano else None,
        "attributes": attributes(event.attributes),
    }


def span_rows(request: trace_service_pb2.ExportTraceServiceRequest) -> SpansBatch:
    """The trace store's rows of an ``ExportTraceServiceRequest`` (see the module doc)."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    rejected = _Rejections("spans")
    for r_index, resource_spans in enumerate(request.resource_spans):
        resource = attributes(resource_spans.resource.attributes)
        service = _service(resource)
        for s_index, scope_spans in enumerate(resource_spans.scope_spans):
            for p_index, span in enumerate(scope_spans.spans):
                where = f"resourceSpans[{r_index}].scopeSpans[{s_index}].spans[{p_index}]"
                trace_id = _hex_id(span.trace_id, 16)
                span_id = _hex_id(span.span_id, 8)
                if trace_id is None:
                    rejected.add(where, "traceId must be 16 bytes (32 hex digits), not all zero")
                    continue
                if span_id is None:
                    rejected.add(where, "spanId must be 8 bytes (16 hex digits), not all zero")
                    continue
                if span.parent_span_id and len(span.parent_span_id) != 8:
                    rejected.add(where, "parentSpanId must be 8 bytes (16 hex digits)")
                    continue
                if not span.start_time_unix_nano:
                    rejected.add(where, "startTimeUnixNano is required")
                    continue
                if span.end_time_unix_nano < span.start_time_unix_nano:
                    rejected.add(where, "endTimeUnixNano is before startTimeUnixNano")
                    continue
                if len(service) > MAX_SERVICE_CHARS:
                    rejected.add(where, f"service.name longer than {MAX_SERVICE_CHARS} characters")
                    continue
                kind = span.kind if 0 <= span.kind < len(_KINDS) else 0
                code = span.status.code if 0 <= span.status.code < len(_STATUS) else 0
                rows[(trace_id, span_id)] = {
                    "trace_id": trace_id,
                    "span_id": span_id,
                    "parent_span_id": _hex_id(span.parent_span_id, 8),
                    "service": service,
                    "name": _text(span.name),
                    "kind": _KINDS[kind],
                    "start": _time(span.start_time_unix_nano),
                    "duration_ms": (span.end_time_unix_nano - span.start_time_unix_nano) / 1e6,
                    "status": _STATUS[code],
                    "status_message": _text(span.status.message),
                    "attributes": attributes(span.attributes),
                    "resource": resource,
                    "events": [_event(event) for event in span.events],
                }
    return SpansBatch(list(rows.values()), rejected.count, rejected.message())
