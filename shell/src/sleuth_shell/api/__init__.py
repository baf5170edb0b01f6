"""The JSON API's routes, one module per resource. Each module exports ``ROUTES`` (handlers).
HTML pages are :mod:`sleuth_shell.web`'s.

To add a resource, write ``api/<resource>.py`` with ``ROUTES = [...]`` and register it in
:data:`API_MODULES` (under ``/api/v1``, API key required unless a route sets ``opt public=True``)
or :data:`ROOT_MODULES` (outside ``/api/v1``, no key).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from litestar import Router

from sleuth_shell.api import (
    alert_responders,
    alerts,
    billing,
    budgets,
    changes,
    chat_events,
    chat_outbox,
    data_sources,
    digests,
    health,
    interactions,
    investigations,
    knowledge,
    notification_integrations,
    observability,
    settings,
    suppressions,
    webhook_subscriptions,
    webhooks,
)
from sleuth_shell.api.body import check_request_body
from sleuth_shell.api.otlp import otlp_router
from sleuth_shell.gate import API_KEY_REQUIRED

__all__ = ["API_MODULES", "ROOT_MODULES", "api_router", "otlp_router", "root_routes"]

#: Modules served under ``/api/v1``.
API_MODULES: tuple[ModuleType, ...] = (
    alerts,
    alert_responders,
    webhook_subscriptions,
    webhooks,
    notification_integrations,
    knowledge,
    observability,
    changes,
    data_sources,
    billing,
    budgets,
    interactions,
    chat_outbox,
    chat_events,
    investigations,
    digests,
    settings,
    suppressions,
)
#: Modules served at the root (no API key, unless a route has its own guard).
ROOT_MODULES: tuple[ModuleType, ...] = (health,)


def api_router() -> Router:
    """The ``/api/v1`` router: every route needs an API key unless it opts out (``public``), and
    every request body passes :func:`~sleuth_shell.api.body.check_request_body` (UTF-8, depth)."""
    handlers: list[Any] = [route for module in API_MODULES for route in module.ROUTES]
    return Router(
        path="/api/v1",
        route_handlers=handlers,
        opt={API_KEY_REQUIRED: True},
        before_request=check_request_body,
        security=[{"ApiKey": []}],
    )


def root_routes() -> list[Any]:
    """Handlers served outside ``/api/v1``."""
    return [route for module in ROOT_MODULES for route in module.ROUTES]
