import pytest

from sleuth_core.errors import InvalidCriteria
from sleuth_core.matching import normalize_criteria


def AND(*conditions):
    return {"operator": "AND", "conditions": list(conditions)}


def OR(*conditions):
    return {"operator": "OR", "conditions": list(conditions)}


def leaf(kind, value):
    return {"type": kind, "value": value}


def test_text_matches_alone_derives_rules_and_keeps_patterns():
    assert normalize_criteria({"text_matches": ["error", "db-*"]}) == {
        "text_matches": ["error", "db-*"],
        "match_rules": AND(leaf("contains", "error"), leaf("starts_with", "db-")),
    }


def test_match_rules_alone_regenerates_text_matches():
    rules = AND(leaf("contains", "error"), leaf("regex", "^A.*B$"))
    assert normalize_criteria({"match_rules": rules}) == {
        "text_matches": ["*error*", "A*B"],
        "match_rules": rules,
    }


def test_match_rules_win_over_text_matches():
    rules = OR(leaf("contains", "a"), leaf("contains", "b"))
    result = normalize_criteria({"text_matches": ["zzz"], "match_rules": rules})
    assert result == {"text_matches": [], "match_rules": rules}


def test_null_members_count_as_absent():
    result = normalize_criteria(
        {
            "text_matches": None,
            "match_rules": AND(leaf("ends_with", "x")),
            "chat_bot_app_user_id": None,
        }
    )
    assert result == {"text_matches": ["*x"], "match_rules": AND(leaf("ends_with", "x"))}


def test_chat_bot_app_user_id_is_passed_through():
    result = normalize_criteria({"text_matches": ["*"], "chat_bot_app_user_id": "U123BOT"})
    assert result["chat_bot_app_user_id"] == "U123BOT"
    assert result["match_rules"] == AND(leaf("contains", ""))


def test_returned_rules_are_a_canonical_copy():
    rules = {"conditions": [{"value": "x", "type": "contains"}], "operator": "AND"}
    result = normalize_criteria({"match_rules": rules})
    assert result["match_rules"] is not rules
    assert list(result["match_rules"]) == ["operator", "conditions"]
    assert list(result["match_rules"]["conditions"][0]) == ["type", "value"]


def test_depth_two_is_allowed():
    rules = AND(leaf("contains", "a"), OR(leaf("contains", "b"), leaf("regex", "c+")))
    assert normalize_criteria({"match_rules": rules})["match_rules"] == rules


@pytest.mark.parametrize(
    ("criteria", "message"),
    [
        ("error", "matching_criteria must be an object"),
        ({}, "matching_criteria needs text_matches or match_rules"),
        ({"text_matches": []}, "text_matches must not be empty when match_rules is not given"),
        ({"text_matches": "error"}, "text_matches must be an array of strings"),
        ({"text_matches": ["a", 1]}, "text_matches must be an array of strings"),
        ({"text_matches": [""]}, "text_matches[0] is empty; use '*' to match every alert"),
        ({"text_matches": ["x" * 1001]}, "text_matches[0] has 1001 characters besides '*'"),
        ({"text_matches": ["a"], "extra": 1}, "matching_criteria has unknown member 'extra'"),
        ({"match_rules": []}, "match_rules must be an object with operator and conditions"),
        ({"match_rules": {}}, "match_rules must have both operator and conditions"),
        (
            {"match_rules": leaf("contains", "x")},
            "match_rules must be a node {operator, conditions}, not a single leaf condition",
        ),
        (
            {"match_rules": {"operator": "XOR", "conditions": [leaf("contains", "x")]}},
            "match_rules: unknown operator 'XOR'; use AND or OR",
        ),
        (
            {"match_rules": {"operator": "and", "conditions": [leaf("contains", "x")]}},
            "match_rules: unknown operator 'and'; use AND or OR",
        ),
        (
            {"match_rules": {"operator": 1, "conditions": [leaf("contains", "x")]}},
            "match_rules: unknown operator int; use AND or OR",
        ),
        ({"match_rules": AND()}, "match_rules.conditions must not be empty"),
        ({"match_rules": AND(OR())}, "match_rules.conditions[0].conditions must not be empty"),
        (
            {"match_rules": {"operator": "AND", "conditions": "x"}},
            "match_rules.conditions must be an array",
        ),
        (
            {"match_rules": AND(OR(AND(leaf("contains", "x"))))},
            "match_rules.conditions[0].conditions[0]: match_rules nesting is too deep; "
            "at most 2 levels",
        ),
        (
            {"match_rules": AND(leaf("equals", "x"))},
            "match_rules.conditions[0]: unknown condition type 'equals'; use contains, "
            "starts_with, ends_with or regex",
        ),
        ({"match_rules": AND("x")}, "match_rules.conditions[0] must be an object"),
        (
            {"match_rules": AND({"type": "contains"})},
            "match_rules.conditions[0] must have both type and value",
        ),
        (
            {"match_rules": AND(leaf("contains", 5))},
            "match_rules.conditions[0].value must be a string",
        ),
        (
            {"match_rules": AND({"type": "contains", "value": "x", "case": "i"})},
            "match_rules.conditions[0] has unknown member 'case'",
        ),
        (
            {"match_rules": AND(leaf("contains", "x" * 1001))},
            "match_rules.conditions[0].value is 1001 characters long; at most 1000",
        ),
        ({"match_rules": AND(leaf("regex", "a(b"))}, "Invalid regex 'a(b': missing )"),
        (
            {"match_rules": AND(leaf("regex", "x" * 4097))},
            "match_rules.conditions[0]: regex is 4097 characters long; at most 4096",
        ),
        ({"match_rules": AND(leaf("regex", "(a+)+$"))}, "Invalid regex '(a+)+$': it repeats"),
        (
            {"match_rules": AND(*[leaf("contains", str(i)) for i in range(101)])},
            "match_rules has 101 conditions; at most 100",
        ),
        (
            {"text_matches": ["a"], "chat_bot_app_user_id": ""},
            "chat_bot_app_user_id must be a non-empty string",
        ),
        (
            {"text_matches": ["a"], "chat_bot_app_user_id": 12},
            "chat_bot_app_user_id must be a non-empty string",
        ),
        (
            {"text_matches": ["a"], "chat_bot_app_user_id": "U" * 256},
            "chat_bot_app_user_id is 256 characters long; at most 255",
        ),
    ],
)
def test_refusals_say_what_to_fix(criteria, message):
    with pytest.raises(InvalidCriteria) as info:
        normalize_criteria(criteria)
    assert str(info.value).startswith(message), str(info.value)


@pytest.mark.parametrize(
    "pattern",
    ["(a+)+", "(a*)*b", r"(\w+\s?)*$", "(?:x+x+)+y", "(.*a){2,}", "((ab)*c)+"],
)
def test_nested_unbounded_repetition_is_refused(pattern):
    with pytest.raises(InvalidCriteria, match="exponential time"):
        normalize_criteria({"match_rules": AND(leaf("regex", pattern))})


@pytest.mark.parametrize(
    "pattern",
    ["a+b*", "(ab)+", "(a|b){1,5}", r"(?i)error.*timeout", r"\d{3}-\d{4}", r"(\d+\.){3}\d+"],
)
def test_ordinary_regexes_are_accepted(pattern):
    assert normalize_criteria({"match_rules": AND(leaf("regex", pattern))})["match_rules"]
