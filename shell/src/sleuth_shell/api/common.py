"""Helpers shared by the resource modules: ID decoding, team and integration lookups, checks,
the query parameters of lists (filters, ``limit``, times, text) and of cursor-paged lists
(:func:`parse_page`; the paging itself is :mod:`sleuth_shell.db.paging`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Select, bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_core.language import parse_instant
from sleuth_shell.db import paging
from sleuth_shell.db.models import NotificationIntegration, Team
from sleuth_shell.db.paging import InvalidCursor, Page, PageRequest, decode_cursor, encode_cursor
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
    "choice_filter",
    "decode_cursor",
    "decode_id_or_404",
    "encode_cursor",
    "encode_integration_ids",
    "fetch_page",
    "find_team_id",
    "id_filter",
    "load_owned",
    "parse_page",
    "query_limit",
    "query_text",
    "query_time",
    "resolve_integration_ids",
    "resolve_team",
]

_M = TypeVar("_M")

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


def id_filter(value: str | None, type_name: str, name: str) -> int | None:
    """A list filter naming a record by Global ID: None when absent or empty; the primary key
    inside it; else 400 ``Invalid <name>: <value>``."""
    if value is None or value == "":
        return None
    pk = decode_global_id(value, type_name)
    if pk is None or pk > MAX_PK:
        raise bad_request(f"Invalid {name}: {value[:100]}")
    return pk


def choice_filter(value: str | None, name: str, choices: Sequence[str]) -> str | None:
    """A list filter taking one of ``choices``: None when absent or empty; else 400
    ``Invalid <name>: <value> (one of <choices>)``."""
    if value is None or value == "":
        return None
    if value not in choices:
        raise bad_request(f"Invalid {name}: {value[:100]} (one of {', '.join(choices)})")
    return value


_OWNED: dict[type[Any], Select[Any]] = {}


def _owned_statement(model: type[Any]) -> Select[Any]:
    """``model``'s row by ``:pk`` and ``:org_id``, built once per model (building the statement
    and its cache key cost more than the read)."""
    found = _OWNED.get(model)
    if found is None:
        table: Any = model
        found = _OWNED[model] = select(model).where(
            table.id == bindparam("pk"), table.org_id == bindparam("org_id")
        )
    return found


async def load_owned(
    session: AsyncSession, model: type[_M], org_id: int, value: str, type_name: str, thing: str
) -> _M:
    """The organization's ``model`` row with Global ID ``value`` of ``type_name``; 404
    ``<thing> not found`` (malformed, unknown, or another organization's)."""
    pk = decode_id_or_404(value, type_name, thing)
    row: _M | None = await session.scalar(_owned_statement(model), {"pk": pk, "org_id": org_id})
    if row is None:
        raise not_found(thing)
    return row


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


def query_limit(value: str | None, default: int, most: int) -> int:
    """A ``limit`` query parameter: ``default`` when absent; else 400 ``Invalid limit: <value>
    (a whole number from 1 to <most>)`` unless it is one."""
    if value is None:
        return default
    text = value.strip()
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= most:
        raise bad_request(f"Invalid limit: {value} (a whole number from 1 to {most})")
    return int(text)


def query_text(value: str | None, name: str, *, limit: int = 200) -> str | None:
    """A text query parameter: None when absent or blank; 400 when too long or with NUL."""
    if value is None or not value.strip():
        return None
    if "\x00" in value or len(value) > limit:
        raise bad_request(f"Invalid {name}: at most {limit} characters, without NUL")
    return value.strip()


def query_time(value: str | None, name: str) -> datetime | None:
    """A time query parameter (ISO 8601 or Unix seconds), None when absent; else 400."""
    if value is None or not value.strip():
        return None
    parsed = parse_instant(value) if "\x00" not in value and len(value) <= 64 else None
    if parsed is None:
        raise bad_request(f"Invalid {name}: an ISO 8601 date-time or Unix seconds is required")
    return parsed


def parse_page(limit: str | None, cursor: str | None) -> PageRequest:
    """The page asked for by query parameters ``limit`` and ``cursor`` (both optional).

    400 ``Invalid limit: <value> (...)`` unless ``limit`` is a whole number from 1 to
    :data:`MAX_PAGE_LIMIT`; 400 ``Invalid cursor: <value>`` unless ``cursor`` is a
    ``next_cursor`` this service gave out.
    """
    size = query_limit(limit, DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT)
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
    """:func:`sleuth_shell.db.paging.fetch_page`, a cursor that names no row being 400
    ``Invalid cursor: <cursor>``."""
    try:
        return await paging.fetch_page(session, query, page, created=created, key=key)
    except InvalidCursor as exc:
        raise bad_request(f"Invalid cursor: {exc}") from None
