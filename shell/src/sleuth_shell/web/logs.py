"""Application logs, the page a log source ``link`` opens: ``/logs`` takes the link's
``?query=<JSON>`` or the page's own filter form.
"""

from __future__ import annotations

import json
from typing import Any

from litestar import Request, get
from litestar.response import Template
from sqlalchemy import func, select

from sleuth_shell.agents.base import LOG_LEVELS
from sleuth_shell.db.models import (
    LogRecord,
)
from sleuth_shell.errors import bad_request
from sleuth_shell.observability.store import DatabaseLogStore
from sleuth_shell.web.filters import (
    filled_form,
    form_range,
    page_links,
    page_number,
    query_json,
    query_range,
    strings,
)
from sleuth_shell.web.guard import PAGE_OPTIONS, ViewerDep, page

__all__ = ["LOG_PAGE", "MAX_PAGE_LINES", "ROUTES", "parse_log_query"]

MAX_PAGE_LINES = 1000


_DEFAULT_LINES = 200


#: Log lines per page of ``/logs``.
LOG_PAGE = 50


def parse_log_query(raw: str) -> dict[str, Any]:
    """The log query of a ``/logs?query=`` link: ``{start, end, services, levels, text, limit}``.

    Raises the API's 400 error naming the bad member.
    """
    query = query_json(raw)
    start, end = query_range(query)
    levels = strings(query.get("levels"), "levels")
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
        "services": strings(query.get("services"), "services"),
        "levels": [level.upper() for level in levels] if levels else None,
        "text": text or None,
        "limit": limit,
    }


def _filters(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """The log filters of the form (``service``, ``level``, ``text``, ``from``, ``to``) or of a
    source link's ``query`` JSON."""
    params = request.query_params
    raw = params.get("query")
    if raw is not None:
        q = parse_log_query(raw)
        return {
            "start": q["start"],
            "end": q["end"],
            "services": q["services"],
            "levels": q["levels"],
            "text": q["text"],
        }
    level = (params.get("level") or "").upper()
    if level and level not in LOG_LEVELS:
        raise bad_request(f"Invalid level: must be one of {', '.join(LOG_LEVELS)}")
    start, end = form_range(request)
    service = params.get("service") or ""
    return {
        "start": start,
        "end": end,
        "services": [service] if service else None,
        "levels": [level] if level else None,
        "text": params.get("text") or None,
    }


@get("/logs", **PAGE_OPTIONS)
async def logs_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Application logs, newest first, 50 a page, filtered by service, level, text and time range
    (or by a source link's ``?query=<JSON>``), with the counts per service and level."""
    number = page_number(request)
    f = _filters(request)
    query = select(LogRecord).where(LogRecord.org_id == viewer.org_id)
    counts = select(LogRecord.service, LogRecord.level, func.count()).where(
        LogRecord.org_id == viewer.org_id
    )
    conditions: list[Any] = []
    if f["start"] is not None:
        conditions.append(LogRecord.timestamp >= f["start"])
    if f["end"] is not None:
        conditions.append(LogRecord.timestamp < f["end"])
    if f["services"]:
        conditions.append(LogRecord.service.in_(f["services"]))
    if f["levels"]:
        conditions.append(LogRecord.level.in_(f["levels"]))
    if f["text"]:
        conditions.append(
            func.lower(LogRecord.message).contains(f["text"].lower(), autoescape=True)
        )
    query = query.where(*conditions)
    counts = counts.where(*conditions).group_by(LogRecord.service, LogRecord.level)
    store = DatabaseLogStore(request.app.state.session_factory)
    async with request.app.state.session_factory() as session:
        rows = (
            await session.scalars(
                query.order_by(LogRecord.timestamp.desc(), LogRecord.id.desc())
                .offset((number - 1) * LOG_PAGE)
                .limit(LOG_PAGE + 1)
            )
        ).all()
        count_rows = sorted((s, lvl, int(n)) for s, lvl, n in (await session.execute(counts)).all())
    services = await store.services(viewer.org_id)
    return page(
        "logs.html",
        viewer,
        "logs",
        title="Application logs",
        rows=[
            (r, json.dumps(r.attributes, sort_keys=True) if r.attributes else "")
            for r in rows[:LOG_PAGE]
        ],
        counts=count_rows,
        services=services,
        levels=LOG_LEVELS,
        f=f,
        form=filled_form(f, "level"),
        number=number,
        links=page_links(request, number, len(rows) > LOG_PAGE),
    )


ROUTES: list[Any] = [logs_page]
