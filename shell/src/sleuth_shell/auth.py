"""API-key authentication.

:func:`resolve_principal` resolves the ``X-Service-Org-Api-Key`` header of every HTTP request (on
the MCP endpoint ``/mcp`` and the OTLP/HTTP routes ``/otlp/...`` also ``Authorization: Bearer
<key>``; on ``/mcp`` the bearer may instead be an
OAuth access token: :mod:`sleuth_shell.oauth`, valid there only) to a
:class:`Principal` (or to nothing) and records it in the scope; it never rejects a request itself,
so the rate limiter can key on the organization. :func:`check_api_key` turns a missing or invalid
key into 401 on the routes that require one (the ``/api/v1`` router) before the body is parsed.
Both run in the one request middleware, :class:`sleuth_shell.gate.GateMiddleware`. Handlers
receive the principal through the ``principal`` dependency.

Resolved keys are kept in a :class:`PrincipalCache` (key as presented -> principal) for at most
:data:`PRINCIPAL_TTL` seconds, so a burst of requests with one key costs one database read. The
bound on revocation follows: a key deleted from the database (or an organization's plan changed)
takes effect on every node within :data:`PRINCIPAL_TTL` seconds, and at once in a process that calls
:func:`forget_api_keys` after revoking. Unknown keys are never cached (a new key works at once).

Route options (Litestar ``opt``, merged from router/controller/handler):

- ``public=True``: the route takes no API key (e.g. inbound provider webhooks).
- ``unauthorized_detail="Unauthorized"``: the 401 detail for both a missing and an invalid key
  (the interaction endpoints); otherwise ``Missing API key`` / ``Invalid API key``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from litestar.connection import Request
from litestar.exceptions import NotAuthorizedException, PermissionDeniedException
from litestar.types import Scope
from sqlalchemy import bindparam, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.admin import hash_api_key
from sleuth_shell.db.hot_reads import HotRead, HotReader
from sleuth_shell.db.models import ApiKey, Organization, utcnow
from sleuth_shell.domain import API_KEY_HEADER
from sleuth_shell.oauth.store import is_access_token, lookup_access_token

__all__ = [
    "API_KEY_HEADER",
    "PRINCIPAL_TTL",
    "Principal",
    "PrincipalCache",
    "RevocationWatch",
    "authenticate",
    "check_api_key",
    "current_principal",
    "forget_api_keys",
    "key_presented",
    "provide_principal",
    "require_admin",
    "resolve_principal",
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
#: The OTLP/HTTP routes take ``Authorization: Bearer <key>`` too (``OTEL_EXPORTER_OTLP_HEADERS``).
_OTLP_PREFIX = "/otlp/"

#: Seconds a resolved API key is trusted without reading the database again (the revocation bound).
PRINCIPAL_TTL = 5.0


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: the organization and the API key the request was made with."""

    org_id: int
    org_name: str
    plan: str
    key_id: int
    admin: bool
    team_id: int | None
    api_key: str | None
    """The plain key as presented (callbacks default to sending it back); never stored. None
    for an OAuth access token (which acts for its approving key but is not one)."""


@dataclass(frozen=True, slots=True)
class _AuthState:
    principal: Principal | None
    presented: bool


_caches: weakref.WeakSet[PrincipalCache] = weakref.WeakSet()


