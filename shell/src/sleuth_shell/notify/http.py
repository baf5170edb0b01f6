"""The outbound HTTP seam: one small interface for every POST Sleuth makes to a user's URL.

:class:`HttpPoster` is what notification handlers call; :class:`HttpxPoster` is the production
implementation (httpx, no redirects followed, a bounded timeout, connections pinned to the address
:func:`~sleuth_shell.notify.urls.resolve_for_delivery` vetted). Tests use the real implementation
against real local servers, or pass their own object with the same ``post`` method.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import urlsplit, urlunsplit

import httpx

__all__ = ["DeliveryNetworkError", "HttpPoster", "HttpxPoster", "PostResult"]


class DeliveryNetworkError(Exception):
    """The request did not produce an HTTP response (DNS, connect, TLS, timeout, reset)."""


@dataclass(frozen=True)
class PostResult:
    """The part of a response delivery cares about."""

    status_code: int
    body_excerpt: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    """Response headers, names lower-cased (e.g. ``retry-after``)."""
    text: str = ""
    """The whole response body as text (API clients parse it; callbacks only log the excerpt)."""


class HttpPoster(Protocol):
    """Sends one POST and reports the status, or raises :class:`DeliveryNetworkError`."""

    async def post(
        self,
        url: str,
        *,
        content: bytes,
        headers: Mapping[str, str],
        connect_to: str | None = None,
    ) -> PostResult:
        """POST ``content`` to ``url``. ``connect_to``, when given, is the IP address to connect to
        instead of resolving the URL's host again (the Host header and TLS name stay the URL's)."""
        ...


def _pinned(url: str, address: str) -> tuple[str, str, str]:
    """Rewrite ``url`` to connect to ``address``; return (url, host header, TLS server name)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc_host = f"[{address}]" if ":" in address else address
    host_header = parts.netloc.rsplit("@", 1)[-1]
    netloc = netloc_host if parts.port is None else f"{netloc_host}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, "")), host_header, host


#: Connections the poster's pool keeps open between POSTs (to any targets), and holds at most.
#: A worker runs up to 128 deliveries at a time (its I/O lane), 16 per organization and target.
KEEPALIVE_CONNECTIONS = 64
MAX_CONNECTIONS = 128


class HttpxPoster:
    """:class:`HttpPoster` over one ``httpx.AsyncClient``, created on first use.

    Its pool keeps connections alive between POSTs (up to :data:`KEEPALIVE_CONNECTIONS`, for 5 s
    idle), so successive deliveries to one target reuse a connection instead of opening one each.
    Use one instance per event loop.
    """

    def __init__(self, *, timeout: float = 10.0, user_agent: str = "Sleuth") -> None:
        self._timeout = timeout
        self._user_agent = user_agent
        self._client: httpx.AsyncClient | None = None

    def _get_client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=self._timeout,
                follow_redirects=False,
                limits=httpx.Limits(
                    max_connections=MAX_CONNECTIONS,
                    max_keepalive_connections=KEEPALIVE_CONNECTIONS,
                ),
                trust_env=False,
                headers={"User-Agent": self._user_agent},
            )
        return self._client

    async def post(
        self,
        url: str,
        *,
        content: bytes,
        headers: Mapping[str, str],
        connect_to: str | None = None,
    ) -> PostResult:
        """POST ``content``; see :class:`HttpPoster`."""
        send_headers = dict(headers)
        extensions: dict[str, object] = {}
        target = url
        if connect_to is not None:
            target, host_header, server_name = _pinned(url, connect_to)
            send_headers["Host"] = host_header
            extensions["sni_hostname"] = server_name
        try:
            response = await self._get_client().post(
                target, content=content, headers=send_headers, extensions=extensions
            )
        except httpx.HTTPError as exc:
            raise DeliveryNetworkError(f"{type(exc).__name__}: {exc}".rstrip(": ")) from exc
        text = response.text
        return PostResult(
            status_code=response.status_code,
            body_excerpt=text[:200],
            headers={name.lower(): value for name, value in response.headers.items()},
            text=text,
        )

    async def aclose(self) -> None:
        """Close the underlying connection pool."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None
