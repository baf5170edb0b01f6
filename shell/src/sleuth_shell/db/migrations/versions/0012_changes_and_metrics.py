"""change records and metrics: ``changes``, ``metric_series``, ``metric_points``

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-23

``changes`` holds the deploys, commits, flag flips and config changes sent to
``POST /api/v1/changes``: ``change_id`` is the record's own id, unique per organization (a record
sent again replaces the row's content and keeps its ``id``, which page links carry), indexed for the
time-range reads by organization and by service. ``metric_series`` is one row per (organization,
name, service, labels); ``labels_key`` is the labels' canonical JSON. ``metric_points`` keys each
point by ``(series_id, timestamp)``: the primary key is the time index, and a point sent again for
the same time overwrites its value. Every row goes with its organization (``ON DELETE CASCADE``).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0012'
down_revision: str | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'changes',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('org_id', sa.Integer(), nullable=False),
        sa.Column('change_id', sa.String(length=255), nullable=False),
        sa.Column('timestamp', sa.DateTime(timezone=True), nullable=False),
        sa.Column('service', sa.String(length=200), nullable=False),
        sa.Column('kind', sa.String(length=16), nullable=False),
        sa.Column('summary', sa.Text(), nullable=False),
        sa.Column('author', sa.String(length=200), nullable=True),
        sa.Column('url', sa.Text(), nullable=True),
        sa.Column('files', sa.JSON(), nullable=False),
        sa.Column('diff', sa.Text(), nullable=False),
        sa.Column('ships', sa.JSON(), nullable=False),
        sa.Column('attributes', sa.JSON(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['org_id'], ['organizations.id'],
            name=op.f('fk_changes_org_id_organizations'), ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_changes')),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f('ix_changes_org_id_timestamp'), 'changes', ['org_id', 'timestamp'])
    op.create_index(
        op.f('ix_changes_org_id_service_timestamp'), 'changes', ['org_id', 'service', 'timestamp']
    )
    op.create_index(
        op.f('ix_changes_org_id_change_id'), 'changes', ['org_id', 'change_id'], unique=True
    )
    op.create_table(
        'metric_series',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('org_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=200), nullable=False),
        sa.Column('service', sa.String(length=200), nullable=False),
        sa.Column('labels', sa.JSON(), nullable=False),
        sa.Column('labels_key', sa.String(length=800), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['org_id'], ['organizations.id'],
            name=op.f('fk_metric_series_org_id_organizations'), ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_metric_series')),
        sa.UniqueConstraint(
            'org_id', 'name', 'service', 'labels_key',
            name=op.f('uq_metric_series_org_id_name_service_labels_key'),
        ),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f('ix_metric_series_org_id_service_name'), 'metric_series', ['org_id', 'service', 'name']
    )
    op.create_table(
        'metric_points',
        sa.Column('series_id', sa.Integer(), nullable=False),
        sa.Column('timestamp', sa.DateTime(timezone=True), nullable=False),
        sa.Column('value', sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ['series_id'], ['metric_series.id'],
            name=op.f('fk_metric_points_series_id_metric_series'), ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('series_id', 'timestamp', name=op.f('pk_metric_points')),
    )


def downgrade() -> None:
    op.drop_table('metric_points')
    op.drop_index(op.f('ix_metric_series_org_id_service_name'), table_name='metric_series')
    op.drop_table('metric_series')
    op.drop_index(op.f('ix_changes_org_id_change_id'), table_name='changes')
    op.drop_index(op.f('ix_changes_org_id_service_timestamp'), table_name='changes')
    op.drop_index(op.f('ix_changes_org_id_timestamp'), table_name='changes')
    op.drop_table('changes')
