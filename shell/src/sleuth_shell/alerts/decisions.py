"""The alert log's writes: each alert, and what each subscribed agent does with it and why
(DESIGN 7).

:func:`record_alerts` is the one path: the webhook intake calls it inside its group-commit
transaction (:func:`~sleuth_shell.intake.batch.write_batch`), the chat intake for each message.
It inserts the alerts first (on SQLite that first write takes the database's write lock,
so every read below sees the latest commit and no other writer can commit before this one; on
PostgreSQL the matched agents' rows are locked ``FOR UPDATE`` in id order before anything is
counted). So caps and grouping are exact under concurrent intake on both.

For each alert and each agent subscribed to its source, the first reason that applies, in this
order, is the decision: ``not_matched`` (its rules do not match the alert's text, or the event is
not about an incident; these, and ``lifecycle``, are stored with the alert as its quiet agents,
:func:`quiet_of`, so 1,000 subscribed agents cost one column, not 1,000 rows), ``paused``,
``suppressed`` (an active suppression matches the text),
``recorded`` (the agent investigates ``on_request``), ``deduplicated`` (the agent investigated the
same incident less than :data:`~sleuth_shell.investigations.DEDUP_WINDOW` ago), ``grouped``
(the agent's investigation of the same group key started less than its group window ago),
``over_budget`` (its team's automated runs this month reached the team's budget), ``capped``
(``max_runs_per_hour`` or ``max_runs_per_day`` reached), else ``matched`` (an investigation is
opened). An acknowledge, resolve or close (``lifecycle``) starts nothing. Alerts of one batch are
decided in order, each seeing the investigations the earlier ones opened.
"""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    ARRAY,
    ColumnElement,
    Insert,
    Integer,
    String,
    and_,
    bindparam,
    case,
    func,
    insert,
    select,
)
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.errors import InvalidCriteria
from sleuth_core.ids import encode_global_id
from sleuth_core.intake import AlertEvent
from sleuth_core.matching import matches
from sleuth_shell.billing.budgets import automated_use
from sleuth_shell.db.dialect import insert_ignore_rows
from sleuth_shell.db.direct_writes import execute_many
from sleuth_shell.db.models import (
    AgentSet,
    AgentSetMember,
    Alert,
    AlertDecision,
    AlertResponder,
    Investigation,
    Suppression,
    TeamBudget,
)
from sleuth_shell.investigations import DEDUP_WINDOW, Opening, open_investigations_detailed

__all__ = [
    "DEFAULT_GROUP_WINDOW",
    "CandidateAlert",
    "Decided",
    "NewAlert",
    "agent_sets",
    "decide_and_open",
    "group_key_of",
    "quiet_of",
    "record_alerts",
    "set_digest",
]

#: Seconds an investigation gathers related alerts when the agent sets no ``group_window_seconds``.
DEFAULT_GROUP_WINDOW = 600
#: Most openings written in one statement.
_SLICE = 500
_HOUR = timedelta(hours=1)
_DAY = timedelta(days=1)


def quiet_of(
    event: AlertEvent, subscribed: Sequence[int], matched: Sequence[int]
) -> tuple[str, tuple[int, ...], str]:
    """``(quiet_decision, subscribers, quiet_except)`` of an alert: on a new alert, the
    subscribed agents whose criteria did not match are ``not_matched``; on a lifecycle event
    every subscribed agent is ``lifecycle``; an event that is no alert (``ignored``) is
    ``not_matched`` for all. The quiet agents are ``subscribers`` (the subscribed ids, sorted:
    stored once as an :class:`~sleuth_shell.db.models.AgentSet` that every alert with the same
    subscribers shares) but those of ``quiet_except`` (``,5,9,``, the matched ones); ``()`` and
    ``""`` when no agent is quiet.

    >>> from types import SimpleNamespace
    >>> event = SimpleNamespace(kind="new_alert")
    >>> quiet_of(event, (9, 1, 5, 7), (5, 9))
    ('not_matched', (1, 5, 7, 9), ',5,9,')
    >>> quiet_of(event, (1, 5), (1, 5))
    ('not_matched', (), '')
    >>> quiet_of(SimpleNamespace(kind="lifecycle"), (5, 1), ())
    ('lifecycle', (1, 5), '')
    """
    ordered, texts = _id_texts(tuple(subscribed))
    if event.kind != "new_alert":
        decision = "lifecycle" if event.kind == "lifecycle" else "not_matched"
        return decision, ordered, ""
    # The matched ones among the subscribed (the exceptions), found by bisection.
    found: list[str] = []
    for agent in sorted(set(matched)):
        at = bisect_left(ordered, agent)
        if at < len(ordered) and ordered[at] == agent:
            found.append(texts[at])
    if len(found) == len(ordered):
        return "not_matched", (), ""
    return "not_matched", ordered, ("," + ",".join(found) + ",") if found else ""


