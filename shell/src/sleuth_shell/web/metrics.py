"""Metric series, the page a metric source ``link`` opens: ``/metrics`` takes the link's
``?query=<JSON>`` or the page's own filter form (default: the last 24 hours).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from litestar import Request, get
from litestar.response import Template

from sleuth_core.language import format_ts
from sleuth_shell.agents.base import MetricSeries
from sleuth_shell.db.models import (
    utcnow,
)
from sleuth_shell.errors import bad_request
from sleuth_shell.observability.metric_store import SqlMetricStore
from sleuth_shell.web.filters import form_text, form_time, query_json, query_range, strings
from sleuth_shell.web.guard import PAGE_OPTIONS, ViewerDep, page

__all__ = ["METRIC_PAGE_POINTS", "ROUTES", "parse_metric_query", "sparkline"]

#: Points per series a ``/metrics`` page shows at most (the latest).
METRIC_PAGE_POINTS = 1000


#: Series a ``/metrics`` page shows at most.
METRIC_PAGE_SERIES = 50


_DEFAULT_WINDOW = timedelta(hours=24)


def parse_metric_query(raw: str) -> dict[str, Any]:
    """The metric query of a ``/metrics?query=`` link: ``{start, end, services, names}`` (see
    `sleuth_shell.agents.sources.metric_query_json`). Raises the API's 400 naming the bad
    member."""
    query = query_json(raw)
    start, end = query_range(query)
    return {
        "start": start,
        "end": end,
        "services": strings(query.get("services"), "services"),
        "names": strings(query.get("names"), "names"),
    }


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
        end = form_time(request.query_params.get("to"), "to") or utcnow()
        start = form_time(request.query_params.get("from"), "from") or end - _DEFAULT_WINDOW
        if end <= start:
            raise bad_request("Invalid time range: to must be after from")
        service = form_text(request, "service")
        name = form_text(request, "name")
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


ROUTES: list[Any] = [metrics_page]
