"""Finding agents by name: the ``sleuth.agents`` entry-point group plus the built-in agents.

An entry point names a class (or any callable). `load_agent` builds the agent with
``obj.from_settings(settings)`` when the object has that method, else ``obj()``. The built-in agents
(``retrieval``, ``openai``) resolve even when the distribution's metadata is not installed (a source
checkout on ``sys.path``); an installed entry point of the same name wins over the built-in.
"""

from __future__ import annotations

import importlib
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from sleuth_shell.agents.base import Agent

__all__ = [
    "BUILTIN_AGENTS",
    "ENTRY_POINT_GROUP",
    "UnknownAgentError",
    "available_agents",
    "load_agent",
]

ENTRY_POINT_GROUP = "sleuth.agents"

BUILTIN_AGENTS: dict[str, str] = {
    "retrieval": "sleuth_shell.agents.retrieval:RetrievalAgent",
    "openai": "sleuth_shell.agents.openai:OpenAIAgent",
}
"""Agents shipped with Sleuth, as ``module:attribute`` references."""


class UnknownAgentError(LookupError):
    """No agent is registered under the requested name."""

    def __init__(self, name: str, available: list[str]) -> None:
        self.name = name
        self.available = available
        super().__init__(f"Unknown agent {name!r}; available agents: {', '.join(available)}")


def _entry_points() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def available_agents() -> list[str]:
    """The names `load_agent` accepts, sorted."""
    return sorted(set(BUILTIN_AGENTS) | set(_entry_points()))


def _resolve(reference: str) -> Any:
    module_name, _, attribute = reference.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        obj = getattr(obj, part)
    return obj


def load_agent(name: str, settings: Any = None) -> Agent:
    """Build the agent registered as ``name`` (``SLEUTH_AGENT``), configured from ``settings``.

    Raises `UnknownAgentError` (its message lists the available names) for an unknown name, and
    `TypeError` when the registered object does not produce an `Agent`.
    """
    installed = _entry_points()
    if name in installed:
        factory = installed[name].load()
    elif name in BUILTIN_AGENTS:
        factory = _resolve(BUILTIN_AGENTS[name])
    else:
        raise UnknownAgentError(name, available_agents())
    from_settings = getattr(factory, "from_settings", None)
    agent = from_settings(settings) if callable(from_settings) else factory()
    if not isinstance(agent, Agent):
        raise TypeError(f"Agent {name!r} ({factory!r}) does not implement the Agent protocol")
    return agent
