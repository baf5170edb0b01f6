"""Credit-usage range validation and aggregation (SPEC "Billing", DESIGN section 4)."""

import random
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sleuth_core.credits import UsageEvent, aggregate_usage, parse_usage_range, round_credits
from sleuth_core.errors import CoreError, InvalidRange

START = "Start date required"
END = "End date required"
FORMAT = "Invalid start or end timestamp format. Use ISO 8601."
ORDER = "End date must be after start date"
RANGE = "Time range cannot exceed 366 days"


@pytest.mark.parametrize(
    ("start", "end", "detail"),
    [
        (None, None, START),
        ("", "2026-01-01", START),
        ("   ", "nonsense", START),
        (None, "nonsense", START),
        ("2026-01-01", None, END),
        ("2026-01-01", "", END),
        ("garbage", None, END),  # missing end is checked before the format of start
        ("garbage", "2026-01-01", FORMAT),
        ("2026-01-01", "01/02/2026", FORMAT),
        ("2026-13-01", "2026-12-01", FORMAT),
        (20260101, "2026-01-02", FORMAT),
        ("2026-02-01", "2026-01-01", ORDER),
        ("2026-01-01", "2026-01-01T00:00:00Z", ORDER),
        ("bad", "also bad", FORMAT),
        ("2026-03-01", "2025-01-01", ORDER),  # order is checked before the range
        ("2026-01-01", "2027-01-03", RANGE),
        ("2026-01-01T00:00:00Z", "2027-01-02T00:00:01Z", RANGE),
    ],
)
def test_range_errors_in_spec_order(start, end, detail):
    with pytest.raises(InvalidRange) as info:
        parse_usage_range(start, end)
    assert str(info.value) == detail
    assert isinstance(info.value, CoreError)


def test_range_forms():
    utc = UTC
    assert parse_usage_range("2026-01-01", "2026-02-01") == (
        datetime(2026, 1, 1, tzinfo=utc),
        datetime(2026, 2, 1, tzinfo=utc),
    )
    start, end = parse_usage_range("2026-01-01T10:00:00", "2026-01-01T12:00:00+01:00")
    assert start == datetime(2026, 1, 1, 10, tzinfo=utc)
    assert end == datetime(2026, 1, 1, 11, tzinfo=utc)
    assert end.tzinfo is UTC and start.tzinfo is UTC
    assert parse_usage_range("2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z")[1].second == 1
    # exactly 366 days is allowed
    assert parse_usage_range("2024-01-01", "2025-01-01")[1] == datetime(2025, 1, 1, tzinfo=utc)
    assert parse_usage_range(date(2026, 1, 1), datetime(2026, 1, 2))[1] == datetime(
        2026, 1, 2, tzinfo=utc
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [(2.675, 2.68), (0.125, 0.13), (-0.125, -0.13), (1.005, 1.01), (0.004, 0.0), (-0.004, 0.0)],
)
def test_round_half_away_from_zero(value, expected):
    assert round_credits(value) == expected
    assert str(round_credits(value)) != "-0.0"


def _at(day, hour=0):
    return datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=day, hours=hour)


def test_aggregate_groups_orders_and_totals():
    events = [
        UsageEvent(2, "Search", _at(0), 1.0),
        UsageEvent(1, "Payments", _at(1), 3.0),
        UsageEvent(None, None, _at(2), 2.5),
        UsageEvent(1, "Payments", _at(3), 0.333),
        UsageEvent(1, "Payments", _at(40), 1.0),  # February
        UsageEvent(3, "Alpha", _at(41), 1.0),
        UsageEvent(None, None, _at(42), 1.0),
        UsageEvent(2, "Search", _at(43), 1.0),
    ]
    result = aggregate_usage(events, _at(0), _at(90))
    assert result["data"] == [
        {"team_id": 1, "team_name": "Payments", "month": "2026-01", "credits": 3.33},
        {"team_id": None, "team_name": None, "month": "2026-01", "credits": 2.5},
        {"team_id": 2, "team_name": "Search", "month": "2026-01", "credits": 1.0},
        # ties: attributed first, then team_id ascending, unattributed last
        {"team_id": 1, "team_name": "Payments", "month": "2026-02", "credits": 1.0},
        {"team_id": 2, "team_name": "Search", "month": "2026-02", "credits": 1.0},
        {"team_id": 3, "team_name": "Alpha", "month": "2026-02", "credits": 1.0},
        {"team_id": None, "team_name": None, "month": "2026-02", "credits": 1.0},
    ]
    assert result["monthly_totals"] == {"2026-01": 6.83, "2026-02": 4.0}
    assert list(result["monthly_totals"]) == ["2026-01", "2026-02"]


