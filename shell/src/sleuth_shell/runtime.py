"""The process runtime: every job kind's registration, the in-process worker, ``sleuth worker``.

``create_app`` keeps a :class:`Runtime` in ``app.state.runtime``: its startup hook schedules
missing digest cron fires and, unless ``SLEUTH_WORKERS_INLINE=false``, starts the worker: in the
child processes it was given (``sleuth serve`` gives it ``SLEUTH_WORKER_PROCESSES`` of them, see
:mod:`sleuth_shell.jobs.processes`), else in this process; ``sleuth worker`` runs the same worker
alone (:func:`run_worker`). This module sits at the top,
beside the app: it is the one place that knows every feature's job kinds, so
:mod:`sleuth_shell.jobs` (queue, registry, worker) never imports a feature.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from typing import Any

from sleuth_shell.alerts.jobs import ensure_prune_job, register_alert_jobs
from sleuth_shell.chat import register_chat_jobs
from sleuth_shell.digests.service import ensure_cron_jobs, register_digest_jobs
from sleuth_shell.interactions.service import INTERACTION
from sleuth_shell.investigations import INVESTIGATION
from sleuth_shell.jobs import JobRegistry, Worker, queue
from sleuth_shell.jobs.processes import WorkerProcesses, watch_wake_fd
from sleuth_shell.notify.delivery import register_notification_jobs
from sleuth_shell.runs import register_run_kind
from sleuth_shell.services import Services

__all__ = ["Runtime", "job_registry", "run_worker"]

log = logging.getLogger("sleuth.jobs")


def job_registry() -> JobRegistry:
    """A registry with every job kind Sleuth defines."""
    registry = JobRegistry()
    register_run_kind(registry, INTERACTION)
    register_digest_jobs(registry)
    register_run_kind(registry, INVESTIGATION)
    register_notification_jobs(registry)
    register_chat_jobs(registry)
    register_alert_jobs(registry)
    return registry


async def _ensure_schedules(services: Services) -> None:
    """Give digests without a pending cron fire their next one (see ``ensure_cron_jobs``), and
    the alert log its retention job (``ensure_prune_job``)."""
    try:
        scheduled = await ensure_cron_jobs(services.sessions)
    except Exception:
        log.exception("could not schedule the digests' cron fires")
        return
    if scheduled:
        log.info("scheduled the next cron fire of %d digest(s)", scheduled)
    try:
        await ensure_prune_job(services.sessions)
    except Exception:
        log.exception("could not schedule the alert log's retention job")


class Runtime:
    """The services, the registry and (optionally) the worker of one serving process: in-process,
    or the worker child processes ``processes``."""

    def __init__(
        self,
        services: Services,
        *,
        registry: JobRegistry | None = None,
        worker_options: dict[str, Any] | None = None,
        processes: WorkerProcesses | None = None,
    ) -> None:
        self.services = services
        self.registry = registry or job_registry()
        self.worker_options = dict(worker_options or {})
        self.worker: Worker | None = None
        self.processes = processes
        self._waker: object | None = None

    def new_worker(self) -> Worker:
        """A worker over this runtime's services and registry."""
        return Worker(self.services, self.registry, **self.worker_options)

    async def startup(self) -> None:
        """Schedule missing digest cron fires, then, when ``settings.workers_inline``, start the
        worker processes (woken by every enqueue committed here) or the in-process worker (app
        startup hook)."""
        await _ensure_schedules(self.services)
        if not self.services.settings.workers_inline:
            return
        if self.processes is not None:
            if self._waker is None:
                await self.processes.start()
                self._waker = queue.register_waker(self.processes.wake)
        elif self.worker is None:
            self.worker = self.new_worker()
            await self.worker.start()

    async def shutdown(self) -> None:
        """Stop the worker (or worker processes) gracefully and release the services (app
        shutdown hook)."""
        if self._waker is not None and self.processes is not None:
            self._waker = None
            await self.processes.stop()
        if self.worker is not None:
            await self.worker.stop()
            self.worker = None
        await self.services.aclose()


async def run_worker(
    runtime: Runtime, *, stop: asyncio.Event | None = None, wake_fd: int | None = None
) -> None:
    """Run a worker until ``stop`` is set or SIGINT/SIGTERM arrives, then stop it gracefully.

    ``wake_fd``: the read end of a ``sleuth serve`` parent's wake pipe (a byte: look for due jobs
    now; end of file: the parent is gone, stop)."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        # Loops without Unix signals (Windows) and loops outside the main thread (embedded use,
        # tests) refuse a handler; there `stop` alone ends the worker.
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):
            continue
        installed.append(sig)
    await _ensure_schedules(runtime.services)
    worker = runtime.new_worker()
    await worker.start()
    unwatch = watch_wake_fd(loop, wake_fd, worker.wake, stop.set) if wake_fd is not None else None
    log.info("sleuth worker %s running", worker.worker_id)
    try:
        await stop.wait()
    finally:
        if unwatch is not None:
            unwatch()
        await worker.stop()
        await runtime.services.aclose()
        for sig in installed:
            loop.remove_signal_handler(sig)
