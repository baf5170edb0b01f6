"""The alert log's retention job: ``alerts.prune`` deletes stored alerts and webhook and chat
delivery records older than ``SLEUTH_ALERT_RETENTION_DAYS``, every hour.

One job is pending at a time (key ``alert-log``): :func:`ensure_prune_job` (process start)
schedules it when none is, and each run schedules the next at the following whole hour. Two
processes starting at once may both schedule the same slot; the second run of a slot finds the
first (:func:`~sleuth_shell.jobs.queue.duplicate_of`) and does nothing.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.alerts.service import prune_alert_log, retention_cutoff
from sleuth_shell.db.models import utcnow
from sleuth_shell.jobs import JobContext, JobRegistry, enqueue
from sleuth_shell.jobs.queue import duplicate_of, unfinished_keys
from sleuth_shell.services import Services

__all__ = ["PRUNE_KEY", "PRUNE_KIND", "ensure_prune_job", "register_alert_jobs"]

log = logging.getLogger("sleuth.alerts")

PRUNE_KIND = "alerts.prune"
PRUNE_KEY = "alert-log"


def _next_slot(now: datetime) -> datetime:
    """The next whole hour after ``now``."""
    return now.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)


async def _schedule(session: AsyncSession, at: datetime) -> None:
    await enqueue(session, PRUNE_KIND, {"slot": at.isoformat()}, run_at=at, key=PRUNE_KEY)


async def ensure_prune_job(sessions: async_sessionmaker[AsyncSession]) -> bool:
    """Schedule the retention job when none is pending or running (commits); whether it did.
    The first run is now, so a service that was down prunes at start."""
    async with sessions() as session:
        if PRUNE_KEY in await unfinished_keys(session, PRUNE_KIND):
            return False
        now = utcnow()
        await _schedule(session, now.replace(second=0, microsecond=0))
        await session.commit()
    return True


async def _prune(ctx: JobContext) -> None:
    services = cast(Services, ctx.services)
    now = utcnow()
    async with services.sessions() as session:
        if await duplicate_of(session, ctx.job) is None:
            cutoff = retention_cutoff(now, services.settings.alert_retention_days)
            counts = await prune_alert_log(session, cutoff)
            if any(counts.values()):
                log.info("pruned the alert log before %s: %s", cutoff.isoformat(), counts)
            await _schedule(session, _next_slot(now))
        await ctx.complete(session)
        await session.commit()


def register_alert_jobs(registry: JobRegistry) -> None:
    """Register ``alerts.prune``."""
    registry.register(PRUNE_KIND, _prune)
