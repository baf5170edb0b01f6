"""The alert log's dedup and grouping reads search the investigations' index once per
``(agent, key)`` pair the decisions look up, not once per agent and key of the batch."""

from __future__ import annotations

import sqlite3

from sqlalchemy import create_engine
from sqlalchemy.dialects import sqlite

from sleuth_shell.alerts.decisions import _pair_params, _pair_reads
from sleuth_shell.db.models import Base


def _plan(statement: object, params: dict[str, object]) -> list[str]:
    compiled = statement.compile(dialect=sqlite.dialect())  # type: ignore[attr-defined]
    state = compiled.construct_expanded_state(compiled.construct_params(params))
    arguments = [state.parameters[name] for name in state.positiontup]
    engine = create_engine("sqlite://")
    Base.metadata.create_all(engine)
    connection = engine.raw_connection()
    try:
        driver = connection.driver_connection
        assert isinstance(driver, sqlite3.Connection)
        rows = driver.execute(f"EXPLAIN QUERY PLAN {state.statement}", arguments).fetchall()
    finally:
        connection.close()
        engine.dispose()
    return [str(row[-1]) for row in rows]


def test_each_pair_is_one_index_search_on_sqlite():
    held, grouped = _pair_reads("sqlite")
    params = _pair_params("sqlite", [(5, "k1"), (9, "k2"), (5, "k1")])
    for statement, extra in ((held, {}), (grouped, {"since": "2026-01-01 00:00:00.000000"})):
        plan = _plan(statement, {**params, **extra})
        searches = [line for line in plan if "investigations" in line]
        assert searches and all(line.startswith("SEARCH") for line in searches), plan
        assert any("alert_responder_id=? AND" in line for line in searches), plan


def test_pairs_are_passed_once_each_in_order():
    assert _pair_params("sqlite", [(9, "b"), (5, "a"), (9, "b")]) == {
        "pairs": '[[5, "a"], [9, "b"]]'
    }
    assert _pair_params("postgresql", [(9, "b"), (5, "a"), (9, "b")]) == {
        "agents": [5, 9],
        "keys": ["a", "b"],
    }
