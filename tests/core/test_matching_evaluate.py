import pytest

from sleuth_core.errors import InvalidCriteria
from sleuth_core.matching import (
    MAX_TEXT_LENGTH,
    REGEX_TIMEOUT,
    matches,
)


def AND(*conditions):
    return {"operator": "AND", "conditions": list(conditions)}


def OR(*conditions):
    return {"operator": "OR", "conditions": list(conditions)}


def leaf(kind, value):
    return {"type": kind, "value": value}


@pytest.mark.parametrize(
    ("condition", "text", "expected"),
    [
        (leaf("contains", "TimeOut"), "upstream timeout", True),
        (leaf("contains", "straße"), "STRASSE closed", True),  # full case folding
        (leaf("contains", "ΟΔΟΣ"), "οδος", True),  # final sigma folds like sigma
        (leaf("contains", "x"), "", False),
        (leaf("contains", ""), "", True),
        (leaf("starts_with", "[prod]"), "[prod] db down", True),
        (leaf("starts_with", "[prod]"), "[PROD] db down", False),  # case-sensitive
        (leaf("ends_with", "down"), "db down", True),
        (leaf("ends_with", "down"), "db DOWN", False),
        (leaf("ends_with", ""), "anything", True),
        (leaf("regex", r"db-\d+"), "db-42 lag", True),
        (leaf("regex", "DB"), "db-42", False),  # case-sensitive
        (leaf("regex", "(?i)DB"), "db-42", True),
        (leaf("regex", "^a.*b$"), "a\nb", False),  # `.` does not cross lines
    ],
)
def test_leaf_semantics(condition, text, expected):
    assert matches(AND(condition), text) is expected


def test_and_or_nesting():
    tree = AND(leaf("contains", "error"), OR(leaf("starts_with", "[prod]"), leaf("ends_with", "!")))
    assert matches(tree, "[prod] error")
    assert matches(tree, "error!")
    assert not matches(tree, "[dev] error")
    assert not matches(tree, "[prod] warning")


def test_catastrophic_regex_times_out_as_no_match():
    # Stored trees are not re-vetted, so evaluation itself must stay bounded.
    tree = OR(leaf("regex", "(a|aa)+$"), leaf("contains", "zzz"))
    assert REGEX_TIMEOUT <= 0.1
    assert matches(tree, "a" * 5000 + "!") is False
    assert matches(tree, "a" * 5000 + "! zzz") is True


def test_text_beyond_the_limit_is_ignored():
    text = "x" * MAX_TEXT_LENGTH + "needle"
    assert not matches(AND(leaf("contains", "needle")), text)
    assert not matches(AND(leaf("ends_with", "needle")), text)
    assert matches(AND(leaf("ends_with", "x")), text)


def test_malformed_trees_raise_invalid_criteria():
    with pytest.raises(InvalidCriteria, match="unknown condition type 'equals'"):
        matches(AND(leaf("equals", "x")), "x")
    with pytest.raises(InvalidCriteria, match="Invalid regex 'a\\(': missing \\)"):
        matches(AND(leaf("regex", "a(")), "a")
    with pytest.raises(InvalidCriteria, match="nesting is too deep"):
        matches(AND(OR(AND(leaf("contains", "x")))), "x")


def test_stored_trees_over_input_limits_still_evaluate():
    # normalize_criteria refuses these; matches() evaluates what was stored.
    assert matches(AND(leaf("regex", "(a+)+b")), "aaab")
    assert matches(AND(leaf("contains", "x" * 5000)), "x" * 5000)
