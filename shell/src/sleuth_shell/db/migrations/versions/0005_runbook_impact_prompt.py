"""runbook impact_and_severity_prompt

Adds ``alert_responders.runbook_impact_prompt``: the runbook's optional
``impact_and_severity_prompt`` (DESIGN "Matching"), stored and returned as set.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('alert_responders') as batch:
        batch.add_column(sa.Column('runbook_impact_prompt', sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('alert_responders') as batch:
        batch.drop_column('runbook_impact_prompt')
