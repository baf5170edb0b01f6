"""Durable jobs: one table of work, claimed with leases by any number of workers.

Public API::

    job = await enqueue(session, "interaction.run", {"interaction_id": ...}, run_at=when)
    registry.register("interaction.run", handler, on_failure=hook)
    worker = Worker(services, registry)   # services: any WorkerServices (sessions, backoff)
    await worker.start()
    ...
    await worker.stop()

See :mod:`sleuth_shell.jobs.queue` for the states and the claim, :mod:`sleuth_shell.jobs.registry`
for the handler contract and :mod:`sleuth_shell.jobs.worker` for the loop.
"""

from sleuth_shell.jobs.queue import (
    DONE,
    FAILED,
    PENDING,
    RUNNING,
    ClaimedJob,
    LeaseLost,
    enqueue,
    enqueue_in,
)
from sleuth_shell.jobs.registry import (
    JobContext,
    JobFailed,
    JobRegistry,
    RetryJob,
    WorkerServices,
)
from sleuth_shell.jobs.worker import Worker

__all__ = [
    "DONE",
    "FAILED",
    "PENDING",
    "RUNNING",
    "ClaimedJob",
    "JobContext",
    "JobFailed",
    "JobRegistry",
    "LeaseLost",
    "RetryJob",
    "Worker",
    "WorkerServices",
    "enqueue",
    "enqueue_in",
]
