"""Credit-usage report speed: 1,000,000 ledger rows over 13 months and 50 teams, a 366-day query.

The subject is :func:`sleuth_shell.billing.usage.credit_usage` (monthly and daily rollups plus the
partial edge days from the ledger); the named peer is
:func:`sleuth_shell.billing.usage.credit_usage_from_ledger`, the same report grouped from the raw
ledger rows. Both run through the async SQLAlchemy session on SQLite, as the service does. Target:
the subject's median under 50 ms.

The ``-cpu`` group times the same two calls with ``time.process_time`` (CPU seconds of the whole
process, the aiosqlite thread included) instead of wall time: on a shared machine it shows the work
each call does without the time spent waiting for a core.

The database is built once and cached in the temp directory under a name keyed by the data version
and the schema's migrations, so repeated runs skip the minute of generation:

    make bench    # or: python -m pytest benchmarks/test_bench_billing.py --benchmark-only
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import random
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.billing.ledger import CREDIT_RESOLUTION, rebuild_rollups
from sleuth_shell.billing.usage import credit_usage, credit_usage_from_ledger
from sleuth_shell.db import create_engine, create_session_factory, migrate
from sleuth_shell.db.migrate import MIGRATIONS_DIR

#: Bump when the generated data changes.
DATA_VERSION = 1
ROWS = 1_000_000
TEAMS = 50
DATA_START = datetime(2025, 1, 1, tzinfo=UTC)
DATA_DAYS = 396  # 13 months
#: The measured range: 366 days starting mid-day, so every level of the plan is exercised.
QUERY_START = datetime(2025, 1, 20, 13, 7, 21, 250_000, tzinfo=UTC)
QUERY_END = QUERY_START + timedelta(days=366)
ORG_ID = 1


def _schema_key() -> str:
    names = sorted(p.name for p in (MIGRATIONS_DIR / "versions").glob("*.py"))
    return hashlib.sha256("\n".join(names).encode()).hexdigest()[:12]


def _generate(path: Path) -> None:
    """Migrate a fresh database at ``path`` and fill it: one org, 50 teams, 1,000,000 ledger rows.

    Rows arrive in time order (as a ledger grows), one in 51 unattributed, amounts on the ledger's
    grid between 0.01 and 50 credits. Rollups are then built with ``rebuild_rollups``.
    """
    url = f"sqlite:///{path}"
    migrate(url)
    connection = sqlite3.connect(path)
    try:
        connection.execute(
            "INSERT INTO organizations (id, name, plan, signing_secret, created_at) "
            "VALUES (?, 'bench', 'enterprise', 'bench-secret', '2025-01-01 00:00:00.000000')",
            (ORG_ID,),
        )
        connection.executemany(
            "INSERT INTO teams (id, org_id, name, created_at) "
            "VALUES (?, ?, ?, '2025-01-01 00:00:00.000000')",
            [(team, ORG_ID, f"team-{team:02d}") for team in range(1, TEAMS + 1)],
        )
        rng = random.Random(20261122)
        step = DATA_DAYS * 86_400_000_000 / ROWS  # microseconds between rows on average
        naive_start = DATA_START.replace(tzinfo=None)
        grid = int(1 / CREDIT_RESOLUTION)
        batch = 100_000
        for first in range(0, ROWS, batch):
            rows = []
            for index in range(first, first + batch):
                team = rng.randint(0, TEAMS)
                moment = naive_start + timedelta(microseconds=int((index + rng.random()) * step))
                rows.append(
                    (
                        ORG_ID,
                        team or None,
                        "interaction" if team else "investigation",
                        rng.randint(grid // 100, 50 * grid) / grid,
                        moment.strftime("%Y-%m-%d %H:%M:%S.%f"),
                    )
                )
            connection.executemany(
                "INSERT INTO usage_events (org_id, team_id, feature, credits, occurred_at) "
                "VALUES (?, ?, ?, ?, ?)",
                rows,
            )
            connection.commit()
    finally:
        connection.close()

    async def build_rollups() -> None:
        engine = create_engine(url)
        try:
            async with create_session_factory(engine)() as session:
                await rebuild_rollups(session)
                await session.commit()
        finally:
            await engine.dispose()

    asyncio.run(build_rollups())


@pytest.fixture(scope="module")
def ledger_db() -> Path:
    """The cached benchmark database (built on first use)."""
    name = f"sleuth-bench-billing-v{DATA_VERSION}-{_schema_key()}.db"
    path = Path(tempfile.gettempdir()) / name
    if not path.exists():
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.unlink(missing_ok=True)
        _generate(partial)
        for suffix in ("-wal", "-shm"):
            Path(f"{partial}{suffix}").unlink(missing_ok=True)
        partial.replace(path)
    return path


@pytest.fixture(scope="module")
def session_runner(ledger_db: Path) -> Iterator[tuple[asyncio.AbstractEventLoop, AsyncSession]]:
    """An event loop and one open session on the benchmark database."""
    loop = asyncio.new_event_loop()
    engine = create_engine(f"sqlite:///{ledger_db}")
    session = create_session_factory(engine)()
    try:
        yield loop, session
    finally:
        loop.run_until_complete(session.close())
        loop.run_until_complete(engine.dispose())
        loop.close()


def _run(runner: tuple[asyncio.AbstractEventLoop, AsyncSession], report: Any) -> dict[str, Any]:
    loop, session = runner
    return loop.run_until_complete(report(session, org_id=ORG_ID, start=QUERY_START, end=QUERY_END))


@pytest.mark.benchmark(group="billing-credit-usage-366d")
def test_credit_usage_rollups(benchmark: Any, session_runner: Any) -> None:
    """Subject: the rollup-backed report."""
    result = benchmark(_run, session_runner, credit_usage)
    assert len(result["monthly_totals"]) == 13
    assert len(result["data"]) == 13 * (TEAMS + 1)


@pytest.mark.benchmark(group="billing-credit-usage-366d")
def test_credit_usage_raw_ledger_peer(benchmark: Any, session_runner: Any) -> None:
    """Peer: the same report grouped from the raw ledger rows; must equal the subject's."""
    result = benchmark.pedantic(
        _run, args=(session_runner, credit_usage_from_ledger), rounds=2, iterations=1
    )
    assert result == _run(session_runner, credit_usage)


@pytest.mark.benchmark(group="billing-credit-usage-366d-cpu", timer=time.process_time)
def test_credit_usage_rollups_cpu(benchmark: Any, session_runner: Any) -> None:
    """Subject, CPU time."""
    result = benchmark(_run, session_runner, credit_usage)
    assert len(result["monthly_totals"]) == 13


@pytest.mark.benchmark(group="billing-credit-usage-366d-cpu", timer=time.process_time)
def test_credit_usage_raw_ledger_peer_cpu(benchmark: Any, session_runner: Any) -> None:
    """Peer, CPU time."""
    result = benchmark.pedantic(
        _run, args=(session_runner, credit_usage_from_ledger), rounds=1, iterations=1
    )
    assert len(result["monthly_totals"]) == 13
