"""Tidewater Freight, the evaluation's third corpus: a trucking and logistics company.

Written by an examiner who never read the retrieval agent (issue 23): ten runbooks in the
company's own vocabulary (tenders, EDI, SCAC codes, yard moves, telemetry pings), with tables,
``key: value`` lines, two postmortems and pairs that are easy to confuse (two database runbooks,
a runbook and a postmortem about the same failure), and two and a half days of logs on fixed grids
(no randomness), so every count a question expects is known exactly:

- Mon 2026-10-19 22:00-22:30: ``route-planner`` logs ``geocode failed: GET
  https://api.mapgrid.example/v4/geocode timed out after 2000ms`` every minute (30).
- Tue 2026-10-20 02:10-02:40: ``tracking-ingest`` logs ``batch failed on telemetry.pings
  partition 7: NullPointerException in GeofenceMatcher.match`` every 2 minutes (15).
- Tue 2026-10-20 14:00-14:20: ``yard-svc`` logs ``dock door D14 double-booked`` every 4 minutes (5).
- Wed 2026-10-21 10:40-10:55: ``carrier-gateway`` logs ``AS2 send to RDWY failed: 502 Bad
  Gateway`` every 30 s (30); 10:55-11:10 ``AS2 send to RDWY failed: connection reset by peer``
  every 30 s (30).
- Wed 2026-10-21 11:28: ``deploy-bot`` deploys ``dispatch-api`` v4.40.0; 11:30-11:55
  ``dispatch-api`` logs ``tender failed: plan legs: context deadline exceeded`` every minute (25).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from evals.corpus import Record, read_runbooks
from evals.corpus import at as _at
from evals.corpus import grid as _grid
from evals.corpus import record as _rec

__all__ = ["END", "NOW", "START", "generate_logs", "runbooks"]

START = datetime(2026, 10, 19, 0, 0, tzinfo=UTC)
END = datetime(2026, 10, 21, 12, 0, tzinfo=UTC)
NOW = END


def runbooks() -> list[tuple[str, str]]:
    """``(title, markdown)`` of every runbook and postmortem, sorted by file name."""
    return read_runbooks(Path(__file__).parent / "runbooks")


def _background() -> Iterator[Record]:
    routine = [
        ("dispatch-api", "load tendered to carrier", timedelta(minutes=4), 0),
        ("route-planner", "plan computed (4 legs)", timedelta(minutes=5), 13),
        (
            "tracking-ingest",
            "processed batch of 500 pings from telemetry.pings",
            timedelta(minutes=3),
            7,
        ),
        ("carrier-gateway", "EDI 990 accepted", timedelta(minutes=6), 29),
        ("yard-svc", "yard move completed", timedelta(minutes=7), 37),
        ("eta-predictor", "eta published", timedelta(minutes=5), 43),
    ]
    for service, message, step, offset in routine:
        for t in _grid(START + timedelta(seconds=offset), END, step):
            yield _rec(t, service, "INFO", message)
    # Healthy-fleet noise: a discarded stale ping every 4 hours, a slow carrier every 3.
    for t in _grid(START + timedelta(minutes=21), END, timedelta(hours=4)):
        yield _rec(t, "tracking-ingest", "WARNING", "ELD ping older than 300s discarded")
    for t in _grid(START + timedelta(minutes=52), END, timedelta(hours=3)):
        yield _rec(t, "carrier-gateway", "WARNING", "tender response from PRLN took 4100ms")


def _incidents() -> Iterator[Record]:
    for t in _grid(_at("2026-10-19T22:00:00"), _at("2026-10-19T22:30:00"), timedelta(minutes=1)):
        yield _rec(
            t,
            "route-planner",
            "ERROR",
            "geocode failed: GET https://api.mapgrid.example/v4/geocode timed out after 2000ms",
            exception="java.net.http.HttpTimeoutException",
        )
    for t in _grid(_at("2026-10-20T02:10:00"), _at("2026-10-20T02:40:00"), timedelta(minutes=2)):
        yield _rec(
            t,
            "tracking-ingest",
            "ERROR",
            "batch failed on telemetry.pings partition 7: "
            "NullPointerException in GeofenceMatcher.match",
            offset=88123,
        )
    for t in _grid(_at("2026-10-20T14:00:00"), _at("2026-10-20T14:20:00"), timedelta(minutes=4)):
        yield _rec(t, "yard-svc", "ERROR", "dock door D14 double-booked", yard="CHI-2")
    for t in _grid(_at("2026-10-21T10:40:00"), _at("2026-10-21T10:55:00"), timedelta(seconds=30)):
        yield _rec(t, "carrier-gateway", "ERROR", "AS2 send to RDWY failed: 502 Bad Gateway")
    for t in _grid(_at("2026-10-21T10:55:00"), _at("2026-10-21T11:10:00"), timedelta(seconds=30)):
        yield _rec(
            t, "carrier-gateway", "ERROR", "AS2 send to RDWY failed: connection reset by peer"
        )
    yield _rec(
        _at("2026-10-21T11:28:00"),
        "deploy-bot",
        "INFO",
        "deployed dispatch-api v4.40.0 (previous v4.39.3)",
        target="dispatch-api",
        author="mbekele",
    )
    for t in _grid(_at("2026-10-21T11:30:00"), _at("2026-10-21T11:55:00"), timedelta(minutes=1)):
        yield _rec(
            t,
            "dispatch-api",
            "ERROR",
            "tender failed: plan legs: context deadline exceeded",
            upstream="route-planner",
        )


def generate_logs() -> list[Record]:
    """Every log record of the corpus, oldest first."""
    records = [r for r in [*_background(), *_incidents()] if START <= r["timestamp"] < END]
    records.sort(key=lambda r: (r["timestamp"], r["service"], r["message"]))
    return records
