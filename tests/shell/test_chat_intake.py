"""Chat in over HTTP: ``POST /api/v1/chat/events`` and the platform's signed deliveries to
``POST /api/v1/webhooks/CHAT/{remote_id}``: signatures, the Slack fixtures, retries, chat alert
agents and chat triggers (each outcome seen in the outbox)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from conftest import Factory, OrgHandle
from litestar import Litestar, post
from litestar.params import FromPath
from litestar.testing import TestClient
from sqlalchemy import select

from sleuth_core.ids import decode_global_id
from sleuth_core.intake import sign_chat
from sleuth_shell.api.chat_events import post_chat_platform_event
from sleuth_shell.chat import TRIGGER_KIND, tip_text
from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import (
    ChatDelivery,
    Investigation,
    Job,
    UsageEvent,
    WebhookSubscription,
)
from sleuth_shell.jobs import Worker
from sleuth_shell.runtime import job_registry
from sleuth_shell.services import build_services


def _fixtures_dir() -> Path:
    """``shared/`` sits beside the repository (CI clones it there); a worktree looks further up."""
    for parent in Path(__file__).resolve().parents[2].parents:
        candidate = parent / "shared" / "fixtures" / "alert-payloads" / "slack"
        if candidate.is_dir():
            return candidate
    raise AssertionError("no shared/fixtures/alert-payloads/slack beside the repository")


FIXTURES = _fixtures_dir()
# One app and database per back end for the module, an organization per test
# (tests/shell/conftest.py, SharedApps); the tests that drain the job queue have their own.
pytestmark = [pytest.mark.storage, pytest.mark.shared_app]

AGENTS = "/api/v1/alert-responders"
EVENTS = "/api/v1/chat/events"
SETTINGS = "/api/v1/settings/advanced"


# --- helpers ---------------------------------------------------------------------------------


def fetch(settings: Settings, model: Any, *where: Any) -> list[Any]:
    async def go() -> list[Any]:
        engine = create_engine(settings.database_url)
        try:
            async with create_session_factory(engine)() as session:
                return list((await session.scalars(select(model).where(*where))).all())
        finally:
            await engine.dispose()

    return asyncio.run(go())


def drain(settings: Settings) -> None:
    """Run every queued job (trigger replies, chat posts, investigations) with the real
    retrieval agent until the queue is idle."""

    async def go() -> None:
        engine = create_engine(settings.database_url)
        services = build_services(settings, create_session_factory(engine))
        worker = Worker(services, job_registry(), poll_interval=0.05)
        try:
            await worker.run_until_idle()
        finally:
            await services.aclose()
            await engine.dispose()

    asyncio.run(go())


def chat_hook(factory: Factory, org: OrgHandle) -> WebhookSubscription:
    return factory.webhook(org, "CHAT", "workspace")


def signed(
    body: bytes, secret: str, *, offset: int = 0, signature: str | None = None
) -> dict[str, str]:
    stamp = int(time.time()) + offset
    return {
        "Content-Type": "application/json",
        "X-Chat-Request-Timestamp": str(stamp),
        "X-Chat-Signature": signature or sign_chat(body, secret, stamp),
    }


def deliver(
    client: TestClient[Litestar], hook: WebhookSubscription, body: bytes, **kwargs: Any
) -> Any:
    headers = signed(body, hook.secret, **kwargs)
    return client.post(f"/api/v1/webhooks/CHAT/{hook.remote_id}", content=body, headers=headers)


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def chat_agent(
    client: TestClient[Litestar],
    org: OrgHandle,
    channel: str,
    patterns: list[str],
    *,
    name: str = "chat alerts",
    bot: str | None = None,
) -> str:
    criteria: dict[str, Any] = {"text_matches": patterns}
    if bot is not None:
        criteria["chat_bot_app_user_id"] = bot
    body = {
        "team_name": "Default",
        "name": name,
        "chat_channel_id": channel,
        "matching_criteria": criteria,
    }
    response = client.post(AGENTS, json=body, headers=org.headers)
    assert response.status_code == 200, response.text
    return str(response.json()["id"])


def event(client: TestClient[Litestar], org: OrgHandle, **body: Any) -> Any:
    return client.post(EVENTS, json=body, headers=org.headers)


def outbox(client: TestClient[Litestar], org: OrgHandle, channel: str) -> list[dict[str, Any]]:
    response = client.get(f"/api/v1/chat/messages?channel_id={channel}", headers=org.headers)
    assert response.status_code == 200
    return list(response.json()["messages"])


def detail(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    assert set(response.json()) == {"detail"}
    return str(response.json()["detail"])


def investigation(settings: Settings, gid: str) -> Investigation:
    pk = decode_global_id(gid, "Investigation")
    [row] = fetch(settings, Investigation, Investigation.id == pk)
    return row


# --- the platform's deliveries: authentication ------------------------------------------------


def test_url_verification_is_answered_with_its_challenge(
    client: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    hook = chat_hook(factory, org)
    response = deliver(client, hook, fixture("url_verification.json"))
    assert response.status_code == 200
    expected = json.loads(fixture("url_verification.json"))["challenge"]
    assert response.json() == {"challenge": expected}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"signature": "v0=" + "0" * 64},  # wrong digest
        {"signature": "v1=abc"},  # wrong scheme
        {"offset": -310},  # stale: outside the 5-minute window
        {"offset": 400},  # from the future
    ],
)
def test_bad_or_stale_signature_is_401_and_changes_nothing(
    client: TestClient[Litestar],
    factory: Factory,
    org: OrgHandle,
    settings: Settings,
    kwargs: dict[str, Any],
) -> None:
    hook = chat_hook(factory, org)
    chat_agent(client, org, "C06NRA6JLER", ["*"])
    deliveries, investigations = fetch(settings, ChatDelivery), fetch(settings, Investigation)
    response = deliver(client, hook, fixture("message_user.json"), **kwargs)
    assert detail(response, 401) == "Invalid webhook token"
    # Nothing new for any organization.
    assert [d.id for d in fetch(settings, ChatDelivery)] == [d.id for d in deliveries]
    assert [i.id for i in fetch(settings, Investigation)] == [i.id for i in investigations]


def test_missing_signature_headers_are_401(
    client: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    hook = chat_hook(factory, org)
    url = f"/api/v1/webhooks/CHAT/{hook.remote_id}"
    body = fixture("url_verification.json")
    assert detail(client.post(url, content=body), 401) == "Invalid webhook token"
    only_signature = {"X-Chat-Signature": sign_chat(body, hook.secret, int(time.time()))}
    assert detail(client.post(url, content=body, headers=only_signature), 401)


def test_the_platforms_own_header_names_are_read(
    client: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    hook = chat_hook(factory, org)
    body = fixture("url_verification.json")
    stamp = int(time.time())
    headers = {
        "X-Slack-Request-Timestamp": str(stamp),
        "X-Slack-Signature": sign_chat(body, hook.secret, stamp),
    }
    response = client.post(f"/api/v1/webhooks/CHAT/{hook.remote_id}", content=body, headers=headers)
    assert response.status_code == 200
    headers["X-Slack-Signature"] = sign_chat(body, "wrong", stamp)
    response = client.post(f"/api/v1/webhooks/CHAT/{hook.remote_id}", content=body, headers=headers)
    assert detail(response, 401) == "Invalid webhook token"


def test_signature_within_the_window_is_accepted(
    client: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    hook = chat_hook(factory, org)
    response = deliver(client, hook, fixture("url_verification.json"), offset=-250)
    assert response.status_code == 200


def test_provider_secret_is_the_signing_secret_when_set(
    client: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    from sleuth_shell import admin

    hook = chat_hook(factory, org)
    platform_secret = "8f742231b10e8888abcd99yyyzzz85a5"
    factory.run(lambda s: admin.set_webhook_secret(s, org.name, hook.remote_id, platform_secret))
    url = f"/api/v1/webhooks/CHAT/{hook.remote_id}"
    body = fixture("url_verification.json")
    with_own = client.post(url, content=body, headers=signed(body, hook.secret))
    assert detail(with_own, 401) == "Invalid webhook token"
    with_platform = client.post(url, content=body, headers=signed(body, platform_secret))
    assert with_platform.status_code == 200


def test_unknown_or_non_chat_subscription_is_404(
    client: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    pager = factory.webhook(org, "PROVIDER_A", "pager")
    body = fixture("url_verification.json")
    for remote_id, secret in (("nope", "x"), (pager.remote_id, pager.secret)):
        response = client.post(
            f"/api/v1/webhooks/CHAT/{remote_id}", content=body, headers=signed(body, secret)
        )
        assert detail(response, 404) == "Webhook subscription not found"


def test_a_remote_id_with_a_nul_byte_is_404(client: TestClient[Litestar], org: OrgHandle) -> None:
    """A NUL byte names no subscription (PostgreSQL text cannot hold one: the lookup itself would
    fail, a 500)."""
    body = fixture("url_verification.json")
    response = client.post("/api/v1/webhooks/CHAT/wh%00x", content=body, headers=signed(body, "x"))
    assert detail(response, 404) == "Webhook subscription not found"


def test_body_that_is_not_an_event_envelope_is_400(
    client: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    hook = chat_hook(factory, org)
    assert detail(deliver(client, hook, b"not json"), 400)
    assert "CHAT payload" in detail(deliver(client, hook, b'{"type": "block_actions"}'), 400)


def test_the_static_chat_route_wins_over_the_generic_webhook_route() -> None:
    """Litestar matches the static ``CHAT`` segment before a ``{type}`` parameter, whatever the
    registration order, so the providers' generic route never sees chat deliveries."""

    @post("/api/v1/webhooks/{type:str}/{remote_id:str}", status_code=202)
    async def generic(type: FromPath[str], remote_id: FromPath[str]) -> dict[str, str]:
        return {"route": "generic", "type": type}

    @post("/api/v1/webhooks/CHAT/{remote_id:str}", status_code=202)
    async def chat(remote_id: FromPath[str]) -> dict[str, str]:
        return {"route": "chat"}

    for handlers in ([generic, chat], [chat, generic]):
        with TestClient(Litestar(route_handlers=handlers)) as test_client:
            assert test_client.post("/api/v1/webhooks/CHAT/r1").json() == {"route": "chat"}
            assert test_client.post("/api/v1/webhooks/PROVIDER_A/r1").json() == {
                "route": "generic",
                "type": "PROVIDER_A",
            }
    assert post_chat_platform_event.paths == {"/webhooks/CHAT/{remote_id:str}"}


