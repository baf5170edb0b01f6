"""Markdown -> the alt webhook's message: one Adaptive Card (INTEGRATIONS.md section 7).

The card is version 1.4 and works with both legacy connector URLs and Workflows URLs. A
``TextBlock`` understands only a CommonMark subset (``**bold**``, ``_italic_``, ``- ``/``1. ``
lists, ``[text](url)``), so :func:`to_alt_card` maps the markdown's blocks onto card elements:

- the title: a ``TextBlock`` with ``weight: Bolder``, ``size: Medium``;
- headings: ``TextBlock`` with ``weight: Bolder``;
- paragraphs and lists: ``TextBlock`` (lists as ``- item`` / ``1. item`` lines, nested items
  indented by two spaces); strikethrough loses its markers, code spans keep their backticks;
- block quotes: a subtle ``TextBlock``; code blocks: a ``TextBlock`` with ``fontType: Monospace``;
- tables: a ``FactSet`` (header as a bold line above it) when they have two columns, otherwise
  an aligned monospace ``TextBlock``; a thematic break puts a separator on the next element.

Every ``TextBlock`` has ``wrap: true``. With a ``url`` the card gets an ``Action.OpenUrl`` titled
``Open in Sleuth``. The serialized message (measured with ``json.dumps`` defaults, ASCII-escaped,
the larger of the usual encodings) is kept within :data:`MAX_CARD_BYTES`: when the body does not
fit, it is cut at an element (the last one shortened if that keeps enough of it) and a final
note says the text was truncated.
"""

from __future__ import annotations

import json
from typing import Any

from markdown_it.tree import SyntaxTreeNode

from sleuth_core.render._tree import aligned, list_items, parse_tree, table_rows

__all__ = ["MAX_CARD_BYTES", "to_alt_card"]

#: Upper bound for the whole serialized message; the platform's limit is about 28 KB.
MAX_CARD_BYTES = 27_000

_TRUNCATED = "The message was truncated."
_TRUNCATED_WITH_LINK = "The message was truncated; open it in Sleuth for the full text."
_MIN_PARTIAL = 200


def _size(value: Any) -> int:
    return len(json.dumps(value))


def _text_block(text: str, **extra: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "TextBlock", "text": text, "wrap": True}
    block.update(extra)
    return block


def _inline(node: SyntaxTreeNode) -> str:
    out: list[str] = []
    for child in node.children:
        kind = child.type
        if kind == "text":
            out.append(child.content)
        elif kind == "code_inline":
            out.append(f"`{child.content}`")
        elif kind == "softbreak":
            out.append(" ")
        elif kind == "hardbreak":
            out.append("\n")
        elif kind == "strong":
            out.append(f"**{_inline(child)}**")
        elif kind == "em":
            out.append(f"_{_inline(child)}_")
        elif kind == "link":
            out.append(f"[{_inline(child)}]({child.attrs.get('href', '')})")
        elif kind == "image":
            out.append(f"[{child.content or 'image'}]({child.attrs.get('src', '')})")
        elif child.children:
            out.append(_inline(child))
        else:
            out.append(child.content)
    return "".join(out)


def _plain(node: SyntaxTreeNode) -> str:
    """Text of an inline node without markup (headings, fact titles and values)."""
    parts: list[str] = []
    for child in node.children:
        if child.children:
            parts.append(_plain(child))
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        else:
            parts.append(child.content)
    return "".join(parts)


def _list_lines(node: SyntaxTreeNode, depth: int) -> list[str]:
    lines: list[str] = []
    for marker, item in list_items(node, "-"):
        first = True
        for child in item.children:
            if child.type in ("bullet_list", "ordered_list"):
                lines.extend(_list_lines(child, depth + 1))
                continue
            text = _inline(child.children[0]) if child.type == "paragraph" else child.content
            prefix = f"{'  ' * depth}{marker} " if first else f"{'  ' * depth}   "
            lines.append(prefix + text.strip())
            first = False
        if first:
            lines.append(f"{'  ' * depth}{marker}")
    return lines