@lru_cache(maxsize=256)
def _id_texts(ids: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """``ids`` sorted without repeats, and each as text: a source's subscribed agents are the same
    for every alert it sends (up to thousands of ids), so they are sorted and printed once."""
    ordered = tuple(sorted(set(ids)))
    return ordered, tuple(map(str, ordered))


@lru_cache(maxsize=256)
def set_digest(ordered: tuple[int, ...]) -> str:
    """The :class:`~sleuth_shell.db.models.AgentSet` digest of sorted ids: SHA-256 of
    ``1,5,7`` in hex.

    >>> set_digest((1, 5, 7)) == hashlib.sha256(b"1,5,7").hexdigest()
    True
    """
    return hashlib.sha256(",".join(map(str, ordered)).encode()).hexdigest()


@lru_cache(maxsize=64)
def listed(ordered: tuple[int, ...]) -> str:
    """Sorted ids as ``,1,5,7,`` (``""`` for none): an :class:`~sleuth_shell.db.models.AgentSet`'s
    ``agent_ids``."""
    return ("," + ",".join(_id_texts(ordered)[1]) + ",") if ordered else ""


@lru_cache(maxsize=4)
def _sets_insert(dialect: str) -> Insert:
    """The sets' ``INSERT ... ON CONFLICT (digest) DO NOTHING RETURNING id, digest``."""
    table = AgentSet.__table__
    return insert_ignore_rows(dialect, table, conflict_columns=("digest",)).returning(
        table.c.id, table.c.digest
    )


_SETS_FIND = select(AgentSet.id, AgentSet.digest).where(
    AgentSet.digest.in_(bindparam("digests", expanding=True))
)
_MEMBERS_INSERT = insert(AgentSetMember).values(
    set_id=bindparam("set_id", type_=Integer()), agent_id=bindparam("agent_id", type_=Integer())
)


async def agent_sets(
    session: AsyncSession, sets: Iterable[tuple[int, ...]]
) -> dict[tuple[int, ...], int]:
    """The :class:`~sleuth_shell.db.models.AgentSet` pk of each of ``sets`` (sorted ids, none
    empty), inserting (with its members) each that is not stored yet, in ``session``'s
    transaction. Its first statement is a write (the sets' ``INSERT ... ON CONFLICT DO
    NOTHING``), so on SQLite it takes the write lock before anything is read; on PostgreSQL a
    concurrent insert of the same set waits for the first to commit, then finds it."""
    wanted = {set_digest(ids): ids for ids in sets}
    if not wanted:
        return {}
    dialect = session.get_bind().dialect.name
    inserted = await session.execute(
        _sets_insert(dialect),
        [
            {"digest": digest, "size": len(wanted[digest]), "agent_ids": listed(wanted[digest])}
            for digest in sorted(wanted)
        ],
    )
    found = {str(digest): int(pk) for pk, digest in inserted.all()}
    await execute_many(
        session,
        _MEMBERS_INSERT,
        [
            {"set_id": pk, "agent_id": agent}
            for digest, pk in found.items()
            for agent in wanted[digest]
        ],
    )
    missing = sorted(set(wanted) - set(found))
    if missing:
        rows = await session.execute(_SETS_FIND, {"digests": missing})
        found.update({str(digest): int(pk) for pk, digest in rows.all()})
    return {wanted[digest]: pk for digest, pk in found.items()}


def group_key_of(event: AlertEvent) -> str:
    """The key related alerts share: the provider's group key when the adapter read one, else
    ``<service>/<title>`` (at most 255 characters)."""
    if event.group_key:
        return event.group_key[:255]
    return f"{event.service.strip()}/{event.title.strip()}"[:255]


@dataclass(frozen=True, slots=True)
class CandidateAlert:
    """One stored alert to decide: its pk, what it is and which agents it concerns."""

    alert_id: int
    org_id: int
    event: AlertEvent
    subscribed: tuple[int, ...]
    matched: tuple[int, ...]
    now: datetime


@dataclass(slots=True)
class Decided:
    """One decision row (``investigation_id`` filled once the openings are written)."""

    alert_id: int
    org_id: int
    alert_responder_id: int
    decision: str
    reason: str
    investigation_id: int | None = None
    opening: int | None = None  # index into the openings, resolved to investigation_id

    def values(self) -> dict[str, Any]:
        return {
            "alert_id": self.alert_id,
            "org_id": self.org_id,
            "alert_responder_id": self.alert_responder_id,
            "decision": self.decision,
            "reason": self.reason[:300],
            "investigation_id": self.investigation_id,
        }


@dataclass(frozen=True, slots=True)
class _Agent:
    id: int
    team_id: int
    status: str
    runbook_active: bool
    runbook_prompt: str | None
    max_runs_per_hour: int | None
    max_runs_per_day: int | None
    group_window: int
    on_request: bool


@dataclass
class _State:
    """What the batch knows so far: the database's state plus the batch's own openings."""

    dedup: dict[tuple[int, str], tuple[int | None, int | None, datetime]] = field(
        default_factory=dict
    )  # (agent, dedup key) -> (investigation pk | None, opening index | None, created)
    groups: dict[tuple[int, str], tuple[int | None, int | None, datetime]] = field(
        default_factory=dict
    )
    runs: dict[int, list[datetime]] = field(default_factory=dict)  # agent -> openings' times
    hour: dict[int, int] = field(default_factory=dict)
    day: dict[int, int] = field(default_factory=dict)
    budget: dict[int, float] = field(default_factory=dict)  # team -> credits
    used: dict[int, float] = field(default_factory=dict)  # team -> credits used this month
    suppressions: list[tuple[int, int, int | None, dict[str, Any], str, datetime]] = field(
        default_factory=list
    )  # (pk, org, agent | None, rules, reason, expires)


#: The matched agents' rows (statements built once: their cache keys are computed once).
_AGENTS = (
    select(
        AlertResponder.id,
        AlertResponder.team_id,
        AlertResponder.status,
        AlertResponder.runbook_active,
        AlertResponder.runbook_prompt,
        AlertResponder.max_runs_per_hour,
        AlertResponder.max_runs_per_day,
        AlertResponder.group_window_seconds,
        AlertResponder.investigate,
    )
    .where(AlertResponder.id.in_(bindparam("ids", expanding=True)))
    .order_by(AlertResponder.id)
)
# Caps, grouping and budgets count what committed transactions opened: on PostgreSQL concurrent
# batches deciding for the same agents take turns (in id order: no deadlock).
_AGENTS_LOCKED = _AGENTS.with_for_update()


@lru_cache(maxsize=4)
def _pair_reads(dialect: str) -> tuple[Any, Any]:
    """The decisions' two reads by ``(agent, key)`` pair, for ``dialect``, built once: the claims
    held on the pairs' dedup keys, and the investigations of the pairs' group keys created after
    ``since`` (oldest first). The pairs come as one parameter (:func:`_pair_params`: two arrays
    unnested on PostgreSQL, a JSON array read with ``json_each`` on SQLite) joined on the
    investigations' agent-first indexes: one index search a pair. (``agent IN (...) AND key IN
    (...)`` searched every agent of a batch with every key of it: about 2,300 searches for 16
    alerts of 9 agents each, where ~144 pairs are looked up.)"""
    if dialect == "postgresql":
        pairs = (
            func.unnest(
                bindparam("agents", type_=ARRAY(Integer())),
                bindparam("keys", type_=ARRAY(String())),
            )
            .table_valued("agent", "key")
            .render_derived(name="pairs")
        )
        agent: ColumnElement[Any] = pairs.c.agent
        key: ColumnElement[Any] = pairs.c.key
    else:
        pairs = func.json_each(bindparam("pairs", type_=String())).table_valued("value")
        agent = func.json_extract(pairs.c.value, "$[0]")
        key = func.json_extract(pairs.c.value, "$[1]")

    def by_pair(column: Any) -> Any:
        """The investigations whose agent and ``column`` are one of the pairs."""
        return select(
            Investigation.id, Investigation.alert_responder_id, column, Investigation.created_at
        ).join_from(
            pairs, Investigation, and_(Investigation.alert_responder_id == agent, column == key)
        )

    held = by_pair(Investigation.dedup_key).where(Investigation.dedup_active.is_(True))
    grouped = (
        by_pair(Investigation.group_key)
        .where(Investigation.created_at > bindparam("since"))
        .order_by(Investigation.created_at, Investigation.id)
    )
    return held, grouped


def _pair_params(dialect: str, pairs: Iterable[tuple[int, str]]) -> dict[str, Any]:
    """The parameters of :func:`_pair_reads`' statements for ``pairs``."""
    ordered = sorted(set(pairs))
    if dialect == "postgresql":
        return {"agents": [a for a, _ in ordered], "keys": [k for _, k in ordered]}
    return {"pairs": json.dumps(ordered)}


async def _agents(session: AsyncSession, ids: set[int]) -> dict[int, _Agent]:
    if not ids:
        return {}
    locked = session.get_bind().dialect.name == "postgresql"
    rows = await session.execute(_AGENTS_LOCKED if locked else _AGENTS, {"ids": sorted(ids)})
    found: dict[int, _Agent] = {}
    for row in rows.all():
        found[int(row[0])] = _Agent(
            id=int(row[0]),
            team_id=int(row[1]),
            status=str(row[2]),
            runbook_active=bool(row[3]),
            runbook_prompt=row[4],
            max_runs_per_hour=row[5],
            max_runs_per_day=row[6],
            group_window=DEFAULT_GROUP_WINDOW if row[7] is None else int(row[7]),
            on_request=row[8] == "on_request",
        )
    return found


async def _load_state(
    session: AsyncSession,
    alerts: Sequence[CandidateAlert],
    agents: Mapping[int, _Agent],
) -> _State:
    state = _State()
    if not agents:
        return state
    now = min(alert.now for alert in alerts)
    latest = max(alert.now for alert in alerts)
    dialect = session.get_bind().dialect.name
    held_read, grouped_read = _pair_reads(dialect)
    # The (agent, key) pairs _decide looks up: each new alert's agents with its own keys.
    deciding = [
        (agent_id, alert.event)
        for alert in alerts
        if alert.event.kind == "new_alert"
        for agent_id in alert.matched
        if agent_id in agents
    ]
    held = await session.execute(
        held_read, _pair_params(dialect, ((a, event.dedup_key) for a, event in deciding))
    )
    for pk, agent_id, key, created in held.all():
        state.dedup[(int(agent_id or 0), str(key))] = (int(pk), None, created)

    window = max(agent.group_window for agent in agents.values())
    if window > 0:
        grouped = await session.execute(
            grouped_read,
            {
                **_pair_params(dialect, ((a, group_key_of(event)) for a, event in deciding)),
                "since": now - timedelta(seconds=window),
            },
        )
        for pk, agent_id, key, created in grouped.all():
            state.groups[(int(agent_id or 0), str(key))] = (int(pk), None, created)  # latest

    capped = [
        a.id
        for a in agents.values()
        if a.max_runs_per_hour is not None or a.max_runs_per_day is not None
    ]
    if capped:
        hour_ago, day_ago = latest - _HOUR, latest - _DAY
        counted = await session.execute(
            select(
                Investigation.alert_responder_id,
                func.count(),
                func.sum(case((Investigation.created_at > hour_ago, 1), else_=0)),
            )
            .where(
                Investigation.alert_responder_id.in_(capped),
                Investigation.created_at > day_ago,
            )
            .group_by(Investigation.alert_responder_id)
        )
        for agent_id, day_count, hour_count in counted.all():
            state.day[int(agent_id or 0)] = int(day_count or 0)
            state.hour[int(agent_id or 0)] = int(hour_count or 0)

    teams = {agent.team_id for agent in agents.values()}
    budgets = await session.execute(
        select(TeamBudget.team_id, TeamBudget.credits).where(TeamBudget.team_id.in_(teams))
    )
    state.budget = {int(team): float(credits) for team, credits in budgets.all()}
    if state.budget:
        state.used = await automated_use(session, set(state.budget), now)

    orgs = {alert.org_id for alert in alerts}
    active = await session.execute(
        select(
            Suppression.id,
            Suppression.org_id,
            Suppression.alert_responder_id,
            Suppression.match_rules,
            Suppression.reason,
            Suppression.expires_at,
        )
        .where(Suppression.org_id.in_(orgs), Suppression.expires_at > now)
        .order_by(Suppression.id)
    )
    state.suppressions = [
        (int(pk), int(org), agent, dict(rules), str(reason), expires)
        for pk, org, agent, rules, reason, expires in active.all()
    ]
    return state


def _suppressed(state: _State, alert: CandidateAlert, agent_id: int) -> str | None:
    for pk, org, scoped, rules, reason, expires in state.suppressions:
        if org != alert.org_id or (scoped is not None and scoped != agent_id):
            continue
        if expires <= alert.now:
            continue
        try:
            hit = matches(rules, alert.event.match_text)
        except InvalidCriteria:  # validated on write; a stored tree that no longer is: skip
            continue
        if hit:
            gid = encode_global_id("Suppression", pk)
            return f"suppression {gid} until {expires.isoformat()}: {reason}"
    return None


def _over_cap(state: _State, agent: _Agent, now: datetime) -> str | None:
    recent = state.runs.get(agent.id, [])
    if agent.max_runs_per_hour is not None:
        count = state.hour.get(agent.id, 0) + sum(1 for t in recent if t > now - _HOUR)
        if count >= agent.max_runs_per_hour:
            return f"max_runs_per_hour ({agent.max_runs_per_hour}) reached"
    if agent.max_runs_per_day is not None:
        count = state.day.get(agent.id, 0) + len(recent)
        if count >= agent.max_runs_per_day:
            return f"max_runs_per_day ({agent.max_runs_per_day}) reached"
    return None


def _decide(
    state: _State, alert: CandidateAlert, agent: _Agent | None, agent_id: int, openings: list[Any]
) -> Decided | None:
    event = alert.event

    def decided(decision: str, reason: str, **extra: Any) -> Decided:
        return Decided(alert.alert_id, alert.org_id, agent_id, decision, reason, **extra)

    if agent is None:  # deleted since the index was read
        return None
    if agent.status != "ACTIVE":
        return decided("paused", "the agent is paused")
    suppression = _suppressed(state, alert, agent_id)
    if suppression is not None:
        return decided("suppressed", suppression)
    if agent.on_request:
        return decided("recorded", "the agent investigates on request")
    dedup_key = event.dedup_key  # adapters bound it; a longer one fails its delivery alone
    held = state.dedup.get((agent_id, dedup_key))
    if held is not None and alert.now - held[2] < DEDUP_WINDOW:
        return decided(
            "deduplicated",
            "the agent investigated this incident (same dedup key) less than 24 hours ago",
            investigation_id=held[0],
            opening=held[1],
        )
    group_key = group_key_of(event)
    group = state.groups.get((agent_id, group_key))
    if group is not None and alert.now - group[2] < timedelta(seconds=agent.group_window):
        return decided(
            "grouped",
            f"joins the investigation of its group, started less than "
            f"{agent.group_window} seconds before",
            investigation_id=group[0],
            opening=group[1],
        )
    budget = state.budget.get(agent.team_id)
    if budget is not None and state.used.get(agent.team_id, 0.0) >= budget:
        return decided("over_budget", f"the team's budget of {budget:g} credits this month is used")
    cap = _over_cap(state, agent, alert.now)
    if cap is not None:
        return decided("capped", cap)
    index = len(openings)
    openings.append(
        Opening(
            org_id=alert.org_id,
            agent=agent,
            name=event.title,
            alert_id=alert.alert_id,
            dedup_key=dedup_key,
            now=alert.now,
            group_key=group_key,
        )
    )
    state.dedup[(agent_id, dedup_key)] = (None, index, alert.now)
    state.groups[(agent_id, group_key)] = (None, index, alert.now)
    state.runs.setdefault(agent_id, []).append(alert.now)
    return decided("matched", "the agent's criteria match: investigation opened", opening=index)


async def decide_and_open(
    session: AsyncSession, alerts: Sequence[CandidateAlert]
) -> list[list[Decided]]:
    """Decide every agent whose criteria matched each alert (in order), open the investigations
    of the ``matched`` ones, all in ``session``'s transaction (the caller inserts the decisions
    and commits); each alert's decision rows, by agent id. The other subscribed agents' decisions
    are the alert's quiet ones, stored with it (:func:`quiet_of`)."""
    wanted = {
        agent_id
        for alert in alerts
        if alert.event.kind == "new_alert"
        for agent_id in alert.matched
    }
    agents = await _agents(session, wanted)
    state = await _load_state(session, alerts, agents)
    openings: list[Opening] = []
    result: list[list[Decided]] = []
    for alert in alerts:
        rows: list[Decided] = []
        # The other subscribed agents are the alert's quiet ones (:func:`quiet_of`).
        for agent_id in sorted(alert.matched) if alert.event.kind == "new_alert" else ():
            row = _decide(state, alert, agents.get(agent_id), agent_id, openings)
            if row is not None:
                rows.append(row)
        result.append(rows)
    opened: list[tuple[int, bool]] = []
    # In slices (a large group's openings in one statement could pass the driver's bound-value
    # limit); a later slice finds the claims of an earlier one in the same transaction.
    for start in range(0, len(openings), _SLICE):
        opened += await open_investigations_detailed(session, openings[start : start + _SLICE])
    if openings:
        for rows in result:
            for row in rows:
                if row.opening is None:
                    continue
                pk, created = opened[row.opening]
                row.investigation_id = pk
                if row.decision == "matched" and not created:
                    # A parallel path (the chat intake, a claim older than the window) held it.
                    row.decision = "deduplicated"
                    row.reason = "the agent is already investigating this incident"
    return result


#: Rows per insert statement.
_CHUNK = 500


#: The decisions' insert (built once; every column :meth:`Decided.values` gives bound).
_DECISIONS_INSERT = insert(AlertDecision).values(
    {
        name: bindparam(name, type_=AlertDecision.__table__.c[name].type)
        for name in (
            "alert_id",
            "org_id",
            "alert_responder_id",
            "decision",
            "reason",
            "investigation_id",
        )
    }
)


@dataclass(frozen=True, slots=True)
class NewAlert:
    """An alert to record: where it came from (``source`` ``(type, remote_id)``; a chat message's
    is ``("CHAT", <channel>)``), what the adapter read, its payload, and the agents subscribed to
    the source and those whose criteria matched it."""

    org_id: int
    subscription_id: int | None
    source: tuple[str, str]
    event: AlertEvent
    payload: str
    subscribed: tuple[int, ...]
    matched: tuple[int, ...]
    now: datetime


def alert_values(
    alert: NewAlert, quiet: tuple[str, tuple[int, ...], str], sets: Mapping[tuple[int, ...], int]
) -> dict[str, Any]:
    """The ``alerts`` row of ``alert``: what the adapter read, and its quiet agents (``quiet``:
    :func:`quiet_of`'s answer; ``sets``: the pk of each subscribers' set, :func:`agent_sets`)."""
    event = alert.event
    quiet_decision, subscribers, quiet_except = quiet
    return {
        "org_id": alert.org_id,
        "subscription_id": alert.subscription_id,
        "source_type": alert.source[0][:32],
        "source_remote_id": alert.source[1][:64],
        "delivery_id": event.delivery_id[:255],
        "kind": event.kind,
        "event_type": event.event_type[:200],
        "title": event.title[:200],
        "service": event.service[:200],
        "severity": event.severity[:64],
        "dedup_key": event.dedup_key[:255],
        "group_key": group_key_of(event),
        "match_text": event.match_text,
        "payload": alert.payload,
        "occurred_at": event.occurred_at,
        "received_at": alert.now,
        "quiet_decision": quiet_decision,
        "quiet_set_id": sets[subscribers] if subscribers else None,
        "quiet_except": quiet_except,
    }


async def record_alerts(session: AsyncSession, alerts: Sequence[NewAlert]) -> list[list[Decided]]:
    """Store ``alerts`` (in order), decide for each agent whose criteria matched each, open the
    investigations of the ``matched`` ones and store the decisions, in ``session``'s transaction
    (the caller commits); each alert's decision rows (:func:`decide_and_open`).

    The subscribers' sets are written first (:func:`agent_sets`), then the alerts: on SQLite
    the first write takes the write lock, so the decisions' reads (caps, groups, budgets) see
    every committed opening and no other writer commits before this transaction does."""
    if not alerts:
        return []
    table = Alert.__table__
    quiet = [quiet_of(alert.event, alert.subscribed, alert.matched) for alert in alerts]
    sets = await agent_sets(session, {ids for _, ids, _ in quiet if ids})
    values = [alert_values(alert, q, sets) for alert, q in zip(alerts, quiet, strict=True)]
    alert_ids: list[int] = []
    for start in range(0, len(values), _CHUNK):
        inserted = await session.execute(
            table.insert().returning(table.c.id, sort_by_parameter_order=True),
            values[start : start + _CHUNK],
        )
        alert_ids.extend(int(row[0]) for row in inserted.all())
    candidates = [
        CandidateAlert(
            alert_id=alert_id,
            org_id=alert.org_id,
            event=alert.event,
            subscribed=alert.subscribed,
            matched=alert.matched,
            now=alert.now,
        )
        for alert, alert_id in zip(alerts, alert_ids, strict=True)
    ]
    decided = await decide_and_open(session, candidates)
    rows = [item.values() for per_alert in decided for item in per_alert]
    await execute_many(session, _DECISIONS_INSERT, rows)
    return decided