# --- the Slack fixtures -----------------------------------------------------------------------

#: fixture -> (its channel, whether it starts an investigation)
SLACK_FIXTURES = {
    "message_user.json": ("C06NRA6JLER", True),
    "message_bot.json": ("C06P6T3QGD7", True),  # other bots are the alerts
    "app_mention.json": ("C123ABC456", True),
    "message_changed.json": ("C09HA4QCTD0", False),  # an edit
    "message_own_bot.json": ("C06NRA6JLER", False),  # the app's own message
}


def payload_of(client: TestClient[Litestar], org: OrgHandle, gid: str) -> str:
    """The investigation's ``event_payload`` as the API answers it (its alert's payload)."""
    response = client.get(f"/api/v1/investigations/{gid}", headers=org.headers)
    assert response.status_code == 200, response.text
    payload: str = response.json()["event_payload"]
    return payload


@pytest.mark.parametrize(("name", "expected"), SLACK_FIXTURES.items())
def test_each_slack_fixture_counts_or_not(
    client: TestClient[Litestar],
    factory: Factory,
    org: OrgHandle,
    settings: Settings,
    name: str,
    expected: tuple[str, bool],
) -> None:
    channel, counts = expected
    hook = chat_hook(factory, org)
    chat_agent(client, org, channel, ["*"])
    response = deliver(client, hook, fixture(name))
    assert response.status_code == 202, response.text
    body = response.json()
    assert set(body) == {"investigation_ids", "replies"}
    assert len(body["investigation_ids"]) == (1 if counts else 0)
    [delivery] = fetch(settings, ChatDelivery, ChatDelivery.org_id == org.id)
    assert delivery.event_id == json.loads(fixture(name))["event_id"]
    assert delivery.kind == ("message" if counts else "ignored")
    if counts:
        row = investigation(settings, body["investigation_ids"][0])
        assert payload_of(client, org, body["investigation_ids"][0]) == fixture(name).decode()
        assert row.status == "PENDING"
    else:
        assert delivery.reason in {"subtype message_changed", "own message"}
        assert fetch(settings, Investigation, Investigation.org_id == org.id) == []


