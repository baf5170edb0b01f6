"""``sleuth serve`` works its job queue in a ``sleuth worker`` child (``SLEUTH_WORKER_PROCESSES``,
default 1), over real HTTP with a real callback receiver: the child runs the jobs the server
enqueues, is restarted when it dies, stops with its server, and does not outlive a killed one."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from callback_receiver import CallbackReceiver
from e2e_harness import cli_batch, free_port, poll, serve_process, sleuth_env
from proc_helpers import alive, children, cmdline

pytestmark = pytest.mark.e2e


@contextlib.contextmanager
def server(tmp: Path, **settings: str) -> Iterator[tuple[str, str, int, Path]]:
    """``sleuth serve`` (default worker settings unless overridden) for a new organization;
    yields its base URL, an API key, its pid and its log."""
    env = sleuth_env(f"sqlite:///{tmp / 'sleuth.db'}", SLEUTH_ALLOW_PRIVATE_URLS="true")
    _, created_key = cli_batch(
        env, ["admin", "create-org", "shop"], ["admin", "create-key", "shop"]
    )
    key = created_key["key"]
    port = free_port()
    env.update({"SLEUTH_PUBLIC_URL": f"http://127.0.0.1:{port}", **settings})
    log = tmp / "serve.log"
    with serve_process(env, log, port) as (base, process):
        yield base, key, process.pid, log


def call_back(base: str, key: str, receiver: CallbackReceiver, question: str) -> None:
    """A background interaction with a callback; waits for the callback to arrive."""
    response = httpx.post(
        f"{base}/api/v1/interactions",
        json={"question": question, "notifications": {"web": {"callback_url": receiver.url}}},
        headers={"X-Service-Org-Api-Key": key},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    poll(lambda: any(got.json().get("question") == question for got in receiver), timeout=30)


def worker_child(pid: int) -> int:
    [child] = poll(lambda: children(pid), timeout=30)
    assert cmdline(child)[-4:-2] == ["worker", "--wake-fd"], cmdline(child)
    return child


def test_serve_runs_jobs_in_a_worker_child_and_restarts_it(tmp_path: Path) -> None:
    with CallbackReceiver() as receiver, server(tmp_path) as (base, key, pid, log):
        assert "inline workers on (1 worker process)" in log.read_text()
        child = worker_child(pid)
        poll(lambda: f"sleuth worker (of sleuth serve {pid}):" in log.read_text())
        call_back(base, key, receiver, "How do I roll back a deploy?")

        os.kill(child, signal.SIGKILL)
        replacement = poll(lambda: [c for c in children(pid) if c != child], timeout=30)[0]
        assert "exited with -9; restarting" in log.read_text()
        call_back(base, key, receiver, "Who is on call?")
        assert alive(replacement)
    assert not alive(replacement)  # SIGTERM to the server stopped its child too


def test_the_child_stops_when_its_server_is_killed(tmp_path: Path) -> None:
    with server(tmp_path) as (_base, _key, pid, log):
        child = worker_child(pid)
        os.kill(pid, signal.SIGKILL)
        poll(lambda: not alive(child), timeout=30)
    assert "stopped" in log.read_text().splitlines()[-1]


def test_zero_worker_processes_keeps_the_worker_in_the_server(tmp_path: Path) -> None:
    with (
        CallbackReceiver() as receiver,
        server(tmp_path, SLEUTH_WORKER_PROCESSES="0") as (base, key, pid, log),
    ):
        assert "inline workers on (in this process)" in log.read_text()
        call_back(base, key, receiver, "How do I roll back a deploy?")
        assert children(pid) == []
