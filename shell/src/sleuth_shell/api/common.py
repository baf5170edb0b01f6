"""Helpers shared by the resource modules: ID decoding, team and integration lookups, checks,
and cursor paging of lists (:func:`parse_page`, :func:`fetch_page`)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Integer, Select, and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_shell.db.models import NotificationIntegration, Team
from sleuth_shell.domain import MAX_PK, is_channel_id
from sleuth_shell.errors import bad_request, not_found

__all__ = [
    "DEFAULT_PAGE_LIMIT",
    "MAX_NAME_LENGTH",
    "MAX_PAGE_LIMIT",
    "MAX_PK",
    "Page",
    "PageRequest",
    "check_channel_id",
    "check_text",
    "decode_cursor",
    "decode_id_or_404",
    "encode_cursor",
    "encode_integration_ids",
    "fetch_page",
    "find_team_id",
    "parse_page",
    "resolve_integration_ids",
    "resolve_team",
]

#: Longest accepted name (agents, digests, teams).
MAX_NAME_LENGTH = 200
#: Most notification integrations one agent or digest may notify.
MAX_INTEGRATIONS = 50


def decode_id_or_404(value: str, type_name: str, thing: str) -> int:
    """The primary key inside Global ID ``value`` of ``type_name``; 404 ``<thing> not found``."""
    pk = decode_global_id(value, type_name)
    if pk is None or pk > MAX_PK:
        raise not_found(thing)
    return pk


def check_text(value: str, field: str, *, max_length: int = MAX_NAME_LENGTH) -> str:
    """``value`` if it is a non-blank string of at most ``max_length`` characters, else 400."""
    if not value.strip():
        raise bad_request(f"{field} must not be empty")
    if "\x00" in value:
        raise bad_request(f"{field} must not contain NUL characters")
    if len(value) > max_length:
        raise bad_request(f"{field} must be at most {max_length} characters")
    return value


def check_channel_id(value: str, field: str = "chat_channel_id") -> str:
    """``value`` if it is a chat channel ID (``C...`` or ``G...``), else 400."""
    if not is_channel_id(value):
        raise bad_request(f"Invalid {field}: {value} (a channel ID starts with C or G)")
    return value


async def find_team_id(session: AsyncSession, org_id: int, name: str) -> int | None:
    """The id of the organization's team called ``name``, or ``None`` (a list filtered by an
    unknown team is empty, not an error)."""
    if "\x00" in name or len(name) > MAX_NAME_LENGTH:
        return None
    return await session.scalar(select(Team.id).where(Team.org_id == org_id, Team.name == name))


async def resolve_team(session: AsyncSession, org_id: int, name: str) -> Team:
    """The organization's team called ``name``; 400 ``Unknown team: <name>``."""
    if "\x00" in name or len(name) > MAX_NAME_LENGTH:  # cannot name a team; keep it off the wire
        raise bad_request(f"Unknown team: {name}")
    team = await session.scalar(select(Team).where(Team.org_id == org_id, Team.name == name))
    if team is None:
        raise bad_request(f"Unknown team: {name}")
    return team


async def resolve_integration_ids(
    session: AsyncSession, org_id: int, ids: Sequence[str]
) -> list[int]:
    """Primary keys of the organization's notification integrations named by Global IDs ``ids``.

    Order is kept and duplicates dropped; an unknown, malformed or other-org ID is 400
    ``Unknown notification integration: <id>``.
    """
    if len(ids) > MAX_INTEGRATIONS:
        raise bad_request(
            f"notification_integration_ids may list at most {MAX_INTEGRATIONS} integrations"
        )
    wanted: dict[int, str] = {}
    for value in ids:
        pk = decode_global_id(value, "NotificationIntegration")
        if pk is None or pk > MAX_PK:
            raise bad_request(f"Unknown notification integration: {value}")
        wanted.setdefault(pk, value)
    if not wanted:
        return []
    found = set(
        await session.scalars(
            select(NotificationIntegration.id).where(
                NotificationIntegration.org_id == org_id,
                NotificationIntegration.id.in_(list(wanted)),
            )
        )
    )
    for pk, value in wanted.items():
        if pk not in found:
            raise bad_request(f"Unknown notification integration: {value}")
    return list(wanted)


def encode_integration_ids(pks: Sequence[Any]) -> list[str]:
    """Global IDs of stored integration primary keys."""
    return [encode_global_id("NotificationIntegration", int(pk)) for pk in pks]


#: Items per page when ``limit`` is not given, and the most one page may hold.
DEFAULT_PAGE_LIMIT = 20
MAX_PAGE_LIMIT = 100
_MAX_CURSOR = 200


@dataclass(frozen=True, slots=True)
class PageRequest:
    """One page of a list, newest first: at most ``limit`` rows older than the row ``after``
    (its ``(created_at, id)``; ``None``: from the newest). ``cursor`` is the text as given."""

    limit: int
    after: tuple[datetime, str] | None = None
    cursor: str | None = None


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


def parse_page(limit: str | None, cursor: str | None) -> PageRequest:
    """The page asked for by query parameters ``limit`` and ``cursor`` (both optional).

    400 ``Invalid limit: <value> (...)`` unless ``limit`` is a whole number from 1 to
    :data:`MAX_PAGE_LIMIT`; 400 ``Invalid cursor: <value>`` unless ``cursor`` is a
    ``next_cursor`` this service gave out.
    """
    size = DEFAULT_PAGE_LIMIT
    if limit is not None:
        text = limit.strip()
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_PAGE_LIMIT:
            raise bad_request(f"Invalid limit: {limit} (a whole number from 1 to {MAX_PAGE_LIMIT})")
        size = int(text)
    after = None
    if cursor is not None:
        after = decode_cursor(cursor)
        if after is None:
            raise bad_request(f"Invalid cursor: {cursor}")
    return PageRequest(limit=size, after=after, cursor=cursor)


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
    offset) cursor never repeats or skips a row while new rows arrive.
    """
    if page.after is not None:
        after_created, after_key = page.after
        bound: Any = after_key
        if isinstance(key.type, Integer):
            if not after_key.isdigit() or int(after_key) > MAX_PK:
                raise bad_request(f"Invalid cursor: {page.cursor}")
            bound = int(after_key)
        query = query.where(
            or_(created < after_created, and_(created == after_created, key < bound))
        )
    query = query.order_by(created.desc(), key.desc()).limit(page.limit + 1)
    rows = list((await session.execute(query)).all())
    if len(rows) <= page.limit:
        return Page(rows=rows, next_cursor=None)
    rows = rows[: page.limit]
    last = rows[-1][0]
    return Page(
        rows=rows, next_cursor=encode_cursor(getattr(last, created.key), getattr(last, key.key))
    )
