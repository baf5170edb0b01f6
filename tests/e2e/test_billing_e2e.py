"""End to end over real HTTP: interactions made with a team key and with a plain key are billed to
that team and to ``Default``, and ``POST /api/v1/billing/credit-usage`` reports them per month.

Runs the real CLI (``sleuth admin ...``) and ``sleuth serve`` as subprocesses on a fresh SQLite
file, with the cost model fixed by ``SLEUTH_AGENT_COSTS`` so the credits are known.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_harness import cli_batch, serve, sleuth_env

pytestmark = pytest.mark.e2e

BILLING = "/api/v1/billing/credit-usage"
RUN_COST = 1.25  # SLEUTH_AGENT_COSTS run=1.25; with use_tools false a run makes no tool queries


def _env(tmp: Path) -> dict[str, str]:
    return sleuth_env(f"sqlite:///{tmp / 'sleuth.db'}", SLEUTH_AGENT_COSTS=f"run={RUN_COST}")


def test_interactions_are_billed_to_the_key_team_or_default(tmp_path: Path) -> None:
    env = _env(tmp_path)
    org, payments, created_team_key, created_org_key, *other_key = cli_batch(
        env,
        ["admin", "create-org", "shop"],
        ["admin", "create-team", "shop", "Payments"],
        ["admin", "create-key", "shop", "--team", "Payments"],
        ["admin", "create-key", "shop"],
        ["admin", "create-org", "other"],
        ["admin", "create-key", "other"],
    )
    team_key, org_key = created_team_key["key"], created_org_key["key"]
    before = datetime.now(UTC) - timedelta(minutes=1)

    with serve(env, tmp_path / "serve.log") as base_url, httpx.Client(base_url=base_url) as http:
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
