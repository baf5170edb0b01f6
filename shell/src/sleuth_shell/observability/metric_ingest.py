"""Validating and storing metric points sent to ``POST /api/v1/observability/metrics``.

``{series: [{name, service, labels?, points: [[timestamp, value], ...]}]}``. A request is all or
nothing, the first bad item reported as ``series[<i>].<field>: <problem>`` (the rules and wording
of ``POST /api/v1/observability/logs``). A series is identified by (organization, name, service,
labels): sending it again adds points to the same series, and a point sent again for a time the
series already has overwrites its value (as does a later duplicate within one request).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.language import parse_instant
from sleuth_shell.db import models
from sleuth_shell.db.dialect import execute_in_chunks, insert_ignore_rows, upsert_rows
from sleuth_shell.db.models import utcnow
from sleuth_shell.ingestion import IngestError, envelope_items, text_value

__all__ = [
    "MAX_LABELS",
    "MAX_LABELS_KEY_CHARS",
    "MAX_POINTS",
    "MAX_SERIES",
    "SeriesBatch",
    "ingest_metrics",
    "labels_key",
    "store_metrics",
    "validate_metrics",
]

MAX_SERIES = 1000
"""Series per request."""
MAX_POINTS = 50_000
"""Points per request, all series together (the 1 MiB body limit usually binds first)."""
MAX_LABELS = 32
"""Labels per series."""
MAX_LABELS_KEY_CHARS = 800
"""Longest canonical JSON of a series' labels (it is part of the series' unique key)."""
MAX_NAME_CHARS = 200
MAX_SERVICE_CHARS = 200
_FIELDS = frozenset({"name", "service", "labels", "points"})


def labels_key(labels: Mapping[str, str]) -> str:
    """The canonical form of a label set: compact JSON, sorted keys, ASCII only.

    >>> labels_key({"route": "/pay", "code": "5xx"})
    '{"code":"5xx","route":"/pay"}'
    """
    return json.dumps(dict(labels), sort_keys=True, separators=(",", ":"), ensure_ascii=True)


@dataclass
class SeriesBatch:
    """One validated series of a request and its points (time -> value, the last one wins)."""

    name: str
    service: str
    labels: dict[str, str]
    points: dict[datetime, float] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.name, self.service, labels_key(self.labels))


def _labels(value: Any, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise IngestError(f"{where}.labels: a JSON object of strings is required")
    if len(value) > MAX_LABELS:
        raise IngestError(f"{where}.labels: at most {MAX_LABELS} labels")
    labels: dict[str, str] = {}
    for key, item in value.items():
        if not key or "\x00" in key:
            raise IngestError(f"{where}.labels: label names must be non-empty, without NUL")
        if not isinstance(item, str) or "\x00" in item:
            raise IngestError(f"{where}.labels.{key}: a string (without NUL) is required")
        labels[key] = item
    if len(labels_key(labels)) > MAX_LABELS_KEY_CHARS:
        raise IngestError(
            f"{where}.labels: too large (at most {MAX_LABELS_KEY_CHARS} characters as JSON)"
        )
    return labels


def _value(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def validate_metrics(body: Any) -> list[SeriesBatch]:
    """The series to store, one per identity (points of a repeated series merged), or
    `IngestError` for the first problem."""
    series = envelope_items(body, "series", "metric series", MAX_SERIES)
    batches: dict[tuple[str, str, str], SeriesBatch] = {}
    total = 0
    for index, item in enumerate(series):
        where = f"series[{index}]"
        if not isinstance(item, Mapping):
            raise IngestError(f"{where}: a JSON object is required")
        extra = sorted(set(item) - _FIELDS)
        if extra:
            raise IngestError(f"{where}: unknown field {extra[0]}")
        batch = SeriesBatch(
            name=text_value(item.get("name"), f"{where}.name", MAX_NAME_CHARS),
            service=text_value(item.get("service"), f"{where}.service", MAX_SERVICE_CHARS),
            labels=_labels(item.get("labels"), where),
        )
        batch = batches.setdefault(batch.key, batch)
        points = item.get("points")
        if not isinstance(points, list):
            raise IngestError(f"{where}.points: a list of [timestamp, value] pairs is required")
        total += len(points)
        if total > MAX_POINTS:
            raise IngestError(f"series: at most {MAX_POINTS} points per request")
        for p_index, point in enumerate(points):
            at = f"{where}.points[{p_index}]"
            if not isinstance(point, list) or len(point) != 2:
                raise IngestError(f"{at}: a [timestamp, value] pair is required")
            timestamp = parse_instant(point[0])
            if timestamp is None:
                raise IngestError(
                    f"{at}.timestamp: an ISO 8601 date-time or Unix seconds is required"
                )
            value = _value(point[1])
            if value is None:
                raise IngestError(f"{at}.value: a finite number is required")
            batch.points[timestamp] = value
    return list(batches.values())


async def store_metrics(session: AsyncSession, org_id: int, batches: list[SeriesBatch]) -> int:
    """Store validated series for ``org_id`` in the session's transaction (no commit): new series
    are created, points upserted by ``(series, timestamp)``. Returns the number of points."""
    if not batches:
        return 0
    dialect = session.get_bind().dialect.name
    now = utcnow()
    series_rows = [
        {
            "org_id": org_id,
            "name": b.name,
            "service": b.service,
            "labels": b.labels,
            "labels_key": b.key[2],
            "created_at": now,
        }
        for b in batches
    ]
    await session.execute(
        insert_ignore_rows(
            dialect,
            models.MetricSeriesRow.__table__,
            conflict_columns=["org_id", "name", "service", "labels_key"],
        ),
        series_rows,
    )
    S = models.MetricSeriesRow
    ids: dict[tuple[str, str, str], int] = {}
    names = sorted({b.name for b in batches})
    for start in range(0, len(names), 500):
        rows = await session.execute(
            select(S.id, S.name, S.service, S.labels_key).where(
                S.org_id == org_id, S.name.in_(names[start : start + 500])
            )
        )
        for row_id, name, service, key in rows.all():
            ids[(name, service, key)] = row_id
    points = [
        {"series_id": ids[b.key], "timestamp": timestamp, "value": value}
        for b in batches
        for timestamp, value in b.points.items()
    ]
    statement = upsert_rows(
        dialect,
        models.MetricPoint.__table__,
        conflict_columns=["series_id", "timestamp"],
        update_columns=["value"],
    )
    await execute_in_chunks(session, statement, points, 5000)
    return len(points)


async def ingest_metrics(session: AsyncSession, org_id: int, batches: list[SeriesBatch]) -> int:
    """`store_metrics` in one transaction, committed; the number of points stored."""
    count = await store_metrics(session, org_id, batches)
    await session.commit()
    return count
