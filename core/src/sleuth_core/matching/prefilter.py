"""Required literal factors of regexes, for prefiltering.

:func:`required_literal` returns a string that occurs in every text a regex matches, or None when
it cannot tell safely. It reads the pattern conservatively: only literal characters at the top
level of the pattern (outside groups, classes and alternation, and not made optional by a
quantifier) count, and any construct it does not fully understand - inline flags such as ``(?i)``
or ``(?x)``, which change what a literal means, escapes beyond the plain character classes, a
top-level ``|`` - makes it give up. Giving up is always safe: the regex is then evaluated on every
text.
"""

from __future__ import annotations

import re
import string

_LITERAL_ESCAPES = frozenset(string.punctuation + " \t\n\r\v\f")
_CLASS_ESCAPES = frozenset("dDwWsSbBAZ")
_GROUP_OPENERS = ("(?:", "(?P<", "(?P=", "(?=", "(?!", "(?<=", "(?<!", "(?>")
_COUNTED = re.compile(r"\{[0-9]*(?:,[0-9]*)?\}")
#: Shortest factor worth a prefilter entry.
MIN_FACTOR_LENGTH = 2


def required_literal(pattern: str) -> str | None:
    """The longest literal every match of ``pattern`` contains, or None.

    >>> required_literal(r"^db-\\d+ (?:down|slow) after timeout")
    ' after timeout'
    >>> required_literal(r"(?i)timeout") is None
    True
    """
    runs: list[str] = []
    current: list[str] = []
    n = len(pattern)
    i = 0

    def cut() -> None:
        if current:
            runs.append("".join(current))
            current.clear()

    while i < n:
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= n:
                return None
            nxt = pattern[i + 1]
            i += 2
            if nxt in _CLASS_ESCAPES:
                cut()
                continue
            if nxt not in _LITERAL_ESCAPES:
                return None
            item = nxt
        elif ch == "[":
            cut()
            j = _skip_class(pattern, i)
            if j is None:
                return None
            i = j
            continue
        elif ch == "(":
            cut()
            j = _skip_group(pattern, i)
            if j is None:
                return None
            i = j
            continue
        elif ch in "*+?":
            cut()
            i += 1
            continue
        elif ch == "{":
            cut()
            j = _skip_counted(pattern, i)
            if j is None:
                return None
            i = j
            continue
        elif ch in ".^$":
            cut()
            i += 1
            continue
        elif ch in "|)]}":
            return None
        else:
            item = ch
            i += 1
        # A literal character: a following quantifier decides whether it is required.
        quant = pattern[i] if i < n else ""
        if quant in ("*", "?", "{"):
            cut()  # optional (or counted, or fuzzy): not a required character
        elif quant == "+":
            current.append(item)
            cut()
        else:
            current.append(item)
    cut()
    if not runs:
        return None
    best = max(runs, key=len)
    return best if len(best) >= MIN_FACTOR_LENGTH else None


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