class PrincipalCache:
    """API key (as presented) -> principal for at most ``ttl`` seconds, bounded to
    ``max_entries`` keys. Keyed by the plain key, which the principal carries anyway
    (:attr:`Principal.api_key`), so that a cached key costs a dict lookup, not a SHA-256.

    Every cache in the process is reachable from :func:`forget_api_keys`, so a revocation made in
    this process takes effect here at once; other processes see it within ``ttl``.
    """

    def __init__(
        self,
        ttl: float = PRINCIPAL_TTL,
        *,
        max_entries: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._clock = clock
        self._entries: dict[str, tuple[float, Principal]] = {}
        _caches.add(self)

    def get(self, key: str) -> Principal | None:
        """The cached principal of API key ``key`` while it is fresh, else None."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry[0] <= self._clock():
            self._entries.pop(key, None)
            return None
        return entry[1]

    def put(self, key: str, principal: Principal) -> None:
        """Remember ``principal`` for ``ttl`` seconds. Expired entries are dropped first (the
        entries are in insertion order, which with one TTL is expiry order, so they are at the
        front), then the oldest while full: no plain key outlives its entry for long."""
        if self.ttl <= 0:
            return
        now = self._clock()
        self._entries.pop(key, None)
        entries = self._entries
        while entries:
            oldest = next(iter(entries))
            if entries[oldest][0] > now and len(entries) < self.max_entries:
                break
            del entries[oldest]
        entries[key] = (now + self.ttl, principal)

    def forget(self, *, key_ids: set[int] | None = None, org_ids: set[int] | None = None) -> None:
        """Drop the entries of ``key_ids`` and of every key of ``org_ids`` (both None: all)."""
        if key_ids is None and org_ids is None:
            self._entries.clear()
            return
        for key, (_expires, principal) in list(self._entries.items()):
            if (key_ids and principal.key_id in key_ids) or (
                org_ids and principal.org_id in org_ids
            ):
                self._entries.pop(key, None)


def forget_api_keys(*, key_ids: set[int] | None = None, org_ids: set[int] | None = None) -> None:
    """Make every principal cache of this process forget ``key_ids`` and the keys of ``org_ids``
    (both None: everything). Call it after revoking a key or changing an organization's plan."""
    for cache in list(_caches):
        cache.forget(key_ids=key_ids, org_ids=org_ids)


#: How often each serving process looks for keys revoked elsewhere (``sleuth admin revoke-key``
#: runs in its own process, other nodes share the database): the bound on revocation.
REVOCATION_POLL_SECONDS = 0.25
#: Keys revoked this long before a poll are looked at again (clock skew between nodes).
_REVOCATION_LOOKBACK = timedelta(minutes=2)


class RevocationWatch:
    """Make this process's principal caches forget keys revoked by any process, within
    :data:`REVOCATION_POLL_SECONDS`: one small query per interval, whatever the request rate.

    ``start()`` in the app's startup, ``stop()`` at shutdown. A failed poll is logged; the cache's
    own TTL (:data:`PRINCIPAL_TTL`) still bounds revocation then.
    """

    def __init__(self, reader: HotReader, interval: float = REVOCATION_POLL_SECONDS) -> None:
        self._reader = reader
        self._interval = interval
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    async def poll(self) -> set[int]:
        """Forget the keys revoked recently (by anyone); returns their ids."""
        since = utcnow() - _REVOCATION_LOOKBACK
        ids = {row["id"] for row in await _REVOKED_SINCE.all(self._reader, {"since": since})}
        if ids:
            forget_api_keys(key_ids=ids)
        return ids

    async def _run(self, stopping: asyncio.Event) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), self._interval)
            if stopping.is_set():
                return
            try:
                await self.poll()
            except Exception:
                log.exception("could not check for revoked API keys")

    async def start(self) -> None:
        if self._task is None:
            self._stopping = asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._run(self._stopping))

    async def stop(self) -> None:
        """Let an in-flight poll finish, then end. A poll is never cancelled half-way: a database
        call cancelled mid-flight can leave its connection unusable and hang the engine's
        dispose."""
        task, self._task = self._task, None
        if task is not None:
            self._stopping.set()
            await task


#: The principal of a key hash: the key's row and its organization, unless revoked.
_KEY_LOOKUP = HotRead(
    select(
        ApiKey.id.label("key_id"),
        ApiKey.admin,
        ApiKey.team_id,
        ApiKey.last_used_at,
        Organization.id.label("org_id"),
        Organization.name.label("org_name"),
        Organization.plan,
    )
    .join(Organization, Organization.id == ApiKey.org_id)
    .where(ApiKey.key_hash == bindparam("key_hash"), ApiKey.revoked_at.is_(None))
)
#: Record a key's last use (built once: a statement built per call cost more than running it).
_TOUCH = (
    update(ApiKey).where(ApiKey.id == bindparam("key_id")).values(last_used_at=bindparam("now"))
)
#: Keys revoked at or after ``since``.
_REVOKED_SINCE = HotRead(select(ApiKey.id).where(ApiKey.revoked_at >= bindparam("since")))


