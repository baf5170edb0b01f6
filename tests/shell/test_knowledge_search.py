"""Full-text search of the knowledge catalog (FTS5 bm25 on SQLite, ts_rank on PostgreSQL)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import delete, text, update

from sleuth_shell import admin
from sleuth_shell.db import create_engine, create_session_factory, migrate
from sleuth_shell.db.models import KnowledgeDocument
from sleuth_shell.knowledge import documents
from sleuth_shell.knowledge.search import DatabaseKnowledgeSearch, fts5_match_expression

pytestmark = pytest.mark.storage

DOCS = [
    ("Redis cache evictions", "When memory is full, Redis evicts keys. Check maxmemory."),
    ("Checkout errors", "If checkout fails, look at payments. Redis is used for carts."),
    ("TLS certificates", "Renew certificates with cert-manager."),
]


def run(url: str, action: Any) -> Any:
    async def go() -> Any:
        engine = create_engine(url)
        try:
            sessions = create_session_factory(engine)
            return await action(sessions)
        finally:
            await engine.dispose()

    return asyncio.run(go())


@pytest.fixture
def catalog(migrated_url: str) -> tuple[str, int, int]:
    database_url = migrated_url

    async def setup(sessions: Any) -> tuple[int, int]:
        async with sessions() as session:
            org = await admin.create_org(session, "acme")
            other = await admin.create_org(session, "other")
            session.add_all(KnowledgeDocument(org_id=org.id, title=t, content=c) for t, c in DOCS)
            session.add(KnowledgeDocument(org_id=other.id, title="Redis secrets", content="x"))
            await session.commit()
            return org.id, other.id

    org_id, other_id = run(database_url, setup)
    return database_url, org_id, other_id


def search(url: str, org_id: int, query: str, limit: int = 5) -> list[str]:
    async def go(sessions: Any) -> list[str]:
        hits = await DatabaseKnowledgeSearch(sessions).search(org_id, query, limit)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        return [h.title for h in hits]

    return run(url, go)


def test_title_matches_rank_first_and_only_matches_are_returned(catalog) -> None:
    url, org_id, _ = catalog
    assert search(url, org_id, "redis evictions") == ["Redis cache evictions", "Checkout errors"]
    assert search(url, org_id, "certificate renewal") == ["TLS certificates"]
    assert search(url, org_id, "kubernetes") == []


def test_search_is_scoped_to_the_organization(catalog) -> None:
    url, org_id, other_id = catalog
    assert "Redis secrets" not in search(url, org_id, "redis")
    assert search(url, other_id, "redis") == ["Redis secrets"]


def test_limit_and_stopword_only_queries(catalog) -> None:
    url, org_id, _ = catalog
    assert len(search(url, org_id, "redis", limit=1)) == 1
    assert search(url, org_id, "how do I the") == []


REDIS_HITS = ["Redis cache evictions", "Checkout errors"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ('redis" OR *', REDIS_HITS),  # a quote and a bare star (FTS5 syntax errors if passed on)
        ("NEAR(redis", REDIS_HITS),  # FTS5's NEAR group, unclosed
        ("(evictions)*", ["Redis cache evictions"]),  # a group and a prefix star
        ("title:certificates", ["TLS certificates"]),  # a column filter in FTS5
        ("maxmemory:", ["Redis cache evictions"]),  # a dangling colon
        ('"renew" AND (cert-manager)', ["TLS certificates"]),  # phrase, operator, group, hyphen
        ("checkout -payments", ["Checkout errors"]),  # "-" is not NOT (websearch_to_tsquery)
        ("a:b (c", []),  # no searchable word at all
    ],
)
def test_user_text_is_never_query_syntax(catalog, query: str, expected: list[str]) -> None:
    """Operator characters are plain text: the documents the words name come back, no others."""
    url, org_id, _ = catalog
    assert search(url, org_id, query) == expected


def test_index_follows_updates_and_deletes(catalog) -> None:
    url, org_id, _ = catalog

    async def change(sessions: Any) -> None:
        async with sessions() as session:
            await session.execute(
                update(KnowledgeDocument)
                .where(KnowledgeDocument.title == "TLS certificates")
                .values(title="Kafka consumer lag", content="Scale the consumers.")
            )
            await session.execute(
                delete(KnowledgeDocument).where(KnowledgeDocument.title == "Checkout errors")
            )
            await session.commit()

    run(url, change)
    assert search(url, org_id, "kafka lag") == ["Kafka consumer lag"]
    assert search(url, org_id, "certificates") == []
    assert search(url, org_id, "redis") == ["Redis cache evictions"]


def test_match_expression_quotes_every_word() -> None:
    assert fts5_match_expression(["redis", 'a"b']) == '"redis" OR "a""b"'


def _fts_rows(url: str) -> int:
    """Rows of FTS5's index table: the structure and averages records plus each b-tree's pages."""

    async def go(sessions: Any) -> int:
        async with sessions() as session:
            return int(
                (
                    await session.execute(text("SELECT count(*) FROM knowledge_fts_data"))
                ).scalar_one()
            )

    return run(url, go)


def _optimize(url: str) -> None:
    async def go(sessions: Any) -> None:
        async with sessions() as session:
            await session.execute(
                text("INSERT INTO knowledge_fts(knowledge_fts) VALUES ('optimize')")
            )
            await session.execute(
                text("INSERT INTO knowledge_fts(knowledge_fts) VALUES ('integrity-check')")
            )
            await session.commit()

    run(url, go)


def test_documents_written_one_at_a_time_leave_a_merged_index(
    migrated_url: str, backend: str
) -> None:
    """Each write of documents merges FTS5's b-trees as it goes (merge_search_index): after
    eight documents created one request at a time and one deleted, a full ``optimize`` finds
    nothing left to merge, and searches answer as before."""
    url = migrated_url
    titles = [f"Runbook {n}: restart worker pool {n}" for n in range(8)]

    async def write(sessions: Any) -> int:
        async with sessions() as session:
            org_id = (await admin.create_org(session, "acme")).id
        for title in titles:  # one transaction each, as POST /api/v1/knowledge does
            async with sessions() as session:
                await documents.create(session, org_id, title, f"{title} body text", None)
        async with sessions() as session:
            removed = (await documents.list_all(session, org_id))[3]
            assert await documents.remove(session, org_id, removed.id)
        return org_id

    org_id = run(url, write)
    expected = [t for n, t in enumerate(titles) if n != 3]
    assert sorted(search(url, org_id, "restart worker pool", 10)) == sorted(expected)
    if backend != "sqlite":
        return  # PostgreSQL's GIN index: merge_search_index does nothing there
    merged = _fts_rows(url)
    _optimize(url)  # and checks the index against the documents
    assert _fts_rows(url) == merged
    assert merged <= 3  # structure, averages, one b-tree of one page (8 one-b-tree writes: 10+)
    assert sorted(search(url, org_id, "restart worker pool", 10)) == sorted(expected)


def test_the_merge_changes_neither_results_nor_scores(tmp_path: Any) -> None:
    """The same catalog written a document at a time, unmerged and merged (migration 0015's
    one-off ``optimize``): the same hits with the same scores."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'k.db'}"
    migrate(url.replace("+aiosqlite", ""))
    many = [(f"{t} {n}", f"{c} step {n}") for n in range(4) for t, c in DOCS]

    async def write(sessions: Any) -> int:
        async with sessions() as session:
            org_id = (await admin.create_org(session, "acme")).id
        for title, content in many:  # bypassing merge_search_index: one b-tree per document
            async with sessions() as session:
                session.add(KnowledgeDocument(org_id=org_id, title=title, content=content))
                await session.commit()
        return org_id

    org_id = run(url, write)

    def scored(query: str) -> list[tuple[str, float]]:
        async def go(sessions: Any) -> list[tuple[str, float]]:
            hits = await DatabaseKnowledgeSearch(sessions).search(org_id, query, 20)
            return [(h.title, h.score) for h in hits]

        return run(url, go)

    queries = ["redis checkout payments", "certificates renew", "step keys memory carts"]
    before = [scored(q) for q in queries]
    unmerged = _fts_rows(url)
    _optimize(url)
    assert _fts_rows(url) < unmerged
    assert [scored(q) for q in queries] == before
    assert all(before)
