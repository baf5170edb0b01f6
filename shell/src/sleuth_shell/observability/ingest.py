"""Validating and storing log records sent to ``POST /api/v1/observability/logs``.

A request is all or nothing: every record is validated before any is written, and the first bad
one is reported as ``records[<index>].<field>: <problem>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, insert
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.language import parse_timestamp
from sleuth_shell.agents.base import LOG_LEVELS
from sleuth_shell.db import models
from sleuth_shell.db.direct_writes import engine_direct_writer
from sleuth_shell.ingestion import IngestError, envelope_items

__all__ = ["LEVEL_ALIASES", "MAX_RECORDS", "IngestError", "ingest", "validate_records"]

MAX_RECORDS = 10_000
"""Records per request (the 1 MiB body limit usually binds first)."""
MAX_SERVICE_CHARS = 200
LEVEL_ALIASES = {"WARN": "WARNING", "FATAL": "CRITICAL", "ERR": "ERROR", "TRACE": "DEBUG"}
_FIELDS = frozenset({"timestamp", "service", "level", "message", "attributes"})
_EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
_LATEST = datetime(9999, 1, 1, tzinfo=UTC)


def _timestamp(value: Any, where: str) -> datetime:
    parsed: datetime | None = None
    if isinstance(value, str):
        parsed = parse_timestamp(value)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        try:
            parsed = datetime.fromtimestamp(float(value), UTC)
        except (OverflowError, OSError, ValueError):
            parsed = None
    if parsed is None or not _EARLIEST <= parsed < _LATEST:
        raise IngestError(f"{where}.timestamp: an ISO 8601 date-time or Unix seconds is required")
    return parsed


def validate_records(body: Any) -> list[dict[str, Any]]:
    """The rows to insert (without ``org_id``), or `IngestError` for the first problem."""
    records = envelope_items(body, "records", "log records", MAX_RECORDS)
    rows = []
    for index, record in enumerate(records):
        where = f"records[{index}]"
        if not isinstance(record, Mapping):
            raise IngestError(f"{where}: a JSON object is required")
        extra = sorted(set(record) - _FIELDS)
        if extra:
            raise IngestError(f"{where}: unknown field {extra[0]}")
        timestamp = _timestamp(record.get("timestamp"), where)
        service = record.get("service")
        if not isinstance(service, str) or not service.strip():
            raise IngestError(f"{where}.service: a non-empty string is required")
        if len(service.strip()) > MAX_SERVICE_CHARS:
            raise IngestError(f"{where}.service: at most {MAX_SERVICE_CHARS} characters")
        level = record.get("level")
        canonical = level.strip().upper() if isinstance(level, str) else ""
        canonical = LEVEL_ALIASES.get(canonical, canonical)
        if canonical not in LOG_LEVELS:
            raise IngestError(f"{where}.level: one of {', '.join(LOG_LEVELS)} is required")
        message = record.get("message")
        if not isinstance(message, str):
            raise IngestError(f"{where}.message: a string is required")
        attributes = record.get("attributes")
        if attributes is None:
            attributes = {}
        if not isinstance(attributes, Mapping):
            raise IngestError(f"{where}.attributes: a JSON object is required")
        rows.append(
            {
                "timestamp": timestamp,
                "service": service.strip(),
                "level": canonical,
                "message": message,
                "attributes": dict(attributes),
            }
        )
    return rows


_COLUMNS = (
    "org_id",
    "timestamp",
    "service",
    "level",
    "message",
    "attributes",
    "trace_id",
    "span_id",
)
#: The insert of one log record, every column a named parameter (the direct path's statement).
_INSERT = insert(models.LogRecord).values({name: bindparam(name) for name in _COLUMNS})


async def ingest(session: AsyncSession, org_id: int, rows: list[dict[str, Any]]) -> int:
    """Insert validated rows for ``org_id`` in one transaction and commit; the count.

    Rows without ``trace_id``/``span_id`` store None. On SQLite the rows go in as one
    ``executemany`` of the prebuilt insert on the driver connection
    (:mod:`sleuth_shell.db.direct_writes`: the same statement and bind processors, without the
    session's per-row machinery, which cost more than SQLite's own work for an OTLP batch);
    elsewhere through the session.
    """
    if not rows:
        await session.commit()
        return 0
    values = [{"trace_id": None, "span_id": None, **row, "org_id": org_id} for row in rows]
    writer = engine_direct_writer(session.bind)
    if writer is None:
        await session.execute(models.LogRecord.__table__.insert(), values)
        await session.commit()
        return len(rows)
    async with writer.transaction() as transaction:
        await transaction.execute_many(_INSERT, values)
        await transaction.commit()
    return len(rows)
