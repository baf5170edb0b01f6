"""Outbound URL safety, the pinned HTTP poster and callback signatures."""

from __future__ import annotations

import asyncio

import pytest
from callback_receiver import CallbackReceiver, documented_signature, documented_test_vector

from sleuth_shell.notify.http import AiohttpPoster, DeliveryNetworkError
from sleuth_shell.notify.signing import sign, verify
from sleuth_shell.notify.urls import (
    UnsafeURL,
    check_url,
    is_public_address,
    parse_http_url,
    resolve_for_delivery,
)


def resolver_of(mapping: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    async def resolve(host: str, port: int) -> list[str]:
        if host not in mapping:
            raise OSError(f"{host}: name does not resolve")
        return mapping[host]

    return resolve


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("93.184.216.34", True),
        ("2606:2800:220:1:248:1893:25c8:1946", True),
        ("127.0.0.1", False),
        ("10.0.0.1", False),
        ("172.16.5.4", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),
        ("0.0.0.0", False),
        ("224.0.0.1", False),
        ("255.255.255.255", False),
        ("::1", False),
        ("fe80::1", False),
        ("fc00::1", False),
        ("::ffff:127.0.0.1", False),
        ("::ffff:93.184.216.34", True),
        ("2002:7f00:1::", False),  # 6to4 wrapping 127.0.0.1
        # NAT64 and IPv4-compatible forms reach the IPv4 address inside them.
        ("64:ff9b::a9fe:a9fe", False),  # 169.254.169.254 (cloud metadata)
        ("64:ff9b::7f00:1", False),  # 127.0.0.1
        ("64:ff9b::a00:1", False),  # 10.0.0.1
        ("64:ff9b::5db8:d822", True),  # 93.184.216.34
        ("64:ff9b:1::a9fe:a9fe", False),  # local-use NAT64: the local network translates
        ("64:ff9b:1:a9fe:a9:fe00::", False),  # the same, in the /48 embedding
        ("::a9fe:a9fe", False),  # IPv4-compatible 169.254.169.254
        ("::7f00:1", False),  # IPv4-compatible 127.0.0.1
        ("::c0a8:101", False),  # IPv4-compatible 192.168.1.1
        ("::", False),
    ],
)
def test_is_public_address(address: str, public: bool) -> None:
    assert is_public_address(address) is public


@pytest.mark.parametrize(
    "url",
    [
        "",
        "/relative",
        "ftp://h.example/x",
        "http://",
        "mailto:a@b.c",
        "http://h.example:99999/",
        " http://h.example/",
        "http://h.ex ample/",
        5,
        None,
    ],
)
def test_parse_http_url_refuses(url: object) -> None:
    with pytest.raises(UnsafeURL):
        parse_http_url(url)


def test_parse_http_url_defaults_ports() -> None:
    assert parse_http_url("https://h.example/x").port == 443
    assert parse_http_url("HTTP://h.example/x").port == 80
    assert parse_http_url("http://h.example:8080/x").port == 8080


@pytest.mark.parametrize(
    "url",
    [
        "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/",
        "http://[64:ff9b:1::a9fe:a9fe]/",
        "http://[::a9fe:a9fe]/",
        "https://[::127.0.0.1]:8443/hook",
    ],
)
def test_nat64_and_ipv4_compatible_urls_are_refused(url: str) -> None:
    with pytest.raises(UnsafeURL, match="non-public address"):
        asyncio.run(check_url(url, allow_private=False, resolver=resolver_of({})))
    resolver = resolver_of({"hook.example.com": [url.split("[")[1].split("]")[0]]})
    with pytest.raises(UnsafeURL, match="non-public address"):
        asyncio.run(
            resolve_for_delivery(
                "https://hook.example.com/x", allow_private=False, resolver=resolver
            )
        )


def test_check_url() -> None:
    resolve = resolver_of(
        {"public.example": ["93.184.216.34"], "internal.example": ["93.184.216.34", "10.0.0.7"]}
    )

    def check(url: str, allow_private: bool = False) -> None:
        asyncio.run(check_url(url, allow_private=allow_private, resolver=resolve))

    check("https://public.example/hook")
    check("https://not-yet-registered.example/hook")  # does not resolve: delivery checks again
    for bad in (
        "https://internal.example/",
        "http://127.0.0.1/",
        "http://localhost:8000/",
        "http://api.localhost/",
        "http://[::1]:80/",
    ):
        with pytest.raises(UnsafeURL):
            check(bad)
        check(bad, allow_private=True)
    with pytest.raises(UnsafeURL):
        check("ftp://public.example/", allow_private=True)


def test_delivery_check_catches_dns_rebinding() -> None:
    answers = {"rebind.example": ["93.184.216.34"]}
    resolve = resolver_of(answers)
    assert (
        asyncio.run(check_url("http://rebind.example/", allow_private=False, resolver=resolve))
        is None
    )
    answers["rebind.example"] = ["127.0.0.1"]  # the name now points inside
    with pytest.raises(UnsafeURL, match=r"127\.0\.0\.1"):
        asyncio.run(
            resolve_for_delivery("http://rebind.example/", allow_private=False, resolver=resolve)
        )
    answers["rebind.example"] = ["93.184.216.34"]
    assert (
        asyncio.run(
            resolve_for_delivery("http://rebind.example/", allow_private=False, resolver=resolve)
        )
        == "93.184.216.34"
    )
    with pytest.raises(OSError):
        asyncio.run(
            resolve_for_delivery("http://gone.example/", allow_private=False, resolver=resolve)
        )
    assert (
        asyncio.run(resolve_for_delivery("http://127.0.0.1/", allow_private=True, resolver=resolve))
        is None
    )


def test_poster_pins_the_connection_and_keeps_the_host_header() -> None:
    with CallbackReceiver([202]) as receiver:
        port = receiver.url.rsplit(":", 1)[1]

        async def go() -> int:
            poster = AiohttpPoster(timeout=5)
            try:
                result = await poster.post(
                    f"http://hooks.example.invalid:{port}/in?x=1",
                    content=b'{"a":1}',
                    headers={"Content-Type": "application/json"},
                    connect_to="127.0.0.1",
                )
            finally:
                await poster.aclose()
            return result.status_code

        assert asyncio.run(go()) == 202
        [request] = receiver.wait_for(1)
    assert request.path == "/in?x=1"
    assert request.headers["Host"] == f"hooks.example.invalid:{port}"
    assert request.body == b'{"a":1}'


def test_poster_reports_network_errors() -> None:
    with CallbackReceiver() as receiver:
        url = receiver.url

    async def go() -> None:
        poster = AiohttpPoster(timeout=2)
        try:
            await poster.post(url, content=b"{}", headers={})
        finally:
            await poster.aclose()

    with pytest.raises(DeliveryNetworkError):
        asyncio.run(go())


def test_signature_matches_the_documented_recipe_and_vector() -> None:
    secret, body, expected = documented_test_vector()
    assert documented_signature(body, secret) == expected  # the docs' vector is self-consistent
    assert sign(body, secret) == expected
    assert verify(body, secret, expected)
    body = '{"interaction_id":"x","content":"é"}'.encode()
    signature = sign(body, "s3cret")
    assert signature == documented_signature(body, "s3cret")
    assert verify(body, "s3cret", signature)
    assert not verify(body, "other", signature)
    assert not verify(body + b" ", "s3cret", signature)
