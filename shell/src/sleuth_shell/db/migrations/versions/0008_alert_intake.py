"""alert intake: webhook deliveries and the alert-agent version counter

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23

- ``webhook_deliveries``: every inbound provider delivery and its answer, unique per
  ``(subscription_id, delivery_id)`` so a redelivery gets the same answer.
- ``agent_index_versions`` / ``alert_responder_changes``: a per-organization counter bumped in the
  same transaction as every alert-agent change, and which agent changed at each version; the
  intake's per-process matching index reloads only those agents (docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0008'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('agent_index_versions',
    sa.Column('org_id', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['org_id'], ['organizations.id'], name=op.f('fk_agent_index_versions_org_id_organizations'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('org_id', name=op.f('pk_agent_index_versions'))
    )
    op.create_table('alert_responder_changes',
    sa.Column('org_id', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('alert_responder_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['org_id'], ['organizations.id'], name=op.f('fk_alert_responder_changes_org_id_organizations'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('org_id', 'version', name=op.f('pk_alert_responder_changes'))
    )
    op.create_table('webhook_deliveries',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('org_id', sa.Integer(), nullable=False),
    sa.Column('subscription_id', sa.Integer(), nullable=False),
    sa.Column('delivery_id', sa.String(length=255), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('event_type', sa.String(length=200), nullable=False),
    sa.Column('dedup_key', sa.String(length=255), nullable=False),
    sa.Column('title', sa.String(length=200), nullable=False),
    sa.Column('occurred_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('received_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('investigation_ids', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['org_id'], ['organizations.id'], name=op.f('fk_webhook_deliveries_org_id_organizations'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['subscription_id'], ['webhook_subscriptions.id'], name=op.f('fk_webhook_deliveries_subscription_id_webhook_subscriptions'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_deliveries')),
    sa.UniqueConstraint('subscription_id', 'delivery_id', name=op.f('uq_webhook_deliveries_subscription_id_delivery_id')),
    sqlite_autoincrement=True,
    )
    with op.batch_alter_table('webhook_deliveries') as batch_op:
        batch_op.create_index(batch_op.f('ix_webhook_deliveries_org_id'), ['org_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('webhook_deliveries') as batch_op:
        batch_op.drop_index(batch_op.f('ix_webhook_deliveries_org_id'))
    op.drop_table('webhook_deliveries')
    op.drop_table('alert_responder_changes')
    op.drop_table('agent_index_versions')
