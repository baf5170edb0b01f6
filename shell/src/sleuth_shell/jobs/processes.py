"""Worker processes of ``sleuth serve``: the job queue worked beside the HTTP server, not in it.

One Python process runs on one core. When ``sleuth serve`` also ran the job worker on its own
event loop, an alert storm's investigations took the CPU the intake needed to answer the
providers (see docs/performance.md, "Alert intake"). So by default ``sleuth serve`` starts
``SLEUTH_WORKER_PROCESSES`` (1) ``sleuth worker`` children and runs no worker itself;
``SLEUTH_WORKER_PROCESSES=0`` keeps the worker inside the serving process (one process, one core).

Each child gets the read end of a pipe (``sleuth worker --wake-fd N``):

- the parent writes a byte after every commit that enqueued a job in it
  (:func:`sleuth_shell.jobs.queue.register_waker`), so the child claims a new job at once instead
  of at its next poll (jobs enqueued by other nodes are still seen within the worker's
  ``poll_interval``); a full pipe already holds a pending wake-up, so a write that would block is
  dropped;
- end of file on the pipe means the parent is gone (even if it was killed): the child stops
  gracefully, so no worker outlives its server.

Per child slot::

    (start) --spawn--> RUNNING --exits on its own--> BACKOFF --restart_delay--> RUNNING
    RUNNING --stop()--> STOPPING --exits (or is killed after stop_timeout)--> STOPPED

A child that exits while the server runs is logged and restarted after ``restart_delay`` seconds
(doubling up to a minute while it keeps dying within a minute of its start). The jobs it was
running are recovered by the queue's leases like any dead worker's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
import time
from collections.abc import Callable, Sequence

__all__ = ["WorkerProcesses", "watch_wake_fd"]

log = logging.getLogger("sleuth.jobs")

#: Longest wait between two restarts of a child that keeps dying.
MAX_RESTART_DELAY = 60.0


class _Child:
    """One worker slot: its process and the write end of its wake pipe."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.process: subprocess.Popen[bytes] | None = None
        self.wake_fd: int | None = None
        self.started_at = 0.0
        self.delay = 0.0
        self.restart_at = 0.0

    def close_pipe(self) -> None:
        if self.wake_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.wake_fd)
            self.wake_fd = None


class WorkerProcesses:
    """``count`` worker children started, woken, supervised and stopped by the serving process.

    ``command`` is the child's argv without the wake option (``--wake-fd N`` is appended).
    """

    def __init__(
        self,
        count: int,
        command: Sequence[str],
        *,
        env: dict[str, str] | None = None,
        restart_delay: float = 1.0,
        stop_timeout: float = 20.0,
    ) -> None:
        if count < 1:
            raise ValueError("count must be at least 1")
        self.command = list(command)
        self.env = env
        self.restart_delay = restart_delay
        self.stop_timeout = stop_timeout
        self._children = [_Child(i) for i in range(count)]
        self._supervisor: asyncio.Task[None] | None = None
        self._stopping = False

    @property
    def pids(self) -> list[int]:
        """The pids of the children running now."""
        return [c.process.pid for c in self._children if c.process and c.process.poll() is None]

    def _spawn(self, child: _Child) -> None:
        read_fd, write_fd = os.pipe()
        os.set_blocking(write_fd, False)
        try:
            child.process = subprocess.Popen(
                [*self.command, "--wake-fd", str(read_fd)],
                env=self.env,
                pass_fds=(read_fd,),
                # Its own process group: a Ctrl-C at the terminal reaches the server alone, which
                # then stops its children in order (pipe closed, SIGTERM).
                process_group=0,
            )
        except BaseException:
            os.close(write_fd)
            raise
        finally:
            os.close(read_fd)
        child.wake_fd = write_fd
        child.started_at = time.monotonic()
        log.info("started job worker process %d (pid %d)", child.index, child.process.pid)

    async def start(self) -> None:
        """Start every child and the supervisor task (in the running event loop)."""
        if self._supervisor is not None:
            raise RuntimeError("worker processes already started")
        for child in self._children:
            self._spawn(child)
        self._supervisor = asyncio.create_task(self._supervise(), name="sleuth-worker-processes")

    def wake(self) -> None:
        """Tell every child to look for due jobs now (never blocks)."""
        for child in self._children:
            if child.wake_fd is None:
                continue
            with contextlib.suppress(BlockingIOError, BrokenPipeError):
                os.write(child.wake_fd, b"w")

    async def _supervise(self) -> None:
        while not self._stopping:
            await asyncio.sleep(0.5)
            now = time.monotonic()
            for child in self._children:
                if self._stopping:
                    return
                if child.process is None:
                    if now >= child.restart_at:
                        self._spawn(child)
                    continue
                code = child.process.poll()
                if code is None:
                    continue
                child.close_pipe()
                lived = now - child.started_at
                child.delay = (
                    min(max(child.delay * 2, self.restart_delay), MAX_RESTART_DELAY)
                    if lived < MAX_RESTART_DELAY
                    else self.restart_delay
                )
                child.restart_at = now + child.delay
                log.error(
                    "job worker process %d (pid %d) exited with %s; restarting in %.0f s",
                    child.index,
                    child.process.pid,
                    code,
                    child.delay,
                )
                child.process = None

    async def stop(self) -> None:
        """Stop the children gracefully: close their pipes and send SIGTERM (each finishes or
        releases its running jobs), then kill any still running after ``stop_timeout``."""
        self._stopping = True
        if self._supervisor is not None:
            self._supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._supervisor
            self._supervisor = None
        running = [c.process for c in self._children if c.process is not None]
        for child in self._children:
            child.close_pipe()
            if child.process is not None and child.process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    child.process.terminate()
        deadline = time.monotonic() + self.stop_timeout
        for process in running:
            while process.poll() is None and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            if process.poll() is None:
                log.error("job worker pid %d did not stop in time: killed", process.pid)
                process.kill()
                await asyncio.to_thread(process.wait)
        for child in self._children:
            child.process = None


def watch_wake_fd(
    loop: asyncio.AbstractEventLoop, fd: int, wake: Callable[[], None], gone: Callable[[], None]
) -> Callable[[], None]:
    """In a child: call ``wake`` when the parent writes to ``fd``, ``gone`` at end of file (the
    parent exited). Returns the function that stops watching (and closes ``fd``)."""
    os.set_blocking(fd, False)
    closed = False

    def readable() -> None:
        try:
            data = os.read(fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            wake()
        else:
            unwatch()
            gone()

    def unwatch() -> None:
        nonlocal closed
        if not closed:
            closed = True
            loop.remove_reader(fd)
            with contextlib.suppress(OSError):
                os.close(fd)

    loop.add_reader(fd, readable)
    return unwatch
