"""Advanced-settings validation and chat triggers (SPEC "Advanced settings", DESIGN section 5)."""

import pytest

from sleuth_core.errors import CoreError, InvalidSettings
from sleuth_core.settings import triggered_assignments, validate_advanced_settings

VALID = {
    "assignments": [
        {
            "type": "watch_chat",
            "_comment": "deploy failures in #ops",
            "channel": "C0OPS",
            "text_match": ["deploy", "failed"],
            "filtering_instructions": "only real failures",
            "static_response": "Check the deploy dashboard.",
            "priority": 3,
        },
        {"type": "watch_chat", "channel": "", "text_match": ["help"]},
        {"type": "watch_chat", "text_match": ["Help", "DB"]},
    ],
    "ext_channels": ["C0FEEDBACK", "G0PRIVATE"],
    "future_member": {"nested": [1, 2]},
}


def test_valid_document_is_returned_as_an_independent_copy():
    result = validate_advanced_settings(VALID)
    assert result == VALID
    result["assignments"][0]["text_match"].append("x")
    result["future_member"]["nested"].append(3)
    assert VALID["assignments"][0]["text_match"] == ["deploy", "failed"]
    assert VALID["future_member"] == {"nested": [1, 2]}


@pytest.mark.parametrize(
    "doc", [{}, {"assignments": []}, {"assignments": None, "ext_channels": None}]
)
def test_minimal_documents(doc):
    assert validate_advanced_settings(doc) == doc


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([], "The advanced settings must be a JSON object"),
        ("x", "The advanced settings must be a JSON object"),
        ({"assignments": {}}, "assignments must be a list"),
        ({"assignments": ["x"]}, "assignments[0] must be an object"),
        ({"assignments": [{"text_match": ["a"]}]}, 'assignments[0].type must be "watch_chat"'),
        (
            {"assignments": [{"type": "watch_email", "text_match": ["a"]}]},
            'assignments[0].type must be "watch_chat"',
        ),
        (
            {"assignments": [{"type": "watch_chat", "text_match": []}]},
            "assignments[0].text_match must be a non-empty list of strings",
        ),
        (
            {"assignments": [{"type": "watch_chat"}]},
            "assignments[0].text_match must be a non-empty list of strings",
        ),
        (
            {"assignments": [{"type": "watch_chat", "text_match": "deploy"}]},
            "assignments[0].text_match must be a non-empty list of strings",
        ),
        (
            {"assignments": [{"type": "watch_chat", "text_match": ["a", 1]}]},
            "assignments[0].text_match must be a non-empty list of strings",
        ),
        (
            {
                "assignments": [
                    {"type": "watch_chat", "text_match": ["a"]},
                    {"type": "watch_chat", "text_match": ["a", " "]},
                ]
            },
            "assignments[1].text_match[1] must not be blank",
        ),
        (
            {"assignments": [{"type": "watch_chat", "text_match": ["a"], "channel": "D123"}]},
            "assignments[0].channel must be a channel ID starting with C or G",
        ),
        (
            {"assignments": [{"type": "watch_chat", "text_match": ["a"], "channel": 5}]},
            "assignments[0].channel must be a channel ID starting with C or G",
        ),
        (
            {"assignments": [{"type": "watch_chat", "text_match": ["a"], "static_response": 1}]},
            "assignments[0].static_response must be a string",
        ),
        (
            {"assignments": [{"type": "watch_chat", "text_match": ["a"], "_comment": []}]},
            "assignments[0]._comment must be a string",
        ),
        (
            {
                "assignments": [
                    {"type": "watch_chat", "text_match": ["a"], "filtering_instructions": {}}
                ]
            },
            "assignments[0].filtering_instructions must be a string",
        ),
        ({"ext_channels": "C1"}, "ext_channels must be a list"),
        (
            {"ext_channels": ["C1", "X1"]},
            "ext_channels[1] must be a channel ID starting with C or G",
        ),
        ({"ext_channels": ["C"]}, "ext_channels[0] must be a channel ID starting with C or G"),
        ({"ext_channels": [None]}, "ext_channels[0] must be a channel ID starting with C or G"),
    ],
)
def test_invalid_documents_name_the_path(doc, message):
    with pytest.raises(InvalidSettings) as info:
        validate_advanced_settings(doc)
    assert str(info.value) == message
    assert isinstance(info.value, CoreError)


def _comments(fired):
    return [a.get("_comment", a["text_match"]) for a in fired]


def test_triggers_channel_and_all_strings_case_insensitive():
    doc = validate_advanced_settings(VALID)
    assert _comments(triggered_assignments(doc, "C0OPS", "The DEPLOY has Failed")) == [
        "deploy failures in #ops"
    ]
    # same text elsewhere: the channel-bound one does not fire
    assert triggered_assignments(doc, "C0OTHER", "The DEPLOY has Failed") == []
    # every string must be present
    assert triggered_assignments(doc, "C0OPS", "deploy done") == []
    # document order, any-channel assignments fire everywhere
    fired = triggered_assignments(doc, "C0OPS", "help: db deploy failed")
    assert _comments(fired) == ["deploy failures in #ops", ["help"], ["Help", "DB"]]
    assert fired[0]["static_response"] == "Check the deploy dashboard."
    assert fired[0]["priority"] == 3


def test_triggers_return_copies_and_tolerate_junk():
    doc = validate_advanced_settings(VALID)
    fired = triggered_assignments(doc, "C1", "help")
    fired[0]["text_match"].append("zzz")
    assert doc["assignments"][1]["text_match"] == ["help"]
    assert triggered_assignments({}, "C1", "help") == []
    junk = {"assignments": ["x", {"type": "watch_chat"}, {"type": "other", "text_match": ["a"]}]}
    assert triggered_assignments(junk, "C1", "a") == []
    assert triggered_assignments({"assignments": None}, "C1", "a") == []


def test_case_folding_beyond_ascii():
    doc = {"assignments": [{"type": "watch_chat", "text_match": ["straße"]}]}
    assert len(triggered_assignments(doc, "C1", "STRASSE blocked")) == 1
