"""Validating and storing change records sent to ``POST /api/v1/changes``.

A request is all or nothing: every record is validated before any is written, and the first bad
one is reported as ``records[<index>].<field>: <problem>`` (the same rules and wording as
``POST /api/v1/observability/logs``). A record is keyed by ``(org, id)``: sending an id again
replaces the stored record's content (an upsert; the row keeps its ``id``, so page links and cited
sources stay valid), and within one request the last record with an id wins. A ``diff`` longer
than :data:`MAX_DIFF_BYTES` (UTF-8) is cut at a line boundary and ends in a visible
``[diff truncated by Sleuth: ...]`` marker; every other bound is a 400.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.language import parse_instant
from sleuth_shell.agents.base import CHANGE_KINDS
from sleuth_shell.db import models
from sleuth_shell.db.dialect import execute_in_chunks, upsert_rows
from sleuth_shell.db.models import utcnow
from sleuth_shell.ingestion import IngestError, envelope_items, text_value

__all__ = [
    "MAX_DIFF_BYTES",
    "MAX_FILES",
    "MAX_RECORDS",
    "MAX_SHIPS",
    "MAX_SUMMARY_CHARS",
    "IngestError",
    "store_changes",
    "truncate_diff",
    "upsert_changes",
    "validate_records",
]

MAX_RECORDS = 1000
"""Records per request (the 1 MiB body limit usually binds first)."""
MAX_DIFF_BYTES = 64 * 1024
"""Largest stored diff (UTF-8 bytes, marker excluded); a longer one is truncated."""
MAX_FILES = 1000
"""Paths per record."""
MAX_SHIPS = 1000
"""Commit ids a deploy may carry."""
MAX_SUMMARY_CHARS = 10_000
MAX_ID_CHARS = 255
MAX_SERVICE_CHARS = 200
MAX_AUTHOR_CHARS = 200
MAX_PATH_CHARS = 1000
MAX_URL_CHARS = 2000
_UPDATED = (
    "timestamp",
    "service",
    "kind",
    "summary",
    "author",
    "url",
    "files",
    "diff",
    "ships",
    "attributes",
)
"""The columns a record sent again overwrites: every member but its ``id``."""
_FIELDS = frozenset({"id", *_UPDATED})


def truncate_diff(diff: str, limit: int = MAX_DIFF_BYTES) -> str:
    """``diff`` if it fits in ``limit`` UTF-8 bytes, else its whole lines that fit and a marker.

    >>> truncate_diff("a\\nb\\nc\\n", 4)
    'a\\nb\\n[diff truncated by Sleuth: 4 of 6 bytes kept]\\n'
    """
    raw = diff.encode("utf-8")
    if len(raw) <= limit:
        return diff
    kept = raw[:limit].decode("utf-8", errors="ignore")
    cut = kept.rfind("\n")
    if cut >= 0:
        kept = kept[: cut + 1]
    size = len(kept.encode("utf-8"))
    if not kept.endswith("\n"):
        kept += "\n"
    return f"{kept}[diff truncated by Sleuth: {size} of {len(raw)} bytes kept]\n"


def _strings(record: Mapping[str, Any], name: str, where: str, count: int, size: int) -> list[str]:
    value = record.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise IngestError(f"{where}.{name}: a list of strings is required")
    if len(value) > count:
        raise IngestError(f"{where}.{name}: at most {count} items")
    return [text_value(item, f"{where}.{name}[{index}]", size) for index, item in enumerate(value)]


def _record(record: Any, where: str) -> dict[str, Any]:
    if not isinstance(record, Mapping):
        raise IngestError(f"{where}: a JSON object is required")
    extra = sorted(set(record) - _FIELDS)
    if extra:
        raise IngestError(f"{where}: unknown field {extra[0]}")
    timestamp = parse_instant(record.get("timestamp"))
    if timestamp is None:
        raise IngestError(f"{where}.timestamp: an ISO 8601 date-time or Unix seconds is required")
    service = text_value(record.get("service"), f"{where}.service", MAX_SERVICE_CHARS)
    kind = record.get("kind")
    kind = kind.strip().lower() if isinstance(kind, str) else ""
    if kind not in CHANGE_KINDS:
        raise IngestError(f"{where}.kind: one of {', '.join(CHANGE_KINDS)} is required")
    change_id = text_value(record.get("id"), f"{where}.id", MAX_ID_CHARS)
    summary = text_value(record.get("summary"), f"{where}.summary", MAX_SUMMARY_CHARS)
    author = text_value(record.get("author"), f"{where}.author", MAX_AUTHOR_CHARS, required=False)
    author = author or None
    url = record.get("url")
    if url is not None:
        parts = urlsplit(url) if isinstance(url, str) else None
        if (
            parts is None
            or parts.scheme not in ("http", "https")
            or not parts.netloc
            or len(url) > MAX_URL_CHARS
            or any(ch in url for ch in "\x00\r\n")
        ):
            raise IngestError(
                f"{where}.url: an absolute http(s) URL of at most {MAX_URL_CHARS} characters"
                " is required"
            )
    files = _strings(record, "files", where, MAX_FILES, MAX_PATH_CHARS)
    diff = record.get("diff")
    if diff is None:
        diff = ""
    if not isinstance(diff, str):
        raise IngestError(f"{where}.diff: a string or null is required")
    if "\x00" in diff:
        raise IngestError(f"{where}.diff: NUL characters are not allowed")
    ships = _strings(record, "ships", where, MAX_SHIPS, MAX_ID_CHARS)
    attributes = record.get("attributes")
    if attributes is None:
        attributes = {}
    if not isinstance(attributes, Mapping):
        raise IngestError(f"{where}.attributes: a JSON object is required")
    return {
        "change_id": change_id,
        "timestamp": timestamp,
        "service": service,
        "kind": kind,
        "summary": summary,
        "author": author,
        "url": url,
        "files": files,
        "diff": truncate_diff(diff),
        "ships": ships,
        "attributes": dict(attributes),
    }


def validate_records(body: Any) -> list[dict[str, Any]]:
    """The rows to store (without ``org_id``), one per change id (the last record with an id
    wins), or `IngestError` for the first problem."""
    records = envelope_items(body, "records", "change records", MAX_RECORDS)
    rows: dict[str, dict[str, Any]] = {}
    for index, record in enumerate(records):
        row = _record(record, f"records[{index}]")
        rows.pop(row["change_id"], None)  # the last one wins, in its own position
        rows[row["change_id"]] = row
    return list(rows.values())


async def store_changes(session: AsyncSession, org_id: int, rows: list[dict[str, Any]]) -> int:
    """Upsert validated rows for ``org_id`` in the session's transaction (no commit): a new
    change id is inserted, a known one has its content replaced (its row ``id`` and
    ``created_at`` kept). Each change id must appear once. Returns the number of rows."""
    if rows:
        dialect = session.get_bind().dialect.name
        statement = upsert_rows(
            dialect,
            models.ChangeRow.__table__,
            conflict_columns=["org_id", "change_id"],
            update_columns=_UPDATED,
        )
        now = utcnow()
        values = [{**row, "org_id": org_id, "created_at": now} for row in rows]
        await execute_in_chunks(session, statement, values, 500)
    return len(rows)


async def upsert_changes(session: AsyncSession, org_id: int, rows: list[dict[str, Any]]) -> int:
    """`store_changes` in one transaction, committed; the number of records stored."""
    count = await store_changes(session, org_id, rows)
    await session.commit()
    return count
