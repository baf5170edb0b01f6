"""The per-organization alert-agent version: bumped in the same transaction as every agent change.

The alert intake keeps each organization's ACTIVE alert agents in a per-process matching index
(:mod:`sleuth_shell.intake.agent_index`). For the index to stay current across workers and nodes
without a rebuild per alert, every flush that inserts, modifies or deletes an
:class:`~sleuth_shell.db.models.AlertResponder` (create, update, pause, resume, delete) also, on
the same connection and so in the same transaction:

1. increments ``agent_index_versions.version`` of the agent's organization (an upsert: the row
   lock it takes on PostgreSQL orders concurrent changes, so versions commit in order), and
2. records ``(org_id, version, alert_responder_id)`` in ``alert_responder_changes``, and prunes
   the rows older than :data:`KEEP_CHANGES` versions.

A deleted :class:`~sleuth_shell.db.models.Team` (whose agents the database deletes by cascade)
records agent id ``0``: "reload every agent". The listener is an ORM ``after_flush`` hook on every
:class:`~sqlalchemy.orm.Session`, so no write path can forget it; bulk ``UPDATE``/``DELETE``
statements on ``alert_responders`` bypass the ORM and must call :func:`bump` (or
:func:`bump_with` on an :class:`~sleuth_shell.db.executor.Executor`) themselves.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    CTE,
    Connection,
    FromClause,
    Integer,
    bindparam,
    delete,
    event,
    insert,
    literal,
    select,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, UOWTransaction

from sleuth_shell.db.models import AgentIndexVersion, AlertResponder, AlertResponderChange, Team

if TYPE_CHECKING:
    from sleuth_shell.db.executor import Executor

__all__ = ["KEEP_CHANGES", "RELOAD_ALL", "bump", "bump_ctes", "bump_with"]

#: Change rows kept per organization; a cache further behind rebuilds the organization in full.
KEEP_CHANGES = 1000
#: The agent id recorded when every agent of the organization must be reloaded.
RELOAD_ALL = 0


def _upsert(dialect_name: str, changed: FromClause | None = None) -> Any:
    """The version upsert of ``dialect_name`` for organization ``:org_id`` (``RETURNING`` the new
    version): once, or with ``changed`` (PostgreSQL) once per row of ``changed``."""
    table = AgentIndexVersion.__table__
    dialect_insert = postgresql.insert if dialect_name == "postgresql" else sqlite.insert
    statement: Any = dialect_insert(table)
    if changed is None:
        statement = statement.values(org_id=bindparam("org_id"), version=1)
    else:
        statement = statement.from_select(
            ["org_id", "version"],
            select(bindparam("org_id", type_=Integer), literal(1, Integer)).select_from(changed),
        )
    return statement.on_conflict_do_update(
        index_elements=["org_id"], set_={"version": table.c.version + 1}
    ).returning(table.c.version)


def _record_from(bumped: Any, agent_id: Any) -> Any:
    """PostgreSQL: the change row of ``agent_id`` (an expression) at the version ``bumped`` (the
    upsert as a CTE) returns, ``RETURNING`` it."""
    changes = AlertResponderChange.__table__
    return (
        insert(changes)
        .from_select(
            ["org_id", "version", "alert_responder_id"],
            select(bindparam("org_id", type_=Integer), bumped.c.version, agent_id),
        )
        .returning(changes.c.version)
    )


def _prune(oldest: Any) -> Any:
    """The prune of organization ``:org_id``'s change rows up to version ``oldest``."""
    changes = AlertResponderChange.__table__
    return delete(changes).where(
        changes.c.org_id == bindparam("org_id"), changes.c.version <= oldest
    )


def bump_ctes(changed: FromClause, agent_id: Any) -> tuple[CTE, CTE]:
    """PostgreSQL: :func:`bump` of organization ``:org_id`` for the agent ``agent_id`` (an
    expression) as data-modifying CTEs of one larger statement, for a statement that makes the
    change itself (``changed``, e.g. an ``UPDATE ... RETURNING`` as a CTE, with at most one row:
    the bump happens when it has a row). Returns ``(recorded, pruned)``, to add to the statement:
    ``recorded`` is the change row (the upsert inside it), with the new ``version`` column;
    ``pruned`` deletes the rows more than :data:`KEEP_CHANGES` versions older (nothing when
    ``changed`` is empty). The statement is the whole transaction: its row locks are taken in
    :func:`bump`'s order (the upsert's version row after whatever ``changed`` locks)."""
    bumped = _upsert("postgresql", changed).cte("bumped")
    recorded = _record_from(bumped, agent_id).cte("recorded")
    newest = select(recorded.c.version).scalar_subquery()
    pruned = _prune(newest - KEEP_CHANGES).cte("pruned")
    return recorded, pruned


