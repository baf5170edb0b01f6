"""The held-out split's incidents: written before any tuning and only ever scored."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from evals.rca import alerts
from evals.rca.kit import MINUTE, Incident, Svc, ts
from evals.rca.shop import SHOP_CATALOG, ramp, shop_fleet
from evals.rca.tune import (
    BILLING_CATALOG,
    LOGISTICS_CATALOG,
    MEDIA_CATALOG,
    billing_fleet,
    healthy,
    logistics_fleet,
    media_fleet,
)

Make = Callable[[Any, datetime], tuple[str, str, dict[str, Any]]]


def same(level: str, message: str, **attrs: Any) -> Make:
    return lambda r, t: (level, message, attrs)


def h01_pricing_cache_leak() -> Incident:
    now = ts("2026-02-17T16:20")
    fleet = [
        *shop_fleet(),
        Svc("pricing-svc", "api", ("/prices", "/prices/quote"), rps=160, p99=35, noun="price"),
    ]
    inc = Incident(
        "h01-pricing-cache-leak",
        "Checkout p99 latency above 2s",
        """A pricing-svc commit memoised promotion lookups in a module-level dict keyed by
        (sku, customer_segment, timestamp) with no eviction. Deployed at 10:42, its memory grows
        for five hours; from 15:35 the pods run into their 1 GiB limit, get OOMKilled and
        restart, and quotes time out while they come back. The alert is on checkout-web, which
        waits on pricing quotes. pricing-svc was deployed again at 15:50 (a currency-format
        change), a cart flag flipped at 15:40.""",
        now,
        fleet,
        seed=201,
        start=ts("2026-02-17T08:30"),
    )
    inc.catalog(
        {
            **SHOP_CATALOG,
            "checkout-web": "storefront checkout pages (team Commerce); calls cart-svc, pricing-svc, orders-api, payments-api",
            "pricing-svc": "prices, promotions and quotes (team Pricing); 4 pods, memory limit 1 GiB",
        }
    )
    leak0, onset, alert_at = ts("2026-02-17T10:42"), ts("2026-02-17T15:35"), ts("2026-02-17T16:02")
    inc.onset = leak0
    inc.noise()
    inc.background(inc.begin, ts("2026-02-17T10:00"), 8)
    guilty = inc.commit(
        ts("2026-02-17T10:18"),
        "pricing-svc",
        "Promotions: memoise eligible promotions per request context",
        [
            (
                "pricing_svc/promotions.py",
                """def eligible_promotions(sku: str, segment: str, at: datetime) -> list[Promotion]:
    return [p for p in ACTIVE.load() if p.applies(sku, segment, at)]""",
                """_MEMO: dict[tuple[str, str, datetime], list[Promotion]] = {}


