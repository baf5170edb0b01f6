"""The trace store: spans sent over OTLP (``spans`` table) and the reads of traces.

`store_spans` upserts rows made by `sleuth_shell.observability.otlp.span_rows` (a span sent again
replaces the stored one); `SqlTraceStore` implements `sleuth_shell.agents.base.TraceStore`: the
spans of a time range (by service, status, duration), one trace's spans, and trace summaries
(root service and name, start, duration, error, span count) for the API and the pages.

Every read is scoped to one organization; time ranges are half-open ``[start, end)`` on span
start times.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, literal_column, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.agents.base import Span, SpanDurations, TraceSummary
from sleuth_shell.db import models
from sleuth_shell.db.dialect import execute_in_chunks, upsert_rows
from sleuth_shell.observability.store import epoch_seconds

__all__ = ["MAX_TRACE_SPANS", "SqlTraceStore", "ingest_spans", "store_spans", "summarize"]

_S = models.SpanRow
#: Spans one trace read returns at most (the earliest).
MAX_TRACE_SPANS = 10_000
_UPDATE = [
    "parent_span_id",
    "service",
    "name",
    "kind",
    "start",
    "duration_ms",
    "status",
    "status_message",
    "attributes",
    "resource",
    "events",
]


async def store_spans(session: AsyncSession, org_id: int, rows: list[dict[str, Any]]) -> int:
    """Upsert span rows for ``org_id`` in the session's transaction (no commit); the count."""
    if not rows:
        return 0
    statement = upsert_rows(
        session.get_bind().dialect.name,
        _S.__table__,
        conflict_columns=["org_id", "trace_id", "span_id"],
        update_columns=_UPDATE,
    )
    values = [{**row, "org_id": org_id} for row in rows]
    await execute_in_chunks(session, statement, values, 2000)
    return len(rows)


async def ingest_spans(session: AsyncSession, org_id: int, rows: list[dict[str, Any]]) -> int:
    """`store_spans` in one transaction, committed; the number of spans stored."""
    count = await store_spans(session, org_id, rows)
    await session.commit()
    return count


def _span(row: Any) -> Span:
    return Span(
        trace_id=row.trace_id,
        span_id=row.span_id,
        parent_span_id=row.parent_span_id,
        service=row.service,
        name=row.name,
        kind=row.kind,
        start=row.start,
        duration_ms=float(row.duration_ms),
        status=row.status,
        status_message=row.status_message or "",
        attributes=dict(row.attributes or {}),
        events=list(row.events or []),
    )


def summarize(trace_id: str, spans: Sequence[Span]) -> TraceSummary:
    """A trace's summary from its spans: the root is the earliest span without a parent in the
    trace (the earliest span when every parent is missing); the duration runs from the earliest
    start to the latest end."""
    ids = {s.span_id for s in spans}
    ordered = sorted(spans, key=lambda s: (s.start, s.span_id))
    roots = [s for s in ordered if s.parent_span_id is None or s.parent_span_id not in ids]
    root = (roots or ordered)[0]
    first = ordered[0].start
    last = max(s.start + timedelta(milliseconds=s.duration_ms) for s in spans)
    return TraceSummary(
        trace_id=trace_id,
        root_service=root.service,
        root_name=root.name,
        start=first,
        duration_ms=(last - first) / timedelta(milliseconds=1),
        error=any(s.status == "error" for s in spans),
        span_count=len(spans),
    )


