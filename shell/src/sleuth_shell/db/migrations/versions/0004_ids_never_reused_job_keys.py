"""ids are never reused (SQLite AUTOINCREMENT); job keys

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23

SQLite issues the largest rowid plus one to a new row, so the id of the newest row is issued again
once that row is deleted: a deleted alert agent's Global ID could open another organization's new
agent. ``AUTOINCREMENT`` keeps the largest id ever issued (in ``sqlite_sequence``) and never goes
below it. SQLite cannot add it to an existing table, so every table with an integer id is rebuilt
(Alembic batch mode: copy, drop, rename; ``env.py`` turns foreign keys off for this, so dropping a
parent does not cascade, and checks them at the end). Rows keep their ids, and indexes,
constraints and the knowledge full-text triggers (which SQLite drops with their table) are
recreated; the full-text index stays valid because the document ids do not change. PostgreSQL's
identity sequences never reuse a value, so nothing changes there.

``jobs.key`` (nullable, indexed with ``kind``) names what a job is about, so a feature finds and
cancels its jobs by ``(kind, key)`` instead of reading their payload. The digest jobs already
queued get theirs here (the digest id, as ``sleuth_shell.digests.service`` now enqueues them), so
their pending cron fires are still found, replaced and cancelled.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: Every table with an integer surrogate id (parents first).
ID_TABLES = (
    'organizations',
    'teams',
    'api_keys',
    'webhook_subscriptions',
    'notification_integrations',
    'alert_responders',
    'investigations',
    'digests',
    'digest_runs',
    'knowledge_documents',
    'log_records',
    'chat_messages',
    'usage_events',
    'jobs',
)

#: The knowledge full-text triggers of 0003, dropped by SQLite with ``knowledge_documents``.
KNOWLEDGE_TRIGGERS = [
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


def _key_column() -> sa.Column[str]:
    return sa.Column('key', sa.String(length=255), nullable=True)


def _rebuild_sqlite(autoincrement: bool, *, job_key: bool) -> None:
    bind = op.get_bind()
    if bind.exec_driver_sql("PRAGMA foreign_keys").scalar():
        raise RuntimeError("migration 0004 rebuilds tables and must run with foreign keys off")
    for table in ID_TABLES:
        with op.batch_alter_table(
            table, recreate='always', table_kwargs={'sqlite_autoincrement': autoincrement}
        ) as batch:
            if table == 'jobs' and job_key:
                batch.add_column(_key_column())
                batch.create_index(op.f('ix_jobs_kind_key'), ['kind', 'key'], unique=False)
            elif table == 'jobs':
                batch.drop_index(op.f('ix_jobs_kind_key'))
                batch.drop_column('key')
    for statement in KNOWLEDGE_TRIGGERS:
        op.execute(statement)


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        _rebuild_sqlite(True, job_key=True)
        digest_id = "CAST(json_extract(payload, '$.digest_id') AS TEXT)"
    else:
        op.add_column('jobs', _key_column())
        op.create_index(op.f('ix_jobs_kind_key'), 'jobs', ['kind', 'key'], unique=False)
        digest_id = "payload ->> 'digest_id'"
    op.execute(
        f"UPDATE jobs SET \"key\" = {digest_id} "
        f"WHERE kind IN ('digest.cron', 'digest.run') AND {digest_id} IS NOT NULL"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        _rebuild_sqlite(False, job_key=False)
        return
    op.drop_index(op.f('ix_jobs_kind_key'), table_name='jobs')
    op.drop_column('jobs', 'key')
