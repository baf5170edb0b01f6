"""Knowledge: the documents (newest first, filtered by text, paged) and one document rendered."""

from __future__ import annotations

from typing import Any

from litestar import Request, get
from litestar.params import FromPath
from litestar.response import Template
from sqlalchemy import func, or_, select

from sleuth_shell.db.models import (
    KnowledgeDocument,
)
from sleuth_shell.domain import MAX_PK
from sleuth_shell.errors import not_found
from sleuth_shell.knowledge.search import DatabaseKnowledgeSearch
from sleuth_shell.web.filters import PER_PAGE, page_links, page_number
from sleuth_shell.web.guard import PAGE_OPTIONS, ViewerDep, page

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


ROUTES: list[Any] = [knowledge_list_page, knowledge_page]