def _elements(nodes: list[SyntaxTreeNode]) -> list[dict[str, Any]]:
    elements: list[dict[str, Any]] = []
    separator = False
    for node in nodes:
        kind = node.type
        made: list[dict[str, Any]] = []
        if kind == "paragraph" and node.children:
            made.append(_text_block(_inline(node.children[0])))
        elif kind == "heading" and node.children:
            made.append(_text_block(_plain(node.children[0]), weight="Bolder"))
        elif kind in ("bullet_list", "ordered_list"):
            made.append(_text_block("\n".join(_list_lines(node, 0))))
        elif kind == "blockquote":
            inner = _elements(node.children)
            for element in inner:
                element["isSubtle"] = True
            made.extend(inner)
        elif kind in ("fence", "code_block"):
            made.append(_text_block(node.content.rstrip("\n"), fontType="Monospace"))
        elif kind == "table":
            rows = table_rows(node, _plain)
            if rows and all(len(row) == 2 for row in rows):
                header, body = rows[0], rows[1:]
                made.append(_text_block(f"{header[0]} — {header[1]}", weight="Bolder"))
                facts = [{"title": title, "value": value} for title, value in body]
                made.append({"type": "FactSet", "facts": facts})
            else:
                made.append(_text_block(aligned(rows), fontType="Monospace"))
        elif kind == "hr":
            separator = True
            continue
        elif node.children:
            made.extend(_elements(node.children))
        elif node.content.strip():
            made.append(_text_block(node.content.rstrip("\n")))
        if made and separator:
            made[0]["separator"] = True
            separator = False
        elements.extend(made)
    return elements


def _shorten(element: dict[str, Any], budget: int) -> dict[str, Any] | None:
    """``element`` cut down to at most ``budget`` serialized bytes, or None if that is too small."""
    if element.get("type") != "TextBlock" or budget < _MIN_PARTIAL:
        return None
    text = element["text"]
    low, high = 0, len(text)
    best: dict[str, Any] | None = None
    while low <= high:  # the longest prefix that fits
        middle = (low + high) // 2
        candidate = dict(element, text=text[:middle].rstrip() + " …")
        if _size(candidate) + 2 <= budget:
            best, low = candidate, middle + 1
        else:
            high = middle - 1
    if best is None or len(best["text"]) < _MIN_PARTIAL // 4:
        return None
    return best


def to_alt_card(title: str, markdown: str, url: str | None) -> dict[str, Any]:
    """The alt webhook message for ``title`` and ``markdown``: one Adaptive Card 1.4.

    >>> card = to_alt_card("Investigation finished", "## Cause\\n\\n**Bad deploy**", "https://x.example/i/1")
    >>> content = card["attachments"][0]["content"]
    >>> [(b["text"], b.get("weight")) for b in content["body"]]
    [('Investigation finished', 'Bolder'), ('Cause', 'Bolder'), ('**Bad deploy**', None)]
    >>> content["actions"]
    [{'type': 'Action.OpenUrl', 'title': 'Open in Sleuth', 'url': 'https://x.example/i/1'}]
    """
    if not isinstance(title, str):
        raise TypeError("title must be a str")
    content: dict[str, Any] = {
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": "1.4",
        "body": [_text_block(title, weight="Bolder", size="Medium")],
    }
    if url:
        content["actions"] = [{"type": "Action.OpenUrl", "title": "Open in Sleuth", "url": url}]
    message: dict[str, Any] = {
        "type": "message",
        "attachments": [
            {
                "contentType": "application/vnd.microsoft.card.adaptive",
                "contentUrl": None,
                "content": content,
            }
        ],
    }
    elements = _elements(parse_tree(markdown).children)
    body = content["body"]
    note = _text_block(_TRUNCATED_WITH_LINK if url else _TRUNCATED, isSubtle=True, size="Small")
    used = _size(message)
    if used + sum(_size(e) + 2 for e in elements) <= MAX_CARD_BYTES:
        body.extend(elements)
        return message
    budget = MAX_CARD_BYTES - used - _size(note) - 2
    for element in elements:
        cost = _size(element) + 2
        if cost <= budget:
            body.append(element)
            budget -= cost
            continue
        partial = _shorten(element, budget)
        if partial is not None:
            body.append(partial)
        break
    body.append(note)
    return message
