"""Digest agents: ``/api/v1/digests`` (create, get, update, delete).

The schedule is a five-field Monday-zero cron validated by :func:`sleuth_core.cron.parse_cron`
(400 ``Invalid schedule: <reason>``) and stored as given. Runs (``POST /digests/{id}/run``) and the
cron firing are the job system's; this module owns the definitions.
"""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec
from litestar import Controller, delete, get, post, put
from litestar.params import FromPath, JSONBody
from msgspec import UNSET, UnsetType
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.cron import parse_cron
from sleuth_core.errors import InvalidSchedule
from sleuth_core.ids import encode_global_id
from sleuth_shell.api.common import (
    check_channel_id,
    check_text,
    decode_id_or_404,
    encode_integration_ids,
    resolve_integration_ids,
    resolve_team,
)
from sleuth_shell.api.deps import AppSettings, CurrentPrincipal, DbSession
from sleuth_shell.auth import Principal
from sleuth_shell.db.models import Digest, Team
from sleuth_shell.errors import ApiError, bad_request, error_responses, not_found
from sleuth_shell.urls import digest_url

__all__ = ["GLOBAL_TYPE", "ROUTES", "check_schedule", "load_digest"]

GLOBAL_TYPE = "Digest"
THING = "Digest"
MAX_SECTIONS = 20
MAX_SECTION_NAME = 200
MAX_PROMPT_LENGTH = 20_000
MAX_SCHEDULE_LENGTH = 200


class DigestSection(msgspec.Struct):
    """One section of the report: its name and the prompt that generates it."""

    section: str
    prompt: str


class DigestCreate(msgspec.Struct, kw_only=True):
    team_name: str
    name: str
    sections: list[DigestSection]
    schedule: str
    chat_channel_id: str | UnsetType | None = UNSET
    notification_integration_ids: list[str] | UnsetType | None = UNSET


class DigestUpdate(msgspec.Struct, kw_only=True):
    """Only the given fields change; ``null`` clears ``chat_channel_id`` and the integrations."""

    name: str | UnsetType = UNSET
    sections: list[DigestSection] | UnsetType = UNSET
    schedule: str | UnsetType = UNSET
    chat_channel_id: str | UnsetType | None = UNSET
    notification_integration_ids: list[str] | UnsetType | None = UNSET


class DigestRef(msgspec.Struct):
    id: str
    url: str


class DigestRecord(msgspec.Struct, kw_only=True):
    organization_name: str
    team_name: str
    id: str
    name: str
    sections: list[DigestSection]
    schedule: str
    chat_channel_id: str | UnsetType = UNSET
    notification_integration_ids: list[str] | UnsetType = UNSET


class Success(msgspec.Struct):
    success: bool


def check_schedule(schedule: str) -> str:
    """``schedule`` if it is a valid Monday-zero cron expression, else 400 ``Invalid schedule``."""
    if len(schedule) > MAX_SCHEDULE_LENGTH:
        raise bad_request(f"Invalid schedule: at most {MAX_SCHEDULE_LENGTH} characters")
    try:
        parse_cron(schedule)
    except InvalidSchedule as exc:
        raise bad_request(f"Invalid schedule: {exc}") from None
    return schedule


def _sections(sections: list[DigestSection]) -> list[dict[str, str]]:
    if not sections:
        raise bad_request("sections must not be empty")
    if len(sections) > MAX_SECTIONS:
        raise bad_request(f"sections may list at most {MAX_SECTIONS} sections")
    for item in sections:
        check_text(item.section, "section", max_length=MAX_SECTION_NAME)
        check_text(item.prompt, "prompt", max_length=MAX_PROMPT_LENGTH)
    return [{"section": item.section, "prompt": item.prompt} for item in sections]


async def load_digest(session: AsyncSession, principal: Principal, digest_id: str) -> Digest:
    """The organization's digest with Global ID ``digest_id``; 404 ``Digest not found``."""
    pk = decode_id_or_404(digest_id, GLOBAL_TYPE, THING)
    digest = await session.scalar(
        select(Digest).where(Digest.id == pk, Digest.org_id == principal.org_id)
    )
    if digest is None:
        raise not_found(THING)
    return digest


