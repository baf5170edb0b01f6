"""Keyset paging of lists, newest first: the one read of a page that every list (API, pages,
MCP) uses. A page is at most ``limit`` rows older than the row ``after`` (its ``(created_at,
id)``, carried by an opaque cursor), or, for numbered pages, ``offset`` rows from the newest.

>>> created = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
>>> decode_cursor(encode_cursor(created, 42)) == (created, "42")
True
>>> decode_cursor("not a cursor") is None
True
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Integer, Select, and_, or_
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from sleuth_shell.domain import MAX_PK

__all__ = [
    "InvalidCursor",
    "Page",
    "PageRequest",
    "decode_cursor",
    "encode_cursor",
    "fetch_page",
]

_MAX_CURSOR = 200


class InvalidCursor(ValueError):
    """The cursor names no row of this list (``str()`` is the cursor as given)."""


@dataclass(frozen=True, slots=True)
class PageRequest:
    """One page of a list, newest first: at most ``limit`` rows older than the row ``after``
    (its ``(created_at, id)``; ``None``: from the newest). ``cursor`` is the text as given."""

    limit: int
    after: tuple[datetime, str] | None = None
    cursor: str | None = None
    offset: int = 0
    """Rows skipped from the newest (numbered pages; a cursor never needs it)."""


@dataclass(frozen=True, slots=True)
class Page:
    """The rows of one page and the cursor of the next (``None`` on the last page)."""

    rows: list[Any]
    next_cursor: str | None


def encode_cursor(created_at: datetime, key: object) -> str:
    """The opaque cursor of the page after the row created at ``created_at`` with id ``key``."""
    stamp = created_at.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds")
    raw = f"{stamp}|{key}".encode()
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str] | None:
    """The ``(created_at, id)`` inside a cursor from :func:`encode_cursor`, or ``None``."""
    if not cursor or len(cursor) > _MAX_CURSOR or not cursor.isascii():
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("utf-8")
        stamp, sep, key = raw.partition("|")
        created = datetime.fromisoformat(stamp)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    if created.tzinfo is not None or not sep or not key or not key.isprintable():
        return None
    created = created.replace(tzinfo=UTC)
    if encode_cursor(created, key) != cursor:
        return None
    return created, key


async def fetch_page(
    session: AsyncSession,
    query: Select[*tuple[Any, ...]],
    page: PageRequest,
    *,
    created: InstrumentedAttribute[datetime],
    key: InstrumentedAttribute[Any],
) -> Page:
    """Run ``query`` for one page, newest first (by ``created``, then ``key``, both descending).

    ``query`` selects the paged entity first (``select(Digest)``, ``select(Interaction,
    Team.name)``) and carries the caller's filters (organization first); this adds the order,
    the keyset bound of the cursor and the limit. Rows are what ``session.execute`` returns
    (``row[0]`` is the entity); ``next_cursor`` is set when older rows remain. A keyset (not an
    offset) cursor never repeats or skips a row while new rows arrive; ``page.offset`` serves
    numbered pages. Raises :class:`InvalidCursor` for a cursor whose id does not fit the key.
    """
    if page.after is not None:
        after_created, after_key = page.after
        bound: Any = after_key
        if isinstance(key.type, Integer):
            if not after_key.isdigit() or int(after_key) > MAX_PK:
                raise InvalidCursor(page.cursor or "")
            bound = int(after_key)
        query = query.where(
            or_(created < after_created, and_(created == after_created, key < bound))
        )
    query = query.order_by(created.desc(), key.desc()).limit(page.limit + 1)
    if page.offset:
        query = query.offset(page.offset)
    rows = list((await session.execute(query)).all())
    if len(rows) <= page.limit:
        return Page(rows=rows, next_cursor=None)
    rows = rows[: page.limit]
    last = rows[-1][0]
    return Page(
        rows=rows, next_cursor=encode_cursor(getattr(last, created.key), getattr(last, key.key))
    )
