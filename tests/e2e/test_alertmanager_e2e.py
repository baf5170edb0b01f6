"""The real Prometheus alerting path end to end: Debian's ``prometheus`` evaluates a rule that
fires, Debian's ``prometheus-alertmanager`` routes it through a webhook receiver with Bearer
credentials (``http_config.authorization``) to an ``ALERTMANAGER`` subscription's ingest URL on a
running ``sleuth serve``, and the investigation it starts completes and is posted to the alert
agent's chat channel (the chat outbox). The commit and deploy a GitHub subscription recorded
before (signed deliveries of GitHub's shape, GitHub itself being out of reach) are listed by
``GET /api/v1/changes`` and weighed by the investigation.

Everything runs on 127.0.0.1 with free ports, temporary configuration and storage; all three
processes are stopped at the end. The receiver block is the guide's (docs/alert-intake.md), with
this run's URL and secret.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_harness import ROOT, cli_batch, free_port, poll, serve, sleuth_env

from sleuth_core.intake import parse_alerts, sign_github

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("alertmanager_e2e")]

PROMETHEUS = shutil.which("prometheus")
ALERTMANAGER = shutil.which("prometheus-alertmanager")
ONCALL = "C0PROMONCALL"
SHA = "5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e"

RULES = """\
groups:
  - name: sleuth-e2e
    interval: 1s
    rules:
      - alert: CheckoutErrorRate
        expr: vector(1)
        for: 0s
        labels:
          severity: critical
          service: checkout-api
        annotations:
          summary: Checkout error rate above 5%
          description: 5xx responses of checkout-api over the last 5 minutes
