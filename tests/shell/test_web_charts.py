"""The SVG charts (`sleuth_shell.web.charts`): axes, ticks, escaping, empty series; and the
investigation page drawing the demo incident the real engine analysed."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from test_web import sign_in

from sleuth_core.ids import encode_global_id
from sleuth_core.language import format_ts
from sleuth_shell.agents.retrieval import RetrievalAgent
from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import Investigation
from sleuth_shell.demo import load_demo
from sleuth_shell.services import build_services
from sleuth_shell.web.charts import (
    Bar,
    Marker,
    Series,
    line_chart,
    tick_label,
    time_ticks,
    value_ticks,
    waterfall_chart,
)

T0 = datetime(2026, 11, 22, 6, 0, tzinfo=UTC)
HOSTILE = '<script>alert("x")</script>&"\''


def _points(n: int, step: timedelta = timedelta(minutes=5)) -> list[tuple[datetime, float]]:
    return [(T0 + i * step, float(i % 7)) for i in range(n)]


def test_time_ticks_are_round_utc_steps_inside_the_range() -> None:
    start = datetime(2026, 11, 22, 6, 7, tzinfo=UTC)
    ticks = time_ticks(start, start + timedelta(hours=12), 6)
    labels = [tick_label(t, timedelta(hours=12)) for t in ticks]
    assert labels == ["08:00", "10:00", "12:00", "14:00", "16:00", "18:00"]
    assert all(start <= t <= start + timedelta(hours=12) for t in ticks)
    minutes = time_ticks(start, start + timedelta(minutes=4), 6)
    assert [t.minute for t in minutes] == [7, 8, 9, 10, 11]
    days = time_ticks(start, start + timedelta(days=3), 4)
    assert [tick_label(t, timedelta(days=3)) for t in days] == [
        "11-23 00:00",
        "11-24 00:00",
        "11-25 00:00",
    ]
    # A different zone offset is labelled in UTC.
    local = datetime(2026, 11, 22, 17, 30, tzinfo=timezone(timedelta(hours=5, minutes=30)))
    assert tick_label(local, timedelta(hours=1)) == "12:00"


def test_value_ticks_cover_the_values_with_round_steps() -> None:
    assert value_ticks(0.0, 7.0) == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert value_ticks(0.12, 0.93) == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert value_ticks(-3.0, 3.0) == [-4.0, -2.0, 0.0, 2.0, 4.0]
    assert value_ticks(5.0, 5.0)[0] == 0.0 and value_ticks(5.0, 5.0)[-1] >= 5.0


def test_chart_draws_axes_lines_markers_onset_and_a_text_equivalent() -> None:
    onset = T0 + timedelta(hours=2)
    html = str(
        line_chart(
            "c",
            "Errors per 5 minutes",
            [Series("checkout", _points(48)), Series("payments-api", _points(30))],
            start=T0,
            end=T0 + timedelta(hours=4),
            markers=[
                Marker(T0 + timedelta(hours=1), "deploy", "payments-api@v2.14.0", "bad"),
                Marker(T0 + timedelta(hours=3), "flag", "new-cart:7"),
                Marker(T0 + timedelta(hours=9), "commit", "outside"),
            ],
            onset=onset,
        )
    )
    assert html.startswith('<figure class="chart" id="chart-c">') and html.endswith("</figure>")
    assert 'role="img" aria-labelledby="chart-c-t chart-c-d"' in html
    assert '<title id="chart-c-t">Errors per 5 minutes</title>' in html
    assert "2 series from 2026-11-22 06:00 UTC to 2026-11-22 10:00 UTC" in html
    assert html.count('<polyline class="series"') == 2
    ticks = re.findall(r'<text class="ttick"[^>]*>([^<]+)</text>', html)
    assert ticks == ["06:00", "07:00", "08:00", "09:00", "10:00"]
    # Values 0 to 6: the axis runs 0 to 6 in steps of 2.
    assert re.findall(r'<text class="vtick"[^>]*>([^<]+)</text>', html) == ["0", "2", "4", "6"]
    # One marker per change in the window, with its id on hover and in the text equivalent.
    assert html.count('<g class="marker"') == 2 and "outside" not in html
    assert "<title>deploy payments-api@v2.14.0 at 2026-11-22 07:00 UTC: bad</title>" in html
    assert "<li>flag <code>new-cart:7</code> at 2026-11-22 09:00 UTC</li>" in html
    assert html.count('<g class="onset">') == 1 and "<li>Onset at 2026-11-22 08:00 UTC</li>" in html
    # The onset line sits half-way along the 4 hours of the plot area.
    x = float(re.search(r'<g class="onset">.*?<line x1="([\d.]+)"', html).group(1))  # type: ignore[union-attr]
    assert x == round(52 + (560 - 52 - 12) / 2, 1)
    assert "<th>Time (UTC)</th><th>checkout</th><th>payments-api</th>" in html
    # An onset at the right edge has its label on the left of the line (not cut off).
    late = str(line_chart("l", "Late", [], start=T0, end=onset, onset=onset))
    assert 'text-anchor="end" fill="#cf222e">onset</text>' in late
    assert "<td>6</td><td>-</td>" in html  # checkout has points where payments-api has none


def test_hostile_labels_are_escaped() -> None:
    html = str(
        line_chart(
            HOSTILE,
            HOSTILE,
            [Series(HOSTILE, _points(3))],
            markers=[Marker(T0, HOSTILE, HOSTILE, HOSTILE)],
            unit=HOSTILE,
        )
    )
    assert "<script>" not in html and 'alert("x")' not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&amp;&#34;&#39;" in html
    # Attributes stay well-formed: every quote inside a value is escaped.
    assert re.search(r'data-id="[^"]*<', html) is None


def test_empty_series_and_no_series_say_so() -> None:
    empty = str(line_chart("e", "Nothing", [Series("idle", [])], start=T0, end=T0))
    assert "No data in this window" in empty and "<polyline" not in empty
    assert "<li>idle: no data in this window</li>" in empty and "no data</desc>" in empty
    none = str(line_chart("n", "None", []))
    assert "<li>No series in this window</li>" in none and "<table>" not in none
    single = str(line_chart("s", "One", [Series("one", [(T0, 3.0)])]))
    assert '<circle class="series"' in single


def test_waterfall_draws_nested_bars_on_a_round_millisecond_axis_with_a_text_equivalent() -> None:
    bars = [
        Bar("checkout: POST /checkout", 0, 0.0, 380.0),
        Bar("payments: charge card", 1, 100.0, 190.0, failed=True, detail="declined"),
        Bar(f"db: {HOSTILE}" + "x" * 80, 2, 120.0, 20.0),
    ]
    html = str(waterfall_chart("w", "Waterfall", bars, hidden=4))
    assert 'role="img"' in html and 'aria-labelledby="chart-w-t chart-w-d"' in html
    assert '<desc id="chart-w-d">3 spans over 380 ms' in html and "1 failed" in html
    assert "4 more spans not drawn" in html
    # Round ticks from 0 to 400 ms; the axis ends at the last tick, so 380 ms is not full width.
    assert re.findall(r'class="ttick"[^>]*>([^<]+)<', html) == [
        "0 ms",
        "100 ms",
        "200 ms",
        "300 ms",
        "400 ms",
    ]
    # The plot is 538 units wide (8 to 546) for 0..400 ms; each bar under its label.
    rects = re.findall(r'<rect x="([\d.]+)" y="(\d+)" width="([\d.]+)"', html)
    assert [(float(x), int(y), float(w)) for x, y, w in rects] == [
        (8.0, 21, 511.1),
        (142.5, 57, 255.55),
        (169.4, 93, 26.9),
    ]
    assert html.count('data-state="failed"') == 1 and "#cf222e" in html
    # Labels indent by depth and are clipped; every text is escaped.
    assert '<text class="label" x="28" y="87">' in html and "\u2026</text>" in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<li>Failed: payments: charge card at 100 ms: declined</li>" in html
    assert "<li>Long: checkout: POST /checkout, 380 ms from 0 ms</li>" in html
    # A trace of one instant still draws (a 1-unit bar on a 0..1 ms axis).
    instant = str(waterfall_chart("i", "One", [Bar("a: b", 0, 0.0, 0.0)]))
    assert 'width="1.0"' in instant and "1 span over 0 ms" in instant


DEMO_NOW = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


@pytest.mark.storage
def test_investigation_page_draws_the_demo_incident(client, factory, org, migrated_url) -> None:
    payload = json.dumps(
        {"title": "checkout 5xx", "service": "checkout", "time": format_ts(DEMO_NOW)}
    )

    async def analyse() -> dict:
        engine = create_engine(migrated_url)
        sessions = create_session_factory(engine)
        async with sessions() as session:
            await load_demo(session, org.id, now=DEMO_NOW)
        services = build_services(Settings(public_url="http://sleuth.test"), sessions)
        try:
            ctx = services.agent_context(org.id, now=DEMO_NOW)
            result = await RetrievalAgent().investigate(ctx, "Investigate.", payload)
            changes = await services.changes.query(
                org.id, DEMO_NOW - timedelta(hours=12), DEMO_NOW, None, None, None, 200
            )
            return {"analysis": result.analysis, "changes": [c.change_id for c in changes]}
        finally:
            await services.aclose()
            await engine.dispose()

    found = asyncio.run(analyse())
    analysis = found["analysis"]
    assert analysis["service"] == "payments-api" and analysis["onset"]
    inv = factory.add(
        Investigation(
            org_id=org.id,
            team_id=org.default_team_id,
            name="checkout 5xx",
            status="COMPLETED",
            prompt="Investigate.",
            event_payload=payload,
            result="done",
            analysis=analysis,
            created_at=DEMO_NOW,
            started_at=DEMO_NOW,
            completed_at=DEMO_NOW + timedelta(seconds=5),
        )
    )
    sign_in(client, org.key)
    page = client.get(f"/investigations/{encode_global_id('Investigation', inv.id)}").text
    errors = page[page.index('<figure class="chart" id="chart-errors">') :]
    errors = errors[: errors.index("</figure>")]
    assert 'role="img"' in errors and "Errors per 5 minutes: payments-api" in errors
    assert '<polyline class="series"' in errors
    # A failing service with no error-level lines (the demo's orders-worker logs warnings) is
    # named as such, not listed beside the lines drawn.
    assert "storefront (no error lines from orders-worker)</title>" in errors
    assert found["changes"], "the demo has changes in the look-back"
    for change_id in found["changes"]:
        assert f'data-id="{change_id}"' in errors, change_id
        assert f"<code>{change_id}</code>" in errors
    assert errors.count('<g class="marker"') == len(found["changes"])
    assert errors.count('<g class="onset">') == 1
    onset = datetime.fromisoformat(analysis["onset"].replace("Z", "+00:00"))
    assert f"Onset at {onset:%Y-%m-%d %H:%M} UTC" in errors
    # The key metrics of the failing services, with the same markers and onset.
    assert 'id="chart-metric-0"' in page
    assert page.count('<g class="onset">') >= 2
