"""Per-organization rate limits with ``X-RateLimit-*`` headers (fixed windows in a Litestar store).

Each authenticated request counts against its organization's plan limit
(:meth:`sleuth_shell.config.Settings.rate_limit_for`); requests without a valid key count against
the client address with the ``free`` limit, so unauthenticated floods and key guessing are limited
too. Windows are aligned to multiples of ``rate_limit_window`` seconds since the epoch, and
``X-RateLimit-Reset`` is the Unix time the current window ends. Over the limit the request is
refused with 429 ``Rate limit exceeded`` and ``Retry-After`` (seconds) before its handler runs.

Counters live in the Litestar store named ``rate_limit`` (an in-memory store by default; pass a
shared store such as Litestar's ``RedisStore`` to ``create_app`` when several nodes serve traffic).
Routes with ``opt skip_rate_limit=True`` (``/health``) are neither counted nor given headers.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from litestar.datastructures import MutableScopeHeaders
from litestar.enums import ScopeType
from litestar.exceptions import TooManyRequestsException
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from sleuth_shell.auth import current_principal

__all__ = ["RATE_LIMIT_STORE", "RateLimitMiddleware", "RateWindow"]

RATE_LIMIT_STORE = "rate_limit"


class RateWindow:
    """The state of one identity's current window: limit, count so far, end of window."""

    __slots__ = ("count", "limit", "reset")

    def __init__(self, limit: int, count: int, reset: int) -> None:
        self.limit = limit
        self.count = count
        self.reset = reset

    def headers(self) -> dict[str, str]:
        """The three ``X-RateLimit-*`` headers."""
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(max(self.limit - self.count, 0)),
            "X-RateLimit-Reset": str(self.reset),
        }


class RateLimitMiddleware(ASGIMiddleware):
    """Count requests per organization (or client address) and refuse them over the plan limit.

    One instance serves every route (Litestar builds the stack from it), so its lock serialises
    the read-increment-write of the counters within the process.
    """

    scopes = (ScopeType.HTTP,)
    exclude_opt_key = "skip_rate_limit"

    def __init__(self) -> None:
        self._lock: asyncio.Lock | None = None

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        app = scope["litestar_app"]
        settings = app.state.settings
        store = app.stores.get(RATE_LIMIT_STORE)
        principal = current_principal(scope)
        if principal is not None:
            identity = f"org:{principal.org_id}"
            limit = settings.rate_limit_for(principal.plan)
        else:
            client = scope.get("client")
            identity = f"addr:{client[0] if client else 'unknown'}"
            limit = settings.rate_limit_for("free")
        window = settings.rate_limit_window
        clock: Callable[[], float] = getattr(app.state, "clock", time.time)
        now = int(clock())
        start = now - now % window
        key = f"{identity}:{start}"
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            raw = await store.get(key)
            count = int(raw) if raw else 0
            if count >= limit:
                state = RateWindow(limit, count, start + window)
                headers = state.headers()
                headers["Retry-After"] = str(max(start + window - now, 1))
                raise TooManyRequestsException(detail="Rate limit exceeded", headers=headers)
            count += 1
            await store.set(key, str(count).encode(), expires_in=window + 1)
        state = RateWindow(limit, count, start + window)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                headers = MutableScopeHeaders(message)
                for name, value in state.headers().items():
                    headers[name] = value
            await send(message)

        await next_app(scope, receive, send_with_headers)