"""


GUIDE = ROOT / "docs" / "alert-intake.md"
DOC_URL = "https://sleuth.example.com/api/v1/webhooks/ALERTMANAGER/wh_0123456789abcdef0123"
DOC_SECRET = "the-secret-add-webhook-printed"


def receiver_block() -> str:
    """The ```yaml block of the guide's Alertmanager section."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index("## Prometheus Alertmanager") :]
    found = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert found is not None, "docs/alert-intake.md lost its Alertmanager receiver block"
    return found.group(1)


@contextlib.contextmanager
def program(argv: list[str], log_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run a Debian program until the block ends; SIGTERM it (then kill)."""
    with log_path.open("w") as log:
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
        try:
            yield process
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def ready(url: str, process: subprocess.Popen[bytes], log: Path) -> bool:
    assert process.poll() is None, log.read_text()
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.mark.skipif(
    PROMETHEUS is None or ALERTMANAGER is None,
    reason="Debian's prometheus and prometheus-alertmanager are needed (.ci/run installs them)",
)
def test_a_prometheus_alert_through_alertmanager_is_investigated_and_posted(
    tmp_path: Path,
) -> None:
    assert PROMETHEUS is not None and ALERTMANAGER is not None
    env = sleuth_env(f"sqlite:///{tmp_path / 'sleuth.db'}", SLEUTH_RATE_LIMIT_ENTERPRISE="100000")
    _org, created_key, admin_key, hook, repo, oncall = cli_batch(
        env,
        ["admin", "create-org", "acme", "--plan", "enterprise"],
        ["admin", "create-key", "acme"],
        ["admin", "create-key", "acme", "--admin"],
        ["admin", "add-webhook", "acme", "--type", "ALERTMANAGER", "--name", "prometheus"],
        ["admin", "add-webhook", "acme", "--type", "GITHUB", "--name", "checkout",
         "--service", "checkout-api"],
        ["admin", "add-integration", "acme", "--kind", "CHAT_ALERT", "--name", "on-call",
         "--channel", ONCALL],
    )  # fmt: skip
    api = {"X-Service-Org-Api-Key": created_key["key"]}
    am_port, prom_port = free_port(), free_port()

    with serve(env, tmp_path / "serve.log") as base:
        ingest = f"{base}/api/v1/webhooks/ALERTMANAGER/{hook['remote_id']}"
        # The commit and the deploy the alert follows, as GitHub announces them (a stand-in for
        # GitHub: signed push and deployment_status deliveries of GitHub's own shape).
        repository = {"name": "checkout", "full_name": "acme/checkout"}
        pushed = {
            "ref": "refs/heads/main",
            "repository": repository,
            "commits": [
                {
                    "id": SHA,
                    "message": "payments client: cut the upstream timeout to 200 ms",
                    "timestamp": (datetime.now(UTC) - timedelta(minutes=30)).isoformat(),
                    "author": {"name": "dana"},
                    "added": [],
                    "modified": ["checkout/payments_client.py"],
                    "removed": [],
                }
            ],
        }
        deployed = {
            "action": "created",
            "deployment_status": {
                "state": "success",
                "environment": "production",
                "created_at": (datetime.now(UTC) - timedelta(minutes=20)).isoformat(),
            },
            "deployment": {"id": 42, "sha": SHA, "ref": "main", "environment": "production"},
            "repository": repository,
        }
        for n, (event, payload) in enumerate([("push", pushed), ("deployment_status", deployed)]):
            raw = json.dumps(payload).encode()
            response = httpx.post(
                f"{base}/api/v1/webhooks/GITHUB/{repo['remote_id']}",
                content=raw,
                headers={
                    "Content-Type": "application/json",
                    "X-GitHub-Event": event,
                    "X-GitHub-Delivery": f"e2e-{n}",
                    "X-Hub-Signature-256": sign_github(raw, repo["secret"]),
                },
                timeout=30,
            )
            assert response.status_code == 202, response.text
        # checkout-api's logs: healthy for an hour, failing since the deploy
        now = datetime.now(UTC)
        records = [
            {
                "timestamp": (now - timedelta(minutes=m)).isoformat(),
                "service": "checkout-api",
                "level": "ERROR" if m < 18 else "INFO",
                "message": "POST /checkout 502 upstream payments timed out"
                if m < 18
                else "POST /checkout 200 41ms",
            }
            for m in range(90, 0, -1)
        ]
        logged = httpx.post(
            f"{base}/api/v1/observability/logs", headers=api, json={"records": records}, timeout=30
        )
        assert logged.status_code == 200, logged.text
        got = httpx.get(f"{base}/api/v1/changes?kind=deploy", headers=api, timeout=30)
        assert [(c["service"], c["ships"]) for c in got.json()["changes"]] == [
            ("checkout-api", [SHA])
        ]
        response = httpx.post(
            f"{base}/api/v1/alert-responders",
            headers=api,
            json={
                "team_name": "Default",
                "name": "checkout alerts",
                "webhook_sources": [{"type": "ALERTMANAGER", "remote_id": hook["remote_id"]}],
                "matching_criteria": {"text_matches": ["*checkout-api*"]},
                "notification_integration_ids": [oncall["id"]],
            },
            timeout=30,
        )
        assert response.status_code == 200, response.text
        # The same Prometheus as a data source: the investigation queries the alert's own
        # expression (from its generator URL) there.
        prom_url = f"http://127.0.0.1:{prom_port}"
        response = httpx.post(
            f"{base}/api/v1/data-sources",
            headers={"X-Service-Org-Api-Key": admin_key["key"]},
            json={"name": "prometheus", "kind": "prometheus", "url": prom_url},
            timeout=30,
        )
        assert response.status_code == 200, response.text

        # The receiver block of docs/alert-intake.md, with this run's URL and secret, behind a
        # route with short waits.
        receiver = receiver_block().replace(DOC_URL, ingest).replace(DOC_SECRET, hook["secret"])
        assert ingest in receiver and hook["secret"] in receiver
        (tmp_path / "alertmanager.yml").write_text(
            "route:\n"
            "  receiver: sleuth\n"
            "  group_by: [alertname]\n"
            "  group_wait: 1s\n"
            "  group_interval: 2s\n"
            "  repeat_interval: 1h\n" + receiver
        )
        (tmp_path / "rules.yml").write_text(RULES)
        (tmp_path / "prometheus.yml").write_text(
            f"""\
global:
  evaluation_interval: 1s
rule_files: [{tmp_path / "rules.yml"}]
alerting:
  alertmanagers:
    - static_configs:
        - targets: ["127.0.0.1:{am_port}"]
"""
        )
        am_log, prom_log = tmp_path / "alertmanager.log", tmp_path / "prometheus.log"
        with (
            program(
                [
                    ALERTMANAGER,
                    f"--config.file={tmp_path / 'alertmanager.yml'}",
                    f"--storage.path={tmp_path / 'am-data'}",
                    f"--web.listen-address=127.0.0.1:{am_port}",
                    "--cluster.listen-address=",
                ],
                am_log,
            ) as am,
            program(
                [
                    PROMETHEUS,
                    f"--config.file={tmp_path / 'prometheus.yml'}",
                    f"--storage.tsdb.path={tmp_path / 'prom-data'}",
                    f"--web.listen-address=127.0.0.1:{prom_port}",
                    f"--web.external-url=http://127.0.0.1:{prom_port}",
                    # an alert evaluated before the Alertmanager is discovered is dropped and
                    # sent again only after this delay (one minute by default)
                    "--rules.alert.resend-delay=1s",
                ],
                prom_log,
            ) as prom,
        ):
            poll(lambda: ready(f"http://127.0.0.1:{am_port}/-/ready", am, am_log), timeout=30)
            poll(lambda: ready(f"http://127.0.0.1:{prom_port}/-/ready", prom, prom_log), timeout=30)

            def investigations() -> list[dict[str, Any]] | None:
                got = httpx.get(f"{base}/api/v1/investigations", headers=api, timeout=10)
                assert got.status_code == 200, got.text
                rows: list[dict[str, Any]] = got.json()["investigations"]
                return rows or None

            [listed] = poll(investigations, timeout=30, interval=0.3)

            def completed() -> dict[str, Any] | None:
                got = httpx.get(
                    f"{base}/api/v1/investigations/{listed['id']}", headers=api, timeout=10
                )
                assert got.status_code == 200, got.text
                row: dict[str, Any] = got.json()
                return row if row["status"] in {"COMPLETED", "ERRORED", "STOPPED"} else None

            row = poll(completed, timeout=60, interval=0.3)
            assert row["status"] == "COMPLETED", row
            assert row["name"] == "Checkout error rate above 5%"
            # the commit GitHub announced is among the investigation's suspects
            assert SHA in row["result"], row["result"]
            # the investigation holds the alert Alertmanager sent: its labels, its fingerprint
            # and Prometheus's generator URL, whose expression the data sources query
            [alert] = parse_alerts(
                "ALERTMANAGER", row["event_payload"], received_at=datetime.now(UTC)
            )
            assert alert.service == "checkout-api" and alert.severity == "critical"
            assert alert.expression == "vector(1)"
            # ... which the data source answered: cited with a link to its graph in Prometheus
            assert "the alert's own expression" in row["result"], row["result"]
            assert f"]({prom_url}/graph?g0.expr=vector%281%29&" in row["result"], row["result"]
            assert alert.dedup_key.startswith("ALERTMANAGER:") and alert.group_key

            def posted() -> list[dict[str, Any]] | None:
                got = httpx.get(
                    f"{base}/api/v1/chat/messages?channel_id={ONCALL}", headers=api, timeout=10
                )
                assert got.status_code == 200, got.text
                messages: list[dict[str, Any]] = got.json()["messages"]
                return messages or None

            messages = poll(posted, timeout=30, interval=0.3)
            assert any(f"/investigations/{listed['id']}" in m["text"] for m in messages)
            # Alertmanager keeps the firing group; its later notifications start nothing new
            assert len(poll(investigations, timeout=5)) == 1
        assert am.returncode is not None and prom.returncode is not None
