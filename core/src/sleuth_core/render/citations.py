"""Source markers -> numbered citations, ``§`` removal and the ``Sources:`` section.

Agents write ``[[source:<id>]]`` after a claim and wrap timestamps in ``§...§``. Outside code spans
and code blocks, :func:`render_answer` numbers the markers by first appearance (``[1]``, ``[2]``;
a repeated source keeps its number), drops markers whose id is not a known source, and removes
every ``§``. Code is quoted material and stays exactly as written (DESIGN section 4).

Source ids. ``sources`` maps ids to source records; an id is an ``int`` (SPEC: ``source_id`` is a
number) or a ``str``. A marker names a source by the id's text form: ``str(id)`` for an int (no
sign, no leading zeros: ``[[source:7]]`` names ``7`` but ``[[source:07]]`` names nothing), the
string itself for a str. Marker ids are one or more characters other than whitespace, ``[``,
``]`` and backticks; matching is exact (case-sensitive). Two keys with the same text form (``7``
and ``"7"``) are refused with ``ValueError``.

How code is found without paying for a full parse. markdown-it-py parses at a few MB/s, so it
runs only where code can be:

1. Code needs a backtick, a ``~~~`` fence, or an indented line (four spaces or a tab, possibly
   after container markers) that can start an indented code block, i.e. one that does not
   continue a plain paragraph line (a line of a table or of a link reference definition is
   not one: the block is looked at back to the last blank line; nor is a list item that does
   not start with paragraph text, e.g. ``1.`` alone, ``- # h`` or ``1. ***``). (HTML
   blocks of CommonMark types 1-5, which can hide fences across blank lines, count too.) Text
   with none of these takes the fast path: ``§`` removal and one marker substitution in
   C-level string operations.
2. Otherwise the text is cut into blank-line separated groups. A group whose first line starts
   at column 0 begins at the top level (after a blank line it cannot continue a list item, a
   quote or indented code; only an open top-level fence or HTML block could swallow it), so
   parsing may start there. Each group holding a candidate is parsed together with the
   groups back to the previous such "anchor" and up to the next one, with markdown-it-py's block
   parser, and the inline parser runs only on inline content containing a backtick (with only
   the rules that decide code spans, and, when there is no ``<``, on a copy in which the other
   characters it would stop at are letters, so it skips through the text in C). A sentinel
   line tells whether a fence or HTML block is still open at the end of the region; if so the
   region grows to the next one.
3. Most flagged groups need no parse at all. At an anchor group with nothing open before it:
   a fence at column 0 is followed to its closing line with one regex search (it takes the
   groups up to there, if it closes on the last line of a group followed by an anchor); and
   a group whose only candidates are backticks, with no ``<``, ``|`` or ``]:`` and no line
   that may open a fence (three backticks after container markers), has its backticks all in
   inline content, so when each line's backtick runs pair up within the line those pairs are
   its code spans however the lines join into paragraphs. Anything else takes point 2.

The text outside code is then processed in one pass: its segments are joined by a whitespace
character that is not in the text (no marker can span it), ``§`` removed, markers numbered in
order of appearance, and the result split back.

Idempotence. Removing ``§`` or markers can change code structure around it (``§```` becomes a
fence at the start of a line). Such a change matters only if code in the input holds ``§`` or a
marker; then the pass is repeated on its own output until it changes nothing, so rendering the
rendered content again never changes it. A marker exposed that way is numbered after the
others.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from typing import Any, NamedTuple
from urllib.parse import quote

from markdown_it import MarkdownIt
from markdown_it.rules_inline.backticks import backtick
from markdown_it.rules_inline.state_inline import StateInline
from markdown_it.token import Token

from sleuth_core.errors import InvalidSources

__all__ = ["RenderedAnswer", "render_answer"]

SourceId = int | str
#: The ``sources`` argument: records by source id. Spelled as a union because Mapping is invariant
#: in its key type: a ``dict[int, ...]`` is not a ``Mapping[int | str, ...]``.
Sources = (
    Mapping[int, Mapping[str, Any]]
    | Mapping[str, Mapping[str, Any]]
    | Mapping[SourceId, Mapping[str, Any]]
)

_OPEN = "[[source:"
_MARKER = re.compile(r"\[\[source:([^\s\[\]`]+)\]\]")
_MARKER_SPLIT = _MARKER  # split() on a one-group pattern yields text, id, text, id, ...

# Candidates for code (see the module docstring, point 1).
_HTML_CANDIDATE = re.compile(r"<(?:[!?]|(?i:pre|script|style|textarea))")
_PREFIX = re.compile(r"[ >*+\-0-9.)\t]*")
# A line that a following indented line would continue (lazily or not) rather than leave: after
# container markers, text that starts a paragraph. An ordered list marker ("1." or "1)" before
# a space, a tab or the line end) is not such text, like a bullet: the item it opens may start
# with a blank line, a heading, a thematic break or another list, none a paragraph.
_PLAIN_LINE = re.compile(
    r"[ \t]*(?:>[ \t]*)*(?:(?:[-+*]|[0-9]{1,9}[.)])[ \t]+)?"
    r"(?![0-9]{1,9}[.)](?:[ \t]|$))[^\s#|<>=~`\-+*_]",
    re.UNICODE,
)
_THEMATIC = re.compile(r"[ ]{0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_BLANKS = re.compile(r"\n(?:[ \t]*\n)+")
_TRAILING_BLANK = re.compile(r"\n[ \t\n]*\Z")
_SENTINEL = "\n\nx"
_LOOKBACK = 64  # lines looked back at for a table or a link reference definition
_NEUTRAL = re.compile(r"[!#$%&*+\-:=>@\[\]^_{}~]")
# Shortcuts that decide a group without markdown-it (see the module docstring, point 3).
_FENCE_LIKE = re.compile(r"[ >*+\-0-9.)\t]*(?:```|~~~)")
_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})([^\n]*)")
_TICK_OR_BACKSLASH = re.compile(r"[\\`]")
_TICK_RUN = re.compile(r"`+")
_CLOSERS: dict[int, re.Pattern[str]] = {}
# Whitespace to ``re`` (so never inside a marker id) and rare in text: joins the segments
# outside code for one substitution pass.
_SEPARATORS = ("\x1f", "\x1e", "\x1d", "\x1c", "\u2029", "\u2028", "\x85")
_FENCE_CLOSERS: dict[str, re.Pattern[str]] = {}
_LINK_ESCAPE = re.compile(r"([\\`\[\]<>*_])")
_LINK_SAFE = ":/?#@!$&'*+,;=%~-._"
_SAFE_LINK = re.compile(r"[A-Za-z0-9:/?#@!$&'*+,;=%~\-._]*")  # unchanged by quote()
_PLAIN_LABEL = re.compile(r"[^\s\\`\[\]<>*_§]+(?: [^\s\\`\[\]<>*_§]+)*")


class RenderedAnswer(NamedTuple):
    """The rendered markdown and the cited records; ``sources[n - 1]`` is citation ``[n]``."""

    content: str
    sources: list[dict[str, Any]]


def _record_backtick(state: StateInline, silent: bool) -> bool:
    """markdown-it's backtick rule, also recording where each code span sits in ``state.src``."""
    start = state.pos
    count = len(state.tokens)
    if not backtick(state, silent):
        return False
    if not silent and len(state.tokens) > count and state.tokens[-1].type == "code_inline":
        state.env["_sleuth_spans"].append((start, state.pos))
    return True


