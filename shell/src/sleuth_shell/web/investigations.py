"""Investigations: the list (newest first, by agent and status, paged), one investigation's page
and its Stop button.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

from litestar import Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template
from markupsafe import Markup

from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_core.language import parse_timestamp
from sleuth_shell.agents import rca
from sleuth_shell.alerts import alerts_of_investigation
from sleuth_shell.api.common import load_owned
from sleuth_shell.db.models import (
    AlertResponder,
    Investigation,
)
from sleuth_shell.db.paging import PageRequest
from sleuth_shell.domain import MAX_PK
from sleuth_shell.errors import bad_request, not_found
from sleuth_shell.investigations import stop_investigation
from sleuth_shell.investigations.queries import list_investigations, load_investigation
from sleuth_shell.services import Services
from sleuth_shell.statuses import INVESTIGATION
from sleuth_shell.text import extract_alert
from sleuth_shell.web.charts import PALETTE, Marker, Series, line_chart
from sleuth_shell.web.filters import PER_PAGE, page_links, page_number
from sleuth_shell.web.guard import PAGE_OPTIONS, ViewerDep, form_data, page
from sleuth_shell.web.rows import org_rows, owned

__all__ = ["ROUTES", "investigation_charts"]

#: Metric series drawn on an investigation page at most (of the failing services).
CHART_METRIC_SERIES = 8


@get("/investigations", **PAGE_OPTIONS)
async def investigations_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Investigations, newest first, filtered by agent and status, 25 a page."""
    number = page_number(request)
    status = request.query_params.get("status") or ""
    agent_gid = request.query_params.get("agent") or ""
    if status and status not in INVESTIGATION.values:
        raise bad_request(f"Invalid status: must be one of {', '.join(INVESTIGATION.values)}")
    agent_id = None
    if agent_gid:
        pk = decode_global_id(agent_gid, "AlertResponder")
        agent_id = pk if pk is not None and pk <= MAX_PK else -1  # names no agent: lists none
    async with request.app.state.session_factory() as session:
        agents = await org_rows(session, AlertResponder, viewer.org_id, AlertResponder.name)
        found = await list_investigations(
            session,
            viewer.org_id,
            PageRequest(limit=PER_PAGE, offset=(number - 1) * PER_PAGE),
            status=status or None,
            agent_id=agent_id,
        )
    rows = [item.row for item in found.items]
    names = {a.id: a.name for a in agents}
    return page(
        "investigations.html",
        viewer,
        "investigations",
        title="Investigations",
        rows=[
            (encode_global_id("Investigation", i.id), i, names.get(i.alert_responder_id or 0, "-"))
            for i in rows
        ],
        agents=[(encode_global_id("AlertResponder", a.id), a.name) for a in agents],
        statuses=INVESTIGATION.values,
        status=status,
        agent=agent_gid,
        number=number,
        links=page_links(request, number, found.next_cursor is not None),
    )


@get("/investigations/{investigation_id:str}", **PAGE_OPTIONS)
async def investigation_page(
    request: Request[Any, Any, Any], viewer: ViewerDep, investigation_id: FromPath[str]
) -> Template:
    """One investigation: status, prompt, the alerts it covers, the alert payload, the cited
    analysis and its charts (`investigation_charts`)."""
    async with request.app.state.session_factory() as session:
        pk = decode_global_id(investigation_id, "Investigation")
        found = (
            await load_investigation(session, viewer.org_id, pk)
            if pk is not None and pk <= MAX_PK
            else None
        )
        if found is None:
            raise not_found("Investigation")
        inv = found.row
        agent = (
            await owned(session, AlertResponder, inv.alert_responder_id, viewer.org_id)
            if inv.alert_responder_id is not None
            else None
        )
        covered = await alerts_of_investigation(session, viewer.org_id, inv.id)
    charts = await investigation_charts(
        request.app.state.services, viewer.org_id, inv, found.event_payload
    )
    return page(
        "investigation.html",
        viewer,
        "investigations",
        title=inv.name,
        inv=inv,
        event_payload=found.event_payload,
        team=found.team_name or "-",
        gid=investigation_id,
        agent=agent,
        agent_gid=encode_global_id("AlertResponder", agent.id) if agent is not None else None,
        alerts=[(encode_global_id("Alert", c.alert.id), c.alert) for c in covered],
        charts=charts,
    )


def _zero_filled(
    points: Sequence[tuple[datetime, float]], bucket_seconds: int, end: datetime
) -> list[tuple[datetime, float]]:
    """Error counts with the buckets left out (no errors) as zeros, up to ``end``."""
    if not points:
        return []
    counts = {t: v for t, v in points}
    step = timedelta(seconds=bucket_seconds)
    filled: list[tuple[datetime, float]] = []
    at = points[0][0]
    while at < end:
        filled.append((at, counts.get(at, 0.0)))
        at += step
    return filled


