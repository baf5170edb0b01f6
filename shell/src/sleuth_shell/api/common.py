"""Helpers shared by the resource modules: ID decoding, team and integration lookups, checks,
and cursor paging of lists (:func:`parse_page`, :func:`fetch_page`)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_shell.db.models import NotificationIntegration, Team
from sleuth_shell.domain import is_channel_id
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
    "parse_page",
    "resolve_integration_ids",
    "resolve_team",
]

#: Largest primary key a table can hold (32-bit ``INTEGER`` on PostgreSQL); larger IDs name nothing.
MAX_PK = 2**31 - 1
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
_CURSOR_PREFIX = "before:"


@dataclass(frozen=True, slots=True)
class PageRequest:
    """One page of a list, newest first: at most ``limit`` rows with an id below ``before``
    (``None``: from the newest)."""

    limit: int
    before: int | None


@dataclass(frozen=True, slots=True)
class Page:
    """The rows of one page and the cursor of the next (``None`` on the last page)."""

    rows: list[Any]
    next_cursor: str | None


def encode_cursor(pk: int) -> str:
    """The opaque cursor of the page after the row with primary key ``pk`` (older rows)."""
    raw = f"{_CURSOR_PREFIX}{pk}".encode("ascii")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_cursor(cursor: str) -> int | None:
    """The primary key inside a cursor from :func:`encode_cursor`, or ``None`` if it is not one."""
    if not cursor or len(cursor) > 64 or not cursor.isascii():
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    number = raw.removeprefix(_CURSOR_PREFIX)
    if number == raw or not number.isdigit() or not number.isascii():
        return None
    pk = int(number)
    if not 0 < pk <= MAX_PK + 1 or encode_cursor(pk) != cursor:
        return None
    return pk


def parse_page(limit: str | None, cursor: str | None) -> PageRequest:
    """The page asked for by query parameters ``limit`` and ``cursor`` (both optional).

    400 ``Invalid limit: <value>`` unless ``limit`` is a whole number from 1 to
    :data:`MAX_PAGE_LIMIT`; 400 ``Invalid cursor: <value>`` unless ``cursor`` came from a
    ``next_cursor`` of this service.
    """
    size = DEFAULT_PAGE_LIMIT
    if limit is not None:
        text = limit.strip()
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_PAGE_LIMIT:
            raise bad_request(f"Invalid limit: {limit} (a whole number from 1 to {MAX_PAGE_LIMIT})")
        size = int(text)
    before = None
    if cursor is not None:
        before = decode_cursor(cursor)
        if before is None:
            raise bad_request(f"Invalid cursor: {cursor}")
    return PageRequest(limit=size, before=before)


async def fetch_page(
    session: AsyncSession,
    query: Select[Any],
    id_column: InstrumentedAttribute[int],
    page: PageRequest,
) -> Page:
    """Run ``query`` for one page, newest (highest ``id_column``) first.

    ``query`` selects the paged entity first (``select(Digest)``, ``select(Interaction,
    Team.name)``) and carries the caller's filters (organization first); this adds the order,
    the ``before`` bound and the limit. Rows are what ``session.execute`` returns (``row[0]`` is
    the entity), and ``next_cursor`` is set when older rows remain.
    Ids only grow (see ``NEVER_REUSE_IDS``), so a page never repeats or skips a row that existed
    when the first page was read.
    """
    if page.before is not None:
        query = query.where(id_column < page.before)
    query = query.order_by(id_column.desc()).limit(page.limit + 1)
    rows = list((await session.execute(query)).all())
    if len(rows) <= page.limit:
        return Page(rows=rows, next_cursor=None)
    rows = rows[: page.limit]
    last_pk = int(getattr(rows[-1][0], id_column.key))
    return Page(rows=rows, next_cursor=encode_cursor(last_pk))
