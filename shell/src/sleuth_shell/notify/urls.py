"""Outbound URL safety: which callback and alt-webhook URLs Sleuth may POST to.

A URL is acceptable when it is an absolute ``http``/``https`` URL with a host and, unless
``SLEUTH_ALLOW_PRIVATE_URLS`` is true, every address its host resolves to is a public (global
unicast) address: loopback, private, link-local, shared (CGNAT), multicast, reserved and unspecified
addresses are refused, including the IPv6 forms that reach them: IPv4-mapped (``::ffff:0:0/96``),
IPv4-compatible (``::/96``), 6to4 (``2002::/16``) and NAT64 (``64:ff9b::/96``) addresses are judged
by the IPv4 address inside, and local-use NAT64 (``64:ff9b:1::/48``) and Teredo are refused.

The check runs twice: when an interaction is created (:func:`check_url`, which accepts a host that
does not resolve yet, since delivery retries later) and again at delivery time
(:func:`resolve_for_delivery`), which returns the vetted address so the connection is pinned to it
and a DNS answer that changes in between (DNS rebinding) cannot redirect the POST to an internal
address.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = [
    "Resolver",
    "UnsafeURL",
    "check_url",
    "is_public_address",
    "parse_http_url",
    "resolve_for_delivery",
    "system_resolver",
]

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""An async function ``(host, port) -> [ip address strings]``; raises ``OSError`` when it fails."""

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class UnsafeURL(ValueError):
    """The URL may not be used as an outbound target. ``str()`` says why."""


@dataclass(frozen=True)
class HttpTarget:
    """A parsed absolute http(s) URL."""

    url: str
    scheme: str
    host: str
    port: int


async def system_resolver(host: str, port: int) -> list[str]:
    """Resolve ``host`` with the operating system's resolver (``getaddrinfo``), without blocking."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def parse_http_url(url: object) -> HttpTarget:
    """Parse ``url`` as an absolute http/https URL with a host, or raise :class:`UnsafeURL`."""
    if not isinstance(url, str) or not url or url != url.strip():
        raise UnsafeURL("not a URL")
    if any(ord(ch) < 0x21 or ch == "\x7f" for ch in url):
        raise UnsafeURL("the URL contains whitespace or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UnsafeURL(f"malformed URL: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in {"http", "https"}:
        raise UnsafeURL("only absolute http and https URLs are allowed")
    host = parts.hostname
    if not host:
        raise UnsafeURL("the URL has no host")
    if port is None:
        port = 443 if scheme == "https" else 80
    return HttpTarget(url=url, scheme=scheme, host=host, port=port)


def _literal_address(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None


def is_public_address(address: str | IPAddress) -> bool:
    """True when ``address`` is global unicast (not loopback, private, link-local, ...)."""
    ip = ipaddress.ip_address(address) if isinstance(address, str) else address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip in _LOCAL_NAT64 or ip.teredo is not None:
            return False
        embedded = ip.ipv4_mapped or ip.sixtofour or _embedded_ipv4(ip)
        if embedded is not None:
            return is_public_address(embedded)
    return ip.is_global and not ip.is_multicast


#: NAT64's well-known prefix (RFC 6052): the IPv4 address is the last 32 bits.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
#: The local-use NAT64 prefix (RFC 8215): translated by the local network, never global.
_LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")
#: IPv4-compatible addresses (RFC 4291, deprecated): the IPv4 address is the last 32 bits.
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address a NAT64 or IPv4-compatible address reaches, else None (``::`` and
    ``::1`` are themselves, not IPv4 addresses)."""
    if ip in _NAT64 or (ip in _IPV4_COMPATIBLE and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


async def _resolve(target: HttpTarget, resolver: Resolver) -> list[str]:
    literal = _literal_address(target.host)
    if literal is not None:
        return [str(literal)]
    return await resolver(target.host, target.port)


async def check_url(
    url: object, *, allow_private: bool, resolver: Resolver = system_resolver
) -> None:
    """Validate an outbound URL when it is submitted.

    Raises :class:`UnsafeURL` when the URL is not absolute http/https, or (unless ``allow_private``)
    when its host is, or resolves to, a non-public address. A host that does not resolve at all is
    accepted here: delivery checks again and treats it as a network error.
    """
    target = parse_http_url(url)
    if allow_private:
        return
    if target.host.lower() == "localhost" or target.host.lower().endswith(".localhost"):
        raise UnsafeURL("the host is a loopback name")
    try:
        addresses = await _resolve(target, resolver)
    except OSError:
        return
    for address in addresses:
        if not is_public_address(address):
            raise UnsafeURL(f"the host resolves to the non-public address {address}")


async def resolve_for_delivery(
    url: str, *, allow_private: bool, resolver: Resolver = system_resolver
) -> str | None:
    """Vet ``url`` right before a POST and return the address to connect to.

    Returns None when ``allow_private`` is true (connect by name as usual). Otherwise returns the
    first resolved address, after checking that every resolved address is public. Raises
    :class:`UnsafeURL` for an unsafe URL and ``OSError`` when the host does not resolve.
    """
    target = parse_http_url(url)
    if allow_private:
        return None
    if target.host.lower() == "localhost" or target.host.lower().endswith(".localhost"):
        raise UnsafeURL("the host is a loopback name")
    addresses = await _resolve(target, resolver)
    if not addresses:
        raise OSError(f"{target.host} did not resolve")
    for address in addresses:
        if not is_public_address(address):
            raise UnsafeURL(f"the host resolves to the non-public address {address}")
    return addresses[0]
