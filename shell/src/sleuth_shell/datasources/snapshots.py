"""Evidence snapshots: every query result a run read from a data source, kept with its digest.

A snapshot's content is ``{"query", "start", "end", "step", "points"}``: the PromQL, the range as
ISO 8601 UTC text (``2026-11-22T09:41:07Z``), the step in seconds and the series exactly as the
source answered (``[{"metric": {...}, "values": [[unix seconds, "value"], ...]}, ...]``). Its
``sha256`` is the SHA-256 of that object's canonical JSON (:func:`canonical`: keys sorted, no
spaces, UTF-8), so anyone holding ``GET /api/v1/evidence/{artifact_id}``'s answer can recompute it.

>>> doc = content("up", "2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z", 60.0, [])
>>> canonical(doc)
b'{"end":"2026-01-01T01:00:00Z","points":[],"query":"up","start":"2026-01-01T00:00:00Z","step":60.0}'
>>> digest(doc) == hashlib.sha256(canonical(doc)).hexdigest()
True
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.language import format_ts
from sleuth_shell.db.models import EvidenceSnapshot

__all__ = ["NewSnapshot", "canonical", "content", "digest", "get", "new_artifact_id", "save"]


def content(query: str, start: str, end: str, step: float, points: Sequence[Any]) -> dict[str, Any]:
    """The part of a snapshot its digest covers."""
    return {"query": query, "start": start, "end": end, "step": float(step), "points": points}


def canonical(document: dict[str, Any]) -> bytes:
    """Canonical JSON: keys sorted, no insignificant spaces, UTF-8."""
    return json.dumps(
        document, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


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


def save(session: AsyncSession, snapshots: Sequence[NewSnapshot]) -> None:
    """Add the snapshots to ``session`` (the caller commits)."""
    for snap in snapshots:
        start, end = format_ts(snap.start), format_ts(snap.end)
        doc = content(snap.query, start, end, snap.step, snap.points)
        session.add(
            EvidenceSnapshot(
                id=snap.artifact_id,
                org_id=snap.org_id,
                data_source_id=snap.source_id,
                data_source_name=snap.source_name,
                data_source_url=snap.source_url,
                query=snap.query,
                start=snap.start,
                end=snap.end,
                step=snap.step,
                points=snap.points,
                sha256=digest(doc),
                fetched_at=snap.fetched_at,
            )
        )


async def get(session: AsyncSession, org_id: int, artifact_id: str) -> EvidenceSnapshot | None:
    """The organization's snapshot ``artifact_id``, or None."""
    if len(artifact_id) != 32 or not all(c in "0123456789abcdef" for c in artifact_id):
        return None
    row = await session.get(EvidenceSnapshot, artifact_id)
    return row if row is not None and row.org_id == org_id else None
