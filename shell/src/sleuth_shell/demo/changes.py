"""The demo's change records and metric series, consistent with its logs (`sleuth_shell.demo.logs`).

Change records (offsets before ``end``), each deploy matching a ``deploy-bot`` log line:

- 7 h 40 min and 7 h 25 min: two ``storefront`` commits by maria, shipped by the ``storefront``
  v5.2.0 deploy at 7 h 04 min;
- 5 h 45 min: an ``inventory-api`` commit by tom, shipped by the v1.9.4 deploy at 5 h 10 min;
- 3 h 20 min: a ``payments-api`` docs commit by lee (innocent); 2 h 55 min: dana's commit that opens
  a database transaction per refund and never releases the connection when the gateway fails (the
  cause); both shipped by the ``payments-api`` v2.14.0 deploy at 2 h 30 min;
- 2 h 45 min: a feature-flag flip on ``storefront`` (``holiday-banner`` to 100%; innocent, close to
  the onset);
- 1 h 35 min: carol's rollback of ``payments-api`` to v2.13.4.

Metric series at one point a minute over the 24 hours, for ``payments-api``, ``checkout-api`` and
``storefront``: ``http_error_rate`` (fraction of requests answered 5xx) and
``http_p99_latency_ms``, and ``payments-api``'s ``db_pool_in_use`` (of 20): flat and noisy all
day, the pool climbing from the deploy, errors and latency up from the first error until the
rollback.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from sleuth_shell.demo.logs import DEMO_SEED, INCIDENT
from sleuth_shell.observability.metric_ingest import SeriesBatch

__all__ = ["METRIC_NAMES", "METRIC_SERVICES", "generate_changes", "generate_metrics"]

METRIC_NAMES: tuple[str, ...] = ("db_pool_in_use", "http_error_rate", "http_p99_latency_ms")
METRIC_SERVICES: tuple[str, ...] = ("checkout-api", "payments-api", "storefront")

_LEAK_DIFF = """\
--- a/payments_api/refunds/handler.py
+++ b/payments_api/refunds/handler.py
@@ -28,10 +28,19 @@ class RefundHandler:
     def handle(self, request: RefundRequest) -> RefundResult:
