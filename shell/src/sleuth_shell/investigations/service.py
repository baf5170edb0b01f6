"""Investigations: open them for alerts, run them as the third run kind, stop and list them.

An investigation is one run of an alert agent on one alert. Statuses (DESIGN 4 "Statuses")::

    PENDING --(its job starts)--> IN_PROGRESS --> COMPLETED | ERRORED
       \\--(agent paused or deleted before it starts, or POST .../stop)--> STOPPED
    IN_PROGRESS --(POST .../stop)--> STOPPED (the agent's answer is then discarded)

The lifecycle is :mod:`sleuth_shell.runs`'s (:data:`INVESTIGATION` declares the kind: ``ERRORED``
is its failed status and ``STOPPED`` an extra end state, so a stopped run is never started,
finished or failed afterwards). Each investigation is one ``investigation.run`` job keyed by the
investigation's id.

Opening (:func:`open_investigation`) is what alert intake (webhooks, chat) calls once per
matching agent. The same incident (the adapter's dedup key) for the same agent within
:data:`DEDUP_WINDOW` reuses the investigation; concurrent openings of one incident create exactly
one. The guarantee is the database's, not a lock in memory: the unique constraint over
``(alert_responder_id, dedup_key, dedup_active)`` lets one investigation per pair hold the claim
(``dedup_active = true``), taken with ``INSERT ... ON CONFLICT DO NOTHING``. On PostgreSQL a second
transaction inserting the same claim waits for the first to commit or roll back; on SQLite the
single writer serialises them. After the window the old investigation releases the claim and a
new one takes it, in the same transaction.

The run asks the agent's ``investigate`` with the prompt and the alert (and, when the runbook sets
``impact_and_severity_prompt``, asks ``answer`` that question about the alert (its title,
service and severity) and appends it as an
"Impact and severity" section, cited like the rest). The result is rendered by the core
(numbered citations, no ``§``, a ``Sources:`` section); usage is unattributed (null team); the
agent's notification integrations get it on completion (CHAT_ALERT: its channel via
:func:`~sleuth_core.render.to_chat`; ALT_WEBHOOK: the card of
:func:`~sleuth_core.render.to_alt_card`, posted by the signed, retried ``notify.alt`` job).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, Protocol

from sqlalchemy import Insert, Update, bindparam, literal_column, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.ids import encode_global_id
from sleuth_core.render import to_alt_card, to_chat
from sleuth_shell.agents.base import AgentResult
from sleuth_shell.agents.rca import final_analysis, render_numbered
from sleuth_shell.db.dialect import insert_ignore, insert_ignore_rows
from sleuth_shell.db.executor import Executor, as_executor
from sleuth_shell.db.models import AlertResponder, Investigation
from sleuth_shell.investigations.queries import load_investigation
from sleuth_shell.jobs import enqueue
from sleuth_shell.jobs.queue import cancel, enqueue_many
from sleuth_shell.notify.delivery import enqueue_alt, enqueue_chat, integration_targets
from sleuth_shell.runs import Charge, RunGone, RunKind
from sleuth_shell.services import Services
from sleuth_shell.statuses import INVESTIGATION as LIFECYCLE
from sleuth_shell.statuses import InvestigationStatus
from sleuth_shell.text import extract_alert
from sleuth_shell.urls import investigation_url

__all__ = [
    "DEDUP_WINDOW",
    "DEFAULT_PROMPT",
    "GLOBAL_TYPE",
    "INVESTIGATION",
    "MAX_NAME_LENGTH",
    "RUN_KIND",
    "InvestigationOutcome",
    "Opening",
    "OpeningAgent",
    "investigation_name",
    "investigation_prompt",
    "open_investigation",
    "open_investigations",
    "open_investigations_detailed",
    "stop_investigation",
    "stop_pending_investigations",
    "stop_pending_statement",
]

log = logging.getLogger("sleuth.investigations")


RUN_KIND = "investigation.run"
USAGE_FEATURE = "investigation"
GLOBAL_TYPE = "Investigation"
#: A repeat of an alert (same agent, same dedup key) within this long reuses the investigation.
DEDUP_WINDOW = timedelta(hours=24)
#: Longest investigation name (the alert's title is cut to it).
MAX_NAME_LENGTH = 200
#: The investigation prompt when no runbook prompt was set (SPEC "Default runbook").
DEFAULT_PROMPT = (
    "Please investigate the issue and explain the root cause to the best of your abilities!"
)
#: The heading of the section that answers the runbook's ``impact_and_severity_prompt``.
IMPACT_HEADING = "Impact and severity"
# How often the claim is retried when it changes hands between our statements (rare: another
# transaction released or took it in between). Each pass either returns or sees a change.
_CLAIM_ATTEMPTS = 5
_MARKER = re.compile(r"\[\[source:([^\s\[\]`]+)\]\]")


class OpeningAgent(Protocol):
    """What opening an investigation reads of its agent (an :class:`AlertResponder` has it)."""

    @property
    def id(self) -> int: ...
    @property
    def team_id(self) -> int: ...
    @property
    def runbook_active(self) -> bool: ...
    @property
    def runbook_prompt(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Opening:
    """One :func:`open_investigation` call's arguments, for :func:`open_investigations`."""

    org_id: int
    agent: OpeningAgent
    name: str
    alert_id: int
    """The alert-log row it runs on (its payload is the investigation's ``event_payload``)."""
    dedup_key: str
    now: datetime
    group_key: str | None = None
    """The alert's group key (related alerts join the investigation it opens)."""


