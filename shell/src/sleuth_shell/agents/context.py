"""Building an `AgentContext` over the shell's database (what jobs and endpoints hand an agent)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.agents.base import AgentContext
from sleuth_shell.knowledge.search import DatabaseKnowledgeSearch
from sleuth_shell.observability.store import DatabaseLogStore

__all__ = ["database_context"]


def database_context(
    sessions: async_sessionmaker[AsyncSession], *, org_id: int, now: datetime, public_url: str
) -> AgentContext:
    """The context of one agent run for ``org_id`` at ``now``, reading the embedded stores.

    ``public_url`` is ``Settings.public_url`` (trailing slashes are removed).
    """
    return AgentContext(
        org_id=org_id,
        now=now,
        knowledge=DatabaseKnowledgeSearch(sessions),
        logs=DatabaseLogStore(sessions),
        public_url=public_url.rstrip("/"),
    )
