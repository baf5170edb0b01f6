"""Server-rendered HTML shared by every page: the layout, escaped tables, safe markdown.

Every value that reaches a page goes through :func:`html.escape` or the markdown renderer below,
which escapes raw HTML in its input and refuses ``javascript:`` and similar links.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import Any

from markdown_it import MarkdownIt

__all__ = ["cells", "definition_list", "escape", "markdown_html", "page", "table"]

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;
text-align:left;vertical-align:top}pre,code{background:#f5f5f5}pre{padding:.75rem;overflow:auto}
.ERROR,.CRITICAL,.FAILED,.ERRORED{color:#a00}.WARNING,.PAUSED,.STOPPED{color:#a60}
.COMPLETED,.ACTIVE{color:#070}.meta{color:#666}dt{font-weight:600;margin-top:.5rem}dd{margin-left:1rem}
header{border-bottom:1px solid #ddd;margin-bottom:1rem;padding-bottom:.5rem}
header form{display:inline;margin-left:1rem}
"""
# Raw HTML in stored text is shown as text; markdown-it refuses javascript: and similar links.
_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")


def escape(value: Any) -> str:
    """``str(value)`` with HTML special characters (quotes included) escaped."""
    return html.escape(str(value), quote=True)


def markdown_html(text: str) -> str:
    """Render markdown to HTML safely (raw HTML escaped, unsafe links refused)."""
    rendered: str = _MARKDOWN.render(text)  # markdown-it types its renderer's output as Any
    return rendered


def cells(values: Sequence[Any], tag: str = "td") -> str:
    """One table row's cells, each value escaped."""
    return "".join(f"<{tag}>{escape(v)}</{tag}>" for v in values)


def table(headings: Sequence[str], rows: Iterable[str]) -> str:
    """A table with escaped ``headings`` and pre-rendered ``<tr>`` rows."""
    return f"<table><tr>{cells(headings, 'th')}</tr>{''.join(rows)}</table>"


def definition_list(items: Iterable[tuple[str, str]]) -> str:
    """A ``<dl>`` of (term, already-rendered HTML) pairs; terms are escaped."""
    return "<dl>" + "".join(f"<dt>{escape(k)}</dt><dd>{v}</dd>" for k, v in items) + "</dl>"


def page(title: str, body: str, *, org_name: str | None = None) -> str:
    """A whole HTML document: the layout around ``body`` (already-rendered HTML)."""
    header = ""
    if org_name is not None:
        header = (
            f'<header><span class="meta">Sleuth · {escape(org_name)}</span>'
            '<form method="post" action="/logout"><button>Sign out</button></form></header>'
        )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} · Sleuth</title><style>{_STYLE}</style></head>"
        f"<body>{header}{body}</body></html>"
    )
