"""Target verdicts for ``make bench``: a missed target or an unmeasured peer fails the run.

Suites call :func:`record_target` with a measured ratio, or :func:`record_unmeasured` when a peer
could not run (e.g. ``hyperscan`` not installed). After the run a table of every verdict is
printed, and the exit status is non-zero when any target was missed or left unmeasured: a
benchmark that cannot show its target is met is not a pass. ``make test`` never runs these.
"""

from __future__ import annotations

import pytest
from targets import VERDICTS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not VERDICTS:
        return
    terminalreporter.section("benchmark targets")
    for v in VERDICTS:
        terminalreporter.write_line(f"{v.status:<10} {v.suite:<9} {v.target:<40} {v.measured}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if exitstatus == 0 and any(v.status != "met" for v in VERDICTS):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