def test_investigation_name_is_the_first_line(
    client: TestClient[Litestar], factory: Factory, org: OrgHandle, settings: Settings
) -> None:
    hook = chat_hook(factory, org)
    chat_agent(client, org, "C123ABC456", ["*river*"])
    body = deliver(client, hook, fixture("app_mention.json")).json()
    row = investigation(settings, body["investigation_ids"][0])
    assert row.name == "<@U0LAN0Z89> is it everything a river should be?"


def test_retries_are_recognised_by_event_id(
    client: TestClient[Litestar], factory: Factory, org: OrgHandle, settings: Settings
) -> None:
    hook = chat_hook(factory, org)
    chat_agent(client, org, "C06NRA6JLER", ["*normal text*"])
    first = deliver(client, hook, fixture("message_user.json"))
    assert first.status_code == 202
    assert len(first.json()["investigation_ids"]) == 1
    # The platform's retry: same body, retry headers; then one with a changed body but the
    # same event_id (a retry is recognised by the id, not the bytes).
    again = deliver(client, hook, fixture("message_user.json"))
    changed = json.loads(fixture("message_user.json"))
    changed["event"]["ts"] = "1719209999.000001"
    third = deliver(client, hook, json.dumps(changed).encode())
    assert again.status_code == third.status_code == 202
    assert again.json() == third.json() == first.json()
    assert len(fetch(settings, Investigation, Investigation.org_id == org.id)) == 1
    assert len(fetch(settings, ChatDelivery, ChatDelivery.org_id == org.id)) == 1


