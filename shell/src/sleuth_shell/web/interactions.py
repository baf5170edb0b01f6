"""Questions: the Ask page (the form and the earlier questions), asking, the list of past
questions (newest first, by status, paged), and one question's page with its answer, numbered
citations and sources.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from litestar import Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template

from sleuth_shell.db.models import (
    utcnow,
)
from sleuth_shell.db.paging import PageRequest
from sleuth_shell.errors import bad_request, not_found
from sleuth_shell.interactions.queries import list_interactions, load_interaction
from sleuth_shell.interactions.request import (
    MAX_CONTEXT_ITEMS,
    InvalidInteraction,
    parse_interaction_request,
)
from sleuth_shell.interactions.service import submit_interactions
from sleuth_shell.runs import RunFailed
from sleuth_shell.statuses import INTERACTION
from sleuth_shell.web.filters import PER_PAGE, page_links, page_number
from sleuth_shell.web.guard import PAGE_OPTIONS, Viewer, ViewerDep, form_data, page
from sleuth_shell.web.rows import RECENT

__all__ = ["ROUTES"]


async def _earlier_questions(request: Request[Any, Any, Any], viewer: Viewer) -> list[Any]:
    async with request.app.state.session_factory() as session:
        found = await list_interactions(session, viewer.org_id, PageRequest(limit=RECENT))
    return [row for (row,) in found.rows]


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
            earlier = await load_interaction(session, viewer.org_id, follow_up)
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


@get("/interactions", **PAGE_OPTIONS)
async def interactions_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Past questions, newest first, filtered by status, 25 a page."""
    number = page_number(request)
    status = request.query_params.get("status") or ""
    if status and status not in INTERACTION.values:
        raise bad_request(f"Invalid status: must be one of {', '.join(INTERACTION.values)}")
    async with request.app.state.session_factory() as session:
        found = await list_interactions(
            session,
            viewer.org_id,
            PageRequest(limit=PER_PAGE, offset=(number - 1) * PER_PAGE),
            status=[status] if status else None,
        )
    return page(
        "interactions.html",
        viewer,
        "ask",
        title="Questions",
        rows=[row for (row,) in found.rows],
        statuses=INTERACTION.values,
        status=status,
        number=number,
        links=page_links(request, number, found.next_cursor is not None),
    )


@get("/interactions/{interaction_id:str}", **PAGE_OPTIONS)
async def interaction_page(
    request: Request[Any, Any, Any], viewer: ViewerDep, interaction_id: FromPath[str]
) -> Template:
    """One question: its status, the answer with numbered citations, its sources, a follow-up."""
    async with request.app.state.session_factory() as session:
        interaction = await load_interaction(session, viewer.org_id, interaction_id)
        if interaction is None:
            raise not_found("Interaction")
        earlier = []
        for item in interaction.context or []:
            ref = item.get("interaction_id") if isinstance(item, Mapping) else None
            if isinstance(ref, str):
                row = await load_interaction(session, viewer.org_id, ref)
                if row is not None:
                    earlier.append(row)
    return page(
        "interaction.html",
        viewer,
        "ask",
        title=interaction.question[:80],
        interaction=interaction,
        earlier=earlier,
    )


ROUTES: list[Any] = [ask_page, ask, interactions_page, interaction_page]
