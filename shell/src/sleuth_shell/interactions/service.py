"""Interactions: create them in every mode, run them, and show them.

Statuses (DESIGN.md section 4): a synchronous interaction is created ``IN_PROGRESS`` and returned
``COMPLETED``; background and scheduled ones are stored ``PENDING``, become ``IN_PROGRESS`` when a
worker starts them and end ``COMPLETED`` or ``FAILED``. The create response of a background or
scheduled request says ``SCHEDULED``.

Every background or scheduled interaction is one ``interaction.run`` job (one per runtime). The
lifecycle (start, finish once, fail once, usage, notifications, the job's completion) is
:mod:`sleuth_shell.runs`'s; this module declares the kind (:data:`INTERACTION`): how the agent is
asked, which columns the answer fills, what is charged and who is notified.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.render import render_answer, to_alt_card, to_chat
from sleuth_shell.agents.base import AgentResult, ContextMessage
from sleuth_shell.agents.rca import final_analysis, render_numbered
from sleuth_shell.db.direct_writes import direct_writer
from sleuth_shell.db.executor import Executor, SessionExecutor, write_transaction
from sleuth_shell.db.hot_reads import hot_statements
from sleuth_shell.db.models import Interaction, Team, utcnow
from sleuth_shell.interactions.request import InteractionRequest, InvalidInteraction
from sleuth_shell.jobs import enqueue
from sleuth_shell.notify.delivery import enqueue_alt, enqueue_chat, enqueue_web_callback
from sleuth_shell.notify.urls import Resolver, UnsafeURL, check_url
from sleuth_shell.runs import Charge, RunKind, run_now
from sleuth_shell.services import Services
from sleuth_shell.statuses import INTERACTION as LIFECYCLE
from sleuth_shell.statuses import InteractionStatus
from sleuth_shell.urls import interaction_url

__all__ = [
    "INTERACTION",
    "RUN_KIND",
    "SCHEDULED",
    "Answer",
    "Submitted",
    "analysis_view",
    "answer_view",
    "conversation",
    "create_interactions",
    "list_item",
    "scheduled_view",
    "submit_interactions",
    "unix_seconds",
    "view",
]

log = logging.getLogger("sleuth.interactions")

SCHEDULED = "SCHEDULED"

RUN_KIND = "interaction.run"
USAGE_FEATURE = "interaction"
#: How deep context references are followed (an interaction continuing one continuing one ...).
MAX_CONTEXT_DEPTH = 20


@dataclass(frozen=True)
class Answer:
    """An agent result, rendered: API ``content`` (no Sources section) and ``sources``."""

    result: AgentResult
    content: str
    sources: list[dict[str, Any]]
    analysis: dict[str, Any] | None = None
    """The root-cause analysis of a "why" answer, evidence as citation numbers of ``sources``."""


def unix_seconds(moment: datetime) -> int:
    """Whole Unix seconds of an aware datetime."""
    return int(moment.timestamp())


# --- creating ------------------------------------------------------------------------------------


#: The organization's ``Default`` team (prebuilt: the fast path compiles each statement once).
_DEFAULT_TEAM = select(Team.id.label("id")).where(
    Team.org_id == bindparam("org_id"), Team.name == "Default"
)


def _default_team_statement() -> Any:
    return _DEFAULT_TEAM


async def _default_team_id(executor: Executor, org_id: int) -> int | None:
    rows = await executor.execute(_DEFAULT_TEAM, {"org_id": org_id})
    return int(rows[0]["id"]) if rows else None


async def _default_team_hot(services: Services, org_id: int) -> int | None:
    """The ``Default`` team's id, read on the hot-read path (a committed team)."""
    rows = await hot_statements(services.sessions).rows(
        "default_team", _default_team_statement, {"org_id": org_id}
    )
    return int(rows[0][0]) if rows else None


_INSERT: list[Any] = []


def _insert_statement() -> Any:
    """The prebuilt ``INSERT`` of one interaction row (every column a bound parameter)."""
    if not _INSERT:
        table = Interaction.__table__
        _INSERT.append(
            insert(table).values({c.key: bindparam(c.key, type_=c.type) for c in table.c})
        )
    return _INSERT[0]


