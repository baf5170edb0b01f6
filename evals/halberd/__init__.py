"""Halberd Court Systems, the evaluation's fifth corpus: a court electronic filing service.

Written by an examiner who never read the retrieval agent: eleven runbooks and postmortems in
the courts' own vocabulary (envelopes from filing providers, EFSP rate limits, filing fees,
PDF/A conversion and file stamps, docket entries pushed to county case management systems,
e-service notices, the public docket search), with tables, ``key: value`` lines, two runbooks
that are easy to confuse (emergency sealing and striking a misfiled document: each with an
approver, a deadline, a command and a time the document leaves the search), two postmortems
with ISO 8601 timelines and "what we changed afterwards", and two days of logs on fixed grids
(no randomness), so every count a question expects is known exactly:

- Tue 2026-11-10 03:10-03:40: ``fee-service`` logs ``fee charge failed: POST
  https://api.tallyport.example/v2/charges returned 503 Service Unavailable`` every 2 minutes
  (15): the payment processor is down.
- Tue 2026-11-10 16:00-16:25: ``docket-sync`` logs ``docket push to county DUN timed out after
  30s`` every minute (25); no deploy, no other error, no cause in the data.
- Tue 2026-11-10 21:00-21:20: ``filing-gateway`` warns ``EFSP CLP over rate limit (74 of 60
  envelopes/min), envelopes held`` every 2 minutes (10).
- Wed 2026-11-11 01:00-02:00: ``docket-sync`` logs ``docket push for envelope E-7731904
  rejected by county COR: case number 25-CV-0O417 fails format YY-TT-NNNNN`` every 5 minutes
  (12, the same envelope each time); 02:00 the envelope is quarantined.
- Wed 2026-11-11 08:00-08:30: ``search-index`` warns ``idx-02 disk 91% above high watermark
  90%`` every 5 minutes (6); 08:30-09:00 it logs ``index write blocked: idx-02 disk 95% (flood
  stage), indices read-only`` every minute (30); 09:02 the block is cleared.
- Wed 2026-11-11 09:30-10:00: ``doc-convert`` warns ``OCR queue depth 460 pages above 400``
  every 3 minutes (10); 10:15 ``deploy-bot`` deploys ``doc-convert`` v3.7.0; 10:20-10:52
  ``doc-convert`` logs ``conversion failed (DC-101): PDF/A-2b validation: font Helvetica not
  embedded`` every minute (32); 10:52 it is rolled back to v3.6.2.
- Wed 2026-11-11 11:34-12:00: ``eservice-mailer`` warns ``notice delivery deferred:
  smtp.postwick.example:587 421 too many connections`` every 2 minutes (13).

An unrelated deploy (``filing-gateway`` v5.2.1, Mon 2026-11-09 19:00) is followed by nothing.
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

START = datetime(2026, 11, 9, 12, 0, tzinfo=UTC)
END = datetime(2026, 11, 11, 12, 0, tzinfo=UTC)
NOW = END

# Windows in which a routine message gives way to the incident's own messages.
_QUIET = {
    "fee-service": (_at("2026-11-10T03:10:00"), _at("2026-11-10T03:40:00")),
    "search-index": (_at("2026-11-11T08:30:00"), _at("2026-11-11T09:02:00")),
    "doc-convert": (_at("2026-11-11T10:20:00"), _at("2026-11-11T10:52:00")),
}
_DUN_DOWN = (_at("2026-11-10T16:00:00"), _at("2026-11-10T16:25:00"))


def runbooks() -> list[tuple[str, str]]:
    """``(title, markdown)`` of every runbook and postmortem, sorted by file name."""
    return read_runbooks(Path(__file__).parent / "runbooks")


def _quiet(service: str, t: datetime) -> bool:
    window = _QUIET.get(service)
    return window is not None and window[0] <= t < window[1]


def _background() -> Iterator[Record]:
    routine = [
        ("filing-gateway", "envelope accepted from EFSP FMK (3 documents)", 2, 5),
        ("fee-service", "filing fee charged (350.00 USD)", 3, 17),
        ("doc-convert", "envelope converted to PDF/A-2b (3 documents)", 2, 41),
        ("clerk-queue", "envelope accepted by clerk", 3, 53),
        ("eservice-mailer", "service notice sent to 4 parties", 3, 71),
        ("search-index", "indexed 5000 docket entries", 10, 97),
    ]
    for service, message, minutes, offset in routine:
        for t in _grid(START + timedelta(seconds=offset), END, timedelta(minutes=minutes)):
            if not _quiet(service, t):
                yield _rec(t, service, "INFO", message)
    # docket-sync pushes to each county every 8 minutes, staggered.
    for n, county in enumerate(("ASH", "COR", "DUN", "FEN")):
        for t in _grid(START + timedelta(minutes=2 * n, seconds=11), END, timedelta(minutes=8)):
            if county == "DUN" and _DUN_DOWN[0] <= t < _DUN_DOWN[1]:
                continue
            yield _rec(t, "docket-sync", "INFO", f"docket entry pushed to county {county}")
    # Healthy noise: a provider near its limit every 5 hours, a slow charge every 5 hours, a
    # bounced notice every 6 hours.
    for t in _grid(START + timedelta(hours=2, minutes=41), END, timedelta(hours=5)):
        yield _rec(
            t, "filing-gateway", "WARNING", "EFSP BNB near rate limit (27 of 30 envelopes/min)"
        )
    for t in _grid(START + timedelta(hours=1, minutes=7), END, timedelta(hours=5)):
        yield _rec(t, "fee-service", "WARNING", "tallyport charge took 2300ms")
    for t in _grid(START + timedelta(hours=2, minutes=13), END, timedelta(hours=6)):
        yield _rec(t, "eservice-mailer", "WARNING", "notice to 1 party bounced: mailbox full")


def _incidents() -> Iterator[Record]:
    yield _rec(
        _at("2026-11-09T19:00:00"),
        "deploy-bot",
        "INFO",
        "deployed filing-gateway v5.2.1 (previous v5.2.0)",
        target="filing-gateway",
        author="okafor",
    )
    for t in _grid(_at("2026-11-10T03:10:00"), _at("2026-11-10T03:40:00"), timedelta(minutes=2)):
        yield _rec(
            t,
            "fee-service",
            "ERROR",
            "fee charge failed: POST https://api.tallyport.example/v2/charges "
            "returned 503 Service Unavailable",
            processor="tallyport",
        )
    for t in _grid(*_DUN_DOWN, timedelta(minutes=1)):
        yield _rec(
            t, "docket-sync", "ERROR", "docket push to county DUN timed out after 30s", county="DUN"
        )
    for t in _grid(_at("2026-11-10T21:00:00"), _at("2026-11-10T21:20:00"), timedelta(minutes=2)):
        yield _rec(
            t,
            "filing-gateway",
            "WARNING",
            "EFSP CLP over rate limit (74 of 60 envelopes/min), envelopes held",
            efsp="CLP",
        )
    attempts = _grid(_at("2026-11-11T01:00:00"), _at("2026-11-11T02:00:00"), timedelta(minutes=5))
    for attempt, t in enumerate(attempts, start=1):
        yield _rec(
            t,
            "docket-sync",
            "ERROR",
            "docket push for envelope E-7731904 rejected by county COR: "
            "case number 25-CV-0O417 fails format YY-TT-NNNNN",
            envelope="E-7731904",
            attempt=attempt,
        )
    yield _rec(
        _at("2026-11-11T02:00:00"),
        "docket-sync",
        "WARNING",
        "envelope E-7731904 quarantined after 12 push attempts",
        envelope="E-7731904",
    )
    for t in _grid(_at("2026-11-11T08:00:00"), _at("2026-11-11T08:30:00"), timedelta(minutes=5)):
        yield _rec(t, "search-index", "WARNING", "idx-02 disk 91% above high watermark 90%")
    for t in _grid(_at("2026-11-11T08:30:00"), _at("2026-11-11T09:00:00"), timedelta(minutes=1)):
        yield _rec(
            t,
            "search-index",
            "ERROR",
            "index write blocked: idx-02 disk 95% (flood stage), indices read-only",
            node="idx-02",
        )
    yield _rec(
        _at("2026-11-11T09:02:00"),
        "search-index",
        "INFO",
        "read-only block cleared (idx-02 disk 81% after snapshot prune)",
        node="idx-02",
    )
    for t in _grid(_at("2026-11-11T09:30:00"), _at("2026-11-11T10:00:00"), timedelta(minutes=3)):
        yield _rec(t, "doc-convert", "WARNING", "OCR queue depth 460 pages above 400")
    yield _rec(
        _at("2026-11-11T10:15:00"),
        "deploy-bot",
        "INFO",
        "deployed doc-convert v3.7.0 (previous v3.6.2)",
        target="doc-convert",
        author="lindqvist",
    )
    for t in _grid(_at("2026-11-11T10:20:00"), _at("2026-11-11T10:52:00"), timedelta(minutes=1)):
        yield _rec(
            t,
            "doc-convert",
            "ERROR",
            "conversion failed (DC-101): PDF/A-2b validation: font Helvetica not embedded",
            version="3.7.0",
        )
    yield _rec(
        _at("2026-11-11T10:52:00"),
        "deploy-bot",
        "INFO",
        "rolled back doc-convert to v3.6.2 (from v3.7.0)",
        target="doc-convert",
        author="lindqvist",
    )
    for t in _grid(_at("2026-11-11T11:34:00"), _at("2026-11-11T12:00:00"), timedelta(minutes=2)):
        yield _rec(
            t,
            "eservice-mailer",
            "WARNING",
            "notice delivery deferred: smtp.postwick.example:587 421 too many connections",
            relay="smtp.postwick.example",
        )


def generate_logs() -> list[Record]:
    """Every log record of the corpus, oldest first."""
    records = [r for r in [*_background(), *_incidents()] if START <= r["timestamp"] < END]
    records.sort(key=lambda r: (r["timestamp"], r["service"], r["message"]))
    return records
