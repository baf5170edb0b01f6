"""`SqlChangeStore`: the `~sleuth_shell.agents.base.ChangeStore` over the ``changes`` table.

Every read is scoped to one organization. Time ranges are half-open ``[start, end)`` and use the
``(org_id, timestamp)`` or ``(org_id, service, timestamp)`` index; a change id lookup uses the
unique ``(org_id, change_id)`` index. The ``text`` filter is a case-insensitive substring of the
summary, the diff or a file path.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, TypeVarTuple, cast

from sqlalchemy import Integer, Select, Text, bindparam, func, or_, select
from sqlalchemy import cast as sql_cast
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.agents.base import ChangeKind, ChangeRecord
from sleuth_shell.db import models
from sleuth_shell.db.hot_reads import HotStatements

__all__ = ["MAX_LOOKUP_IDS", "SqlChangeStore", "change_record"]

_Ts = TypeVarTuple("_Ts")
_C = models.ChangeRow
#: Most change ids one `SqlChangeStore.get_many` call resolves (the rest are ignored).
MAX_LOOKUP_IDS = 1000


def _aware(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def change_record(row: models.ChangeRow) -> ChangeRecord:
    """The protocol's value of a stored row."""
    return _record(
        row.id,
        row.change_id,
        row.timestamp,
        row.service,
        row.kind,
        row.summary,
        row.author,
        row.url,
        row.files,
        row.diff,
        row.ships,
        row.attributes,
    )


def _record(
    row_id: int,
    change_id: str,
    timestamp: datetime,
    service: str,
    kind: str,
    summary: str,
    author: str | None,
    url: str | None,
    files: list[Any] | None,
    diff: str | None,
    ships: list[Any] | None,
    attributes: dict[str, Any] | None,
) -> ChangeRecord:
    return ChangeRecord(
        id=row_id,
        change_id=change_id,
        timestamp=_aware(timestamp),
        service=service,
        kind=cast(ChangeKind, kind),
        summary=summary,
        author=author,
        url=url,
        files=tuple(str(f) for f in files or ()),
        diff=diff or "",
        ships=tuple(str(s) for s in ships or ()),
        attributes=dict(attributes or {}),
    )


def _window_statement() -> Select[Any]:
    """`SqlChangeStore.query` without filters: the columns `_record` takes, in its order."""
    return (
        select(
            _C.id,
            _C.change_id,
            _C.timestamp,
            _C.service,
            _C.kind,
            _C.summary,
            _C.author,
            _C.url,
            _C.files,
            _C.diff,
            _C.ships,
            _C.attributes,
        )
        .where(
            _C.org_id == bindparam("org_id"),
            _C.timestamp >= bindparam("start", type_=_C.timestamp.type),
            _C.timestamp < bindparam("end", type_=_C.timestamp.type),
        )
        .order_by(_C.timestamp, _C.id)
        .limit(bindparam("limit", type_=Integer))
    )


def _filtered(
    statement: Select[*_Ts],
    org_id: int,
    start: datetime | None,
    end: datetime | None,
    services: Sequence[str] | None,
    kinds: Sequence[str] | None,
    text: str | None,
) -> Select[*_Ts]:
    statement = statement.where(_C.org_id == org_id)
    # PostgreSQL refuses NUL in text parameters; no stored value contains one.
    services = [s for s in services or () if "\x00" not in s] if services else services
    kinds = [k for k in kinds or () if "\x00" not in k] if kinds else kinds
    text = text.replace("\x00", "") if text else text
    if start is not None:
        statement = statement.where(_C.timestamp >= _aware(start))
    if end is not None:
        statement = statement.where(_C.timestamp < _aware(end))
    if services:
        statement = statement.where(_C.service.in_(list(services)))
    if kinds:
        statement = statement.where(_C.kind.in_([kind.lower() for kind in kinds]))
    if text:
        needle = text.lower()
        # Paths are stored as a JSON list: look for the needle as JSON string content.
        in_json = json.dumps(needle)[1:-1]
        statement = statement.where(
            or_(
                func.lower(_C.summary).contains(needle, autoescape=True),
                func.lower(_C.diff).contains(needle, autoescape=True),
                func.lower(sql_cast(_C.files, Text)).contains(in_json, autoescape=True),
            )
        )
    return statement