def test_the_same_message_delivered_twice_opens_one_investigation(
    client: TestClient[Litestar], factory: Factory, org: OrgHandle, settings: Settings
) -> None:
    """A message delivered as both ``message`` and ``app_mention`` has two event ids but one
    identity: the agent reuses its investigation."""
    hook = chat_hook(factory, org)
    chat_agent(client, org, "C06NRA6JLER", ["*"])
    first = deliver(client, hook, fixture("message_user.json")).json()
    mention = json.loads(fixture("message_user.json"))
    mention["event_id"] = "Ev0MENTION"
    mention["event"]["type"] = "app_mention"
    second = deliver(client, hook, json.dumps(mention).encode()).json()
    assert second == first  # answered from the first delivery's record: one run, one reply
    assert len(fetch(settings, ChatDelivery, ChatDelivery.org_id == org.id)) == 1


# --- POST /chat/events: chat alert agents -----------------------------------------------------


def test_chat_events_needs_the_org_key(client: TestClient[Litestar]) -> None:
    response = client.post(EVENTS, json={"channel_id": "C1", "text": "x"})
    assert detail(response, 401) == "Missing API key"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([], "The body must be a JSON object"),
        ({"text": "x"}, "channel_id is required"),
        ({"channel_id": "D123", "text": "x"}, "Invalid channel_id: D123"),
        ({"channel_id": "C1", "text": "  "}, "text must be a non-empty string"),
        ({"channel_id": "C1", "text": 5}, "text must be a non-empty string"),
        ({"channel_id": "C1", "text": "x", "ts": 1.5}, "ts must be a string of at most 64"),
    ],
)
def test_chat_events_validation(
    client: TestClient[Litestar], org: OrgHandle, body: Any, message: str
) -> None:
    response = client.post(EVENTS, json=body, headers=org.headers)
    assert detail(response, 400).startswith(message)


def test_chat_agents_on_the_channel_start_investigations(
    client: TestClient[Litestar], factory: Factory, org: OrgHandle, settings: Settings
) -> None:
    matching = chat_agent(client, org, "C0ALERTS", ["*FIRING*"], name="firing")
    chat_agent(client, org, "C0ALERTS", ["*RESOLVED*"], name="resolved")
    chat_agent(client, org, "C0OTHER", ["*FIRING*"], name="elsewhere")
    paused = chat_agent(client, org, "C0ALERTS", ["*"], name="paused")
    client.post(f"{AGENTS}/{paused}/disable", headers=org.headers)
    other = factory.org("other")
    chat_agent(client, other, "C0ALERTS", ["*"], name="theirs")
    text = "[FIRING] payments-api 5xx > 5%\nenv: prod\n" + "x" * 10
    response = event(client, org, channel_id="C0ALERTS", text=text, ts="1714641250.004200")
    assert response.status_code == 202
    body = response.json()
    assert body["replies"] == 0
    [gid] = body["investigation_ids"]
    row = investigation(settings, gid)
    assert row.alert_responder_id == decode_global_id(matching, "AlertResponder")
    assert row.name == "[FIRING] payments-api 5xx > 5%"
    assert json.loads(payload_of(client, org, gid))["text"] == text
    assert row.org_id == org.id
    # The same message again (same ts): the agent reuses its investigation.
    again = event(client, org, channel_id="C0ALERTS", text=text, ts="1714641250.004200")
    assert again.json()["investigation_ids"] == [gid]


def test_long_first_line_is_cut_to_200_characters(
    client: TestClient[Litestar], org: OrgHandle, settings: Settings
) -> None:
    chat_agent(client, org, "C0ALERTS", ["*"])
    body = event(client, org, channel_id="C0ALERTS", text="A" * 300 + "\nmore").json()
    assert investigation(settings, body["investigation_ids"][0]).name == "A" * 200


