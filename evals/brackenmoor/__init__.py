"""Brackenmoor Heat, the evaluation's seventh corpus: a district heating utility.

Written by an examiner (examinerq4) who never read the retrieval agent: eleven runbooks and
postmortems in the utility's own vocabulary (substations and their RTUs, make-up water and
leaks, the supply temperature curve and the weather forecast feed, the dispatch of CHP, heat
pump, thermal store and peak boilers, heat meters on a LoRaWAN network, tariffs and the nightly
billing run), with tables, ``key: value`` lines, two runbooks that are easy to confuse (an
emergency isolation of a leaking main and a planned isolation for works: each with an approver,
a customer notice, a command and a refill rate, all different), two postmortems with ISO 8601
timelines and "what we changed afterwards", and two days of logs on fixed grids (no
randomness), so every count a question expects is known exactly:

- Tue 2026-12-08 02:00-02:50: ``forecast-sync`` logs ``forecast fetch failed: GET
  https://api.skyhollow.example/v3/forecast returned 503 Service Unavailable`` every 5 minutes
  (10): the forecast provider is down; 02:50 the fetches recover.
- Tue 2026-12-08 14:10-14:45: ``scada-bridge`` logs ``poll of RTU SS-14 (Quarry Lane) timed out
  after 10s`` every 2 minutes (18, ``missed_polls`` 1 to 18), warns ``RTU SS-14 grey: 3 missed
  polls`` once (14:14:30), and its poll cycles report 23 of 24 RTUs answered; no deploy, no other
  error, no cause in the data.
- Tue 2026-12-08 22:04-22:58: ``billing-run`` logs ``invoice calculation for account A-220914
  failed: meter HM-40718 reading 1842.2 MWh below previous reading 1843.1 MWh`` every 6 minutes
  (10, the same account each time, attempts 1 to 10); 22:58:30 the account is parked, and the
  run finishes at 23:40 with 1 account parked.
- Wed 2026-12-09 05:00-05:30: ``meter-ingest`` warns ``ingest buffer 18400 of 20000 readings
  (92%), above warn 90%`` every 5 minutes (6); 05:30-06:10 it logs ``reading batch rejected:
  ingest buffer full (20000 of 20000 readings)`` every 2 minutes (20); 06:12 the store writers
  are restarted and the buffer drains.
- Wed 2026-12-09 09:40: ``deploy-bot`` deploys ``dispatch-planner`` v4.12.0; 09:45-10:25
  ``dispatch-planner`` logs ``dispatch plan failed (DP-31): supply curve lookup failed for
  outdoor temperature -6C`` every minute (40); 10:25 it is rolled back to v4.11.3.
- Wed 2026-12-09 11:00: ``leak-watch`` warns ``make-up water 9.6 m3/h above warn 8 m3/h (zone
  EAST)``; 11:10-12:00 it logs ``make-up water 14.2 m3/h above alarm 12 m3/h (zone EAST)`` every
  10 minutes (5), still going when asked.

An unrelated deploy (``meter-ingest`` v2.3.1, Mon 2026-12-07 17:30) is followed by nothing.
Healthy noise: ``leak-watch`` warns of 8.4 m3/h in zone WEST every 9 hours, ``scada-bridge`` of a
slow answer from RTU SS-03 every 5 hours, ``forecast-sync`` of a slow Skyhollow answer every 7
hours, ``outage-notifier`` of an undeliverable SMS every 8 hours.
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

START = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
END = datetime(2026, 12, 9, 12, 0, tzinfo=UTC)
NOW = END

# Windows in which a routine message gives way to the incident's own messages.
_QUIET = {
    "forecast-sync": (_at("2026-12-08T02:00:00"), _at("2026-12-08T02:50:00")),
    "meter-ingest": (_at("2026-12-09T05:30:00"), _at("2026-12-09T06:10:00")),
    "dispatch-planner": (_at("2026-12-09T09:45:00"), _at("2026-12-09T10:25:00")),
    "leak-watch": (_at("2026-12-09T11:00:00"), END),
}
_SS14_DOWN = (_at("2026-12-08T14:10:00"), _at("2026-12-08T14:45:00"))
_BILLING_NIGHTS = (_at("2026-12-07T22:00:00"), _at("2026-12-08T22:00:00"))


def runbooks() -> list[tuple[str, str]]:
    """``(title, markdown)`` of every runbook and postmortem, sorted by file name."""
    return read_runbooks(Path(__file__).parent / "runbooks")


def _quiet(service: str, t: datetime) -> bool:
    window = _QUIET.get(service)
    return window is not None and window[0] <= t < window[1]


def _background() -> Iterator[Record]:
    routine = [
        ("forecast-sync", "forecast updated for Brackenmoor (48 hourly points)", 15, 30),
        ("meter-ingest", "ingested batch of 1200 readings", 5, 13),
        ("dispatch-planner", "dispatch plan published (next 4 hours)", 15, 130),
        ("leak-watch", "make-up water 2.1 m3/h (all zones)", 10, 0),
    ]
    for service, message, minutes, offset in routine:
        for t in _grid(START + timedelta(seconds=offset), END, timedelta(minutes=minutes)):
            if not _quiet(service, t):
                yield _rec(t, service, "INFO", message)
    # scada-bridge polls all 24 RTUs every 2 minutes; SS-14 does not answer in its outage.
    for t in _grid(START + timedelta(seconds=5), END, timedelta(minutes=2)):
        answered = 23 if _SS14_DOWN[0] <= t < _SS14_DOWN[1] else 24
        yield _rec(
            t, "scada-bridge", "INFO", f"poll cycle complete: {answered} of 24 RTUs answered"
        )
    # billing-run calculates 20 batches of 250 accounts each night from 22:00.
    for night in _BILLING_NIGHTS:
        for t in _grid(
            night + timedelta(seconds=20), night + timedelta(minutes=100), timedelta(minutes=5)
        ):
            yield _rec(t, "billing-run", "INFO", "invoice batch calculated (250 accounts)")
        parked = 1 if night == _BILLING_NIGHTS[1] else 0
        yield _rec(
            night + timedelta(minutes=100),
            "billing-run",
            "INFO",
            f"billing run finished (5000 accounts, {parked} parked)",
        )
    # Healthy noise.
    for t in _grid(START + timedelta(hours=3, minutes=20), END, timedelta(hours=9)):
        yield _rec(
            t, "leak-watch", "WARNING", "make-up water 8.4 m3/h above warn 8 m3/h (zone WEST)"
        )
    for t in _grid(START + timedelta(hours=2, minutes=51), END, timedelta(hours=5)):
        yield _rec(t, "scada-bridge", "WARNING", "RTU SS-03 (Mill Street) answered slowly (6200ms)")
    for t in _grid(START + timedelta(hours=4, minutes=5), END, timedelta(hours=7)):
        yield _rec(t, "forecast-sync", "WARNING", "Skyhollow answered slowly (4100ms)")
    for t in _grid(START + timedelta(hours=2, minutes=13), END, timedelta(hours=8)):
        yield _rec(
            t,
            "outage-notifier",
            "WARNING",
            "SMS to 1 customer undeliverable: number not in service",
        )


def _incidents() -> Iterator[Record]:
    yield _rec(
        _at("2026-12-07T17:30:00"),
        "deploy-bot",
        "INFO",
        "deployed meter-ingest v2.3.1 (previous v2.3.0)",
        target="meter-ingest",
        author="halloran",
    )
    for t in _grid(_at("2026-12-08T02:00:00"), _at("2026-12-08T02:50:00"), timedelta(minutes=5)):
        yield _rec(
            t,
            "forecast-sync",
            "ERROR",
            "forecast fetch failed: GET https://api.skyhollow.example/v3/forecast "
            "returned 503 Service Unavailable",
            provider="skyhollow",
        )
    yield _rec(
        _at("2026-12-08T02:50:00"),
        "forecast-sync",
        "INFO",
        "forecast fetch recovered: Skyhollow answering again",
        provider="skyhollow",
    )
    for missed, t in enumerate(_grid(*_SS14_DOWN, timedelta(minutes=2)), start=1):
        yield _rec(
            t,
            "scada-bridge",
            "ERROR",
            "poll of RTU SS-14 (Quarry Lane) timed out after 10s",
            rtu="SS-14",
            missed_polls=missed,
        )
    yield _rec(
        _at("2026-12-08T14:14:30"),
        "scada-bridge",
        "WARNING",
        "RTU SS-14 grey: 3 missed polls",
        rtu="SS-14",
    )
    attempts = _grid(_at("2026-12-08T22:04:00"), _at("2026-12-08T23:04:00"), timedelta(minutes=6))
    for attempt, t in enumerate(attempts, start=1):
        yield _rec(
            t,
            "billing-run",
            "ERROR",
            "invoice calculation for account A-220914 failed: meter HM-40718 reading 1842.2 MWh "
            "below previous reading 1843.1 MWh",
            account="A-220914",
            meter="HM-40718",
            attempt=attempt,
        )
    yield _rec(
        _at("2026-12-08T22:58:30"),
        "billing-run",
        "WARNING",
        "account A-220914 parked after 10 failed attempts",
        account="A-220914",
    )
    for t in _grid(_at("2026-12-09T05:00:00"), _at("2026-12-09T05:30:00"), timedelta(minutes=5)):
        yield _rec(
            t,
            "meter-ingest",
            "WARNING",
            "ingest buffer 18400 of 20000 readings (92%), above warn 90%",
        )
    for t in _grid(_at("2026-12-09T05:30:00"), _at("2026-12-09T06:10:00"), timedelta(minutes=2)):
        yield _rec(
            t,
            "meter-ingest",
            "ERROR",
            "reading batch rejected: ingest buffer full (20000 of 20000 readings)",
        )
    yield _rec(
        _at("2026-12-09T06:12:00"),
        "meter-ingest",
        "INFO",
        "store writers restarted; ingest buffer drained to 600 of 20000 readings",
    )
    yield _rec(
        _at("2026-12-09T09:40:00"),
        "deploy-bot",
        "INFO",
        "deployed dispatch-planner v4.12.0 (previous v4.11.3)",
        target="dispatch-planner",
        author="moyo",
    )
    for t in _grid(_at("2026-12-09T09:45:00"), _at("2026-12-09T10:25:00"), timedelta(minutes=1)):
        yield _rec(
            t,
            "dispatch-planner",
            "ERROR",
            "dispatch plan failed (DP-31): supply curve lookup failed for outdoor temperature -6C",
            version="4.12.0",
        )
    yield _rec(
        _at("2026-12-09T10:25:00"),
        "deploy-bot",
        "INFO",
        "rolled back dispatch-planner to v4.11.3 (from v4.12.0)",
        target="dispatch-planner",
        author="moyo",
    )
    yield _rec(
        _at("2026-12-09T11:00:00"),
        "leak-watch",
        "WARNING",
        "make-up water 9.6 m3/h above warn 8 m3/h (zone EAST)",
        zone="EAST",
    )
    for t in _grid(_at("2026-12-09T11:10:00"), END, timedelta(minutes=10)):
        yield _rec(
            t,
            "leak-watch",
            "ERROR",
            "make-up water 14.2 m3/h above alarm 12 m3/h (zone EAST)",
            zone="EAST",
        )


def generate_logs() -> list[Record]:
    """Every log record of the corpus, oldest first."""
    records = [r for r in [*_background(), *_incidents()] if START <= r["timestamp"] < END]
    records.sort(key=lambda r: (r["timestamp"], r["service"], r["message"]))
    return records