class SqlChangeStore:
    """`sleuth_shell.agents.base.ChangeStore` over the shell's database, plus the reads the API
    and the pages need (`search`, `get`, `shipped_by`, `services`)."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._hot = HotStatements(sessions)

    async def query(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
        text: str | None = None,
        limit: int = 200,
    ) -> list[ChangeRecord]:
        """Records in ``[start, end)``, oldest first (ties by id), at most ``limit``."""
        if not services and not kinds and not text:  # the root-cause evidence's read
            params = {"org_id": org_id, "start": _aware(start), "end": _aware(end)}
            rows = await self._hot.rows(
                "window", _window_statement, {**params, "limit": max(0, limit)}
            )
            return [_record(*row) for row in rows]
        return await self.search(
            org_id,
            start=start,
            end=end,
            services=services,
            kinds=kinds,
            text=text,
            limit=limit,
            newest_first=False,
        )

    async def search(
        self,
        org_id: int,
        *,
        start: datetime | None = None,
        end: datetime | None = None,
        services: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
        text: str | None = None,
        limit: int = 100,
        offset: int = 0,
        newest_first: bool = True,
    ) -> list[ChangeRecord]:
        """Like `query` with optional bounds, newest first by default, from ``offset``."""
        statement = _filtered(select(_C), org_id, start, end, services, kinds, text)
        if newest_first:
            statement = statement.order_by(_C.timestamp.desc(), _C.id.desc())
        else:
            statement = statement.order_by(_C.timestamp, _C.id)
        statement = statement.offset(max(0, offset)).limit(max(0, limit))
        async with self._sessions() as session:
            rows = (await session.scalars(statement)).all()
        return [change_record(row) for row in rows]

    async def get_many(self, org_id: int, change_ids: Sequence[str]) -> list[ChangeRecord]:
        """The records with these change ids (any time), oldest first; unknown ids left out."""
        wanted = sorted({c for c in change_ids if isinstance(c, str) and "\x00" not in c})
        wanted = wanted[:MAX_LOOKUP_IDS]
        if not wanted:
            return []
        statement = (
            select(_C)
            .where(_C.org_id == org_id, _C.change_id.in_(wanted))
            .order_by(_C.timestamp, _C.id)
        )
        async with self._sessions() as session:
            rows = (await session.scalars(statement)).all()
        return [change_record(row) for row in rows]

    async def get(self, org_id: int, row_id: int) -> ChangeRecord | None:
        """The record stored with row ``row_id`` in this organization, or None."""
        async with self._sessions() as session:
            row = await session.scalar(select(_C).where(_C.org_id == org_id, _C.id == row_id))
        return change_record(row) if row is not None else None

    async def shipped_by(self, org_id: int, change_id: str) -> list[ChangeRecord]:
        """The deploys whose ``ships`` list ``change_id``, oldest first."""
        if "\x00" in change_id:
            return []
        quoted = json.dumps(change_id)  # how the id appears in the stored JSON list
        statement = (
            select(_C)
            .where(
                _C.org_id == org_id,
                _C.kind == "deploy",
                sql_cast(_C.ships, Text).contains(quoted, autoescape=True),
            )
            .order_by(_C.timestamp, _C.id)
        )
        async with self._sessions() as session:
            rows = (await session.scalars(statement)).all()
        return [change_record(row) for row in rows if change_id in (row.ships or ())]

    async def services(self, org_id: int) -> list[str]:
        """Every service with a change record, sorted."""
        statement = select(_C.service).where(_C.org_id == org_id).distinct().order_by(_C.service)
        async with self._sessions() as session:
            return list((await session.scalars(statement)).all())

    async def count(
        self,
        org_id: int,
        *,
        start: datetime | None = None,
        end: datetime | None = None,
        services: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
        text: str | None = None,
    ) -> int:
        """How many records match the `search` filters (no limit)."""
        statement = _filtered(
            select(func.count()).select_from(_C), org_id, start, end, services, kinds, text
        )
        async with self._sessions() as session:
            return int(await session.scalar(statement) or 0)
