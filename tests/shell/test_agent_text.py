"""Reading questions and alerts: time windows, services, passages (pure functions)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from sleuth_core.language import format_ts, terms
from sleuth_shell.text import best_passage, extract_alert, split_passages

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


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


def test_extract_alert_reads_a_service_label_spelled_with_dots() -> None:
    # OpenTelemetry's resource key: not a "name" (a title) but the service.
    payload = json.dumps(
        {"groupLabels": {"alertname": "HighErrorRate"}, "labels": {"service.name": "checkout-api"}}
    )
    alert = extract_alert(payload)
    assert (alert["title"], alert["service"]) == ("HighErrorRate", "checkout-api")
    k8s = extract_alert(json.dumps({"title": "x", "labels": {"app.kubernetes.io/name": "cart"}}))
    assert k8s["service"] == "cart"


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


def test_passages_come_from_markdown_blocks() -> None:
    """Setext headings, ``~~~`` fences and indented code are blocks of their own (markdown-it)."""
    doc = (
        "Failover\n========\n\nRun the script.\n\n~~~sh\ndbctl failover --to replica\n~~~\n\n"
        "Limits\n------\n\n    max_lag_seconds = 30\n\n"
        "| key | value |\n|---|---|\n| RTO | 15 min |\n"
    )
    blocks = split_passages(doc)
    assert [(p.heading, p.kind) for p in blocks] == [
        ("Failover", "paragraph"),
        ("Failover", "code"),
        ("Limits", "code"),
        ("Limits", "table"),
    ]
    assert blocks[1].code == "dbctl failover --to replica"
    assert blocks[2].code == "max_lag_seconds = 30"
    assert best_passage(doc, ["rto"])[0] == "Limits"