def _column_values(row: Interaction) -> dict[str, Any]:
    return {c.key: getattr(row, c.key) for c in Interaction.__table__.c}


async def _store(executor: Executor, row: Interaction) -> None:
    """Insert a synchronous interaction's row with one prebuilt Core ``INSERT``; the row object
    stays transient (the run refreshes it from its finishing ``UPDATE``, see
    :func:`sleuth_shell.runs.finish_in`)."""
    await executor.execute(_insert_statement(), _column_values(row))


async def _check_targets(
    request: InteractionRequest, *, allow_private: bool, resolver: Resolver
) -> None:
    notifications = request.notifications
    if notifications.callback_url is not None:
        try:
            await check_url(
                notifications.callback_url, allow_private=allow_private, resolver=resolver
            )
        except UnsafeURL:
            raise InvalidInteraction(
                f"Invalid callback_url: {notifications.callback_url}"
            ) from None
    for url in notifications.alt_webhook_urls:
        try:
            await check_url(url, allow_private=allow_private, resolver=resolver)
        except UnsafeURL:
            raise InvalidInteraction("Invalid payload") from None


def _context_ids(request: InteractionRequest) -> set[str]:
    return {item.interaction_id for item in request.context if item.interaction_id}


async def _check_context(
    session: AsyncSession | None, org_id: int, request: InteractionRequest
) -> None:
    wanted = _context_ids(request)
    if not wanted:
        return
    assert session is not None, "a context check needs a session"
    found = set(
        (
            await session.scalars(
                select(Interaction.id).where(
                    Interaction.org_id == org_id, Interaction.id.in_(wanted)
                )
            )
        ).all()
    )
    if found != wanted:
        raise InvalidInteraction("Invalid payload")


async def create_interactions(
    session: AsyncSession | None,
    services: Services,
    *,
    org_id: int,
    team_id: int | None,
    api_key_id: int | None,
    api_key: str | None,
    request: InteractionRequest,
    now: datetime,
    store: bool = True,
) -> list[Interaction]:
    """Check the request's targets and context, then store its interactions (not committed).

    ``store=False`` (synchronous requests only): build the row without writing it (the caller
    inserts it, see :func:`submit_interactions`); ``session`` may then be None when the request
    has no context interaction to check.

    Synchronous requests get one ``IN_PROGRESS`` row; background requests one ``PENDING`` row and
    a job due now; scheduled requests one ``PENDING`` row and job per runtime. ``team_id`` is the
    key's team (None: the organization's ``Default`` team). ``api_key`` is kept on the rows only
    when a callback will be sent without ``custom_headers`` (it is the default callback header).
    Raises :class:`InvalidInteraction` for an unsafe callback or alt URL or an unknown context ID.
    """
    await _check_targets(
        request, allow_private=services.settings.allow_private_urls, resolver=services.resolver
    )
    await _check_context(session, org_id, request)
    if team_id is None:
        team_id = await _default_team_hot(services, org_id)
    notifications = request.notifications
    keep_key = notifications.callback_url is not None and not notifications.custom_headers
    mode = request.mode
    runtimes: Sequence[datetime | None] = request.runtimes or [None]
    rows: list[Interaction] = []
    for runtime in runtimes:
        row = Interaction(
            id=str(uuid.uuid4()),
            org_id=org_id,
            team_id=team_id,
            api_key_id=api_key_id,
            user_id=request.user_id,
            question=request.question,
            context=[item.to_json() for item in request.context],
            use_tools=request.use_tools,
            status=InteractionStatus.IN_PROGRESS if mode == "sync" else InteractionStatus.PENDING,
            content=None,
            sources=[],
            notifications=notifications.to_json(),
            callback_api_key=api_key if keep_key else None,
            scheduled_runtime=runtime if runtime is not None else now,
            created_at=now,
            started_at=now if mode == "sync" else None,
            analysis=None,
            error=None,
            completed_at=None,
        )
        rows.append(row)
    if mode == "sync":
        if not store:
            return rows
        assert session is not None
        await _store(SessionExecutor(session), rows[0])
        return rows
    assert session is not None
    session.add_all(rows)
    await session.flush()
    if mode != "sync":
        for row in rows:
            await enqueue(
                session, RUN_KIND, {"interaction_id": row.id}, run_at=row.scheduled_runtime
            )
    return rows


