"""What job handlers can use: settings, database sessions, the outbound HTTP seam, the agent."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.config import Settings
from sleuth_shell.notify.http import HttpPoster, HttpxPoster
from sleuth_shell.notify.urls import Resolver, system_resolver

__all__ = ["JobServices"]


@dataclass
class JobServices:
    """The dependencies a worker hands to every handler (one instance per worker / event loop).

    ``agent_loader`` builds the configured agent on first use (the default loads ``settings.agent``
    through :func:`sleuth_shell.agents.registry.load_agent`).
    """

    settings: Settings
    sessions: async_sessionmaker[AsyncSession]
    poster: HttpPoster = field(default_factory=HttpxPoster)
    resolver: Resolver = system_resolver
    agent_loader: Callable[[Settings], Any] | None = None
    knowledge_store: Any = None
    """The knowledge search agents read (default: the database's full-text catalog)."""
    log_store: Any = None
    """The observability store agents read (default: the database's log records)."""
    retry_base_seconds: float = 1.0
    """First retry delay of a :class:`~sleuth_shell.jobs.registry.RetryJob`; doubles per attempt."""
    retry_max_seconds: float = 300.0
    _agent: Any = field(default=None, init=False, repr=False)

    def agent(self) -> Any:
        """The agent that answers (loaded once)."""
        if self._agent is None:
            if self.agent_loader is not None:
                self._agent = self.agent_loader(self.settings)
            else:
                from sleuth_shell.agents.registry import load_agent

                self._agent = load_agent(self.settings.agent, self.settings)
        return self._agent

    def knowledge(self) -> Any:
        """The :class:`~sleuth_shell.agents.base.KnowledgeSearch` agents read."""
        if self.knowledge_store is None:
            from sleuth_shell.knowledge.search import DatabaseKnowledgeSearch

            self.knowledge_store = DatabaseKnowledgeSearch(self.sessions)
        return self.knowledge_store

    def logs(self) -> Any:
        """The :class:`~sleuth_shell.agents.base.LogStore` agents read."""
        if self.log_store is None:
            from sleuth_shell.observability.store import DatabaseLogStore

            self.log_store = DatabaseLogStore(self.sessions)
        return self.log_store

    def backoff(self, attempt: int) -> float:
        """Seconds to wait before retrying after failed attempt number ``attempt`` (1-based)."""
        return min(self.retry_max_seconds, self.retry_base_seconds * 2 ** max(0, attempt - 1))

    async def aclose(self) -> None:
        """Release what the services hold (the HTTP connection pool)."""
        close = getattr(self.poster, "aclose", None)
        if close is not None:
            await close()
