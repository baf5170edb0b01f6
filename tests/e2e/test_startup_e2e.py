"""``sleuth serve`` and ``sleuth worker`` check the whole configuration before they start.

Each refused configuration exits non-zero with one clear line on stderr, before the database is
touched; a good one logs one startup line (database kind, agent, public URL, inline workers).
The real CLI runs as a subprocess.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_harness import cli, free_port, poll, running, sleuth_env

from sleuth_shell.gc_tuning import YOUNG_THRESHOLD

pytestmark = pytest.mark.e2e

REFUSED = [
    pytest.param(
        {"SLEUTH_AGENT": "nope"},
        "Error: SLEUTH_AGENT: Unknown agent 'nope'; available agents: openai, retrieval",
        id="unknown-agent",
    ),
    pytest.param(
        {"SLEUTH_AGENT_COSTS": "run=abc"},
        "Error: SLEUTH_AGENT_COSTS: run must be a number, got 'abc'",
        id="bad-costs",
    ),
    pytest.param(
        {"SLEUTH_AGENT_COSTS": "bogus=1"},
        "Error: SLEUTH_AGENT_COSTS: unknown item 'bogus=1'; use classify, knowledge_search, "
        "llm_1k_tokens, log_query, run",
        id="unknown-cost",
    ),
    pytest.param(
        {"SLEUTH_AGENT": "openai"},
        "Error: SLEUTH_AGENT=openai: The openai agent needs SLEUTH_LLM_BASE_URL and "
        "SLEUTH_LLM_MODEL to be set",
        id="openai-without-url-and-model",
    ),
    pytest.param(
        {"SLEUTH_AGENT": "openai", "SLEUTH_LLM_BASE_URL": "http://127.0.0.1:9/v1"},
        "Error: SLEUTH_AGENT=openai: The openai agent needs SLEUTH_LLM_BASE_URL and "
        "SLEUTH_LLM_MODEL to be set",
        id="openai-without-model",
    ),
    pytest.param(
        {"SLEUTH_WORKERS_INLINE": "maybe"},
        "Error: SLEUTH_WORKERS_INLINE must be true or false, got 'maybe'",
        id="bad-flag",
    ),
]


@pytest.mark.parametrize("command", ["serve", "worker"])
@pytest.mark.parametrize(("settings", "message"), REFUSED)
def test_a_bad_configuration_refuses_to_start(
    tmp_path: Path, command: str, settings: dict[str, str], message: str
) -> None:
    db = tmp_path / "sleuth.db"
    args = ["serve", "--port", str(free_port())] if command == "serve" else ["worker"]
    done = subprocess.run(
        [sys.executable, "-m", "sleuth_shell", *args],
        env=sleuth_env(f"sqlite:///{db}", **settings),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [message]
    assert done.stdout == ""
    assert not db.exists()  # refused before the database was touched


@pytest.mark.parametrize("command", ["serve", "worker"])
def test_a_good_configuration_logs_one_startup_line(tmp_path: Path, command: str) -> None:
    port = free_port()
    args = ["serve", "--port", str(port)] if command == "serve" else ["worker"]
    env = sleuth_env(
        f"sqlite:///{tmp_path / 'sleuth.db'}",
        SLEUTH_PUBLIC_URL="https://sleuth.example.com",
        SLEUTH_WORKERS_INLINE="false",
        SLEUTH_AGENT_COSTS="run=2",
    )
    cli(env, "admin", "create-org", "acme")  # only create-org makes a new SQLite database
    log = tmp_path / "out.log"
    inline = "off" if command == "serve" else "n/a (this process is the worker)"
    expected = (
        f"sleuth {command}: database sqlite, agent retrieval (RetrievalAgent), "
        f"public URL https://sleuth.example.com, inline workers {inline}"
    )
    with running(args, env, log) as process:
        poll(lambda: expected in log.read_text() or process.poll() is not None, timeout=60)
        assert process.poll() is None, log.read_text()
    lines = [line for line in log.read_text().splitlines() if line.startswith(f"sleuth {command}:")]
    assert len(lines) == 1
    # ... and the garbage collector's settings (gc_tuning), with the startup heap it froze.
    gc = re.fullmatch(
        re.escape(expected) + r", gc young (\d+), (\d+) startup objects frozen", lines[0]
    )
    assert gc is not None, lines[0]
    assert int(gc.group(1)) == YOUNG_THRESHOLD
    assert int(gc.group(2)) > 100_000
