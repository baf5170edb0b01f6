"""OTLP logs ingest against a real ``sleuth serve`` on SQLite, beside plain ``sqlite3`` in the same
run (``make bench-otlp``).

Not a test (no pass/fail; never collected by ``make test``): it prints figures for
docs/performance.md.

Load: ``--batches`` binary-protobuf ``ExportLogsServiceRequest`` bodies of ``--records`` (512)
log records each - one resource (``service.name`` among 8 services, a host attribute), records
with a severity, an 80-character body, three attributes and trace and span ids - built and
serialized beforehand, posted to ``/otlp/v1/logs`` by ``--clients`` (4) concurrent clients, one
keep-alive connection each (a minimal HTTP/1.1 client on asyncio streams, so that the load
generator takes little of the shared CPU). Reported per round: log records stored per second over
the wall time of the load, request latency p50/p99, and the ratio to the baseline run just before
it; then the median ratio of ``--rounds`` (5) rounds (the machine is shared: single runs vary
2-3x).

Baseline, same run, same machine: the same rows (what Sleuth stores for those records: time,
service, level, message, attributes, trace and span ids; mapped before the clock starts, turned
into SQLite values - timestamp text, attributes as JSON - on the clock) inserted into a migrated
database's ``log_records`` table (same indexes, WAL, ``synchronous=NORMAL``) with plain
``sqlite3`` ``executemany``, one transaction per batch, from one thread. Its table holds what the
server's holds when a round starts (the warm-up's rows and every earlier round's): the rounds send
the same records again, and inserting keys that are already in the indexes costs SQLite about
1.4x what appending to an empty table does. The goal is at least 0.5x its rate.

    .venv/bin/python benchmarks/bench_otlp.py [--batches 100] [--records 512] [--clients 4]
        [--rounds 5] [--worker-processes 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [
    str(ROOT / "benchmarks" / "http"),
    str(ROOT / "tests" / "e2e"),
    str(ROOT / "core" / "src"),
    str(ROOT / "shell" / "src"),
]

from e2e_harness import cli, serve, sleuth_env  # noqa: E402
from harness import read_response  # noqa: E402
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2  # noqa: E402
from opentelemetry.proto.common.v1 import common_pb2  # noqa: E402
from opentelemetry.proto.logs.v1 import logs_pb2  # noqa: E402
from opentelemetry.proto.resource.v1 import resource_pb2  # noqa: E402

from sleuth_shell.db.migrate import migrate  # noqa: E402
from sleuth_shell.observability import otlp  # noqa: E402

SERVICES = [f"svc-{n}" for n in range(8)]
START_NS = 1_764_000_000_000_000_000


def _kv(key: str, value: str | int) -> common_pb2.KeyValue:
    if isinstance(value, int):
        return common_pb2.KeyValue(key=key, value=common_pb2.AnyValue(int_value=value))
    return common_pb2.KeyValue(key=key, value=common_pb2.AnyValue(string_value=value))


def batch(
    index: int, records: int, rng: random.Random
) -> logs_service_pb2.ExportLogsServiceRequest:
    """One exporter batch: one resource, ``records`` records."""
    service = SERVICES[index % len(SERVICES)]
    items = []
    for i in range(records):
        n = index * records + i
        error = rng.random() < 0.05
        items.append(
            logs_pb2.LogRecord(
                time_unix_nano=START_NS + n * 1_000_000,
                severity_number=17 if error else 9,
                severity_text="ERROR" if error else "INFO",
                body=common_pb2.AnyValue(
                    string_value=f"GET /api/orders/{n % 997} {'500' if error else '200'} "
                    f"in {rng.randint(3, 900)}ms for customer {rng.randint(1, 99999):05d} ok"
                ),
                attributes=[
                    _kv("http.route", "/api/orders/{id}"),
                    _kv("http.status_code", 500 if error else 200),
                    _kv("thread.name", f"worker-{n % 16}"),
                ],
                trace_id=rng.randbytes(16),
                span_id=rng.randbytes(8),
            )
        )
    return logs_service_pb2.ExportLogsServiceRequest(
        resource_logs=[
            logs_pb2.ResourceLogs(
                resource=resource_pb2.Resource(
                    attributes=[_kv("service.name", service), _kv("host.name", "node-1")]
                ),
                scope_logs=[logs_pb2.ScopeLogs(log_records=items)],
            )
        ]
    )


async def load(
    base: str, key: str, bodies: list[bytes], clients: int
) -> tuple[float, list[float], int]:
    """Post every body once, ``clients`` at a time: (wall seconds, latencies, non-200s)."""
    host, port = base.removeprefix("http://").split(":")
    queue: asyncio.Queue[bytes] = asyncio.Queue()
    for body in bodies:
        queue.put_nowait(body)
    latencies: list[float] = []
    failures = 0

    async def client() -> None:
        nonlocal failures
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            while not queue.empty():
                body = queue.get_nowait()
                head = (
                    f"POST /otlp/v1/logs HTTP/1.1\r\nHost: {host}:{port}\r\n"
                    f"Content-Type: application/x-protobuf\r\nAuthorization: Bearer {key}\r\n"
                    f"Content-Length: {len(body)}\r\n\r\n"
                ).encode()
                started = time.perf_counter()
                writer.write(head + body)
                await writer.drain()
                status, _ = await read_response(reader)
                latencies.append(time.perf_counter() - started)
                if status != 200:
                    failures += 1
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    return time.perf_counter() - started, latencies, failures


def baseline_database(db: Path) -> sqlite3.Connection:
    """The baseline's database: freshly migrated (the same ``log_records`` table and indexes as
    the server's), WAL, ``synchronous=NORMAL``, the organization the rows belong to."""
    migrate(f"sqlite:///{db}")
    connection = sqlite3.connect(db, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute(
        "INSERT INTO organizations (id, name, plan, signing_secret, created_at) "
        "VALUES (1, 'base', 'team', 'x', '2026-01-01 00:00:00')"
    )
    return connection


def baseline(connection: sqlite3.Connection, batches: list[list[dict[str, Any]]]) -> float:
    """Seconds for plain sqlite3 to insert the same rows, one transaction per batch: the rows as
    Sleuth maps them (made before the clock starts), turned into SQLite values (timestamp text,
    attributes as JSON) and inserted with ``executemany``."""
    statement = (
        "INSERT INTO log_records (org_id, timestamp, service, level, message, attributes, "
        "trace_id, span_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    )
    started = time.perf_counter()
    for rows in batches:
        values = [
            (
                1,
                r["timestamp"].replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds"),
                r["service"],
                r["level"],
                r["message"],
                json.dumps(r["attributes"]),
                r["trace_id"],
                r["span_id"],
            )
            for r in rows
        ]
        connection.execute("BEGIN")
        connection.executemany(statement, values)
        connection.execute("COMMIT")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=100)
    parser.add_argument("--records", type=int, default=512)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--worker-processes", type=int, default=1)
    parser.add_argument("--settle", type=float, default=5.0, help="seconds before the load")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(20)
    requests = [batch(i, args.records, rng) for i in range(args.batches)]
    bodies = [r.SerializeToString() for r in requests]
    total = args.batches * args.records
    print(
        f"{args.batches} batches x {args.records} records ({total} records), "
        f"{statistics.mean(map(len, bodies)) / 1024:.0f} KiB per body, {args.clients} clients"
    )
    ratios = []
    now = datetime.now(UTC)
    mapped = [otlp.logs_rows(request, now).rows for request in requests]
    with tempfile.TemporaryDirectory() as tmp:
        env = sleuth_env(
            f"sqlite:///{Path(tmp) / 'sleuth.db'}",
            SLEUTH_RATE_LIMIT_ENTERPRISE="100000000",
            SLEUTH_WORKER_PROCESSES=str(args.worker_processes),
        )
        cli(env, "admin", "create-org", "bench", "--plan", "enterprise")
        key = cli(env, "admin", "create-key", "bench")["key"]
        base = baseline_database(Path(tmp) / "baseline.db")
        with serve(env, Path(tmp) / "server.log") as url:
            warm = bodies[: max(1, args.clients)]
            asyncio.run(load(url, key, warm, args.clients))
            baseline(base, mapped[: len(warm)])
            # `sleuth serve` starts its worker child once it is healthy: let that child finish
            # importing (about a CPU second) before the clock starts.
            time.sleep(args.settle)
            for round_number in range(1, args.rounds + 1):
                # Interleaved, so that both sides of a round see the machine's load alike; both
                # insert into a table holding the same rows (the warm-up's and the rounds'
                # before), as inserting the same keys again costs SQLite more each round.
                base_seconds = baseline(base, mapped)
                seconds, latencies, failures = asyncio.run(load(url, key, bodies, args.clients))
                server_rate, base_rate = total / seconds, total / base_seconds
                ratios.append(server_rate / base_rate)
                latencies.sort()
                print(
                    f"round {round_number} (load {os.getloadavg()[0]:.1f}): "
                    f"sqlite3 executemany {base_rate:9,.0f} records/s, "
                    f"sleuth /otlp/v1/logs {server_rate:9,.0f} records/s "
                    f"(p50 {latencies[len(latencies) // 2] * 1000:.0f} ms, "
                    f"p99 {latencies[int(len(latencies) * 0.99) - 1] * 1000:.0f} ms, "
                    f"{failures} non-200): {ratios[-1]:.2f}x"
                )
        base_stored = base.execute("SELECT count(*) FROM log_records").fetchone()[0]
        base.close()
        stored = (
            sqlite3.connect(Path(tmp) / "sleuth.db")
            .execute("SELECT count(*) FROM log_records")
            .fetchone()[0]
        )
    expected = total * args.rounds + len(warm) * args.records
    print(f"rows stored: {stored} by sleuth, {base_stored} by sqlite3 (expected {expected})")
    print(f"median ratio: {statistics.median(ratios):.2f}x (goal >= 0.5x)")


if __name__ == "__main__":
    main()
