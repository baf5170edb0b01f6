"""One lifecycle for every kind of agent run: interactions, digest runs and investigations.

A *run* is one row that an agent's work fills in. Its life (status names are the kind's
:class:`~sleuth_shell.statuses.Lifecycle`; an investigation fails as ``ERRORED``)::

               create (sync: the request runs it)
      (new) ----------------------------------------> IN_PROGRESS --finish--> COMPLETED
        |                                               ^    |
        | create (background, scheduled:                |    \\--fail-------> FAILED
        |         the row and its job)                  |
        v                                               |
     PENDING ---start (the run's job is claimed)--------/
        \\---fail (the job failed for good)---------------------------------> FAILED

- ``start``: ``PENDING`` or ``IN_PROGRESS`` (a job re-run after a worker crash) -> ``IN_PROGRESS``;
  ``started_at`` is kept from the first start. A finished run is not started: the job completes
  and the agent is not asked again.
- ``finish``: any unfinished status -> ``COMPLETED``, exactly once. One transaction holds the
  conditional update (``WHERE status NOT IN terminal ... RETURNING``, the returned row checked),
  the kind's result columns, the usage row, the notification jobs and the job's completion: a
  second finish (two workers, or a crash between the agent call and the commit) writes nothing
  but the job's completion and returns False.
- ``fail``: any unfinished status -> ``FAILED`` with an error message, exactly once (plus the
  kind's ``failed_values``, e.g. forgetting a kept API key). The agent raising, the renderer
  refusing its output (:class:`~sleuth_core.errors.InvalidSources`) and an interrupted synchronous
  request all end here.
- Terminal statuses (``COMPLETED``, ``FAILED`` and a kind's ``extra_terminal``) never change.

Each kind's statuses are one ``StrEnum`` in :mod:`sleuth_shell.statuses`, checked against this
life when its ``Lifecycle`` is built; the storage columns accept nothing else.

A kind is a declaration (:class:`RunKind`): its table, job kind, statuses, how to produce its
outcome, which columns the outcome fills, what it is charged, and whom to notify. This module
drives every mode from it: :func:`run_now` (synchronous requests), :func:`register_run_kind` (the
job that runs background, scheduled and cron-created runs), and the transitions below.

The finish (:func:`finish_in`) is written once, over an
:class:`~sleuth_shell.db.executor.Executor`: a job's session, or for a synchronous run a
transaction of its own (:func:`~sleuth_shell.db.executor.write_transaction`: the direct
transaction of the fast path on SQLite, else a session). The kind's ``charge`` and ``notify`` run
on the same executor, so each declares its reads and its notification targets once for both.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from sqlalchemy import bindparam, func, update
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.errors import InvalidSources
from sleuth_shell.billing.ledger import record_usage
from sleuth_shell.db.executor import Executor, SessionExecutor, write_transaction
from sleuth_shell.db.models import utcnow
from sleuth_shell.jobs import JobContext, JobFailed, JobRegistry
from sleuth_shell.services import Services, services_of
from sleuth_shell.statuses import Lifecycle

__all__ = [
    "INTERRUPTED",
    "Charge",
    "RunFailed",
    "RunGone",
    "RunKind",
    "execute",
    "fail",
    "finish",
    "finish_in",
    "register_run_kind",
    "run_now",
    "start",
]

log = logging.getLogger("sleuth.runs")

RowT = TypeVar("RowT")
OutT = TypeVar("OutT")

#: The error of a synchronous run whose request was cancelled (client gone, shutdown).
INTERRUPTED = "The run was interrupted"


class RunFailed(JobFailed):
    """The run cannot produce its outcome; ``str()`` is the message kept as the run's error.

    A :class:`~sleuth_shell.jobs.JobFailed`: the run's job fails at once (no retry) and its
    failure hook marks the run failed.
    """


class RunGone(Exception):
    """What the run belongs to no longer exists (e.g. its digest was deleted): nothing to do."""


@dataclass(frozen=True)
class Charge:
    """The usage row of a finished run: ``team_id`` None records unattributed usage."""

    team_id: int | None
    credits: float


@dataclass(frozen=True)
class RunKind(Generic[RowT, OutT]):
    """The declaration of one kind of run; everything else is this module's.

    ``model`` is the ORM class; it needs the columns ``id``, ``org_id``, ``status``,
    ``started_at``, ``completed_at`` and ``error``. The job of kind ``job_kind`` carries the run's
    id in ``payload[payload_key]`` (``parse_id`` turns it back into the key's type).
    """

    name: str
    model: type[RowT]
    job_kind: str
    payload_key: str
    parse_id: Callable[[Any], Any]
    produce: Callable[[Services, RowT], Awaitable[OutT]]
    """Ask the agent and render. Raise :class:`RunFailed` with a message for an expected failure;
    any other exception fails the run with ``failure_message(exc)``."""
    result_values: Callable[[OutT], dict[str, Any]]
    """The columns the outcome fills on completion."""
    charge: Callable[[Executor, RowT, OutT], Awaitable[Charge | None]]
    """The usage row of a completed run (None: none is written); reads, if any, through the
    executor (the completing transaction)."""
    usage_feature: str
    failure_message: Callable[[BaseException], str]
    statuses: Lifecycle[Any]
    """The kind's statuses (:mod:`sleuth_shell.statuses`)."""
    notify: Callable[[Executor, Services, RowT, OutT], Awaitable[None]] | None = None
    """The kind's notification targets: enqueue the notification jobs of a completed run through
    the executor (the completing transaction), on either path."""
    failed_values: Mapping[str, Any] = field(default_factory=dict)
    """Extra columns written when the run fails."""


def _model(kind: RunKind[Any, Any]) -> Any:
    return kind.model


def _row_id(row: Any) -> Any:
    return row.id


def _column_attributes(model: Any) -> Any:
    """The model's column attributes (key and column), for refreshing a row from a result."""
    return sa_inspect(model).column_attrs


# --- transitions ---------------------------------------------------------------------------------


_statements: dict[tuple[Any, ...], Any] = {}


def _statement(key: tuple[Any, ...], build: Callable[[], Any]) -> Any:
    """A statement of the run lifecycle built once per kind (with bound parameters, so each
    execution skips rebuilding it and SQLAlchemy's compiled cache serves it directly)."""
    found = _statements.get(key)
    if found is None:
        found = _statements[key] = build()
    return found


def _start_statement(kind: RunKind[Any, Any]) -> Any:
    # Core statements on the table: the ORM's bulk-update machinery would cost more than the write.
    table, st = _model(kind).__table__, kind.statuses
    c = table.c
    return (
        update(table)
        .where(c.id == bindparam("run_id"), c.status.in_((st.pending, st.in_progress)))
        .values(
            status=st.in_progress,
            started_at=func.coalesce(c.started_at, bindparam("now", type_=c.started_at.type)),
        )
        .returning(*c)
    )


def _row_from(model: Any, current: Mapping[str, Any]) -> Any:
    """A new transient ``model`` object holding a returned row's columns."""
    row = model()
    _refresh(row, model, current)
    return row


async def start(session: AsyncSession, kind: RunKind[RowT, Any], run_id: Any) -> RowT | None:
    """``PENDING``/``IN_PROGRESS`` -> ``IN_PROGRESS`` (the caller commits); the started row, as
    the update returned it (a transient object: the run's job reads it from here, not again).

    Returns None, writing nothing, when the run has finished or does not exist.
    """
    stmt = _statement(("start", kind.model, kind.statuses), lambda: _start_statement(kind))
    returned = await SessionExecutor(session).execute(stmt, {"run_id": run_id, "now": utcnow()})
    return _row_from(_model(kind), returned[0]) if returned else None


async def finish(
    session: AsyncSession,
    services: Services,
    kind: RunKind[RowT, OutT],
    run_id: Any,
    outcome: OutT,
    *,
    job: JobContext | None = None,
) -> bool:
    """Unfinished -> ``COMPLETED`` with the outcome, its usage row, its notification jobs and the
    job's completion, in one transaction; commits.

    Returns False when the run had already finished or no longer exists (then only the job's
    completion is written).
    """
    finished = await finish_in(SessionExecutor(session), services, kind, run_id, outcome)
    if job is not None:
        await job.complete(session)
    await session.commit()
    return finished


def _finish_statement(kind: RunKind[Any, Any], values: Mapping[str, Any]) -> Any:
    """Unfinished -> ``COMPLETED`` with the outcome's ``values`` (every one a bound parameter
    ``v_<column>``), returning the whole row."""
    model, st = _model(kind), kind.statuses

    def build() -> Any:
        table = model.__table__
        c = table.c
        return (
            update(table)
            .where(c.id == bindparam("run_id"), c.status.not_in(st.terminal))
            .values(
                status=st.completed,
                completed_at=bindparam("now", type_=c.completed_at.type),
                error=None,
                **{name: bindparam(f"v_{name}", type_=c[name].type) for name in values},
            )
            .returning(*c)
        )

    return _statement(("finish", model, st, tuple(sorted(values))), build)


def _refresh(row: Any, model: Any, current: Mapping[str, Any]) -> None:
    """Set ``row``'s column attributes to ``current`` (a returned row), skipping those that
    already hold an equal value (a transient row: the ORM's set events are most of the cost)."""
    loaded = row.__dict__
    missing = object()
    for attribute in _column_attributes(model):
        value = current[attribute.columns[0].key]
        old = loaded.get(attribute.key, missing)
        if old is missing or type(old) is not type(value) or old != value:
            setattr(row, attribute.key, value)


def _finish_params(run_id: Any, now: Any, values: Mapping[str, Any]) -> dict[str, Any]:
    return {"run_id": run_id, "now": now, **{f"v_{name}": v for name, v in values.items()}}


async def finish_in(
    executor: Executor,
    services: Services,
    kind: RunKind[RowT, OutT],
    run_id: Any,
    outcome: OutT,
    *,
    row: RowT | None = None,
) -> bool:
    """:func:`finish` in ``executor``'s transaction (the caller commits), on either path (see
    :mod:`sleuth_shell.db.executor`): the conditional ``UPDATE ... RETURNING``, the usage row and
    the notification jobs. False, writing nothing, when the run had finished or is gone.

    ``row``: the run's row object when the caller holds one that no session tracks (a
    synchronous run's, see :func:`run_now`); it is refreshed from the ``RETURNING`` row. Without
    it, the kind's ``charge`` and ``notify`` see a new transient row built from that row.
    """
    model = _model(kind)
    now = utcnow()
    values = kind.result_values(outcome)
    # Write first: on SQLite this takes the write lock before anything is read.
    returned = await executor.execute(
        _finish_statement(kind, values), _finish_params(run_id, now, values)
    )
    if not returned:
        return False
    current = returned[0]
    finished_row: Any = _row_from(model, current) if row is None else row
    if row is not None:
        _refresh(row, model, current)
    charge = await kind.charge(executor, finished_row, outcome)
    if charge is not None:
        await record_usage(
            executor,
            org_id=current["org_id"],
            team_id=charge.team_id,
            feature=kind.usage_feature,
            credits=charge.credits,
            occurred_at=now,
        )
    if kind.notify is not None:
        await kind.notify(executor, services, finished_row, outcome)
    return True


async def fail(session: AsyncSession, kind: RunKind[Any, Any], run_id: Any, error: str) -> bool:
    """Unfinished -> ``FAILED`` with ``error`` (and the kind's ``failed_values``); the caller
    commits. Returns False, writing nothing, when the run had finished or does not exist."""
    model, st = _model(kind), kind.statuses
    result = await session.execute(
        update(model)
        .where(model.id == run_id, model.status.not_in(st.terminal))
        .values(status=st.failed, error=error, completed_at=utcnow(), **kind.failed_values)
        .execution_options(synchronize_session=False)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


# --- producing the outcome -----------------------------------------------------------------------


async def execute(services: Services, kind: RunKind[RowT, OutT], row: RowT) -> OutT:
    """The kind's outcome for ``row``; every failure becomes :class:`RunFailed` (or
    :class:`RunGone`) with a message a user can read."""
    try:
        return await kind.produce(services, row)
    except (RunFailed, RunGone):
        raise
    except InvalidSources as exc:
        raise RunFailed(f"The agent's answer could not be rendered: {exc}") from exc
    except Exception as exc:
        raise RunFailed(kind.failure_message(exc)) from exc


async def _fail_now(services: Services, kind: RunKind[Any, Any], run_id: Any, error: str) -> None:
    async with services.sessions() as session:
        await fail(session, kind, run_id, error)
        await session.commit()


async def run_now(services: Services, kind: RunKind[RowT, OutT], row: RowT) -> OutT:
    """Run a synchronous run (created ``IN_PROGRESS``) in the caller's task and finish it.

    Raises :class:`RunFailed` after marking the run failed; a cancelled request fails the run
    with :data:`INTERRUPTED` and re-raises.
    """
    run_id = _row_id(row)
    try:
        outcome = await execute(services, kind, row)
    except RunGone:
        raise RunFailed(f"The {kind.name} no longer exists") from None
    except RunFailed as exc:
        await _fail_now(services, kind, run_id, str(exc))
        raise
    except BaseException:
        await _fail_now(services, kind, run_id, INTERRUPTED)
        raise
    # The fast path (a direct transaction, SQLite) or a session: the same statements.
    async with write_transaction(services.sessions, fast=services.settings.fast_path) as executor:
        await finish_in(executor, services, kind, run_id, outcome, row=_detached(row))
        await executor.commit()
    return outcome


def _detached(row: RowT) -> RowT | None:
    """``row`` when it was never added to a session (a transient object, e.g. a synchronous
    interaction's, inserted with Core): it may then be refreshed in place; else None."""
    state = sa_inspect(row, raiseerr=False)
    if state is None or not state.transient:
        return None
    return row


# --- the job -------------------------------------------------------------------------------------


async def _run_job(kind: RunKind[Any, Any], ctx: JobContext) -> None:
    services = services_of(ctx)
    run_id = kind.parse_id(ctx.payload[kind.payload_key])

    async def begin(session: AsyncSession) -> Any:
        started = await start(session, kind, run_id)
        if started is None:
            # Finished already (a re-run after a crash) or deleted: nothing to do.
            await ctx.complete(session)
        return started

    # The start (returning the run's row, so it is not read again), the finish (with its usage
    # row and notification jobs) and the job's completion are each committed together with other
    # jobs' writes (JobContext.write).
    row = await ctx.write(begin)
    if row is None:
        return
    try:
        outcome = await execute(services, kind, row)
    except RunGone:
        await ctx.write(ctx.complete)
        return

    async def end(session: AsyncSession) -> bool:
        finished = await finish_in(SessionExecutor(session), services, kind, run_id, outcome)
        await ctx.complete(session)
        return finished

    await ctx.write(end)


def register_run_kind(registry: JobRegistry, kind: RunKind[Any, Any]) -> None:
    """Register the job that runs ``kind``'s background, scheduled and cron-created runs.

    The job fails for good on :class:`RunFailed` (no retry: the agent was asked once) and the
    failure hook marks the run failed with the job's error.
    """

    async def handler(ctx: JobContext) -> None:
        await _run_job(kind, ctx)

    async def on_failure(ctx: JobContext, session: AsyncSession, error: str) -> None:
        raw = ctx.payload.get(kind.payload_key)
        if raw is None:
            return
        try:
            run_id = kind.parse_id(raw)
        except (TypeError, ValueError):
            return
        await fail(session, kind, run_id, error)

    registry.register(kind.job_kind, handler, on_failure=on_failure)
