"""read path: log records indexed by level too; the knowledge search index merged once

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-24

- ``ix_log_records_org_id_service_level_timestamp``: the error histograms of a root-cause
  investigation (one service, the error levels, a time range, bucketed by time) read it alone,
  without a table lookup per log line.
- SQLite: the FTS5 index ``knowledge_fts`` is merged into one b-tree. Every write transaction
  had added b-trees of its own (one per document created through the API), and a search reads
  every b-tree for every word; since this revision each write of documents merges as it goes
  (``sleuth_shell.knowledge.search.merge_search_index``), so this is needed once, for the
  documents written before. Results and scores do not change (same terms, same statistics).
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = '0015'
down_revision: str | None = '0014'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        op.f('ix_log_records_org_id_service_level_timestamp'),
        'log_records',
        ['org_id', 'service', 'level', 'timestamp'],
    )
    if op.get_bind().dialect.name == 'sqlite':
        op.execute("INSERT INTO knowledge_fts(knowledge_fts) VALUES('optimize')")


def downgrade() -> None:
    # The merged search index stays merged: it is the same index in fewer b-trees.
    op.drop_index(
        op.f('ix_log_records_org_id_service_level_timestamp'), table_name='log_records'
    )
