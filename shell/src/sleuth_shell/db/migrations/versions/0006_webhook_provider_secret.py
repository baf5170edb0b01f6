"""webhook subscriptions: the provider's signing secret

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22

Adds the nullable ``webhook_subscriptions.provider_secret``: the signing secret a provider issued
for its native webhook signature (set with ``sleuth admin add-webhook --provider-secret`` or
``sleuth admin set-webhook-secret``). Existing subscriptions get NULL (no native check).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('webhook_subscriptions') as batch_op:
        batch_op.add_column(sa.Column('provider_secret', sa.String(length=512), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('webhook_subscriptions') as batch_op:
        batch_op.drop_column('provider_secret')
