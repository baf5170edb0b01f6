"""``sleuth serve``'s worker children (:mod:`sleuth_shell.jobs.processes`), with real processes.

The children here are a small Python script standing in for ``sleuth worker --wake-fd N``: it
watches its wake pipe with :func:`watch_wake_fd` (the function the real worker uses) and appends
``wake`` / ``gone`` to a file, so each transition of the module's state diagram is observable.
The real ``sleuth serve`` with a real ``sleuth worker`` child is covered end to end in
tests/e2e/test_worker_processes_e2e.py.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sleuth_shell.jobs.processes import WorkerProcesses, watch_wake_fd

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


CHILD = textwrap.dedent(
    """
    import asyncio, signal, sys
    sys.path[:0] = [{shell!r}, {core!r}]
    from sleuth_shell.jobs.processes import watch_wake_fd

    out = open(sys.argv[1], "a", buffering=1)

    async def main():
        fd = int(sys.argv[sys.argv.index("--wake-fd") + 1])
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, lambda: (out.write("term\\n"), stop.set()))
        gone = lambda: (out.write("gone\\n"), stop.set())
        watch_wake_fd(loop, fd, lambda: out.write("wake\\n"), gone)
        out.write("up\\n")
        await stop.wait()

    asyncio.run(main())
    """
).format(shell=str(ROOT / "shell" / "src"), core=str(ROOT / "core" / "src"))


def lines(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


async def until(check: Callable[[], object], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not reached before the deadline"
        await asyncio.sleep(0.02)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


def processes(tmp_path: Path, count: int = 1, **options: float) -> tuple[WorkerProcesses, Path]:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    out = tmp_path / "child.out"
    return WorkerProcesses(count, [sys.executable, str(script), str(out)], **options), out


@pytest.mark.anyio
async def test_wake_reaches_every_child_and_stop_terminates_them(tmp_path: Path) -> None:
    workers, out = processes(tmp_path, count=2)
    await workers.start()
    try:
        await until(lambda: lines(out).count("up") == 2)
        pids = workers.pids
        assert len(pids) == 2
        workers.wake()
        await until(lambda: lines(out).count("wake") >= 2)
    finally:
        await workers.stop()
    assert workers.pids == []
    assert not any(alive(pid) for pid in pids)
    # Each child saw its pipe close or SIGTERM (whichever came first) and stopped on its own.
    assert lines(out).count("gone") + lines(out).count("term") >= 2


@pytest.mark.anyio
async def test_a_child_that_dies_is_restarted(tmp_path: Path) -> None:
    workers, out = processes(tmp_path, restart_delay=0.1)
    await workers.start()
    try:
        await until(lambda: lines(out).count("up") == 1)
        [first] = workers.pids
        os.kill(first, signal.SIGKILL)
        await until(lambda: workers.pids and workers.pids != [first])
        await until(lambda: lines(out).count("up") == 2)
        workers.wake()  # the new child has a pipe of its own
        await until(lambda: "wake" in lines(out))
    finally:
        await workers.stop()


@pytest.mark.anyio
async def test_wake_never_blocks_when_a_child_does_not_read(tmp_path: Path) -> None:
    workers, out = processes(tmp_path)
    await workers.start()
    try:
        await until(lambda: "up" in lines(out))
        [pid] = workers.pids
        os.kill(pid, signal.SIGSTOP)  # a stuck child: its pipe fills up
        try:
            for _ in range(200_000):  # far more than a pipe buffer holds
                workers.wake()
        finally:
            os.kill(pid, signal.SIGCONT)
        await until(lambda: "wake" in lines(out))
    finally:
        await workers.stop()


@pytest.mark.anyio
async def test_a_child_that_ignores_sigterm_is_killed_after_the_stop_timeout(
    tmp_path: Path,
) -> None:
    script = tmp_path / "stubborn.py"
    script.write_text(
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "open(sys.argv[1], 'w').write('up')\n"
        "time.sleep(600)\n"
    )
    out = tmp_path / "stubborn.out"
    workers = WorkerProcesses(1, [sys.executable, str(script), str(out)], stop_timeout=0.5)
    await workers.start()
    await until(out.exists)
    [pid] = workers.pids
    await workers.stop()
    assert not alive(pid)


@pytest.mark.anyio
async def test_watch_wake_fd_reports_bytes_then_end_of_file() -> None:
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    seen: list[str] = []
    watch_wake_fd(loop, read_fd, lambda: seen.append("wake"), lambda: seen.append("gone"))
    os.write(write_fd, b"www")  # several wake-ups pending: one call
    await until(lambda: seen == ["wake"])
    os.close(write_fd)
    await until(lambda: seen == ["wake", "gone"])
    with pytest.raises(OSError):
        os.fstat(read_fd)  # closed once the parent is gone


def test_count_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        WorkerProcesses(0, [sys.executable])
