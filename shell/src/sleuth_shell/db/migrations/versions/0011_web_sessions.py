"""web sessions: server-side browser sign-ins

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-23

Adds ``web_sessions``: one row per browser sign-in. The cookie carries a random token and the row
keeps only its SHA-256 (``token_hash``), the API key it was opened with (deleting the key deletes
its sessions), the per-session CSRF token, and the expiry time.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0011'
down_revision: str | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'web_sessions',
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('org_id', sa.Integer(), nullable=False),
        sa.Column('api_key_id', sa.Integer(), nullable=False),
        sa.Column('csrf_token', sa.String(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['api_key_id'], ['api_keys.id'],
            name=op.f('fk_web_sessions_api_key_id_api_keys'), ondelete='CASCADE',
        ),
        sa.ForeignKeyConstraint(
            ['org_id'], ['organizations.id'],
            name=op.f('fk_web_sessions_org_id_organizations'), ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('token_hash', name=op.f('pk_web_sessions')),
    )
    op.create_index(op.f('ix_web_sessions_api_key_id'), 'web_sessions', ['api_key_id'])
    op.create_index(op.f('ix_web_sessions_expires_at'), 'web_sessions', ['expires_at'])
    op.create_index(op.f('ix_web_sessions_org_id'), 'web_sessions', ['org_id'])


def downgrade() -> None:
    op.drop_table('web_sessions')