def eligible_promotions(sku: str, segment: str, at: datetime) -> list[Promotion]:
    key = (sku, segment, at)
    if key not in _MEMO:
        _MEMO[key] = [p for p in ACTIVE.load() if p.applies(sku, segment, at)]
    return _MEMO[key]""",
                57,
            )
        ],
        author="dmitri.v",
    )
    gdep = inc.deploy(ts("2026-02-17T10:42"), "pricing-svc")
    inc.background(ts("2026-02-17T11:00"), ts("2026-02-17T15:00"), 12)
    fmt = inc.commit(
        ts("2026-02-17T15:31"),
        "pricing-svc",
        "Quotes: format CHF with apostrophe grouping",
        [
            (
                "pricing_svc/money.py",
                '    "CHF": "{:,.2f}",',
                '    "CHF": "{:,.2f}".replace(\',\', "\'"),',
                14,
            )
        ],
        author="anna.berg",
    )
    ddep = inc.deploy(ts("2026-02-17T15:50"), "pricing-svc")
    flag = inc.flag(
        ts("2026-02-17T15:40"),
        "cart-svc",
        "cart.save_for_later",
        "enabled: false",
        "enabled: true\nrollout: 50",
        "Save-for-later to 50%",
    )
    grow = ramp(leak0, onset, 1.0)

    def rss(t: datetime) -> float:
        if t < onset:
            return 310e6 + 720e6 * grow(t)
        return 310e6 + 720e6 * (((t - onset).total_seconds() / 600) % 1)

    inc.metric(
        "process_resident_memory_bytes",
        "pricing-svc",
        rss,
        labels={"pod": "pricing-svc-5c7d9-x2"},
        jitter=0.01,
        digits=0,
    )
    inc.metric(
        "container_restarts_total",
        "pricing-svc",
        lambda t: 0 if t < onset else int((t - onset).total_seconds() // 600) + 1,
        jitter=0.0,
        digits=0,
    )
    inc.burst(
        "pricing-svc",
        onset,
        now,
        0.25,
        same(
            "CRITICAL",
            "container pricing-svc OOMKilled (memory limit 1Gi); restarting",
            reason="OOMKilled",
            limit="1Gi",
        ),
    )
    inc.burst(
        "pricing-svc",
        ts("2026-02-17T14:40"),
        onset,
        0.2,
        same("WARNING", "GC pause 1.3s exceeded 250ms target (heap 880MB)"),
    )
    inc.burst(
        "checkout-web",
        onset + MINUTE,
        now,
        2.5,
        same(
            "ERROR",
            "pricing-svc POST /prices/quote timed out after 2000ms",
            upstream="pricing-svc",
            exception="httpx.ReadTimeout",
        ),
    )
    inc.red(
        "pricing-svc",
        p99=lambda t, v: v * (1 + 3 * grow(t)) if t < onset else 2000,
        err=lambda t, v: v + (0.07 if t >= onset else 0),
    )
    inc.red(
        "checkout-web",
        p99=lambda t, v: 2600 if t >= onset else v,
        err=lambda t, v: v + (0.04 if t >= onset else 0),
    )
    healthy(inc, "orders-api", "payments-api", "cart-svc", "inventory-svc")
    inc.alert = alerts.grafana(
        "Checkout p99 latency above 2s",
        "checkout-web",
        alert_at,
        "critical",
        "Checkout latency",
        "p99=2.64s",
        team="commerce",
    )
    inc.truth = {
        "verdict": "change",
        "change_id": guilty,
        "accept": [gdep],
        "service": "pricing-svc",
        "external_cause": None,
        "decoys": [fmt, ddep, flag],
    }
    return inc


def h02_not_null_migration() -> Incident:
    now = ts("2026-03-26T14:10")
    inc = Incident(
        "h02-not-null-migration",
        "Shipment creation errors",
        """A shipping-svc release adds a region_code column to shipments as NOT NULL without a
        default, but the code path creating return shipments does not set it. From the 13:28
        deploy, every return shipment insert fails with a NotNullViolation; label-printer-gw
        shows failed jobs. A flag on shipping-svc was flipped two minutes before, and a
        backfill commit for region_code landed at 13:52, after the onset.""",
        now,
        logistics_fleet(),
        seed=202,
    )
    inc.catalog(LOGISTICS_CATALOG)
    onset, alert_at = ts("2026-03-26T13:29"), ts("2026-03-26T13:41")
    inc.onset = onset
    inc.noise()
    inc.background(inc.begin, ts("2026-03-26T12:30"), 14)
    guilty = inc.commit(
        ts("2026-03-26T12:58"),
        "shipping-svc",
        "Shipments: store carrier region code",
        [
            (
                "shipping_svc/migrations/0047_region_code.py",
                "",
                """def upgrade():
    op.add_column("shipments", sa.Column("region_code", sa.String(8), nullable=False))""",
                1,
            ),
            (
                "shipping_svc/shipments.py",
                """    shipment = Shipment(order_id=order.id, carrier=carrier, service_level=level)""",
                """    shipment = Shipment(
        order_id=order.id, carrier=carrier, service_level=level, region_code=rates.region_for(order.address)
    )""",
                88,
            ),
        ],
        author="kofi.mensah",
    )
    flag = inc.flag(
        ts("2026-03-26T13:26"),
        "shipping-svc",
        "shipping.eco_delivery_option",
        "enabled: false",
        "enabled: true\nrollout: 20",
        "Offer eco delivery at checkout (20%)",
    )
    gdep = inc.deploy(ts("2026-03-26T13:28"), "shipping-svc")
    late = inc.commit(
        ts("2026-03-26T13:52"),
        "shipping-svc",
        "Backfill region_code for existing shipments",
        [
            (
                "shipping_svc/scripts/backfill_region.py",
                "",
                'UPDATE = "UPDATE shipments SET region_code = :code WHERE id = :id AND region_code IS NULL"',
                1,
            )
        ],
        author="kofi.mensah",
    )
    inc.burst(
        "shipping-svc",
        onset,
        now,
        2,
        lambda r, t: (
            "ERROR",
            'psycopg.errors.NotNullViolation: null value in column "region_code" of relation "shipments" violates not-null constraint '
            f"(POST /shipments/returns order_id=o-{r.getrandbits(24):06x})",
            {"exception": "psycopg.errors.NotNullViolation", "path": "/shipments/returns"},
        ),
    )
    inc.burst(
        "label-printer-gw",
        onset + MINUTE,
        now,
        0.7,
        same(
            "ERROR",
            "print job failed: shipping-svc POST /labels returned 500",
            upstream="shipping-svc",
            status=500,
        ),
    )
    inc.red("shipping-svc", err=lambda t, v: v + (0.05 if t >= onset else 0))
    xc = inc.commit(
        ts("2026-03-26T13:12"),
        "warehouse-api",
        "Picks: sort pick list by bin aisle",
        [
            (
                "warehouse_api/picks.py",
                "    return sorted(picks, key=lambda p: p.sku)",
                "    return sorted(picks, key=lambda p: (p.bin.aisle, p.bin.shelf))",
                20,
            )
        ],
        author="tomas.novak",
        cid="e07b3f19a4",
    )
    xd = inc.deploy(ts("2026-03-26T13:35"), "warehouse-api", ships=[xc])
    healthy(inc, "warehouse-api", "tracking-worker", "orders-api", "label-printer-gw")
    inc.alert = alerts.datadog(
        "Shipment creation errors",
        "shipping-svc",
        alert_at,
        "high",
        "sum:shipping.shipments.errors{env:prod}.as_count()",
        61,
        20,
        ["team:fulfilment"],
    )
    inc.truth = {
        "verdict": "change",
        "change_id": guilty,
        "accept": [gdep],
        "service": "shipping-svc",
        "external_cause": None,
        "decoys": [flag, xc, xd, late],
    }
    return inc


def h03_auth_lib_leeway() -> Incident:
    now = ts("2026-04-29T10:15")
    inc = Incident(
        "h03-auth-lib-leeway",
        "gateway 401 rate above 3%",
        """The identity team's shared token library authlib-internal dropped the clock-skew
        leeway from 60 s to 0 "for security". gateway picked it up in its 08:55 deploy: tokens
        minted by accounts-api on hosts whose clocks run a second or two ahead are rejected as
        not yet valid, about 4% of requests. accounts-api took the same library at 09:40, after the
        onset, without harm (it verifies only tokens it mints itself). A gateway route config
        change landed at 08:52, three minutes before the deploy.""",
        now,
        billing_fleet(),
        seed=203,
    )
    inc.catalog(
        {
            **BILLING_CATALOG,
            "authlib-internal": "shared token (JWT) library of team Identity, vendored by gateway and accounts-api",
            "gateway": "public API gateway (team Platform); verifies JWTs minted by accounts-api with authlib-internal",
        }
    )
    onset, alert_at = ts("2026-04-29T08:56"), ts("2026-04-29T09:20")
    inc.onset = onset
    inc.noise()
    inc.background(inc.begin, ts("2026-04-29T07:50"), 12)
    lib = inc.commit(
        ts("2026-04-29T07:58"),
        "authlib-internal",
        "Tokens: no clock-skew leeway by default (SEC-318)",
        [
            (
                "authlib_internal/verify.py",
                """def verify(token: str, key: Key) -> Claims:
    return jwt.decode(token, key, algorithms=["ES256"], leeway=60, audience=AUDIENCE)""",
                """DEFAULT_LEEWAY = 0  # SEC-318: skew tolerance must be explicit


