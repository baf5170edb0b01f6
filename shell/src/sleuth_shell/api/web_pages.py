"""The web app's overview pages and forms: Home, Ask, the lists of alert agents, investigations
and digests, Run now, Knowledge, and Settings (advanced settings and API keys, admins only to
change). Detail pages and sign-in live in :mod:`sleuth_shell.api.pages`; every route here is a
signed-in page (``PAGE_OPTIONS``) and shows only the viewer's organization.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, urlencode

from litestar import Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template
from sqlalchemy import delete, func, or_, select

from sleuth_core.errors import InvalidSettings
from sleuth_core.ids import decode_global_id, encode_global_id
from sleuth_core.settings import validate_advanced_settings
from sleuth_shell.api.pages import (
    PAGE_OPTIONS,
    RECENT,
    Viewer,
    ViewerDep,
    form_data,
    latest,
    owned,
    page,
    require_admin_viewer,
    team_names,
)
from sleuth_shell.api.settings import load_advanced_settings
from sleuth_shell.db.models import (
    AdvancedSettings,
    AlertResponder,
    ApiKey,
    Digest,
    DigestRun,
    Interaction,
    Investigation,
    KnowledgeDocument,
    WebSession,
    utcnow,
)
from sleuth_shell.digests.service import run_digest
from sleuth_shell.errors import bad_request, not_found
from sleuth_shell.interactions.request import (
    MAX_CONTEXT_ITEMS,
    InvalidInteraction,
    parse_interaction_request,
)
from sleuth_shell.interactions.service import submit_interactions
from sleuth_shell.oauth.store import list_authorizations
from sleuth_shell.runs import RunFailed
from sleuth_shell.web.render import next_fire

__all__ = ["PER_PAGE", "ROUTES"]

PER_PAGE = 25
_UNFINISHED = ("PENDING", "RUNNING", "SCHEDULED")


def page_number(request: Request[Any, Any, Any]) -> int:
    """The ``page`` query parameter (1 when absent); 400 when it is not a positive integer."""
    raw = request.query_params.get("page") or "1"
    if not raw.isdigit() or not 0 < int(raw) <= 100_000:
        raise bad_request("Invalid page: a positive integer is required")
    return int(raw)


def page_links(request: Request[Any, Any, Any], number: int, has_next: bool) -> dict[str, str]:
    """Query strings of the newer/older pages, keeping the other filters."""
    params = {k: v for k, v in request.query_params.items() if k != "page" and v}
    links: dict[str, str] = {}
    if number > 1:
        links["newer"] = urlencode({**params, "page": number - 1})
    if has_next:
        links["older"] = urlencode({**params, "page": number + 1})
    return links


@get("/", **PAGE_OPTIONS)
async def home_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Recent investigations, running and scheduled work, recent questions, agents, digests."""
    org = viewer.org_id
    async with request.app.state.session_factory() as session:
        investigations = await latest(session, Investigation, Investigation.org_id == org, 10)
        running_inv = await latest(
            session,
            Investigation,
            (Investigation.org_id == org) & Investigation.status.in_(_UNFINISHED),
            10,
        )
        running_runs = (
            await session.execute(
                select(DigestRun, Digest)
                .join(Digest, Digest.id == DigestRun.digest_id)
                .where(DigestRun.org_id == org, DigestRun.status.in_(_UNFINISHED))
                .order_by(DigestRun.id.desc())
                .limit(10)
            )
        ).all()
        running_questions = await latest(
            session,
            Interaction,
            (Interaction.org_id == org) & Interaction.status.in_(_UNFINISHED),
            10,
            newest=Interaction.created_at,
        )
        questions = await latest(
            session, Interaction, Interaction.org_id == org, 8, newest=Interaction.created_at
        )
        agents = (
            await session.scalars(
                select(AlertResponder)
                .where(AlertResponder.org_id == org)
                .order_by(AlertResponder.name)
            )
        ).all()
        digests = (
            await session.scalars(select(Digest).where(Digest.org_id == org).order_by(Digest.name))
        ).all()
    now = utcnow()
    return page(
        "home.html",
        viewer,
        "home",
        title="Home",
        investigations=[(encode_global_id("Investigation", i.id), i) for i in investigations],
        running_inv=[(encode_global_id("Investigation", i.id), i) for i in running_inv],
        running_runs=[
            (encode_global_id("Digest", d.id), encode_global_id("DigestRun", r.id), r, d)
            for r, d in running_runs
        ],
        running_questions=running_questions,
        questions=questions,
        agents=[(encode_global_id("AlertResponder", a.id), a) for a in agents],
        digests=[
            (encode_global_id("Digest", d.id), d, next_fire(d.schedule, now)) for d in digests
        ],
    )


