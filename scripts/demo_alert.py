"""``make demo``'s sample alert (run by ``scripts/demo.sh`` in the background while Sleuth starts).

Waits for ``/health``, creates the demo alert agent once (``.demo/alert-agent`` records that it
exists), then posts the sample PagerDuty ``incident.triggered`` delivery to the "Demo pager"
subscription's ingest URL, signed with Sleuth's own header (``X-Service-Webhook-Signature: v1=<hex
HMAC-SHA256 of the body with the subscription's secret>``), and prints the investigation's page.

Every start posts the same delivery again: a redelivery gets the same answer (the same
investigation) and starts nothing new. Standard library only; configured by the environment that
``demo.sh`` sets (see :func:`main`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

AGENT_NAME = "Demo pager incidents"
INTEGRATION_NAME = "#incidents"
# The sample incident's title is "Test Incident 3" (examples/alert-payloads/pagerduty).
AGENT = {
    "team_name": "Default",
    "name": AGENT_NAME,
    "matching_criteria": {"text_matches": ["Test Incident*"]},
    "runbook": {
        "investigation_prompt": (
            "Checkout is failing. Which errors did payments-api and its dependencies log in the "
            "last 6 hours, and which runbook applies?"
        )
    },
}
HEALTH_TIMEOUT = 120.0


def _request(
    method: str, url: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")


def _server_alive(pid: int) -> bool:
    # This helper is a child of the shell that became `sleuth serve`: once that exits, the helper
    # is handed to another parent (a kill(pid, 0) would still find the unreaped server).
    return os.getppid() == pid


def _wait_for_health(base: str, server_pid: int) -> bool:
    deadline = time.monotonic() + HEALTH_TIMEOUT
    while time.monotonic() < deadline:
        if not _server_alive(server_pid):
            return False
        try:
            with urllib.request.urlopen(f"{base}/health", timeout=2) as response:
                if response.status == 200:
                    return True
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.3)
    return False


def _create_agent(base: str, key: str, remote_id: str) -> None:
    headers = {"X-Service-Org-Api-Key": key, "Content-Type": "application/json"}
    status, found = _request(
        "GET", f"{base}/api/v1/notification-integrations?kind=CHAT_ALERT", headers=headers
    )
    if status != 200:
        raise RuntimeError(f"listing notification integrations: {status} {found}")
    ids = [i["id"] for i in found["notification_integrations"] if i["name"] == INTEGRATION_NAME]
    agent = {
        **AGENT,
        "webhook_sources": [{"type": "PROVIDER_A", "remote_id": remote_id}],
        "notification_integration_ids": ids,
    }
    status, created = _request(
        "POST", f"{base}/api/v1/alert-responders", json.dumps(agent).encode(), headers
    )
    if status not in (200, 201):
        raise RuntimeError(f"creating the demo alert agent: {status} {created}")


def main() -> int:
    """Environment: SLEUTH_PUBLIC_URL, DEMO_KEY (the API key), DEMO_HOOK (the subscription as
    ``sleuth admin list-webhooks`` prints it, JSON), DEMO_ALERT (the delivery's file),
    DEMO_MARKER (the file that records the agent's creation), DEMO_SERVER_PID."""
    base = os.environ["SLEUTH_PUBLIC_URL"].rstrip("/")
    hook = json.loads(os.environ["DEMO_HOOK"])
    marker = Path(os.environ["DEMO_MARKER"])
    if not _wait_for_health(base, int(os.environ["DEMO_SERVER_PID"])):
        return 1
    if not marker.exists():
        try:
            _create_agent(base, os.environ["DEMO_KEY"], hook["remote_id"])
        except RuntimeError as error:
            print(f"\nThe demo alert agent could not be created: {error}", flush=True)
            return 1
        marker.write_text(AGENT_NAME + "\n")
    body = Path(os.environ["DEMO_ALERT"]).read_bytes()
    signature = hmac.new(hook["secret"].encode(), body, hashlib.sha256).hexdigest()
    status, answer = _request(
        "POST",
        hook["ingest_url"],
        body,
        {"Content-Type": "application/json", "X-Service-Webhook-Signature": f"v1={signature}"},
    )
    if status != 202:
        print(f"\nThe demo alert was refused: {status} {answer}", flush=True)
        return 1
    ids = answer["investigation_ids"]
    if not ids:
        print(
            f"\nThe demo alert started no investigation (is the alert agent {AGENT_NAME!r} "
            "active?).",
            flush=True,
        )
        return 0
    pages = "\n".join(f"  {base}/investigations/{urllib.parse.quote(i, safe='=')}" for i in ids)
    print(
        '\nA sample PagerDuty incident was posted to the "Demo pager" subscription; its '
        f"investigation (the agent {AGENT_NAME!r}, results also in #incidents):\n{pages}\n",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
