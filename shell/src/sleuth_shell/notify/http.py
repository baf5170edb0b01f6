"""The outbound HTTP seam: one small interface for every POST Sleuth makes to a user's URL.

:class:`HttpPoster` is what notification handlers call; :class:`AiohttpPoster` is the production
implementation (aiohttp, no redirects followed, a bounded timeout, connections pinned to the address
:func:`~sleuth_shell.notify.urls.resolve_for_delivery` vetted). Tests use the real implementation
against real local servers, or pass their own object with the same ``post`` method.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    import aiohttp

__all__ = ["AiohttpPoster", "DeliveryNetworkError", "HttpPoster", "PostResult"]


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


#: Connections the poster's pool holds at most (to any targets). A worker runs up to 128
#: deliveries at a time (its I/O lane), 16 per organization and target.
MAX_CONNECTIONS = 128
#: Seconds an idle pooled connection is kept for the next POST to its target.
KEEPALIVE_SECONDS = 5.0


class AiohttpPoster:
    """:class:`HttpPoster` over one ``aiohttp.ClientSession``, created on first use.

    Its pool keeps connections alive between POSTs (idle for up to :data:`KEEPALIVE_SECONDS`),
    so successive deliveries to one target reuse a connection instead of opening one each; taking
    a pooled connection costs the same however many the pool holds. Redirects are not followed,
    cookies are not kept, and the environment's proxy settings are ignored. Use one instance per
    event loop.
    """

    def __init__(self, *, timeout: float = 10.0, user_agent: str = "Sleuth") -> None:
        self._timeout = timeout
        self._user_agent = user_agent
        self._session: aiohttp.ClientSession | None = None

    def _get_session(self) -> aiohttp.ClientSession:
        if self._session is None:
            import aiohttp  # on first use: it is a tenth of ``sleuth serve``'s imports

            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(
                    limit=MAX_CONNECTIONS, keepalive_timeout=KEEPALIVE_SECONDS
                ),
                timeout=aiohttp.ClientTimeout(total=self._timeout),
                headers={"User-Agent": self._user_agent},
                cookie_jar=aiohttp.DummyCookieJar(),
                trust_env=False,
            )
        return self._session

    async def post(
        self,
        url: str,
        *,
        content: bytes,
        headers: Mapping[str, str],
        connect_to: str | None = None,
    ) -> PostResult:
        """POST ``content``; see :class:`HttpPoster`."""
        import aiohttp

        send_headers = dict(headers)
        target = url
        server_hostname: str | None = None
        if connect_to is not None:
            target, send_headers["Host"], server_hostname = _pinned(url, connect_to)
        try:
            async with self._get_session().post(
                target,
                data=content,
                headers=send_headers,
                allow_redirects=False,
                server_hostname=server_hostname if target.startswith("https:") else None,
            ) as response:
                raw = await response.read()
                status = response.status
                charset = response.charset or "utf-8"
                response_headers = {name.lower(): value for name, value in response.headers.items()}
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise DeliveryNetworkError(f"{type(exc).__name__}: {exc}".rstrip(": ")) from exc
        try:
            text = raw.decode(charset, errors="replace")
        except LookupError:  # an unknown charset: read it as UTF-8
            text = raw.decode("utf-8", errors="replace")
        return PostResult(
            status_code=status,
            body_excerpt=text[:200],
            headers=response_headers,
            text=text,
        )

    async def aclose(self) -> None:
        """Close the underlying connection pool."""
        if self._session is not None:
            await self._session.close()
            self._session = None
