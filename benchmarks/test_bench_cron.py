"""Cron speed: chains of successive fire times, sleuth_core.cron against croniter and cronsim.

For each of seven expressions, starting at 2026-01-01T00:00Z, each implementation computes 20,000
successive fire times (1,000 for ``0 0 29 2 *``), each from the previous one, constructing its
schedule object first. Our day-of-week numbers are translated for the peers (ours d is their
(d + 1) % 7). Targets, on the geometric mean of the per-expression median ratios: at least 10x
faster than croniter and at least 3x faster than cronsim. The ratios are printed at the end of the
module's run; ``tests/core/test_cron_croniter.py`` checks that the chains are croniter's.

    python -m pytest benchmarks/test_bench_cron.py --benchmark-only
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

import pytest
from croniter import croniter
from cronsim import CronSim
from targets import record_target, record_unmeasured

from sleuth_core.cron import parse_cron

START = datetime(2026, 1, 1, tzinfo=UTC)

# (ours, the peers' spelling, how many successive fires)
EXPRESSIONS = [
    ("*/5 * * * *", "*/5 * * * *", 20_000),
    ("0 9 * * 0-4", "0 9 * * 1-5", 20_000),
    ("30 8 1,15 * *", "30 8 1,15 * *", 20_000),
    ("0 */6 * * *", "0 */6 * * *", 20_000),
    ("15 14 1 * *", "15 14 1 * *", 20_000),
    ("0 0 29 2 *", "0 0 29 2 *", 1_000),
    ("0 12 * * 4", "0 12 * * 5", 20_000),
]


def chain_sleuth(expr: str, count: int) -> datetime:
    next_after = parse_cron(expr).next_after
    t = START
    for _ in range(count):
        t = next_after(t)
    return t


def chain_croniter(expr: str, count: int) -> datetime:
    get_next = croniter(expr, START).get_next
    t = START
    for _ in range(count):
        t = get_next(datetime)
    return t


def chain_cronsim(expr: str, count: int) -> datetime:
    iterator = CronSim(expr, START)
    t = START
    for _ in range(count):
        t = next(iterator)
    return t


IMPLEMENTATIONS: dict[str, tuple[Callable[[str, int], datetime], int]] = {
    # name: (chain function, rounds)
    "sleuth": (chain_sleuth, 15),
    "cronsim": (chain_cronsim, 3),
    "croniter": (chain_croniter, 3),
}

MEDIANS: dict[tuple[str, str], float] = {}


@pytest.fixture(scope="module", autouse=True)
def report_ratios(request: pytest.FixtureRequest) -> Iterator[None]:
    """After the module: per-expression and geometric-mean ratios of the peers' medians to ours."""
    yield
    if not MEDIANS:
        return
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    lines = ["", "cron chains: median per fire (µs), and peer / sleuth"]
    ratios: dict[str, list[float]] = {"croniter": [], "cronsim": []}
    for ours, _, count in EXPRESSIONS:
        times = {name: MEDIANS.get((ours, name)) for name in IMPLEMENTATIONS}
        if None in times.values():
            continue
        cells = [f"{ours:<14}"]
        for name, median in times.items():
            cells.append(f"{name} {median / count * 1e6:8.2f}")
        for peer in ratios:
            ratio = times[peer] / times["sleuth"]
            ratios[peer].append(ratio)
            cells.append(f"{peer}/sleuth {ratio:6.1f}x")
        lines.append("  ".join(cells))
    targets = {"croniter": 10.0, "cronsim": 3.0}
    for peer, values in ratios.items():
        if len(values) != len(EXPRESSIONS):
            record_unmeasured("cron", f"{peer}/sleuth", "not every expression was measured")
        else:
            mean = math.exp(sum(math.log(v) for v in values) / len(values))
            met = record_target("cron", f"{peer}/sleuth", mean, targets[peer], at_least=True)
            verdict = "met" if met else "MISSED"
            lines.append(
                f"geometric mean {peer}/sleuth: {mean:.1f}x "
                f"(target {targets[peer]:.0f}x: {verdict})"
            )
    # Module teardown output is captured like a test's; write past the capture.
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
        for line in lines:
            if reporter is not None:
                reporter.write_line(line)
            else:
                print(line)


@pytest.mark.parametrize("name", list(IMPLEMENTATIONS))
@pytest.mark.parametrize(
    ("ours", "theirs", "count"), EXPRESSIONS, ids=[expr for expr, _, _ in EXPRESSIONS]
)
def test_chain(benchmark, name: str, ours: str, theirs: str, count: int) -> None:
    function, rounds = IMPLEMENTATIONS[name]
    benchmark.group = f"cron {ours} x{count}"
    expr = ours if name == "sleuth" else theirs
    last = benchmark.pedantic(function, args=(expr, count), rounds=rounds, warmup_rounds=1)
    assert last == chain_sleuth(ours, count)
    MEDIANS[(ours, name)] = benchmark.stats.stats.median