def _detector() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}).enable(["table"])
    # Only what decides where code spans are: backslash escapes, code spans, and autolinks and
    # raw HTML (which bind tighter than backticks). Links are off: a backtick pair inside a link
    # destination or title then counts as a code span, which keeps it verbatim (the safe side).
    md.inline.ruler.enableOnly(["text", "escape", "backticks", "autolink", "html_inline"])
    md.inline.ruler2.enableOnly([])
    md.inline.ruler.at("backticks", _record_backtick)
    return md


_MD = _detector()


class _Citations:
    """Numbering state of one rendering: the id index, numbers given so far, cited records."""

    __slots__ = ("cited", "index", "labels")

    def __init__(self, sources: Sources) -> None:
        index: dict[str, Mapping[str, Any]] = {}
        for key, record in sources.items():
            if isinstance(key, bool) or not isinstance(key, int | str):
                raise InvalidSources(f"source ids must be int or str, not {type(key).__name__}")
            if not isinstance(record, Mapping):
                raise InvalidSources(
                    f"source {key!r} must be an object, not {type(record).__name__}"
                )
            text = str(key)
            if text in index:
                raise InvalidSources(f"two sources share the marker id {text!r}")
            index[text] = record
        self.index = index
        self.labels: dict[str, str] = {}
        self.cited: list[dict[str, Any]] = []

    def substitute(self, text: str) -> str:
        """Number the markers of ``text`` (which holds no code and no ``§``)."""
        while True:
            parts = _MARKER_SPLIT.split(text)
            if len(parts) == 1:
                return text
            ids = parts[1::2]
            labels = self.labels
            dropped = False
            for marker_id in dict.fromkeys(ids):
                if marker_id not in labels:
                    record = self.index.get(marker_id)
                    if record is None:
                        dropped = True
                        labels[marker_id] = ""
                        continue
                    self.cited.append(dict(record))
                    labels[marker_id] = f"[{len(self.cited)}]"
            parts[1::2] = map(labels.__getitem__, ids)
            text = "".join(parts)
            # Dropping a marker can join text into a new one ("[[source:[[source:x]]1]]").
            if not dropped or _OPEN not in text:
                return text


