"""The pages source ``link``s open: ``/knowledge/{id}`` (a document), ``/logs`` (application
logs), ``/changes/{id}`` (one change record), ``/changes`` (change records) and ``/metrics``
(metric series): the lists take a source link's ``?query=<JSON>`` or the page's own filter form.
Signed-in pages (see :mod:`sleuth_shell.api.pages`), every value escaped.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from litestar import Request, get
from litestar.params import FromPath
from litestar.response import Template
from sqlalchemy import func, select

from sleuth_core.language import format_ts, parse_timestamp
from sleuth_shell.agents.base import CHANGE_KINDS, LOG_LEVELS, MetricSeries
from sleuth_shell.api.common import MAX_PK
from sleuth_shell.api.pages import PAGE_OPTIONS, ViewerDep, page
from sleuth_shell.changes.store import SqlChangeStore
from sleuth_shell.db.models import LogRecord, utcnow
from sleuth_shell.errors import bad_request, not_found
from sleuth_shell.knowledge.search import DatabaseKnowledgeSearch
from sleuth_shell.observability.metric_store import SqlMetricStore
from sleuth_shell.observability.store import DatabaseLogStore

__all__ = [
    "CHANGE_PAGE",
    "LOG_PAGE",
    "MAX_PAGE_LINES",
    "METRIC_PAGE_POINTS",
    "ROUTES",
    "parse_change_query",
    "parse_log_query",
    "parse_metric_query",
    "sparkline",
]

MAX_PAGE_LINES = 1000
_DEFAULT_LINES = 200
#: Log lines per page of ``/logs``.
LOG_PAGE = 50
#: Change records per page of ``/changes``.
CHANGE_PAGE = 50
#: Points per series a ``/metrics`` page shows at most (the latest).
METRIC_PAGE_POINTS = 1000
#: Series a ``/metrics`` page shows at most.
METRIC_PAGE_SERIES = 50
_DEFAULT_WINDOW = timedelta(hours=24)


@get("/knowledge/{doc_id:int}", **PAGE_OPTIONS)
async def knowledge_page(
    doc_id: FromPath[int], request: Request[Any, Any, Any], viewer: ViewerDep
) -> Template:
    """A knowledge document, its markdown rendered (raw HTML escaped)."""
    document = None
    if 0 < doc_id <= MAX_PK:  # larger IDs name nothing (and would overflow PostgreSQL's INTEGER)
        document = await DatabaseKnowledgeSearch(request.app.state.session_factory).get(
            viewer.org_id, doc_id
        )
    if document is None:
        raise not_found("Knowledge document")
    return page("knowledge_doc.html", viewer, "knowledge", title=document.title, doc=document)


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


def _form_time(value: str | None, name: str) -> datetime | None:
    if not value:
        return None
    parsed = parse_timestamp(value)
    if parsed is None:
        raise bad_request(f"Invalid {name}: an ISO 8601 date-time is required")
    return parsed


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
    start = _form_time(params.get("from"), "from")
    end = _form_time(params.get("to"), "to")
    if start is not None and end is not None and end <= start:
        raise bad_request("Invalid time range: to must be after from")
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
    raw = request.query_params.get("page") or "1"
    if not raw.isdigit() or not 0 < int(raw) <= 100_000:
        raise bad_request("Invalid page: a positive integer is required")
    number = int(raw)
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
    params = {k: v for k, v in request.query_params.items() if k != "page" and v}
    links: dict[str, str] = {}
    if number > 1:
        links["newer"] = urlencode({**params, "page": number - 1})
    if len(rows) > LOG_PAGE:
        links["older"] = urlencode({**params, "page": number + 1})
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
        form={
            "service": (f["services"] or [""])[0],
            "level": (f["levels"] or [""])[0],
            "text": f["text"] or "",
            "from": format_ts(f["start"]) if f["start"] else "",
            "to": format_ts(f["end"]) if f["end"] else "",
        },
        number=number,
        links=links,
    )


def _query_json(raw: str) -> dict[str, Any]:
    try:
        query = json.loads(raw)
    except ValueError:
        raise bad_request("Invalid query: not JSON") from None
    if not isinstance(query, dict):
        raise bad_request("Invalid query: a JSON object is required")
    return query


def _query_range(query: dict[str, Any]) -> tuple[datetime, datetime]:
    start = parse_timestamp(query["start"]) if isinstance(query.get("start"), str) else None
    end = parse_timestamp(query["end"]) if isinstance(query.get("end"), str) else None
    if start is None or end is None:
        raise bad_request("Invalid query: start and end must be ISO 8601 date-times")
    if end <= start:
        raise bad_request("Invalid query: end must be after start")
    return start, end


def parse_change_query(raw: str) -> dict[str, Any]:
    """The change query of a ``/changes?query=`` link: ``{start, end, services, kinds, text}``
    (see `sleuth_shell.agents.sources.change_query_json`). Raises the API's 400 naming the bad
    member."""
    query = _query_json(raw)
    start, end = _query_range(query)
    kinds = _strings(query.get("kinds"), "kinds")
    if kinds and any(kind.lower() not in CHANGE_KINDS for kind in kinds):
        raise bad_request(f"Invalid query: kinds must be among {', '.join(CHANGE_KINDS)}")
    text = query.get("text")
    if text is not None and not isinstance(text, str):
        raise bad_request("Invalid query: text must be a string or null")
    return {
        "start": start,
        "end": end,
        "services": _strings(query.get("services"), "services"),
        "kinds": [kind.lower() for kind in kinds] if kinds else None,
        "text": text.replace("\x00", "") or None if text else None,
    }


def parse_metric_query(raw: str) -> dict[str, Any]:
    """The metric query of a ``/metrics?query=`` link: ``{start, end, services, names}`` (see
    `sleuth_shell.agents.sources.metric_query_json`). Raises the API's 400 naming the bad
    member."""
    query = _query_json(raw)
    start, end = _query_range(query)
    return {
        "start": start,
        "end": end,
        "services": _strings(query.get("services"), "services"),
        "names": _strings(query.get("names"), "names"),
    }


def _page_number(request: Request[Any, Any, Any]) -> int:
    raw = request.query_params.get("page") or "1"
    if not raw.isdigit() or not 0 < int(raw) <= 100_000:
        raise bad_request("Invalid page: a positive integer is required")
    return int(raw)


def _form_text(request: Request[Any, Any, Any], name: str) -> str:
    value = (request.query_params.get(name) or "").strip()
    if "\x00" in value or len(value) > 500:
        raise bad_request(f"Invalid {name}: at most 500 characters, without NUL")
    return value


@get("/changes", **PAGE_OPTIONS)
async def changes_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Change records, newest first, 50 a page, filtered by service, kind, text (summary, files,
    diff) and time range, or by a source link's ``?query=<JSON>``."""
    number = _page_number(request)
    raw = request.query_params.get("query")
    if raw is not None:
        f = parse_change_query(raw)
    else:
        kind = _form_text(request, "kind").lower()
        if kind and kind not in CHANGE_KINDS:
            raise bad_request(f"Invalid kind: must be one of {', '.join(CHANGE_KINDS)}")
        start = _form_time(request.query_params.get("from"), "from")
        end = _form_time(request.query_params.get("to"), "to")
        if start is not None and end is not None and end <= start:
            raise bad_request("Invalid time range: to must be after from")
        service = _form_text(request, "service")
        f = {
            "start": start,
            "end": end,
            "services": [service] if service else None,
            "kinds": [kind] if kind else None,
            "text": _form_text(request, "text") or None,
        }
    store = SqlChangeStore(request.app.state.session_factory)
    rows = await store.search(
        viewer.org_id, **f, limit=CHANGE_PAGE + 1, offset=(number - 1) * CHANGE_PAGE
    )
    total = await store.count(viewer.org_id, **f)
    params = {k: v for k, v in request.query_params.items() if k != "page" and v}
    links: dict[str, str] = {}
    if number > 1:
        links["newer"] = urlencode({**params, "page": number - 1})
    if len(rows) > CHANGE_PAGE:
        links["older"] = urlencode({**params, "page": number + 1})
    return page(
        "changes.html",
        viewer,
        "changes",
        title="Change records",
        rows=rows[:CHANGE_PAGE],
        total=total,
        services=await store.services(viewer.org_id),
        kinds=CHANGE_KINDS,
        form={
            "service": (f["services"] or [""])[0],
            "kind": (f["kinds"] or [""])[0],
            "text": f["text"] or "",
            "from": format_ts(f["start"]) if f["start"] else "",
            "to": format_ts(f["end"]) if f["end"] else "",
        },
        number=number,
        links=links,
    )


