"""Evidence snapshots: every query result a run read from a data source, kept with its digest.

A snapshot's content is ``{"query", "start", "end", "step", "points"}``: the PromQL, the range as
ISO 8601 UTC text (``2026-11-22T09:41:07Z``), the step in seconds and the series exactly as the
source answered (``[{"metric": {...}, "values": [[unix seconds, "value"], ...]}, ...]``). Its
``sha256`` is the SHA-256 of that object's canonical JSON (:func:`canonical`: keys sorted, no
spaces, UTF-8), so anyone holding ``GET /api/v1/evidence/{artifact_id}``'s answer can recompute it.
It is encoded by ``msgspec`` (several times faster than ``json`` on a range query's samples), and
is byte for byte what ``json.dumps(document, sort_keys=True, separators=(",", ":"),
ensure_ascii=False)`` gives: the documents hold strings, whole numbers and floats in plain
decimal form (the step, and sample times from a millisecond to the year 9999, which
`~sleuth_shell.datasources.prometheus` checks on decoding), where the two encoders agree.

>>> doc = content("up", "2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z", 60.0, [])
>>> canonical(doc)
b'{"end":"2026-01-01T01:00:00Z","points":[],"query":"up","start":"2026-01-01T00:00:00Z","step":60.0}'
>>> digest(doc) == hashlib.sha256(canonical(doc)).hexdigest()
True
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy import bindparam, insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_core.language import format_ts
from sleuth_shell.db.direct_writes import direct_writer
from sleuth_shell.db.models import EvidenceSnapshot

__all__ = ["NewSnapshot", "canonical", "content", "digest", "get", "new_artifact_id", "save"]


def content(query: str, start: str, end: str, step: float, points: Sequence[Any]) -> dict[str, Any]:
    """The part of a snapshot its digest covers."""
    return {"query": query, "start": start, "end": end, "step": float(step), "points": points}


def canonical(document: dict[str, Any]) -> bytes:
    """Canonical JSON: keys sorted, no insignificant spaces, UTF-8.

    >>> import json
    >>> doc = {"b": [1764201240.781, "1e-05"], "a": {"z": "é", "y": 300.0}}
    >>> canonical(doc) == json.dumps(doc, sort_keys=True, separators=(",", ":"),
    ...                              ensure_ascii=False).encode("utf-8")
    True
    """
    return msgspec.json.encode(document, order="sorted")


def digest(document: dict[str, Any]) -> str:
    """The SHA-256 (hex) of :func:`canonical` ``document``."""
    return hashlib.sha256(canonical(document)).hexdigest()


def new_artifact_id() -> str:
    """A fresh artifact id (a random UUID, 32 hex digits)."""
    return uuid.uuid4().hex


@dataclass(frozen=True)
class NewSnapshot:
    """A query result to keep."""

    artifact_id: str
    org_id: int
    source_id: int
    source_name: str
    source_url: str
    query: str
    start: datetime
    end: datetime
    step: float
    points: list[Any]
    fetched_at: datetime


_COLUMNS = (
    "id", "org_id", "data_source_id", "data_source_name", "data_source_url", "query", "start",
    "end", "step", "points", "sha256", "fetched_at",
)  # fmt: skip
_INSERT = insert(EvidenceSnapshot).values({name: bindparam(name) for name in _COLUMNS})


async def save(sessions: async_sessionmaker[AsyncSession], kept: Sequence[NewSnapshot]) -> None:
    """Write ``kept`` in one transaction, committed. On SQLite, one ``executemany`` of the
    prebuilt insert on the driver connection (:mod:`sleuth_shell.db.direct_writes`: no session
    and per-row ORM work on an investigation's path); elsewhere through a session."""
    if not kept:
        return
    rows = []
    for snap in kept:
        start, end = format_ts(snap.start), format_ts(snap.end)
        doc = content(snap.query, start, end, snap.step, snap.points)
        rows.append(
            {
                "id": snap.artifact_id,
                "org_id": snap.org_id,
                "data_source_id": snap.source_id,
                "data_source_name": snap.source_name,
                "data_source_url": snap.source_url,
                "query": snap.query,
                "start": snap.start,
                "end": snap.end,
                "step": snap.step,
                "points": snap.points,
                "sha256": digest(doc),
                "fetched_at": snap.fetched_at,
            }
        )
    writer = direct_writer(sessions)
    if writer is None:
        async with sessions() as session:
            await session.execute(_INSERT, rows)
            await session.commit()
        return
    async with writer.transaction() as transaction:
        await transaction.execute_many(_INSERT, rows)
        await transaction.commit()


async def get(session: AsyncSession, org_id: int, artifact_id: str) -> EvidenceSnapshot | None:
    """The organization's snapshot ``artifact_id``, or None."""
    if len(artifact_id) != 32 or not all(c in "0123456789abcdef" for c in artifact_id):
        return None
    row = await session.get(EvidenceSnapshot, artifact_id)
    return row if row is not None and row.org_id == org_id else None
