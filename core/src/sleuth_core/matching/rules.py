"""Rule trees: structure, limits and regex vetting.

A rule tree is a plain dict. A node is ``{"operator": "AND" | "OR", "conditions": [...]}``; each
condition is a node or a leaf ``{"type": "contains" | "starts_with" | "ends_with" | "regex",
"value": str}``. The root is a node at depth 1; a node inside it is at depth 2; deeper is refused.

:func:`validate_rules` checks a tree and returns a canonical copy (only the keys above, in that
order). With ``strict=True`` (what :func:`~sleuth_core.matching.normalize_criteria` uses for user
input) it also enforces the size limits and refuses regexes with nested unbounded repetition; with
``strict=False`` (what evaluation uses on stored trees) it checks only what evaluation needs, so a
tree stored under older limits still evaluates.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import regex

from sleuth_core.errors import InvalidCriteria

OPERATORS = ("AND", "OR")
LEAF_TYPES = ("contains", "starts_with", "ends_with", "regex")

#: Deepest allowed node; the root node is depth 1.
MAX_DEPTH = 2
#: Most leaves in one tree (and most patterns in one ``text_matches``).
MAX_LEAVES = 100
#: Longest ``contains`` / ``starts_with`` / ``ends_with`` value, in characters.
MAX_LITERAL_LENGTH = 1000
#: Longest wildcard pattern, in characters (stars included).
MAX_PATTERN_LENGTH = 2000
#: Longest ``regex`` value, in characters. Large enough for any regex a legal pattern produces.
MAX_REGEX_LENGTH = 4096
#: Text beyond this many characters is ignored by every leaf (the API refuses bodies over 1 MiB).
MAX_TEXT_LENGTH = 1_048_576
#: Seconds one regex leaf may search one text; a search that runs out counts as "no match".
REGEX_TIMEOUT = 0.05

_NODE_KEYS = frozenset(("operator", "conditions"))
_LEAF_KEYS = frozenset(("type", "value"))
_LEAF_TYPE_SET = frozenset(LEAF_TYPES)


def _short(value: str, limit: int = 60) -> str:
    return value if len(value) <= limit else value[: limit - 3] + "..."


def validate_rules(
    rules: Any, *, strict: bool = True, where: str = "match_rules"
) -> dict[str, Any]:
    """Check a rule tree and return a canonical copy of it.

    Raises :class:`~sleuth_core.errors.InvalidCriteria` naming the offending place, for example
    ``match_rules.conditions[1]: unknown operator 'XOR'; use AND or OR``.
    """
    counter = [0]
    tree = _validate_node(rules, 1, (where,), strict, counter)
    if strict and counter[0] > MAX_LEAVES:
        raise InvalidCriteria(
            f"{where} has {counter[0]} conditions; at most {MAX_LEAVES} leaf conditions are allowed"
        )
    return tree


def _is_mapping(value: Any) -> bool:
    return type(value) is dict or isinstance(value, Mapping)


def _name(path: tuple[str | int, ...]) -> str:
    """``("match_rules", 0, 1)`` -> ``match_rules.conditions[0].conditions[1]``."""
    return str(path[0]) + "".join(f".conditions[{i}]" for i in path[1:])


def _validate_node(
    node: Any, depth: int, path: tuple[str | int, ...], strict: bool, counter: list[int]
) -> dict[str, Any]:
    if not _is_mapping(node):
        raise InvalidCriteria(f"{_name(path)} must be an object with operator and conditions")
    if "operator" not in node or "conditions" not in node:
        if "type" in node and depth == 1:
            raise InvalidCriteria(
                f"{_name(path)} must be a node {{operator, conditions}}, not a single leaf "
                'condition; wrap it as {"operator": "AND", "conditions": [...]}'
            )
        raise InvalidCriteria(f"{_name(path)} must have both operator and conditions")
    if len(node) != 2:
        extra = sorted(map(str, set(node) - _NODE_KEYS))[0]
        raise InvalidCriteria(f"{_name(path)} has unknown member {extra!r}")
    operator = node["operator"]
    if operator not in OPERATORS:
        shown = repr(operator) if isinstance(operator, str) else type(operator).__name__
        raise InvalidCriteria(f"{_name(path)}: unknown operator {shown}; use AND or OR")
    conditions = node["conditions"]
    if type(conditions) is not list and not isinstance(conditions, list | tuple):
        raise InvalidCriteria(f"{_name(path)}.conditions must be an array")
    if not conditions:
        raise InvalidCriteria(f"{_name(path)}.conditions must not be empty")
    out = []
    for i, item in enumerate(conditions):
        if _is_mapping(item) and ("operator" in item or "conditions" in item):
            if depth >= MAX_DEPTH:
                raise InvalidCriteria(
                    f"{_name((*path, i))}: match_rules nesting is too deep; at most {MAX_DEPTH} "
                    "levels are allowed (the root node and nodes directly inside it)"
                )
            out.append(_validate_node(item, depth + 1, (*path, i), strict, counter))
        else:
            out.append(_validate_leaf(item, path, i, strict))
            counter[0] += 1
    return {"operator": operator, "conditions": out}


def _validate_leaf(
    leaf: Any, path: tuple[str | int, ...], index: int | None, strict: bool
) -> dict[str, Any]:
    def where() -> str:
        return _name(path if index is None else (*path, index))

    if not _is_mapping(leaf):
        raise InvalidCriteria(f"{where()} must be an object: a node or a leaf {{type, value}}")
    if "type" not in leaf or "value" not in leaf:
        raise InvalidCriteria(f"{where()} must have both type and value")
    if len(leaf) != 2:
        extra = sorted(map(str, set(leaf) - _LEAF_KEYS))[0]
        raise InvalidCriteria(f"{where()} has unknown member {extra!r}")
    kind = leaf["type"]
    if type(kind) is not str or kind not in _LEAF_TYPE_SET:
        shown = repr(kind) if isinstance(kind, str) else type(kind).__name__
        raise InvalidCriteria(
            f"{where()}: unknown condition type {shown}; "
            "use contains, starts_with, ends_with or regex"
        )
    value = leaf["value"]
    if type(value) is not str and not isinstance(value, str):
        raise InvalidCriteria(f"{where()}.value must be a string")
    if kind == "regex":
        if strict:
            check_regex(value, where())
        else:
            compile_regex(value)
    elif strict and len(value) > MAX_LITERAL_LENGTH:
        raise InvalidCriteria(
            f"{where()}.value is {len(value)} characters long; "
            f"at most {MAX_LITERAL_LENGTH} are allowed"
        )
    return {"type": kind, "value": value}


@functools.lru_cache(maxsize=16384)
def _compile(value: str) -> regex.Pattern[str] | str:
    try:
        return regex.compile(value, cache_pattern=False)  # cached here, by lru_cache
    except (regex.error, ValueError, OverflowError, RecursionError) as exc:
        return str(exc)


def compile_regex(value: str) -> regex.Pattern[str]:
    """Compile a regex leaf's value with the ``regex`` module (cached), or raise InvalidCriteria."""
    compiled = _compile(value)
    if isinstance(compiled, str):
        raise InvalidCriteria(f"Invalid regex {_short(value)!r}: {compiled}")
    return compiled


