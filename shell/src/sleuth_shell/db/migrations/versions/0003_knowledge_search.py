"""knowledge full-text search

SQLite: an external-content FTS5 table ``knowledge_fts`` over ``knowledge_documents(title, content)``
with the ``porter unicode61`` tokenizer, filled from existing rows and kept in sync by triggers.
PostgreSQL: a GIN index on the weighted English ``tsvector`` of title and content (the expression
``sleuth_shell.knowledge.search.PG_DOCUMENT_VECTOR`` queries).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op


revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PG_VECTOR = (
    "setweight(to_tsvector('english', coalesce(title, '')), 'A') || "
    "setweight(to_tsvector('english', coalesce(content, '')), 'B')"
)

SQLITE_UP = [
    """
    CREATE VIRTUAL TABLE knowledge_fts USING fts5(
        title, content,
        content='knowledge_documents', content_rowid='id',
        tokenize='porter unicode61'
    )
    """,
    "INSERT INTO knowledge_fts(knowledge_fts) VALUES ('rebuild')",
    """
    CREATE TRIGGER knowledge_fts_after_insert AFTER INSERT ON knowledge_documents BEGIN
        INSERT INTO knowledge_fts(rowid, title, content) VALUES (new.id, new.title, new.content);
    END
    """,
    """
    CREATE TRIGGER knowledge_fts_after_delete AFTER DELETE ON knowledge_documents BEGIN
        INSERT INTO knowledge_fts(knowledge_fts, rowid, title, content)
        VALUES ('delete', old.id, old.title, old.content);
    END
    """,
    """
    CREATE TRIGGER knowledge_fts_after_update AFTER UPDATE ON knowledge_documents BEGIN
        INSERT INTO knowledge_fts(knowledge_fts, rowid, title, content)
        VALUES ('delete', old.id, old.title, old.content);
        INSERT INTO knowledge_fts(rowid, title, content) VALUES (new.id, new.title, new.content);
    END
    """,
]

SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS knowledge_fts_after_update",
    "DROP TRIGGER IF EXISTS knowledge_fts_after_delete",
    "DROP TRIGGER IF EXISTS knowledge_fts_after_insert",
    "DROP TABLE IF EXISTS knowledge_fts",
]


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == 'sqlite':
        for statement in SQLITE_UP:
            op.execute(statement)
    elif dialect == 'postgresql':
        op.execute(
            f"CREATE INDEX ix_knowledge_documents_fts ON knowledge_documents USING gin (({PG_VECTOR}))"
        )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == 'sqlite':
        for statement in SQLITE_DOWN:
            op.execute(statement)
    elif dialect == 'postgresql':
        op.execute("DROP INDEX IF EXISTS ix_knowledge_documents_fts")
