"""The Litestar application: ``create_app(settings, ...)`` wires storage, services, auth, limits
and routes."""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Callable

from litestar import Litestar
from litestar.datastructures import State
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.stores.base import Store
from litestar.template import TemplateConfig
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from sleuth_shell import __version__
from sleuth_shell.agents.base import (
    Agent,
    ChangeStore,
    DataSources,
    KnowledgeSearch,
    LogStore,
    MetricStore,
)
from sleuth_shell.api import api_router, otlp_router, root_routes
from sleuth_shell.auth import (
    API_KEY_HEADER,
    PrincipalCache,
    RevocationWatch,
    provide_principal,
)
from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.hot_reads import dispose_engine, shared_reader
from sleuth_shell.errors import document_default_errors, exception_handlers
from sleuth_shell.gate import GateMiddleware
from sleuth_shell.jobs.processes import WorkerProcesses
from sleuth_shell.mcp_server import McpEndpoint
from sleuth_shell.mcp_server.cors import add_cors_headers
from sleuth_shell.notify.http import HttpPoster
from sleuth_shell.notify.urls import Resolver
from sleuth_shell.oauth.routes import ROUTES as OAUTH_ROUTES
from sleuth_shell.ratelimit import (
    RATE_LIMIT_STORE,
    close_rate_limit_store,
    rate_limit_store,
)
from sleuth_shell.runtime import Runtime
from sleuth_shell.services import Services, build_services
from sleuth_shell.web.render import environment
from sleuth_shell.web.routes import page_routes
from sleuth_shell.web.sessions import load_signing_key

__all__ = ["MAX_BODY_BYTES", "create_app"]

#: Request bodies over this many bytes are refused with 413 ``Request body too large``.
MAX_BODY_BYTES = 1024 * 1024


async def provide_db_session(state: State) -> AsyncGenerator[AsyncSession, None]:
    """Dependency ``db_session``: one session per request, closed afterwards (commit explicitly)."""
    async with state.session_factory() as session:
        yield session


def provide_settings(state: State) -> Settings:
    """Dependency ``settings``: the app's :class:`Settings`."""
    settings: Settings = state.settings
    return settings


def provide_services(state: State) -> Services:
    """Dependency ``services``: the app's :class:`~sleuth_shell.services.Services`."""
    services: Services = state.services
    return services


def create_app(
    settings: Settings,
    *,
    engine: AsyncEngine | None = None,
    stores: dict[str, Store] | None = None,
    clock: Callable[[], float] = time.time,
    debug: bool = False,
    agent: Agent | None = None,
    knowledge: KnowledgeSearch | None = None,
    logs: LogStore | None = None,
    changes: ChangeStore | None = None,
    metrics: MetricStore | None = None,
    data_sources: DataSources | None = None,
    poster: HttpPoster | None = None,
    resolver: Resolver | None = None,
    worker_options: dict[str, object] | None = None,
    worker_processes: WorkerProcesses | None = None,
) -> Litestar:
    """Build the Sleuth API application.

    The database must already be migrated (``sleuth serve`` does it; see
    :func:`sleuth_shell.db.migrate`). ``engine`` defaults to one created from
    ``settings.database_url`` and is disposed on shutdown either way; the ``rate_limit`` store is
    Redis when ``settings.redis_url`` is set, else memory, and ``stores`` may replace it;
    ``clock`` (Unix seconds) is what the rate limiter reads. ``agent``,
    ``knowledge``, ``logs``, ``changes``, ``metrics``, ``data_sources``, ``poster`` and
    ``resolver`` replace the
    service container's defaults
    (see :func:`sleuth_shell.services.build_services`); without ``agent`` the configured one is
    loaded now, and a configuration it refuses raises :class:`~sleuth_shell.config.ConfigError`.
    ``worker_processes``: the worker children to start instead of the in-process worker (when
    ``settings.workers_inline``; ``sleuth serve`` passes ``SLEUTH_WORKER_PROCESSES`` of them).
    """
    engine = engine if engine is not None else create_engine(settings.database_url)
    session_factory = create_session_factory(engine)
    hot_reader = shared_reader(engine)
    revocations = RevocationWatch(hot_reader)
    services = build_services(
        settings,
        session_factory,
        agent=agent,
        knowledge=knowledge,
        logs=logs,
        changes=changes,
        metrics=metrics,
        data_sources=data_sources,
        poster=poster,
        resolver=resolver,
    )
    runtime = Runtime(
        services, worker_options=dict(worker_options or {}), processes=worker_processes
    )
    state = State(
        {
            "settings": settings,
            "engine": engine,
            "session_factory": session_factory,
            "services": services,
            "runtime": runtime,
            "clock": clock,
            "principal_cache": PrincipalCache(),
            "hot_reader": hot_reader,
        }
    )

    async def load_session_signing_key() -> None:
        state.session_signing_key = await load_signing_key(session_factory, settings.secret_key)

    async def close_engine() -> None:
        await dispose_engine(engine)

    mcp = McpEndpoint(max_body_bytes=MAX_BODY_BYTES)
    all_stores: dict[str, Store] = {RATE_LIMIT_STORE: rate_limit_store(settings.redis_url)}
    all_stores.update(stores or {})

    async def close_stores() -> None:
        await close_rate_limit_store(all_stores[RATE_LIMIT_STORE])

    app = Litestar(
        route_handlers=[
            *root_routes(),
            *page_routes(),
            api_router(),
            otlp_router(),
            mcp.route(),
            *OAUTH_ROUTES,
        ],
        state=state,
        stores=all_stores,
        dependencies={
            "db_session": Provide(provide_db_session),
            "principal": Provide(provide_principal, sync_to_thread=False),
            "settings": Provide(provide_settings, sync_to_thread=False),
            "services": Provide(provide_services, sync_to_thread=False),
        },
        middleware=[GateMiddleware()],
        before_send=[add_cors_headers],
        exception_handlers=exception_handlers(),
        request_max_body_size=MAX_BODY_BYTES,
        template_config=TemplateConfig(
            instance=JinjaTemplateEngine.from_environment(environment())
        ),
        on_startup=[load_session_signing_key, runtime.startup, revocations.start],
        on_shutdown=[revocations.stop, runtime.shutdown, close_engine, close_stores],
        lifespan=[mcp.lifespan],
        openapi_config=OpenAPIConfig(
            title="Sleuth API",
            version=__version__,
            description="Sleuth: a self-hostable AI investigation assistant for on-call teams.",
            path="/schema",
            render_plugins=[JsonRenderPlugin()],
            components=Components(
                security_schemes={
                    "ApiKey": SecurityScheme(
                        type="apiKey", name=API_KEY_HEADER, security_scheme_in="header"
                    )
                }
            ),
        ),
        debug=debug,
    )
    document_default_errors(app)
    return app
