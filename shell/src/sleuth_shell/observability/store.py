"""The embedded observability store: `LogStore` queries over the ``log_records`` table.

Every query is scoped to one organization and a half-open time range ``[start, end)``, so it uses
the ``(org_id, timestamp)`` or ``(org_id, service, timestamp)`` index. Levels are stored in their
canonical spelling (`sleuth_shell.agents.base.LOG_LEVELS`); the ``text`` filter is a
case-insensitive substring match on the message. The only dialect-specific SQL (epoch seconds for
histograms) is in `epoch_seconds`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, TypeVarTuple

from sqlalchemy import (
    BigInteger,
    Integer,
    Select,
    bindparam,
    cast,
    func,
    literal_column,
    select,
    text,
)
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import InstrumentedAttribute
from sqlalchemy.sql.elements import ColumnElement

from sleuth_shell.agents.base import LogCount, LogMessageCount, LogRecord
from sleuth_shell.db import models
from sleuth_shell.db.hot_reads import HotStatements, timestamp_parser

__all__ = ["DatabaseLogStore", "epoch_seconds"]

_Ts = TypeVarTuple("_Ts")
_T = models.LogRecord


def epoch_seconds(dialect: str, column: Any) -> ColumnElement[int]:
    """Whole Unix seconds of a timestamp column, per dialect."""
    if dialect == "sqlite":
        return cast(func.strftime("%s", column), Integer)
    if dialect == "postgresql":
        return cast(func.floor(func.extract("epoch", column)), BigInteger)
    raise RuntimeError(f"time buckets do not support {dialect!r}")


def _aware(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


_SERVICES_SQL = """
WITH RECURSIVE found(service) AS (
    SELECT min(service) FROM log_records WHERE org_id = :org_id
    UNION ALL
    SELECT (
        SELECT min(l.service) FROM log_records AS l
        WHERE l.org_id = :org_id AND l.service > found.service
    )
    FROM found WHERE found.service IS NOT NULL
)
SELECT service FROM found WHERE service IS NOT NULL ORDER BY service
"""
"""The organization's distinct services, one index seek per service on ``(org_id, service,
timestamp)`` (each the next name after the last) instead of ``SELECT DISTINCT``'s scan of every
record: every question of the retrieval agent asks for them."""
_SERVICES = text(_SERVICES_SQL)


def _in(column: InstrumentedAttribute[str], prefix: str, count: int) -> ColumnElement[bool]:
    """``column IN (:prefix0, :prefix1, ...)``: one bound parameter per value (a fixed shape)."""
    return column.in_([bindparam(f"{prefix}{i}") for i in range(count)])


def _shape(columns: Select[*_Ts], services: int, levels: int, text: bool = False) -> Select[*_Ts]:
    """The common filters with bound parameters: ``org_id``, ``start``, ``end``, ``s0``...,
    ``l0``... (levels upper-cased by the caller) and ``pattern`` (a LIKE pattern escaped with
    ``/``, as SQLAlchemy's ``contains(autoescape=True)`` would)."""
    statement = columns.where(
        _T.org_id == bindparam("org_id"),
        _T.timestamp >= bindparam("start", type_=_T.timestamp.type),
        _T.timestamp < bindparam("end", type_=_T.timestamp.type),
    )
    if services:
        statement = statement.where(_in(_T.service, "s", services))
    if levels:
        statement = statement.where(_in(_T.level, "l", levels))
    if text:
        statement = statement.where(func.lower(_T.message).like(bindparam("pattern"), escape="/"))
    return statement


def _params(
    org_id: int,
    start: datetime,
    end: datetime,
    services: Sequence[str] | None,
    levels: Sequence[str] | None = None,
    text: str | None = None,
    **more: Any,
) -> dict[str, Any]:
    params: dict[str, Any] = {"org_id": org_id, "start": _aware(start), "end": _aware(end)}
    for i, service in enumerate(services or ()):
        params[f"s{i}"] = service
    for i, level in enumerate(levels or ()):
        params[f"l{i}"] = level.upper()
    if text:
        escaped = text.lower().replace("/", "//").replace("%", "/%").replace("_", "/_")
        params["pattern"] = f"%{escaped}%"
    params.update(more)
    return params


def _counts(services: Sequence[str] | None, levels: Sequence[str] | None = None) -> tuple[int, int]:
    return len(services or ()), len(levels or ())


class DatabaseLogStore:
    """`sleuth_shell.agents.base.LogStore` over the shell's database.

    Every read is a statement built once per shape (which filters, how many services and
    levels) and run on the hot-read path (:class:`~sleuth_shell.db.hot_reads.HotStatements`: a
    plain sqlite3 call on a SQLite file, no ORM session); the questions' answers read several
    per request.
    """

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._hot = HotStatements(sessions)

    async def query(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        levels: Sequence[str] | None = None,
        text: str | None = None,
        limit: int = 100,
        *,
        newest: bool = False,
    ) -> list[LogRecord]:
        """Matching records, oldest first (ties by id), at most ``limit``; with ``newest``,
        newest first (ties by id, the last stored first) and with their trace and span ids."""
        n_services, n_levels = _counts(services, levels)
        hot = self._hot

        def build() -> Any:
            spans = (_T.trace_id, _T.span_id) if newest else ()
            columns = select(
                _T.id,
                hot.timestamp(_T.timestamp),
                _T.service,
                _T.level,
                _T.message,
                _T.attributes,
                *spans,
            )
            order = (_T.timestamp.desc(), _T.id.desc()) if newest else (_T.timestamp, _T.id)
            return (
                _shape(columns, n_services, n_levels, bool(text))
                .order_by(*order)
                .limit(bindparam("limit", type_=Integer))
            )

        params = _params(org_id, start, end, services, levels, text, limit=max(0, limit))
        key = ("newest" if newest else "query", n_services, n_levels, bool(text))
        rows = await hot.rows(key, build, params)
        stamp = timestamp_parser()
        return [
            LogRecord(row[0], stamp(row[1]), row[2], row[3], row[4], dict(row[5] or {}), *row[6:])
            for row in rows
        ]

    async def messages(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        levels: Sequence[str] | None = None,
        limit: int = 100,
    ) -> list[tuple[int, datetime, str]]:
        """``(id, timestamp, message)`` of the records `query` would return (no text filter)."""
        n_services, n_levels = _counts(services, levels)
        hot = self._hot

        def build() -> Any:
            columns = select(_T.id, hot.timestamp(_T.timestamp), _T.message)
            return (
                _shape(columns, n_services, n_levels)
                .order_by(_T.timestamp, _T.id)
                .limit(bindparam("limit", type_=Integer))
            )

        params = _params(org_id, start, end, services, levels, limit=max(0, limit))
        rows = await hot.rows(("messages", n_services, n_levels), build, params)
        stamp = timestamp_parser()
        return [(row_id, stamp(timestamp), message) for row_id, timestamp, message in rows]

    async def counts(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
    ) -> list[LogCount]:
        """Counts per (service, level), sorted by service then level."""
        n_services = len(services or ())

        def build() -> Any:
            columns = select(_T.service, _T.level, func.count())
            return _shape(columns, n_services, 0).group_by(_T.service, _T.level)

        params = _params(org_id, start, end, services)
        rows = await self._hot.rows(("counts", n_services), build, params)
        return sorted(LogCount(service, level, int(count)) for service, level, count in rows)

    async def top_messages(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        levels: Sequence[str] | None = None,
        limit: int = 5,
    ) -> list[LogMessageCount]:
        """The most frequent (service, level, message) triples; ties by first appearance."""
        n_services, n_levels = _counts(services, levels)

        def build() -> Any:
            count = func.count().label("n")
            first = func.min(_T.timestamp).label("first_seen")
            columns = select(_T.service, _T.level, _T.message, count, first, func.max(_T.timestamp))
            return (
                _shape(columns, n_services, n_levels)
                .group_by(_T.service, _T.level, _T.message)
                .order_by(count.desc(), first, _T.service, _T.message)
                .limit(bindparam("limit", type_=Integer))
            )

        params = _params(org_id, start, end, services, levels, limit=max(0, limit))
        rows = await self._hot.rows(("top", n_services, n_levels), build, params)
        return [
            LogMessageCount(service, level, message, int(n), _aware(first_seen), _aware(last))
            for service, level, message, n, first_seen, last in rows
        ]

    async def histogram(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        bucket_seconds: int,
        services: Sequence[str] | None = None,
        levels: Sequence[str] | None = None,
    ) -> list[tuple[datetime, int]]:
        """Record counts per ``bucket_seconds`` bucket (aligned to the Unix epoch), non-empty
        buckets only, oldest first."""
        if bucket_seconds <= 0:
            raise ValueError("bucket_seconds must be positive")
        n_services, n_levels = _counts(services, levels)
        dialect = self._hot.dialect
        size = int(bucket_seconds)

        def build() -> Any:
            epoch = epoch_seconds(dialect, _T.timestamp)
            bucket = (epoch - epoch % literal_column(str(size))).label("bucket")
            columns = select(bucket, func.count())
            return _shape(columns, n_services, n_levels).group_by(bucket).order_by(bucket)

        params = _params(org_id, start, end, services, levels)
        rows = await self._hot.rows(("histogram", size, n_services, n_levels), build, params)
        return [(datetime.fromtimestamp(int(b), UTC), int(n)) for b, n in rows]

    async def services(self, org_id: int) -> list[str]:
        """Distinct service names of ``org_id``, sorted."""
        rows = await self._hot.text_rows(_SERVICES_SQL, _SERVICES, {"org_id": org_id})
        return [service for (service,) in rows]

    async def time_bounds(self, org_id: int) -> tuple[datetime, datetime] | None:
        """The oldest and newest timestamps of ``org_id``'s records, or None."""

        def build() -> Any:
            # Two scalar subqueries: SQLite answers a lone min() or max() from the index's ends,
            # but scans every record of the organization for both in one SELECT.
            org = _T.org_id == bindparam("org_id")
            oldest = select(func.min(_T.timestamp)).where(org).scalar_subquery()
            newest = select(func.max(_T.timestamp)).where(org).scalar_subquery()
            return select(oldest.label("oldest"), newest.label("newest"))

        rows = await self._hot.rows("bounds", build, {"org_id": org_id})
        oldest, newest = rows[0]
        if oldest is None or newest is None:
            return None
        return _aware(oldest), _aware(newest)
