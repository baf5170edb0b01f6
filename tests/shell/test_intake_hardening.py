"""Intake hardening: chat deliveries and signed-in pages count against their organization's
plan (not their client address), and failed webhook authentication is throttled per address
before the body is read, while valid deliveries never count against it."""

from __future__ import annotations

import json

from test_chat_intake import FIXTURES as CHAT_FIXTURES
from test_web import sign_in
from test_webhook_intake import TRIGGERED, signed, url

from sleuth_core.intake import sign_chat


def test_signed_in_pages_count_against_the_organizations_plan(client, factory) -> None:
    team = factory.org("big-team", plan="team")  # 600 a window; an address alone gets 60
    sign_in(client, team.key)
    codes = [client.get("/alerts").status_code for _ in range(70)]
    assert set(codes) == {200}
    # A request that is neither signed in nor carries a key still counts per address.
    client.cookies.clear()
    anonymous = [client.get("/alerts", follow_redirects=False).status_code for _ in range(70)]
    assert 429 in anonymous and anonymous[0] == 303


def test_chat_deliveries_count_against_the_organizations_plan(client, factory) -> None:
    import time

    team = factory.org("chatty", plan="team")
    hook = factory.webhook(team, "CHAT", "workspace")
    original = json.loads((CHAT_FIXTURES / "message_user.json").read_bytes())
    codes = []
    for n in range(70):
        payload = dict(original, event_id=f"Ev{n:04d}")
        payload["event"] = dict(original["event"], ts=f"1719209506.{n:06d}")
        body = json.dumps(payload).encode()
        stamp = int(time.time())
        response = client.post(
            f"/api/v1/webhooks/CHAT/{hook.remote_id}",
            content=body,
            headers={
                "Content-Type": "application/json",
                "X-Chat-Request-Timestamp": str(stamp),
                "X-Chat-Signature": sign_chat(body, hook.secret, stamp),
            },
        )
        codes.append(response.status_code)
    assert set(codes) == {202}, codes


def test_failed_authentication_is_throttled_per_address_and_valid_deliveries_never_count(
    client, factory
) -> None:
    org = factory.org("busy", plan="team")
    hook = factory.webhook(org, "PROVIDER_A", "pager")
    for n in range(70):  # valid deliveries never count against the address
        body = TRIGGERED.replace(b"01BZYIL05THJDFF2Y08X9SVMTU", f"valid-{n:04d}".encode())
        assert client.post(url(hook), content=body, headers=signed(hook, body)).status_code == 202
    forged = {"X-Service-Webhook-Signature": "v1=" + "0" * 64}
    codes = [
        client.post(url(hook), content=TRIGGERED, headers=forged).status_code for _ in range(62)
    ]
    assert codes[:60] == [401] * 60  # the free plan's limit of failures in a window
    refused = client.post(url(hook), content=TRIGGERED, headers=forged)
    assert refused.status_code == 429
    assert refused.json() == {"detail": "Too many failed authentications"}
    assert int(refused.headers["Retry-After"]) >= 1
    # the chat intake shares the address's budget of failures
    chat = factory.webhook(org, "CHAT", "workspace")
    response = client.post(f"/api/v1/webhooks/CHAT/{chat.remote_id}", content=b"{}")
    assert response.status_code == 429
