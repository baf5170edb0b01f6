"""Bounded automation over real HTTP against ``sleuth serve`` (SQLite and PostgreSQL): caps are
exact when a storm of distinct alerts arrives in parallel, team budgets set with the real
``sleuth admin set-budget`` stop automated runs, and every alert of the storm is in the log."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from e2e_harness import ROOT, cli_batch, serve, sleuth_env

from sleuth_core.intake import sign_generic

pytestmark = [pytest.mark.e2e, pytest.mark.storage]

TRIGGERED = json.loads(
    (ROOT / "examples/alert-payloads/pagerduty/incident_triggered.json").read_text()
)
STORM = 40
CAP = 5


def incident(n: int) -> bytes:
    payload = json.loads(json.dumps(TRIGGERED))
    payload["event"]["id"] = f"storm-event-{n}"
    payload["event"]["data"]["id"] = f"STORM-{n}"
    payload["event"]["data"]["title"] = f"Storm alert {n}"
    return json.dumps(payload).encode()


@pytest.fixture
def env(database_url: str) -> dict[str, str]:
    return sleuth_env(
        database_url,
        SLEUTH_WORKERS_INLINE="false",  # investigations stay PENDING: the counts are exact
        SLEUTH_RATE_LIMIT_ENTERPRISE="100000",
    )


def test_caps_and_budgets_hold_under_a_parallel_storm(env, tmp_path: Path) -> None:
    _, created_key, hook, _, budget = cli_batch(
        env,
        ["admin", "create-org", "acme", "--plan", "enterprise"],
        ["admin", "create-key", "acme"],
        ["admin", "add-webhook", "acme", "--type", "PROVIDER_A", "--name", "pager"],
        ["admin", "create-team", "acme", "Frugal"],
        ["admin", "set-budget", "acme", "Frugal", "0"],
    )
    assert budget == {"org": "acme", "team": "Frugal", "budget": 0.0}
    key = created_key["key"]
    headers = {"X-Service-Org-Api-Key": key}
    with serve(env, tmp_path / "serve.log") as base:

        def agent(team: str, name: str, **bounds: object) -> str:
            response = httpx.post(
                f"{base}/api/v1/alert-responders/",
                headers=headers,
                json={
                    "team_name": team,
                    "name": name,
                    "webhook_sources": [{"type": "PROVIDER_A", "remote_id": hook["remote_id"]}],
                    "matching_criteria": {"text_matches": ["*Storm alert*"]},
                    **bounds,
                },
                timeout=30,
            )
            assert response.status_code == 200, response.text
            return str(response.json()["id"])

        capped = agent("Default", "capped", max_runs_per_hour=CAP, group_window_seconds=0)
        frugal = agent("Frugal", "frugal", group_window_seconds=0)
        target = f"{base}/api/v1/webhooks/PROVIDER_A/{hook['remote_id']}"

        def deliver(n: int) -> httpx.Response:
            body = incident(n)
            signature = {"X-Service-Webhook-Signature": sign_generic(body, hook["secret"])}
            return httpx.post(target, content=body, headers=signature, timeout=60)

        with ThreadPoolExecutor(max_workers=16) as pool:
            responses = list(pool.map(deliver, range(STORM)))
        assert {r.status_code for r in responses} == {202}, [r.text for r in responses]
        started = {i for r in responses for i in r.json()["investigation_ids"]}
        assert len(started) == CAP  # exactly the cap, however the requests interleave

        def decisions(agent_id: str, decision: str) -> int:
            listed = httpx.get(
                f"{base}/api/v1/alerts",
                params={"alert_responder_id": agent_id, "decision": decision, "limit": "100"},
                headers=headers,
                timeout=30,
            )
            assert listed.status_code == 200, listed.text
            return len(listed.json()["alerts"])

        assert decisions(capped, "matched") == CAP
        assert decisions(capped, "capped") == STORM - CAP
        assert decisions(frugal, "over_budget") == STORM
        budgets = httpx.get(f"{base}/api/v1/billing/budgets", headers=headers, timeout=30)
        assert budgets.json()["budgets"][0]["team_name"] == "Frugal"
        assert budgets.json()["budgets"][0]["budget"] == 0.0

    cleared = subprocess.run(
        [sys.executable, "-m", "sleuth_shell", "admin", "set-budget", "acme", "Frugal", "--clear"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert cleared.returncode == 0, cleared.stderr
    assert json.loads(cleared.stdout) == {"org": "acme", "team": "Frugal", "budget": None}
    refused = subprocess.run(
        [sys.executable, "-m", "sleuth_shell", "admin", "set-budget", "acme", "Frugal", "lots"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert refused.returncode != 0 and refused.stderr.startswith("Error: Invalid budget: lots")
