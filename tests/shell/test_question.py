"""Question understanding (`sleuth_shell.question`): windows, services, levels and intent."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sleuth_shell.question import match_service_names, parse_window, understand

NOW = datetime(2026, 3, 16, 9, 0, tzinfo=UTC)  # a Monday


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        (
            "errors on 2026-03-14 between 21:00 and 22:30 UTC",
            "2026-03-14T21:00",
            "2026-03-14T22:30",
        ),
        ("2026-03-14 21:00-22:30 UTC", "2026-03-14T21:00", "2026-03-14T22:30"),
        ("from 2026-03-14T21:00Z to 2026-03-14T22:30Z", "2026-03-14T21:00", "2026-03-14T22:30"),
        ("Mar 14 between 9 and 10pm UTC", "2026-03-14T21:00", "2026-03-14T22:00"),
        ("Mar 13 between 10 and 11am UTC", "2026-03-13T10:00", "2026-03-13T11:00"),
        ("on 14 March from 9pm to 10:30pm", "2026-03-14T21:00", "2026-03-14T22:30"),
        ("Dec 24 between 23:00 and 01:00", "2025-12-24T23:00", "2025-12-25T01:00"),
        ("what happened on 2026-03-14?", "2026-03-14T00:00", "2026-03-15T00:00"),
        ("what happened on Mar 15", "2026-03-15T00:00", "2026-03-16T00:00"),
        ("Mar 15 at 14:10", "2026-03-15T13:40", "2026-03-15T14:40"),
        ("yesterday 14:00", "2026-03-15T13:30", "2026-03-15T14:30"),
        ("yesterday at 2pm", "2026-03-15T13:30", "2026-03-15T14:30"),
        ("on Saturday", "2026-03-14T00:00", "2026-03-15T00:00"),
        ("Saturday night", "2026-03-14T18:00", "2026-03-15T06:00"),
        ("Friday morning", "2026-03-13T06:00", "2026-03-13T12:00"),
        ("Monday", "2026-03-16T00:00", "2026-03-16T09:00"),  # today, up to now
        ("Saturday between 21:00 and 22:00", "2026-03-14T21:00", "2026-03-14T22:00"),
        ("last 90 minutes", "2026-03-16T07:30", "2026-03-16T09:00"),
        ("past 2 hours", "2026-03-16T07:00", "2026-03-16T09:00"),
        ("between 07:00 and 08:00", "2026-03-16T07:00", "2026-03-16T08:00"),
        ("between 9 and 10pm", "2026-03-15T21:00", "2026-03-15T22:00"),  # not in the future
        ("since 08:00", "2026-03-16T08:00", "2026-03-16T09:00"),
        ("yesterday", "2026-03-15T00:00", "2026-03-16T00:00"),
        ("this morning", "2026-03-16T06:00", "2026-03-16T09:00"),
        ("at 2026-03-15T03:15:00Z", "2026-03-15T02:45", "2026-03-15T03:45"),
    ],
)
def test_windows(text: str, start: str, end: str) -> None:
    window = parse_window(text, NOW)
    assert window is not None, text
    assert (window.start, window.end) == (at(start), at(end))


@pytest.mark.parametrize(
    "text",
    [
        "How do I fail over the booking database?",
        "What is the RTO?",
        "retry 3 times, after 5 to 15 minutes",
        "What does RX-512 mean?",
        "How long does a payments-api v2.14.0 rollback take?",
    ],
)
def test_no_window(text: str) -> None:
    assert parse_window(text, NOW) is None


SERVICES = ["booking-svc", "deploy-bot", "ehr-sync", "payments-api", "video-gateway", "web"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("errors in payments-api", ["payments-api"]),
        ("why is payment failing", ["payments-api"]),
        ("video visits dropped", ["video-gateway"]),
        ("bookings are slow", ["booking-svc"]),
        ("since the deploy", []),  # deploy-bot has no alias
        ("the web tier and ehr-sync", ["ehr-sync", "web"]),
        ("the patient portal", []),
    ],
)
def test_services(text: str, expected: list[str]) -> None:
    assert match_service_names(text, SERVICES) == expected


def test_explicit_aliases() -> None:
    aliases = {"scheduling": "booking-svc", "unknown": "nope"}
    assert match_service_names("scheduling is down", SERVICES, aliases) == ["booking-svc"]


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
        ("How many errors did booking-svc log on Friday?", "count", ("ERROR", "CRITICAL")),
        ("Why is checkout failing?", "cause", ("ERROR", "CRITICAL")),
        ("What is the root cause of the checkout outage?", "cause", None),
        ("What caused the video-gateway errors?", "cause", ("ERROR", "CRITICAL")),
    ],
)
def test_intent_and_levels(text: str, intent: str, levels: tuple[str, ...] | None) -> None:
    question = understand(text, NOW, SERVICES)
    assert (question.intent, question.levels) == (intent, levels)


def test_since_the_deploy_is_flagged_for_the_caller() -> None:
    question = understand("errors in payments-api since the deploy?", NOW, SERVICES)
    assert question.since_deploy and question.window is None
    assert question.services == ["payments-api"] and question.intent == "errors"
