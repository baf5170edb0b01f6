"""Why a rule tree matches a text, or not: :func:`explain` evaluates every node and returns the
trace (DESIGN 7).

The trace mirrors the tree. A node is ``{"operator", "matched", "conditions"}``; a leaf is
``{"type", "value", "matched", "span"}``. Every node is evaluated (no short-circuit), so the trace
shows each leaf's outcome. ``span`` is ``[start, end)`` in character offsets of the text, where
the leaf matched (``contains``: the first occurrence, compared by case folding as
:func:`~sleuth_core.matching.matches` does; ``starts_with`` / ``ends_with``: the affix; ``regex``:
the first match), and ``None`` on a leaf that did not match. Each node's ``matched`` follows the
same rules as :func:`~sleuth_core.matching.matches`, so the root's equals it.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import accumulate
from typing import Any

from sleuth_core.matching.evaluate import _Text, find_regex
from sleuth_core.matching.rules import compile_regex, validate_rules

__all__ = ["explain"]


def _fold_offsets(text: str) -> list[int]:
    """``offsets[i]``: where character ``i`` of ``text`` starts in ``text.casefold()`` (one more
    entry, the folded length). Case folding is per character, so the folded text is the
    concatenation of the folded characters."""
    return [0, *accumulate(len(char.casefold()) for char in text)]


def _contains_span(value: str, text: _Text) -> list[int] | None:
    needle = value.casefold()
    found = text.folded.find(needle)
    if found < 0:
        return None
    if len(text.folded) == len(text.text):  # no character folded to more than one
        return [found, found + len(needle)]
    offsets = _fold_offsets(text.text)
    end_folded = found + len(needle)
    # The original characters whose folded forms overlap [found, end_folded).
    start = max(i for i in range(len(offsets)) if offsets[i] <= found)
    end = min(i for i in range(len(offsets)) if offsets[i] >= end_folded)
    return [min(start, len(text.text)), max(end, start)]


def _leaf_span(leaf: Mapping[str, str], text: _Text) -> list[int] | None:
    kind, value = leaf["type"], leaf["value"]
    if kind == "contains":
        return _contains_span(value, text)
    if kind == "starts_with":
        return [0, len(value)] if text.text.startswith(value) else None
    if kind == "ends_with":
        size = len(text.text)
        return [size - len(value), size] if text.text.endswith(value) else None
    found = find_regex(compile_regex(value), text.text)
    return list(found.span()) if found is not None else None


def _node(node: Mapping[str, Any], text: _Text) -> dict[str, Any]:
    conditions: list[dict[str, Any]] = []
    for item in node["conditions"]:
        if "operator" in item:
            conditions.append(_node(item, text))
        else:
            span = _leaf_span(item, text)
            conditions.append(
                {
                    "type": item["type"],
                    "value": item["value"],
                    "matched": span is not None,
                    "span": span,
                }
            )
    outcomes = [condition["matched"] for condition in conditions]
    matched = all(outcomes) if node["operator"] == "AND" else any(outcomes)
    return {"operator": node["operator"], "matched": matched, "conditions": conditions}


def explain(rules: Mapping[str, Any], text: str) -> dict[str, Any]:
    """The trace of ``rules`` evaluated against ``text`` (see the module doc).

    >>> rules = {"operator": "AND", "conditions": [
    ...     {"type": "contains", "value": "timeout"},
    ...     {"operator": "OR", "conditions": [
    ...         {"type": "starts_with", "value": "[prod]"},
    ...         {"type": "regex", "value": r"db-\\d+"}]}]}
    >>> trace = explain(rules, "[staging] db-7 TIMEOUT")
    >>> trace["matched"], trace["conditions"][0]["span"]
    (True, [15, 22])
    >>> [(c["matched"], c["span"]) for c in trace["conditions"][1]["conditions"]]
    [(False, None), (True, [10, 14])]
    >>> explain(rules, "[prod] all good")["matched"]
    False

    Spans are in characters of ``text`` itself, also where case folding changes lengths:

    >>> explain({"operator": "OR", "conditions": [
    ...     {"type": "contains", "value": "strasse"}]}, "Große Straße")["conditions"][0]["span"]
    [6, 12]

    Structure errors raise :class:`~sleuth_core.errors.InvalidCriteria`, as
    :func:`~sleuth_core.matching.matches` does.
    """
    tree = validate_rules(rules, strict=False)
    return _node(tree, _Text(text))
