"""render_answer: citations, § removal, code verbatim, Sources section (DESIGN section 4)."""

import ast
import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sleuth_core.errors import CoreError, InvalidSources
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
    with pytest.raises(InvalidSources, match="share the marker id"):
        render_answer("x", {7: {}, "7": {}}, sources_section=False)
    with pytest.raises(InvalidSources, match="int or str"):
        render_answer("x", {1.5: {}}, sources_section=False)
    with pytest.raises(InvalidSources, match="markdown must be a str"):
        render_answer(None, {}, sources_section=False)
    with pytest.raises(InvalidSources, match="must be an object"):
        render_answer("x", {1: "not a record"}, sources_section=False)
    with pytest.raises(InvalidSources, match="must map source ids"):
        render_answer("x", [1, 2], sources_section=False)
    assert issubclass(InvalidSources, CoreError)


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
# a list item starting with a blank line (or a heading, a thematic break) holds no paragraph: a
# line indented 4 or more past its content column is indented code inside it
@example("1. \n        [[source:1]]")
@example("1.\n       [[source:1]] §t§")
@example("- 1. \n          [[source:1]]")
@example("1. a\n\n   2.\n          [[source:1]]")
@example("1. # h\n        [[source:1]]")
@example("1. ***\n        [[source:1]]")
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


# --- the shortcuts that skip markdown-it (module docstring, point 3) ------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # a fence inside a list item, with a blank line inside it
        (
            "- item\n\n  ```\n  `x` [[source:1]]\n\n  §t§\n  ```\n\nafter [[source:2]]",
            "- item\n\n  ```\n  `x` [[source:1]]\n\n  §t§\n  ```\n\nafter [1]",
        ),
        # a tab-indented line continues a paragraph, but after a blank line it is code
        ("para `a`\n\tgoes on [[source:1]] §t§", "para `a`\n\tgoes on [1] t"),
        ("para `a`\n\n\tcode [[source:1]] §t§", "para `a`\n\n\tcode [[source:1]] §t§"),
        # backtick runs of unequal length
        ("``a` [[source:1]]`` b [[source:2]]", "``a` [[source:1]]`` b [1]"),
        ("`a`` [[source:1]] §t§", "`a`` [1] t"),
        ("x ``` y [[source:1]] ``` z [[source:2]]", "x ``` y [[source:1]] ``` z [1]"),
        # an unclosed fence runs to the end of the text
        (
            "text\n\n```\ncode [[source:1]]\n\nmore §x§",
            "text\n\n```\ncode [[source:1]]\n\nmore §x§",
        ),
        # ~~~ fences, closed only by at least as many of the same character
        ("~~~~\n~~~\n```\n§a§\n~~~~\n§b§", "~~~~\n~~~\n```\n§a§\n~~~~\nb"),
        # not closing lines: indented four spaces or by a tab, or followed by text
        ("```\n    ```\n\t```\n``` x\n§a§", "```\n    ```\n\t```\n``` x\n§a§"),
        # a fence closing inside a later group, followed by more text in that group
        (
            "```\na\n\nb §t§\n```\nafter `x` [[source:1]] §t§",
            "```\na\n\nb §t§\n```\nafter `x` [1] t",
        ),
        # a fence followed by an indented group: indented code after it
        ("```\na\n```\n\n    code §x§\n\nb §x§", "```\na\n```\n\n    code §x§\n\nb x"),
        # a backtick in a backtick fence's info string: not a fence but a code span
        ("``` `x` [[source:1]]\n[[source:2]]", "``` `x` [1]\n[2]"),
        # a code span across a line break inside a paragraph
        ("a `b\nc [[source:1]]` d [[source:2]]", "a `b\nc [[source:1]]` d [1]"),
        ("- a `b\n  c [[source:1]]` [[source:2]]", "- a `b\n  c [[source:1]]` [1]"),
        # escaped backticks open nothing; a backslash is literal inside a code span
        ("\\`a [[source:1]] `b\\` [[source:2]]", "\\`a [1] `b\\` [2]"),
        # backticks next to an autolink or raw HTML, and in a table cell
        ("<http://x.example/`> `[[source:1]]", "<http://x.example/`> `[1]"),
        ("| `a | b` |\n|---|---|\n| [[source:1]] | `§` |", "| `a | b` |\n|---|---|\n| [1] | `§` |"),
        # after a table row or a link reference definition an indented line is code
        ("a | b\n--|--\nc | d\n    x [[source:1]]", "a | b\n--|--\nc | d\n    x [[source:1]]"),
        ("[a]: /url\n    x [[source:1]] `y`", "[a]: /url\n    x [[source:1]] `y`"),
        ("[a]: /url\n't'\n    x §t§", "[a]: /url\n't'\n    x §t§"),
        # a heading and a quote with code spans, and a fence after a quote
        ("# `h §t§` [[source:1]]\n> q `§` §t§", "# `h §t§` [1]\n> q `§` t"),
        ("> q\n\n```\n§a§\n```", "> q\n\n```\n§a§\n```"),
    ],
)
def test_shortcut_boundaries(source, expected):
    assert render(source).content == expected
    analysis = impl._analyse(impl._scan_copy(source))
    assert covered(source, analysis.intervals) == covered(source, full_parse_intervals(source))


