"""Digest runs and the cron firing of digests, as durable jobs.

Statuses of a run (``digest_runs.status``): ``PENDING`` (created, waiting for its job) ->
``IN_PROGRESS`` (a worker or the request is generating it) -> ``COMPLETED`` (``results`` holds one
``{section, prompt, result}`` per section, stored with ``claims``: what the claim check of the
section found, returned without it) or ``FAILED`` (``error`` says why). A synchronous run is
created ``IN_PROGRESS`` and generated in the request.

Job kinds (registered by :func:`register_digest_jobs`):

``digest.run`` ``{"run_id", "digest_id"}``
    Generate one run: the :data:`DIGEST_RUN` kind of :mod:`sleuth_shell.runs`, which owns the
    lifecycle (a run already ``COMPLETED`` or ``FAILED`` is not generated again; the results, the
    unattributed ``digest`` usage row, the notification jobs and the job's completion commit in
    one transaction).
``digest.cron`` ``{"digest_id", "fire_at"}``
    One cron fire of a digest, due at ``fire_at`` (Unix seconds). In one transaction it creates the
    run (and its ``digest.run`` job), enqueues the digest's next fire and completes itself, so a
    crash either leaves the fire pending (it runs after the restart) or fully done — never lost,
    never doubled. A second job for the same ``(digest_id, fire_at)`` creates no second run.

Each digest has at most one pending ``digest.cron`` job: :func:`schedule_next_fire` replaces it on
create and update, :func:`cancel_digest_jobs` removes it (and pending runs) on delete. When the
service was down across several fire times, the overdue fire runs once on restart and the next one
is scheduled after the current time (missed intermediate fires are coalesced into that one).
Both kinds are keyed by the digest's id (``jobs.key``), which is how these functions find and
cancel a digest's jobs (:func:`sleuth_shell.jobs.queue.cancel`) without reading the job payloads.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_core.cron import NoFireTime, parse_cron
from sleuth_core.errors import InvalidSchedule
from sleuth_core.ids import encode_global_id
from sleuth_core.render import render_answer, to_alt_card, to_chat
from sleuth_shell.billing.budgets import over_budget
from sleuth_shell.db.executor import Executor
from sleuth_shell.db.models import Digest, DigestRun, Job, utcnow
from sleuth_shell.jobs import JobContext, JobRegistry, enqueue
from sleuth_shell.jobs.queue import cancel, duplicate_of, unfinished_keys
from sleuth_shell.notify.delivery import enqueue_alt, enqueue_chat, integration_targets
from sleuth_shell.runs import Charge, RunFailed, RunGone, RunKind, register_run_kind, run_now
from sleuth_shell.services import Services
from sleuth_shell.statuses import DIGEST_RUN as LIFECYCLE
from sleuth_shell.statuses import DigestRunStatus
from sleuth_shell.urls import digest_run_url

__all__ = [
    "CRON_KIND",
    "DIGEST_RUN",
    "RUN_GLOBAL_TYPE",
    "RUN_KIND",
    "SectionResult",
    "cancel_digest_jobs",
    "create_run",
    "ensure_cron_jobs",
    "register_digest_jobs",
    "run_digest",
    "run_view",
    "schedule_next_fire",
]

log = logging.getLogger("sleuth.digests")


RUN_KIND = "digest.run"
CRON_KIND = "digest.cron"
USAGE_FEATURE = "digest"
RUN_GLOBAL_TYPE = "DigestRun"
DIGEST_GLOBAL_TYPE = "Digest"


@dataclass(frozen=True)
class SectionResult:
    """One generated section: the rendered ``result`` (with its Sources section), its cost and
    what the claim check of its text found (``{checked, supported, share, dropped}``, None when
    it cites nothing)."""

    section: str
    prompt: str
    result: str
    credits: float
    claims: dict[str, Any] | None = None

    def to_json(self) -> dict[str, str]:
        """The returned shape ``{section, prompt, result}``."""
        return {"section": self.section, "prompt": self.prompt, "result": self.result}

    def stored(self) -> dict[str, Any]:
        """The stored shape: the returned one and, when checked, ``claims``."""
        kept = {"claims": self.claims} if self.claims is not None else {}
        return {**self.to_json(), **kept}


def returned(item: Mapping[str, Any]) -> dict[str, Any]:
    """A stored section result in its returned shape ``{section, prompt, result}``."""
    return {key: item.get(key, "") for key in ("section", "prompt", "result")}


def _unix(moment: datetime) -> int:
    return int(moment.timestamp())


def _job_key(digest_id: int) -> str:
    """The key of a digest's ``digest.run`` and ``digest.cron`` jobs: the digest's id."""
    return str(digest_id)


# --- creating runs -------------------------------------------------------------------------------


async def create_run(
    session: AsyncSession,
    digest: Digest,
    *,
    scheduled_runtime: datetime,
    sync: bool = False,
) -> DigestRun:
    """Store a run of ``digest`` (not committed).

    A synchronous run is created ``IN_PROGRESS``; otherwise the run is ``PENDING`` and a
    ``digest.run`` job is enqueued due at ``scheduled_runtime``.
    """
    now = utcnow()
    run = DigestRun(
        org_id=digest.org_id,
        digest_id=digest.id,
        status=DigestRunStatus.IN_PROGRESS if sync else DigestRunStatus.PENDING,
        scheduled_runtime=scheduled_runtime,
        results=[],
        created_at=now,
        started_at=now if sync else None,
    )
    session.add(run)
    await session.flush()
    if not sync:
        await enqueue(
            session,
            RUN_KIND,
            {"run_id": run.id, "digest_id": digest.id},
            run_at=scheduled_runtime,
            key=_job_key(digest.id),
        )
    return run


# --- generating ----------------------------------------------------------------------------------


async def _generate(services: Services, run: DigestRun) -> list[SectionResult]:
    """Ask the agent for every section of the run's digest, in order, and render each result.

    Raises :class:`~sleuth_shell.runs.RunFailed` naming the section the agent failed on, and
    :class:`~sleuth_shell.runs.RunGone` when the digest was deleted.
    """
    async with services.sessions() as session:
        digest = await session.get(Digest, run.digest_id)
        if digest is None:
            raise RunGone(f"digest {run.digest_id} was deleted")
        sections = list(digest.sections)
    ctx = services.agent_context(run.org_id)
    results: list[SectionResult] = []
    for item in sections:
        section, prompt = str(item.get("section", "")), str(item.get("prompt", ""))
        try:
            result = await services.agent.digest_section(ctx, section, prompt)
        except Exception as exc:
            text = str(exc).strip() or type(exc).__name__
            raise RunFailed(f"The agent could not write section {section!r}: {text}") from exc
        rendered = render_answer(result.markdown, result.sources, sources_section=True)
        claims = (result.analysis or {}).get("claims")
        results.append(
            SectionResult(section, prompt, rendered.content, float(result.credits), claims)
        )
    return results


def _report_markdown(results: list[SectionResult]) -> str:
    return "\n\n".join(f"## {item.section}\n\n{item.result}" for item in results)


_DIGEST = select(
    Digest.org_id.label("org_id"),
    Digest.name.label("name"),
    Digest.chat_channel_id.label("chat_channel_id"),
    Digest.notification_integration_ids.label("notification_integration_ids"),
).where(Digest.id == bindparam("digest_id"))


async def _notify(
    executor: Executor,
    services: Services,
    run: DigestRun,
    results: list[SectionResult],
) -> None:
    """The digest's notification targets: its chat channel and its notification integrations
    (chat messages and alt cards, queued in the completing transaction)."""
    found = await executor.execute(_DIGEST, {"digest_id": run.digest_id})
    if not found:
        return
    digest = found[0]
    org_id = digest["org_id"]
    channels, alt_urls = await integration_targets(
        executor, org_id, digest["notification_integration_ids"] or []
    )
    if digest["chat_channel_id"]:
        channels = list(dict.fromkeys([digest["chat_channel_id"], *channels]))
    if not channels and not alt_urls:
        return
    report = _report_markdown(results)
    if channels:
        text = to_chat(f"# {digest['name']}\n\n{report}")
        for channel_id in channels:
            await enqueue_chat(executor, org_id, channel_id, text)
    if alt_urls:
        url = digest_run_url(
            services.settings.public_url,
            encode_global_id(DIGEST_GLOBAL_TYPE, run.digest_id),
            encode_global_id(RUN_GLOBAL_TYPE, run.id),
        )
        card = to_alt_card(digest["name"], report, url)
        for alt_url in alt_urls:
            await enqueue_alt(executor, org_id, alt_url, card)


async def _charge(executor: Executor, run: DigestRun, results: list[SectionResult]) -> Charge:
    # Digests belong to no team's budget: the usage is unattributed.
    return Charge(team_id=None, credits=sum(item.credits for item in results))


def _failure_message(exc: BaseException) -> str:
    return f"The digest run failed: {str(exc).strip() or type(exc).__name__}"


DIGEST_RUN: RunKind[DigestRun, list[SectionResult]] = RunKind(
    name="digest run",
    model=DigestRun,
    job_kind=RUN_KIND,
    payload_key="run_id",
    parse_id=int,
    produce=_generate,
    result_values=lambda results: {
        "results": [item.stored() for item in results],
        "credits": sum(item.credits for item in results),
    },
    charge=_charge,
    usage_feature=USAGE_FEATURE,
    failure_message=_failure_message,
    statuses=LIFECYCLE,
    notify=_notify,
)
"""The digest run kind (see :mod:`sleuth_shell.runs` for its lifecycle)."""


async def run_digest(
    session: AsyncSession,
    services: Services,
    digest: Digest,
    *,
    run_sync: bool,
    scheduled_runtime: datetime | None,
    now: datetime,
) -> tuple[DigestRun, list[SectionResult] | None]:
    """Create a run of ``digest`` (committed): due now or at ``scheduled_runtime`` as a job, or
    generated in the caller with ``run_sync`` (then its results are returned).

    Raises :class:`~sleuth_shell.runs.RunFailed` when the synchronous run failed (it is then
    ``FAILED``).
    """
    run = await create_run(
        session, digest, scheduled_runtime=scheduled_runtime or now, sync=run_sync
    )
    await session.commit()
    if not run_sync:
        return run, None
    return run, await run_now(services, DIGEST_RUN, run)


# --- cron ----------------------------------------------------------------------------------------


async def schedule_next_fire(session: AsyncSession, digest: Digest, after: datetime) -> Job | None:
    """Replace the digest's pending cron job with one for its first fire time after ``after``.

    In ``session``'s transaction (the caller commits). Returns the job, or None when the schedule
    has no fire time (or no longer parses).
    """
    await cancel(session, CRON_KIND, _job_key(digest.id))
    try:
        fire = parse_cron(digest.schedule).next_after(after)
    except (InvalidSchedule, NoFireTime) as exc:
        log.warning("digest %s: no next fire time for %r: %s", digest.id, digest.schedule, exc)
        return None
    return await enqueue(
        session,
        CRON_KIND,
        {"digest_id": digest.id, "fire_at": _unix(fire)},
        run_at=fire,
        key=_job_key(digest.id),
    )


async def cancel_digest_jobs(session: AsyncSession, digest_id: int) -> int:
    """Delete the digest's pending cron and run jobs (the caller commits). Returns how many."""
    key = _job_key(digest_id)
    return await cancel(session, CRON_KIND, key) + await cancel(session, RUN_KIND, key)