async def investigation_charts(
    services: Services, org_id: int, inv: Investigation, event_payload: str
) -> list[Markup]:
    """The pictures of a finished analysis (``event_payload``: the alert it ran on): the failing
    services' error counts per 5-minute bucket and their metrics over the look-back the engine
    read, every change in it as a marker and the onset line; read through the agent's own stores
    and `sleuth_shell.agents.rca`'s readers. None without an analysis naming a failing service."""
    analysis: Mapping[str, Any] = inv.analysis if isinstance(inv.analysis, dict) else {}
    failing = [str(s) for s in analysis.get("affected_services") or [] if s]
    if analysis.get("service") and analysis["service"] not in failing:
        failing.insert(0, str(analysis["service"]))
    if not failing:
        return []
    onset = parse_timestamp(str(analysis.get("onset") or ""))
    recorded = analysis.get("window")
    window: Mapping[str, Any] = recorded if isinstance(recorded, dict) else {}
    start = parse_timestamp(str(window.get("start") or ""))
    end = parse_timestamp(str(window.get("end") or ""))
    if start is None or end is None or start >= end:
        # An analysis stored before it recorded the look-back it read: the same look-back again.
        now: datetime = inv.completed_at or inv.started_at or inv.created_at
        alert_time = extract_alert(event_payload or "")["time"]
        start, end = rca.look_back(rca.fired_at(alert_time, inv.prompt or "", now), now)
    bounds = await services.logs.time_bounds(org_id)
    since = max(start, bounds[0]) if bounds is not None else start
    errors = await rca.error_series(services.logs, org_id, start, end, failing, since)
    changes = await services.changes.query(org_id, start, end, None, None, None, 200)
    markers = [
        Marker(c.timestamp, c.kind, c.change_id, f"{c.service}: {c.summary}"[:200]) for c in changes
    ]

    def place(service: str) -> int:
        return failing.index(service) if service in failing else len(failing)

    def colour(service: str) -> str:
        return PALETTE[place(service) % len(PALETTE)]

    plotted = {e.service for e in errors}
    quiet = [s for s in failing if s not in plotted]  # failing by warnings or metrics alone
    charts = [
        line_chart(
            "errors",
            f"Errors per 5 minutes: {', '.join(s for s in failing if s in plotted) or 'none'}"
            + (f" (no error lines from {', '.join(quiet)})" if quiet else ""),
            [
                Series(e.service, _zero_filled(e.points, e.bucket_seconds, end), colour(e.service))
                for e in errors
            ],
            start=start,
            end=end,
            markers=markers,
            onset=onset,
        )
    ]
    metrics = await services.metrics.query(org_id, start, end, failing, None, CHART_METRIC_SERIES)
    by_name: dict[str, list[Series]] = {}
    # Each service keeps its place (and so its colour) in every chart.
    metrics.sort(key=lambda m: (place(m.service), sorted(m.labels.items())))
    for m in metrics:
        labels = ", ".join(f"{k}={v}" for k, v in sorted(m.labels.items()))
        name = m.service + (f" {{{labels}}}" if labels else "")
        by_name.setdefault(m.name, []).append(Series(name, m.points, colour(m.service)))
    for i, (name, lines) in enumerate(sorted(by_name.items())):
        charts.append(
            line_chart(
                f"metric-{i}",
                name,
                lines,
                start=start,
                end=end,
                markers=markers,
                onset=onset,
                table=False,
            )
        )
    return charts


@post("/investigations/{investigation_id:str}/stop", status_code=303, **PAGE_OPTIONS)
async def stop_investigation_form(
    request: Request[Any, Any, Any], viewer: ViewerDep, investigation_id: FromPath[str]
) -> Response[Any]:
    """The Stop button: as ``POST /api/v1/investigations/{id}/stop``, an unfinished
    investigation becomes ``STOPPED`` (a finished one is left as it is); back to its page."""
    await form_data(request, viewer)
    async with request.app.state.session_factory() as session:
        inv = await load_owned(
            session,
            Investigation,
            viewer.org_id,
            investigation_id,
            "Investigation",
            "Investigation",
        )
        await stop_investigation(session, viewer.org_id, inv.id)
        await session.commit()
    return Redirect(path=f"/investigations/{quote(investigation_id, safe='=')}", status_code=303)


ROUTES: list[Any] = [investigations_page, investigation_page, stop_investigation_form]