def _statements(dialect_name: str) -> tuple[Any, Any, Any]:
    """The version upsert, the change insert and the prune of ``dialect_name``, built once (each
    built per agent change cost more than running it). On PostgreSQL the upsert is ``None``: the
    change insert takes the version from the upsert as a CTE."""
    found = _STATEMENTS.get(dialect_name)
    if found is None:
        upsert = _upsert(dialect_name)
        record: Any = insert(AlertResponderChange.__table__).values(
            org_id=bindparam("org_id"),
            version=bindparam("version"),
            alert_responder_id=bindparam("agent_id"),
        )
        prune = _prune(bindparam("oldest"))
        if dialect_name == "postgresql":
            # One statement, one round trip: the change row inserted from the upsert's RETURNING
            # (SQLite has no data-modifying CTE: two statements there, each without a round trip).
            record = _record_from(upsert.cte("bumped"), bindparam("agent_id", type_=Integer))
            upsert = None
        found = _STATEMENTS[dialect_name] = (upsert, record, prune)
    return found


_STATEMENTS: dict[str, tuple[Any, Any, Any]] = {}


def _steps(dialect_name: str, org_id: int, agent_ids: list[int]) -> Steps:
    """The statements of a bump, one at a time: each yielded ``(statement, params)`` is sent back
    its rows (as dicts); returns the new version. Driven by :func:`bump` (a sync connection) and
    :func:`bump_with` (an :class:`~sleuth_shell.db.executor.Executor`)."""
    upsert, record, prune = _statements(dialect_name)
    version = 0
    for agent_id in agent_ids:
        if upsert is None:  # PostgreSQL: the upsert and the change row in one statement
            rows = yield record, {"org_id": org_id, "agent_id": agent_id}
            version = int(rows[0]["version"])
            continue
        rows = yield upsert, {"org_id": org_id}
        version = int(rows[0]["version"])
        yield record, {"org_id": org_id, "version": version, "agent_id": agent_id}
    if version > KEEP_CHANGES:
        yield prune, {"org_id": org_id, "oldest": version - KEEP_CHANGES}
    return version


Steps = Generator[tuple[Any, dict[str, Any]], list[dict[str, Any]], int]


def bump(connection: Connection, org_id: int, agent_ids: list[int]) -> int:
    """Advance ``org_id``'s version once per agent id in ``agent_ids``, recording each change;
    returns the new version. Runs on ``connection`` (the caller's transaction)."""
    steps = _steps(connection.dialect.name, org_id, agent_ids)
    rows: list[dict[str, Any]] | None = None
    try:
        while True:
            statement, params = steps.send(rows)  # type: ignore[arg-type]
            result = connection.execute(statement, params)
            rows = [dict(row) for row in result.mappings()] if result.returns_rows else []
    except StopIteration as done:
        return int(done.value)


async def bump_with(executor: Executor, org_id: int, agent_ids: list[int]) -> int:
    """:func:`bump` on ``executor`` (its transaction): the same statements, prebuilt, so on the
    direct-write path without SQLAlchemy's per-execute machinery."""
    steps = _steps(executor.dialect_name, org_id, agent_ids)
    rows: list[dict[str, Any]] | None = None
    try:
        while True:
            statement, params = steps.send(rows)  # type: ignore[arg-type]
            rows = await executor.execute(statement, params)
    except StopIteration as done:
        return int(done.value)


@event.listens_for(Session, "after_flush")
def _record_agent_changes(session: Session, _flush: UOWTransaction) -> None:
    changed: dict[int, list[int]] = {}

    def note(org_id: Any, agent_id: Any) -> None:
        if isinstance(org_id, int) and isinstance(agent_id, int):
            ids = changed.setdefault(org_id, [])
            if agent_id not in ids:
                ids.append(agent_id)

    for obj in session.new:
        if isinstance(obj, AlertResponder):
            note(obj.org_id, obj.id)
    for obj in session.dirty:
        if isinstance(obj, AlertResponder) and session.is_modified(obj):
            note(obj.org_id, obj.id)
    for obj in session.deleted:
        if isinstance(obj, AlertResponder):
            note(obj.org_id, obj.id)
        elif isinstance(obj, Team):
            note(obj.org_id, RELOAD_ALL)
    if not changed:
        return
    connection = session.connection()
    for org_id, agent_ids in sorted(changed.items()):
        bump(connection, org_id, agent_ids)