def _scan_copy(text: str) -> str:
    """``text`` as markdown-it sees it, position for position (line endings, NUL)."""
    if "\r" in text:
        text = text.replace("\r\n", " \n").replace("\r", "\n")
    if "\0" in text:
        text = text.replace("\0", "\ufffd")
    return text


def _indented_code_can_start(scan: str, line_start: int, prefix: str) -> bool:
    """Whether the line at ``line_start`` (indented after ``prefix``) can hold indented code."""
    if line_start == 0 or prefix.strip(" \t"):
        # first line, or container markers before the indentation: a new container (which may
        # interrupt a paragraph) holding indented code
        return True
    prev_start = scan.rfind("\n", 0, line_start - 1) + 1
    prev = scan[prev_start : line_start - 1]
    # an indented line cannot interrupt a paragraph: after a plain text line it continues it
    if not prev.strip() or _PLAIN_LINE.match(prev) is None or _THEMATIC.match(prev) is not None:
        return True
    # ... unless that line ends a table or a link reference definition (which can span lines
    # but not a blank line): then the indented line starts code. So: a candidate when a line
    # of its block holds "|" or "]:" (walking back to an empty line, at most _LOOKBACK lines;
    # a line of spaces does not stop the walk, which only makes more candidates).
    find = scan.find
    end = line_start - 1
    start = prev_start
    for _ in range(_LOOKBACK):
        if start == end:  # an empty line
            return False
        if find("|", start, end) != -1 or find("]:", start, end) != -1:
            return True
        if start == 0:
            return False
        end = start - 1
        start = scan.rfind("\n", 0, end) + 1
    return True


def _candidates(scan: str) -> list[int]:
    """Positions where code can start, sorted (see the module docstring, point 1)."""
    found: list[int] = []
    find = scan.find
    # str.find runs in C; a regex alternation would scan the whole text in the regex engine
    at = find("`")
    while at != -1:
        found.append(at)
        at = find("`", _TICK_RUN.match(scan, at).end())  # type: ignore[union-attr]
    at = find("~~~")
    while at != -1:
        found.append(at)
        at = find("~~~", at + 3)
    at = find("<")
    while at != -1:
        if _HTML_CANDIDATE.match(scan, at):
            found.append(at)
        at = find("<", at + 1)
    if "    " in scan or "\t" in scan:
        for needle in ("    ", "\t"):
            at = scan.find(needle)
            while at != -1:
                line_start = scan.rfind("\n", 0, at) + 1
                prefix = scan[line_start:at]
                if _PREFIX.fullmatch(prefix) and _indented_code_can_start(scan, line_start, prefix):
                    found.append(line_start)
                # continue after this line's leading run
                at = scan.find(needle, scan.find("\n", at) + 1 or len(scan))
    found.sort()
    return found