@get("/changes/{row_id:int}", **PAGE_OPTIONS)
async def change_page(
    row_id: FromPath[int], request: Request[Any, Any, Any], viewer: ViewerDep
) -> Template:
    """One change record: summary, author, files, diff, attributes, the deploys that shipped it
    and (for a deploy) the commits it ships."""
    store = SqlChangeStore(request.app.state.session_factory)
    change = await store.get(viewer.org_id, row_id) if 0 < row_id <= MAX_PK else None
    if change is None:
        raise not_found("Change")
    shipped_by = await store.shipped_by(viewer.org_id, change.change_id)
    known = {c.change_id: c for c in await store.get_many(viewer.org_id, change.ships)}
    return page(
        "change.html",
        viewer,
        "changes",
        title=f"{change.kind.title()} {change.change_id}",
        change=change,
        shipped_by=shipped_by,
        ships=[(commit_id, known.get(commit_id)) for commit_id in change.ships],
        attrs=json.dumps(change.attributes, sort_keys=True, indent=2) if change.attributes else "",
    )


def sparkline(points: Any, width: int = 240, height: int = 40) -> str:
    """The ``points`` attribute of an SVG polyline drawing ``(time, value)`` pairs in a
    ``width`` x ``height`` box (numbers only; empty for no points).

    >>> from datetime import UTC, datetime
    >>> sparkline([(datetime(2026, 1, 1, tzinfo=UTC), 1.0),
    ...            (datetime(2026, 1, 2, tzinfo=UTC), 3.0)], 10, 10)
    '0.0,9.0 10.0,1.0'
    """
    if not points:
        return ""
    times = [t.timestamp() for t, _ in points]
    values = [v for _, v in points]
    t0, t1 = times[0], times[-1]
    low, high = min(values), max(values)
    span_t = (t1 - t0) or 1.0
    span_v = (high - low) or 1.0
    inner = height - 2
    return " ".join(
        f"{round((t - t0) / span_t * width, 1)},{round(1 + inner - (v - low) / span_v * inner, 1)}"
        for t, v in zip(times, values, strict=True)
    )