class SqlTraceStore:
    """`sleuth_shell.agents.base.TraceStore` over the shell's database."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def spans(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        *,
        errors_only: bool = False,
        min_duration_ms: float | None = None,
        limit: int = 200,
    ) -> list[Span]:
        """Spans starting in ``[start, end)``, of ``services``, with status ``error`` when
        ``errors_only``, lasting at least ``min_duration_ms``: the longest first, at most
        ``limit``."""
        statement = select(_S).where(_S.org_id == org_id, _S.start >= start, _S.start < end)
        if services:
            statement = statement.where(_S.service.in_([s for s in services if "\x00" not in s]))
        if errors_only:
            statement = statement.where(_S.status == "error")
        if min_duration_ms is not None:
            statement = statement.where(_S.duration_ms >= min_duration_ms)
        statement = statement.order_by(_S.duration_ms.desc(), _S.id).limit(max(0, limit))
        async with self._sessions() as session:
            return [_span(row) for row in (await session.scalars(statement)).all()]

    async def trace(self, org_id: int, trace_id: str) -> list[Span]:
        """The spans of one trace (ids in lower-case hex), earliest first; [] when unknown."""
        wanted = trace_id.strip().lower()
        if len(wanted) != 32 or any(c not in "0123456789abcdef" for c in wanted):
            return []
        statement = (
            select(_S)
            .where(_S.org_id == org_id, _S.trace_id == wanted)
            .order_by(_S.start, _S.id)
            .limit(MAX_TRACE_SPANS)
        )
        async with self._sessions() as session:
            return [_span(row) for row in (await session.scalars(statement)).all()]

    async def durations(
        self, org_id: int, start: datetime, end: datetime, bucket_seconds: int
    ) -> list[SpanDurations]:
        """Per service and bucket of the spans starting in ``[start, end)``: how many, and the
        longest's duration (see `sleuth_shell.agents.base.TraceStore.durations`)."""
        if bucket_seconds <= 0:
            raise ValueError("bucket_seconds must be positive")
        async with self._sessions() as session:
            epoch = epoch_seconds(session.get_bind().dialect.name, _S.start)
            bucket = (epoch - epoch % literal_column(str(int(bucket_seconds)))).label("bucket")
            statement = (
                select(_S.service, bucket, func.count(), func.max(_S.duration_ms))
                .where(_S.org_id == org_id, _S.start >= start, _S.start < end)
                .group_by(_S.service, bucket)
                .order_by(_S.service, bucket)
            )
            rows = (await session.execute(statement)).all()
        return [
            SpanDurations(service, datetime.fromtimestamp(int(at), UTC), int(n), float(longest))
            for service, at, n, longest in rows
        ]

    async def traces(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        service: str | None = None,
        *,
        errors_only: bool = False,
        min_duration_ms: float | None = None,
        limit: int = 50,
    ) -> list[TraceSummary]:
        """Summaries of the traces with a span starting in ``[start, end)`` - one of ``service``
        when given, with an error span when ``errors_only``, whose longest span lasts at least
        ``min_duration_ms`` - the most recent first, at most ``limit``."""
        in_range = (_S.org_id == org_id, _S.start >= start, _S.start < end)
        first = func.min(_S.start).label("first")
        statement = select(_S.trace_id, first).where(*in_range).group_by(_S.trace_id)
        if service is not None:
            if "\x00" in service:
                return []
            of_service = select(_S.trace_id).where(*in_range, _S.service == service)
            statement = statement.where(_S.trace_id.in_(of_service))
        if errors_only:
            errors = select(_S.trace_id).where(*in_range, _S.status == "error")
            statement = statement.where(_S.trace_id.in_(errors))
        if min_duration_ms is not None:
            statement = statement.having(func.max(_S.duration_ms) >= min_duration_ms)
        statement = statement.order_by(first.desc(), _S.trace_id).limit(max(0, limit))
        async with self._sessions() as session:
            ids = [trace_id for trace_id, _ in (await session.execute(statement)).all()]
            if not ids:
                return []
            rows = await session.scalars(
                select(_S).where(_S.org_id == org_id, _S.trace_id.in_(ids)).order_by(_S.start)
            )
            by_trace: dict[str, list[Span]] = {trace_id: [] for trace_id in ids}
            for row in rows.all():
                by_trace[row.trace_id].append(_span(row))
        return [summarize(trace_id, spans) for trace_id, spans in by_trace.items() if spans]
