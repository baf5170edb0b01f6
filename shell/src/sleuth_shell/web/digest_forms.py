"""The digest form: create (``/digests/new``) and edit (``/digests/{id}/edit``) a digest agent,
with the schedule's next five fire times (UTC; day 0 = Monday).

The form becomes the API's own request body (:class:`DigestCreate` / :class:`DigestUpdate`) and
goes through the operations the API handlers call (:func:`create_digest`, :func:`update_digest`),
so the rules and error texts are the API's. Run now is the digest page's button
(:mod:`sleuth_shell.web.digests`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import msgspec
from litestar import Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.errors import CoreError
from sleuth_core.ids import encode_global_id
from sleuth_shell.api.digests import (
    DigestCreate,
    DigestUpdate,
    check_schedule,
    create_digest,
    delete_digest,
    load_digest,
    update_digest,
)
from sleuth_shell.db.models import Digest, NotificationIntegration, Team, utcnow
from sleuth_shell.errors import ApiError
from sleuth_shell.web.guard import (
    PAGE_OPTIONS,
    Viewer,
    ViewerDep,
    delete_form,
    form_data,
    form_page,
    form_refusal,
)
from sleuth_shell.web.render import fire_times

__all__ = ["ROUTES", "digest_body", "viewer_zone"]

#: Fire times the form shows.
SHOWN_FIRES = 5
#: Empty section rows the form offers below the filled ones.
SPARE_SECTIONS = 2


def digest_body(form: dict[str, Any], *, create: bool) -> dict[str, Any]:
    """The API request body the form stands for; section rows left empty are dropped.

    >>> form = {"name": "Morning", "team_name": "sre", "schedule": "0 9 * * 0-4",
    ...         "sections": [("Errors", "Errors overnight"), ("", "")], "chat_channel_id": "",
    ...         "integrations": []}
    >>> digest_body(form, create=True)["sections"]
    [{'section': 'Errors', 'prompt': 'Errors overnight'}]
    >>> digest_body(form, create=False)["chat_channel_id"] is None
    True
    """
    body: dict[str, Any] = {
        "name": form["name"],
        "schedule": form["schedule"],
        "sections": [
            {"section": name, "prompt": prompt}
            for name, prompt in form["sections"]
            if name.strip() or prompt.strip()
        ],
    }
    if create:
        body["team_name"] = form["team_name"]
    channel = form["chat_channel_id"].strip()
    if channel or not create:
        body["chat_channel_id"] = channel or None
    if form["integrations"] or not create:
        body["notification_integration_ids"] = list(form["integrations"])
    return body


def viewer_zone(name: str) -> ZoneInfo | None:
    """The IANA time zone ``name`` (``Europe/Berlin``), or None when it names none.

    >>> viewer_zone("Europe/Berlin").key, viewer_zone("Mars/Olympus"), viewer_zone("")
    ('Europe/Berlin', None, None)
    """
    if not name or len(name) > 64 or ".." in name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _blank_form() -> dict[str, Any]:
    return {
        "tz": "",
        "name": "",
        "team_name": "",
        "schedule": "0 9 * * 0-4",
        "sections": [],
        "chat_channel_id": "",
        "integrations": [],
    }


def _digest_form(digest: Digest) -> dict[str, Any]:
    return {
        "tz": "",
        "name": digest.name,
        "team_name": "",
        "schedule": digest.schedule,
        "sections": [(s["section"], s["prompt"]) for s in digest.sections],
        "chat_channel_id": digest.chat_channel_id or "",
        "integrations": [
            encode_global_id("NotificationIntegration", int(i))
            for i in digest.notification_integration_ids or []
        ],
    }


async def _choices(session: AsyncSession, org_id: int) -> dict[str, Any]:
    teams = (
        await session.scalars(select(Team.name).where(Team.org_id == org_id).order_by(Team.name))
    ).all()
    integrations = (
        await session.execute(
            select(NotificationIntegration.id, NotificationIntegration.name)
            .where(NotificationIntegration.org_id == org_id)
            .order_by(NotificationIntegration.name)
        )
    ).all()
    return {
        "teams": list(teams),
        "integrations": [
            (encode_global_id("NotificationIntegration", pk), name) for pk, name in integrations
        ],
    }


def _form_page(
    viewer: Viewer,
    form: dict[str, Any],
    choices: dict[str, Any],
    *,
    gid: str | None,
    error: str | None = None,
) -> Template:
    fires = []
    zone = viewer_zone(form["tz"].strip())
    if error is None:
        try:
            fires = fire_times(check_schedule(form["schedule"]), utcnow(), SHOWN_FIRES)
        except ApiError as exc:
            error = exc.detail
    return form_page(
        "digest_form.html",
        viewer,
        "digests",
        title=f"Edit {form['name']}" if gid else "New digest",
        form=form,
        rows=[*form["sections"], *[("", "")] * SPARE_SECTIONS],
        fires=[(t, t.astimezone(zone) if zone is not None else None) for t in fires],
        zone=zone.key if zone is not None else None,
        gid=gid,
        error=error,
        **choices,
    )


async def _submit(
    request: Request[Any, Any, Any], viewer: Viewer, base: dict[str, Any], gid: str | None
) -> Response[Any]:
    data = await form_data(request, viewer)
    multi = await request.form()
    form = dict(base)
    for key in ("tz", "name", "team_name", "schedule", "chat_channel_id"):
        if key in data:
            form[key] = data[key]
    names = [str(v) for v in multi.getall("section", [])]
    prompts = [str(v) for v in multi.getall("prompt", [])]
    form["sections"] = [
        (name, prompt) for name, prompt in zip(names, prompts, strict=False) if name or prompt
    ]
    form["integrations"] = [str(v) for v in multi.getall("integrations", [])]
    async with request.app.state.session_factory() as session:
        choices = await _choices(session, viewer.org_id)
        if data.get("action") == "times":
            return _form_page(viewer, form, choices, gid=gid)
        try:
            body = digest_body(form, create=gid is None)
            if gid is None:
                digest = await create_digest(
                    session, viewer.org_id, msgspec.convert(body, DigestCreate)
                )
            else:
                digest = await update_digest(
                    session, viewer.org_id, gid, msgspec.convert(body, DigestUpdate)
                )
            target = encode_global_id("Digest", digest.id)
        except (ApiError, CoreError, msgspec.ValidationError) as exc:
            detail = await form_refusal(session, exc)
            return _form_page(viewer, form, choices, gid=gid, error=detail)
    return Redirect(path=f"/digests/{quote(target, safe='=')}", status_code=303)


@get("/digests/new", **PAGE_OPTIONS)
async def new_digest_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """The empty form for a new digest (``?tz=`` adds the fire times in that time zone)."""
    async with request.app.state.session_factory() as session:
        choices = await _choices(session, viewer.org_id)
    form = _blank_form()
    form["tz"] = request.query_params.get("tz", "")
    if choices["teams"]:
        form["team_name"] = choices["teams"][0]
    return _form_page(viewer, form, choices, gid=None)


@post("/digests/new", status_code=200, **PAGE_OPTIONS)
async def create_digest_form(request: Request[Any, Any, Any], viewer: ViewerDep) -> Response[Any]:
    """Create the digest (as ``POST /api/v1/digests``) or show the schedule's fire times."""
    return await _submit(request, viewer, _blank_form(), None)


