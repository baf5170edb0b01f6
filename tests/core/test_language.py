"""`sleuth_core.language`: stems, tokens, time expressions and service names as case tables."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sleuth_core.language import (
    format_ts,
    match_services,
    parse_instant,
    parse_timestamp,
    parse_window,
    stated_onset,
    stem,
    terms,
)

NOW = datetime(2026, 3, 16, 9, 0, tzinfo=UTC)  # a Monday
NOON = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("connections", "connect"),
        ("connection", "connect"),
        ("connect", "connect"),
        ("exhausted", "exhaust"),
        ("errors", "error"),
        ("failing", "fail"),
        ("failed", "fail"),
        ("status", "status"),
        ("process", "process"),
        ("pool", "pool"),
        ("uses", "uses"),
    ],
)
def test_stem(word: str, expected: str) -> None:
    assert stem(word) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("How do I roll back the payments-api?", ["roll", "back", "payments-api", "payments"]),
        ("What is the RTO for booking-db", ["rto", "booking-db", "booking", "db"]),
        ("retry 3 times", ["retry", "times"]),
        ("", []),
    ],
)
def test_terms(text: str, expected: list[str]) -> None:
    assert terms(text) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-11-22T09:41:07Z", "2026-11-22T09:41:07Z"),
        ("2026-11-22T10:41:07+01:00", "2026-11-22T09:41:07Z"),
        ("2026-11-22 09:41 UTC", "2026-11-22T09:41:00Z"),
        ("1795340467", "2026-11-22T09:41:07Z"),
        ("1795340467000", "2026-11-22T09:41:07Z"),
        ("not a time", None),
    ],
)
def test_parse_timestamp(value: str, expected: str | None) -> None:
    parsed = parse_timestamp(value)
    assert (format_ts(parsed) if parsed else None) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0, "1970-01-01T00:00:00Z"), (True, None), ("10000-01-01T00:00:00Z", None), (None, None)],
)
def test_parse_instant(value: object, expected: str | None) -> None:
    parsed = parse_instant(value)
    assert (format_ts(parsed) if parsed else None) == expected


@pytest.mark.parametrize(
    ("text", "start", "end", "label"),
    [
        # An explicit instant beats a relative phrase anywhere in the question.
        (
            "errors in the last 5 minutes? it began at 2026-11-22T09:30:00Z",
            "2026-11-22T09:00",
            "2026-11-22T10:00",
            "at",
        ),
        (
            "earlier today, around 2026-11-22T08:00:00Z, what failed?",
            "2026-11-22T07:30",
            "2026-11-22T08:30",
            "at",
        ),
        # An alert that fired at a time: the hour up to that instant, not past it.
        ("the alert fired at 12:30, why?", "2026-11-21T11:30", "2026-11-21T12:30", "fired"),
        ("paged at 2026-11-22T09:30Z", "2026-11-22T08:30", "2026-11-22T09:30", "fired"),
        ("fired at 11:00 in the last hour", "2026-11-22T10:00", "2026-11-22T11:00", "fired"),
        (
            "errors yesterday between 02:00 and 03:00 UTC",
            "2026-11-21T02:00",
            "2026-11-21T03:00",
            "between",
        ),
    ],
)
def test_explicit_times_first(text: str, start: str, end: str, label: str) -> None:
    window = parse_window(text, NOON)
    assert window is not None, text
    assert (window.start, window.end, window.label) == (at(start), at(end), label)


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
def test_no_window_in_questions(text: str) -> None:
    assert parse_window(text, NOW) is None


@pytest.mark.parametrize(
    ("text", "onset"),
    [
        ("why is orders-api failing captures since ~15:05 today?", "2026-03-15T15:05"),
        ("errors started around 08:10", "2026-03-16T08:10"),
        ("5xx since about 07:30Z", "2026-03-16T07:30"),
        ("checkout began failing at 2026-03-14T22:40Z", "2026-03-14T22:40"),
        ("why is it failing since yesterday?", None),
        ("what changed in the last hour?", None),
        ("it fired at 08:30", None),
        ("why is it failing since 2026-03-15?", None),  # a date alone: no time of day
        ("errors since 0001-01-01T00:05Z", None),  # before any instant an alert can mean
    ],
)
def test_stated_onset(text: str, onset: str | None) -> None:
    found = stated_onset(text, NOW)
    assert found == (at(onset) if onset else None), text


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
    assert match_services(text, SERVICES) == expected


def test_explicit_aliases() -> None:
    aliases = {"scheduling": "booking-svc", "unknown": "nope"}
    assert match_services("scheduling is down", SERVICES, aliases) == ["booking-svc"]


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
def test_parse_window(text: str, start: str, end: str) -> None:
    window = parse_window(text, NOON)
    assert window is not None
    assert (window.start, window.end) == (at(start), at(end))


@pytest.mark.parametrize("text", ["how do I roll back a deploy?", "", "payments 503"])
def test_no_plain_window(text: str) -> None:
    assert parse_window(text, NOON) is None


TEXT_SERVICES = ["auth-api", "checkout-api", "deploy-bot", "orders-worker", "payments-api", "web"]


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
def test_services_with_generic_suffixes(text: str, expected: list[str]) -> None:
    assert match_services(text, TEXT_SERVICES) == expected


def test_a_clock_range_written_in_full_wins_over_the_part_of_the_day() -> None:
    now = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
    for text, start, end in (
        ("this morning 08:00-08:30Z", "2026-11-22T08:00", "2026-11-22T08:30"),
        ("overnight 01:00-02:00Z, why?", "2026-11-22T01:00", "2026-11-22T02:00"),
        ("errors 13:00-14:00 UTC", "2026-11-21T13:00", "2026-11-21T14:00"),  # latest past day
    ):
        window = parse_window(text, now)
        assert window is not None, text
        assert (format_ts(window.start)[:16], format_ts(window.end)[:16]) == (start, end)


def test_a_span_after_or_before_the_one_instant_named() -> None:
    now = datetime(2026, 9, 16, 12, 0, tzinfo=UTC)
    after = parse_window(
        "went off at 2026-09-15T22:00Z - what did it log in the 40 min after that?", now
    )
    assert after is not None
    assert (format_ts(after.start), format_ts(after.end)) == (
        "2026-09-15T22:00:00Z",
        "2026-09-15T22:40:00Z",
    )
    before = parse_window("paged at 10:30 - what was it logging in the 10 min before?", now)
    assert before is not None
    assert (format_ts(before.start), format_ts(before.end)) == (
        "2026-09-16T10:20:00Z",
        "2026-09-16T10:30:00Z",
    )
