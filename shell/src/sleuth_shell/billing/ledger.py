"""The credit ledger and its daily rollups.

Every agent run writes one ledger row (``usage_events``: organization, team or null, feature,
credits, time) through :func:`record_usage`, which in the same transaction (at its commit) adds
the credits to two rollups: ``usage_daily`` (organization, UTC day, team) and ``usage_monthly``
(organization, UTC month, team). The credit-usage report (:mod:`sleuth_shell.billing.usage`) reads
whole months from the monthly rollup, the remaining whole days from the daily one and only the
partial days at the edges of its range from the ledger, so its cost does not grow with the number
of ledger rows.

Exact sums. Credits are stored on a binary grid of :data:`CREDIT_RESOLUTION` (2**-20, about a
millionth of a credit): :func:`quantize_credits` rounds every amount to the nearest multiple before
it is written. Every multiple of 2**-20 below 2**33 is a double, and so is every sum of them below
2**33, so adding ledger amounts in floating point never rounds: SQLite's ``SUM``, PostgreSQL's
``sum(double precision)``, the rollup's running ``credits + :amount`` and
:func:`sleuth_core.credits.aggregate_usage` in Python all give the same value whatever the order of
the additions. That is what makes the report from the rollups identical to the core's aggregation
of the raw rows, to the last bit, not merely close. The bound holds while one organization's sum
over one report stays below 2**33 (8.5 billion) credits.

Unattributed usage has a null ``team_id`` in the ledger and the team key
:data:`UNATTRIBUTED_TEAM_KEY` (0, never a team id) in the rollups, so that their primary keys need
no nullable column. Each rollup row also counts its ledger rows (``events``).
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    Date,
    String,
    bindparam,
    cast,
    delete,
    func,
    insert,
    literal,
    select,
    text,
    type_coerce,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from sleuth_shell.db.executor import Executor, as_executor
from sleuth_shell.db.models import UsageDaily, UsageEvent, UsageMonthly

__all__ = [
    "CREDIT_RESOLUTION",
    "FEATURES",
    "FEATURE_CHAT_TRIGGER",
    "FEATURE_DIGEST",
    "FEATURE_FILTER",
    "FEATURE_INTERACTION",
    "FEATURE_INVESTIGATION",
    "MAX_CREDITS_PER_EVENT",
    "UNATTRIBUTED_TEAM_KEY",
    "day_expression",
    "month_expression",
    "quantize_credits",
    "rebuild_rollups",
    "record_usage",
    "utc_day",
]

#: A question answered through ``POST /api/v1/interactions`` (attributed to a team).
FEATURE_INTERACTION = "interaction"
#: An alert investigation run by an alert agent (unattributed).
FEATURE_INVESTIGATION = "investigation"
#: A digest run, scheduled or on demand (unattributed).
FEATURE_DIGEST = "digest"
#: A reply of the chat bot fired by a chat trigger (unattributed).
FEATURE_CHAT_TRIGGER = "chat_trigger"
#: A filter-agent run deciding a chat trigger's response type (unattributed).
FEATURE_FILTER = "filter"

#: Every feature that writes usage. Only interactions are attributed to a team.
FEATURES: frozenset[str] = frozenset(
    {
        FEATURE_INTERACTION,
        FEATURE_INVESTIGATION,
        FEATURE_DIGEST,
        FEATURE_CHAT_TRIGGER,
        FEATURE_FILTER,
    }
)
_ATTRIBUTED_FEATURES = frozenset({FEATURE_INTERACTION})

_GRID_BITS = 20
_GRID = float(1 << _GRID_BITS)
#: The smallest credit amount the ledger records (2**-20); amounts are rounded to multiples of it.
CREDIT_RESOLUTION: float = 1.0 / _GRID
#: The largest amount one ledger row may carry (exclusive): sums stay exact below 2**33.
MAX_CREDITS_PER_EVENT: float = float(1 << 30)

#: The rollup's team key for unattributed usage (team ids start at 1).
UNATTRIBUTED_TEAM_KEY = 0


def quantize_credits(credits: float) -> float:
    """Return ``credits`` rounded to the nearest multiple of :data:`CREDIT_RESOLUTION`.

    Raises :class:`TypeError` for a non-number (``bool`` included) and :class:`ValueError` for a
    negative, non-finite or too large (>= :data:`MAX_CREDITS_PER_EVENT`) amount.

    >>> quantize_credits(0.1) == 104858 / 2**20
    True
    >>> quantize_credits(2.5)
    2.5
    """
    if isinstance(credits, bool) or not isinstance(credits, int | float):
        raise TypeError(f"credits must be a number, not {type(credits).__name__}")
    value = float(credits)
    if not math.isfinite(value):
        raise ValueError(f"credits must be finite, got {value!r}")
    if value < 0:
        raise ValueError(f"credits must not be negative, got {value!r}")
    if value >= MAX_CREDITS_PER_EVENT:
        raise ValueError(f"credits must be below {MAX_CREDITS_PER_EVENT:.0f}, got {value!r}")
    return round(value * _GRID) / _GRID


def utc_day(moment: datetime) -> date:
    """The UTC calendar day of ``moment`` (a naive value is taken to be UTC)."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.date()


