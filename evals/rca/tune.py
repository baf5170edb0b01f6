"""The tune split's incidents (the engine may be tuned on these; see `evals/rca/README.md`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from evals.rca import alerts
from evals.rca.kit import MINUTE, Incident, Svc, ts
from evals.rca.shop import SHOP_CATALOG, ramp, shop_fleet


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


def healthy(inc: Incident, *names: str) -> None:
    """Healthy RED metrics for ``names``."""
    for name in names:
        inc.red(name)


def t02_shared_lib_timeout() -> Incident:
    now = ts("2026-03-11T13:50")
    inc = Incident(
        "t02-shared-lib-timeout",
        "Payment authorization success rate below 97%",
        """The platform team tightened the default timeouts of the shared HTTP client library
        platform-http (connect and read 0.25 s, "fail fast"). payments-api picked the new
        library version up in its 13:05 deploy through a dependency bump; its calls to the card
        processor Paylane, whose p99 is around 650 ms, began timing out at once. The same
        library went out with an orders-api deploy later, harmlessly (its calls take tens of
        milliseconds). A 3-D Secure flag was flipped on payments-api minutes before the deploy;
        the knowledge catalog holds an old, resolved Paylane status notice.""",
        now,
        shop_fleet(),
        seed=102,
    )
    inc.catalog(
        {
            **SHOP_CATALOG,
            "platform-http": "shared Python HTTP client library (team Platform), used by every service; released as a package",
        }
    )
    inc.doc(
        "Paylane status: Resolved - Elevated latency for EU card authorizations",
        """Paylane status page (status.paylane.example)
Incident: Elevated latency for EU card authorizations
Mar 9, 2026 07:40 UTC - Investigating: some merchants see authorization latency above 3s.
Mar 9, 2026 08:55 UTC - Resolved: a database failover in our EU region is complete; latencies are back to normal.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-03-11T10:20"), 9)
    lib = inc.commit(
        ts("2026-03-11T10:41"),
        "platform-http",
        "Fail fast by default: 250 ms connect/read timeouts (callers can override)",
        [
            (
                "platform_http/client.py",
                """DEFAULT_TIMEOUT = httpx.Timeout(connect=2.0, read=10.0, write=10.0, pool=5.0)


def make_client(base_url: str, **kwargs: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=base_url, timeout=kwargs.pop("timeout", DEFAULT_TIMEOUT), **kwargs)""",
                """# Fail fast: a slow dependency should not hold our workers. Override per client if needed.
DEFAULT_TIMEOUT = httpx.Timeout(connect=0.25, read=0.25, write=1.0, pool=0.25)


def make_client(base_url: str, **kwargs: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=base_url, timeout=kwargs.pop("timeout", DEFAULT_TIMEOUT), **kwargs)""",
                18,
            ),
            (
                "CHANGELOG.md",
                "## 4.11.3\n- Retry idempotent GETs once",
                "## 4.12.0\n- Default timeouts are now 250 ms (fail fast)\n\n## 4.11.3\n- Retry idempotent GETs once",
                1,
            ),
        ],
        author="dmitri.v",
        deploy_with="library",
    )
    bump = inc.commit(
        ts("2026-03-11T12:36"),
        "payments-api",
        "Bump platform-http to 4.12.0",
        [
            (
                "requirements.txt",
                "orjson==3.10.3\nplatform-http==4.11.3\npydantic==2.7.1",
                "orjson==3.10.3\nplatform-http==4.12.0\npydantic==2.7.1",
                14,
            )
        ],
        author="renovate[bot]",
    )
    receipts = inc.commit(
        ts("2026-03-11T12:44"),
        "payments-api",
        "Receipts: show refund reason",
        [
            (
                "payments_api/receipts/render.py",
                '    lines.append(f"Refund {refund.amount}")',
                "    lines.append(f\"Refund {refund.amount} ({refund.reason or 'no reason given'})\")",
                61,
            )
        ],
        author="anna.berg",
    )
    flag = inc.flag(
        ts("2026-03-11T12:58"),
        "payments-api",
        "payments.3ds2_frictionless",
        "enabled: false",
        "enabled: true\nrollout: 100\nregions: [EU]",
        "Enable 3-D Secure 2 frictionless flow for EU cards",
        author="li.wei",
    )
    onset = ts("2026-03-11T13:05")
    inc.onset = onset
    dep = inc.deploy(onset, "payments-api", ships=[bump, receipts, lib])
    inc.background(ts("2026-03-11T13:10"), ts("2026-03-11T13:30"), 2, ["search-api", "cart-svc"])
    obump = inc.commit(
        ts("2026-03-11T13:28"),
        "orders-api",
        "Bump platform-http to 4.12.0",
        [("requirements.txt", "platform-http==4.11.3", "platform-http==4.12.0", 11)],
        author="renovate[bot]",
    )
    odep = inc.deploy(ts("2026-03-11T13:36"), "orders-api", ships=[obump, lib])
    alert_at = ts("2026-03-11T13:24")
    inc.burst(
        "payments-api",
        onset + 0.5 * MINUTE,
        now,
        4,
        lambda r, t: (
            "ERROR",
            "httpx.ReadTimeout: timed out (read timeout 0.25s) POST https://api.paylane.example/v2/authorizations",
            {
                "exception": "httpx.ReadTimeout",
                "upstream": "paylane",
                "payment_id": f"pay_{r.getrandbits(32):08x}",
            },
        ),
    )
    inc.burst(
        "payments-api",
        onset + MINUTE,
        now,
        1,
        lambda r, t: (
            "WARNING",
            "authorization declined locally after upstream timeout; customer asked to retry",
            {"reason": "upstream_timeout"},
        ),
    )
    inc.burst(
        "checkout-web",
        onset + MINUTE,
        now,
        1.5,
        lambda r, t: (
            "ERROR",
            "payment authorization failed: payments-api returned 502 (upstream_timeout)",
            {"upstream": "payments-api", "status": 502},
        ),
    )
    inc.red(
        "payments-api",
        err=lambda t, v: v + (0.11 if t >= onset else 0),
        p99=lambda t, v: 262 if t >= onset else v,
    )
    inc.metric(
        "upstream_request_duration_p99_ms",
        "payments-api",
        lambda t: 250 if t >= onset else 640,
        labels={"upstream": "paylane"},
        jitter=0.06,
        digits=0,
    )
    inc.metric(
        "upstream_timeouts_per_minute",
        "payments-api",
        lambda t: 240 if t >= onset else 0.2,
        labels={"upstream": "paylane"},
        jitter=0.1,
        digits=1,
    )
    inc.red("checkout-web", err=lambda t, v: v + (0.03 if t >= onset else 0))
    xc = inc.commit(
        ts("2026-03-11T12:58"),
        "cart-svc",
        "Cart: log cart size on checkout handoff",
        [
            (
                "cart_svc/handoff.py",
                '    log.info("handoff", cart_id=cart.id)',
                '    log.info("handoff", cart_id=cart.id, items=len(cart.items))',
                20,
            )
        ],
        author="sam.ortiz",
        cid="5e1c0a7d42",
    )
    xd = inc.deploy(ts("2026-03-11T13:15"), "cart-svc", ships=[xc])
    healthy(inc, "orders-api", "cart-svc", "inventory-svc", "search-api")
    inc.alert = alerts.datadog(
        "Payment authorization success rate below 97%",
        "payments-api",
        alert_at,
        "critical",
        "sum:payments.authorizations.success{env:prod} / sum:payments.authorizations.total{env:prod}",
        0.883,
        0.97,
        ["team:payments"],
    )
    inc.truth = {
        "verdict": "change",
        "change_id": lib,
        "accept": [dep, bump],
        "service": "payments-api",
        "external_cause": None,
        "decoys": [flag, receipts, xc, xd, odep, obump],
    }
    return inc


