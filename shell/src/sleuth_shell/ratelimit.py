"""Per-organization rate limits with ``X-RateLimit-*`` headers (fixed windows in a Litestar store).

Each authenticated request counts against its organization's plan limit
(:meth:`sleuth_shell.config.Settings.rate_limit_for`); requests without a valid key count against
the client address with the ``free`` limit, so unauthenticated floods and key guessing are limited
too. Windows are aligned to multiples of ``rate_limit_window`` seconds since the epoch, and
``X-RateLimit-Reset`` is the Unix time the current window ends. Over the limit the request is
refused with 429 ``Rate limit exceeded`` and ``Retry-After`` (seconds) before its handler runs.

Counters live in the Litestar store named ``rate_limit``: a process-local ``MemoryStore`` unless
``SLEUTH_REDIS_URL`` is set (:func:`rate_limit_store`), in which case every node counts in one
:class:`CounterRedisStore` and the organization's budget is shared. A Redis counter is one atomic
``INCR`` whose first increment sets the key's expiry (a Lua script), so concurrent requests on any
number of processes never lose a count and old windows disappear on their own. When Redis cannot be
reached the limiter fails open to per-process counting (docs/decisions.md, "Shell"): it logs one
error when the outage starts, counts in memory, retries Redis after :data:`REDIS_RETRY_SECONDS`,
and logs once more when Redis answers again.
Routes with ``opt skip_rate_limit=True`` (``/health``) are neither counted nor given headers.
The counting happens in :class:`sleuth_shell.gate.GateMiddleware`; with the default in-memory
store the counters are a plain dict of this process (:class:`_LocalCounts`), not the store's
get/set round trips.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Final

from litestar import Litestar
from litestar.exceptions import TooManyRequestsException
from litestar.stores.base import Store
from litestar.stores.memory import MemoryStore
from litestar.stores.redis import RedisStore
from redis.asyncio import Redis
from redis.exceptions import RedisError

__all__ = [
    "RATE_LIMIT_STORE",
    "REDIS_RETRY_SECONDS",
    "TOO_MANY_FAILURES",
    "CounterRedisStore",
    "RateLimiter",
    "RateWindow",
    "check_failed_authentications",
    "close_rate_limit_store",
    "count_failed_authentication",
    "rate_limit_store",
    "rate_limiter_of",
]

RATE_LIMIT_STORE = "rate_limit"

#: After a failed Redis call, requests count in process memory for this many seconds before Redis
#: is tried again (so an outage costs one timeout per interval, not one per request).
REDIS_RETRY_SECONDS = 5.0

#: Connect and read timeout of the Redis client, in seconds: a hung Redis delays a request by at
#: most this much before the limiter falls back to memory.
REDIS_TIMEOUT_SECONDS = 1.0

log = logging.getLogger("sleuth.ratelimit")

# KEYS[1]: the window's counter; ARGV[1]: its lifetime in seconds. INCR creates the key at 1; a key
# without an expiry (TTL -1: just created, or left by a crash of an older writer) gets one.
_INCR_SCRIPT = b"""
local count = redis.call('INCR', KEYS[1])
if redis.call('TTL', KEYS[1]) < 0 then
    redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
end
return count
"""


class CounterRedisStore(RedisStore):
    """Litestar's ``RedisStore`` plus an atomic, self-expiring counter."""

    __slots__ = ("_incr_script",)

    def __init__(
        self, redis: Redis, namespace: str | None = "sleuth", handle_client_shutdown: bool = False
    ) -> None:
        super().__init__(redis, namespace=namespace, handle_client_shutdown=handle_client_shutdown)
        self._incr_script = redis.register_script(_INCR_SCRIPT)

    @classmethod
    def from_url(cls, url: str, namespace: str = "sleuth") -> CounterRedisStore:
        """A store with its own client (short timeouts) that closes it on :meth:`close`.

        Keys are ``<namespace>:rate:<identity>:<window start>``.
        """
        client = Redis.from_url(
            url,
            socket_timeout=REDIS_TIMEOUT_SECONDS,
            socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
        )
        return cls(client, namespace=namespace, handle_client_shutdown=True)

    async def incr(self, key: str, expires_in: int) -> int:
        """Add one to ``key`` atomically; the first increment sets its expiry."""
        count = await self._incr_script(keys=[self._make_key(key)], args=[expires_in])
        return int(count)

    async def close(self) -> None:
        """Close the client if this store owns it."""
        await self._shutdown()


