"""Evaluating one rule tree against one text.

``contains`` compares case-insensitively by Unicode case folding (``value.casefold() in
text.casefold()``, so ``"STRASSE"`` contains ``"straße"``); ``starts_with``, ``ends_with`` and
``regex`` are case-sensitive (write ``(?i)`` in a regex for the other behaviour). Regexes run with
the ``regex`` module and a time budget of :data:`~sleuth_core.matching.rules.REGEX_TIMEOUT`
seconds per leaf and text; a search that runs out of budget counts as *no match* for that leaf.
Only the first :data:`~sleuth_core.matching.rules.MAX_TEXT_LENGTH` characters of a text are
looked at, by every leaf.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import regex

from sleuth_core.matching.rules import MAX_TEXT_LENGTH, REGEX_TIMEOUT, compile_regex, validate_rules


def find_regex(pattern: regex.Pattern[str], text: str) -> regex.Match[str] | None:
    """``pattern``'s first match in ``text`` within the time budget (None on a timeout).

    The search keeps the GIL (``concurrent=False``): a search is microseconds, and releasing the
    GIL for it (the ``regex`` module's default on ``str``) makes the calling thread, the server's
    event loop, wait to take it back from the other threads, up to the switch interval."""
    try:
        return pattern.search(text, concurrent=False, timeout=REGEX_TIMEOUT)
    except TimeoutError:
        return None


def search_regex(pattern: regex.Pattern[str], text: str) -> bool:
    """Whether ``pattern`` is found in ``text`` within the time budget (a timeout is False)."""
    return find_regex(pattern, text) is not None


class _Text:
    """A text prepared for evaluation: truncated once, case-folded on first need."""

    __slots__ = ("_folded", "text")

    def __init__(self, text: str) -> None:
        self.text = text[:MAX_TEXT_LENGTH]
        self._folded: str | None = None

    @property
    def folded(self) -> str:
        if self._folded is None:
            self._folded = self.text.casefold()
        return self._folded


def _leaf_true(leaf: Mapping[str, str], text: _Text) -> bool:
    kind, value = leaf["type"], leaf["value"]
    if kind == "contains":
        return value.casefold() in text.folded
    if kind == "starts_with":
        return text.text.startswith(value)
    if kind == "ends_with":
        return text.text.endswith(value)
    return search_regex(compile_regex(value), text.text)


def _node_true(node: Mapping[str, Any], text: _Text) -> bool:
    results = (
        _node_true(item, text) if "operator" in item else _leaf_true(item, text)
        for item in node["conditions"]
    )
    return all(results) if node["operator"] == "AND" else any(results)


def matches(rules: Mapping[str, Any], text: str) -> bool:
    """Whether ``text`` satisfies the rule tree ``rules``.

    >>> rules = {"operator": "AND", "conditions": [
    ...     {"type": "contains", "value": "TIMEOUT"},
    ...     {"operator": "OR", "conditions": [
    ...         {"type": "starts_with", "value": "[prod]"},
    ...         {"type": "regex", "value": r"db-\\d+"}]}]}
    >>> matches(rules, "[prod] checkout: upstream timeout")
    True
    >>> matches(rules, "[PROD] db-7 timeout")
    True
    >>> matches(rules, "[staging] checkout: upstream timeout")
    False

    The tree's structure is checked (unknown operators or types, missing members, depth over 2
    and uncompilable regexes raise :class:`~sleuth_core.errors.InvalidCriteria`); the input
    limits of :func:`~sleuth_core.matching.normalize_criteria` are not re-applied, so a tree
    stored earlier keeps evaluating.
    """
    tree = validate_rules(rules, strict=False)
    return _node_true(tree, _Text(text))