def test_common_code_needs_no_markdown_it(monkeypatch):
    """Paragraphs with code spans and top-level fences are decided without a parse."""
    text = (
        "# Summary\n\nRun `kubectl get pods` now [[source:1]] at §09:12§.\n"
        "Then `a` and ``b ` c`` [[source:2]].\n\n"
        "- item with `code` [[source:1]]\n    - nested §t§\n\n"
        "```sql\nSELECT 1; -- [[source:1]]\n\n§t§\n```\n\n"
        "~~~\n§x§\n~~~\n\nEnd [[source:kb-7]].\n"
    )

    def fail(src):
        raise AssertionError(f"markdown-it parse of {src!r}")

    expected = full_parse_intervals(text)
    monkeypatch.setattr(impl, "_parse_region", fail)
    analysis = impl._analyse(impl._scan_copy(text))
    assert covered(text, analysis.intervals) == covered(text, expected)
    result = render(text)
    assert "SELECT 1; -- [[source:1]]\n\n§t§" in result.content
    assert "Run `kubectl get pods` now [1] at 09:12." in result.content
    assert [s["display_text"] for s in result.sources] == [
        "Error logs",
        "Deploy history",
        "Runbook: payments",
    ]


def test_separators_are_whitespace_to_the_marker_pattern():
    for separator in impl._SEPARATORS:
        assert impl._MARKER.search(f"[[source:1{separator}]]") is None


def test_segments_are_processed_when_every_separator_occurs():
    text = "".join(impl._SEPARATORS) + " `[[source:1]]` [[source:2]] §t§ `§`"
    expected = "".join(impl._SEPARATORS) + " `[[source:1]]` [1] t `§`"
    assert render(text).content == expected


LINE_BITS = ["word ", "`a`", "``", "`", "```", "````", "~~~", " ", "\t", "- ", "1. ", "> ", "# "]
LINE_BITS += ["\\", "[[source:1]]", "§", "|", "]: ", "<b>", "x", "    ", "[a]: /u"]
lines = st.lists(st.sampled_from(LINE_BITS), max_size=6).map("".join)
fences = st.tuples(
    st.sampled_from(["```", "````", "~~~", "```py", "``` `x`", "  ```", "- ```"]),
    st.lists(lines, max_size=3),
    st.sampled_from(["```", "````", "~~~", "   ```", "\t```", "``` x", "```  ", ""]),
    st.sampled_from(["", "\n", "\n\n", "\nafter `b`"]),
).map(lambda f: f[0] + "\n" + "".join(line + "\n" for line in f[1]) + f[2] + f[3])
blocks = st.one_of(lines, fences, st.lists(lines, min_size=1, max_size=3).map("\n".join))
documents = st.lists(
    st.tuples(blocks, st.sampled_from(["\n", "\n\n", "\n\n\n", "\n  \n"])), max_size=8
).map(lambda parts: "".join(block + separator for block, separator in parts))


@SETTINGS
@given(documents)
def test_block_structured_analysis_equals_full_parse(text):
    analysis = impl._analyse(impl._scan_copy(text))
    mine = analysis.intervals if analysis else []
    assert covered(text, mine) == covered(text, full_parse_intervals(text))
    region = impl._parse_region(impl._scan_copy(text))
    open_fence = region.open_markup if region.open_kind == "fence" else None
    assert (analysis.open_fence if analysis else None) == open_fence


