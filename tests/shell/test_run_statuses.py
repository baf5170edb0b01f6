"""Run statuses: one StrEnum per run kind, checked against the run lifecycle, and the storage
columns that accept nothing else (migration 0016, on SQLite and PostgreSQL, and its downgrade)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from enum import StrEnum

import pytest
from sqlalchemy.exc import IntegrityError
from test_ids_never_reused import _downgrade, sql

from sleuth_shell import statuses
from sleuth_shell.db import migrate
from sleuth_shell.digests.service import DIGEST_RUN
from sleuth_shell.interactions.service import INTERACTION
from sleuth_shell.investigations import INVESTIGATION
from sleuth_shell.statuses import InvestigationStatus, Lifecycle

T0 = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


def test_each_kind_declares_its_lifecycle_and_the_sets_follow_from_it() -> None:
    assert INVESTIGATION.statuses is statuses.INVESTIGATION
    assert INTERACTION.statuses is statuses.INTERACTION
    assert DIGEST_RUN.statuses is statuses.DIGEST_RUN
    inv = statuses.INVESTIGATION
    assert inv.values == ("PENDING", "IN_PROGRESS", "ERRORED", "COMPLETED", "STOPPED")
    assert inv.terminal == ("COMPLETED", "ERRORED", "STOPPED")
    assert inv.unfinished == ("PENDING", "IN_PROGRESS")
    assert statuses.INTERACTION.terminal == ("COMPLETED", "FAILED")
    # Every status is either unfinished or terminal, never both.
    for lifecycle in (statuses.INTERACTION, statuses.DIGEST_RUN, inv):
        assert sorted((*lifecycle.unfinished, *lifecycle.terminal)) == sorted(lifecycle.values)
    assert "RUNNING" not in inv.values and "FAILED" not in inv.values


def test_a_status_outside_the_lifecycle_is_refused_when_the_kind_is_declared() -> None:
    class Missing(StrEnum):
        PENDING = "PENDING"
        COMPLETED = "COMPLETED"
        FAILED = "FAILED"

    with pytest.raises(ValueError, match="lacks the lifecycle's IN_PROGRESS"):
        Lifecycle(Missing, failed=Missing.FAILED)


def _insert(url: str, table: str, status: str) -> None:
    statements = {
        "interactions": (
            "INSERT INTO interactions (id, org_id, question, context, use_tools, status, "
            "sources, notifications, created_at) VALUES "
            "(:id, 1, 'q', '[]', true, :s, '[]', '{}', :t)"
        ),
        "investigations": (
            "INSERT INTO investigations (org_id, name, status, prompt, event_payload, result, "
            "sources, created_at) VALUES (1, 'n', :s, 'p', '', '', '[]', :t)"
        ),
        "digest_runs": (
            "INSERT INTO digest_runs (org_id, digest_id, status, results, created_at) "
            "VALUES (1, 1, :s, '[]', :t)"
        ),
    }
    sql(url, (statements[table], {"s": status, "t": T0, "id": f"{table}-{status}"}))


def _fill(url: str) -> None:
    sql(
        url,
        (
            "INSERT INTO organizations (name, plan, signing_secret, created_at) "
            "VALUES ('acme', 'enterprise', 's1', :t)",
            {"t": T0},
        ),
        (
            "INSERT INTO teams (org_id, name, created_at) VALUES (1, 'Default', :t)",
            {"t": T0},
        ),
        (
            "INSERT INTO digests (org_id, team_id, name, sections, schedule, created_at, "
            "updated_at) VALUES (1, 1, 'd', '[]', '0 9 * * *', :t, :t)",
            {"t": T0},
        ),
    )


@pytest.mark.storage
def test_status_columns_refuse_other_statuses_and_the_migration_downgrades(
    database_url: str,
) -> None:
    migrate(database_url, "0015")
    _fill(database_url)
    # Before 0016 nothing stops the web app's old "RUNNING".
    _insert(database_url, "investigations", "RUNNING")
    sql(database_url, "DELETE FROM investigations")
    migrate(database_url)
    for table, lifecycle in (
        ("interactions", statuses.INTERACTION),
        ("digest_runs", statuses.DIGEST_RUN),
        ("investigations", statuses.INVESTIGATION),
    ):
        for status in lifecycle.values:
            _insert(database_url, table, status)
        for wrong in ("RUNNING", "SCHEDULED", "pending"):
            with pytest.raises(IntegrityError):
                _insert(database_url, table, wrong)
    with pytest.raises(IntegrityError):
        _insert(database_url, "investigations", "FAILED")
    with pytest.raises(IntegrityError):
        _insert(database_url, "interactions", InvestigationStatus.ERRORED)
    [rows] = sql(database_url, "SELECT status FROM investigations ORDER BY id")
    assert [s for (s,) in rows] == list(statuses.INVESTIGATION.values)

    asyncio.run(_downgrade(database_url, "0015"))
    _insert(database_url, "investigations", "RUNNING")  # the constraint is gone, rows kept
    [[(count,)]] = sql(database_url, "SELECT count(*) FROM investigations")
    assert count == len(statuses.INVESTIGATION.values) + 1
    sql(database_url, "DELETE FROM investigations WHERE status = 'RUNNING'")
    migrate(database_url)
    with pytest.raises(IntegrityError):
        _insert(database_url, "investigations", "RUNNING")
