"""Write the frozen root-cause incidents of `evals/rca/` (deterministic: seeded per incident).

Run ``PYTHONPATH=core/src:shell/src:. python -m evals.rca.build`` from the repository root; it
rewrites ``evals/rca/tune/*.json`` and ``evals/rca/heldout/*.json``. The JSON files are the source
of truth (the runner only reads them); this script is how they were made, each incident's story
spelled out in code. Held-out incidents live in `evals.rca.heldout` and were written before any
tuning.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from evals.rca import alerts
from evals.rca.kit import MINUTE, Incident, Svc, ts, write

HERE = Path(__file__).parent


def ramp(t0: datetime, t1: datetime, peak: float) -> Callable[[datetime], float]:
    """0 before ``t0``, rising linearly to ``peak`` at ``t1``, ``peak`` after."""

    def f(t: datetime) -> float:
        if t < t0:
            return 0.0
        if t >= t1:
            return peak
        return peak * (t - t0).total_seconds() / (t1 - t0).total_seconds()

    return f


def between(t: datetime, a: datetime, b: datetime | None = None) -> bool:
    return a <= t and (b is None or t < b)


# --- shared fleets ----------------------------------------------------------------------------


def shop_fleet() -> list[Svc]:
    return [
        Svc(
            "checkout-web",
            "web",
            ("/checkout", "/checkout/summary", "/checkout/confirm"),
            rps=55,
            p99=420,
            noun="checkout",
        ),
        Svc(
            "orders-api",
            "api",
            ("/orders", "/orders/{id}", "/orders/{id}/status"),
            rps=80,
            p99=140,
            noun="order",
        ),
        Svc(
            "payments-api",
            "api",
            ("/payments/authorize", "/payments/capture", "/refunds"),
            rps=25,
            p99=650,
            noun="payment",
        ),
        Svc(
            "inventory-svc",
            "api",
            ("/stock/{sku}", "/reservations"),
            rps=120,
            p99=60,
            noun="reservation",
        ),
        Svc("cart-svc", "api", ("/carts/{id}", "/carts/{id}/items"), rps=140, p99=45, noun="cart"),
        Svc(
            "notifications-worker",
            "worker",
            topic="notifications.v1",
            rps=18,
            p99=900,
            noun="notification",
        ),
        Svc("search-api", "api", ("/search", "/suggest"), rps=210, p99=120, noun="query"),
    ]


SHOP_CATALOG = {
    "checkout-web": "storefront checkout pages (team Commerce); calls cart-svc, orders-api, payments-api",
    "orders-api": "order records and status (team Commerce); PostgreSQL orders-db (pool_size 20, max_overflow 10); calls inventory-svc",
    "payments-api": "card payments (team Payments); calls the card processor Paylane (api.paylane.example)",
    "inventory-svc": "stock levels and reservations (team Fulfilment); PostgreSQL inventory-db",
    "cart-svc": "shopping carts (team Commerce); Redis cache-prod-2",
    "notifications-worker": "e-mail and push sending (team Growth); consumes notifications.v1; sends via Mailcourier",
    "search-api": "product search (team Discovery); OpenSearch cluster search-prod",
}


# --- tune -------------------------------------------------------------------------------------


def t01_orders_pool_leak() -> Incident:
    now = ts("2026-03-04T15:40")
    inc = Incident(
        "t01-orders-pool-leak",
        "Checkout error rate above 5%",
        """Checkout pages start failing in the afternoon. The alert is on checkout-web, but
        checkout-web only relays timeouts from orders-api. A refactor of the order lookup in
        orders-api, deployed at 12:10, stopped returning database connections on the not-found
        path; the pool drained slowly for almost three hours before orders-api's requests began
        timing out at 14:58. A checkout-web deploy six minutes earlier only touched CSS and a
        template; a payments flag was flipped nearby; the pool-size bump at 15:31 is the
        responders' mitigation, after the onset.""",
        now,
        shop_fleet(),
        seed=101,
    )
    inc.catalog(SHOP_CATALOG)
    inc.doc(
        "Runbook: orders-api database pool exhaustion",
        """Symptoms: `QueuePool limit of size 20 overflow 10 reached` in orders-api, checkout timeouts.
Check db_pool_connections_in_use for orders-api. A steady climb means connections are leaked by
code (a path that does not close its connection); a sudden jump means a traffic spike or a slow query.
Mitigation: restart orders-api pods (returns leaked connections), then find the leak.""",
    )
    inc.noise()
    leak0, errors0, alert_at = (
        ts("2026-03-04T12:10"),
        ts("2026-03-04T14:58"),
        ts("2026-03-04T15:22"),
    )
    inc.onset = leak0
    inc.background(inc.begin, ts("2026-03-04T11:30"), 10)
    guilty = inc.commit(
        ts("2026-03-04T11:47"),
        "orders-api",
        "Refactor order lookup: return early for unknown order ids",
        [
            (
                "orders_api/repository.py",
                """def get_order(order_id: str) -> Order | None:
    conn = pool.connect()
    try:
        row = conn.execute(ORDER_BY_ID, {"id": order_id}).first()
        return Order.from_row(row) if row else None
    finally:
        conn.close()""",
                """def get_order(order_id: str) -> Order | None:
    conn = pool.connect()
    row = conn.execute(ORDER_BY_ID, {"id": order_id}).first()
    if row is None:
        return None  # unknown ids are common (bots probing /orders/<id>)
    order = Order.from_row(row)
    conn.close()
    return order""",
                88,
            ),
            (
                "tests/test_repository.py",
                """def test_get_order_found(db):
    assert get_order("o-1").id == "o-1\"""",
                """def test_get_order_found(db):
    assert get_order("o-1").id == "o-1"


def test_get_order_unknown(db):
    assert get_order("nope") is None""",
                12,
            ),
        ],
        author="tomas.novak",
    )
    guilty_deploy = inc.deploy(ts("2026-03-04T12:10"), "orders-api")
    inc.background(ts("2026-03-04T12:20"), ts("2026-03-04T14:20"), 8)
    css = inc.commit(
        ts("2026-03-04T14:31"),
        "checkout-web",
        "Checkout summary: align totals column, new promo badge",
        [
            (
                "static/css/checkout.css",
                ".summary .totals {\n  text-align: left;\n}",
                ".summary .totals {\n  text-align: right;\n  font-variant-numeric: tabular-nums;\n}\n.promo-badge {\n  background: #ffe08a;\n}",
                210,
            ),
            (
                "templates/checkout/summary.html",
                '<td class="totals">{{ order.total }}</td>',
                '<td class="totals">{{ order.total }}{% if order.promo %}<span class="promo-badge">{{ order.promo }}</span>{% endif %}</td>',
                57,
            ),
        ],
        author="hana.sato",
    )
    decoy_deploy = inc.deploy(ts("2026-03-04T14:52"), "checkout-web")
    decoy_flag = inc.flag(
        ts("2026-03-04T14:49"),
        "payments-api",
        "payments.apple_pay_button",
        "enabled: true\nrollout: 0",
        "enabled: true\nrollout: 25",
        "Roll out Apple Pay button to 25% of sessions",
        author="li.wei",
    )
    late = inc.config(
        ts("2026-03-04T15:31"),
        "orders-api",
        "orders-api: raise DB pool_size 20 -> 40 (incident mitigation)",
        "orders-api/values-prod.yaml",
        "database:\n  pool_size: 20\n  max_overflow: 10\n  pool_timeout: 30",
        "database:\n  pool_size: 40\n  max_overflow: 10\n  pool_timeout: 30",
        author="oliver.grant",
        line=22,
    )
    inc.burst(
        "orders-api",
        errors0,
        now,
        lambda f: 1 + 5 * f,
        lambda r, t: (
            "ERROR",
            "sqlalchemy.exc.TimeoutError: QueuePool limit of size 20 overflow 10 reached, connection timed out, timeout 30.00",
            {
                "path": "/orders/{id}",
                "exception": "sqlalchemy.exc.TimeoutError",
                "pod": f"orders-api-7f9c4-{r.choice('abc')}{r.randint(10, 99)}",
            },
        ),
    )
    inc.burst(
        "orders-api",
        leak0 + 20 * MINUTE,
        now,
        0.6,
        lambda r, t: (
            "INFO",
            f"GET /orders/o-{r.getrandbits(24):06x} 404 {r.randint(5, 30)}ms",
            {"path": "/orders/{id}", "status": 404},
        ),
    )
    inc.burst(
        "checkout-web",
        errors0 + 2 * MINUTE,
        now,
        lambda f: 1 + 4 * f,
        lambda r, t: (
            "ERROR",
            "upstream request failed: orders-api GET /orders/{id} timed out after 30000ms",
            {"upstream": "orders-api", "status": 504, "path": "/checkout/confirm"},
        ),
    )
    pool = ramp(leak0, errors0, 24.0)
    inc.metric(
        "db_pool_connections_in_use",
        "orders-api",
        lambda t: 5 + pool(t) + (1 if t >= errors0 else 0),
        labels={"pool": "orders-db"},
        jitter=0.04,
        digits=0,
    )
    inc.red(
        "orders-api",
        err=lambda t, v: v + (0.18 if t >= errors0 else 0),
        p99=lambda t, v: 30000 if t >= errors0 else v,
    )
    inc.red(
        "checkout-web",
        err=lambda t, v: v + (0.09 if t >= errors0 else 0),
        p99=lambda t, v: 30500 if t >= errors0 else v,
    )
    for s in ("payments-api", "inventory-svc", "cart-svc", "search-api"):
        inc.red(s)
    inc.alert = alerts.alertmanager(
        "CheckoutErrorRateHigh",
        "checkout-web",
        alert_at,
        "critical",
        "Checkout error rate above 5%",
        "checkout-web 5xx ratio is 9.1% over the last 10 minutes (threshold 5%).",
        'sum(rate(http_requests_total{service="checkout-web",code=~"5.."}[5m])) / sum(rate(http_requests_total{service="checkout-web"}[5m])) > 0.05',
        team="commerce",
    )
    inc.truth = {
        "verdict": "change",
        "change_id": guilty,
        "accept": [guilty_deploy],
        "service": "orders-api",
        "external_cause": None,
        "decoys": [css, decoy_deploy, decoy_flag, late],
    }
    return inc


def main() -> int:
    from evals.rca import heldout, tune

    for split, makers in (("tune", tune.TUNE), ("heldout", heldout.HELDOUT)):
        directory = HERE / split
        directory.mkdir(exist_ok=True)
        for old in directory.glob("*.json"):
            old.unlink()
        for make in makers:
            path = write(make().payload(), directory)
            print(f"{path.relative_to(HERE)}: {path.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
