"""API-key authentication.

:class:`ApiKeyMiddleware` resolves the ``X-Service-Org-Api-Key`` header of every HTTP request (on
the MCP endpoint ``/mcp`` also ``Authorization: Bearer <key>``) to a
:class:`Principal` (or to nothing) and records it in the scope; it never rejects a request itself,
so the rate limiter can key on the organization. The :func:`require_api_key` guard, installed on the
``/api/v1`` router, turns a missing or invalid key into 401 before the body is parsed. Handlers
receive the principal through the ``principal`` dependency.

Route options (Litestar ``opt``, merged from router/controller/handler):

- ``public=True``: the route takes no API key (e.g. inbound provider webhooks).
- ``unauthorized_detail="Unauthorized"``: the 401 detail for both a missing and an invalid key
  (the interaction endpoints); otherwise ``Missing API key`` / ``Invalid API key``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from litestar.connection import ASGIConnection, Request
from litestar.enums import ScopeType
from litestar.exceptions import NotAuthorizedException, PermissionDeniedException
from litestar.handlers.base import BaseRouteHandler
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send
from sqlalchemy import select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.admin import hash_api_key
from sleuth_shell.db.models import ApiKey, Organization, utcnow
from sleuth_shell.domain import API_KEY_HEADER

__all__ = [
    "API_KEY_HEADER",
    "ApiKeyMiddleware",
    "Principal",
    "authenticate",
    "current_principal",
    "key_presented",
    "provide_principal",
    "require_admin",
    "require_api_key",
]

_MAX_KEY_LENGTH = 256
_SCOPE_KEY = "sleuth_auth"
_HEADER_BYTES = API_KEY_HEADER.lower().encode("latin-1")  # ASGI header names are lower case
#: ``api_keys.last_used_at`` is written at most this often per key (not on every request).
LAST_USED_RESOLUTION = timedelta(minutes=1)
log = logging.getLogger("sleuth.auth")
#: The MCP endpoint (``/mcp``, ``/mcp/``) also takes ``Authorization: Bearer <key>``, as MCP clients
#: send it, and never the sign-in cookie.
_MCP_PATH = "/mcp"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: the organization and the API key the request was made with."""

    org_id: int
    org_name: str
    plan: str
    key_id: int
    admin: bool
    team_id: int | None
    api_key: str
    """The plain key as presented (callbacks default to sending it back); never stored."""


@dataclass(frozen=True, slots=True)
class _AuthState:
    principal: Principal | None
    presented: bool


async def authenticate(
    session_factory: async_sessionmaker[AsyncSession], key: str | None
) -> Principal | None:
    """Return the principal of API key ``key``, or None for a missing, unknown or revoked key.

    Every call reads the database, so ``sleuth admin revoke-key`` (which sets
    ``api_keys.revoked_at``) takes effect at once on every node; a cache in front of this must
    honour ``revoked_at`` as promptly. Records ``last_used_at`` when it is older than
    :data:`LAST_USED_RESOLUTION` (a failed write is logged, never fails the request).
    """
    if not key or len(key) > _MAX_KEY_LENGTH:
        return None
    async with session_factory() as session:
        row = (
            await session.execute(
                select(ApiKey, Organization)
                .join(Organization, Organization.id == ApiKey.org_id)
                .where(ApiKey.key_hash == hash_api_key(key), ApiKey.revoked_at.is_(None))
            )
        ).first()
        if row is None:
            return None
        api_key, org = row
        now = utcnow()
        if api_key.last_used_at is None or now - api_key.last_used_at >= LAST_USED_RESOLUTION:
            try:
                await session.execute(
                    update(ApiKey).where(ApiKey.id == api_key.id).values(last_used_at=now)
                )
                await session.commit()
            except SQLAlchemyError as exc:
                await session.rollback()
                log.warning("could not record the last use of API key %s: %s", api_key.id, exc)
    return Principal(
        org_id=org.id,
        org_name=org.name,
        plan=org.plan,
        key_id=api_key.id,
        admin=api_key.admin,
        team_id=api_key.team_id,
        api_key=key,
    )


class ApiKeyMiddleware(ASGIMiddleware):
    """Resolve the API key header into a principal stored in the scope (never rejects)."""

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        key: str | None = None
        bearer: str | None = None
        for name, value in scope["headers"]:
            if name == _HEADER_BYTES:
                key = value.decode("latin-1").strip()
                break
            if name == b"authorization":
                bearer = value.decode("latin-1")
        if not key and bearer and _is_mcp(scope):
            key = _bearer_key(bearer)
        principal = None
        if key:
            state = scope["litestar_app"].state
            principal = await authenticate(state.session_factory, key)
        scope[_SCOPE_KEY] = _AuthState(principal=principal, presented=bool(key))  # type: ignore[literal-required]
        await next_app(scope, receive, send)


def _is_mcp(scope: Scope) -> bool:
    return scope["path"].rstrip("/") == _MCP_PATH


def _bearer_key(header: str) -> str:
    """The credentials of an ``Authorization: Bearer <key>`` header ("" for another scheme)."""
    scheme, _, credentials = header.strip().partition(" ")
    return credentials.strip() if scheme.lower() == "bearer" else ""


def current_principal(scope: Scope) -> Principal | None:
    """The principal the middleware resolved for this request, if any."""
    state: _AuthState | None = scope.get(_SCOPE_KEY)  # type: ignore[assignment]
    return state.principal if state else None


def key_presented(scope: Scope) -> bool:
    """Whether the request presented an API key at all (valid or not)."""
    state: _AuthState | None = scope.get(_SCOPE_KEY)  # type: ignore[assignment]
    return state is not None and state.presented


def require_api_key(
    connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
) -> None:
    """Guard: 401 unless the request carries a valid API key (skipped for ``opt public=True``)."""
    if handler.opt.get("public"):
        return
    state: _AuthState | None = connection.scope.get(_SCOPE_KEY)  # type: ignore[assignment]
    if state is not None and state.principal is not None:
        return
    detail = handler.opt.get("unauthorized_detail")
    if detail is None:
        detail = "Invalid API key" if state is not None and state.presented else "Missing API key"
    raise NotAuthorizedException(detail=detail)


def provide_principal(request: Request[Any, Any, Any]) -> Principal:
    """Dependency ``principal``: the authenticated caller (the guard has already checked it)."""
    principal = current_principal(request.scope)
    if principal is None:
        raise NotAuthorizedException(
            detail=request.route_handler.opt.get("unauthorized_detail", "Missing API key")
        )
    return principal


def require_admin(principal: Principal) -> None:
    """403 ``Admin API key required`` unless the caller's key is an admin key."""
    if not principal.admin:
        raise PermissionDeniedException(detail="Admin API key required")
