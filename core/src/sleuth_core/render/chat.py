"""Markdown -> the chat platform's mrkdwn (INTEGRATIONS.md section 6).

mrkdwn has bold ``*b*``, italic ``_i_``, strike ``~s~``, links ``<url|text>``, code spans and
blocks, and ``>`` quotes, but no headings, lists or tables. :func:`to_chat` walks markdown-it-py's
syntax tree and writes:

- headings as a ``*Heading*`` line (inner emphasis dropped);
- bullet items as ``• item``, ordered items as ``1. item`` (numbering from the list's start),
  nested lists indented by four spaces;
- tables as an aligned plain-text table inside a code block;
- fenced and indented code as a code block without a language; code spans unchanged;
- images as links to the image; thematic breaks as ``———``.

``&``, ``<`` and ``>`` are escaped (``&amp;`` ``&lt;`` ``&gt;``) everywhere except in the
``<url|text>`` tokens the renderer writes; in those, the URL has ``<``, ``>``, ``|`` and spaces
percent-encoded, and a ``|`` in the text becomes ``/`` (the platform ends the URL at the first one).
"""

from __future__ import annotations

from urllib.parse import quote

from markdown_it.tree import SyntaxTreeNode

from sleuth_core.render._tree import aligned, list_items, parse_tree, table_rows

__all__ = ["to_chat"]

_NESTED_INDENT = "    "


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _url(url: str) -> str:
    return quote(url, safe=":/?#[]@!$&'()*+,;=%~-._")


def _link(url: str, text: str) -> str:
    url = _url(url)
    text = text.replace("|", "/")
    if not text or text == _escape(url):
        return f"<{url}>"
    return f"<{url}|{text}>"


def _inline(node: SyntaxTreeNode, plain: bool = False) -> str:
    out: list[str] = []
    for child in node.children:
        kind = child.type
        if kind == "text":
            out.append(_escape(child.content))
        elif kind == "code_inline":
            tick = "`"
            out.append(f"{tick}{_escape(child.content)}{tick}")
        elif kind in ("softbreak", "hardbreak"):
            out.append("\n")
        elif kind == "strong":
            inner = _inline(child, plain)
            out.append(inner if plain or not inner.strip() else f"*{inner}*")
        elif kind == "em":
            inner = _inline(child, plain)
            out.append(inner if plain or not inner.strip() else f"_{inner}_")
        elif kind == "s":
            inner = _inline(child, plain)
            out.append(inner if plain or not inner.strip() else f"~{inner}~")
        elif kind == "link":
            out.append(_link(str(child.attrs.get("href", "")), _inline(child, True)))
        elif kind == "image":
            alt = _escape(child.content) if child.content else _inline(child, True)
            out.append(_link(str(child.attrs.get("src", "")), alt))
        elif child.children:
            out.append(_inline(child, plain))
        else:
            out.append(_escape(child.content))
    return "".join(out)


def _block(node: SyntaxTreeNode) -> str:
    kind = node.type
    if kind == "paragraph":
        return _inline(node.children[0]) if node.children else ""
    if kind == "heading":
        text = _inline(node.children[0], True).replace("\n", " ").strip() if node.children else ""
        return f"*{text}*" if text else ""
    if kind in ("bullet_list", "ordered_list"):
        return _list(node)
    if kind == "blockquote":
        inner = _blocks(node.children, "\n")
        return "\n".join(f"&gt; {line}" if line else "&gt;" for line in inner.split("\n"))
    if kind in ("fence", "code_block"):
        return "```\n" + _escape(node.content.rstrip("\n")) + "\n```"
    if kind == "table":
        return "```\n" + _escape(aligned(table_rows(node, lambda n: _inline(n, True)))) + "\n```"
    if kind == "hr":
        return "———"
    if node.children:
        return _blocks(node.children, "\n\n")
    return _escape(node.content.rstrip("\n"))


def _list(node: SyntaxTreeNode) -> str:
    lines: list[str] = []
    for marker, item in list_items(node, "•"):
        parts: list[str] = []
        for child in item.children:
            text = _block(child)
            if text and child.type in ("bullet_list", "ordered_list"):
                text = "\n".join(_NESTED_INDENT + line for line in text.split("\n"))
            if text:
                parts.append(text)
        first, *rest = "\n".join(parts).split("\n")
        lines.append(f"{marker} {first}".rstrip())
        lines.extend(rest)
    return "\n".join(lines)


def _blocks(nodes: list[SyntaxTreeNode], separator: str) -> str:
    return separator.join(text for text in (_block(n) for n in nodes) if text)


def to_chat(markdown: str) -> str:
    """Translate markdown (a rendered answer) into chat mrkdwn.

    >>> print(to_chat("# Root cause\\n\\n**Bad deploy** of `api` <v2>, see "
    ...               "[run 881](https://ci.example/881).\\n\\n- error rate 7%\\n- started 09:12"))
    *Root cause*
    <BLANKLINE>
    *Bad deploy* of `api` &lt;v2&gt;, see <https://ci.example/881|run 881>.
    <BLANKLINE>
    • error rate 7%
    • started 09:12
    """
    return _blocks(parse_tree(markdown).children, "\n\n")