def _series_view(series: MetricSeries) -> dict[str, Any]:
    points = series.points[-METRIC_PAGE_POINTS:]
    values = [v for _, v in points]
    return {
        "s": series,
        "labels": ", ".join(f"{k}={v}" for k, v in sorted(series.labels.items())),
        "points": list(reversed(points)),
        "cut": len(series.points) - len(points),
        "spark": sparkline(points),
        "low": min(values) if values else None,
        "high": max(values) if values else None,
        "last": values[-1] if values else None,
    }


@get("/metrics", **PAGE_OPTIONS)
async def metrics_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Metric series with their points (a sparkline and a table, newest first), filtered by
    service, metric name and time range (default: the last 24 hours), or by a source link's
    ``?query=<JSON>``."""
    raw = request.query_params.get("query")
    if raw is not None:
        f = parse_metric_query(raw)
    else:
        end = _form_time(request.query_params.get("to"), "to") or utcnow()
        start = _form_time(request.query_params.get("from"), "from") or end - _DEFAULT_WINDOW
        if end <= start:
            raise bad_request("Invalid time range: to must be after from")
        service = _form_text(request, "service")
        name = _form_text(request, "name")
        f = {
            "start": start,
            "end": end,
            "services": [service] if service else None,
            "names": [name] if name else None,
        }
    store = SqlMetricStore(request.app.state.session_factory)
    found = await store.query(
        viewer.org_id,
        f["start"],
        f["end"],
        services=f["services"],
        names=f["names"],
        limit=METRIC_PAGE_SERIES,
    )
    return page(
        "metrics.html",
        viewer,
        "metrics",
        title="Metrics",
        series=[_series_view(s) for s in found],
        services=await store.services(viewer.org_id),
        names=await store.names(viewer.org_id),
        f=f,
        form={
            "service": (f["services"] or [""])[0],
            "name": (f["names"] or [""])[0],
            "from": format_ts(f["start"]),
            "to": format_ts(f["end"]),
        },
    )


ROUTES = [knowledge_page, logs_page, changes_page, change_page, metrics_page]
