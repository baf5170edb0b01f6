"""``MatchIndex``: which of many rule trees match a text, without evaluating them all.

Rule trees are monotone (AND/OR of leaves, no negation), so the index works out the truth of
each distinct leaf once per text and then evaluates only the trees that could be true:

1. Every ``contains`` literal and every regex's required literals (see
   :mod:`~sleuth_core.matching.prefilter`), case-folded, is found in one Aho-Corasick pass over the
   case-folded text (pyahocorasick; a pure-Python scan gives identical results when it is missing
   or ``native=False``).
2. ``starts_with`` / ``ends_with`` leaves sit in dicts keyed by literal length: one lookup of
   ``text[:L]`` / ``text[-L:]`` per distinct length ``L``.
3. A regex leaf is only run when a tree needs it and *every* one of its required literal sets
   has a literal in the text (``checkout.*svc7.*timeout`` needs ``checkout``, ``svc7`` and
   ``timeout``; a regex without a safely extractable literal is always a candidate), at most once
   per text. Each regex is listed under one *trigger* set only - the one whose literals had the
   fewest indexed users when the regex was added - so a literal that every text holds does not
   make every regex that needs it a candidate; the other sets are checked against the literals
   found only when the trigger is hit.
4. Each tree *watches* a few of its leaves - for an AND the single most selective child (its
   estimated cost times one plus the number of trees already watching it, so that a common leaf
   does not gather every tree), for an OR all children - such that the tree can only be true if
   a watched leaf is (or may be) true. Only trees with a true watched leaf are evaluated.

The result is exactly the set of keys whose rules :func:`~sleuth_core.matching.matches` accepts.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from operator import itemgetter
from typing import Any, Generic, TypeVar

import regex

from sleuth_core.matching.evaluate import search_regex
from sleuth_core.matching.prefilter import required_literal_sets
from sleuth_core.matching.rules import MAX_TEXT_LENGTH, compile_regex, validate_rules

try:
    import ahocorasick as _ahocorasick
except ImportError:  # pragma: no cover - exercised through native=False
    # The standard optional-import idiom: the name is the module or None.
    _ahocorasick = None  # type: ignore[assignment]

K = TypeVar("K", bound=Hashable)

#: A compiled node: (is_and, plain leaf ids, regex leaf ids, child nodes).
_Node = tuple[bool, frozenset[int], tuple[int, ...], tuple[Any, ...]]

#: Literals added since the automaton was built are scanned one by one until there are this many.
_MAX_PENDING = 64

_second = itemgetter(1)

_COST_ALWAYS = 10_000.0
_COST_UNFILTERED_REGEX = 1_000.0


class _Entry:
    __slots__ = ("leaves", "tree", "watch")

    def __init__(self, tree: _Node, leaves: list[int], watch: frozenset[int]) -> None:
        self.tree = tree
        self.leaves = leaves
        self.watch = watch


class MatchIndex(Generic[K]):
    r"""An index of rule trees by key (for example agent IDs).

    >>> index = MatchIndex({
    ...     "db": {"operator": "AND", "conditions": [{"type": "contains", "value": "postgres"}]},
    ...     "prod": {"operator": "AND", "conditions": [{"type": "starts_with", "value": "[prod]"}]},
    ... })
    >>> sorted(index.match("[prod] Postgres replica lag"))
    ['db', 'prod']
    >>> index.remove("db")
    >>> index.add("api", {"operator": "OR", "conditions": [{"type": "regex", "value": r"api-\d"}]})
    >>> sorted(index.match("[prod] api-7 is down")), len(index)
    (['api', 'prod'], 2)

    ``add`` (which replaces an existing key) and ``remove`` cost about the size of the one tree.
    The index is not safe for concurrent mutation; concurrent ``match`` calls are read-only.

    :param entries: initial trees by key; each is validated like :func:`matches` does.
    :param native: use pyahocorasick (default: when importable); ``False`` forces the pure scan.
    """

    def __init__(
        self, entries: Mapping[K, Mapping[str, Any]] | None = None, *, native: bool | None = None
    ) -> None:
        if native is None:
            native = _ahocorasick is not None
        elif native and _ahocorasick is None:
            raise RuntimeError("MatchIndex(native=True) needs the pyahocorasick package")
        self.native: bool = native
        self._entries: dict[K, _Entry] = {}
        # Leaves, interned by (type, key); key is the case-folded value for contains.
        self._leaf_ids: dict[tuple[str, str], int] = {}
        self._idents: dict[int, tuple[str, str]] = {}
        self._refs: dict[int, int] = {}
        self._cost: dict[int, float] = {}
        self._watchers: dict[int, set[K]] = {}
        self._next_id = 0
        self._always: set[int] = set()
        self._contains_by_literal: dict[str, int] = {}
        # Regex leaf ids by the literals of their trigger set.
        self._regex_by_literal: dict[str, set[int]] = {}
        # Per prefiltered regex leaf: all its literals and its trigger set; its other sets.
        self._factors: dict[int, tuple[frozenset[str], tuple[str, ...]]] = {}
        self._checks: dict[int, tuple[tuple[str, ...], ...]] = {}
        self._regex: dict[int, regex.Pattern[str]] = {}
        self._unfiltered: set[int] = set()
        self._starts: dict[int, dict[str, int]] = {}
        self._ends: dict[int, dict[str, int]] = {}
        # Case-folded literals (contains values and regex factors) with reference counts.
        self._literals: dict[str, int] = {}
        self._automaton: _ahocorasick.Automaton[str] | None = None
        self._built: set[str] = set()
        self._pending: set[str] = set()
        self._stale: set[str] = set()
        for key, rules in (entries or {}).items():
            self._add(key, rules)
        self._maybe_rebuild(force=True)

    # -- public API --------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __iter__(self) -> Iterator[K]:
        return iter(self._entries)

    def add(self, key: K, rules: Mapping[str, Any]) -> None:
        """Index ``rules`` under ``key``, replacing what ``key`` had.

        Raises :class:`~sleuth_core.errors.InvalidCriteria` for a malformed tree (the index is
        then unchanged).
        """
        self._add(key, rules)
        self._maybe_rebuild()

    def remove(self, key: K) -> None:
        """Drop ``key``; raises ``KeyError`` if it is not indexed."""
        entry = self._entries.pop(key)
        for lid in entry.watch:
            self._watchers[lid].discard(key)
        for lid in entry.leaves:
            self._release(lid)
        self._maybe_rebuild()

    def match(self, text: str) -> set[K]:
        """The keys whose rules match ``text`` (exactly those :func:`matches` accepts)."""
        text = text[:MAX_TEXT_LENGTH]
        true: set[int] = set(self._always)
        maybe: set[int] = set(self._unfiltered)
        triggered: set[int] = set()
        contains_by_literal = self._contains_by_literal
        regex_by_literal = self._regex_by_literal
        hits = self._literal_hits(text.casefold())
        for literal in hits:
            lid = contains_by_literal.get(literal)
            if lid is not None:
                true.add(lid)
            regex_ids = regex_by_literal.get(literal)
            if regex_ids:
                triggered.update(regex_ids)
        checks = self._checks
        for lid in triggered:
            for alternatives in checks[lid]:
                if hits.isdisjoint(alternatives):
                    break
            else:
                maybe.add(lid)
        for length, table in self._starts.items():
            lid = table.get(text[:length])
            if lid is not None:
                true.add(lid)
        for length, table in self._ends.items():
            lid = table.get(text[-length:])
            if lid is not None:
                true.add(lid)

        watchers = self._watchers
        candidates: set[K] = set()
        for lid in true:
            candidates.update(watchers[lid])
        for lid in maybe:
            candidates.update(watchers[lid])
        if not candidates:
            return candidates

        compiled = self._regex
        regex_truth: dict[int, bool] = {}

        def regex_true(lid: int) -> bool:
            known = regex_truth.get(lid)
            if known is None:
                known = lid in maybe and search_regex(compiled[lid], text)
                regex_truth[lid] = known
            return known

        evaluate = _evaluator(true, regex_true)
        entries = self._entries
        return {key for key in candidates if evaluate(entries[key].tree)}

    # -- building ----------------------------------------------------------------------------

    def _add(self, key: K, rules: Mapping[str, Any]) -> None:
        tree = validate_rules(rules, strict=False)  # raises before anything is interned
        if key in self._entries:
            self.remove(key)
        leaves: list[int] = []
        node, _, watch = self._compile(tree, leaves)
        self._entries[key] = _Entry(node, leaves, watch)
        for lid in watch:
            self._watchers[lid].add(key)

    def _compile(
        self, node: Mapping[str, Any], leaves: list[int]
    ) -> tuple[_Node, float, frozenset[int]]:
        is_and = node["operator"] == "AND"
        plain: list[int] = []
        regexes: list[int] = []
        children: list[_Node] = []
        options: list[tuple[float, frozenset[int]]] = []
        for item in node["conditions"]:
            if "operator" in item:
                child, cost, watch = self._compile(item, leaves)
                children.append(child)
                options.append((cost, watch))
            else:
                lid = self._intern(item["type"], item["value"])
                leaves.append(lid)
                (regexes if item["type"] == "regex" else plain).append(lid)
                # A leaf that many trees already watch makes them all candidates when it is
                # true: spread the watches (any choice gives the same results).
                cost = self._cost[lid] * (1 + len(self._watchers[lid]))
                options.append((cost, frozenset((lid,))))
        if is_and:
            cost, watch = min(options, key=lambda option: option[0])
        else:
            cost = sum(option[0] for option in options)
            watch = frozenset[int]().union(*(option[1] for option in options))
        return (is_and, frozenset(plain), tuple(regexes), tuple(children)), cost, watch

    def _intern(self, kind: str, value: str) -> int:
        ident = (kind, value.casefold() if kind == "contains" else value)
        lid = self._leaf_ids.get(ident)
        if lid is not None:
            self._refs[lid] += 1
            return lid
        lid = self._next_id
        self._next_id += 1
        self._leaf_ids[ident] = lid
        self._idents[lid] = ident
        self._refs[lid] = 1
        self._watchers[lid] = set()
        literal = ident[1]
        if kind == "regex":
            self._regex[lid] = compile_regex(value)
            sets = required_literal_sets(value)
            if sets is None:
                self._unfiltered.add(lid)
                self._cost[lid] = _COST_UNFILTERED_REGEX
            else:
                self._add_factors(lid, sets)
        elif literal == "":
            self._always.add(lid)
            self._cost[lid] = _COST_ALWAYS
        elif kind == "contains":
            self._contains_by_literal[literal] = lid
            self._hold_literal(literal)
            self._cost[lid] = 2.0 + 8.0 / len(literal)
        else:
            tables = self._starts if kind == "starts_with" else self._ends
            tables.setdefault(len(literal), {})[literal] = lid
            self._cost[lid] = 1.0
        return lid

    def _add_factors(self, lid: int, sets: tuple[frozenset[str], ...]) -> None:
        """Index a regex leaf under its trigger set; keep its other sets to check."""
        folded = [tuple(sorted({factor.casefold() for factor in s})) for s in sets]
        users = self._literals

        def rank(alternatives: tuple[str, ...]) -> tuple[int, int, int]:
            # Fewest indexed users, then the longest shortest literal, then fewest alternatives.
            return (
                sum(users.get(literal, 0) for literal in alternatives),
                -min(map(len, alternatives)),
                len(alternatives),
            )

        trigger = min(folded, key=rank)
        everything = frozenset(literal for alternatives in folded for literal in alternatives)
        self._factors[lid] = (everything, trigger)
        self._checks[lid] = tuple(other for other in folded if other != trigger)
        for literal in trigger:
            self._regex_by_literal.setdefault(literal, set()).add(lid)
        for literal in everything:
            self._hold_literal(literal)
        self._cost[lid] = min(
            3.0 + 8.0 / min(map(len, alternatives)) + 0.5 * (len(alternatives) - 1)
            for alternatives in folded
        )

    def _release(self, lid: int) -> None:
        self._refs[lid] -= 1
        if self._refs[lid]:
            return
        kind, literal = self._idents.pop(lid)
        del self._leaf_ids[(kind, literal)], self._refs[lid], self._cost[lid], self._watchers[lid]
        if kind == "regex":
            del self._regex[lid]
            self._unfiltered.discard(lid)
            factors = self._factors.pop(lid, None)
            if factors is not None:
                everything, trigger = factors
                del self._checks[lid]
                for literal in trigger:
                    users = self._regex_by_literal[literal]
                    users.discard(lid)
                    if not users:
                        del self._regex_by_literal[literal]
                for literal in everything:
                    self._drop_literal(literal)
        elif literal == "":
            self._always.discard(lid)
        elif kind == "contains":
            del self._contains_by_literal[literal]
            self._drop_literal(literal)
        else:
            tables = self._starts if kind == "starts_with" else self._ends
            table = tables[len(literal)]
            del table[literal]
            if not table:
                del tables[len(literal)]

    # -- the literal scan --------------------------------------------------------------------

    def _hold_literal(self, literal: str) -> None:
        count = self._literals.get(literal, 0)
        self._literals[literal] = count + 1
        if count == 0:
            if literal in self._built:
                self._stale.discard(literal)
            else:
                self._pending.add(literal)

    def _drop_literal(self, literal: str) -> None:
        count = self._literals[literal] - 1
        if count:
            self._literals[literal] = count
            return
        del self._literals[literal]
        if literal in self._pending:
            self._pending.discard(literal)
        else:
            self._stale.add(literal)

    def _maybe_rebuild(self, *, force: bool = False) -> None:
        if not self.native:
            return
        if not force and (
            len(self._pending) <= _MAX_PENDING
            and len(self._stale) <= max(64, len(self._built) // 4)
        ):
            return
        automaton: _ahocorasick.Automaton[str] | None = None
        if self._literals:
            assert _ahocorasick is not None
            automaton = _ahocorasick.Automaton()
            for literal in self._literals:
                automaton.add_word(literal, literal)
            automaton.make_automaton()
        self._automaton = automaton
        self._built = set(self._literals)
        self._pending = set()
        self._stale = set()

    def _literal_hits(self, folded: str) -> set[str]:
        """The indexed literals that occur in ``folded`` (stale ones may be included)."""
        if not self.native:
            return {literal for literal in self._literals if literal in folded}
        hits: set[str] = set()
        if self._automaton is not None:
            hits.update(map(_second, self._automaton.iter(folded)))
        for literal in self._pending:
            if literal in folded:
                hits.add(literal)
        return hits


def _evaluator(true: set[int], regex_true: Callable[[int], bool]) -> Callable[[_Node], bool]:
    def evaluate(node: _Node) -> bool:
        is_and, plain, regexes, children = node
        if is_and:
            if not plain <= true:
                return False
            for child in children:
                if not evaluate(child):
                    return False
            return all(regex_true(lid) for lid in regexes)
        if not plain.isdisjoint(true):
            return True
        for child in children:
            if evaluate(child):
                return True
        return any(regex_true(lid) for lid in regexes)

    return evaluate
