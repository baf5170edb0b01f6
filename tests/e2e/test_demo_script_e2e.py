"""``make demo``'s script (``scripts/demo.sh``) run for real: the demo organization is set up once,
and every start moves the demo logs to end now, so the sample incident stays in "the last 6 hours".
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from e2e_harness import ROOT, free_port, poll, sleuth_env

pytestmark = pytest.mark.e2e


def start_demo(cwd: Path, bin_dir: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = sleuth_env("unused", BIN=str(bin_dir), PORT=str(port), SLEUTH_WORKERS_INLINE="false")
    del env["SLEUTH_DATABASE_URL"]  # the script's own default: .demo/sleuth.db
    with log.open("w") as out:
        return subprocess.Popen(
            ["sh", str(ROOT / "scripts" / "demo.sh")],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def run_until_healthy(cwd: Path, bin_dir: Path, log: Path) -> str:
    port = free_port()
    process = start_demo(cwd, bin_dir, port, log)
    try:

        def healthy() -> bool:
            assert process.poll() is None, log.read_text()
            try:
                return httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False

        poll(healthy, timeout=120)
    finally:
        process.terminate()
        process.wait(timeout=30)
    return log.read_text()


def newest_error(db: Path) -> datetime:
    with sqlite3.connect(db) as connection:
        (stamp,) = connection.execute(
            "SELECT max(timestamp) FROM log_records "
            "WHERE service = 'payments-api' AND level = 'ERROR'"
        ).fetchone()
    return datetime.fromisoformat(stamp).replace(tzinfo=UTC)


def test_each_start_keeps_the_incident_recent(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    wrapper = bin_dir / "sleuth"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m sleuth_shell "$@"\n')
    wrapper.chmod(0o755)

    first = run_until_healthy(tmp_path, bin_dir, tmp_path / "first.log")
    key = (tmp_path / ".demo" / "api-key").read_text().strip()
    assert key.startswith("slk_") and key in first
    assert "export SLEUTH_DATABASE_URL=sqlite:///" in first
    db = tmp_path / ".demo" / "sleuth.db"
    now = datetime.now(UTC)
    assert now - timedelta(hours=6) < newest_error(db) < now

    # A day passes: the stored logs age out of "the last 6 hours"...
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE log_records SET timestamp = datetime(timestamp, '-1 day')")
        (docs_before,) = connection.execute(
            "SELECT group_concat(id) FROM knowledge_documents"
        ).fetchone()
    assert newest_error(db) < datetime.now(UTC) - timedelta(hours=24)

    # ...and the next start moves them back, without a second organization or new runbook IDs.
    second = run_until_healthy(tmp_path, bin_dir, tmp_path / "second.log")
    assert key in second
    now = datetime.now(UTC)
    assert now - timedelta(hours=6) < newest_error(db) < now
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT count(*) FROM organizations").fetchone() == (1,)
        (docs_after,) = connection.execute(
            "SELECT group_concat(id) FROM knowledge_documents"
        ).fetchone()
        (logs,) = connection.execute("SELECT count(*) FROM log_records").fetchone()
    assert docs_after == docs_before
    assert 4500 < logs < 5500  # replaced, not added to
