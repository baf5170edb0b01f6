"""What the agents read from the organization's data sources, and how they cite it.

`pull_for` asks ``ctx.data_sources`` (`~sleuth_shell.agents.base.DataSources`) for the series of a
failure; the answer's `MetricSeries` are read exactly as stored ones. Each query is cited with
`pulled_source`: ``type`` ``metrics``, ``log_type_name`` the data source's name, ``tool_id``
``prometheus_query``, ``query`` the JSON object ``{"promql", "start", "end", "step"}``,
``artifact_id`` its evidence snapshot (``GET /api/v1/evidence/{artifact_id}``) and ``link`` the
graph in the source system (``{url}/graph?g0.expr=...``). `pulled_section` writes the report's
"Data sources" section: what each query showed, the id of its snapshot, its citation, and every
source that failed, was slow or was cut short.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from urllib.parse import urlencode

from sleuth_core.language import format_ts
from sleuth_shell.agents.base import AgentContext, Pulled, PulledQuery, PullRequest, SourceRecord
from sleuth_shell.agents.embedded_run import code, inline
from sleuth_shell.agents.sources import MAX_DISPLAY_TEXT, excerpt

__all__ = [
    "MAX_SECTION_QUERIES",
    "TOOL_ID",
    "pull_for",
    "pulled_section",
    "pulled_source",
    "pulled_text",
]

TOOL_ID = "prometheus_query"
#: Queries listed (and cited) in the report's section; the rest are kept as snapshots.
MAX_SECTION_QUERIES = 12
_ROLE_WORDS = {
    "alert": "the alert's own expression",
    "errors": "errors",
    "latency": "latency",
    "saturation": "saturation",
    "traffic": "traffic",
}


async def pull_for(
    ctx: AgentContext,
    *,
    services: Sequence[str],
    start: datetime,
    end: datetime,
    expression: str | None = None,
) -> Pulled:
    """The data sources' series for a failure of ``services`` (most relevant first) over
    ``[start, end]``, and the alert's own ``expression`` when it has one."""
    wanted = tuple(dict.fromkeys(s for s in services if s))
    return await ctx.data_sources.pull(ctx.org_id, PullRequest(wanted, start, end, expression))


def _duration(seconds: float) -> str:
    """A Prometheus duration: ``12h5m``, ``90s`` -> ``1m30s``."""
    total = max(1, int(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    text = (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes else "")
    return text + (f"{secs}s" if secs or not text else "")


def graph_link(url: str, promql: str, start: datetime, end: datetime) -> str:
    """The query's graph in the source system's own UI, over the same range.

    >>> t = datetime(2026, 1, 1, 12, tzinfo=UTC)
    >>> graph_link("http://prom:9090", 'up{job="a"}', t.replace(hour=0), t)
    'http://prom:9090/graph?g0.expr=up%7Bjob%3D%22a%22%7D&g0.tab=0&g0.range_input=12h&g0.end_input=2026-01-01+12%3A00%3A00'
    """
    params = {
        "g0.expr": promql,
        "g0.tab": "0",
        "g0.range_input": _duration((end - start).total_seconds()),
        "g0.end_input": end.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S"),
    }
    return f"{url.rstrip('/')}/graph?{urlencode(params)}"


def pulled_text(query: PulledQuery, notes: Sequence[str] = ()) -> str:
    """What one pulled query vouches for, as text (for the claim check): the source, the query,
    the snapshot's id and every series with its labels and values (each value once); ``notes``,
    what the same pull found of the other sources (one that failed or was slow), go with it."""
    parts = [query.source_name, query.promql, query.artifact_id, query.service, *notes]
    for series in query.series:
        # Each value as stored and as the section rounds it (`_peak`).
        values = " ".join(f"{v:g} {v:.4g}" for v in dict.fromkeys(v for _, v in series.points))
        parts.append(f"{series.service} {series.name} {json.dumps(series.labels)} {values}")
    return "\n".join(parts)


def pulled_source(query: PulledQuery) -> SourceRecord:
    """The source record citing one pulled query (its ``source_id`` set by the citer)."""
    text = json.dumps(
        {
            "promql": query.promql,
            "start": format_ts(query.start),
            "end": format_ts(query.end),
            "step": query.step,
        },
        sort_keys=True,
    )
    return {
        "log_type_name": query.source_name,
        "query": text,
        "start": format_ts(query.start),
        "end": format_ts(query.end),
        "link": graph_link(query.source_url, query.promql, query.start, query.end),
        "artifact_id": query.artifact_id,
        "tool_id": TOOL_ID,
        "type": "metrics",
        "source_id": 0,
        "display_text": excerpt(f"{query.source_name}: {query.promql}", MAX_DISPLAY_TEXT),
    }


def _peak(query: PulledQuery) -> str:
    best: tuple[float, datetime] | None = None
    for series in query.series:
        for at, value in series.points:
            if best is None or value > best[0]:
                best = (value, at)
    if best is None:
        return "no numeric points"
    return f"peak {best[0]:.4g} at §{format_ts(best[1])}§"


def pulled_section(pulled: Pulled, cite: Callable[[PulledQuery], str]) -> str:
    """The report's "Data sources" section ("" when the organization has none); ``cite`` gives
    the marker of a query (its `pulled_source` cited)."""
    if not pulled.consulted:
        return ""
    order = {"alert": 0, "errors": 1, "saturation": 2, "latency": 3, "traffic": 4}
    shown = sorted(pulled.queries, key=lambda q: order.get(q.role, 5))[:MAX_SECTION_QUERIES]
    lines = []
    for query in shown:
        who = f" of **{inline(query.service, 100)}**" if query.service else ""
        lines.append(
            f"- **{inline(query.source_name, 100)}**, {_ROLE_WORDS.get(query.role, query.role)}"
            f"{who}: {code(query.promql, 200)}, {_peak(query)}, kept as evidence "
            f"{code(query.artifact_id, 200)} {cite(query)}"
        )
    if len(pulled.queries) > len(shown):
        lines.append(
            f"- {len(pulled.queries) - len(shown)} more queries were read and kept as evidence."
        )
    if not pulled.queries:
        lines.append("- No data source held series for the services of this failure.")
    lines += [f"- {inline(note, 400)}" for note in pulled.notes]
    return "## Data sources\n\n" + "\n".join(lines)
