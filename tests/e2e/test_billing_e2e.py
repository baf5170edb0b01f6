"""End to end over real HTTP: interactions made with a team key and with a plain key are billed to
that team and to ``Default``, and ``POST /api/v1/billing/credit-usage`` reports them per month.

Runs the real CLI (``sleuth admin ...``) and ``sleuth serve`` as subprocesses on a fresh SQLite
file, with the cost model fixed by ``SLEUTH_AGENT_COSTS`` so the credits are known.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
BILLING = "/api/v1/billing/credit-usage"
RUN_COST = 1.25  # SLEUTH_AGENT_COSTS run=1.25; with use_tools false a run makes no tool queries


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    env.update(
        {
            "PYTHONPATH": os.pathsep.join([str(ROOT / "core/src"), str(ROOT / "shell/src")]),
            "SLEUTH_DATABASE_URL": f"sqlite:///{tmp / 'sleuth.db'}",
            "SLEUTH_AGENT_COSTS": f"run={RUN_COST}",
        }
    )
    return env


def _cli(env: dict[str, str], *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "sleuth_shell", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def _serve(env: dict[str, str], log_path: Path) -> Iterator[str]:
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "sleuth_shell", "serve", "--port", str(port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"{base_url}/health", timeout=2).status_code == 200:
                        break
                assert process.poll() is None, log_path.read_text()
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.1)
            yield base_url
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_interactions_are_billed_to_the_key_team_or_default(tmp_path: Path) -> None:
    env = _env(tmp_path)
    org = _cli(env, "admin", "create-org", "shop")
    payments = _cli(env, "admin", "create-team", "shop", "Payments")
    team_key = _cli(env, "admin", "create-key", "shop", "--team", "Payments")["key"]
    org_key = _cli(env, "admin", "create-key", "shop")["key"]
    other_key = (
        _cli(env, "admin", "create-org", "other"),
        _cli(env, "admin", "create-key", "other"),
    )
    before = datetime.now(UTC) - timedelta(minutes=1)

    with _serve(env, tmp_path / "serve.log") as base_url, httpx.Client(base_url=base_url) as http:
        for key, count in ((team_key, 2), (org_key, 1)):
            for _ in range(count):
                answer = http.post(
                    "/api/v1/interactions",
                    json={"question": "How do I roll back a deploy?", "use_tools": False},
                    headers={"X-Service-Org-Api-Key": key},
                    timeout=60,
                )
                assert answer.status_code == 200, answer.text
                assert answer.json()["content"]

        after = datetime.now(UTC) + timedelta(minutes=1)
        body = {"start": before.isoformat(), "end": after.isoformat()}
        report = http.post(BILLING, json=body, headers={"X-Service-Org-Api-Key": org_key})
        assert report.status_code == 200, report.text
        usage = report.json()
        assert usage["organization_id"] == org["id"]
        by_team: dict[Any, float] = {}
        for row in usage["data"]:
            by_team[(row["team_id"], row["team_name"])] = (
                by_team.get((row["team_id"], row["team_name"]), 0.0) + row["credits"]
            )
        default = next(key for key in by_team if key[1] == "Default")
        assert by_team == {(payments["id"], "Payments"): 2 * RUN_COST, default: RUN_COST}
        assert sum(usage["monthly_totals"].values()) == 3 * RUN_COST

        # The same report through the team key: keys see their whole organization.
        again = http.post(BILLING, json=body, headers={"X-Service-Org-Api-Key": team_key})
        assert again.json() == usage
        # Another organization sees none of it.
        other = http.post(
            BILLING, json=body, headers={"X-Service-Org-Api-Key": other_key[1]["key"]}
        )
        assert other.json()["data"] == [] and other.json()["monthly_totals"] == {}

        missing = http.post(BILLING, json=body)
        assert (missing.status_code, missing.json()) == (401, {"detail": "Missing API key"})
        invalid = http.post(
            BILLING,
            json={"start": "2026-02-01", "end": "2026-01-01"},
            headers={"X-Service-Org-Api-Key": org_key},
        )
        assert (invalid.status_code, invalid.json()) == (
            400,
            {"detail": "End date must be after start date"},
        )
