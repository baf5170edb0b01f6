"""OTLP: ``spans`` (the trace store); log records keep their trace and span ids

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-26

``spans`` holds the spans sent to ``POST /otlp/v1/traces``: one row per (organization, trace id,
span id), ids in lower-case hex, start time and duration, status and its message, attributes,
resource attributes and events (exceptions with their stack traces), indexed for the time-range
reads by organization and by service. ``log_records`` gains ``trace_id`` and ``span_id`` (null for
records that came without them).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0017'
down_revision: str | None = '0016'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('log_records') as batch:
        batch.add_column(sa.Column('trace_id', sa.String(length=32), nullable=True))
        batch.add_column(sa.Column('span_id', sa.String(length=16), nullable=True))
    op.create_table(
        'spans',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('org_id', sa.Integer(), nullable=False),
        sa.Column('trace_id', sa.String(length=32), nullable=False),
        sa.Column('span_id', sa.String(length=16), nullable=False),
        sa.Column('parent_span_id', sa.String(length=16), nullable=True),
        sa.Column('service', sa.String(length=200), nullable=False),
        sa.Column('name', sa.Text(), nullable=False),
        sa.Column('kind', sa.String(length=16), nullable=False),
        sa.Column('start', sa.DateTime(timezone=True), nullable=False),
        sa.Column('duration_ms', sa.Float(), nullable=False),
        sa.Column('status', sa.String(length=8), nullable=False),
        sa.Column('status_message', sa.Text(), nullable=False),
        sa.Column('attributes', sa.JSON(), nullable=False),
        sa.Column('resource', sa.JSON(), nullable=False),
        sa.Column('events', sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ['org_id'], ['organizations.id'],
            name=op.f('fk_spans_org_id_organizations'), ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_spans')),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f('ix_spans_org_id_trace_id_span_id'), 'spans', ['org_id', 'trace_id', 'span_id'],
        unique=True,
    )
    op.create_index(op.f('ix_spans_org_id_start'), 'spans', ['org_id', 'start'])
    op.create_index(op.f('ix_spans_org_id_service_start'), 'spans', ['org_id', 'service', 'start'])


def downgrade() -> None:
    op.drop_index(op.f('ix_spans_org_id_service_start'), table_name='spans')
    op.drop_index(op.f('ix_spans_org_id_start'), table_name='spans')
    op.drop_index(op.f('ix_spans_org_id_trace_id_span_id'), table_name='spans')
    op.drop_table('spans')
    with op.batch_alter_table('log_records') as batch:
        batch.drop_column('span_id')
        batch.drop_column('trace_id')
