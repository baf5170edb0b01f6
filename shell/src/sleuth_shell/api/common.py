"""Helpers shared by the resource modules: ID decoding, team and integration lookups, checks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_shell.db.models import NotificationIntegration, Team
from sleuth_shell.domain import is_channel_id
from sleuth_shell.errors import bad_request, not_found

__all__ = [
    "MAX_NAME_LENGTH",
    "MAX_PK",
    "check_channel_id",
    "check_text",
    "decode_id_or_404",
    "encode_integration_ids",
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
