"""api keys: when each was last used, and revocation

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-23

Adds the nullable ``api_keys.last_used_at`` (set by authentication, at most once a minute per
key) and ``api_keys.revoked_at`` (set by ``sleuth admin revoke-key``; a revoked key authenticates
nothing from that moment, on every node, since authentication reads the database). Existing keys
get NULL for both: never seen in use, not revoked.

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0010'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('api_keys') as batch_op:
        batch_op.add_column(sa.Column('last_used_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('api_keys') as batch_op:
        batch_op.drop_column('revoked_at')
        batch_op.drop_column('last_used_at')
