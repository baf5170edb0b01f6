"""investigations: the dedup claim; runbooks stored exactly as set

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24

Adds ``investigations.dedup_active`` and the unique constraint over
``(alert_responder_id, dedup_key, dedup_active)``: the one investigation a repeat of its alert
reuses holds the claim (``true``), so concurrent openings of the same incident for the same agent
create exactly one, on SQLite and PostgreSQL alike. The newest investigation of each
(agent, dedup key) pair takes the claim.

Runbooks are now stored exactly as set (DESIGN 4, "runbook is returned exactly as set"): until now
an agent created without a runbook stored the default prompt as if it had been given. Rows whose
runbook is exactly that default prompt with no impact prompt become "no custom runbook"
(``runbook_prompt`` NULL, ``runbook_active`` false); investigations still run with the default.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The SPEC's default prompt as 0001-0006 stored it (a copy: migrations never import the app).
_DEFAULT_PROMPT = (
    "Please investigate the issue and explain the root cause to the best of your abilities!"
)


def upgrade() -> None:
    with op.batch_alter_table('investigations') as batch:
        batch.add_column(sa.Column('dedup_active', sa.Boolean(), nullable=True))
    op.execute(
        "UPDATE investigations SET dedup_active = true WHERE id IN ("
        " SELECT MAX(id) FROM investigations"
        " WHERE alert_responder_id IS NOT NULL AND dedup_key IS NOT NULL"
        " GROUP BY alert_responder_id, dedup_key)"
    )
    with op.batch_alter_table('investigations') as batch:
        batch.create_unique_constraint(
            'uq_investigations_alert_responder_id_dedup_key_dedup_active',
            ['alert_responder_id', 'dedup_key', 'dedup_active'],
        )
    responders = sa.table(
        'alert_responders',
        sa.column('runbook_prompt', sa.Text()),
        sa.column('runbook_active', sa.Boolean()),
        sa.column('runbook_impact_prompt', sa.Text()),
    )
    op.execute(
        responders.update()
        .where(
            responders.c.runbook_prompt == _DEFAULT_PROMPT,
            responders.c.runbook_impact_prompt.is_(None),
        )
        .values(runbook_prompt=None, runbook_active=False)
    )


def downgrade() -> None:
    with op.batch_alter_table('investigations') as batch:
        batch.drop_constraint(
            'uq_investigations_alert_responder_id_dedup_key_dedup_active', type_='unique'
        )
        batch.drop_column('dedup_active')