def investigation_prompt(agent: OpeningAgent) -> str:
    """The prompt an investigation of ``agent`` runs with: its runbook's, else the default."""
    if agent.runbook_active and agent.runbook_prompt:
        return agent.runbook_prompt
    return DEFAULT_PROMPT


def investigation_name(title: str) -> str:
    """An alert title as an investigation name: its first non-blank line, at most
    :data:`MAX_NAME_LENGTH` characters (``"Alert"`` when there is none)."""
    for line in title.replace("\x00", "").splitlines():
        if line.strip():
            return line.strip()[:MAX_NAME_LENGTH]
    return "Alert"


def _job_key(investigation_id: int) -> str:
    return str(investigation_id)


async def _enqueue_run(session: AsyncSession, investigation_id: int) -> None:
    await enqueue(
        session,
        RUN_KIND,
        {"investigation_id": investigation_id},
        key=_job_key(investigation_id),
    )


async def open_investigation(
    session: AsyncSession,
    *,
    org_id: int,
    agent: OpeningAgent,
    name: str,
    alert_id: int,
    dedup_key: str | None,
    now: datetime,
    group_key: str | None = None,
) -> tuple[int, bool]:
    """Open an investigation of ``agent`` for one alert; returns ``(investigation pk, created)``.

    Creates the row ``PENDING`` (``name`` cut to its first line and 200 characters, ``prompt`` the
    agent's runbook prompt or :data:`DEFAULT_PROMPT`, ``team_id`` the agent's team, ``alert_id``
    the alert-log row whose payload it runs on, ``created_at`` = ``now``) and enqueues its
    ``investigation.run`` job, or, when ``dedup_key`` is given and the same agent opened an
    investigation with that key less than :data:`DEDUP_WINDOW` before ``now``, returns that one
    with ``created`` False (whatever its status). Concurrent calls for one
    ``(agent, dedup_key)`` create exactly one, across processes, on SQLite and PostgreSQL (see
    the module doc).

    Transactions: it writes in ``session``'s transaction and flushes; **the caller commits** (the
    row and its job become visible together) or rolls back (nothing happened). It needs no
    transaction of its own. On PostgreSQL, a concurrent call for the same incident waits until
    this transaction ends, so commit promptly. A ``dedup_key`` longer than 255 characters is
    refused with ``ValueError`` (the column's size; adapters bound their keys).
    """
    if dedup_key is not None and len(dedup_key) > 255:
        raise ValueError("dedup_key is at most 255 characters")
    values: dict[str, Any] = {
        "org_id": org_id,
        "alert_responder_id": agent.id,
        "team_id": agent.team_id,
        "name": investigation_name(name),
        "status": InvestigationStatus.PENDING,
        "prompt": investigation_prompt(agent),
        "alert_id": alert_id,
        "event_payload": "",
        "result": "",
        "sources": [],
        "dedup_key": dedup_key,
        "dedup_active": True if dedup_key is not None else None,
        "group_key": group_key[:255] if group_key is not None else None,
        "created_at": now,
    }
    table = Investigation.__table__
    if dedup_key is None:
        inserted = await session.execute(table.insert().values(**values).returning(table.c.id))
        pk = int(inserted.scalar_one())
        await _enqueue_run(session, pk)
        return pk, True

    dialect = session.get_bind().dialect.name
    claim = (
        Investigation.alert_responder_id == agent.id,
        Investigation.dedup_key == dedup_key,
        Investigation.dedup_active.is_(True),
    )
    for _ in range(_CLAIM_ATTEMPTS):
        # Write first: on SQLite this takes the write lock before anything is read; on
        # PostgreSQL it waits for a concurrent transaction holding the same claim.
        statement = insert_ignore(
            dialect,
            table,
            values,
            conflict_columns=("alert_responder_id", "dedup_key", "dedup_active"),
        ).returning(table.c.id)
        new_pk = (await session.execute(statement)).scalar_one_or_none()
        if new_pk is not None:
            await _enqueue_run(session, int(new_pk))
            return int(new_pk), True
        held = (
            await session.execute(select(Investigation.id, Investigation.created_at).where(*claim))
        ).first()
        if held is None:
            continue  # released between the two statements: try again
        held_pk, held_at = held
        if now - held_at < DEDUP_WINDOW:
            return int(held_pk), False
        # Older than the window: release its claim; the next pass takes it (or sees who did).
        await session.execute(
            update(Investigation)
            .where(Investigation.id == held_pk, Investigation.dedup_active.is_(True))
            .values(dedup_active=None)
            .execution_options(synchronize_session=False)
        )
    raise RuntimeError(f"could not claim the investigation of {dedup_key!r} for agent {agent.id}")


