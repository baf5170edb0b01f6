"""Matching alerts against agents' criteria: wildcard patterns, AND/OR rule trees, an index.

Public API (plain JSON-compatible dicts at the boundary):

- :func:`rules_from_patterns` / :func:`patterns_from_rules` - ``text_matches`` <-> ``match_rules``.
- :func:`normalize_criteria` - validate criteria, apply precedence, return both forms.
- :func:`matches` - evaluate one tree against one text.
- :func:`explain` - the same evaluation as a trace: every node's outcome, each leaf's span.
- :class:`MatchIndex` - which of many trees match a text.

Stages live in their own modules: :mod:`.patterns`, :mod:`.rules` (structure, limits, regex
vetting), :mod:`.criteria`, :mod:`.evaluate`, :mod:`.explain`, :mod:`.prefilter` and :mod:`.index`.
"""

from sleuth_core.matching.criteria import normalize_criteria
from sleuth_core.matching.evaluate import matches
from sleuth_core.matching.explain import explain
from sleuth_core.matching.index import MatchIndex
from sleuth_core.matching.patterns import MATCH_ALL_LEAF, patterns_from_rules, rules_from_patterns
from sleuth_core.matching.rules import (
    MAX_DEPTH,
    MAX_LEAVES,
    MAX_LITERAL_LENGTH,
    MAX_PATTERN_LENGTH,
    MAX_REGEX_LENGTH,
    MAX_TEXT_LENGTH,
    REGEX_TIMEOUT,
)

__all__ = [
    "MATCH_ALL_LEAF",
    "MAX_DEPTH",
    "MAX_LEAVES",
    "MAX_LITERAL_LENGTH",
    "MAX_PATTERN_LENGTH",
    "MAX_REGEX_LENGTH",
    "MAX_TEXT_LENGTH",
    "REGEX_TIMEOUT",
    "MatchIndex",
    "explain",
    "matches",
    "normalize_criteria",
    "patterns_from_rules",
    "rules_from_patterns",
]
