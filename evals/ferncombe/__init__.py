"""Ferncombe Blood Network, the evaluation's sixth corpus: a regional blood-bank network.

Written by an examiner who never read the retrieval agent: twelve runbooks and postmortems in the
network's own vocabulary (donations and DINs, components and shelf life, hubs and their stock
feeds, hospital orders by priority, couriers, the testing lab's spool, the cold chain), with
tables, ``key: value`` lines, two runbooks that are easy to confuse (red cell fridges and platelet
incubators: both cold-chain excursions, each with an alarm delay, a quarantine limit, an approver
and a quarantine command), two postmortems with ISO 8601 timelines and "what we changed
afterwards", and two days of logs on fixed grids (no randomness), so every count a question
expects is known exactly:

- Mon 2026-09-14 19:20-19:40: ``courier-dispatch`` warns ``swiftvale booking latency 2900ms
  above 2000ms`` every 2 minutes (10); 19:40-20:20 it logs ``courier booking failed:
  api.swiftvale.example returned 503 Service Unavailable`` every 2 minutes (20), and
  ``order-router`` warns that STAT orders wait for a courier (19:55-20:20, every 5 minutes).
  An outside dependency.
- Tue 2026-09-15 10:12: ``deploy-bot`` deploys ``order-router`` v4.6.0; 10:15-10:50
  ``order-router`` logs ``HL7 order rejected: NullPointerException in OrmParser.wardCode``
  every minute (35); 10:48 it is rolled back to v4.5.2. Caused by the deploy.
- Tue 2026-09-15 14:10-14:35: ``donor-portal`` logs ``booking failed: slot lock timeout (centre
  KSB)`` every minute (25); no deploy, no other error: no cause in the data.
- Tue 2026-09-15 22:00-22:40: ``coldchain-mon`` warns ``incubator PI-22 (hub HRW) agitation
  stopped`` every 5 minutes (8); restored at 22:40.
- Wed 2026-09-16 08:00-09:00: ``lab-results`` warns ``spool volume /var/spool/lab-results 93%
  used`` every 10 minutes (6); 09:00-09:40 it logs ``analyzer batch import failed: no space
  left on device (/var/spool/lab-results)`` every 2 minutes (20); 09:10-09:45 ``inventory-api``
  warns ``units awaiting release above 400 (lab-results import stalled)`` every 5 minutes (7).
  An exhaustion.
- Wed 2026-09-16 11:10-12:00 (still going when asked): ``inventory-api`` logs ``stock feed from
  hub HRW rejected: 38 units of E0411 with expiry 2062-09-21 beyond shelf life`` every 5
  minutes (10). A data problem.

Asked at Wed 2026-09-16 12:00 UTC.
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

START = datetime(2026, 9, 14, 12, 0, tzinfo=UTC)
END = datetime(2026, 9, 16, 12, 0, tzinfo=UTC)
NOW = END

# Windows in which a routine message gives way to the incident's own messages (or a degraded one).
_QUIET = {
    "courier-dispatch": (_at("2026-09-14T19:40:00"), _at("2026-09-14T20:20:00")),
    "order-router": (_at("2026-09-15T10:15:00"), _at("2026-09-15T10:50:00")),
    "donor-portal": (_at("2026-09-15T14:10:00"), _at("2026-09-15T14:35:00")),
    "lab-results": (_at("2026-09-16T09:00:00"), _at("2026-09-16T09:40:00")),
    "inventory-api": (_at("2026-09-16T11:10:00"), _at("2026-09-16T12:00:00")),
}
_DEGRADED = {"inventory-api": "stock feed imported from 2 of 3 hubs (HRW held at last good import)"}


def runbooks() -> list[tuple[str, str]]:
    """``(title, markdown)`` of every runbook and postmortem, sorted by file name."""
    return read_runbooks(Path(__file__).parent / "runbooks")


def _quiet(service: str, t: datetime) -> bool:
    window = _QUIET.get(service)
    return window is not None and window[0] <= t < window[1]


def _background() -> Iterator[Record]:
    routine = [
        ("order-router", "hospital order accepted (HL7 ORM)", timedelta(minutes=3), 17),
        ("inventory-api", "stock feed imported from 3 hubs", timedelta(minutes=5), 41),
        ("lab-results", "analyzer batch imported (96 results)", timedelta(minutes=10), 73),
        ("courier-dispatch", "courier booked with Swiftvale", timedelta(minutes=6), 29),
        ("donor-portal", "appointment booked", timedelta(minutes=4), 53),
        ("coldchain-mon", "readings in range (51 fridges, 18 incubators)", timedelta(minutes=5), 7),
        ("label-svc", "labels printed for session", timedelta(minutes=15), 97),
    ]
    for service, message, step, offset in routine:
        for t in _grid(START + timedelta(seconds=offset), END, step):
            if _quiet(service, t):
                if service in _DEGRADED:
                    yield _rec(t, service, "INFO", _DEGRADED[service])
                continue
            yield _rec(t, service, "INFO", message)
    # Nightly jobs: the expiry sweep at 00:30, the lab archive at 01:00.
    for day, removed in (("2026-09-15", 7), ("2026-09-16", 4)):
        yield _rec(
            _at(f"{day}T00:30:00"),
            "inventory-api",
            "INFO",
            f"expiry sweep removed {removed} expired units (3 hubs)",
        )
    for day, archived in (("2026-09-15", "1,842"), ("2026-09-16", "1,796")):
        yield _rec(
            _at(f"{day}T01:00:00"),
            "lab-results",
            "INFO",
            f"results archived to labarchive ({archived} results)",
        )
    # A harmless deploy of another service.
    yield _rec(
        _at("2026-09-14T15:00:00"),
        "deploy-bot",
        "INFO",
        "deployed label-svc v2.9.3 (previous v2.9.2)",
        target="label-svc",
        author="mokafor",
    )
    # Healthy noise: a fridge door left open every 6 hours.
    for t in _grid(START + timedelta(minutes=97), END, timedelta(hours=6)):
        yield _rec(t, "coldchain-mon", "WARNING", "fridge RF-107 (hub KSB) door open 95 s")


def _incidents() -> Iterator[Record]:
    # Mon evening: Swiftvale's booking API slows down, then refuses bookings.
    for t in _grid(_at("2026-09-14T19:20:00"), _at("2026-09-14T19:40:00"), timedelta(minutes=2)):
        yield _rec(
            t, "courier-dispatch", "WARNING", "swiftvale booking latency 2900ms above 2000ms"
        )
    for t in _grid(_at("2026-09-14T19:40:00"), _at("2026-09-14T20:20:00"), timedelta(minutes=2)):
        yield _rec(
            t,
            "courier-dispatch",
            "ERROR",
            "courier booking failed: api.swiftvale.example returned 503 Service Unavailable",
            partner="swiftvale",
            status=503,
        )
    for t in _grid(_at("2026-09-14T19:55:00"), _at("2026-09-14T20:20:00"), timedelta(minutes=5)):
        yield _rec(
            t, "order-router", "WARNING", "STAT order SMH waiting for courier over 15 minutes"
        )
    yield _rec(
        _at("2026-09-14T20:20:00"),
        "courier-dispatch",
        "INFO",
        "courier booking recovered: api.swiftvale.example accepting bookings",
    )
    # Tue morning: an order-router release breaks the HL7 parser; rolled back at 10:48.
    yield _rec(
        _at("2026-09-15T10:12:00"),
        "deploy-bot",
        "INFO",
        "deployed order-router v4.6.0 (previous v4.5.2)",
        target="order-router",
        author="jlindqvist",
    )
    for t in _grid(_at("2026-09-15T10:15:00"), _at("2026-09-15T10:50:00"), timedelta(minutes=1)):
        yield _rec(
            t,
            "order-router",
            "ERROR",
            "HL7 order rejected: NullPointerException in OrmParser.wardCode",
            feed="hl7",
        )
    yield _rec(
        _at("2026-09-15T10:48:00"),
        "deploy-bot",
        "INFO",
        "rolled back order-router to v4.5.2",
        target="order-router",
        author="jlindqvist",
    )
    # Tue afternoon: slot lock timeouts at one donor centre, nothing else.
    for t in _grid(_at("2026-09-15T14:10:00"), _at("2026-09-15T14:35:00"), timedelta(minutes=1)):
        yield _rec(
            t,
            "donor-portal",
            "ERROR",
            "booking failed: slot lock timeout (centre KSB)",
            centre="KSB",
        )
    # Tue night: an incubator's agitator stops for 40 minutes.
    for t in _grid(_at("2026-09-15T22:00:00"), _at("2026-09-15T22:40:00"), timedelta(minutes=5)):
        yield _rec(
            t, "coldchain-mon", "WARNING", "incubator PI-22 (hub HRW) agitation stopped", hub="HRW"
        )
    yield _rec(
        _at("2026-09-15T22:40:00"),
        "coldchain-mon",
        "INFO",
        "incubator PI-22 (hub HRW) agitation restored after 40 min",
        hub="HRW",
    )
    # Wed morning: the lab spool fills up and imports stop.
    for t in _grid(_at("2026-09-16T08:00:00"), _at("2026-09-16T09:00:00"), timedelta(minutes=10)):
        yield _rec(t, "lab-results", "WARNING", "spool volume /var/spool/lab-results 93% used")
    for t in _grid(_at("2026-09-16T09:00:00"), _at("2026-09-16T09:40:00"), timedelta(minutes=2)):
        yield _rec(
            t,
            "lab-results",
            "ERROR",
            "analyzer batch import failed: no space left on device (/var/spool/lab-results)",
        )
    yield _rec(
        _at("2026-09-16T09:40:00"),
        "lab-results",
        "INFO",
        "spool purge freed 41 GB; imports resumed",
    )
    for t in _grid(_at("2026-09-16T09:10:00"), _at("2026-09-16T09:45:00"), timedelta(minutes=5)):
        yield _rec(
            t,
            "inventory-api",
            "WARNING",
            "units awaiting release above 400 (lab-results import stalled)",
        )
    # Wed late morning, still going: Harrowdene's stock feed carries impossible expiry dates.
    for t in _grid(_at("2026-09-16T11:10:00"), _at("2026-09-16T12:00:00"), timedelta(minutes=5)):
        yield _rec(
            t,
            "inventory-api",
            "ERROR",
            "stock feed from hub HRW rejected: 38 units of E0411 with expiry 2062-09-21 "
            "beyond shelf life",
            hub="HRW",
        )


def generate_logs() -> list[Record]:
    """Every log record of the corpus, oldest first."""
    records = [r for r in [*_background(), *_incidents()] if START <= r["timestamp"] < END]
    records.sort(key=lambda r: (r["timestamp"], r["service"], r["message"]))
    return records
