"""The pages source ``link``s open: ``/knowledge/{id}`` (a document) and ``/logs?query=`` (a log
query's results). Server-rendered HTML, every value escaped; outside ``/api/v1`` but, as they show
an organization's data, they need its API key like the API does.
"""

from __future__ import annotations

import html
import json
from typing import Any

from litestar import MediaType, Request, get
from litestar.params import FromPath

from sleuth_shell.agents.base import LOG_LEVELS
from sleuth_shell.api.common import MAX_PK
from sleuth_shell.api.deps import CurrentPrincipal
from sleuth_shell.api.pages import PAGE_OPTIONS
from sleuth_shell.errors import bad_request, not_found
from sleuth_shell.html import cells, markdown_html, page
from sleuth_shell.knowledge.search import DatabaseKnowledgeSearch
from sleuth_shell.observability.store import DatabaseLogStore
from sleuth_shell.text import format_ts, parse_timestamp

__all__ = ["MAX_PAGE_LINES", "ROUTES", "parse_log_query"]

MAX_PAGE_LINES = 1000
_DEFAULT_LINES = 200


@get(
    "/knowledge/{doc_id:int}",
    operation_id="knowledgeDocumentPage",
    tags=["pages"],
    media_type=MediaType.HTML,
    **PAGE_OPTIONS,
)
async def knowledge_page(
    doc_id: FromPath[int], request: Request[Any, Any, Any], principal: CurrentPrincipal
) -> str:
    """A knowledge document, its markdown rendered (raw HTML escaped)."""
    document = None
    if 0 < doc_id <= MAX_PK:  # larger IDs name nothing (and would overflow PostgreSQL's INTEGER)
        document = await DatabaseKnowledgeSearch(request.app.state.session_factory).get(
            principal.org_id, doc_id
        )
    if document is None:
        raise not_found("Knowledge document")
    source = ""
    if document.url:
        url = html.escape(document.url, quote=True)
        source = f'<p class="meta">Source: <a href="{url}">{url}</a></p>'
    body = (
        f"<h1>{html.escape(document.title)}</h1>"
        f'<p class="meta">Knowledge document {document.id}, added '
        f"{html.escape(format_ts(document.created_at))}</p>{source}"
        f"<article>{markdown_html(document.content)}</article>"
    )
    return page(document.title, body, org_name=principal.org_name)


def _strings(value: Any, name: str) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise bad_request(f"Invalid query: {name} must be a list of strings or null")
    return list(value) or None


def parse_log_query(raw: str) -> dict[str, Any]:
    """The log query of a ``/logs?query=`` link: ``{start, end, services, levels, text, limit}``.

    Raises the API's 400 error naming the bad member.
    """
    try:
        query = json.loads(raw)
    except ValueError:
        raise bad_request("Invalid query: not JSON") from None
    if not isinstance(query, dict):
        raise bad_request("Invalid query: a JSON object is required")
    start = parse_timestamp(query["start"]) if isinstance(query.get("start"), str) else None
    end = parse_timestamp(query["end"]) if isinstance(query.get("end"), str) else None
    if start is None or end is None:
        raise bad_request("Invalid query: start and end must be ISO 8601 date-times")
    if end <= start:
        raise bad_request("Invalid query: end must be after start")
    levels = _strings(query.get("levels"), "levels")
    if levels and any(level.upper() not in LOG_LEVELS for level in levels):
        raise bad_request(f"Invalid query: levels must be among {', '.join(LOG_LEVELS)}")
    text = query.get("text")
    if text is not None and not isinstance(text, str):
        raise bad_request("Invalid query: text must be a string or null")
    limit = query.get("limit", _DEFAULT_LINES)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 0 < limit <= MAX_PAGE_LINES:
        raise bad_request(f"Invalid query: limit must be an integer from 1 to {MAX_PAGE_LINES}")
    return {
        "start": start,
        "end": end,
        "services": _strings(query.get("services"), "services"),
        "levels": [level.upper() for level in levels] if levels else None,
        "text": text or None,
        "limit": limit,
    }


@get(
    "/logs",
    operation_id="logQueryPage",
    tags=["pages"],
    media_type=MediaType.HTML,
    **PAGE_OPTIONS,
)
async def logs_page(request: Request[Any, Any, Any], principal: CurrentPrincipal) -> str:
    """The results of a log query (``?query=<JSON>``): counts per service and level, then the
    matching lines."""
    raw = request.query_params.get("query")
    if raw is None:
        raise bad_request("Invalid query: the query parameter is required")
    q = parse_log_query(raw)
    store = DatabaseLogStore(request.app.state.session_factory)
    org = principal.org_id
    counts = await store.counts(org, q["start"], q["end"], q["services"])
    if q["levels"]:
        counts = [c for c in counts if c.level in q["levels"]]
    lines = await store.query(
        org, q["start"], q["end"], q["services"], q["levels"], q["text"], q["limit"]
    )
    described = [
        f"from {format_ts(q['start'])} to {format_ts(q['end'])}",
        f"services: {', '.join(q['services'])}" if q["services"] else "all services",
        f"levels: {', '.join(q['levels'])}" if q["levels"] else "all levels",
    ]
    if q["text"]:
        described.append(f"message contains “{q['text']}”")
    count_rows = "".join(f"<tr>{cells(c)}</tr>" for c in counts)
    line_rows = "".join(
        f'<tr class="{html.escape(r.level)}">'
        + cells(
            [
                format_ts(r.timestamp),
                r.service,
                r.level,
                r.message,
                json.dumps(r.attributes, sort_keys=True) if r.attributes else "",
            ]
        )
        + "</tr>"
        for r in lines
    )
    shown = (
        f"First {len(lines)} matching lines"
        if len(lines) == q["limit"]
        else f"{len(lines)} matching lines"
    )
    body = (
        f'<h1>Application logs</h1><p class="meta">{html.escape("; ".join(described))}</p>'
        f"<h2>Counts</h2><table><tr>{cells(['Service', 'Level', 'Count'], 'th')}</tr>"
        f"{count_rows}</table><h2>{html.escape(shown)}</h2>"
        f"<table><tr>{cells(['Time', 'Service', 'Level', 'Message', 'Attributes'], 'th')}</tr>"
        f"{line_rows}</table>"
    )
    return page("Application logs", body, org_name=principal.org_name)


ROUTES = [knowledge_page, logs_page]
