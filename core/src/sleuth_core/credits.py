"""Credit usage: the billing range and the monthly aggregation of the usage ledger.

The service keeps a ledger of usage events (team or null, when, how many credits). The billing
endpoint validates its ``start``/``end`` with :func:`parse_usage_range` and answers with
:func:`aggregate_usage`:

>>> from datetime import datetime, timezone
>>> start, end = parse_usage_range("2026-01-01", "2026-03-01")
>>> start.isoformat(), end.isoformat()
('2026-01-01T00:00:00+00:00', '2026-03-01T00:00:00+00:00')
>>> events = [
...     UsageEvent(1, "Payments", datetime(2026, 1, 5, tzinfo=timezone.utc), 1.25),
...     UsageEvent(None, None, datetime(2026, 1, 9, tzinfo=timezone.utc), 0.5),
...     UsageEvent(1, "Payments", datetime(2026, 2, 1, tzinfo=timezone.utc), 2.0),
... ]
>>> aggregate_usage(events, start, end)["monthly_totals"]
{'2026-01': 1.75, '2026-02': 2.0}

Rules (SPEC "Billing", DESIGN section 4 "Billing"):

- ``start`` is inclusive, ``end`` exclusive. Naive timestamps are UTC, a date alone is midnight UTC.
- Rows are grouped by (month, team_id, team_name); a null team is unattributed usage.
- Sums are kept unrounded and rounded to 2 decimals only at the end, with :func:`round_credits`
  (round half away from zero on the shortest decimal form of the float). ``monthly_totals`` is the
  rounded sum of the month's unrounded sums, not the sum of rounded rows.
- Rows are ordered by month, then rounded credits descending, then attributed before unattributed,
  then ``team_id`` ascending, then ``team_name`` ascending.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta, tzinfo
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, NamedTuple

from sleuth_core.errors import InvalidRange

__all__ = [
    "MAX_RANGE",
    "UsageEvent",
    "aggregate_usage",
    "parse_usage_range",
    "round_credits",
]

#: The longest accepted billing range.
MAX_RANGE = timedelta(days=366)

_START_REQUIRED = "Start date required"
_END_REQUIRED = "End date required"
_BAD_FORMAT = "Invalid start or end timestamp format. Use ISO 8601."
_BAD_ORDER = "End date must be after start date"
_TOO_LONG = "Time range cannot exceed 366 days"

_CENT = Decimal("0.01")


class UsageEvent(NamedTuple):
    """One ledger entry. ``team_id``/``team_name`` are None for unattributed (automated) usage.

    ``occurred_at`` should be an aware datetime; a naive one is taken as UTC.
    """

    team_id: int | None
    team_name: str | None
    occurred_at: datetime
    credits: float


def round_credits(value: float) -> float:
    """Round a credit amount to 2 decimals, half away from zero, on its shortest decimal form.

    ``round()`` would round half to even on the binary value (``round(2.675, 2) == 2.67``); this
    rounds what the number prints as, so ``2.675`` gives ``2.68`` and ``-0.125`` gives ``-0.13``.
    The service rounds SQL-side sums with this same function so both paths agree.

    >>> round_credits(2.675), round_credits(0.125), round_credits(-0.125), round_credits(1 / 3)
    (2.68, 0.13, -0.13, 0.33)
    """
    rounded = float(Decimal(repr(value)).quantize(_CENT, rounding=ROUND_HALF_UP))
    return rounded + 0.0  # -0.0 -> 0.0


def _is_missing(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _parse_instant(value: object) -> datetime:
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        text = value.strip()
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            raise InvalidRange(_BAD_FORMAT) from None
    else:
        raise InvalidRange(_BAD_FORMAT)
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def parse_usage_range(start: object, end: object) -> tuple[datetime, datetime]:
    """Validate a billing range and return it as aware UTC datetimes ``(start, end)``.

    ``start``/``end`` are ISO 8601 strings (``Z`` and offsets accepted; naive means UTC; a date
    alone is midnight UTC); ``datetime``/``date`` objects are accepted too. Checks, in this
    order, each raising :class:`~sleuth_core.errors.InvalidRange` with the SPEC's exact message:

    1. start missing (None, or a blank string): ``Start date required``
    2. end missing: ``End date required``
    3. either not ISO 8601: ``Invalid start or end timestamp format. Use ISO 8601.``
    4. end not after start: ``End date must be after start date``
    5. longer than 366 days: ``Time range cannot exceed 366 days``

    >>> parse_usage_range("2026-01-01T00:00:00Z", "2026-01-02T12:00:00+02:00")[1].isoformat()
    '2026-01-02T10:00:00+00:00'
    >>> parse_usage_range("2026-01-01", "")
    Traceback (most recent call last):
    ...
    sleuth_core.errors.InvalidRange: End date required
    """
    if _is_missing(start):
        raise InvalidRange(_START_REQUIRED)
    if _is_missing(end):
        raise InvalidRange(_END_REQUIRED)
    start_at = _parse_instant(start)
    end_at = _parse_instant(end)
    if end_at <= start_at:
        raise InvalidRange(_BAD_ORDER)
    if end_at - start_at > MAX_RANGE:
        raise InvalidRange(_TOO_LONG)
    return start_at, end_at


def _in_zone(moment: datetime, zone: tzinfo | None) -> datetime:
    """``moment`` as UTC: aware with ``tzinfo=UTC`` when ``zone`` is UTC, naive when it is None."""
    if moment.tzinfo is None:
        return moment if zone is None else moment.replace(tzinfo=UTC)
    if moment.tzinfo is not UTC:
        moment = moment.astimezone(UTC)
    return moment if zone is not None else moment.replace(tzinfo=None)


def _row_order(row: dict[str, Any]) -> tuple[Any, ...]:
    team_id = row["team_id"]
    team_name = row["team_name"]
    return (
        row["month"],
        -row["credits"],
        team_id is None,
        team_id if team_id is not None else 0,
        team_name is None,
        team_name if team_name is not None else "",
    )


def aggregate_usage(
    events: Iterable[UsageEvent | tuple[int | None, str | None, datetime, float]],
    start: datetime,
    end: datetime,
) -> dict[str, Any]:
    """Aggregate usage events in ``[start, end)`` into the billing response's rows and totals.

    Returns ``{"data": [{"team_id", "team_name", "month", "credits"}, ...], "monthly_totals":
    {"YYYY-MM": credits}}``: one row per (month, team_id, team_name) with usage in the range (months
    in UTC), ordered as the module docstring says; ``monthly_totals`` has one key per month that
    has usage (``{}`` when none), attributed and unattributed together. Any 4-tuple
    ``(team_id, team_name, occurred_at, credits)`` works as an event.

    >>> from datetime import datetime, timezone
    >>> jan = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> aggregate_usage([(7, "Ops", jan, 0.005), (7, "Ops", jan, 0.005)], jan, jan.replace(month=2))
    {'data': [{'team_id': 7, 'team_name': 'Ops', 'month': '2026-01', 'credits': 0.01}], \
'monthly_totals': {'2026-01': 0.01}}
    """
    events = iter(events)
    first = next(events, None)
    # Compare like with like: when the ledger hands out naive datetimes (SQLite), work in naive
    # UTC; otherwise in aware UTC. Events of the other kind are converted one by one.
    zone = UTC if first is None or first[2].tzinfo is not None else None
    lo = _in_zone(start, zone)
    hi = _in_zone(end, zone)
    sums: dict[tuple[int, int, int | None, str | None], float] = {}
    get = sums.get
    if first is not None:
        team_id, team_name, occurred_at, credits = first
        occurred_at = _in_zone(occurred_at, zone)
        if lo <= occurred_at < hi:
            sums[occurred_at.year, occurred_at.month, team_id, team_name] = 0.0 + credits
    for team_id, team_name, occurred_at, credits in events:
        if occurred_at.tzinfo is not zone:
            occurred_at = _in_zone(occurred_at, zone)
        if lo <= occurred_at < hi:
            key = (occurred_at.year, occurred_at.month, team_id, team_name)
            sums[key] = get(key, 0.0) + credits

    month_sums: dict[str, float] = {}
    rows: list[dict[str, Any]] = []
    for (year, month, team_id, team_name), total in sums.items():
        label = f"{year:04d}-{month:02d}"
        month_sums[label] = month_sums.get(label, 0.0) + total
        rows.append(
            {
                "team_id": team_id,
                "team_name": team_name,
                "month": label,
                "credits": round_credits(total),
            }
        )
    rows.sort(key=_row_order)
    monthly_totals = {label: round_credits(month_sums[label]) for label in sorted(month_sums)}
    return {"data": rows, "monthly_totals": monthly_totals}