def rate_limit_store(redis_url: str | None) -> Store:
    """The ``rate_limit`` store: shared in Redis when ``redis_url`` is given, else in memory."""
    if redis_url:
        return CounterRedisStore.from_url(redis_url)
    return MemoryStore()


async def close_rate_limit_store(store: Store) -> None:
    """Shutdown hook: release the Redis connections of a store made by :func:`rate_limit_store`."""
    if isinstance(store, CounterRedisStore):
        await store.close()


class RateWindow:
    """The state of one identity's current window: limit, count so far, end of window."""

    __slots__ = ("count", "limit", "reset")

    def __init__(self, limit: int, count: int, reset: int) -> None:
        self.limit = limit
        self.count = count
        self.reset = reset

    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        """The three ``X-RateLimit-*`` headers as ASGI header pairs (lower-case names, bytes):
        the one place they are computed (the gate sends them on every request)."""
        return [
            (b"x-ratelimit-limit", b"%d" % self.limit),
            (b"x-ratelimit-remaining", b"%d" % max(self.limit - self.count, 0)),
            (b"x-ratelimit-reset", b"%d" % self.reset),
        ]

    def headers(self) -> dict[str, str]:
        """:meth:`raw_headers` as a mapping for a response (``X-RateLimit-Limit`` ...)."""
        return {
            name: value.decode()
            for name, (_, value) in zip(_HEADER_NAMES, self.raw_headers(), strict=True)
        }


#: The display names of :meth:`RateWindow.raw_headers`, in its order.
_HEADER_NAMES: Final = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


class _LocalCounts:
    """Fixed-window counters in this process: a dict, no lock (the event loop runs one increment
    at a time), expired windows dropped as they pass."""

    __slots__ = ("_counts", "_next_sweep")

    def __init__(self) -> None:
        self._counts: dict[str, tuple[int, float]] = {}
        self._next_sweep = 0.0

    def peek(self, key: str) -> int:
        count, expires = self._counts.get(key, (0, 0.0))
        return count if expires > time.monotonic() else 0

    def add(self, key: str, expires_in: int) -> int:
        now = time.monotonic()
        if now >= self._next_sweep:
            self._counts = {k: v for k, v in self._counts.items() if v[1] > now}
            self._next_sweep = now + 1.0
        count, expires = self._counts.get(key, (0, 0.0))
        if expires <= now:
            count, expires = 0, now + expires_in
        count += 1
        self._counts[key] = (count, expires)
        return count


