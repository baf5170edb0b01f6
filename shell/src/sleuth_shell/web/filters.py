"""What the list pages read from the query string: the page number and the newer/older links, form
values (text, times), and a source link's ``?query=<JSON>`` (its time range and string lists),
each refused with a 400 naming what is wrong.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from litestar import Request

from sleuth_core.language import format_ts, parse_timestamp
from sleuth_shell.errors import bad_request

__all__ = [
    "PER_PAGE",
    "filled_form",
    "form_range",
    "form_text",
    "form_time",
    "page_links",
    "page_number",
    "query_json",
    "query_range",
    "strings",
]

PER_PAGE = 25


def page_number(request: Request[Any, Any, Any]) -> int:
    """The ``page`` query parameter (1 when absent); 400 when it is not a positive integer."""
    raw = request.query_params.get("page") or "1"
    if not raw.isdigit() or not 0 < int(raw) <= 100_000:
        raise bad_request("Invalid page: a positive integer is required")
    return int(raw)


def page_links(request: Request[Any, Any, Any], number: int, has_next: bool) -> dict[str, str]:
    """Query strings of the newer/older pages, keeping the other filters."""
    params = {k: v for k, v in request.query_params.items() if k != "page" and v}
    links: dict[str, str] = {}
    if number > 1:
        links["newer"] = urlencode({**params, "page": number - 1})
    if has_next:
        links["older"] = urlencode({**params, "page": number + 1})
    return links


def form_text(request: Request[Any, Any, Any], name: str) -> str:
    value = (request.query_params.get(name) or "").strip()
    if "\x00" in value or len(value) > 500:
        raise bad_request(f"Invalid {name}: at most 500 characters, without NUL")
    return value


def form_time(value: str | None, name: str) -> datetime | None:
    if not value:
        return None
    parsed = parse_timestamp(value)
    if parsed is None:
        raise bad_request(f"Invalid {name}: an ISO 8601 date-time is required")
    return parsed


def form_range(request: Request[Any, Any, Any]) -> tuple[datetime | None, datetime | None]:
    """The form's ``from`` and ``to`` times (None when blank); 400 when one is not ISO 8601 or
    ``to`` is not after ``from``."""
    start = form_time(request.query_params.get("from"), "from")
    end = form_time(request.query_params.get("to"), "to")
    if start is not None and end is not None and end <= start:
        raise bad_request("Invalid time range: to must be after from")
    return start, end


def filled_form(f: dict[str, Any], choice: str) -> dict[str, str]:
    """The filter form's fields for the filters ``f`` (``start``, ``end``, ``services``,
    ``<choice>s``, ``text``): the first service, the first ``choice`` (kind, level), the text
    and the times."""
    return {
        "service": (f["services"] or [""])[0],
        choice: (f[f"{choice}s"] or [""])[0],
        "text": f["text"] or "",
        "from": format_ts(f["start"]) if f["start"] else "",
        "to": format_ts(f["end"]) if f["end"] else "",
    }


def query_json(raw: str) -> dict[str, Any]:
    try:
        query = json.loads(raw)
    except ValueError:
        raise bad_request("Invalid query: not JSON") from None
    if not isinstance(query, dict):
        raise bad_request("Invalid query: a JSON object is required")
    return query


def query_range(query: dict[str, Any]) -> tuple[datetime, datetime]:
    start = parse_timestamp(query["start"]) if isinstance(query.get("start"), str) else None
    end = parse_timestamp(query["end"]) if isinstance(query.get("end"), str) else None
    if start is None or end is None:
        raise bad_request("Invalid query: start and end must be ISO 8601 date-times")
    if end <= start:
        raise bad_request("Invalid query: end must be after start")
    return start, end


def strings(value: Any, name: str) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise bad_request(f"Invalid query: {name} must be a list of strings or null")
    return list(value) or None
