"""usage rollups: daily and monthly credit sums, covering ledger index

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22

Creates the rollups kept current by ``sleuth_shell.billing.ledger.record_usage`` and fills them
from any ledger rows already present, whose amounts are first rounded to the ledger's 2**-20 grid
as ``record_usage`` rounds new ones. Replaces the ledger's ``(org_id, occurred_at)`` index by one
that also covers ``team_id`` and ``credits``, so the partial days of a report read only the index.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_GRID = 1048576  # 2**20, see sleuth_shell.billing.ledger.CREDIT_RESOLUTION


def upgrade() -> None:
    op.create_table('usage_daily',
    sa.Column('org_id', sa.Integer(), nullable=False),
    sa.Column('day', sa.Date(), nullable=False),
    sa.Column('team_key', sa.Integer(), nullable=False),
    sa.Column('month', sa.String(length=7), nullable=False),
    sa.Column('credits', sa.Float(), nullable=False),
    sa.Column('events', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['org_id'], ['organizations.id'], name=op.f('fk_usage_daily_org_id_organizations'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('org_id', 'day', 'team_key', name=op.f('pk_usage_daily')),
    sqlite_with_rowid=False,
    )
    op.create_table('usage_monthly',
    sa.Column('org_id', sa.Integer(), nullable=False),
    sa.Column('month', sa.String(length=7), nullable=False),
    sa.Column('team_key', sa.Integer(), nullable=False),
    sa.Column('credits', sa.Float(), nullable=False),
    sa.Column('events', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['org_id'], ['organizations.id'], name=op.f('fk_usage_monthly_org_id_organizations'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('org_id', 'month', 'team_key', name=op.f('pk_usage_monthly')),
    sqlite_with_rowid=False,
    )
    op.drop_index(op.f('ix_usage_events_org_id_occurred_at'), table_name='usage_events')
    op.create_index(op.f('ix_usage_events_org_id_occurred_at_team_id_credits'), 'usage_events', ['org_id', 'occurred_at', 'team_id', 'credits'], unique=False)

    if op.get_bind().dialect.name == 'sqlite':
        day = "date(occurred_at)"
        month = "strftime('%Y-%m', occurred_at)"
        quantized = f"round(credits * {_GRID}) / {_GRID}.0"
    else:
        day = "CAST(timezone('UTC', occurred_at) AS DATE)"
        month = "to_char(timezone('UTC', occurred_at), 'YYYY-MM')"
        quantized = f"round(CAST(credits * {_GRID} AS numeric)) / {_GRID}.0"
    op.execute(f"UPDATE usage_events SET credits = {quantized}")
    op.execute(
        "INSERT INTO usage_daily (org_id, day, team_key, month, credits, events) "
        f"SELECT org_id, {day}, COALESCE(team_id, 0), {month}, SUM(credits), COUNT(*) "
        f"FROM usage_events GROUP BY org_id, {day}, COALESCE(team_id, 0), {month}"
    )
    op.execute(
        "INSERT INTO usage_monthly (org_id, month, team_key, credits, events) "
        "SELECT org_id, month, team_key, SUM(credits), SUM(events) "
        "FROM usage_daily GROUP BY org_id, month, team_key"
    )


def downgrade() -> None:
    op.drop_index(op.f('ix_usage_events_org_id_occurred_at_team_id_credits'), table_name='usage_events')
    op.create_index(op.f('ix_usage_events_org_id_occurred_at'), 'usage_events', ['org_id', 'occurred_at'], unique=False)
    op.drop_table('usage_monthly')
    op.drop_table('usage_daily')
