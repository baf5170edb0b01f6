"""A real Prometheus (Debian's ``prometheus``) holding one incident, for the data-source tests.

``incident_openmetrics(fired)`` writes the incident as OpenMetrics text: ``checkout`` serves
10 requests/s until the onset (``fired - 25 min``), then 5 of them more fail with 503 and take
2 s (``http_requests_total`` by ``code``, ``http_request_duration_seconds`` histogram), while its
dependency ``payments-db`` saturates: ``db_pool_connections_in_use`` climbs from 20 to its limit
of 100 over the 15 minutes before the onset and stays there. Samples every minute from 13 hours
before the alert to 20 minutes after it.

``prometheus(tmp_path, text)`` backfills a fresh TSDB with ``promtool tsdb create-blocks-from
openmetrics`` and runs ``prometheus`` on it at 127.0.0.1 on a free port (no scrape targets), until
the ``with`` block ends; it yields the base URL once ``/-/ready`` answers.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"
VICTORIA_METRICS = shutil.which("victoria-metrics") or "/usr/bin/victoria-metrics"

ONSET_BEFORE_ALERT = timedelta(minutes=25)
RAMP = timedelta(minutes=15)
SAMPLES_FROM = timedelta(hours=13)
SAMPLES_AFTER = timedelta(minutes=20)
_BUCKETS = ("0.1", "0.5", "2.5", "+Inf")


def alert_time(now: datetime | None = None) -> datetime:
    """When the incident's alert fires: whole minutes, half an hour before ``now``."""
    now = now or datetime.now(UTC)
    return now.replace(second=0, microsecond=0) - timedelta(minutes=30)


def _minutes(fired: datetime) -> list[datetime]:
    start = fired - SAMPLES_FROM
    count = int((SAMPLES_FROM + SAMPLES_AFTER).total_seconds() // 60)
    return [start + timedelta(minutes=i) for i in range(count + 1)]


def incident_samples(fired: datetime) -> list[tuple[str, dict[str, str], datetime, float]]:
    """Every sample of the incident: ``(metric name, labels, time, value)``, families together,
    each series oldest first."""
    onset = fired - ONSET_BEFORE_ALERT
    times = _minutes(fired)
    out: list[tuple[str, dict[str, str], datetime, float]] = []
    ok = failed = 0.0
    for t in times:
        ok += 600
        if t >= onset:
            failed += 300
        out.append(("http_requests_total", {"service": "checkout", "code": "200"}, t, ok))
        out.append(("http_requests_total", {"service": "checkout", "code": "503"}, t, failed))
    for t, (f, s) in zip(times, _histogram_counts(times, onset), strict=True):
        base = {"service": "checkout"}
        cumulative = {"0.1": f, "0.5": f, "2.5": f + s, "+Inf": f + s}
        for le in _BUCKETS:
            out.append(
                ("http_request_duration_seconds_bucket", {**base, "le": le}, t, cumulative[le])
            )
        out.append(("http_request_duration_seconds_count", base, t, f + s))
        out.append(("http_request_duration_seconds_sum", base, t, f * 0.05 + s * 2.0))
    for i, t in enumerate(times):
        if t < onset - RAMP:
            value = 20.0 + i % 3
        elif t < onset:
            value = 20.0 + 80.0 * (t - (onset - RAMP)) / RAMP
        else:
            value = 100.0
        out.append(("db_pool_connections_in_use", {"service": "payments-db"}, t, value))
    return out


def _histogram_counts(times: list[datetime], onset: datetime) -> list[tuple[float, float]]:
    fast = slow = 0.0
    out = []
    for t in times:
        fast += 600
        if t >= onset:
            slow += 300
        out.append((fast, slow))
    return out


def _labels(labels: dict[str, str]) -> str:
    return "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}"


def incident_openmetrics(fired: datetime) -> str:
    """The incident as OpenMetrics text (timestamps in seconds), ``# EOF`` at the end."""
    families = {
        "http_requests_total": "# TYPE http_requests counter",
        "http_request_duration_seconds_bucket": "# TYPE http_request_duration_seconds histogram",
        "db_pool_connections_in_use": "# TYPE db_pool_connections_in_use gauge",
    }
    lines: list[str] = []
    for name, labels, t, value in incident_samples(fired):
        if name in families:
            lines.append(families.pop(name))
        lines.append(f"{name}{_labels(labels)} {value:g} {int(t.timestamp())}")
    lines.append("# EOF")
    return "\n".join(lines) + "\n"


def incident_exposition_ms(fired: datetime) -> str:
    """The same samples in the Prometheus text format with millisecond timestamps (what
    VictoriaMetrics' ``/api/v1/import/prometheus`` reads)."""
    return "".join(
        f"{name}{_labels(labels)} {value:g} {int(t.timestamp()) * 1000}\n"
        for name, labels, t, value in incident_samples(fired)
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        assert process.poll() is None, log.read_text()
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=1).status_code == 200:
                return
        if time.monotonic() > deadline:
            raise AssertionError(f"not ready: {url}\n{log.read_text()}")
        time.sleep(0.1)


@contextlib.contextmanager
def _process(args: list[str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("w") as out:
        process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
        try:
            yield process
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextlib.contextmanager
def prometheus(directory: Path, openmetrics: str) -> Iterator[str]:
    """Debian's Prometheus over a TSDB backfilled with ``openmetrics``; yields its base URL."""
    directory.mkdir(parents=True, exist_ok=True)
    source = directory / "incident.om"
    source.write_text(openmetrics)
    tsdb = directory / "tsdb"
    done = subprocess.run(
        [PROMTOOL, "tsdb", "create-blocks-from", "openmetrics", str(source), str(tsdb)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    config = directory / "prometheus.yml"
    config.write_text("global:\n  scrape_interval: 1m\nscrape_configs: []\n")
    port = free_port()
    args = [
        PROMETHEUS,
        f"--config.file={config}",
        f"--storage.tsdb.path={tsdb}",
        f"--web.listen-address=127.0.0.1:{port}",
        "--storage.tsdb.retention.time=30d",
    ]
    with _process(args, directory / "prometheus.log") as process:
        url = f"http://127.0.0.1:{port}"
        _wait_ready(f"{url}/-/ready", process, directory / "prometheus.log")
        yield url


@contextlib.contextmanager
def victoria_metrics(directory: Path, exposition_ms: str) -> Iterator[str]:
    """Debian's VictoriaMetrics with ``exposition_ms`` imported; yields its base URL."""
    directory.mkdir(parents=True, exist_ok=True)
    port = free_port()
    args = [
        VICTORIA_METRICS,
        f"-storageDataPath={directory / 'data'}",
        f"-httpListenAddr=127.0.0.1:{port}",
        "-retentionPeriod=1y",
        "-search.disableCache",
    ]
    with _process(args, directory / "victoria-metrics.log") as process:
        url = f"http://127.0.0.1:{port}"
        _wait_ready(f"{url}/health", process, directory / "victoria-metrics.log")
        response = httpx.post(
            f"{url}/api/v1/import/prometheus", content=exposition_ms.encode(), timeout=30
        )
        assert response.status_code == 204, response.text
        httpx.get(f"{url}/internal/force_flush", timeout=10)
        yield url