async def _stored(request: Request[Any, Any, Any], viewer: Viewer, digest_id: str) -> Digest:
    async with request.app.state.session_factory() as session:
        return await load_digest(session, viewer.org_id, digest_id)


@get("/digests/{digest_id:str}/edit", **PAGE_OPTIONS)
async def edit_digest_page(
    request: Request[Any, Any, Any], viewer: ViewerDep, digest_id: FromPath[str]
) -> Template:
    """The form filled in with the digest as stored (``?tz=`` as on the new form)."""
    digest = await _stored(request, viewer, digest_id)
    async with request.app.state.session_factory() as session:
        choices = await _choices(session, viewer.org_id)
    form = _digest_form(digest)
    form["tz"] = request.query_params.get("tz", "")
    return _form_page(viewer, form, choices, gid=digest_id)


@post("/digests/{digest_id:str}/edit", status_code=200, **PAGE_OPTIONS)
async def update_digest_form(
    request: Request[Any, Any, Any], viewer: ViewerDep, digest_id: FromPath[str]
) -> Response[Any]:
    """Save the digest (as ``PUT /api/v1/digests/{id}``) or show the schedule's fire times."""
    digest = await _stored(request, viewer, digest_id)
    return await _submit(request, viewer, _digest_form(digest), digest_id)


@post("/digests/{digest_id:str}/delete", status_code=303, **PAGE_OPTIONS)
async def delete_digest_form(
    request: Request[Any, Any, Any], viewer: ViewerDep, digest_id: FromPath[str]
) -> Response[Any]:
    """Delete the digest with its runs (as ``DELETE /api/v1/digests/{id}``)."""
    return await delete_form(
        request,
        viewer,
        lambda session: delete_digest(session, viewer.org_id, digest_id),
        "/digests",
    )


ROUTES: list[Any] = [
    new_digest_page,
    create_digest_form,
    edit_digest_page,
    update_digest_form,
    delete_digest_form,
]