def t03_paylane_outage() -> Incident:
    now = ts("2026-04-17T19:10")
    inc = Incident(
        "t03-paylane-outage",
        "payments-api: authorization errors",
        """Paylane, the card processor, has an outage: its API answers 503 to authorizations from
        18:41. payments-api and, through it, checkout-web fail. Paylane posts a status notice at
        18:52. payments-api was deployed eight minutes before the onset (a receipts PDF refactor),
        cart-svc's config changed at 18:38, and a retry change for the Paylane client was
        committed at 18:58, after the onset. No change explains the failure.""",
        now,
        shop_fleet(),
        seed=103,
    )
    inc.catalog(SHOP_CATALOG)
    onset, alert_at = ts("2026-04-17T18:41"), ts("2026-04-17T18:49")
    inc.onset = onset
    inc.doc(
        "Paylane status: Investigating - Card authorizations failing",
        """Paylane status page (status.paylane.example)
Incident: Card authorizations failing for some merchants
Apr 17, 2026 18:52 UTC - Investigating: we are seeing elevated 503 errors on POST /v2/authorizations in all regions. Captures and refunds are not affected.
Apr 17, 2026 19:04 UTC - Identified: a faulty load balancer configuration in our API tier. Mitigation in progress.""",
    )
    inc.doc(
        "Runbook: card processor errors",
        """If payments-api logs PaylaneAPIError with 5xx for many merchants' cards at once, check
status.paylane.example. When Paylane is down, enable the `payments.queue_authorizations` flag
to hold checkouts for up to 30 minutes instead of failing them.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-04-17T17:40"), 14)
    rc = inc.commit(
        ts("2026-04-17T18:12"),
        "payments-api",
        "Receipts: render PDFs with weasyprint templates",
        [
            (
                "payments_api/receipts/pdf.py",
                "def render_pdf(receipt):\n    return reportlab_render(receipt)",
                'def render_pdf(receipt):\n    html = TEMPLATES.get_template("receipt.html").render(receipt=receipt)\n    return weasyprint.HTML(string=html).write_pdf()',
                30,
            ),
            (
                "payments_api/receipts/templates/receipt.html",
                "",
                "<h1>Receipt {{ receipt.number }}</h1>\n<p>Total: {{ receipt.total }}</p>",
                1,
            ),
        ],
        author="anna.berg",
    )
    dep = inc.deploy(ts("2026-04-17T18:33"), "payments-api")
    cfg = inc.config(
        ts("2026-04-17T18:38"),
        "cart-svc",
        "cart-svc: cart TTL 7d -> 14d",
        "cart-svc/values-prod.yaml",
        "cart:\n  ttl_days: 7\n  max_items: 100",
        "cart:\n  ttl_days: 14\n  max_items: 100",
        line=9,
    )
    late = inc.commit(
        ts("2026-04-17T18:58"),
        "payments-api",
        "Paylane client: retry 503 with backoff (3 attempts)",
        [
            (
                "payments_api/paylane/client.py",
                '    resp = await self.http.post("/v2/authorizations", json=body)\n    resp.raise_for_status()',
                '    for attempt in range(3):\n        resp = await self.http.post("/v2/authorizations", json=body)\n        if resp.status_code != 503:\n            break\n        await asyncio.sleep(0.2 * 2 ** attempt)\n    resp.raise_for_status()',
                77,
            )
        ],
        author="sam.ortiz",
    )
    inc.burst(
        "payments-api",
        onset,
        now,
        6,
        lambda r, t: (
            "ERROR",
            f"PaylaneAPIError: 503 Service Unavailable from POST https://api.paylane.example/v2/authorizations (request_id=req_{r.getrandbits(40):010x})",
            {"exception": "PaylaneAPIError", "status": 503, "upstream": "paylane"},
        ),
    )
    inc.burst(
        "checkout-web",
        onset + MINUTE,
        now,
        3,
        lambda r, t: (
            "ERROR",
            "payment authorization failed: payments-api returned 502 (processor_unavailable)",
            {"upstream": "payments-api", "status": 502},
        ),
    )
    inc.red(
        "payments-api",
        err=lambda t, v: v + (0.62 if t >= onset else 0),
        p99=lambda t, v: 1300 if t >= onset else v,
    )
    inc.metric(
        "upstream_errors_per_minute",
        "payments-api",
        lambda t: 380 if t >= onset else 0.3,
        labels={"upstream": "paylane", "code": "503"},
        jitter=0.1,
        digits=1,
    )
    inc.red("checkout-web", err=lambda t, v: v + (0.2 if t >= onset else 0))
    healthy(inc, "orders-api", "cart-svc", "inventory-svc", "search-api")
    inc.alert = alerts.alertmanager(
        "PaymentsAuthErrors",
        "payments-api",
        alert_at,
        "critical",
        "payments-api: authorization errors",
        "payments-api authorization error ratio 61% (threshold 5%)",
        'sum(rate(payments_authorizations_total{result="error"}[5m])) / sum(rate(payments_authorizations_total[5m])) > 0.05',
        team="payments",
    )
    inc.truth = {
        "verdict": "external",
        "change_id": None,
        "accept": [],
        "service": "payments-api",
        "external_cause": "payment provider outage (Paylane)",
        "decoys": [rc, dep, cfg, late],
    }
    return inc


def t04_rerank_flag() -> Incident:
    now = ts("2026-05-06T16:40")
    inc = Incident(
        "t04-rerank-flag",
        "search-api p99 latency above 1s",
        """The search team rolled the semantic re-ranking flag from 10% to 100% of queries at
        16:02. Every query now runs the re-ranking model in-process; search-api's CPU saturates,
        its worker pool queues and p99 latency goes from about 120 ms to over two seconds. A
        search-api deploy at 15:55 only changed analytics event names; an inventory config
        change landed at 15:58.""",
        now,
        shop_fleet(),
        seed=104,
    )
    inc.catalog(SHOP_CATALOG)
    inc.doc(
        "Runbook: search-api latency",
        """search-api p99 should stay under 300 ms. Check cpu_utilization and
worker_pool_busy. Semantic re-ranking (flag `search.semantic_rerank`) costs ~40 ms CPU per query; it was
sized for 10% of traffic.""",
    )
    onset, alert_at = ts("2026-05-06T16:02"), ts("2026-05-06T16:11")
    inc.onset = onset
    inc.noise()
    inc.background(inc.begin, ts("2026-05-06T15:20"), 13)
    an = inc.commit(
        ts("2026-05-06T15:37"),
        "search-api",
        "Analytics: rename search_result_click event",
        [
            (
                "search_api/analytics/events.py",
                'CLICK = "search_result_click"',
                'CLICK = "search.result.clicked"',
                12,
            )
        ],
        author="priya.raman",
    )
    dep = inc.deploy(ts("2026-05-06T15:55"), "search-api")
    cfg = inc.config(
        ts("2026-05-06T15:58"),
        "inventory-svc",
        "inventory-svc: reservation hold 10m -> 15m",
        "inventory-svc/values-prod.yaml",
        "reservations:\n  hold_minutes: 10",
        "reservations:\n  hold_minutes: 15",
        line=31,
    )
    guilty = inc.flag(
        onset,
        "search-api",
        "search.semantic_rerank",
        "enabled: true\nrollout: 10",
        "enabled: true\nrollout: 100",
        "Semantic rerank: ramp to 100% after good A/B results",
        author="hana.sato",
    )
    inc.burst(
        "search-api",
        onset + MINUTE,
        now,
        3,
        lambda r, t: (
            "WARNING",
            f"worker pool saturated: 64/64 busy, queue depth {r.randint(120, 480)}",
            {"pool": "query-workers"},
        ),
    )
    inc.burst(
        "search-api",
        onset + 3 * MINUTE,
        now,
        2.5,
        lambda r, t: (
            "ERROR",
            "concurrent.futures.TimeoutError: rerank stage exceeded 2000ms budget for /search",
            {"exception": "TimeoutError", "stage": "semantic_rerank"},
        ),
    )
    inc.burst(
        "checkout-web",
        onset + 5 * MINUTE,
        now,
        0.4,
        lambda r, t: (
            "WARNING",
            "recommendations widget skipped: search-api /suggest timed out after 1500ms",
            {"upstream": "search-api"},
        ),
    )
    inc.red(
        "search-api",
        p99=lambda t, v: 2300 if t >= onset else v,
        err=lambda t, v: v + (0.04 if t >= onset else 0),
    )
    inc.metric("cpu_utilization", "search-api", lambda t: 0.97 if t >= onset else 0.46, jitter=0.03)
    inc.metric(
        "rerank_requests_per_second",
        "search-api",
        lambda t: 205 if t >= onset else 21,
        digits=1,
    )
    healthy(inc, "checkout-web", "orders-api", "cart-svc", "inventory-svc", "payments-api")
    inc.alert = alerts.grafana(
        "search-api p99 latency above 1s",
        "search-api",
        alert_at,
        "warning",
        "Search latency",
        "p99=2.31s",
        team="discovery",
    )
    inc.truth = {
        "verdict": "change",
        "change_id": guilty,
        "accept": [],
        "service": "search-api",
        "external_cause": None,
        "decoys": [an, dep, cfg],
    }
    return inc


def logistics_fleet() -> list[Svc]:
    return [
        Svc(
            "shipping-svc",
            "api",
            ("/shipments", "/labels", "/rates"),
            rps=30,
            p99=900,
            noun="shipment",
        ),
        Svc("warehouse-api", "api", ("/picks", "/bins/{id}"), rps=45, p99=80, noun="pick"),
        Svc(
            "tracking-worker",
            "worker",
            topic="tracking.events.v2",
            rps=60,
            p99=300,
            noun="tracking",
        ),
        Svc("orders-api", "api", ("/orders", "/orders/{id}"), rps=50, p99=140, noun="order"),
        Svc(
            "notifications-worker",
            "worker",
            topic="notifications.v1",
            rps=12,
            p99=900,
            noun="notification",
        ),
        Svc("label-printer-gw", "api", ("/print",), rps=8, p99=200, noun="label"),
    ]


LOGISTICS_CATALOG = {
    "shipping-svc": "shipments, rates and labels (team Fulfilment); calls the carrier API CarrierLink (api.carrierlink.example) over TLS",
    "warehouse-api": "pick lists and bins (team Fulfilment); PostgreSQL wh-db",
    "tracking-worker": "consumes tracking.events.v2 from carriers (team Fulfilment)",
    "orders-api": "orders (team Commerce); calls shipping-svc for rates",
    "notifications-worker": "customer e-mail and push (team Growth)",
    "label-printer-gw": "gateway to warehouse label printers (team Fulfilment); calls shipping-svc",
}


def t05_carrier_cert_expired() -> Incident:
    now = ts("2026-05-31T00:35")
    inc = Incident(
        "t05-carrier-cert-expired",
        "Shipping label creation failing",
        """At midnight UTC the TLS certificate of the carrier's API (api.carrierlink.example)
        expired. Every call shipping-svc makes to CarrierLink fails certificate verification;
        label creation and rate quotes fail, and warehouse label printers sit idle. A
        shipping-svc deploy at 23:52 only changed the PDF layout of labels. At 00:20 an engineer
        committed a CA-bundle pin for the CarrierLink client, after the onset; it changes
        nothing. No change of ours explains it.""",
        now,
        logistics_fleet(),
        seed=105,
    )
    inc.catalog(LOGISTICS_CATALOG)
    inc.doc(
        "Runbook: carrier API failures",
        """shipping-svc depends on CarrierLink. For HTTP 5xx from CarrierLink check
status.carrierlink.example. For TLS errors, inspect the certificate the carrier presents
(`openssl s_client -connect api.carrierlink.example:443`); certificate problems on the carrier side must
be fixed by CarrierLink (support: +1 555 0100).""",
    )
    onset, alert_at = ts("2026-05-31T00:00"), ts("2026-05-31T00:12")
    inc.onset = onset
    inc.noise(every=11)
    inc.background(inc.begin, ts("2026-05-30T23:00"), 7)
    pdf = inc.commit(
        ts("2026-05-30T23:31"),
        "shipping-svc",
        "Labels: 4x6 PDF layout with larger barcode",
        [
            (
                "shipping_svc/labels/pdf.py",
                "BARCODE_HEIGHT_MM = 18\nPAGE = (102, 152)",
                "BARCODE_HEIGHT_MM = 24\nPAGE = (102, 152)",
                9,
            )
        ],
        author="kofi.mensah",
    )
    dep = inc.deploy(ts("2026-05-30T23:52"), "shipping-svc")
    late = inc.commit(
        ts("2026-05-31T00:20"),
        "shipping-svc",
        "CarrierLink client: pin CA bundle to certifi",
        [
            (
                "shipping_svc/carrierlink/client.py",
                "client = httpx.AsyncClient(base_url=BASE_URL)",
                "client = httpx.AsyncClient(base_url=BASE_URL, verify=certifi.where())",
                22,
            )
        ],
        author="oliver.grant",
    )
    msg = (
        "ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: "
        "certificate has expired (_ssl.c:1006) connecting to api.carrierlink.example:443"
    )
    inc.burst(
        "shipping-svc",
        onset + 0.2 * MINUTE,
        now,
        5,
        lambda r, t: (
            "ERROR",
            msg,
            {
                "exception": "ssl.SSLCertVerificationError",
                "host": "api.carrierlink.example",
                "path": r.choice(["/labels", "/rates"]),
            },
        ),
    )
    inc.burst(
        "label-printer-gw",
        onset + MINUTE,
        now,
        1,
        lambda r, t: (
            "ERROR",
            "print job failed: shipping-svc POST /labels returned 502",
            {"upstream": "shipping-svc", "status": 502},
        ),
    )
    inc.burst(
        "orders-api",
        onset + MINUTE,
        now,
        0.8,
        lambda r, t: (
            "WARNING",
            "shipping rate quote unavailable (shipping-svc 502); using flat rate",
            {"upstream": "shipping-svc"},
        ),
    )
    inc.red(
        "shipping-svc",
        err=lambda t, v: v + (0.93 if t >= onset else 0),
        p99=lambda t, v: 120 if t >= onset else v,
    )
    inc.metric(
        "tls_handshake_failures_per_minute",
        "shipping-svc",
        lambda t: 300 if t >= onset else 0,
        labels={"host": "api.carrierlink.example"},
        jitter=0.1,
        digits=0,
    )
    inc.red("label-printer-gw", err=lambda t, v: v + (0.9 if t >= onset else 0))
    healthy(inc, "warehouse-api", "tracking-worker", "orders-api")
    inc.alert = alerts.generic(
        "Shipping label creation failing",
        "shipping-svc",
        alert_at,
        "high",
        {
            "check": "labels_created_5m < 10",
            "value": 0,
            "runbook": "https://wiki.example.com/runbooks/carrier-api",
            "source": "synthetic-monitor",
        },
    )
    inc.truth = {
        "verdict": "external",
        "change_id": None,
        "accept": [],
        "service": "shipping-svc",
        "external_cause": "expired certificate (CarrierLink API)",
        "decoys": [pdf, dep, late],
    }
    return inc


def t06_strict_quantity_parse() -> Incident:
    now = ts("2026-06-09T11:55")
    inc = Incident(
        "t06-strict-quantity-parse",
        "Order reservation failures elevated",
        """A cleanup of inventory-svc's supplier stock-feed parser made quantity parsing strict:
        non-numeric quantities ("N/A"), which the old code skipped, now raise. It was deployed at
        09:41, but the feed import only runs every two hours, so nothing failed until the 11:00
        run aborted and stock stopped being replenished; orders-api then fails reservations for
        restocked items. A decoy inventory-svc deploy at 10:56 only touched a dashboard and the
        README; on-call rolled it back at 11:24, which changed nothing (the rollback target still
        carries the parser change).""",
        now,
        shop_fleet(),
        seed=106,
        start=ts("2026-06-09T04:30"),
    )
    inc.catalog(
        {
            **SHOP_CATALOG,
            "inventory-svc": "stock levels and reservations (team Fulfilment); PostgreSQL inventory-db; imports supplier stock feeds every two hours (job stock-feed-import)",
        }
    )
    onset, alert_at = ts("2026-06-09T11:00"), ts("2026-06-09T11:33")
    inc.onset = onset
    inc.noise()
    inc.background(inc.begin, ts("2026-06-09T08:50"), 12)
    for h in (5, 7, 9):
        t0 = ts(f"2026-06-09T{h:02d}:00")
        inc.log(
            t0,
            "inventory-svc",
            "INFO",
            "stock-feed import started: supplier=northwind rows=18234",
            job="stock-feed-import",
        )
        inc.log(
            t0 + 4 * MINUTE,
            "inventory-svc",
            "INFO",
            f"skipping non-numeric quantity 'N/A' ({31 + h} rows)",
            job="stock-feed-import",
        )
        inc.log(
            t0 + 7 * MINUTE,
            "inventory-svc",
            "INFO",
            "stock-feed import finished: supplier=northwind updated=18190 skipped=44",
            job="stock-feed-import",
        )
    guilty = inc.commit(
        ts("2026-06-09T09:18"),
        "inventory-svc",
        "Stock feed: parse quantities exactly, reject malformed values",
        [
            (
                "inventory_svc/feeds/parse.py",
                """def parse_quantity(raw: str) -> int | None:
    try:
        return int(Decimal(raw.strip()))
    except InvalidOperation:
        log.info("skipping non-numeric quantity %r", raw)
        return None""",
                """def parse_quantity(raw: str) -> int:
    # Quantities must be exact: reject fractional or malformed values instead of guessing.
    value = Decimal(raw.strip())
    if value != value.to_integral_value():
        raise ValueError(f"fractional quantity {raw!r}")
    return int(value)""",
                40,
            ),
            (
                "inventory_svc/feeds/importer.py",
                '        qty = parse_quantity(row["qty"])\n        if qty is None:\n            skipped += 1\n            continue',
                '        qty = parse_quantity(row["qty"])',
                112,
            ),
        ],
        author="j.okafor",
    )
    gdep = inc.deploy(ts("2026-06-09T09:41"), "inventory-svc")
    inc.background(
        ts("2026-06-09T09:50"),
        ts("2026-06-09T10:30"),
        4,
        ["search-api", "cart-svc", "checkout-web", "payments-api"],
    )
    dash = inc.commit(
        ts("2026-06-09T10:44"),
        "inventory-svc",
        "Dashboards: add reservation hold panel; README links",
        [
            (
                "dashboards/inventory.json",
                '  "panels": [\n    {"title": "Stock updates"}',
                '  "panels": [\n    {"title": "Stock updates"},\n    {"title": "Reservation holds"}',
                3,
            ),
            (
                "README.md",
                "## Dashboards",
                "## Dashboards\n\nSee grafana.example.com/d/inventory.",
                30,
            ),
        ],
        author="maria.keller",
    )
    ddep = inc.deploy(ts("2026-06-09T10:56"), "inventory-svc")
    rollback = inc.deploy(
        ts("2026-06-09T11:24"),
        "inventory-svc",
        ships=[],
        summary="Rollback inventory-svc to the previous release (incident INC-4471)",
        author="oliver.grant",
        did="rollback-inventory-svc-20260609-1124",
    )
    inc.log(
        onset,
        "inventory-svc",
        "INFO",
        "stock-feed import started: supplier=northwind rows=18251",
        job="stock-feed-import",
    )
    retries = ("11:00", "11:10", "11:20", "11:30", "11:40", "11:50")
    for k, hm in enumerate(retries):
        t0 = ts(f"2026-06-09T{hm}")
        if k:
            inc.log(
                t0,
                "inventory-svc",
                "INFO",
                f"stock-feed import retry {k}/10: supplier=northwind",
                job="stock-feed-import",
            )
        inc.log(
            t0 + 0.6 * MINUTE,
            "inventory-svc",
            "ERROR",
            "stock-feed import aborted: decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>] "
            "parsing quantity 'N/A' (row 4471, supplier=northwind); transaction rolled back",
            job="stock-feed-import",
            exception="decimal.InvalidOperation",
        )
    inc.burst(
        "orders-api",
        onset + 6 * MINUTE,
        now,
        lambda f: 0.5 + 5 * f,
        lambda r, t: (
            "ERROR",
            f"reservation failed: InsufficientStock sku=SKU-{r.randint(10000, 99999)} requested={r.randint(1, 3)} available=0",
            {"exception": "InsufficientStock", "upstream": "inventory-svc"},
        ),
    )
    imports = [ts(f"2026-06-09T{h:02d}:07") for h in (3, 5, 7, 9)]

    def staleness(t: datetime) -> float:
        """Seconds since the last successful import (the 11:00 one never finishes)."""
        return (t - max(x for x in imports if x <= t)).total_seconds()

    inc.metric(
        "stock_feed_staleness_seconds",
        "inventory-svc",
        staleness,
        labels={"supplier": "northwind"},
        jitter=0.0,
        digits=0,
    )
    inc.red(
        "orders-api",
        err=lambda t, v: (
            v
            + (0.0 if t < onset + 6 * MINUTE else 0.06 * min(1, (t - onset).total_seconds() / 3000))
        ),
    )
    healthy(inc, "inventory-svc", "checkout-web", "cart-svc", "payments-api", "search-api")
    inc.alert = alerts.alertmanager(
        "ReservationFailures",
        "orders-api",
        alert_at,
        "warning",
        "Order reservation failures elevated",
        "orders-api reservation failure ratio 4.2% (threshold 2%)",
        "sum(rate(orders_reservations_failed_total[10m])) / sum(rate(orders_reservations_total[10m])) > 0.02",
        team="commerce",
    )
    inc.truth = {
        "verdict": "change",
        "change_id": guilty,
        "accept": [gdep],
        "service": "inventory-svc",
        "external_cause": None,
        "decoys": [dash, ddep, rollback],
    }
    return inc


def t07_flash_sale_surge() -> Incident:
    now = ts("2026-04-02T18:35")
    inc = Incident(
        "t07-flash-sale-surge",
        "cart-svc 503 rate high",
        """Marketing's flash-sale e-mail went to 2.1 million subscribers at 18:00. Requests to
        cart-svc, search-api and checkout-web jump fivefold within minutes; cart-svc hits its
        concurrency limit and sheds load with 503s. A cart-svc deploy at 17:51 added a gift-wrap
        field; search-api's query cache was resized at 17:45; the HPA limit was raised at 18:20
        during the response. No change explains it: it is a traffic surge.""",
        now,
        shop_fleet(),
        seed=107,
    )
    inc.catalog(SHOP_CATALOG)
    inc.doc(
        "Marketing calendar: April campaigns",
        """| date | time (UTC) | campaign | audience |
|---|---|---|---|
| 2026-04-02 | 18:00 | Spring flash sale e-mail, code FLASH40 | 2.1M subscribers |
| 2026-04-09 | 09:00 | App push: new arrivals | 600k devices |
Expected peak: 3x normal traffic for 45 minutes after an e-mail send.""",
    )
    onset, alert_at = ts("2026-04-02T18:02"), ts("2026-04-02T18:09")
    inc.onset = onset
    inc.noise()
    inc.background(inc.begin, ts("2026-04-02T17:10"), 15)
    gift = inc.commit(
        ts("2026-04-02T17:33"),
        "cart-svc",
        "Cart items: gift_wrap option",
        [
            (
                "cart_svc/serializers.py",
                "    quantity: int\n    price_minor: int",
                "    quantity: int\n    price_minor: int\n    gift_wrap: bool = False",
                27,
            )
        ],
        author="sam.ortiz",
    )
    dep = inc.deploy(ts("2026-04-02T17:51"), "cart-svc")
    cfg = inc.config(
        ts("2026-04-02T17:45"),
        "search-api",
        "search-api: query cache 256MB -> 512MB",
        "search-api/values-prod.yaml",
        "cache:\n  query_cache_mb: 256",
        "cache:\n  query_cache_mb: 512",
        line=14,
    )
    late = inc.config(
        ts("2026-04-02T18:20"),
        "cart-svc",
        "cart-svc: HPA maxReplicas 12 -> 30",
        "cart-svc/hpa-prod.yaml",
        "maxReplicas: 12",
        "maxReplicas: 30",
        author="oliver.grant",
        line=8,
    )
    surge = ramp(onset, onset + 6 * MINUTE, 4.0)
    inc.burst(
        "cart-svc",
        onset + 4 * MINUTE,
        now,
        8,
        lambda r, t: (
            "WARNING",
            "rejecting request: concurrency limit 512 reached (503)",
            {"status": 503, "limiter": "adaptive"},
        ),
    )
    inc.burst(
        "checkout-web",
        onset + 5 * MINUTE,
        now,
        2,
        lambda r, t: (
            "ERROR",
            "cart-svc GET /carts/{id} returned 503 Service Unavailable",
            {"upstream": "cart-svc", "status": 503},
        ),
    )
    inc.burst(
        "search-api",
        onset + 3 * MINUTE,
        now,
        1,
        lambda r, t: ("WARNING", f"slow request GET /search took {r.randint(900, 2400)}ms", {}),
    )
    for name in ("cart-svc", "search-api", "checkout-web"):
        inc.red(
            name,
            rps=lambda t, v: v * (1 + surge(t)),
            err=(lambda t, v: v + (0.14 if t >= onset + 4 * MINUTE else 0))
            if name == "cart-svc"
            else None,
            p99=lambda t, v: v * (1 + surge(t) * 0.8),
        )
    inc.metric("cpu_utilization", "cart-svc", lambda t: 0.35 + 0.15 * surge(t))
    inc.metric(
        "email_clicks_per_minute",
        "marketing-site",
        lambda t: 40 if t < ts("2026-04-02T18:00") else 9000,
        labels={"campaign": "FLASH40"},
        digits=0,
    )
    healthy(inc, "orders-api", "payments-api", "inventory-svc")
    inc.alert = alerts.alertmanager(
        "CartServiceUnavailable",
        "cart-svc",
        alert_at,
        "critical",
        "cart-svc 503 rate high",
        "cart-svc is returning 503 for 13% of requests",
        'sum(rate(http_requests_total{service="cart-svc",code="503"}[5m])) / sum(rate(http_requests_total{service="cart-svc"}[5m])) > 0.05',
        team="commerce",
    )
    inc.truth = {
        "verdict": "external",
        "change_id": None,
        "accept": [],
        "service": "cart-svc",
        "external_cause": "traffic surge (flash-sale e-mail)",
        "decoys": [gift, dep, cfg, late],
    }
    return inc


def media_fleet() -> list[Svc]:
    return [
        Svc(
            "edge-proxy",
            "api",
            ("/v1/uploads", "/v1/feed", "/v1/profiles/{id}"),
            rps=600,
            p99=90,
            noun="request",
            pkg="edge",
        ),
        Svc(
            "media-upload",
            "api",
            ("/v1/uploads", "/v1/uploads/{id}/complete"),
            rps=35,
            p99=1800,
            noun="upload",
        ),
        Svc(
            "transcoder-worker",
            "worker",
            topic="media.transcode.v1",
            rps=20,
            p99=24000,
            noun="transcode",
        ),
        Svc("profile-api", "api", ("/v1/profiles/{id}",), rps=220, p99=70, noun="profile"),
        Svc("feed-api", "api", ("/v1/feed",), rps=310, p99=160, noun="feed"),
        Svc(
            "notifications-worker",
            "worker",
            topic="notifications.v1",
            rps=25,
            p99=700,
            noun="notification",
        ),
    ]


MEDIA_CATALOG = {
    "edge-proxy": "nginx ingress for all public traffic (team Platform); config in infra-config/edge-proxy",
    "media-upload": "photo and video uploads up to 50 MB (team Creator); behind edge-proxy; hands files to transcoder-worker",
    "transcoder-worker": "video transcoding (team Creator); consumes media.transcode.v1",
    "profile-api": "user profiles (team Social)",
    "feed-api": "home feed (team Social)",
    "notifications-worker": "push notifications (team Growth)",
}


def t08_body_size_limit() -> Incident:
    now = ts("2026-07-14T10:50")
    inc = Incident(
        "t08-body-size-limit",
        "Upload success rate below 95%",
        """A platform engineer "hardened" the nginx configuration of edge-proxy at 10:14,
        lowering client_max_body_size from 60m to 1m. Every photo or video upload over 1 MB is
        now rejected with 413 at the edge, before it reaches media-upload; media-upload's
        success rate alerts. media-upload itself was deployed at 10:09 (thumbnail code moved to
        the transcoder) and a transcoder flag was flipped at 10:20.""",
        now,
        media_fleet(),
        seed=108,
    )
    inc.catalog(MEDIA_CATALOG)
    onset, alert_at = ts("2026-07-14T10:15"), ts("2026-07-14T10:31")
    inc.onset = onset
    inc.noise(every=8)
    inc.background(inc.begin, ts("2026-07-14T09:30"), 16)
    thumb = inc.commit(
        ts("2026-07-14T09:52"),
        "media-upload",
        "Move thumbnail generation to transcoder-worker",
        [
            (
                "media_upload/thumbnails.py",
                "def make_thumbnail(path):\n    return pillow_thumbnail(path, (320, 320))",
                "",
                1,
            ),
            (
                "media_upload/complete.py",
                "    thumb = make_thumbnail(upload.path)\n    publish(upload, thumb)",
                "    publish(upload, thumbnail=None)  # transcoder-worker makes it now",
                54,
            ),
        ],
        author="hana.sato",
    )
    dep = inc.deploy(ts("2026-07-14T10:09"), "media-upload")
    guilty = inc.config(
        ts("2026-07-14T10:14"),
        "edge-proxy",
        "edge-proxy: harden request limits (CIS nginx benchmark 2.4)",
        "edge-proxy/nginx.conf",
        "    client_max_body_size 60m;\n    client_body_timeout 60s;\n    large_client_header_buffers 4 16k;",
        "    client_max_body_size 1m;\n    client_body_timeout 20s;\n    large_client_header_buffers 4 8k;",
        author="dmitri.v",
        line=41,
    )
    flag = inc.flag(
        ts("2026-07-14T10:20"),
        "transcoder-worker",
        "transcode.av1_output",
        "enabled: false",
        "enabled: true\nrollout: 5",
        "Try AV1 output for 5% of videos",
        author="kofi.mensah",
    )
    inc.burst(
        "edge-proxy",
        onset,
        now,
        5,
        lambda r, t: (
            "ERROR",
            f"client intended to send too large body: {r.randint(1100000, 48000000)} bytes, client: "
            f"10.{r.randint(0, 9)}.{r.randint(0, 255)}.{r.randint(1, 254)}, server: upload.example.com, "
            'request: "POST /v1/uploads HTTP/2.0"',
            {"status": 413, "upstream": "media-upload"},
        ),
    )
    inc.burst(
        "media-upload",
        onset + MINUTE,
        now,
        2,
        lambda r, t: (
            "WARNING",
            "upload session abandoned: client reported HTTP 413 from edge before any bytes arrived",
            {"reason": "client_abandoned"},
        ),
    )
    inc.red("edge-proxy", err=lambda t, v: v + (0.008 if t >= onset else 0))
    inc.metric(
        "http_responses_per_second",
        "edge-proxy",
        lambda t: 4.5 if t >= onset else 0.01,
        labels={"code": "413", "route": "/v1/uploads"},
        jitter=0.1,
        digits=2,
    )
    inc.red("media-upload", rps=lambda t, v: v * (0.3 if t >= onset else 1))
    inc.metric(
        "upload_success_ratio", "media-upload", lambda t: 0.31 if t >= onset else 0.992, jitter=0.02
    )
    healthy(inc, "transcoder-worker", "profile-api", "feed-api")
    inc.alert = alerts.datadog(
        "Upload success rate below 95%",
        "media-upload",
        alert_at,
        "high",
        "avg:media.upload.success_ratio{env:prod}",
        0.31,
        0.95,
        ["team:creator"],
    )
    inc.truth = {
        "verdict": "change",
        "change_id": guilty,
        "accept": [],
        "service": "edge-proxy",
        "external_cause": None,
        "decoys": [thumb, dep, flag],
    }
    return inc


def billing_fleet() -> list[Svc]:
    return [
        Svc(
            "billing-api",
            "api",
            ("/subscriptions", "/invoices/{id}"),
            rps=40,
            p99=120,
            noun="subscription",
        ),
        Svc(
            "invoice-worker", "worker", topic="billing.invoices.v1", rps=6, p99=800, noun="invoice"
        ),
        Svc(
            "ledger", "api", ("/postings", "/accounts/{id}/balance"), rps=60, p99=35, noun="posting"
        ),
        Svc(
            "accounts-api", "api", ("/accounts/{id}", "/sessions"), rps=150, p99=50, noun="account"
        ),
        Svc("gateway", "api", ("/v2/*",), rps=700, p99=110, noun="route"),
        Svc(
            "notifications-worker",
            "worker",
            topic="notifications.v1",
            rps=10,
            p99=700,
            noun="notification",
        ),
    ]


BILLING_CATALOG = {
    "billing-api": "subscriptions and invoices API (team Billing); monorepo billing/, one container image shared with invoice-worker (deployed together as billing-api)",
    "invoice-worker": "computes invoice totals and posts them to ledger (team Billing); built and deployed with billing-api",
    "ledger": "double-entry ledger (team Finance Eng); rejects malformed postings with 422",
    "accounts-api": "customer accounts (team Identity)",
    "gateway": "public API gateway (team Platform)",
    "notifications-worker": "e-mail (team Growth)",
}


def t09_bundled_invoice_rounding() -> Incident:
    now = ts("2026-08-03T10:30")
    inc = Incident(
        "t09-bundled-invoice-rounding",
        "ledger 4xx rejection rate high",
        """A billing engineer changed invoice-worker to compute tax per line item; the new
        expression multiplies by a float rate, so totals like 1999.0000000000002 reach the
        ledger, which rejects them. The commit belongs to invoice-worker, but invoice-worker has
        no deploy of its own: it shipped inside billing-api's 09:14 deploy (one image). The alert
        is on ledger, the service rejecting the postings; ledger itself was deployed at 09:08
        (CSV export change).""",
        now,
        billing_fleet(),
        seed=109,
    )
    inc.catalog(BILLING_CATALOG)
    onset, alert_at = ts("2026-08-03T09:16"), ts("2026-08-03T09:40")
    inc.onset = onset
    inc.noise()
    inc.background(inc.begin, ts("2026-08-03T08:20"), 12)
    guilty = inc.commit(
        ts("2026-08-03T08:47"),
        "invoice-worker",
        "Invoices: compute tax per line item (FIN-2211)",
        [
            (
                "billing/invoice_worker/totals.py",
                """def line_total_minor(line: InvoiceLine) -> int:
    return line.unit_price_minor * line.quantity + line.tax_minor""",
                """def line_total_minor(line: InvoiceLine) -> int:
    net = line.unit_price_minor * line.quantity
    # tax per line item (was: per invoice) -- FIN-2211
    return net + net * line.tax_rate""",
                23,
            )
        ],
        author="priya.raman",
        deploy_with="billing-api",
    )
    other = inc.commit(
        ts("2026-08-03T08:58"),
        "billing-api",
        "Subscriptions: expose next_renewal_at",
        [
            (
                "billing/billing_api/schemas.py",
                "    status: str",
                "    status: str\n    next_renewal_at: datetime | None",
                40,
            )
        ],
        author="anna.berg",
    )
    csv = inc.commit(
        ts("2026-08-03T08:51"),
        "ledger",
        "Audit export: quote all CSV fields",
        [
            (
                "ledger/export/csv.py",
                "writer = csv.writer(fh)",
                "writer = csv.writer(fh, quoting=csv.QUOTE_ALL)",
                17,
            )
        ],
        author="tomas.novak",
    )
    ldep = inc.deploy(ts("2026-08-03T09:08"), "ledger")
    gdep = inc.deploy(ts("2026-08-03T09:14"), "billing-api")
    inc.background(ts("2026-08-03T09:30"), ts("2026-08-03T10:20"), 3, ["gateway", "accounts-api"])
    inc.burst(
        "invoice-worker",
        onset,
        now,
        2,
        lambda r, t: (
            "ERROR",
            f"LedgerRejected: 422 Unprocessable Entity: amount_minor must be an integer, got "
            f"{r.randint(900, 9000)}.000000000000{r.randint(1, 9)} (invoice INV-{r.randint(100000, 999999)})",
            {"exception": "LedgerRejected", "upstream": "ledger", "status": 422},
        ),
    )
    inc.burst(
        "ledger",
        onset,
        now,
        2,
        lambda r, t: (
            "WARNING",
            "rejected posting from invoice-worker: amount_minor is not an integer",
            {"status": 422, "client": "invoice-worker"},
        ),
    )
    inc.red("ledger", err=lambda t, v: v + (0.035 if t >= onset else 0))
    inc.red("invoice-worker", err=lambda t, v: v + (0.4 if t >= onset else 0))
    inc.metric(
        "postings_rejected_per_minute",
        "ledger",
        lambda t: 2 if t >= onset else 0.01,
        labels={"reason": "invalid_amount"},
        digits=2,
    )
    xc = inc.commit(
        ts("2026-08-03T09:05"),
        "gateway",
        "Gateway: add request id to access log",
        [
            (
                "gateway/access_log.py",
                'FORMAT = "{method} {path} {status} {ms}ms"',
                'FORMAT = "{method} {path} {status} {ms}ms rid={request_id}"',
                20,
            )
        ],
        author="oliver.grant",
        cid="9a0e44c1f3",
    )
    xd = inc.deploy(ts("2026-08-03T09:27"), "gateway", ships=[xc])
    healthy(inc, "billing-api", "accounts-api", "gateway")
    inc.alert = alerts.alertmanager(
        "LedgerRejections",
        "ledger",
        alert_at,
        "warning",
        "ledger 4xx rejection rate high",
        "ledger rejected 118 postings in 20 minutes",
        "sum(increase(ledger_postings_rejected_total[20m])) > 50",
        team="finance-eng",
    )
    inc.truth = {
        "verdict": "change",
        "change_id": guilty,
        "accept": [gdep],
        "service": "invoice-worker",
        "external_cause": None,
        "decoys": [csv, ldep, other, xc, xd],
    }
    return inc


def t10_redis_noisy_neighbour() -> Incident:
    now = ts("2026-09-22T14:45")
    fleet = [
        *shop_fleet(),
        Svc("session-svc", "api", ("/sessions/{id}",), rps=300, p99=12, noun="session"),
    ]
    inc = Incident(
        "t10-redis-noisy-neighbour",
        "cart-svc p99 latency above 500ms",
        """The Data team's analytics-etl, a tenant of the shared Redis cluster cache-prod-2,
        starts a backfill at 14:10 that scans keys with KEYS patterns; Redis CPU pins at 100%
        and every tenant's commands time out: cart-svc and session-svc (which had no change)
        both fail. cart-svc was deployed at 14:03 with a redis-py upgrade, which looks related
        but is innocent; session-svc failing identically without any deploy shows the cause is
        shared. A noisy neighbour, not a change in the data.""",
        now,
        fleet,
        seed=110,
    )
    inc.catalog(
        {
            **SHOP_CATALOG,
            "session-svc": "login sessions (team Identity); Redis cache-prod-2",
            "cache-prod-2": "shared Redis 7 cluster (team Platform); tenants: cart-svc, session-svc, analytics-etl (team Data, batch jobs)",
        }
    )
    inc.doc(
        "Runbook: shared Redis latency",
        """When several tenants of a shared Redis cluster time out together, check redis_cpu_utilization and
the slowlog for the cluster. KEYS and large SCAN/HGETALL calls from batch tenants can block the single
Redis thread. Ask the tenant's team to stop the job; consider moving it to a replica.""",
    )
    onset, alert_at = ts("2026-09-22T14:10"), ts("2026-09-22T14:18")
    inc.onset = onset
    inc.noise()
    inc.background(inc.begin, ts("2026-09-22T13:20"), 14)
    up = inc.commit(
        ts("2026-09-22T13:41"),
        "cart-svc",
        "Upgrade redis-py 4.6.0 -> 5.0.1",
        [
            ("requirements.txt", "redis==4.6.0", "redis==5.0.1", 22),
            (
                "cart_svc/cache.py",
                "pool = redis.ConnectionPool.from_url(URL, max_connections=64)",
                "pool = redis.ConnectionPool.from_url(URL, max_connections=64, protocol=2)",
                11,
            ),
        ],
        author="sam.ortiz",
    )
    dep = inc.deploy(ts("2026-09-22T14:03"), "cart-svc")
    msg = "redis.exceptions.TimeoutError: Timeout reading from socket (cache-prod-2.internal:6379)"
    for name, rate in (("cart-svc", 4.0), ("session-svc", 5.0)):
        inc.burst(
            name,
            onset + 0.5 * MINUTE,
            now,
            rate,
            lambda r, t: (
                "ERROR",
                msg,
                {"exception": "redis.exceptions.TimeoutError", "redis": "cache-prod-2"},
            ),
        )
    inc.burst(
        "cache-prod-2",
        onset,
        now,
        1.5,
        lambda r, t: (
            "WARNING",
            f"slowlog: KEYS cart:*:{r.randint(1000, 9999)}* took {r.randint(900, 2600)}ms "
            f"(client analytics-etl 10.4.7.22:5{r.randint(1000, 9999)})",
            {"client": "analytics-etl"},
        ),
    )
    inc.burst(
        "checkout-web",
        onset + 2 * MINUTE,
        now,
        1,
        lambda r, t: (
            "ERROR",
            "cart-svc GET /carts/{id} returned 500",
            {"upstream": "cart-svc", "status": 500},
        ),
    )
    inc.red(
        "cart-svc",
        err=lambda t, v: v + (0.08 if t >= onset else 0),
        p99=lambda t, v: 1900 if t >= onset else v,
    )
    inc.red(
        "session-svc",
        err=lambda t, v: v + (0.07 if t >= onset else 0),
        p99=lambda t, v: 1500 if t >= onset else v,
    )
    inc.metric(
        "redis_cpu_utilization", "cache-prod-2", lambda t: 1.0 if t >= onset else 0.22, jitter=0.02
    )
    inc.metric(
        "redis_commands_per_second",
        "cache-prod-2",
        lambda t: 3100 if t >= onset else 48,
        labels={"client": "analytics-etl"},
        digits=0,
    )
    inc.metric(
        "redis_commands_per_second",
        "cache-prod-2",
        lambda t: 2100 if t >= onset else 9800,
        labels={"client": "cart-svc"},
        digits=0,
    )
    healthy(inc, "checkout-web", "orders-api", "payments-api", "search-api")
    inc.alert = alerts.grafana(
        "cart-svc p99 latency above 500ms",
        "cart-svc",
        alert_at,
        "critical",
        "Cart latency",
        "p99=1.87s",
        team="commerce",
    )
    inc.truth = {
        "verdict": "external",
        "change_id": None,
        "accept": [],
        "service": "cache-prod-2",
        "external_cause": "noisy neighbour (analytics-etl on shared Redis)",
        "decoys": [up, dep],
    }
    return inc


