"""``/api/v1/knowledge/documents``: the knowledge catalog the agent searches and cites."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from litestar import Request, delete, get, post
from litestar.params import FromPath

from sleuth_shell.api.body import decode_json_body
from sleuth_shell.api.common import MAX_PK
from sleuth_shell.api.deps import CurrentPrincipal, DbSession
from sleuth_shell.errors import bad_request
from sleuth_shell.knowledge import documents

__all__ = ["ROUTES"]


class DocumentCreated(msgspec.Struct):
    id: int
    title: str


class DocumentItem(msgspec.Struct):
    id: int
    title: str
    url: str | None
    created_at: datetime


class DocumentList(msgspec.Struct):
    documents: list[DocumentItem]


class Deleted(msgspec.Struct):
    success: bool


async def json_body(request: Request[Any, Any, Any]) -> Any:
    """The request body parsed as JSON (``None`` when empty), or 400 naming the problem."""
    try:
        return decode_json_body(await request.body(), not_json="Request body must be a JSON object")
    except ValueError as exc:
        raise bad_request(str(exc)) from None


@post(
    "/knowledge/documents",
    operation_id="createKnowledgeDocument",
    tags=["knowledge"],
    status_code=200,
)
async def create_document(
    request: Request[Any, Any, Any], principal: CurrentPrincipal, db_session: DbSession
) -> DocumentCreated:
    """Add a document (``{title, content, url?}``) to the organization's knowledge catalog."""
    try:
        title, content, url = documents.validate(await json_body(request))
    except documents.DocumentError as exc:
        raise bad_request(str(exc)) from None
    row = await documents.create(db_session, principal.org_id, title, content, url)
    return DocumentCreated(id=row.id, title=row.title)


@get("/knowledge/documents", operation_id="listKnowledgeDocuments", tags=["knowledge"])
async def list_documents(principal: CurrentPrincipal, db_session: DbSession) -> DocumentList:
    """The organization's knowledge documents, oldest first (without their content)."""
    rows = await documents.list_all(db_session, principal.org_id)
    return DocumentList(documents=[DocumentItem(r.id, r.title, r.url, r.created_at) for r in rows])


@delete(
    "/knowledge/documents/{doc_id:int}",
    operation_id="deleteKnowledgeDocument",
    tags=["knowledge"],
    status_code=200,
)
async def delete_document(
    doc_id: FromPath[int], principal: CurrentPrincipal, db_session: DbSession
) -> Deleted:
    """Remove a document; idempotent, like the other deletes (``{"success": true}``)."""
    if 0 < doc_id <= MAX_PK:  # larger IDs name nothing (and overflow PostgreSQL's INTEGER)
        await documents.remove(db_session, principal.org_id, doc_id)
    return Deleted(success=True)


ROUTES = [create_document, list_documents, delete_document]
