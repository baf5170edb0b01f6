"""Digest agents: ``/api/v1/digests`` (create, list, get, update, delete, run, get a run).

The schedule is a five-field Monday-zero cron validated by :func:`sleuth_core.cron.parse_cron`
(400 ``Invalid schedule: <reason>``) and stored as given. Create and update (re)schedule the
digest's next cron fire as a durable job, delete cancels its pending jobs; the runs themselves are
:mod:`sleuth_shell.digests.service`'s.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from litestar import Controller, Request, delete, get, post, put
from litestar.params import FromPath, FromQuery
from msgspec import UNSET, UnsetType
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.cron import parse_cron
from sleuth_core.errors import InvalidSchedule
from sleuth_core.ids import encode_global_id
from sleuth_shell.api.body import StrictBody, decode_json_body
from sleuth_shell.api.common import (
    check_channel_id,
    check_text,
    decode_id_or_404,
    encode_integration_ids,
    fetch_page,
    find_team_id,
    load_owned,
    parse_page,
    resolve_integration_ids,
    resolve_team,
)
from sleuth_shell.api.deps import AppServices, AppSettings, CurrentPrincipal, DbSession
from sleuth_shell.db.models import Digest, Team, utcnow
from sleuth_shell.digests.queries import load_digest_run
from sleuth_shell.digests.service import (
    RUN_GLOBAL_TYPE,
    run_digest,
    run_view,
    schedule_next_fire,
)
from sleuth_shell.digests.service import cancel_digest_jobs as cancel_jobs
from sleuth_shell.errors import ApiError, bad_request, error_responses, not_found
from sleuth_shell.runs import RunFailed
from sleuth_shell.urls import digest_run_url, digest_url

__all__ = [
    "GLOBAL_TYPE",
    "ROUTES",
    "DigestCreate",
    "DigestUpdate",
    "check_schedule",
    "create_digest",
    "delete_digest",
    "load_digest",
    "parse_run_request",
    "update_digest",
]

GLOBAL_TYPE = "Digest"
THING = "Digest"
MAX_SECTIONS = 20
MAX_SECTION_NAME = 200
MAX_PROMPT_LENGTH = 20_000
MAX_SCHEDULE_LENGTH = 200
#: How far ahead a digest run may be scheduled.
MAX_SCHEDULE_AHEAD = timedelta(days=366)


_NOT_AN_OBJECT = "The request body must be a JSON object"


class DigestSection(msgspec.Struct):
    """One section of the report: its name and the prompt that generates it."""

    section: str
    prompt: str


class DigestCreate(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    team_name: str
    name: str
    sections: list[DigestSection]
    schedule: str
    chat_channel_id: str | UnsetType | None = UNSET
    notification_integration_ids: list[str] | UnsetType | None = UNSET


class DigestUpdate(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
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


class DigestListItem(msgspec.Struct):
    id: str
    name: str
    team_name: str
    schedule: str
    created_at: datetime
    url: str


class DigestList(msgspec.Struct):
    """One page of digests, newest first; ``next_cursor`` is null on the last page."""

    digests: list[DigestListItem]
    next_cursor: str | None


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


def parse_run_request(body: object, now: datetime) -> tuple[bool, datetime | None]:
    """``(run_sync, scheduled_runtime)`` of a ``POST /digests/{id}/run`` body; 400 when invalid.

    ``body`` is the decoded JSON (None for an empty body). ``null`` members count as absent.
    """
    if body is None:
        return False, None
    if not isinstance(body, dict):
        raise bad_request(_NOT_AN_OBJECT)
    run_sync = body.get("run_sync")
    if run_sync is None:
        run_sync = False
    if not isinstance(run_sync, bool):
        raise bad_request("run_sync must be a boolean")
    raw = body.get("scheduled_runtime")
    if raw is None:
        return run_sync, None
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise bad_request("scheduled_runtime must be an integer Unix timestamp in seconds")
    if run_sync:
        raise bad_request("run_sync and scheduled_runtime cannot be combined")
    if raw <= int(now.timestamp()):
        raise bad_request("scheduled_runtime must be in the future")
    if raw > int((now + MAX_SCHEDULE_AHEAD).timestamp()):
        raise bad_request("scheduled_runtime must be at most 366 days ahead")
    return False, datetime.fromtimestamp(raw, UTC)


def _sections(sections: list[DigestSection]) -> list[dict[str, str]]:
    if not sections:
        raise bad_request("sections must not be empty")
    if len(sections) > MAX_SECTIONS:
        raise bad_request(f"sections may list at most {MAX_SECTIONS} sections")
    for item in sections:
        check_text(item.section, "section", max_length=MAX_SECTION_NAME)
        check_text(item.prompt, "prompt", max_length=MAX_PROMPT_LENGTH)
    return [{"section": item.section, "prompt": item.prompt} for item in sections]


async def load_digest(session: AsyncSession, org_id: int, digest_id: str) -> Digest:
    """The organization's digest with Global ID ``digest_id``; 404 ``Digest not found``."""
    return await load_owned(session, Digest, org_id, digest_id, GLOBAL_TYPE, THING)


