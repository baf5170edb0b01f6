"""The demo's application logs: one day of a small shop, with an incident near its end.

The log lines are generated, deterministically, relative to the moment they are loaded (``end``,
rounded down to the minute): the same ``end`` always gives the same lines. They span the 24 hours
before ``end``. The story, in offsets before ``end``:

- all day: normal traffic from ``storefront``, ``checkout-api``, ``payments-api``,
  ``inventory-api``, ``search-api``, ``auth-api`` and ``orders-worker``, a little background noise
  (slow searches, failed logins), the nightly search index rebuild at 02:00 UTC with a few search
  timeouts, and two routine deploys by ``deploy-bot`` (7 h and 5 h before);
- 2 h 30 min before: ``deploy-bot`` deploys ``payments-api`` v2.14.0, whose change opens a database
  transaction per refund request and leaks connections on an error path;
- from 2 h 27 min: ``payments-api`` warns about rising DB pool usage; from 2 h 18 min its pool is
  exhausted and requests fail with 503, so ``checkout-api`` reports upstream errors, ``storefront``
  shows the checkout error page and ``orders-worker`` finds orders stuck awaiting payment;
- 1 h 35 min before: the on-call rolls ``payments-api`` back to v2.13.4; the errors stop within
  3 minutes and traffic is normal afterwards.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = ["DEMO_SEED", "INCIDENT", "SERVICES", "generate_logs"]

DEMO_SEED = 20240611
"""The random seed of the generator; changing it changes every line."""

SERVICES: tuple[str, ...] = (
    "auth-api",
    "checkout-api",
    "deploy-bot",
    "inventory-api",
    "orders-worker",
    "payments-api",
    "search-api",
    "storefront",
)

INCIDENT: dict[str, timedelta] = {
    "deploy": timedelta(hours=2, minutes=30),
    "first_warning": timedelta(hours=2, minutes=27),
    "first_error": timedelta(hours=2, minutes=18),
    "rollback": timedelta(hours=1, minutes=35),
    "recovered": timedelta(hours=1, minutes=32),
}
"""When the incident's milestones happen, as offsets before the end of the demo day."""

_SKUS = ("TENT-2P", "BAG-35L", "STOVE-MINI", "LAMP-HEAD", "MAT-FOAM", "BOTTLE-1L", "JACKET-RAIN")
_QUERIES = ("tent", "sleeping bag", "headlamp", "stove", "rain jacket", "hiking boots", "kayak")
_PATHS = ("/", "/products/{sku}", "/cart", "/search?q={q}", "/account", "/category/camping")

Record = dict[str, Any]


def _order(rng: random.Random) -> str:
    return f"ord_{rng.randrange(16**6):06x}"


def _user(rng: random.Random) -> str:
    return f"u_{rng.randrange(10**5):05d}"