async def open_investigations(session: AsyncSession, openings: Sequence[Opening]) -> list[int]:
    """:func:`open_investigations_detailed` without telling which were created."""
    return [pk for pk, _created in await open_investigations_detailed(session, openings)]


async def open_investigations_detailed(
    session: AsyncSession, openings: Sequence[Opening]
) -> list[tuple[int, bool]]:
    """Open many investigations in ``session``'s transaction with a few statements; the pk of
    each opening, in order. The caller commits, as for :func:`open_investigation`.

    The outcome is :func:`open_investigation`'s for each opening in turn: an opening of the same
    ``(agent, dedup_key)`` as an earlier one of the list gets that one's investigation; an
    investigation of the pair opened less than :data:`DEDUP_WINDOW` before the opening's
    ``now`` is reused; otherwise one is created with its ``investigation.run`` job. All claims
    are taken with one ``INSERT ... ON CONFLICT DO NOTHING RETURNING`` executed with every row
    (SQLAlchemy sends multi-row statements), in ``(agent, dedup_key)`` order (so two concurrent
    batches on PostgreSQL wait for each other instead of deadlocking), the jobs with one
    insert; a claim held by an investigation older than the window, or released between the
    statements, goes through :func:`open_investigation` (the careful path). Raises
    ``ValueError`` for a ``dedup_key`` over 255 characters, writing nothing. Each opening's
    answer is ``(investigation pk, created)``: ``created`` is True for the first opening of an
    investigation created here, False for a reused one.
    """
    first: dict[tuple[int, str], Opening] = {}
    for opening in openings:
        if len(opening.dedup_key) > 255:
            raise ValueError("dedup_key is at most 255 characters")
        first.setdefault((opening.agent.id, opening.dedup_key), opening)
    pairs = sorted(first)
    dialect = session.get_bind().dialect.name
    pk_of: dict[tuple[int, str], int] = {}
    created: list[int] = []
    fresh: set[int] = set()
    if pairs:
        statement = _claims_insert(dialect)
        rows = [_opening_values(first[pair]) for pair in pairs]
        for pk, agent_id, dedup_key in (await session.execute(statement, rows)).all():
            pk_of[(int(agent_id), str(dedup_key))] = int(pk)
            created.append(int(pk))
    missing = [pair for pair in pairs if pair not in pk_of]
    if missing:
        held = {
            (int(agent_id or 0), str(dedup_key)): (int(pk), held_at)
            for pk, held_at, agent_id, dedup_key in (
                await session.execute(
                    select(
                        Investigation.id,
                        Investigation.created_at,
                        Investigation.alert_responder_id,
                        Investigation.dedup_key,
                    ).where(
                        Investigation.alert_responder_id.in_({a for a, _ in missing}),
                        Investigation.dedup_key.in_({k for _, k in missing}),
                        Investigation.dedup_active.is_(True),
                    )
                )
            ).all()
        }
        for pair in missing:
            opening = first[pair]
            found = held.get(pair)
            if found is not None and opening.now - found[1] < DEDUP_WINDOW:
                pk_of[pair] = found[0]
                continue
            pk_of[pair], made = await open_investigation(
                session,
                org_id=opening.org_id,
                agent=opening.agent,
                name=opening.name,
                alert_id=opening.alert_id,
                dedup_key=opening.dedup_key,
                now=opening.now,
                group_key=opening.group_key,
            )
            if made:
                fresh.add(pk_of[pair])
    await enqueue_many(
        session, RUN_KIND, [({"investigation_id": pk}, _job_key(pk)) for pk in created]
    )
    fresh.update(created)
    answers: list[tuple[int, bool]] = []
    for opening in openings:
        pk = pk_of[(opening.agent.id, opening.dedup_key)]
        answers.append((pk, pk in fresh))
        fresh.discard(pk)  # a later opening of the same pair reuses it
    return answers