def test_chat_bot_app_user_id_is_honoured(
    client: TestClient[Litestar], org: OrgHandle, settings: Settings
) -> None:
    chat_agent(client, org, "C0ALERTS", ["*FIRING*"], bot="B0MONITOR")
    text = "[FIRING] checkout latency"
    from_user = event(client, org, channel_id="C0ALERTS", text=text, user_id="U1")
    from_other_bot = event(client, org, channel_id="C0ALERTS", text=text, bot_app_user_id="B0X")
    assert from_user.json()["investigation_ids"] == []
    assert from_other_bot.json()["investigation_ids"] == []
    from_bot = event(client, org, channel_id="C0ALERTS", text=text, bot_app_user_id="B0MONITOR")
    assert len(from_bot.json()["investigation_ids"]) == 1


def test_thread_replies_start_nothing(
    client: TestClient[Litestar], org: OrgHandle, settings: Settings
) -> None:
    chat_agent(client, org, "C0ALERTS", ["*"])
    admin_settings(client, org, {"assignments": [{"type": "watch_chat", "text_match": ["help"]}]})
    reply = event(
        client, org, channel_id="C0ALERTS", text="help", ts="2.000", thread_ts="1.000"
    ).json()
    assert reply == {"investigation_ids": [], "replies": 0}
    broadcast_root = event(
        client, org, channel_id="C0ALERTS", text="help", ts="1.000", thread_ts="1.000"
    ).json()
    assert len(broadcast_root["investigation_ids"]) == 1
    assert broadcast_root["replies"] == 1


# --- chat triggers ----------------------------------------------------------------------------


def admin_settings(client: TestClient[Litestar], org: OrgHandle, document: dict[str, Any]) -> None:
    from sleuth_shell import admin

    async def make_key() -> str:
        engine = create_engine(client.app.state.settings.database_url)
        try:
            async with create_session_factory(engine)() as session:
                return (await admin.create_key(session, org.name, admin=True))[1]
        finally:
            await engine.dispose()

    key = asyncio.run(make_key())
    response = client.put(SETTINGS, json=document, headers={"X-Service-Org-Api-Key": key})
    assert response.status_code == 200, response.text


TRIGGERS = {
    "assignments": [
        {
            "type": "watch_chat",
            "channel": "C0HELP",
            "text_match": ["sleuth"],
            "filtering_instructions": (
                "Only answer questions about deploys. Reply with the static text for access "
                "requests. Ignore greetings."
            ),
            "static_response": "Access requests go through the IT portal: https://it.example/access",
        },
        {"type": "watch_chat", "channel": "C0OPEN", "text_match": ["sleuth"]},
    ],
    "ext_channels": ["C0FEEDBACK", "C0REQUESTS"],
}
TIP = tip_text(["C0FEEDBACK", "C0REQUESTS"])


@pytest.mark.own_app  # drains the database's whole job queue
@pytest.mark.parametrize(
    ("channel", "text", "outcome"),
    [
        ("C0HELP", "sleuth, how do I roll back a deploy?", "AGENT"),
        ("C0HELP", "sleuth can I get access to the prod grafana?", "STATIC"),
        ("C0HELP", "hi sleuth!", "NONE"),
        ("C0OPEN", "sleuth what is the on-call rota?", "AGENT"),  # no instructions: answers
    ],
)
def test_each_trigger_outcome_lands_in_the_outbox_in_the_thread(
    client: TestClient[Litestar],
    org: OrgHandle,
    settings: Settings,
    channel: str,
    text: str,
    outcome: str,
) -> None:
    admin_settings(client, org, TRIGGERS)
    response = event(client, org, channel_id=channel, text=text, ts="1714641250.004200")
    assert response.json() == {"investigation_ids": [], "replies": 1}
    drain(settings)
    [job] = fetch(settings, Job, Job.kind == TRIGGER_KIND)
    assert job.status == "done"
    messages = outbox(client, org, channel)
    usage = sorted((u.feature, u.team_id) for u in fetch(settings, UsageEvent))
    filtered = channel == "C0HELP"
    if outcome == "NONE":
        assert messages == []
        assert usage == [("filter", None)]
        return
    [message] = messages
    assert message["thread_ts"] == "1714641250.004200"
    assert message["text"].endswith("\n\n" + TIP)
    assert "<#C0FEEDBACK>" in message["text"] and "<#C0REQUESTS>" in message["text"]
    if outcome == "STATIC":
        assert message["text"] == TRIGGERS["assignments"][0]["static_response"] + "\n\n" + TIP
        assert usage == [("filter", None)]
    else:
        assert message["text"] != TIP and len(message["text"]) > len(TIP) + 10
        expected = [("chat_trigger", None)] + ([("filter", None)] if filtered else [])
        assert usage == expected


