"""Issue 8's loop closed end to end over real HTTP: every sample delivery in
``examples/alert-payloads/`` in, investigations completed by a separate ``sleuth worker``,
results out to a local alt-webhook receiver and the chat outbox.

``sleuth serve`` (no inline worker) and ``sleuth worker`` run as processes on one fresh SQLite
file. Each provider file is posted unchanged and signed as the provider would sign it (PagerDuty
``X-PagerDuty-Signature`` v1, FireHydrant ``fh-signature``, Rootly ``X-Rootly-Signature`` with its
timestamp, all with the provider secret; Opsgenie, which signs nothing, with Sleuth's
``X-Service-Webhook-Signature`` and once with ``?token=``); each Slack Events API file goes to the
``CHAT`` subscription's ingest URL signed as Slack signs (``v0:{timestamp}:{body}``, computed here
from the documented recipe, not with Sleuth's code).

Then: new alerts and top-level chat messages start exactly one investigation each, lifecycle and
ignored events start none (and the total is exactly that), every investigation completes, every
one arrives as a signed card at the receiver (ALT_WEBHOOK) and as a message in the on-call
channel's outbox (CHAT_ALERT), and nothing else is sent. What each file is (kind, title, dedup
key) is checked per file by ``tests/shell/test_webhook_intake.py`` and ``test_chat_intake.py``;
parallel deliveries by ``test_alert_intake_e2e.py``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from callback_receiver import CallbackReceiver
from e2e_harness import ROOT, cli_batch, poll, running, serve, sleuth_env

from sleuth_core.intake import sign_firehydrant, sign_generic, sign_pagerduty, sign_rootly

pytestmark = pytest.mark.e2e

FIXTURES = ROOT / "examples" / "alert-payloads"
PROVIDER_SECRET = "provider-issued-secret"
PROVIDERS = {
    "pagerduty": "PROVIDER_A",
    "opsgenie": "PROVIDER_B",
    "firehydrant": "PROVIDER_C",
    "rootly": "PROVIDER_D",
}
#: Provider files that are new alerts; every other provider file is lifecycle or ignored.
NEW_ALERTS = {
    "pagerduty/incident_triggered.json",
    "opsgenie/alert_create.json",
    "opsgenie/alert_create_with_description.json",
    "firehydrant/incident_created.json",
    "rootly/alert_created.json",
    "rootly/incident_created.json",
}
#: Slack files that are top-level messages in a watched channel (file -> channel).
CHAT_MESSAGES = {
    "slack/message_user.json": "C06NRA6JLER",
    "slack/message_bot.json": "C06P6T3QGD7",
    "slack/app_mention.json": "C123ABC456",
}
ONCALL = "C0ONCALL"


def slack_headers(body: bytes, secret: str) -> dict[str, str]:
    """What Slack sends (the neutral header names Sleuth documents), per docs/chat.md."""
    stamp = str(int(time.time()))
    digest = hmac.new(secret.encode(), f"v0:{stamp}:".encode() + body, hashlib.sha256)
    return {
        "X-Chat-Request-Timestamp": stamp,
        "X-Chat-Signature": f"v0={digest.hexdigest()}",
    }


def provider_post(base: str, hook: dict[str, Any], body: bytes, *, token: bool) -> httpx.Response:
    type_ = hook["type"]
    url = f"{base}/api/v1/webhooks/{type_}/{hook['remote_id']}"
    headers = {"Content-Type": "application/json"}
    if type_ == "PROVIDER_A":
        headers["X-PagerDuty-Signature"] = sign_pagerduty(body, PROVIDER_SECRET)
    elif type_ == "PROVIDER_C":
        headers["fh-signature"] = sign_firehydrant(body, PROVIDER_SECRET)
    elif type_ == "PROVIDER_D":
        headers["X-Rootly-Signature"] = sign_rootly(body, PROVIDER_SECRET, int(time.time()))
    elif token:
        url += f"?token={hook['secret']}"
    else:
        headers["X-Service-Webhook-Signature"] = sign_generic(body, hook["secret"])
    return httpx.post(url, content=body, headers=headers, timeout=30)


def test_every_sample_delivery_to_investigations_and_notifications(tmp_path: Path) -> None:
    provider_files = sorted(p for d in PROVIDERS for p in (FIXTURES / d).glob("*.json"))
    slack_files = sorted((FIXTURES / "slack").glob("*.json"))
    # The folder is the contract: a new sample file must be classified above.
    names = {f"{p.parent.name}/{p.name}" for p in provider_files + slack_files}
    known_ignored_chat = {"slack/message_changed.json", "slack/message_own_bot.json"}
    assert (
        NEW_ALERTS | set(CHAT_MESSAGES) | known_ignored_chat | {"slack/url_verification.json"}
        <= names
    )
    assert len(provider_files) == 20 and len(slack_files) == 6

    env = sleuth_env(
        f"sqlite:///{tmp_path / 'sleuth.db'}",
        SLEUTH_WORKERS_INLINE="false",
        SLEUTH_ALLOW_PRIVATE_URLS="true",  # the receiver is on 127.0.0.1
        SLEUTH_RATE_LIMIT_ENTERPRISE="100000",
    )
    org, created_key, *created_hooks, chat_hook = cli_batch(
        env,
        ["admin", "create-org", "acme", "--plan", "enterprise"],
        ["admin", "create-key", "acme"],
        *(
            [
                *("admin", "add-webhook", "acme", "--type", type_, "--name", folder),
                *([] if type_ == "PROVIDER_B" else ["--provider-secret", PROVIDER_SECRET]),
            ]
            for folder, type_ in PROVIDERS.items()
        ),
        ["admin", "add-webhook", "acme", "--type", "CHAT", "--name", "slack"],
    )
    key = created_key["key"]
    hooks = dict(zip(PROVIDERS.values(), created_hooks, strict=True))
    api = {"X-Service-Org-Api-Key": key}

    with (
        CallbackReceiver() as receiver,
        serve(env, tmp_path / "serve.log") as base,
        running(["worker"], env, tmp_path / "worker.log"),
    ):
        alt, oncall = cli_batch(
            env,
            ["admin", "add-integration", "acme", "--kind", "ALT_WEBHOOK", "--name", "alt",
             "--url", f"{receiver.url}/alt"],
            ["admin", "add-integration", "acme", "--kind", "CHAT_ALERT", "--name", "on-call",
             "--channel", ONCALL],
        )  # fmt: skip
        integrations = [alt["id"], oncall["id"]]

        def agent(name: str, **where: Any) -> None:
            response = httpx.post(
                f"{base}/api/v1/alert-responders",
                headers=api,
                json={
                    "team_name": "Default",
                    "name": name,
                    "matching_criteria": {"text_matches": ["*"]},
                    "notification_integration_ids": integrations,
                    **where,
                },
                timeout=30,
            )
            assert response.status_code == 200, response.text

        sources = [{"type": h["type"], "remote_id": h["remote_id"]} for h in hooks.values()]
        agent("every provider alert", webhook_sources=sources)
        for channel in sorted(set(CHAT_MESSAGES.values())):
            agent(f"chat {channel}", chat_channel_id=channel)

        started: dict[str, list[str]] = {}
        for path in provider_files:
            name = f"{path.parent.name}/{path.name}"
            hook = hooks[PROVIDERS[path.parent.name]]
            response = provider_post(base, hook, path.read_bytes(), token=False)
            assert response.status_code == 202, (name, response.text)
            started[name] = response.json()["investigation_ids"]
        # Opsgenie's ?token= form: a redelivery of the same body gets the same answer.
        again = provider_post(
            base, hooks["PROVIDER_B"], (FIXTURES / "opsgenie/alert_create.json").read_bytes(),
            token=True,
        )  # fmt: skip
        assert again.status_code == 202, again.text
        assert again.json()["investigation_ids"] == started["opsgenie/alert_create.json"]

        for path in slack_files:
            name = f"slack/{path.name}"
            body = path.read_bytes()
            response = httpx.post(
                f"{base}/api/v1/webhooks/CHAT/{chat_hook['remote_id']}",
                content=body,
                headers={
                    "Content-Type": "application/json",
                    **slack_headers(body, chat_hook["secret"]),
                },
                timeout=30,
            )  # fmt: skip
            assert response.status_code in {200, 202}, (name, response.text)
            if name == "slack/url_verification.json":
                assert response.json() == {"challenge": json.loads(body)["challenge"]}
                continue
            assert response.json()["replies"] == 0, (name, response.text)
            started[name] = response.json()["investigation_ids"]

        # New alerts and chat messages started one each; lifecycle and ignored events none.
        opened = {name for name, ids in started.items() if ids}
        assert opened == NEW_ALERTS | set(CHAT_MESSAGES), opened
        assert all(len(started[name]) == 1 for name in opened)
        ids = {started[name][0] for name in opened}
        assert len(ids) == len(opened)  # six provider incidents and three messages, all distinct
        listed = httpx.get(f"{base}/api/v1/investigations?limit=100", headers=api, timeout=30)
        assert listed.status_code == 200, listed.text
        assert {row["id"] for row in listed.json()["investigations"]} == ids

        # The worker completes every one of them.
        def finished() -> dict[str, dict[str, Any]] | None:
            rows = {}
            for gid in ids:
                got = httpx.get(f"{base}/api/v1/investigations/{gid}", headers=api, timeout=30)
                assert got.status_code == 200, got.text
                rows[gid] = got.json()
            done = all(r["status"] in {"COMPLETED", "ERRORED", "STOPPED"} for r in rows.values())
            return rows if done else None

        rows = poll(finished, timeout=120, interval=0.5)
        assert {r["status"] for r in rows.values()} == {"COMPLETED"}, rows
        assert all(r["result"] and r["result"].strip() for r in rows.values())

        # One signed alt-webhook card per investigation, each naming its investigation's page.
        cards = receiver.wait_for(len(ids), timeout=60)
        for card in cards:
            assert card.path == "/alt"
            card.assert_signed(org["signing_secret"])
            assert card.json()["type"] == "message"
        card_text = "\n".join(card.body.decode("utf-8") for card in cards)
        assert all(f"/investigations/{gid}" in card_text for gid in ids), card_text[:2000]

        # One message per investigation in the on-call channel's outbox.
        def outbox() -> list[dict[str, Any]] | None:
            got = httpx.get(
                f"{base}/api/v1/chat/messages?channel_id={ONCALL}", headers=api, timeout=30
            )
            assert got.status_code == 200, got.text
            messages: list[dict[str, Any]] = got.json()["messages"]
            return messages if len(messages) >= len(ids) else None

        messages = poll(outbox, timeout=60, interval=0.5)
        text = "\n".join(m["text"] for m in messages)
        assert all(f"/investigations/{gid}" in text for gid in ids), text[:2000]

        # Exactly one each: lifecycle events and redeliveries notified no one.
        assert len(list(receiver)) == len(ids)
        assert len(outbox() or []) == len(ids)
    # The access log shows the ?token= delivery without its secret.
    log = (tmp_path / "serve.log").read_text()
    assert f"/api/v1/webhooks/PROVIDER_B/{hooks['PROVIDER_B']['remote_id']}?token=[redacted]" in log
    assert hooks["PROVIDER_B"]["secret"] not in log
