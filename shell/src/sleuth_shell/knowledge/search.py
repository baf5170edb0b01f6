"""Full-text search over ``knowledge_documents``, one backend per database dialect.

- SQLite: the external-content FTS5 table ``knowledge_fts`` (``porter unicode61`` tokenizer), kept
  in sync with ``knowledge_documents`` by triggers (migration ``0003``), ranked with ``bm25`` with
  the title weighted 4x the body.
- PostgreSQL: ``to_tsvector('english', ...)`` of the title (weight A) and body (weight B), matched
  with ``websearch_to_tsquery`` and ranked with ``ts_rank``; the same expression has a GIN index
  (migration ``0003``).

On SQLite every write of documents merges the index as it goes (:func:`merge_search_index`):
FTS5 adds b-trees per write transaction, and a search reads every b-tree for every word.

A query is reduced to its words (`sleuth_core.language.terms`) and any of them may match;
documents matching more, rarer and title words rank higher. Ties go to the lower document id, so
results are deterministic. All dialect-specific SQL of the knowledge catalog lives here.
"""

from __future__ import annotations

from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_core.language import terms
from sleuth_shell.agents.base import KnowledgeDocument, KnowledgeHit
from sleuth_shell.db import models
from sleuth_shell.db.hot_reads import HotStatements
from sleuth_shell.db.search_index import SEARCH_INDEX_OBJECTS, include_object
from sleuth_shell.text import best_passage

__all__ = [
    "PG_DOCUMENT_VECTOR",
    "SEARCH_INDEX_MERGE_PAGES",
    "SEARCH_INDEX_OBJECTS",
    "DatabaseKnowledgeSearch",
    "fts5_match_expression",
    "include_object",
    "merge_search_index",
]

PG_DOCUMENT_VECTOR = (
    "setweight(to_tsvector('english', coalesce(title, '')), 'A') || "
    "setweight(to_tsvector('english', coalesce(content, '')), 'B')"
)
"""The indexed document vector on PostgreSQL; must equal the GIN index expression of 0003."""


_SNIPPET_CHARS = 240
_MAX_TERMS = 32

_SQLITE_SEARCH = text(
    """
    SELECT d.id, d.title, d.content, d.url, bm25(knowledge_fts, 4.0, 1.0) AS rank
    FROM knowledge_fts JOIN knowledge_documents AS d ON d.id = knowledge_fts.rowid
    WHERE knowledge_fts MATCH :match AND d.org_id = :org_id
    ORDER BY rank, d.id
    LIMIT :limit
    """
)
_SQLITE_SEARCH_SQL = str(_SQLITE_SEARCH)

_PG_SEARCH = text(
    f"""
    SELECT d.id, d.title, d.content, d.url, ts_rank({PG_DOCUMENT_VECTOR}, q.query) AS rank
    FROM knowledge_documents AS d, websearch_to_tsquery('english', :match) AS q(query)
    WHERE d.org_id = :org_id AND ({PG_DOCUMENT_VECTOR}) @@ q.query
    ORDER BY rank DESC, d.id
    LIMIT :limit
    """
)
_PG_SEARCH_SQL = str(_PG_SEARCH)


#: At most about this many pages (4 KB each) of the FTS5 index rewritten by one write of
#: documents while it merges the index.
SEARCH_INDEX_MERGE_PAGES = 500

_SQLITE_MERGE = text("INSERT INTO knowledge_fts(knowledge_fts, rank) VALUES ('merge', :pages)")


async def merge_search_index(session: AsyncSession) -> None:
    """Merge SQLite's full-text index, in the session's transaction.

    FTS5 keeps its index as b-trees on levels and adds at least one b-tree per write transaction
    (a document created through the API is one); a search looks every word up in every b-tree, so
    a catalog written a document at a time searched 3-4x slower than the same catalog merged (the
    root-cause questions' status search: 0.81 ms with 12 b-trees, 0.18 ms with one). FTS5's own
    automatic merging only starts at four b-trees of a level. FTS5's ``merge`` command with a
    positive page count merges the b-trees of a level once ``usermerge`` of them are there
    (migration 0025 sets it to 2), writing at most about :data:`SEARCH_INDEX_MERGE_PAGES` pages
    per call, the next write going on where this one stopped: the index keeps at most about as
    many levels as its number of writes has binary digits, and fewer b-trees (2,500 documents
    written one at a time: 6 b-trees on 12 levels; eight: one b-tree).

    Never a negative page count (an incremental ``optimize``) on every write: each one puts every
    b-tree on a new level above the highest and the merged one higher still, two levels per
    write that are never given back, and the FTS5 of SQLite 3.40 reads an index of more than
    2,000 levels as corrupt (``database disk image is malformed`` on every search and write of
    documents, after about 1,000 writes). Results and scores do not depend on the merging: the
    same terms with the same statistics. PostgreSQL's GIN index needs nothing of the kind.
    """
    if session.get_bind().dialect.name == "sqlite":
        await session.execute(_SQLITE_MERGE, {"pages": SEARCH_INDEX_MERGE_PAGES})


def fts5_match_expression(words: list[str]) -> str:
    """An FTS5 MATCH expression matching any of ``words`` (each quoted, so no word is syntax)."""
    return " OR ".join('"' + word.replace('"', '""') + '"' for word in words)


def _snippet(content: str, words: list[str]) -> str:
    _, passage = best_passage(content, words, max_chars=_SNIPPET_CHARS)
    return " ".join(passage.split())


class DatabaseKnowledgeSearch:
    """`sleuth_shell.agents.base.KnowledgeSearch` over the shell's database."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._hot = HotStatements(sessions)

    async def search(self, org_id: int, query: str, limit: int = 5) -> list[KnowledgeHit]:
        """Documents of ``org_id`` matching any word of ``query``, best first, at most ``limit``."""
        words = terms(query)[:_MAX_TERMS]
        if not words or limit <= 0:
            return []
        if self._hot.dialect == "postgresql":
            statement, sql, match, sign = _PG_SEARCH, _PG_SEARCH_SQL, " or ".join(words), 1.0
        elif self._hot.dialect == "sqlite":
            statement, sql = _SQLITE_SEARCH, _SQLITE_SEARCH_SQL
            match, sign = fts5_match_expression(words), -1.0
        else:
            raise RuntimeError(f"knowledge search does not support {self._hot.dialect!r}")
        # The prebuilt text on the hot-read path: the plain sqlite3 connection of a SQLite file,
        # the reader's pool on PostgreSQL (one round trip), else a session.
        params = {"match": match, "org_id": org_id, "limit": limit}
        found = await self._hot.text_rows(sql, statement, params)
        return [
            KnowledgeHit(
                id=doc_id,
                title=title,
                url=url,
                snippet=_snippet(content, words),
                score=sign * float(rank),
                content=content,
            )
            for doc_id, title, content, url, rank in found
        ]

    async def get(self, org_id: int, doc_id: int) -> KnowledgeDocument | None:
        """The document ``doc_id`` if it belongs to ``org_id``."""
        async with self._sessions() as session:
            row = (
                await session.execute(
                    select(models.KnowledgeDocument).where(
                        models.KnowledgeDocument.id == doc_id,
                        models.KnowledgeDocument.org_id == org_id,
                    )
                )
            ).scalar_one_or_none()
        if row is None:
            return None
        return KnowledgeDocument(
            id=row.id, title=row.title, content=row.content, url=row.url, created_at=row.created_at
        )
