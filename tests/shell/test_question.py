"""Question understanding (`sleuth_shell.question`): windows, services, levels and intent."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sleuth_shell.question import understand

NOW = datetime(2026, 3, 16, 9, 0, tzinfo=UTC)  # a Monday


SERVICES = ["booking-svc", "deploy-bot", "ehr-sync", "payments-api", "video-gateway", "web"]


@pytest.mark.parametrize(
    ("text", "intent", "levels"),
    [
        ("What is the RTO for the booking database?", "fact", None),
        ("Which port do the TURN servers listen on?", "fact", None),
        ("How do I fail over the booking database?", "how-to", None),
        ("Which command restores booking-db?", "how-to", None),
        ("What errors did ehr-sync log yesterday?", "errors", ("ERROR", "CRITICAL")),
        ("What warnings did booking-svc log on Saturday?", "errors", ("WARNING",)),
        ("Any critical lines from payments-api today?", "errors", ("CRITICAL",)),
        ("The critical alert on payments-api: what broke?", "cause", None),
        ("warning alert fired for booking-svc, what is happening?", "errors", None),
        ("How many errors did booking-svc log on Friday?", "count", ("ERROR", "CRITICAL")),
        ("Why is checkout failing?", "cause", ("ERROR", "CRITICAL")),
        ("What is the root cause of the checkout outage?", "cause", None),
        ("What caused the video-gateway errors?", "cause", ("ERROR", "CRITICAL")),
        ("What is the booking-svc RTO, and what do we restart after failing over?", "fact", None),
        ("Is booking-svc failing over and over?", "errors", ("ERROR", "CRITICAL")),
    ],
)
def test_intent_and_levels(text: str, intent: str, levels: tuple[str, ...] | None) -> None:
    question = understand(text, NOW, SERVICES)
    assert (question.intent, question.levels) == (intent, levels)


def test_since_the_deploy_is_flagged_for_the_caller() -> None:
    question = understand("errors in payments-api since the deploy?", NOW, SERVICES)
    assert question.since_deploy and question.window is None
    assert question.services == ["payments-api"] and question.intent == "errors"
