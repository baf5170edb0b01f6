"""What every end-to-end test needs: the real ``sleuth`` CLI and server as subprocesses.

``sleuth_env`` builds a clean environment that runs this checkout's code; ``cli`` runs one
``sleuth`` command and returns its JSON; ``cli_runs`` runs several in one ``sleuth`` process (one
interpreter start instead of one per command) and returns each one's exit status and output;
``cli_batch`` does that for commands that must succeed and returns their JSON; ``running`` keeps
a ``sleuth`` process (``serve``, ``worker``) alive for a ``with`` block; ``serve`` starts the API
on a free port and waits for ``/health``; ``poll`` waits for a condition with a deadline (never
sleep-then-assert).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]


def sleuth_env(database_url: str, **settings: str) -> dict[str, str]:
    """The process environment: no inherited ``SLEUTH_*``, this checkout first on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "core/src"), str(ROOT / "shell/src")])
    env["SLEUTH_DATABASE_URL"] = database_url
    env.update(settings)
    return env


def cli(env: dict[str, str], *args: str) -> dict[str, Any]:
    """Run ``sleuth <args>``; it must exit 0 and print one JSON object, which is returned."""
    done = subprocess.run(
        [sys.executable, "-m", "sleuth_shell", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


#: Runs each command of ``argv[1]`` (a JSON list of argument lists) through the ``sleuth`` entry
#: point (``sleuth_shell.cli.main``) as the console script does (click's standalone mode: usage
#: errors exit 2 with a message, ``Error: ...`` exits 1), in order, and prints the list of their
#: ``[exit status, stdout, stderr]``.
_BATCH = """
import io, json, sys, traceback
from contextlib import redirect_stderr, redirect_stdout
from sleuth_shell.cli import main
results = []
for args in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main.main(args=args, prog_name="sleuth")
            status = 0
        except SystemExit as exit:
            code = exit.code
            status = code if isinstance(code, int) else (0 if code is None else 1)
            if isinstance(code, str):
                print(code, file=sys.stderr)
        except Exception:
            traceback.print_exc()
            status = 1
    results.append([status, out.getvalue(), err.getvalue()])
print(json.dumps(results))
"""


@dataclass(frozen=True)
class Ran:
    """What one command of :func:`cli_runs` gave: its exit status and output."""

    returncode: int
    stdout: str
    stderr: str


def cli_runs(env: dict[str, str], *commands: list[str]) -> list[Ran]:
    """Run several ``sleuth`` commands, in order, in one ``sleuth`` process (one interpreter
    start instead of one per command): each through the entry point as the console script runs
    it, against the same database. Returns each command's exit status, stdout and stderr."""
    done = subprocess.run(
        [sys.executable, "-c", _BATCH, json.dumps(commands)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    results = [Ran(*result) for result in json.loads(done.stdout)]
    assert len(results) == len(commands)
    return results


def cli_batch(env: dict[str, str], *commands: list[str]) -> list[dict[str, Any]]:
    """Run several ``sleuth`` commands in one process (:func:`cli_runs`): the same commands as
    :func:`cli`, each must exit 0 and print one JSON object; their objects are returned in order."""
    objects: list[dict[str, Any]] = []
    for command, ran in zip(commands, cli_runs(env, *commands), strict=True):
        assert ran.returncode == 0, (command, ran.stderr)
        objects.append(json.loads(ran.stdout))
    return objects


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def poll(check: Callable[[], Any], *, timeout: float = 20.0, interval: float = 0.1) -> Any:
    """Call ``check`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached before the deadline")
        time.sleep(interval)


@contextlib.contextmanager
def running(
    args: list[str], env: dict[str, str], log_path: Path
) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``sleuth <args>`` as a subprocess; SIGTERM it (then kill) on exit."""
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "sleuth_shell", *args],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            yield process
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


@contextlib.contextmanager
def serve(env: dict[str, str], log_path: Path, port: int | None = None) -> Iterator[str]:
    """``sleuth serve`` on ``port`` (default: a free one) until healthy; yields its base URL."""
    with serve_process(env, log_path, port) as (base_url, _process):
        yield base_url


@contextlib.contextmanager
def serve_process(
    env: dict[str, str], log_path: Path, port: int | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Like :func:`serve`, yielding the base URL and the server's process."""
    port = port or free_port()
    base_url = f"http://127.0.0.1:{port}"
    with running(["serve", "--port", str(port)], env, log_path) as process:

        def healthy() -> bool:
            assert process.poll() is None, log_path.read_text()
            try:
                return httpx.get(f"{base_url}/health", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False

        poll(healthy, timeout=60)
        yield base_url, process