def check_regex(value: str, where: str = "regex") -> regex.Pattern[str]:
    """Vet a user's regex: length, syntax, and no nested unbounded repetition such as ``(a+)+``."""
    if len(value) > MAX_REGEX_LENGTH:
        raise InvalidCriteria(
            f"{where}: regex is {len(value)} characters long; "
            f"at most {MAX_REGEX_LENGTH} are allowed"
        )
    compiled = compile_regex(value)
    if has_nested_repeat(value):
        raise InvalidCriteria(
            f"Invalid regex {_short(value)!r}: it repeats a group that is itself repeated "
            "(like (a+)+ or (\\w+\\s?)*), which can take exponential time; "
            "rewrite it without the nested repetition"
        )
    return compiled


# -- catastrophic-backtracking heuristic ------------------------------------------------------
# The structure is read with the standard library's regex parser. The `regex` module accepts a
# superset of that syntax; a pattern the standard parser cannot read is not analysed (evaluation
# is still bounded by REGEX_TIMEOUT). On Python 3.11+ (the supported versions) the parser is
# re._parser/re._constants; typeshed describes it under its old public names sre_parse and
# sre_constants, which on 3.11+ re-export those modules with a DeprecationWarning on import.
if TYPE_CHECKING:
    import sre_constants as _sre_c
    import sre_parse as _sre_parse
else:
    import re._constants as _sre_c
    import re._parser as _sre_parse


#: One item of a parsed pattern: (opcode, argument). The argument's shape depends on the opcode
#: (a repeat's is ``(min, max, body)``, a branch's ``(None, [alternatives])``, ...).
_ParsedItem = tuple[object, Any]


@functools.lru_cache(maxsize=4096)
def has_nested_repeat(value: str) -> bool:
    """Whether an unbounded (or over-100) repeat in the regex contains another repeat.

    This is the "star height > 1" rule used by regex linters: ``(a+)+``, ``(a*)*``, ``(\\w+\\s?)*``
    and ``(.*x){2,}`` are reported; ``a+b*``, ``(ab)+`` and ``(a|b){1,5}`` are not.
    """
    try:
        parsed = _sre_parse.parse(value)
    except Exception:
        return False
    c = _sre_c
    repeats = (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", c.MAX_REPEAT))

    def has_repeat(items: Iterable[_ParsedItem]) -> bool:
        for op, av in items:
            if op in repeats and av[1] > 1:
                return True
            if _children_have(op, av, has_repeat):
                return True
        return False

    def walk(items: Iterable[_ParsedItem]) -> bool:
        for op, av in items:
            if op in repeats:
                _, hi, body = av
                if (hi == c.MAXREPEAT or hi > 100) and has_repeat(body):
                    return True
                if walk(body):
                    return True
            elif _children_have(op, av, walk):
                return True
        return False

    return walk(parsed.data)


def _children_have(op: object, av: Any, test: Callable[[Iterable[_ParsedItem]], bool]) -> bool:
    c = _sre_c
    if op == c.SUBPATTERN:
        return test(av[-1])
    if op == c.BRANCH:
        return any(test(branch) for branch in av[1])
    if op in (c.ASSERT, c.ASSERT_NOT):
        return test(av[1])
    if op == getattr(c, "ATOMIC_GROUP", None):
        return test(av)
    if op == c.GROUPREF_EXISTS:
        return any(test(branch) for branch in av[1:] if branch is not None)
    return False
