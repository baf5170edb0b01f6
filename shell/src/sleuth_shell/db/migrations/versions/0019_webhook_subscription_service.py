"""webhook subscriptions: the service a change source records its changes on

Revision ID: 0019
Revises: 0017
Create Date: 2026-11-26

Adds the nullable ``webhook_subscriptions.service``: for ``GITHUB`` and ``GITLAB`` subscriptions,
the service their commits and deploys are recorded on (``sleuth admin add-webhook --service``);
NULL means the repository's short name. Existing subscriptions get NULL.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0019'
down_revision: str | None = '0017'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('webhook_subscriptions') as batch_op:
        batch_op.add_column(sa.Column('service', sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('webhook_subscriptions') as batch_op:
        batch_op.drop_column('service')
