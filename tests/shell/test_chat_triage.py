"""The embedded filter agent's classifier: a table of plain instructions x messages."""

from __future__ import annotations

import asyncio

import pytest

from sleuth_shell.agents.retrieval import RetrievalAgent
from sleuth_shell.agents.triage import Rule, classify_message, parse_rules

DEPLOYS = "Only answer questions about deploys."
ACCESS = "Reply with the static text for access requests."
GREETINGS = "Ignore greetings."
ALL_THREE = (
    "Answer questions about deploys; reply with the static text for access requests. "
    "Ignore greetings and thanks."
)

MESSAGES = {
    "deploy_question": "How do I roll back a deploy?",
    "deployment_question": "is the deployment of payments-api done?",
    "deploy_statement": "deploy of payments-api finished",
    "access": "can I get access to the prod grafana?",
    "greeting": "hi team!",
    "good_morning": "Good morning everyone",
    "thanks": "thanks a lot sleuth",
    "outage": "checkout is failing, can someone look?",
    "lunch": "lunch anyone?",
    "greeting_with_question": "hi, why is checkout slow?",
}

# (instructions, message key) -> decision
TABLE = {
    DEPLOYS: {
        "deploy_question": "AGENT",
        "deployment_question": "AGENT",
        "deploy_statement": "NONE",  # about deploys, but asks nothing
        "access": "NONE",
        "greeting": "NONE",
        "outage": "NONE",
        "lunch": "NONE",
    },
    ACCESS: {
        "access": "STATIC",
        "deploy_question": "NONE",
        "greeting": "NONE",
        "outage": "NONE",
    },
    GREETINGS: {
        "greeting": "NONE",
        "good_morning": "NONE",
        "thanks": "AGENT",  # a thank-you is not a greeting
        "greeting_with_question": "AGENT",  # a greeting that asks something is a question
        "outage": "AGENT",
        "lunch": "AGENT",  # the instructions only say what to ignore
    },
    ALL_THREE: {
        "deploy_question": "AGENT",
        "access": "STATIC",
        "greeting": "NONE",
        "thanks": "NONE",
        "outage": "NONE",
        "deploy_statement": "NONE",
    },
    "": {  # no instructions: answer what asks for something
        "outage": "AGENT",
        "deploy_question": "AGENT",
        "deploy_statement": "NONE",
        "greeting": "NONE",
    },
    "Always answer.": {"greeting": "AGENT", "deploy_statement": "AGENT"},
    "Never respond.": {"outage": "NONE", "deploy_question": "NONE"},
    "Answer questions about checkout, but don't answer questions about payments.": {
        "outage": "AGENT",
        "deployment_question": "NONE",  # names payments-api: the prohibition wins
    },
    'STATIC: access, "get access"\nAGENT: deploy': {
        "access": "STATIC",
        "deploy_question": "AGENT",
        "outage": "NONE",
    },
}

CASES = [
    (instructions, key, expected)
    for instructions, row in TABLE.items()
    for key, expected in row.items()
]


@pytest.mark.parametrize(("instructions", "key", "expected"), CASES)
def test_instructions_by_messages(instructions: str, key: str, expected: str) -> None:
    assert classify_message(MESSAGES[key], instructions) == expected


def test_blank_message_is_none_whatever_the_instructions() -> None:
    assert classify_message("   ", "Always answer.") == "NONE"


def test_rules_are_read_in_order_with_their_action_topic_and_classes() -> None:
    rules = parse_rules(ALL_THREE)
    assert [r.action for r in rules] == ["AGENT", "STATIC", "NONE"]
    assert rules[0] == Rule("AGENT", topic=frozenset({"deploys"}), questions=True)
    assert rules[1].topic == frozenset({"access"})
    assert rules[2].kinds == frozenset({"greeting", "thanks"})


def test_mentions_are_not_words() -> None:
    assert classify_message("<@U0LAN0Z89> hello", GREETINGS) == "NONE"
    assert classify_message("<@U0LAN0Z89> how do deploys work?", DEPLOYS) == "AGENT"


def test_the_retrieval_agent_uses_the_rules_and_charges_the_classification() -> None:
    agent = RetrievalAgent()
    result = asyncio.run(agent.classify(None, MESSAGES["access"], ACCESS))  # type: ignore[arg-type]
    assert (result.decision, result.credits) == ("STATIC", pytest.approx(0.1))