# --- running -------------------------------------------------------------------------------------


async def conversation(
    session: AsyncSession, org_id: int, items: Sequence[dict[str, Any]], *, depth: int = 0
) -> list[ContextMessage]:
    """The history an interaction continues, from its stored context items.

    An item with ``interaction_id`` contributes that interaction's whole conversation: its own
    context (followed up to :data:`MAX_CONTEXT_DEPTH` levels), its question, and its answer when it
    has one. An item's ``content`` is a user message.
    """
    messages: list[ContextMessage] = []
    for item in items:
        ref_id = item.get("interaction_id")
        if isinstance(ref_id, str):
            ref = await session.get(Interaction, ref_id)
            if ref is not None and ref.org_id == org_id:
                if depth < MAX_CONTEXT_DEPTH:
                    messages.extend(
                        await conversation(session, org_id, ref.context or [], depth=depth + 1)
                    )
                messages.append(ContextMessage(role="user", content=ref.question))
                if ref.status == InteractionStatus.COMPLETED and ref.content:
                    messages.append(ContextMessage(role="assistant", content=ref.content))
        content = item.get("content")
        if isinstance(content, str):
            messages.append(ContextMessage(role="user", content=content))
    return messages


async def _answer(services: Services, interaction: Interaction) -> Answer:
    """Ask the agent and render its answer (failures are :func:`sleuth_shell.runs.execute`'s)."""
    history: list[ContextMessage] = []
    if interaction.context:
        async with services.sessions() as session:
            history = await conversation(session, interaction.org_id, interaction.context)
    result = await services.agent.answer(
        services.agent_context(interaction.org_id),
        interaction.question,
        history=history,
        use_tools=interaction.use_tools,
    )
    rendered, numbers = render_numbered(result.markdown, result.sources, sources_section=False)
    return Answer(
        result=result,
        content=rendered.content,
        sources=list(rendered.sources),
        analysis=final_analysis(result.analysis, numbers),
    )


