"""Required literals of regexes, for prefiltering.

:func:`required_literal_sets` returns sets of strings such that every text a regex matches holds
at least one string of *each* set (``checkout.*svc7.*timeout`` gives ``{checkout}``, ``{svc7}``,
``{timeout}``), or None when it cannot tell safely; :func:`required_literals` returns the single
most selective of those sets. It reads the pattern conservatively: only the top
level of the pattern counts - literal characters not made optional by a quantifier, and groups
that are a plain alternation of literals such as ``(?:error|timeout)`` - and any construct it does
not fully understand (inline flags such as ``(?i)`` or ``(?x)``, which change what a literal
means; escapes beyond the plain character classes; a top-level ``|``) makes it give up. Giving up
is always safe: the regex is then evaluated on every text.
"""

from __future__ import annotations

import re
import string

_LITERAL_ESCAPES = frozenset(string.punctuation + " \t\n\r\v\f")
_CLASS_ESCAPES = frozenset("dDwWsSbBAZ")
_GROUP_OPENERS = ("(?:", "(?P<", "(?P=", "(?=", "(?!", "(?<=", "(?<!", "(?>")
_META = frozenset(".^$*+?{}[]\\|()")
_COUNTED = re.compile(r"\{[0-9]*(?:,[0-9]*)?\}")
#: Shortest literal worth a prefilter entry.
MIN_FACTOR_LENGTH = 2
#: Most alternatives one prefilter may hold.
MAX_ALTERNATIVES = 16

_BREAK = None


def required_literals(pattern: str) -> frozenset[str] | None:
    """A set of literals one of which every match of ``pattern`` contains, or None.

    The most selective set of :func:`required_literal_sets`: longest shortest literal, then
    fewest alternatives, then the first.

    >>> sorted(required_literals(r"^db-\\d+ (?:down|slow) after timeout"))
    [' down after timeout', ' slow after timeout']
    >>> sorted(required_literals(r"(?:payments|ledger) timeout"))
    ['ledger timeout', 'payments timeout']
    >>> required_literals(r"(?i)timeout") is None
    True
    """
    sets = required_literal_sets(pattern)
    if sets is None:
        return None
    return max(sets, key=lambda alternatives: (min(map(len, alternatives)), -len(alternatives)))


def required_literal_sets(pattern: str) -> tuple[frozenset[str], ...] | None:
    """Sets of literals such that every match of ``pattern`` contains one literal of each set.

    Each set comes from one run of required top-level elements, so each alone is a necessary
    condition and so is their conjunction. Sets whose shortest literal is shorter than
    :data:`MIN_FACTOR_LENGTH` are left out; None when no set is left or the pattern is not
    understood.

    >>> [sorted(s) for s in required_literal_sets(r"checkout.*svc7.*(?:timeout|slow)")]
    [['checkout'], ['svc7'], ['slow', 'timeout']]
    >>> required_literal_sets(r"a.*b") is None
    True
    """
    elements = _elements(pattern)
    if elements is None:
        return None
    candidates: list[frozenset[str]] = []
    current: set[str] = {""}
    for element in [*elements, _BREAK]:
        if element is not _BREAK:
            product = {head + tail for head in current for tail in element}
            if len(product) <= MAX_ALTERNATIVES:
                current = product
                continue
        if current != {""}:
            candidates.append(frozenset(current))
        current = set(element) if element is not _BREAK else {""}
    kept: list[frozenset[str]] = []
    for alternatives in candidates:
        if min(map(len, alternatives)) >= MIN_FACTOR_LENGTH and alternatives not in kept:
            kept.append(alternatives)
    return tuple(kept) or None


def _elements(pattern: str) -> list[frozenset[str] | None] | None:
    """The top level of ``pattern`` as required literal alternatives or breaks; None if unsure."""
    out: list[frozenset[str] | None] = []
    n = len(pattern)
    i = 0
    while i < n:
        ch = pattern[i]
        element: frozenset[str] | None
        if ch == "\\":
            if i + 1 >= n:
                return None
            nxt = pattern[i + 1]
            i += 2
            if nxt in _CLASS_ESCAPES:
                out.append(_BREAK)
                continue
            if nxt not in _LITERAL_ESCAPES:
                return None
            element = frozenset((nxt,))
        elif ch in "[{":  # a class or a counted repeat: no literal of its own
            j = (_skip_class if ch == "[" else _skip_counted)(pattern, i)
            if j is None:
                return None
            out.append(_BREAK)
            i = j
            continue
        elif ch == "(":
            j = _skip_group(pattern, i)
            if j is None:
                return None
            element = _literal_alternation(pattern[i:j])
            i = j
            if element is None:
                out.append(_BREAK)
                continue
        elif ch in "*+?.^$":
            out.append(_BREAK)
            i += 1
            continue
        elif ch in "|)]}":
            return None
        else:
            element = frozenset((ch,))
            i += 1
        # A required element: a following quantifier decides whether it stays required.
        quant = pattern[i] if i < n else ""
        if quant in ("*", "?", "{"):
            out.append(_BREAK)  # optional, counted or fuzzy: not required as it stands
        elif quant == "+":
            out.extend((element, _BREAK))
        else:
            out.append(element)
    return out


def _literal_alternation(group: str) -> frozenset[str] | None:
    """The branches of a group like ``(a|bc)`` or ``(?:a|bc)`` when all are non-empty literals."""
    if group.startswith("(?:"):
        body = group[3:-1]
    elif group.startswith("(?P<"):
        close = group.find(">")
        body = group[close + 1 : -1]
    elif group.startswith("(?"):
        return None
    else:
        body = group[1:-1]
    branches: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            if i + 1 >= len(body) or body[i + 1] not in _LITERAL_ESCAPES:
                return None
            current.append(body[i + 1])
            i += 2
            continue
        if ch == "|":
            branches.append("".join(current))
            current = []
        elif ch in _META:
            return None
        else:
            current.append(ch)
        i += 1
    branches.append("".join(current))
    if not all(branches) or len(branches) > MAX_ALTERNATIVES:
        return None
    return frozenset(branches)


def _skip_counted(pattern: str, i: int) -> int | None:
    """Index just past a ``{m}``, ``{m,}``, ``{,n}`` or ``{m,n}`` quantifier at ``i``, else None."""
    match = _COUNTED.match(pattern, i)
    return match.end() if match else None


def _skip_class(pattern: str, i: int) -> int | None:
    """Index just past the character class opening at ``i``, or None if unsure."""
    n = len(pattern)
    j = i + 1
    if j < n and pattern[j] == "^":
        j += 1
    if j < n and pattern[j] == "]":
        j += 1
    while j < n:
        ch = pattern[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "[":
            return None  # POSIX classes, nested sets: not worth the risk
        if ch == "]":
            return j + 1
        j += 1
    return None


def _skip_group(pattern: str, i: int) -> int | None:
    """Index just past the group opening at ``i``, or None if unsure (flags, conditionals)."""
    n = len(pattern)
    depth = 0
    j = i
    while j < n:
        ch = pattern[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "[":
            k = _skip_class(pattern, j)
            if k is None:
                return None
            j = k
            continue
        if ch == "(":
            if pattern.startswith("(?", j) and not pattern.startswith(_GROUP_OPENERS, j):
                return None
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return None
