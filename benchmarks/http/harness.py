"""Shared plumbing of the HTTP and job benchmarks: seed a fresh database, start servers, run wrk.

Not a test module (pytest collects only ``test_*.py``); see ``bench_http.py`` and ``bench_jobs.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PYTHON = sys.executable
# This checkout's code, not whatever the virtualenv has installed.
for _src in (ROOT / "shell" / "src", ROOT / "core" / "src"):
    if str(_src) not in sys.path:
        sys.path.insert(0, str(_src))


def source_path(root: Path = ROOT) -> str:
    """PYTHONPATH that makes subprocesses run the code of checkout ``root`` (default: this one)."""
    parts = [str(root / "core" / "src"), str(root / "shell" / "src"), str(HERE)]
    if os.environ.get("PYTHONPATH"):
        parts.append(os.environ["PYTHONPATH"])
    return os.pathsep.join(parts)


def loadavg() -> str:
    """The 1, 5 and 15 minute load averages, as ``/proc/loadavg`` shows them."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def describe_machine() -> str:
    """Commit, CPU count, Python and the UTC date, for the record next to the figures."""
    return (
        f"commit {git_commit()}, {platform.machine()} x {len(os.sched_getaffinity(0))} CPUs, "
        f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )


def git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def wait_http(url: str, timeout: float = 60.0, proc: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server for {url} exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except Exception:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up within {timeout:.0f}s")


@contextlib.contextmanager
def server(
    args: list[str],
    port: int,
    *,
    env: dict[str, str] | None = None,
    ready_path: str = "/",
    root: Path = ROOT,
) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``python args...`` (listening on ``port``, the code of checkout ``root``) until the
    block ends."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env["PYTHONPATH"] = source_path(root)
    log = open(os.devnull, "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([PYTHON, *args], env=full_env, stdout=log, stderr=log)
    try:
        wait_http(f"http://127.0.0.1:{port}{ready_path}", proc=proc)
        yield proc
    finally:
        stop(proc)
        log.close()


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM ``proc`` and wait for it (15 s, then SIGKILL)."""
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


async def read_response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One HTTP/1.1 response with a ``Content-Length`` from a keep-alive connection: its status
    and body (the benchmarks' minimal clients; ``StopIteration`` when the length is missing)."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    length = next(
        int(line.split(":", 1)[1])
        for line in lines[1:]
        if line.lower().startswith("content-length:")
    )
    return status, await reader.readexactly(length)


def top_of_profile(path: str | Path, count: int = 25, *, ours: bool = False) -> None:
    """Print the functions with the most samples in a py-spy raw profile: own and inclusive
    shares of all samples; ``ours`` adds the inclusive top of Sleuth's own functions."""
    own: dict[str, int] = {}
    inclusive: dict[str, int] = {}
    total = 0
    for line in Path(path).read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        samples = int(n)
        total += samples
        frames = stack.split(";")
        own[frames[-1]] = own.get(frames[-1], 0) + samples
        for frame in set(frames):
            inclusive[frame] = inclusive.get(frame, 0) + samples
    print(f"{path}: {total} samples")
    print("  self %  incl %  function (own time)")
    for frame, n in sorted(own.items(), key=lambda kv: -kv[1])[:count]:
        print(f"  {100 * n / total:6.1f}  {100 * inclusive[frame] / total:6.1f}  {frame}")
    if ours:
        print("  incl %  function (inclusive, sleuth code)")
        mine = [(f, n) for f, n in inclusive.items() if "sleuth_" in f]
        for frame, n in sorted(mine, key=lambda kv: -kv[1])[:count]:
            print(f"  {100 * n / total:6.1f}  {frame}")


def hello_server(
    module: str, port: int
) -> contextlib.AbstractContextManager[subprocess.Popen[bytes]]:
    """A framework hello-world under uvicorn, configured like ``sleuth serve`` (one worker,
    ``log_level=info`` with the access log)."""
    return server(
        [
            "-m", "uvicorn", f"{module}:app", "--app-dir", str(HERE),
            "--host", "127.0.0.1", "--port", str(port), "--log-level", "info",
        ],
        port,
    )  # fmt: skip


def sleuth_server(
    database_url: str, port: int, extra_env: dict[str, str] | None = None, root: Path = ROOT
) -> contextlib.AbstractContextManager[subprocess.Popen[bytes]]:
    """``sleuth serve`` of checkout ``root`` (default: this one) on ``database_url``."""
    env = {
        "SLEUTH_DATABASE_URL": database_url,
        "SLEUTH_PUBLIC_URL": f"http://127.0.0.1:{port}",
        "SLEUTH_ALLOW_PRIVATE_URLS": "true",
    }
    env.update(extra_env or {})
    return server(
        ["-m", "sleuth_shell", "serve", "--host", "127.0.0.1", "--port", str(port)],
        port,
        env=env,
        ready_path="/health",
        root=root,
    )


def ensure_wrk() -> str:
    """The path of ``wrk``, installing Debian's package when it is missing (needs root)."""
    found = shutil.which("wrk")
    if found:
        return found
    print("wrk not found: installing it with apt-get (Debian package 'wrk')", file=sys.stderr)
    subprocess.run(["apt-get", "install", "-y", "-q", "wrk"], check=True)
    found = shutil.which("wrk")
    if not found:
        raise RuntimeError("wrk is still missing after apt-get install")
    return found


@dataclass(frozen=True)
class WrkResult:
    rps: float
    p50_ms: float
    p99_ms: float
    errors: int
    load: str
    server_cpu_us: float | None = None
    """CPU time (user + system) of the server process per answered request, when ``run_wrk`` was
    given its pid: unlike req/s, barely moved by other work on the machine (its own process's
    threads only: not PostgreSQL's, not wrk's)."""


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (every thread), from ``/proc``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


_UNIT = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    if not match:
        raise ValueError(f"unexpected wrk latency {text!r}")
    return float(match.group(1)) * _UNIT[match.group(2)]


def run_wrk(
    wrk: str,
    url: str,
    *,
    duration: float,
    connections: int,
    threads: int = 2,
    script: Path | None = None,
    script_args: list[str] | None = None,
    server_pid: int | None = None,
) -> WrkResult:
    load = loadavg()
    cpu_before = process_cpu_seconds(server_pid) if server_pid is not None else 0.0
    cmd = [wrk, f"-t{threads}", f"-c{connections}", f"-d{duration:g}s", "--latency"]
    if script is not None:
        cmd += ["-s", str(script)]
    cmd.append(url)
    if script_args:
        cmd += ["--", *script_args]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    cpu = process_cpu_seconds(server_pid) - cpu_before if server_pid is not None else None
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p50 = _ms(re.search(r"\s50%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    p99 = _ms(re.search(r"\s99%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    errors = 0
    for pattern in (r"Non-2xx or 3xx responses:\s+(\d+)", r"Socket errors:.*?timeout (\d+)"):
        match = re.search(pattern, out)
        if match:
            errors += int(match.group(1))
    requests = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    server_cpu_us = cpu / requests * 1e6 if cpu is not None and requests else None
    return WrkResult(
        rps=rps, p50_ms=p50, p99_ms=p99, errors=errors, load=load, server_cpu_us=server_cpu_us
    )


async def seed(
    database_url: str, orgs: int, agents_per_org: int, *, root: Path = ROOT
) -> list[tuple[str, int, int]]:
    """Migrate ``database_url`` with checkout ``root``'s migrations (a baseline's server refuses a
    schema newer than its own) and create ``orgs`` enterprise organizations, one API key and
    ``agents_per_org`` alert agents each. Returns ``(api_key, org_id, agent_id)`` triples."""
    from sleuth_shell import admin
    from sleuth_shell.db import create_engine, create_session_factory, migrate
    from sleuth_shell.db.models import AlertResponder, Team

    if root == ROOT:
        await asyncio.to_thread(migrate, database_url)
    else:
        script = "import sys; from sleuth_shell.db import migrate; migrate(sys.argv[1])"
        env = {**os.environ, "PYTHONPATH": source_path(root)}
        await asyncio.to_thread(
            subprocess.run, [PYTHON, "-c", script, database_url], env=env, check=True
        )
    engine = create_engine(database_url)
    out: list[tuple[str, int, int]] = []
    try:
        sessions = create_session_factory(engine)
        for i in range(orgs):
            async with sessions() as session:
                org = await admin.create_org(session, f"Bench org {i}", plan="enterprise")
                _row, key = await admin.create_key(session, org.name, admin=True)
                team = (
                    await session.execute(Team.__table__.select().where(Team.org_id == org.id))
                ).first()
                assert team is not None
                agents = [
                    AlertResponder(
                        org_id=org.id,
                        team_id=team.id,
                        name=f"Agent {j}",
                        runbook_prompt=f"Check the dashboards of service {j}, then the deploy log.",
                        runbook_active=True,
                        text_matches=[f"service-{j}"],
                        match_rules={"rules": []},
                        chat_channel_id=f"C{i:04d}{j:03d}",
                        webhook_sources=[],
                        status="ACTIVE",
                    )
                    for j in range(agents_per_org)
                ]
                session.add_all(agents)
                await session.commit()
                out.extend((key, org.id, agent.id) for agent in agents)
    finally:
        await engine.dispose()
    return out


async def activate_agents(database_url: str) -> None:
    """Set every alert agent of ``database_url`` ACTIVE (a write benchmark's starting state),
    after a moment for the requests still in flight from the previous load to be answered."""
    from sqlalchemy import update

    from sleuth_shell.db import create_engine
    from sleuth_shell.db.models import AlertResponder

    await asyncio.sleep(0.3)
    engine = create_engine(database_url)
    try:
        async with engine.begin() as connection:
            await connection.execute(update(AlertResponder.__table__).values(status="ACTIVE"))
    finally:
        await engine.dispose()
