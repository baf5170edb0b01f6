"""investigations reference their alert's payload; alerts' quiet agents as a shared set

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-27

- ``investigations.alert_id`` (indexed, a foreign key to ``alerts``): the alert-log row whose
  payload the investigation runs on, stored there once instead of copied into each of the ~9
  investigations an alert opens. Existing investigations are linked to the earliest alert whose
  decision names them and whose payload equals theirs; those get ``event_payload = ''``. The
  others (opened before the alert log, or whose alert was pruned) keep their own payload.
- ``agent_sets`` (one row per distinct set of agents, by the SHA-256 of its sorted ids, with the
  ids as ``,<id>,<id>,``) and ``agent_set_members`` (its agents, indexed by agent): the agents subscribed to a source when
  an alert arrived, shared by every alert with the same subscribers.
- ``alerts.quiet_agents`` (``,<id>,<id>,`` of every quiet agent: about 5 KB an alert with 1,000
  subscribed agents) becomes ``quiet_set_id`` (the subscribers' set) and ``quiet_except`` (the
  subscribed agents that are not quiet: the few matched ones). Existing rows are converted: the
  set is the quiet agents plus the agents with a decision row on the alert, the exceptions
  those with a decision row; so every alert lists exactly the quiet agents it listed.

On SQLite the columns are added and dropped in place (``ALTER TABLE``): rebuilding ``alerts``
in a batch would drop the table, and with foreign keys on that deletes its decisions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0024'
down_revision: str | None = '0023'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: Alerts converted per round trip.
_BATCH = 1000

_alerts = sa.table(
    'alerts',
    sa.column('id', sa.Integer()),
    sa.column('quiet_agents', sa.Text()),
    sa.column('quiet_set_id', sa.Integer()),
    sa.column('quiet_except', sa.Text()),
)
_decisions = sa.table(
    'alert_decisions', sa.column('alert_id', sa.Integer()), sa.column('alert_responder_id', sa.Integer())
)
_sets = sa.table(
    'agent_sets',
    sa.column('id', sa.Integer()),
    sa.column('digest', sa.String()),
    sa.column('size', sa.Integer()),
    sa.column('agent_ids', sa.Text()),
)
_members = sa.table('agent_set_members', sa.column('set_id', sa.Integer()), sa.column('agent_id', sa.Integer()))


def _digest(ids: Sequence[int]) -> str:
    """The set's digest (a copy of the app's ``set_digest``: migrations never import the app)."""
    return hashlib.sha256(','.join(map(str, ids)).encode()).hexdigest()


def _ids(text: str | None) -> set[int]:
    return {int(part) for part in (text or '').strip(',').split(',') if part}


def _listed(ids: Sequence[int]) -> str:
    return (',' + ','.join(map(str, ids)) + ',') if ids else ''


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == 'sqlite'
    op.create_table(
        'agent_sets',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('digest', sa.String(length=64), nullable=False),
        sa.Column('size', sa.Integer(), nullable=False),
        sa.Column('agent_ids', sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_agent_sets')),
        sa.UniqueConstraint('digest', name=op.f('uq_agent_sets_digest')),
        sqlite_autoincrement=True,
    )
    op.create_table(
        'agent_set_members',
        sa.Column('set_id', sa.Integer(), nullable=False),
        sa.Column('agent_id', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ['set_id'],
            ['agent_sets.id'],
            name=op.f('fk_agent_set_members_set_id_agent_sets'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('set_id', 'agent_id', name=op.f('pk_agent_set_members')),
    )
    op.create_index(
        op.f('ix_agent_set_members_agent_id_set_id'),
        'agent_set_members',
        ['agent_id', 'set_id'],
        unique=False,
    )
    if sqlite:
        op.execute(
            'ALTER TABLE alerts ADD COLUMN quiet_set_id INTEGER'
            ' CONSTRAINT fk_alerts_quiet_set_id_agent_sets REFERENCES agent_sets (id)'
        )
    else:
        op.add_column('alerts', sa.Column('quiet_set_id', sa.Integer(), nullable=True))
        op.create_foreign_key(
            op.f('fk_alerts_quiet_set_id_agent_sets'), 'alerts', 'agent_sets', ['quiet_set_id'], ['id']
        )
    op.add_column('alerts', sa.Column('quiet_except', sa.Text(), nullable=False, server_default=''))
    _convert_quiet_agents()
    op.drop_column('alerts', 'quiet_agents')
    if not sqlite:  # SQLite cannot drop a default in place; the app always writes the column
        op.alter_column('alerts', 'quiet_except', server_default=None)

    if sqlite:
        op.execute(
            'ALTER TABLE investigations ADD COLUMN alert_id INTEGER'
            ' CONSTRAINT fk_investigations_alert_id_alerts REFERENCES alerts (id)'
        )
    else:
        op.add_column('investigations', sa.Column('alert_id', sa.Integer(), nullable=True))
        op.create_foreign_key(
            op.f('fk_investigations_alert_id_alerts'), 'investigations', 'alerts', ['alert_id'], ['id']
        )
    op.create_index(op.f('ix_investigations_alert_id'), 'investigations', ['alert_id'], unique=False)
    op.execute(
        'UPDATE investigations SET alert_id = ('
        'SELECT min(d.alert_id) FROM alert_decisions d JOIN alerts a ON a.id = d.alert_id'
        ' WHERE d.investigation_id = investigations.id AND a.payload = investigations.event_payload)'
    )
    op.execute("UPDATE investigations SET event_payload = '' WHERE alert_id IS NOT NULL")


def _convert_quiet_agents() -> None:
    """Each alert's ``quiet_agents`` as a set (the quiet agents and those with a decision row)
    less the exceptions (those with a decision row)."""
    bind = op.get_bind()
    known: dict[str, int] = {}
    after = 0
    while True:
        rows = bind.execute(
            sa.select(_alerts.c.id, _alerts.c.quiet_agents)
            .where(_alerts.c.id > after, _alerts.c.quiet_agents != '')
            .order_by(_alerts.c.id)
            .limit(_BATCH)
        ).all()
        if not rows:
            return
        decided: dict[int, set[int]] = {}
        for alert_id, agent_id in bind.execute(
            sa.select(_decisions.c.alert_id, _decisions.c.alert_responder_id).where(
                _decisions.c.alert_id.in_([row[0] for row in rows])
            )
        ).all():
            decided.setdefault(int(alert_id), set()).add(int(agent_id))
        changes = []
        for alert_id, quiet_agents in rows:
            quiet = _ids(quiet_agents)
            loud = decided.get(int(alert_id), set()) - quiet
            members = sorted(quiet | loud)
            digest = _digest(members)
            set_id = known.get(digest)
            if set_id is None:
                set_id = int(
                    bind.execute(
                        sa.insert(_sets)
                        .values(digest=digest, size=len(members), agent_ids=_listed(members))
                        .returning(_sets.c.id)
                    ).scalar_one()
                )
                bind.execute(sa.insert(_members), [{'set_id': set_id, 'agent_id': a} for a in members])
                known[digest] = set_id
            changes.append({'pk': alert_id, 'set_id': set_id, 'loud': _listed(sorted(loud))})
        bind.execute(
            sa.update(_alerts)
            .where(_alerts.c.id == sa.bindparam('pk'))
            .values(quiet_set_id=sa.bindparam('set_id'), quiet_except=sa.bindparam('loud')),
            changes,
        )
        after = int(rows[-1][0])


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == 'sqlite'
    op.execute(
        'UPDATE investigations SET event_payload = ('
        'SELECT payload FROM alerts WHERE alerts.id = investigations.alert_id)'
        ' WHERE alert_id IS NOT NULL'
    )
    op.drop_index(op.f('ix_investigations_alert_id'), table_name='investigations')
    if not sqlite:
        op.drop_constraint(op.f('fk_investigations_alert_id_alerts'), 'investigations', type_='foreignkey')
    op.drop_column('investigations', 'alert_id')

    op.add_column('alerts', sa.Column('quiet_agents', sa.Text(), nullable=False, server_default=''))
    bind = op.get_bind()
    members: dict[int, list[int]] = {}
    for set_id, agent_id in bind.execute(
        sa.select(_members.c.set_id, _members.c.agent_id).order_by(_members.c.set_id, _members.c.agent_id)
    ).all():
        members.setdefault(int(set_id), []).append(int(agent_id))
    after = 0
    while True:
        rows = bind.execute(
            sa.select(_alerts.c.id, _alerts.c.quiet_set_id, _alerts.c.quiet_except)
            .where(_alerts.c.id > after, _alerts.c.quiet_set_id.is_not(None))
            .order_by(_alerts.c.id)
            .limit(_BATCH)
        ).all()
        if not rows:
            break
        bind.execute(
            sa.update(_alerts)
            .where(_alerts.c.id == sa.bindparam('pk'))
            .values(quiet_agents=sa.bindparam('quiet')),
            [
                {
                    'pk': alert_id,
                    'quiet': _listed([a for a in members.get(int(set_id), []) if a not in _ids(loud)]),
                }
                for alert_id, set_id, loud in rows
            ],
        )
        after = int(rows[-1][0])
    if not sqlite:
        op.alter_column('alerts', 'quiet_agents', server_default=None)
        op.drop_constraint(op.f('fk_alerts_quiet_set_id_agent_sets'), 'alerts', type_='foreignkey')
    op.drop_column('alerts', 'quiet_except')
    op.drop_column('alerts', 'quiet_set_id')
    op.drop_index(op.f('ix_agent_set_members_agent_id_set_id'), table_name='agent_set_members')
    op.drop_table('agent_set_members')
    op.drop_table('agent_sets')
