"""Billing: the organization's credits per team and month, as a server-rendered SVG bar chart
(a stacked bar a month, one colour a team) with the same numbers as a table.

The numbers are the credit-usage report of ``POST /api/v1/billing/credit-usage``
(:func:`sleuth_shell.billing.usage.credit_usage`) over the last ``months`` calendar months.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from litestar import Request, get
from litestar.response import Template

from sleuth_shell.billing.usage import credit_usage
from sleuth_shell.db.models import utcnow
from sleuth_shell.web.guard import PAGE_OPTIONS, ViewerDep, page

__all__ = ["ROUTES", "bar_chart", "months_back"]

#: Months shown when the page is not asked for another number, and the most it shows.
DEFAULT_MONTHS = 6
MAX_MONTHS = 12
#: The chart's drawing box (the SVG scales to the page's width).
WIDTH, HEIGHT, AXIS = 600, 240, 40
#: Team colours, in order of first appearance (colour-blind-safe palette).
COLOURS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#999")


def months_back(now: datetime, count: int) -> list[str]:
    """The ``count`` calendar months up to and including ``now``'s, oldest first.

    >>> months_back(datetime(2026, 2, 10, tzinfo=UTC), 3)
    ['2025-12', '2026-01', '2026-02']
    """
    year, month = now.year, now.month
    found = []
    for _ in range(count):
        found.append(f"{year:04d}-{month:02d}")
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    return list(reversed(found))


def bar_chart(months: list[str], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The chart's geometry: a stacked bar a month (a segment a team), the legend and the
    top of the scale.

    >>> chart = bar_chart(["2026-01", "2026-02"], [
    ...     {"team_name": "sre", "month": "2026-02", "credits": 3.0},
    ...     {"team_name": None, "month": "2026-02", "credits": 1.0}])
    >>> chart["top"], [(b["month"], len(b["segments"])) for b in chart["bars"]]
    (4.0, [('2026-01', 0), ('2026-02', 2)])
    >>> [name for name, _ in chart["legend"]]
    ['sre', 'unattributed']
    >>> chart["bars"][1]["segments"][0]["height"], chart["bars"][1]["segments"][0]["y"]
    (142.5, 57.5)
    """
    teams: dict[str, str] = {}
    by_month: dict[str, list[tuple[str, float]]] = {m: [] for m in months}
    for row in rows:
        name = row["team_name"] or "unattributed"
        if name not in teams:
            teams[name] = COLOURS[len(teams) % len(COLOURS)]
        if row["month"] in by_month:
            by_month[row["month"]].append((name, float(row["credits"])))
    totals = {m: sum(c for _, c in items) for m, items in by_month.items()}
    top = max(totals.values(), default=0.0) or 1.0
    plot = HEIGHT - AXIS
    slot = (WIDTH - AXIS) / max(len(months), 1)
    bars = []
    for index, month in enumerate(months):
        y = float(plot)
        segments = []
        for name, credits in by_month[month]:
            height = round(credits / top * (plot - 10), 1)
            y = round(y - height, 1)
            segments.append(
                {"team": name, "credits": credits, "colour": teams[name], "y": y, "height": height}
            )
        bars.append(
            {
                "month": month,
                "x": round(AXIS + index * slot + slot * 0.15, 1),
                "width": round(slot * 0.7, 1),
                "total": totals[month],
                "segments": segments,
            }
        )
    return {
        "bars": bars,
        "legend": list(teams.items()),
        "top": max(totals.values(), default=0.0),
        "width": WIDTH,
        "height": HEIGHT,
        "plot": plot,
        "axis": AXIS,
    }


@get("/billing", **PAGE_OPTIONS)
async def billing_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Credits per team and month over the last ``months`` months (default 6, at most 12)."""
    raw = request.query_params.get("months", "")
    count = int(raw) if raw.isdigit() and 1 <= int(raw) <= MAX_MONTHS else DEFAULT_MONTHS
    now = utcnow()
    months = months_back(now, count)
    start = datetime.strptime(months[0], "%Y-%m").replace(tzinfo=UTC)
    async with request.app.state.session_factory() as session:
        report = await credit_usage(session, org_id=viewer.org_id, start=start, end=now)
    rows = sorted(report["data"], key=lambda r: (r["month"], -r["credits"]))
    return page(
        "billing.html",
        viewer,
        "billing",
        title="Billing",
        months=count,
        chart=bar_chart(months, rows),
        rows=rows,
        totals=report["monthly_totals"],
        choices=(3, 6, 12),
    )


ROUTES: list[Any] = [billing_page]
