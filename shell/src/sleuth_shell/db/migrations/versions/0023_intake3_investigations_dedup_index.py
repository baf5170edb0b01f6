"""investigations: drop the (alert_responder_id, dedup_key) index the dedup claim covers

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-27

``ix_investigations_alert_responder_id_dedup_key`` is a prefix of the unique dedup claim
``(alert_responder_id, dedup_key, dedup_active)``, whose index serves every lookup it served. Each
investigation the intake opens wrote an entry in both.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index(
        op.f("ix_investigations_alert_responder_id_dedup_key"), table_name="investigations"
    )


def downgrade() -> None:
    op.create_index(
        op.f("ix_investigations_alert_responder_id_dedup_key"),
        "investigations",
        ["alert_responder_id", "dedup_key"],
        unique=False,
    )
