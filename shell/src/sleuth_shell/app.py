"""The Litestar application: ``create_app(settings)`` wires storage, auth, limits and routes."""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Callable

from litestar import Litestar
from litestar.datastructures import State
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from litestar.stores.base import Store
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from sleuth_shell import __version__
from sleuth_shell.api import api_router, root_routes
from sleuth_shell.auth import API_KEY_HEADER, ApiKeyMiddleware, provide_principal
from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.errors import document_default_errors, exception_handlers
from sleuth_shell.jobs.runtime import JobRuntime
from sleuth_shell.ratelimit import (
    RATE_LIMIT_STORE,
    RateLimitMiddleware,
    close_rate_limit_store,
    rate_limit_store,
)

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


def create_app(
    settings: Settings,
    *,
    engine: AsyncEngine | None = None,
    stores: dict[str, Store] | None = None,
    clock: Callable[[], float] = time.time,
    debug: bool = False,
) -> Litestar:
    """Build the Sleuth API application.

    The database must already be migrated (``sleuth serve`` does it; see
    :func:`sleuth_shell.db.migrate`). ``engine`` defaults to one created from
    ``settings.database_url`` and is disposed on shutdown either way; the ``rate_limit`` store is
    Redis when ``settings.redis_url`` is set, else memory, and ``stores`` may replace it;
    ``clock`` (Unix seconds) is what the rate limiter reads.
    """
    engine = engine if engine is not None else create_engine(settings.database_url)
    session_factory = create_session_factory(engine)
    jobs = JobRuntime(settings, session_factory)
    state = State(
        {
            "settings": settings,
            "engine": engine,
            "session_factory": session_factory,
            "jobs": jobs,
            "clock": clock,
        }
    )

    async def dispose_engine() -> None:
        await engine.dispose()

    all_stores: dict[str, Store] = {RATE_LIMIT_STORE: rate_limit_store(settings.redis_url)}
    all_stores.update(stores or {})

    async def close_stores() -> None:
        await close_rate_limit_store(all_stores[RATE_LIMIT_STORE])

    app = Litestar(
        route_handlers=[*root_routes(), api_router()],
        state=state,
        stores=all_stores,
        dependencies={
            "db_session": Provide(provide_db_session),
            "principal": Provide(provide_principal, sync_to_thread=False),
            "settings": Provide(provide_settings, sync_to_thread=False),
        },
        middleware=[ApiKeyMiddleware(), RateLimitMiddleware()],
        exception_handlers=exception_handlers(),
        request_max_body_size=MAX_BODY_BYTES,
        on_startup=[jobs.startup],
        on_shutdown=[jobs.shutdown, dispose_engine, close_stores],
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