async def ensure_cron_jobs(sessions: async_sessionmaker[AsyncSession]) -> int:
    """Give every digest without a pending or running cron job its next fire; commit.

    Run at process start (the app's startup, ``sleuth worker``) so digests created before cron
    jobs existed, or whose job was lost to a failure, fire again. Returns how many were scheduled.
    """
    now = utcnow()
    count = 0
    async with sessions() as session:
        held = await unfinished_keys(session, CRON_KIND)
        for digest in (await session.scalars(select(Digest).order_by(Digest.id))).all():
            if _job_key(digest.id) in held:
                continue
            if await schedule_next_fire(session, digest, now) is not None:
                count += 1
        await session.commit()
    return count


async def _cron_job(ctx: JobContext) -> None:
    digest_id = int(ctx.payload["digest_id"])  # type: ignore[call-overload]
    fire_at = int(ctx.payload["fire_at"])  # type: ignore[call-overload]
    fire = datetime.fromtimestamp(fire_at, UTC)
    async with ctx.services.sessions() as session:
        digest = await session.get(Digest, digest_id)
        if digest is None:
            await ctx.complete(session)
            await session.commit()
            return
        duplicate = await duplicate_of(session, ctx.job)
        over = await over_budget(session, {digest.team_id}, utcnow())
        if duplicate is None and digest.team_id in over:
            log.info("digest %s: fire %s skipped, its team's budget is used", digest_id, fire_at)
        elif duplicate is None:
            await create_run(session, digest, scheduled_runtime=fire)
        else:
            log.info("digest %s: fire %s already handled by job %s", digest_id, fire_at, duplicate)
        await schedule_next_fire(session, digest, max(fire, utcnow()))
        await ctx.complete(session)
        await session.commit()


def register_digest_jobs(registry: JobRegistry) -> None:
    """Register the ``digest.run`` and ``digest.cron`` job kinds."""
    register_run_kind(registry, DIGEST_RUN)
    registry.register(CRON_KIND, _cron_job)


# --- showing -------------------------------------------------------------------------------------


def run_view(run: DigestRun) -> dict[str, Any]:
    """The ``GET /api/v1/digests/{id}/runs/{run_id}`` body."""
    return {
        "id": encode_global_id(RUN_GLOBAL_TYPE, run.id),
        "digest_id": encode_global_id(DIGEST_GLOBAL_TYPE, run.digest_id),
        "status": run.status,
        "scheduled_runtime": _unix(run.scheduled_runtime) if run.scheduled_runtime else None,
        "results": [returned(item) for item in run.results or []],
    }