async def authenticate(
    reader: HotReader,
    session_factory: async_sessionmaker[AsyncSession],
    key: str | None,
    cache: PrincipalCache | None = None,
) -> Principal | None:
    """Return the principal of API key ``key``, or None for a missing, unknown or revoked key.

    With ``cache``, a key resolved less than its TTL (:data:`PRINCIPAL_TTL`) ago is answered without
    the database, so ``sleuth admin revoke-key`` (which sets ``api_keys.revoked_at``) takes effect
    on every node within that TTL, and at once in a process that calls :func:`forget_api_keys`.
    The key is looked up through ``reader`` (:mod:`sleuth_shell.db.hot_reads`: on SQLite no thread
    hop). A lookup records ``last_used_at`` through ``session_factory`` when it is older than
    :data:`LAST_USED_RESOLUTION` (a failed write is logged, never fails the request).
    """
    if not key or len(key) > _MAX_KEY_LENGTH:
        return None
    if cache is not None:
        cached = cache.get(key)
        if cached is not None:
            return cached
    row = await _KEY_LOOKUP.first(reader, {"key_hash": hash_api_key(key)})
    if row is None:
        return None
    key_id = row["key_id"]
    now = utcnow()
    last_used_at = row["last_used_at"]
    if last_used_at is None or now - last_used_at >= LAST_USED_RESOLUTION:
        async with session_factory() as session:
            try:
                await session.execute(_TOUCH, {"key_id": key_id, "now": now})
                await session.commit()
            except SQLAlchemyError as exc:
                await session.rollback()
                log.warning("could not record the last use of API key %s: %s", key_id, exc)
    principal = Principal(
        org_id=row["org_id"],
        org_name=row["org_name"],
        plan=row["plan"],
        key_id=key_id,
        admin=bool(row["admin"]),
        team_id=row["team_id"],
        api_key=key,
    )
    if cache is not None:
        cache.put(key, principal)
    return principal


async def resolve_principal(scope: Scope) -> None:
    """Resolve the request's API key header (or, on ``/mcp``, its bearer token) into a principal
    recorded in the scope (:func:`current_principal`, :func:`key_presented`); never rejects."""
    key: str | None = None
    bearer: str | None = None
    for name, value in scope["headers"]:
        if name == _HEADER_BYTES:
            key = value.decode("latin-1").strip()
            break
        if name == b"authorization":
            bearer = value.decode("latin-1")
    if not key and bearer and (_is_mcp(scope) or scope["path"].startswith(_OTLP_PREFIX)):
        key = _bearer_key(bearer)
        if is_access_token(key):
            await _resolve_access_token(scope, key)
            return
    principal = None
    if key:
        state = scope["litestar_app"].state  # item access: see gate.GateMiddleware.handle
        principal = await authenticate(
            state["hot_reader"], state["session_factory"], key, state.get("principal_cache")
        )
    scope[_SCOPE_KEY] = _AuthState(principal=principal, presented=bool(key))  # type: ignore[literal-required]


async def _resolve_access_token(scope: Scope, token: str) -> None:
    """An OAuth access token on ``/mcp``: the principal of its approving key (read fresh, so a
    revoked token, grant or key counts at once), with no plain key to send back."""
    state = scope["litestar_app"].state
    found = await lookup_access_token(state.hot_reader, token, utcnow())
    principal = None
    if found is not None:
        principal = Principal(
            org_id=found.org_id,
            org_name=found.org_name,
            plan=found.plan,
            key_id=found.key_id,
            admin=found.admin,
            team_id=found.team_id,
            api_key=None,
        )
    scope[_SCOPE_KEY] = _AuthState(principal=principal, presented=True)  # type: ignore[literal-required]


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


def check_api_key(scope: Scope, opt: dict[str, Any], headers: dict[str, str] | None = None) -> None:
    """401 unless the request carries a valid API key (nothing to check for ``opt public=True``).

    The detail is ``opt["unauthorized_detail"]`` when the route sets one, else ``Missing API key``
    or ``Invalid API key``; ``headers`` go on the 401 response (the rate-limit headers).
    """
    if opt.get("public"):
        return
    state: _AuthState | None = scope.get(_SCOPE_KEY)  # type: ignore[assignment]
    if state is not None and state.principal is not None:
        return
    detail = opt.get("unauthorized_detail")
    if detail is None:
        detail = "Invalid API key" if state is not None and state.presented else "Missing API key"
    raise NotAuthorizedException(detail=detail, headers=headers)


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