# --- list items starting with a blank line -----------------------------------------------------


def literal_table(text: str) -> list[tuple[str, str]]:
    """Rows ``'source' -> 'rendered'`` of Python string literals; lines starting with # are notes.

    The table is a raw string, so the literals' escapes (``\\n``, ``\\t``) read as written.
    """
    rows = []
    for line in text.strip().splitlines():
        if not line.startswith("#"):
            source, rendered = line.split(" -> ")
            rows.append((ast.literal_eval(source), ast.literal_eval(rendered)))
    return rows


# An item whose first line is empty has its content column at the marker's width plus one, so a
# line indented four more is indented code in it (not a continuation: there is no paragraph);
# likewise after an item starting with a heading, a thematic break or an empty nested item.
BLANK_START_ITEMS = literal_table(r"""
# ordered, '.' and ')' markers, wider numbers, tabs: code, kept verbatim
'1. \n        [[source:1]] §t§'       -> '1. \n        [[source:1]] §t§'
'1.\n       [[source:1]] §t§'        -> '1.\n       [[source:1]] §t§'
'1) \n       [[source:1]]'           -> '1) \n       [[source:1]]'
'10. \n         [[source:1]]'        -> '10. \n         [[source:1]]'
'1.\t\n\t\t[[source:1]]'              -> '1.\t\n\t\t[[source:1]]'
'1. \n\t\t[[source:1]]'               -> '1. \n\t\t[[source:1]]'
# nested in a bullet item, in a quote, and after a blank line inside a list
'- 1. \n          [[source:1]]'      -> '- 1. \n          [[source:1]]'
'- 1.\n\t\t\t[[source:1]]'            -> '- 1.\n\t\t\t[[source:1]]'
'> 1. \n>        [[source:1]]'       -> '> 1. \n>        [[source:1]]'
'1. a\n\n   2.\n          [[source:1]]' -> '1. a\n\n   2.\n          [[source:1]]'
# items starting with a heading, a thematic break or an empty nested item: no paragraph either
'1. # h\n        [[source:1]]'        -> '1. # h\n        [[source:1]]'
'1) #\n        [[source:1]]'          -> '1) #\n        [[source:1]]'
'1. ***\n        [[source:1]]'        -> '1. ***\n        [[source:1]]'
'1. ---\n        [[source:1]]'        -> '1. ---\n        [[source:1]]'
'1. - \n         [[source:1]]'        -> '1. - \n         [[source:1]]'
'- 1. # h\n          [[source:1]]'    -> '- 1. # h\n          [[source:1]]'
# bullet markers
'- \n      [[source:1]]'              -> '- \n      [[source:1]]'
'* \n      [[source:1]]'              -> '* \n      [[source:1]]'
# less indented: a paragraph in the item, processed
'1. \n    [[source:1]] §t§'           -> '1. \n    [1] t'
'- \n     [[source:1]]'               -> '- \n     [1]'
# an empty item cannot interrupt a paragraph: the lines continue it, processed
'para\n1. \n        [[source:1]]'     -> 'para\n1. \n        [1]'
'1. a\n   2.\n          [[source:1]]' -> '1. a\n   2.\n          [1]'
# a marker with text after it opens a paragraph: the indented line continues it
'1. a\n        [[source:1]]'          -> '1. a\n        [1]'
'1. #x\n        [[source:1]]'         -> '1. #x\n        [1]'
'1. > q\n        [[source:1]]'        -> '1. > q\n        [1]'
# not list markers: ten digits, no space after the dot
'1234567890.\n        [[source:1]]'   -> '1234567890.\n        [1]'
'1.x\n        [[source:1]]'           -> '1.x\n        [1]'
""")


@pytest.mark.parametrize(("source", "expected"), BLANK_START_ITEMS)
def test_list_items_starting_blank(source, expected):
    assert render(source).content == expected
    analysis = impl._analyse(impl._scan_copy(source))
    mine = analysis.intervals if analysis else []
    assert covered(source, mine) == covered(source, full_parse_intervals(source))
