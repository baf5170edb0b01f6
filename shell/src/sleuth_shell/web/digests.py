"""Digests: the list with schedules in words, one digest's page, Run now, and one run's results."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from litestar import Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template

from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_shell.api.digests import load_digest
from sleuth_shell.db.models import (
    Digest,
    utcnow,
)
from sleuth_shell.digests.queries import latest_runs, load_digest_run
from sleuth_shell.digests.service import run_digest
from sleuth_shell.domain import MAX_PK
from sleuth_shell.errors import not_found
from sleuth_shell.web.guard import PAGE_OPTIONS, ViewerDep, form_data, page
from sleuth_shell.web.render import fire_times, next_fire
from sleuth_shell.web.rows import RECENT, org_rows, team_names

__all__ = ["ROUTES"]


@get("/digests", **PAGE_OPTIONS)
async def digests_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Digests with their schedule in words and next fire time."""
    async with request.app.state.session_factory() as session:
        digests = await org_rows(session, Digest, viewer.org_id, Digest.name)
        teams = await team_names(session, viewer.org_id)
    now = utcnow()
    return page(
        "digests.html",
        viewer,
        "digests",
        title="Digests",
        digests=[
            (
                encode_global_id("Digest", d.id),
                d,
                teams.get(d.team_id, "-"),
                next_fire(d.schedule, now),
            )
            for d in digests
        ],
        notice=request.query_params.get("notice"),
    )


@get("/digests/{digest_id:str}", **PAGE_OPTIONS)
async def digest_page(
    request: Request[Any, Any, Any], viewer: ViewerDep, digest_id: FromPath[str]
) -> Template:
    """A digest agent: schedule in words and next fire times, sections, Run now, latest runs."""
    async with request.app.state.session_factory() as session:
        digest = await load_digest(session, viewer.org_id, digest_id)
        runs = await latest_runs(session, viewer.org_id, digest.id, RECENT)
        teams = await team_names(session, viewer.org_id)
    return page(
        "digest.html",
        viewer,
        "digests",
        title=digest.name,
        digest=digest,
        gid=digest_id,
        team=teams.get(digest.team_id, "-"),
        next_times=fire_times(digest.schedule, utcnow()),
        runs=[(encode_global_id("DigestRun", r.id), r) for r in runs],
        notice=request.query_params.get("notice"),
    )


@post("/digests/{digest_id:str}/run", status_code=303, **PAGE_OPTIONS)
async def run_digest_now(
    request: Request[Any, Any, Any], viewer: ViewerDep, digest_id: FromPath[str]
) -> Response[Any]:
    """Run now: queue a run (the worker generates it) and go back to the digest."""
    await form_data(request, viewer)
    async with request.app.state.session_factory() as session:
        digest = await load_digest(session, viewer.org_id, digest_id)
        run, _ = await run_digest(
            session,
            request.app.state.services,
            digest,
            run_sync=False,
            scheduled_runtime=None,
            now=utcnow(),
        )
        run_gid = encode_global_id("DigestRun", run.id)
    return Redirect(
        path=f"/digests/{quote(digest_id, safe='=')}/runs/{quote(run_gid, safe='=')}",
        status_code=303,
    )


@get("/digests/{digest_id:str}/runs/{run_id:str}", **PAGE_OPTIONS)
async def digest_run_page(
    request: Request[Any, Any, Any],
    viewer: ViewerDep,
    digest_id: FromPath[str],
    run_id: FromPath[str],
) -> Template:
    """One digest run and its sections' results."""
    async with request.app.state.session_factory() as session:
        digest_pk = decode_global_id(digest_id, "Digest")
        run_pk = decode_global_id(run_id, "DigestRun")
        found = None
        if digest_pk is not None and run_pk is not None and max(digest_pk, run_pk) <= MAX_PK:
            found = await load_digest_run(session, viewer.org_id, run_pk, digest_pk)
        if found is None:
            raise not_found("Digest run")
        digest, run = found.digest, found.run
    return page(
        "digest_run.html",
        viewer,
        "digests",
        title=digest.name,
        digest=digest,
        gid=digest_id,
        run=run,
    )


ROUTES: list[Any] = [digests_page, digest_page, run_digest_now, digest_run_page]
