"""Target verdicts of the benchmark suites (collected by ``benchmarks/conftest.py``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    """One documented target and what this run measured for it."""

    suite: str
    target: str
    measured: str
    status: str  # "met", "MISSED" or "UNMEASURED"


VERDICTS: list[Verdict] = []


def record_target(suite: str, name: str, ratio: float, target: float, *, at_least: bool) -> bool:
    """Record ``ratio`` against ``target`` (``>=`` when ``at_least``, else ``<=``); True if met."""
    met = ratio >= target if at_least else ratio <= target
    sign = ">=" if at_least else "<="
    VERDICTS.append(
        Verdict(suite, f"{name} {sign} {target:g}x", f"{ratio:.2f}x", "met" if met else "MISSED")
    )
    return met


def record_unmeasured(suite: str, name: str, reason: str) -> None:
    """Record a target this run could not measure, and why."""
    VERDICTS.append(Verdict(suite, name, reason, "UNMEASURED"))
