import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from test_matching_strategies import patterns, texts_for, tree_literals, trees, wildcard_regexes

from sleuth_core.errors import InvalidCriteria
from sleuth_core.matching import (
    MATCH_ALL_LEAF,
    matches,
    patterns_from_rules,
    rules_from_patterns,
)
from sleuth_core.matching.patterns import leaf_from_pattern


def AND(*conditions):
    return {"operator": "AND", "conditions": list(conditions)}


def OR(*conditions):
    return {"operator": "OR", "conditions": list(conditions)}


def leaf(kind, value):
    return {"type": kind, "value": value}


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("error", leaf("contains", "error")),
        ("*error*", leaf("contains", "error")),
        ("**error***", leaf("contains", "error")),
        ("db-*", leaf("starts_with", "db-")),
        ("*down", leaf("ends_with", "down")),
        ("*A*B*", leaf("regex", "A.*B")),
        ("A*B", leaf("regex", "^A.*B$")),
        ("*A*B", leaf("regex", "A.*B$")),
        ("A*B*", leaf("regex", "^A.*B")),
        ("a.b*c+d*(e)", leaf("regex", r"^a\.b.*c\+d.*\(e\)$")),
        ("*x y*[z]*", leaf("regex", r"x\ y.*\[z\]")),
        ("*", MATCH_ALL_LEAF),
        ("***", MATCH_ALL_LEAF),
        ("Ünïcødé*", leaf("starts_with", "Ünïcødé")),
    ],
)
def test_pattern_to_leaf(pattern, expected):
    assert leaf_from_pattern(pattern) == expected
    assert rules_from_patterns([pattern]) == AND(expected)


def test_rules_from_patterns_is_an_and_in_order():
    assert rules_from_patterns(["a", "b*", "*c"]) == AND(
        leaf("contains", "a"), leaf("starts_with", "b"), leaf("ends_with", "c")
    )


@pytest.mark.parametrize(
    ("text", "both_words", "in_order"),
    [
        ("error: db timeout", True, True),
        ("ERROR then TIMEOUT", True, False),  # contains ignores case; the inner-star regex does not
        ("timeout before error", True, False),
        ("error only", False, False),
    ],
)
def test_bare_words_versus_inner_star(text, both_words, in_order):
    assert matches(rules_from_patterns(["error", "*timeout*"]), text) is both_words
    assert matches(rules_from_patterns(["*error*timeout*"]), text) is in_order


def test_anchored_inner_star():
    rules = rules_from_patterns(["db*down"])
    assert matches(rules, "db-7 is down")
    assert not matches(rules, "the db-7 is down")
    assert not matches(rules, "db-7 is down again")


def test_star_alone_matches_everything():
    rules = rules_from_patterns(["*"])
    assert rules == AND({"type": "contains", "value": ""})
    assert matches(rules, "")
    assert matches(rules, "anything at all")
    assert patterns_from_rules(rules) == ["*"]


def test_inner_star_does_not_cross_newlines():
    # `*A*B*` is the regex `A.*B`, and `.` stops at a line break (documented in docs/core.md).
    assert not matches(rules_from_patterns(["*A*B*"]), "A\nB")
    assert matches(rules_from_patterns(["A", "B"]), "A\nB")


