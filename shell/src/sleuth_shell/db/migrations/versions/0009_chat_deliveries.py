"""chat deliveries: the chat platform's event deliveries, by event_id

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24

Adds ``chat_deliveries``: one row per delivery the chat platform made to
``POST /api/v1/webhooks/CHAT/{remote_id}`` (unique per subscription and ``event_id``), with the
answer given, so the platform's retries of one event get the same answer and start nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'chat_deliveries',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('org_id', sa.Integer(), nullable=False),
        sa.Column('subscription_id', sa.Integer(), nullable=False),
        sa.Column('event_id', sa.String(length=255), nullable=False),
        sa.Column('kind', sa.String(length=16), nullable=False),
        sa.Column('reason', sa.String(length=255), nullable=False),
        sa.Column('channel_id', sa.String(length=64), nullable=False),
        sa.Column('ts', sa.String(length=64), nullable=False),
        sa.Column('response', sa.JSON(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['org_id'],
            ['organizations.id'],
            name=op.f('fk_chat_deliveries_org_id_organizations'),
            ondelete='CASCADE',
        ),
        sa.ForeignKeyConstraint(
            ['subscription_id'],
            ['webhook_subscriptions.id'],
            name=op.f('fk_chat_deliveries_subscription_id_webhook_subscriptions'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_chat_deliveries')),
        sa.UniqueConstraint(
            'subscription_id',
            'event_id',
            name=op.f('uq_chat_deliveries_subscription_id_event_id'),
        ),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f('ix_chat_deliveries_org_id'), 'chat_deliveries', ['org_id'], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f('ix_chat_deliveries_org_id'), table_name='chat_deliveries')
    op.drop_table('chat_deliveries')
