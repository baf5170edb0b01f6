"""Chat triggers: the ``chat.trigger`` job decides and posts the reply to one message.

:func:`queue_trigger_reply` (called while a message is taken in) finds the first assignment of
the organization's advanced settings that fires for the message (core
:func:`~sleuth_core.settings.triggered_assignments`) and queues one ``chat.trigger`` job carrying
a copy of that assignment and of ``ext_channels``, so a later settings change does not alter a
reply already decided to be made.

The job (a durable job, not a run kind: a reply has no row of its own to read back):

1. With ``filtering_instructions``, the agent's ``classify`` (the filter agent) picks ``AGENT``,
   ``STATIC`` or ``NONE``; without instructions the decision is ``AGENT``.
2. ``AGENT``: the agent's ``answer`` to the message, rendered (numbered citations, a ``Sources:``
   section) into the platform's mrkdwn. ``STATIC``: the assignment's ``static_response`` as
   written (nothing is posted when the assignment has none). ``NONE``: nothing is posted.
3. A reply ends with :func:`tip_text` when ``ext_channels`` is set, and is posted in the message's
   thread (``thread_ts`` = the message's ``ts``) by a ``notify.chat`` job: the chat client (the
   embedded outbox, or the platform's Web API with ``SLEUTH_CHAT_BOT_TOKEN``).
4. Usage rows, the reply's job and the job's completion are written in one transaction: the
   filter run as feature ``filter``, the answer as ``chat_trigger``, both unattributed (null
   team). An agent failure retries the job (up to :data:`TRIGGER_ATTEMPTS` attempts).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.render import render_answer, to_chat
from sleuth_core.settings import triggered_assignments
from sleuth_shell.agents.base import ClassificationDecision
from sleuth_shell.billing.ledger import FEATURE_CHAT_TRIGGER, FEATURE_FILTER, record_usage
from sleuth_shell.db.models import utcnow
from sleuth_shell.jobs import JobContext, JobRegistry, RetryJob, enqueue
from sleuth_shell.notify.delivery import enqueue_chat
from sleuth_shell.org_settings import load_advanced_settings
from sleuth_shell.services import services_of

__all__ = [
    "TRIGGER_ATTEMPTS",
    "TRIGGER_KIND",
    "queue_trigger_reply",
    "register_chat_jobs",
    "tip_text",
]

log = logging.getLogger("sleuth.chat")

TRIGGER_KIND = "chat.trigger"
#: Attempts of one trigger job (the agent may be briefly unreachable).
TRIGGER_ATTEMPTS = 3


def tip_text(ext_channels: list[str]) -> str:
    """The tip that ends every trigger reply when ``ext_channels`` is set (mrkdwn)."""
    channels = [f"<#{channel}>" for channel in ext_channels]
    where = channels[-1] if len(channels) == 1 else ", ".join(channels[:-1]) + " or " + channels[-1]
    return (
        f"_Tip: for feedback, questions or requests for new data sources or integrations, "
        f"ask in {where}._"
    )


async def queue_trigger_reply(
    session: AsyncSession, *, org_id: int, channel_id: str, text: str, ts: str | None
) -> int:
    """Queue the reply of the first chat trigger that fires for a message; returns 1, or 0
    when none fires (in the caller's transaction)."""
    document = await load_advanced_settings(session, org_id)
    fired = triggered_assignments(document, channel_id, text)
    if not fired:
        return 0
    raw_channels = document.get("ext_channels")
    ext_channels = [c for c in raw_channels or [] if isinstance(c, str)]
    await enqueue(
        session,
        TRIGGER_KIND,
        {
            "org_id": org_id,
            "channel_id": channel_id,
            "text": text,
            "thread_ts": ts,
            "assignment": fired[0],
            "ext_channels": ext_channels,
        },
        max_attempts=TRIGGER_ATTEMPTS,
        key=f"{org_id}:{channel_id}",
    )
    return 1


def _question(text: str) -> str:
    """The message as a question for the agent: mentions of users and channels removed."""
    return re.sub(r"<[@!][^>]*>", "", text).strip() or text.strip()


async def _run_trigger(ctx: JobContext) -> None:
    services = services_of(ctx)
    payload = ctx.payload
    org_id = int(str(payload["org_id"]))
    channel_id = str(payload["channel_id"])
    question = _question(str(payload["text"]))
    raw_thread = payload.get("thread_ts")
    thread_ts = str(raw_thread) if raw_thread else None
    raw_assignment = payload.get("assignment")
    assignment: dict[str, Any] = raw_assignment if isinstance(raw_assignment, dict) else {}
    raw_channels = payload.get("ext_channels")
    ext_channels = [str(c) for c in raw_channels] if isinstance(raw_channels, list) else []
    agent_ctx = services.agent_context(org_id)
    charges: list[tuple[str, float]] = []

    instructions = assignment.get("filtering_instructions")
    decision: ClassificationDecision = "AGENT"
    if isinstance(instructions, str) and instructions.strip():
        try:
            classification = await services.agent.classify(agent_ctx, question, instructions)
        except Exception as exc:
            raise RetryJob(f"the filter agent failed: {type(exc).__name__}: {exc}") from exc
        decision = classification.decision
        charges.append((FEATURE_FILTER, classification.credits))

    reply: str | None = None
    if decision == "AGENT":
        try:
            result = await services.agent.answer(agent_ctx, question)
        except Exception as exc:
            raise RetryJob(f"the agent failed: {type(exc).__name__}: {exc}") from exc
        rendered = render_answer(result.markdown, result.sources, sources_section=True)
        reply = to_chat(rendered.content)
        charges.append((FEATURE_CHAT_TRIGGER, result.credits))
    elif decision == "STATIC":
        static = assignment.get("static_response")
        if isinstance(static, str) and static.strip():
            reply = static
        else:
            log.warning(
                "chat trigger in %s chose STATIC but the assignment has no static_response",
                channel_id,
            )
    if reply is not None and ext_channels:
        reply = f"{reply}\n\n{tip_text(ext_channels)}"

    async with services.sessions() as session:
        now = utcnow()
        for feature, credits in charges:
            await record_usage(
                session,
                org_id=org_id,
                team_id=None,
                feature=feature,
                credits=credits,
                occurred_at=now,
            )
        if reply is not None:
            await enqueue_chat(session, org_id, channel_id, reply, thread_ts)
        await ctx.complete(session)
        await session.commit()
    log.info("chat trigger in %s decided %s", channel_id, decision)


def register_chat_jobs(registry: JobRegistry) -> None:
    """Register the ``chat.trigger`` job kind."""
    registry.register(TRIGGER_KIND, _run_trigger)
