"""Shared rate limits: ``SLEUTH_REDIS_URL`` puts every node's counters in one Redis.

The two-instance tests need a Redis server (``SLEUTH_TEST_REDIS_URL``, e.g.
``redis://127.0.0.1:6379/0``) and are skipped without one; the outage test needs none (it points
the store at a closed port).
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid

import pytest
from litestar.stores.memory import MemoryStore
from litestar.testing import TestClient

from sleuth_shell.app import create_app
from sleuth_shell.config import ConfigError, Settings
from sleuth_shell.ratelimit import RATE_LIMIT_STORE, CounterRedisStore

REDIS_URL = os.environ.get("SLEUTH_TEST_REDIS_URL")
needs_redis = pytest.mark.skipif(not REDIS_URL, reason="SLEUTH_TEST_REDIS_URL is not set")

LIMITS = {"free": 5, "team": 7, "enterprise": 9}
PATH = "/api/v1/webhook-subscriptions"


def _window_start() -> int:
    """A window start no other test run uses (keys carry it), far from the real clock."""
    return 2_000_000_040 + (uuid.uuid4().int % 10**6) * 60


def test_setting_selects_the_store(settings: Settings) -> None:
    assert Settings.from_env({}).redis_url is None
    url = "redis://cache.internal:6379/2"
    assert Settings.from_env({"SLEUTH_REDIS_URL": url}).redis_url == url
    with pytest.raises(ConfigError, match="SLEUTH_REDIS_URL must be a redis://"):
        Settings.from_env({"SLEUTH_REDIS_URL": "http://cache.internal"})
    assert isinstance(create_app(settings).stores.get(RATE_LIMIT_STORE), MemoryStore)
    shared = create_app(settings.model_copy(update={"redis_url": url}))
    assert isinstance(shared.stores.get(RATE_LIMIT_STORE), CounterRedisStore)


@needs_redis
def test_two_instances_share_one_budget(settings: Settings, factory) -> None:
    start = _window_start()
    now = [float(start)]
    shared = settings.model_copy(update={"redis_url": REDIS_URL, "rate_limits": LIMITS})
    first = create_app(shared, clock=lambda: now[0])
    second = create_app(shared, clock=lambda: now[0])
    free = factory.org("free-org")
    team = factory.org("team-org", plan="team")
    with TestClient(app=first) as one, TestClient(app=second) as two:
        # Alternate between the nodes: the remaining budget falls by one per request overall.
        for remaining, client in zip((4, 3, 2, 1, 0), (one, two, one, two, one), strict=True):
            response = client.get(PATH, headers=free.headers)
            assert response.status_code == 200
            assert response.headers["x-ratelimit-limit"] == "5"
            assert response.headers["x-ratelimit-remaining"] == str(remaining)
            assert response.headers["x-ratelimit-reset"] == str(start + 60)
        now[0] += 20
        for client in (two, one):
            response = client.get(PATH, headers=free.headers)
            assert (response.status_code, response.json()) == (
                429,
                {"detail": "Rate limit exceeded"},
            )
            assert response.headers["retry-after"] == "40"
            assert response.headers["x-ratelimit-remaining"] == "0"
            assert response.headers["x-ratelimit-reset"] == str(start + 60)
        # Another organization's budget is its own, by its plan.
        response = two.get(PATH, headers=team.headers)
        assert response.headers["x-ratelimit-limit"] == "7"
        assert response.headers["x-ratelimit-remaining"] == "6"
        # The next window starts afresh on both nodes.
        now[0] += 40
        assert two.get(PATH, headers=free.headers).headers["x-ratelimit-remaining"] == "4"
        assert one.get(PATH, headers=free.headers).headers["x-ratelimit-remaining"] == "3"


@needs_redis
def test_counting_is_atomic_and_windows_expire() -> None:
    assert REDIS_URL is not None
    namespace = f"sleuth-test-{uuid.uuid4().hex}"

    async def go() -> tuple[list[int], int, int | None]:
        # Two stores (two clients, as two processes would have) increment one key concurrently.
        stores = [CounterRedisStore.from_url(REDIS_URL, namespace=namespace) for _ in range(2)]
        try:
            counts = await asyncio.gather(
                *(stores[i % 2].incr("rate:org:1:0", 61) for i in range(60))
            )
            ttl = await stores[0].expires_in("rate:org:1:0")
            await stores[0].delete_all()
            return sorted(counts), len(set(counts)), ttl
        finally:
            for store in stores:
                await store.close()

    counts, distinct, ttl = asyncio.run(go())
    assert counts == list(range(1, 61))  # no lost update, no duplicate
    assert distinct == 60
    assert ttl is not None and 55 <= ttl <= 61  # the first increment set the window's expiry


def test_redis_outage_fails_open_and_logs_once(settings: Settings, org) -> None:
    down = settings.model_copy(
        update={"redis_url": "redis://127.0.0.1:1/0", "rate_limits": {**LIMITS, "free": 2}}
    )
    app = create_app(down, clock=lambda: 1_800_000_000.0)
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("sleuth.ratelimit")
    logger.addHandler(handler)
    try:
        with TestClient(app=app) as client:
            responses = [client.get(PATH, headers=org.headers) for _ in range(3)]
    finally:
        logger.removeHandler(handler)
    # The API stays up; the limit is still enforced, per process, while Redis is down.
    assert [r.status_code for r in responses] == [200, 200, 429]
    assert [r.headers["x-ratelimit-remaining"] for r in responses] == ["1", "0", "0"]
    errors = [r for r in records if r.levelno == logging.ERROR]
    assert len(errors) == 1
    assert "rate-limit store (Redis) unreachable" in errors[0].getMessage()
    assert "failing open" in errors[0].getMessage()


def test_window_headers_are_its_raw_headers_by_display_name() -> None:
    """``headers()`` is ``raw_headers()`` under the display names: one computation, two forms."""
    from sleuth_shell.ratelimit import RateWindow

    window = RateWindow(limit=60, count=75, reset=1767225600)
    assert window.raw_headers() == [
        (b"x-ratelimit-limit", b"60"),
        (b"x-ratelimit-remaining", b"0"),
        (b"x-ratelimit-reset", b"1767225600"),
    ]
    assert window.headers() == {
        "X-RateLimit-Limit": "60",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": "1767225600",
    }
    assert [(k.lower().encode(), v.encode()) for k, v in window.headers().items()] == (
        window.raw_headers()
    )
