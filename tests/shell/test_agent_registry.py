"""The agent registry: entry points of the ``sleuth.agents`` group, built-ins, clear errors."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from sleuth_shell.agents import Agent, UnknownAgentError, available_agents, load_agent

THIRD_PARTY = textwrap.dedent(
    """
    from sleuth_shell.agents.base import AgentResult, Classification


    class EchoAgent:
        name = "echo"

        def __init__(self, greeting="echo"):
            self.greeting = greeting

        @classmethod
        def from_settings(cls, settings):
            return cls(getattr(settings, "greeting", "echo"))

        async def answer(self, ctx, question, *, history=(), use_tools=True):
            return AgentResult(f"{self.greeting}: {question}", {}, 0.0)

        async def investigate(self, ctx, prompt, event_payload, *, title=""):
            return AgentResult(title, {}, 0.0)

        async def digest_section(self, ctx, section, prompt):
            return AgentResult(section, {}, 0.0)

        async def classify(self, ctx, message, instructions):
            return Classification("NONE", 0.0)


    class NotAnAgent:
        pass
    """
)


@pytest.fixture
def third_party(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Install a third-party distribution declaring agents, the way pip would lay it out."""
    (tmp_path / "echo_agent_pkg.py").write_text(THIRD_PARTY)
    dist = tmp_path / "echo_agent-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: echo-agent\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[sleuth.agents]\necho = echo_agent_pkg:EchoAgent\nbroken = echo_agent_pkg:NotAnAgent\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop("echo_agent_pkg", None)


def test_builtins_are_available_without_installed_metadata() -> None:
    assert {"retrieval", "openai"} <= set(available_agents())


def test_unknown_agent_names_the_available_ones() -> None:
    with pytest.raises(UnknownAgentError) as info:
        load_agent("nope")
    message = str(info.value)
    assert "'nope'" in message
    assert "retrieval" in message and "openai" in message


def test_third_party_entry_point_is_loaded_with_settings(third_party: None) -> None:
    assert "echo" in available_agents()

    class Settings:
        greeting = "hello"

    agent = load_agent("echo", Settings())
    assert isinstance(agent, Agent)
    assert agent.name == "echo"
    assert agent.greeting == "hello"  # type: ignore[attr-defined]


def test_entry_point_that_is_no_agent_is_refused(third_party: None) -> None:
    with pytest.raises(TypeError, match="does not implement the Agent protocol"):
        load_agent("broken")