class _Groups:
    """Blank-line separated groups of lines: start offsets, end offsets, anchor flags."""

    def __init__(self, scan: str) -> None:
        starts = [0]
        ends: list[int] = []
        for match in _BLANKS.finditer(scan):
            ends.append(match.start())
            starts.append(match.end())
        ends.append(len(scan))
        self.starts = starts
        self.ends = ends
        self.scan = scan

    def is_anchor(self, index: int) -> bool:
        if index == 0:
            return True
        start = self.starts[index]
        return start >= len(self.scan) or self.scan[start] not in " \t"

    def containing(self, position: int) -> int:
        return bisect_right(self.starts, position) - 1  # starts[0] == 0 <= position


def _line_starts(src: str) -> list[int]:
    starts = [0]
    find = src.find
    at = find("\n")
    while at != -1:
        starts.append(at + 1)
        at = find("\n", at + 1)
    return starts


def _locate(line: str, piece: str, start: int) -> tuple[int, list[int] | None, int] | None:
    """Where ``piece`` (a line of inline content) sits in ``line``.

    Returns ``(offset, index_map, skipped)``: piece position ``i`` is at ``offset + i - skipped``
    in ``line`` (or ``index_map[i]`` when given); None when it cannot be found.
    """
    at = len(line) - len(piece)
    if at >= start and line.endswith(piece):
        return at, None, 0
    at = line.find(piece, start)
    if at != -1:
        return at, None, 0
    stripped = piece.lstrip(" ")  # markdown-it expanded part of a tab into spaces
    if stripped != piece:
        at = line.find(stripped, start)
        if at != -1:
            return at, None, len(piece) - len(stripped)
    if "\\|" in line:  # table cells lose the backslash of an escaped pipe
        index_map: list[int] = []
        chars: list[str] = []
        i = 0
        while i < len(line):
            if line[i] == "\\" and line.startswith("|", i + 1):
                i += 1
            index_map.append(i)
            chars.append(line[i])
            i += 1
        at = "".join(chars).find(piece)
        if at != -1 and (at == 0 or index_map[at] >= start):
            return 0, [*index_map[at : at + len(piece)], index_map[at + len(piece) - 1] + 1], 0
    return None


def _inline_spans(
    token: Token, src: str, starts: list[int], cursor: dict[int, int], env: dict[str, Any]
) -> list[tuple[int, int]]:
    """Code spans of one inline token, as offsets into the region ``src``."""
    spans: list[tuple[int, int]] = []
    env["_sleuth_spans"] = spans
    content = token.content
    if "<" not in content:
        # Without autolinks or raw HTML only backticks and backslashes decide the code spans;
        # the other characters markdown-it stops at become letters (same length, same spans).
        content = _NEUTRAL.sub("a", content)
    _MD.inline.parse(content, _MD, env, [])
    if not spans:
        return []
    assert token.map is not None
    first_line = token.map[0]
    pieces = token.content.split("\n")
    # content offset of each piece, and the piece's position in the region source
    piece_offsets: list[int] = []
    locations: list[tuple[int, list[int] | None, int] | None] = []
    offset = 0
    for k, piece in enumerate(pieces):
        line_no = first_line + k
        line_begin = starts[line_no]
        line_end = starts[line_no + 1] - 1 if line_no + 1 < len(starts) else len(src)
        line = src[line_begin:line_end]
        located = _locate(line, piece, cursor.get(line_no, 0))
        if located is not None:
            at, index_map, skipped = located
            end_in_line = (
                (index_map[-1] if index_map else at + len(piece) - skipped) if piece else at
            )
            cursor[line_no] = end_in_line
            locations.append((line_begin + at, index_map, skipped))
        else:
            locations.append(None)
        piece_offsets.append(offset)
        offset += len(piece) + 1

    def to_source(position: int, is_end: bool) -> int | None:
        k = bisect_right(piece_offsets, position - (1 if is_end else 0)) - 1
        located = locations[k]
        if located is None:
            return None
        base, index_map, skipped = located
        i = position - piece_offsets[k]
        if index_map is not None:
            return base + (index_map[i - 1] + 1 if is_end else index_map[i])
        return base + max(i - skipped, 0)

    result: list[tuple[int, int]] = []
    for begin, end in spans:
        source_begin = to_source(begin, False)
        source_end = to_source(end, True)
        if source_begin is None or source_end is None:
            # Unmappable (not seen in practice): keep the token's whole lines verbatim.
            last = token.map[1] - 1
            line_end = starts[last + 1] - 1 if last + 1 < len(starts) else len(src)
            result.append((starts[first_line], line_end))
        else:
            result.append((source_begin, source_end))
    return result