def _ref(digest: Digest, public_url: str) -> DigestRef:
    gid = encode_global_id(GLOBAL_TYPE, digest.id)
    return DigestRef(id=gid, url=digest_url(public_url, gid))


async def create_digest(session: AsyncSession, org_id: int, data: DigestCreate) -> Digest:
    """Create a digest agent from ``data`` and schedule its first run (committed); bad input is
    400 :class:`ApiError` with the API's detail. The API and the digest form call it."""
    team = await resolve_team(session, org_id, data.team_name)
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
        values["notification_integration_ids"] = (
            await resolve_integration_ids(session, org_id, data.notification_integration_ids)
            or None
        )
    digest = Digest(org_id=org_id, team_id=team.id, **values)
    session.add(digest)
    await session.flush()
    await schedule_next_fire(session, digest, utcnow())
    await session.commit()
    return digest


async def delete_digest(session: AsyncSession, org_id: int, digest_id: str) -> None:
    """Delete a digest agent with its runs and queued fires; an ID that names nothing is
    already deleted."""
    try:
        digest = await load_digest(session, org_id, digest_id)
    except ApiError:
        return
    await cancel_jobs(session, digest.id)
    await session.delete(digest)
    await session.commit()


async def update_digest(
    session: AsyncSession, org_id: int, digest_id: str, data: DigestUpdate
) -> Digest:
    """Change the given fields of the digest ``digest_id`` and reschedule it (committed)."""
    digest = await load_digest(session, org_id, digest_id)
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
        digest.notification_integration_ids = (
            await resolve_integration_ids(session, org_id, data.notification_integration_ids)
            or None  # an empty list configures none: stored (and shown) as absent
        )
    await schedule_next_fire(session, digest, utcnow())
    await session.commit()
    return digest


