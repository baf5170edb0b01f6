"""Agents: the `Agent` protocol (`base`), the registry (`registry`) and the built-in agents."""

from sleuth_shell.agents.base import (
    Agent,
    AgentContext,
    AgentError,
    AgentResult,
    Classification,
    ContextMessage,
    KnowledgeDocument,
    KnowledgeHit,
    KnowledgeSearch,
    LogCount,
    LogMessageCount,
    LogRecord,
    LogStore,
    SourceRecord,
)
from sleuth_shell.agents.registry import UnknownAgentError, available_agents, load_agent

__all__ = [
    "Agent",
    "AgentContext",
    "AgentError",
    "AgentResult",
    "Classification",
    "ContextMessage",
    "KnowledgeDocument",
    "KnowledgeHit",
    "KnowledgeSearch",
    "LogCount",
    "LogMessageCount",
    "LogRecord",
    "LogStore",
    "SourceRecord",
    "UnknownAgentError",
    "available_agents",
    "load_agent",
]
