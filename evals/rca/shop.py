"""The shop fleet several frozen incidents share: its services, their catalog, and a ramp."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from evals.rca.kit import Svc


def ramp(t0: datetime, t1: datetime, peak: float) -> Callable[[datetime], float]:
    """0 before ``t0``, rising linearly to ``peak`` at ``t1``, ``peak`` after."""

    def f(t: datetime) -> float:
        if t < t0:
            return 0.0
        if t >= t1:
            return peak
        return peak * (t - t0).total_seconds() / (t1 - t0).total_seconds()

    return f


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
