"""TUNE split of the outside-vocabulary incidents (`evals/rca/tune_ext/`): the engine may be tuned
on these. Thirteen companies (`companies.py`), each story spelled out in code."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from evals.rca import alerts
from evals.rca.ext.base import (
    MINUTE,
    ExtIncident,
    Shape,
    add,
    floor,
    go_stack,
    java_stack,
    node_stack,
    py_stack,
    ramp,
    step,
    times,
)
from evals.rca.ext.companies import (
    BASKETRUN,
    BRAMBLEWOOD,
    CORVID,
    FERNBANK,
    HALYARD,
    JUNIPER,
    LARKSPUR,
    MARIGOLD,
    OSPREY,
    QUAYSIDE,
    SALTMARSH,
    THORNFIELD,
    TIDEWATER,
)
from evals.rca.kit import ts

# --- Tidewater Freight ---------------------------------------------------------------------------


def xt01_dispatch_routing_timeout() -> ExtIncident:
    now = ts("2026-09-14T14:10")
    inc = ExtIncident(
        "xt01-dispatch-routing-timeout",
        "Tender failure ratio above 2% on dispatch-api",
        """A dispatch-api commit that moved the route-planner calls onto one shared http.Client
        also cut the client timeout from 5 s to 800 ms. Multi-stop long-haul plans take 1-3 s in
        route-planner, so their tenders failed with context deadline exceeded from 13:08, right
        after the 13:05 deploy. route-planner deployed a geocode cache at 12:58 and its errors
        name route-planner on every line, but its own latency never moved; a dispatch-api commit
        that only logs leg counts on tender went out at 13:31, the latest deploy before the
        alert.""",
        now,
        TIDEWATER,
        seed=2301,
    )
    inc.doc(
        "Runbook: dispatch-api tender failures",
        """Symptom: tender failure ratio above 2%. dispatch-api asks route-planner for legs before
it tenders a load to a carrier. Check route-planner p99 first, then dispatch-api's outbound
client settings (internal/routing/client.go). Long-haul plans with 6+ stops normally take 1-3 s.
Mitigation: roll back dispatch-api (`twctl rollback dispatch-api`).""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-09-14T12:20"), 10)
    rp = inc.code(
        ts("2026-09-14T12:31"),
        "route-planner",
        "perf(routing): cache lane geocodes for route-planner legs",
        "src/main/java/com/tidewater/routing/LaneGeocoder.java",
        "    public LatLng geocode(String lane) {\n        return mapGrid.lookup(lane);\n    }",
        "    public LatLng geocode(String lane) {\n        return cache.get(lane, mapGrid::lookup);\n    }",
        64,
        author="k.lindqvist",
    )
    rp_deploy = inc.deploy(ts("2026-09-14T12:58"), "route-planner")
    guilty = inc.code(
        ts("2026-09-14T12:40"),
        "dispatch-api",
        "refactor(dispatch): share one http.Client for route-planner calls",
        "internal/routing/client.go",
        """func NewClient(base string) *Client {
	return &Client{base: base}
}

func (c *Client) PlanLegs(ctx context.Context, load Load) ([]Leg, error) {
	hc := &http.Client{Timeout: 5 * time.Second}
	return c.post(ctx, hc, "/plan", load)
}""",
        """var sharedHTTP = &http.Client{Timeout: 800 * time.Millisecond}

func NewClient(base string) *Client {
	return &Client{base: base}
}

func (c *Client) PlanLegs(ctx context.Context, load Load) ([]Leg, error) {
	return c.post(ctx, sharedHTTP, "/plan", load)
}""",
        31,
        author="mbekele",
    )
    guilty_deploy = inc.deploy(ts("2026-09-14T13:05"), "dispatch-api")
    onset = ts("2026-09-14T13:08")
    decoy = inc.code(
        ts("2026-09-14T13:14"),
        "dispatch-api",
        "feat(dispatch): log route-planner leg count on every tender",
        "internal/tender/handler.go",
        "\tlegs, err := h.routing.PlanLegs(ctx, load)\n\tif err != nil {\n\t\treturn err\n\t}",
        '\tlegs, err := h.routing.PlanLegs(ctx, load)\n\tif err != nil {\n\t\treturn err\n\t}\n\th.log.Info("route-planner legs", zap.Int("legs", len(legs)))',
        77,
        author="jun.park",
    )
    decoy_deploy = inc.deploy(ts("2026-09-14T13:31"), "dispatch-api")
    stack = go_stack(
        'Post "http://route-planner.routing.svc:8080/plan": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
        [
            (
                "github.com/tidewater/dispatch/internal/routing.(*Client).PlanLegs",
                "/src/dispatch/internal/routing/client.go",
                37,
            ),
            (
                "github.com/tidewater/dispatch/internal/tender.(*Handler).Tender",
                "/src/dispatch/internal/tender/handler.go",
                77,
            ),
        ],
    )
    inc.errors(
        "dispatch-api",
        onset,
        now,
        1.5,
        lambda r: (
            f"tender failed for load L-{r.randint(400000, 499999)}: plan legs: context deadline exceeded"
        ),
        error="context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
        stack=stack,
        upstream="route-planner",
        stops=7,
    )
    inc.errors(
        "shipper-portal",
        onset + 3 * MINUTE,
        now,
        0.8,
        "POST /v2/loads/{id}/tender -> 502 from dispatch-api",
        level="WARNING",
    )
    inc.metric(
        "tender_failure_ratio", "dispatch-api", step(onset, 0.004, 0.061), jitter=0.15, digits=4
    )
    inc.metric(
        "http_client_timeouts_total_rate",
        "dispatch-api",
        step(onset, 0.0, 2.9),
        labels={"upstream": "route-planner"},
        jitter=0.2,
        digits=2,
    )
    inc.fleet(dispatch_api={"err": add(step(onset, 0, 0.05))})
    inc.alert = alerts.alertmanager(
        "TenderFailureRatioHigh",
        "dispatch-api",
        ts("2026-09-14T13:44"),
        "critical",
        "Tender failure ratio above 2% on dispatch-api",
        "tender_failure_ratio is 6.1% over 10m (threshold 2%).",
        'tender_failure_ratio{service="dispatch-api"} > 0.02',
        team="dispatch",
    )
    inc.blame(
        guilty,
        [guilty_deploy],
        "dispatch-api",
        "code_defect",
        [decoy, decoy_deploy, rp, rp_deploy],
        onset,
    )
    return inc


def xt02_ingest_null_geofence() -> ExtIncident:
    now = ts("2026-09-16T10:30")
    inc = ExtIncident(
        "xt02-ingest-null-geofence",
        "tracking-ingest consumer lag above 50k on telemetry.pings",
        """A tracking-ingest commit removed the null check on the geofence of a ping ("every
        ping has a yard now") and was never named in a deploy's ships list: the 09:12 deploy
        listed only the Kafka client bump, but was built from the branch head and carried it.
        Pings from trucks outside any yard polygon throw a NullPointerException in
        GeofenceMatcher.match, the consumer retries the batch and lag grows. A carrier-gateway
        deploy about pings and a Kafka client bump in the same release share the surface
        words.""",
        now,
        TIDEWATER,
        seed=2302,
    )
    inc.doc(
        "Runbook: telemetry lag",
        """tracking-ingest consumes telemetry.pings. Lag above 50k means trucks show stale positions
in the portal. A batch that throws is retried forever (no DLQ yet). Check the exception in the
logs; skip offsets only with the Telematics lead's approval: `kcat-skip telemetry.pings <partition> <offset>`.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-09-16T08:00"), 9)
    guilty = inc.code(
        ts("2026-09-16T08:21"),
        "tracking-ingest",
        "refactor(telematics): drop redundant geofence null check",
        "src/main/java/com/tidewater/telematics/GeofenceMatcher.java",
        """    public Optional<YardEvent> match(Ping ping) {
        Geofence fence = yards.fenceFor(ping.position());
        if (fence == null) {
            return Optional.empty();
        }
        return Optional.of(fence.toEvent(ping));
    }""",
        """    public Optional<YardEvent> match(Ping ping) {
        Geofence fence = yards.fenceFor(ping.position());
        return Optional.of(fence.toEvent(ping));
    }""",
        52,
        author="s.haddad",
    )
    bump = inc.code(
        ts("2026-09-16T08:48"),
        "tracking-ingest",
        "chore(deps): bump kafka-clients from 3.6.1 to 3.7.0",
        "pom.xml",
        "      <artifactId>kafka-clients</artifactId>\n      <version>3.6.1</version>",
        "      <artifactId>kafka-clients</artifactId>\n      <version>3.7.0</version>",
        102,
        author="dependabot[bot]",
    )
    release = inc.deploy(
        ts("2026-09-16T09:12"),
        "tracking-ingest",
        ships=[bump],
        summary="Deploy tracking-ingest to production (1 commit: kafka-clients 3.7.0)",
    )
    onset = ts("2026-09-16T09:14")
    cg = inc.code(
        ts("2026-09-16T09:20"),
        "carrier-gateway",
        "fix(partners): forward EDI 214 pings with geofence ids",
        "internal/edi/status.go",
        "\tstatus.Location = ping.City",
        "\tstatus.Location = ping.City\n\tstatus.Geofence = ping.GeofenceID",
        140,
    )
    cg_deploy = inc.deploy(ts("2026-09-16T09:41"), "carrier-gateway")
    stack = java_stack(
        "java.lang.NullPointerException",
        'Cannot invoke "com.tidewater.telematics.Geofence.toEvent(com.tidewater.telematics.Ping)" because "fence" is null',
        [
            ("com.tidewater.telematics.GeofenceMatcher.match", "GeofenceMatcher.java", 54),
            ("com.tidewater.telematics.PingBatchHandler.handle", "PingBatchHandler.java", 88),
            (
                "org.springframework.kafka.listener.KafkaMessageListenerContainer$ListenerConsumer.doInvokeRecordListener",
                "KafkaMessageListenerContainer.java",
                2771,
            ),
        ],
    )
    inc.errors(
        "tracking-ingest",
        onset,
        now,
        1.2,
        lambda r: f"batch failed on telemetry.pings partition {r.randint(0, 11)}, retrying in 5s",
        exception="java.lang.NullPointerException",
        stack_trace=stack,
        logger="c.t.t.PingBatchHandler",
    )
    inc.errors(
        "eta-predictor",
        onset + 20 * MINUTE,
        now,
        0.5,
        "eta skipped: last position older than 15m",
        level="WARNING",
    )
    lag = ramp(onset, now, 800, 180000)
    inc.metric(
        "kafka_consumergroup_lag",
        "tracking-ingest",
        lag,
        labels={"topic": "telemetry.pings", "group": "tracking-ingest"},
        digits=0,
    )
    inc.fleet(tracking_ingest={"rps": times(step(onset, 1, 0.15)), "err": add(step(onset, 0, 0.8))})
    inc.alert = alerts.alertmanager(
        "TelemetryLagHigh",
        "tracking-ingest",
        ts("2026-09-16T09:58"),
        "warning",
        "tracking-ingest consumer lag above 50k on telemetry.pings",
        "kafka_consumergroup_lag is 61 204 (threshold 50 000).",
        'sum(kafka_consumergroup_lag{group="tracking-ingest"}) > 50000',
        team="telematics",
    )
    inc.blame(guilty, [release], "tracking-ingest", "code_defect", [bump, cg, cg_deploy], onset)
    return inc


def xt03_mapgrid_status_notice() -> ExtIncident:
    now = ts("2026-09-22T12:00")
    inc = ExtIncident(
        "xt03-mapgrid-status-notice",
        "route-planner plan latency p99 above 3s",
        """MapGrid, the geocoding provider route-planner calls, had degraded performance in its
        US-East region from 11:02 (status notice dated 2026-09-22T11:04:00Z, in the knowledge
        base). route-planner's calls to api.mapgrid.example time out and plans slow down. A
        route-planner deploy at 10:52 touched the MapGrid client's logging (it names the host),
        and a dispatch-api retry tweak landed at 11:20; neither changed behaviour.""",
        now,
        TIDEWATER,
        seed=2303,
    )
    inc.doc(
        "MapGrid status: Degraded performance - Geocoding API (US-East)",
        """MapGrid Status (status.mapgrid.example)
Degraded performance - Geocoding API (US-East)
2026-09-22T11:04:00Z Investigating - We are seeing elevated latency and timeouts for geocoding requests in US-East.
2026-09-22T11:37:00Z Identified - A storage node in us-east-2 is degraded; traffic is being shifted.
2026-09-22T11:58:00Z Monitoring - Latency is improving for most customers.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-09-22T10:20"), 9)
    c = inc.code(
        ts("2026-09-22T10:31"),
        "route-planner",
        "chore(routing): log api.mapgrid.example request ids at debug",
        "src/main/java/com/tidewater/routing/MapGridClient.java",
        "        Response res = http.send(req);\n        return parse(res);",
        '        Response res = http.send(req);\n        log.debug("mapgrid request id {}", res.header("X-Request-Id"));\n        return parse(res);',
        71,
    )
    d = inc.deploy(ts("2026-09-22T10:52"), "route-planner")
    onset = ts("2026-09-22T11:02")
    c2 = inc.code(
        ts("2026-09-22T11:20"),
        "dispatch-api",
        "fix(dispatch): jitter retry backoff for carrier status polls",
        "internal/carrier/poll.go",
        "\tbackoff := 2 * time.Second",
        "\tbackoff := 2*time.Second + time.Duration(rand.Intn(500))*time.Millisecond",
        58,
    )
    d2 = inc.deploy(ts("2026-09-22T11:33"), "dispatch-api")
    stack = java_stack(
        "java.net.http.HttpTimeoutException",
        "request timed out",
        [
            ("jdk.internal.net.http.HttpClientImpl.send", "HttpClientImpl.java", 573),
            ("com.tidewater.routing.MapGridClient.geocode", "MapGridClient.java", 70),
            ("com.tidewater.routing.LegPlanner.plan", "LegPlanner.java", 118),
        ],
    )
    inc.errors(
        "route-planner",
        onset,
        now,
        1.5,
        lambda r: (
            f"geocode failed for lane {r.choice(['CHI-ATL', 'DAL-MEM', 'NWK-PIT', 'LAX-PHX'])}: GET https://api.mapgrid.example/v4/geocode timed out after 2000ms"
        ),
        exception="java.net.http.HttpTimeoutException",
        stack_trace=stack,
    )
    inc.errors(
        "dispatch-api",
        onset + 4 * MINUTE,
        now,
        0.7,
        "route-planner slow: plan took 4.8s",
        level="WARNING",
    )
    inc.metric(
        "upstream_latency_p99_ms",
        "route-planner",
        step(onset, 240, 2600),
        labels={"upstream": "api.mapgrid.example"},
        jitter=0.1,
        digits=0,
    )
    inc.fleet(route_planner={"p99": floor(step(onset, 0, 4200)), "err": add(step(onset, 0, 0.07))})
    inc.alert = alerts.alertmanager(
        "PlanLatencyHigh",
        "route-planner",
        ts("2026-09-22T11:24"),
        "warning",
        "route-planner plan latency p99 above 3s",
        "p99 of /plan is 4.2s over 10m.",
        'histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{service="route-planner"}[5m]))) > 3',
        team="routing",
    )
    inc.outside(
        "MapGrid geocoding degraded (provider status notice 2026-09-22T11:04:00Z)",
        "route-planner",
        "dependency_failure",
        [c, d, c2, d2],
        onset,
    )
    return inc


def xt04_fleetdb_replica_iops() -> ExtIncident:
    now = ts("2026-09-18T03:40")
    inc = ExtIncident(
        "xt04-fleetdb-replica-iops",
        "fleetdb-2 replication lag above 120s",
        """The streaming replica fleetdb-2 ran out of gp3 burst IOPS during the nightly
        analytics export; WAL replay fell behind and replication lag climbed to 20 minutes.
        Nothing errored: shipper-portal reads from the replica and showed stale shipment
        positions, a handful of warnings said so. The only changes nearby are a yard-svc query
        tweak and a shipper-portal deploy; no database change.""",
        now,
        TIDEWATER,
        seed=2304,
    )
    inc.doc(
        "Runbook: fleetdb replication lag",
        """fleetdb-2 serves the portal's reads. Lag above 120 s: check replica disk IOPS and
volume queue length (the volume is 6000 provisioned IOPS gp3). If IOPS sit at the ceiling,
pause the analytics export (`twctl job pause analytics-export`) and wait; do not fail over.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-09-18T01:50"), 8)
    c = inc.code(
        ts("2026-09-18T02:10"),
        "yard-svc",
        "perf(yard): select only needed columns for dock-door list",
        "yard/repo/doors.py",
        '    rows = await db.fetch("SELECT * FROM dock_doors WHERE yard_id = $1", yard_id)',
        '    rows = await db.fetch("SELECT id, label, status FROM dock_doors WHERE yard_id = $1", yard_id)',
        23,
    )
    d = inc.deploy(ts("2026-09-18T02:26"), "yard-svc")
    c2 = inc.code(
        ts("2026-09-18T02:31"),
        "shipper-portal",
        "feat(portal): show last ping age on shipment card",
        "app/shipments/Card.tsx",
        "<Position value={s.position} />",
        "<Position value={s.position} age={s.pingAge} />",
        40,
    )
    d2 = inc.deploy(ts("2026-09-18T02:47"), "shipper-portal")
    onset = ts("2026-09-18T02:35")
    inc.errors(
        "shipper-portal",
        onset + 25 * MINUTE,
        now,
        0.3,
        lambda r: f"shipment S-{r.randint(10000, 99999)} position older than 10m (replica lag)",
        level="WARNING",
    )
    inc.metric(
        "pg_replication_lag_seconds",
        "fleetdb",
        ramp(onset, now, 0.4, 1250),
        labels={"instance": "fleetdb-2"},
        digits=1,
    )
    inc.metric(
        "disk_iops",
        "fleetdb",
        step(onset, 2100, 6000),
        labels={"instance": "fleetdb-2", "volume": "gp3"},
        jitter=0.02,
        digits=0,
    )
    inc.metric(
        "disk_queue_length",
        "fleetdb",
        step(onset, 0.6, 38),
        labels={"instance": "fleetdb-2"},
        digits=1,
    )
    inc.metric(
        "disk_iops",
        "fleetdb",
        lambda t: 2600,
        labels={"instance": "fleetdb-1", "volume": "gp3"},
        digits=0,
    )
    inc.fleet()
    inc.alert = alerts.alertmanager(
        "FleetdbReplicationLag",
        "fleetdb",
        ts("2026-09-18T03:05"),
        "warning",
        "fleetdb-2 replication lag above 120s",
        "pg_replication_lag_seconds is 540 on fleetdb-2.",
        'pg_replication_lag_seconds{instance="fleetdb-2"} > 120',
        team="platform",
    )
    inc.outside(
        "fleetdb-2 replica out of provisioned IOPS (analytics export)",
        "fleetdb",
        "resource_exhaustion",
        [c, d, c2, d2],
        onset,
    )
    return inc


# --- Fernbank Pay ------------------------------------------------------------------------------


def xt05_commons_retry_budget() -> ExtIncident:
    now = ts("2026-10-06T15:30")
    inc = ExtIncident(
        "xt05-commons-retry-budget",
        "ledger-svc p99 latency above 500ms",
        """fb-commons 7.4.0 raised the default retry budget of its HTTP client from 2 attempts to
        8 with no backoff cap. payments-gw picked the library up in its 14:02 build (its ships
        list names only its own commit). When Harbor Bank answered slowly, payments-gw retried
        every hold and posting call to ledger-svc eight times; ledger-svc's pool saturated and
        its latency alerted. card-auth built with the same library at 13:10 but makes no
        retried calls. A ledger-svc deploy about posting idempotency sits right before the
        onset.""",
        now,
        FERNBANK,
        seed=2305,
    )
    inc.doc(
        "Runbook: ledger-svc latency",
        """ledger-svc p99 above 500 ms: look at HikariCP active connections (max 40) and who is calling.
A caller retrying in a loop shows as a request rate jump with the same idempotency keys.
Mitigation: shed the caller (`fbctl ratelimit set ledger-svc --caller <svc> 50`).""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-06T12:30"), 10)
    lib = inc.code(
        ts("2026-10-06T12:48"),
        "fb-commons",
        "PLAT-2231 Raise default retry attempts for transient 5xx",
        "fb-commons-http/src/main/java/com/fernbank/commons/http/RetryPolicy.java",
        """    public static RetryPolicy defaults() {
        return new RetryPolicy(2, Duration.ofMillis(200), Duration.ofSeconds(2));
    }""",
        """    public static RetryPolicy defaults() {
        return new RetryPolicy(8, Duration.ofMillis(50), null); // no cap: let callers decide
    }""",
        40,
        author="p.lindgren",
    )
    ca = inc.code(
        ts("2026-10-06T12:55"),
        "card-auth",
        "CARD-1881 Bump fb-commons to 7.4.0",
        "build.gradle.kts",
        'implementation("com.fernbank:fb-commons-http:7.3.2")',
        'implementation("com.fernbank:fb-commons-http:7.4.0")',
        18,
    )
    ca_deploy = inc.deploy(ts("2026-10-06T13:10"), "card-auth")
    pg = inc.code(
        ts("2026-10-06T13:40"),
        "payments-gw",
        "PAY-1204 Show Harbor Bank reference on transfer receipts",
        "src/main/java/com/fernbank/payments/Receipt.java",
        "        return new Receipt(transfer.id(), transfer.amount());",
        "        return new Receipt(transfer.id(), transfer.amount(), transfer.bankRef());",
        29,
    )
    pg_deploy = inc.deploy(
        ts("2026-10-06T14:02"),
        "payments-gw",
        summary="Deploy payments-gw to production (1 commit; fb-commons 7.4.0 picked up by the build)",
    )
    led = inc.code(
        ts("2026-10-06T13:51"),
        "ledger-svc",
        "LEDG-2410 Reject posting retries with a different amount",
        "src/main/java/com/fernbank/ledger/PostingService.java",
        "        if (existing != null) return existing;",
        "        if (existing != null) {\n            if (!existing.amount().equals(req.amount())) throw new IdempotencyConflict(req.key());\n            return existing;\n        }",
        66,
    )
    led_deploy = inc.deploy(ts("2026-10-06T14:11"), "ledger-svc")
    onset = ts("2026-10-06T14:20")
    inc.errors(
        "payments-gw",
        onset,
        now,
        2.5,
        lambda r: (
            f"POST ledger-svc /postings attempt {r.randint(3, 8)}/8 failed: 503, retrying in 50ms"
        ),
        level="WARNING",
        caller="RetryingHttpClient",
    )
    inc.errors(
        "ledger-svc",
        onset + 6 * MINUTE,
        now,
        2.0,
        "HikariPool-1 - Connection is not available, request timed out after 3000ms.",
        exception="java.sql.SQLTransientConnectionException",
        stack_trace=java_stack(
            "java.sql.SQLTransientConnectionException",
            "HikariPool-1 - Connection is not available, request timed out after 3000ms.",
            [
                (
                    "com.zaxxer.hikari.pool.HikariPool.createTimeoutException",
                    "HikariPool.java",
                    696,
                ),
                ("com.fernbank.ledger.PostingService.post", "PostingService.java", 61),
            ],
        ),
    )
    inc.metric(
        "hikaricp_connections_active",
        "ledger-svc",
        step(onset, 9, 40),
        labels={"pool": "HikariPool-1"},
        jitter=0.05,
        digits=0,
    )
    inc.metric(
        "http_client_requests_per_second",
        "payments-gw",
        step(onset, 30, 240),
        labels={"target": "ledger-svc"},
        digits=1,
    )
    inc.metric(
        "upstream_latency_p99_ms",
        "payments-gw",
        step(onset - 10 * MINUTE, 420, 1900),
        labels={"upstream": "api.harborbank.example"},
        digits=0,
    )
    inc.fleet(
        ledger_svc={
            "rps": times(step(onset, 1, 3.2)),
            "p99": floor(step(onset, 0, 2900)),
            "err": add(step(onset + 6 * MINUTE, 0, 0.06)),
        }
    )
    inc.alert = alerts.datadog(
        "ledger-svc p99 latency above 500ms",
        "ledger-svc",
        ts("2026-10-06T14:38"),
        "critical",
        "p99:trace.servlet.request{service:ledger-svc}",
        2.9,
        0.5,
        ["team:ledger"],
    )
    inc.blame(
        lib, [pg_deploy], "payments-gw", "code_defect", [ca, ca_deploy, led, led_deploy, pg], onset
    )
    return inc


def xt06_harbor_mtls_expired() -> ExtIncident:
    now = ts("2026-10-09T09:20")
    inc = ExtIncident(
        "xt06-harbor-mtls-expired",
        "Outgoing transfers failing (payments-gw error rate above 10%)",
        """Harbor Bank's server certificate for api.harborbank.example expired at 08:00 UTC; the
        bank had announced a rotation that did not happen. Every transfer handshake failed with
        PKIX/certificate-expired errors from 08:00. payments-gw deployed a change to its TLS
        logging (naming the bank's host and "handshake") at 07:46 and a retry flag was flipped at
        08:09; neither is the cause.""",
        now,
        FERNBANK,
        seed=2306,
    )
    inc.doc(
        "Harbor Bank partner notice: certificate rotation",
        """Harbor Bank API partners notice, 2026-09-25
We will rotate the server certificate of api.harborbank.example before the current one expires on
2026-10-09T08:00:00Z. No action is needed from partners who trust the Harbor Bank Root CA G2.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-09T07:10"), 9)
    c = inc.code(
        ts("2026-10-09T07:22"),
        "payments-gw",
        "PAY-1219 Log TLS handshake failures to api.harborbank.example with the peer chain",
        "src/main/java/com/fernbank/payments/bank/HarborClient.java",
        "        } catch (SSLHandshakeException e) {\n            throw new BankUnavailable(e);",
        '        } catch (SSLHandshakeException e) {\n            log.warn("handshake failed with {}", host, e);\n            throw new BankUnavailable(e);',
        112,
    )
    d = inc.deploy(ts("2026-10-09T07:46"), "payments-gw")
    onset = ts("2026-10-09T08:00")
    f = inc.flag(
        ts("2026-10-09T08:09"),
        "payments-gw",
        "payments.bank_retry_on_5xx",
        "enabled: false",
        "enabled: true",
        "Retry Harbor Bank 5xx once",
    )
    stack = java_stack(
        "javax.net.ssl.SSLHandshakeException",
        "PKIX path validation failed: java.security.cert.CertPathValidatorException: validity check failed",
        [
            ("sun.security.ssl.Alert.createSSLException", "Alert.java", 131),
            ("com.fernbank.payments.bank.HarborClient.submit", "HarborClient.java", 109),
            ("com.fernbank.payments.TransferService.execute", "TransferService.java", 74),
        ],
    )
    inc.errors(
        "payments-gw",
        onset,
        now,
        1.5,
        lambda r: (
            f"transfer T-{r.getrandbits(28):07x} failed: bank unavailable (handshake with api.harborbank.example)"
        ),
        exception="javax.net.ssl.SSLHandshakeException",
        stack_trace=stack,
        cause="java.security.cert.CertificateExpiredException: NotAfter: Fri Oct 09 08:00:00 UTC 2026",
    )
    inc.errors(
        "app-bff",
        onset + 2 * MINUTE,
        now,
        1.0,
        "POST /transfers -> 502 from payments-gw",
        level="WARNING",
    )
    inc.metric(
        "tls_handshake_failures_per_second",
        "payments-gw",
        step(onset, 0, 0.9),
        labels={"peer": "api.harborbank.example"},
        digits=2,
    )
    inc.fleet(
        payments_gw={"err": add(step(onset, 0, 0.93))}, app_bff={"err": add(step(onset, 0, 0.03))}
    )
    inc.alert = alerts.datadog(
        "Outgoing transfers failing (payments-gw error rate above 10%)",
        "payments-gw",
        ts("2026-10-09T08:12"),
        "critical",
        "sum:trace.http.request.errors{service:payments-gw}.as_rate() / sum:trace.http.request.hits{service:payments-gw}.as_rate()",
        0.93,
        0.1,
        ["team:payments"],
    )
    inc.outside(
        "Harbor Bank server certificate expired 2026-10-09T08:00:00Z",
        "payments-gw",
        "dependency_failure",
        [c, d, f],
        onset,
    )
    return inc


def xt07_kyc_latency_noisy() -> ExtIncident:
    now = ts("2026-10-12T16:00")
    inc = ExtIncident(
        "xt07-kyc-latency-noisy",
        "kyc-svc p99 latency above 2.5s",
        """Nothing is wrong. kyc-svc's p99 sits around 2.2-2.6 s all day because VeriPass document
        checks are slow by nature; the monitor's 2.5 s threshold is inside that band and it has
        fired and resolved a dozen times this week. Error ratio and request rate are flat. A
        kyc-svc deploy and a VeriPass timeout config change nearby are routine.""",
        now,
        FERNBANK,
        seed=2307,
    )
    inc.doc(
        "Runbook: kyc-svc",
        """kyc-svc p99 is normally 2-3 s (VeriPass document checks). Act only when the error ratio
rises above 2% or verifications queue up. Monitor: `kyc-svc p99 latency above 2.5s` (owner: Onboarding).""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-12T14:20"), 10)
    c = inc.code(
        ts("2026-10-12T14:31"),
        "kyc-svc",
        "RISK-1550 Store VeriPass decision reason codes",
        "kyc/veripass/client.py",
        "    return Decision(status=body['status'])",
        "    return Decision(status=body['status'], reasons=body.get('reasons', []))",
        61,
    )
    d = inc.deploy(ts("2026-10-12T14:52"), "kyc-svc")
    cfg = inc.config(
        ts("2026-10-12T15:05"),
        "kyc-svc",
        "kyc-svc: VeriPass read timeout 10s -> 12s",
        "kyc-svc/values-prod.yaml",
        "veripass:\n  read_timeout_s: 10",
        "veripass:\n  read_timeout_s: 12",
        line=14,
    )
    inc.fleet(kyc_svc={"p99": lambda t, v: 2350 + 250 * ((t.minute // 4) % 3 - 1)})
    inc.alert = alerts.datadog(
        "kyc-svc p99 latency above 2.5s",
        "kyc-svc",
        ts("2026-10-12T15:48"),
        "warning",
        "p99:trace.flask.request{service:kyc-svc}",
        2.56,
        2.5,
        ["team:onboarding"],
    )
    inc.healthy(
        "kyc-svc",
        "noisy: the threshold sits inside the normal p99 band; error ratio flat",
        [c, d, cfg],
        ts("2026-10-12T15:44"),
    )
    return inc


def xt08_ledger_config_rename() -> ExtIncident:
    now = ts("2026-10-14T11:10")
    inc = ExtIncident(
        "xt08-ledger-config-rename",
        "ledger-svc available replicas below 3",
        """A config change renamed `ledger.posting.maxLegs` to `ledger.postings.max-legs` in the
        production values; the running code still binds the old key and refuses to start
        without it. Only the new pods failed: four FATAL lines and CrashLoopBackOff events,
        the old replicas kept serving, so errors are few. A fb-commons bump and a card-auth
        deploy are nearby.""",
        now,
        FERNBANK,
        seed=2308,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-14T09:40"), 9)
    bump = inc.code(
        ts("2026-10-14T09:52"),
        "ledger-svc",
        "LEDG-2440 Bump micrometer to 1.13.1",
        "build.gradle.kts",
        'implementation("io.micrometer:micrometer-core:1.13.0")',
        'implementation("io.micrometer:micrometer-core:1.13.1")',
        22,
    )
    bd = inc.deploy(ts("2026-10-14T10:05"), "ledger-svc")
    cfg = inc.config(
        ts("2026-10-14T10:21"),
        "ledger-svc",
        "ledger-svc: tidy posting keys (kebab-case)",
        "ledger-svc/values-prod.yaml",
        "ledger:\n  posting:\n    maxLegs: 12\n    holdTtl: 7d",
        "ledger:\n  postings:\n    max-legs: 12\n    hold-ttl: 7d",
        line=30,
    )
    onset = ts("2026-10-14T10:24")
    ca = inc.code(
        ts("2026-10-14T10:30"),
        "card-auth",
        "CARD-1902 Decline with rc=61 over posting limits",
        "src/main/kotlin/com/fernbank/cards/Limits.kt",
        "    else -> Decision.Approve",
        '    amount > limit -> Decision.Decline("61")\n    else -> Decision.Approve',
        33,
    )
    cad = inc.deploy(ts("2026-10-14T10:44"), "card-auth")
    msg = (
        "APPLICATION FAILED TO START: Binding to target [Bindable@ledger.posting] failed: "
        "Property: ledger.posting.maxLegs, Reason: must not be null"
    )
    for k, minute in enumerate((25, 27, 31, 38)):
        inc.log(
            onset + minute * MINUTE - 24 * MINUTE,
            "ledger-svc",
            "CRITICAL",
            msg,
            pod=f"ledger-svc-6b9d4-x{k}7",
            exception="org.springframework.boot.context.properties.bind.validation.BindValidationException",
        )
    for k, minute in enumerate((26, 28, 33, 40, 49)):
        inc.log(
            onset + minute * MINUTE - 24 * MINUTE,
            "k8s-events",
            "WARNING",
            f"Back-off restarting failed container ledger-svc in pod ledger-svc-6b9d4-x{k % 4}7",
            reason="BackOff",
            namespace="ledger",
        )
    inc.metric(
        "kube_deployment_status_replicas_available",
        "ledger-svc",
        step(onset, 6, 2),
        digits=0,
        jitter=0,
    )
    inc.metric(
        "kube_pod_container_status_restarts_total",
        "ledger-svc",
        ramp(onset, now, 0, 14),
        digits=0,
        jitter=0,
    )
    inc.fleet(ledger_svc={"p99": add(step(onset, 0, 60))})
    inc.alert = alerts.datadog(
        "ledger-svc available replicas below 3",
        "ledger-svc",
        ts("2026-10-14T10:41"),
        "critical",
        "min:kubernetes_state.deployment.replicas_available{kube_deployment:ledger-svc}",
        2,
        3,
        ["team:ledger"],
    )
    inc.blame(cfg, [], "ledger-svc", "configuration_error", [bump, bd, ca, cad], onset)
    return inc


# --- Bramblewood Games --------------------------------------------------------------------------


def xt09_season_launch_surge() -> ExtIncident:
    now = ts("2026-11-05T18:40")
    inc = ExtIncident(
        "xt09-season-launch-surge",
        "Matchmaking time-to-match p95 above 90s",
        """Season 7 launched at 17:00 UTC (release calendar in the knowledge base); concurrent
        players tripled and ticket creation went from 220/s to 700/s. matchmaker's Redis ticket
        pool hit maxclients and time-to-match climbed. No code caused it; a matchmaker deploy
        with a "ticket pool" logging change went out at 16:48 and a lobby-gw flag flipped at
        17:05.""",
        now,
        BRAMBLEWOOD,
        seed=2309,
    )
    inc.doc(
        "Live-ops calendar: November",
        """| Date | Time (UTC) | Event |
|---|---|---|
| 2026-11-05 | 17:00 | Season 7 "Emberfall" launch, all platforms (expect 3x CCU) |
| 2026-11-12 | 18:00 | Double XP weekend starts |
| 2026-11-19 | 16:00 | Store refresh |""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-05T16:10"), 10)
    c = inc.code(
        ts("2026-11-05T16:21"),
        "matchmaker",
        "[matchmaker] Log ticket pool size per region",
        "internal/pool/pool.go",
        "\tp.tickets[t.Region] = append(p.tickets[t.Region], t)",
        '\tp.tickets[t.Region] = append(p.tickets[t.Region], t)\n\tp.log.Debug("ticket pool", "region", t.Region, "size", len(p.tickets[t.Region]))',
        88,
    )
    d = inc.deploy(ts("2026-11-05T16:48"), "matchmaker")
    onset = ts("2026-11-05T17:00")
    f = inc.flag(
        ts("2026-11-05T17:05"),
        "lobby-gw",
        "lobby.season7_banner",
        "enabled: false",
        "enabled: true",
        "Show the Season 7 banner in lobbies",
    )
    inc.errors(
        "matchmaker",
        onset + 8 * MINUTE,
        now,
        2.0,
        "ticket pool write failed: ERR max number of clients reached (mm-redis:6379)",
        error="redis: ERR max number of clients reached",
    )
    inc.errors(
        "matchmaker",
        onset + 2 * MINUTE,
        now,
        3.0,
        lambda r: (
            f"ticket waited {r.randint(95, 240)}s in region {r.choice(['usw', 'use', 'euw'])}"
        ),
        level="WARNING",
    )
    surge = step(onset, 1, 3.1)
    inc.metric("concurrent_players", "lobby-gw", lambda t: 48000 * surge(t), digits=0)
    inc.metric(
        "redis_connected_clients",
        "matchmaker",
        step(onset + 8 * MINUTE, 3100, 10000),
        labels={"instance": "mm-redis"},
        digits=0,
        jitter=0.01,
    )
    inc.metric("time_to_match_p95_s", "matchmaker", step(onset, 28, 140), digits=0)
    inc.fleet(
        matchmaker={"rps": times(surge), "err": add(step(onset + 8 * MINUTE, 0, 0.04))},
        lobby_gw={"rps": times(surge)},
        player_profile={"rps": times(surge)},
    )
    inc.alert = alerts.grafana(
        "Matchmaking time-to-match p95 above 90s",
        "matchmaker",
        ts("2026-11-05T17:20"),
        "critical",
        "Time to match (p95)",
        "140s",
        team="online",
    )
    inc.outside(
        "Season 7 launch traffic surge (3x concurrent players)",
        "matchmaker",
        "resource_exhaustion",
        [c, d, f],
        onset,
    )
    return inc


def xt10_leaderboard_ttl() -> ExtIncident:
    now = ts("2026-11-08T20:30")
    inc = ExtIncident(
        "xt10-leaderboard-ttl",
        "leaderboard-svc p99 above 400ms",
        """A leaderboard-svc commit moved the board-page cache TTL into a constant and wrote it
        in seconds where the cache takes milliseconds (BOARD_PAGE_TTL = 60 meaning 60 s became
        60 ms). Every request missed the cache and went to statsdb; latency and statsdb CPU
        climbed after the 19:10 deploy. A later leaderboard-svc deploy only added cache-hit
        metrics (its summary says "leaderboard cache"), the latest change before the alert.""",
        now,
        BRAMBLEWOOD,
        seed=2310,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-08T18:30"), 10)
    guilty = inc.code(
        ts("2026-11-08T18:42"),
        "leaderboard-svc",
        "[leaderboard] Pull board page TTL into a named constant",
        "src/boards/pageCache.ts",
        "export async function getBoardPage(season: string, page: number) {\n  return cache.wrap(`board:${season}:${page}`, () => loadPage(season, page), { ttl: 60_000 });\n}",
        "const BOARD_PAGE_TTL = 60; // one minute\n\nexport async function getBoardPage(season: string, page: number) {\n  return cache.wrap(`board:${season}:${page}`, () => loadPage(season, page), { ttl: BOARD_PAGE_TTL });\n}",
        12,
        author="yuki.m",
    )
    gd = inc.deploy(ts("2026-11-08T19:10"), "leaderboard-svc")
    onset = ts("2026-11-08T19:12")
    dc = inc.code(
        ts("2026-11-08T19:24"),
        "leaderboard-svc",
        "[leaderboard] Leaderboard cache hit/miss counters",
        "src/metrics.ts",
        "export const boardRequests = new Counter({ name: 'board_requests_total' });",
        "export const boardRequests = new Counter({ name: 'board_requests_total' });\nexport const boardCache = new Counter({ name: 'board_cache_total', labelNames: ['result'] });",
        8,
    )
    dd = inc.deploy(ts("2026-11-08T19:41"), "leaderboard-svc")
    pc = inc.code(
        ts("2026-11-08T19:02"),
        "player-profile",
        "[profile] Cache loadouts for 30s",
        "internal/loadout/cache.go",
        "\tttl := 10 * time.Second",
        "\tttl := 30 * time.Second",
        19,
    )
    pd = inc.deploy(ts("2026-11-08T19:20"), "player-profile")
    stack = node_stack(
        "Error",
        "statsdb query timeout after 2000ms",
        [
            ("loadPage", "/app/dist/boards/pageCache.js", 21, 11),
            ("Cache.wrap", "/app/node_modules/cache-manager/dist/caching.js", 88, 24),
            ("getBoardPage", "/app/dist/boards/pageCache.js", 14, 16),
        ],
    )
    inc.errors(
        "leaderboard-svc",
        onset + 15 * MINUTE,
        now,
        1.5,
        "GET /boards/{season} failed: statsdb query timeout after 2000ms",
        err={"type": "Error", "stack": stack},
    )
    inc.metric(
        "cache_hit_ratio",
        "leaderboard-svc",
        step(onset, 0.97, 0.02),
        labels={"cache": "board-pages"},
        jitter=0.01,
    )
    inc.metric("db_cpu_percent", "statsdb", step(onset, 22, 94), jitter=0.04, digits=1)
    inc.fleet(
        leaderboard_svc={
            "p99": floor(step(onset, 0, 950)),
            "err": add(step(onset + 15 * MINUTE, 0, 0.02)),
        }
    )
    inc.alert = alerts.grafana(
        "leaderboard-svc p99 above 400ms",
        "leaderboard-svc",
        ts("2026-11-08T19:50"),
        "warning",
        "Leaderboard p99",
        "950ms",
        team="competitive",
    )
    inc.blame(guilty, [gd], "leaderboard-svc", "code_defect", [dc, dd, pc, pd], onset)
    return inc


def xt11_node_memory_pressure() -> ExtIncident:
    now = ts("2026-11-10T07:02")
    inc = ExtIncident(
        "xt11-node-memory-pressure",
        "chat-gw pods evicted (prod-euw1)",
        """Kubernetes node ip-10-42-7-19 in node group ng-game (prod-euw1) came under memory
        pressure after a kernel page-cache leak on the node (an AMI issue, nothing deployed);
        the kubelet evicted chat-gw and lobby-gw pods on it and they were rescheduled elsewhere.
        Brief disconnects, few errors. A chat-gw deploy (profanity filter) and a matchmaker
        commit sit nearby.""",
        now,
        BRAMBLEWOOD,
        seed=2311,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-10T05:50"), 9)
    c = inc.code(
        ts("2026-11-10T06:02"),
        "chat-gw",
        "[chat] Update profanity word list (de, pl)",
        "src/filter/words.json",
        '  "de": 412,',
        '  "de": 431,',
        3,
    )
    d = inc.deploy(ts("2026-11-10T06:20"), "chat-gw")
    m = inc.code(
        ts("2026-11-10T06:31"),
        "matchmaker",
        "[matchmaker] Widen MMR window after 60s",
        "internal/match/window.go",
        "\tif waited > 90*time.Second {",
        "\tif waited > 60*time.Second {",
        44,
    )
    md = inc.deploy(ts("2026-11-10T06:49"), "matchmaker")
    onset = ts("2026-11-10T06:38")
    node = "ip-10-42-7-19.eu-west-1.compute.internal"
    inc.log(
        onset,
        "k8s-events",
        "WARNING",
        f"Node {node} status is now: NodeHasInsufficientMemory",
        reason="NodeHasInsufficientMemory",
        kind="Node",
    )
    for k, (svc, minute) in enumerate(
        [("chat-gw", 3), ("lobby-gw", 4), ("chat-gw", 6), ("lobby-gw", 9), ("chat-gw", 12)]
    ):
        inc.log(
            onset + minute * MINUTE,
            "k8s-events",
            "WARNING",
            f"The node was low on resource: memory. Container {svc} was using 410Mi, which exceeds its request of 256Mi.",
            reason="Evicted",
            pod=f"{svc}-8c7f6-e{k}2",
            node=node,
        )
    inc.errors(
        "chat-gw",
        onset + 3 * MINUTE,
        onset + 14 * MINUTE,
        0.6,
        "websocket closed (1001 going away): pod terminating",
        level="WARNING",
    )
    inc.log(
        onset + 13 * MINUTE,
        "chat-gw",
        "ERROR",
        "failed to deliver 12 buffered messages: socket closed",
    )
    inc.metric(
        "node_memory_available_bytes",
        "k8s",
        lambda t: 9.5e9 if t < onset else 0.3e9,
        labels={"node": node},
        digits=0,
        jitter=0.02,
    )
    inc.metric(
        "kube_pod_evictions_total",
        "k8s",
        ramp(onset, onset + 12 * MINUTE, 0, 5),
        labels={"node": node},
        digits=0,
        jitter=0,
    )
    inc.fleet(chat_gw={"err": add(step(onset, 0, 0.01, onset + 15 * MINUTE))})
    inc.alert = alerts.grafana(
        "chat-gw pods evicted (prod-euw1)",
        "chat-gw",
        ts("2026-11-10T06:52"),
        "warning",
        "Pod evictions",
        "5",
        cluster="prod-euw1",
    )
    inc.outside(
        "node ip-10-42-7-19 memory pressure (kubelet evictions)",
        "chat-gw",
        "infrastructure",
        [c, d, m, md],
        onset,
    )
    return inc


# --- Corvid Media -------------------------------------------------------------------------------


def xt12_poison_mezzanine() -> ExtIncident:
    now = ts("2026-09-29T05:00")
    inc = ExtIncident(
        "xt12-poison-mezzanine",
        "ingest.jobs backlog above 200",
        """One mezzanine file from a studio delivery (title tt-40417) has a 0/0 frame rate in its
        container header; transcode-worker divides by it, crashes on the job, the job is
        redelivered and every worker slot keeps picking it up again. The backlog of ingest.jobs
        grows. A transcode-worker commit about frame-rate rounding (same words as the
        traceback) was deployed hours earlier and is fine for every other file.""",
        now,
        CORVID,
        seed=2312,
    )
    inc.doc(
        "Runbook: ingest backlog",
        """ingest.jobs backlog above 200: check transcode-worker for a job that fails repeatedly (same
job id in every error). Move it aside: `corvid-ingest park <job_id>` and open a ticket with the
studio's delivery team. Do not scale workers up for a poison job.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-09-29T01:00"), 9)
    c = inc.code(
        ts("2026-09-29T01:12"),
        "transcode-worker",
        "Round fractional frame rates to 3 decimals",
        "transcode/probe.py",
        "    fps = num / den",
        "    fps = round(num / den, 3)",
        48,
    )
    d = inc.deploy(ts("2026-09-29T01:35"), "transcode-worker")
    c2 = inc.code(
        ts("2026-09-29T03:40"),
        "catalog-api",
        "Hide titles whose renditions are still processing",
        "src/rows/home.ts",
        "rows.filter(isPublished)",
        "rows.filter(isPublished).filter(hasRenditions)",
        31,
    )
    d2 = inc.deploy(ts("2026-09-29T03:58"), "catalog-api")
    onset = ts("2026-09-29T03:31")
    stack = py_stack(
        "ZeroDivisionError",
        "division by zero",
        [
            (
                "/app/transcode/worker.py",
                142,
                "handle_job",
                "plan = build_ladder(probe(job.source))",
            ),
            ("/app/transcode/probe.py", 48, "probe", "fps = round(num / den, 3)"),
        ],
    )
    inc.errors(
        "transcode-worker",
        onset,
        now,
        1.2,
        "job ing-7f3a91 failed (tt-40417/mezzanine_v2.mxf), redelivering",
        exc_info=stack,
        job_id="ing-7f3a91",
        title="tt-40417",
    )
    inc.metric(
        "queue_depth",
        "transcode-worker",
        ramp(onset, now, 12, 460),
        labels={"queue": "ingest.jobs"},
        digits=0,
    )
    inc.fleet(
        transcode_worker={"rps": times(step(onset, 1, 0.05)), "err": add(step(onset, 0, 0.9))}
    )
    inc.alert = alerts.generic(
        "ingest.jobs backlog above 200",
        "transcode-worker",
        ts("2026-09-29T04:21"),
        "P2",
        {
            "source": "opsgenie",
            "alias": "ingest-backlog",
            "message": "ingest.jobs depth 231 > 200",
            "tags": ["team:media-pipeline"],
        },
    )
    inc.outside(
        "poison mezzanine file tt-40417 (0/0 frame rate) redelivered",
        "transcode-worker",
        "data_quality",
        [c, d, c2, d2],
        onset,
    )
    return inc


def xt13_license_recovered() -> ExtIncident:
    now = ts("2026-10-02T13:30")
    inc = ExtIncident(
        "xt13-license-recovered",
        "license-svc error rate above 1%",
        """The alert arrived 70 minutes late: a 3-minute burst of Widevine license errors at
        12:05-12:08 while Vault's leader election ran (routine) resolved itself; error ratio
        has been at baseline since 12:09 and nothing needed doing. The notification was
        delayed by the paging provider. A license-svc deploy at 12:40 and a key-ring config
        change came after the blip.""",
        now,
        CORVID,
        seed=2313,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-02T11:30"), 9)
    blip, end = ts("2026-10-02T12:05"), ts("2026-10-02T12:08")
    inc.errors(
        "license-svc",
        blip,
        end,
        4.0,
        "widevine license failed: vault: 503 Service Unavailable (leader election)",
        exception="com.corvid.drm.KeyRingUnavailable",
    )
    inc.log(blip - MINUTE, "license-svc", "WARNING", "vault leader changed: vault-1 -> vault-2")
    c = inc.code(
        ts("2026-10-02T12:20"),
        "license-svc",
        "Include device security level in license metrics (#4711)",
        "src/main/java/com/corvid/drm/LicenseMetrics.java",
        "        issued.increment();",
        '        issued.tag("level", level).increment();',
        27,
    )
    d = inc.deploy(ts("2026-10-02T12:40"), "license-svc")
    cfg = inc.config(
        ts("2026-10-02T12:55"),
        "license-svc",
        "license-svc: key-ring cache 5m -> 10m",
        "license-svc/values-prod.yaml",
        "keyring:\n  cache_ttl: 5m",
        "keyring:\n  cache_ttl: 10m",
        line=9,
    )
    inc.fleet(license_svc={"err": add(step(blip, 0, 0.2, end + MINUTE))})
    inc.alert = alerts.generic(
        "license-svc error rate above 1%",
        "license-svc",
        ts("2026-10-02T13:18"),
        "P3",
        {
            "source": "opsgenie",
            "alias": "license-errors",
            "message": "license-svc 5xx ratio 21% (window 12:04-12:09)",
            "createdAt": "2026-10-02T12:06:00Z",
            "tags": ["team:drm"],
        },
    )
    inc.healthy(
        "license-svc",
        "recovered: a 3-minute blip at 12:05 ended on its own; the alert was delivered late",
        [c, d, cfg],
        blip,
    )
    return inc


def xt14_catalog_row_query() -> ExtIncident:
    now = ts("2026-10-20T19:50")
    inc = ExtIncident(
        "xt14-catalog-row-query",
        "catalog-api p99 above 1s on /rows/home",
        """A catalog-api commit rewrote the home-row query and dropped the `region = $1` filter
        from the availability join (the region is applied in JavaScript afterwards), so
        catalogdb scans every region's availability rows; CPU on catalogdb climbs and /rows/home
        slows from the 18:20 deploy. A busy evening of innocent changes surrounds it: artwork,
        recs, playback and accounts deploys, a recs flag, a catalog-api deploy of a "home rows"
        copy change after the onset.""",
        now,
        CORVID,
        seed=2314,
        hours=8,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-20T17:40"), 22)
    guilty = inc.code(
        ts("2026-10-20T17:55"),
        "catalog-api",
        "Simplify home row availability query (#4820)",
        "src/rows/queries.ts",
        "  SELECT t.id, t.name FROM titles t\n  JOIN availability a ON a.title_id = t.id AND a.region = $1\n  WHERE t.row_id = $2",
        "  SELECT t.id, t.name, a.region FROM titles t\n  JOIN availability a ON a.title_id = t.id\n  WHERE t.row_id = $1",
        44,
        author="lena.ortiz",
    )
    gd = inc.deploy(ts("2026-10-20T18:20"), "catalog-api")
    onset = ts("2026-10-20T18:22")
    decoys = []
    for t, svc, subject, path, old, new, line in [
        (
            "2026-10-20T18:05",
            "recs-svc",
            "Boost recently added titles in home rows (#4822)",
            "recs/rank.py",
            "score = base",
            "score = base + 0.1 * is_new",
            30,
        ),
        (
            "2026-10-20T18:30",
            "playback-api",
            "Log rows source on playback start (#4825)",
            "playback/views.py",
            "log.info('start')",
            "log.info('start', extra={'row': row_id})",
            80,
        ),
        (
            "2026-10-20T18:44",
            "catalog-api",
            "Copy: rename 'Because you watched' home rows (#4827)",
            "src/rows/labels.ts",
            "'Because you watched'",
            "'More like'",
            12,
        ),
        (
            "2026-10-20T18:50",
            "accounts-api",
            "Return maturity level with profile (#4828)",
            "internal/profile/get.go",
            "\treturn p, nil",
            "\tp.Maturity = row.Maturity\n\treturn p, nil",
            61,
        ),
    ]:
        cid = inc.code(ts(t), svc, subject, path, old, new, line)
        decoys += [cid, inc.deploy(ts(t) + 14 * MINUTE, svc)]
    decoys.append(
        inc.flag(
            ts("2026-10-20T18:12"),
            "recs-svc",
            "recs.home_row_count",
            "value: 12",
            "value: 14",
            "Two more home rows for 10% of profiles",
        )
    )
    inc.errors(
        "catalog-api",
        onset + 20 * MINUTE,
        now,
        0.8,
        "GET /rows/home 504: statement timeout (canceling statement due to statement timeout)",
        err={
            "code": "57014",
            "stack": node_stack(
                "error",
                "canceling statement due to statement timeout",
                [
                    ("homeRows", "/app/dist/rows/queries.js", 47, 9),
                    ("handler", "/app/dist/rows/home.js", 22, 18),
                ],
            ),
        },
    )
    inc.metric("db_cpu_percent", "catalogdb", step(onset, 31, 92), digits=1)
    inc.metric("pg_stat_rows_read_per_second", "catalogdb", step(onset, 42000, 2600000), digits=0)
    inc.fleet(
        catalog_api={
            "p99": floor(step(onset, 0, 1800)),
            "err": add(step(onset + 20 * MINUTE, 0, 0.01)),
        }
    )
    inc.alert = alerts.generic(
        "catalog-api p99 above 1s on /rows/home",
        "catalog-api",
        ts("2026-10-20T19:02"),
        "P2",
        {
            "source": "opsgenie",
            "alias": "catalog-rows-latency",
            "message": "p99 1.8s on /rows/home",
            "tags": ["team:catalog"],
        },
    )
    inc.blame(guilty, [gd], "catalog-api", "code_defect", decoys, onset)
    return inc


# --- Larkspur Health ----------------------------------------------------------------------------


def xt15_visit_pool_values() -> ExtIncident:
    now = ts("2026-11-03T11:20")
    inc = ExtIncident(
        "xt15-visit-pool-values",
        "visit-api check-in errors above 3%",
        """A visit-api commit meant for the pgbouncer migration lowered DB_POOL_MAX in the
        production Helm values from 30 to 6 (and noted it in the changelog); the 10:02 release
        shipped it together with a reminder-lookup commit that reuses the SQLAlchemy session.
        From 10:05 check-ins queued for a connection and timed out. Nothing changed in the
        code that talks to the database.""",
        now,
        LARKSPUR,
        seed=2315,
    )
    inc.doc(
        "Runbook: visit-api check-in errors",
        """Check-in errors usually mean caredb is slow or the app's pool is exhausted. Compare
pgbouncer cl_waiting with the pool size in helm/visit-api/values-prod.yaml. Roll back with
`lark deploy rollback visit-api`.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-03T09:10"), 9)
    cfg = inc.commit(
        ts("2026-11-03T09:31"),
        "visit-api",
        "Size visit-api pool for pgbouncer transaction mode",
        [
            (
                "helm/visit-api/values-prod.yaml",
                'env:\n  DB_POOL_MAX: "30"\n  DB_POOL_TIMEOUT_S: "10"',
                'env:\n  DB_POOL_MAX: "6"\n  DB_POOL_TIMEOUT_S: "10"',
                14,
            ),
            (
                "CHANGELOG.md",
                "## Unreleased\n",
                "## Unreleased\n\n- Smaller pool behind pgbouncer\n",
                1,
            ),
        ],
        author="tpetrakis",
    )
    other = inc.code(
        ts("2026-11-03T09:44"),
        "visit-api",
        "Reuse the request session for visit reminder lookups",
        "app/visits/reminders.py",
        "def due_reminders(visit_id):\n    with SessionLocal() as session:\n        return session.scalars(select(Reminder).where(Reminder.visit_id == visit_id)).all()",
        "def due_reminders(session, visit_id):\n    return session.scalars(select(Reminder).where(Reminder.visit_id == visit_id)).all()",
        20,
        author="wen.zhou",
    )
    release = inc.deploy(ts("2026-11-03T10:02"), "visit-api")
    onset = ts("2026-11-03T10:05")
    late = inc.code(
        ts("2026-11-03T10:30"),
        "patient-web",
        "Show a retry button when check-in fails",
        "src/visits/CheckIn.tsx",
        "{error && <ErrorText error={error} />}",
        "{error && <ErrorText error={error} onRetry={retry} />}",
        58,
    )
    late_d = inc.deploy(ts("2026-11-03T10:41"), "patient-web")
    stack = py_stack(
        "sqlalchemy.exc.TimeoutError",
        "QueuePool limit of size 6 overflow 0 reached, connection timed out, timeout 10.00",
        [
            ("/app/app/visits/routes.py", 88, "check_in", "visit = repo.load(visit_id)"),
            ("/app/app/visits/repository.py", 31, "load", "with engine.connect() as conn:"),
        ],
    )
    inc.errors(
        "visit-api",
        onset,
        now,
        2.2,
        lambda r: f"check-in failed for visit V{r.randint(100000, 999999)}: database unavailable",
        exc_info=stack,
    )
    inc.errors(
        "patient-web",
        onset + 2 * MINUTE,
        now,
        1.0,
        "POST /app/visits/checkin -> 503 from visit-api",
        level="WARNING",
    )
    inc.metric("db_pool_checked_out", "visit-api", step(onset, 7, 6), jitter=0.02, digits=0)
    inc.metric("pgbouncer_cl_waiting", "caredb", step(onset, 0.2, 41), digits=0)
    inc.fleet(visit_api={"err": add(step(onset, 0, 0.08)), "p99": floor(step(onset, 0, 10100))})
    inc.alert = alerts.generic(
        "visit-api check-in errors above 3%",
        "visit-api",
        ts("2026-11-03T10:24"),
        "high",
        {"source": "pagerduty", "summary": "checkin_error_ratio 8.1% > 3%", "team": "care"},
    )
    inc.blame(cfg, [release], "visit-api", "configuration_error", [other, late, late_d], onset)
    return inc


def xt16_rxlink_unavailable() -> ExtIncident:
    now = ts("2026-11-05T16:00")
    inc = ExtIncident(
        "xt16-rxlink-unavailable",
        "e-prescription routing failures above 5%",
        """The RxLink pharmacy network answered 503 and then refused connections from 14:52 to
        well after the alert; no status page was published. Every NEWRX routed by rx-router
        failed. An rx-router deploy at 14:40 changed how the pharmacy directory is cached (its
        summary names RxLink) and a notify-svc retry change went out at 15:10; neither is the
        cause.""",
        now,
        LARKSPUR,
        seed=2316,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-05T13:50"), 9)
    c = inc.code(
        ts("2026-11-05T14:18"),
        "rx-router",
        "Cache RxLink pharmacy directory pages for 10 minutes",
        "internal/directory/cache.go",
        "func (d *Directory) Page(ctx context.Context, zip string) ([]Pharmacy, error) {\n\treturn d.rxlink.Directory(ctx, zip)\n}",
        "func (d *Directory) Page(ctx context.Context, zip string) ([]Pharmacy, error) {\n\treturn d.cache.GetOrLoad(ctx, zip, 10*time.Minute, d.rxlink.Directory)\n}",
        40,
    )
    d = inc.deploy(ts("2026-11-05T14:40"), "rx-router")
    onset = ts("2026-11-05T14:52")
    n = inc.code(
        ts("2026-11-05T14:58"),
        "notify-svc",
        "Retry TextWave sends twice on 5xx",
        "notify/sms.py",
        "MAX_ATTEMPTS = 1",
        "MAX_ATTEMPTS = 3",
        12,
    )
    nd = inc.deploy(ts("2026-11-05T15:10"), "notify-svc")
    stack = go_stack(
        'Post "https://api.rxlink.example/v6/newrx": dial tcp 198.51.100.23:443: connect: connection refused',
        [
            (
                "github.com/larkspur/rx-router/internal/rxlink.(*Client).Send",
                "/src/internal/rxlink/client.go",
                91,
            ),
            (
                "github.com/larkspur/rx-router/internal/route.(*Router).Route",
                "/src/internal/route/router.go",
                57,
            ),
        ],
    )
    inc.errors(
        "rx-router",
        onset,
        onset + 9 * MINUTE,
        2.0,
        lambda r: (
            f"route prescription RX-{r.randint(1000000, 9999999)}: rxlink answered 503 Service Unavailable"
        ),
    )
    inc.errors(
        "rx-router",
        onset + 9 * MINUTE,
        now,
        2.0,
        lambda r: (
            f"route prescription RX-{r.randint(1000000, 9999999)}: send to api.rxlink.example failed"
        ),
        error="connect: connection refused",
        stack=stack,
    )
    inc.errors(
        "patient-web",
        onset + 5 * MINUTE,
        now,
        0.4,
        "prescription status unavailable, showing last known state",
        level="WARNING",
    )
    inc.metric(
        "rxlink_request_errors_per_second",
        "rx-router",
        step(onset, 0.0, 0.5),
        labels={"upstream": "api.rxlink.example"},
        digits=2,
    )
    inc.fleet(rx_router={"err": add(step(onset, 0, 0.9))})
    inc.alert = alerts.grafana(
        "e-prescription routing failures above 5%",
        "rx-router",
        ts("2026-11-05T15:20"),
        "critical",
        "NEWRX failure ratio",
        "0.93",
    )
    inc.outside(
        "RxLink network unavailable (503, then connection refused)",
        "rx-router",
        "dependency_failure",
        [c, d, n, nd],
        onset,
    )
    return inc


def xt17_search_disk_free() -> ExtIncident:
    now = ts("2026-11-08T05:10")
    inc = ExtIncident(
        "xt17-search-disk-free",
        "care-search disk free below 10% on care-search-2",
        """care-search-2's data volume filled up during a segment merge storm after the nightly
        provider bulk load: free space fell from 180 GB to 9 GB over an hour and a half. Nothing
        errored yet; the node logged two watermark warnings. No change to the cluster; a
        visit-api search tweak and a chart-sync deploy sit in the window.""",
        now,
        LARKSPUR,
        seed=2317,
    )
    inc.doc(
        "Runbook: care-search disk",
        """Below 10% free the node hits the flood-stage watermark and indices go read-only. Add
a data node or delete old visit indices (`lark search prune --older 400d`). Do not restart nodes.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-08T02:30"), 8)
    c = inc.code(
        ts("2026-11-08T02:48"),
        "visit-api",
        "Search visits by provider name prefix",
        "app/search/visits.py",
        '    query = {"match": {"provider": name}}',
        '    query = {"match_phrase_prefix": {"provider": name}}',
        17,
    )
    d = inc.deploy(ts("2026-11-08T03:05"), "visit-api")
    c2 = inc.code(
        ts("2026-11-08T03:20"),
        "chart-sync",
        "Map OBX-5 units for glucose results",
        "src/main/java/com/larkspur/chart/ObxMapper.java",
        '        case "GLU": return Unit.MG_DL;',
        '        case "GLU": return unit.equals("mmol/L") ? Unit.MMOL_L : Unit.MG_DL;',
        73,
    )
    d2 = inc.deploy(ts("2026-11-08T03:41"), "chart-sync")
    onset = ts("2026-11-08T03:22")
    inc.log(
        onset + 70 * MINUTE,
        "care-search",
        "WARNING",
        "high disk watermark [90%] exceeded on [care-search-2], shards will be relocated away from this node",
    )
    inc.log(
        onset + 95 * MINUTE,
        "care-search",
        "WARNING",
        "high disk watermark [90%] exceeded on [care-search-2], shards will be relocated away from this node",
    )
    inc.metric(
        "node_filesystem_free_bytes",
        "care-search",
        ramp(onset, onset + 100 * MINUTE, 180e9, 9e9),
        labels={"node": "care-search-2", "mount": "/usr/share/opensearch/data"},
        jitter=0.01,
        digits=0,
    )
    inc.metric(
        "node_filesystem_free_bytes",
        "care-search",
        lambda t: 175e9,
        labels={"node": "care-search-1", "mount": "/usr/share/opensearch/data"},
        jitter=0.01,
        digits=0,
    )
    inc.fleet()
    inc.alert = alerts.alertmanager(
        "SearchDiskFreeLow",
        "care-search",
        ts("2026-11-08T05:02"),
        "warning",
        "care-search disk free below 10% on care-search-2",
        "node_filesystem_free_bytes is 9.1 GB (5%).",
        'node_filesystem_free_bytes{node="care-search-2"} / node_filesystem_size_bytes < 0.10',
        team="platform",
    )
    inc.outside(
        "care-search-2 data volume filling (segment merges after the bulk load)",
        "care-search",
        "resource_exhaustion",
        [c, d, c2, d2],
        onset,
    )
    return inc


def xt18_hl7_date_format() -> ExtIncident:
    now = ts("2026-11-11T13:00")
    inc = ExtIncident(
        "xt18-hl7-date-format",
        "chart-sync rejected messages above 50 per 10m",
        """A partner clinic (sending facility FAC-0192) switched its interface engine and began
        sending birth dates as DD/MM/YYYY in PID-7 from 11:40; chart-sync rejects those ADT
        messages as it should. Nothing on Larkspur's side changed: a chart-sync commit that
        parses OBR timestamps with their zone offset went out at 08:55 and has worked since,
        and a visit-api deploy is unrelated.""",
        now,
        LARKSPUR,
        seed=2318,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-11T08:00"), 8)
    c = inc.code(
        ts("2026-11-11T08:31"),
        "chart-sync",
        "Parse OBR-7 timestamps with their zone offset",
        "src/main/java/com/larkspur/chart/Hl7Dates.java",
        '    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");',
        '    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyyMMddHHmmss[Z]");',
        22,
    )
    d = inc.deploy(ts("2026-11-11T08:55"), "chart-sync")
    v = inc.code(
        ts("2026-11-11T11:10"),
        "visit-api",
        "Return the visit's timezone in check-in responses",
        "app/visits/schemas.py",
        "    starts_at: datetime",
        "    starts_at: datetime\n    timezone: str",
        44,
    )
    vd = inc.deploy(ts("2026-11-11T11:26"), "visit-api")
    onset = ts("2026-11-11T11:40")
    stack = java_stack(
        "java.time.format.DateTimeParseException",
        "Text '31/10/1984' could not be parsed at index 2",
        [
            ("java.time.format.DateTimeFormatter.parseResolved0", "DateTimeFormatter.java", 2108),
            ("com.larkspur.chart.Hl7Dates.birthDate", "Hl7Dates.java", 41),
            ("com.larkspur.chart.AdtHandler.apply", "AdtHandler.java", 96),
        ],
    )
    inc.errors(
        "chart-sync",
        onset,
        now,
        1.4,
        lambda r: (
            f"rejected ADT^A04 control id MSG{r.randint(100000, 999999)} from FAC-0192: "
            f"PID-7 value '{r.randint(13, 31)}/{r.randint(1, 12):02d}/{r.randint(1940, 2015)}' does not match yyyyMMdd"
        ),
        exception="java.time.format.DateTimeParseException",
        stack_trace=stack,
        sending_facility="FAC-0192",
    )
    inc.metric(
        "hl7_messages_rejected_per_minute",
        "chart-sync",
        step(onset, 0.05, 1.4),
        labels={"feed": "adt"},
        digits=2,
    )
    inc.fleet(chart_sync={"err": add(step(onset, 0, 0.04))})
    inc.alert = alerts.alertmanager(
        "Hl7RejectsHigh",
        "chart-sync",
        ts("2026-11-11T12:31"),
        "warning",
        "chart-sync rejected messages above 50 per 10m",
        "hl7 rejects: 61 in the last 10m.",
        "sum(increase(hl7_messages_rejected_total[10m])) > 50",
        team="integrations",
    )
    inc.outside(
        "one partner clinic sending malformed birth dates (FAC-0192)",
        "chart-sync",
        "data_quality",
        [c, d, v, vd],
        onset,
    )
    return inc


def xt19_node_not_ready() -> ExtIncident:
    now = ts("2026-11-14T20:40")
    inc = ExtIncident(
        "xt19-node-not-ready",
        "video-bridge join failures above 2%",
        """The kubelet on node ip-10-8-3-41 stopped posting status (a hung container runtime);
        the node went NotReady and the video-bridge pods on it stopped answering readiness
        probes while still in the Service endpoints for a few minutes. Joins routed there failed
        with connection timeouts until the pods were rescheduled. Nothing was deployed to
        cause it: a video-bridge commit about TURN credentials and a claims-worker deploy are
        nearby.""",
        now,
        LARKSPUR,
        seed=2319,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-14T19:00"), 8)
    c = inc.code(
        ts("2026-11-14T19:21"),
        "video-bridge",
        "Rotate TURN credentials every 12h instead of 24h",
        "src/turn/credentials.ts",
        "const TTL_HOURS = 24;",
        "const TTL_HOURS = 12;",
        9,
    )
    d = inc.deploy(ts("2026-11-14T19:38"), "video-bridge")
    w = inc.code(
        ts("2026-11-14T19:45"),
        "claims-worker",
        "Add payer id to claim submission logs",
        "claims/submit.py",
        '    log.info("claim submitted", claim_id=claim.id)',
        '    log.info("claim submitted", claim_id=claim.id, payer=claim.payer_id)',
        61,
    )
    wd = inc.deploy(ts("2026-11-14T20:02"), "claims-worker")
    onset = ts("2026-11-14T19:58")
    node = "ip-10-8-3-41.us-east-2.compute.internal"
    inc.log(
        onset,
        "k8s-events",
        "WARNING",
        f"Node {node} status is now: NodeNotReady",
        reason="NodeNotReady",
        kind="Node",
    )
    inc.log(
        onset + MINUTE,
        "k8s-events",
        "WARNING",
        f"Kubelet stopped posting node status on {node}",
        reason="NodeStatusUnknown",
        kind="Node",
    )
    for k in range(4):
        inc.log(
            onset + (2 + 2 * k) * MINUTE,
            "k8s-events",
            "WARNING",
            f'Readiness probe failed: Get "http://10.8.3.{70 + k}:8080/ready": context deadline exceeded',
            reason="Unhealthy",
            pod=f"video-bridge-6b9d-{k}x",
            node=node,
        )
    inc.errors(
        "video-bridge",
        onset + MINUTE,
        now,
        1.6,
        lambda r: (
            f"join room R{r.randint(10000, 99999)} failed: upstream 10.8.3.{r.randint(70, 73)}:8080 connect timeout"
        ),
    )
    inc.errors(
        "patient-web",
        onset + 2 * MINUTE,
        now,
        0.7,
        "video visit could not start: join failed, retrying",
        level="WARNING",
    )
    inc.metric(
        "kube_node_status_ready",
        "k8s",
        step(onset, 1, 0),
        labels={"node": node},
        jitter=0,
        digits=0,
    )
    inc.fleet(video_bridge={"err": add(step(onset, 0, 0.06))})
    inc.alert = alerts.grafana(
        "video-bridge join failures above 2%",
        "video-bridge",
        ts("2026-11-14T20:18"),
        "critical",
        "Join failure ratio",
        "0.061",
        cluster="prod-use2",
    )
    inc.outside(
        "node ip-10-8-3-41 NotReady (kubelet stopped posting status)",
        "video-bridge",
        "infrastructure",
        [c, d, w, wd],
        onset,
    )
    return inc


def xt20_ndc_slice_bundle() -> ExtIncident:
    now = ts("2026-11-17T10:40")
    inc = ExtIncident(
        "xt20-ndc-slice-bundle",
        "rx-router 5xx above 2%",
        """An rx-router commit rewrote NormalizeNDC to strip hyphens before padding, and slices
        the 11-digit product code out of a 10-digit string for 5-4-1 codes: the handler panics
        with slice bounds out of range. The 09:30 release named only its other commit (a retry
        on pharmacy lookup 404s, whose words match the errors' "pharmacy" and "route") in its
        ships list; the NDC commit was made before it and shipped with it.""",
        now,
        LARKSPUR,
        seed=2320,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-17T08:30"), 9)
    guilty = inc.code(
        ts("2026-11-17T08:52"),
        "rx-router",
        "Normalize NDCs without hyphen lookups",
        "internal/ndc/normalize.go",
        """func NormalizeNDC(code string) (string, error) {
	parts := strings.Split(code, "-")
	if len(parts) != 3 {
		return "", ErrBadNDC
	}
	return pad(parts[0], 5) + pad(parts[1], 4) + pad(parts[2], 2), nil
}""",
        """func NormalizeNDC(code string) (string, error) {
	digits := strings.ReplaceAll(code, "-", "")
	return digits[:5] + digits[5:9] + digits[9:11], nil
}""",
        18,
        author="k.osei",
    )
    decoy = inc.code(
        ts("2026-11-17T09:05"),
        "rx-router",
        "Retry pharmacy lookup once when route returns 404",
        "internal/route/pharmacy.go",
        "\tph, err := r.dir.Lookup(ctx, rx.PharmacyID)\n\tif err != nil {\n\t\treturn err\n\t}",
        "\tph, err := r.dir.Lookup(ctx, rx.PharmacyID)\n\tif errors.Is(err, ErrNotFound) {\n\t\tph, err = r.dir.Refresh(ctx, rx.PharmacyID)\n\t}\n\tif err != nil {\n\t\treturn err\n\t}",
        33,
        author="isabel.r",
    )
    release = inc.deploy(
        ts("2026-11-17T09:30"),
        "rx-router",
        ships=[decoy],
        summary="Deploy rx-router v3.14.0 (pharmacy lookup retry)",
    )
    onset = ts("2026-11-17T09:32")
    vw = inc.code(
        ts("2026-11-17T09:40"),
        "visit-api",
        "Show pharmacy name on the visit summary",
        "app/visits/summary.py",
        '    return {"visit": v.id, "rx": [r.id for r in v.prescriptions]}',
        '    return {"visit": v.id, "rx": [r.id for r in v.prescriptions], "pharmacy": v.pharmacy_name}',
        12,
    )
    vwd = inc.deploy(ts("2026-11-17T09:51"), "visit-api")
    stack = go_stack(
        "panic: runtime error: slice bounds out of range [:11] with length 10",
        [
            (
                "github.com/larkspur/rx-router/internal/ndc.NormalizeNDC",
                "/src/internal/ndc/normalize.go",
                20,
            ),
            (
                "github.com/larkspur/rx-router/internal/route.(*Router).Route",
                "/src/internal/route/router.go",
                49,
            ),
            (
                "github.com/larkspur/rx-router/internal/route.(*Handler).ServeHTTP",
                "/src/internal/route/handler.go",
                27,
            ),
        ],
    )
    inc.errors(
        "rx-router",
        onset,
        now,
        1.3,
        lambda r: (
            f"route prescription RX-{r.randint(1000000, 9999999)} to pharmacy {r.randint(1000000, 9999999)}: recovered from panic"
        ),
        panic="runtime error: slice bounds out of range [:11] with length 10",
        stack=stack,
    )
    inc.errors(
        "patient-web",
        onset + 3 * MINUTE,
        now,
        0.5,
        "GET /app/visits/{id}/rx -> 500 from rx-router",
        level="WARNING",
    )
    inc.fleet(rx_router={"err": add(step(onset, 0, 0.05))})
    inc.alert = alerts.alertmanager(
        "RxRouter5xx",
        "rx-router",
        ts("2026-11-17T10:05"),
        "critical",
        "rx-router 5xx above 2%",
        "5xx ratio 5.2% over 10m.",
        'sum(rate(http_requests_total{service="rx-router",code=~"5.."}[5m])) / sum(rate(http_requests_total{service="rx-router"}[5m])) > 0.02',
        team="pharmacy",
    )
    inc.blame(guilty, [release], "rx-router", "code_defect", [decoy, vw, vwd], onset)
    return inc


def xt21_reminders_steady() -> ExtIncident:
    now = ts("2026-11-20T09:30")
    inc = ExtIncident(
        "xt21-reminders-steady",
        "notify-svc reminder send failures",
        """The alert rule was copied from another team with a threshold of 'any failure'. notify-
        svc logs a few undeliverable reminders every hour (landlines, opted-out patients) and did
        so all night at its usual rate; nothing is wrong. A notify-svc template commit went out
        at 08:40.""",
        now,
        LARKSPUR,
        seed=2321,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-20T08:20"), 8)
    c = inc.code(
        ts("2026-11-20T08:22"),
        "notify-svc",
        "Reword the visit reminder SMS",
        "notify/templates/reminder_sms.txt",
        "Reminder: your visit is at {time}.",
        "Larkspur: your video visit starts at {time}. Reply C to confirm.",
        1,
    )
    d = inc.deploy(ts("2026-11-20T08:40"), "notify-svc")
    inc.errors(
        "notify-svc",
        inc.begin,
        now,
        0.08,
        lambda r: (
            f"reminder {r.getrandbits(32):08x} undeliverable: TextWave 21614 (not a mobile number)"
        ),
        level="ERROR",
    )
    inc.fleet()
    inc.alert = alerts.generic(
        "notify-svc reminder send failures",
        "notify-svc",
        ts("2026-11-20T09:12"),
        "low",
        {
            "source": "pagerduty",
            "summary": "sms_send_failures_total increased",
            "team": "engagement",
        },
    )
    inc.healthy(
        "notify-svc",
        "never was: undeliverable reminders at their usual rate all night; the rule fires on any failure",
        [c, d],
        ts("2026-11-20T09:12"),
    )
    return inc


# --- Osprey Energy ------------------------------------------------------------------------------


def xt22_forecast_oomkilled() -> ExtIncident:
    now = ts("2026-12-01T07:30")
    inc = ExtIncident(
        "xt22-forecast-oomkilled",
        "grid-forecast jobs failing (container restarts)",
        """The first cold morning of winter tripled the feeders with heat-pump load profiles;
        grid-forecast loads every feeder's history into one DataFrame and its container hit its
        2 GiB memory limit: the kernel OOM-killed it mid-job from 06:10, and the jobs were
        retried and killed again. Nothing was deployed to cause it; a grid-forecast commit
        renaming the horizon label and a tariff-svc deploy sit nearby.""",
        now,
        OSPREY,
        seed=2322,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-01T05:00"), 8)
    c = inc.code(
        ts("2026-12-01T05:20"),
        "grid-forecast",
        "Rename forecast horizon label to horizon_hours",
        "forecast/labels.py",
        'HORIZON_LABEL = "horizon"',
        'HORIZON_LABEL = "horizon_hours"',
        8,
    )
    d = inc.deploy(ts("2026-12-01T05:41"), "grid-forecast")
    t = inc.code(
        ts("2026-12-01T05:50"),
        "tariff-svc",
        "Add winter peak window to the time-of-use plan",
        "tariffs/plans/tou.py",
        'PEAK = [("16:00", "19:00")]',
        'PEAK = [("16:00", "19:00"), ("07:00", "09:00")]',
        30,
    )
    td = inc.deploy(ts("2026-12-01T06:04"), "tariff-svc")
    onset = ts("2026-12-01T06:10")
    for k in range(6):
        at = onset + (k * 9) * MINUTE
        inc.log(
            at,
            "k8s-events",
            "WARNING",
            f"Container grid-forecast in pod grid-forecast-5c9d-{k}q was OOMKilled (exit code 137), memory limit 2Gi",
            reason="OOMKilled",
            pod=f"grid-forecast-5c9d-{k}q",
        )
        inc.log(
            at + MINUTE / 2,
            "grid-forecast",
            "ERROR",
            f"forecast job fj-{4100 + k} lost: worker exited unexpectedly (signal 9), requeued",
        )
    inc.metric(
        "container_memory_working_set_bytes",
        "grid-forecast",
        lambda x: 0.9e9 if x < onset - 30 * MINUTE else 2.1e9,
        labels={"container": "grid-forecast"},
        jitter=0.03,
        digits=0,
    )
    inc.fleet(grid_forecast={"err": add(step(onset, 0, 0.5))})
    inc.alert = alerts.alertmanager(
        "ForecastJobsFailing",
        "grid-forecast",
        ts("2026-12-01T07:02"),
        "warning",
        "grid-forecast jobs failing (container restarts)",
        "kube_pod_container_status_restarts_total increased by 6 in 1h.",
        'increase(kube_pod_container_status_restarts_total{container="grid-forecast"}[1h]) > 3',
        team="grid-analytics",
    )
    inc.outside(
        "grid-forecast container out of memory (input grew with the cold snap)",
        "grid-forecast",
        "resource_exhaustion",
        [c, d, t, td],
        onset,
    )
    return inc


def xt23_storm_reconnect_surge() -> ExtIncident:
    now = ts("2026-12-03T19:40")
    inc = ExtIncident(
        "xt23-storm-reconnect-surge",
        "meter-ingest write latency above 2s",
        """After a storm knocked out three substations, 400 000 meters came back at once at 18:20
        and replayed their buffered intervals: readings received per second went from about
        900 to 5 000. meter-ingest's writes to readingsdb queued and slowed. No change caused
        it; a meter-ingest commit about batch logging and a billing-engine deploy are
        nearby.""",
        now,
        OSPREY,
        seed=2323,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-03T17:30"), 8)
    c = inc.code(
        ts("2026-12-03T17:48"),
        "meter-ingest",
        "LEDG-2201 Log batch sizes for readingsdb writes",
        "internal/store/batch.go",
        "\tif err := s.db.CopyFrom(ctx, rows); err != nil {\n\t\treturn err\n\t}",
        '\ts.log.Debug("writing batch", zap.Int("rows", len(rows)))\n\tif err := s.db.CopyFrom(ctx, rows); err != nil {\n\t\treturn err\n\t}',
        51,
    )
    d = inc.deploy(ts("2026-12-03T18:06"), "meter-ingest")
    b = inc.code(
        ts("2026-12-03T17:55"),
        "billing-engine",
        "CARD-2290 Round estimated reads to whole kWh on bills",
        "src/main/kotlin/energy/osprey/billing/Estimates.kt",
        "    return estimate.kwh",
        "    return estimate.kwh.setScale(0, RoundingMode.HALF_UP)",
        19,
    )
    bd = inc.deploy(ts("2026-12-03T18:12"), "billing-engine")
    onset = ts("2026-12-03T18:20")
    inc.errors(
        "meter-ingest",
        onset + 4 * MINUTE,
        now,
        1.5,
        lambda r: (
            f"readingsdb copy of {r.randint(4000, 9000)} rows took {r.randint(2100, 6400)}ms (slow write)"
        ),
        level="WARNING",
    )
    inc.errors(
        "meter-ingest",
        onset + 15 * MINUTE,
        now,
        0.6,
        "head-end ack deferred: ingest buffer above high-water mark",
        level="WARNING",
    )
    inc.metric(
        "meter_readings_received_per_second",
        "meter-ingest",
        step(onset, 900, 5000),
        jitter=0.06,
        digits=0,
    )
    inc.metric("ingest_buffer_depth", "meter-ingest", ramp(onset, now, 200, 380000), digits=0)
    inc.fleet(meter_ingest={"p99": floor(step(onset, 0, 2600))})
    inc.alert = alerts.grafana(
        "meter-ingest write latency above 2s",
        "meter-ingest",
        ts("2026-12-03T19:02"),
        "warning",
        "readingsdb write latency p99",
        "2.6s",
    )
    inc.outside(
        "meters reconnecting after the storm (5x readings per second)",
        "meter-ingest",
        "resource_exhaustion",
        [c, d, b, bd],
        onset,
    )
    return inc


def xt24_tariff_flag_decimal() -> ExtIncident:
    now = ts("2026-12-05T12:10")
    inc = ExtIncident(
        "xt24-tariff-flag-decimal",
        "bill preview errors above 5%",
        """Pricing turned on pricing.tou_v2_rates at 10:58: tariff-svc then returned rates as
        thirds of a penny (1/3 recurring) and billing-engine's BigDecimal division without a
        scale throws ArithmeticException on them. A billing-engine deploy at 10:45 touched the
        bill preview controller (its words match the errors) and was fine.""",
        now,
        OSPREY,
        seed=2324,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-05T10:00"), 9)
    c = inc.code(
        ts("2026-12-05T10:21"),
        "billing-engine",
        "CARD-2304 Bill preview shows the tariff name",
        "src/main/kotlin/energy/osprey/billing/PreviewController.kt",
        "        return Preview(bill.total, bill.lines)",
        "        return Preview(bill.total, bill.lines, tariff.name)",
        44,
    )
    d = inc.deploy(ts("2026-12-05T10:45"), "billing-engine")
    f = inc.flag(
        ts("2026-12-05T10:58"),
        "tariff-svc",
        "pricing.tou_v2_rates",
        "enabled: false",
        "enabled: true",
        "Serve time-of-use rates from the v2 rate table",
    )
    onset = ts("2026-12-05T10:59")
    stack = java_stack(
        "java.lang.ArithmeticException",
        "Non-terminating decimal expansion; no exact representable decimal result.",
        [
            ("java.math.BigDecimal.divide", "BigDecimal.java", 1780),
            ("energy.osprey.billing.RateMath.perKwh", "RateMath.kt", 23),
            ("energy.osprey.billing.PreviewController.preview", "PreviewController.kt", 41),
        ],
    )
    inc.errors(
        "billing-engine",
        onset,
        now,
        1.2,
        lambda r: (
            f"bill preview failed for account A{r.randint(1000000, 9999999)}: rate arithmetic on tariff TOU-2"
        ),
        exception="java.lang.ArithmeticException",
        stack_trace=stack,
    )
    inc.errors(
        "customer-portal",
        onset + 2 * MINUTE,
        now,
        0.6,
        "GET /usage bill preview unavailable (billing-engine 500)",
        level="WARNING",
    )
    inc.fleet(billing_engine={"err": add(step(onset, 0, 0.08))})
    inc.alert = alerts.datadog(
        "bill preview errors above 5%",
        "billing-engine",
        ts("2026-12-05T11:30"),
        "critical",
        "sum:trace.http.request.errors{service:billing-engine,resource:preview}.as_rate()",
        0.08,
        0.05,
        ["team:billing"],
    )
    inc.blame(f, [], "tariff-svc", "configuration_error", [c, d], onset)
    return inc


def xt25_common_idle_conns() -> ExtIncident:
    now = ts("2026-12-08T15:00")
    inc = ExtIncident(
        "xt25-common-idle-conns",
        "outage-map tile latency p99 above 1s",
        """osprey-go-common v2.9.0 changed its database helper's default pool: MaxOpenConns 50 to
        4 ("be kind to pgbouncer"). outage-map's 14:05 deploy picked the module up (its ships
        list names only its own commit, a tile-cache tweak whose words match the latency
        errors); tile requests queued for a connection. meter-ingest deployed the module at
        13:20 but sets its own pool size.""",
        now,
        OSPREY,
        seed=2325,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-08T12:30"), 9)
    lib = inc.code(
        ts("2026-12-08T12:52"),
        "osprey-go-common",
        "PLAT-2411 Smaller default database pool for pgbouncer",
        "db/pool.go",
        "func DefaultPool(db *sql.DB) {\n\tdb.SetMaxOpenConns(50)\n\tdb.SetMaxIdleConns(10)\n}",
        "func DefaultPool(db *sql.DB) {\n\tdb.SetMaxOpenConns(4)\n\tdb.SetMaxIdleConns(2)\n}",
        12,
        author="l.varga",
    )
    mi = inc.code(
        ts("2026-12-08T13:02"),
        "meter-ingest",
        "RISK-1402 Bump osprey-go-common to v2.9.0",
        "go.mod",
        "\tgithub.com/osprey/osprey-go-common v2.8.3",
        "\tgithub.com/osprey/osprey-go-common v2.9.0",
        7,
    )
    mid = inc.deploy(ts("2026-12-08T13:20"), "meter-ingest")
    own = inc.code(
        ts("2026-12-08T13:40"),
        "outage-map",
        "LEDG-1766 Cache incident tiles for 30s to cut tile latency",
        "internal/tiles/cache.go",
        "const incidentTileTTL = 5 * time.Second",
        "const incidentTileTTL = 30 * time.Second",
        15,
    )
    od = inc.deploy(
        ts("2026-12-08T14:05"),
        "outage-map",
        ships=[own],
        summary="Deploy outage-map to production (1 commit; go modules refreshed by the build)",
    )
    onset = ts("2026-12-08T14:07")
    stack = go_stack(
        "context deadline exceeded",
        [
            ("database/sql.(*DB).conn", "/usr/local/go/src/database/sql/sql.go", 1316),
            (
                "github.com/osprey/outage-map/internal/tiles.(*Store).Incidents",
                "/src/internal/tiles/store.go",
                64,
            ),
        ],
    )
    inc.errors(
        "outage-map",
        onset,
        now,
        1.8,
        lambda r: (
            f"tile z=11 x={r.randint(900, 1100)} y={r.randint(600, 800)} failed: waiting for a database connection: context deadline exceeded"
        ),
        stack=stack,
    )
    inc.metric("sql_db_wait_count_per_second", "outage-map", step(onset, 0.0, 35.0), digits=1)
    inc.metric("sql_db_open_connections", "outage-map", step(onset, 18, 4), jitter=0.02, digits=0)
    inc.fleet(outage_map={"p99": floor(step(onset, 0, 2400)), "err": add(step(onset, 0, 0.04))})
    inc.alert = alerts.grafana(
        "outage-map tile latency p99 above 1s",
        "outage-map",
        ts("2026-12-08T14:40"),
        "warning",
        "tile latency p99",
        "2.4s",
    )
    inc.blame(lib, [od], "outage-map", "code_defect", [own, mi, mid], onset)
    return inc


def xt26_ocpp_own_cert() -> ExtIncident:
    now = ts("2026-12-10T09:00")
    inc = ExtIncident(
        "xt26-ocpp-own-cert",
        "charging stations disconnected above 20%",
        """The TLS certificate charge-point-gw presents to charging stations expired at 08:00
        (the renewal job had been failing quietly). Stations could not reconnect after their
        nightly reboot; the gateway logged handshake errors from the stations. A
        charge-point-gw commit changing heartbeat handling and a portal deploy are nearby.""",
        now,
        OSPREY,
        seed=2326,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-10T07:00"), 8)
    c = inc.code(
        ts("2026-12-10T07:25"),
        "charge-point-gw",
        "CARD-1933 Accept heartbeats up to 10s late",
        "src/ocpp/heartbeat.ts",
        "const GRACE_MS = 2000;",
        "const GRACE_MS = 10000;",
        6,
    )
    d = inc.deploy(ts("2026-12-10T07:44"), "charge-point-gw")
    p = inc.code(
        ts("2026-12-10T07:50"),
        "customer-portal",
        "RISK-2011 Charging history page paginates",
        "src/pages/charging.tsx",
        "sessions.map(renderRow)",
        "sessions.slice(page * 20, page * 20 + 20).map(renderRow)",
        77,
    )
    pd = inc.deploy(ts("2026-12-10T08:09"), "customer-portal")
    onset = ts("2026-12-10T08:00")
    inc.errors(
        "charge-point-gw",
        onset,
        now,
        3.0,
        lambda r: (
            f"http: TLS handshake error from 203.0.113.{r.randint(2, 250)}:{r.randint(30000, 60000)}: remote error: tls: certificate expired"
        ),
    )
    inc.errors(
        "customer-portal",
        onset + 5 * MINUTE,
        now,
        0.3,
        "charging station status unknown, showing last seen",
        level="WARNING",
    )
    inc.metric(
        "ocpp_connected_stations",
        "charge-point-gw",
        lambda x: 4200 if x < onset else 2600,
        jitter=0.02,
        digits=0,
    )
    inc.fleet()
    inc.alert = alerts.grafana(
        "charging stations disconnected above 20%",
        "charge-point-gw",
        ts("2026-12-10T08:35"),
        "critical",
        "connected stations",
        "62%",
    )
    inc.outside(
        "charge-point-gw's own TLS certificate expired",
        "charge-point-gw",
        "infrastructure",
        [c, d, p, pd],
        onset,
    )
    return inc


def xt27_ingest_canceled_none() -> ExtIncident:
    now = ts("2026-12-12T04:30")
    inc = ExtIncident(
        "xt27-ingest-canceled-none",
        "meter-ingest head-end acks failing",
        """From 03:12 a share of meter-ingest's head-end acknowledgements failed with "context
        canceled" and nothing else: no metric moved, no change was made near it, no provider
        notice. (The head-end vendor later found a firmware fault on their side; nothing in the
        data shows it.) The changes in the window are everyday commits.""",
        now,
        OSPREY,
        seed=2327,
    )
    inc.noise()
    made = inc.background(inc.begin, ts("2026-12-12T02:20"), 10)
    near = inc.code(
        ts("2026-12-12T02:36"),
        "meter-ingest",
        "RISK-1450 Tag head-end acks with the meter firmware version",
        "internal/headend/ack.go",
        "\tack := Ack{Batch: b.ID, Count: len(b.Readings)}",
        "\tack := Ack{Batch: b.ID, Count: len(b.Readings), Firmware: b.Firmware}",
        29,
    )
    near_d = inc.deploy(ts("2026-12-12T02:52"), "meter-ingest")
    onset = ts("2026-12-12T03:12")
    inc.errors(
        "meter-ingest",
        onset,
        now,
        1.1,
        lambda r: f"head-end ack for batch hb-{r.randint(100000, 999999)} failed: context canceled",
    )
    inc.fleet(meter_ingest={"err": add(step(onset, 0, 0.01))})
    inc.alert = alerts.alertmanager(
        "HeadEndAcksFailing",
        "meter-ingest",
        ts("2026-12-12T03:55"),
        "warning",
        "meter-ingest head-end acks failing",
        "ack failures 70 in 1h.",
        "increase(headend_ack_failures_total[1h]) > 50",
        team="metering",
    )
    inc.unexplained("meter-ingest", [*made[-2:], near, near_d], onset)
    return inc


# --- Marigold Learning --------------------------------------------------------------------------


def xt28_grader_memory_limit() -> ExtIncident:
    now = ts("2026-12-14T16:00")
    inc = ExtIncident(
        "xt28-grader-memory-limit",
        "grading.jobs backlog above 500",
        """A platform clean-up lowered grader-worker's container memory limit from 4Gi to 1Gi in
        its Helm values ("right-size workers") at 14:31. Java and C++ exercises need 1.5-3 GiB
        to compile in the sandbox; those containers were OOM-killed from 14:36 and their jobs
        requeued, so the backlog grew. A grader-worker commit that reports peak memory per
        submission as a metric went out at 14:10.""",
        now,
        MARIGOLD,
        seed=2328,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-14T13:40"), 8)
    c = inc.code(
        ts("2026-12-14T13:52"),
        "grader-worker",
        "feat: report peak sandbox memory per submission",
        "grader/metrics.py",
        'SUBMISSIONS = Counter("grader_submissions_total", "graded submissions")',
        'SUBMISSIONS = Counter("grader_submissions_total", "graded submissions")\nPEAK_MEMORY = Histogram("grader_sandbox_peak_memory_bytes", "peak sandbox memory")',
        14,
    )
    d = inc.deploy(ts("2026-12-14T14:10"), "grader-worker")
    cfg = inc.config(
        ts("2026-12-14T14:31"),
        "grader-worker",
        "Right-size worker memory limits",
        "deploy/grader-worker/values-prod.yaml",
        "resources:\n  limits:\n    memory: 4Gi\n    cpu: 2",
        "resources:\n  limits:\n    memory: 1Gi\n    cpu: 2",
        line=22,
    )
    onset = ts("2026-12-14T14:36")
    q = inc.code(
        ts("2026-12-14T14:45"),
        "quiz-engine",
        "fix: keep attempt timer running across reconnects",
        "internal/attempt/timer.go",
        "\tt.started = time.Now()",
        "\tif t.started.IsZero() {\n\t\tt.started = time.Now()\n\t}",
        31,
    )
    qd = inc.deploy(ts("2026-12-14T14:58"), "quiz-engine")
    for k in range(9):
        at = onset + (k * 6) * MINUTE
        inc.log(
            at,
            "k8s-events",
            "WARNING",
            f"Container grader in pod grader-worker-77f-{k}z was OOMKilled (exit code 137)",
            reason="OOMKilled",
            pod=f"grader-worker-77f-{k}z",
        )
    inc.errors(
        "grader-worker",
        onset,
        now,
        1.0,
        lambda r: f"submission S{r.randint(100000, 999999)} (java) lost: sandbox killed, requeued",
    )
    inc.metric(
        "queue_depth",
        "grader-worker",
        ramp(onset, now, 20, 900),
        labels={"queue": "grading.jobs"},
        digits=0,
    )
    inc.metric(
        "container_memory_working_set_bytes",
        "grader-worker",
        lambda x: 2.2e9 if x < onset else 1.05e9,
        jitter=0.03,
        digits=0,
    )
    inc.fleet(grader_worker={"err": add(step(onset, 0, 0.3))})
    inc.alert = alerts.alertmanager(
        "GradingBacklog",
        "grader-worker",
        ts("2026-12-14T15:30"),
        "warning",
        "grading.jobs backlog above 500",
        "queue depth 612.",
        'queue_depth{queue="grading.jobs"} > 500',
        team="assessment",
    )
    inc.blame(cfg, [], "grader-worker", "configuration_error", [c, d, q, qd], onset)
    return inc


def xt29_learndb_connection_slots() -> ExtIncident:
    now = ts("2026-12-16T18:30")
    inc = ExtIncident(
        "xt29-learndb-connection-slots",
        "course-api 5xx above 2%",
        """The end-of-term district reports (report-builder, scheduled, unchanged) opened a
        connection per school and filled learndb's 400 connection slots from 17:05; course-api
        and quiz-engine could not get new connections. No change caused it; a course-api
        deploy about lesson progress queries landed at 16:58.""",
        now,
        MARIGOLD,
        seed=2329,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-16T16:20"), 8)
    c = inc.code(
        ts("2026-12-16T16:40"),
        "course-api",
        "perf: fetch lesson progress with select_related",
        "courses/progress.py",
        "    rows = Progress.objects.filter(student=student)",
        '    rows = Progress.objects.filter(student=student).select_related("lesson")',
        27,
    )
    d = inc.deploy(ts("2026-12-16T16:58"), "course-api")
    onset = ts("2026-12-16T17:05")
    inc.log(onset - 3 * MINUTE, "report-builder", "INFO", "term report run started for 212 schools")
    inc.errors(
        "course-api",
        onset,
        now,
        1.6,
        'django.db.utils.OperationalError: connection to server at "learndb-0" failed: FATAL:  remaining connection slots are reserved for non-replication superuser connections',
    )
    inc.errors(
        "quiz-engine",
        onset + 2 * MINUTE,
        now,
        1.0,
        "save attempt: pq: sorry, too many clients already",
    )
    inc.metric(
        "pg_stat_activity_count",
        "learndb",
        step(onset, 130, 398),
        labels={"instance": "learndb-0"},
        jitter=0.01,
        digits=0,
    )
    inc.fleet(
        course_api={"err": add(step(onset, 0, 0.05))},
        quiz_engine={"err": add(step(onset, 0, 0.03))},
    )
    inc.alert = alerts.grafana(
        "course-api 5xx above 2%",
        "course-api",
        ts("2026-12-16T17:40"),
        "critical",
        "5xx ratio",
        "0.051",
    )
    inc.outside(
        "learndb connection slots exhausted by the term report run",
        "learndb",
        "resource_exhaustion",
        [c, d],
        onset,
    )
    return inc


def xt30_idhub_timeouts() -> ExtIncident:
    now = ts("2026-12-18T08:40")
    inc = ExtIncident(
        "xt30-idhub-timeouts",
        "SSO login failures above 10%",
        """The identity hub IdHub (login.idhub.example) slowed to a crawl at 07:50 on the first
        school morning after the break; no status page said so. sso-bridge's calls to it timed
        out and logins failed. An sso-bridge commit widening the SAML clock-skew allowance
        shipped at 07:35; a classroom-web deploy came later.""",
        now,
        MARIGOLD,
        seed=2330,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-18T07:00"), 8)
    c = inc.code(
        ts("2026-12-18T07:14"),
        "sso-bridge",
        "fix: allow 120s clock skew on IdHub SAML assertions",
        "src/main/java/edu/marigold/sso/SamlValidator.java",
        "    private static final Duration CLOCK_SKEW = Duration.ofSeconds(60);",
        "    private static final Duration CLOCK_SKEW = Duration.ofSeconds(120);",
        18,
    )
    d = inc.deploy(ts("2026-12-18T07:35"), "sso-bridge")
    onset = ts("2026-12-18T07:50")
    w = inc.code(
        ts("2026-12-18T07:58"),
        "classroom-web",
        "feat: show district name on the login page",
        "src/pages/login.tsx",
        "<h1>Sign in</h1>",
        "<h1>Sign in to {district.name}</h1>",
        12,
    )
    wd = inc.deploy(ts("2026-12-18T08:12"), "classroom-web")
    stack = java_stack(
        "java.net.SocketTimeoutException",
        "Read timed out",
        [
            ("java.net.SocketInputStream.socketRead0", "SocketInputStream.java", -1),
            ("edu.marigold.sso.IdHubClient.resolveArtifact", "IdHubClient.java", 88),
            ("edu.marigold.sso.AcsController.consume", "AcsController.java", 52),
        ],
    )
    inc.errors(
        "sso-bridge",
        onset,
        now,
        2.0,
        lambda r: (
            f"login failed for district D-{r.randint(100, 400)}: artifact resolve at https://login.idhub.example/saml/resolve timed out after 10000ms"
        ),
        exception="java.net.SocketTimeoutException",
        stack_trace=stack,
    )
    inc.errors(
        "classroom-web",
        onset + 2 * MINUTE,
        now,
        0.8,
        "sign-in did not complete, showing retry",
        level="WARNING",
    )
    inc.metric(
        "idp_request_duration_p99_ms",
        "sso-bridge",
        step(onset, 300, 10000),
        labels={"idp": "login.idhub.example"},
        digits=0,
    )
    inc.fleet(sso_bridge={"err": add(step(onset, 0, 0.2)), "p99": floor(step(onset, 0, 10000))})
    inc.alert = alerts.generic(
        "SSO login failures above 10%",
        "sso-bridge",
        ts("2026-12-18T08:15"),
        "critical",
        {"source": "statuscake", "check": "sso-login-synthetic", "failures": "14/60"},
    )
    inc.outside(
        "IdHub identity provider slow (timeouts from login.idhub.example)",
        "sso-bridge",
        "dependency_failure",
        [c, d, w, wd],
        onset,
    )
    return inc


def xt31_quiz_nil_map() -> ExtIncident:
    now = ts("2026-12-20T11:00")
    inc = ExtIncident(
        "xt31-quiz-nil-map",
        "quiz-engine submit errors above 1%",
        """A quiz-engine commit added partial-credit buckets to ScoreAttempt and writes into a map
        it only initialises for multi-part questions: single-part attempts panic with
        "assignment to entry in nil map". It shipped in the 10:05 release with a commit that
        logs attempt scores (same words as the errors). A course-api deploy is unrelated.""",
        now,
        MARIGOLD,
        seed=2331,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-20T09:20"), 9)
    guilty = inc.code(
        ts("2026-12-20T09:31"),
        "quiz-engine",
        "feat(scoring): partial credit buckets",
        "internal/scoring/score.go",
        """func ScoreAttempt(a *Attempt) Result {
	res := Result{}
	if a.MultiPart {
		res.Buckets = map[string]float64{}
	}
	for _, q := range a.Answers {
		res.Points += q.Points
	}
	return res
}""",
        """func ScoreAttempt(a *Attempt) Result {
	res := Result{}
	if a.MultiPart {
		res.Buckets = map[string]float64{}
	}
	for _, q := range a.Answers {
		res.Points += q.Points
		res.Buckets[q.Part] += q.Partial
	}
	return res
}""",
        40,
    )
    logc = inc.code(
        ts("2026-12-20T09:47"),
        "quiz-engine",
        "chore(attempts): log attempt score on submit",
        "internal/attempt/submit.go",
        "\tres := scoring.ScoreAttempt(a)",
        '\tres := scoring.ScoreAttempt(a)\n\tlog.Info("attempt scored", "attempt", a.ID, "points", res.Points)',
        66,
    )
    rel = inc.deploy(ts("2026-12-20T10:05"), "quiz-engine")
    onset = ts("2026-12-20T10:06")
    ca = inc.code(
        ts("2026-12-20T10:12"),
        "course-api",
        "fix: lesson order after drag and drop",
        "courses/ordering.py",
        "    lessons.sort(key=lambda l: l.position)",
        "    lessons.sort(key=lambda l: (l.position, l.id))",
        9,
    )
    cad = inc.deploy(ts("2026-12-20T10:24"), "course-api")
    stack = go_stack(
        "panic: assignment to entry in nil map",
        [
            (
                "github.com/marigold/quiz-engine/internal/scoring.ScoreAttempt",
                "/src/internal/scoring/score.go",
                47,
            ),
            (
                "github.com/marigold/quiz-engine/internal/attempt.(*Service).Submit",
                "/src/internal/attempt/submit.go",
                66,
            ),
        ],
    )
    inc.errors(
        "quiz-engine",
        onset,
        now,
        1.4,
        lambda r: f"submit attempt A{r.randint(1000000, 9999999)}: recovered panic in handler",
        panic="assignment to entry in nil map",
        stack=stack,
    )
    inc.errors(
        "classroom-web",
        onset + 2 * MINUTE,
        now,
        0.6,
        "quiz submit failed (quiz-engine 500), answers kept locally",
        level="WARNING",
    )
    inc.fleet(quiz_engine={"err": add(step(onset, 0, 0.03))})
    inc.alert = alerts.grafana(
        "quiz-engine submit errors above 1%",
        "quiz-engine",
        ts("2026-12-20T10:35"),
        "warning",
        "submit error ratio",
        "0.031",
    )
    inc.blame(guilty, [rel], "quiz-engine", "code_defect", [logc, ca, cad], onset)
    return inc


def xt32_report_exit_none() -> ExtIncident:
    now = ts("2026-12-22T06:30")
    inc = ExtIncident(
        "xt32-report-exit-none",
        "report-builder jobs failing",
        """From 05:02 report-builder jobs exit with status 1 and no traceback (the sandboxed PDF
        renderer crashed on a font cache file a host update corrupted; nothing in the data shows
        it). No metric moved, no change near it explains it.""",
        now,
        MARIGOLD,
        seed=2332,
    )
    inc.noise()
    made = inc.background(inc.begin, ts("2026-12-22T04:00"), 9)
    near = inc.code(
        ts("2026-12-22T04:22"),
        "report-builder",
        "docs: describe the report job retry policy",
        "docs/jobs.md",
        "Jobs are retried.",
        "Jobs are retried twice, 5 minutes apart.",
        3,
    )
    rc = inc.code(
        ts("2026-12-22T04:31"),
        "report-builder",
        "feat: district logo on report cover",
        "reports/cover.py",
        "    cover.title(district.name)",
        "    cover.title(district.name)\n    cover.logo(district.logo_url)",
        40,
    )
    rd = inc.deploy(ts("2026-12-22T04:40"), "report-builder")
    onset = ts("2026-12-22T05:02")
    inc.errors(
        "report-builder",
        onset,
        now,
        0.5,
        lambda r: f"report job rj-{r.randint(10000, 99999)} failed: renderer exited with status 1",
    )
    inc.fleet(report_builder={"err": add(step(onset, 0, 0.4))})
    inc.alert = alerts.alertmanager(
        "ReportJobsFailing",
        "report-builder",
        ts("2026-12-22T05:50"),
        "warning",
        "report-builder jobs failing",
        "failed jobs 19 in 45m.",
        "increase(report_jobs_failed_total[45m]) > 10",
        team="insights",
    )
    inc.unexplained("report-builder", [*made[-2:], near, rc, rd], onset)
    return inc


# --- more change-caused stories in the first companies' vocabularies -----------------------------


def xt33_kyc_retry_429() -> ExtIncident:
    now = ts("2026-12-02T11:30")
    inc = ExtIncident(
        "xt33-kyc-retry-429",
        "kyc-svc verification failures above 5%",
        """A kyc-svc commit replaced the bounded retry on VeriPass calls with tenacity and forgot
        the stop condition: every 5xx or 429 is retried immediately, forever, until the request
        deadline. At the 10:30 morning peak VeriPass started answering 429 Too Many Requests to
        the flood of retries, and verifications failed. A kyc-svc deploy that only renamed a
        metric (it names VeriPass too) went out later; an app-bff deploy is unrelated.""",
        now,
        FERNBANK,
        seed=2333,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-02T09:20"), 9)
    guilty = inc.code(
        ts("2026-12-02T09:34"),
        "kyc-svc",
        "RISK-2044 Use tenacity for VeriPass calls",
        "kyc/providers/veripass.py",
        """def submit(payload):
    for attempt in range(3):
        resp = http.post(VERIPASS_URL, json=payload, timeout=8)
        if resp.status_code < 500:
            return resp
        time.sleep(2 ** attempt)
    return resp""",
        """@retry(retry=retry_if_result(lambda r: r.status_code >= 429))
def submit(payload):
    return http.post(VERIPASS_URL, json=payload, timeout=8)""",
        22,
    )
    gd = inc.deploy(ts("2026-12-02T09:52"), "kyc-svc")
    onset = ts("2026-12-02T10:31")
    m = inc.code(
        ts("2026-12-02T10:40"),
        "kyc-svc",
        "RISK-2051 Rename veripass latency metric",
        "kyc/metrics.py",
        'LATENCY = Histogram("veripass_seconds", "VeriPass call latency")',
        'LATENCY = Histogram("kyc_veripass_request_seconds", "VeriPass call latency")',
        5,
    )
    md = inc.deploy(ts("2026-12-02T10:55"), "kyc-svc")
    b = inc.code(
        ts("2026-12-02T10:05"),
        "app-bff",
        "CARD-2210 Onboarding screen shows verification progress",
        "src/screens/onboarding.ts",
        "return { step: v.step };",
        "return { step: v.step, progress: v.progress };",
        18,
    )
    bd = inc.deploy(ts("2026-12-02T10:20"), "app-bff")
    inc.errors(
        "kyc-svc",
        onset,
        now,
        2.0,
        lambda r: (
            f"verification V-{r.randint(100000, 999999)} failed: POST https://api.veripass.example/v2/checks 429 Too Many Requests after {r.randint(40, 90)} attempts"
        ),
    )
    inc.metric(
        "veripass_requests_per_second",
        "kyc-svc",
        lambda x: 6 if x < onset else 140,
        labels={"direction": "outbound"},
        digits=1,
    )
    inc.fleet(kyc_svc={"err": add(step(onset, 0, 0.2))})
    inc.alert = alerts.datadog(
        "kyc-svc verification failures above 5%",
        "kyc-svc",
        ts("2026-12-02T11:02"),
        "critical",
        "sum:kyc.verifications.failed{*}.as_rate()",
        0.2,
        0.05,
        ["team:onboarding"],
    )
    inc.blame(guilty, [gd], "kyc-svc", "code_defect", [m, md, b, bd], onset)
    return inc


def xt34_manifest_field_rename() -> ExtIncident:
    now = ts("2026-12-04T21:00")
    inc = ExtIncident(
        "xt34-manifest-field-rename",
        "playback start failures above 2%",
        """A manifest-svc commit renamed the JSON field drm_key_id to key_id in its playback
        descriptor ("match the DASH spec"); playback-api, which reads the descriptor, raised
        KeyError: 'drm_key_id' for every DRM title from the 20:10 manifest-svc deploy on. Only
        playback-api fails (it calls manifest-svc). A playback-api commit about heartbeat
        intervals and a license-svc deploy are nearby.""",
        now,
        CORVID,
        seed=2334,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-04T19:30"), 9)
    guilty = inc.code(
        ts("2026-12-04T19:48"),
        "manifest-svc",
        "Rename drm_key_id to key_id in playback descriptors",
        "internal/descriptor/descriptor.go",
        'type Descriptor struct {\n\tURL      string `json:"url"`\n\tDRMKeyID string `json:"drm_key_id"`\n}',
        'type Descriptor struct {\n\tURL   string `json:"url"`\n\tKeyID string `json:"key_id"`\n}',
        12,
    )
    gd = inc.deploy(ts("2026-12-04T20:10"), "manifest-svc")
    onset = ts("2026-12-04T20:11")
    hb = inc.code(
        ts("2026-12-04T19:55"),
        "playback-api",
        "Heartbeat every 30s instead of 10s",
        "playback/heartbeat.py",
        "HEARTBEAT_SECONDS = 10",
        "HEARTBEAT_SECONDS = 30",
        4,
    )
    hbd = inc.deploy(ts("2026-12-04T20:02"), "playback-api")
    lc = inc.code(
        ts("2026-12-04T20:15"),
        "license-svc",
        "Cache device certificates per session",
        "src/main/java/com/corvid/drm/DeviceCerts.java",
        "        return vault.read(path);",
        "        return cache.computeIfAbsent(path, vault::read);",
        33,
    )
    lcd = inc.deploy(ts("2026-12-04T20:30"), "license-svc")
    stack = py_stack(
        "KeyError",
        "'drm_key_id'",
        [
            ("/app/playback/views.py", 64, "start_playback", "desc = manifests.descriptor(title)"),
            ("/app/playback/drm.py", 31, "license_url", 'key = desc["drm_key_id"]'),
        ],
    )
    inc.errors(
        "playback-api",
        onset,
        now,
        2.2,
        lambda r: (
            f"playback start failed for title tt-{r.randint(10000, 99999)}: KeyError 'drm_key_id'"
        ),
        exc_info=stack,
    )
    inc.fleet(playback_api={"err": add(step(onset, 0, 0.06))})
    inc.alert = alerts.generic(
        "playback start failures above 2%",
        "playback-api",
        ts("2026-12-04T20:40"),
        "P1",
        {"source": "opsgenie", "alias": "playback-start", "message": "start failure ratio 6%"},
    )
    inc.blame(guilty, [gd], "manifest-svc", "code_defect", [hb, hbd, lc, lcd], onset)
    return inc


def xt35_lobby_buffer_leak() -> ExtIncident:
    now = ts("2026-12-06T23:30")
    inc = ExtIncident(
        "xt35-lobby-buffer-leak",
        "lobby-gw pods restarting",
        """A lobby-gw commit kept every party's last 500 chat frames in a per-connection replay
        buffer that is never trimmed when members leave; memory grew from the 19:40 deploy until
        the pods hit their 1 GiB limit and were OOM-killed from 22:05. A lobby-gw commit about
        ready-check timeouts sits in the same release window, and a chat-gw deploy came later.""",
        now,
        BRAMBLEWOOD,
        seed=2335,
        hours=9,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-06T18:50"), 9)
    guilty = inc.code(
        ts("2026-12-06T19:12"),
        "lobby-gw",
        "[lobby] Replay recent party frames to reconnecting members",
        "src/party/replay.ts",
        "export function onFrame(party: Party, frame: Frame) {\n  broadcast(party, frame);\n}",
        "const replay = new Map<string, Frame[]>();\n\nexport function onFrame(party: Party, frame: Frame) {\n  const buf = replay.get(party.id) ?? [];\n  buf.push(frame);\n  replay.set(party.id, buf.slice(-500));\n  broadcast(party, frame);\n}",
        10,
    )
    other = inc.code(
        ts("2026-12-06T19:25"),
        "lobby-gw",
        "[lobby] Ready check times out after 20s",
        "src/lobby/ready.ts",
        "const READY_TIMEOUT_MS = 30_000;",
        "const READY_TIMEOUT_MS = 20_000;",
        7,
    )
    gd = inc.deploy(ts("2026-12-06T19:40"), "lobby-gw")
    cg = inc.code(
        ts("2026-12-06T21:40"),
        "chat-gw",
        "[chat] Drop typing indicators older than 5s",
        "src/typing.ts",
        "if (age > 10_000) drop(ev);",
        "if (age > 5_000) drop(ev);",
        21,
    )
    cgd = inc.deploy(ts("2026-12-06T21:55"), "chat-gw")
    onset = ts("2026-12-06T19:40")
    oom = ts("2026-12-06T22:05")
    for k in range(7):
        inc.log(
            oom + (k * 11) * MINUTE,
            "k8s-events",
            "WARNING",
            f"Container lobby-gw in pod lobby-gw-6f8-{k}w was OOMKilled (exit code 137), memory limit 1Gi",
            reason="OOMKilled",
        )
    inc.errors(
        "lobby-gw",
        oom,
        now,
        1.0,
        "websocket closed (1006): lobby-gw restarting, clients reconnecting",
        level="WARNING",
    )
    inc.errors(
        "lobby-gw",
        oom + MINUTE,
        now,
        0.4,
        "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
        level="CRITICAL",
    )
    inc.metric(
        "nodejs_heap_used_bytes",
        "lobby-gw",
        ramp(onset, oom, 2.1e8, 1.0e9),
        jitter=0.02,
        digits=0,
    )
    inc.fleet(lobby_gw={"err": add(step(oom, 0, 0.02))})
    inc.alert = alerts.grafana(
        "lobby-gw pods restarting",
        "lobby-gw",
        ts("2026-12-06T22:50"),
        "warning",
        "container restarts",
        "7",
    )
    inc.blame(guilty, [gd], "lobby-gw", "code_defect", [other, cg, cgd], onset)
    return inc


def xt36_zone_packet_loss() -> ExtIncident:
    now = ts("2026-12-09T02:30")
    inc = ExtIncident(
        "xt36-zone-packet-loss",
        "dispatch-api error ratio above 1%",
        """A top-of-rack switch in one availability zone began dropping packets at 01:20; the pods
        on the three nodes behind it (dispatch-api, yard-svc and eta-predictor replicas) saw
        connection resets and i/o timeouts to each other and to fleetdb. No change caused it:
        a yard-svc deploy and a dispatch-api commit about load search sit nearby.""",
        now,
        TIDEWATER,
        seed=2336,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-09T00:30"), 8)
    c = inc.code(
        ts("2026-12-09T00:48"),
        "dispatch-api",
        "feat(dispatch): search loads by origin city prefix",
        "internal/loads/search.go",
        '\tq := db.Where("origin_city = ?", city)',
        '\tq := db.Where("origin_city LIKE ?", city+"%")',
        27,
    )
    d = inc.deploy(ts("2026-12-09T01:05"), "dispatch-api")
    y = inc.code(
        ts("2026-12-09T00:58"),
        "yard-svc",
        "fix(yard): dock door labels sort naturally",
        "yard/doors/sort.py",
        "    return sorted(doors, key=lambda d: d.label)",
        "    return sorted(doors, key=natural_key)",
        12,
    )
    yd = inc.deploy(ts("2026-12-09T01:14"), "yard-svc")
    onset = ts("2026-12-09T01:20")
    inc.errors(
        "dispatch-api",
        onset,
        now,
        1.2,
        lambda r: (
            f"read tcp 10.40.{r.randint(1, 3)}.{r.randint(2, 250)}:{r.randint(40000, 60000)}->10.40.9.14:5432: read: connection reset by peer"
        ),
    )
    inc.errors(
        "yard-svc",
        onset + MINUTE,
        now,
        0.8,
        lambda r: (
            "fleetdb query failed: could not receive data from server: Connection timed out (10.40.9.14:5432)"
        ),
    )
    inc.errors(
        "eta-predictor",
        onset + MINUTE,
        now,
        0.6,
        lambda r: f"dial tcp 10.40.2.{r.randint(2, 250)}:8080: i/o timeout",
    )
    for node in ("ip-10-40-1-17", "ip-10-40-1-52", "ip-10-40-1-88"):
        inc.metric(
            "node_network_receive_drop_per_second",
            "k8s",
            step(onset, 0.0, 40.0),
            labels={"node": node, "zone": "us-east-1b"},
            digits=1,
        )
    inc.fleet(dispatch_api={"err": add(step(onset, 0, 0.02))})
    inc.alert = alerts.alertmanager(
        "DispatchErrorRatio",
        "dispatch-api",
        ts("2026-12-09T01:55"),
        "warning",
        "dispatch-api error ratio above 1%",
        "error ratio 2.1%.",
        'sum(rate(http_requests_total{service="dispatch-api",code=~"5.."}[5m])) / sum(rate(http_requests_total{service="dispatch-api"}[5m])) > 0.01',
        team="dispatch",
    )
    inc.outside(
        "packet loss in one availability zone (a top-of-rack switch)",
        "dispatch-api",
        "infrastructure",
        [c, d, y, yd],
        onset,
    )
    return inc


# --- Juniper Stays (added by a second examiner) ---------------------------------------------------


def xt37_bar_cache_ttl() -> ExtIncident:
    now = ts("2026-12-16T18:40")
    inc = ExtIncident(
        "xt37-bar-cache-ttl",
        "Checkout price-changed rejections above 3% (booking-api)",
        """A rate-engine commit meant to cut ratesdb load raised the TTL of the in-process BAR
        cache from 60 seconds to 6 hours. Revenue managers' afternoon rate pushes no longer
        reached quotes, while booking-api re-prices the stay from ratesdb at guarantee time; from
        17:08 guests were told the price had changed and their bookings were refused
        (RATE_DRIFT). A booking-api deploy at 17:20 that rewords the price-changed message and a
        channel-sync deploy about rate pushes share the errors' words; neither touched pricing.""",
        now,
        JUNIPER,
        seed=2337,
    )
    inc.doc(
        "Runbook: RATE_DRIFT at checkout",
        """booking-api quotes through rate-engine when the guest searches and re-prices from
ratesdb when the card guarantee is taken. If the two disagree by more than 1 unit of currency
the reservation is refused with RATE_DRIFT and the guest sees "the price of your stay has
changed". Expected rate: well under 0.5%, higher for an hour after big revenue pushes.
Check: rate-engine's cache age (rate_cache_entry_age_seconds) and the last revenue push.
Flush: `jsctl rates flush --property all` (safe, costs ~2 minutes of higher ratesdb load).""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-16T15:40"), 9)
    guilty = inc.code(
        ts("2026-12-16T15:52"),
        "rate-engine",
        "rates/cache: keep BAR entries longer, ratesdb CPU is at 70% at peak",
        "internal/cache/bar.go",
        """const (
	barTTL       = 60 * time.Second
	barMaxEntries = 250_000
)

func newBarCache() *ristretto.Cache {""",
        """const (
	barTTL       = 6 * time.Hour
	barMaxEntries = 250_000
)

func newBarCache() *ristretto.Cache {""",
        18,
        author="yuki.t",
    )
    gd = inc.deploy(ts("2026-12-16T16:10"), "rate-engine")
    cs = inc.code(
        ts("2026-12-16T16:31"),
        "channel-sync",
        "ari: log rate push size per property",
        "channel_sync/push/rates.py",
        "    resp = await roomhub.push_rates(property_id, rows)\n    return resp",
        '    resp = await roomhub.push_rates(property_id, rows)\n    log.info("rate push", property=property_id, rows=len(rows))\n    return resp',
        57,
        author="r.mahlangu",
    )
    csd = inc.deploy(ts("2026-12-16T16:49"), "channel-sync")
    onset = ts("2026-12-16T17:08")
    decoy = inc.code(
        ts("2026-12-16T17:02"),
        "booking-api",
        "checkout: friendlier copy when the rate changed between search and guarantee",
        "src/main/kotlin/com/juniper/booking/guarantee/RateDriftMessage.kt",
        '    const val GUEST_TEXT = "Rate mismatch (RATE_DRIFT)."',
        '    const val GUEST_TEXT = "The price of your stay has changed. Please review the new total."',
        9,
        author="ines.ferreira",
    )
    dd = inc.deploy(ts("2026-12-16T17:20"), "booking-api")
    stack = java_stack(
        "com.juniper.booking.guarantee.RateDriftException",
        "quoted 189.00 EUR, ratesdb says 219.00 EUR",
        [
            ("com.juniper.booking.guarantee.Repricer.verify", "Repricer.kt", 61),
            (
                "com.juniper.booking.guarantee.GuaranteeService.guarantee",
                "GuaranteeService.kt",
                104,
            ),
            (
                "com.juniper.booking.api.ReservationController.guarantee",
                "ReservationController.kt",
                77,
            ),
        ],
    )
    inc.errors(
        "booking-api",
        onset,
        now,
        lambda f: 0.8 + 1.4 * f,
        lambda r: (
            f"guarantee refused conf=JS{r.randint(1000000, 9999999)} property=JS-0{r.randint(100, 480)}: RATE_DRIFT quoted={r.randint(90, 260)}.00 current={r.randint(120, 300)}.00"
        ),
        level="WARNING",
        exception="com.juniper.booking.guarantee.RateDriftException",
        stack_trace=stack,
    )
    inc.errors(
        "guest-app",
        onset + 2 * MINUTE,
        now,
        0.9,
        "checkout step guarantee -> 409 RATE_DRIFT from booking-api",
        level="WARNING",
    )
    inc.metric(
        "rate_cache_entry_age_seconds_p50",
        "rate-engine",
        ramp(ts("2026-12-16T16:10"), now, 30, 9000),
        digits=0,
    )
    inc.metric(
        "ratesdb_queries_per_second",
        "rate-engine",
        step(ts("2026-12-16T16:10"), 420, 35),
        digits=0,
    )
    inc.metric(
        "guarantee_rejections_ratio",
        "booking-api",
        ramp(onset, now, 0.003, 0.061),
        labels={"reason": "RATE_DRIFT"},
        jitter=0.1,
        digits=4,
    )
    inc.fleet(booking_api={"err": add(ramp(onset, now, 0, 0.04))})
    inc.alert = alerts.grafana(
        "Checkout price-changed rejections above 3% (booking-api)",
        "booking-api",
        ts("2026-12-16T18:05"),
        "critical",
        "Guarantee rejections by reason",
        "RATE_DRIFT 4.4%",
        squad="reservations",
    )
    inc.blame(guilty, [gd], "rate-engine", "code_defect", [decoy, dd, cs, csd], onset)
    return inc


def xt38_ari_batch_unnamed() -> ExtIncident:
    now = ts("2026-12-18T11:20")
    inc = ExtIncident(
        "xt38-ari-batch-unnamed",
        "ari.updates backlog above 20k (channel-sync)",
        """A channel-sync commit on Tuesday raised the ARI push batch from 50 to 400 room-type
        days per request "to use fewer RoomHub calls". It sat on main, unreleased, until
        Thursday's 09:36 release, whose notes name only the structlog bump and the retry-log
        commit. RoomHub caps a request at 100 room-type days and answers 413 with error
        R-4131; channel-sync retries the same batch, the backlog grows and OTAs sell rooms that
        are gone. A RoomHub maintenance notice for another API and a booking-api deploy about
        availability are around.""",
        now,
        JUNIPER,
        seed=2338,
        hours=8,
    )
    inc.doc(
        "RoomHub API limits (partner docs excerpt)",
        """RoomHub Connect API v3. POST /ari/availability and POST /ari/rates accept at most 100
room-type-days per request (one room type, one date = one room-type-day). Larger requests are
refused with HTTP 413 and error R-4131. Rate limit: 20 requests/second per hotel group.""",
    )
    inc.doc(
        "RoomHub notice: scheduled maintenance, Reporting API",
        """RoomHub service notice. 2026-12-18T09:00:00Z - 2026-12-18T12:00:00Z: the Reporting API
(reports.roomhub.example) is read-only during a database migration. ARI, reservations and
content APIs are not affected.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-18T06:30"), 9)
    guilty = inc.code(
        ts("2026-12-16T15:12"),
        "channel-sync",
        "ari: bigger push batches, we are close to RoomHub's req/s limit",
        "channel_sync/push/batcher.py",
        """MAX_ROOM_TYPE_DAYS = 50


def chunks(rows: list[AriRow]) -> Iterator[list[AriRow]]:
    for i in range(0, len(rows), MAX_ROOM_TYPE_DAYS):""",
        """MAX_ROOM_TYPE_DAYS = 400


def chunks(rows: list[AriRow]) -> Iterator[list[AriRow]]:
    for i in range(0, len(rows), MAX_ROOM_TYPE_DAYS):""",
        12,
        author="r.mahlangu",
    )
    bump = inc.code(
        ts("2026-12-18T08:51"),
        "channel-sync",
        "deps: structlog 24.4.0",
        "requirements.txt",
        "httpx==0.27.0\nstructlog==24.2.0",
        "httpx==0.27.0\nstructlog==24.4.0",
        7,
        author="renovate[bot]",
    )
    retry_log = inc.code(
        ts("2026-12-18T09:05"),
        "channel-sync",
        "ari: log RoomHub error code on retry",
        "channel_sync/push/client.py",
        '        log.warning("roomhub push failed, retrying", status=resp.status_code)',
        '        log.warning("roomhub push failed, retrying", status=resp.status_code, code=resp.json().get("code"))',
        88,
        author="c.dubois",
    )
    release = inc.deploy(
        ts("2026-12-18T09:36"),
        "channel-sync",
        ships=[bump, retry_log],
        summary="Release channel-sync 2026.12.18-1 (structlog 24.4.0; log RoomHub error code on retry)",
    )
    onset = ts("2026-12-18T09:39")
    bk = inc.code(
        ts("2026-12-18T09:44"),
        "booking-api",
        "availability: skip room types closed to arrival in search",
        "src/main/kotlin/com/juniper/booking/availability/Search.kt",
        "        .filter { it.available > 0 }",
        "        .filter { it.available > 0 && !it.closedToArrival }",
        52,
    )
    bkd = inc.deploy(ts("2026-12-18T10:02"), "booking-api")
    stack = py_stack(
        "httpx.HTTPStatusError",
        "Client error '413 Payload Too Large' for url 'https://api.roomhub.example/v3/ari/availability'",
        [
            ("/app/channel_sync/worker.py", 141, "handle", "await push.send(batch)"),
            ("/app/channel_sync/push/client.py", 84, "send", "resp.raise_for_status()"),
        ],
    )
    inc.errors(
        "channel-sync",
        onset,
        now,
        2.2,
        lambda r: (
            f"roomhub push failed, retrying status=413 code=R-4131 property=JS-0{r.randint(100, 480)} rows=400"
        ),
        exc_info=stack,
    )
    inc.errors(
        "booking-api",
        onset + 70 * MINUTE,
        now,
        0.3,
        lambda r: (
            f"OTA reservation for sold-out room type at JS-0{r.randint(100, 480)} accepted as overbooking"
        ),
        level="WARNING",
    )
    inc.metric(
        "kafka_consumergroup_lag",
        "channel-sync",
        ramp(onset, now, 150, 41000),
        labels={"topic": "ari.updates", "group": "channel-sync"},
        digits=0,
    )
    inc.metric(
        "roomhub_responses_per_second",
        "channel-sync",
        step(onset, 0.0, 3.1),
        labels={"status": "413"},
        jitter=0.15,
        digits=2,
    )
    inc.fleet(channel_sync={"err": add(step(onset, 0, 0.9)), "rps": times(step(onset, 1, 0.1))})
    inc.alert = alerts.grafana(
        "ari.updates backlog above 20k (channel-sync)",
        "channel-sync",
        ts("2026-12-18T10:41"),
        "warning",
        "ARI backlog",
        "23 870",
        squad="distribution",
    )
    inc.blame(guilty, [release], "channel-sync", "code_defect", [bump, retry_log, bk, bkd], onset)
    return inc


def xt39_resv_pool_config() -> ExtIncident:
    now = ts("2026-12-20T20:15")
    inc = ExtIncident(
        "xt39-resv-pool-config",
        "booking-api 5xx above 2%",
        """A platform change "right-sizing" connection pools by observed average use set
        booking-api's HikariCP maximumPoolSize from 40 to 6 in its production values. Quiet
        afternoons fit, but the Sunday-evening booking peak needs 25-30 connections: from 19:12
        requests wait 30 s for a connection and fail. resvdb and pgbouncer are fine. A
        booking-api deploy that adds a connection-leak detection log line and a folio-svc pool
        metric commit are nearby and share the words.""",
        now,
        JUNIPER,
        seed=2339,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-20T16:00"), 8)
    cfg = inc.config(
        ts("2026-12-20T16:24"),
        "booking-api",
        "pools: right-size Hikari pools to p95 in-use + headroom (batch 3 of 5)",
        "helm/booking-api/values-prod.yaml",
        """datasource:
  url: jdbc:postgresql://pgbouncer.resv:6432/resvdb
  hikari:
    maximumPoolSize: 40
    minimumIdle: 10
    connectionTimeout: 30000""",
        """datasource:
  url: jdbc:postgresql://pgbouncer.resv:6432/resvdb
  hikari:
    maximumPoolSize: 6
    minimumIdle: 2
    connectionTimeout: 30000""",
        author="a.kowal",
        line=14,
    )
    fo = inc.code(
        ts("2026-12-20T17:48"),
        "folio-svc",
        "ops/metrics: export hikari pending threads",
        "src/main/java/com/juniper/folio/config/DataSourceMetrics.java",
        '        registry.gauge("hikari.active", pool, HikariPoolMXBean::getActiveConnections);',
        '        registry.gauge("hikari.active", pool, HikariPoolMXBean::getActiveConnections);\n        registry.gauge("hikari.pending", pool, HikariPoolMXBean::getThreadsAwaitingConnection);',
        33,
    )
    fod = inc.deploy(ts("2026-12-20T18:05"), "folio-svc")
    onset = ts("2026-12-20T19:12")
    leak = inc.code(
        ts("2026-12-20T18:40"),
        "booking-api",
        "db: turn on Hikari leak detection at 20s",
        "src/main/resources/application.yaml",
        "spring:\n  datasource:\n    hikari:\n      pool-name: resv",
        "spring:\n  datasource:\n    hikari:\n      pool-name: resv\n      leak-detection-threshold: 20000",
        4,
    )
    leakd = inc.deploy(ts("2026-12-20T18:58"), "booking-api")
    stack = java_stack(
        "java.sql.SQLTransientConnectionException",
        "resv - Connection is not available, request timed out after 30000ms (total=6, active=6, idle=0, waiting=41)",
        [
            ("com.zaxxer.hikari.pool.HikariPool.createTimeoutException", "HikariPool.java", 686),
            ("com.zaxxer.hikari.pool.HikariPool.getConnection", "HikariPool.java", 179),
            ("com.juniper.booking.availability.Search.rooms", "Search.kt", 48),
        ],
    )
    inc.errors(
        "booking-api",
        onset,
        now,
        lambda f: 1.0 + 2.0 * f,
        lambda r: f"GET /v1/availability failed after 30001ms property=JS-0{r.randint(100, 480)}",
        exception="java.sql.SQLTransientConnectionException",
        stack_trace=stack,
    )
    inc.errors(
        "guest-app",
        onset + 1 * MINUTE,
        now,
        0.8,
        "availability unavailable: booking-api 503",
        level="WARNING",
    )
    inc.metric(
        "hikaricp_connections_active",
        "booking-api",
        lambda t: 14 if t < ts("2026-12-20T16:40") else (6 if t >= ts("2026-12-20T18:30") else 5),
        labels={"pool": "resv"},
        jitter=0.03,
        digits=0,
    )
    inc.metric(
        "hikaricp_connections_pending",
        "booking-api",
        step(onset, 0, 38),
        labels={"pool": "resv"},
        digits=0,
    )
    inc.metric(
        "pgbouncer_pools_sv_active",
        "resvdb",
        lambda t: 22 if t < ts("2026-12-20T16:40") else 11,
        digits=0,
    )
    inc.fleet(
        booking_api={
            "err": add(step(onset, 0, 0.06)),
            "p99": floor(step(onset, 0, 30000)),
            "rps": times(step(ts("2026-12-20T18:30"), 1, 1.7)),
        }
    )
    inc.alert = alerts.grafana(
        "booking-api 5xx above 2%",
        "booking-api",
        ts("2026-12-20T19:31"),
        "critical",
        "booking-api error ratio",
        "6.3%",
        squad="reservations",
    )
    inc.blame(cfg, [], "booking-api", "configuration_error", [leak, leakd, fo, fod], onset)
    return inc


def xt40_quillpay_outage() -> ExtIncident:
    now = ts("2026-12-22T14:50")
    inc = ExtIncident(
        "xt40-quillpay-outage",
        "Card guarantee failures (booking-api)",
        """Quillpay, the card vault booking-api tokenizes guarantee cards with, had a partial
        outage of its tokenization endpoint in EU from 13:47 (status page entry dated
        2026-12-22T13:55:00Z, in the knowledge base): requests hung and ended in 504s. booking-api
        had deployed at 13:31 a commit to the very Quillpay client (it adds an idempotency key
        header), which shares every word with the errors and worked; a guest-app deploy about the
        payment form followed at 14:02.""",
        now,
        JUNIPER,
        seed=2340,
    )
    inc.doc(
        "Quillpay Status - Incident: Elevated errors on Tokenization API (EU)",
        """status.quillpay.example
Elevated errors on Tokenization API (EU)
Investigating (2026-12-22T13:55:00Z): We are investigating elevated error rates and timeouts on
POST /v2/tokens for merchants routed through our EU region.
Identified (2026-12-22T14:21:00Z): A failed load balancer in eu-central is dropping a share of
connections. We are failing over.
Card authorization and detokenization are not affected.""",
    )
    inc.doc(
        "Runbook: guarantee failures",
        """A reservation needs a guaranteed card unless the rate is pay-at-property. booking-api
tokenizes the card through Quillpay (vault.quillpay.example) before confirming. If Quillpay is
failing: check status.quillpay.example, then switch properties to "hold without guarantee"
(`jsctl booking guarantee-mode --soft`) and tell the revenue desk.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-22T12:40"), 9)
    c = inc.code(
        ts("2026-12-22T13:08"),
        "booking-api",
        "guarantee/quillpay: send Idempotency-Key on tokenize",
        "src/main/kotlin/com/juniper/booking/guarantee/QuillpayClient.kt",
        """        val req = HttpRequest.newBuilder(uri("/v2/tokens"))
            .header("Authorization", auth())
            .POST(body(card))""",
        """        val req = HttpRequest.newBuilder(uri("/v2/tokens"))
            .header("Authorization", auth())
            .header("Idempotency-Key", reservation.confirmation)
            .POST(body(card))""",
        41,
        author="bwalcott",
    )
    d = inc.deploy(ts("2026-12-22T13:31"), "booking-api")
    onset = ts("2026-12-22T13:47")
    g = inc.code(
        ts("2026-12-22T13:40"),
        "guest-app",
        "checkout: card form keeps focus after a guarantee error",
        "app/checkout/CardForm.tsx",
        "  onError={() => setError(true)}",
        "  onError={() => { setError(true); cardRef.current?.focus() }}",
        88,
    )
    gd = inc.deploy(ts("2026-12-22T14:02"), "guest-app")
    stack = java_stack(
        "com.juniper.booking.guarantee.TokenizeException",
        "Quillpay POST /v2/tokens returned 504 Gateway Timeout",
        [
            ("com.juniper.booking.guarantee.QuillpayClient.tokenize", "QuillpayClient.kt", 52),
            ("com.juniper.booking.guarantee.GuaranteeService.guarantee", "GuaranteeService.kt", 88),
            (
                "com.juniper.booking.api.ReservationController.guarantee",
                "ReservationController.kt",
                77,
            ),
        ],
    )
    inc.errors(
        "booking-api",
        onset,
        now,
        1.6,
        lambda r: (
            f"guarantee failed conf=JS{r.randint(1000000, 9999999)}: quillpay tokenize {r.choice(['504 Gateway Timeout', 'timed out after 10000ms', '504 Gateway Timeout'])}"
        ),
        exception="com.juniper.booking.guarantee.TokenizeException",
        stack_trace=stack,
        upstream="vault.quillpay.example",
    )
    inc.errors(
        "guest-app",
        onset + 1 * MINUTE,
        now,
        0.7,
        "checkout: guarantee step failed (502 from booking-api)",
        level="WARNING",
    )
    inc.metric(
        "upstream_request_duration_p99_ms",
        "booking-api",
        step(onset, 380, 10000),
        labels={"upstream": "vault.quillpay.example"},
        jitter=0.05,
        digits=0,
    )
    inc.metric(
        "upstream_errors_per_second",
        "booking-api",
        step(onset, 0.01, 1.4),
        labels={"upstream": "vault.quillpay.example"},
        jitter=0.2,
        digits=2,
    )
    inc.fleet(booking_api={"err": add(step(onset, 0, 0.03)), "p99": floor(step(onset, 0, 10400))})
    inc.alert = alerts.generic(
        "Card guarantee failures (booking-api)",
        "booking-api",
        ts("2026-12-22T14:06"),
        "P2",
        {
            "source": "opsgenie",
            "alias": "booking-guarantee-failures",
            "message": "guarantee_failures_total rate 1.6/s over 10m",
            "responders": ["reservations-oncall"],
        },
    )
    inc.outside(
        "Quillpay tokenization API outage in EU (status notice 2026-12-22T13:55:00Z)",
        "booking-api",
        "dependency_failure",
        [c, d, g, gd],
        onset,
    )
    return inc


def xt41_session_redis_maxmemory() -> ExtIncident:
    now = ts("2026-12-27T11:30")
    inc = ExtIncident(
        "xt41-session-redis-maxmemory",
        "guest-app login and check-in errors",
        """session-redis runs with maxmemory 6gb and noeviction. Check-in drafts are written
        without an expiry, and the holiday-week check-in wave filled it: from 10:26 every write
        is refused with OOM command not allowed, so logins and mobile check-in fail in guest-app.
        Nothing changed: memory had been climbing for days. A guest-app deploy at 10:05 about
        session cookies and a keycard-svc deploy at 10:40 are the decoys.""",
        now,
        JUNIPER,
        seed=2341,
    )
    inc.doc(
        "Runbook: session-redis",
        """session-redis holds guest-app sessions (TTL 12h) and check-in drafts. Policy is
noeviction on purpose: evicting a session logs a guest out mid check-in. Watch used_memory
against maxmemory (6gb). If it is full: `redis-cli --scan --pattern 'ci:draft:*'` and delete
drafts older than 7 days, then raise maxmemory only with Guest Tech's approval.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-27T09:30"), 9)
    c = inc.code(
        ts("2026-12-27T09:44"),
        "guest-app",
        "session: SameSite=Lax on the session cookie",
        "lib/session.ts",
        "  cookie: { httpOnly: true, secure: true },",
        "  cookie: { httpOnly: true, secure: true, sameSite: 'lax' },",
        22,
    )
    d = inc.deploy(ts("2026-12-27T10:05"), "guest-app")
    onset = ts("2026-12-27T10:26")
    k = inc.code(
        ts("2026-12-27T10:18"),
        "keycard-svc",
        "keys: include room number in issued-key log line",
        "internal/keys/issue.go",
        '\tlog.Info("mobile key issued", "reservation", res.Conf)',
        '\tlog.Info("mobile key issued", "reservation", res.Conf, "room", res.Room)',
        64,
    )
    kd = inc.deploy(ts("2026-12-27T10:40"), "keycard-svc")
    stack = node_stack(
        "ReplyError",
        "OOM command not allowed when used memory > 'maxmemory'.",
        [
            ("parseError", "/app/node_modules/redis-parser/lib/parser.js", 179, 12),
            ("RedisStore.set", "/app/lib/session.js", 61, 18),
            ("saveCheckinDraft", "/app/pages/api/checkin/draft.js", 27, 9),
        ],
    )
    inc.errors(
        "guest-app",
        onset,
        now,
        2.0,
        lambda r: (
            f"{r.choice(['POST /app/login', 'POST /app/checkin', 'PUT /api/checkin/draft'])} 500: session store write failed"
        ),
        **{"err.stack": stack, "err.type": "ReplyError"},
    )
    inc.errors(
        "keycard-svc",
        onset + 6 * MINUTE,
        now,
        0.2,
        "mobile key not requested: check-in not completed",
        level="WARNING",
    )
    inc.metric(
        "redis_memory_used_bytes",
        "session-redis",
        lambda t: min(
            6.44e9,
            5.1e9 + 1.34e9 * (t - inc.begin).total_seconds() / (onset - inc.begin).total_seconds(),
        ),
        labels={"instance": "session-redis-0"},
        jitter=0.002,
        digits=0,
    )
    inc.metric(
        "redis_memory_max_bytes",
        "session-redis",
        lambda t: 6.44e9,
        labels={"instance": "session-redis-0"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "redis_rejected_writes_per_second",
        "session-redis",
        step(onset, 0, 9.5),
        labels={"instance": "session-redis-0"},
        jitter=0.2,
        digits=2,
    )
    inc.metric(
        "redis_db_keys",
        "session-redis",
        ramp(inc.begin, onset, 1.62e6, 1.95e6),
        labels={"db": "0"},
        jitter=0.005,
        digits=0,
    )
    inc.fleet(guest_app={"err": add(step(onset, 0, 0.09))})
    inc.alert = alerts.grafana(
        "guest-app login and check-in errors",
        "guest-app",
        ts("2026-12-27T10:49"),
        "critical",
        "guest-app 5xx by route",
        "9.1%",
        squad="guest-tech",
    )
    inc.outside(
        "session-redis full at maxmemory (noeviction), writes refused",
        "session-redis",
        "resource_exhaustion",
        [c, d, k, kd],
        onset,
    )
    return inc


def xt42_night_audit_recovered() -> ExtIncident:
    now = ts("2026-12-29T04:20")
    inc = ExtIncident(
        "xt42-night-audit-recovered",
        "folio-svc p99 above 2s",
        """folio-svc's night audit runs at 03:00 and closes the business day for every property
        in the timezone; for 20 minutes folio p99 rises to 2-3 s every night, and the alert (no
        'for' duration) fires most nights. By the time anyone looked, latency was back to normal
        and no request had failed. A folio-svc deploy at 02:10 about settlement rounding is
        unrelated.""",
        now,
        JUNIPER,
        seed=2342,
    )
    inc.doc(
        "Runbook: folio-svc night audit",
        """Night audit (`NightAuditJob`) starts at 03:00 property-local time. It posts room and tax
charges for every in-house folio and rolls the business date. Expect folio p99 of 2-3 s and high
foliodb CPU for 15-25 minutes; requests are slower, not failing. Page only if it runs over 60
minutes or the business date does not roll.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-12-29T01:40"), 8)
    c = inc.code(
        ts("2026-12-29T01:48"),
        "folio-svc",
        "settle: round tourist tax per night, not per stay",
        "src/main/java/com/juniper/folio/tax/TouristTax.java",
        "        return perStay(nights).setScale(2, RoundingMode.HALF_UP);",
        "        return perNight().setScale(2, RoundingMode.HALF_UP).multiply(BigDecimal.valueOf(nights));",
        39,
    )
    d = inc.deploy(ts("2026-12-29T02:10"), "folio-svc")
    audit = ts("2026-12-29T03:00")
    done = ts("2026-12-29T03:21")
    inc.log(
        audit, "folio-svc", "INFO", "NightAuditJob started business_date=2026-12-28 properties=38"
    )
    inc.errors(
        "folio-svc",
        audit + 2 * MINUTE,
        done,
        1.2,
        lambda r: f"slow request POST /folios/{{id}}/charges took {r.randint(2100, 3400)}ms",
        level="WARNING",
    )
    inc.log(
        done,
        "folio-svc",
        "INFO",
        "NightAuditJob finished business_date=2026-12-29 posted=11482 charges in 21m",
    )
    inc.errors(
        "housekeeping-svc",
        inc.begin,
        now,
        0.05,
        lambda r: (
            f"room status sync failed for room {r.randint(100, 1800)}: folio lookup 404 (walk-in not yet posted)"
        ),
    )
    inc.metric(
        "night_audit_running",
        "folio-svc",
        step(audit, 0, 1, done),
        jitter=0,
        digits=0,
    )
    inc.metric(
        "db_cpu_utilization",
        "foliodb",
        step(audit, 0.22, 0.81, done),
        digits=3,
    )
    inc.fleet(folio_svc={"p99": floor(step(audit, 0, 2600, done))})
    inc.alert = alerts.grafana(
        "folio-svc p99 above 2s",
        "folio-svc",
        ts("2026-12-29T03:09"),
        "warning",
        "folio-svc latency",
        "p99 2.6s",
        squad="front-office",
    )
    inc.healthy(
        "folio-svc",
        "recovered: the nightly night-audit latency bump (03:00-03:21), no failed requests; the rule has no 'for' duration",
        [c, d],
        audit,
    )
    return inc


# --- Thornfield Agritech (added by a second examiner) ---------------------------------------------


def xt43_valve_fanout_flag() -> ExtIncident:
    now = ts("2027-01-05T07:10")
    inc = ExtIncident(
        "xt43-valve-fanout-flag",
        "Valve commands not acknowledged above 10%",
        """The Water team turned on irrigation.batch_zone_start at 05:02, so irrigation-ctl sends
        the open command for every valve of a zone at once instead of one valve at a time.
        ChirpStack keeps one downlink queue per gateway; with 20-40 valves behind one gateway
        the queue overflows and it drops commands (downlink queue full), so zones start with half
        their valves shut. An irrigation-ctl deploy at 04:40 that logs valve command latency and
        a sensor-gateway deploy about valve controller uplinks share the words.""",
        now,
        THORNFIELD,
        seed=2343,
    )
    inc.doc(
        "Runbook: valve commands not acknowledged",
        """irrigation-ctl sends valve commands as confirmed LoRaWAN downlinks through ChirpStack;
the valve controller acks on its next uplink. Normal unacknowledged share: under 2% (devices
asleep). If it jumps: check ChirpStack's gateway downlink queue (chirpstack_gateway_downlink_queue_depth,
limit 16) and recent schedule changes. A zone whose valves did not open waters unevenly: tell the
grower through the app banner.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-01-05T04:10"), 9)
    c = inc.code(
        ts("2027-01-05T04:21"),
        "irrigation-ctl",
        "Log valve command ack latency (AG-812)",
        "internal/valves/command.go",
        "\tack, err := c.lns.Downlink(ctx, dev, payload)\n\tif err != nil {\n\t\treturn err\n\t}",
        '\tstart := time.Now()\n\tack, err := c.lns.Downlink(ctx, dev, payload)\n\tif err != nil {\n\t\treturn err\n\t}\n\tc.log.Info("valve command acked", "dev", dev, "ms", time.Since(start).Milliseconds())',
        72,
        author="lars.h",
    )
    d = inc.deploy(ts("2027-01-05T04:40"), "irrigation-ctl")
    f = inc.flag(
        ts("2027-01-05T05:02"),
        "irrigation-ctl",
        "irrigation.batch_zone_start",
        "enabled: false\nrollout: 0",
        "enabled: true\nrollout: 100",
        "Start every valve of a zone in one go (faster zone start)",
        author="pcastillo",
    )
    onset = ts("2027-01-05T05:04")
    sg = inc.code(
        ts("2027-01-05T05:15"),
        "sensor-gateway",
        "Decode valve controller v2 ack frames (AG-790)",
        "internal/decode/valve.go",
        "\tcase 0x21:\n\t\treturn decodeValveStatus(b)",
        "\tcase 0x21:\n\t\treturn decodeValveStatus(b)\n\tcase 0x22:\n\t\treturn decodeValveAckV2(b)",
        40,
    )
    sgd = inc.deploy(ts("2027-01-05T05:33"), "sensor-gateway")
    stack = go_stack(
        "enqueue downlink: rpc error: code = ResourceExhausted desc = downlink queue full for gateway",
        [
            (
                "github.com/thornfield/irrigation/internal/lns.(*Client).Downlink",
                "/src/irrigation/internal/lns/client.go",
                118,
            ),
            (
                "github.com/thornfield/irrigation/internal/valves.(*Commander).Open",
                "/src/irrigation/internal/valves/command.go",
                74,
            ),
            (
                "github.com/thornfield/irrigation/internal/schedule.(*Runner).startZone",
                "/src/irrigation/internal/schedule/runner.go",
                203,
            ),
        ],
    )
    inc.errors(
        "irrigation-ctl",
        onset,
        now,
        1.2,
        lambda r: (
            f"valve VC-0{r.randint(100, 999)} open command dropped: downlink queue full (gateway gw-{r.randint(10, 60):03d}, zone Z-{r.randint(1000, 4999)})"
        ),
        stack=stack,
        grpc_code="ResourceExhausted",
    )
    inc.errors(
        "field-telemetry",
        onset + 25 * MINUTE,
        now,
        0.4,
        lambda r: f"flow below plan on zone Z-{r.randint(1000, 4999)}: 41% of scheduled litres",
        level="WARNING",
    )
    inc.metric(
        "chirpstack_gateway_downlink_queue_depth_max",
        "chirpstack",
        step(onset, 3, 16),
        jitter=0.05,
        digits=0,
    )
    inc.metric(
        "valve_commands_unacked_ratio",
        "irrigation-ctl",
        step(onset, 0.012, 0.37),
        jitter=0.1,
        digits=3,
    )
    inc.fleet(irrigation_ctl={"err": add(step(onset, 0, 0.3)), "rps": times(step(onset, 1, 2.5))})
    inc.alert = alerts.alertmanager(
        "ValveCommandsUnacked",
        "irrigation-ctl",
        ts("2027-01-05T05:30"),
        "critical",
        "Valve commands not acknowledged above 10%",
        "valve_commands_unacked_ratio is 0.37 over 15m.",
        "valve_commands_unacked_ratio > 0.10",
        team="water",
    )
    inc.blame(f, [], "irrigation-ctl", "configuration_error", [c, d, sg, sgd], onset)
    return inc


def xt44_battery_omitempty() -> ExtIncident:
    now = ts("2027-01-08T13:30")
    inc = ExtIncident(
        "xt44-battery-omitempty",
        "telemetry.decoded consumer lag above 100k (field-telemetry)",
        """A sensor-gateway commit tidied the decoded-reading struct and put omitempty on
        battery_mv, so readings from solar-powered probes (which report no battery, 0) no longer
        carry the field. field-telemetry indexes msg["battery_mv"] and dies on a KeyError for
        each such message, retrying the chunk; lag grows from 11:03. A field-telemetry deploy at
        10:41 that adds a battery voltage histogram (same words, same file family) and a
        grower-app deploy are the decoys; field-telemetry is where it alerts and throws, the
        change is in sensor-gateway.""",
        now,
        THORNFIELD,
        seed=2344,
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-01-08T10:00"), 9)
    dec = inc.code(
        ts("2027-01-08T10:12"),
        "field-telemetry",
        "Histogram of probe battery voltage (AG-833)",
        "field_telemetry/metrics.py",
        'READINGS = Counter("readings_total", "readings stored", ["kind"])',
        'READINGS = Counter("readings_total", "readings stored", ["kind"])\nBATTERY_MV = Histogram("probe_battery_mv", "probe battery voltage", buckets=(2800, 3000, 3200, 3400, 3600))',
        9,
        author="n.ivanova",
    )
    decd = inc.deploy(ts("2027-01-08T10:41"), "field-telemetry")
    guilty = inc.code(
        ts("2027-01-08T10:30"),
        "sensor-gateway",
        "Tidy Reading JSON tags, drop zero values from the wire (AG-829)",
        "internal/model/reading.go",
        """type Reading struct {
	DevEUI    string    `json:"dev_eui"`
	Kind      string    `json:"kind"`
	VWC       float64   `json:"vwc"`
	SoilTempC float64   `json:"soil_temp_c"`
	BatteryMV int       `json:"battery_mv"`
	At        time.Time `json:"at"`
}""",
        """type Reading struct {
	DevEUI    string    `json:"dev_eui"`
	Kind      string    `json:"kind"`
	VWC       float64   `json:"vwc"`
	SoilTempC float64   `json:"soil_temp_c"`
	BatteryMV int       `json:"battery_mv,omitempty"`
	At        time.Time `json:"at"`
}""",
        11,
        author="e.mwangi",
    )
    gd = inc.deploy(ts("2027-01-08T11:00"), "sensor-gateway")
    onset = ts("2027-01-08T11:03")
    ga = inc.code(
        ts("2027-01-08T11:10"),
        "grower-app",
        "Show probe battery state on the field map (AG-801)",
        "src/components/ProbeMarker.tsx",
        "  <Marker position={probe.at} />",
        "  <Marker position={probe.at} battery={probe.batteryMv} />",
        17,
    )
    gad = inc.deploy(ts("2027-01-08T11:24"), "grower-app")
    stack = py_stack(
        "KeyError",
        "'battery_mv'",
        [
            (
                "/srv/field_telemetry/consumer.py",
                96,
                "handle_chunk",
                "rows = [to_row(m) for m in msgs]",
            ),
            (
                "/srv/field_telemetry/consumer.py",
                96,
                "<listcomp>",
                "rows = [to_row(m) for m in msgs]",
            ),
            ("/srv/field_telemetry/rows.py", 31, "to_row", 'battery=int(msg["battery_mv"]),'),
        ],
    )
    inc.errors(
        "field-telemetry",
        onset,
        now,
        1.8,
        lambda r: (
            f"chunk failed on telemetry.decoded partition {r.randint(0, 23)} offset {r.randint(10**7, 10**8)}; retrying"
        ),
        exc_info=stack,
    )
    inc.errors(
        "grower-app",
        onset + 30 * MINUTE,
        now,
        0.4,
        lambda r: (
            f"field F-{r.randint(10000, 40000)} soil moisture last updated {r.randint(31, 140)} min ago"
        ),
        level="WARNING",
    )
    inc.metric(
        "kafka_consumergroup_lag",
        "field-telemetry",
        ramp(onset, now, 900, 310000),
        labels={"topic": "telemetry.decoded", "group": "field-telemetry"},
        digits=0,
    )
    inc.fleet(field_telemetry={"err": add(step(onset, 0, 0.6)), "rps": times(step(onset, 1, 0.3))})
    inc.alert = alerts.alertmanager(
        "TelemetryDecodedLag",
        "field-telemetry",
        ts("2027-01-08T12:02"),
        "warning",
        "telemetry.decoded consumer lag above 100k (field-telemetry)",
        "lag 118 402 on group field-telemetry.",
        'sum(kafka_consumergroup_lag{group="field-telemetry"}) > 100000',
        team="data-platform",
    )
    inc.blame(guilty, [gd], "sensor-gateway", "code_defect", [dec, decd, ga, gad], onset)
    return inc


def xt45_field_lookup_query() -> ExtIncident:
    now = ts("2027-01-11T16:20")
    inc = ExtIncident(
        "xt45-field-lookup-query",
        "field-api p99 above 1.5s",
        """A field-api commit made field code lookups case-insensitive by wrapping the column in
        lower() in the JPA query. The unique index is on field_code, not lower(field_code), so
        every lookup scans the 2.3M-row fields table: fielddb CPU goes to 95% and p99 from 150 ms
        to 4 s from 14:37. A field-api deploy at 14:58 caching field boundaries (same 'field'
        words, the same repository) and a yield-model deploy are decoys.""",
        now,
        THORNFIELD,
        seed=2345,
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-01-11T13:50"), 9)
    guilty = inc.code(
        ts("2027-01-11T14:05"),
        "field-api",
        "Accept field codes in any case from the import wizard (AG-856)",
        "src/main/java/com/thornfield/fields/FieldRepository.java",
        """    @Query("select f from Field f where f.fieldCode = :code and f.farmId = :farm")
    Optional<Field> findByCode(@Param("code") String code, @Param("farm") long farm);""",
        """    @Query("select f from Field f where lower(f.fieldCode) = lower(:code) and f.farmId = :farm")
    Optional<Field> findByCode(@Param("code") String code, @Param("farm") long farm);""",
        27,
        author="taro.m",
    )
    gd = inc.deploy(ts("2027-01-11T14:34"), "field-api")
    onset = ts("2027-01-11T14:37")
    ym = inc.code(
        ts("2027-01-11T14:20"),
        "yield-model",
        "Read field metadata in one call per run (AG-851)",
        "yield_model/inputs.py",
        "    meta = [api.field(fid) for fid in run.field_ids]",
        "    meta = api.fields(run.field_ids)",
        44,
    )
    ymd = inc.deploy(ts("2027-01-11T14:45"), "yield-model")
    dec = inc.code(
        ts("2027-01-11T14:40"),
        "field-api",
        "Cache field boundaries for 10 minutes (AG-848)",
        "src/main/java/com/thornfield/fields/BoundaryService.java",
        "    public Boundary boundary(long fieldId) {\n        return repo.boundary(fieldId);\n    }",
        '    @Cacheable(value = "boundaries", key = "#fieldId")\n    public Boundary boundary(long fieldId) {\n        return repo.boundary(fieldId);\n    }',
        52,
    )
    decd = inc.deploy(ts("2027-01-11T14:58"), "field-api")
    inc.errors(
        "field-api",
        onset + 3 * MINUTE,
        now,
        1.3,
        lambda r: (
            f"slow request GET /farms/{r.randint(100, 9000)}/fields?code=F-{r.randint(10000, 40000)} took {r.randint(2500, 6200)}ms"
        ),
        level="WARNING",
    )
    inc.errors(
        "field-api",
        onset + 12 * MINUTE,
        now,
        0.3,
        lambda r: f"statement timeout on fielddb for farm {r.randint(100, 9000)}",
        exception="org.postgresql.util.PSQLException",
        stack_trace=java_stack(
            "org.postgresql.util.PSQLException",
            "ERROR: canceling statement due to statement timeout",
            [
                (
                    "org.postgresql.core.v3.QueryExecutorImpl.receiveErrorResponse",
                    "QueryExecutorImpl.java",
                    2725,
                ),
                ("com.thornfield.fields.FieldRepository.findByCode", "FieldRepository.java", 28),
                ("com.thornfield.fields.FieldController.byCode", "FieldController.java", 61),
            ],
        ),
    )
    inc.log(
        onset + 20 * MINUTE,
        "fielddb",
        "WARNING",
        "duration: 3911.204 ms  execute <unnamed>: select ... from field f1_0 where lower(f1_0.field_code)=lower($1) and f1_0.farm_id=$2",
    )
    inc.errors(
        "grower-app",
        onset + 5 * MINUTE,
        now,
        0.5,
        "GET /fields/{id} slow: field-api took >3s",
        level="WARNING",
    )
    inc.metric("db_cpu_utilization", "fielddb", step(onset, 0.18, 0.95), digits=3)
    inc.metric(
        "pg_stat_user_tables_seq_scan_rate",
        "fielddb",
        step(onset, 0.2, 38),
        labels={"relname": "fields"},
        digits=2,
    )
    inc.fleet(
        field_api={
            "p99": floor(step(onset, 0, 4100)),
            "err": add(step(onset + 12 * MINUTE, 0, 0.01)),
        },
        grower_app={"p99": add(step(onset, 0, 2200))},
    )
    inc.alert = alerts.grafana(
        "field-api p99 above 1.5s",
        "field-api",
        ts("2027-01-11T15:05"),
        "warning",
        "field-api p99",
        "4.1s",
        team="agronomy",
    )
    inc.blame(guilty, [gd], "field-api", "code_defect", [dec, decd, ym, ymd], onset)
    return inc


def xt46_node_nic_flap() -> ExtIncident:
    now = ts("2027-01-14T10:10")
    inc = ExtIncident(
        "xt46-node-nic-flap",
        "Uplink decode rate down 30% (sensor-gateway)",
        """The network interface of Kubernetes node ag-prod-b-node-4 (zone b) started flapping at
        08:52: the kernel logged link down/up every minute or two and the ENA driver reset.
        sensor-gateway-1, scheduled on that node, lost its MQTT session to EMQX again and again
        and a third of uplinks went undecoded; the replicas on nodes in zones a and c were fine.
        A sensor-gateway deploy at 08:31 changed MQTT reconnect logging (same words as the
        errors), and a field-telemetry config change landed at 09:05.""",
        now,
        THORNFIELD,
        seed=2346,
    )
    inc.doc(
        "Runbook: uplink decode rate drop",
        """sensor-gateway runs 3 replicas, one per zone, each with a shared MQTT subscription
($share/gw/application/+/device/+/event/up). A drop of about a third means one replica is not
consuming. Check which pod logs MQTT disconnects and which node it runs on
(`kubectl -n edge get pod -o wide`); if the node is unhealthy, cordon and drain it
(`kubectl cordon <node> && kubectl drain <node> --ignore-daemonsets`).""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-01-14T08:00"), 9)
    c = inc.code(
        ts("2027-01-14T08:12"),
        "sensor-gateway",
        "Log MQTT reconnect reason and attempt (AG-870)",
        "internal/mqtt/session.go",
        '\topts.SetConnectionLostHandler(func(_ mqtt.Client, err error) {\n\t\ts.log.Warn("mqtt connection lost")\n\t})',
        '\topts.SetConnectionLostHandler(func(_ mqtt.Client, err error) {\n\t\ts.log.Warn("mqtt connection lost", "err", err, "attempt", s.attempt.Add(1))\n\t})',
        58,
        author="e.mwangi",
    )
    d = inc.deploy(ts("2027-01-14T08:31"), "sensor-gateway")
    onset = ts("2027-01-14T08:52")
    cfg = inc.config(
        ts("2027-01-14T09:05"),
        "field-telemetry",
        "field-telemetry: raise soildb statement timeout for backfills",
        "deploy/field-telemetry/values-prod.yaml",
        "soildb:\n  statementTimeout: 15s",
        "soildb:\n  statementTimeout: 30s",
        line=21,
    )
    r = inc.rng
    t = onset
    while t < now:
        inc.log(
            t,
            "node/ag-prod-b-node-4",
            "ERROR",
            "ena 0000:00:05.0 eth0: Link is Down",
            node="ag-prod-b-node-4",
            zone="eu-west-1b",
            source="kernel",
        )
        inc.log(
            t + timedelta(seconds=r.randint(8, 40)),
            "node/ag-prod-b-node-4",
            "WARNING",
            "ena 0000:00:05.0 eth0: Link is Up - 25Gbps Full Duplex; device reset after tx timeout",
            node="ag-prod-b-node-4",
            zone="eu-west-1b",
            source="kernel",
        )
        t += timedelta(seconds=r.randint(60, 150))
    inc.errors(
        "sensor-gateway",
        onset,
        now,
        1.4,
        lambda r: (
            f'mqtt connection lost err="read tcp 10.42.17.{r.randint(2, 250)}:{r.randint(30000, 60000)}->10.42.3.7:1883: i/o timeout" attempt={r.randint(1, 90)}'
        ),
        level="ERROR",
        pod="sensor-gateway-1",
        node="ag-prod-b-node-4",
    )
    inc.errors(
        "emqx",
        onset + 1 * MINUTE,
        now,
        0.7,
        lambda r: "client sensor-gateway-1 disconnected: keepalive_timeout",
        level="WARNING",
    )
    inc.metric(
        "node_network_carrier_changes_total_rate",
        "node",
        step(onset, 0, 0.9),
        labels={"node": "ag-prod-b-node-4", "device": "eth0"},
        jitter=0.3,
        digits=2,
    )
    for node in ("ag-prod-a-node-2", "ag-prod-c-node-1"):
        inc.metric(
            "node_network_carrier_changes_total_rate",
            "node",
            lambda t: 0,
            labels={"node": node, "device": "eth0"},
            jitter=0,
            digits=2,
        )
    inc.metric(
        "uplinks_decoded_per_second",
        "sensor-gateway",
        step(onset, 215, 12),
        labels={"pod": "sensor-gateway-1"},
        digits=0,
    )
    inc.fleet(sensor_gateway={"rps": times(step(onset, 1, 0.68))})
    inc.alert = alerts.alertmanager(
        "UplinkDecodeRateDrop",
        "sensor-gateway",
        ts("2027-01-14T09:14"),
        "warning",
        "Uplink decode rate down 30% (sensor-gateway)",
        "uplinks decoded/s 441 vs 650 one day ago.",
        "sum(rate(uplinks_decoded_total[10m])) < 0.75 * sum(rate(uplinks_decoded_total[10m] offset 1d))",
        team="edge",
    )
    inc.outside(
        "NIC flapping on node ag-prod-b-node-4 (zone b)",
        "sensor-gateway",
        "infrastructure",
        [c, d, cfg],
        onset,
    )
    return inc


def xt47_boundary_poison_job() -> ExtIncident:
    now = ts("2027-01-18T09:40")
    inc = ExtIncident(
        "xt47-boundary-poison-job",
        "model.jobs backlog above 300 (yield-model)",
        """At 07:24 a grower imported a field boundary from a drone survey: one polygon with
        1.9 million vertices and a self-intersection. Every yield-model run for that farm is
        retried, and each attempt builds the ET grid over it until the worker is killed at its
        16 GiB limit (exit 137) or shapely raises TopologyException; the workers spend their
        time on it and the backlog builds. yield-model had shipped a geometry-simplification
        change two days earlier and ran thousands of jobs since; a field-api deploy at 07:40
        about boundary imports shares the words.""",
        now,
        THORNFIELD,
        seed=2347,
    )
    inc.doc(
        "Runbook: model.jobs backlog",
        """yield-model runs one job per field and date. A job that fails is retried 5 times with
backoff, then parked. A backlog with workers busy and few completions usually means a heavy or
broken input: look for the same job or farm id in repeated failures. Park it by hand with
`agctl jobs park <job-id>` and tell the Agronomy team to check the boundary.""",
    )
    inc.noise()
    inc.background(ts("2027-01-16T09:00"), ts("2027-01-16T11:00"), 4)
    simp = inc.code(
        ts("2027-01-16T10:14"),
        "yield-model",
        "Simplify boundaries with a 0.5 m tolerance before gridding (AG-884)",
        "yield_model/geometry.py",
        "def grid_for(boundary: Polygon) -> Grid:\n    return Grid.over(boundary, cell_m=10)",
        "def grid_for(boundary: Polygon) -> Grid:\n    shape = boundary.simplify(0.5, preserve_topology=True)\n    return Grid.over(shape, cell_m=10)",
        18,
    )
    simpd = inc.deploy(ts("2027-01-16T10:35"), "yield-model")
    inc.background(inc.begin, ts("2027-01-18T06:50"), 7)
    onset = ts("2027-01-18T07:24")
    fa = inc.code(
        ts("2027-01-18T07:18"),
        "field-api",
        "Boundary import accepts GeoJSON FeatureCollection (AG-891)",
        "src/main/java/com/thornfield/fields/BoundaryImport.java",
        '        if (!"Polygon".equals(geo.type())) throw new BadBoundary("expected Polygon");',
        '        if (geo.type().equals("FeatureCollection")) geo = geo.firstFeature();\n        if (!"Polygon".equals(geo.type())) throw new BadBoundary("expected Polygon");',
        66,
    )
    fad = inc.deploy(ts("2027-01-18T07:40"), "field-api")
    inc.log(
        onset,
        "field-api",
        "INFO",
        "boundary imported for field F-31877 (farm 4410): 1 polygon, 1912044 vertices, source=drone-survey.geojson",
    )
    stack = py_stack(
        "shapely.errors.GEOSException",
        "TopologyException: Input geom 0 is invalid: Self-intersection at 0.71233 51.20412",
        [
            ("/app/yield_model/worker.py", 77, "run", "grid = grid_for(field.boundary)"),
            ("/app/yield_model/geometry.py", 20, "grid_for", "return Grid.over(shape, cell_m=10)"),
            (
                "/app/yield_model/grid.py",
                54,
                "over",
                "cells = [c for c in candidates if shape.intersects(c)]",
            ),
        ],
    )

    def failure(r: random.Random) -> str:
        job = f"job-4410-F-31877-2027011{r.randint(1, 8)}"
        return r.choice(
            [
                f"model run {job} failed (attempt {r.randint(1, 5)}/5): TopologyException",
                f"model run {job} failed: worker exited with code 137 (OOMKilled)",
            ]
        )

    inc.errors(
        "yield-model",
        onset + 4 * MINUTE,
        now,
        0.9,
        failure,
        exc_info=stack,
        farm="4410",
        field="F-31877",
    )
    inc.errors(
        "grower-app",
        onset + 50 * MINUTE,
        now,
        0.3,
        lambda r: (
            f"yield forecast for farm {r.randint(100, 9000)} pending for {r.randint(35, 120)} min"
        ),
        level="WARNING",
    )
    inc.metric(
        "queue_depth",
        "yield-model",
        ramp(onset, now, 12, 520),
        labels={"queue": "model.jobs"},
        digits=0,
    )
    inc.metric(
        "container_memory_working_set_bytes_max",
        "yield-model",
        step(onset, 2.1e9, 1.7e10),
        jitter=0.04,
        digits=0,
    )
    inc.fleet(yield_model={"rps": times(step(onset, 1, 0.25)), "err": add(step(onset, 0, 0.35))})
    inc.alert = alerts.alertmanager(
        "ModelJobsBacklog",
        "yield-model",
        ts("2027-01-18T08:52"),
        "warning",
        "model.jobs backlog above 300 (yield-model)",
        "queue depth 318.",
        'model_jobs_queue_depth{queue="model.jobs"} > 300',
        team="science",
    )
    inc.outside(
        "malformed drone-survey boundary for field F-31877 (1.9M vertices, self-intersecting)",
        "yield-model",
        "data_quality",
        [simp, simpd, fa, fad],
        onset,
    )
    return inc


def xt48_weather_gaps_none() -> ExtIncident:
    now = ts("2027-01-21T15:30")
    inc = ExtIncident(
        "xt48-weather-gaps-none",
        "weather-ingest forecast pulls failing",
        """From 13:40 about one in six of weather-ingest's pulls ended with "incomplete chunked
        read" and were retried on the next cycle. SkyCast published no notice, no metric of ours
        moved beyond the error count, no node or zone showed anything, and the only changes are
        everyday commits plus a weather-ingest deploy at 13:12 that reformats a log line. The
        cause never appeared in the data (it stopped by itself the next morning).""",
        now,
        THORNFIELD,
        seed=2348,
    )
    inc.noise()
    made = inc.background(inc.begin, ts("2027-01-21T12:40"), 10)
    c = inc.code(
        ts("2027-01-21T12:51"),
        "weather-ingest",
        "Log the SkyCast run id with each forecast pull (AG-902)",
        "weather_ingest/pull.py",
        '    log.info("forecast pulled", grid=cell.id)',
        '    log.info("forecast pulled", grid=cell.id, run=resp.headers.get("X-Run-Id"))',
        39,
    )
    d = inc.deploy(ts("2027-01-21T13:12"), "weather-ingest")
    onset = ts("2027-01-21T13:40")
    stack = py_stack(
        "httpx.RemoteProtocolError",
        "peer closed connection without sending complete message body (incomplete chunked read)",
        [
            ("/app/weather_ingest/pull.py", 33, "pull", "resp = await client.get(url, params=q)"),
            (
                "/usr/local/lib/python3.12/site-packages/httpx/_client.py",
                1661,
                "send",
                "response = await self._send_handling_auth(",
            ),
        ],
    )
    inc.errors(
        "weather-ingest",
        onset,
        now,
        0.6,
        lambda r: (
            f"forecast pull for grid {r.randint(40, 58)}.{r.randint(0, 9)}N/{r.randint(0, 9)}.{r.randint(0, 9)}E failed, retry next cycle"
        ),
        exc_info=stack,
    )
    inc.fleet(weather_ingest={"err": add(step(onset, 0, 0.15))})
    inc.alert = alerts.alertmanager(
        "WeatherPullsFailing",
        "weather-ingest",
        ts("2027-01-21T14:25"),
        "warning",
        "weather-ingest forecast pulls failing",
        "forecast pull failures 15% over 30m.",
        "rate(forecast_pull_failures_total[30m]) / rate(forecast_pulls_total[30m]) > 0.1",
        team="data-platform",
    )
    inc.unexplained("weather-ingest", [*made[-2:], c, d], onset)
    return inc


# --- Halyard Regional Transit (added by a third examiner) -----------------------------------------


def xt49_fare_cap_unnamed_release() -> ExtIncident:
    now = ts("2027-02-11T16:30")
    inc = ExtIncident(
        "xt49-fare-cap-unnamed-release",
        "Fare cap fallback approvals above 5% (fare-gateway)",
        """On Tuesday a rider-accounts commit made the daily cap honour a per-rider override from
        the concession profile, reading account.concessionProfile().dailyCapOverride() without a
        null check. Accounts registered before the 2024 migration have no concession profile
        row, so for them FareCapService.applyDailyCap throws a NullPointerException. The commit
        was not released until Thursday's 14:05 release, whose notes name only the Jackson bump
        and the autoload retry logging. From 14:08 about a third of cap checks fail with 500 and
        fare-gateway approves those taps without applying the cap (revenue and cap-accuracy
        complaints, not denied boardings). A fare-gateway deploy at 13:41 about logging on the
        cap fallback path shares the errors' words; a later rider-accounts commit adding cap
        metrics lands after the onset. Category: code_defect (a missing null check in the
        changed function, named by every stack trace).""",
        now,
        HALYARD,
        seed=2349,
    )
    inc.doc(
        "Runbook: fare cap fallback approvals",
        """fare-gateway asks rider-accounts (POST /accounts/{id}/caps) whether a tap is already under
the rider's daily or weekly cap. If rider-accounts errors or takes longer than 400 ms the tap is
approved and charged the full fare without cap evaluation (fallback), and a correction job runs
overnight. Normal fallback share: under 0.5%. Check rider-accounts 5xx and its last release.
Roll back: `hrtctl rollback rider-accounts` (Fare Systems on-call approves).""",
    )
    inc.noise()
    inc.background(
        inc.begin,
        ts("2027-02-11T12:40"),
        9,
        services=[
            "avl-ingest",
            "gtfs-rt-publisher",
            "trip-planner",
            "signage-push",
            "paratransit-booking",
        ],
    )
    guilty = inc.code(
        ts("2027-02-09T15:20"),
        "rider-accounts",
        "[HRT-3021] Daily cap honours the concession profile's cap override",
        "src/main/java/org/halyard/accounts/caps/FareCapService.java",
        """    public CapResult applyDailyCap(Account account, Tap tap) {
        Money cap = tariff.dailyCap(tap.fareClass());
        Money spent = ledger.spentToday(account.id(), serviceDay(tap));
        return CapResult.of(cap, spent, tap.fare());""",
        """    public CapResult applyDailyCap(Account account, Tap tap) {
        Money cap = account.concessionProfile().dailyCapOverride()
                .orElse(tariff.dailyCap(tap.fareClass()));
        Money spent = ledger.spentToday(account.id(), serviceDay(tap));
        return CapResult.of(cap, spent, tap.fare());""",
        84,
        author="s.lindqvist",
    )
    bump = inc.code(
        ts("2027-02-11T10:12"),
        "rider-accounts",
        "[HRT-3040] Bump jackson-databind to 2.17.2",
        "pom.xml",
        "      <artifactId>jackson-databind</artifactId>\n      <version>2.17.1</version>",
        "      <artifactId>jackson-databind</artifactId>\n      <version>2.17.2</version>",
        61,
        author="dependabot[bot]",
    )
    autoload = inc.code(
        ts("2027-02-11T11:40"),
        "rider-accounts",
        "[HRT-3033] Log the retry count when an autoload payment is retried",
        "src/main/java/org/halyard/accounts/autoload/AutoloadJob.java",
        '            log.warn("autoload payment failed, retrying account={}", account.id());',
        '            log.warn("autoload payment failed, retrying account={} attempt={}", account.id(), attempt);',
        57,
        author="k.achterberg",
    )
    fg = inc.code(
        ts("2027-02-11T13:20"),
        "fare-gateway",
        "[HRT-3036] Log validator firmware on the cap fallback path",
        "src/main/java/org/halyard/fares/taps/TapAuthorizer.java",
        '            log.warn("cap check failed, approving without cap media={}", tap.mediaId());',
        '            log.warn("cap check failed, approving without cap media={} firmware={}", tap.mediaId(), tap.validatorFirmware());',
        131,
        author="m.delacroix",
    )
    fgd = inc.deploy(ts("2027-02-11T13:41"), "fare-gateway")
    release = inc.deploy(
        ts("2027-02-11T14:05"),
        "rider-accounts",
        version="2027.02.11-1",
        ships=[bump, autoload],
        summary="Release rider-accounts 2027.02.11-1 (jackson-databind 2.17.2; autoload retry count in logs)",
    )
    onset = ts("2027-02-11T14:08")
    tp = inc.code(
        ts("2027-02-11T14:31"),
        "trip-planner",
        "[HRT-3044] Cache stop names for 10 minutes",
        "src/stops/names.ts",
        "const NAME_TTL_MS = 60_000;",
        "const NAME_TTL_MS = 600_000;",
        4,
        author="wen.zhou",
    )
    tpd = inc.deploy(ts("2027-02-11T14:50"), "trip-planner")
    late = inc.code(
        ts("2027-02-11T14:52"),
        "rider-accounts",
        "[HRT-3047] Count cap evaluations per fare class",
        "src/main/java/org/halyard/accounts/caps/CapMetrics.java",
        '    private final Counter evaluations = registry.counter("cap_evaluations_total");',
        '    private Counter evaluations(FareClass fc) {\n        return registry.counter("cap_evaluations_total", "fare_class", fc.name());\n    }',
        22,
        author="s.lindqvist",
    )
    lated = inc.deploy(ts("2027-02-11T15:30"), "rider-accounts", ships=[late])
    npe = (
        'Cannot invoke "org.halyard.accounts.model.ConcessionProfile.dailyCapOverride()" because '
        'the return value of "org.halyard.accounts.model.Account.concessionProfile()" is null'
    )
    stack = java_stack(
        "java.lang.NullPointerException",
        npe,
        [
            ("org.halyard.accounts.caps.FareCapService.applyDailyCap", "FareCapService.java", 85),
            ("org.halyard.accounts.caps.CapController.evaluate", "CapController.java", 41),
            (
                "org.springframework.web.servlet.FrameworkServlet.service",
                "FrameworkServlet.java",
                885,
            ),
        ],
    )
    inc.errors(
        "rider-accounts",
        onset,
        now,
        lambda f: 0.9 + 0.6 * f,
        lambda r: f"POST /accounts/A-{r.randint(1000000, 9999999)}/caps 500 ({r.randint(3, 9)}ms)",
        exception="java.lang.NullPointerException",
        stack_trace=stack,
    )
    inc.errors(
        "fare-gateway",
        onset + 1 * MINUTE,
        now,
        lambda f: 1.0 + 0.8 * f,
        lambda r: (
            f"cap check failed, approving without cap media={r.choice(['card', 'EMV'])}:{r.getrandbits(32):08x} status=500 firmware=4.{r.randint(2, 4)}.1"
        ),
        level="WARNING",
    )
    inc.metric(
        "fare_cap_fallback_ratio",
        "fare-gateway",
        lambda t: 0.002 if t < onset else 0.31,
        jitter=0.08,
        digits=4,
    )
    inc.metric(
        "http_server_requests_seconds_count_rate",
        "rider-accounts",
        step(onset, 0.0, 29.0),
        labels={"uri": "/accounts/{id}/caps", "status": "500"},
        jitter=0.1,
        digits=2,
    )
    inc.fleet(rider_accounts={"err": add(step(onset, 0, 0.21))})
    inc.alert = alerts.alertmanager(
        "FareCapFallbackHigh",
        "fare-gateway",
        ts("2027-02-11T15:10"),
        "warning",
        "Fare cap fallback approvals above 5% (fare-gateway)",
        "31% of taps were approved without a cap evaluation over the last 30m.",
        'sum(rate(fare_taps_total{cap="fallback"}[30m])) / sum(rate(fare_taps_total[30m])) > 0.05',
        team="fare-systems",
    )
    inc.blame(
        guilty,
        [release],
        "rider-accounts",
        "code_defect",
        [fg, fgd, bump, autoload, late, lated, tp, tpd],
        onset,
    )
    return inc


def xt50_gtfs_rt_horizon_config() -> ExtIncident:
    now = ts("2027-02-15T13:40")
    inc = ExtIncident(
        "xt50-gtfs-rt-horizon-config",
        "GTFS-rt TripUpdates feed stale (gtfs-rt-publisher)",
        """A ConfigMap change to gtfs-rt-publisher raised PREDICTION_HORIZON_MINUTES from 90 to
        720 so third-party apps could show predictions for the rest of the service day. Each
        15-second build now predicts eight times as many stop times: from 11:08, when the pods
        restarted with the new config, the build takes ~40 s instead of ~5 s, cycles are skipped
        and the feed third-party apps read is a minute old. Nothing errors: it shows in the build
        duration, CPU and feed-age metrics, and in a few 'build overran' warnings. An avl-ingest
        deploy about duplicate positions, a gtfs-rt-publisher deploy adding an entity count to
        the build log and a trip-planner deploy about realtime badges are around. Category:
        configuration_error (a configuration value, not code, set the work per build).""",
        now,
        HALYARD,
        seed=2350,
    )
    inc.doc(
        "Runbook: GTFS-realtime feed freshness",
        """gtfs-rt-publisher rebuilds TripUpdates and VehiclePositions every FEED_INTERVAL_SECONDS
(15). Third-party apps (Transit, Moovit, Google) poll every 30 s and drop a feed whose header
timestamp is older than 60 s. gtfs_rt_feed_age_seconds should stay under 30. If it climbs: look at
gtfs_rt_build_duration_seconds (normally 4-7 s) and what changed in the publisher's ConfigMap
(deploy/gtfs-rt-publisher/configmap-prod.yaml) or code.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-02-15T10:10"), 10)
    av = inc.code(
        ts("2027-02-15T10:40"),
        "avl-ingest",
        "[HRT-3051] Drop duplicate positions that modems resend after a reconnect",
        "internal/ingest/dedupe.go",
        "\tif p.Timestamp.Before(last.Timestamp) {\n\t\treturn true\n\t}",
        "\tif !p.Timestamp.After(last.Timestamp) {\n\t\treturn true // duplicate or stale position\n\t}",
        33,
        author="tbaptiste",
    )
    avd = inc.deploy(ts("2027-02-15T10:58"), "avl-ingest")
    cfg = inc.config(
        ts("2027-02-15T11:05"),
        "gtfs-rt-publisher",
        "gtfs-rt: predictions for the rest of the service day in TripUpdates (partner request)",
        "deploy/gtfs-rt-publisher/configmap-prod.yaml",
        """data:
  FEED_INTERVAL_SECONDS: "15"
  PREDICTION_HORIZON_MINUTES: "90"
  BUILD_WORKERS: "4"
  STATIC_GTFS_URL: "s3://hrt-gtfs/static/current.zip\"""",
        """data:
  FEED_INTERVAL_SECONDS: "15"
  PREDICTION_HORIZON_MINUTES: "720"
  BUILD_WORKERS: "4"
  STATIC_GTFS_URL: "s3://hrt-gtfs/static/current.zip\"""",
        author="dana.ochoa",
        line=6,
    )
    onset = ts("2027-02-15T11:08")
    inc.log(
        ts("2027-02-15T11:07:31"),
        "gtfs-rt-publisher",
        "INFO",
        "config loaded: FEED_INTERVAL_SECONDS=15 PREDICTION_HORIZON_MINUTES=720 BUILD_WORKERS=4 (pod restarted by configmap-reloader)",
    )
    gc = inc.code(
        ts("2027-02-15T11:30"),
        "gtfs-rt-publisher",
        "[HRT-3055] Log the entity count with each feed build",
        "gtfs_rt/build.py",
        '    log.info("TripUpdates feed built", seconds=round(elapsed, 1))',
        '    log.info("TripUpdates feed built", seconds=round(elapsed, 1), entities=len(feed.entity))',
        118,
        author="dana.ochoa",
    )
    gcd = inc.deploy(ts("2027-02-15T11:48"), "gtfs-rt-publisher")
    tc = inc.code(
        ts("2027-02-15T11:55"),
        "trip-planner",
        "[HRT-3049] Show a 'scheduled' badge on departures without realtime",
        "src/departures/badge.ts",
        "  return dep.realtime ? 'live' : '';",
        "  return dep.realtime ? 'live' : 'scheduled';",
        12,
        author="wen.zhou",
    )
    tcd = inc.deploy(ts("2027-02-15T12:09"), "trip-planner")
    t = inc.begin + timedelta(seconds=7)
    r = random.Random(2350)
    while t < now:
        slow = t >= onset
        secs = r.uniform(36, 46) if slow else r.uniform(3.8, 6.9)
        entities = r.randint(14200, 15900) if slow else r.randint(1700, 2100)
        if r.random() < 0.12:
            inc.log(
                t,
                "gtfs-rt-publisher",
                "INFO",
                f"TripUpdates feed built in {secs:.1f}s entities={entities}",
            )
        if slow and r.random() < 0.02:
            inc.log(
                t,
                "gtfs-rt-publisher",
                "WARNING",
                f"feed build overran interval ({secs:.1f}s > 15s), skipped {int(secs // 15)} cycles",
            )
        t += timedelta(seconds=secs if slow else 15)
    inc.metric(
        "gtfs_rt_build_duration_seconds_p99",
        "gtfs-rt-publisher",
        step(onset, 6.2, 44.0),
        jitter=0.06,
        digits=1,
    )
    inc.metric(
        "gtfs_rt_feed_age_seconds",
        "gtfs-rt-publisher",
        step(onset, 17, 61),
        labels={"feed": "trip_updates"},
        jitter=0.1,
        digits=0,
    )
    inc.metric(
        "gtfs_rt_feed_entities",
        "gtfs-rt-publisher",
        step(onset, 1900, 15100),
        labels={"feed": "trip_updates"},
        jitter=0.03,
        digits=0,
    )
    inc.metric(
        "container_cpu_usage_cores",
        "gtfs-rt-publisher",
        step(onset, 0.45, 1.96),
        jitter=0.03,
        digits=2,
    )
    inc.metric(
        "container_memory_working_set_bytes",
        "gtfs-rt-publisher",
        step(onset, 3.1e8, 1.35e9),
        jitter=0.03,
        digits=0,
    )
    inc.fleet(
        gtfs_rt_publisher={
            "rps": times(step(onset, 1, 0.35)),
            "p99": floor(step(onset, 0, 44000)),
        }
    )
    inc.alert = alerts.alertmanager(
        "GtfsRtFeedStale",
        "gtfs-rt-publisher",
        ts("2027-02-15T12:20"),
        "warning",
        "GTFS-rt TripUpdates feed stale (gtfs-rt-publisher)",
        "TripUpdates header timestamp older than 45s for 1h.",
        'min_over_time(gtfs_rt_feed_age_seconds{feed="trip_updates"}[1h]) > 45',
        team="operations-tech",
    )
    inc.blame(
        cfg, [], "gtfs-rt-publisher", "configuration_error", [av, avd, gc, gcd, tc, tcd], onset
    )
    return inc


def xt51_transit_kit_after_midnight() -> ExtIncident:
    now = ts("2027-02-18T06:40")
    inc = ExtIncident(
        "xt51-transit-kit-after-midnight",
        "Stop signs showing no countdown above 15%",
        """A transit-kit commit replaced gtfstime.Parse's hand-written parser with
        time.Parse("15:04:05", s). GTFS writes trips after midnight as 24:07:00, 25:30:00 and so
        on, which time.Parse rejects (hour out of range). signage-push picked transit-kit v0.14.0
        up in a go.mod bump deployed at 03:20 UTC and worked until 05:00 UTC (23:00 local), when
        the first after-midnight trips of the service day entered the signs' 60-minute window;
        from then on more and more signs show '--'. avl-ingest had deployed the same version at
        01:50 but does not parse stop times. The signage-push deploy also shipped a commit that
        renders 'Due' instead of '0 min' (shares the countdown words), and a gtfs-rt-publisher
        deploy is the latest before the alert. Category: code_defect (the library function named
        in every stack trace).""",
        now,
        HALYARD,
        seed=2351,
        hours=8,
    )
    inc.doc(
        "Runbook: blank countdowns on stop signs",
        """signage-push computes each sign's next arrivals (60-minute window) from avl.positions and
the static GTFS stop times, and pushes them every 20 s. A sign shows '--' for a trip it cannot
predict. More than 15% blank signs pages Operations Tech. GTFS times may exceed 24:00:00 for
trips after midnight that belong to the previous service day (GTFS reference, stop_times.txt).
Local time is America/Chicago (UTC-6 in winter).""",
    )
    inc.noise()
    inc.background(
        inc.begin,
        ts("2027-02-18T01:00"),
        9,
        services=["fare-gateway", "rider-accounts", "trip-planner", "paratransit-booking"],
    )
    geo = inc.code(
        ts("2027-02-17T20:02"),
        "transit-kit",
        "[HRT-3058] geo: add Bearing helper",
        "geo/bearing.go",
        "// Haversine returns the distance in metres between two points.",
        "// Haversine returns the distance in metres between two points.\n\n// Bearing returns the initial bearing in degrees from a to b.\nfunc Bearing(a, b Point) float64 { return bearing(a.Lat, a.Lon, b.Lat, b.Lon) }",
        12,
        author="tbaptiste",
    )
    lib = inc.code(
        ts("2027-02-17T22:10"),
        "transit-kit",
        "[HRT-3060] gtfstime: use time.Parse instead of the hand-rolled Sscanf parser",
        "gtfstime/parse.go",
        """// Parse reads a GTFS time (HH:MM:SS); hours may exceed 23 for trips after midnight.
func Parse(s string) (time.Duration, error) {
	var h, m, sec int
	if _, err := fmt.Sscanf(s, "%d:%d:%d", &h, &m, &sec); err != nil {
		return 0, fmt.Errorf("gtfstime: %q: %w", s, err)
	}
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second, nil
}""",
        """// Parse reads a GTFS time (HH:MM:SS).
func Parse(s string) (time.Duration, error) {
	t, err := time.Parse("15:04:05", s)
	if err != nil {
		return 0, fmt.Errorf("gtfstime: %q: %w", s, err)
	}
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute + time.Duration(t.Second())*time.Second, nil
}""",
        11,
        author="k.achterberg",
    )
    gomod = "require (\n\tgit.halyardtransit.example/transit-kit {v}\n\tgithub.com/prometheus/client_golang v1.19.1\n)"
    avb = inc.code(
        ts("2027-02-18T01:31"),
        "avl-ingest",
        "[HRT-3061] Bump transit-kit to v0.14.0",
        "go.mod",
        gomod.format(v="v0.13.2"),
        gomod.format(v="v0.14.0"),
        5,
        author="tbaptiste",
    )
    avd = inc.deploy(ts("2027-02-18T01:50"), "avl-ingest")
    sgb = inc.code(
        ts("2027-02-18T02:49"),
        "signage-push",
        "[HRT-3062] Bump transit-kit to v0.14.0",
        "go.mod",
        gomod.format(v="v0.13.2"),
        gomod.format(v="v0.14.0"),
        5,
        author="k.achterberg",
    )
    due = inc.code(
        ts("2027-02-18T02:58"),
        "signage-push",
        "[HRT-3039] Countdown shows 'Due' instead of '0 min'",
        "internal/render/countdown.go",
        '\treturn fmt.Sprintf("%d min", mins)',
        '\tif mins == 0 {\n\t\treturn "Due"\n\t}\n\treturn fmt.Sprintf("%d min", mins)',
        27,
        author="wen.zhou",
    )
    sgd = inc.deploy(ts("2027-02-18T03:20"), "signage-push")
    onset = ts("2027-02-18T05:00")
    gp = inc.code(
        ts("2027-02-18T04:58"),
        "gtfs-rt-publisher",
        "[HRT-3057] Skip cancelled trips when counting entities",
        "gtfs_rt/build.py",
        "    count = len(feed.entity)",
        "    count = sum(1 for e in feed.entity if not e.trip_update.trip.schedule_relationship == CANCELED)",
        140,
        author="dana.ochoa",
    )
    gpd = inc.deploy(ts("2027-02-18T05:20"), "gtfs-rt-publisher")
    stack = go_stack(
        'gtfstime: "24:07:00": parsing time "24:07:00": hour out of range',
        [
            (
                "git.halyardtransit.example/transit-kit/gtfstime.Parse",
                "/go/pkg/mod/git.halyardtransit.example/transit-kit@v0.14.0/gtfstime/parse.go",
                15,
            ),
            (
                "git.halyardtransit.example/signage-push/internal/predict.(*Predictor).arrival",
                "/src/signage-push/internal/predict/predict.go",
                96,
            ),
            (
                "git.halyardtransit.example/signage-push/internal/predict.(*Predictor).Countdowns",
                "/src/signage-push/internal/predict/predict.go",
                61,
            ),
        ],
    )

    def line(r: random.Random) -> str:
        hh = r.choice(["24", "24", "24", "25", "25", "26"])
        ts_ = f"{hh}:{r.randint(0, 59):02d}:00"
        return (
            f'level=error msg="countdown skipped" sign=S-{r.randint(1000, 2600)} '
            f"trip={r.randint(8000, 8999)}_WKD_{hh}{r.randint(0, 59):02d} "
            f'err="gtfstime: \\"{ts_}\\": parsing time \\"{ts_}\\": hour out of range"'
        )

    inc.errors(
        "signage-push", onset, now, lambda f: 0.2 + 1.8 * min(f * 1.6, 1.0), line, stack=stack
    )
    inc.metric(
        "signs_blank_countdown_ratio",
        "signage-push",
        lambda t: 0.01 if t < onset else min(0.93, 0.01 + 0.9 * (t - onset).total_seconds() / 4200),
        jitter=0.05,
        digits=3,
    )
    inc.metric(
        "signage_predictions_errors_per_second",
        "signage-push",
        ramp(onset, ts("2027-02-18T06:10"), 0.0, 14.0),
        jitter=0.1,
        digits=2,
    )
    inc.fleet(signage_push={"err": add(ramp(onset, ts("2027-02-18T06:10"), 0, 0.55))})
    inc.alert = alerts.alertmanager(
        "SignsBlankCountdowns",
        "signage-push",
        ts("2027-02-18T05:42"),
        "critical",
        "Stop signs showing no countdown above 15%",
        "signs_blank_countdown_ratio is 0.52.",
        "signs_blank_countdown_ratio > 0.15",
        team="operations-tech",
    )
    inc.blame(lib, [sgb, sgd], "signage-push", "code_defect", [geo, avb, avd, due, gp, gpd], onset)
    return inc


def xt52_northgate_rc91_notice() -> ExtIncident:
    now = ts("2027-02-22T19:30")
    inc = ExtIncident(
        "xt52-northgate-rc91-notice",
        "EMV authorization failures above 10% (fare-gateway)",
        """Northgate Acquiring, the EMV acquirer, lost a card-network gateway at 17:46: a share
        of authorizations came back at once with ISO 8583 response code 91 (issuer or switch
        inoperative). Their status page (in the knowledge base, dated 2027-02-22T17:58:00Z)
        confirms it. fare-gateway put the taps on the deny-list-risk path. A fare-gateway config
        change at 17:20 raised the acquirer read timeout from 3 s to 5 s and added one retry:
        it is the acquirer client's own configuration and lands 26 minutes before, but the
        failures are fast declines, not timeouts (acquirer latency never moved). A rider-accounts
        and a trip-planner deploy follow. Category: dependency_failure (the acquirer).""",
        now,
        HALYARD,
        seed=2352,
    )
    inc.doc(
        "Northgate Acquiring status: Degraded authorizations via one card network gateway",
        """status.northgate.example - incident history
Investigating - 2027-02-22T17:58:00Z - Some merchants see authorizations declined with response
code 91. We are investigating.
Identified - 2027-02-22T18:31:00Z - A gateway to one card network in our US-Central data center
is failing. Traffic is being moved to US-East.
Monitoring - 2027-02-22T19:12:00Z - Error rates are dropping as traffic moves.""",
    )
    inc.doc(
        "Runbook: EMV authorization failures",
        """EMV taps are authorized with Northgate (acq.northgate.example) after boarding (deferred
authorization, no rider waits). A failed authorization puts the card on the risk list until it
succeeds. Response codes: 05 do not honour (issuer), 51 insufficient funds, 91 issuer or switch
inoperative (network/acquirer side). Check status.northgate.example first; our timeout and
retry settings are in config/acquirer.yaml.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-02-22T16:40"), 10)
    cfg = inc.config(
        ts("2027-02-22T17:20"),
        "fare-gateway",
        "acquirer: read timeout 3s -> 5s and one retry on timeout (Northgate is slow at peak)",
        "config/acquirer.yaml",
        """northgate:
  host: acq.northgate.example
  port: 8583
  connect_timeout_ms: 1000
  read_timeout_ms: 3000
  retries_on_timeout: 0""",
        """northgate:
  host: acq.northgate.example
  port: 8583
  connect_timeout_ms: 1000
  read_timeout_ms: 5000
  retries_on_timeout: 1""",
        author="m.delacroix",
        line=3,
    )
    inc.log(
        ts("2027-02-22T17:21:08"),
        "fare-gateway",
        "INFO",
        "acquirer config reloaded: host=acq.northgate.example read_timeout_ms=5000 retries_on_timeout=1",
    )
    ra = inc.code(
        ts("2027-02-22T17:22"),
        "rider-accounts",
        "[HRT-3070] Show the risk-list reason on the account page",
        "src/main/java/org/halyard/accounts/risk/RiskView.java",
        "        return new RiskView(card.id(), card.onRiskList());",
        "        return new RiskView(card.id(), card.onRiskList(), card.riskReason());",
        19,
        author="s.lindqvist",
    )
    rad = inc.deploy(ts("2027-02-22T17:40"), "rider-accounts")
    onset = ts("2027-02-22T17:46")
    tpc = inc.code(
        ts("2027-02-22T17:52"),
        "trip-planner",
        "[HRT-3072] Walk speed slider in the planner",
        "src/plan/params.ts",
        "  walkSpeed: 1.33,",
        "  walkSpeed: clamp(q.walkSpeed ?? 1.33, 0.5, 2.0),",
        18,
        author="wen.zhou",
    )
    tpd = inc.deploy(ts("2027-02-22T18:09"), "trip-planner")
    stack = java_stack(
        "org.halyard.fares.acquirer.AuthorizationDeclinedException",
        "Northgate response code 91 (issuer or switch inoperative)",
        [
            ("org.halyard.fares.acquirer.NorthgateClient.authorize", "NorthgateClient.java", 142),
            ("org.halyard.fares.taps.DeferredAuthJob.authorize", "DeferredAuthJob.java", 77),
        ],
    )
    inc.errors(
        "fare-gateway",
        onset,
        now,
        lambda f: 1.4 if f < 0.75 else 0.5,
        lambda r: (
            f"EMV authorization failed rc=91 stan={r.randint(100000, 999999)} latency_ms={r.randint(180, 420)} card moved to risk list"
        ),
        exception="org.halyard.fares.acquirer.AuthorizationDeclinedException",
        stack_trace=stack,
        upstream="acq.northgate.example",
    )
    inc.metric(
        "acquirer_authorizations_per_second",
        "fare-gateway",
        step(onset, 0.05, 6.5, ts("2027-02-22T19:15")),
        labels={"rc": "91"},
        jitter=0.12,
        digits=2,
    )
    inc.metric(
        "acquirer_authorizations_per_second",
        "fare-gateway",
        lambda t: 48.0 if t < onset else 41.0,
        labels={"rc": "00"},
        jitter=0.05,
        digits=1,
    )
    inc.metric(
        "acquirer_request_duration_seconds_p99",
        "fare-gateway",
        lambda t: 0.61,
        labels={"upstream": "acq.northgate.example"},
        jitter=0.07,
        digits=3,
    )
    inc.fleet(fare_gateway={"err": add(step(onset, 0, 0.05, ts("2027-02-22T19:15")))})
    inc.alert = alerts.generic(
        "EMV authorization failures above 10% (fare-gateway)",
        "fare-gateway",
        ts("2027-02-22T18:05"),
        "critical",
        {
            "source": "pagerduty",
            "event_action": "trigger",
            "dedup_key": "fare-gateway/emv-auth-failures",
            "payload": {
                "summary": "EMV authorization failure ratio 12.4% (threshold 10%)",
                "component": "fare-gateway",
                "group": "fare-systems",
                "class": "acquirer",
                "custom_details": {"failed_per_s": 6.4, "window": "15m"},
            },
        },
    )
    inc.outside(
        "Northgate Acquiring card-network gateway failure, response code 91 (status notice 2027-02-22T17:58:00Z)",
        "fare-gateway",
        "dependency_failure",
        [cfg, ra, rad, tpc, tpd],
        onset,
    )
    return inc


def xt53_public_api_cert_expired() -> ExtIncident:
    now = ts("2027-03-01T11:20")
    inc = ExtIncident(
        "xt53-public-api-cert-expired",
        "Public API probe failing: api.halyardtransit.example",
        """The Let's Encrypt certificate of api.halyardtransit.example expired at
        2027-03-01T09:14:07Z. cert-manager had been trying to renew it since 30 January, but its
        DNS-01 challenges failed with 401 from the DNS provider: the municipal IT department
        rotated the zone's API token in January and nobody updated the secret. From 09:14 every
        client refuses the handshake (certificate expired), trip-planner's traffic falls by 90%
        and ingress-nginx logs SSL alert 45. An ingress change at 08:31 that drops old TLS cipher
        suites is the obvious suspect for handshake failures and is innocent; a trip-planner
        deploy of the March graph is the other decoy. Category: infrastructure (certificate
        renewal, no code or config change in the data).""",
        now,
        HALYARD,
        seed=2353,
    )
    inc.doc(
        "Runbook: public API certificate",
        """api.halyardtransit.example and gtfs.halyardtransit.example use Let's Encrypt
certificates issued by cert-manager with DNS-01 challenges against the city's DNS provider
(CloudZone). cert-manager renews 30 days before expiry. The CloudZone API token lives in the
secret cert-manager/cloudzone-token; municipal IT rotates it yearly. Check
probe_ssl_earliest_cert_expiry and `kubectl describe certificate -n ingress api-hrt`.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-03-01T08:00"), 9)
    r = random.Random(2353)
    t = inc.begin + timedelta(minutes=13)
    while t < now:
        inc.log(
            t,
            "cert-manager",
            "ERROR",
            'error presenting DNS-01 challenge for "api.halyardtransit.example": cloudzone: '
            "POST /v1/zones/halyardtransit.example/records: 401 Unauthorized: API token expired",
            resource="ingress/api-hrt-tls-1",
            controller="challenges",
        )
        inc.log(
            t + timedelta(seconds=2),
            "cert-manager",
            "INFO",
            "Certificate ingress/api-hrt-tls: renewal failed, will retry (not after 2027-03-01T09:14:07Z)",
        )
        t += timedelta(minutes=r.uniform(55, 70))
    ing = inc.config(
        ts("2027-03-01T08:31"),
        "ingress-nginx",
        "ingress: drop TLS_RSA_* cipher suites (security review SR-118)",
        "clusters/prod/ingress-nginx/values.yaml",
        """controller:
  config:
    ssl-protocols: "TLSv1.2 TLSv1.3"
    ssl-ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:AES128-GCM-SHA256:AES256-GCM-SHA384\"""",
        """controller:
  config:
    ssl-protocols: "TLSv1.2 TLSv1.3"
    ssl-ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256\"""",
        author="k.achterberg",
        line=10,
    )
    tp = inc.code(
        ts("2027-03-01T08:40"),
        "trip-planner",
        "[HRT-3081] Load the March service graph",
        "config/otp.ts",
        "export const GRAPH = 's3://hrt-otp/graphs/2027-02/graph.obj';",
        "export const GRAPH = 's3://hrt-otp/graphs/2027-03/graph.obj';",
        3,
        author="wen.zhou",
    )
    tpd = inc.deploy(ts("2027-03-01T08:58"), "trip-planner")
    onset = ts("2027-03-01T09:14")
    inc.errors(
        "ingress-nginx",
        onset,
        now,
        1.6,
        lambda r: (
            f"*{r.randint(1000000, 9999999)} SSL_do_handshake() failed (SSL: error:0A000415:SSL routines::sslv3 alert "
            f"certificate expired:SSL alert number 45) while SSL handshaking, client: 10.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}, "
            "server: 0.0.0.0:443"
        ),
        host="api.halyardtransit.example",
    )
    inc.errors(
        "paratransit-booking",
        onset + 3 * MINUTE,
        now,
        0.15,
        "trip ETA lookup failed: https://api.halyardtransit.example/otp/plan: certificate verify failed: certificate has expired",
        exc_info=py_stack(
            "ssl.SSLCertVerificationError",
            "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate has expired (_ssl.c:1006)",
            [
                (
                    "/app/booking/eta.py",
                    41,
                    "eta",
                    "resp = session.get(PLAN_URL, params=q, timeout=5)",
                )
            ],
        ),
    )
    inc.metric(
        "probe_success",
        "trip-planner",
        step(onset, 1, 0),
        labels={"instance": "https://api.halyardtransit.example/otp/health", "job": "blackbox"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "probe_ssl_earliest_cert_expiry",
        "trip-planner",
        lambda t: 1803892447,
        labels={"instance": "https://api.halyardtransit.example/otp/health", "job": "blackbox"},
        jitter=0,
        digits=0,
    )
    inc.fleet(trip_planner={"rps": times(step(onset, 1, 0.09))})
    inc.alert = alerts.alertmanager(
        "PublicApiProbeFailing",
        "trip-planner",
        ts("2027-03-01T09:31"),
        "critical",
        "Public API probe failing: api.halyardtransit.example",
        "Blackbox probe of https://api.halyardtransit.example/otp/health has failed for 15m.",
        'probe_success{job="blackbox",instance=~"https://api.halyardtransit.example.*"} == 0',
        team="digital",
    )
    inc.outside(
        "TLS certificate of api.halyardtransit.example expired 2027-03-01T09:14:07Z (cert-manager renewals failing: DNS provider token expired)",
        "trip-planner",
        "infrastructure",
        [ing, tp, tpd],
        onset,
    )
    return inc


def xt54_pass_expired_declines() -> ExtIncident:
    now = ts("2027-04-01T13:40")
    inc = ExtIncident(
        "xt54-pass-expired-declines",
        "Declined taps above 8% (fare-gateway)",
        """Monthly passes are valid through the last service day of the month. On the morning of
        1 April riders who had not renewed tapped their lapsed March passes and were declined
        with PASS_EXPIRED; the decline ratio rose from about 3% to 11% with the morning peak, as
        it does on the first weekday of every month. fare-gateway and rider-accounts worked as
        designed: approvals, latency and errors are normal, the autoload renewal job ran. The
        alert counts every decline reason. A rider-accounts deploy about pass renewal reminder
        emails and a fare-gateway deploy that adds the product code to decline logs are around.
        Category: healthy (the alert's condition is real, but nothing is broken).""",
        now,
        HALYARD,
        seed=2354,
    )
    inc.doc(
        "Fare policy: passes",
        """Monthly passes (MONTHLY_ADULT, MONTHLY_REDUCED, MONTHLY_YOUTH) are valid from the first to
the last service day of a calendar month (service day ends 03:00 local). Riders renew at ticket
vending machines, in the app, or by autoload (runs 02:00 local on the 1st). A tap with a lapsed
pass is declined with PASS_EXPIRED; the rider can tap a bank card instead.""",
    )
    inc.doc(
        "Runbook: declined taps",
        """The FareDeclinesHigh alert fires when declines exceed 8% of taps over 20 minutes. Look at
the decline reasons first (fare_tap_declines_per_second by reason). Declines for media that are
not valid (PASS_EXPIRED, INSUFFICIENT_FUNDS, BLOCKED_CARD) mean the validators are doing their job;
a jump in VALIDATION_ERROR or TIMEOUT means something is broken.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-04-01T09:40"), 9)
    inc.log(
        ts("2027-04-01T08:00:05"),
        "rider-accounts",
        "INFO",
        "AutoloadJob started run=monthly-2027-04",
    )
    inc.log(
        ts("2027-04-01T08:41:12"),
        "rider-accounts",
        "INFO",
        "AutoloadJob finished run=monthly-2027-04 renewed=18412 failed=37 (card declined)",
    )
    ra = inc.code(
        ts("2027-04-01T10:02"),
        "rider-accounts",
        "[HRT-3101] Pass renewal reminder email: link to autoload setup",
        "src/main/resources/templates/pass-renewal-reminder.html",
        "<p>Your monthly pass ends on {{endDate}}.</p>",
        '<p>Your monthly pass ends on {{endDate}}. <a href="{{autoloadUrl}}">Renew automatically</a>.</p>',
        14,
        author="k.achterberg",
    )
    rad = inc.deploy(ts("2027-04-01T10:21"), "rider-accounts")
    onset = ts("2027-04-01T11:00")
    fc = inc.code(
        ts("2027-04-01T10:50"),
        "fare-gateway",
        "[HRT-3103] Put the product code in the tap declined log line",
        "src/main/java/org/halyard/fares/taps/TapAuthorizer.java",
        '        log.info("tap declined reason={}", decision.reason());',
        '        log.info("tap declined reason={} product={}", decision.reason(), media.productCode());',
        188,
        author="m.delacroix",
    )
    fcd = inc.deploy(ts("2027-04-01T11:12"), "fare-gateway")
    peak = ts("2027-04-01T12:30")

    def rate(f: float) -> float:
        return 0.8 + 3.2 * (1 - abs(f - 0.55) / 0.55)

    inc.errors(
        "fare-gateway",
        onset,
        now,
        rate,
        lambda r: (
            f"tap declined reason=PASS_EXPIRED product={r.choice(['MONTHLY_ADULT', 'MONTHLY_ADULT', 'MONTHLY_REDUCED', 'MONTHLY_YOUTH'])} "
            f"validator=V-{r.randint(100, 2400):04d} valid_to=2027-03-31"
        ),
        level="INFO",
    )

    def declines(t: datetime) -> float:
        if t < onset:
            return 0.2
        x = abs((t - peak).total_seconds()) / 5400
        return 0.2 + 11.5 * max(0.0, 1 - x)

    inc.metric(
        "fare_tap_declines_per_second",
        "fare-gateway",
        declines,
        labels={"reason": "PASS_EXPIRED"},
        jitter=0.08,
        digits=2,
    )
    for reason, v in (("INSUFFICIENT_FUNDS", 2.1), ("VALIDATION_ERROR", 0.05), ("TIMEOUT", 0.02)):
        inc.metric(
            "fare_tap_declines_per_second",
            "fare-gateway",
            lambda t, v=v: v,
            labels={"reason": reason},
            jitter=0.15,
            digits=2,
        )
    inc.fleet()
    inc.alert = alerts.alertmanager(
        "FareDeclinesHigh",
        "fare-gateway",
        ts("2027-04-01T12:10"),
        "warning",
        "Declined taps above 8% (fare-gateway)",
        "Declines are 10.7% of taps over 20m.",
        "sum(rate(fare_tap_declines_total[20m])) / sum(rate(fare_taps_total[20m])) > 0.08",
        team="fare-systems",
    )
    inc.healthy(
        "fare-gateway",
        "nothing is broken: declines are lapsed March monthly passes (PASS_EXPIRED) on the first morning of the month; approvals, errors and latency are normal and the alert counts every decline reason",
        [ra, rad, fc, fcd],
        onset,
    )
    return inc


# --- Saltmarsh Mobile (added by a third examiner) -------------------------------------------------


def xt55_plan_order_row_lock() -> ExtIncident:
    now = ts("2027-03-03T10:40")
    inc = ExtIncident(
        "xt55-plan-order-row-lock",
        "Plan change failures above 5% (selfcare-web)",
        """A provisioning-api commit made applyPlanChange read the subscriber's pending plan
        orders with SELECT ... FOR UPDATE, so two app sessions could not apply the same order
        twice. billing-batch's daily plan renewal run (09:00-10:15) updates plan_orders in long
        transactions; from 09:02 customers' plan changes wait on its row locks and fail after
        subsdb's 5 s lock_timeout ("canceling statement due to lock timeout"), in
        PlanOrderRepository.findPendingForUpdate, the method the commit added. The commit shipped
        at 07:31, hours before; the renewal run has always run at 09:00. The failures stopped when
        the run finished at 10:15 and will return with tomorrow's run. A selfcare-web deploy
        about the plan change dialog, the sibling eSIM commit in the same deploy and a
        number-porting deploy at 09:05 are the decoys. Category: code_defect (the new row lock in
        the request path).""",
        now,
        SALTMARSH,
        seed=2355,
        hours=6,
    )
    inc.doc(
        "Runbook: plan change failures",
        """selfcare-web -> provisioning-api PUT /subscribers/{msisdn}/plan -> subsdb (plan_orders) and
the HSS profile push. subsdb runs with lock_timeout = 5s and statement_timeout = 15s. billing-batch
renews plans daily at 09:00 UTC (about 40k subscribers, batches of 500 in one transaction). If
plan changes fail: check provisioning-api errors by exception, then pg_locks on plan_orders.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-03-03T06:40"), 9)
    guilty = inc.commit(
        ts("2027-03-03T07:02"),
        "provisioning-api",
        ":bug: lock pending plan orders while applying a plan change (double-apply from two sessions)",
        [
            (
                "src/main/java/com/saltmarsh/provisioning/plans/PlanOrderRepository.java",
                """    @Query(value = "SELECT * FROM plan_orders WHERE msisdn = :msisdn AND status = 'PENDING' ORDER BY created_at", nativeQuery = true)
    List<PlanOrder> findPending(@Param("msisdn") String msisdn);""",
                """    @Query(value = "SELECT * FROM plan_orders WHERE msisdn = :msisdn AND status = 'PENDING' ORDER BY created_at FOR UPDATE", nativeQuery = true)
    List<PlanOrder> findPendingForUpdate(@Param("msisdn") String msisdn);""",
                22,
            ),
            (
                "src/main/java/com/saltmarsh/provisioning/plans/PlanChangeService.java",
                "        List<PlanOrder> pending = orders.findPending(msisdn);",
                "        List<PlanOrder> pending = orders.findPendingForUpdate(msisdn);",
                71,
            ),
        ],
        author="rk.menon",
    )
    esim = inc.code(
        ts("2027-03-03T07:10"),
        "provisioning-api",
        ":loud_sound: log the SM-DP+ order id when an eSIM profile is released",
        "src/main/java/com/saltmarsh/provisioning/esim/EsimOrderService.java",
        '        log.info("eSIM profile released iccid={}", order.iccid());',
        '        log.info("eSIM profile released iccid={} smdp_order={}", order.iccid(), resp.orderId());',
        93,
        author="h.nakagawa",
    )
    gd = inc.deploy(ts("2027-03-03T07:31"), "provisioning-api")
    sw = inc.code(
        ts("2027-03-03T08:22"),
        "selfcare-web",
        ":lipstick: plan change dialog shows the new monthly price before confirming",
        "src/plan/PlanChangeDialog.tsx",
        "      <Confirm onConfirm={submit}>Change plan</Confirm>",
        "      <Price value={next.monthly} />\n      <Confirm onConfirm={submit}>Change plan</Confirm>",
        48,
        author="aoife.brennan",
    )
    swd = inc.deploy(ts("2027-03-03T08:45"), "selfcare-web")
    onset = ts("2027-03-03T09:02")
    npc = inc.code(
        ts("2027-03-03T08:41"),
        "number-porting",
        ":recycle: look subscribers up by msisdn through provisioning-api's client",
        "number_porting/subscribers.py",
        "    row = db.fetch_one(SUBSCRIBER_BY_MSISDN, msisdn=msisdn)",
        "    row = provisioning.subscriber(msisdn)",
        28,
        author="fsilva",
    )
    npd = inc.deploy(ts("2027-03-03T09:05"), "number-porting")
    tu = inc.code(
        ts("2027-03-03T09:08"),
        "topup-svc",
        ":white_check_mark: cover voucher redeem with an expired voucher",
        "internal/voucher/redeem_test.go",
        '\t{name: "valid", code: "1234-5678"},',
        '\t{name: "valid", code: "1234-5678"},\n\t{name: "expired", code: "0000-0001", wantErr: ErrVoucherExpired},',
        40,
        author="jmbeki",
    )
    tud = inc.deploy(ts("2027-03-03T09:26"), "topup-svc")
    inc.log(
        ts("2027-03-03T09:00:03"),
        "billing-batch",
        "INFO",
        "plan renewal run started: 41207 subscribers due, batch size 500",
    )
    inc.log(
        ts("2027-03-03T10:14:48"),
        "billing-batch",
        "INFO",
        "plan renewal run finished: renewed=41180 failed=27 in 74m",
    )
    stack = java_stack(
        "org.springframework.dao.CannotAcquireLockException",
        "could not extract ResultSet; SQL [n/a]; nested exception is org.postgresql.util.PSQLException: ERROR: canceling statement due to lock timeout",
        [
            (
                "org.postgresql.core.v3.QueryExecutorImpl.receiveErrorResponse",
                "QueryExecutorImpl.java",
                2713,
            ),
            (
                "com.saltmarsh.provisioning.plans.PlanOrderRepository.findPendingForUpdate",
                "PlanOrderRepository.java",
                23,
            ),
            (
                "com.saltmarsh.provisioning.plans.PlanChangeService.applyPlanChange",
                "PlanChangeService.java",
                71,
            ),
            ("com.saltmarsh.provisioning.api.PlanController.change", "PlanController.java", 54),
        ],
    )
    end = ts("2027-03-03T10:15")
    inc.errors(
        "provisioning-api",
        onset,
        end,
        1.3,
        lambda r: f"PUT /subscribers/44{r.randint(7000000000, 7999999999)}/plan 500 after 5004ms",
        **{
            "exception.type": "org.springframework.dao.CannotAcquireLockException",
            "exception.stacktrace": stack,
        },
    )
    node = node_stack(
        "HttpException",
        "provisioning-api responded 500",
        [
            ("ProvisioningClient.changePlan", "/app/dist/provisioning/client.js", 88, 13),
            ("PlanService.change", "/app/dist/plan/plan.service.js", 41, 22),
            ("PlanController.put", "/app/dist/plan/plan.controller.js", 19, 16),
        ],
    )
    inc.errors(
        "selfcare-web",
        onset + 1 * MINUTE,
        end,
        1.2,
        "plan change failed",
        **{"err.type": "HttpException", "err.stack": node, "http.route": "/plan"},
    )
    inc.metric(
        "pg_locks_waiting",
        "subsdb",
        step(onset, 0, 34, end),
        labels={"relation": "plan_orders", "mode": "RowExclusiveLock"},
        digits=0,
    )
    inc.metric(
        "http.server.request.duration.p99",
        "provisioning-api",
        lambda t: 5.1 if onset <= t < end else 0.24,
        labels={"http.route": "/subscribers/{msisdn}/plan"},
        jitter=0.06,
        digits=3,
    )
    inc.metric(
        "billing_plan_renewals_per_second",
        "billing-batch",
        step(ts("2027-03-03T09:00"), 0, 9.3, end),
        digits=1,
    )
    inc.fleet(
        provisioning_api={"err": add(step(onset, 0, 0.11, end))},
        selfcare_web={"err": add(step(onset, 0, 0.02, end))},
    )
    inc.alert = alerts.generic(
        "Plan change failures above 5% (selfcare-web)",
        "selfcare-web",
        ts("2027-03-03T09:31"),
        "high",
        {
            "source": "grafana-oncall",
            "alert_group": {"id": "IBN7Q3W", "title": "Plan change failures above 5%"},
            "integration": "Grafana Alerting",
            "evalMatches": [
                {"metric": 'plan_change_failure_ratio{app="selfcare-web"}', "value": 0.093}
            ],
            "team": "digital",
        },
    )
    inc.blame(
        guilty, [gd], "provisioning-api", "code_defect", [esim, sw, swd, npc, npd, tu, tud], onset
    )
    return inc


def xt56_smpp_window_config() -> ExtIncident:
    now = ts("2027-03-08T19:10")
    inc = ExtIncident(
        "xt56-smpp-window-config",
        "OTP login success below 90% (selfcare-web)",
        """A configuration change to sms-gateway, made for Friday's marketing send, raised the
        SMPP window from 10 to 100 outstanding submits and the submit rate from 50/s to 200/s.
        The Tidemark SMSC allows 20 outstanding and 60/s per bind and answers anything above with
        ESME_RTHROTTLED. That did not matter until the monthly 'your bill is ready' batch from
        billing-batch started at 18:00: sms-gateway bursts, most submits are throttled, it
        requeues them behind the batch, and one-time login codes arrive minutes late or not at
        all. The SMSC looks like the culprit and is not: it enforces its published limits. An
        sms-gateway deploy at 17:50 that rewords the OTP text, a billing-batch deploy about the
        bill SMS and a selfcare-web deploy adding an OTP resend button are the decoys. Category:
        configuration_error.""",
        now,
        SALTMARSH,
        seed=2356,
    )
    inc.doc(
        "Tidemark SMSC interconnect (partner document excerpt)",
        """SMPP 3.4 over TLS, 2 transceiver binds per customer. Per bind: at most 20 outstanding
submit_sm (window) and 60 submit_sm per second. Submits above these limits are answered with
command_status 0x00000058 (ESME_RTHROTTLED); resubmit after 1 s. Delivery receipts as usual.""",
    )
    inc.doc(
        "Messaging calendar",
        """| When (UTC) | What | Volume |
|---|---|---|
| 8th of each month 18:00 | "Your bill is ready" SMS (billing-batch) | ~380k |
| 2027-03-12 10:00 | Spring promo SMS (marketing) | ~1.1M |""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-03-08T16:20"), 10)
    bb = inc.code(
        ts("2027-03-08T16:21"),
        "billing-batch",
        ":sparkles: bill ready SMS includes the amount due",
        "src/main/java/com/saltmarsh/billing/notify/BillReadySms.java",
        '        return "Your Saltmarsh bill is ready in the app.";',
        '        return "Your Saltmarsh bill of " + money(bill.total()) + " is ready in the app.";',
        17,
        author="ola.s",
    )
    bbd = inc.deploy(ts("2027-03-08T16:40"), "billing-batch")
    cfg = inc.config(
        ts("2027-03-08T17:34"),
        "sms-gateway",
        ":wrench: smpp: bigger window and faster submits for Friday's promo send",
        "deploy/sms-gateway/config/smpp.yaml",
        """smsc:
  host: smpp.tidemark.example
  port: 3550
  binds: 2
  window_size: 10
  submit_rate_per_second: 50
  enquire_link_seconds: 30""",
        """smsc:
  host: smpp.tidemark.example
  port: 3550
  binds: 2
  window_size: 100
  submit_rate_per_second: 200
  enquire_link_seconds: 30""",
        author="ola.s",
        line=4,
    )
    inc.log(
        ts("2027-03-08T17:35:12"),
        "sms-gateway",
        "INFO",
        "smpp config reloaded from /etc/sms-gateway/smpp.yaml: binds=2 window_size=100 submit_rate_per_second=200",
    )
    otp = inc.code(
        ts("2027-03-08T17:31"),
        "sms-gateway",
        ":speech_balloon: OTP text says how long the code is valid",
        "internal/templates/otp.go",
        '\tOTPText = "Your Saltmarsh code is %s"',
        '\tOTPText = "Your Saltmarsh code is %s. It is valid for 5 minutes."',
        9,
        author="jmbeki",
    )
    otpd = inc.deploy(ts("2027-03-08T17:50"), "sms-gateway")
    onset = ts("2027-03-08T18:00")
    sc = inc.code(
        ts("2027-03-08T18:04"),
        "selfcare-web",
        ":sparkles: resend code button after 30 seconds on the OTP screen",
        "src/login/OtpScreen.tsx",
        "      <CodeInput onComplete={verify} />",
        "      <CodeInput onComplete={verify} />\n      <ResendButton after={30} onClick={resend} />",
        61,
        author="aoife.brennan",
    )
    scd = inc.deploy(ts("2027-03-08T18:21"), "selfcare-web")
    inc.log(
        onset,
        "billing-batch",
        "INFO",
        "bill ready notifications queued: 381204 SMS to sms.outbound",
    )
    inc.errors(
        "sms-gateway",
        onset,
        now,
        4.0,
        lambda r: (
            f"submit_sm throttled by SMSC command_status=0x00000058 (ESME_RTHROTTLED) bind={r.randint(1, 2)} "
            f"seq={r.randint(100000, 999999)} in_flight={r.randint(70, 100)} requeued"
        ),
        level="WARNING",
    )
    inc.errors(
        "sms-gateway",
        onset + 4 * MINUTE,
        now,
        0.5,
        lambda r: (
            f"otp sms to 44{r.randint(7000000000, 7999999999)} expired in queue after {r.randint(300, 420)}s, dropped"
        ),
    )
    inc.errors(
        "selfcare-web",
        onset + 5 * MINUTE,
        now,
        1.0,
        "otp verify failed: code expired or not received",
        level="WARNING",
        **{"http.route": "/login/otp"},
    )
    inc.metric(
        "smpp_submit_sm_resp_per_second",
        "sms-gateway",
        step(onset, 0.0, 180.0),
        labels={"command_status": "ESME_RTHROTTLED"},
        jitter=0.1,
        digits=1,
    )
    inc.metric(
        "smpp_window_in_flight",
        "sms-gateway",
        lambda t: 9 if t < ts("2027-03-08T17:36") else (31 if t < onset else 100),
        jitter=0.05,
        digits=0,
    )
    inc.metric(
        "sms_queue_depth",
        "sms-gateway",
        ramp(onset, now, 40, 271000),
        labels={"topic": "sms.outbound"},
        digits=0,
    )
    inc.metric(
        "otp_login_success_ratio",
        "selfcare-web",
        step(onset + 5 * MINUTE, 0.97, 0.71),
        jitter=0.03,
        digits=3,
    )
    inc.fleet(sms_gateway={"rps": times(step(onset, 1, 1.6)), "p99": floor(step(onset, 0, 240000))})
    inc.alert = alerts.generic(
        "OTP login success below 90% (selfcare-web)",
        "selfcare-web",
        ts("2027-03-08T18:26"),
        "critical",
        {
            "source": "grafana-oncall",
            "alert_group": {"id": "IJ2W9XM", "title": "OTP login success below 90%"},
            "integration": "Grafana Alerting",
            "evalMatches": [{"metric": "otp_login_success_ratio", "value": 0.71}],
            "team": "digital",
        },
    )
    inc.blame(cfg, [], "sms-gateway", "configuration_error", [otp, otpd, bb, bbd, sc, scd], onset)
    return inc


def xt57_tariff_cache_leak() -> ExtIncident:
    now = ts("2027-03-12T14:20")
    inc = ExtIncident(
        "xt57-tariff-cache-leak",
        "cdr.raw consumer lag above 500k (rating-engine)",
        """To support per-subscriber promo tariffs, a rating-engine commit keyed the resolved
        tariff cache by MSISDN as well as by plan and replaced the 10,000-entry LRU with an
        unbounded sync.Map. Every distinct subscriber adds an entry: from the 07:25 deploy the
        pods' memory climbs steadily, and from 12:38 they hit their 4 GiB limit and are
        OOM-killed one after another; each restart rebalances the consumer group and lag on
        cdr.raw builds. There are almost no error lines: it shows in memory, restarts and lag.
        The same deploy shipped a VoLTE call-type commit; a later rating-engine commit (not
        deployed), a Kafka retention change and a topup-svc deploy near the alert are the other
        decoys. Category: code_defect (an unbounded cache).""",
        now,
        SALTMARSH,
        seed=2357,
        hours=8,
    )
    inc.doc(
        "Runbook: rating-engine lag",
        """rating-engine rates CDRs from cdr.raw (24 partitions, 6 pods, memory limit 4Gi, usually
500-800 MiB each). Lag above 500k delays prepaid balance updates by minutes (fraud exposure on
roaming). Check pod restarts and memory first, then the tariff DB. Scale out only if CPU-bound:
`kubectl -n charging scale deploy/rating-engine --replicas=9`.""",
    )
    inc.noise()
    inc.background(
        inc.begin,
        ts("2027-03-12T11:30"),
        10,
        services=[
            "provisioning-api",
            "number-porting",
            "topup-svc",
            "selfcare-web",
            "sms-gateway",
            "billing-batch",
        ],
    )
    guilty = inc.code(
        ts("2027-03-12T07:02"),
        "rating-engine",
        ":sparkles: per-subscriber promo tariffs: cache resolved tariffs per msisdn",
        "internal/tariff/resolver.go",
        """type Resolver struct {
	db    *sql.DB
	cache *lru.Cache[string, *Tariff] // 10_000 entries
}

func (r *Resolver) Resolve(c *cdr.Record) (*Tariff, error) {
	key := c.TariffPlanID + "/" + c.ServiceClass
	if t, ok := r.cache.Get(key); ok {
		return t, nil
	}""",
        """type Resolver struct {
	db    *sql.DB
	cache sync.Map // key -> *Tariff
}

func (r *Resolver) Resolve(c *cdr.Record) (*Tariff, error) {
	key := c.TariffPlanID + "/" + c.ServiceClass + "/" + c.CallingMSISDN
	if t, ok := r.cache.Load(key); ok {
		return t.(*Tariff), nil
	}""",
        31,
        author="h.nakagawa",
    )
    volte = inc.code(
        ts("2027-03-12T07:09"),
        "rating-engine",
        ":sparkles: rate VoLTE calls as voice (call type 0x0B)",
        "internal/cdr/calltype.go",
        "\tcase 0x01, 0x02:\n\t\treturn Voice",
        "\tcase 0x01, 0x02, 0x0B:\n\t\treturn Voice",
        44,
        author="rk.menon",
    )
    gd = inc.deploy(ts("2027-03-12T07:25"), "rating-engine")
    onset = ts("2027-03-12T07:27")
    oom = ts("2027-03-12T12:38")
    kcfg = inc.config(
        ts("2027-03-12T12:05"),
        "kafka",
        ":wrench: cdr.raw retention 72h -> 48h (disk at 71%)",
        "kafka/topics/cdr.raw.yaml",
        "name: cdr.raw\npartitions: 24\nconfig:\n  retention.ms: 259200000",
        "name: cdr.raw\npartitions: 24\nconfig:\n  retention.ms: 172800000",
        author="fsilva",
    )
    logc = inc.code(
        ts("2027-03-12T12:15"),
        "rating-engine",
        ":loud_sound: log rating throughput per partition every minute",
        "internal/consumer/stats.go",
        "\ts.rated.Add(1)",
        '\ts.rated.Add(1)\n\tif time.Since(s.last) > time.Minute {\n\t\ts.log.Info("rated", "partition", s.partition, "n", s.rated.Swap(0))\n\t\ts.last = time.Now()\n\t}',
        20,
        author="rk.menon",
    )
    tc = inc.code(
        ts("2027-03-12T12:10"),
        "topup-svc",
        ":recycle: share the Paylinx client between topups and vouchers",
        "internal/paylinx/client.go",
        "func NewClient(cfg Config) *Client {",
        "// NewClient is shared by topups and vouchers.\nfunc NewClient(cfg Config) *Client {",
        12,
        author="jmbeki",
    )
    tcd = inc.deploy(ts("2027-03-12T12:29"), "topup-svc")
    for i, minute in enumerate((0, 3, 9, 14, 22, 31)):
        t = oom + minute * MINUTE
        inc.log(
            t,
            "rating-engine",
            "ERROR",
            f"container rating-engine in pod rating-engine-6b7f9-{'kqrtxz'[i]}{41 + i} terminated: OOMKilled (exit code 137), restarting",
            reason="OOMKilled",
            source="kubelet",
        )
        inc.log(
            t + 40 * timedelta(seconds=1),
            "rating-engine",
            "INFO",
            f"consumer group rating-engine rebalanced: generation {812 + i}, 24 partitions over {5 if i % 2 == 0 else 6} members",
        )

    def memory(t: datetime) -> float:
        if t < onset:
            return 6.4e8
        if t < oom:
            return (
                6.4e8
                + (4.29e9 - 6.4e8) * (t - onset).total_seconds() / (oom - onset).total_seconds()
            )
        return 6.4e8 + (4.29e9 - 6.4e8) * ((t - oom).total_seconds() % 1500) / 1500

    inc.metric(
        "container_memory_working_set_bytes",
        "rating-engine",
        memory,
        labels={"container": "rating-engine", "stat": "max_over_pods"},
        jitter=0.01,
        digits=0,
    )
    inc.metric(
        "go_memstats_heap_inuse_bytes",
        "rating-engine",
        lambda t: memory(t) * 0.86,
        jitter=0.01,
        digits=0,
    )
    inc.metric(
        "kube_pod_container_status_restarts_total",
        "rating-engine",
        lambda t: 2 + (0 if t < oom else min(6, 1 + int((t - oom).total_seconds() // 300))),
        jitter=0,
        digits=0,
    )
    inc.metric(
        "kafka_consumergroup_lag_sum",
        "rating-engine",
        lambda t: 900 if t < oom else 900 + 4200 * (t - oom).total_seconds() / 60,
        labels={"topic": "cdr.raw", "group": "rating-engine"},
        jitter=0.05,
        digits=0,
    )
    inc.fleet(rating_engine={"rps": times(step(oom, 1, 0.45)), "p99": add(ramp(onset, oom, 0, 14))})
    inc.alert = alerts.alertmanager(
        "KafkaConsumerLagHigh",
        "rating-engine",
        ts("2027-03-12T12:58"),
        "critical",
        "cdr.raw consumer lag above 500k (rating-engine)",
        "Consumer group rating-engine is 512k messages behind on cdr.raw.",
        'sum(kafka_consumergroup_lag{group="rating-engine",topic="cdr.raw"}) > 500000',
        team="charging",
    )
    inc.blame(guilty, [gd], "rating-engine", "code_defect", [volte, kcfg, logc, tc, tcd], onset)
    return inc


def xt58_roaming_cdr_poison() -> ExtIncident:
    now = ts("2027-03-15T16:10")
    inc = ExtIncident(
        "xt58-roaming-cdr-poison",
        "cdr.raw partition 7 not progressing (rating-engine)",
        """A TAP file from the roaming partner Albatel (FRAAT), loaded at 14:02, carried one record
        with ChargeableUnits = -1, which the TAP specification does not allow. rating-engine's
        band lookup indexes by units and panics on it; the consumer recovers, does not commit the
        offset and retries the same record every minute, so partition 7 has not moved since 14:02
        while the other 23 partitions are fine. A rating-engine deploy at 13:40 that adds TAP
        3.12 CAMEL fields to the roaming parser shares the words 'roaming' and 'TAP' and lands 22
        minutes before; it parsed thousands of roaming records correctly since. Category:
        data_quality (one invalid record from a partner).""",
        now,
        SALTMARSH,
        seed=2358,
    )
    inc.doc(
        "TAP 3.12 notes (GSMA TD.57 excerpt)",
        """ChargeableUnits: the number of units (seconds, bytes) to be charged; an unsigned integer,
0 or greater. ChargedUnits may be smaller than ChargeableUnits. A record failing validation is
returned to the sending partner in a RAP file (Returned Account Procedure).""",
    )
    inc.doc(
        "Runbook: a cdr.raw partition does not progress",
        """If one partition's lag grows while the others stay flat, a single record is usually
failing. Find its offset in rating-engine's errors, park it: `smctl cdr park --partition <p>
--offset <o>` (moves it to cdr.dlq and commits), then raise a RAP to the partner if it is a
roaming record.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-03-15T12:50"), 10)
    c = inc.code(
        ts("2027-03-15T13:18"),
        "rating-engine",
        ":sparkles: roaming: parse TAP 3.12 CAMEL service fields",
        "internal/roaming/tap.go",
        "\tcase tagCallEventDetails:\n\t\treturn p.callEvent(v)",
        "\tcase tagCallEventDetails:\n\t\treturn p.callEvent(v)\n\tcase tagCamelServiceUsed:\n\t\treturn p.camel(v)",
        140,
        author="h.nakagawa",
    )
    d = inc.deploy(ts("2027-03-15T13:40"), "rating-engine")
    onset = ts("2027-03-15T14:02")
    n = inc.code(
        ts("2027-03-15T13:51"),
        "number-porting",
        ":bug: retry PortHub 503s with jitter",
        "number_porting/porthub.py",
        "    backoff = 2 ** attempt",
        "    backoff = 2 ** attempt + random.uniform(0, 1)",
        77,
        author="fsilva",
    )
    nd = inc.deploy(ts("2027-03-15T14:09"), "number-porting")
    inc.log(
        onset - 20 * timedelta(seconds=1),
        "tap-loader",
        "INFO",
        "loaded TAP file CDFRAATGBRSM00481 from FRAAT: 1204 records into cdr.raw (partitions by IMSI)",
    )
    for h in range(8):
        inc.log(
            ts("2027-03-15T09:20") + h * 51 * MINUTE,
            "tap-loader",
            "INFO",
            f"loaded TAP file CD{['DEVFD', 'ESPTE', 'ITAWI', 'NLDPT'][h % 4]}GBRSM00{410 + h} : {900 + 37 * h} records into cdr.raw",
        )
    stack = go_stack(
        "panic: runtime error: index out of range [-1]",
        [
            (
                "github.com/saltmarsh/rating-engine/internal/rating.bandFor",
                "/src/rating-engine/internal/rating/bands.go",
                57,
            ),
            (
                "github.com/saltmarsh/rating-engine/internal/rating.(*Rater).Rate",
                "/src/rating-engine/internal/rating/rater.go",
                112,
            ),
            (
                "github.com/saltmarsh/rating-engine/internal/consumer.(*Worker).handle",
                "/src/rating-engine/internal/consumer/worker.go",
                88,
            ),
        ],
    )
    inc.errors(
        "rating-engine",
        onset,
        now,
        1.0,
        "panic recovered while rating record FRAAT-20270315-000481 partition=7 offset=18822731 "
        "call_type=MOC chargeable_units=-1: runtime error: index out of range [-1]; offset not committed, retrying in 60s",
        stack=stack,
        partition=7,
        offset=18822731,
    )
    inc.metric(
        "kafka_consumergroup_lag",
        "rating-engine",
        ramp(onset, now, 40, 21500),
        labels={"topic": "cdr.raw", "partition": "7"},
        digits=0,
    )
    inc.metric(
        "kafka_consumergroup_lag",
        "rating-engine",
        lambda t: 45,
        labels={"topic": "cdr.raw", "partition": "3"},
        jitter=0.3,
        digits=0,
    )
    inc.metric(
        "cdr_rated_per_second",
        "rating-engine",
        lambda t: 38 if t < onset else 0,
        labels={"partition": "7"},
        jitter=0.05,
        digits=1,
    )
    inc.fleet(rating_engine={"rps": times(step(onset, 1, 0.96))})
    inc.alert = alerts.alertmanager(
        "CdrPartitionStuck",
        "rating-engine",
        ts("2027-03-15T14:47"),
        "warning",
        "cdr.raw partition 7 not progressing (rating-engine)",
        "Committed offset of partition 7 has not moved for 45m; lag 7.9k.",
        'delta(kafka_consumergroup_current_offset{group="rating-engine",topic="cdr.raw"}[45m]) == 0',
        team="charging",
    )
    inc.outside(
        "malformed roaming CDR from partner FRAAT (ChargeableUnits = -1) poisons cdr.raw partition 7",
        "rating-engine",
        "data_quality",
        [c, d, n, nd],
        onset,
    )
    return inc


def xt59_double_data_surge() -> ExtIncident:
    now = ts("2027-03-20T11:30")
    inc = ExtIncident(
        "xt59-double-data-surge",
        "Top-up 5xx above 2% (topup-svc)",
        """Marketing's 'Double Data Saturday' push and SMS went to 1.8 million prepaid customers at
        10:00 (marketing calendar in the knowledge base): top-ups jumped from ~25/s to ~160/s.
        topup-svc holds at most 64 connections to Paylinx; at ~700 ms a payment, 160/s needs
        more than 100, so requests waited for a connection and failed at 15 s. Paylinx itself
        answered as fast as ever. A topup-svc deploy at 09:40 that adds the promo's product
        code, a selfcare-web promo banner deploy and an sms-gateway deploy share the campaign's
        words and are innocent. Category: resource_exhaustion (a demand surge filling a
        connection pool).""",
        now,
        SALTMARSH,
        seed=2359,
    )
    inc.doc(
        "Marketing calendar: March",
        """| Date | Time (UTC) | Campaign | Channel | Audience |
|---|---|---|---|---|
| 2027-03-12 | 10:00 | Spring promo | SMS | 1.1M |
| 2027-03-20 | 10:00 | Double Data Saturday: top up 10 or more, get double data for 7 days | app push + SMS | 1.8M prepaid |
| 2027-03-27 | 09:00 | Roaming bundles Easter | email | 400k |""",
    )
    inc.doc(
        "Runbook: top-up failures",
        """topup-svc -> Paylinx (api.paylinx.example) card payments, ~700 ms each. Outbound pool:
PAYLINX_MAX_CONNS=64 per pod x 1 pod (topup-svc runs one replica per zone, active in one). Check
paylinx latency (is Paylinx slow?) and the pool's in-use connections (are we?). Scale:
`kubectl -n payments scale deploy/topup-svc --replicas=3`.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-03-20T08:50"), 9)
    tc = inc.code(
        ts("2027-03-20T09:21"),
        "topup-svc",
        ":sparkles: DD10 product code for the Double Data Saturday promo",
        "internal/products/promo.go",
        'var promoProducts = []string{"SPRING5"}',
        'var promoProducts = []string{"SPRING5", "DD10"}',
        8,
        author="jmbeki",
    )
    tcd = inc.deploy(ts("2027-03-20T09:40"), "topup-svc")
    sw = inc.code(
        ts("2027-03-20T09:33"),
        "selfcare-web",
        ":lipstick: Double Data Saturday banner on the top-up page",
        "src/topup/TopupPage.tsx",
        "      <TopupForm />",
        '      <PromoBanner campaign="double-data-saturday" />\n      <TopupForm />',
        23,
        author="aoife.brennan",
    )
    swd = inc.deploy(ts("2027-03-20T09:52"), "selfcare-web")
    onset = ts("2027-03-20T10:02")
    sg = inc.code(
        ts("2027-03-20T09:58"),
        "sms-gateway",
        ":chart_with_upwards_trend: count submits per campaign tag",
        "internal/metrics/metrics.go",
        '\tsubmits = promauto.NewCounter(prometheus.CounterOpts{Name: "sms_submits_total"})',
        '\tsubmits = promauto.NewCounterVec(prometheus.CounterOpts{Name: "sms_submits_total"}, []string{"campaign"})',
        14,
        author="ola.s",
    )
    sgd = inc.deploy(ts("2027-03-20T10:14"), "sms-gateway")

    def surge(t: datetime) -> float:
        return 1.0 if t < onset else (6.4 if t < ts("2027-03-20T10:50") else 4.1)

    inc.errors(
        "topup-svc",
        onset + 3 * MINUTE,
        now,
        lambda f: 2.6 if f < 0.45 else 1.2,
        lambda r: (
            f'level=error msg="topup failed" route=/topups status=504 product={r.choice(["DD10", "DD10", "TOPUP10", "TOPUP20"])} '
            'err="paylinx: waiting for connection: context deadline exceeded (pool in use 64/64)" elapsed=15.0s'
        ),
    )
    inc.errors(
        "selfcare-web",
        onset + 4 * MINUTE,
        now,
        lambda f: 1.8 if f < 0.45 else 0.8,
        "top-up failed, showing retry screen",
        level="WARNING",
        **{"http.route": "/topup", "upstream.status": 504},
    )
    inc.metric(
        "http.client.open_connections",
        "topup-svc",
        lambda t: min(64.0, 18 * surge(t)),
        labels={"server.address": "api.paylinx.example", "state": "used"},
        jitter=0.02,
        digits=0,
    )
    inc.metric(
        "http.client.request.duration.p99",
        "topup-svc",
        lambda t: 0.92,
        labels={"server.address": "api.paylinx.example"},
        jitter=0.06,
        digits=3,
    )
    inc.metric(
        "selfcare_sessions_active",
        "selfcare-web",
        lambda t: 21000 * (1 if t < onset else 3.2),
        digits=0,
    )
    inc.fleet(
        topup_svc={
            "rps": times(surge),
            "err": add(step(onset + 3 * MINUTE, 0, 0.07)),
            "p99": floor(step(onset + 3 * MINUTE, 0, 15000)),
        },
        selfcare_web={"rps": times(lambda t: 1.0 if t < onset else 3.0)},
    )
    inc.alert = alerts.generic(
        "Top-up 5xx above 2% (topup-svc)",
        "topup-svc",
        ts("2027-03-20T10:19"),
        "critical",
        {
            "source": "grafana-oncall",
            "alert_group": {"id": "IQ4P8LZ", "title": "Top-up 5xx above 2%"},
            "integration": "Grafana Alerting",
            "evalMatches": [{"metric": 'topup_error_ratio{route="/topups"}', "value": 0.071}],
            "team": "payments",
        },
    )
    inc.outside(
        "Double Data Saturday campaign surge (top-ups 25/s -> 160/s) filling topup-svc's Paylinx connection pool",
        "topup-svc",
        "resource_exhaustion",
        [tc, tcd, sw, swd, sg, sgd],
        onset,
    )
    return inc


def xt60_node_upgrade_lag_stale() -> ExtIncident:
    now = ts("2027-03-24T06:30")
    inc = ExtIncident(
        "xt60-node-upgrade-lag-stale",
        "cdr.raw consumer lag above 500k (rating-engine)",
        """During the planned node-pool upgrade (01:30-03:00, in the knowledge base) nodes were
        drained one at a time; rating-engine pods were rescheduled twice and the consumer group
        rebalanced, so lag on cdr.raw rose to ~600k between 02:05 and 02:30 and was drained by
        02:41. The alert fired at 02:21 and nobody looked until the morning: its condition has
        been false for almost four hours and nothing is wrong now. A rating-engine deploy at
        01:40 (log partition assignment on rebalance) and a provisioning-api deploy at 02:12 are
        the decoys. Category: healthy (stale alert, recovered).""",
        now,
        SALTMARSH,
        seed=2360,
    )
    inc.doc(
        "Change calendar: platform maintenance",
        """| Window (UTC) | Change | Impact |
|---|---|---|
| 2027-03-24T01:30:00Z - 2027-03-24T03:00:00Z | prod-eu-1 node pool upgrade to Kubernetes 1.29.4, nodes drained one at a time | pods rescheduled; consumer groups rebalance, short lag expected |
| 2027-03-31T01:30:00Z - 2027-03-31T02:30:00Z | ocs-redis minor upgrade | none expected |""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-03-24T01:00"), 9)
    c = inc.code(
        ts("2027-03-24T01:18"),
        "rating-engine",
        ":loud_sound: log partition assignment on every rebalance",
        "internal/consumer/group.go",
        "func (h *handler) Setup(s sarama.ConsumerGroupSession) error {\n\treturn nil",
        'func (h *handler) Setup(s sarama.ConsumerGroupSession) error {\n\th.log.Info("partitions assigned", "claims", s.Claims(), "generation", s.GenerationID())\n\treturn nil',
        33,
        author="rk.menon",
    )
    d = inc.deploy(ts("2027-03-24T01:40"), "rating-engine")
    onset = ts("2027-03-24T02:05")
    p = inc.code(
        ts("2027-03-24T01:55"),
        "provisioning-api",
        ":arrow_up: bump postgresql driver to 42.7.4",
        "pom.xml",
        "      <artifactId>postgresql</artifactId>\n      <version>42.7.3</version>",
        "      <artifactId>postgresql</artifactId>\n      <version>42.7.4</version>",
        77,
        author="renovate[bot]",
    )
    pd = inc.deploy(ts("2027-03-24T02:12"), "provisioning-api")
    drains = [
        ts("2027-03-24T01:34"),
        ts("2027-03-24T01:52"),
        ts("2027-03-24T02:04"),
        ts("2027-03-24T02:19"),
        ts("2027-03-24T02:37"),
    ]
    for i, t in enumerate(drains):
        inc.log(
            t,
            "k8s-events",
            "INFO",
            f"Node ip-10-40-{i + 2}-{17 + i * 9} cordoned and drained for upgrade to v1.29.4",
        )
        inc.log(
            t + 4 * MINUTE,
            "k8s-events",
            "INFO",
            f"Node ip-10-40-{i + 2}-{17 + i * 9} Ready (v1.29.4)",
        )
    recovered = ts("2027-03-24T02:41")
    for t in (ts("2027-03-24T02:05:40"), ts("2027-03-24T02:20:10")):
        inc.log(
            t,
            "rating-engine",
            "INFO",
            "received SIGTERM from kubelet during node drain; finishing in-flight batch",
        )
        inc.log(
            t + timedelta(seconds=50),
            "rating-engine",
            "INFO",
            "consumer group rating-engine rebalanced: 24 partitions over 6 members",
        )
    inc.errors(
        "rating-engine",
        onset + 1 * MINUTE,
        ts("2027-03-24T02:31"),
        0.4,
        "commit offsets failed: kafka server: the group is rebalancing, retrying",
        level="WARNING",
    )

    def lag(t: datetime) -> float:
        if t < onset or t >= recovered:
            return 700.0
        peak = ts("2027-03-24T02:28")
        if t <= peak:
            return 700 + 600000 * (t - onset).total_seconds() / (peak - onset).total_seconds()
        return 600700 * (1 - (t - peak).total_seconds() / (recovered - peak).total_seconds()) + 700

    inc.metric(
        "kafka_consumergroup_lag_sum",
        "rating-engine",
        lag,
        labels={"topic": "cdr.raw", "group": "rating-engine"},
        jitter=0.05,
        digits=0,
    )
    inc.fleet(
        rating_engine={
            "rps": times(step(onset, 1, 0.5, ts("2027-03-24T02:28"))),
            "p99": add(step(onset, 0, 30, recovered)),
        }
    )
    inc.alert = alerts.alertmanager(
        "KafkaConsumerLagHigh",
        "rating-engine",
        ts("2027-03-24T02:21"),
        "critical",
        "cdr.raw consumer lag above 500k (rating-engine)",
        "Consumer group rating-engine is 512k messages behind on cdr.raw.",
        'sum(kafka_consumergroup_lag{group="rating-engine",topic="cdr.raw"}) > 500000',
        team="charging",
    )
    inc.healthy(
        "rating-engine",
        "recovered: lag from consumer rebalances during the planned node-pool upgrade (02:05-02:41), drained to normal almost four hours before the investigation",
        [c, d, p, pd],
        onset,
    )
    return inc


# --- Basketrun Grocery and Quayside Claims (a fourth examiner) ---------------------------------


def _counter(rate: Shape, begin: datetime, step_minutes: int = 4) -> Shape:
    """A monotonic ``_total`` counter whose per-second rate is ``rate`` (sampled per step)."""

    def f(t: datetime) -> float:
        total, u = 0.0, begin
        while u < t:
            total += rate(u) * step_minutes * 60
            u += timedelta(minutes=step_minutes)
        return total

    return f


def elixir_crash(exc: str, message: str, frames: list[tuple[str, str, str, int, str]]) -> str:
    """An Elixir crash report; ``frames``: ``(app, app_version, file, line, Module.fun/arity)``."""
    lines = [f"** ({exc}) {message}"]
    lines += [f"    ({app} {v}) {file}:{line}: {fn}" for app, v, file, line, fn in frames]
    return "\n".join(lines)


def dotnet_stack(exc: str, message: str, frames: list[tuple[str, str, int]]) -> str:
    """A .NET exception; ``frames``: ``(Namespace.Type.Method(args), /src/path.cs, line)``."""
    lines = [f"{exc}: {message}"]
    for where, file, line in frames:
        lines.append(f"   at {where} in {file}:line {line}" if file else f"   at {where}")
    lines.append("--- End of stack trace from previous location ---")
    return "\n".join(lines)


def ruby_backtrace(frames: list[tuple[str, int, str]]) -> list[str]:
    """Ruby backtrace lines; ``frames``: ``(path.rb, line, method)``, innermost first."""
    return [f"{file}:{line}:in '{method}'" for file, line, method in frames]


def xt61_store_pick_empty() -> ExtIncident:
    now = ts("2027-04-06T19:40")
    inc = ExtIncident(
        "xt61-store-pick-empty",
        "OrderRouterDLQGrowing: orders.placed dead-letter queue above 50",
        """An order-router commit made OrderRouter.Assign.pick_store/2 choose the partner store
        with the best stock coverage with Enum.max_by/2 over the stores that carry every item,
        instead of sorting and falling back to a split order when no single store carries the
        whole basket. Enum.max_by/2 raises Enum.EmptyError on an empty list, so every basket
        that no single store can fill (about one in twelve, more in the evening when stores
        run out of fresh items) crashes the Broadway processor and lands in the dead-letter
        queue; customers see their order stuck in 'placing'. Every crash report names
        pick_store/2 in lib/order_router/assign.ex, the function the commit changed. The commit
        shipped with a sibling commit (store assignment telemetry) in the 17:22 deploy. Decoys:
        that sibling, a storefront-api deploy that shows 'store assigned' on the order page and
        a shopper-api deploy about empty picking batches (both share the errors' words). The
        alert waits for the DLQ to pass 50, so it fired almost two hours after the onset.
        Category: code_defect.""",
        now,
        BASKETRUN,
        seed=2361,
    )
    inc.doc(
        "Runbook: order-router dead letters",
        """order-router consumes orders.placed (Broadway, 12 processors). A message that raises
is retried 3 times and then moved to orders.placed.dlq. Orders in the DLQ stay 'placing' for the
customer. Look at the crash reports (attribute crash_report), fix, then replay:
`mix router.replay_dlq --since <time>`.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-04-06T16:30"), 9)
    guilty = inc.code(
        ts("2027-04-06T16:48"),
        "order-router",
        "Merge pull request #7214 from j-okafor/best-coverage-store: Pick the store with the best stock coverage",
        "lib/order_router/assign.ex",
        """  def pick_store(basket, stores) do
    stores
    |> Enum.filter(&carries_all?(&1, basket))
    |> Enum.sort_by(&coverage(&1, basket), :desc)
    |> List.first()
    |> case do
      nil -> {:split, split_basket(basket, stores)}
      store -> {:ok, store}
    end
  end""",
        """  def pick_store(basket, stores) do
    store =
      stores
      |> Enum.filter(&carries_all?(&1, basket))
      |> Enum.max_by(&coverage(&1, basket))

    {:ok, store}
  end""",
        52,
        author="j-okafor",
    )
    sib = inc.code(
        ts("2027-04-06T16:55"),
        "order-router",
        "Merge pull request #7219 from priya-r/assign-telemetry: Emit store assignment telemetry",
        "lib/order_router/pipeline.ex",
        "    {:ok, assignment} = Assign.assign(order)",
        "    {:ok, assignment} = Assign.assign(order)\n    :telemetry.execute([:order_router, :store, :assigned], %{count: 1}, %{zone: order.zone})",
        43,
        author="priya-r",
    )
    gd = inc.deploy(ts("2027-04-06T17:22"), "order-router")
    onset = ts("2027-04-06T17:24")
    sf = inc.code(
        ts("2027-04-06T17:05"),
        "storefront-api",
        "Merge pull request #7221 from tmoreau/order-store-name: Show the assigned store on the order page",
        "app/serializers/order_serializer.rb",
        "  attributes :id, :status, :slot",
        "  attributes :id, :status, :slot, :assigned_store_name",
        6,
        author="tmoreau",
    )
    sfd = inc.deploy(ts("2027-04-06T17:40"), "storefront-api")
    sh = inc.code(
        ts("2027-04-06T17:31"),
        "shopper-api",
        "Merge pull request #7225 from lena.brandt/empty-batch: Do not start an empty picking batch",
        "src/batches/start.ts",
        "  const batch = await batches.open(shopperId);",
        "  const batch = await batches.open(shopperId);\n  if (batch.items.length === 0) return reply.code(409).send({ error: 'empty batch' });",
        22,
        author="lena.brandt",
    )
    shd = inc.deploy(ts("2027-04-06T17:52"), "shopper-api")
    crash = elixir_crash(
        "Enum.EmptyError",
        "empty error",
        [
            ("elixir", "1.16.2", "lib/enum.ex", 1789, "Enum.max_by/4"),
            (
                "order_router",
                "2.14.0",
                "lib/order_router/assign.ex",
                56,
                "OrderRouter.Assign.pick_store/2",
            ),
            (
                "order_router",
                "2.14.0",
                "lib/order_router/assign.ex",
                21,
                "OrderRouter.Assign.assign/1",
            ),
            (
                "order_router",
                "2.14.0",
                "lib/order_router/pipeline.ex",
                43,
                "OrderRouter.Pipeline.handle_message/3",
            ),
            (
                "broadway",
                "1.0.7",
                "lib/broadway/topology/processor_stage.ex",
                168,
                "Broadway.Topology.ProcessorStage.handle_messages/4",
            ),
        ],
    )
    inc.errors(
        "order-router",
        onset,
        now,
        lambda f: 0.7 + 0.9 * f,
        lambda r: (
            f"[error] Processor OrderRouter.Pipeline.Broadway.Processor_default_{r.randint(0, 11)} "
            f"failed to process message order_id=o-{r.randint(4100000, 4999999)} attempt=3/3, moved to orders.placed.dlq"
        ),
        crash_report=crash,
        **{"error.kind": "Enum.EmptyError"},
    )
    inc.errors(
        "storefront-api",
        onset + 20 * MINUTE,
        now,
        0.3,
        lambda r: (
            f"order o-{r.randint(4100000, 4999999)} still placing after 15 minutes, customer notified"
        ),
        level="WARNING",
    )
    inc.metric(
        "broadway_processor_failed_messages_total",
        "order-router",
        _counter(lambda t: 0.0005 if t < onset else 0.028, inc.begin),
        labels={"pipeline": "OrderRouter.Pipeline"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "orders_dlq_depth",
        "order-router",
        lambda t: 0 if t < onset else 1.6 * (t - onset).total_seconds() / 60,
        labels={"queue": "orders.placed.dlq"},
        jitter=0.02,
        digits=0,
    )
    inc.fleet(order_router={"err": add(step(onset, 0, 0.085))})
    inc.alert = alerts.alertmanager(
        "OrderRouterDLQGrowing",
        "order-router",
        ts("2027-04-06T19:18"),
        "warning",
        "orders.placed dead-letter queue above 50",
        "orders.placed.dlq holds 181 messages.",
        'max(orders_dlq_depth{queue="orders.placed.dlq"}) > 50',
        team="fulfilment",
    )
    inc.blame(guilty, [gd], "order-router", "code_defect", [sib, sf, sfd, sh, shd], onset)
    return inc


def xt62_intake_workers_helm() -> ExtIncident:
    now = ts("2027-04-09T14:10")
    inc = ExtIncident(
        "xt62-intake-workers-helm",
        "[P1] claims-intake error rate above 5%",
        """To clear a backlog of broker document uploads before quarter end, a Helm values change
        raised claims-intake's background workers from 8 to 48 per pod (6 pods) and the
        connection string's Max Pool Size from 100 to 300. Each worker holds a claimsdb session
        for the whole document transaction, so the fleet's concurrent requests to claimsdb rose
        from ~120 to ~420 and hit the database's limit of 400 concurrent requests (SQL error
        10928, 'The request limit for the database is 400 and has been reached'). API requests
        then fail or wait for a pooled connection. Traffic did not change: claims per second
        are flat, no leak, no surge. Category: configuration_error, not resource_exhaustion:
        the limit was reached only because a configuration value multiplied each pod's
        concurrency; the fix and the postmortem's cause are that value (revert to 8), and the
        resource is exhausted as a consequence, not by demand. Decoys: a claims-intake deploy
        40 minutes earlier that adds Polly retries for SqlException 10928/10929 (shares the error
        number), an fnol-portal deploy and a payout-svc deploy.""",
        now,
        QUAYSIDE,
        seed=2362,
        hours=6,
    )
    inc.doc(
        "claimsdb limits",
        """claimsdb: General Purpose, 4 vCores. Max concurrent requests (workers): 400. Max sessions:
30,000. When the request limit is reached new requests fail with error 10928 ('Resource ID : 1.
The request limit for the database is 400 and has been reached'). Budget: claims-intake 6 pods x
~20 active, payout-svc 10, fraud-scoring reads the replica.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-04-09T11:10"), 9)
    poly = inc.code(
        ts("2027-04-09T11:31"),
        "claims-intake",
        "AB#44810 Retry transient SqlException 10928/10929/40501 with Polly (3 tries, jittered backoff)",
        "src/Quayside.Claims.Intake/Data/ClaimsDbContextFactory.cs",
        "            options.UseSqlServer(connectionString);",
        "            options.UseSqlServer(connectionString, sql => sql.EnableRetryOnFailure(\n                maxRetryCount: 3, maxRetryDelay: TimeSpan.FromSeconds(2), errorNumbersToAdd: new[] { 10928, 10929, 40501 }));",
        41,
        author="d.ivanova",
    )
    pd = inc.deploy(ts("2027-04-09T11:52"), "claims-intake")
    cfg = inc.config(
        ts("2027-04-09T12:31"),
        "claims-intake",
        "AB#44852 claims-intake: more background workers to clear the quarter-end document backlog",
        "deploy/helm/claims-intake/values-prod.yaml",
        """replicaCount: 6
env:
  Intake__BackgroundWorkers: "8"
  ConnectionStrings__ClaimsDb: "Server=tcp:claimsdb.quaysideclaims.example;Database=claims;Max Pool Size=100;Connect Timeout=15"
resources:
  limits:
    cpu: "2"
    memory: 2Gi""",
        """replicaCount: 6
env:
  Intake__BackgroundWorkers: "48"
  ConnectionStrings__ClaimsDb: "Server=tcp:claimsdb.quaysideclaims.example;Database=claims;Max Pool Size=300;Connect Timeout=15"
resources:
  limits:
    cpu: "2"
    memory: 2Gi""",
        author="benoit.r",
        line=3,
    )
    rollout = ts("2027-04-09T12:33")
    inc.log(
        rollout,
        "claims-intake",
        "INFO",
        "Hosted service DocumentBacklogWorker started with 48 workers (Intake__BackgroundWorkers=48)",
    )
    onset = ts("2027-04-09T12:38")
    fn = inc.code(
        ts("2027-04-09T12:20"),
        "fnol-portal",
        "AB#44839 Vehicle claim form: ask for the registration before the photos",
        "app/report/vehicle/page.tsx",
        "      <PhotoUpload />\n      <RegistrationField />",
        "      <RegistrationField />\n      <PhotoUpload />",
        58,
        author="kwame.a",
    )
    fnd = inc.deploy(ts("2027-04-09T12:44"), "fnol-portal")
    po = inc.code(
        ts("2027-04-09T12:02"),
        "payout-svc",
        "AB#44841 Bank file: trim payee names to 70 characters",
        "src/main/java/com/quayside/payout/sepa/SepaLine.java",
        "        return payee.name();",
        "        return StringUtils.left(payee.name(), 70);",
        31,
        author="sfitzgerald",
    )
    pod = inc.deploy(ts("2027-04-09T12:50"), "payout-svc")
    sql = dotnet_stack(
        "Microsoft.Data.SqlClient.SqlException (0x80131904)",
        "Resource ID : 1. The request limit for the database is 400 and has been reached. See 'https://learn.microsoft.example/sql-limits' for assistance.",
        [
            (
                "Microsoft.Data.SqlClient.SqlConnection.OnError(SqlException exception, Boolean breakConnection, Action`1 wrapCloseInAction)",
                "",
                0,
            ),
            (
                "Microsoft.EntityFrameworkCore.Storage.RelationalCommand.ExecuteReaderAsync(RelationalCommandParameterObject parameterObject, CancellationToken cancellationToken)",
                "",
                0,
            ),
            (
                "Quayside.Claims.Intake.Claims.ClaimRepository.GetStatusAsync(Guid claimId, CancellationToken ct)",
                "/src/Quayside.Claims.Intake/Claims/ClaimRepository.cs",
                88,
            ),
            (
                "Quayside.Claims.Intake.Api.ClaimsController.Status(Guid id, CancellationToken ct)",
                "/src/Quayside.Claims.Intake/Api/ClaimsController.cs",
                61,
            ),
        ],
    )
    pool = dotnet_stack(
        "System.InvalidOperationException",
        "Timeout expired. The timeout period elapsed prior to obtaining a connection from the pool. This may have occurred because all pooled connections were in use and max pool size was reached.",
        [
            (
                "Microsoft.Data.SqlClient.ConnectionPool.DbConnectionPool.TryGetConnection(DbConnection owningObject, UInt32 waitForMultipleObjectsTimeout, Boolean allowCreate, Boolean onlyOneCheckConnection, DbConnectionOptions userOptions, DbConnectionInternal& connection)",
                "",
                0,
            ),
            (
                "Quayside.Claims.Intake.Claims.ClaimRepository.AddAsync(Claim claim, CancellationToken ct)",
                "/src/Quayside.Claims.Intake/Claims/ClaimRepository.cs",
                42,
            ),
            (
                "Quayside.Claims.Intake.Api.ClaimsController.Create(CreateClaimRequest request, CancellationToken ct)",
                "/src/Quayside.Claims.Intake/Api/ClaimsController.cs",
                37,
            ),
        ],
    )
    inc.errors(
        "claims-intake",
        onset,
        now,
        1.2,
        lambda r: (
            f"HTTP GET /api/claims/{r.getrandbits(32):08x}/status responded 500 in {r.randint(900, 4200)}ms"
        ),
        exception=sql,
        SourceContext="Quayside.Claims.Intake.Api.ClaimsController",
        EventId=5001,
    )
    inc.errors(
        "claims-intake",
        onset + 6 * MINUTE,
        now,
        0.5,
        "HTTP POST /api/claims responded 500 in 15012ms",
        exception=pool,
        SourceContext="Quayside.Claims.Intake.Api.ClaimsController",
        EventId=5002,
    )
    inc.errors(
        "payout-svc",
        onset + 9 * MINUTE,
        now,
        0.15,
        "claimsdb query failed: The request limit for the database is 400 and has been reached, will retry",
        level="WARNING",
    )
    inc.metric(
        "db.client.connections.usage",
        "claims-intake",
        lambda t: 118 if t < rollout else 396,
        labels={"db.system": "mssql", "pool.name": "claimsdb", "state": "used"},
        jitter=0.03,
        digits=0,
    )
    inc.metric(
        "sqlserver_workers_percent",
        "claimsdb",
        lambda t: 31 if t < rollout else 100,
        jitter=0.04,
        digits=1,
    )
    inc.metric(
        "claims_received_per_second",
        "claims-intake",
        lambda t: 0.9,
        jitter=0.12,
        digits=2,
    )
    inc.fleet(
        claims_intake={"err": add(step(onset, 0, 0.09)), "p99": floor(step(onset, 0, 4200))},
    )
    inc.alert = alerts.datadog(
        "claims-intake error rate above 5%",
        "claims-intake",
        ts("2027-04-09T12:47"),
        "critical",
        "sum:trace.aspnet_core.request.errors{service:claims-intake}.as_rate() / sum:trace.aspnet_core.request.hits{service:claims-intake}.as_rate()",
        0.094,
        0.05,
        ["team:claims-core", "pagerduty:claims-core-primary"],
    )
    inc.blame(cfg, [], "claims-intake", "configuration_error", [poly, pd, fn, fnd, po, pod], onset)
    return inc


def xt63_line_items_index_migration() -> ExtIncident:
    now = ts("2027-04-12T11:05")
    inc = ExtIncident(
        "xt63-line-items-index-migration",
        "Checkout latency p99 > 2s (storefront-api)",
        """A storefront-api Rails migration, meant to speed up the substitution report,
        replaced the composite index on line_items (order_id, sku_id) with one on
        (sku_id, order_id). The checkout path loads an order's line items by order_id alone,
        which the new index cannot serve: every checkout seq-scans 90M line_items rows. shopdb's
        CPU went from ~35% to ~95%, checkout p99 from 340 ms to 6-8 s, and about one checkout
        in forty hits the 8 s statement_timeout (PG::QueryCanceled). The Ruby backtraces name
        Order#recalculate_totals, which the migration did not touch; a separate commit
        changed recalculate_totals (a rename of a local variable) and shipped in the same
        release as a decoy, with a shopper-api deploy and a payments-svc deploy. The migration
        ran in the release phase of the 09:41 deploy (its log lines are there). Category:
        code_defect (a schema change shipped as code; the mechanism is in the migration).""",
        now,
        BASKETRUN,
        seed=2363,
        hours=6,
    )
    inc.doc(
        "Runbook: slow checkout",
        """storefront-api POST /api/v3/checkout loads the cart's line items, recalculates totals and
reserves the slot. statement_timeout for storefront-api is 8s. Look at pg_stat_statements for the
top query by total time, and at `EXPLAIN` of `SELECT * FROM line_items WHERE order_id = $1`.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-04-12T08:40"), 8)
    mig = inc.commit(
        ts("2027-04-12T08:52"),
        "storefront-api",
        "Merge pull request #7301 from nkowalczyk/line-items-index: Index line_items by sku first for the substitution report",
        [
            (
                "db/migrate/20270412084500_reorder_line_items_index.rb",
                "",
                """class ReorderLineItemsIndex < ActiveRecord::Migration[7.1]
  disable_ddl_transaction!

  def change
    remove_index :line_items, [:order_id, :sku_id], algorithm: :concurrently
    add_index :line_items, [:sku_id, :order_id], algorithm: :concurrently
  end
end""",
                1,
            ),
            (
                "db/schema.rb",
                '    t.index ["order_id", "sku_id"], name: "index_line_items_on_order_id_and_sku_id"',
                '    t.index ["sku_id", "order_id"], name: "index_line_items_on_sku_id_and_order_id"',
                412,
            ),
        ],
        author="nkowalczyk",
    )
    rt = inc.code(
        ts("2027-04-12T09:10"),
        "storefront-api",
        "Merge pull request #7304 from tmoreau/totals-naming: Name the substitutions total in recalculate_totals",
        "app/models/order.rb",
        "  def recalculate_totals\n    subs = line_items.select(&:substituted?).sum(&:price)",
        "  def recalculate_totals\n    substitutions_total = line_items.select(&:substituted?).sum(&:price)",
        118,
        author="tmoreau",
    )
    rel = inc.deploy(ts("2027-04-12T09:41"), "storefront-api")
    for i, text in enumerate(
        [
            "== 20270412084500 ReorderLineItemsIndex: migrating ==========================",
            "-- remove_index(:line_items, [:order_id, :sku_id], {:algorithm=>:concurrently})",
            "-- add_index(:line_items, [:sku_id, :order_id], {:algorithm=>:concurrently})",
            "== 20270412084500 ReorderLineItemsIndex: migrated (212.4471s) =================",
        ]
    ):
        inc.log(
            ts("2027-04-12T09:42") + timedelta(seconds=70 * i),
            "storefront-api",
            "INFO",
            text,
            release="v3.88.0",
        )
    onset = ts("2027-04-12T09:42")
    sh = inc.code(
        ts("2027-04-12T09:25"),
        "shopper-api",
        "Merge pull request #7306 from lena.brandt/sub-photo: Substitution photos are resized before upload",
        "src/items/substitute.ts",
        "  await uploads.put(photo);",
        "  await uploads.put(await resize(photo, 1280));",
        40,
        author="lena.brandt",
    )
    shd = inc.deploy(ts("2027-04-12T09:58"), "shopper-api")
    pay = inc.code(
        ts("2027-04-12T09:48"),
        "payments-svc",
        "Merge pull request #7309 from priya-r/capture-log: Log the capture amount next to the authorised amount",
        "internal/capture/capture.go",
        '\tlog.Info("captured", "charge", ch.ID)',
        '\tlog.Info("captured", "charge", ch.ID, "authorised", ch.Authorised, "captured", amount)',
        77,
        author="priya-r",
    )
    payd = inc.deploy(ts("2027-04-12T10:06"), "payments-svc")
    bt = ruby_backtrace(
        [
            (
                "/usr/local/bundle/gems/activerecord-7.1.3/lib/active_record/connection_adapters/postgresql_adapter.rb",
                894,
                "exec_params",
            ),
            ("/app/app/models/order.rb", 119, "Order#recalculate_totals"),
            ("/app/app/services/checkout/place_order.rb", 34, "Checkout::PlaceOrder#call"),
            (
                "/app/app/controllers/api/v3/checkouts_controller.rb",
                18,
                "Api::V3::CheckoutsController#create",
            ),
        ]
    )
    inc.errors(
        "storefront-api",
        onset + 2 * MINUTE,
        now,
        1.1,
        "ActiveRecord::QueryCanceled (PG::QueryCanceled: ERROR:  canceling statement due to statement timeout)",
        backtrace=bt,
        path="/api/v3/checkout",
        status=500,
    )
    inc.errors(
        "storefront-api",
        onset + 1 * MINUTE,
        now,
        3.0,
        lambda r: (
            f'  LineItem Load ({r.randint(4200, 7990)}.{r.randint(0, 9)}ms)  SELECT "line_items".* FROM "line_items" '
            'WHERE "line_items"."order_id" = $1  [["order_id", '
            + str(r.randint(41000000, 49999999))
            + "]]"
        ),
        level="WARNING",
    )
    inc.metric(
        "pg_stat_statements_mean_exec_time_seconds",
        "shopdb",
        lambda t: 0.0009 if t < onset else 5.8,
        labels={
            "queryid": "-7712093318",
            "query": 'SELECT "line_items".* FROM "line_items" WHERE "line_items"."order_id" = $1',
        },
        jitter=0.1,
        digits=4,
    )
    inc.metric(
        "pg_stat_user_tables_seq_scan_rate",
        "shopdb",
        lambda t: 0.02 if t < onset else 2.7,
        labels={"relname": "line_items"},
        jitter=0.1,
        digits=3,
    )
    inc.metric(
        "node_cpu_utilisation",
        "shopdb",
        lambda t: 0.35 if t < onset else 0.95,
        jitter=0.04,
        digits=3,
    )
    inc.fleet(
        storefront_api={"err": add(step(onset, 0, 0.012)), "p99": floor(step(onset, 0, 7100))},
    )
    inc.alert = alerts.grafana(
        "Checkout latency p99 > 2s",
        "storefront-api",
        ts("2027-04-12T10:02"),
        "critical",
        "Checkout p99",
        "7.12s",
        route="/api/v3/checkout",
    )
    inc.blame(mig, [rel], "storefront-api", "code_defect", [rt, sh, shd, pay, payd], onset)
    return inc


def xt64_payout_excess_unnamed() -> ExtIncident:
    now = ts("2027-04-15T09:20")
    inc = ExtIncident(
        "xt64-payout-excess-unnamed",
        "payouts_failed_total increased by more than 20 in 30m",
        """A payout-svc commit on Tuesday afternoon changed PayoutCalculator.applyExcess to
        spread a pro-rata excess over the policy's days with BigDecimal.divide(days) and no
        scale or rounding mode. For any excess that does not divide into a terminating decimal
        (most of them) Java throws ArithmeticException 'Non-terminating decimal expansion; no
        exact representable decimal result', and the payout is parked. The commit was not
        deployed on Tuesday; it reached production with Wednesday's 07:12 release, whose notes
        list only the bank file commit. The daily payout run starts at 07:30; every stack names
        PayoutCalculator.applyExcess. Decoys: the listed bank-file commit (end-to-end ids), a
        payout-svc config change of the SEPA cut-off time and a fraud-scoring deploy. The alert
        is a Grafana rule over the failure counter. Category: code_defect.""",
        now,
        QUAYSIDE,
        seed=2364,
        hours=44,
    )
    inc.step = 20
    inc.doc(
        "Runbook: payout run",
        """payout-svc consumes payouts.approved from 07:30 UTC each weekday and writes the SEPA bank
file at 11:00 (cut-off). Parked payouts are in payout_exceptions; they are retried after a fix
with `payoutctl replay --parked --since <date>`. Excess: the policy excess is applied once per
claim, pro-rata for short-period policies.""",
    )
    inc.noise(every=30)
    inc.background(
        inc.begin,
        ts("2027-04-14T10:00"),
        10,
        services=["claims-intake", "fnol-portal", "policy-lookup", "doc-ocr", "fraud-scoring"],
    )
    guilty = inc.code(
        ts("2027-04-13T15:12"),
        "payout-svc",
        "AB#44901 Pro-rata excess for short-period policies",
        "src/main/java/com/quayside/payout/calc/PayoutCalculator.java",
        """    BigDecimal applyExcess(Claim claim, Policy policy) {
        return claim.settlement().subtract(policy.excess()).max(BigDecimal.ZERO);
    }""",
        """    BigDecimal applyExcess(Claim claim, Policy policy) {
        BigDecimal perDay = policy.excess().divide(BigDecimal.valueOf(policy.termDays()));
        BigDecimal excess = perDay.multiply(BigDecimal.valueOf(policy.coveredDays()));
        return claim.settlement().subtract(excess).max(BigDecimal.ZERO);
    }""",
        64,
        author="sfitzgerald",
    )
    listed = inc.code(
        ts("2027-04-14T16:40"),
        "payout-svc",
        "AB#44917 Bank file: end-to-end id per payout line",
        "src/main/java/com/quayside/payout/sepa/SepaLine.java",
        '        line.setEndToEndId("NOTPROVIDED");',
        '        line.setEndToEndId(payout.claimRef() + "-" + payout.sequence());',
        48,
        author="m.oyelaran",
    )
    rel = inc.deploy(
        ts("2027-04-15T07:12"),
        "payout-svc",
        ships=[listed],
        summary="Release payout-svc 2.31.0: AB#44917 end-to-end id per payout line",
    )
    cut = inc.config(
        ts("2027-04-15T06:50"),
        "payout-svc",
        "AB#44920 SEPA cut-off moves to 11:00 for the new bank agreement",
        "deploy/payout-svc/application-prod.yaml",
        'sepa:\n  cutoff: "10:30"\n  batch-size: 500',
        'sepa:\n  cutoff: "11:00"\n  batch-size: 500',
        author="m.oyelaran",
        line=1,
    )
    fs = inc.code(
        ts("2027-04-15T06:31"),
        "fraud-scoring",
        "AB#44919 Score claims with a payout amount over 10k twice (shadow model)",
        "fraud_scoring/shadow.py",
        "SHADOW_THRESHOLD = None",
        "SHADOW_THRESHOLD = 10_000",
        12,
        author="kwame.a",
    )
    fsd = inc.deploy(ts("2027-04-15T07:26"), "fraud-scoring")
    onset = ts("2027-04-15T07:30")
    inc.log(onset, "payout-svc", "INFO", "payout run started: 1 843 approved payouts queued")
    stack = java_stack(
        "java.lang.ArithmeticException",
        "Non-terminating decimal expansion; no exact representable decimal result.",
        [
            ("java.base/java.math.BigDecimal.divide", "BigDecimal.java", 1780),
            ("com.quayside.payout.calc.PayoutCalculator.applyExcess", "PayoutCalculator.java", 65),
            ("com.quayside.payout.calc.PayoutCalculator.compute", "PayoutCalculator.java", 31),
            ("com.quayside.payout.run.PayoutConsumer.onApproved", "PayoutConsumer.java", 57),
        ],
    )
    inc.errors(
        "payout-svc",
        onset,
        ts("2027-04-15T08:40"),
        1.6,
        lambda r: f"payout for claim CLM-{r.randint(200000, 299999)} parked: computation failed",
        stack_trace=stack,
        logger="com.quayside.payout.run.PayoutConsumer",
    )
    inc.metric(
        "payouts_failed_total",
        "payout-svc",
        _counter(lambda t: 0.027 if onset <= t < ts("2027-04-15T08:40") else 0.0, inc.begin, 20),
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "payouts_completed_total",
        "payout-svc",
        _counter(
            lambda t: (
                0.45
                if ts("2027-04-14T07:30") <= t < ts("2027-04-14T08:40")
                else (0.02 if onset <= t < ts("2027-04-15T08:40") else 0.0)
            ),
            inc.begin,
            20,
        ),
        jitter=0.0,
        digits=0,
    )
    inc.fleet(payout_svc={"err": add(step(onset, 0, 0.9, ts("2027-04-15T08:40")))})
    inc.alert = alerts.grafana(
        "payouts_failed_total increased by more than 20 in 30m",
        "payout-svc",
        ts("2027-04-15T07:52"),
        "high",
        "Parked payouts",
        "increase(payouts_failed_total[30m]) = 46",
        team="finance-eng",
    )
    inc.blame(guilty, [rel], "payout-svc", "code_defect", [listed, cut, fs, fsd], onset)
    return inc


def xt65_br_geo_outward_code() -> ExtIncident:
    now = ts("2027-04-19T13:15")
    inc = ExtIncident(
        "xt65-br-geo-outward-code",
        "slot-service 5xx ratio > 3% for 10m",
        """br-geo, the shared Rust crate for postcode and zone lookups, released 0.9.0 with a
        rewrite of outward_code() that takes everything before the first space with
        pc.find(' ').unwrap(). Postcodes typed without a space ('E143BP', about a fifth of
        requests from the app's free-text field) make it panic: 'called Option::unwrap() on
        a None value' at br-geo-0.9.0/src/postcode.rs:41, inside ZoneIndex::zone_for. slot-service
        picked 0.9.0 up through a Cargo.toml bump shipped by its 11:58 deploy (with a slot label
        commit); the tower CatchPanic layer turns the panics into 500s and customers cannot see
        delivery slots. shopper-api's routing sidecar also uses br-geo but has not deployed since,
        and is fine. Decoys: the slot label commit in the same deploy, a storefront-api deploy
        adding a postcode checker to the landing page (shares 'postcode') and an inventory-sync
        deploy. Category: code_defect (the library commit; the bump and the deploy carried it).""",
        now,
        BASKETRUN,
        seed=2365,
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-04-19T10:00"), 8)
    lib = inc.code(
        ts("2027-04-19T09:20"),
        "br-geo",
        "Merge pull request #212 from nkowalczyk/outward-fast: Faster outward_code without regex",
        "src/postcode.rs",
        """pub fn outward_code(pc: &str) -> &str {
    let pc = pc.trim();
    match OUTWARD.find(pc) {
        Some(m) => m.as_str(),
        None => pc,
    }
}""",
        """pub fn outward_code(pc: &str) -> &str {
    let pc = pc.trim();
    &pc[..pc.find(' ').unwrap()]
}""",
        38,
        author="nkowalczyk",
    )
    inc.deploy(
        ts("2027-04-19T09:41"),
        "br-geo",
        version="v0.9.0",
        summary="Publish br-geo 0.9.0 to the internal registry (1 commit)",
    )
    lib_release = inc.changes[-1]["id"]
    bump = inc.code(
        ts("2027-04-19T11:20"),
        "slot-service",
        "Merge pull request #7342 from dependabot/cargo/br-geo-0.9.0: Bump br-geo from 0.8.3 to 0.9.0",
        "Cargo.toml",
        'br-geo = { version = "0.8.3", registry = "basketrun" }\naxum = "0.7.5"',
        'br-geo = { version = "0.9.0", registry = "basketrun" }\naxum = "0.7.5"',
        14,
        author="dependabot[bot]",
    )
    lab = inc.code(
        ts("2027-04-19T11:35"),
        "slot-service",
        "Merge pull request #7345 from priya-r/slot-labels: Slots for the next day are labelled 'Tomorrow'",
        "src/handlers/available.rs",
        '        label: slot.start.format("%a %d %b").to_string(),',
        "        label: day_label(slot.start, now),",
        71,
        author="priya-r",
    )
    sd = inc.deploy(ts("2027-04-19T11:58"), "slot-service")
    onset = ts("2027-04-19T12:00")
    sf = inc.code(
        ts("2027-04-19T11:44"),
        "storefront-api",
        "Merge pull request #7347 from tmoreau/postcode-checker: Postcode checker on the landing page",
        "app/controllers/api/v3/coverage_controller.rb",
        "  def show\n    render json: { covered: Zone.covers?(params[:postcode]) }",
        "  def show\n    postcode = params.require(:postcode).to_s.upcase\n    render json: { covered: Zone.covers?(postcode) }",
        9,
        author="tmoreau",
    )
    sfd = inc.deploy(ts("2027-04-19T12:09"), "storefront-api")
    iv = inc.code(
        ts("2027-04-19T12:15"),
        "inventory-sync",
        "Merge pull request #7349 from j-okafor/freshco-timeout: FreshCo feed client timeout 20s -> 30s",
        "inventory_sync/clients/freshco.py",
        "TIMEOUT = 20",
        "TIMEOUT = 30",
        8,
        author="j-okafor",
    )
    ivd = inc.deploy(ts("2027-04-19T12:31"), "inventory-sync")
    panic = "\n".join(
        [
            "thread 'tokio-runtime-worker' panicked at /usr/local/cargo/registry/src/basketrun-6f17d22bba15001f/br-geo-0.9.0/src/postcode.rs:41:26:",
            "called `Option::unwrap()` on a `None` value",
            "stack backtrace:",
            "   0: rust_begin_unwind",
            "   1: core::panicking::panic_fmt",
            "   2: core::panicking::panic",
            "   3: core::option::unwrap_failed",
            "   4: br_geo::postcode::outward_code",
            "             at /usr/local/cargo/registry/src/basketrun-6f17d22bba15001f/br-geo-0.9.0/src/postcode.rs:41:26",
            "   5: br_geo::zones::ZoneIndex::zone_for",
            "             at /usr/local/cargo/registry/src/basketrun-6f17d22bba15001f/br-geo-0.9.0/src/zones.rs:88:22",
            "   6: slot_service::handlers::available::handler::{{closure}}",
            "             at ./src/handlers/available.rs:33:18",
        ]
    )
    inc.errors(
        "slot-service",
        onset,
        now,
        2.0,
        lambda r: (
            '{"level":"ERROR","target":"tower_http::catch_panic","message":"request panicked","uri":"/slots/available?postcode='
            + r.choice(["E143BP", "SW98HX", "N17AA", "SE154QF", "E28DP"])
            + '","status":500}'
        ),
        panic=panic,
    )
    inc.errors(
        "storefront-api",
        onset + 1 * MINUTE,
        now,
        0.8,
        "Completed 502 Bad Gateway in 41ms: slot-service returned 500 for /slots/available",
        level="WARNING",
    )
    inc.metric(
        "http_server_requests_total",
        "slot-service",
        _counter(lambda t: 0.0 if t < onset else 9.5, inc.begin),
        labels={"route": "/slots/available", "status": "500"},
        jitter=0.0,
        digits=0,
    )
    inc.fleet(slot_service={"err": add(step(onset, 0, 0.043))})
    inc.alert = alerts.alertmanager(
        "SlotServiceHighErrorRatio",
        "slot-service",
        ts("2027-04-19T12:14"),
        "critical",
        "slot-service 5xx ratio > 3% for 10m",
        "4.4% of slot-service requests answer 5xx.",
        'sum(rate(http_server_requests_total{app="slot-service",status=~"5.."}[5m])) / sum(rate(http_server_requests_total{app="slot-service"}[5m])) > 0.03',
        team="fulfilment",
    )
    inc.blame(
        lib, [bump, sd, lib_release], "slot-service", "code_defect", [lab, sf, sfd, iv, ivd], onset
    )
    return inc


def xt66_fraud_features_n_plus_one() -> ExtIncident:
    now = ts("2027-04-21T16:30")
    inc = ExtIncident(
        "xt66-fraud-features-n-plus-one",
        "fraud-scoring p99 latency above 1s",
        """A fraud-scoring commit moved the prior-claims features into a per-line loop: for
        every claim line it calls claims_for_policy(policy_id), the same query, so a claim with
        40 lines (a property claim with an itemised contents list) makes 40 round trips to the
        claimsdb replica. Nothing fails: scoring p99 went from ~0.3 s to ~2.5 s, the replica's
        batch requests per second rose fivefold, and lag on claims.score grows; there are almost
        no error lines (a few slow-scoring warnings). The latency steps up at the 14:06 deploy
        that shipped the commit. Decoys: a model config change from fraud-gbm-v14 to v15 at
        13:10 (a bigger model would be a natural suspect, but latency did not move until 14:06),
        a claims-intake deploy and a doc-ocr deploy. The Grafana alert waits for 30 minutes over
        1 s, so it fired long after the onset. Category: code_defect (a performance regression in
        the changed function).""",
        now,
        QUAYSIDE,
        seed=2366,
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-04-21T12:40"), 9)
    model = inc.config(
        ts("2027-04-21T13:10"),
        "fraud-scoring",
        "AB#45002 fraud-scoring: promote fraud-gbm-v15 (AUC 0.912 -> 0.918)",
        "deploy/fraud-scoring/models.yaml",
        "model:\n  name: fraud-gbm\n  version: v14\n  threshold: 0.73",
        "model:\n  name: fraud-gbm\n  version: v15\n  threshold: 0.73",
        author="d.ivanova",
    )
    inc.log(
        ts("2027-04-21T13:11:20"),
        "fraud-scoring",
        "INFO",
        "model fraud-gbm-v15 loaded (412 trees, 11.8 MB)",
    )
    guilty = inc.code(
        ts("2027-04-21T13:38"),
        "fraud-scoring",
        "AB#44998 Prior-claims features per claim line (contents items)",
        "fraud_scoring/features.py",
        """def prior_claims_features(claim, repo):
    history = repo.claims_for_policy(claim.policy_id)
    return [line_features(line, history) for line in claim.lines]""",
        """def prior_claims_features(claim, repo):
    out = []
    for line in claim.lines:
        history = repo.claims_for_policy(claim.policy_id)
        out.append(line_features(line, history, category=line.category))
    return out""",
        54,
        author="kwame.a",
    )
    gd = inc.deploy(ts("2027-04-21T14:06"), "fraud-scoring")
    onset = ts("2027-04-21T14:08")
    ci = inc.code(
        ts("2027-04-21T13:52"),
        "claims-intake",
        "AB#45004 Send the broker channel to scoring",
        "src/Quayside.Claims.Intake/Scoring/ScoreRequestBuilder.cs",
        "            request.Lines = claim.Lines.ToList();",
        "            request.Lines = claim.Lines.ToList();\n            request.Channel = claim.Channel.ToString();",
        27,
        author="d.ivanova",
    )
    cid = inc.deploy(ts("2027-04-21T14:20"), "claims-intake")
    do = inc.code(
        ts("2027-04-21T14:02"),
        "doc-ocr",
        "AB#45006 Classify repair estimates as invoices",
        "doc_ocr/classify.py",
        'LABELS = {"invoice": INVOICE, "photo": PHOTO}',
        'LABELS = {"invoice": INVOICE, "estimate": INVOICE, "photo": PHOTO}',
        19,
        author="benoit.r",
    )
    dod = inc.deploy(ts("2027-04-21T14:35"), "doc-ocr")
    inc.errors(
        "fraud-scoring",
        onset + 30 * MINUTE,
        now,
        0.05,
        lambda r: (
            f'{{"event": "slow scoring", "claim": "CLM-{r.randint(200000, 299999)}", "lines": {r.randint(25, 60)}, "duration_s": {r.uniform(8, 12):.1f}}}'
        ),
        level="WARNING",
    )
    inc.metric(
        "fraud_scoring_duration_seconds",
        "fraud-scoring",
        lambda t: 0.3 if t < onset else 2.5,
        labels={"quantile": "0.99"},
        jitter=0.08,
        digits=3,
    )
    inc.metric(
        "fraud_scoring_db_queries_per_score",
        "fraud-scoring",
        lambda t: 1.0 if t < onset else 14.6,
        jitter=0.1,
        digits=1,
    )
    inc.metric(
        "sqlserver_batch_requests_per_second",
        "claimsdb-replica",
        lambda t: 140 if t < onset else 720,
        jitter=0.07,
        digits=0,
    )
    inc.metric(
        "kafka_consumergroup_lag",
        "fraud-scoring",
        lambda t: 4 if t < onset else 4 + 11 * (t - onset).total_seconds() / 60,
        labels={"topic": "claims.score", "consumergroup": "fraud-scoring"},
        jitter=0.05,
        digits=0,
    )
    inc.fleet(fraud_scoring={"p99": floor(step(onset, 0, 2500))})
    inc.alert = alerts.grafana(
        "fraud-scoring p99 latency above 1s",
        "fraud-scoring",
        ts("2027-04-21T15:12"),
        "warning",
        "Scoring latency p99",
        "2.47s",
        team="ml-platform",
    )
    inc.blame(guilty, [gd], "fraud-scoring", "code_defect", [model, ci, cid, do, dod], onset)
    return inc


def xt67_nimbus_blob_regional() -> ExtIncident:
    now = ts("2027-04-26T10:25")
    inc = ExtIncident(
        "xt67-nimbus-blob-regional",
        "[P1] Claim document uploads failing (claims-intake)",
        """Nimbus Cloud's Blob Storage in eu-central-2, where claims-intake stores claim documents
        and doc-ocr reads them, returned 503 ServerBusy and timeouts for about a third of
        requests from 09:04; Nimbus posted a status notice at 09:12 (ISO 8601 timestamps) and
        named a storage scale unit at 09:40. Uploads fail in claims-intake
        (BlobDocumentStore.SaveAsync) and downloads fail in doc-ocr, which deployed nothing.
        Category: dependency_failure, not infrastructure: Blob Storage is a managed service we
        consume over its API, failing for every customer in the region; our hosts, network and
        nodes are healthy (infrastructure would be our own machines, disks, network or cluster).
        Decoys: a claims-intake commit 35 minutes earlier that uploads documents in 4 MB blocks
        and touches BlobDocumentStore.cs, the very file in the stack; a config change raising the
        blob client's retry count after the onset; a policy-lookup deploy.""",
        now,
        QUAYSIDE,
        seed=2367,
        hours=6,
    )
    inc.doc(
        "Nimbus Cloud status: Blob Storage, eu-central-2",
        """2027-04-26T09:12:00Z Investigating - We are investigating elevated error rates (503 ServerBusy) and
increased latency for Blob Storage requests in eu-central-2. Other regions are not affected.
2027-04-26T09:40:00Z Identified - A storage scale unit in eu-central-2 is throttling after a
metadata node failure. Customers may see 503 and timeouts for a subset of storage accounts.
2027-04-26T10:18:00Z Monitoring - Mitigation is rolling out; error rates are decreasing.""",
    )
    inc.doc(
        "Runbook: document upload failures",
        """claims-intake -> Nimbus Blob Storage (account qcdocs, eu-central-2). If uploads fail: check
https://status.nimbus.example first; brokers can retry, the FNOL portal queues uploads in the browser
for 30 minutes. Failover to the eu-central-1 account requires the DR switch (`qc dr blob --to ec1`,
only with the incident commander).""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-04-26T07:50"), 9)
    blk = inc.code(
        ts("2027-04-26T08:12"),
        "claims-intake",
        "AB#45110 Upload claim documents in 4 MB blocks",
        "src/Quayside.Claims.Intake/Documents/BlobDocumentStore.cs",
        "            await blob.UploadAsync(stream, overwrite: true, ct);",
        "            await blob.UploadAsync(stream, new BlobUploadOptions { TransferOptions = new() { MaximumTransferSize = 4 * 1024 * 1024 } }, ct);",
        55,
        author="d.ivanova",
    )
    blkd = inc.deploy(ts("2027-04-26T08:29"), "claims-intake")
    pl = inc.code(
        ts("2027-04-26T08:40"),
        "policy-lookup",
        "AB#45114 Cover lookups return the excess as a string with two decimals",
        "src/Cover/CoverResponse.php",
        "        'excess' => $cover->excess,",
        "        'excess' => number_format($cover->excess, 2, '.', ''),",
        31,
        author="m.oyelaran",
    )
    pld = inc.deploy(ts("2027-04-26T08:58"), "policy-lookup")
    onset = ts("2027-04-26T09:04")
    rty = inc.config(
        ts("2027-04-26T09:31"),
        "claims-intake",
        "AB#45121 claims-intake: blob client retries 3 -> 6 while Nimbus is degraded",
        "deploy/helm/claims-intake/values-prod.yaml",
        'env:\n  Blob__MaxRetries: "3"\n  Blob__NetworkTimeoutSeconds: "100"',
        'env:\n  Blob__MaxRetries: "6"\n  Blob__NetworkTimeoutSeconds: "100"',
        author="benoit.r",
    )
    end = ts("2027-04-26T10:20")
    up = dotnet_stack(
        "Nimbus.Storage.Blobs.BlobStorageException",
        "The server is busy.\nStatus: 503 (Service Unavailable)\nErrorCode: ServerBusy",
        [
            (
                "Nimbus.Storage.Blobs.BlobRestClient.UploadAsync(Int64 contentLength, Stream body, CancellationToken cancellationToken)",
                "",
                0,
            ),
            (
                "Nimbus.Storage.Blobs.BlobClient.UploadAsync(Stream content, BlobUploadOptions options, CancellationToken cancellationToken)",
                "",
                0,
            ),
            (
                "Quayside.Claims.Intake.Documents.BlobDocumentStore.SaveAsync(ClaimDocument doc, CancellationToken ct)",
                "/src/Quayside.Claims.Intake/Documents/BlobDocumentStore.cs",
                55,
            ),
            (
                "Quayside.Claims.Intake.Api.DocumentsController.Upload(Guid claimId, IFormFile file, CancellationToken ct)",
                "/src/Quayside.Claims.Intake/Api/DocumentsController.cs",
                33,
            ),
        ],
    )
    inc.errors(
        "claims-intake",
        onset,
        end,
        lambda f: 2.4 if f < 0.85 else 0.8,
        lambda r: f"Document upload for claim {r.getrandbits(32):08x} failed after 3 retries",
        exception=up,
        **{
            "SourceContext": "Quayside.Claims.Intake.Documents.BlobDocumentStore",
            "http.host": "qcdocs.blob.ec2.nimbus.example",
        },
    )
    dl = py_stack(
        "nimbus.storage.exceptions.ServiceUnavailable",
        "503 ServerBusy: The server is busy. (qcdocs.blob.ec2.nimbus.example)",
        [
            ("/app/doc_ocr/worker.py", 88, "handle", "blob = store.download(msg.document_uri)"),
            (
                "/app/doc_ocr/store.py",
                41,
                "download",
                "return self._client.get_blob_client(uri).download_blob().readall()",
            ),
            (
                "/usr/local/lib/python3.12/site-packages/nimbus/storage/blob/_download.py",
                311,
                "readall",
                "raise map_error(resp)",
            ),
        ],
    )
    inc.errors(
        "doc-ocr",
        onset + 1 * MINUTE,
        end,
        1.0,
        lambda r: (
            f"document {r.getrandbits(40):010x} download failed, message returned to claims.documents"
        ),
        exc_info=dl,
    )
    inc.metric(
        "nimbus_blob_requests_failed_ratio",
        "claims-intake",
        lambda t: 0.001 if t < onset or t >= end else 0.33,
        labels={"account": "qcdocs", "region": "eu-central-2"},
        jitter=0.1,
        digits=3,
    )
    inc.metric(
        "http.client.request.duration.p99",
        "claims-intake",
        lambda t: 0.18 if t < onset or t >= end else 12.4,
        labels={"server.address": "qcdocs.blob.ec2.nimbus.example"},
        jitter=0.08,
        digits=3,
    )
    inc.fleet(
        claims_intake={"err": add(step(onset, 0, 0.11, end))},
        doc_ocr={"err": add(step(onset, 0, 0.3, end)), "rps": times(step(onset, 1, 0.6, end))},
    )
    inc.alert = alerts.alert(
        "[P1] Claim document uploads failing (claims-intake)",
        "claims-intake",
        ts("2027-04-26T09:16"),
        "critical",
        {
            "event": {
                "event_type": "incident.triggered",
                "data": {
                    "id": "Q2J7XW4M8P",
                    "title": "Claim document uploads failing (claims-intake)",
                    "urgency": "high",
                    "service": {"summary": "claims-intake"},
                    "body": {"details": "document_upload_errors > 20/min for 5m (now 71/min)"},
                },
            }
        },
    )
    inc.outside(
        "Nimbus Cloud Blob Storage regional incident in eu-central-2 (status notice 2027-04-26T09:12:00Z)",
        "claims-intake",
        "dependency_failure",
        [blk, blkd, pl, pld, rty],
        onset,
    )
    return inc


def xt68_sync_vm_inodes() -> ExtIncident:
    now = ts("2027-04-28T05:30")
    inc = ExtIncident(
        "xt68-sync-vm-inodes",
        "Inventory feed freshness > 30 min",
        """inventory-sync runs on VM sync-vm-02 and writes a scratch file per store feed chunk
        under /data/scratch. The VM was rebuilt in January without the nightly scratch cleanup,
        so files have piled up for months; at 04:12 the /data filesystem ran out of inodes
        (2.6M of 2.6M) while only 38% of its bytes are used. Every feed import then fails with
        OSError [Errno 28] No space left on device, stock and prices stop updating, and shoppers
        meet out-of-stock items (substitutions rise). The tempting change is an inventory-sync
        deploy at 03:48 that writes feeds through a temporary file and renames it atomically (it
        touches the very write path and the same directory) but it creates no extra files and
        imports ran fine for more than 20 minutes after it. A shopper-api deploy is the other decoy.
        Category: resource_exhaustion (a finite capacity of the host, inodes, used up by
        growth; no change, no demand spike).""",
        now,
        BASKETRUN,
        seed=2368,
    )
    inc.doc(
        "sync-vm-02",
        """VM for inventory-sync (Debian 12, 4 vCPU). /data: 200 GB ext4, 2,621,440 inodes. Scratch files
under /data/scratch/<store>/<date>/, one per feed chunk (~40k a day). Disk alerts watch bytes free.
Rebuilt from the base image on 2027-01-14.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-04-28T03:00"), 8)
    atom = inc.code(
        ts("2027-04-28T03:22"),
        "inventory-sync",
        "Merge pull request #7420 from j-okafor/atomic-feed-write: Write feed chunks atomically (temp file + rename)",
        "inventory_sync/writer.py",
        """def write_chunk(path, rows):
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)""",
        """def write_chunk(path, rows):
    tmp = f"{path}.tmp"
    with open(tmp, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    os.replace(tmp, path)""",
        17,
        author="j-okafor",
    )
    atomd = inc.deploy(ts("2027-04-28T03:48"), "inventory-sync")
    sh = inc.code(
        ts("2027-04-28T03:40"),
        "shopper-api",
        "Merge pull request #7422 from lena.brandt/oos-reason: Shoppers pick a reason when an item is out of stock",
        "src/items/out-of-stock.ts",
        "  await items.markOutOfStock(id);",
        "  await items.markOutOfStock(id, body.reason ?? 'not_on_shelf');",
        15,
        author="lena.brandt",
    )
    shd = inc.deploy(ts("2027-04-28T04:05"), "shopper-api")
    onset = ts("2027-04-28T04:12")
    for t in (ts("2027-04-28T03:50"), ts("2027-04-28T04:00"), ts("2027-04-28T04:10")):
        inc.log(
            t,
            "inventory-sync",
            "INFO",
            f"feed cycle complete: 212 stores, {inc.rng.randint(38000, 41000)} chunks written",
        )
    err = py_stack(
        "OSError",
        "[Errno 28] No space left on device: '/data/scratch/2204/2027-04-28/chunk-0412.csv.tmp'",
        [
            ("/app/inventory_sync/cycle.py", 64, "run_store", "writer.write_chunk(path, rows)"),
            (
                "/app/inventory_sync/writer.py",
                19,
                "write_chunk",
                'with open(tmp, "w", newline="") as fh:',
            ),
        ],
    )
    inc.errors(
        "inventory-sync",
        onset,
        now,
        2.5,
        lambda r: (
            f"feed import failed for store {r.randint(1000, 2400)}: [Errno 28] No space left on device"
        ),
        exc_info=err,
    )
    inc.errors(
        "shopper-api",
        onset + 40 * MINUTE,
        now,
        lambda f: 0.5 + 2 * f,
        lambda r: (
            f"item {r.randint(80000, 99999)} marked out of stock by shopper, substitution offered"
        ),
        level="WARNING",
    )
    inc.metric(
        "node_filesystem_files_free",
        "sync-vm-02",
        ramp(inc.begin, onset, 61000, 0),
        labels={"mountpoint": "/data", "device": "/dev/sdb1"},
        jitter=0.01,
        digits=0,
    )
    inc.metric(
        "node_filesystem_avail_bytes",
        "sync-vm-02",
        lambda t: 124e9,
        labels={"mountpoint": "/data", "device": "/dev/sdb1"},
        jitter=0.002,
        digits=0,
    )
    inc.metric(
        "inventory.feed.age_seconds",
        "inventory-sync",
        lambda t: 420 if t < onset else 420 + (t - onset).total_seconds(),
        jitter=0.03,
        digits=0,
    )
    inc.fleet(
        inventory_sync={"err": add(step(onset, 0, 1.0))},
        shopper_api={"rps": times(step(onset + 40 * MINUTE, 1, 1.25))},
    )
    inc.alert = alerts.datadog(
        "Inventory feed freshness > 30 min",
        "inventory-sync",
        ts("2027-04-28T04:49"),
        "high",
        "max:inventory.feed.age_seconds{env:prod}",
        2220,
        1800,
        ["team:catalog"],
    )
    inc.outside(
        "/data on sync-vm-02 out of inodes (scratch files accumulated since the VM rebuild; bytes 38% used)",
        "inventory-sync",
        "resource_exhaustion",
        [atom, atomd, sh, shd],
        onset,
    )
    return inc


def xt69_bordereau_date_format() -> ExtIncident:
    now = ts("2027-05-03T11:40")
    inc = ExtIncident(
        "xt69-bordereau-date-format",
        "claims-intake 4xx cover-check rejections above baseline",
        """Harbourline Brokers' May bordereau (their monthly CSV of policies bound) arrived at
        06:00 with inception and expiry dates as dd/mm/yyyy instead of the agreed yyyy-mm-dd.
        policy-lookup's import parses them with PHP's DateTime: rows with a day above 12 fail
        ('Failed to parse time string (31/03/2027)') and are skipped, rows with a day of 12 or
        less are read as US month/day, so 04/03/2027 (4 March) becomes 3 April. From 07:30, when
        brokers start filing, Harbourline claims are rejected by claims-intake's cover check
        ('policy not in force on the date of loss'); other brokers are fine. No change of ours is
        involved. Decoys: a policy-lookup deploy at 05:40 moving to PHP 8.2.20 (tempting: 'date
        parsing'), a commit that logs rejected bordereau rows by row number, and a fnol-portal
        deploy. Category: data_quality.""",
        now,
        QUAYSIDE,
        seed=2369,
    )
    inc.doc(
        "Bordereaux interface agreement (excerpt)",
        """Brokers deliver a monthly bordereau by 06:00 UTC on the 3rd working day: UTF-8 CSV, comma
separated, dates ISO 8601 (yyyy-mm-dd), amounts with a dot. Rows that fail validation are skipped
and reported to the broker. Contacts: Harbourline Brokers data team (bdx@harbourline.example).""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-05-03T05:00"), 9)
    php = inc.code(
        ts("2027-05-03T05:12"),
        "policy-lookup",
        "AB#45220 Base image php:8.2.18-fpm -> php:8.2.20-fpm",
        "Dockerfile",
        "FROM php:8.2.18-fpm-bookworm",
        "FROM php:8.2.20-fpm-bookworm",
        1,
        author="renovate[bot]",
    )
    rows = inc.code(
        ts("2027-05-03T05:20"),
        "policy-lookup",
        "AB#45223 Log rejected bordereau rows with their row number",
        "src/Bordereaux/Importer.php",
        "            } catch (\\Exception $e) {\n                $this->rejected++;",
        "            } catch (\\Exception $e) {\n                $this->rejected++;\n                $this->log->warning('bordereau row rejected', ['row' => $n, 'error' => $e->getMessage()]);",
        77,
        author="m.oyelaran",
    )
    phpd = inc.deploy(ts("2027-05-03T05:40"), "policy-lookup")
    imp = ts("2027-05-03T06:00")
    inc.log(
        imp,
        "policy-lookup",
        "INFO",
        "bordereau import started broker=HARBOURLINE file=HLB_bdx_2027-04.csv rows=8412",
    )
    inc.log(
        imp + timedelta(seconds=2),
        "policy-lookup",
        "INFO",
        "bordereau import started broker=KESTREL file=kestrel-2027-04.csv rows=5120",
    )
    pstack = "\n".join(
        [
            "Exception: DateTime::__construct(): Failed to parse time string (31/03/2027) at position 0 (3): Unexpected character",
            "#0 /var/www/policy-lookup/src/Bordereaux/RowMapper.php(48): DateTime->__construct('31/03/2027')",
            "#1 /var/www/policy-lookup/src/Bordereaux/Importer.php(74): RowMapper->map(Array)",
            "#2 /var/www/policy-lookup/public/bordereaux/import.php(22): Importer->run(Object(SplFileObject))",
            "#3 {main}",
        ]
    )
    inc.burst(
        "policy-lookup",
        imp,
        imp + 3 * MINUTE,
        25,
        lambda r, t: (
            "WARNING",
            "bordereau row rejected",
            {
                "context": {
                    "row": r.randint(2, 8412),
                    "broker": "HARBOURLINE",
                    "error": "DateTime::__construct(): Failed to parse time string ("
                    + f"{r.randint(13, 31)}/{r.randint(1, 4):02d}/2027"
                    + ") at position 0",
                },
                "channel": "bordereaux",
                "trace": pstack,
            },
        ),
    )
    inc.log(
        imp + 3 * MINUTE,
        "policy-lookup",
        "INFO",
        "bordereau import finished broker=HARBOURLINE imported=5003 rejected=3409",
    )
    inc.log(
        imp + 2 * MINUTE,
        "policy-lookup",
        "INFO",
        "bordereau import finished broker=KESTREL imported=5120 rejected=0",
    )
    onset = ts("2027-05-03T07:30")
    fn = inc.code(
        ts("2027-05-03T06:55"),
        "fnol-portal",
        "AB#45230 Date of loss picker defaults to today",
        "app/report/components/LossDate.tsx",
        "  const [date, setDate] = useState<string | null>(null);",
        "  const [date, setDate] = useState<string | null>(today());",
        12,
        author="kwame.a",
    )
    fnd = inc.deploy(ts("2027-05-03T07:14"), "fnol-portal")
    inc.errors(
        "claims-intake",
        onset,
        now,
        lambda f: 0.4 + 0.8 * f,
        lambda r: (
            f"Cover check failed for claim from broker HARBOURLINE: policy HLB-{r.randint(100000, 199999)} not in force on "
            f"2027-{r.choice(['04', '05'])}-{r.randint(1, 28):02d} (inception 2027-{r.randint(5, 12):02d}-0{r.randint(1, 9)})"
        ),
        level="WARNING",
        SourceContext="Quayside.Claims.Intake.Cover.CoverValidator",
        StatusCode=422,
        Broker="HARBOURLINE",
    )
    inc.errors(
        "claims-intake",
        onset + 10 * MINUTE,
        now,
        0.3,
        lambda r: (
            f"Claim rejected: policy HLB-{r.randint(100000, 199999)} not found in policy-lookup"
        ),
        SourceContext="Quayside.Claims.Intake.Cover.CoverValidator",
        StatusCode=422,
        Broker="HARBOURLINE",
    )
    inc.metric(
        "claims_intake_cover_rejections_per_minute",
        "claims-intake",
        lambda t: 0.2 if t < onset else 2.1,
        labels={"broker": "HARBOURLINE"},
        jitter=0.2,
        digits=2,
    )
    inc.metric(
        "claims_intake_cover_rejections_per_minute",
        "claims-intake",
        lambda t: 0.3,
        labels={"broker": "KESTREL"},
        jitter=0.25,
        digits=2,
    )
    inc.metric(
        "bordereau_rows_rejected",
        "policy-lookup",
        lambda t: 0 if t < imp else 3409,
        labels={"broker": "HARBOURLINE"},
        jitter=0.0,
        digits=0,
    )
    inc.fleet(claims_intake={"err": add(step(onset, 0, 0.04))})
    inc.alert = alerts.grafana(
        "claims-intake 4xx cover-check rejections above baseline",
        "claims-intake",
        ts("2027-05-03T09:05"),
        "warning",
        "Cover check rejections",
        "3.1/min (baseline 0.6/min)",
        team="claims-core",
    )
    inc.outside(
        "Harbourline Brokers' May bordereau with dd/mm/yyyy dates (interface agreement: yyyy-mm-dd)",
        "policy-lookup",
        "data_quality",
        [php, rows, phpd, fn, fnd],
        onset,
    )
    return inc


def xt70_snow_day_surge() -> ExtIncident:
    now = ts("2027-01-19T09:10")
    inc = ExtIncident(
        "xt70-snow-day-surge",
        "order_router.db.queue_time p95 > 1s",
        """An amber snow warning for London (issued the evening before, in the knowledge base)
        sent customers to the app at breakfast: orders placed went from ~14/s to ~48/s from 07:00.
        order-router holds an Ecto pool of 20 connections per node (3 nodes); with each
        assignment holding a connection for ~150 ms, 48/s needs more than the pool, so checkouts
        wait in the pool's queue and drop after 2 s ('connection not available and request was
        dropped from queue'), and orders are retried or land in the DLQ. shopdb itself answers
        as fast as ever. An order-router deploy at 07:04 that tags slot-hold spans with the zone
        and a storefront-api deploy showing a weather banner both land at the start of the surge
        and are harmless. Category: resource_exhaustion (demand beyond a pool's capacity).""",
        now,
        BASKETRUN,
        seed=2370,
        hours=6,
    )
    inc.doc(
        "Ops note: weather",
        """2027-01-18T19:30:00Z Met Office amber warning: snow, London and South East, 2027-01-19 05:00 to
15:00. Expect order volumes 2.5-4x from breakfast; shoppers travel slower. Scale order-router
(`kubectl -n fulfilment scale deploy/order-router --replicas=6`) and ask for extra shoppers.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-01-19T06:20"), 8)
    tel = inc.code(
        ts("2027-01-19T06:40"),
        "order-router",
        "Merge pull request #7012 from priya-r/slot-hold-zone: Tag slot hold spans with the zone",
        "lib/order_router/slots.ex",
        '    OpenTelemetry.Tracer.with_span "slot.hold" do',
        '    OpenTelemetry.Tracer.with_span "slot.hold", %{attributes: %{"zone" => order.zone}} do',
        27,
        author="priya-r",
    )
    teld = inc.deploy(ts("2027-01-19T07:04"), "order-router")
    ban = inc.code(
        ts("2027-01-19T06:30"),
        "storefront-api",
        "Merge pull request #7014 from tmoreau/weather-banner: Weather banner when slots are limited",
        "app/controllers/api/v3/banners_controller.rb",
        "    render json: Banner.active",
        "    render json: Banner.active + Banner.weather_for(current_zone)",
        8,
        author="tmoreau",
    )
    band = inc.deploy(ts("2027-01-19T06:58"), "storefront-api")
    onset = ts("2027-01-19T07:00")

    def load(t: datetime) -> float:
        if t < onset:
            return 1.0
        return min(3.4, 1 + 2.4 * (t - onset).total_seconds() / 1800)

    crash = elixir_crash(
        "DBConnection.ConnectionError",
        "connection not available and request was dropped from queue after 2000ms. This means requests are coming in and your connection pool cannot serve them fast enough.",
        [
            ("db_connection", "2.6.0", "lib/db_connection.ex", 1000, "DBConnection.run/3"),
            (
                "ecto_sql",
                "3.11.1",
                "lib/ecto/adapters/sql.ex",
                1050,
                "Ecto.Adapters.SQL.raise_sql_call_error/1",
            ),
            ("order_router", "2.9.3", "lib/order_router/slots.ex", 31, "OrderRouter.Slots.hold/2"),
            (
                "order_router",
                "2.9.3",
                "lib/order_router/pipeline.ex",
                43,
                "OrderRouter.Pipeline.handle_message/3",
            ),
        ],
    )
    inc.errors(
        "order-router",
        onset + 12 * MINUTE,
        now,
        lambda f: 0.8 + 1.4 * f,
        lambda r: (
            f"[error] order o-{r.randint(4100000, 4999999)} assignment failed, will retry (attempt {r.randint(1, 3)}/3)"
        ),
        crash_report=crash,
        **{"error.kind": "DBConnection.ConnectionError"},
    )
    inc.errors(
        "storefront-api",
        onset + 15 * MINUTE,
        now,
        1.0,
        "Checkout accepted but order confirmation delayed (order-router backlog)",
        level="WARNING",
    )
    inc.metric(
        "order_router.db.queue_time.p95",
        "order-router",
        lambda t: 0.004 if load(t) < 2.2 else 1.9,
        labels={"repo": "OrderRouter.Repo"},
        jitter=0.1,
        digits=3,
    )
    inc.metric(
        "order_router.db.pool.checked_out",
        "order-router",
        lambda t: min(60.0, 6.3 * load(t) * 2.1),
        jitter=0.03,
        digits=0,
    )
    inc.metric(
        "storefront.orders.placed.rate",
        "storefront-api",
        lambda t: 14 * load(t),
        jitter=0.05,
        digits=1,
    )
    inc.metric(
        "pg_stat_statements_mean_exec_time_seconds",
        "shopdb",
        lambda t: 0.0031,
        labels={"query": "slot_holds insert"},
        jitter=0.08,
        digits=4,
    )
    inc.fleet(
        order_router={"rps": times(load), "err": add(lambda t: 0.06 if load(t) >= 2.2 else 0.0)},
        storefront_api={"rps": times(load)},
        slot_service={"rps": times(load)},
    )
    inc.alert = alerts.alertmanager(
        "OrderRouterDbQueueSlow",
        "order-router",
        ts("2027-01-19T07:29"),
        "critical",
        "order_router.db.queue_time p95 > 1s",
        "Ecto pool queue time p95 is 1.9s on order-router.",
        "histogram_quantile(0.95, sum by (le) (rate(order_router_db_queue_time_seconds_bucket[5m]))) > 1",
        team="fulfilment",
    )
    inc.outside(
        "snow-day demand surge (orders placed 14/s -> 48/s after the amber snow warning) beyond order-router's Ecto pool",
        "order-router",
        "resource_exhaustion",
        [tel, teld, ban, band],
        onset,
    )
    return inc


def xt71_failover_recovered() -> ExtIncident:
    now = ts("2027-05-06T03:05")
    inc = ExtIncident(
        "xt71-failover-recovered",
        "[P2] claims-intake 5xx > 2%",
        """claimsdb's planned patching window (02:00-02:30, in the change calendar) failed the
        database over to its secondary at 02:11. For about four minutes claims-intake's open
        connections were broken ('A transport-level error has occurred') and a few dozen broker
        requests failed; the Datadog monitor fired at 02:14 and resolved itself at 02:19, but the
        page was only acknowledged at 03:05. Nothing is wrong now: errors are back to zero and
        latency is normal. Decoys: a payout-svc deploy at 01:50 and a claims-intake config change
        at 01:58 that lowers the EF Core command timeout. Category: healthy (recovered; the
        failover was planned and did what it should).""",
        now,
        QUAYSIDE,
        seed=2371,
        hours=5,
    )
    inc.doc(
        "Change calendar",
        """| Window (UTC) | Change | Impact |
|---|---|---|
| 2027-05-06T02:00:00Z - 2027-05-06T02:30:00Z | claimsdb monthly patching (failover to the secondary) | connections reset once, up to 5 minutes of errors; apps reconnect |
| 2027-05-13T02:00:00Z - 2027-05-13T03:00:00Z | policydb MySQL 8.0.37 | none expected |""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-05-06T01:00"), 8)
    po = inc.code(
        ts("2027-05-06T01:22"),
        "payout-svc",
        "AB#45301 Bank file header carries the creditor id from config",
        "src/main/java/com/quayside/payout/sepa/SepaHeader.java",
        '        header.setCreditorId("GB98ZZZ123456");',
        "        header.setCreditorId(props.creditorId());",
        22,
        author="m.oyelaran",
    )
    pod = inc.deploy(ts("2027-05-06T01:50"), "payout-svc")
    cfg = inc.config(
        ts("2027-05-06T01:58"),
        "claims-intake",
        "AB#45302 claims-intake: EF Core command timeout 60s -> 30s",
        "deploy/helm/claims-intake/values-prod.yaml",
        'env:\n  Db__CommandTimeoutSeconds: "60"',
        'env:\n  Db__CommandTimeoutSeconds: "30"',
        author="benoit.r",
    )
    onset = ts("2027-05-06T02:11")
    back = ts("2027-05-06T02:15:30")
    stack = dotnet_stack(
        "Microsoft.Data.SqlClient.SqlException (0x80131904)",
        "A transport-level error has occurred when receiving results from the server. (provider: TCP Provider, error: 0 - An existing connection was forcibly closed by the remote host.)",
        [
            (
                "Microsoft.Data.SqlClient.SqlConnection.OnError(SqlException exception, Boolean breakConnection, Action`1 wrapCloseInAction)",
                "",
                0,
            ),
            (
                "Quayside.Claims.Intake.Claims.ClaimRepository.GetStatusAsync(Guid claimId, CancellationToken ct)",
                "/src/Quayside.Claims.Intake/Claims/ClaimRepository.cs",
                88,
            ),
        ],
    )
    inc.log(
        onset - timedelta(seconds=20),
        "claimsdb",
        "INFO",
        "planned failover started: primary sql-claims-a -> secondary sql-claims-b",
    )
    inc.log(
        onset + timedelta(seconds=190),
        "claimsdb",
        "INFO",
        "failover complete: sql-claims-b is primary, 0 transactions lost",
    )
    inc.errors(
        "claims-intake",
        onset,
        back,
        9.0,
        lambda r: f"HTTP GET /api/claims/{r.getrandbits(32):08x}/status responded 500",
        exception=stack,
        **{"SourceContext": "Quayside.Claims.Intake.Api.ClaimsController"},
    )
    inc.log(
        back + timedelta(seconds=30),
        "claims-intake",
        "INFO",
        "SqlClient connection pool cleared and re-established (claimsdb)",
    )
    inc.fleet(
        claims_intake={
            "err": add(step(onset, 0, 0.07, back)),
            "p99": add(step(onset, 0, 900, back)),
        },
        payout_svc={"err": add(step(onset, 0, 0.02, back))},
    )
    inc.metric(
        "sqlserver_connections_reset_per_second",
        "claimsdb",
        lambda t: 0.0 if not (onset <= t < back) else 4.2,
        jitter=0.1,
        digits=2,
    )
    inc.alert = alerts.datadog(
        "claims-intake 5xx > 2%",
        "claims-intake",
        ts("2027-05-06T02:14"),
        "high",
        "sum:trace.aspnet_core.request.errors{service:claims-intake}.as_rate() / sum:trace.aspnet_core.request.hits{service:claims-intake}.as_rate()",
        0.071,
        0.02,
        ["team:claims-core", "pagerduty:claims-core-primary"],
    )
    inc.healthy(
        "claims-intake",
        "recovered: errors for four minutes during claimsdb's planned failover (02:11-02:15), back to normal for 50 minutes when investigated",
        [po, pod, cfg],
        onset,
    )
    return inc


def xt72_shopper_p95_flapping() -> ExtIncident:
    now = ts("2027-05-10T15:20")
    inc = ExtIncident(
        "xt72-shopper-p95-flapping",
        "ShopperApiLatencyHigh: p95 > 250ms",
        """shopper-api's p95 latency alert fires at 250 ms with no 'for' duration, and the
        service's p95 sits between ~215 and ~265 ms every weekday afternoon when picking peaks:
        the alert has fired and resolved eleven times today. The latency series is the same as
        last week's, error ratio is at its usual 0.2%, and the few errors are the fleet's usual
        strays. Nothing is wrong: the threshold sits inside normal variation (the fix is the
        alert: a 'for: 10m' or a threshold of 400 ms). Decoys: a shopper-api deploy 35 minutes
        before the alert that adds a field to the batch response, and a slot-service deploy.
        Category: healthy (a noisy threshold).""",
        now,
        BASKETRUN,
        seed=2372,
    )
    inc.doc(
        "shopper-api SLO",
        """Latency SLO: 99% of requests under 800 ms over 28 days. Weekday afternoons (13:00-17:00) are the
picking peak; p95 runs at 200-270 ms then. The alert ShopperApiLatencyHigh (p95 > 250ms, no for:)
was added in April as a trial; see AB-less note in #shopper-ops.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-05-10T13:50"), 9)
    fld = inc.code(
        ts("2027-05-10T14:12"),
        "shopper-api",
        "Merge pull request #7511 from lena.brandt/batch-eta: Batch response includes the store's ETA",
        "src/batches/serialize.ts",
        "  return { id: b.id, items: b.items.map(item) };",
        "  return { id: b.id, items: b.items.map(item), storeEta: b.store.eta };",
        9,
        author="lena.brandt",
    )
    fldd = inc.deploy(ts("2027-05-10T14:33"), "shopper-api")
    sl = inc.code(
        ts("2027-05-10T14:30"),
        "slot-service",
        "Merge pull request #7513 from priya-r/zone-cache: Warm the zone cache on start",
        "src/main.rs",
        "    let zones = ZoneIndex::load(&pool).await?;",
        "    let zones = ZoneIndex::load(&pool).await?;\n    zones.warm();",
        40,
        author="priya-r",
    )
    sld = inc.deploy(ts("2027-05-10T14:52"), "slot-service")
    onset = ts("2027-05-10T15:08")

    def p95(t: datetime) -> float:
        base = 170 + 75 * max(0.0, 1 - abs((t - ts("2027-05-10T15:00")).total_seconds()) / 10800)
        return base

    inc.metric(
        "http_server_request_duration_seconds_p95",
        "shopper-api",
        lambda t: p95(t) / 1000,
        labels={"service": "shopper-api"},
        jitter=0.06,
        digits=3,
    )
    inc.metric(
        "http_server_request_duration_seconds_p95_last_week",
        "shopper-api",
        lambda t: p95(t) / 1000,
        labels={"service": "shopper-api", "offset": "7d"},
        jitter=0.06,
        digits=3,
    )
    inc.metric(
        "ALERTS_transitions_total",
        "shopper-api",
        _counter(lambda t: 0.0 if t < ts("2027-05-10T12:40") else 22 / (160 * 60), inc.begin),
        labels={"alertname": "ShopperApiLatencyHigh"},
        jitter=0.0,
        digits=0,
    )
    for i, t in enumerate(
        [
            ts("2027-05-10T13:02"),
            ts("2027-05-10T13:40"),
            ts("2027-05-10T14:21"),
            ts("2027-05-10T14:47"),
        ]
    ):
        inc.log(
            t,
            "shopper-api",
            "WARNING",
            f"slow request GET /shopper/batches took {1500 + 311 * i}ms",
        )
    inc.log(
        ts("2027-05-10T14:05"),
        "shopper-api",
        "ERROR",
        "scan upload for item 88120 failed: client closed request (499)",
    )
    inc.fleet(shopper_api={"p99": lambda t, v: v + 0.3 * (p95(t) - 170)})
    inc.alert = alerts.alertmanager(
        "ShopperApiLatencyHigh",
        "shopper-api",
        ts("2027-05-10T15:08"),
        "warning",
        "ShopperApiLatencyHigh: p95 > 250ms",
        "shopper-api p95 latency is 254ms.",
        'histogram_quantile(0.95, sum by (le) (rate(http_server_request_duration_seconds_bucket{service="shopper-api"}[2m]))) > 0.25',
        team="shopper",
    )
    inc.healthy(
        "shopper-api",
        "noisy threshold: p95 at its usual afternoon peak (~215-265 ms, same as last week) around a 250 ms threshold with no for: duration",
        [fld, fldd, sl, sld],
        onset,
    )
    return inc


TUNE = [
    xt01_dispatch_routing_timeout,
    xt02_ingest_null_geofence,
    xt03_mapgrid_status_notice,
    xt04_fleetdb_replica_iops,
    xt05_commons_retry_budget,
    xt06_harbor_mtls_expired,
    xt07_kyc_latency_noisy,
    xt08_ledger_config_rename,
    xt09_season_launch_surge,
    xt10_leaderboard_ttl,
    xt11_node_memory_pressure,
    xt12_poison_mezzanine,
    xt13_license_recovered,
    xt14_catalog_row_query,
    xt15_visit_pool_values,
    xt16_rxlink_unavailable,
    xt17_search_disk_free,
    xt18_hl7_date_format,
    xt19_node_not_ready,
    xt20_ndc_slice_bundle,
    xt21_reminders_steady,
    xt22_forecast_oomkilled,
    xt23_storm_reconnect_surge,
    xt24_tariff_flag_decimal,
    xt25_common_idle_conns,
    xt26_ocpp_own_cert,
    xt27_ingest_canceled_none,
    xt28_grader_memory_limit,
    xt29_learndb_connection_slots,
    xt30_idhub_timeouts,
    xt31_quiz_nil_map,
    xt32_report_exit_none,
    xt33_kyc_retry_429,
    xt34_manifest_field_rename,
    xt35_lobby_buffer_leak,
    xt36_zone_packet_loss,
    xt37_bar_cache_ttl,
    xt38_ari_batch_unnamed,
    xt39_resv_pool_config,
    xt40_quillpay_outage,
    xt41_session_redis_maxmemory,
    xt42_night_audit_recovered,
    xt43_valve_fanout_flag,
    xt44_battery_omitempty,
    xt45_field_lookup_query,
    xt46_node_nic_flap,
    xt47_boundary_poison_job,
    xt48_weather_gaps_none,
    xt49_fare_cap_unnamed_release,
    xt50_gtfs_rt_horizon_config,
    xt51_transit_kit_after_midnight,
    xt52_northgate_rc91_notice,
    xt53_public_api_cert_expired,
    xt54_pass_expired_declines,
    xt55_plan_order_row_lock,
    xt56_smpp_window_config,
    xt57_tariff_cache_leak,
    xt58_roaming_cdr_poison,
    xt59_double_data_surge,
    xt60_node_upgrade_lag_stale,
    xt61_store_pick_empty,
    xt62_intake_workers_helm,
    xt63_line_items_index_migration,
    xt64_payout_excess_unnamed,
    xt65_br_geo_outward_code,
    xt66_fraud_features_n_plus_one,
    xt67_nimbus_blob_regional,
    xt68_sync_vm_inodes,
    xt69_bordereau_date_format,
    xt70_snow_day_surge,
    xt71_failover_recovered,
    xt72_shopper_p95_flapping,
]
