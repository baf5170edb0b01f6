"""The one middleware every HTTP request passes: who calls, how often, and whether they may.

:class:`GateMiddleware` does, in this order:

1. resolves the API key into a principal in the scope (:func:`sleuth_shell.auth.resolve_principal`;
   never rejects);
2. unless the route sets ``opt skip_rate_limit=True``, counts the request against its
   organization (or, without a valid key, its client address; on the OAuth endpoints, route
   option ``oauth_rate_limit``, always the client address against ``SLEUTH_OAUTH_RATE_LIMIT``)
   with the application's
   :class:`~sleuth_shell.ratelimit.RateLimiter`: 429 ``Rate limit exceeded`` over the plan limit;
3. on routes with ``opt api_key_required=True`` (the ``/api/v1`` router) that are not
   ``public``, refuses a missing or invalid key with 401 (:func:`sleuth_shell.auth.check_api_key`),
   so a request is counted before it is refused, as an unauthenticated flood must be;
4. adds the ``X-RateLimit-*`` headers to the response.

It is one middleware, not several middlewares and a route guard: Litestar copies the route handler
for every guard call and wraps every middleware in its own dispatch, which on the authenticated
read path costs more than the read (docs/performance.md).
"""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from sleuth_shell.auth import check_api_key, current_principal, resolve_principal
from sleuth_shell.oauth.routes import OAUTH_RATE_LIMIT
from sleuth_shell.ratelimit import rate_limiter_of

__all__ = ["API_KEY_REQUIRED", "GateMiddleware"]

#: The route option that makes a route refuse requests without a valid API key.
API_KEY_REQUIRED = "api_key_required"


class GateMiddleware(ASGIMiddleware):
    """Authenticate, rate-limit and admit every HTTP request (see the module doc)."""

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        await resolve_principal(scope)
        opt = scope["route_handler"].opt
        if opt.get("skip_rate_limit"):
            if opt.get(API_KEY_REQUIRED):
                check_api_key(scope, opt)
            await next_app(scope, receive, send)
            return
        app = scope["litestar_app"]
        # Item access: ``State``'s attribute access is a failed lookup, then its ``__getattr__``
        # (about 1.5 us each; the request path reads the state several times).
        settings = app.state["settings"]
        principal = current_principal(scope)
        if opt.get(OAUTH_RATE_LIMIT):
            client = scope.get("client")
            identity = f"oauth:{client[0] if client else 'unknown'}"
            limit = settings.oauth_rate_limit
        elif principal is not None:
            identity = f"org:{principal.org_id}"
            limit = settings.rate_limit_for(principal.plan)
        else:
            client = scope.get("client")
            identity = f"addr:{client[0] if client else 'unknown'}"
            limit = settings.rate_limit_for("free")
        window = await rate_limiter_of(app).hit(app, identity, limit)
        if opt.get(API_KEY_REQUIRED) and principal is None:
            check_api_key(scope, opt, window.headers())
        # Appended as raw pairs: nothing else sets these headers (a 429 or 401 is raised above,
        # before the handler, and carries them itself).
        raw = window.raw_headers()

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *raw]
            await send(message)

        await next_app(scope, receive, send_with_headers)
