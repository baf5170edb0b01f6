"""The embedded observability store: `LogStore` queries over the ``log_records`` table.

Every query is scoped to one organization and a half-open time range ``[start, end)``, so it uses
the ``(org_id, timestamp)`` or ``(org_id, service, timestamp)`` index. Levels are stored in their
canonical spelling (`sleuth_shell.agents.base.LOG_LEVELS`); the ``text`` filter is a
case-insensitive substring match on the message. The only dialect-specific SQL (epoch seconds for
histograms) is in `_epoch_seconds`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, TypeVarTuple

from sqlalchemy import BigInteger, Integer, Select, cast, func, literal_column, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.sql.elements import ColumnElement

from sleuth_shell.agents.base import LogCount, LogMessageCount, LogRecord
from sleuth_shell.db import models

__all__ = ["DatabaseLogStore"]

_Ts = TypeVarTuple("_Ts")
_T = models.LogRecord


def _epoch_seconds(dialect: str, column: Any) -> ColumnElement[int]:
    """Whole Unix seconds of a timestamp column, per dialect."""
    if dialect == "sqlite":
        return cast(func.strftime("%s", column), Integer)
    if dialect == "postgresql":
        return cast(func.floor(func.extract("epoch", column)), BigInteger)
    raise RuntimeError(f"log histograms do not support {dialect!r}")


def _aware(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _filtered(
    statement: Select[*_Ts],
    org_id: int,
    start: datetime,
    end: datetime,
    services: Sequence[str] | None,
    levels: Sequence[str] | None = None,
    text: str | None = None,
) -> Select[*_Ts]:
    statement = statement.where(
        _T.org_id == org_id, _T.timestamp >= _aware(start), _T.timestamp < _aware(end)
    )
    if services:
        statement = statement.where(_T.service.in_(list(services)))
    if levels:
        statement = statement.where(_T.level.in_([level.upper() for level in levels]))
    if text:
        statement = statement.where(func.lower(_T.message).contains(text.lower(), autoescape=True))
    return statement


class DatabaseLogStore:
    """`sleuth_shell.agents.base.LogStore` over the shell's database."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def query(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        levels: Sequence[str] | None = None,
        text: str | None = None,
        limit: int = 100,
    ) -> list[LogRecord]:
        """Matching records, oldest first (ties by id), at most ``limit``."""
        # Columns, not ORM entities: up to thousands of rows per question, and no identity map
        # or instance state is needed for read-only records.
        columns = select(_T.id, _T.timestamp, _T.service, _T.level, _T.message, _T.attributes)
        statement = _filtered(columns, org_id, start, end, services, levels, text)
        statement = statement.order_by(_T.timestamp, _T.id).limit(max(0, limit))
        async with self._sessions() as session:
            rows = (await session.execute(statement)).all()
        return [
            LogRecord(
                id=row_id,
                timestamp=timestamp,
                service=service,
                level=level,
                message=message,
                attributes=dict(attributes or {}),
            )
            for row_id, timestamp, service, level, message, attributes in rows
        ]

    async def counts(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
    ) -> list[LogCount]:
        """Counts per (service, level), sorted by service then level."""
        statement = _filtered(
            select(_T.service, _T.level, func.count()), org_id, start, end, services
        ).group_by(_T.service, _T.level)
        async with self._sessions() as session:
            rows = (await session.execute(statement)).all()
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
        count = func.count().label("n")
        first = func.min(_T.timestamp).label("first_seen")
        statement = (
            _filtered(
                select(_T.service, _T.level, _T.message, count, first, func.max(_T.timestamp)),
                org_id,
                start,
                end,
                services,
                levels,
            )
            .group_by(_T.service, _T.level, _T.message)
            .order_by(count.desc(), first, _T.service, _T.message)
            .limit(max(0, limit))
        )
        async with self._sessions() as session:
            rows = (await session.execute(statement)).all()
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
        async with self._sessions() as session:
            dialect = session.get_bind().dialect.name
            epoch = _epoch_seconds(dialect, _T.timestamp)
            bucket = (epoch - epoch % literal_column(str(int(bucket_seconds)))).label("bucket")
            statement = (
                _filtered(select(bucket, func.count()), org_id, start, end, services, levels)
                .group_by(bucket)
                .order_by(bucket)
            )
            rows = (await session.execute(statement)).all()
        return [(datetime.fromtimestamp(int(b), UTC), int(n)) for b, n in rows]

    async def services(self, org_id: int) -> list[str]:
        """Distinct service names of ``org_id``, sorted."""
        statement = select(_T.service).where(_T.org_id == org_id).distinct().order_by(_T.service)
        async with self._sessions() as session:
            return list((await session.execute(statement)).scalars().all())

    async def time_bounds(self, org_id: int) -> tuple[datetime, datetime] | None:
        """The oldest and newest timestamps of ``org_id``'s records, or None."""
        statement = select(func.min(_T.timestamp), func.max(_T.timestamp)).where(
            _T.org_id == org_id
        )
        async with self._sessions() as session:
            oldest, newest = (await session.execute(statement)).one()
        if oldest is None or newest is None:
            return None
        return _aware(oldest), _aware(newest)
