"""Wildcard patterns <-> rule trees.

A pattern without ``*`` means *contains* (case-insensitive), like ``*X*``. One literal part with
stars around it becomes a plain leaf: ``*X*`` contains, ``X*`` starts_with, ``*X`` ends_with. Two or
more literal parts become a regex leaf: the parts escaped with :func:`re.escape`, joined by ``.*``,
with ``^`` where the pattern has no leading star and ``$`` where it has no trailing one
(``*A*B*`` -> ``A.*B``, ``A*B`` -> ``^A.*B$``). Runs of stars count as one star.

A pattern of stars only (``*``) matches every text. Its leaf is ``{"type": "contains", "value":
""}`` (every text contains the empty string), and any leaf with an empty value reads back as ``*``.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence
from typing import Any

from sleuth_core.errors import InvalidCriteria
from sleuth_core.matching.rules import (
    MAX_LEAVES,
    MAX_LITERAL_LENGTH,
    MAX_PATTERN_LENGTH,
    validate_rules,
)

#: The leaf a ``*`` pattern becomes: matches every text.
MATCH_ALL_LEAF = {"type": "contains", "value": ""}

_ESCAPABLE = frozenset(string.punctuation + " \t\n\r\v\f")
_REGEX_META = frozenset(".^$*+?{}[]\\|()")


def leaf_from_pattern(pattern: str) -> dict[str, Any]:
    """The leaf condition one wildcard pattern stands for (no limits checked)."""
    if "*" not in pattern:
        return {"type": "contains", "value": pattern}
    parts = pattern.split("*")
    literals = [part for part in parts if part]
    leading, trailing = parts[0] == "", parts[-1] == ""
    if not literals:
        return dict(MATCH_ALL_LEAF)
    if len(literals) == 1:
        kind = "contains" if leading and trailing else "ends_with" if leading else "starts_with"
        return {"type": kind, "value": literals[0]}
    body = ".*".join(re.escape(part) for part in literals)
    return {"type": "regex", "value": ("" if leading else "^") + body + ("" if trailing else "$")}


def check_pattern(pattern: Any, where: str = "text_matches[0]") -> str:
    """Refuse a pattern that is not a string, is empty, or is too long; return it."""
    if not isinstance(pattern, str):
        raise InvalidCriteria(f"{where} must be a string")
    if pattern == "":
        raise InvalidCriteria(f"{where} is empty; use '*' to match every alert")
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise InvalidCriteria(
            f"{where} is {len(pattern)} characters long; at most {MAX_PATTERN_LENGTH} are allowed"
        )
    literal = len(pattern) - pattern.count("*")
    if literal > MAX_LITERAL_LENGTH:
        raise InvalidCriteria(
            f"{where} has {literal} characters besides '*'; "
            f"at most {MAX_LITERAL_LENGTH} are allowed"
        )
    return pattern


def rules_from_patterns(patterns: Sequence[str]) -> dict[str, Any]:
    """The rule tree for ``text_matches``: an AND of one leaf per pattern.

    >>> rules_from_patterns(["error", "db-*", "*A*B*"])  # doctest: +NORMALIZE_WHITESPACE
    {'operator': 'AND', 'conditions': [{'type': 'contains', 'value': 'error'},
     {'type': 'starts_with', 'value': 'db-'}, {'type': 'regex', 'value': 'A.*B'}]}

    Raises :class:`~sleuth_core.errors.InvalidCriteria` for a non-list, an empty list, a
    non-string or empty pattern, or a pattern over the length limits.
    """
    if isinstance(patterns, str | bytes) or not isinstance(patterns, Sequence):
        raise InvalidCriteria("text_matches must be an array of strings")
    if not patterns:
        raise InvalidCriteria("text_matches must hold at least one pattern")
    if len(patterns) > MAX_LEAVES:
        raise InvalidCriteria(
            f"text_matches has {len(patterns)} patterns; at most {MAX_LEAVES} are allowed"
        )
    conditions = [
        leaf_from_pattern(check_pattern(p, f"text_matches[{i}]")) for i, p in enumerate(patterns)
    ]
    return validate_rules({"operator": "AND", "conditions": conditions}, where="text_matches")


def pattern_from_leaf(leaf: Mapping[str, str]) -> str | None:
    """The canonical wildcard pattern for one leaf, or None when none exists."""
    kind, value = leaf["type"], leaf["value"]
    if kind == "regex":
        return _pattern_from_regex(value)
    if value == "":
        return "*"
    if "*" in value:
        return None
    if kind == "contains":
        return f"*{value}*"
    if kind == "starts_with":
        return f"{value}*"
    return f"*{value}"


def _pattern_from_regex(value: str) -> str | None:
    """Read a regex of the forward form back: ``^?L(.*L)+$?`` with literal parts L.

    Literal characters may be escaped (``\\`` before punctuation or whitespace) or, where that is
    the same regex, written plainly; anything else (classes, groups, quantifiers, flags, an escaped
    ``*``, a single literal part, an empty part) has no wildcard form.
    """
    anchored_start = value.startswith("^")
    i = 1 if anchored_start else 0
    end = len(value)
    anchored_end = False
    parts: list[str] = []
    current: list[str] = []
    while i < end:
        ch = value[i]
        if ch == "\\":
            if i + 1 >= end or value[i + 1] not in _ESCAPABLE or value[i + 1] == "*":
                return None
            current.append(value[i + 1])
            i += 2
        elif ch == "." and value.startswith(".*", i):
            if not current:
                return None
            parts.append("".join(current))
            current = []
            i += 2
        elif ch == "$" and i == end - 1:
            anchored_end = True
            i += 1
        elif ch in _REGEX_META:
            return None
        else:
            current.append(ch)
            i += 1
    if not current:
        return None
    parts.append("".join(current))
    if len(parts) < 2:
        return None
    return ("" if anchored_start else "*") + "*".join(parts) + ("" if anchored_end else "*")


def patterns_from_rules(rules: Mapping[str, Any]) -> list[str]:
    """The canonical ``text_matches`` for a rule tree, or ``[]`` when no exact wildcard form exists.

    The tree has a wildcard form when it is an AND of wildcard-expressible leaves (nested ANDs and
    one-condition nodes are read through, since they mean the same). Canonical forms: contains X
    -> ``*X*``, starts_with X -> ``X*``, ends_with X -> ``*X``, an empty value -> ``*``, and a regex
    leaf exactly when it has the shape :func:`rules_from_patterns` produces.

    >>> patterns_from_rules({"operator": "AND", "conditions": [
    ...     {"type": "contains", "value": "error"}, {"type": "regex", "value": "^A.*B$"}]})
    ['*error*', 'A*B']
    >>> patterns_from_rules({"operator": "OR", "conditions": [
    ...     {"type": "contains", "value": "a"}, {"type": "contains", "value": "b"}]})
    []
    """
    tree = validate_rules(rules, strict=False)
    leaves = _conjunction_leaves(tree)
    if leaves is None:
        return []
    patterns = []
    for leaf in leaves:
        pattern = pattern_from_leaf(leaf)
        if pattern is None:
            return []
        patterns.append(pattern)
    try:
        rules_from_patterns(patterns)
    except InvalidCriteria:  # the wildcard form would break a limit: it does not exist
        return []
    return patterns


def _conjunction_leaves(node: Mapping[str, Any]) -> list[Mapping[str, str]] | None:
    """The leaves of a node that is logically a plain AND of leaves, else None."""
    conditions = node["conditions"]
    if node["operator"] == "OR" and len(conditions) != 1:
        return None
    leaves: list[Mapping[str, str]] = []
    for item in conditions:
        if "operator" in item:
            inner = _conjunction_leaves(item)
            if inner is None:
                return None
            leaves.extend(inner)
        else:
            leaves.append(item)
    return leaves