class _Region(NamedTuple):
    intervals: list[tuple[int, int]]
    open_kind: str | None  # "fence" / "html_block" when the region ends inside one
    open_markup: str


def _parse_region(src: str) -> _Region:
    """Code intervals of a region (offsets into ``src``) and whether it ends inside a block."""
    text = src + _SENTINEL
    env: dict[str, Any] = {}
    tokens: list[Token] = []
    _MD.block.parse(text, _MD, env, tokens)
    starts = _line_starts(text)
    real_lines = len(_line_starts(src))
    intervals: list[tuple[int, int]] = []
    cursor: dict[int, int] = {}
    open_kind: str | None = None
    open_markup = ""
    for token in tokens:
        if token.map is None:
            continue
        first, last = token.map
        if first >= real_lines:
            continue
        if token.type in ("fence", "html_block") and last > real_lines and token.level == 0:
            open_kind = token.type
            open_markup = token.markup
        if token.type in ("fence", "code_block"):
            end_line = min(last, real_lines) - 1
            end = starts[end_line + 1] - 1 if end_line + 1 < len(starts) else len(src)
            intervals.append((starts[first], min(end, len(src))))
        elif token.type == "inline" and "`" in token.content:
            intervals.extend(_inline_spans(token, text, starts, cursor, env))
    return _Region(intervals, open_kind, open_markup)


def _closer(length: int) -> re.Pattern[str]:
    """A backtick run of exactly ``length`` backticks."""
    pattern = _CLOSERS.get(length)
    if pattern is None:
        pattern = _CLOSERS[length] = re.compile(f"(?<!`)`{{{length}}}(?!`)")
    return pattern


def _line_spans(scan: str, begin: int, end: int) -> list[tuple[int, int]] | None:
    """Code spans of the line ``scan[begin:end]``; None unless every backtick run pairs up in it.

    The scan is markdown-it's with only escapes and backticks deciding: a backslash takes the
    next character with it, a backtick run opens a span closed by the next run of the same
    length, and a run without one is text.
    """
    spans: list[tuple[int, int]] = []
    search = _TICK_OR_BACKSLASH.search
    pos = begin
    while True:
        found = search(scan, pos, end)
        if found is None:
            return spans
        at = found.start()
        if scan[at] == "\\":
            pos = at + 2
            continue
        run_end = _TICK_RUN.match(scan, at, end).end()  # type: ignore[union-attr]
        close = _closer(run_end - at).search(scan, run_end, end)
        if close is None:
            return None
        spans.append((at, close.end()))
        pos = close.end()


def _local_spans(scan: str, begin: int, end: int) -> list[tuple[int, int]] | None:
    """Code spans of a group whose only code candidates are backticks, line by line; or None.

    Without ``<`` (autolinks, raw HTML, HTML blocks), ``|`` (tables split cells before code
    spans), ``]:`` (link reference definitions) and lines that may open a fence (three backticks
    after container markers), every backtick of the group is in inline content. If each line's
    runs pair up within the line, joining lines into paragraphs cannot change the pairing.
    """
    if scan.find("<", begin, end) != -1 or scan.find("|", begin, end) != -1:
        return None
    if scan.find("]:", begin, end) != -1:
        return None
    spans: list[tuple[int, int]] = []
    find = scan.find
    line_begin = begin
    while line_begin < end:
        line_end = find("\n", line_begin, end)
        if line_end == -1:
            line_end = end
        if find("`", line_begin, line_end) != -1:
            if _FENCE_LIKE.match(scan, line_begin, line_end):
                return None
            line = _line_spans(scan, line_begin, line_end)
            if line is None:
                return None
            spans.extend(line)
        line_begin = line_end + 1
    return spans


