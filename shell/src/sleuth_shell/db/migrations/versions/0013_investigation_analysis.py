"""investigations and interactions: the structured root-cause analysis

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-23

Adds the nullable JSON column ``investigations.analysis``: the agent's structured root-cause
result (``{verdict, change_id, service, affected_services, confidence, remediation, evidence}``,
evidence as the rendered result's citation numbers), NULL until an investigation produced one;
and the same column on ``interactions`` for "why" answers.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0013'
down_revision: str | None = '0012'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    for table in ('investigations', 'interactions'):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column('analysis', sa.JSON(), nullable=True))


def downgrade() -> None:
    for table in ('interactions', 'investigations'):
        with op.batch_alter_table(table) as batch:
            batch.drop_column('analysis')