# --- ask ------------------------------------------------------------------------------------------


async def _earlier_questions(request: Request[Any, Any, Any], viewer: Viewer) -> list[Any]:
    async with request.app.state.session_factory() as session:
        return list(
            (
                await session.scalars(
                    select(Interaction)
                    .where(Interaction.org_id == viewer.org_id)
                    .order_by(Interaction.created_at.desc())
                    .limit(RECENT)
                )
            ).all()
        )


@get("/ask", **PAGE_OPTIONS)
async def ask_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """The question form and the earlier questions."""
    return page(
        "ask.html",
        viewer,
        "ask",
        title="Ask",
        questions=await _earlier_questions(request, viewer),
        error=None,
        question="",
    )


@post("/ask", status_code=303, **PAGE_OPTIONS)
async def ask(request: Request[Any, Any, Any], viewer: ViewerDep) -> Response[Any]:
    """Ask the agent now (in the request) and open the answer; ``follow_up`` carries the
    conversation of an earlier question as context."""
    data = await form_data(request, viewer)
    question = data.get("question", "")
    body: dict[str, Any] = {"question": question}
    follow_up = data.get("follow_up")
    services = request.app.state.services
    async with request.app.state.session_factory() as session:
        if follow_up:
            earlier = await owned(session, Interaction, follow_up, viewer.org_id)
            if earlier is None:
                raise not_found("Interaction")
            context = [c for c in earlier.context or [] if isinstance(c, dict)]
            context.append({"interaction_id": earlier.id})
            body["context"] = context[-MAX_CONTEXT_ITEMS:]
        try:
            parsed = parse_interaction_request(body, utcnow())
            submitted = await submit_interactions(
                session,
                services,
                org_id=viewer.org_id,
                team_id=viewer.team_id,
                api_key_id=viewer.key_id,
                api_key=None,
                request=parsed,
                now=utcnow(),
            )
        except InvalidInteraction as exc:
            return page(
                "ask.html",
                viewer,
                "ask",
                title="Ask",
                questions=await _earlier_questions(request, viewer),
                error=exc.detail,
                question=question,
                status_code=400,
            )
        except RunFailed:
            pass  # the interaction is FAILED; its page says so
    return Redirect(path=f"/interactions/{quote(submitted.rows[0].id)}", status_code=303)


# --- lists ----------------------------------------------------------------------------------------


@get("/alert-responders", **PAGE_OPTIONS)
async def agents_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """The organization's alert agents with their state and latest investigation."""
    async with request.app.state.session_factory() as session:
        agents = (
            await session.scalars(
                select(AlertResponder)
                .where(AlertResponder.org_id == viewer.org_id)
                .order_by(AlertResponder.name)
            )
        ).all()
        counts = dict(
            (
                await session.execute(
                    select(Investigation.alert_responder_id, func.count())
                    .where(Investigation.org_id == viewer.org_id)
                    .group_by(Investigation.alert_responder_id)
                )
            ).all()
        )
        teams = await team_names(session, viewer.org_id)
    return page(
        "agents.html",
        viewer,
        "agents",
        title="Alert agents",
        agents=[
            (
                encode_global_id("AlertResponder", a.id),
                a,
                teams.get(a.team_id, "-"),
                counts.get(a.id, 0),
            )
            for a in agents
        ],
    )