def _top_fence(
    scan: str, groups: _Groups, index: int
) -> tuple[list[tuple[int, int]], int, str | None] | None:
    """A top-level fence opening group ``index``: (its interval, its last group, open markup).

    None unless the group starts with a fence at column 0, and the fence either runs to the end
    of the text or closes on the last line of a group followed by an anchor (or nothing).
    """
    begin = groups.starts[index]
    opener = _FENCE_OPEN.match(scan, begin)
    if opener is None:
        return None
    markup, info = opener.group(1), opener.group(2)
    if markup[0] == "`" and "`" in info:
        return None  # not a fence: inline code
    after = opener.end() + 1
    close = None
    if after <= len(scan):
        # a closing line: at most 3 spaces (a tab makes it indented code), at least as many
        # markers, then spaces and tabs only (markdown-it's fence rule at the top level)
        closing = _FENCE_CLOSERS.get(markup)
        if closing is None:
            closing = _FENCE_CLOSERS[markup] = re.compile(
                rf"^ {{0,3}}{re.escape(markup[0])}{{{len(markup)},}}[ \t]*$", re.MULTILINE
            )
        close = closing.search(scan, after)
    if close is None:
        return [(begin, len(scan))], len(groups.starts) - 1, markup
    end = close.end()
    last = groups.containing(end)
    if scan[end : groups.ends[last]].strip(" \t\n"):
        return None  # the group goes on after the fence
    if last + 1 < len(groups.starts) and not groups.is_anchor(last + 1):
        return None
    return [(begin, end)], last, None


def _shortcut(
    scan: str, groups: _Groups, index: int, strict: bool
) -> tuple[list[tuple[int, int]], int, str | None] | None:
    """Decide the anchor group ``index`` without markdown-it when that is unambiguous.

    Returns (code intervals, last group decided, markup of a fence open to the end) or None.
    ``strict`` tells that the group holds a code candidate other than a backtick.
    """
    begin = groups.starts[index]
    if begin < len(scan) and scan[begin] in "`~":
        return _top_fence(scan, groups, index)
    if strict:
        return None
    spans = _local_spans(scan, begin, groups.ends[index])
    if spans is None:
        return None
    return spans, index, None


class _Analysis(NamedTuple):
    intervals: list[tuple[int, int]]  # sorted, disjoint code intervals of the whole text
    open_fence: str | None  # markup of a top-level fence left open at the end of the text


def _analyse(scan: str) -> _Analysis | None:
    """Code intervals of ``scan``; None when it cannot contain code (the fast path)."""
    candidates = _candidates(scan)
    if not candidates:
        return None
    groups = _Groups(scan)
    count = len(groups.starts)
    flagged = sorted({groups.containing(p) for p in candidates})
    intervals: list[tuple[int, int]] = []
    open_fence: str | None = None
    strict = {groups.containing(p) for p in candidates if scan[p] != "`"}
    i = 0
    while i < len(flagged):
        first = flagged[i]
        if groups.is_anchor(first):
            shortcut = _shortcut(scan, groups, first, first in strict)
            if shortcut is not None:
                spans, last, markup = shortcut
                intervals.extend(spans)
                if markup is not None:  # a fence open to the end of the text
                    open_fence = markup
                    break
                i = bisect_right(flagged, last)
                continue
        while not groups.is_anchor(first):
            first -= 1
        last = flagged[i]
        while True:
            nxt = last + 1  # the anchor that ends the region (or the end of the text)
            while nxt < count and not groups.is_anchor(nxt):
                nxt += 1
            j = bisect_left(flagged, nxt)
            if flagged[j - 1] > last:  # a flagged group before that anchor: take it in
                last = flagged[j - 1]
                continue
            begin = groups.starts[first]
            end = groups.ends[nxt - 1]
            region = _parse_region(scan[begin:end])
            if region.open_kind is not None and nxt < count:
                # a fence or HTML block runs on past the anchor: grow to the next flagged group
                last = flagged[j] if j < len(flagged) else count - 1
                continue
            break
        if region.open_kind == "fence":
            open_fence = region.open_markup
        intervals.extend((begin + a, begin + b) for a, b in region.intervals if b > a)
        i = j
    intervals.sort()
    merged: list[tuple[int, int]] = []
    for a, b in intervals:
        if merged and a <= merged[-1][1]:
            if b > merged[-1][1]:
                merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return _Analysis(merged, open_fence)


