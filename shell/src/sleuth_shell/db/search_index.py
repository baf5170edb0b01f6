"""The full-text search index's database objects, which only migration 0003 defines (no ORM model).

Kept in ``db`` so the migration environment does not reach up into :mod:`sleuth_shell.knowledge`.
"""

from __future__ import annotations

__all__ = ["SEARCH_INDEX_OBJECTS", "include_object"]

SEARCH_INDEX_OBJECTS = frozenset(
    {
        "knowledge_fts",
        "knowledge_fts_config",
        "knowledge_fts_data",
        "knowledge_fts_docsize",
        "knowledge_fts_idx",
        "ix_knowledge_documents_fts",
    }
)
"""Database objects of the search index that only migration 0003 defines (no ORM model):
the FTS5 table and its shadow tables on SQLite, the GIN index on PostgreSQL."""


def include_object(
    obj: object, name: str | None, type_: str, reflected: bool, compare_to: object
) -> bool:
    """Alembic ``include_object`` hook: leave the search index out of model comparisons."""
    return not (reflected and compare_to is None and name in SEARCH_INDEX_OBJECTS)
