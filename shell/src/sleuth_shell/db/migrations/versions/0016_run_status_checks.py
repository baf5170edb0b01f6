"""run statuses: a CHECK constraint on every run table's status column

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26

``interactions.status``, ``digest_runs.status`` and ``investigations.status`` accept only the
statuses of their run kind (``sleuth_shell.statuses``). SQLite cannot add a constraint to an
existing table, so it rebuilds the three tables (Alembic batch mode; ``env.py`` turns foreign
keys off for it), keeping AUTOINCREMENT where the table has it; PostgreSQL adds the constraints
in place.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op


revision: str = '0016'
down_revision: str | None = '0015'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The statuses of each kind (a copy: migrations never import the app).
_FAILED = ('PENDING', 'IN_PROGRESS', 'COMPLETED', 'FAILED')
#: table -> (its statuses, whether SQLite keeps AUTOINCREMENT on it)
TABLES: dict[str, tuple[tuple[str, ...], bool]] = {
    'interactions': (_FAILED, False),
    'digest_runs': (_FAILED, True),
    'investigations': (('PENDING', 'IN_PROGRESS', 'COMPLETED', 'ERRORED', 'STOPPED'), True),
}


def _condition(statuses: tuple[str, ...]) -> str:
    return f"status IN ({', '.join(repr(s) for s in statuses)})"


def upgrade() -> None:
    for table, (statuses, autoincrement) in TABLES.items():
        kwargs = {'sqlite_autoincrement': True} if autoincrement else {}
        with op.batch_alter_table(table, table_kwargs=kwargs) as batch:
            batch.create_check_constraint(op.f(f'ck_{table}_status'), _condition(statuses))


def downgrade() -> None:
    for table, (_, autoincrement) in TABLES.items():
        kwargs = {'sqlite_autoincrement': True} if autoincrement else {}
        with op.batch_alter_table(table, table_kwargs=kwargs) as batch:
            batch.drop_constraint(op.f(f'ck_{table}_status'), type_='check')
