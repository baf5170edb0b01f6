"""data sources and evidence snapshots: ``data_sources``, ``evidence_snapshots``

Revision ID: 0018
Revises: 0020
Create Date: 2026-11-26

``data_sources`` holds the observability systems an organization's investigations query
(``kind`` ``prometheus``); ``name`` is unique per organization; ``headers`` is the encrypted
JSON of the request headers (never stored in the clear). ``evidence_snapshots`` keeps every query
result a run read from one, under its ``artifact_id`` (a random UUID): the query, range, step,
points as the source gave them, their SHA-256 and when they were fetched. A snapshot outlives its
data source (``ON DELETE SET NULL``, name and URL kept) and goes with its organization.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0018'
down_revision: str | None = '0020'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'data_sources',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('org_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=200), nullable=False),
        sa.Column('kind', sa.String(length=32), nullable=False),
        sa.Column('url', sa.Text(), nullable=False),
        sa.Column('service_label', sa.String(length=200), nullable=False),
        sa.Column('headers', sa.Text(), nullable=True),
        sa.Column('header_names', sa.JSON(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['org_id'], ['organizations.id'],
            name=op.f('fk_data_sources_org_id_organizations'), ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_data_sources')),
        sa.UniqueConstraint('org_id', 'name', name=op.f('uq_data_sources_org_id_name')),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f('ix_data_sources_org_id'), 'data_sources', ['org_id'])
    op.create_table(
        'evidence_snapshots',
        sa.Column('id', sa.String(length=32), nullable=False),
        sa.Column('org_id', sa.Integer(), nullable=False),
        sa.Column('data_source_id', sa.Integer(), nullable=True),
        sa.Column('data_source_name', sa.String(length=200), nullable=False),
        sa.Column('data_source_url', sa.Text(), nullable=False),
        sa.Column('query', sa.Text(), nullable=False),
        sa.Column('start', sa.DateTime(timezone=True), nullable=False),
        sa.Column('end', sa.DateTime(timezone=True), nullable=False),
        sa.Column('step', sa.Float(), nullable=False),
        sa.Column('points', sa.JSON(), nullable=False),
        sa.Column('sha256', sa.String(length=64), nullable=False),
        sa.Column('fetched_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['org_id'], ['organizations.id'],
            name=op.f('fk_evidence_snapshots_org_id_organizations'), ondelete='CASCADE',
        ),
        sa.ForeignKeyConstraint(
            ['data_source_id'], ['data_sources.id'],
            name=op.f('fk_evidence_snapshots_data_source_id_data_sources'), ondelete='SET NULL',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_evidence_snapshots')),
    )
    op.create_index(op.f('ix_evidence_snapshots_org_id'), 'evidence_snapshots', ['org_id'])
    op.create_index(
        op.f('ix_evidence_snapshots_data_source_id'), 'evidence_snapshots', ['data_source_id']
    )


def downgrade() -> None:
    op.drop_index(op.f('ix_evidence_snapshots_data_source_id'), table_name='evidence_snapshots')
    op.drop_index(op.f('ix_evidence_snapshots_org_id'), table_name='evidence_snapshots')
    op.drop_table('evidence_snapshots')
    op.drop_index(op.f('ix_data_sources_org_id'), table_name='data_sources')
    op.drop_table('data_sources')
