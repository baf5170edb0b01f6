"""explain(): the root is matches(), each leaf its own outcome, spans cover the match."""

import doctest
import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_matching_strategies import texts_for, tree_literals, trees

from sleuth_core.errors import InvalidCriteria
from sleuth_core.matching import explain, matches
from sleuth_core.matching.rules import compile_regex


def _leaves(trace):
    for item in trace["conditions"]:
        if "operator" in item:
            yield from _leaves(item)
        else:
            yield item


def _same_shape(trace, tree):
    assert trace["operator"] == tree["operator"]
    assert len(trace["conditions"]) == len(tree["conditions"])
    for got, want in zip(trace["conditions"], tree["conditions"], strict=True):
        if "operator" in want:
            _same_shape(got, want)
        else:
            assert (got["type"], got["value"]) == (want["type"], want["value"])


def _check_span(leaf, text):
    start, end = leaf["span"]
    assert 0 <= start <= end <= len(text)
    covered = text[start:end]
    kind, value = leaf["type"], leaf["value"]
    if kind == "contains":
        assert value.casefold() in covered.casefold()
    elif kind == "starts_with":
        assert start == 0 and covered == value
    elif kind == "ends_with":
        assert end == len(text) and covered == value
    else:
        found = compile_regex(value).search(text)
        assert found is not None and list(found.span()) == [start, end]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_root_equals_matches_and_spans_lie_in_the_text(data):
    tree = data.draw(trees)
    text = data.draw(texts_for(tree_literals(tree)))
    trace = explain(tree, text)
    assert trace["matched"] == matches(tree, text)
    _same_shape(trace, tree)
    for leaf in _leaves(trace):
        single = {"operator": "AND", "conditions": [{"type": leaf["type"], "value": leaf["value"]}]}
        assert leaf["matched"] == matches(single, text)
        if leaf["matched"]:
            _check_span(leaf, text)
        else:
            assert leaf["span"] is None


def test_every_node_is_evaluated_without_short_circuit():
    tree = {
        "operator": "OR",
        "conditions": [
            {"type": "contains", "value": "db"},
            {"operator": "AND", "conditions": [{"type": "regex", "value": r"\d+"}]},
            {"type": "ends_with", "value": "down"},
        ],
    }
    trace = explain(tree, "db 42 is down")
    assert trace["matched"] is True
    assert [c["matched"] for c in trace["conditions"]] == [True, True, True]
    assert trace["conditions"][1]["conditions"][0]["span"] == [3, 5]
    assert trace["conditions"][2]["span"] == [9, 13]


def test_case_folding_spans_are_in_original_characters():
    text = "ΟΔΟΣ straße"
    trace = explain({"operator": "AND", "conditions": [{"type": "contains", "value": "SS"}]}, text)
    assert trace["conditions"][0]["span"] == [9, 10]  # the ß that folds to "ss"


def test_structure_errors_are_refused():
    with pytest.raises(InvalidCriteria):
        explain({"operator": "XOR", "conditions": [{"type": "contains", "value": "a"}]}, "a")


def test_docstring_examples_run():
    module = importlib.import_module("sleuth_core.matching.explain")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_catastrophic_regex_times_out_as_an_unmatched_leaf():
    """explain() searches with matches()'s time budget: a stored pattern that backtracks without
    end is an unmatched leaf (no span), and the other leaves are still explained."""
    rules = {
        "operator": "OR",
        "conditions": [
            {"type": "regex", "value": "(a|aa)+$"},
            {"type": "contains", "value": "zzz"},
        ],
    }
    text = "a" * 5000 + "! zzz"
    trace = explain(rules, text)
    assert trace["matched"] is matches(rules, text) is True
    assert [(c["matched"], c["span"]) for c in trace["conditions"]] == [
        (False, None),
        (True, [5002, 5005]),
    ]
