"""The typed service container: what request handlers, runs and job handlers use.

``create_app(settings, ...)`` and ``sleuth worker`` build one :class:`Services` with
:func:`build_services` and pass it down (handlers get it as the ``services`` dependency, job
handlers as ``ctx.services``). Every member is typed with its protocol, so a test swaps any of them
by passing a fake to ``create_app`` (``agent=``, ``knowledge=``, ``logs=``, ``changes=``,
``metrics=``, ``data_sources=``, ``poster=``, ``resolver=``), never by assigning attributes after
the build.

The agent is loaded here, once, when the container is built: an unknown ``SLEUTH_AGENT``, an
invalid ``SLEUTH_AGENT_COSTS`` or an ``openai`` agent without its URL and model raise
:class:`~sleuth_shell.config.ConfigError` at start (``sleuth serve``/``worker`` refuse to start),
never on a user's first question. :meth:`Services.agent_context` is the one place an
:class:`~sleuth_shell.agents.base.AgentContext` is built.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.agents.base import (
    Agent,
    AgentContext,
    AgentError,
    ChangeStore,
    DataSources,
    KnowledgeSearch,
    LogStore,
    MetricStore,
    TraceStore,
)
from sleuth_shell.agents.registry import UnknownAgentError, load_agent
from sleuth_shell.agents.sources import CostModel
from sleuth_shell.changes.store import SqlChangeStore
from sleuth_shell.config import ConfigError, Settings
from sleuth_shell.datasources.pull import PrometheusPull
from sleuth_shell.db.models import utcnow
from sleuth_shell.jobs import JobContext
from sleuth_shell.knowledge.search import DatabaseKnowledgeSearch
from sleuth_shell.notify.http import AiohttpPoster, HttpPoster
from sleuth_shell.notify.urls import Resolver, system_resolver
from sleuth_shell.observability.metric_store import SqlMetricStore
from sleuth_shell.observability.store import DatabaseLogStore
from sleuth_shell.observability.traces import SqlTraceStore

__all__ = ["Services", "build_services", "load_configured_agent", "services_of"]


@dataclass
class Services:
    """Everything a run or handler depends on (one instance per process and event loop)."""

    settings: Settings
    sessions: async_sessionmaker[AsyncSession]
    agent: Agent
    """The configured agent (loaded and validated when the container was built)."""
    knowledge: KnowledgeSearch
    """The knowledge search agents read (default: the database's full-text catalog)."""
    logs: LogStore
    """The observability store agents read (default: the database's log records)."""
    changes: ChangeStore
    """The change records agents read (default: the database's ``changes`` table)."""
    metrics: MetricStore
    """The metric series agents read (default: the database's metric series and points)."""
    traces: TraceStore
    """The spans agents read (default: the database's trace store)."""
    data_sources: DataSources
    """The organization's data sources agents query (default: the Prometheus-compatible sources
    stored in the database, see :mod:`sleuth_shell.datasources`)."""
    poster: HttpPoster
    """The outbound HTTP seam of callbacks and alt webhooks."""
    resolver: Resolver
    """DNS resolution used to vet outbound URLs."""
    retry_base_seconds: float = 1.0
    """First retry delay of a :class:`~sleuth_shell.jobs.registry.RetryJob`; doubles per attempt."""
    retry_max_seconds: float = 300.0

    def agent_context(self, org_id: int, *, now: datetime | None = None) -> AgentContext:
        """The context of one agent run for ``org_id`` (the only place one is built)."""
        return AgentContext(
            org_id=org_id,
            now=now or utcnow(),
            knowledge=self.knowledge,
            logs=self.logs,
            public_url=self.settings.public_url.rstrip("/"),
            changes=self.changes,
            metrics=self.metrics,
            traces=self.traces,
            data_sources=self.data_sources,
        )

    def backoff(self, attempt: int) -> float:
        """Seconds to wait before retrying after failed attempt number ``attempt`` (1-based)."""
        return min(self.retry_max_seconds, self.retry_base_seconds * 2.0 ** max(0, attempt - 1))

    async def aclose(self) -> None:
        """Release what the services hold (the HTTP connection pools of the poster and of the
        data sources)."""
        for holder in (self.poster, self.data_sources):
            close = getattr(holder, "aclose", None)
            if close is not None:
                await close()


def load_configured_agent(settings: Settings) -> Agent:
    """Load ``settings.agent`` with its cost model; :class:`ConfigError` with one clear line if
    the agent is unknown, misconfigured or ``SLEUTH_AGENT_COSTS`` is invalid."""
    try:
        CostModel.from_settings(settings)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    try:
        return load_agent(settings.agent, settings)
    except UnknownAgentError as exc:
        raise ConfigError(f"SLEUTH_AGENT: {exc}") from None
    except (AgentError, TypeError, ValueError, ImportError) as exc:
        text = str(exc).strip() or type(exc).__name__
        raise ConfigError(f"SLEUTH_AGENT={settings.agent}: {text}") from None


def build_services(
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    *,
    agent: Agent | None = None,
    knowledge: KnowledgeSearch | None = None,
    logs: LogStore | None = None,
    changes: ChangeStore | None = None,
    metrics: MetricStore | None = None,
    traces: TraceStore | None = None,
    data_sources: DataSources | None = None,
    poster: HttpPoster | None = None,
    resolver: Resolver | None = None,
    retry_base_seconds: float = 1.0,
    retry_max_seconds: float = 300.0,
) -> Services:
    """The container for ``settings``; any member given replaces the default.

    Raises :class:`ConfigError` when the configured agent cannot be loaded (see
    :func:`load_configured_agent`); a given ``agent`` skips loading.
    """
    return Services(
        settings=settings,
        sessions=sessions,
        agent=agent if agent is not None else load_configured_agent(settings),
        knowledge=knowledge if knowledge is not None else DatabaseKnowledgeSearch(sessions),
        logs=logs if logs is not None else DatabaseLogStore(sessions),
        changes=changes if changes is not None else SqlChangeStore(sessions),
        metrics=metrics if metrics is not None else SqlMetricStore(sessions),
        traces=traces if traces is not None else SqlTraceStore(sessions),
        data_sources=(
            data_sources
            if data_sources is not None
            else PrometheusPull(sessions, settings.secret_key)
        ),
        poster=poster if poster is not None else AiohttpPoster(),
        resolver=resolver if resolver is not None else system_resolver,
        retry_base_seconds=retry_base_seconds,
        retry_max_seconds=retry_max_seconds,
    )


def services_of(ctx: JobContext) -> Services:
    """The container a worker built with :func:`build_services` hands its job handlers."""
    return cast(Services, ctx.services)
