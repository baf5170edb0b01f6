"""knowledge search index: rebuilt with few levels, merged by FTS5's own rules (usermerge 2)

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-27

SQLite only. Until this revision every write of documents ran FTS5's ``merge`` command with a
negative page count (an ``optimize``). Each such command puts every b-tree on a new level above
the highest and the merged b-tree one level higher still: the index's level count grew by two per
write and never shrank. The FTS5 of SQLite 3.40 (Debian 12's, which Python's ``sqlite3`` uses
here) does not cap it: past 2,000 levels FTS5 reads its own structure record as corrupt, and every
search, every write of documents and even opening the table fail with ``database disk image is
malformed`` or ``vtable constructor failed`` (after 1,000 to 1,100 document writes in one
database; the root-cause evaluation with perturbed splits met it). ``PRAGMA integrity_check``
still says ``ok``: the file is sound, the index's own record is not. PostgreSQL is not affected.

- The index is rebuilt from ``knowledge_documents`` and merged once. Its structure record is
  first reset to an empty one (the record FTS5 writes for an empty index): an index already past
  the limit cannot be opened, so ``rebuild`` alone would fail there. ``rebuild`` replaces every
  record of the index anyway.
- ``usermerge`` is set to 2: :func:`sleuth_shell.knowledge.search.merge_search_index` now runs
  ``merge`` with a positive page count, which merges any two b-trees of one level (the level
  count then grows with the logarithm of the writes, as FTS5's automatic merging does).
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: FTS5's structure record of an empty index: a 4-byte cookie, then 0 levels, 0 segments and a
#: write counter of 0 (one-byte varints). Its row id in ``%_data`` is 10.
EMPTY_STRUCTURE = "X'00000000000000'"


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    op.execute(f"UPDATE knowledge_fts_data SET block = {EMPTY_STRUCTURE} WHERE id = 10")
    op.execute("INSERT INTO knowledge_fts(knowledge_fts) VALUES ('rebuild')")
    op.execute("INSERT INTO knowledge_fts(knowledge_fts) VALUES ('optimize')")
    op.execute("INSERT INTO knowledge_fts(knowledge_fts, rank) VALUES ('usermerge', 2)")


def downgrade() -> None:
    # The rebuilt index is the same index; FTS5's default ``usermerge`` is 4.
    if op.get_bind().dialect.name == "sqlite":
        op.execute("INSERT INTO knowledge_fts(knowledge_fts, rank) VALUES ('usermerge', 4)")
