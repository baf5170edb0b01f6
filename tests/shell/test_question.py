"""Question understanding (`sleuth_shell.question`): windows, services, levels and intent."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sleuth_shell.question import expand_shorthand, understand

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


@pytest.mark.parametrize(
    ("typed", "written"),
    [
        ("ehr-sync errs yday 02:30-03:00 UTC?", "ehr-sync errors yesterday 02:30-03:00 UTC?"),
        ("why is web failing since ~08:05?", "why is web failing since 08:05?"),
        ("anything since about 08:05", "anything since 08:05"),
        ("whats the restart cmd w/ the flag", "what's the restart command with the flag"),
        ("err count yest b4 noon", "error count yesterday before noon"),
        # Hyphenated names and words that merely contain a shorthand stay as they are.
        ("cmd-runner and the msgs-api errors", "cmd-runner and the msgs-api errors"),
        ("whatsoever yesterday", "whatsoever yesterday"),
    ],
)
def test_shorthand_is_written_out(typed: str, written: str) -> None:
    assert expand_shorthand(typed) == written


def test_shorthand_windows_match_the_written_out_ones() -> None:
    terse = understand(expand_shorthand("ehr-sync errs yday 02:30-03:00 UTC?"), NOW, SERVICES)
    plain = understand("ehr-sync errors yesterday 02:30-03:00 UTC?", NOW, SERVICES)
    assert terse.window == plain.window and terse.window is not None
    assert (terse.window.start.day, terse.window.start.hour) == (15, 2)
    assert terse.intent == "errors" and terse.services == ["ehr-sync"]
    since = understand(expand_shorthand("why is web failing since ~08:05?"), NOW, SERVICES)
    assert since.window is not None and since.window.label == "since"
    assert (since.window.start.hour, since.window.start.minute) == (8, 5)


@pytest.mark.parametrize(
    ("text", "intent", "levels"),
    [
        # "..., why?" at the end asks for the cause as much as "why" first does.
        ("ehr-sync kept erroring overnight 01:00-02:00Z, why?", "cause", ("ERROR", "CRITICAL")),
        # A code a service throws, asked what it means and what to tell someone: the runbook.
        ("ehr-sync throwing RX-204 - what is it and what do we tell the patient", "fact", None),
        ("web throwing errors - who approves a rollback?", "fact", ("ERROR", "CRITICAL")),
        # "how fast does it need to happen" asks for a deadline, not what happened.
        (
            "a record is showing on the web - who approves pulling it and how fast does it need to "
            "happen?",
            "fact",
            None,
        ),
        # A warning asked as a verb is the level asked.
        (
            "booking-svc was warning about something 08:00-08:30Z, what was it?",
            "errors",
            ("WARNING",),
        ),
        # "anything weird" about a named service since the deploy asks the logs.
        ("anything weird on payments-api since the deploy?", "errors", None),
        ("payments-api throwing 503s?", "errors", ("ERROR", "CRITICAL")),
        # Who else is paged and the command for a kind of outage: the runbook.
        (
            "sev-1 payments outage at two sites - who else gets paged and what's the command?",
            "fact",
            None,
        ),
        ("payments fee for a civil complaint?", "fact", None),  # a complaint is no log word
        # What severity a kind of outage is: the runbook's definition, not the logs.
        ("what SEV is a payments-api outage at two sites?", "fact", None),
        # A situation told first, then what a runbook says about it: the catalog; asked about
        # what was logged, or referring back to it, the logs.
        ("payments-api still down at noon - vendor desk number? and pager handle", "fact", None),
        ("payments-api throwing 503s, what are they?", "errors", ("ERROR", "CRITICAL")),
    ],
)
def test_outside_phrasing_of_intent_and_levels(
    text: str, intent: str, levels: tuple[str, ...] | None
) -> None:
    question = understand(text, NOW, SERVICES)
    assert (question.intent, question.levels) == (intent, levels)


def test_a_clock_range_beside_a_part_of_the_day_is_the_window() -> None:
    asked = understand(
        "booking-svc was warning about something this morning 08:00-08:30Z", NOW, SERVICES
    )
    assert asked.window is not None
    assert (asked.window.start.hour, asked.window.end.hour, asked.window.end.minute) == (8, 8, 30)


def test_what_is_the_cause_asks_for_the_cause() -> None:
    asked = understand("web alarming at 08:00, what's the cause?", NOW, SERVICES)
    assert asked.intent == "cause"


@pytest.mark.parametrize(
    "text",
    [
        "payments-api down - which deploy?",
        "payments-api down - who deployed last?",
        "payments-api errors spiking, which service is the culprit?",
    ],
)
def test_a_situation_then_which_change_or_service_asks_the_data(text: str) -> None:
    """Told a situation and asked which change or service is behind it: the logs and changes
    answer, not a runbook (a situation then a runbook's fact goes to the catalog)."""
    assert understand(expand_shorthand(text), NOW, ["payments-api"]).intent == "errors"
    told = "payments still down at the deadline - settlement desk number?"
    assert understand(expand_shorthand(told), NOW, ["payments-api"]).intent == "fact"


def test_white_space_is_tidied_before_a_question_is_read() -> None:
    padded = " " * 10_000 + "what is the orders-api\t\tretry limit?" + "\n" * 50
    assert expand_shorthand(padded) == "what is the orders-api retry limit?"
