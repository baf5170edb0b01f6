"""render_answer: citations, § removal, code verbatim, Sources section (DESIGN section 4)."""

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sleuth_core.render import RenderedAnswer, render_answer
from sleuth_core.render import citations as impl

SOURCES = {
    1: {"source_id": 1, "display_text": "Error logs", "link": "https://logs.example/q?a=1&b=2"},
    2: {"source_id": 2, "display_text": "Deploy history", "link": "https://ci.example/runs"},
    "kb-7": {"display_text": "Runbook: payments", "link": "https://kb.example/7"},
}


def render(text, section=False, sources=SOURCES):
    return render_answer(text, sources, sources_section=section)


@pytest.mark.parametrize(
    ("source", "expected", "cited"),
    [
        ("A [[source:2]] b [[source:1]] c [[source:2]].", "A [1] b [2] c [1].", [2, 1]),
        ("Unknown [[source:99]] dropped.", "Unknown  dropped.", []),
        ("At §2026-01-01T09:12Z§ it broke.", "At 2026-01-01T09:12Z it broke.", []),
        ("str id [[source:kb-7]] and int [[source:1]]", "str id [1] and int [2]", ["kb-7", 1]),
        ("leading zero [[source:01]] is unknown", "leading zero  is unknown", []),
        ("spaced [[source: 1]] is not a marker", "spaced [[source: 1]] is not a marker", []),
        ("`code [[source:1]] §x§` then [[source:1]]", "`code [[source:1]] §x§` then [1]", [1]),
        ("``a ` [[source:2]]`` [[source:2]]", "``a ` [[source:2]]`` [1]", [2]),
        ("```\n[[source:1]] §t§\n```\n[[source:1]]", "```\n[[source:1]] §t§\n```\n[1]", [1]),
        ("~~~sql\n§a§\n~~~\n§b§", "~~~sql\n§a§\n~~~\nb", []),
        (
            "para\n\n    indented [[source:1]] §x§\n\nafter [[source:2]]",
            "para\n\n    indented [[source:1]] §x§\n\nafter [1]",
            [2],
        ),
        # an indented line continuing a paragraph or a list item is not code
        ("para\n    continued [[source:1]]", "para\n    continued [1]", [1]),
        (
            "- item\n\n    still the item [[source:1]] §t§",
            "- item\n\n    still the item [1] t",
            [1],
        ),
        ("1. step\n    - nested [[source:2]]", "1. step\n    - nested [1]", [2]),
        ("> quote `[[source:1]]` [[source:1]]", "> quote `[[source:1]]` [1]", [1]),
        (
            "| a | `[[source:1]]` |\n|---|---|\n| [[source:2]] | x \\| `§` |",
            "| a | `[[source:1]]` |\n|---|---|\n| [1] | x \\| `§` |",
            [2],
        ),
        ("escaped \\`[[source:1]]\\` is not code", "escaped \\`[1]\\` is not code", [1]),
        ("[[sou§rce:1]] joined", "[1] joined", [1]),
        ("[[source:[[source:99]]1]] nested", "[1] nested", [1]),
        ("line\r\n`[[source:1]]`\r\n[[source:2]]", "line\r\n`[[source:1]]`\r\n[1]", [2]),
        ("", "", []),
    ],
)
def test_examples(source, expected, cited):
    result = render(source)
    assert isinstance(result, RenderedAnswer)
    assert result.content == expected
    assert result.sources == [SOURCES[key] for key in cited]


def test_sources_section_format():
    text = "Errors rose [[source:1]] after the deploy [[source:2]], again [[source:1]].\n\n"
    result = render(text, section=True)
    assert result.content == (
        "Errors rose [1] after the deploy [2], again [1].\n"
        "\n"
        "Sources:\n"
        "[1] [Error logs](https://logs.example/q?a=1&b=2)\n"
        "[2] [Deploy history](https://ci.example/runs)"
    )
    assert result.sources[0] is not SOURCES[1]  # copies


def test_no_citations_no_section():
    assert render("Nothing cited [[source:42]].\n", section=True).content == "Nothing cited .\n"


def test_section_sanitizes_text_and_links():
    sources = {
        5: {"display_text": "odd [text] §x§\nwith `ticks`", "link": "https://a.example/x y(1)"},
        6: {"log_type_name": "nginx"},
    }
    result = render("[[source:5]] [[source:6]]", section=True, sources=sources)
    assert result.content.splitlines()[-2:] == [
        r"[1] [odd \[text\] x with \`ticks\`](https://a.example/x%20y%281%29)",
        "[2] nginx",
    ]


def test_open_fence_is_closed_before_sources():
    result = render("See [[source:1]]\n\n```\nlog line", section=True)
    assert result.content == (
        "See [1]\n\n```\nlog line\n```\n\nSources:\n[1] [Error logs](https://logs.example/q?a=1&b=2)"
    )


def test_colliding_ids_are_refused():
    with pytest.raises(ValueError, match="share the marker id"):
        render_answer("x", {7: {}, "7": {}}, sources_section=False)
    with pytest.raises(TypeError):
        render_answer("x", {1.5: {}}, sources_section=False)
    with pytest.raises(TypeError):
        render_answer(None, {}, sources_section=False)


# --- properties --------------------------------------------------------------------------

FRAGMENTS = [
    "[[source:1]]",
    "[[source:2]]",
    "[[source:kb-7]]",
    "[[source:9]]",
    "§",
    "§",
    "`",
    "``",
    "```",
    "~~~",
    "    ",
    "\t",
    "\n",
    "\n",
    "\n\n",
    "- ",
    "* ",
    "> ",
    "1. ",
    "word",
    "text ",
    " ",
    "# ",
    "|",
    "---",
    "<!--",
    "-->",
    "<pre>",
    "[",
    "]",
    "(",
    ")",
    "\\",
    "[[source:",
    "]]",
    "|---|---|\n",
    "=",
    "\r\n",
]
texts = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def full_parse_intervals(text):
    """Reference: code intervals from one markdown-it parse of the whole text."""
    scan = impl._scan_copy(text)
    region = impl._parse_region(scan)
    merged = []
    for a, b in sorted(i for i in region.intervals if i[1] > i[0]):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def covered(text, intervals):
    """The non-whitespace positions inside ``intervals`` (only those can hold § or markers)."""
    return {i for a, b in intervals for i in range(a, b) if not text[i].isspace()}


@SETTINGS
@given(texts)
def test_region_analysis_equals_full_parse(text):
    analysis = impl._analyse(impl._scan_copy(text))
    mine = analysis.intervals if analysis else []
    assert covered(text, mine) == covered(text, full_parse_intervals(text))


@SETTINGS
@given(texts, st.booleans())
def test_idempotent(text, section):
    once = render(text, section).content
    assert render(once, section).content == once
    assert render(once, False).content == once


@SETTINGS
@given(texts)
def test_numbers_are_one_to_n_and_nothing_left_outside_code(text):
    result = render(text)
    content = result.content
    outside = []
    pos = 0
    for a, b in full_parse_intervals(content):
        outside.append(content[pos:a])
        pos = b
    outside.append(content[pos:])
    plain = "".join(outside)
    assert "§" not in plain
    assert impl._MARKER.search(plain) is None
    # (a citation can end up inside code when dropping a marker makes a fence: "[[source:9]]```")
    numbers = {int(n) for n in re.findall(r"\[([0-9]+)\]", content)}
    assert numbers == set(range(1, len(result.sources) + 1))
    assert len({s["display_text"] for s in result.sources}) == len(result.sources)