def _as_utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _dialect(session: AsyncSession) -> str:
    return session.get_bind().dialect.name


async def record_usage(
    target: AsyncSession | Executor,
    *,
    org_id: int,
    team_id: int | None,
    feature: str,
    credits: float,
    occurred_at: datetime,
) -> None:
    """Write one usage row to the ledger and add it to both rollups, in ``target``'s transaction
    (a session's, or any :class:`~sleuth_shell.db.executor.Executor`'s: the fast path's direct
    transaction runs the same statements with the same values).

    The caller commits (or rolls back: the ledger row and the rollup change go together). Credits
    are rounded to :data:`CREDIT_RESOLUTION` (see the module docstring). ``team_id`` is the team the
    usage is attributed to, or ``None`` for unattributed usage; per the attribution rules only
    :data:`FEATURE_INTERACTION` carries a team (the key's team, else the organization's ``Default``
    team) and every other feature must pass ``None``. The team must belong to ``org_id``; that is
    the caller's to ensure. ``occurred_at`` may be naive (taken as UTC) or aware.

    Raises :class:`ValueError` for an unknown feature, a team on an unattributed feature (or none on
    an attributed one) and a bad amount (see :func:`quantize_credits`).

    Concurrent writers are safe: each rollup row is changed by one ``INSERT ... ON CONFLICT DO
    UPDATE SET credits = credits + excluded.credits`` statement, which PostgreSQL applies under the
    row's lock and SQLite under its single-writer lock, so no addition is lost. The ledger row is
    written at the transaction's commit with its other ledger rows, in one ``executemany``
    (:meth:`~sleuth_shell.db.executor.Executor.insert_at_commit`), and the rollup additions
    (:meth:`~sleuth_shell.db.executor.Executor.add_at_commit`): one statement per rollup row for
    all the usage of the transaction, every daily row before every monthly one and each kind in
    key order, so the rows every run adds to are locked only for the commit and two transactions
    cannot deadlock over them.
    """
    executor = as_executor(target)
    event, daily, monthly = _usage_values(org_id, team_id, feature, credits, occurred_at)
    insert_event, add_daily, add_monthly = _usage_statements(executor.dialect_name)
    # The ledger row too at the commit: one executemany for all of a batch's rows.
    executor.insert_at_commit(insert_event, event)
    # The rollups at the commit: one addition per row for all the transaction's usage (a worker's
    # batch of runs), every daily row before every monthly one, each kind in key order.
    key = (daily["org_id"], daily["team_key"])
    executor.add_at_commit(0, add_daily, (*key, daily["day"]), daily, _TOTALS)
    executor.add_at_commit(1, add_monthly, (*key, monthly["month"]), monthly, _TOTALS)


#: The rollup columns that add up.
_TOTALS = ("credits", "events")


