"""``make demo``'s script (``scripts/demo.sh``) run for real: the demo organization is set up once,
and every start moves the demo logs to end now, so the sample incident stays in "the last 6 hours".
Each start also posts the sample PagerDuty incident to the demo subscription: the first one
creates an investigation that completes and notifies #incidents; later ones get the same answer.
"""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_harness import ROOT, free_port, poll, sleuth_env

pytestmark = pytest.mark.e2e


def start_demo(cwd: Path, bin_dir: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = sleuth_env("unused", BIN=str(bin_dir), PORT=str(port))
    del env["SLEUTH_DATABASE_URL"]  # the script's own default: .demo/sleuth.db
    with log.open("w") as out:
        return subprocess.Popen(
            ["sh", str(ROOT / "scripts" / "demo.sh")],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def run_until_healthy(
    cwd: Path, bin_dir: Path, log: Path, while_up: Callable[[str, Path], Any] | None = None
) -> str:
    """Start the demo, wait for /health, run ``while_up(base_url, log)``, stop it; the output."""
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
        if while_up is not None:
            while_up(f"http://127.0.0.1:{port}", log)
    finally:
        process.terminate()
        process.wait(timeout=30)
    return log.read_text()


def printed_investigation(base: str, log: Path) -> str:
    """The investigation page the demo printed once its sample alert was answered."""
    pattern = re.compile(re.escape(base) + r"/investigations/(\S+)")
    found = poll(lambda: pattern.search(log.read_text()), timeout=60)
    return str(found.group(1))


def check_sample_incident(key: str, seen: dict[str, str]) -> Callable[[str, Path], None]:
    """Checks that the sample incident's investigation exists, is printed, completes and is
    posted to #incidents; its ID goes into ``seen["id"]``."""

    def check(base: str, log: Path) -> None:
        gid = printed_investigation(base, log)
        seen["id"] = gid
        with httpx.Client(
            base_url=base, headers={"X-Service-Org-Api-Key": key}, timeout=30
        ) as http:

            def completed() -> dict[str, Any] | None:
                items = http.get("/api/v1/investigations").json()["investigations"]
                assert [i["id"] for i in items] == [gid]
                assert items[0]["status"] in ("PENDING", "IN_PROGRESS", "COMPLETED"), items[0]
                return items[0] if items[0]["status"] == "COMPLETED" else None

            record = poll(completed, timeout=60)
            assert record["name"] == "Test Incident 3"
            assert "payments-api" in record["result"]
            agents = http.get("/api/v1/alert-responders").json()["alert_responders"]
            assert [a["name"] for a in agents] == ["Demo pager incidents"]
            page = http.get(f"/investigations/{gid}", headers={"Accept": "text/html"})
            assert page.status_code == 200 and "Test Incident 3" in page.text

            def notified() -> list[dict[str, Any]]:
                outbox = http.get("/api/v1/chat/messages", params={"channel_id": "C0INCIDENTS"})
                assert outbox.status_code == 200, outbox.text
                return [m for m in outbox.json()["messages"] if "Test Incident 3" in m["text"]]

            assert len(poll(notified, timeout=60)) == 1

    return check


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

    seen: dict[str, str] = {}

    def first_checks(base: str, log: Path) -> None:
        key = (tmp_path / ".demo" / "api-key").read_text().strip()
        check_sample_incident(key, seen)(base, log)

    first = run_until_healthy(tmp_path, bin_dir, tmp_path / "first.log", first_checks)
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
    # It also posts the sample incident again: the same investigation, nothing new started and
    # no second notification (check_sample_incident asserts one investigation and one message).
    again: dict[str, str] = {}
    second = run_until_healthy(
        tmp_path, bin_dir, tmp_path / "second.log", check_sample_incident(key, again)
    )
    assert again["id"] == seen["id"]
    assert key in second
    now = datetime.now(UTC)
    assert now - timedelta(hours=6) < newest_error(db) < now
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT count(*) FROM organizations").fetchone() == (1,)
        assert connection.execute("SELECT count(*) FROM alert_responders").fetchone() == (1,)
        (docs_after,) = connection.execute(
            "SELECT group_concat(id) FROM knowledge_documents"
        ).fetchone()
        (logs,) = connection.execute("SELECT count(*) FROM log_records").fetchone()
    assert docs_after == docs_before
    assert 4500 < logs < 5500  # replaced, not added to
