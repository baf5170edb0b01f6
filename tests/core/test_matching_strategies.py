"""Hypothesis strategies shared by the matching tests: rule trees, regexes, and texts."""

from __future__ import annotations

import regex
from hypothesis import strategies as st

# Characters chosen to collide: case pairs, case-folding oddities (ß -> ss, final sigma, dotted
# I, Kelvin sign, long s), regex metacharacters, whitespace and a non-BMP character.
ALPHABET = "aAbBsS-_. ßẞσςΣİiıKkſ\n😀$^*()[]|+?{}\\"
LITERAL_ALPHABET = "aAbBsS-_. ßẞσςΣİiıKkſ\n😀$^"

literals = st.text(alphabet=LITERAL_ALPHABET, max_size=5)

_regex_atoms = st.sampled_from(
    [
        "a",
        "b",
        "ab",
        "Ab",
        "ss",
        "ß",
        "σ",
        "-",
        r"\.",
        ".",
        ".*",
        r"\d",
        r"\s",
        "[ab]",
        "[^a]",
        "(a|b)",
        "(?:ab)+",
        "a+",
        "b?",
        "a*",
        "s{2}",
        "^",
        "$",
        r"\b",
        "(?=a)",
        "(?i)",
        "(?i:ab)",
        "(?:ab|ss)",
        "(a|ß)",
        "(?:ab|)",
        "😀",
        "|",
        r"\*",
        " ",
    ]
)


def _compiles(pattern: str) -> bool:
    try:
        regex.compile(pattern, cache_pattern=False)
    except regex.error:
        return False
    return True


regexes = st.lists(_regex_atoms, min_size=1, max_size=6).map("".join).filter(_compiles)

# Regexes in (or near) the shape the wildcard forward rule produces, to exercise the inverse.
_wild_parts = st.lists(literals.filter(bool), min_size=1, max_size=3)
wildcard_regexes = st.builds(
    lambda start, parts, end, escape: (
        ("^" if start else "")
        + ".*".join(regex.escape(p, special_only=True) if escape else p for p in parts)
        + ("$" if end else "")
    ),
    st.booleans(),
    _wild_parts,
    st.booleans(),
    st.booleans(),
).filter(_compiles)


def leaves() -> st.SearchStrategy[dict]:
    plain = st.builds(
        lambda kind, value: {"type": kind, "value": value},
        st.sampled_from(["contains", "starts_with", "ends_with"]),
        literals,
    )
    rx = st.builds(lambda value: {"type": "regex", "value": value}, regexes | wildcard_regexes)
    return st.one_of(plain, plain, rx)


def _node(children: st.SearchStrategy[dict]) -> st.SearchStrategy[dict]:
    return st.builds(
        lambda op, conditions: {"operator": op, "conditions": conditions},
        st.sampled_from(["AND", "OR"]),
        st.lists(children, min_size=1, max_size=4),
    )


trees = _node(st.one_of(leaves(), _node(leaves())))

patterns = st.text(alphabet=LITERAL_ALPHABET + "**", min_size=1, max_size=8)


@st.composite
def texts_for(draw: st.DrawFn, pieces: list[str]) -> str:
    """A text stitched from the given pieces (in any case) and random characters."""
    parts = []
    for _ in range(draw(st.integers(0, 6))):
        if pieces and draw(st.booleans()):
            piece = draw(st.sampled_from(pieces))
            parts.append(draw(st.sampled_from([piece, piece.upper(), piece.lower()])))
        else:
            parts.append(draw(st.text(alphabet=ALPHABET, max_size=4)))
    return "".join(parts)


def tree_literals(tree: dict) -> list[str]:
    """Leaf values of a tree, with regex values split at metacharacters into fragments."""
    out = []
    for item in tree["conditions"]:
        if "operator" in item:
            out.extend(tree_literals(item))
        elif item["type"] == "regex":
            out.extend(p for p in regex.split(r"[\\.*+?()\[\]|^${}]+", item["value"]) if p)
        else:
            out.append(item["value"])
    return out


# The strategies themselves must produce what the matching tests assume.
from hypothesis import given  # noqa: E402

from sleuth_core.matching.rules import validate_rules  # noqa: E402


@given(trees)
def test_generated_trees_are_valid(tree):
    assert validate_rules(tree, strict=False) == tree
