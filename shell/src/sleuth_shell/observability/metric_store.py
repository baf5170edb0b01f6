"""`SqlMetricStore`: the `~sleuth_shell.agents.base.MetricStore` over ``metric_series`` and
``metric_points``.

A query picks the organization's series (by service and name) that have a point in ``[start,
end)``, sorted by service, name and labels (their canonical JSON), then reads their points in that
range through the ``(series_id, timestamp)`` primary key, oldest first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import DateTime, String, exists, select, type_coerce
from sqlalchemy.dialects import sqlite
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.agents.base import MetricSeries
from sleuth_shell.db import models

__all__ = ["SqlMetricStore"]

_S = models.MetricSeriesRow
_P = models.MetricPoint


def _aware(value: datetime) -> datetime:
    if value.tzinfo is UTC:  # what the UTCDateTime columns return: nothing to convert
        return value
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


_SQLITE_DATETIME = (
    DateTime().dialect_impl(sqlite.dialect()).result_processor(sqlite.dialect(), None)
)
"""SQLAlchemy's own parser of SQLite's stored datetime text (what the column type would run)."""


def _sqlite_timestamps() -> Callable[[Any], datetime]:
    """A parser of stored SQLite timestamps that parses each distinct text once: the series of
    one query share their timestamps (one per scrape), so thousands of points have a few hundred
    distinct ones. Same values as the ``UTCDateTime`` column type returns."""
    parsed: dict[str, datetime] = {}
    assert _SQLITE_DATETIME is not None

    def parse(raw: Any) -> datetime:
        found = parsed.get(raw)
        if found is None:
            value = cast(datetime, _SQLITE_DATETIME(raw))
            found = parsed[raw] = value.replace(tzinfo=UTC)
        return found

    return parse


class SqlMetricStore:
    """`sleuth_shell.agents.base.MetricStore` over the shell's database, plus `services` and
    `names` for the pages' filters."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def query(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        names: Sequence[str] | None = None,
        limit: int = 100,
        *,
        max_points: int | None = None,
    ) -> list[MetricSeries]:
        """At most ``limit`` series with their points in ``[start, end)``, oldest first; with
        ``max_points``, only each series' latest ``max_points`` points."""
        start, end = _aware(start), _aware(end)
        in_range = exists().where(_P.series_id == _S.id, _P.timestamp >= start, _P.timestamp < end)
        statement = select(_S).where(_S.org_id == org_id, in_range)
        # PostgreSQL refuses NUL in text parameters; no stored name contains one.
        if services:
            statement = statement.where(_S.service.in_([s for s in services if "\x00" not in s]))
        if names:
            statement = statement.where(_S.name.in_([n for n in names if "\x00" not in n]))
        statement = statement.order_by(_S.service, _S.name, _S.labels_key, _S.id).limit(
            max(0, limit)
        )
        async with self._sessions() as session:
            series = (await session.scalars(statement)).all()
            points: dict[int, list[tuple[datetime, float]]] = {row.id: [] for row in series}
            ids = list(points)
            on_sqlite = session.get_bind().dialect.name == "sqlite"
            # On SQLite the stored text, parsed once per distinct instant (see _sqlite_timestamps).
            stamp = type_coerce(_P.timestamp, String) if on_sqlite else _P.timestamp
            convert: Callable[[Any], datetime] = _sqlite_timestamps() if on_sqlite else _aware
            for chunk in range(0, len(ids), 500):
                rows = await session.execute(
                    select(_P.series_id, stamp, _P.value)
                    .where(
                        _P.series_id.in_(ids[chunk : chunk + 500]),
                        _P.timestamp >= start,
                        _P.timestamp < end,
                    )
                    .order_by(_P.series_id, _P.timestamp)
                )
                for series_id, timestamp, value in rows.all():
                    points[series_id].append((convert(timestamp), float(value)))
        result = []
        for row in series:
            kept = points[row.id]
            if max_points is not None and len(kept) > max_points:
                kept = kept[len(kept) - max(0, max_points) :]
            result.append(
                MetricSeries(
                    id=row.id,
                    name=row.name,
                    service=row.service,
                    labels={str(k): str(v) for k, v in (row.labels or {}).items()},
                    points=tuple(kept),
                )
            )
        return result

    async def services(self, org_id: int) -> list[str]:
        """Every service with a metric series, sorted."""
        statement = select(_S.service).where(_S.org_id == org_id).distinct().order_by(_S.service)
        async with self._sessions() as session:
            return list((await session.scalars(statement)).all())

    async def names(self, org_id: int) -> list[str]:
        """Every metric name of the organization, sorted."""
        statement = select(_S.name).where(_S.org_id == org_id).distinct().order_by(_S.name)
        async with self._sessions() as session:
            return list((await session.scalars(statement)).all())
