"""The markdown parser of the chat and alt renderings: CommonMark, tables, strikethrough."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

_MD = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


def parse_tree(markdown: str) -> SyntaxTreeNode:
    """The syntax tree of ``markdown``. Raw HTML is not recognised: it stays text."""
    if not isinstance(markdown, str):
        raise TypeError("markdown must be a str")
    return SyntaxTreeNode(_MD.parse(markdown))


def list_items(node: SyntaxTreeNode, bullet: str) -> list[tuple[str, SyntaxTreeNode]]:
    """The items of a ``bullet_list`` or ``ordered_list`` node, each with its marker: ``bullet``,
    or the item's number and a dot (counting from the list's ``start``)."""
    if node.type != "ordered_list":
        return [(bullet, item) for item in node.children]
    first = int(node.attrs.get("start", 1))
    return [(f"{first + i}.", item) for i, item in enumerate(node.children)]


def table_rows(node: SyntaxTreeNode, render_cell) -> list[list[str]]:  # type: ignore[no-untyped-def]
    """The rows of a ``table`` node (header first) as lists of rendered cell texts."""
    rows: list[list[str]] = []
    for section in node.children:  # thead, tbody
        for row in section.children:
            rows.append(
                [render_cell(cell.children[0]) if cell.children else "" for cell in row.children]
            )
    return rows


def aligned(rows: list[list[str]]) -> str:
    """Rows as plain text columns padded to equal width (for a monospace rendering)."""
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    sizes = [max(len(r[i]) for r in rows) for i in range(width)]
    lines = [" | ".join(cell.ljust(sizes[i]) for i, cell in enumerate(r)).rstrip() for r in rows]
    lines.insert(1, "-+-".join("-" * size for size in sizes))
    return "\n".join(lines)
