"""Larkspur Fare Systems, the evaluation's fourth corpus: a municipal transit-card operator.

Written by an examiner who never read the retrieval agent: eleven runbooks and postmortems in the
operator's own vocabulary (taps, validators, depots, the hotlist, fare capping, top-ups and
autoload, ticket vending machines, settlement with the acquirer), with tables, ``key: value``
lines, two runbooks that are easy to confuse (bank card settlement and Wren card reconciliation:
both nightly, both with a UTC time, an approver and a per-day command), two postmortems with
ISO 8601 timelines and "what we changed afterwards", and two days of logs on fixed grids (no
randomness), so every count a question expects is known exactly:

- Tue 2026-10-06 02:30-03:00: ``settlement-batch`` logs ``settlement submit failed:
  sftp.quillpay.example:22 connection refused`` every 2 minutes (15); the file goes at 03:00.
- Tue 2026-10-06 17:20-17:45: ``tap-gateway`` logs ``tap rejected: validator response timeout
  (depot NGT)`` every minute (25); no deploy, no other error, no cause in the data.
- Wed 2026-10-07 09:00-09:30: ``hotlist-sync`` logs ``hotlist push to depot ELM failed: checksum
  mismatch on delta 88412`` every 5 minutes (6).
- Wed 2026-10-07 14:30-15:00: ``topup-api`` warns ``quillpay capture latency 3400ms above 3000ms``
  every 2 minutes (15); 15:02 ``deploy-bot`` deploys ``topup-api`` v2.18.0; 15:05-15:35
  ``topup-api`` logs ``capture failed: quillpay returned 400 invalid_request: missing
  merchant_descriptor`` every minute (30).
- Wed 2026-10-07 17:00-17:30: ``tap-gateway`` warns ``offline tap backlog 24000 taps (depot
  QRY)`` every 5 minutes (6); 17:28-17:55 ``fare-engine`` logs ``ledgerdb pool exhausted: 40 of
  40 connections in use`` every minute (27); 17:30-17:55 ``tap-gateway`` logs ``tap batch
  rejected: fare-engine returned 503`` every 30 s (50).
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

START = datetime(2026, 10, 5, 18, 0, tzinfo=UTC)
END = datetime(2026, 10, 7, 18, 0, tzinfo=UTC)
NOW = END

# Windows in which a routine message gives way to the incident's own messages.
_QUIET = {
    "hotlist-sync": (_at("2026-10-07T09:00:00"), _at("2026-10-07T09:30:00")),
    "topup-api": (_at("2026-10-07T15:05:00"), _at("2026-10-07T15:35:00")),
    "tap-gateway": (_at("2026-10-07T17:30:00"), _at("2026-10-07T17:55:00")),
    "fare-engine": (_at("2026-10-07T17:28:00"), _at("2026-10-07T17:55:00")),
}


def runbooks() -> list[tuple[str, str]]:
    """``(title, markdown)`` of every runbook and postmortem, sorted by file name."""
    return read_runbooks(Path(__file__).parent / "runbooks")


def _quiet(service: str, t: datetime) -> bool:
    window = _QUIET.get(service)
    return window is not None and window[0] <= t < window[1]


def _background() -> Iterator[Record]:
    routine = [
        ("tap-gateway", "tap batch accepted (200 taps)", timedelta(minutes=2), 11),
        ("fare-engine", "fares computed for batch of 200 taps", timedelta(minutes=2), 13),
        ("hotlist-sync", "hotlist delta pushed (4 of 4 depots)", timedelta(minutes=15), 120),
        ("topup-api", "autoload capture succeeded", timedelta(minutes=4), 29),
        ("tvm-fleet", "vault levels reported (96 TVMs)", timedelta(minutes=10), 37),
    ]
    for service, message, step, offset in routine:
        for t in _grid(START + timedelta(seconds=offset), END, step):
            if _quiet(service, t):
                if service == "hotlist-sync":
                    yield _rec(t, service, "INFO", "hotlist delta pushed (3 of 4 depots)")
                continue
            yield _rec(t, service, "INFO", message)
    # Nightly jobs: the bank card settlement file at 02:30, the Wren card reconciliation at 03:15.
    yield _rec(
        _at("2026-10-07T02:30:00"),
        "settlement-batch",
        "INFO",
        "settlement file for 2026-10-06 submitted to sftp.quillpay.example",
        service_day="2026-10-06",
    )
    yield _rec(
        _at("2026-10-07T02:41:00"),
        "settlement-batch",
        "INFO",
        "settlement file for 2026-10-06 acknowledged by quillpay",
        service_day="2026-10-06",
    )
    for day, mismatch in (("2026-10-05", "12.40"), ("2026-10-06", "3.10")):
        when = _at(day) + timedelta(days=1, hours=3, minutes=15)
        yield _rec(
            when,
            "ledger-recon",
            "INFO",
            f"reconciliation for {day} completed: mismatch {mismatch} USD",
            service_day=day,
        )
    # Healthy-fleet noise: a clock-drift correction every 4 hours, a printer out of paper every 6.
    for t in _grid(START + timedelta(minutes=23), END, timedelta(hours=4)):
        yield _rec(t, "tap-gateway", "WARNING", "validator BV-2207 clock drift 3s corrected")
    for t in _grid(START + timedelta(minutes=50), END, timedelta(hours=6)):
        yield _rec(t, "tvm-fleet", "WARNING", "TVM-0412 fault E-317 receipt printer out of paper")


def _incidents() -> Iterator[Record]:
    for t in _grid(_at("2026-10-06T02:30:00"), _at("2026-10-06T03:00:00"), timedelta(minutes=2)):
        yield _rec(
            t,
            "settlement-batch",
            "ERROR",
            "settlement submit failed: sftp.quillpay.example:22 connection refused",
            service_day="2026-10-05",
        )
    yield _rec(
        _at("2026-10-06T03:00:00"),
        "settlement-batch",
        "INFO",
        "settlement file for 2026-10-05 submitted to sftp.quillpay.example",
        service_day="2026-10-05",
    )
    yield _rec(
        _at("2026-10-06T03:12:00"),
        "settlement-batch",
        "INFO",
        "settlement file for 2026-10-05 acknowledged by quillpay",
        service_day="2026-10-05",
    )
    for t in _grid(_at("2026-10-06T17:20:00"), _at("2026-10-06T17:45:00"), timedelta(minutes=1)):
        yield _rec(
            t,
            "tap-gateway",
            "ERROR",
            "tap rejected: validator response timeout (depot NGT)",
            depot="NGT",
        )
    for t in _grid(_at("2026-10-07T09:00:00"), _at("2026-10-07T09:30:00"), timedelta(minutes=5)):
        yield _rec(
            t,
            "hotlist-sync",
            "ERROR",
            "hotlist push to depot ELM failed: checksum mismatch on delta 88412",
            depot="ELM",
        )
    for t in _grid(_at("2026-10-07T14:30:00"), _at("2026-10-07T15:00:00"), timedelta(minutes=2)):
        yield _rec(t, "topup-api", "WARNING", "quillpay capture latency 3400ms above 3000ms")
    yield _rec(
        _at("2026-10-07T15:02:00"),
        "deploy-bot",
        "INFO",
        "deployed topup-api v2.18.0 (previous v2.17.4)",
        target="topup-api",
        author="rkaur",
    )
    for t in _grid(_at("2026-10-07T15:05:00"), _at("2026-10-07T15:35:00"), timedelta(minutes=1)):
        yield _rec(
            t,
            "topup-api",
            "ERROR",
            "capture failed: quillpay returned 400 invalid_request: missing merchant_descriptor",
            processor="quillpay",
        )
    for t in _grid(_at("2026-10-07T17:00:00"), _at("2026-10-07T17:30:00"), timedelta(minutes=5)):
        yield _rec(t, "tap-gateway", "WARNING", "offline tap backlog 24000 taps (depot QRY)")
    for t in _grid(_at("2026-10-07T17:28:00"), _at("2026-10-07T17:55:00"), timedelta(minutes=1)):
        yield _rec(
            t, "fare-engine", "ERROR", "ledgerdb pool exhausted: 40 of 40 connections in use"
        )
    for t in _grid(_at("2026-10-07T17:30:00"), _at("2026-10-07T17:55:00"), timedelta(seconds=30)):
        yield _rec(
            t, "tap-gateway", "ERROR", "tap batch rejected: fare-engine returned 503", status=503
        )


def generate_logs() -> list[Record]:
    """Every log record of the corpus, oldest first."""
    records = [r for r in [*_background(), *_incidents()] if START <= r["timestamp"] < END]
    records.sort(key=lambda r: (r["timestamp"], r["service"], r["message"]))
    return records