@pytest.mark.own_app  # drains the database's whole job queue
def test_no_tip_without_ext_channels_and_no_trigger_elsewhere(
    client: TestClient[Litestar], org: OrgHandle, settings: Settings
) -> None:
    document = {"assignments": [dict(TRIGGERS["assignments"][0])]}
    document["assignments"][0]["filtering_instructions"] = "STATIC: access"
    admin_settings(client, org, document)
    elsewhere = event(client, org, channel_id="C0OTHER", text="sleuth access please", ts="1.5")
    assert elsewhere.json()["replies"] == 0
    here = event(client, org, channel_id="C0HELP", text="sleuth access please", ts="1.5")
    assert here.json()["replies"] == 1
    drain(settings)
    [message] = outbox(client, org, "C0HELP")
    assert message["text"] == TRIGGERS["assignments"][0]["static_response"]
    assert message["thread_ts"] == "1.5"


@pytest.mark.own_app  # drains the database's whole job queue
def test_platform_delivery_runs_triggers_too(
    client: TestClient[Litestar], factory: Factory, org: OrgHandle, settings: Settings
) -> None:
    hook = chat_hook(factory, org)
    admin_settings(
        client,
        org,
        {
            "assignments": [
                {
                    "type": "watch_chat",
                    "text_match": ["normal text"],
                    "filtering_instructions": "STATIC: normal",
                    "static_response": "Seen.",
                }
            ]
        },
    )
    body = deliver(client, hook, fixture("message_user.json")).json()
    assert body == {"investigation_ids": [], "replies": 1}
    drain(settings)
    [message] = outbox(client, org, "C06NRA6JLER")
    assert (message["text"], message["thread_ts"]) == ("Seen.", "1719209506.817929")


class StandInWebApi:
    """A local stand-in for the chat platform's Web API: records each request, answers ok."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], dict[str, Any]]] = []
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {k.lower(): v for k, v in self.headers.items()}
                stand_in.requests.append((self.path, headers, json.loads(raw)))
                body = json.dumps({"ok": True, "ts": "1714641302.000300"}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/api"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.own_app  # drains the database's whole job queue
def test_with_a_bot_token_the_reply_goes_to_the_web_api_in_the_thread(
    client: TestClient[Litestar], org: OrgHandle, settings: Settings
) -> None:
    """The same trigger reply, posted by ``chat.postMessage`` to the stand-in instead of the
    outbox."""
    admin_settings(client, org, TRIGGERS)
    event(client, org, channel_id="C0HELP", text="sleuth can I get access to grafana?", ts="9.1")
    api = StandInWebApi()
    try:
        drain(
            settings.model_copy(
                update={"chat_bot_token": "xoxb-test-token", "chat_api_url": api.base_url}
            )
        )
    finally:
        api.close()
    [(path, headers, body)] = api.requests
    assert path == "/api/chat.postMessage"
    assert headers["authorization"] == "Bearer xoxb-test-token"
    assert (body["channel"], body["thread_ts"]) == ("C0HELP", "9.1")
    assert body["text"] == TRIGGERS["assignments"][0]["static_response"] + "\n\n" + TIP
    assert outbox(client, org, "C0HELP") == []


def test_nul_characters_and_long_ids_in_a_signed_delivery_are_no_500(
    client: TestClient[Litestar], factory: Factory, org: OrgHandle, settings: Settings
) -> None:
    hook = chat_hook(factory, org)
    chat_agent(client, org, "C06NRA6JLER", ["*"])
    envelope = json.loads(fixture("message_user.json"))
    envelope["event_id"] = "Ev\u0000" + "x" * 300
    envelope["team_id"] = "T" * 300
    envelope["event"]["text"] = "bad\u0000text"
    envelope["event"]["ts"] = "1719209506.8\u00001"
    response = deliver(client, hook, json.dumps(envelope).encode())
    assert response.status_code == 202, response.text
    [row] = fetch(settings, Investigation, Investigation.org_id == org.id)
    assert "\x00" not in row.name and len(row.dedup_key or "") <= 255
