"""server secrets: the generated session-signing key, shared by every node

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-23

Adds ``server_secrets``: secrets the service generates for itself (today only
``session_signing``, the HMAC key of the browser-session cookie when ``SLEUTH_SECRET_KEY`` is
unset). Kept in the database so every node of a PostgreSQL deployment signs and checks cookies
with the same key.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op



revision: str = '0014'
down_revision: str | None = '0013'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'server_secrets',
        sa.Column('name', sa.String(length=64), nullable=False),
        sa.Column('value', sa.String(length=128), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('name', name=op.f('pk_server_secrets')),
    )


def downgrade() -> None:
    op.drop_table('server_secrets')