def _failure_message(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"The agent could not answer: {text or type(exc).__name__}"


def _result_values(answer: Answer) -> dict[str, Any]:
    return {"content": answer.content, "sources": answer.sources, "analysis": answer.analysis}


async def _charge(executor: Executor, row: Interaction, answer: Answer) -> Charge | None:
    team_id = row.team_id
    if team_id is None:
        team_id = await _default_team_id(executor, row.org_id)
    if team_id is None:
        log.warning("interaction %s: organization %s has no Default team", row.id, row.org_id)
        return None
    return Charge(team_id=team_id, credits=answer.result.credits)


async def _notify(executor: Executor, services: Services, row: Interaction, answer: Answer) -> None:
    """The interaction's notification targets, as its request named them."""
    notifications = row.notifications or {}
    channels = (notifications.get("chat") or {}).get("chat_channel_ids") or []
    alt_urls = (notifications.get("alt") or {}).get("alt_webhook_urls") or []
    if channels or alt_urls:
        full = render_answer(answer.result.markdown, answer.result.sources, sources_section=True)
        url = interaction_url(services.settings.public_url, row.id)
        if channels:
            text = to_chat(f"**{_one_line(row.question)}**\n\n{full.content}")
            for channel_id in channels:
                await enqueue_chat(executor, row.org_id, channel_id, text)
        for alt_url in alt_urls:
            card = to_alt_card(_one_line(row.question), full.content, url)
            await enqueue_alt(executor, row.org_id, alt_url, card)
    if (notifications.get("web") or {}).get("callback_url"):
        await enqueue_web_callback(executor, row)


def _one_line(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


INTERACTION: RunKind[Interaction, Answer] = RunKind(
    name="interaction",
    model=Interaction,
    job_kind=RUN_KIND,
    payload_key="interaction_id",
    parse_id=str,
    produce=_answer,
    result_values=_result_values,
    charge=_charge,
    usage_feature=USAGE_FEATURE,
    failure_message=_failure_message,
    statuses=LIFECYCLE,
    notify=_notify,
    # A failed interaction sends no callback: forget the API key kept for it.
    failed_values={"callback_api_key": None},
)
"""The interaction run kind (see :mod:`sleuth_shell.runs` for its lifecycle)."""


@dataclass(frozen=True)
class Submitted:
    """What a create request made: its rows, and the answer when it ran synchronously."""

    rows: list[Interaction]
    answer: Answer | None


async def submit_interactions(
    session: AsyncSession | None,
    services: Services,
    *,
    org_id: int,
    team_id: int | None,
    api_key_id: int | None,
    api_key: str | None,
    request: InteractionRequest,
    now: datetime,
) -> Submitted:
    """Create the request's interactions (committed) and, when synchronous, run it now.

    ``session``: the caller's, or None to open one only when needed (a synchronous question on
    SQLite with no context interaction needs none, see :mod:`sleuth_shell.db.direct_writes`).

    Raises :class:`InvalidInteraction` for a refused request and
    :class:`~sleuth_shell.runs.RunFailed` when the synchronous run failed (it is then ``FAILED``).
    """
    # The fast path: the synchronous row goes in through a direct transaction of its own
    # (sleuth_shell.db.executor); the session, if any, only reads (the context check).
    fast = (
        request.mode == "sync"
        and services.settings.fast_path
        and direct_writer(services.sessions) is not None
    )
    if session is None and (not fast or _context_ids(request)):
        async with services.sessions() as own:
            return await submit_interactions(
                own,
                services,
                org_id=org_id,
                team_id=team_id,
                api_key_id=api_key_id,
                api_key=api_key,
                request=request,
                now=now,
            )
    rows = await create_interactions(
        session,
        services,
        org_id=org_id,
        team_id=team_id,
        api_key_id=api_key_id,
        api_key=api_key,
        request=request,
        now=now,
        store=not fast,
    )
    if fast:
        async with write_transaction(services.sessions, fast=True) as executor:
            await _store(executor, rows[0])
            await executor.commit()
    else:
        assert session is not None
        await session.commit()
    if request.mode != "sync":
        return Submitted(rows, None)
    answer = await run_now(services, INTERACTION, rows[0])
    return Submitted(rows, answer)


# --- showing -------------------------------------------------------------------------------------


def answer_view(row: Interaction, answer: Answer, public_url: str) -> dict[str, Any]:
    """The ``POST /api/v1/interactions`` body of a synchronous request (exactly SPEC's members;
    the analysis is :func:`analysis_view`'s)."""
    return {
        "question": row.question,
        "content": answer.content,
        "sources": answer.sources,
        "interaction_id": row.id,
        "url": interaction_url(public_url, row.id),
    }


def scheduled_view(rows: Sequence[Interaction], public_url: str, *, legacy: bool) -> dict[str, Any]:
    """The ``POST /api/v1/interactions`` body of a background or scheduled request (``legacy``:
    the deprecated singular ``scheduled_runtime``'s shape)."""
    items = [
        {
            "interaction_id": row.id,
            "scheduled_runtime": unix_seconds(row.scheduled_runtime or utcnow()),
            "url": interaction_url(public_url, row.id),
        }
        for row in rows
    ]
    if legacy:
        return {**items[0], "status": SCHEDULED}
    return {"interactions": items, "status": SCHEDULED}


def view(row: Interaction, public_url: str) -> dict[str, Any]:
    """The ``GET /api/v1/interactions/{id}`` body for the row's status."""
    url = interaction_url(public_url, row.id)
    if row.status == InteractionStatus.COMPLETED:
        return {
            "question": row.question,
            "content": row.content or "",
            "sources": list(row.sources or []),
            "interaction_id": row.id,
            "status": InteractionStatus.COMPLETED,
            "url": url,
        }
    return {"interaction_id": row.id, "status": row.status, "url": url}


def analysis_view(row: Interaction) -> dict[str, Any]:
    """The ``GET /api/v1/interactions/{id}/analysis`` body: the structured verdict of a "why"
    answer (evidence as citation numbers of ``sources``), null when there is none (yet)."""
    return {"analysis": row.analysis}


def list_item(row: Interaction, public_url: str) -> dict[str, Any]:
    """One entry of ``GET /api/v1/interactions``: what was asked, when, and where it stands."""
    return {
        "interaction_id": row.id,
        "question": row.question,
        "status": row.status,
        "created_at": row.created_at,
        "url": interaction_url(public_url, row.id),
    }
