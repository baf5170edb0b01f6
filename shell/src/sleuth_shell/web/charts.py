"""Server-rendered SVG charts: pure functions from series (or a trace's spans) to escaped HTML (a
``<figure>`` with the SVG, a legend and a text equivalent). Every chart of the web app is drawn
here: :func:`line_chart` (metrics, errors around an onset, credits) and :func:`waterfall_chart`
(a trace's spans).

A chart has a time axis (UTC tick labels at round steps), a value axis (round steps from zero
or the lowest value), one line per series, vertical markers (changes) and an optional onset
line. The SVG is ``role="img"`` with a ``<title>`` and ``<desc>``; each marker carries its own
``<title>`` (shown on hover); the text equivalent lists the series, the markers and, unless
turned off, a table of the points.

>>> from datetime import UTC, datetime
>>> t = datetime(2026, 1, 1, 12, tzinfo=UTC)
>>> html = line_chart("c1", "Errors <b>", [Series("api", [(t, 1.0)])])
>>> "Errors &lt;b&gt;" in html and 'role="img"' in html
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from markupsafe import Markup, escape

__all__ = [
    "PALETTE",
    "Bar",
    "Marker",
    "Series",
    "line_chart",
    "tick_label",
    "time_ticks",
    "value_ticks",
    "waterfall_chart",
]

#: Line colours, in order (the legend repeats them); readable on white, distinct in grey.
PALETTE = ("#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#1b7c83")
#: Marker colour per change kind (others grey).
KIND_COLOURS = {"deploy": "#8250df", "commit": "#1b7c83", "flag": "#bf8700", "config": "#57606a"}
ONSET_COLOUR = "#cf222e"
#: Waterfall bars: a span that succeeded, one that failed.
BAR_COLOUR = "#0969da"
FAILED_COLOUR = "#cf222e"

_STEPS = (60, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800)


@dataclass(frozen=True)
class Series:
    """One line: its name (legend) and ``(time, value)`` points, oldest first; ``colour``
    (default: the `PALETTE` colour of its place in the chart) keeps a service's colour the same
    across charts."""

    name: str
    points: Sequence[tuple[datetime, float]]
    colour: str | None = None


@dataclass(frozen=True)
class Marker:
    """A vertical line at ``at``: ``kind`` (deploy, commit, flag, config) and ``label`` (its id),
    with ``detail`` for the hover title and the text equivalent."""

    at: datetime
    kind: str
    label: str
    detail: str = ""


def time_ticks(start: datetime, end: datetime, most: int = 6) -> list[datetime]:
    """Tick times at a round step (1, 5, 10, 15, 30 minutes, 1, 2, 3, 6, 12 hours, 1, 2, 7 days)
    inside ``start``..``end``, at most ``most`` of them.

    >>> s = datetime(2026, 1, 1, 10, 7, tzinfo=UTC)
    >>> [t.strftime("%H:%M") for t in time_ticks(s, s + timedelta(hours=2))]
    ['10:30', '11:00', '11:30', '12:00']
    """
    span = max((end - start).total_seconds(), 1.0)
    step = next((s for s in _STEPS if span / s <= most), None)
    if step is None:
        step = math.ceil(span / most / 86400) * 86400
    first = math.ceil(start.timestamp() / step) * step
    ticks: list[datetime] = []
    at = first
    while at <= end.timestamp():
        ticks.append(datetime.fromtimestamp(at, UTC))
        at += step
    return ticks


def tick_label(at: datetime, span: timedelta) -> str:
    """A tick's UTC label: ``HH:MM`` within a day, ``MM-DD HH:MM`` for longer spans.

    >>> tick_label(datetime(2026, 3, 4, 5, 6, tzinfo=UTC), timedelta(days=2))
    '03-04 05:06'
    """
    at = at.astimezone(UTC)
    return at.strftime("%m-%d %H:%M" if span > timedelta(days=1) else "%H:%M")


def _nice(raw: float) -> float:
    power = 10.0 ** math.floor(math.log10(raw))
    for f in (1.0, 2.0, 2.5, 5.0, 10.0):
        if raw <= f * power:
            return f * power
    return 10 * power


def value_ticks(low: float, high: float, count: int = 4) -> list[float]:
    """Round value ticks covering ``low``..``high`` (from zero when all values are positive).

    >>> value_ticks(3.0, 97.0)
    [0.0, 25.0, 50.0, 75.0, 100.0]
    >>> value_ticks(0.0, 0.0)
    [0.0, 1.0]
    """
    low = min(low, 0.0)
    if high <= low:
        return [low, low + 1.0]
    step = _nice((high - low) / count)
    first = math.floor(low / step)
    last = math.ceil(high / step)
    return [round(i * step, 10) for i in range(first, last + 1)]


def _num(value: float) -> str:
    if abs(value) >= 10000:
        return f"{value / 1000:g}k"
    return f"{round(value, 4):g}"


def _utc(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _opening(
    key: str, kind: str, title: str, described: str, caption: bool, width: int, height: int
) -> list[str]:
    """A chart's ``<figure>`` up to its drawing: the caption, the SVG's role, title and
    description (the screen reader's summary)."""
    k = escape(key)
    extra = f" {kind}" if kind else ""
    return [
        f'<figure class="chart{" waterfall-chart" if kind else ""}" id="chart-{k}">',
        f'<figcaption aria-hidden="true">{escape(title)}</figcaption>' if caption else "",
        f'<svg class="chart-svg{extra}" role="img" aria-labelledby="chart-{k}-t chart-{k}-d" '
        f'viewBox="0 0 {width} {height}" preserveAspectRatio="xMidYMid meet">',
        f'<title id="chart-{k}-t">{escape(title)}</title>',
        f'<desc id="chart-{k}-d">{escape(described)}</desc>',
    ]


def line_chart(
    key: str,
    title: str,
    series: Sequence[Series],
    *,
    start: datetime | None = None,
    end: datetime | None = None,
    markers: Sequence[Marker] = (),
    onset: datetime | None = None,
    unit: str = "",
    table: bool = True,
    caption: bool = True,
    width: int = 560,
    height: int = 240,
) -> Markup:
    """The chart ``key`` (unique on the page, for element ids) as a ``<figure>``: the title as
    a visible caption (unless ``caption`` is false: the page heads it already), an SVG with
    axes, lines, markers and the onset line, a legend, and a text equivalent (with a table of
    the points when ``table``). Times outside ``start``..``end`` (default: the data's own
    range) are not drawn. Every text is escaped.
    """
    times = [t for s in series for t, _ in s.points]
    times += [m.at for m in markers] + ([onset] if onset else [])
    t0 = start or (min(times) if times else datetime.now(UTC))
    t1 = end or (max(times) if times else t0)
    if t1 <= t0:
        t1 = t0 + timedelta(minutes=1)
    values = [v for s in series for t, v in s.points if t0 <= t <= t1 and math.isfinite(v)]
    vticks = value_ticks(min(values, default=0.0), max(values, default=0.0))
    v0, v1 = vticks[0], vticks[-1]
    left, right, top, bottom = 52, 12, 14, 40
    pw, ph = width - left - right, height - top - bottom
    span = (t1 - t0).total_seconds()

    def x(at: datetime) -> float:
        return round(left + (at - t0).total_seconds() / span * pw, 1)

    def y(v: float) -> float:
        return round(top + ph - (v - v0) / (v1 - v0) * ph, 1)

    drawn = [s for s in series if any(t0 <= t <= t1 for t, _ in s.points)]
    described = (
        f"{len(drawn)} series from {_utc(t0)} to {_utc(t1)}"
        + (f", values {_num(min(values))} to {_num(max(values))}{unit}" if values else ", no data")
        + (f", {len(markers)} changes marked" if markers else "")
        + (f", onset at {_utc(onset)}" if onset else "")
    )
    out = _opening(key, "", title, described, caption, width, height)
    # Value axis with grid lines.
    for v in vticks:
        out.append(
            f'<line class="gridline" x1="{left}" x2="{left + pw}" y1="{y(v)}" y2="{y(v)}" '
            'stroke="#d0d7de" stroke-width="1"/>'
            f'<text class="vtick" x="{left - 6}" y="{y(v) + 4}" text-anchor="end">'
            f"{escape(_num(v))}</text>"
        )
    # Time axis.
    whole = t1 - t0
    out.append(
        f'<line class="axis" x1="{left}" x2="{left + pw}" y1="{top + ph}" y2="{top + ph}" '
        'stroke="#57606a" stroke-width="1"/>'
    )
    for at in time_ticks(t0, t1, max(2, pw // 110)):
        # A label at either end of the axis is aligned inwards so it is not cut off.
        anchor = "start" if x(at) < left + 30 else "end" if x(at) > left + pw - 30 else "middle"
        out.append(
            f'<line x1="{x(at)}" x2="{x(at)}" y1="{top + ph}" y2="{top + ph + 4}" '
            'stroke="#57606a"/>'
            f'<text class="ttick" x="{x(at)}" y="{top + ph + 17}" text-anchor="{anchor}">'
            f"{escape(tick_label(at, whole))}</text>"
        )
    out.append(
        f'<text class="axis-title" x="{left + pw}" y="{height - 4}" text-anchor="end">'
        "Time (UTC)</text>"
    )
    if not values:
        out.append(
            f'<text class="empty" x="{left + pw / 2}" y="{top + ph / 2}" '
            'text-anchor="middle">No data in this window</text>'
        )
    # Lines.
    for i, s in enumerate(series):
        colour = s.colour or PALETTE[i % len(PALETTE)]
        pts = [(t, v) for t, v in s.points if t0 <= t <= t1 and math.isfinite(v)]
        if len(pts) == 1:
            out.append(
                f'<circle class="series" cx="{x(pts[0][0])}" cy="{y(pts[0][1])}" r="3" '
                f'fill="{colour}"><title>{escape(s.name)}</title></circle>'
            )
        elif pts:
            coords = " ".join(f"{x(t)},{y(v)}" for t, v in pts)
            out.append(
                f'<polyline class="series" fill="none" stroke="{colour}" stroke-width="2" '
                f'stroke-linejoin="round" points="{coords}"><title>{escape(s.name)}</title>'
                "</polyline>"
            )
    # Change markers and the onset line.
    for m in markers:
        if not t0 <= m.at <= t1:
            continue
        colour = KIND_COLOURS.get(m.kind, "#57606a")
        hover = f"{m.kind} {m.label} at {_utc(m.at)}" + (f": {m.detail}" if m.detail else "")
        out.append(
            f'<g class="marker" data-kind="{escape(m.kind)}" data-id="{escape(m.label)}">'
            f"<title>{escape(hover)}</title>"
            f'<line x1="{x(m.at)}" x2="{x(m.at)}" y1="{top}" y2="{top + ph}" stroke="{colour}" '
            'stroke-width="1.5" stroke-dasharray="4 3"/>'
            # A wider invisible line to hover.
            f'<line x1="{x(m.at)}" x2="{x(m.at)}" y1="{top - 8}" y2="{top + ph}" '
            'stroke="transparent" stroke-width="9"/>'
            f'<path d="M{x(m.at) - 5},{top - 8} h10 l-5,7 z" fill="{colour}"/></g>'
        )
    if onset is not None and t0 <= onset <= t1:
        out.append(
            f'<g class="onset"><title>{escape("onset at " + _utc(onset))}</title>'
            f'<line x1="{x(onset)}" x2="{x(onset)}" y1="{top}" y2="{top + ph}" '
            f'stroke="{ONSET_COLOUR}" stroke-width="2"/>'
            + (
                f'<text x="{x(onset) - 4}" y="{top + 10}" text-anchor="end" '
                if x(onset) > left + pw - 50
                else f'<text x="{x(onset) + 4}" y="{top + 10}" '
            )
            + f'fill="{ONSET_COLOUR}">onset</text></g>'
        )
    out.append("</svg>")
    # Legend (visible, hidden from screen readers: the text equivalent says the same).
    legend = [
        f'<li><span class="swatch" style="background:{s.colour or PALETTE[i % len(PALETTE)]}">'
        "</span>"
        f"{escape(s.name)}</li>"
        for i, s in enumerate(series)
    ]
    kinds = sorted({m.kind for m in markers if t0 <= m.at <= t1})
    legend += [
        f'<li><span class="swatch dashed" style="border-color:{KIND_COLOURS.get(kd, "#57606a")}">'
        f"</span>{escape(kd)}</li>"
        for kd in kinds
    ]
    if onset is not None:
        legend.append(
            f'<li><span class="swatch" style="background:{ONSET_COLOUR}"></span>onset</li>'
        )
    out.append(f'<ul class="legend" aria-hidden="true">{"".join(legend)}</ul>')
    out.append(_text_equivalent(series, markers, onset, t0, t1, unit, table))
    out.append("</figure>")
    return Markup("".join(out))


def _text_equivalent(
    series: Sequence[Series],
    markers: Sequence[Marker],
    onset: datetime | None,
    t0: datetime,
    t1: datetime,
    unit: str,
    table: bool,
) -> str:
    out = ['<details class="chart-text"><summary>Chart as text</summary><ul>']
    for s in series:
        pts = [(t, v) for t, v in s.points if t0 <= t <= t1]
        if pts:
            top_t, top_v = max(pts, key=lambda p: p[1])
            out.append(
                f"<li>{escape(s.name)}: {len(pts)} points, highest {escape(_num(top_v))}"
                f"{escape(unit)} at {escape(_utc(top_t))}, last {escape(_num(pts[-1][1]))}"
                f"{escape(unit)}</li>"
            )
        else:
            out.append(f"<li>{escape(s.name)}: no data in this window</li>")
    if not series:
        out.append("<li>No series in this window</li>")
    for m in markers:
        if t0 <= m.at <= t1:
            out.append(
                f"<li>{escape(m.kind)} <code>{escape(m.label)}</code> at {escape(_utc(m.at))}"
                + (f": {escape(m.detail)}" if m.detail else "")
                + "</li>"
            )
    if onset is not None:
        out.append(f"<li>Onset at {escape(_utc(onset))}</li>")
    out.append("</ul>")
    if table and series:
        rows: dict[datetime, dict[int, float]] = {}
        for i, s in enumerate(series):
            for t, v in s.points:
                if t0 <= t <= t1:
                    rows.setdefault(t, {})[i] = v
        head = "".join(f"<th>{escape(s.name)}</th>" for s in series)
        out.append(f'<div class="scroll"><table><tr><th>Time (UTC)</th>{head}</tr>')
        for t in sorted(rows):
            cells = "".join(
                f"<td>{escape(_num(rows[t][i])) if i in rows[t] else '-'}</td>"
                for i in range(len(series))
            )
            out.append(f'<tr><td class="nowrap">{escape(_utc(t))}</td>{cells}</tr>')
        out.append("</table></div>")
    out.append("</details>")
    return "".join(out)


@dataclass(frozen=True)
class Bar:
    """One span of a waterfall, in drawing order (each after its parent): its ``label``
    (service and name), nesting ``depth``, start offset from the trace's start and duration (ms),
    whether it ``failed``, and ``detail`` (status message) for the hover title and the text."""

    label: str
    depth: int
    start_ms: float
    duration_ms: float
    failed: bool = False
    detail: str = ""


def _ms(value: float) -> str:
    """A duration for an axis or a sentence: ``ms`` below ten seconds, else seconds.

    >>> _ms(250.0), _ms(12500.0)
    ('250 ms', '12.5 s')
    """
    return f"{_num(value / 1000)} s" if value >= 10000 else f"{_num(value)} ms"


def _clip(text: str, most: int) -> str:
    return text if len(text) <= most else text[: max(most - 1, 1)] + "\u2026"


def waterfall_chart(
    key: str,
    title: str,
    bars: Sequence[Bar],
    *,
    hidden: int = 0,
    caption: bool = True,
    width: int = 560,
    row_height: int = 36,
) -> Markup:
    """A trace's waterfall ``key`` as a ``<figure>``: one row per span, its label (indented by
    depth) above its bar from its start to its end on a time axis in round milliseconds from the
    trace's start (failed spans in red, each row with its own hover ``<title>``), and a text
    equivalent (the span count and duration, the longest spans, every failed span). The SVG
    scales to the screen like :func:`line_chart`'s, so labels sit above the bars rather than
    beside them: at 390 px the bars keep the whole width. ``hidden`` says how many more spans
    the trace has than ``bars``. Every text is escaped.
    """
    total = max((b.start_ms + b.duration_ms for b in bars), default=0.0)
    ticks = value_ticks(0.0, total, 4)
    left, right, axis = 8, 14, 30
    pw = width - left - right
    scale = pw / ticks[-1]
    height = max(len(bars), 1) * row_height + axis
    failed = [b for b in bars if b.failed]
    described = (
        f"{len(bars)} span{'' if len(bars) == 1 else 's'} over {_ms(total)}, each a bar from its "
        "start to its end, nested under its parent"
        + (f"; {len(failed)} failed, in red" if failed else "")
        + (f"; {hidden} more spans not drawn" if hidden else "")
    )
    out = _opening(key, "waterfall", title, described, caption, width, height)
    base = height - axis + 4
    out.append(
        f'<line class="axis" x1="{left}" x2="{left + pw}" y1="{base}" y2="{base}" '
        'stroke="#57606a" stroke-width="1"/>'
    )
    for i, tick in enumerate(ticks):
        x = round(left + tick * scale, 1)
        anchor = "start" if i == 0 else "end" if i == len(ticks) - 1 else "middle"
        out.append(
            f'<line class="gridline" x1="{x}" x2="{x}" y1="0" y2="{base}" stroke="#d0d7de" '
            'stroke-dasharray="2 3"/>'
            f'<text class="ttick" x="{x}" y="{base + 18}" text-anchor="{anchor}">'
            f"{escape(_ms(tick))}</text>"
        )
    for index, b in enumerate(bars):
        y = index * row_height
        indent = min(b.depth, 10)
        state = "failed" if b.failed else "ok"
        hover = (
            f"{b.label}, starts at {_num(b.start_ms)} ms, lasts {_num(b.duration_ms)} ms, {state}"
            + (f": {b.detail}" if b.detail else "")
        )
        out.append(
            f'<g class="span" data-state="{state}"><title>{escape(hover)}</title>'
            f'<text class="label" x="{left + indent * 10}" y="{y + 15}">'
            f"{escape(_clip(b.label, 50 - indent * 2))}</text>"
            f'<rect x="{round(left + b.start_ms * scale, 2)}" y="{y + 21}" '
            f'width="{round(max(b.duration_ms * scale, 1.0), 2)}" height="11" rx="2" '
            f'fill="{FAILED_COLOUR if b.failed else BAR_COLOUR}"/></g>'
        )
    out.append("</svg>")
    out.append(
        '<ul class="legend" aria-hidden="true">'
        f'<li><span class="swatch" style="background:{BAR_COLOUR}"></span>span</li>'
        f'<li><span class="swatch" style="background:{FAILED_COLOUR}"></span>failed span</li>'
        "</ul>"
    )
    text = [
        '<details class="chart-text"><summary>Chart as text</summary><ul>',
        f"<li>{escape(described)}</li>",
    ]
    for b in sorted(bars, key=lambda b: -b.duration_ms)[:3]:
        text.append(
            f"<li>Long: {escape(b.label)}, {escape(_num(b.duration_ms))} ms from "
            f"{escape(_num(b.start_ms))} ms</li>"
        )
    for b in failed:
        text.append(
            f"<li>Failed: {escape(b.label)} at {escape(_num(b.start_ms))} ms"
            + (f": {escape(b.detail)}" if b.detail else "")
            + "</li>"
        )
    text.append("</ul></details>")
    out.extend(text)
    out.append("</figure>")
    return Markup("".join(out))