def _one_pass(text: str, citations: _Citations) -> tuple[str, bool, str | None]:
    """Process ``text`` once. Returns (output, whether code held processable text, open fence)."""
    analysis = _analyse(_scan_copy(text))
    if analysis is None:
        if "§" in text:
            text = text.replace("§", "")
        if _OPEN in text:
            text = citations.substitute(text)
        return text, False, None
    outside: list[str] = []
    codes: list[str] = []
    pos = 0
    for begin, end in analysis.intervals:
        outside.append(text[pos:begin])
        codes.append(text[begin:end])
        pos = end
    outside.append(text[pos:])
    separator = next((c for c in _SEPARATORS if c not in text), None)
    if separator is None:  # every separator occurs in the text: one segment at a time
        outside = [_plain(segment, citations) for segment in outside]
        code = "".join(codes)
    else:
        # One pass over all the text outside code, the segments joined by a whitespace
        # character that is not in the text: no marker can span it, none can remove it.
        outside = _plain(separator.join(outside), citations).split(separator)
        code = separator.join(codes)
    code_has_markers = "§" in code or _MARKER.search(code) is not None
    out = outside + codes
    out[0::2] = outside
    out[1::2] = codes
    return "".join(out), code_has_markers, analysis.open_fence


def _plain(text: str, citations: _Citations) -> str:
    """``text`` (outside code) with ``§`` removed and its markers numbered."""
    if "§" in text:
        text = text.replace("§", "")
    if _OPEN in text:
        text = citations.substitute(text)
    return text


def _link_target(link: object) -> str:
    target = str(link).strip()
    if _SAFE_LINK.fullmatch(target):
        return target  # what quote() would return, without its per-character work
    return quote(target, safe=_LINK_SAFE)


def _link_text(text: str) -> str:
    if _PLAIN_LABEL.fullmatch(text):
        return text  # nothing to remove, collapse or escape
    text = " ".join(text.replace("§", "").split())
    return _LINK_ESCAPE.sub(r"\\\1", text)


def _sources_section(cited: list[dict[str, Any]]) -> str:
    lines = ["Sources:"]
    for number, record in enumerate(cited, start=1):
        label = record.get("display_text") or record.get("log_type_name") or f"Source {number}"
        text = _link_text(str(label)) or f"Source {number}"
        link = record.get("link")
        if link:
            lines.append(f"[{number}] [{text}]({_link_target(link)})")
        else:
            lines.append(f"[{number}] {text}")
    return "\n".join(lines)


def render_answer(
    markdown: str,
    sources: Sources,
    *,
    sources_section: bool,
) -> RenderedAnswer:
    """Render an agent's markdown: numbered citations, no ``§``, code verbatim.

    ``sources`` maps source ids (int or str, see the module docstring) to source records. Returns
    the rendered ``content`` and the cited records (copies) in citation order: ``sources[n - 1]``
    is citation ``[n]``. With ``sources_section`` (investigation and digest results) and at least
    one citation, ``content`` ends with a blank line, ``Sources:`` and one line per citation,
    ``[n] [display_text](link)`` (the link percent-encoded where markdown would break, the text
    escaped; ``[n] display_text`` when a record has no link). A top-level fence left open at the
    end is closed first, so the section is not swallowed by it.

    >>> sources = {7: {"display_text": "Error logs", "link": "https://logs.example/q?id=7"}}
    >>> result = render_answer("Errors rose §09:12Z§ [[source:7]] [[source:99]].", sources,
    ...                        sources_section=True)
    >>> print(result.content)
    Errors rose 09:12Z [1] .
    <BLANKLINE>
    Sources:
    [1] [Error logs](https://logs.example/q?id=7)
    """
    if not isinstance(markdown, str):
        raise InvalidSources("markdown must be a str")
    if not isinstance(sources, Mapping):
        raise InvalidSources("sources must map source ids to records")
    citations = _Citations(sources)
    text, again, open_fence = _one_pass(markdown, citations)
    while again:
        rerun, again, open_fence = _one_pass(text, citations)
        if rerun == text:
            break
        text = rerun
    if sources_section and citations.cited:
        if open_fence is not None:
            text = text.rstrip("\n") + "\n" + open_fence[0] * len(open_fence)
        text = _TRAILING_BLANK.sub("", text) + "\n\n" + _sources_section(citations.cited)
    return RenderedAnswer(text, citations.cited)