@lru_cache(maxsize=4)
def _claims_insert(dialect: str) -> Insert:
    """The claims' ``INSERT ... ON CONFLICT DO NOTHING RETURNING`` for ``dialect``, built once (its
    cache key is computed once, not on every batch)."""
    table = Investigation.__table__
    return (
        insert_ignore_rows(
            dialect, table, conflict_columns=("alert_responder_id", "dedup_key", "dedup_active")
        )
        # A new investigation has no sources and its payload is its alert's: constants in the
        # statement, not bound per row.
        .values(sources=literal_column("'[]'"), event_payload=literal_column("''"))
        .returning(table.c.id, table.c.alert_responder_id, table.c.dedup_key)
    )


def _opening_values(opening: Opening) -> dict[str, Any]:
    return {
        "org_id": opening.org_id,
        "alert_responder_id": opening.agent.id,
        "team_id": opening.agent.team_id,
        "name": investigation_name(opening.name),
        "status": InvestigationStatus.PENDING,
        "prompt": investigation_prompt(opening.agent),
        "alert_id": opening.alert_id,
        "result": "",
        "dedup_key": opening.dedup_key,
        "dedup_active": True,
        "group_key": opening.group_key[:255] if opening.group_key is not None else None,
        "created_at": opening.now,
    }


def stop_pending_statement(agent_id: Any) -> Update:
    """The stop of the pending investigations of the agent ``agent_id`` (an expression: a bound
    parameter, or a scalar subquery of a statement that also pauses the agent): the one definition
    of the stop."""
    table = Investigation.__table__
    return (
        update(table)
        .where(
            table.c.alert_responder_id == agent_id,
            table.c.status == InvestigationStatus.PENDING,
        )
        .values(status=InvestigationStatus.STOPPED)
    )


#: The stop of an agent's pending investigations (:func:`stop_pending_investigations`).
_STOP_PENDING = stop_pending_statement(bindparam("agent_id"))


