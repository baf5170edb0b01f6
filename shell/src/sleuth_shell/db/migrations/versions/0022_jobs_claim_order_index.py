"""jobs: the claim's order index covers the id

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-27

Replaces ``ix_jobs_status_run_at`` with ``ix_jobs_status_run_at_id``: a claim takes the oldest
due jobs by ``run_at`` and then id. SQLite's index already ended with the rowid; PostgreSQL's did
not, so with many jobs due in the same second it sorted all of them on every claim.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        op.f("ix_jobs_status_run_at_id"), "jobs", ["status", "run_at", "id"], unique=False
    )
    op.drop_index(op.f("ix_jobs_status_run_at"), table_name="jobs")


def downgrade() -> None:
    op.create_index(op.f("ix_jobs_status_run_at"), "jobs", ["status", "run_at"], unique=False)
    op.drop_index(op.f("ix_jobs_status_run_at_id"), table_name="jobs")