class DigestController(Controller):
    """Digest agents."""

    path = "/digests"
    tags = ("digests",)

    @post("/", operation_id="createDigest", responses=error_responses(413), status_code=200)
    async def create(
        self,
        principal: CurrentPrincipal,
        db_session: DbSession,
        settings: AppSettings,
        data: StrictBody[DigestCreate],
    ) -> DigestRef:
        """Create a digest agent."""
        digest = await create_digest(db_session, principal.org_id, data)
        return _ref(digest, settings.public_url)

    @get("/", operation_id="listDigests", responses=error_responses())
    async def list_all(
        self,
        principal: CurrentPrincipal,
        db_session: DbSession,
        settings: AppSettings,
        limit: FromQuery[str | None] = None,
        cursor: FromQuery[str | None] = None,
        team_name: FromQuery[str | None] = None,
    ) -> DigestList:
        """The organization's digest agents, newest first, cursor-paged (``limit`` 1-100,
        default 20; pass ``next_cursor`` back as ``cursor``), optionally of one team."""
        page_request = parse_page(limit, cursor)
        query = (
            select(Digest, Team.name)
            .join(Team, Team.id == Digest.team_id)
            .where(Digest.org_id == principal.org_id)
        )
        if team_name is not None:
            team_id = await find_team_id(db_session, principal.org_id, team_name)
            if team_id is None:
                return DigestList(digests=[], next_cursor=None)
            query = query.where(Digest.team_id == team_id)
        page = await fetch_page(
            db_session, query, page_request, created=Digest.created_at, key=Digest.id
        )
        items = []
        for digest, name_of_team in page.rows:
            gid = encode_global_id(GLOBAL_TYPE, digest.id)
            items.append(
                DigestListItem(
                    id=gid,
                    name=digest.name,
                    team_name=name_of_team,
                    schedule=digest.schedule,
                    created_at=digest.created_at,
                    url=digest_url(settings.public_url, gid),
                )
            )
        return DigestList(digests=items, next_cursor=page.next_cursor)

    @get("/{digest_id:str}", operation_id="getDigest", responses=error_responses(404))
    async def get_one(
        self, digest_id: FromPath[str], principal: CurrentPrincipal, db_session: DbSession
    ) -> DigestRecord:
        """The digest agent."""
        digest = await load_digest(db_session, principal.org_id, digest_id)
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
                if digest.notification_integration_ids  # none configured ([] or null): omitted
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
        data: StrictBody[DigestUpdate],
    ) -> DigestRef:
        """Change the given fields of a digest agent."""
        digest = await update_digest(db_session, principal.org_id, digest_id, data)
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
        await delete_digest(db_session, principal.org_id, digest_id)
        return Success(success=True)

    @post(
        "/{digest_id:str}/run",
        operation_id="runDigest",
        responses=error_responses(400, 404, 413),
        status_code=200,
    )
    async def run(
        self,
        request: Request[Any, Any, Any],
        digest_id: FromPath[str],
        principal: CurrentPrincipal,
        db_session: DbSession,
        services: AppServices,
    ) -> dict[str, Any]:
        """Run the digest now (in the background, or in the request with ``run_sync``) or at
        ``scheduled_runtime``; its chat channel and notification integrations are notified."""
        digest = await load_digest(db_session, principal.org_id, digest_id)
        try:
            body = decode_json_body(await request.body(), not_json=_NOT_AN_OBJECT)
        except ValueError as exc:
            raise bad_request(str(exc)) from None
        now = utcnow()
        run_sync, scheduled = parse_run_request(body, now)
        digest_gid = encode_global_id(GLOBAL_TYPE, digest.id)
        try:
            run, results = await run_digest(
                db_session,
                services,
                digest,
                run_sync=run_sync,
                scheduled_runtime=scheduled,
                now=now,
            )
        except RunFailed as exc:
            raise ApiError(500, str(exc)) from None
        run_gid = encode_global_id(RUN_GLOBAL_TYPE, run.id)
        answer: dict[str, Any] = {
            "id": run_gid,
            "url": digest_run_url(services.settings.public_url, digest_gid, run_gid),
        }
        if scheduled is not None:
            answer["scheduled_runtime"] = int(scheduled.timestamp())
        if results is not None:
            answer["results"] = [item.to_json() for item in results]
        return answer

    @get(
        "/{digest_id:str}/runs/{run_id:str}",
        operation_id="getDigestRun",
        responses=error_responses(404),
    )
    async def get_run(
        self,
        digest_id: FromPath[str],
        run_id: FromPath[str],
        principal: CurrentPrincipal,
        db_session: DbSession,
    ) -> dict[str, Any]:
        """One run of the digest: its status, scheduled time and results."""
        digest = await load_digest(db_session, principal.org_id, digest_id)
        pk = decode_id_or_404(run_id, RUN_GLOBAL_TYPE, "Digest run")
        found = await load_digest_run(db_session, principal.org_id, pk, digest.id)
        if found is None:
            raise not_found("Digest run")
        return run_view(found.run)


ROUTES = [DigestController]