def verify(token: str, key: Key, leeway: int = DEFAULT_LEEWAY) -> Claims:
    return jwt.decode(token, key, algorithms=["ES256"], leeway=leeway, audience=AUDIENCE)""",
                30,
            )
        ],
        author="hana.sato",
        deploy_with="library",
    )
    gbump = inc.commit(
        ts("2026-04-29T08:31"),
        "gateway",
        "Vendor authlib-internal 2.9.0",
        [("requirements.txt", "authlib-internal==2.8.4", "authlib-internal==2.9.0", 7)],
        author="renovate[bot]",
    )
    route = inc.config(
        ts("2026-04-29T08:52"),
        "gateway",
        "gateway: route /v2/exports to billing-api",
        "gateway/routes.yaml",
        "- path: /v2/invoices\n  upstream: billing-api",
        "- path: /v2/invoices\n  upstream: billing-api\n- path: /v2/exports\n  upstream: billing-api",
        line=40,
    )
    gdep = inc.deploy(ts("2026-04-29T08:55"), "gateway", ships=[gbump, lib])
    abump = inc.commit(
        ts("2026-04-29T09:22"),
        "accounts-api",
        "Vendor authlib-internal 2.9.0",
        [("requirements.txt", "authlib-internal==2.8.4", "authlib-internal==2.9.0", 9)],
        author="renovate[bot]",
    )
    adep = inc.deploy(ts("2026-04-29T09:40"), "accounts-api", ships=[abump, lib])
    inc.burst(
        "gateway",
        onset,
        now,
        4,
        lambda r, t: (
            "WARNING",
            f"401 rejected token: jwt.exceptions.ImmatureSignatureError: The token is not yet valid (iat) sub=u-{r.getrandbits(24):06x}",
            {"exception": "ImmatureSignatureError", "status": 401},
        ),
    )
    inc.metric(
        "http_responses_per_second",
        "gateway",
        lambda t: 28 if t >= onset else 0.8,
        labels={"code": "401"},
        jitter=0.1,
        digits=2,
    )
    inc.metric(
        "node_clock_offset_seconds",
        "accounts-api",
        lambda t: 1.4,
        labels={"node": "ip-10-2-7-31"},
        jitter=0.2,
        digits=2,
    )
    xc = inc.commit(
        ts("2026-04-29T08:44"),
        "billing-api",
        "Invoices: PDF footer with VAT id",
        [
            (
                "billing/billing_api/pdf/footer.html",
                "<p>{{ company.name }}</p>",
                "<p>{{ company.name }} - VAT {{ company.vat_id }}</p>",
                20,
            )
        ],
        author="anna.berg",
        cid="41d9c6b2e0",
    )
    xd = inc.deploy(ts("2026-04-29T09:05"), "billing-api", ships=[xc])
    healthy(inc, "gateway", "billing-api", "ledger", "invoice-worker", "accounts-api")
    inc.alert = alerts.alertmanager(
        "GatewayUnauthorizedHigh",
        "gateway",
        alert_at,
        "warning",
        "gateway 401 rate above 3%",
        "gateway answers 401 to 4.1% of requests",
        'sum(rate(gateway_responses_total{code="401"}[10m])) / sum(rate(gateway_responses_total[10m])) > 0.03',
        team="platform",
    )
    inc.truth = {
        "verdict": "change",
        "change_id": lib,
        "accept": [gdep, gbump],
        "service": "gateway",
        "external_cause": None,
        "decoys": [route, xc, xd, adep, abump],
    }
    return inc


def h04_indexer_bulk_size() -> Incident:
    now = ts("2026-06-24T12:30")
    fleet = [
        *shop_fleet(),
        Svc("search-indexer", "worker", topic="catalog.changes.v1", rps=30, p99=1500, noun="index"),
    ]
    inc = Incident(
        "h04-indexer-bulk-size",
        "Search results stale: index freshness lag above 15 minutes",
        """search-indexer's bulk size went from 500 to 5000 documents per request in a commit
        meant to speed up re-indexing. The OpenSearch write queue overflows and bulk requests are
        rejected (es_rejected_execution_exception); the indexer retries, its lag grows and
        search results go stale. Deployed at 11:05; errors from 11:07; search-api's freshness alert
        fires at 11:40 (an orders-api deploy at 11:21 came in between).
        A search-api deploy at 11:02 and an OpenSearch thread-pool config change at 11:50 (after
        the onset, looks related) are innocent.""",
        now,
        fleet,
        seed=204,
    )
    inc.catalog(
        {
            **SHOP_CATALOG,
            "search-indexer": "consumes catalog.changes.v1 and bulk-indexes products into OpenSearch search-prod (team Discovery)",
        }
    )
    onset, alert_at = ts("2026-06-24T11:07"), ts("2026-06-24T11:40")
    inc.onset = onset
    inc.noise()
    inc.background(inc.begin, ts("2026-06-24T10:20"), 13)
    guilty = inc.commit(
        ts("2026-06-24T10:37"),
        "search-indexer",
        "Indexer: larger bulk batches for faster reindex",
        [
            (
                "search_indexer/settings.py",
                "BULK_SIZE = 500\nBULK_CONCURRENCY = 8",
                "BULK_SIZE = 5000\nBULK_CONCURRENCY = 8",
                19,
            )
        ],
        author="priya.raman",
    )
    gdep = inc.deploy(ts("2026-06-24T11:05"), "search-indexer")
    sc = inc.commit(
        ts("2026-06-24T10:48"),
        "search-api",
        "Suggest: debounce prefix queries under 2 chars",
        [("search_api/suggest.py", "    if not prefix:", "    if len(prefix) < 2:", 33)],
        author="li.wei",
    )
    sdep = inc.deploy(ts("2026-06-24T11:02"), "search-api")
    late = inc.config(
        ts("2026-06-24T11:50"),
        "search-prod",
        "OpenSearch: thread_pool.write.queue_size 200 -> 1000",
        "opensearch/search-prod.yml",
        "thread_pool.write.queue_size: 200",
        "thread_pool.write.queue_size: 1000",
        author="oliver.grant",
        line=12,
    )
    inc.burst(
        "search-indexer",
        onset,
        now,
        3,
        lambda r, t: (
            "ERROR",
            "bulk request rejected: es_rejected_execution_exception: rejected execution of coordinating operation "
            f"[shard_detail=[products][{r.randint(0, 5)}]] on EsThreadPoolExecutor[name = data-{r.randint(0, 2)}/write, queue capacity = 200]",
            {
                "exception": "es_rejected_execution_exception",
                "cluster": "search-prod",
                "batch_size": 5000,
            },
        ),
    )
    inc.burst(
        "search-indexer",
        onset + 2 * MINUTE,
        now,
        1,
        same("WARNING", "retrying bulk batch of 5000 documents in 8s (attempt 3/5)"),
    )
    inc.red("search-indexer", err=lambda t, v: v + (0.3 if t >= onset else 0))
    inc.metric(
        "indexer_lag_seconds",
        "search-indexer",
        lambda t: 20 + max(0.0, (t - onset).total_seconds() * 0.8),
        jitter=0.05,
        digits=0,
    )
    inc.metric(
        "opensearch_write_rejections_per_minute",
        "search-prod",
        lambda t: 140 if t >= onset else 0,
        digits=0,
    )
    xc = inc.commit(
        ts("2026-06-24T11:02"),
        "orders-api",
        "Orders: expose gift message in API",
        [
            (
                "orders_api/schemas.py",
                "    note: str | None",
                "    note: str | None\n    gift_message: str | None",
                20,
            )
        ],
        author="j.okafor",
        cid="b85f2a90c3",
    )
    xd = inc.deploy(ts("2026-06-24T11:21"), "orders-api", ships=[xc])
    inc.burst(
        "search-api",
        onset + 15 * MINUTE,
        now,
        0.3,
        same(
            "WARNING",
            "products index freshness lag exceeds 15m SLO; results may be stale",
            index="products",
        ),
    )
    healthy(inc, "search-api", "checkout-web", "orders-api", "cart-svc")
    inc.alert = alerts.generic(
        "Search results stale: index freshness lag above 15 minutes",
        "search-api",
        alert_at,
        "warning",
        {"metric": "indexer_lag_seconds", "value": 1980, "threshold": 900, "source": "prometheus"},
    )
    inc.truth = {
        "verdict": "change",
        "change_id": guilty,
        "accept": [gdep],
        "service": "search-indexer",
        "external_cause": None,
        "decoys": [sc, sdep, xc, xd, late],
    }
    return inc


def h05_profile_regex_cpu() -> Incident:
    now = ts("2026-07-30T20:10")
    inc = Incident(
        "h05-profile-regex-cpu",
        "feed-api error rate above 2%",
        """profile-api started validating display names with a regex that backtracks
        catastrophically on long names with repeated characters. Deployed at 19:12 with two other
        commits; from 19:20, when such names arrive, profile-api's CPU pins and its requests time
        out. feed-api, which embeds profiles, alerts. feed-api was deployed at 19:16 (a ranking
        weight tweak) and an edge-proxy config change landed at 19:18.""",
        now,
        media_fleet(),
        seed=205,
    )
    inc.catalog(
        {
            **MEDIA_CATALOG,
            "feed-api": "home feed (team Social); calls profile-api for author cards (timeout 800 ms)",
        }
    )
    onset, alert_at = ts("2026-07-30T19:20"), ts("2026-07-30T19:38")
    inc.onset = onset
    inc.noise()
    inc.background(inc.begin, ts("2026-07-30T18:20"), 12)
    inc.background(ts("2026-07-30T18:25"), ts("2026-07-30T18:50"), 2, ["profile-api"])
    guilty = inc.commit(
        ts("2026-07-30T18:56"),
        "profile-api",
        "Validate display names (letters, spaces, emoji; max 64)",
        [
            (
                "profile_api/validation.py",
                """def valid_display_name(name: str) -> bool:
    return 0 < len(name) <= 64""",
                """DISPLAY_NAME = re.compile(r"^(\\w+\\s?)*$")