async def stop_pending_investigations(target: AsyncSession | Executor, agent_id: int) -> None:
    """The agent was paused or deleted: its investigations that have not started yet will not
    (``STOPPED``; their jobs find them stopped and do nothing). Not committed. One prebuilt
    ``UPDATE`` in ``target``'s transaction (a session's or an
    :class:`~sleuth_shell.db.executor.Executor`'s)."""
    await as_executor(target).execute(_STOP_PENDING, {"agent_id": agent_id})


async def stop_investigation(session: AsyncSession, org_id: int, investigation_id: int) -> bool:
    """Stop an unfinished investigation of ``org_id`` (``PENDING`` or ``IN_PROGRESS`` ->
    ``STOPPED``) and drop its pending job; the caller commits.

    Returns False, writing nothing, when it had finished (or does not exist). A run already in
    the agent's hands keeps running, but its answer is discarded: the completion only writes
    runs that have not ended.
    """
    result = await session.execute(
        update(Investigation)
        .where(
            Investigation.id == investigation_id,
            Investigation.org_id == org_id,
            Investigation.status.in_(LIFECYCLE.unfinished),
        )
        .values(status=InvestigationStatus.STOPPED)
        .execution_options(synchronize_session=False)
    )
    if not result.rowcount:  # type: ignore[attr-defined]
        return False
    await cancel(session, RUN_KIND, _job_key(investigation_id))
    return True


# --- the run kind --------------------------------------------------------------------------------


@dataclass(frozen=True)
class InvestigationOutcome:
    """A rendered investigation: ``result`` (with its Sources section), the cited ``sources``
    in citation order, and what the agent calls cost."""

    result: str
    sources: list[dict[str, Any]]
    credits: float
    analysis: dict[str, Any] | None = None


def _same_data(record: dict[str, Any]) -> str:
    """What a source record points at, whatever its ``source_id`` in its run."""
    return repr(sorted((k, repr(v)) for k, v in record.items() if k != "source_id"))


def _keyed(
    result: AgentResult, prefix: str, known: dict[str, Any] | None = None
) -> tuple[str, dict[str, Any]]:
    """``result``'s markdown and sources with every source id given ``prefix`` (so two results
    can be rendered together without their ids colliding). A source that points at the same data
    as one of ``known`` is cited under that one's key (one citation number, not two)."""
    existing = {_same_data(record): key for key, record in (known or {}).items()}
    keys: dict[str, str] = {}
    sources: dict[str, Any] = {}
    for key, record in result.sources.items():
        same = existing.get(_same_data(record))
        if same is not None:
            keys[str(key)] = same
        else:
            keys[str(key)] = f"{prefix}{key}"
            sources[f"{prefix}{key}"] = record

    def rekey(match: re.Match[str]) -> str:
        return f"[[source:{keys.get(match.group(1), prefix + match.group(1))}]]"

    return _MARKER.sub(rekey, result.markdown), sources


def _impact_question(prompt: str, row: Investigation, payload: str) -> str:
    """The impact prompt with the alert it is about (``payload``): its title, service and
    severity (what the agent searches its stores with)."""
    alert = extract_alert(payload)
    lines = [prompt, "", f"The alert: {row.name}"]
    if alert["service"]:
        lines.append(f"Service: {alert['service']}")
    if alert["severity"]:
        lines.append(f"Severity: {alert['severity']}")
    return "\n".join(lines)


async def _stop_started(services: Services, investigation_id: int) -> None:
    """The agent was paused or deleted before the run began: STOPPED, as if it never started."""
    async with services.sessions() as session:
        await session.execute(
            update(Investigation)
            .where(
                Investigation.id == investigation_id,
                Investigation.status == InvestigationStatus.IN_PROGRESS,
            )
            .values(status=InvestigationStatus.STOPPED, started_at=None)
            .execution_options(synchronize_session=False)
        )
        await session.commit()


