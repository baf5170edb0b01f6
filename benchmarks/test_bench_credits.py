"""aggregate_usage over 1,000,000 events against a plain dict-accumulating loop (the peer).

Target: aggregate_usage takes at most 1.5x the peer's time. Run:
    python -m pytest benchmarks/test_bench_credits.py --benchmark-only
"""

import random
from datetime import UTC, datetime, timedelta

import pytest

from sleuth_core.credits import UsageEvent, aggregate_usage

START = datetime(2026, 1, 1, tzinfo=UTC)
END = START + timedelta(days=366)


@pytest.fixture(scope="module")
def events() -> list[UsageEvent]:
    rnd = random.Random(20260101)
    teams = [(i, f"team-{i}") for i in range(1, 41)] + [(None, None)] * 10
    out = []
    for _ in range(1_000_000):
        team_id, team_name = rnd.choice(teams)
        # ~3% fall outside the range on either side
        moment = START + timedelta(seconds=rnd.randrange(-5 * 86400, 371 * 86400))
        out.append(UsageEvent(team_id, team_name, moment, rnd.randrange(1, 5000) / 1000))
    return out


def plain_dict_loop(events):
    """The peer: accumulate per (year, month, team) with a dict, no filtering, no rounding."""
    totals = {}
    for team_id, team_name, occurred_at, credits in events:
        key = (occurred_at.year, occurred_at.month, team_id, team_name)
        totals[key] = totals.get(key, 0.0) + credits
    return totals


@pytest.mark.benchmark(group="credits-1M")
def test_peer_plain_dict_loop(benchmark, events):
    totals = benchmark.pedantic(plain_dict_loop, args=(events,), rounds=7, iterations=1)
    assert len(totals) > 12 * 40


@pytest.mark.benchmark(group="credits-1M")
def test_aggregate_usage(benchmark, events):
    result = benchmark.pedantic(aggregate_usage, args=(events, START, END), rounds=7, iterations=1)
    assert len(result["monthly_totals"]) == 13  # Jan 2026 .. Jan 2027