def _usage_values(
    org_id: int, team_id: int | None, feature: str, credits: float, occurred_at: datetime
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The parameters of the ledger insert and of the daily and monthly upserts (validated)."""
    if feature not in FEATURES:
        raise ValueError(f"unknown usage feature {feature!r}; expected one of {sorted(FEATURES)}")
    if feature in _ATTRIBUTED_FEATURES and team_id is None:
        raise ValueError(f"usage of feature {feature!r} must be attributed to a team")
    if feature not in _ATTRIBUTED_FEATURES and team_id is not None:
        raise ValueError(f"usage of feature {feature!r} is unattributed; pass team_id=None")
    if team_id is not None and (isinstance(team_id, bool) or team_id <= 0):
        raise ValueError(f"team_id must be a positive team id or None, got {team_id!r}")
    amount = quantize_credits(credits)
    moment = _as_utc(occurred_at)
    day = moment.date()
    team_key = UNATTRIBUTED_TEAM_KEY if team_id is None else team_id
    event = {
        "org_id": org_id,
        "team_id": team_id,
        "feature": feature,
        "credits": amount,
        "occurred_at": moment,
    }
    common = {"org_id": org_id, "team_key": team_key, "credits": amount, "events": 1}
    month = day.strftime("%Y-%m")
    return event, {**common, "day": day, "month": month}, {**common, "month": month}


_STATEMENTS: dict[str, tuple[Any, Any, Any]] = {}


def _usage_statements(dialect: str) -> tuple[Any, Any, Any]:
    """The ledger insert and the two rollup upserts of ``dialect``, built once (with bound
    parameters, so SQLAlchemy's compiled cache serves them without rebuilding the statements)."""
    found = _STATEMENTS.get(dialect)
    if found is None:
        event = insert(UsageEvent.__table__).values(
            {name: bindparam(name) for name in ("org_id", "team_id", "feature", "credits")}
            | {"occurred_at": bindparam("occurred_at", type_=UsageEvent.occurred_at.type)}
        )
        found = _STATEMENTS[dialect] = (
            event,
            _rollup_upsert(dialect, UsageDaily, ("org_id", "day", "team_key"), with_month=True),
            _rollup_upsert(
                dialect, UsageMonthly, ("org_id", "month", "team_key"), with_month=False
            ),
        )
    return found


def _rollup_upsert(
    dialect: str,
    model: type[UsageDaily] | type[UsageMonthly],
    key: tuple[str, ...],
    *,
    with_month: bool,
) -> Any:
    """``INSERT`` the rollup row for ``key`` or add ``credits`` and ``events`` to it, in one
    atomic statement."""
    stmt: sqlite.Insert | postgresql.Insert
    if dialect == "sqlite":
        stmt = sqlite.insert(model.__table__)
    elif dialect == "postgresql":
        stmt = postgresql.insert(model.__table__)
    else:  # pragma: no cover - the engine factory accepts only these two
        raise ValueError(f"unsupported dialect: {dialect!r}")
    table = model.__table__
    names = [*key, "credits", "events"]
    if with_month:
        names.append("month")
    stmt = stmt.values({name: bindparam(name, type_=table.c[name].type) for name in names})
    return stmt.on_conflict_do_update(
        index_elements=[table.c[name] for name in key],
        set_={
            "credits": table.c.credits + stmt.excluded.credits,
            "events": table.c.events + stmt.excluded.events,
        },
    )


def day_expression(dialect: str, column: ColumnElement[datetime]) -> ColumnElement[date]:
    """SQL for the UTC day of a stored ledger timestamp (the rollup's ``day``)."""
    if dialect == "sqlite":  # stored as naive UTC text 'YYYY-MM-DD HH:MM:SS.ffffff'
        return type_coerce(func.date(column), Date)
    return cast(func.timezone("UTC", column), Date)


def month_expression(dialect: str, column: ColumnElement[datetime]) -> ColumnElement[str]:
    """SQL for the UTC month (``YYYY-MM``) of a stored ledger timestamp."""
    if dialect == "sqlite":
        return type_coerce(func.strftime("%Y-%m", column), String)
    return type_coerce(func.to_char(func.timezone("UTC", column), literal("YYYY-MM")), String)


async def rebuild_rollups(session: AsyncSession, org_id: int | None = None) -> None:
    """Recompute both rollups from the ledger, for one organization or (``None``) all of them.

    The rollups are kept current by :func:`record_usage`; this repairs them after ledger rows were
    written or deleted some other way (a bulk import, a manual fix) and folds the usage of deleted
    teams into the unattributed rows, as the ledger's ``ON DELETE SET NULL`` already did. Runs in
    the caller's transaction; the caller commits.

    Safe while usage is being written. On PostgreSQL it first locks both rollup tables in ``SHARE
    ROW EXCLUSIVE`` mode: it waits for writers that have touched them to commit, and writers that
    come later wait at their rollup upsert until the rebuild commits, then add their credits to the
    rebuilt rows (their ledger rows were not yet visible to it). On SQLite the first write takes
    the database's single write lock for the whole transaction.
    """
    dialect = _dialect(session)
    if dialect == "postgresql":
        await session.execute(
            text("LOCK TABLE usage_daily, usage_monthly IN SHARE ROW EXCLUSIVE MODE")
        )
    ledger = UsageEvent.__table__
    daily = UsageDaily.__table__
    monthly = UsageMonthly.__table__
    day = day_expression(dialect, ledger.c.occurred_at)
    team_key = func.coalesce(ledger.c.team_id, UNATTRIBUTED_TEAM_KEY)
    month = month_expression(dialect, ledger.c.occurred_at)
    from_ledger = select(
        ledger.c.org_id,
        day.label("day"),
        team_key.label("team_key"),
        month.label("month"),
        func.sum(ledger.c.credits).label("credits"),
        func.count().label("events"),
    ).group_by(ledger.c.org_id, day, team_key, month)
    from_daily = select(
        daily.c.org_id,
        daily.c.month,
        daily.c.team_key,
        func.sum(daily.c.credits).label("credits"),
        func.sum(daily.c.events).label("events"),
    ).group_by(daily.c.org_id, daily.c.month, daily.c.team_key)
    purge_daily, purge_monthly = delete(daily), delete(monthly)
    if org_id is not None:
        from_ledger = from_ledger.where(ledger.c.org_id == org_id)
        from_daily = from_daily.where(daily.c.org_id == org_id)
        purge_daily = purge_daily.where(daily.c.org_id == org_id)
        purge_monthly = purge_monthly.where(monthly.c.org_id == org_id)
    await session.execute(purge_daily)
    await session.execute(purge_monthly)
    await session.execute(
        insert(daily).from_select(
            ["org_id", "day", "team_key", "month", "credits", "events"], from_ledger
        )
    )
    await session.execute(
        insert(monthly).from_select(
            ["org_id", "month", "team_key", "credits", "events"], from_daily
        )
    )