def _ref(digest: Digest, public_url: str) -> DigestRef:
    gid = encode_global_id(GLOBAL_TYPE, digest.id)
    return DigestRef(id=gid, url=digest_url(public_url, gid))


class DigestController(Controller):
    """Digest agents."""

    path = "/digests"
    tags: ClassVar[list[str]] = ["digests"]

    @post("/", operation_id="createDigest", responses=error_responses(413), status_code=200)
    async def create(
        self,
        principal: CurrentPrincipal,
        db_session: DbSession,
        settings: AppSettings,
        data: JSONBody[DigestCreate],
    ) -> DigestRef:
        """Create a digest agent."""
        team = await resolve_team(db_session, principal.org_id, data.team_name)
        values: dict[str, Any] = {
            "name": check_text(data.name, "name"),
            "sections": _sections(data.sections),
            "schedule": check_schedule(data.schedule),
            "chat_channel_id": None,
            "notification_integration_ids": None,
        }
        if isinstance(data.chat_channel_id, str):
            values["chat_channel_id"] = check_channel_id(data.chat_channel_id)
        if isinstance(data.notification_integration_ids, list):
            values["notification_integration_ids"] = await resolve_integration_ids(
                db_session, principal.org_id, data.notification_integration_ids
            )
        digest = Digest(org_id=principal.org_id, team_id=team.id, **values)
        db_session.add(digest)
        await db_session.commit()
        return _ref(digest, settings.public_url)

    @get("/{digest_id:str}", operation_id="getDigest", responses=error_responses(404))
    async def get_one(
        self, digest_id: FromPath[str], principal: CurrentPrincipal, db_session: DbSession
    ) -> DigestRecord:
        """The digest agent."""
        digest = await load_digest(db_session, principal, digest_id)
        team_name = await db_session.scalar(select(Team.name).where(Team.id == digest.team_id))
        return DigestRecord(
            organization_name=principal.org_name,
            team_name=team_name or "",
            id=encode_global_id(GLOBAL_TYPE, digest.id),
            name=digest.name,
            sections=[DigestSection(s["section"], s["prompt"]) for s in digest.sections],
            schedule=digest.schedule,
            chat_channel_id=digest.chat_channel_id if digest.chat_channel_id else UNSET,
            notification_integration_ids=(
                encode_integration_ids(digest.notification_integration_ids)
                if digest.notification_integration_ids is not None
                else UNSET
            ),
        )

    @put("/{digest_id:str}", operation_id="updateDigest", responses=error_responses(404, 413))
    async def update_one(
        self,
        digest_id: FromPath[str],
        principal: CurrentPrincipal,
        db_session: DbSession,
        settings: AppSettings,
        data: JSONBody[DigestUpdate],
    ) -> DigestRef:
        """Change the given fields of a digest agent."""
        digest = await load_digest(db_session, principal, digest_id)
        if isinstance(data.name, str):
            digest.name = check_text(data.name, "name")
        if isinstance(data.sections, list):
            digest.sections = _sections(data.sections)
        if isinstance(data.schedule, str):
            digest.schedule = check_schedule(data.schedule)
        if data.chat_channel_id is None:
            digest.chat_channel_id = None
        elif isinstance(data.chat_channel_id, str):
            digest.chat_channel_id = check_channel_id(data.chat_channel_id)
        if data.notification_integration_ids is None:
            digest.notification_integration_ids = None
        elif isinstance(data.notification_integration_ids, list):
            digest.notification_integration_ids = await resolve_integration_ids(
                db_session, principal.org_id, data.notification_integration_ids
            )
        await db_session.commit()
        return _ref(digest, settings.public_url)

    @delete(
        "/{digest_id:str}",
        operation_id="deleteDigest",
        responses=error_responses(),
        status_code=200,
    )
    async def delete_one(
        self, digest_id: FromPath[str], principal: CurrentPrincipal, db_session: DbSession
    ) -> Success:
        """Delete a digest agent (and its runs); succeeds for any ID."""
        try:
            digest = await load_digest(db_session, principal, digest_id)
        except ApiError:
            return Success(success=True)
        await db_session.delete(digest)
        await db_session.commit()
        return Success(success=True)


ROUTES = [DigestController]
