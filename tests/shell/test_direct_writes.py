"""Synchronous interactions written without a session (sleuth_shell.db.direct_writes, SQLite):
the same stored rows, usage row and rollups as the session path, byte for byte."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import OrgHandle
from interaction_helpers import CREDITS, FakeAgent, fakes
from litestar import Litestar
from litestar.testing import TestClient
from sqlalchemy import create_engine, text

from sleuth_shell import runs
from sleuth_shell.app import create_app
from sleuth_shell.config import Settings
from sleuth_shell.db import direct_writes
from sleuth_shell.interactions import service

URL = "/api/v1/interactions"
#: Columns that differ between two requests whatever the path.
_PER_REQUEST = ("id", "created_at", "started_at", "completed_at", "scheduled_runtime")


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient[Litestar]]:
    if not settings.database_url.startswith("sqlite"):
        pytest.skip("direct writes are SQLite's")
    app = create_app(settings, **fakes(FakeAgent()))
    with TestClient(app=app, raise_server_exceptions=False) as test_client:
        yield test_client


def _raw(settings: Settings, sql: str) -> list[dict[str, Any]]:
    """Rows as stored (no type processing)."""
    engine = create_engine(settings.database_url)
    try:
        with engine.connect() as connection:
            return [dict(row._mapping) for row in connection.execute(text(sql))]
    finally:
        engine.dispose()


def _interaction(settings: Settings, interaction_id: str) -> dict[str, Any]:
    [row] = [
        row for row in _raw(settings, "SELECT * FROM interactions") if row["id"] == interaction_id
    ]
    return row


def _ask(client: TestClient[Litestar], org: OrgHandle) -> dict[str, Any]:
    response = client.post(URL, json={"question": "Why did checkout fail?"}, headers=org.headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


class _Spy:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.commits = 0
        original = direct_writes.DirectTransaction.commit

        async def commit(transaction: direct_writes.DirectTransaction) -> None:
            self.commits += 1
            await original(transaction)

        monkeypatch.setattr(direct_writes.DirectTransaction, "commit", commit)


def test_direct_and_session_paths_store_the_same(
    client: TestClient[Litestar],
    org: OrgHandle,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spy = _Spy(monkeypatch)
    direct = _ask(client, org)
    assert spy.commits == 2  # the IN_PROGRESS row, then the completion with its usage
    with monkeypatch.context() as patch:
        patch.setattr(service, "direct_writer", lambda sessions: None)
        patch.setattr(runs, "direct_writer", lambda sessions: None)
        through_session = _ask(client, org)
    assert spy.commits == 2
    assert {k: v for k, v in direct.items() if k not in ("interaction_id", "url")} == {
        k: v for k, v in through_session.items() if k not in ("interaction_id", "url")
    }

    first = _interaction(settings, direct["interaction_id"])
    second = _interaction(settings, through_session["interaction_id"])
    assert first["status"] == "COMPLETED"
    for column in _PER_REQUEST:
        assert type(first[column]) is type(second[column]), column
    assert {k: v for k, v in first.items() if k not in _PER_REQUEST} == {
        k: v for k, v in second.items() if k not in _PER_REQUEST
    }

    events = _raw(settings, "SELECT org_id, team_id, feature, credits FROM usage_events")
    assert events == [
        {"org_id": org.id, "team_id": org.default_team_id, "feature": "interaction", "credits": c}
        for c in (CREDITS, CREDITS)
    ]
    stamps = _raw(settings, "SELECT occurred_at FROM usage_events")
    assert len({len(row["occurred_at"]) for row in stamps}) == 1  # one stored format
    for table in ("usage_daily", "usage_monthly"):
        [rollup] = _raw(settings, f"SELECT org_id, team_key, credits, events FROM {table}")
        assert rollup == {
            "org_id": org.id,
            "team_key": org.default_team_id,
            "credits": 2 * CREDITS,
            "events": 2,
        }


def test_a_completion_that_needs_the_session_is_rolled_back_and_redone(
    client: TestClient[Litestar],
    org: OrgHandle,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``direct_charge`` says no after the direct UPDATE: that UPDATE is rolled back and the
    session path finishes the run, once."""
    spy = _Spy(monkeypatch)
    kind = dataclasses.replace(service.INTERACTION, direct_charge=lambda row, answer: (False, None))
    monkeypatch.setattr(service, "INTERACTION", kind)
    body = _ask(client, org)
    assert spy.commits == 1  # the insert only
    row = _interaction(settings, body["interaction_id"])
    assert row["status"] == "COMPLETED" and row["completed_at"] is not None
    assert len(_raw(settings, "SELECT * FROM usage_events")) == 1
    [daily] = _raw(settings, "SELECT credits, events FROM usage_daily")
    assert daily == {"credits": CREDITS, "events": 1}