-        refund = self.gateway.refund(request.payment_id, request.amount)
-        self.repo.save_refund(refund)
-        return RefundResult.ok(refund)
+        # One transaction per refund so the ledger and the refund row commit together.
+        conn = self.db_pool.acquire(timeout_ms=5000)
+        tx = conn.begin()
+        try:
+            refund = self.gateway.refund(request.payment_id, request.amount)
+            self.repo.save_refund(refund, conn=conn)
+            self.ledger.record(refund, conn=conn)
+            tx.commit()
+        except GatewayError as exc:
+            tx.rollback()
+            return RefundResult.failed(str(exc))
+        self.db_pool.release(conn)
+        return RefundResult.ok(refund)
"""

_DOCS_DIFF = """\
--- a/docs/refunds.md
+++ b/docs/refunds.md
@@ -12,3 +12,9 @@ Refunds are asynchronous: the gateway confirms them by webhook.
+## Webhook payloads
+
+`refund.succeeded` and `refund.failed` carry `payment_id`, `refund_id` and `amount`.
+Retries use exponential backoff for up to 24 hours.
"""

_COMPARE_DIFF = """\
--- /dev/null
+++ b/storefront/components/CompareTable.tsx
@@ -0,0 +1,8 @@
+export function CompareTable({ products }: { products: Product[] }) {
+  return (
+    <table className="compare">
+      {products.map((p) => <CompareRow key={p.sku} product={p} />)}
+    </table>
+  );
+}
"""

_FOOTER_DIFF = """\
--- a/storefront/components/Footer.tsx
+++ b/storefront/components/Footer.tsx
@@ -7 +7 @@ export function Footer() {
-      <a href="/returns">Retruns</a>
+      <a href="/returns">Returns</a>
"""

_SYNC_DIFF = """\
--- a/inventory_api/warehouse/sync.py
+++ b/inventory_api/warehouse/sync.py
@@ -40,4 +40,6 @@ def sync_warehouse(client, store):
+    started = time.monotonic()
     updated = store.apply(client.fetch_changes())
-    log.info("warehouse sync completed", skus_updated=updated)
+    log.info("warehouse sync completed", skus_updated=updated,
+             duration_ms=round((time.monotonic() - started) * 1000))
"""


def _change(
    at: datetime,
    service: str,
    kind: str,
    change_id: str,
    summary: str,
    author: str,
    *,
    files: tuple[str, ...] = (),
    diff: str = "",
    ships: tuple[str, ...] = (),
    **attributes: Any,
) -> dict[str, Any]:
    return {
        "change_id": change_id,
        "timestamp": at,
        "service": service,
        "kind": kind,
        "summary": summary,
        "author": author,
        "url": None,
        "files": list(files),
        "diff": diff,
        "ships": list(ships),
        "attributes": attributes,
    }


def generate_changes(end: datetime) -> list[dict[str, Any]]:
    """The demo's change records (rows for `sleuth_shell.changes.ingest.store_changes`), oldest
    first; ``end`` is the end of the demo day (aware UTC, whole minute, as the logs use)."""
    deploy = end - INCIDENT["deploy"]
    rollback = end - INCIDENT["rollback"]
    return [
        _change(
            end - timedelta(hours=7, minutes=40),
            "storefront",
            "commit",
            "5e1b7c2a9d40",
            "Add a product comparison table",
            "maria",
            files=("storefront/components/CompareTable.tsx",),
            diff=_COMPARE_DIFF,
        ),
        _change(
            end - timedelta(hours=7, minutes=25),
            "storefront",
            "commit",
            "a83f0d61c5e7",
            "Fix typo in the footer's returns link",
            "maria",
            files=("storefront/components/Footer.tsx",),
            diff=_FOOTER_DIFF,
        ),
        _change(
            end - timedelta(hours=7, minutes=4),
            "storefront",
            "deploy",
            "storefront@v5.2.0",
            "deployed storefront v5.2.0 (previous v5.1.3): new product comparison table",
            "maria",
            ships=("5e1b7c2a9d40", "a83f0d61c5e7"),
            version="v5.2.0",
            previous_version="v5.1.3",
            deployed_by="deploy-bot",
        ),
        _change(
            end - timedelta(hours=5, minutes=45),
            "inventory-api",
            "commit",
            "c4d29e8b7f13",
            "Log warehouse sync duration",
            "tom",
            files=("inventory_api/warehouse/sync.py",),
            diff=_SYNC_DIFF,
        ),
        _change(
            end - timedelta(hours=5, minutes=10),
            "inventory-api",
            "deploy",
            "inventory-api@v1.9.4",
            "deployed inventory-api v1.9.4 (previous v1.9.3): log warehouse sync duration",
            "tom",
            ships=("c4d29e8b7f13",),
            version="v1.9.4",
            previous_version="v1.9.3",
            deployed_by="deploy-bot",
        ),
        _change(
            end - timedelta(hours=3, minutes=20),
            "payments-api",
            "commit",
            "0b6e4a2f9c18",
            "docs: document the refund webhook payloads",
            "lee",
            files=("docs/refunds.md",),
            diff=_DOCS_DIFF,
        ),
        _change(
            end - timedelta(hours=2, minutes=55),
            "payments-api",
            "commit",
            "f41c9a7e2b65",
            "refunds: open a database transaction per request\n\nThe refund row and its ledger "
            "entry now commit together.",
            "dana",
            files=("payments_api/refunds/handler.py",),
            diff=_LEAK_DIFF,
        ),
        _change(
            end - timedelta(hours=2, minutes=45),
            "storefront",
            "flag",
            "holiday-banner@v3",
            "holiday-banner: rolled out to 100% of visitors (was 25%)",
            "maria",
            flag="holiday-banner",
            previous="25%",
            value="100%",
        ),
        _change(
            deploy,
            "payments-api",
            "deploy",
            "payments-api@v2.14.0",
            "deployed payments-api v2.14.0 (previous v2.13.4): refunds: open a database "
            "transaction per request",
            "dana",
            ships=("0b6e4a2f9c18", "f41c9a7e2b65"),
            version="v2.14.0",
            previous_version="v2.13.4",
            deployed_by="deploy-bot",
        ),
        _change(
            rollback,
            "payments-api",
            "deploy",
            "payments-api@v2.13.4-rollback",
            "rolled back payments-api: deployed v2.13.4 (previous v2.14.0)",
            "carol (on-call)",
            version="v2.13.4",
            previous_version="v2.14.0",
            deployed_by="deploy-bot",
            rollback=True,
        ),
    ]


def _between(t: datetime, end: datetime, first: str, last: str) -> bool:
    return end - INCIDENT[first] <= t < end - INCIDENT[last]


def generate_metrics(end: datetime, *, seed: int = DEMO_SEED) -> list[SeriesBatch]:
    """The demo's metric series, one point a minute over the 24 hours before ``end``."""
    rng = random.Random(seed + 1)
    start = end - timedelta(hours=24)
    minutes = [start + timedelta(minutes=i) for i in range(24 * 60)]
    batches: dict[tuple[str, str], SeriesBatch] = {
        (name, service): SeriesBatch(name=name, service=service, labels={})
        for service in METRIC_SERVICES
        for name in METRIC_NAMES
        if name != "db_pool_in_use" or service == "payments-api"
    }
    base_latency = {"payments-api": 180.0, "checkout-api": 340.0, "storefront": 140.0}
    hit_errors = {"payments-api": 0.52, "checkout-api": 0.34, "storefront": 0.09}
    hit_latency = {"payments-api": 5100.0, "checkout-api": 5300.0, "storefront": 620.0}
    pool = 5.0
    for t in minutes:
        failing = _between(t, end, "first_error", "recovered")
        leaking = _between(t, end, "deploy", "first_error")
        for service in METRIC_SERVICES:
            errors = rng.uniform(0.0, 0.004)
            latency = base_latency[service] * rng.uniform(0.85, 1.2)
            if failing:
                errors = hit_errors[service] * rng.uniform(0.85, 1.1)
                latency = hit_latency[service] * rng.uniform(0.9, 1.05)
            elif leaking and service == "payments-api":
                climbed = (t - (end - INCIDENT["deploy"])).total_seconds() / 60
                latency *= 1 + climbed / 10
            batches[("http_error_rate", service)].points[t] = round(errors, 4)
            batches[("http_p99_latency_ms", service)].points[t] = round(latency, 1)
        if failing:
            pool = 20.0
        elif leaking:
            pool = min(19.0, pool + 14 / 12)  # climbs to the limit in the 12 minutes to the errors
        else:
            pool = float(rng.randint(3, 8))
        batches[("db_pool_in_use", "payments-api")].points[t] = pool
    return list(batches.values())