@pytest.mark.parametrize(
    ("patterns", "message"),
    [
        ("error", "text_matches must be an array of strings"),
        ([], "text_matches must hold at least one pattern"),
        ([""], "text_matches[0] is empty; use '*' to match every alert"),
        (["ok", 3], "text_matches[1] must be a string"),
        (["x" * 1001], "text_matches[0] has 1001 characters besides '*'; at most 1000"),
        (["*" * 2001], "text_matches[0] is 2001 characters long; at most 2000"),
        (["a"] * 101, "text_matches has 101 patterns; at most 100 are allowed"),
    ],
)
def test_bad_patterns(patterns, message):
    with pytest.raises(InvalidCriteria) as info:
        rules_from_patterns(patterns)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        (AND(leaf("contains", "x")), ["*x*"]),
        (AND(leaf("starts_with", "x")), ["x*"]),
        (AND(leaf("ends_with", "x")), ["*x"]),
        (AND(leaf("contains", "")), ["*"]),
        (AND(leaf("starts_with", "")), ["*"]),
        (AND(leaf("regex", "A.*B")), ["*A*B*"]),
        (AND(leaf("regex", "^A.*B$")), ["A*B"]),
        (AND(leaf("regex", r"^a\.b.*c\ d$")), ["a.b*c d"]),
        (AND(leaf("regex", "error.*time-out")), ["*error*time-out*"]),  # plain '-' is literal
        (AND(leaf("contains", "a"), AND(leaf("ends_with", "b"))), ["*a*", "*b"]),
        (OR(leaf("contains", "a")), ["*a*"]),
        # not expressible
        (OR(leaf("contains", "a"), leaf("contains", "b")), []),
        (AND(leaf("contains", "a"), OR(leaf("contains", "b"), leaf("contains", "c"))), []),
        (AND(leaf("contains", "a*b")), []),
        (AND(leaf("regex", "abc")), []),  # a single literal
        (AND(leaf("regex", "^abc$")), []),
        (AND(leaf("regex", ".+")), []),
        (AND(leaf("regex", "a.*[bc]")), []),
        (AND(leaf("regex", r"a.*b\*")), []),  # an escaped star has no wildcard form
        (AND(leaf("regex", r"a\d.*b")), []),
        (AND(leaf("regex", "a.*.*b")), []),
        (AND(leaf("regex", ".*a.*b")), []),
        (AND(leaf("regex", "(?i)a.*b")), []),
        (AND(leaf("regex", "a.*b|c")), []),
        (AND(leaf("regex", "a.*b$c")), []),
    ],
)
def test_patterns_from_rules(rules, expected):
    assert patterns_from_rules(rules) == expected


def test_patterns_from_rules_refuses_a_form_that_breaks_a_limit():
    # 1000 literal characters are fine as a leaf, but `*...*` would be over the pattern limit?
    # No: the limit counts characters besides '*', so the canonical form still exists.
    assert patterns_from_rules(AND(leaf("contains", "x" * 1000))) == ["*" + "x" * 1000 + "*"]
    # A regex whose literal parts exceed the pattern limit has no wildcard form.
    assert patterns_from_rules(AND(leaf("regex", "x" * 600 + ".*" + "y" * 600))) == []


def test_patterns_from_rules_validates_the_tree():
    with pytest.raises(InvalidCriteria, match="unknown operator 'NOT'"):
        patterns_from_rules({"operator": "NOT", "conditions": [leaf("contains", "x")]})


@given(st.lists(patterns, min_size=1, max_size=4))
def test_round_trip_is_a_fixpoint(pats):
    rules = rules_from_patterns(pats)
    canonical = patterns_from_rules(rules)
    assert len(canonical) == len(pats)
    assert rules_from_patterns(canonical) == rules
    assert patterns_from_rules(rules_from_patterns(canonical)) == canonical


@settings(max_examples=150, deadline=None)
@given(st.data(), trees)
def test_regenerated_patterns_match_exactly_what_the_tree_matches(data, tree):
    regenerated = patterns_from_rules(tree)
    if not regenerated:
        return
    again = rules_from_patterns(regenerated)
    for _ in range(5):
        text = data.draw(texts_for(tree_literals(tree)))
        assert matches(again, text) == matches(tree, text), (regenerated, text)


@settings(max_examples=150, deadline=None)
@given(st.data(), wildcard_regexes)
def test_regex_leaves_in_wildcard_shape_round_trip(data, value):
    tree = AND(leaf("regex", value))
    regenerated = patterns_from_rules(tree)
    if regenerated:
        back = rules_from_patterns(regenerated)["conditions"][0]["value"]
        # The same regex, up to how literal characters are escaped.
        assert regex.sub(r"(?s)\\(.)", r"\1", back) == regex.sub(r"(?s)\\(.)", r"\1", value)
    for _ in range(5):
        text = data.draw(texts_for(tree_literals(tree)))
        if regenerated:
            assert matches(rules_from_patterns(regenerated), text) == matches(tree, text)