def t11_push_template_keyerror() -> Incident:
    now = ts("2026-10-05T09:55")
    inc = Incident(
        "t11-push-template-keyerror",
        "Notification send failures above 2%",
        """notifications-worker's 09:12 deploy carried several commits; one personalised the
        order-shipped push with the customer's first name, read as user["first_name"], which
        guest checkouts do not have. Sends to guests fail with KeyError from 09:13. On-call
        rolled the deploy back at 09:38 and errors stopped. Close by: a digest flag flipped at
        09:09 and an orders-api deploy at 09:05 that added a partially_shipped status.""",
        now,
        shop_fleet(),
        seed=111,
        start=ts("2026-10-05T03:30"),
    )
    inc.catalog(SHOP_CATALOG)
    onset, alert_at, back = ts("2026-10-05T09:13"), ts("2026-10-05T09:25"), ts("2026-10-05T09:38")
    inc.onset = onset
    inc.noise()
    inc.background(inc.begin, ts("2026-10-05T08:15"), 12)
    inc.background(ts("2026-10-05T08:20"), ts("2026-10-05T08:30"), 2, ["notifications-worker"])
    status = inc.commit(
        ts("2026-10-05T08:41"),
        "orders-api",
        "Order status: add partially_shipped",
        [
            (
                "orders_api/models.py",
                'STATUSES = ("pending", "paid", "shipped", "delivered", "cancelled")',
                'STATUSES = ("pending", "paid", "partially_shipped", "shipped", "delivered", "cancelled")',
                19,
            )
        ],
        author="tomas.novak",
    )
    odep = inc.deploy(ts("2026-10-05T09:05"), "orders-api")
    guilty = inc.commit(
        ts("2026-10-05T08:52"),
        "notifications-worker",
        "Push: personalise order-shipped notification",
        [
            (
                "notifications_worker/templates/push.py",
                """ORDER_SHIPPED = "Your order {order_number} is on its way"


def render_order_shipped(event, user):
    return ORDER_SHIPPED.format(order_number=event["order_number"])""",
                """ORDER_SHIPPED = "{first_name}, your order {order_number} is on its way"


def render_order_shipped(event, user):
    return ORDER_SHIPPED.format(first_name=user["first_name"], order_number=event["order_number"])""",
                8,
            )
        ],
        author="kofi.mensah",
    )
    flag = inc.flag(
        ts("2026-10-05T09:09"),
        "notifications-worker",
        "notifications.digest_v2",
        "enabled: false",
        "enabled: true\nrollout: 5",
        "Weekly digest v2 for 5% of users",
        author="li.wei",
    )
    gdep = inc.deploy(ts("2026-10-05T09:12"), "notifications-worker")
    rb = inc.deploy(
        back,
        "notifications-worker",
        ships=[],
        summary="Rollback notifications-worker to the previous release",
        author="maria.keller",
        did="rollback-notifications-worker-20261005-0938",
    )
    inc.burst(
        "notifications-worker",
        onset,
        back + 0.5 * MINUTE,
        3,
        lambda r, t: (
            "ERROR",
            "KeyError: 'first_name' in render_order_shipped (notifications_worker/templates/push.py:12); "
            "dropping push for guest user",
            {"exception": "KeyError", "template": "order_shipped", "user_type": "guest"},
        ),
    )
    inc.red("notifications-worker", err=lambda t, v: v + (0.09 if onset <= t < back else 0))
    inc.metric(
        "push_sent_per_minute",
        "notifications-worker",
        lambda t: 380 if onset <= t < back else 420,
        labels={"template": "order_shipped"},
        digits=0,
    )
    xc = inc.commit(
        ts("2026-10-05T08:59"),
        "checkout-web",
        "Checkout: lazy-load payment method icons",
        [
            (
                "checkout_web/templates/payment_methods.html",
                '<img src="{{ icon }}">',
                '<img src="{{ icon }}" loading="lazy">',
                20,
            )
        ],
        author="hana.sato",
        cid="c4d2e8b710",
    )
    xd = inc.deploy(ts("2026-10-05T09:19"), "checkout-web", ships=[xc])
    healthy(inc, "orders-api", "checkout-web", "payments-api", "cart-svc")
    inc.alert = alerts.alertmanager(
        "NotificationSendFailures",
        "notifications-worker",
        alert_at,
        "warning",
        "Notification send failures above 2%",
        "9% of pushes failed in the last 10 minutes",
        "sum(rate(notifications_failed_total[10m])) / sum(rate(notifications_total[10m])) > 0.02",
        team="growth",
    )
    inc.truth = {
        "verdict": "change",
        "change_id": guilty,
        "accept": [gdep],
        "service": "notifications-worker",
        "external_cause": None,
        "decoys": [status, odep, flag, xc, xd, rb],
    }
    return inc


