"""Knowledge: the documents (newest first, filtered by text, paged), one document rendered, the
form to add one and the button to delete it.

Adding is ``POST /api/v1/knowledge/documents``'s validation and store
(:mod:`sleuth_shell.knowledge.documents`), so a refused form shows the API's message; deleting is
``DELETE /api/v1/knowledge/documents/{id}``'s. Documents are not edited in place, as in the API:
a changed runbook is added again and the old one deleted.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template
from sqlalchemy import func, or_, select

from sleuth_shell.db.models import (
    KnowledgeDocument,
)
from sleuth_shell.domain import MAX_PK
from sleuth_shell.errors import not_found
from sleuth_shell.knowledge import documents
from sleuth_shell.knowledge.search import DatabaseKnowledgeSearch
from sleuth_shell.web.filters import PER_PAGE, page_links, page_number
from sleuth_shell.web.guard import PAGE_OPTIONS, Viewer, ViewerDep, form_data, form_page, page

__all__ = ["ROUTES"]


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
        notice=request.query_params.get("notice"),
    )


@get("/knowledge/{doc_id:int}", **PAGE_OPTIONS)
async def knowledge_page(
    doc_id: FromPath[int], request: Request[Any, Any, Any], viewer: ViewerDep
) -> Template:
    """A knowledge document, its markdown rendered (raw HTML escaped)."""
    document = None
    if 0 < doc_id <= MAX_PK:  # larger IDs name nothing (and would overflow PostgreSQL's INTEGER)
        document = await DatabaseKnowledgeSearch(request.app.state.session_factory).get(
            viewer.org_id, doc_id
        )
    if document is None:
        raise not_found("Knowledge document")
    return page("knowledge_doc.html", viewer, "knowledge", title=document.title, doc=document)


_BLANK = {"title": "", "content": "", "url": ""}


def _form_page(viewer: Viewer, form: dict[str, str], error: str | None = None) -> Template:
    return form_page(
        "knowledge_form.html",
        viewer,
        "knowledge",
        title="Add a knowledge document",
        form=form,
        error=error,
    )


@get("/knowledge/new", **PAGE_OPTIONS)
async def new_document_page(viewer: ViewerDep) -> Template:
    """The form to add a document (a runbook, a postmortem: markdown)."""
    return _form_page(viewer, dict(_BLANK))


@post("/knowledge/new", status_code=303, **PAGE_OPTIONS)
async def add_document(request: Request[Any, Any, Any], viewer: ViewerDep) -> Response[Any]:
    """Add the document (as ``POST /api/v1/knowledge/documents``) and open it."""
    data = await form_data(request, viewer)
    form = {key: data.get(key, "") for key in _BLANK}
    body: dict[str, Any] = {"title": form["title"], "content": form["content"]}
    if form["url"].strip():
        body["url"] = form["url"].strip()
    try:
        title, content, url = documents.validate(body)
    except documents.DocumentError as exc:
        return _form_page(viewer, form, str(exc))
    async with request.app.state.session_factory() as session:
        row = await documents.create(session, viewer.org_id, title, content, url)
    return Redirect(path=f"/knowledge/{row.id}", status_code=303)


@post("/knowledge/{doc_id:int}/delete", status_code=303, **PAGE_OPTIONS)
async def delete_document(
    doc_id: FromPath[int], request: Request[Any, Any, Any], viewer: ViewerDep
) -> Response[Any]:
    """Delete the document (as ``DELETE /api/v1/knowledge/documents/{id}``)."""
    await form_data(request, viewer)
    if 0 < doc_id <= MAX_PK:
        async with request.app.state.session_factory() as session:
            await documents.remove(session, viewer.org_id, doc_id)
    return Redirect(path="/knowledge?notice=deleted", status_code=303)


ROUTES: list[Any] = [
    knowledge_list_page,
    knowledge_page,
    new_document_page,
    add_document,
    delete_document,
]