def _poisson_times(
    rng: random.Random, start: datetime, end: datetime, per_hour: float
) -> Iterator[datetime]:
    """Event times of a Poisson process with ``per_hour`` events per hour in ``[start, end)``."""
    t = start
    rate_per_second = per_hour / 3600.0
    while True:
        t += timedelta(seconds=rng.expovariate(rate_per_second))
        if t >= end:
            return
        yield t.replace(microsecond=(t.microsecond // 1000) * 1000)


def _rec(t: datetime, service: str, level: str, message: str, **attributes: Any) -> Record:
    return {
        "timestamp": t,
        "service": service,
        "level": level,
        "message": message,
        "attributes": attributes,
    }


def _in_incident(t: datetime, end: datetime) -> bool:
    return end - INCIDENT["first_error"] <= t < end - INCIDENT["recovered"]


def _normal_traffic(rng: random.Random, start: datetime, end: datetime) -> Iterator[Record]:
    for t in _poisson_times(rng, start, end, 40):
        path = rng.choice(_PATHS).format(sku=rng.choice(_SKUS), q=rng.choice(_QUERIES))
        yield _rec(t, "storefront", "INFO", f"GET {path} 200", duration_ms=rng.randint(18, 140))
    for t in _poisson_times(rng, start, end, 25):
        if _in_incident(t, end):
            continue
        yield _rec(
            t,
            "checkout-api",
            "INFO",
            "order placed",
            order_id=_order(rng),
            duration_ms=rng.randint(180, 420),
        )
    for t in _poisson_times(rng, start, end, 25):
        if _in_incident(t, end):
            continue
        yield _rec(
            t,
            "payments-api",
            "INFO",
            "payment authorized",
            order_id=_order(rng),
            amount=round(rng.uniform(12, 480), 2),
            currency="EUR",
        )
    for t in _poisson_times(rng, start, end, 14):
        yield _rec(
            t,
            "inventory-api",
            "INFO",
            "stock reserved",
            sku=rng.choice(_SKUS),
            units=rng.randint(1, 3),
        )
    minute = start.replace(second=0, microsecond=0) + timedelta(minutes=5 - start.minute % 5)
    while minute < end:
        yield _rec(
            minute + timedelta(seconds=rng.randint(1, 20)),
            "inventory-api",
            "INFO",
            "warehouse sync completed",
            skus_updated=rng.randint(3, 60),
        )
        minute += timedelta(minutes=5)
    for t in _poisson_times(rng, start, end, 30):
        yield _rec(
            t,
            "search-api",
            "INFO",
            "search served",
            query=rng.choice(_QUERIES),
            hits=rng.randint(0, 120),
            duration_ms=rng.randint(40, 300),
        )
    for t in _poisson_times(rng, start, end, 18):
        yield _rec(t, "auth-api", "INFO", "login succeeded", user_id=_user(rng))
    for t in _poisson_times(rng, start, end, 15):
        if _in_incident(t, end):
            continue
        yield _rec(t, "orders-worker", "INFO", "order confirmed, email sent", order_id=_order(rng))


def _background_noise(rng: random.Random, start: datetime, end: datetime) -> Iterator[Record]:
    for t in _poisson_times(rng, start, end, 1.5):
        yield _rec(
            t, "search-api", "WARNING", "search query slow", duration_ms=rng.randint(810, 1900)
        )
    for t in _poisson_times(rng, start, end, 2):
        yield _rec(
            t,
            "auth-api",
            "WARNING",
            "login failed: invalid credentials",
            user_id=_user(rng),
        )
    for t in _poisson_times(rng, start, end, 0.25):
        yield _rec(
            t,
            "storefront",
            "ERROR",
            "image CDN request failed",
            status=504,
            path=f"/img/{rng.choice(_SKUS).lower()}.jpg",
        )
    # The nightly search index rebuild at 02:00 UTC (exactly one falls inside any 24 hours).
    rebuild = end.replace(hour=2, minute=0, second=0, microsecond=0)
    if rebuild >= end:
        rebuild -= timedelta(days=1)
    if rebuild >= start:
        yield _rec(rebuild, "search-api", "INFO", "nightly index rebuild started", index="products")
        for t in _poisson_times(rng, rebuild, rebuild + timedelta(minutes=18), 20):
            yield _rec(t, "search-api", "ERROR", "opensearch request timed out", timeout_ms=2000)
        yield _rec(
            rebuild + timedelta(minutes=19, seconds=12),
            "search-api",
            "INFO",
            "nightly index rebuild completed",
            index="products",
            documents=18_422,
        )


def _deploys(end: datetime) -> Iterator[Record]:
    yield _rec(
        end - timedelta(hours=7, minutes=4),
        "deploy-bot",
        "INFO",
        "deployed storefront v5.2.0 (previous v5.1.3)",
        target="storefront",
        version="v5.2.0",
        previous_version="v5.1.3",
        author="maria",
        change="new product comparison table",
    )
    yield _rec(
        end - timedelta(hours=5, minutes=10),
        "deploy-bot",
        "INFO",
        "deployed inventory-api v1.9.4 (previous v1.9.3)",
        target="inventory-api",
        version="v1.9.4",
        previous_version="v1.9.3",
        author="tom",
        change="log warehouse sync duration",
    )


def _incident(rng: random.Random, end: datetime) -> Iterator[Record]:
    deploy = end - INCIDENT["deploy"]
    yield _rec(
        deploy,
        "deploy-bot",
        "INFO",
        "deployed payments-api v2.14.0 (previous v2.13.4)",
        target="payments-api",
        version="v2.14.0",
        previous_version="v2.13.4",
        author="dana",
        change="refunds: open a database transaction per request",
    )
    yield _rec(
        deploy + timedelta(seconds=64), "payments-api", "INFO", "starting payments-api v2.14.0"
    )
    # Pool usage climbs: the signature of a connection leak.
    first_warning = end - INCIDENT["first_warning"]
    first_error = end - INCIDENT["first_error"]
    in_use = 11
    t = first_warning
    while t < first_error:
        in_use = min(19, in_use + 1)
        yield _rec(
            t + timedelta(seconds=rng.randint(0, 50)),
            "payments-api",
            "WARNING",
            "db pool usage high",
            in_use=in_use,
            pool_size=20,
        )
        t += timedelta(minutes=1)
    recovered = end - INCIDENT["recovered"]
    stream: list[tuple[str, str, str, float, dict[str, Any]]] = [
        (
            "payments-api",
            "ERROR",
            "DB connection pool exhausted (20/20 in use, waited 5000ms)",
            240,
            {},
        ),
        ("payments-api", "ERROR", "authorization failed: no database connection", 110, {}),
        ("checkout-api", "ERROR", "upstream payments-api returned 503", 230, {}),
        ("checkout-api", "ERROR", "payment authorization timed out", 55, {}),
        ("storefront", "WARNING", "checkout failed, showing error page", 170, {}),
        ("orders-worker", "WARNING", "order stuck awaiting payment confirmation", 60, {}),
    ]
    for service, level, message, per_hour, extra in stream:
        begin = first_error + (timedelta(seconds=20) if service != "payments-api" else timedelta())
        for when in _poisson_times(rng, begin, recovered, per_hour):
            attributes = dict(extra)
            if service in {"checkout-api", "orders-worker", "payments-api"}:
                attributes["order_id"] = _order(rng)
            yield _rec(when, service, level, message, **attributes)
    rollback = end - INCIDENT["rollback"]
    yield _rec(
        rollback,
        "deploy-bot",
        "INFO",
        "rolled back payments-api: deployed v2.13.4 (previous v2.14.0)",
        target="payments-api",
        version="v2.13.4",
        previous_version="v2.14.0",
        author="carol (on-call)",
    )
    yield _rec(
        rollback + timedelta(seconds=71), "payments-api", "INFO", "starting payments-api v2.13.4"
    )


def generate_logs(end: datetime, *, seed: int = DEMO_SEED) -> list[Record]:
    """The demo's log records for the 24 hours before ``end``, oldest first.

    ``end`` (aware, or naive meaning UTC) is rounded down to the minute. Each record is a dict with
    ``timestamp`` (aware UTC datetime), ``service``, ``level``, ``message`` and ``attributes``.
    """
    if end.tzinfo is None:
        end = end.replace(tzinfo=UTC)
    end = end.astimezone(UTC).replace(second=0, microsecond=0)
    start = end - timedelta(hours=24)
    rng = random.Random(seed)
    records = [
        *_normal_traffic(rng, start, end),
        *_background_noise(rng, start, end),
        *_deploys(end),
        *_incident(rng, end),
    ]
    records = [r for r in records if start <= r["timestamp"] < end]
    records.sort(key=lambda r: (r["timestamp"], r["service"], r["message"]))
    return records