def valid_display_name(name: str) -> bool:
    return 0 < len(name) <= 64 and DISPLAY_NAME.match(name) is not None""",
                12,
            )
        ],
        author="sam.ortiz",
    )
    gdep = inc.deploy(ts("2026-07-30T19:12"), "profile-api")
    rank = inc.commit(
        ts("2026-07-30T19:01"),
        "feed-api",
        "Ranking: recency weight 0.30 -> 0.35",
        [("feed_api/ranking.py", "RECENCY_WEIGHT = 0.30", "RECENCY_WEIGHT = 0.35", 8)],
        author="tomas.novak",
    )
    fdep = inc.deploy(ts("2026-07-30T19:16"), "feed-api")
    edge = inc.config(
        ts("2026-07-30T19:18"),
        "edge-proxy",
        "edge-proxy: gzip application/json responses",
        "edge-proxy/nginx.conf",
        "    gzip_types text/plain text/css;",
        "    gzip_types text/plain text/css application/json;",
        line=60,
    )
    inc.burst(
        "profile-api",
        onset,
        now,
        1.5,
        same(
            "WARNING",
            "request exceeded 5000ms: PATCH /v1/profiles/{id} (display_name validation)",
            path="/v1/profiles/{id}",
        ),
    )
    inc.burst(
        "profile-api",
        onset + MINUTE,
        now,
        1,
        same(
            "ERROR",
            "worker timeout (pid 41): gunicorn killed a worker stuck in profile_api/validation.py:16 valid_display_name",
            exception="WorkerTimeout",
        ),
    )
    inc.burst(
        "feed-api",
        onset + MINUTE,
        now,
        4,
        same(
            "ERROR",
            "profile-api GET /v1/profiles/{id} timed out after 800ms; author card omitted",
            upstream="profile-api",
            exception="httpx.ReadTimeout",
        ),
    )
    inc.metric("cpu_utilization", "profile-api", lambda t: 0.99 if t >= onset else 0.3, jitter=0.02)
    inc.red(
        "profile-api",
        p99=lambda t, v: 5000 if t >= onset else v,
        err=lambda t, v: v + (0.06 if t >= onset else 0),
    )
    inc.red("feed-api", err=lambda t, v: v + (0.05 if t >= onset else 0))
    healthy(inc, "edge-proxy", "media-upload", "transcoder-worker")
    inc.alert = alerts.alertmanager(
        "FeedErrors",
        "feed-api",
        alert_at,
        "critical",
        "feed-api error rate above 2%",
        "feed-api 5xx ratio 5.2%",
        'sum(rate(http_requests_total{service="feed-api",code=~"5.."}[5m])) / sum(rate(http_requests_total{service="feed-api"}[5m])) > 0.02',
        team="social",
    )
    inc.truth = {
        "verdict": "change",
        "change_id": guilty,
        "accept": [gdep],
        "service": "profile-api",
        "external_cause": None,
        "decoys": [rank, fdep, edge],
    }
    return inc


def h06_poison_order_event() -> Incident:
    now = ts("2026-09-08T03:40")
    fleet = [
        *shop_fleet(),
        Svc("order-projector", "worker", topic="orders.v1", rps=40, p99=120, noun="projection"),
    ]
    inc = Incident(
        "h06-poison-order-event",
        "order-projector consumer lag above 50k",
        """A partner integration published one malformed event to orders.v1 (partition 7, offset
        88123411): a line-items field containing invalid UTF-8. order-projector crashes on it,
        restarts, reads it again and crashes again: partition 7 stops, lag grows, order
        read-models go stale. order-projector was deployed at 02:31 with a metrics change; at
        03:25 an engineer committed a skip-malformed-messages handler (after the onset). No
        change explains it: a poison record.""",
        now,
        fleet,
        seed=206,
    )
    inc.catalog(
        {
            **SHOP_CATALOG,
            "order-projector": "consumes orders.v1 (12 partitions) and maintains order read-models (team Commerce); partners publish to orders.v1 through the partner gateway",
        }
    )
    onset, alert_at = ts("2026-09-08T02:58"), ts("2026-09-08T03:14")
    inc.onset = onset
    inc.noise(every=11)
    inc.background(inc.begin, ts("2026-09-08T01:50"), 9)
    met = inc.commit(
        ts("2026-09-08T02:12"),
        "order-projector",
        "Metrics: per-partition processing histogram",
        [
            (
                "order_projector/metrics.py",
                'PROCESSED = Counter("projector_processed_total", "events")',
                'PROCESSED = Counter("projector_processed_total", "events")\nDURATION = Histogram("projector_event_seconds", "per event", ["partition"])',
                9,
            )
        ],
        author="maria.keller",
    )
    dep = inc.deploy(ts("2026-09-08T02:31"), "order-projector")
    late = inc.commit(
        ts("2026-09-08T03:25"),
        "order-projector",
        "Consumer: dead-letter events that fail to decode",
        [
            (
                "order_projector/consumer.py",
                "        event = decode(message.value)",
                "        try:\n            event = decode(message.value)\n        except UnicodeDecodeError:\n            await dead_letter(message)\n            continue",
                48,
            )
        ],
        author="j.okafor",
    )
    for k in range(0, 42, 3):
        t0 = onset + k * MINUTE
        inc.log(
            t0,
            "order-projector",
            "ERROR",
            "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xc3 in position 1187: invalid continuation byte (topic orders.v1 partition 7 offset 88123411)",
            exception="UnicodeDecodeError",
            partition=7,
            offset=88123411,
        )
        inc.log(
            t0 + 0.1 * MINUTE,
            "order-projector",
            "CRITICAL",
            "consumer crashed; exiting with status 1 (partition 7 offset 88123411 not committed)",
            partition=7,
        )
        inc.log(
            t0 + 0.9 * MINUTE,
            "order-projector",
            "INFO",
            "consumer started; assigned partitions [6, 7, 8]; resuming partition 7 at offset 88123411",
        )
    inc.burst(
        "orders-api",
        onset + 10 * MINUTE,
        now,
        0.5,
        same(
            "WARNING",
            "order read-model stale for o-… (projector lag); served from primary",
            upstream="order-projector",
        ),
    )
    inc.metric(
        "kafka_consumer_lag",
        "order-projector",
        lambda t: 300 + max(0.0, (t - onset).total_seconds() * 40),
        labels={"topic": "orders.v1", "partition": "7"},
        jitter=0.02,
        digits=0,
    )
    inc.metric(
        "kafka_consumer_lag",
        "order-projector",
        lambda t: 300,
        labels={"topic": "orders.v1", "partition": "6"},
        jitter=0.2,
        digits=0,
    )
    inc.metric(
        "container_restarts_total",
        "order-projector",
        lambda t: 0 if t < onset else (t - onset).total_seconds() // 180 + 1,
        jitter=0.0,
        digits=0,
    )
    healthy(inc, "order-projector", "orders-api", "checkout-web", "payments-api")
    inc.alert = alerts.alertmanager(
        "ProjectorLag",
        "order-projector",
        alert_at,
        "warning",
        "order-projector consumer lag above 50k",
        "consumer group order-projector lag 52,300 on orders.v1",
        'sum(kafka_consumergroup_lag{group="order-projector"}) > 50000',
        team="commerce",
    )
    inc.truth = {
        "verdict": "external",
        "change_id": None,
        "accept": [],
        "service": "order-projector",
        "external_cause": "poison record (malformed event in orders.v1)",
        "decoys": [met, dep, late],
    }
    return inc


def h07_mail_provider_outage() -> Incident:
    now = ts("2026-10-21T08:45")
    inc = Incident(
        "h07-mail-provider-outage",
        "E-mail send failures above 10%",
        """Mailcourier, the e-mail delivery provider, returns 502/504 to its send API from 08:02.
        notifications-worker's e-mail sends fail and retry; order confirmations are delayed.
        Mailcourier's status page confirms at 08:15. notifications-worker was deployed at 07:57
        (new template for password resets) and a push flag flipped at 08:05. No change explains
        it.""",
        now,
        shop_fleet(),
        seed=207,
    )
    inc.catalog(SHOP_CATALOG)
    inc.doc(
        "Mailcourier status: Degraded - Send API errors",
        """status.mailcourier.example
