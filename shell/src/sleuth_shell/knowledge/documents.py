"""Creating, listing and deleting knowledge documents, with the validation of their fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast
from urllib.parse import urlsplit

from sqlalchemy import CursorResult, delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.db import models
from sleuth_shell.knowledge.search import merge_search_index

__all__ = ["MAX_CONTENT_CHARS", "MAX_TITLE_CHARS", "DocumentError", "create", "list_all", "remove"]

MAX_TITLE_CHARS = 500
MAX_CONTENT_CHARS = 1_000_000
_FIELDS = frozenset({"title", "content", "url"})


class DocumentError(ValueError):
    """A document field is invalid; the message is the API's 400 detail."""


def validate(body: Any) -> tuple[str, str, str | None]:
    """``(title, content, url)`` from a request body, or `DocumentError` naming the bad field."""
    if not isinstance(body, Mapping):
        raise DocumentError("Request body must be a JSON object")
    unknown = sorted(set(body) - _FIELDS)
    if unknown:
        raise DocumentError(f"Unknown field: {unknown[0]}")
    title = body.get("title")
    if not isinstance(title, str) or not title.strip():
        raise DocumentError("Invalid title: a non-empty string is required")
    if len(title) > MAX_TITLE_CHARS:
        raise DocumentError(f"Invalid title: at most {MAX_TITLE_CHARS} characters")
    content = body.get("content")
    if not isinstance(content, str) or not content.strip():
        raise DocumentError("Invalid content: a non-empty string is required")
    if len(content) > MAX_CONTENT_CHARS:
        raise DocumentError(f"Invalid content: at most {MAX_CONTENT_CHARS} characters")
    url = body.get("url")
    if url is not None:
        parts = urlsplit(url) if isinstance(url, str) else None
        if parts is None or parts.scheme not in {"http", "https"} or not parts.netloc:
            raise DocumentError("Invalid url: an absolute http(s) URL is required")
    return title.strip(), content, url


async def create(
    session: AsyncSession, org_id: int, title: str, content: str, url: str | None
) -> models.KnowledgeDocument:
    """Store a document (the search index follows it, merged as it goes) and commit."""
    document = models.KnowledgeDocument(org_id=org_id, title=title, content=content, url=url)
    session.add(document)
    await session.flush()
    await merge_search_index(session)
    await session.commit()
    return document


async def list_all(session: AsyncSession, org_id: int) -> list[models.KnowledgeDocument]:
    """The organization's documents, oldest first."""
    rows = await session.scalars(
        select(models.KnowledgeDocument)
        .where(models.KnowledgeDocument.org_id == org_id)
        .order_by(models.KnowledgeDocument.id)
    )
    return list(rows)


async def remove(session: AsyncSession, org_id: int, doc_id: int) -> bool:
    """Delete a document of the organization (and from the search index, merged as it goes) and
    commit; whether one was deleted."""
    # A DELETE without RETURNING gives a CursorResult; the session types every result as Result
    # (SQLAlchemy's documented remedy is this cast).
    result = cast(
        "CursorResult[Any]",
        await session.execute(
            delete(models.KnowledgeDocument).where(
                models.KnowledgeDocument.id == doc_id, models.KnowledgeDocument.org_id == org_id
            )
        ),
    )
    if result.rowcount:
        await merge_search_index(session)
    await session.commit()
    return bool(result.rowcount)