async def _produce(services: Services, row: Investigation) -> InvestigationOutcome:
    """Ask the agent about the alert and render the result (see the module doc)."""
    async with services.sessions() as session:
        agent = (
            await session.get(AlertResponder, row.alert_responder_id)
            if row.alert_responder_id is not None
            else None
        )
        impact_prompt = agent.runbook_impact_prompt if agent is not None else None
        paused = agent is None or agent.status != "ACTIVE"
        # The alert it runs on, read as every reader of an investigation reads it.
        read = None if paused else await load_investigation(session, row.org_id, row.id)
        payload = read.event_payload if read is not None else row.event_payload
    if paused:
        # Paused or deleted between the opening and the start (the pause's own update of the
        # PENDING rows may not have seen this one yet).
        await _stop_started(services, row.id)
        raise RunGone(f"the agent of investigation {row.id} is paused or deleted")
    ctx = services.agent_context(row.org_id)
    found = await services.agent.investigate(ctx, row.prompt, payload, title=row.name)
    markdown, sources = _keyed(found, "")
    credits = float(found.credits)
    if impact_prompt:
        impact = await services.agent.answer(ctx, _impact_question(impact_prompt, row, payload))
        impact_markdown, impact_sources = _keyed(impact, "impact-", sources)
        markdown = f"{markdown.rstrip()}\n\n## {IMPACT_HEADING}\n\n{impact_markdown.strip()}"
        sources.update(impact_sources)
        credits += float(impact.credits)
    rendered, numbers = render_numbered(markdown, sources, sources_section=True)
    return InvestigationOutcome(
        rendered.content, rendered.sources, credits, final_analysis(found.analysis, numbers)
    )


async def _charge(executor: Executor, row: Investigation, outcome: InvestigationOutcome) -> Charge:
    # Investigations belong to no team's budget (DESIGN 4 Billing).
    return Charge(team_id=None, credits=outcome.credits)


_AGENT_INTEGRATIONS = select(AlertResponder.notification_integration_ids.label("ids")).where(
    AlertResponder.id == bindparam("agent_id")
)


async def _notify(
    executor: Executor, services: Services, row: Investigation, outcome: InvestigationOutcome
) -> None:
    """The investigation's notification targets: its agent's notification integrations (chat
    messages and alt cards, queued in the completing transaction)."""
    if row.alert_responder_id is None:
        return
    found = await executor.execute(_AGENT_INTEGRATIONS, {"agent_id": row.alert_responder_id})
    if not found or not found[0]["ids"]:
        return
    channels, alt_urls = await integration_targets(executor, row.org_id, found[0]["ids"])
    if not channels and not alt_urls:
        return
    url = investigation_url(services.settings.public_url, encode_global_id(GLOBAL_TYPE, row.id))
    title = f"Investigation: {row.name}"
    if channels:
        text = to_chat(f"# {title}\n\n{outcome.result}\n\n[Open the investigation]({url})")
        for channel_id in channels:
            await enqueue_chat(executor, row.org_id, channel_id, text)
    if alt_urls:
        card = to_alt_card(title, outcome.result, url)
        for alt_url in alt_urls:
            await enqueue_alt(executor, row.org_id, alt_url, card)


def _failure_message(exc: BaseException) -> str:
    return f"The investigation failed: {str(exc).strip() or type(exc).__name__}"


INVESTIGATION: RunKind[Investigation, InvestigationOutcome] = RunKind(
    name="investigation",
    model=Investigation,
    job_kind=RUN_KIND,
    payload_key="investigation_id",
    parse_id=int,
    produce=_produce,
    result_values=lambda outcome: {
        "result": outcome.result,
        "sources": outcome.sources,
        "analysis": outcome.analysis,
        "credits": outcome.credits,
    },
    charge=_charge,
    usage_feature=USAGE_FEATURE,
    failure_message=_failure_message,
    notify=_notify,
    statuses=LIFECYCLE,
)
"""The investigation run kind (see :mod:`sleuth_shell.runs` for its lifecycle)."""