_STATUSES = ("PENDING", "RUNNING", "COMPLETED", "FAILED", "STOPPED")


@get("/investigations", **PAGE_OPTIONS)
async def investigations_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Investigations, newest first, filtered by agent and status, 25 a page."""
    number = page_number(request)
    status = request.query_params.get("status") or ""
    agent_gid = request.query_params.get("agent") or ""
    query = select(Investigation).where(Investigation.org_id == viewer.org_id)
    if status:
        if status not in _STATUSES:
            raise bad_request(f"Invalid status: must be one of {', '.join(_STATUSES)}")
        query = query.where(Investigation.status == status)
    async with request.app.state.session_factory() as session:
        agents = (
            await session.scalars(
                select(AlertResponder)
                .where(AlertResponder.org_id == viewer.org_id)
                .order_by(AlertResponder.name)
            )
        ).all()
        if agent_gid:
            pk = decode_global_id(agent_gid, "AlertResponder")
            query = query.where(Investigation.alert_responder_id == (pk or -1))
        rows = (
            await session.scalars(
                query.order_by(Investigation.id.desc())
                .offset((number - 1) * PER_PAGE)
                .limit(PER_PAGE + 1)
            )
        ).all()
    names = {a.id: a.name for a in agents}
    return page(
        "investigations.html",
        viewer,
        "investigations",
        title="Investigations",
        rows=[
            (encode_global_id("Investigation", i.id), i, names.get(i.alert_responder_id or 0, "-"))
            for i in rows[:PER_PAGE]
        ],
        agents=[(encode_global_id("AlertResponder", a.id), a.name) for a in agents],
        statuses=_STATUSES,
        status=status,
        agent=agent_gid,
        number=number,
        links=page_links(request, number, len(rows) > PER_PAGE),
    )


@get("/digests", **PAGE_OPTIONS)
async def digests_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Digests with their schedule in words and next fire time."""
    async with request.app.state.session_factory() as session:
        digests = (
            await session.scalars(
                select(Digest).where(Digest.org_id == viewer.org_id).order_by(Digest.name)
            )
        ).all()
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
    )


@post("/digests/{digest_id:str}/run", status_code=303, **PAGE_OPTIONS)
async def run_digest_now(
    request: Request[Any, Any, Any], viewer: ViewerDep, digest_id: FromPath[str]
) -> Response[Any]:
    """Run now: queue a run (the worker generates it) and go back to the digest."""
    await form_data(request, viewer)
    async with request.app.state.session_factory() as session:
        digest = await owned(session, Digest, decode_global_id(digest_id, "Digest"), viewer.org_id)
        if digest is None:
            raise not_found("Digest")
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