class RateLimiter:
    """Counts requests per identity in fixed windows and refuses them over a limit.

    One per application (:func:`rate_limiter_of`): the middleware counts every request by
    organization or client address, and the webhook intake counts deliveries by the subscription's
    organization once it knows it. A :class:`CounterRedisStore` counts atomically in Redis; any
    Litestar ``MemoryStore`` (the default) is counted in this instance's dict of windows; any other
    store under this instance's lock, which serialises its read-increment-write within the process.
    During a Redis outage the counts go to that process-local dict (fail open).
    """

    def __init__(self) -> None:
        self._lock: asyncio.Lock | None = None
        self._local = _LocalCounts()
        self._redis_retry_at: float | None = None
        """``time.monotonic()`` after which Redis is tried again; ``None`` while Redis works."""

    async def _count_in_store(self, store: Store, key: str, expires_in: int) -> int:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            raw = await store.get(key)
            count = (int(raw) if raw else 0) + 1
            await store.set(key, str(count).encode(), expires_in=expires_in)
        return count

    async def _count(self, store: Store, key: str, expires_in: int) -> int:
        """Add this request to ``key`` and return the window's count including it."""
        if isinstance(store, MemoryStore):
            return self._local.add(key, expires_in)
        if not isinstance(store, CounterRedisStore):
            return await self._count_in_store(store, key, expires_in)
        now = time.monotonic()
        if self._redis_retry_at is None or now >= self._redis_retry_at:
            try:
                count = await store.incr(key, expires_in)
            except (RedisError, OSError) as exc:
                if self._redis_retry_at is None:
                    log.error(
                        "rate-limit store (Redis) unreachable: %s; failing open: counting per "
                        "process (each node grants the full budget) until Redis answers again",
                        exc,
                    )
                self._redis_retry_at = now + REDIS_RETRY_SECONDS
            else:
                if self._redis_retry_at is not None:
                    log.warning("rate-limit store (Redis) answers again; counting shared")
                    self._redis_retry_at = None
                return count
        return self._local.add(key, expires_in)

    async def hit(self, app: Litestar, identity: str, limit: int) -> RateWindow:
        """Count one request of ``identity`` in the current window; 429 ``Rate limit exceeded``
        (with ``Retry-After``) over ``limit``. Refused requests count too (the count only grows
        past the limit; Remaining shows 0)."""
        state = await self.add(app, identity, limit)
        if state.count > limit:
            raise self.refusal(app, state, "Rate limit exceeded")
        return state

    def _window(self, app: Litestar) -> tuple[int, int, int]:
        state = app.state  # item access: see GateMiddleware.handle
        window = int(state["settings"].rate_limit_window)
        clock: Callable[[], float] = state.get("clock", time.time)
        now = int(clock())
        return window, now, now - now % window

    async def add(self, app: Litestar, identity: str, limit: int) -> RateWindow:
        """Count one event of ``identity`` in the current window, refusing nothing."""
        window, _now, start = self._window(app)
        count = await self._count(
            app.stores.get(RATE_LIMIT_STORE), f"rate:{identity}:{start}", window + 1
        )
        return RateWindow(limit, count, start + window)

    async def current(self, app: Litestar, identity: str, limit: int) -> RateWindow:
        """``identity``'s current window, counting nothing (a count kept by :meth:`add`)."""
        window, _now, start = self._window(app)
        key = f"rate:{identity}:{start}"
        store = app.stores.get(RATE_LIMIT_STORE)
        count = 0
        if isinstance(store, MemoryStore) or (
            isinstance(store, CounterRedisStore) and self._redis_retry_at is not None
        ):
            count = self._local.peek(key)
        else:
            try:
                raw = await store.get(key)
                count = int(raw) if raw else 0
            except (RedisError, OSError, ValueError):
                count = self._local.peek(key)
        return RateWindow(limit, count, start + window)

    def refusal(self, app: Litestar, state: RateWindow, detail: str) -> TooManyRequestsException:
        """The 429 of a window over its limit, with ``Retry-After``."""
        _window, now, _start = self._window(app)
        headers = state.headers()
        headers["Retry-After"] = str(max(state.reset - now, 1))
        return TooManyRequestsException(detail=detail, headers=headers)


#: The 429 detail of an address refused for its failed authentications.
TOO_MANY_FAILURES = "Too many failed authentications"


def _failures(address: str) -> str:
    return f"auth-fail:{address}"


async def check_failed_authentications(app: Litestar, address: str) -> None:
    """Refuse (429 ``Too many failed authentications``, with ``Retry-After``) a public intake
    request from ``address`` once that address failed authentication more than the ``free``
    plan's limit in the current window: checked before the body is read, so forged deliveries
    cost next to nothing. Valid deliveries never count (:func:`count_failed_authentication`)."""
    limiter = rate_limiter_of(app)
    limit = app.state.settings.rate_limit_for("free")
    state = await limiter.current(app, _failures(address), limit)
    if state.count > limit:
        raise limiter.refusal(app, state, TOO_MANY_FAILURES)


async def count_failed_authentication(app: Litestar, address: str) -> None:
    """Count one failed authentication of ``address`` (see :func:`check_failed_authentications`)."""
    limiter = rate_limiter_of(app)
    await limiter.add(app, _failures(address), app.state.settings.rate_limit_for("free"))


_LIMITER_KEY = "rate_limiter"


def rate_limiter_of(app: Litestar) -> RateLimiter:
    """The application's :class:`RateLimiter` (made on first use)."""
    limiter = app.state.get(_LIMITER_KEY)
    if limiter is None:
        limiter = app.state[_LIMITER_KEY] = RateLimiter()
    assert isinstance(limiter, RateLimiter)
    return limiter