def test_start_inclusive_end_exclusive_and_empty():
    events = [UsageEvent(1, "A", _at(0), 1.0), UsageEvent(1, "A", _at(10), 5.0)]
    result = aggregate_usage(events, _at(0), _at(10))
    assert result["monthly_totals"] == {"2026-01": 1.0}
    assert aggregate_usage(events, _at(1), _at(10)) == {"data": [], "monthly_totals": {}}
    assert aggregate_usage([], _at(0), _at(10)) == {"data": [], "monthly_totals": {}}


def test_rounds_at_the_end_not_per_event():
    events = [UsageEvent(1, "A", _at(0), 0.004)] * 3
    assert aggregate_usage(events, _at(0), _at(1))["data"][0]["credits"] == 0.01
    # the monthly total rounds the unrounded sum, not the sum of rounded rows
    events = [UsageEvent(1, "A", _at(0), 0.004), UsageEvent(2, "B", _at(0), 0.004)]
    result = aggregate_usage(events, _at(0), _at(1))
    assert [row["credits"] for row in result["data"]] == [0.0, 0.0]
    assert result["monthly_totals"] == {"2026-01": 0.01}


def test_months_are_utc_and_naive_is_utc():
    plus2 = timezone(timedelta(hours=2))
    events = [
        # 2026-02-01 01:00+02:00 is 2026-01-31 23:00 UTC: January
        UsageEvent(1, "A", datetime(2026, 2, 1, 1, tzinfo=plus2), 1.0),
        UsageEvent(1, "A", datetime(2026, 2, 1, 0, 30), 2.0),  # naive = UTC: February
        (None, None, datetime(2026, 1, 15), 4.0),  # plain tuples work too
    ]
    result = aggregate_usage(events, datetime(2026, 1, 1), datetime(2026, 3, 1, tzinfo=UTC))
    assert result["monthly_totals"] == {"2026-01": 5.0, "2026-02": 2.0}


def test_renamed_team_is_a_separate_row():
    events = [UsageEvent(1, "Old", _at(0), 1.0), UsageEvent(1, "New", _at(1), 2.0)]
    rows = aggregate_usage(events, _at(0), _at(5))["data"]
    assert [(r["team_name"], r["credits"]) for r in rows] == [("New", 2.0), ("Old", 1.0)]


teams = st.sampled_from([(None, None), (1, "A"), (2, "B"), (3, "C")])
event_lists = st.lists(
    st.builds(
        lambda team, day, cents: UsageEvent(team[0], team[1], _at(day), cents / 100),
        teams,
        st.integers(0, 120),
        st.integers(0, 100_000),
    ),
    max_size=60,
)


@given(event_lists, st.randoms())
def test_order_independent_and_totals_match_rows(events, rnd):
    first = aggregate_usage(events, _at(0), _at(100))
    shuffled = list(events)
    rnd.shuffle(shuffled)
    second = aggregate_usage(shuffled, _at(0), _at(100))
    # whole-cent inputs: float sums may differ in the last bit with order, never in cents
    assert first == second
    per_month: dict[str, int] = {}
    for event in events:
        if _at(0) <= event.occurred_at < _at(100):
            month = event.occurred_at.strftime("%Y-%m")
            per_month[month] = per_month.get(month, 0) + round(event.credits * 100)
    assert first["monthly_totals"] == {m: v / 100 for m, v in sorted(per_month.items())}
    months = [row["month"] for row in first["data"]]
    assert months == sorted(months)
    assert set(months) == set(first["monthly_totals"])


def test_large_input_matches_reference():
    rnd = random.Random(7)
    events = [
        UsageEvent(*rnd.choice([(None, None), (1, "A"), (2, "B")]), _at(rnd.randrange(60)), 0.25)
        for _ in range(10_000)
    ]
    result = aggregate_usage(events, _at(0), _at(60))
    assert sum(result["monthly_totals"].values()) == pytest.approx(2500.0)


def test_naive_ledger_with_mixed_events():
    plus2 = timezone(timedelta(hours=-2))
    events = [
        (1, "A", datetime(2026, 1, 31, 23, 0), 1.0),  # naive first: naive mode
        (1, "A", datetime(2026, 1, 31, 23, 0, tzinfo=plus2), 2.0),  # 2026-02-01 01:00 UTC
        (1, "A", datetime(2026, 3, 1, tzinfo=UTC), 4.0),  # == end: excluded
        (None, None, datetime(2026, 1, 1), 8.0),  # == start: included
    ]
    start, end = parse_usage_range("2026-01-01", "2026-03-01")
    result = aggregate_usage(iter(events), start, end)  # any iterable, consumed once
    assert result["monthly_totals"] == {"2026-01": 9.0, "2026-02": 2.0}