@get("/knowledge", **PAGE_OPTIONS)
async def knowledge_list_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Knowledge documents, newest first, filtered by a title/content text, 25 a page."""
    number = page_number(request)
    text = (request.query_params.get("q") or "").strip()
    query = select(KnowledgeDocument).where(KnowledgeDocument.org_id == viewer.org_id)
    if text:
        needle = f"%{text.lower()}%"
        query = query.where(
            or_(
                func.lower(KnowledgeDocument.title).like(needle),
                func.lower(KnowledgeDocument.content).like(needle),
            )
        )
    async with request.app.state.session_factory() as session:
        rows = (
            await session.scalars(
                query.order_by(KnowledgeDocument.id.desc())
                .offset((number - 1) * PER_PAGE)
                .limit(PER_PAGE + 1)
            )
        ).all()
    return page(
        "knowledge.html",
        viewer,
        "knowledge",
        title="Knowledge",
        rows=rows[:PER_PAGE],
        q=text,
        number=number,
        links=page_links(request, number, len(rows) > PER_PAGE),
    )


# --- settings -------------------------------------------------------------------------------------


async def _settings_context(request: Request[Any, Any, Any], viewer: Viewer) -> dict[str, Any]:
    async with request.app.state.session_factory() as session:
        document = await load_advanced_settings(session, viewer.org_id)
        keys = (
            await session.scalars(
                select(ApiKey)
                .where(ApiKey.org_id == viewer.org_id, ApiKey.revoked_at.is_(None))
                .order_by(ApiKey.id)
            )
        ).all()
        teams = await team_names(session, viewer.org_id)
        authorizations = await list_authorizations(
            session, viewer.org_id, key_id=None if viewer.admin else viewer.key_id
        )
    return {
        "document": json.dumps(document, indent=2, ensure_ascii=False),
        "keys": [(k, teams.get(k.team_id or 0, "-")) for k in keys],
        "authorizations": authorizations,
        "error": None,
        "notice": request.query_params.get("notice"),
    }


@get("/settings", **PAGE_OPTIONS)
async def settings_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """The advanced settings (editable by admins), for admins the API keys, and the applications
    authorized to use the MCP endpoint (an admin sees the organization's, anyone else their own
    key's; revoking is :mod:`sleuth_shell.web.oauth`)."""
    context = await _settings_context(request, viewer)
    return page("settings.html", viewer, "settings", title="Settings", **context)


@post("/settings", status_code=303, **PAGE_OPTIONS)
async def save_settings(request: Request[Any, Any, Any], viewer: ViewerDep) -> Response[Any]:
    """Replace the advanced settings (admins only); a bad document is shown again with the
    validation message next to the field and nothing changes."""
    data = await form_data(request, viewer)
    require_admin_viewer(viewer)
    text = data.get("document", "")
    error = None
    document: dict[str, Any] = {}
    try:
        document = validate_advanced_settings(json.loads(text))
    except InvalidSettings as exc:
        error = str(exc)
    except ValueError as exc:
        error = f"Not valid JSON: {exc}"
    if error is not None:
        context = await _settings_context(request, viewer)
        context.update(document=text, error=error)
        return page(
            "settings.html", viewer, "settings", title="Settings", status_code=400, **context
        )
    async with request.app.state.session_factory() as session:
        row = await session.get(AdvancedSettings, viewer.org_id)
        if row is None:
            session.add(AdvancedSettings(org_id=viewer.org_id, document=document))
        else:
            row.document = document
        await session.commit()
    return Redirect(path="/settings?notice=saved", status_code=303)


@post("/settings/api-keys/{key_id:int}/revoke", status_code=303, **PAGE_OPTIONS)
async def revoke_key(
    request: Request[Any, Any, Any], viewer: ViewerDep, key_id: FromPath[int]
) -> Response[Any]:
    """Revoke one of the organization's API keys (admins only; ``revoked_at`` is set as by
    ``sleuth admin revoke-key``, so its interactions stay attributed) and end its sessions. An admin
    cannot revoke the key they are signed in with (that would lock the page out mid-action)."""
    await form_data(request, viewer)
    require_admin_viewer(viewer)
    if key_id == viewer.key_id:
        raise bad_request("You cannot revoke the key you are signed in with")
    async with request.app.state.session_factory() as session:
        key = await owned(session, ApiKey, key_id, viewer.org_id)
        if key is None:
            raise not_found("API key")
        await session.execute(delete(WebSession).where(WebSession.api_key_id == key.id))
        if key.revoked_at is None:
            key.revoked_at = utcnow()
        await session.commit()
    return Redirect(path="/settings?notice=revoked", status_code=303)


ROUTES: list[Any] = [
    home_page,
    ask_page,
    ask,
    agents_page,
    investigations_page,
    digests_page,
    run_digest_now,
    knowledge_list_page,
    settings_page,
    save_settings,
    revoke_key,
]
