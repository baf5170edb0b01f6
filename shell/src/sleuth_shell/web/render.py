"""The web app's Jinja environment: templates in ``web/templates``, autoescaping on, and the
filters pages use (timestamps as people read them, status colours, safe markdown, safe links).

Every value reaches a page through Jinja's autoescaping or :func:`markdown_html`, which escapes raw
HTML in its input and refuses ``javascript:``, ``vbscript:``, ``file:`` and ``data:`` links.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markdown_it import MarkdownIt
from markupsafe import Markup

from sleuth_core.cron import parse_cron
from sleuth_core.errors import CoreError
from sleuth_shell import statuses

__all__ = [
    "TEMPLATE_DIR",
    "ago",
    "cite_links",
    "environment",
    "fire_times",
    "markdown_html",
    "next_fire",
    "pretty_json",
    "render",
    "safe_url",
    "schedule_words",
    "ts",
]

TEMPLATE_DIR = Path(__file__).parent / "templates"

# Raw HTML in stored text is shown as text; links other than http(s), mailto and relative ones
# are refused (markdown-it then leaves the text unlinked).
_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")
_SAFE_SCHEMES = ("http", "https", "mailto")


def _validate_link(url: str) -> bool:
    return safe_url(url) is not None


_MARKDOWN.validateLink = _validate_link  # type: ignore[method-assign]


def safe_url(url: Any) -> str | None:
    """``url`` when it is http(s), mailto or a relative link; None otherwise (``javascript:``)."""
    text = str(url or "").strip()
    if not text:
        return None
    cleaned = "".join(ch for ch in text if ch >= " " and ch != "\x7f")
    try:
        scheme = urlsplit(cleaned).scheme.lower()
    except ValueError:
        return None
    if scheme and scheme not in _SAFE_SCHEMES:
        return None
    if not scheme and ":" in cleaned.split("/", 1)[0]:
        return None  # "javascript :x" and the like
    return text


def markdown_html(text: Any) -> Markup:
    """Render markdown to HTML safely (raw HTML escaped, unsafe links refused)."""
    rendered: str = _MARKDOWN.render(str(text or ""))
    return Markup(rendered)


_TAG = re.compile(r"(<[^>]*>)")
_MARKER = re.compile(r"\[(\d{1,3})\]")


def cite_links(rendered: Markup, count: int) -> Markup:
    """Link the citation markers ``[n]`` (1 <= n <= ``count``) of rendered HTML to the page's
    ``#source-n`` entries; markers inside links and code are left alone."""
    parts = _TAG.split(str(rendered))
    depth = 0  # inside <a> or <code>
    for i, part in enumerate(parts):
        if part.startswith("<"):
            name = part[1:].split(None, 1)[0].rstrip(">").lower() if len(part) > 2 else ""
            if name in ("a", "code", "pre"):
                depth += 1
            elif name in ("/a", "/code", "/pre"):
                depth = max(0, depth - 1)
        elif depth == 0 and "[" in part:
            parts[i] = _MARKER.sub(
                lambda m: (
                    f'<a class="cite" href="#source-{m.group(1)}">[{m.group(1)}]</a>'
                    if 1 <= int(m.group(1)) <= count
                    else m.group(0)
                ),
                part,
            )
    return Markup("".join(parts))  # the input was escaped; only anchors are added


def ts(value: datetime | None) -> str:
    """``2026-11-22 09:00:05 UTC`` (no microseconds), or ``-``."""
    if value is None:
        return "-"
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def ago(value: datetime | None, now: datetime | None = None) -> str:
    """``5 min ago`` / ``in 3 h`` / a date when more than a week away."""
    if value is None:
        return "-"
    now = now or datetime.now(UTC)
    seconds = (now - value).total_seconds()
    future = seconds < 0
    seconds = abs(seconds)
    if seconds < 45:
        text = "just now" if not future else "in a moment"
        return text
    if seconds < 3600:
        amount = f"{round(seconds / 60)} min"
    elif seconds < 86400:
        amount = f"{round(seconds / 3600)} h"
    elif seconds < 7 * 86400:
        amount = f"{round(seconds / 86400)} d"
    else:
        return value.astimezone(UTC).strftime("%Y-%m-%d")
    return f"in {amount}" if future else f"{amount} ago"


def pretty_json(text: Any) -> str:
    """A JSON document indented for reading; other text unchanged."""
    if not isinstance(text, str):
        return json.dumps(text, indent=2, sort_keys=True, ensure_ascii=False)
    try:
        return json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False)
    except ValueError:
        return text


_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _days(field: str) -> str | None:
    if field == "*":
        return "every day"
    if field in ("0-4", "0,1,2,3,4"):
        return "Monday to Friday"
    if field in ("5-6", "5,6"):
        return "Saturday and Sunday"
    names = []
    for part in field.split(","):
        if not part.isdigit() or not 0 <= int(part) <= 6:
            return None
        names.append(_DAYS[int(part)])
    return "on " + ", ".join(names)


def schedule_words(expr: str) -> str:
    """A Monday-zero cron schedule in words (``at 09:00 UTC, Monday to Friday``) when it has the
    common ``M H * * D`` shape, else ``cron <expr> (UTC)``."""
    fields = expr.split()
    if (
        len(fields) == 5
        and fields[0].isdigit()
        and fields[1].isdigit()
        and fields[2] == "*"
        and fields[3] == "*"
    ):
        days = _days(fields[4])
        if days is not None and int(fields[0]) < 60 and int(fields[1]) < 24:
            return f"at {int(fields[1]):02d}:{int(fields[0]):02d} UTC, {days}"
    if len(fields) == 5 and fields[1:] == ["*", "*", "*", "*"] and fields[0].isdigit():
        return f"every hour at minute {int(fields[0])}"
    return f"cron {expr} (UTC, day 0 = Monday)"


def next_fire(expr: str, now: datetime) -> datetime | None:
    """The next fire time of ``expr`` after ``now``, or None."""
    times = fire_times(expr, now, 1)
    return times[0] if times else None


def fire_times(expr: str, now: datetime, count: int = 3) -> list[datetime]:
    """The next ``count`` fire times of ``expr`` after ``now`` (empty when it never fires)."""
    times: list[datetime] = []
    try:
        schedule = parse_cron(expr)
        at = now
        for _ in range(count):
            at = schedule.next_after(at)
            times.append(at)
    except (CoreError, LookupError):
        pass  # an invalid schedule or one with no further fire time
    return times


#: Headers of every HTML page: no other site may frame it (clickjacking), and the browser takes
#: the declared content type as it is.
PAGE_HEADERS: dict[str, str] = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
}


def environment() -> Environment:
    """A Jinja environment over :data:`TEMPLATE_DIR` with autoescaping and the page filters."""
    env = Environment(
        loader=FileSystemLoader(TEMPLATE_DIR),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        ts=ts,
        ago=ago,
        markdown=markdown_html,
        cite_links=cite_links,
        pretty_json=pretty_json,
        safe_url=safe_url,
        schedule_words=schedule_words,
    )
    # The run statuses (templates ask e.g. ``inv.status in runs.investigation.unfinished``).
    env.globals["runs"] = {
        "interaction": statuses.INTERACTION,
        "digest_run": statuses.DIGEST_RUN,
        "investigation": statuses.INVESTIGATION,
    }
    return env


_ENV = environment()


def render(template: str, **context: Any) -> str:
    """Render ``template`` with ``context`` (outside a request: error pages)."""
    return _ENV.get_template(template).render(**context)
