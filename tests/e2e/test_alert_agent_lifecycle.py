"""End to end: the real ``sleuth`` CLI and ``sleuth serve`` as subprocesses, over real HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from e2e_harness import Ran, cli, cli_runs, free_port, serve, sleuth_env

pytestmark = pytest.mark.e2e


class Sleuth:
    """Runs ``python -m sleuth_shell`` commands against one database."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def admin(self, *args: str) -> dict:
        return cli(self.env, "admin", *args)


def printed(ran: Ran) -> dict:
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


def failed(ran: Ran) -> str:
    assert ran.returncode != 0 and ran.stdout == ""
    return ran.stderr


@pytest.fixture
def server(database_url: str, tmp_path: Path) -> Iterator[tuple[Sleuth, str]]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = sleuth_env(database_url, SLEUTH_PUBLIC_URL=base, SLEUTH_WORKERS_INLINE="false")
    # Only create-org makes a new SQLite database (serve refuses a missing one).
    Sleuth(env).admin("create-org", "bootstrap")
    with serve(env, tmp_path / "serve.log", port):
        yield Sleuth(env), base


def test_alert_agent_lifecycle_over_http(server) -> None:
    sleuth, base = server
    # One sleuth process for the setup commands (cli_runs), each with its own status and output.
    created, duplicate, unknown, created_key, added_hook, added_integration = cli_runs(
        sleuth.env,
        ["admin", "create-org", "acme", "--plan", "team"],
        ["admin", "create-org", "acme"],
        ["admin", "create-key", "nope"],
        ["admin", "create-key", "acme"],
        ["admin", "add-webhook", "acme", "--type", "PROVIDER_A", "--name", "pager"],
        [
            "admin",
            "add-integration",
            "acme",
            "--kind",
            "CHAT_ALERT",
            "--name",
            "oncall",
            "--channel",
            "C0ONCALL",
        ],
    )
    org = printed(created)
    assert org["name"] == "acme" and org["plan"] == "team"
    assert "Organization already exists: acme" in failed(duplicate)
    assert "Unknown organization: nope" in failed(unknown)
    key = printed(created_key)["key"]
    hook = printed(added_hook)
    assert hook["ingest_url"] == f"{base}/api/v1/webhooks/PROVIDER_A/{hook['remote_id']}"
    integration = printed(added_integration)

    with httpx.Client(base_url=base, headers={"X-Service-Org-Api-Key": key}, timeout=10) as http:
        assert httpx.get(f"{base}/api/v1/alert-responders").json() == {"detail": "Missing API key"}
        subs = http.get("/api/v1/webhook-subscriptions")
        assert subs.headers["x-ratelimit-limit"] == "600"
        assert subs.json()["webhook_subscriptions"] == [
            {"type": "PROVIDER_A", "remote_id": hook["remote_id"], "name": "pager"}
        ]
        integrations = http.get("/api/v1/notification-integrations", params={"kind": "CHAT_ALERT"})
        assert [i["id"] for i in integrations.json()["notification_integrations"]] == [
            integration["id"]
        ]

        body = {
            "team_name": "Default",
            "name": "Checkout errors",
            "webhook_sources": [{"type": "PROVIDER_A", "remote_id": hook["remote_id"]}],
            "matching_criteria": {"text_matches": ["checkout", "*5xx*"]},
            "notification_integration_ids": [integration["id"]],
        }
        created = http.post("/api/v1/alert-responders", json=body)
        assert created.status_code == 200
        agent = created.json()
        assert agent["status"] == "ACTIVE"
        assert agent["url"] == f"{base}/alert-responders/{agent['id']}"
        assert http.post("/api/v1/alert-responders", json=body).json() == agent

        record = http.get(f"/api/v1/alert-responders/{agent['id']}").json()
        assert record["matching_criteria"]["match_rules"]["operator"] == "AND"
        assert record["notification_integration_ids"] == [integration["id"]]
        # No runbook was sent: it reads back as null (DESIGN 4); the default drives investigations.
        assert record["runbook"] is None

        updated = http.put(
            f"/api/v1/alert-responders/{agent['id']}",
            json={"name": "Checkout 5xx", "runbook": {"investigation_prompt": "Check payments."}},
        )
        assert updated.json()["name"] == "Checkout 5xx"
        mixed = http.put(f"/api/v1/alert-responders/{agent['id']}", json={"chat_channel_id": "C1"})
        assert mixed.status_code == 400

        disabled = http.post(f"/api/v1/alert-responders/{agent['id']}/disable")
        assert disabled.json() == {"id": agent["id"], "status": "PAUSED"}
        listed = http.get("/api/v1/alert-responders", params={"team_name": "Default"}).json()
        assert listed["alert_responders"][0]["status"] == "PAUSED"
        assert http.post(f"/api/v1/alert-responders/{agent['id']}/enable").json()["status"] == (
            "ACTIVE"
        )

        assert http.delete(f"/api/v1/alert-responders/{agent['id']}").json() == {"success": True}
        gone = http.get(f"/api/v1/alert-responders/{agent['id']}")
        assert (gone.status_code, gone.json()) == (404, {"detail": "Alert responder not found"})
        assert http.delete(f"/api/v1/alert-responders/{agent['id']}").json() == {"success": True}