Oct 21, 2026 08:15 UTC - Investigating: a subset of requests to POST /v3/send fail with 502 or 504. Queued messages will be delivered once resolved.
Oct 21, 2026 08:37 UTC - Monitoring: we have failed over to a secondary cluster; error rates are decreasing.""",
    )
    onset, alert_at = ts("2026-10-21T08:02"), ts("2026-10-21T08:11")
    inc.onset = onset
    inc.noise()
    inc.background(inc.begin, ts("2026-10-21T07:10"), 14)
    tpl = inc.commit(
        ts("2026-10-21T07:36"),
        "notifications-worker",
        "E-mail: new password-reset template",
        [
            (
                "notifications_worker/templates/email/password_reset.html",
                "<p>Reset your password: {{ link }}</p>",
                '<h2>Reset your password</h2>\n<p><a href="{{ link }}">Choose a new password</a> (valid 30 minutes)</p>',
                1,
            )
        ],
        author="hana.sato",
    )
    dep = inc.deploy(ts("2026-10-21T07:57"), "notifications-worker")
    flag = inc.flag(
        ts("2026-10-21T08:05"),
        "notifications-worker",
        "notifications.push_quiet_hours",
        "enabled: false",
        "enabled: true",
        "Respect quiet hours for marketing push",
    )
    inc.burst(
        "notifications-worker",
        onset,
        now,
        5,
        lambda r, t: (
            "ERROR",
            f"MailcourierError: {r.choice([502, 502, 504])} from POST https://api.mailcourier.example/v3/send (message_id=m-{r.getrandbits(32):08x}); will retry",
            {"exception": "MailcourierError", "upstream": "mailcourier"},
        ),
    )
    inc.red("notifications-worker", err=lambda t, v: v + (0.35 if t >= onset else 0))
    inc.metric(
        "email_send_failures_per_minute",
        "notifications-worker",
        lambda t: 300 if t >= onset else 0.4,
        labels={"provider": "mailcourier"},
        jitter=0.1,
        digits=0,
    )
    inc.metric(
        "email_queue_depth",
        "notifications-worker",
        lambda t: 40 + max(0.0, (t - onset).total_seconds() * 3),
        digits=0,
    )
    healthy(inc, "orders-api", "checkout-web", "payments-api", "cart-svc")
    inc.alert = alerts.datadog(
        "E-mail send failures above 10%",
        "notifications-worker",
        alert_at,
        "high",
        "sum:notifications.email.failed{env:prod} / sum:notifications.email.total{env:prod}",
        0.34,
        0.1,
        ["team:growth"],
    )
    inc.truth = {
        "verdict": "external",
        "change_id": None,
        "accept": [],
        "service": "notifications-worker",
        "external_cause": "e-mail provider outage (Mailcourier)",
        "decoys": [tpl, dep, flag],
    }
    return inc


def h08_autocomplete_flag() -> Incident:
    now = ts("2026-12-01T13:30")
    inc = Incident(
        "h08-autocomplete-flag",
        "Checkout confirm errors above 3%",
        """The checkout team turned on address autocomplete v2 for all users at 12:41. When a
        customer picks an autocomplete suggestion without a postcode (some rural addresses), the
        new code path dereferences address.postal_code on None and checkout confirmation fails.
        A checkout-web deploy at 12:26 (analytics) and a cart-svc config change at 12:35 are
        innocent.""",
        now,
        shop_fleet(),
        seed=208,
    )
    inc.catalog(SHOP_CATALOG)
    onset, alert_at = ts("2026-12-01T12:42"), ts("2026-12-01T13:02")
    inc.onset = onset
    inc.noise()
    inc.background(inc.begin, ts("2026-12-01T11:40"), 15)
    an = inc.commit(
        ts("2026-12-01T12:05"),
        "checkout-web",
        "Analytics: send checkout_step events in batches",
        [
            (
                "checkout_web/analytics.py",
                "    track(event)",
                "    BATCH.append(event)\n    if len(BATCH) >= 20:\n        flush(BATCH)",
                41,
            )
        ],
        author="li.wei",
    )
    dep = inc.deploy(ts("2026-12-01T12:26"), "checkout-web")
    cfg = inc.config(
        ts("2026-12-01T12:35"),
        "cart-svc",
        "cart-svc: max_items 100 -> 150",
        "cart-svc/values-prod.yaml",
        "cart:\n  max_items: 100",
        "cart:\n  max_items: 150",
        line=9,
    )
    guilty = inc.flag(
        ts("2026-12-01T12:41"),
        "checkout-web",
        "checkout.address_autocomplete_v2",
        "enabled: true\nrollout: 0\nallow: [staff]",
        "enabled: true\nrollout: 100",
        "Address autocomplete v2 for everyone",
    )
    inc.burst(
        "checkout-web",
        onset,
        now,
        2,
        same(
            "ERROR",
            "AttributeError: 'NoneType' object has no attribute 'postal_code' in checkout_web/address/autocomplete_v2.py:88 (POST /checkout/confirm)",
            exception="AttributeError",
            path="/checkout/confirm",
            flag="checkout.address_autocomplete_v2",
        ),
    )
    inc.red("checkout-web", err=lambda t, v: v + (0.04 if t >= onset else 0))
    healthy(inc, "orders-api", "payments-api", "cart-svc", "inventory-svc", "search-api")
    inc.alert = alerts.generic(
        "Checkout confirm errors above 3%",
        "checkout-web",
        alert_at,
        "high",
        {
            "query": 'errors{route="/checkout/confirm"} / requests',
            "value": 0.041,
            "source": "grafana-oncall",
        },
    )
    inc.truth = {
        "verdict": "change",
        "change_id": guilty,
        "accept": [],
        "service": "checkout-web",
        "external_cause": None,
        "decoys": [an, dep, cfg],
    }
    return inc


HELDOUT: list[Callable[[], Incident]] = [
    h01_pricing_cache_leak,
    h02_not_null_migration,
    h03_auth_lib_leeway,
    h04_indexer_bulk_size,
    h05_profile_regex_cpu,
    h06_poison_order_event,
    h07_mail_provider_outage,
    h08_autocomplete_flag,
]
