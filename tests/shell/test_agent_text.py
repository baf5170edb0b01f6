"""Reading questions and alerts: time windows, services, passages (pure functions)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from sleuth_shell.text import (
    best_passage,
    extract_alert,
    format_ts,
    infer_window,
    match_services,
    split_passages,
    terms,
)

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("errors in the last hour", "2026-11-22T11:00", "2026-11-22T12:00"),
        ("past 30 minutes", "2026-11-22T11:30", "2026-11-22T12:00"),
        ("last 2h", "2026-11-22T10:00", "2026-11-22T12:00"),
        ("the last half hour", "2026-11-22T11:30", "2026-11-22T12:00"),
        ("last day", "2026-11-21T12:00", "2026-11-22T12:00"),
        ("since 09:00", "2026-11-22T09:00", "2026-11-22T12:00"),
        ("since 13:00", "2026-11-21T13:00", "2026-11-22T12:00"),  # no future clock times
        ("since yesterday", "2026-11-21T00:00", "2026-11-22T12:00"),
        ("since 2026-11-22T08:15:00Z", "2026-11-22T08:15", "2026-11-22T12:00"),
        ("between 09:00 and 10:30", "2026-11-22T09:00", "2026-11-22T10:30"),
        ("from 2026-11-20 08:00 to 2026-11-20 09:00", "2026-11-20T08:00", "2026-11-20T09:00"),
        ("yesterday", "2026-11-21T00:00", "2026-11-22T00:00"),
        ("today", "2026-11-22T00:00", "2026-11-22T12:00"),
        ("what happened at 10:15?", "2026-11-22T09:45", "2026-11-22T10:45"),
        ("alert at 2026-11-22T09:41:00+01:00", "2026-11-22T08:11", "2026-11-22T09:11"),
    ],
)
def test_infer_window(text: str, start: str, end: str) -> None:
    window = infer_window(text, NOW)
    assert window is not None
    assert (window.start, window.end) == (at(start), at(end))


@pytest.mark.parametrize("text", ["how do I roll back a deploy?", "", "payments 503"])
def test_no_window(text: str) -> None:
    assert infer_window(text, NOW) is None


SERVICES = ["auth-api", "checkout-api", "deploy-bot", "orders-worker", "payments-api", "web"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Why is payment failing?", ["payments-api"]),
        ("payments-api and checkout errors", ["checkout-api", "payments-api"]),
        ("Orders are stuck", ["orders-worker"]),
        ("report errors and deploys", []),  # deploy-bot has no generic suffix
        ("the web tier", ["web"]),
        ("webhooks", []),
        ("AUTH-API down", ["auth-api"]),
    ],
)
def test_match_services(text: str, expected: list[str]) -> None:
    assert match_services(text, SERVICES) == expected


def test_terms_drop_stopwords_and_keep_names() -> None:
    assert terms("How do I roll back the payments-api deploy in the last 2 hours?") == [
        "roll",
        "back",
        "payments-api",
        "payments",
        "deploy",
    ]


RUNBOOK = """# Deploys

Owner: platform.

## Rolling back
1. Run `deployctl rollback <service>`.
2. Watch the error rate.

## Database migrations
Migrations must be backwards compatible.
"""


def test_best_passage_picks_the_matching_section() -> None:
    heading, text = best_passage(RUNBOOK, terms("how do I roll back with deployctl"))
    assert heading == "Rolling back"
    assert "deployctl rollback" in text


def test_best_passage_prefers_action_sections_on_ties() -> None:
    doc = "# T\n\n## Symptoms\nCheckout fails.\n\n## Mitigation\nCheckout fails: roll back.\n"
    assert best_passage(doc, ["checkout"], prefer=["mitigation"])[0] == "Mitigation"
    assert best_passage(doc, ["checkout"])[0] == "Symptoms"


def test_extract_alert_from_json() -> None:
    payload = json.dumps(
        {
            "alerts": [
                {
                    "labels": {"alertname": "HighErrorRate", "service": "checkout-api"},
                    "annotations": {"summary": "5xx above 2%"},
                    "startsAt": "2026-11-22T09:50:00Z",
                    "severity": "critical",
                }
            ]
        }
    )
    alert = extract_alert(payload)
    assert alert["title"] == "HighErrorRate"
    assert alert["service"] == "checkout-api"
    assert alert["severity"] == "critical"
    assert alert["time"] == at("2026-11-22T09:50:00")
    assert "5xx above 2%" in alert["text"]


def test_extract_alert_from_text_finds_a_timestamp() -> None:
    alert = extract_alert("Disk full on db-1 since 2026-11-22 07:00 UTC")
    assert alert["title"] is None
    assert alert["time"] == at("2026-11-22T07:00")


def test_format_ts() -> None:
    assert format_ts(NOW + timedelta(microseconds=5)) == "2026-11-22T12:00:00Z"


def test_memoised_tokenising_hands_out_fresh_lists() -> None:
    """`terms` and `split_passages` are memoised on their text; a caller changing what it got
    must not change what the next caller gets."""
    first = terms("payments-api leaks connections")
    first.append("mutated")
    assert terms("payments-api leaks connections") == [
        "payments-api",
        "payments",
        "leaks",
        "connections",
    ]
    blocks = split_passages("# T\n\nOne block.\n\nTwo block.")
    blocks.clear()
    assert [p.text for p in split_passages("# T\n\nOne block.\n\nTwo block.")] == [
        "One block.",
        "Two block.",
    ]
