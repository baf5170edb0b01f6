"""Kestrel Health, the evaluation's second corpus: a telehealth company (runbooks and logs).

Different company, services and vocabulary from the shipped demo (Pebble & Pine), written so the
evaluation measures the retrieval agent on data it was not built around. The logs are laid out on
fixed grids (no randomness), so every count a question expects is known exactly:

- Fri 2026-03-13 10:05-10:35: ``booking-svc`` logs ``deadlock detected on appointments table``
  every minute (30) after ``slow query on appointments`` warnings; no deploy, no cause in the data.
- Sat 2026-03-14 21:02: ``deploy-bot`` deploys ``video-gateway`` v3.8.0; from 21:06 to 22:06
  ``video-gateway`` logs ``TURN allocation failed: 403 Forbidden (stale nonce)`` every 20 s (180)
  and ``ICE negotiation timed out`` every minute (60); ``booking-svc`` warns ``visit ended early:
  media failure``; 22:04 the on-call rolls back to v3.7.2.
- Sun 2026-03-15 03:12: ``db-orchestrator`` promotes records-db-2; until 03:32 ``ehr-sync`` logs
  ``write to records-db failed: read-only replica`` every 20 s (60) and warns about consumer lag.
- Sun 2026-03-15 14:00-14:25: ``notify-worker`` logs ``SMS provider returned 429 Too Many
  Requests`` every 15 s (100); ``identity-svc`` warns ``MFA code delivery delayed``.
- Mon 2026-03-16 07:40-07:51: ``billing-svc`` logs ``claim submission failed: clearinghouse
  timeout`` every minute (12).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from evals.corpus import Record, read_runbooks
from evals.corpus import at as _at
from evals.corpus import grid as _grid
from evals.corpus import record as _rec

__all__ = ["END", "NOW", "SERVICES", "START", "generate_logs", "runbooks"]

START = datetime(2026, 3, 13, 0, 0, tzinfo=UTC)
END = datetime(2026, 3, 16, 9, 0, tzinfo=UTC)
NOW = END
SERVICES = (
    "billing-svc",
    "booking-svc",
    "db-orchestrator",
    "deploy-bot",
    "ehr-sync",
    "identity-svc",
    "notify-worker",
    "rx-service",
    "video-gateway",
)

_RX340 = "RX-340 pharmacy not reachable"
_TURN_FAILED = "TURN allocation failed: 403 Forbidden (stale nonce)"


def runbooks() -> list[tuple[str, str]]:
    """``(title, markdown)`` of every runbook, sorted by file name."""
    return read_runbooks(Path(__file__).parent / "runbooks")


def _background() -> Iterator[Record]:
    routine = [
        ("booking-svc", "appointment booked", timedelta(minutes=4), 0),
        ("video-gateway", "visit connected", timedelta(minutes=5), 7),
        ("ehr-sync", "change applied to records-db", timedelta(minutes=3), 11),
        ("notify-worker", "reminder sent", timedelta(minutes=6), 23),
        ("identity-svc", "patient signed in", timedelta(minutes=5), 31),
        ("rx-service", "prescription delivered to pharmacy", timedelta(minutes=15), 41),
        ("billing-svc", "claims batch accepted", timedelta(minutes=30), 53),
    ]
    for service, message, step, offset in routine:
        for t in _grid(START + timedelta(seconds=offset), END, step):
            yield _rec(t, service, "INFO", message)
    # Background noise: a rejected prescription every 3 hours, a slow booking query every 2.
    for t in _grid(START + timedelta(minutes=17), END, timedelta(hours=3)):
        yield _rec(
            t, "rx-service", "WARNING", "prescription rejected: RX-340 pharmacy not reachable"
        )
    for t in _grid(START + timedelta(minutes=44), END, timedelta(hours=2)):
        yield _rec(t, "booking-svc", "WARNING", "slow query on appointments", duration_ms=1200)


def _incidents() -> Iterator[Record]:
    # A: booking deadlocks, no cause in the data.
    for t in _grid(_at("2026-03-13T10:00:30"), _at("2026-03-13T10:05:00"), timedelta(minutes=1)):
        yield _rec(t, "booking-svc", "WARNING", "slow query on appointments", duration_ms=4200)
    for t in _grid(_at("2026-03-13T10:05:10"), _at("2026-03-13T10:35:00"), timedelta(minutes=1)):
        yield _rec(t, "booking-svc", "ERROR", "deadlock detected on appointments table")
    # Routine deploys.
    yield _rec(
        _at("2026-03-13T14:20:00"),
        "deploy-bot",
        "INFO",
        "deployed rx-service v4.1.0 (previous v4.0.9)",
        target="rx-service",
        author="lena",
    )
    # B: video-gateway deploy, TURN failures, rollback.
    yield _rec(
        _at("2026-03-14T21:02:00"),
        "deploy-bot",
        "INFO",
        "deployed video-gateway v3.8.0 (previous v3.7.2)",
        target="video-gateway",
        author="omar",
        change="turn: derive credentials from the new shared secret",
    )
    for t in _grid(_at("2026-03-14T21:06:00"), _at("2026-03-14T22:06:00"), timedelta(seconds=20)):
        yield _rec(
            t, "video-gateway", "ERROR", "TURN allocation failed: 403 Forbidden (stale nonce)"
        )
    for t in _grid(_at("2026-03-14T21:06:30"), _at("2026-03-14T22:06:30"), timedelta(minutes=1)):
        yield _rec(t, "video-gateway", "ERROR", "ICE negotiation timed out")
    for t in _grid(_at("2026-03-14T21:08:00"), _at("2026-03-14T22:05:00"), timedelta(minutes=3)):
        yield _rec(t, "booking-svc", "WARNING", "visit ended early: media failure")
    yield _rec(
        _at("2026-03-14T22:04:00"),
        "deploy-bot",
        "INFO",
        "rolled back video-gateway: deployed v3.7.2 (previous v3.8.0)",
        target="video-gateway",
        author="priya (on-call)",
    )
    # C: records-db failover.
    yield _rec(
        _at("2026-03-15T03:12:00"),
        "db-orchestrator",
        "WARNING",
        "records-db primary failover: records-db-2 promoted",
    )
    for t in _grid(_at("2026-03-15T03:12:20"), _at("2026-03-15T03:32:20"), timedelta(seconds=20)):
        yield _rec(t, "ehr-sync", "ERROR", "write to records-db failed: read-only replica")
    for t in _grid(_at("2026-03-15T03:15:00"), _at("2026-03-15T03:35:00"), timedelta(minutes=5)):
        yield _rec(t, "ehr-sync", "WARNING", "consumer lag 12000 on ehr.changes")
    # D: SMS throttling.
    for t in _grid(_at("2026-03-15T14:00:00"), _at("2026-03-15T14:25:00"), timedelta(seconds=15)):
        yield _rec(t, "notify-worker", "ERROR", "SMS provider returned 429 Too Many Requests")
    for t in _grid(_at("2026-03-15T14:02:00"), _at("2026-03-15T14:26:00"), timedelta(minutes=2)):
        yield _rec(t, "identity-svc", "WARNING", "MFA code delivery delayed")
    # E: clearinghouse timeouts.
    for t in _grid(_at("2026-03-16T07:40:00"), _at("2026-03-16T07:52:00"), timedelta(minutes=1)):
        yield _rec(t, "billing-svc", "ERROR", "claim submission failed: clearinghouse timeout")


def generate_logs() -> list[Record]:
    """Every log record of the corpus, oldest first."""
    records = [r for r in [*_background(), *_incidents()] if START <= r["timestamp"] < END]
    records.sort(key=lambda r: (r["timestamp"], r["service"], r["message"]))
    return records