def t12_region_dns() -> Incident:
    now = ts("2026-11-02T11:40")
    inc = Incident(
        "t12-region-dns",
        "orders-api error rate above 5%",
        """The cloud provider's DNS resolvers in us-east-1 start failing at 11:04. Services that
        do not cache lookups fail to resolve their database, queue and provider hosts:
        orders-api, payments-api, notifications-worker and search-api all log name-resolution
        errors within two minutes, with no change in common. The provider's health dashboard
        confirms at 11:12. orders-api had been deployed at 10:58 (e-mail wording), search-api
        at 11:00, and a resolver-options change was committed at 11:20 during the response.""",
        now,
        shop_fleet(),
        seed=112,
    )
    inc.catalog(SHOP_CATALOG)
    inc.doc(
        "Cloud health: Increased DNS resolution errors (us-east-1)",
        """Provider health dashboard - Service: Route 53 Resolver / EC2 DNS, Region: us-east-1
11:12 AM UTC Nov 2, 2026: We are investigating increased DNS resolution error rates for instances in the US-EAST-1 region, affecting multiple availability zones.
11:31 AM UTC Nov 2, 2026: We have identified the cause and are working on mitigation. Customers using cached DNS results may be less affected.""",
    )
    onset, alert_at = ts("2026-11-02T11:04"), ts("2026-11-02T11:09")
    inc.onset = onset
    inc.noise()
    inc.background(inc.begin, ts("2026-11-02T10:20"), 16)
    mail = inc.commit(
        ts("2026-11-02T10:37"),
        "orders-api",
        "Order confirmation e-mail: clearer delivery estimate",
        [
            (
                "orders_api/emails.py",
                '    "Estimated delivery: {eta}"',
                '    "Arrives between {eta_from} and {eta_to}"',
                66,
            )
        ],
        author="anna.berg",
    )
    odep = inc.deploy(ts("2026-11-02T10:58"), "orders-api")
    syn = inc.commit(
        ts("2026-11-02T10:44"),
        "search-api",
        "Synonyms: add 'hoodie' = 'hooded sweatshirt'",
        [
            (
                "search_api/synonyms.txt",
                "jumper, sweater",
                "jumper, sweater\nhoodie, hooded sweatshirt",
                210,
            )
        ],
        author="priya.raman",
    )
    sdep = inc.deploy(ts("2026-11-02T11:00"), "search-api")
    late = inc.config(
        ts("2026-11-02T11:20"),
        "platform",
        "Pod DNS: options timeout:1 attempts:3, ndots 2",
        "platform/k8s/dns-config.yaml",
        'dnsConfig:\n  options:\n    - name: ndots\n      value: "5"',
        'dnsConfig:\n  options:\n    - name: ndots\n      value: "2"\n    - name: timeout\n      value: "1"\n    - name: attempts\n      value: "3"',
        author="oliver.grant",
        line=4,
    )
    hosts = {
        "orders-api": "orders-db.internal",
        "payments-api": "api.paylane.example",
        "notifications-worker": "sqs.us-east-1.amazonaws.com",
        "search-api": "search-prod.internal",
    }

    def resolver_error(host: str) -> Callable[[Any, datetime], tuple[str, str, dict[str, Any]]]:
        return lambda r, t: (
            "ERROR",
            f"socket.gaierror: [Errno -3] Temporary failure in name resolution ({host})",
            {"exception": "socket.gaierror", "host": host},
        )

    for i, (name, host) in enumerate(hosts.items()):
        inc.burst(name, onset + (0.3 + 0.4 * i) * MINUTE, now, 3, resolver_error(host))
    inc.burst(
        "checkout-web",
        onset + 2 * MINUTE,
        now,
        1.5,
        lambda r, t: (
            "ERROR",
            "orders-api POST /orders returned 503",
            {"upstream": "orders-api", "status": 503},
        ),
    )
    for name in hosts:
        inc.red(name, err=lambda t, v: v + (0.12 if t >= onset else 0))
    inc.metric(
        "dns_lookup_failures_per_minute",
        "node-local-dns",
        lambda t: 900 if t >= onset else 0.5,
        labels={"region": "us-east-1"},
        jitter=0.1,
        digits=0,
    )
    healthy(inc, "checkout-web", "cart-svc", "inventory-svc")
    inc.alert = alerts.alertmanager(
        "OrdersErrorRate",
        "orders-api",
        alert_at,
        "critical",
        "orders-api error rate above 5%",
        "orders-api 5xx ratio 12%",
        'sum(rate(http_requests_total{service="orders-api",code=~"5.."}[5m])) / sum(rate(http_requests_total{service="orders-api"}[5m])) > 0.05',
        team="commerce",
        region="us-east-1",
    )
    inc.truth = {
        "verdict": "external",
        "change_id": None,
        "accept": [],
        "service": "orders-api",
        "external_cause": "cloud DNS impairment (us-east-1)",
        "decoys": [mail, odep, syn, sdep, late],
    }
    return inc


TUNE: list[Callable[[], Incident]] = [
    t01_orders_pool_leak,
    t02_shared_lib_timeout,
    t03_paylane_outage,
    t04_rerank_flag,
    t05_carrier_cert_expired,
    t06_strict_quantity_parse,
    t07_flash_sale_surge,
    t08_body_size_limit,
    t09_bundled_invoice_rounding,
    t10_redis_noisy_neighbour,
    t11_push_template_keyerror,
    t12_region_dns,
]
