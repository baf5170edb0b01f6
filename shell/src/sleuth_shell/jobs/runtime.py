"""The job machinery of one process: services, the registry of every job kind, the worker.

``create_app`` keeps a :class:`JobRuntime` in ``app.state.jobs``: request handlers use its
``services`` (the agent, the stores, the outbound HTTP seam) and its startup hook starts the
in-process worker unless ``SLEUTH_WORKERS_INLINE=false``. ``sleuth worker`` runs the same worker
alone (:func:`run_worker`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.config import Settings
from sleuth_shell.jobs.registry import JobRegistry
from sleuth_shell.jobs.services import JobServices
from sleuth_shell.jobs.worker import Worker

__all__ = ["JobRuntime", "default_registry", "run_worker"]

log = logging.getLogger("sleuth.jobs")


def default_registry() -> JobRegistry:
    """A registry with every job kind Sleuth defines."""
    from sleuth_shell.digests.service import register_digest_jobs
    from sleuth_shell.interactions.service import register_interaction_jobs
    from sleuth_shell.notify.delivery import register_notification_jobs

    registry = JobRegistry()
    register_interaction_jobs(registry)
    register_digest_jobs(registry)
    register_notification_jobs(registry)
    return registry


async def _ensure_schedules(services: JobServices) -> None:
    """Give digests without a pending cron fire their next one (see ``ensure_cron_jobs``)."""
    from sleuth_shell.digests.service import ensure_cron_jobs

    try:
        scheduled = await ensure_cron_jobs(services.sessions)
    except Exception:
        log.exception("could not schedule the digests' cron fires")
        return
    if scheduled:
        log.info("scheduled the next cron fire of %d digest(s)", scheduled)


class JobRuntime:
    """Services, registry and (optionally) the in-process worker of one process."""

    def __init__(
        self,
        settings: Settings,
        sessions: async_sessionmaker[AsyncSession],
        *,
        registry: JobRegistry | None = None,
        services: JobServices | None = None,
        worker_options: dict[str, Any] | None = None,
    ) -> None:
        self.settings = settings
        self.services = services or JobServices(settings=settings, sessions=sessions)
        self.registry = registry or default_registry()
        self.worker_options = dict(worker_options or {})
        self.worker: Worker | None = None

    def new_worker(self) -> Worker:
        """A worker over this runtime's services and registry."""
        return Worker(self.services, self.registry, **self.worker_options)

    async def startup(self) -> None:
        """Schedule missing digest cron fires, then start the in-process worker when
        ``settings.workers_inline`` (app startup hook)."""
        await _ensure_schedules(self.services)
        if self.settings.workers_inline and self.worker is None:
            self.worker = self.new_worker()
            await self.worker.start()

    async def shutdown(self) -> None:
        """Stop the worker gracefully and release the services (app shutdown hook)."""
        if self.worker is not None:
            await self.worker.stop()
            self.worker = None
        await self.services.aclose()


async def run_worker(runtime: JobRuntime, *, stop: asyncio.Event | None = None) -> None:
    """Run a worker until ``stop`` is set or SIGINT/SIGTERM arrives, then stop it gracefully."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    await _ensure_schedules(runtime.services)
    worker = runtime.new_worker()
    await worker.start()
    log.info("sleuth worker %s running", worker.worker_id)
    try:
        await stop.wait()
    finally:
        await worker.stop()
        await runtime.services.aclose()
        for sig in installed:
            loop.remove_signal_handler(sig)
