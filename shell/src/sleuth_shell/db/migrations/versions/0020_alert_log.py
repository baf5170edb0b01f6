"""alert log: every delivery as alerts with one decision per agent; bounds on automated runs

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-26

- ``alerts``: every authenticated delivery's alerts as the adapter read them (title, service,
  dedup and group key, the text agents match, the payload), pruned after the retention age.
- ``alert_decisions``: per alert, one row per agent whose criteria matched it: the decision
  (``paused``, ``suppressed``, ``recorded``, ``deduplicated``, ``grouped``, ``over_budget``,
  ``capped``, ``matched``), why, and the investigation; the other subscribed agents
  (``not_matched``, or ``lifecycle`` for all on a lifecycle event) are listed in the alert's
  ``quiet_agents``, with ``quiet_decision``.
- ``uq_chat_deliveries_message``: one chat delivery record per message (subscription, channel,
  ts) of kind ``message``, so the same message delivered as ``message`` and ``app_mention`` runs
  (and is replied to) once. Existing duplicates are kept as ``ignored`` first.
- ``suppressions`` (criteria with an expiry, org-wide or of one agent) and ``team_budgets``
  (credits per calendar month).
- ``alert_responders``: ``max_runs_per_hour``, ``max_runs_per_day``, ``group_window_seconds``,
  ``investigate`` (NULL when not set); ``investigations.group_key`` (what grouping joins on) and
  ``credits`` (what the run cost, which team budgets count; ``digest_runs.credits`` too), with the
  indexes grouping, caps and budgets read.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0020'
down_revision: str | None = '0019'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'alerts',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('org_id', sa.Integer(), nullable=False),
        sa.Column('subscription_id', sa.Integer(), nullable=True),
        sa.Column('source_type', sa.String(length=32), nullable=False),
        sa.Column('source_remote_id', sa.String(length=64), nullable=False),
        sa.Column('delivery_id', sa.String(length=255), nullable=False),
        sa.Column('kind', sa.String(length=16), nullable=False),
        sa.Column('event_type', sa.String(length=200), nullable=False),
        sa.Column('title', sa.String(length=200), nullable=False),
        sa.Column('service', sa.String(length=200), nullable=False),
        sa.Column('severity', sa.String(length=64), nullable=False),
        sa.Column('dedup_key', sa.String(length=255), nullable=False),
        sa.Column('group_key', sa.String(length=255), nullable=False),
        sa.Column('match_text', sa.Text(), nullable=False),
        sa.Column('payload', sa.Text(), nullable=False),
        sa.Column('occurred_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('received_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('quiet_decision', sa.String(length=16), nullable=False),
        sa.Column('quiet_agents', sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ['org_id'],
            ['organizations.id'],
            name=op.f('fk_alerts_org_id_organizations'),
            ondelete='CASCADE',
        ),
        sa.ForeignKeyConstraint(
            ['subscription_id'],
            ['webhook_subscriptions.id'],
            name=op.f('fk_alerts_subscription_id_webhook_subscriptions'),
            ondelete='SET NULL',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_alerts')),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f('ix_alerts_org_id_received_at_id'), 'alerts', ['org_id', 'received_at', 'id'], unique=False
    )
    op.create_index(op.f('ix_alerts_received_at'), 'alerts', ['received_at'], unique=False)
    op.create_table(
        'alert_decisions',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('alert_id', sa.Integer(), nullable=False),
        sa.Column('org_id', sa.Integer(), nullable=False),
        sa.Column('alert_responder_id', sa.Integer(), nullable=False),
        sa.Column('decision', sa.String(length=16), nullable=False),
        sa.Column('reason', sa.String(length=300), nullable=False),
        sa.Column('investigation_id', sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ['alert_id'],
            ['alerts.id'],
            name=op.f('fk_alert_decisions_alert_id_alerts'),
            ondelete='CASCADE',
        ),
        sa.ForeignKeyConstraint(
            ['org_id'],
            ['organizations.id'],
            name=op.f('fk_alert_decisions_org_id_organizations'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_alert_decisions')),
        sa.UniqueConstraint(
            'alert_id',
            'alert_responder_id',
            name=op.f('uq_alert_decisions_alert_id_alert_responder_id'),
        ),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f('ix_alert_decisions_org_id_alert_responder_id_decision_alert_id'),
        'alert_decisions',
        ['org_id', 'alert_responder_id', 'decision', 'alert_id'],
        unique=False,
    )
    op.create_index(
        op.f('ix_alert_decisions_investigation_id'),
        'alert_decisions',
        ['investigation_id'],
        unique=False,
    )
    op.create_table(
        'suppressions',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('org_id', sa.Integer(), nullable=False),
        sa.Column('alert_responder_id', sa.Integer(), nullable=True),
        sa.Column('text_matches', sa.JSON(), nullable=False),
        sa.Column('match_rules', sa.JSON(), nullable=False),
        sa.Column('reason', sa.Text(), nullable=False),
        sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['org_id'],
            ['organizations.id'],
            name=op.f('fk_suppressions_org_id_organizations'),
            ondelete='CASCADE',
        ),
        sa.ForeignKeyConstraint(
            ['alert_responder_id'],
            ['alert_responders.id'],
            name=op.f('fk_suppressions_alert_responder_id_alert_responders'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_suppressions')),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f('ix_suppressions_org_id_expires_at'),
        'suppressions',
        ['org_id', 'expires_at'],
        unique=False,
    )
    op.create_table(
        'team_budgets',
        sa.Column('team_id', sa.Integer(), nullable=False),
        sa.Column('org_id', sa.Integer(), nullable=False),
        sa.Column('credits', sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ['org_id'],
            ['organizations.id'],
            name=op.f('fk_team_budgets_org_id_organizations'),
            ondelete='CASCADE',
        ),
        sa.ForeignKeyConstraint(
            ['team_id'],
            ['teams.id'],
            name=op.f('fk_team_budgets_team_id_teams'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('team_id', name=op.f('pk_team_budgets')),
    )
    op.create_index(op.f('ix_team_budgets_org_id'), 'team_budgets', ['org_id'], unique=False)
    op.execute(
        "UPDATE chat_deliveries SET kind = 'ignored', reason = 'duplicate of an earlier message'"
        " WHERE kind = 'message' AND id NOT IN (SELECT MIN(id) FROM chat_deliveries"
        " WHERE kind = 'message' GROUP BY subscription_id, channel_id, ts)"
    )
    op.create_index(
        'uq_chat_deliveries_message',
        'chat_deliveries',
        ['subscription_id', 'channel_id', 'ts'],
        unique=True,
        sqlite_where=sa.text("kind = 'message'"),
        postgresql_where=sa.text("kind = 'message'"),
    )
    with op.batch_alter_table('alert_responders') as batch:
        batch.add_column(sa.Column('max_runs_per_hour', sa.Integer(), nullable=True))
        batch.add_column(sa.Column('max_runs_per_day', sa.Integer(), nullable=True))
        batch.add_column(sa.Column('group_window_seconds', sa.Integer(), nullable=True))
        batch.add_column(sa.Column('investigate', sa.String(length=16), nullable=True))
    with op.batch_alter_table('digest_runs') as batch:
        batch.add_column(sa.Column('credits', sa.Float(), nullable=True))
    with op.batch_alter_table('investigations') as batch:
        batch.add_column(sa.Column('group_key', sa.String(length=255), nullable=True))
        batch.add_column(sa.Column('credits', sa.Float(), nullable=True))
        batch.create_index(
            op.f('ix_investigations_alert_responder_id_group_key_created_at'),
            ['alert_responder_id', 'group_key', 'created_at'],
            unique=False,
        )
        batch.create_index(
            op.f('ix_investigations_alert_responder_id_created_at'),
            ['alert_responder_id', 'created_at'],
            unique=False,
        )
        batch.create_index(
            op.f('ix_investigations_team_id_completed_at'),
            ['team_id', 'completed_at'],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table('digest_runs') as batch:
        batch.drop_column('credits')
    with op.batch_alter_table('investigations') as batch:
        batch.drop_index(op.f('ix_investigations_team_id_completed_at'))
        batch.drop_index(op.f('ix_investigations_alert_responder_id_created_at'))
        batch.drop_index(op.f('ix_investigations_alert_responder_id_group_key_created_at'))
        batch.drop_column('credits')
        batch.drop_column('group_key')
    with op.batch_alter_table('alert_responders') as batch:
        batch.drop_column('investigate')
        batch.drop_column('group_window_seconds')
        batch.drop_column('max_runs_per_day')
        batch.drop_column('max_runs_per_hour')
    op.drop_index('uq_chat_deliveries_message', table_name='chat_deliveries')
    op.drop_index(op.f('ix_team_budgets_org_id'), table_name='team_budgets')
    op.drop_table('team_budgets')
    op.drop_index(op.f('ix_suppressions_org_id_expires_at'), table_name='suppressions')
    op.drop_table('suppressions')
    op.drop_index(op.f('ix_alert_decisions_investigation_id'), table_name='alert_decisions')
    op.drop_index(
        op.f('ix_alert_decisions_org_id_alert_responder_id_decision_alert_id'),
        table_name='alert_decisions',
    )
    op.drop_table('alert_decisions')
    op.drop_index(op.f('ix_alerts_received_at'), table_name='alerts')
    op.drop_index(op.f('ix_alerts_org_id_received_at_id'), table_name='alerts')
    op.drop_table('alerts')
