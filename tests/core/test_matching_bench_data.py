"""The matching benchmark's implementations agree on its data (not timed).

``benchmarks/test_bench_matching.py`` also asserts, on every benchmark run, that each
implementation returns what ``MatchIndex`` returns for all 10,000 agents. Here the same data
generator is checked within the test suite on a prefix of the agents, to keep the suite quick
(compiling the full Hyperscan database takes tens of seconds).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from sleuth_core.matching import MatchIndex, matches

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "test_bench_matching.py"
AGENTS = 1_500


@pytest.fixture(scope="module")
def bench():
    if str(BENCH.parent) not in sys.path:  # the module imports its sibling ``targets``
        sys.path.append(str(BENCH.parent))
    spec = importlib.util.spec_from_file_location("bench_matching_data", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def data(bench):
    entries = {key: tree for key, tree in bench.agents().items() if key < AGENTS}
    return entries, bench.alerts()


def test_the_data_has_the_documented_shape(bench):
    agents = bench.agents()
    assert len(bench.vocabulary()) == 5_000
    assert len(agents) == 10_000
    assert all(1_000 <= len(alert.encode()) <= 3_200 for alert in bench.alerts())
    nested = sum(any("operator" in c for c in tree["conditions"]) for tree in agents.values())
    assert 0.15 < nested / len(agents) < 0.25
    kinds = {
        leaf["type"]
        for tree in agents.values()
        for item in tree["conditions"]
        for leaf in (item["conditions"] if "operator" in item else [item])
    }
    assert kinds == {"contains", "starts_with", "ends_with", "regex"}


def test_index_agrees_with_matches_on_benchmark_data(data):
    entries, alerts = data
    native, pure = MatchIndex(entries), MatchIndex(entries, native=False)
    total = 0
    for alert in alerts:
        want = {key for key, tree in entries.items() if matches(tree, alert)}
        assert native.match(alert) == want
        assert pure.match(alert) == want
        total += len(want)
    assert total > 0  # the data exercises real matches


def test_hyperscan_peer_agrees_with_the_index_on_benchmark_data(bench, data):
    pytest.importorskip("hyperscan")
    entries, alerts = data
    index = MatchIndex(entries)
    scan_eval = bench.HyperscanMatcher(entries)
    combination = bench.HyperscanCombinationMatcher(entries)
    for alert in alerts:
        assert scan_eval.match(alert) == index.match(alert)
        assert combination.match(alert) == index.match(alert)
