"""Signature checks against INTEGRATIONS.md 8.4's vectors (secret ``test-secret``)."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from sleuth_core.intake import (
    REPLAY_WINDOW,
    sign_chat,
    sign_firehydrant,
    sign_generic,
    sign_pagerduty,
    sign_rootly,
    verify_chat,
    verify_firehydrant,
    verify_generic,
    verify_native,
    verify_pagerduty,
    verify_rootly,
)

SECRET = "test-secret"
NOW = 1_700_000_000.0
PD_BODY = b'{"event":{"id":"01EVT","event_type":"incident.triggered"}}'
PD_SIG = "v1=dba6d40c9a4f6d420065d2d2354153c3e5c26664f574f874b02f6939173ff260"
FH_BODY = (
    b'{"data":{"incident":{"id":"inc-1"}},'
    b'"event":{"operation":"CREATED","resource_type":"incident"}}'
)
FH_SIG = "1db76bb13d5c27fd376a963e86643c700ff1af91bc8710408e21cf05f2c1ddbb"
RL_BODY = (
    b'{"event":{"id":"e1","type":"incident.created","issued_at":"2023-11-14T22:13:20Z"},'
    b'"data":{"id":"i1","title":"x"}}'
)
RL_SIG = "t=1700000000,v1=08a02813273c99164150bc6814a9b5023078df82fae43b5b677b0f037473254c"
CHAT_BODY = b'{"type":"event_callback","event_id":"Ev1"}'
CHAT_SIG = "v0=4780f3e9833499c08e8ad77ce04f80ff8dcfbf802cf0b309feb2dae199b6af21"


def test_vectors_sign():
    assert sign_pagerduty(PD_BODY, SECRET) == PD_SIG
    assert sign_firehydrant(FH_BODY, SECRET) == FH_SIG
    assert sign_rootly(RL_BODY, SECRET, 1_700_000_000) == RL_SIG
    assert sign_chat(CHAT_BODY, SECRET, 1_700_000_000) == CHAT_SIG


def test_pagerduty_any_v1_in_the_list_matches():
    assert verify_pagerduty(PD_BODY, PD_SIG, SECRET)
    assert verify_pagerduty(PD_BODY, f"v1=deadbeef, {PD_SIG}", SECRET)  # secret rotation
    assert verify_pagerduty(PD_BODY, PD_SIG.upper().replace("V1=", "v1="), SECRET)
    assert not verify_pagerduty(PD_BODY + b" ", PD_SIG, SECRET)
    assert not verify_pagerduty(PD_BODY, PD_SIG, "other-secret")
    assert not verify_pagerduty(PD_BODY, PD_SIG.replace("v1=", "v2="), SECRET)
    assert not verify_pagerduty(PD_BODY, None, SECRET)
    assert not verify_pagerduty(PD_BODY, "", SECRET)


def test_firehydrant():
    assert verify_firehydrant(FH_BODY, FH_SIG, SECRET)
    assert not verify_firehydrant(FH_BODY, "v1=" + FH_SIG, SECRET)
    assert not verify_firehydrant(FH_BODY.replace(b"inc-1", b"inc-2"), FH_SIG, SECRET)
    assert not verify_firehydrant(FH_BODY, None, SECRET)


@pytest.mark.parametrize("now", [NOW, NOW - REPLAY_WINDOW, NOW + REPLAY_WINDOW])
def test_rootly_inside_the_window(now):
    assert verify_rootly(RL_BODY, RL_SIG, SECRET, now=now)


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "v1=08a02813273c99164150bc6814a9b5023078df82fae43b5b677b0f037473254c",  # no t
        "t=1700000000",  # no v1
        "t=1700000001,v1=08a02813273c99164150bc6814a9b5023078df82fae43b5b677b0f037473254c",
        "t=abc,v1=08a02813273c99164150bc6814a9b5023078df82fae43b5b677b0f037473254c",
        "garbage",
    ],
)
def test_rootly_refuses(header):
    assert not verify_rootly(RL_BODY, header, SECRET, now=NOW)


def test_rootly_outside_the_window():
    assert not verify_rootly(RL_BODY, RL_SIG, SECRET, now=NOW + REPLAY_WINDOW + 1)
    assert not verify_rootly(RL_BODY, RL_SIG, SECRET, now=NOW - REPLAY_WINDOW - 1)


def test_chat():
    assert verify_chat(CHAT_BODY, CHAT_SIG, "1700000000", SECRET, now=NOW + 299)
    assert not verify_chat(CHAT_BODY, CHAT_SIG, "1700000000", SECRET, now=NOW + 301)
    assert not verify_chat(CHAT_BODY, CHAT_SIG, "1700000001", SECRET, now=NOW)
    assert not verify_chat(CHAT_BODY, CHAT_SIG, None, SECRET, now=NOW)
    assert not verify_chat(CHAT_BODY, None, "1700000000", SECRET, now=NOW)
    assert not verify_chat(CHAT_BODY, CHAT_SIG.replace("v0=", "v1="), "1700000000", SECRET, now=NOW)
    assert not verify_chat(CHAT_BODY, CHAT_SIG, "1700000000", "wrong", now=NOW)


def test_generic_signature_or_token():
    header = sign_generic(PD_BODY, SECRET)
    assert header.startswith("v1=") and len(header) == 67
    assert verify_generic(PD_BODY, header, None, SECRET)
    assert not verify_generic(PD_BODY + b"x", header, None, SECRET)
    assert verify_generic(PD_BODY, None, SECRET, SECRET)
    assert not verify_generic(PD_BODY, None, "test-secre", SECRET)
    assert not verify_generic(PD_BODY, None, "", SECRET)
    assert not verify_generic(PD_BODY, None, None, SECRET)
    assert not verify_generic(PD_BODY, "v1=00", None, SECRET)
    assert verify_generic(PD_BODY, "v1=00", SECRET, SECRET)  # a good token still counts
    assert not verify_generic(PD_BODY, None, "sécret", SECRET)  # non-ASCII: no crash


def test_verify_native_reads_each_providers_header_in_any_case():
    assert verify_native("PROVIDER_A", {"X-PagerDuty-Signature": PD_SIG}, PD_BODY, SECRET, now=NOW)
    assert verify_native("PROVIDER_C", {"FH-Signature": FH_SIG}, FH_BODY, SECRET, now=NOW)
    assert verify_native("PROVIDER_D", {"x-rootly-signature": RL_SIG}, RL_BODY, SECRET, now=NOW)
    chat = {"X-Chat-Signature": CHAT_SIG, "X-Chat-Request-Timestamp": "1700000000"}
    assert verify_native("CHAT", chat, CHAT_BODY, SECRET, now=NOW)
    assert not verify_native("PROVIDER_A", {}, PD_BODY, SECRET, now=NOW)
    assert not verify_native("PROVIDER_A", {"fh-signature": FH_SIG}, FH_BODY, SECRET, now=NOW)
    assert not verify_native(
        "PROVIDER_B", {"X-PagerDuty-Signature": PD_SIG}, PD_BODY, SECRET, now=NOW
    )


def test_grafana_hmac_with_and_without_a_timestamp():
    from sleuth_core.intake import sign_grafana, verify_grafana

    body = b'{"alerts": []}'
    plain = sign_grafana(body, "test-secret")
    assert plain == hmac.new(b"test-secret", body, hashlib.sha256).hexdigest()
    assert verify_grafana(body, plain, None, "test-secret", now=1700000000)
    assert not verify_grafana(body, plain, None, "other", now=1700000000)
    stamped = sign_grafana(body, "test-secret", 1700000000)
    expected = hmac.new(b"test-secret", b"1700000000:" + body, hashlib.sha256).hexdigest()
    assert stamped == expected
    assert verify_grafana(body, stamped, "1700000000", "test-secret", now=1700000100)
    assert not verify_grafana(body, stamped, "1700000000", "test-secret", now=1700000400)
    assert not verify_grafana(body, plain, "1700000000", "test-secret", now=1700000000)
    for name in ("X-Grafana-Alerting-Signature", "X-Grafana-Alert-Signature"):
        assert verify_native("GRAFANA", {name: plain}, body, "test-secret", now=0)


def test_bearer_credentials():
    from sleuth_core.intake import bearer_token

    assert bearer_token("Bearer abc") == "abc"
    assert bearer_token("BEARER abc ") == "abc"
    assert bearer_token("Basic abc") is None and bearer_token("Bearer ") is None
    assert bearer_token(None) is None
    assert verify_generic(b"{}", None, None, "s", bearer="s")
    assert not verify_generic(b"{}", None, None, "s", bearer="t")
    assert not verify_generic(b"{}", None, "t", "s", bearer="s2")
