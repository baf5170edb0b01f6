"""HELD-OUT split of the outside-vocabulary incidents (`evals/rca/heldout_ext/`).

Written before any tuning on these sets and only ever scored: do not open this module (or the
JSON files it writes) while tuning the engine. Four companies (`companies.py`)."""

from __future__ import annotations

from datetime import datetime

from evals.rca import alerts
from evals.rca.ext.base import (
    MINUTE,
    ExtIncident,
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
from evals.rca.ext.companies import BRAMBLEWOOD, CORVID, FERNBANK, TIDEWATER
from evals.rca.kit import ts

# --- Tidewater Freight ---------------------------------------------------------------------------


def xh01_yard_pool_size() -> ExtIncident:
    now = ts("2026-09-24T17:30")
    inc = ExtIncident(
        "xh01-yard-pool-size",
        "yard-svc request latency p95 above 1s",
        """A yard-svc commit "right-sizing" database connections cut the SQLAlchemy pool from 20
        to 4 (the author read the idle count on a quiet Sunday). At the afternoon shift change
        yard moves double and requests queue for a connection: latency climbs, a handful of
        QueuePool timeouts, pool usage pinned at 4/4. Around it: a dispatch-api deploy naming
        "yard" and "dock door" in its summary, a shipper-portal deploy, an alert-rule change.""",
        now,
        TIDEWATER,
        seed=3401,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-09-24T13:00"), 9)
    guilty = inc.code(
        ts("2026-09-24T13:12"),
        "yard-svc",
        "perf(yard): right-size yarddb connection pool",
        "yard/db.py",
        "engine = create_async_engine(\n    settings.yarddb_url,\n    pool_size=20,\n    max_overflow=5,\n    pool_timeout=10,\n)",
        "engine = create_async_engine(\n    settings.yarddb_url,\n    pool_size=4,  # we never use more than 3 (Grafana, Sunday)\n    max_overflow=0,\n    pool_timeout=10,\n)",
        14,
        author="oyelaran",
    )
    gd = inc.deploy(ts("2026-09-24T13:40"), "yard-svc")
    dc = inc.code(
        ts("2026-09-24T15:35"),
        "dispatch-api",
        "feat(dispatch): send yard dock door with tender",
        "internal/tender/edi204.go",
        "\tseg.N1 = load.Shipper",
        "\tseg.N1 = load.Shipper\n\tseg.N9 = load.DockDoor // yard dock door",
        120,
    )
    dd = inc.deploy(ts("2026-09-24T15:52"), "dispatch-api")
    pc = inc.code(
        ts("2026-09-24T15:41"),
        "shipper-portal",
        "feat(portal): dock door on pickup page",
        "app/pickup/Door.tsx",
        "<Door id={p.door} />",
        "<Door id={p.door} yard={p.yard} />",
        12,
    )
    pd = inc.deploy(ts("2026-09-24T16:04"), "shipper-portal")
    rule = inc.config(
        ts("2026-09-24T16:02"),
        "yard-svc",
        "alerts: yard-svc latency p95 threshold 800ms -> 1s",
        "ops/alerts/yard-svc.yaml",
        "  expr: yard_p95_seconds > 0.8",
        "  expr: yard_p95_seconds > 1.0",
        line=7,
    )
    onset = ts("2026-09-24T16:00")
    inc.errors(
        "yard-svc",
        onset + 12 * MINUTE,
        now,
        0.15,
        "QueuePool limit of size 4 overflow 0 reached, connection timed out, timeout 10.00",
        exc_info=py_stack(
            "sqlalchemy.exc.TimeoutError",
            "QueuePool limit of size 4 overflow 0 reached, connection timed out, timeout 10.00",
            [
                ("/app/yard/api/moves.py", 58, "create_move", "async with db.session() as s:"),
                ("/app/yard/db.py", 31, "session", "conn = await engine.connect()"),
            ],
        ),
    )
    shipped = ts("2026-09-24T13:40")
    inc.metric(
        "db_pool_connections_in_use",
        "yard-svc",
        lambda t: 4 if t >= onset else (3 if t >= shipped else 6),
        labels={"pool": "yarddb"},
        digits=0,
        jitter=0.0,
    )
    inc.metric("db_pool_wait_seconds_p95", "yard-svc", step(onset, 0.002, 2.4), digits=3)
    inc.fleet(yard_svc={"rps": times(step(onset, 1, 2.1)), "p99": floor(step(onset, 0, 2600))})
    inc.alert = alerts.alertmanager(
        "YardLatencyHigh",
        "yard-svc",
        ts("2026-09-24T16:41"),
        "warning",
        "yard-svc request latency p95 above 1s",
        "p95 is 2.3s over 10m.",
        "yard_p95_seconds > 1.0",
        team="yard",
    )
    inc.blame(guilty, [gd], "yard-svc", "code_defect", [dc, dd, pc, pd, rule], onset)
    return inc


def xh02_coredns_failure() -> ExtIncident:
    now = ts("2026-09-27T09:10")
    inc = ExtIncident(
        "xh02-coredns-failure",
        "carrier-gateway EDI send failures above 5%",
        """CoreDNS in the prod cluster lost two of three replicas to OOM kills after an upstream
        resolver slowed down; lookups from every pod started failing intermittently with
        "server misbehaving" at 08:14. carrier-gateway, which resolves each carrier's AS2
        host per send, alerted first; dispatch-api and route-planner logged a few lookup
        errors too. A carrier-gateway deploy at 08:05 added logging around AS2 host lookups,
        the word-for-word decoy.""",
        now,
        TIDEWATER,
        seed=3402,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-09-27T07:30"), 9)
    c = inc.code(
        ts("2026-09-27T07:44"),
        "carrier-gateway",
        "feat(partners): log AS2 host lookup duration",
        "internal/as2/dial.go",
        '\taddr, err := net.ResolveTCPAddr("tcp", host)',
        '\tstart := time.Now()\n\taddr, err := net.ResolveTCPAddr("tcp", host)\n\tlog.Debug("as2 lookup", "host", host, "took", time.Since(start))',
        33,
    )
    d = inc.deploy(ts("2026-09-27T08:05"), "carrier-gateway")
    f = inc.flag(
        ts("2026-09-27T08:20"),
        "dispatch-api",
        "dispatch.auto_tender_backup_carrier",
        "enabled: false",
        "enabled: true",
        "Auto-tender to backup carrier after 2 rejects",
    )
    onset = ts("2026-09-27T08:14")
    hosts = [
        "as2.redway.example",
        "edi.prairieline.example",
        "as2.coastal.example",
        "b2b.ozark.example",
    ]
    inc.errors(
        "carrier-gateway",
        onset,
        now,
        2.0,
        lambda r: (
            f"AS2 send failed: dial tcp: lookup {r.choice(hosts)} on 172.20.0.10:53: server misbehaving"
        ),
        stack=go_stack(
            "dial tcp: lookup as2.redway.example on 172.20.0.10:53: server misbehaving",
            [
                (
                    "github.com/tidewater/carrier-gateway/internal/as2.Dial",
                    "/src/carrier-gateway/internal/as2/dial.go",
                    35,
                )
            ],
        ),
    )
    inc.errors(
        "dispatch-api",
        onset + 3 * MINUTE,
        now,
        0.3,
        "lookup route-planner.routing.svc.cluster.local on 172.20.0.10:53: server misbehaving",
    )
    inc.errors(
        "route-planner",
        onset + 5 * MINUTE,
        now,
        0.2,
        "java.net.UnknownHostException: api.mapgrid.example: Temporary failure in name resolution",
    )
    for k, minute in enumerate((0, 2, 6)):
        inc.log(
            onset + minute * MINUTE - MINUTE,
            "k8s-events",
            "WARNING",
            f"Container coredns in pod coredns-5d78c9869d-{'abc'[k]}x{k}q9 was OOMKilled (exit code 137)",
            reason="OOMKilling",
            namespace="kube-system",
        )
    inc.metric("coredns_dns_request_duration_p99_ms", "coredns", step(onset, 4, 2100), digits=0)
    inc.metric(
        "coredns_dns_responses_servfail_per_second", "coredns", step(onset, 0.01, 35), digits=2
    )
    inc.metric(
        "kube_deployment_status_replicas_available",
        "coredns",
        step(onset, 3, 1),
        digits=0,
        jitter=0,
    )
    inc.fleet(
        carrier_gateway={"err": add(step(onset, 0, 0.22))},
        dispatch_api={"err": add(step(onset, 0, 0.01))},
    )
    inc.alert = alerts.alertmanager(
        "EdiSendFailures",
        "carrier-gateway",
        ts("2026-09-27T08:31"),
        "critical",
        "carrier-gateway EDI send failures above 5%",
        "22% of AS2 sends failed over 10m.",
        'edi_send_failure_ratio{service="carrier-gateway"} > 0.05',
        team="partners",
    )
    inc.outside(
        "cluster DNS (CoreDNS) failing: OOM-killed replicas",
        "coredns",
        "infrastructure",
        [c, d, f],
        onset,
    )
    return inc


def xh03_kafka_disk_full() -> ExtIncident:
    now = ts("2026-10-01T06:20")
    inc = ExtIncident(
        "xh03-kafka-disk-full",
        "tw-kafka broker kafka-2 disk above 85%",
        """Broker kafka-2's 2 TB volume filled up: a partner replay pushed a week of EDI 214
        history into partners.status overnight and the topic keeps 7 days. At 95% the broker
        started refusing appends for its leader partitions; producers logged a few
        NOT_ENOUGH_REPLICAS warnings, nothing else errored. A retention config change on
        eta.requests and a tracking-ingest deploy are nearby, neither related.""",
        now,
        TIDEWATER,
        seed=3403,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-01T04:00"), 8)
    cfg = inc.config(
        ts("2026-10-01T04:30"),
        "tw-kafka",
        "kafka: eta.requests retention 7d -> 3d",
        "kafka/topics/eta.requests.yaml",
        "config:\n  retention.ms: 604800000",
        "config:\n  retention.ms: 259200000",
        line=4,
    )
    c = inc.code(
        ts("2026-10-01T04:41"),
        "tracking-ingest",
        "perf(telematics): larger producer batches (linger.ms 5 -> 20)",
        "src/main/resources/application.yml",
        "    linger.ms: 5",
        "    linger.ms: 20",
        48,
    )
    d = inc.deploy(ts("2026-10-01T05:02"), "tracking-ingest")
    onset = ts("2026-10-01T05:10")
    inc.errors(
        "carrier-gateway",
        onset + 15 * MINUTE,
        now,
        0.2,
        "produce to partners.status failed: NOT_ENOUGH_REPLICAS, retrying",
        level="WARNING",
    )
    inc.errors(
        "tracking-ingest",
        onset + 20 * MINUTE,
        now,
        0.1,
        "produce to telemetry.positions: NOT_ENOUGH_REPLICAS_AFTER_APPEND",
        level="WARNING",
    )
    inc.metric(
        "disk_used_percent",
        "tw-kafka",
        ramp(ts("2026-10-01T00:30"), ts("2026-10-01T05:50"), 61, 96),
        labels={"broker": "kafka-2"},
        jitter=0.005,
        digits=1,
    )
    inc.metric(
        "disk_used_percent",
        "tw-kafka",
        lambda t: 58,
        labels={"broker": "kafka-0"},
        jitter=0.01,
        digits=1,
    )
    inc.metric(
        "disk_used_percent",
        "tw-kafka",
        lambda t: 60,
        labels={"broker": "kafka-1"},
        jitter=0.01,
        digits=1,
    )
    inc.metric(
        "kafka_topic_bytes_in_per_second",
        "tw-kafka",
        step(ts("2026-10-01T00:30"), 2.1e6, 9.8e7, ts("2026-10-01T05:40")),
        labels={"topic": "partners.status"},
        digits=0,
    )
    inc.metric(
        "kafka_under_replicated_partitions", "tw-kafka", step(onset, 0, 14), digits=0, jitter=0
    )
    inc.fleet()
    inc.alert = alerts.alertmanager(
        "KafkaDiskHigh",
        "tw-kafka",
        ts("2026-10-01T05:12"),
        "critical",
        "tw-kafka broker kafka-2 disk above 85%",
        "kafka-2 data volume 95.1% used.",
        'disk_used_percent{broker="kafka-2"} > 85',
        team="platform",
    )
    inc.outside(
        "kafka-2 volume full (partners.status replay, 7-day retention)",
        "tw-kafka",
        "resource_exhaustion",
        [cfg, c, d],
        onset,
    )
    return inc


def xh04_gokit_retry_storm() -> ExtIncident:
    now = ts("2026-10-03T14:40")
    inc = ExtIncident(
        "xh04-gokit-retry-storm",
        "route-planner saturated: request rate 4x normal",
        """tw-go-kit v1.19.0 changed its HTTP retry default from 3 attempts with exponential
        backoff to 10 attempts with no delay (a refactor of retry.Policy). dispatch-api picked
        it up in its 13:20 deploy (ships names only dispatch-api's own commit); when
        route-planner slowed slightly at 13:55 dispatch-api's retries multiplied its traffic
        and route-planner saturated. carrier-gateway deployed with the same library at 12:50
        but retries only on idempotent EDI polls. A route-planner deploy at 13:48 sits just
        before the onset.""",
        now,
        TIDEWATER,
        seed=3404,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-03T11:40"), 10)
    lib = inc.code(
        ts("2026-10-03T11:58"),
        "tw-go-kit",
        "refactor(retry): simplify retry.Policy defaults",
        "retry/policy.go",
        "func Default() Policy {\n\treturn Policy{MaxAttempts: 3, Backoff: Exponential(100*time.Millisecond, 2*time.Second)}\n}",
        "func Default() Policy {\n\treturn Policy{MaxAttempts: 10}\n}",
        18,
        author="s.haddad",
    )
    cg = inc.code(
        ts("2026-10-03T12:20"),
        "carrier-gateway",
        "chore(deps): tw-go-kit v1.19.0",
        "go.mod",
        "\tgithub.com/tidewater/tw-go-kit v1.18.2",
        "\tgithub.com/tidewater/tw-go-kit v1.19.0",
        9,
    )
    cgd = inc.deploy(ts("2026-10-03T12:50"), "carrier-gateway")
    own = inc.code(
        ts("2026-10-03T12:58"),
        "dispatch-api",
        "feat(dispatch): hazmat flag on tender payload",
        "internal/tender/payload.go",
        '\tWeight int `json:"weight"`',
        '\tWeight int  `json:"weight"`\n\tHazmat bool `json:"hazmat"`',
        22,
    )
    dd = inc.deploy(
        ts("2026-10-03T13:20"),
        "dispatch-api",
        summary="Deploy dispatch-api to production (1 commit; built against tw-go-kit main)",
    )
    rc = inc.code(
        ts("2026-10-03T13:25"),
        "route-planner",
        "perf(routing): parallel leg scoring",
        "src/main/java/com/tidewater/routing/LegScorer.java",
        "legs.stream().map(this::score)",
        "legs.parallelStream().map(this::score)",
        51,
    )
    rd = inc.deploy(ts("2026-10-03T13:48"), "route-planner")
    onset = ts("2026-10-03T13:55")
    inc.errors(
        "dispatch-api",
        onset,
        now,
        1.0,
        lambda r: (
            f"plan legs attempt {r.randint(4, 10)}/10 failed: 503 Service Unavailable, retrying immediately"
        ),
        level="WARNING",
        component="tw-go-kit/retry",
    )
    inc.errors(
        "route-planner",
        onset + 4 * MINUTE,
        now,
        1.2,
        "rejected request: executor queue full (200/200)",
        exception="java.util.concurrent.RejectedExecutionException",
    )
    inc.metric(
        "http_client_retries_per_second",
        "dispatch-api",
        step(onset, 0.2, 410),
        labels={"upstream": "route-planner"},
        digits=1,
    )
    inc.fleet(
        route_planner={
            "rps": times(step(onset, 1, 4.2)),
            "err": add(step(onset + 4 * MINUTE, 0, 0.3)),
            "p99": floor(step(onset, 0, 3900)),
        },
        dispatch_api={"err": add(step(onset, 0, 0.04))},
    )
    inc.alert = alerts.alertmanager(
        "RoutePlannerSaturated",
        "route-planner",
        ts("2026-10-03T14:09"),
        "critical",
        "route-planner saturated: request rate 4x normal",
        "request rate 147/s (4.2x the 7-day median).",
        'sum(rate(http_requests_total{service="route-planner"}[5m])) > 4 * median_over_time(...)',
        team="routing",
    )
    inc.blame(lib, [dd], "dispatch-api", "code_defect", [cg, cgd, own, rc, rd], onset)
    return inc


def xh05_yard_backlog_noisy() -> ExtIncident:
    now = ts("2026-10-05T22:20")
    inc = ExtIncident(
        "xh05-yard-backlog-noisy",
        "yard move backlog above 50",
        """Nothing is wrong: at every shift change (06:00, 14:00, 22:00 UTC) the
        yard-move backlog rises above 50 for 10-15 minutes while the new shift's jockeys log in,
        then drains. The monitor fires each time; the backlog is already draining, no errors,
        latency normal. A yard-svc deploy went out 40 minutes before the alert.""",
        now,
        TIDEWATER,
        seed=3405,
        hours=9,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-05T21:30"), 10)
    c = inc.code(
        ts("2026-10-05T21:14"),
        "yard-svc",
        "feat(yard): show jockey name on move card",
        "yard/api/moves.py",
        "    return MoveOut.from_orm(move)",
        "    return MoveOut.from_orm(move, jockey=move.jockey.name)",
        77,
    )
    d = inc.deploy(ts("2026-10-05T21:40"), "yard-svc")
    shift = ts("2026-10-05T22:00")

    def backlog(t: datetime) -> float:
        for h in (ts("2026-10-05T14:00"), ts("2026-10-05T22:00")):
            if h <= t < h + 16 * MINUTE:
                return 58 - 2.5 * (t - h).total_seconds() / 60
        return 12

    inc.metric("yard_move_backlog", "yard-svc", backlog, digits=0, jitter=0.05)
    inc.fleet()
    inc.alert = alerts.alertmanager(
        "YardBacklogHigh",
        "yard-svc",
        shift + 2 * MINUTE,
        "warning",
        "yard move backlog above 50",
        "backlog 57 moves.",
        "yard_move_backlog > 50",
        team="yard",
    )
    inc.healthy(
        "yard-svc",
        "noisy: the backlog rises at every shift change and drains on its own",
        [c, d],
        shift,
    )
    return inc


def xh06_eta_model_configmap() -> ExtIncident:
    now = ts("2026-10-07T10:50")
    inc = ExtIncident(
        "xh06-eta-model-configmap",
        "eta-predictor ready replicas below 2",
        """A ConfigMap change pointed eta-predictor at `/models/eta-v12.onnx`; the image ships
        `eta_v12.onnx`. New pods exit at start with three FATAL lines and CrashLoopBackOff; the
        two old pods keep serving, so ETAs degrade only slowly. An eta-predictor commit
        about "model loading" metrics went out earlier, and a route-planner deploy right before
        the change.""",
        now,
        TIDEWATER,
        seed=3406,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-07T08:50"), 9)
    c = inc.code(
        ts("2026-10-07T09:01"),
        "eta-predictor",
        "feat(eta): export model load time metric",
        "eta/model.py",
        "    session = ort.InferenceSession(path)",
        "    with MODEL_LOAD_SECONDS.time():\n        session = ort.InferenceSession(path)",
        22,
    )
    d = inc.deploy(ts("2026-10-07T09:20"), "eta-predictor")
    rc = inc.code(
        ts("2026-10-07T09:28"),
        "route-planner",
        "fix(routing): skip closed weigh stations",
        "src/main/java/com/tidewater/routing/Stations.java",
        "return all;",
        "return all.stream().filter(Station::open).toList();",
        40,
    )
    rd = inc.deploy(ts("2026-10-07T09:47"), "route-planner")
    cfg = inc.config(
        ts("2026-10-07T09:52"),
        "eta-predictor",
        "eta-predictor: serve model v12",
        "deploy/eta-predictor/configmap.yaml",
        "data:\n  MODEL_PATH: /models/eta_v11.onnx",
        "data:\n  MODEL_PATH: /models/eta-v12.onnx",
        line=6,
    )
    onset = ts("2026-10-07T09:54")
    for k, minute in enumerate((0, 3, 9)):
        inc.log(
            onset + minute * MINUTE,
            "eta-predictor",
            "CRITICAL",
            "FATAL: cannot load model: [ONNXRuntimeError] : 3 : NO_SUCHFILE : Load model from /models/eta-v12.onnx failed. File doesn't exist",
            pod=f"eta-predictor-77d9c-n{k}4",
        )
    for k, minute in enumerate((1, 4, 10, 22)):
        inc.log(
            onset + minute * MINUTE,
            "k8s-events",
            "WARNING",
            f"Back-off restarting failed container eta-predictor in pod eta-predictor-77d9c-n{k % 3}4",
            reason="BackOff",
        )
    inc.metric(
        "kube_deployment_status_replicas_ready",
        "eta-predictor",
        step(onset, 4, 2),
        digits=0,
        jitter=0,
    )
    inc.fleet(eta_predictor={"p99": add(step(onset, 0, 180))})
    inc.alert = alerts.alertmanager(
        "EtaPredictorReplicasLow",
        "eta-predictor",
        ts("2026-10-07T10:24"),
        "warning",
        "eta-predictor ready replicas below 2",
        "2 of 4 replicas ready for 30m.",
        'kube_deployment_status_replicas_ready{deployment="eta-predictor"} < 3',
        team="data",
    )
    inc.blame(cfg, [], "eta-predictor", "configuration_error", [c, d, rc, rd], onset)
    return inc


def xh07_portal_unexplained() -> ExtIncident:
    now = ts("2026-10-09T14:58")
    inc = ExtIncident(
        "xh07-portal-unexplained",
        "shipper-portal 5xx ratio above 3%",
        """shipper-portal has returned 502s since 14:31; its logs say only "upstream
        closed connection" towards the edge proxy and no other service, metric or change shows
        anything. No deploy of the portal that day; a dispatch-api deploy and a yard-svc commit
        nearby are unrelated. The data does not contain the cause (the edge proxy's logs were
        not sent).""",
        now,
        TIDEWATER,
        seed=3407,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-09T13:40"), 9)
    c = inc.code(
        ts("2026-10-09T13:52"),
        "dispatch-api",
        "fix(dispatch): correct HOS reset after 34h restart",
        "internal/hos/reset.go",
        "\tif off >= 34*time.Hour-time.Minute {",
        "\tif off >= 34*time.Hour {",
        61,
    )
    d = inc.deploy(ts("2026-10-09T14:12"), "dispatch-api")
    y = inc.code(
        ts("2026-10-09T14:20"),
        "yard-svc",
        "test(yard): door conflict cases",
        "tests/test_doors.py",
        "def test_conflict():\n    pass",
        "def test_conflict(client):\n    assert client.post('/yards/1/doors', json={}).status_code == 422",
        10,
    )
    onset, end = ts("2026-10-09T14:31"), now
    inc.errors(
        "shipper-portal",
        onset,
        end,
        2.0,
        "GET /shipments 502: upstream closed connection before sending response headers",
    )
    inc.fleet(shipper_portal={"err": add(step(onset, 0, 0.08))})
    inc.alert = alerts.alertmanager(
        "PortalErrorRatio",
        "shipper-portal",
        ts("2026-10-09T14:40"),
        "warning",
        "shipper-portal 5xx ratio above 3%",
        "5xx ratio 8% over 5m.",
        "portal_5xx_ratio > 0.03",
        team="dispatch",
    )
    inc.unexplained("shipper-portal", [c, d, y], onset)
    return inc


def xh08_trakline_status() -> ExtIncident:
    now = ts("2026-10-11T17:00")
    inc = ExtIncident(
        "xh08-trakline-status",
        "telemetry pings per second below 200",
        """Trakline, the ELD vendor whose webhooks deliver most trucks' pings, had a delivery
        outage (status notice dated 2026-10-11T15:42:00Z): ping volume into telemetry.pings
        fell by two thirds from 15:38 and positions went stale. Nothing errored in
        tracking-ingest; it simply received less. A tracking-ingest deploy at 15:20 changed
        the Trakline webhook signature check's logging, the surface-word decoy.""",
        now,
        TIDEWATER,
        seed=3408,
    )
    inc.doc(
        "Trakline status: Webhook delivery delays",
        """Trakline Status - status.trakline.example
Webhook delivery delays (all regions)
2026-10-11T15:42:00Z Investigating - Webhook deliveries of ELD position events are delayed. Data is queued and will be delivered.
2026-10-11T16:30:00Z Identified - A message broker in our ingestion tier is unhealthy; failover in progress.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-11T14:40"), 9)
    c = inc.code(
        ts("2026-10-11T14:55"),
        "tracking-ingest",
        "feat(telematics): log Trakline webhook signature failures with key id",
        "src/main/java/com/tidewater/telematics/TraklineWebhook.java",
        "        if (!signer.verify(body, sig)) return Response.status(401).build();",
        '        if (!signer.verify(body, sig)) {\n            log.warn("trakline signature invalid (kid={})", sig.keyId());\n            return Response.status(401).build();\n        }',
        39,
    )
    d = inc.deploy(ts("2026-10-11T15:20"), "tracking-ingest")
    e = inc.code(
        ts("2026-10-11T15:47"),
        "eta-predictor",
        "fix(eta): widen stale-position window to 20m",
        "eta/inputs.py",
        "STALE_AFTER = timedelta(minutes=15)",
        "STALE_AFTER = timedelta(minutes=20)",
        12,
    )
    ed = inc.deploy(ts("2026-10-11T16:02"), "eta-predictor")
    onset = ts("2026-10-11T15:38")
    inc.errors(
        "eta-predictor",
        onset + 16 * MINUTE,
        now,
        0.4,
        lambda r: (
            f"eta skipped for load L-{r.randint(400000, 499999)}: last position older than 15m"
        ),
        level="WARNING",
    )
    inc.metric(
        "webhook_events_received_per_second",
        "tracking-ingest",
        step(onset, 410, 130),
        labels={"source": "trakline"},
        digits=0,
    )
    inc.metric(
        "webhook_events_received_per_second",
        "tracking-ingest",
        lambda t: 60,
        labels={"source": "samsara-bridge"},
        digits=0,
    )
    inc.fleet(tracking_ingest={"rps": times(step(onset, 1, 0.38))})
    inc.alert = alerts.alertmanager(
        "TelemetryPingsLow",
        "tracking-ingest",
        ts("2026-10-11T15:58"),
        "warning",
        "telemetry pings per second below 200",
        "142 pings/s (7-day median 470).",
        "sum(rate(pings_total[5m])) < 200",
        team="telematics",
    )
    inc.outside(
        "Trakline webhook delivery outage (status notice 2026-10-11T15:42:00Z)",
        "tracking-ingest",
        "dependency_failure",
        [c, d, e, ed],
        onset,
    )
    return inc


# --- Fernbank Pay ------------------------------------------------------------------------------


def xh09_mcc_null_check() -> ExtIncident:
    now = ts("2026-10-15T13:00")
    inc = ExtIncident(
        "xh09-mcc-null-check",
        "card-auth decline rate (rc=96 system error) above 0.5%",
        """A card-auth commit inlined the merchant-category lookup and dropped the fallback for
        authorizations without field 18 (MCC), which some fuel-pump and transit terminals
        omit. Those authorizations throw a NullPointerException in
        MerchantCategoryResolver.resolve and are declined with rc=96. The card-auth deploy at
        11:15 shipped it with a BIN-table change; a later card-auth deploy that only reworded
        authorization log lines, and a risk-engine flag, are the decoys.""",
        now,
        FERNBANK,
        seed=3409,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-15T10:30"), 9)
    guilty = inc.code(
        ts("2026-10-15T10:41"),
        "card-auth",
        "CARD-1931 Inline MCC lookup in resolver",
        "src/main/kotlin/com/fernbank/cards/MerchantCategoryResolver.kt",
        "    fun resolve(msg: IsoMessage): MerchantCategory {\n        val mcc = msg.field(18) ?: return MerchantCategory.UNKNOWN\n        return table.lookup(mcc)\n    }",
        "    fun resolve(msg: IsoMessage): MerchantCategory {\n        val mcc = msg.field(18)!!\n        return table.lookup(mcc)\n    }",
        27,
        author="r.nakamura",
    )
    bin_ = inc.code(
        ts("2026-10-15T10:52"),
        "card-auth",
        "CARD-1934 Refresh BIN table (October)",
        "src/main/resources/bins.csv",
        "535522,DEBIT,GB",
        "535522,DEBIT,GB\n535523,PREPAID,GB",
        4410,
    )
    gd = inc.deploy(ts("2026-10-15T11:15"), "card-auth")
    onset = ts("2026-10-15T11:17")
    dc = inc.code(
        ts("2026-10-15T11:40"),
        "card-auth",
        "CARD-1937 Clearer authorization decline log lines",
        "src/main/kotlin/com/fernbank/cards/AuthorizationHandler.kt",
        '        log.info("auth {} rc={}", stan, rc)',
        '        log.info("authorization declined stan={} rc={} reason={}", stan, rc, reason)',
        88,
    )
    dd = inc.deploy(ts("2026-10-15T12:02"), "card-auth")
    f = inc.flag(
        ts("2026-10-15T11:50"),
        "card-auth",
        "risk.velocity_v2_shadow",
        "enabled: false",
        "enabled: true",
        "Shadow-run velocity v2 on authorizations",
    )
    stack = java_stack(
        "java.lang.NullPointerException",
        "null cannot be cast to non-null type kotlin.String",
        [
            (
                "com.fernbank.cards.MerchantCategoryResolver.resolve",
                "MerchantCategoryResolver.kt",
                29,
            ),
            ("com.fernbank.cards.AuthorizationHandler.authorize", "AuthorizationHandler.kt", 61),
            ("com.fernbank.cards.iso.IsoServer.dispatch", "IsoServer.kt", 140),
        ],
    )
    inc.errors(
        "card-auth",
        onset,
        now,
        1.2,
        lambda r: f"authorization failed stan={r.randint(100000, 999999)} rc=96 (system error)",
        exception="java.lang.NullPointerException",
        stack_trace=stack,
        terminal_type="fuel",
    )
    inc.metric(
        "authorization_decline_ratio",
        "card-auth",
        step(onset, 0.001, 0.011),
        labels={"rc": "96"},
        jitter=0.1,
        digits=4,
    )
    inc.fleet(card_auth={"err": add(step(onset, 0, 0.01))})
    inc.alert = alerts.datadog(
        "card-auth decline rate (rc=96 system error) above 0.5%",
        "card-auth",
        ts("2026-10-15T12:10"),
        "critical",
        "sum:cards.authorizations.declined{rc:96}.as_rate() / sum:cards.authorizations{*}.as_rate()",
        0.011,
        0.005,
        ["team:cards"],
    )
    inc.blame(guilty, [gd], "card-auth", "code_defect", [bin_, dc, dd, f], onset)
    return inc


def xh10_payday_surge() -> ExtIncident:
    now = ts("2026-10-01T00:40")
    inc = ExtIncident(
        "xh10-payday-surge",
        "ledger-svc HikariCP pool usage above 90%",
        """Salaries landed at 00:00 UTC on the 1st (payday calendar in the knowledge base):
        three times the usual logins and balance checks through app-bff, and ledger-svc's 40
        connections have been in use since. A few pool timeouts, slower balances. No change
        caused it; an app-bff deploy at 23:40 (home screen balance
        widget) and a ledger-svc config change to statement batch size are nearby.""",
        now,
        FERNBANK,
        seed=3410,
        hours=6,
    )
    inc.doc(
        "Payday and peak calendar",
        """| Date | What | Expected load |
|---|---|---|
| 1st of each month, 00:00 UTC | salary credits for most UK customers | 3x logins and balance checks for ~45 minutes |
| last Friday of the month | card spend peak | 1.6x authorizations |
| 2026-11-27 | Black Friday | 2.5x authorizations |""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-09-30T23:00"), 9)
    c = inc.code(
        ts("2026-09-30T23:12"),
        "app-bff",
        "MOB-771 Balance widget on home screen",
        "src/screens/home.ts",
        "  return { cards, activity };",
        "  const balance = await ledger.balance(user.account);\n  return { cards, activity, balance };",
        40,
    )
    d = inc.deploy(ts("2026-09-30T23:40"), "app-bff")
    cfg = inc.config(
        ts("2026-09-30T23:50"),
        "statement-svc",
        "statement-svc: batch size 500 -> 800",
        "statement-svc/values-prod.yaml",
        "batch_size: 500",
        "batch_size: 800",
        line=11,
    )
    onset = ts("2026-10-01T00:00")
    surge = step(onset, 1, 3.0, ts("2026-10-01T00:48"))
    inc.errors(
        "ledger-svc",
        onset + 6 * MINUTE,
        now,
        0.4,
        "HikariPool-1 - Connection is not available, request timed out after 3000ms.",
        exception="java.sql.SQLTransientConnectionException",
    )
    inc.metric(
        "hikaricp_connections_active",
        "ledger-svc",
        lambda t: 40 if surge(t) > 1 else 11,
        labels={"pool": "HikariPool-1"},
        digits=0,
        jitter=0.02,
    )
    inc.metric("logins_per_second", "app-bff", lambda t: 35 * surge(t), digits=1)
    inc.fleet(
        app_bff={"rps": times(surge)},
        ledger_svc={"rps": times(surge), "p99": floor(lambda t: 900 if surge(t) > 1 else 0)},
    )
    inc.alert = alerts.datadog(
        "ledger-svc HikariCP pool usage above 90%",
        "ledger-svc",
        ts("2026-10-01T00:09"),
        "warning",
        "avg:hikaricp.connections.active{service:ledger-svc} / avg:hikaricp.connections.max{service:ledger-svc}",
        1.0,
        0.9,
        ["team:ledger"],
    )
    inc.outside(
        "payday traffic surge (salary credits at 00:00 UTC, 3x logins)",
        "ledger-svc",
        "resource_exhaustion",
        [c, d, cfg],
        onset,
    )
    return inc


def xh11_replica_ebs_degraded() -> ExtIncident:
    now = ts("2026-10-18T11:40")
    inc = ExtIncident(
        "xh11-replica-ebs-degraded",
        "ledger-db-b replication lag above 60s",
        """The EBS volume under the read replica ledger-db-b was degraded by the cloud provider
        (scheduled-event notice in the knowledge base, 2026-10-18T10:05:00Z): write latency
        on the replica rose tenfold, WAL replay fell behind and statement-svc served balances
        up to 15 minutes old. No errors; a few "stale read" warnings. A statement-svc deploy
        and a ledger-svc index migration are nearby; the migration ran on the primary.""",
        now,
        FERNBANK,
        seed=3411,
    )
    inc.doc(
        "AWS Health: EBS volume degraded (ledger-db-b)",
        """AWS Health event - EBS volume performance degraded
Resource: vol-0b7c1e9f2a4d61e55 (ledger-db-b data volume), eu-west-2a
Start time: 2026-10-18T10:05:00Z
Description: We have detected degraded performance on one of your EBS volumes. I/O latency may be elevated. We recommend replacing the volume from a snapshot.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-18T09:20"), 9)
    m = inc.code(
        ts("2026-10-18T09:31"),
        "ledger-svc",
        "LEDG-2466 Index postings(account_id, booked_at)",
        "src/main/resources/db/migration/V212__postings_account_booked.sql",
        "-- none",
        "CREATE INDEX CONCURRENTLY postings_account_booked ON postings (account_id, booked_at);",
        1,
    )
    md = inc.deploy(ts("2026-10-18T09:52"), "ledger-svc")
    s = inc.code(
        ts("2026-10-18T09:58"),
        "statement-svc",
        "LEDG-2470 Include pending holds in activity export",
        "statements/export.py",
        "rows = postings(account)",
        "rows = postings(account) + holds(account)",
        55,
    )
    sd = inc.deploy(ts("2026-10-18T10:20"), "statement-svc")
    onset = ts("2026-10-18T10:05")
    inc.errors(
        "statement-svc",
        onset + 30 * MINUTE,
        now,
        0.15,
        lambda r: (
            f"stale read for account A-{r.randint(10000, 99999)}: replica lag {r.randint(200, 900)}s > 60s, serving anyway"
        ),
        level="WARNING",
    )
    inc.metric(
        "pg_replication_lag_seconds",
        "ledger-db",
        ramp(onset, now, 0.3, 980),
        labels={"instance": "ledger-db-b"},
        digits=1,
    )
    inc.metric(
        "disk_write_latency_ms",
        "ledger-db",
        step(onset, 1.1, 14.5),
        labels={"instance": "ledger-db-b"},
        digits=1,
    )
    inc.metric(
        "disk_write_latency_ms",
        "ledger-db",
        lambda t: 1.0,
        labels={"instance": "ledger-db-a"},
        digits=1,
    )
    inc.fleet()
    inc.alert = alerts.datadog(
        "ledger-db-b replication lag above 60s",
        "ledger-db",
        ts("2026-10-18T10:31"),
        "warning",
        "max:postgresql.replication_delay{host:ledger-db-b}",
        212,
        60,
        ["team:ledger"],
    )
    inc.outside(
        "EBS volume of ledger-db-b degraded (provider event 2026-10-18T10:05:00Z)",
        "ledger-db",
        "infrastructure",
        [m, md, s, sd],
        onset,
    )
    return inc


def xh12_fx_ttl_nanoseconds() -> ExtIncident:
    now = ts("2026-10-21T16:00")
    inc = ExtIncident(
        "xh12-fx-ttl-nanoseconds",
        "fx-rates quote errors above 2%",
        """An fx-rates commit made the quote cache TTL configurable and wrote
        `time.Duration(cfg.QuoteTTLSeconds)`, i.e. 60 nanoseconds: every quote went to the rate
        feed, which throttled fx-rates with 429s. The commit is not named in any ships list:
        the 14:30 deploy listed only a logging commit but was built from main after it. An
        app-bff deploy that "refreshes FX quotes more often" and a treasury flag are decoys.""",
        now,
        FERNBANK,
        seed=3412,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-21T13:30"), 9)
    guilty = inc.code(
        ts("2026-10-21T13:44"),
        "fx-rates",
        "PLAT-2290 Configurable quote cache TTL",
        "internal/quotes/cache.go",
        "const quoteTTL = 60 * time.Second\n\nfunc (c *Cache) Get(pair string) (Quote, error) {\n\treturn c.lru.GetOrLoad(pair, quoteTTL, c.feed.Fetch)\n}",
        "func (c *Cache) Get(pair string) (Quote, error) {\n\tttl := time.Duration(c.cfg.QuoteTTLSeconds)\n\treturn c.lru.GetOrLoad(pair, ttl, c.feed.Fetch)\n}",
        14,
        author="gabriela.s",
    )
    logc = inc.code(
        ts("2026-10-21T14:05"),
        "fx-rates",
        "PLAT-2293 Log feed latency per pair",
        "internal/feed/client.go",
        "\tresp, err := c.http.Do(req)",
        '\tstart := time.Now()\n\tresp, err := c.http.Do(req)\n\tc.log.Debug("feed", "pair", pair, "ms", time.Since(start).Milliseconds())',
        57,
    )
    gd = inc.deploy(
        ts("2026-10-21T14:30"),
        "fx-rates",
        ships=[logc],
        summary="Deploy fx-rates to production (1 commit: feed latency logging)",
    )
    onset = ts("2026-10-21T14:32")
    b = inc.code(
        ts("2026-10-21T14:40"),
        "app-bff",
        "MOB-780 Refresh FX quotes every 15s on the exchange screen",
        "src/screens/exchange.ts",
        "const REFRESH_MS = 30_000;",
        "const REFRESH_MS = 15_000;",
        8,
    )
    bd = inc.deploy(ts("2026-10-21T14:58"), "app-bff")
    f = inc.flag(
        ts("2026-10-21T15:05"),
        "fx-rates",
        "treasury.spread_eur_gbp",
        "bps: 35",
        "bps: 30",
        "Narrow EUR/GBP spread",
    )
    inc.errors(
        "fx-rates",
        onset + 2 * MINUTE,
        now,
        1.0,
        lambda r: (
            f"quote {r.choice(['EUR/GBP', 'USD/GBP', 'EUR/USD', 'GBP/PLN'])} failed: rate feed returned 429 Too Many Requests"
        ),
        stack=go_stack(
            "rate feed returned 429 Too Many Requests",
            [
                (
                    "github.com/fernbank/fx-rates/internal/feed.(*Client).Fetch",
                    "/src/fx-rates/internal/feed/client.go",
                    66,
                ),
                (
                    "github.com/fernbank/fx-rates/internal/quotes.(*Cache).Get",
                    "/src/fx-rates/internal/quotes/cache.go",
                    16,
                ),
            ],
        ),
    )
    inc.metric(
        "cache_hit_ratio",
        "fx-rates",
        step(onset, 0.985, 0.0),
        labels={"cache": "quotes"},
        jitter=0.005,
    )
    inc.metric("feed_requests_per_second", "fx-rates", step(onset, 1.2, 68), digits=1)
    inc.fleet(fx_rates={"err": add(step(onset, 0, 0.05))})
    inc.alert = alerts.datadog(
        "fx-rates quote errors above 2%",
        "fx-rates",
        ts("2026-10-21T15:12"),
        "critical",
        "sum:fx.quotes.errors{*}.as_rate() / sum:fx.quotes{*}.as_rate()",
        0.05,
        0.02,
        ["team:treasury"],
    )
    inc.blame(guilty, [gd], "fx-rates", "code_defect", [logc, b, bd, f], onset)
    return inc


def xh13_bff_drain_recovered() -> ExtIncident:
    now = ts("2026-10-23T09:45")
    inc = ExtIncident(
        "xh13-bff-drain-recovered",
        "app-bff 5xx above 2%",
        """Nothing to do: during the weekly node-group rotation at 09:02 two app-bff pods were
        drained and for 90 seconds some requests hit terminating pods. The error ratio was back
        to baseline by 09:04 and has stayed there; the alert evaluated a 5-minute window that
        still held the blip. An app-bff deploy at 09:20 and a kyc-svc flag are unrelated.""",
        now,
        FERNBANK,
        seed=3413,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-23T08:40"), 9)
    blip = ts("2026-10-23T09:02")
    inc.log(
        blip - MINUTE,
        "k8s-events",
        "INFO",
        "Draining node ip-10-8-3-77.eu-west-2.compute.internal (node-group rotation)",
        reason="NodeDrain",
    )
    inc.errors(
        "app-bff",
        blip,
        blip + 2 * MINUTE,
        6.0,
        "GET /m/home 503: upstream connect error or disconnect/reset before headers (pod terminating)",
    )
    c = inc.code(
        ts("2026-10-23T09:05"),
        "app-bff",
        "MOB-790 Cache card art for 1h",
        "src/cards/art.ts",
        "maxAge: 300",
        "maxAge: 3600",
        14,
    )
    d = inc.deploy(ts("2026-10-23T09:20"), "app-bff")
    f = inc.flag(
        ts("2026-10-23T09:12"),
        "kyc-svc",
        "onboarding.selfie_liveness_v2",
        "rollout: 10",
        "rollout: 25",
        "Liveness v2 to 25%",
    )
    inc.fleet(app_bff={"err": add(step(blip, 0, 0.06, blip + 3 * MINUTE))})
    inc.alert = alerts.datadog(
        "app-bff 5xx above 2%",
        "app-bff",
        ts("2026-10-23T09:06"),
        "warning",
        "sum:trace.express.request.errors{service:app-bff}.as_rate() / sum:trace.express.request.hits{service:app-bff}.as_rate()",
        0.021,
        0.02,
        ["team:mobile"],
    )
    inc.healthy(
        "app-bff",
        "recovered: a 2-minute blip during a node drain, back to baseline since 09:04",
        [c, d, f],
        blip,
    )
    return inc


def xh14_ratelimit_redis_neighbour() -> ExtIncident:
    now = ts("2026-10-26T19:10")
    inc = ExtIncident(
        "xh14-ratelimit-redis-neighbour",
        "card-auth p99 above 250ms",
        """The marketing team's campaign launched at 18:00 and its counters (INCR on one hot
        key per campaign, plus a KEYS scan in a report job) pinned ratelimit-redis's single
        CPU at 100%. card-auth's velocity checks against the same Redis slowed to 300 ms and
        authorizations with them. card-auth deployed a "velocity check" logging change at
        17:48; app-bff deployed too. No change of ours caused it.""",
        now,
        FERNBANK,
        seed=3414,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-26T17:10"), 9)
    c = inc.code(
        ts("2026-10-26T17:25"),
        "card-auth",
        "RISK-1601 Log velocity check latency",
        "src/main/kotlin/com/fernbank/cards/VelocityCheck.kt",
        "        val count = redis.incr(key)",
        "        val t0 = System.nanoTime()\n        val count = redis.incr(key)\n        metrics.velocityLatency(System.nanoTime() - t0)",
        44,
    )
    d = inc.deploy(ts("2026-10-26T17:48"), "card-auth")
    b = inc.code(
        ts("2026-10-26T17:50"),
        "app-bff",
        "MOB-801 Session TTL 30m -> 45m",
        "src/session.ts",
        "ttl: 1800",
        "ttl: 2700",
        9,
    )
    bd = inc.deploy(ts("2026-10-26T18:08"), "app-bff")
    onset = ts("2026-10-26T18:00")
    inc.errors(
        "card-auth",
        onset + 5 * MINUTE,
        now,
        0.5,
        "velocity check timed out after 250ms, failing open",
        level="WARNING",
        exception="io.lettuce.core.RedisCommandTimeoutException",
    )
    inc.errors(
        "card-auth",
        onset + 12 * MINUTE,
        now,
        0.2,
        "authorization response late for stan, issuer processor stood in (rc=91 advice)",
    )
    inc.metric("redis_cpu_percent", "ratelimit-redis", step(onset, 24, 100), digits=1, jitter=0.01)
    inc.metric(
        "redis_commands_per_second",
        "ratelimit-redis",
        step(onset, 21000, 64000),
        labels={"client": "all"},
        digits=0,
    )
    inc.metric(
        "redis_slowlog_entries_per_minute",
        "ratelimit-redis",
        step(onset, 0, 140),
        labels={"command": "KEYS campaign:*"},
        digits=0,
    )
    inc.fleet(
        card_auth={"p99": floor(step(onset, 0, 320))}, app_bff={"p99": add(step(onset, 0, 90))}
    )
    inc.alert = alerts.datadog(
        "card-auth p99 above 250ms",
        "card-auth",
        ts("2026-10-26T18:14"),
        "critical",
        "p99:trace.netty.request{service:card-auth}",
        0.32,
        0.25,
        ["team:cards"],
    )
    inc.outside(
        "shared ratelimit-redis saturated by marketing campaign counters",
        "ratelimit-redis",
        "dependency_failure",
        [c, d, b, bd],
        onset,
    )
    return inc


def xh15_risk_model_flag() -> ExtIncident:
    now = ts("2026-10-28T12:30")
    inc = ExtIncident(
        "xh15-risk-model-flag",
        "card-auth issuer stand-in rate above 1%",
        """Risk flipped `risk.model_v3` to 100% at 11:20; the v3 model scores in 180 ms instead
        of 20 ms, card-auth answers the issuer processor after its 300 ms deadline for part of
        the traffic and the processor stands in (rc=91 advices). A card-auth deploy about
        "risk scoring" metrics went out at 11:05 and a ledger-svc deploy at 11:30.""",
        now,
        FERNBANK,
        seed=3415,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-28T10:30"), 9)
    c = inc.code(
        ts("2026-10-28T10:44"),
        "card-auth",
        "RISK-1622 Risk scoring duration histogram",
        "src/main/kotlin/com/fernbank/cards/RiskScorer.kt",
        "        return model.score(features)",
        "        return timer.record { model.score(features) }",
        31,
    )
    d = inc.deploy(ts("2026-10-28T11:05"), "card-auth")
    f = inc.flag(
        ts("2026-10-28T11:20"),
        "card-auth",
        "risk.model_v3",
        "rollout: 5",
        "rollout: 100",
        "Risk model v3 to all authorizations",
    )
    lc = inc.code(
        ts("2026-10-28T11:11"),
        "ledger-svc",
        "LEDG-2481 Faster hold release query",
        "src/main/java/com/fernbank/ledger/Holds.java",
        "ORDER BY created_at",
        "ORDER BY id",
        90,
    )
    ld = inc.deploy(ts("2026-10-28T11:30"), "ledger-svc")
    onset = ts("2026-10-28T11:21")
    inc.errors(
        "card-auth",
        onset,
        now,
        1.0,
        lambda r: (
            f"response to issuer processor late ({r.randint(305, 420)}ms > 300ms), stand-in expected"
        ),
        level="WARNING",
        risk_model="v3",
    )
    inc.metric("risk_score_duration_p99_ms", "card-auth", step(onset, 22, 185), digits=0)
    inc.metric("issuer_stand_in_ratio", "card-auth", step(onset, 0.001, 0.03), digits=4, jitter=0.1)
    inc.fleet(card_auth={"p99": floor(step(onset, 0, 340))})
    inc.alert = alerts.datadog(
        "card-auth issuer stand-in rate above 1%",
        "card-auth",
        ts("2026-10-28T11:40"),
        "critical",
        "sum:cards.stand_in{*}.as_rate() / sum:cards.authorizations{*}.as_rate()",
        0.03,
        0.01,
        ["team:cards"],
    )
    inc.blame(f, [], "card-auth", "configuration_error", [c, d, lc, ld], onset)
    return inc


def xh16_kyc_client_cert() -> ExtIncident:
    now = ts("2026-10-30T08:10")
    inc = ExtIncident(
        "xh16-kyc-client-cert",
        "kyc-svc verification failures above 20%",
        """kyc-svc's own client certificate for mutual TLS with VeriPass expired at 07:00 UTC
        (the renewal reminder went to a former employee); VeriPass rejects the handshake with
        "certificate expired" alerts. No change caused it. A kyc-svc deploy at 06:48 changed
        the VeriPass client's TLS settings logging, and a config change raised its timeout.""",
        now,
        FERNBANK,
        seed=3416,
    )
    inc.doc(
        "Certificates inventory",
        """| Certificate | Used by | Expires | Owner |
|---|---|---|---|
| kyc-veripass-client (mTLS client) | kyc-svc -> api.veripass.example | 2026-10-30T07:00:00Z | Onboarding |
| harbor-client (mTLS client) | payments-gw -> api.harborbank.example | 2027-03-01T00:00:00Z | Payments |
| *.fernbank.example (edge) | ingress | 2027-01-15T00:00:00Z | Platform |""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-10-30T06:20"), 9)
    c = inc.code(
        ts("2026-10-30T06:30"),
        "kyc-svc",
        "RISK-1630 Log negotiated TLS version for VeriPass",
        "kyc/veripass/client.py",
        "    resp = session.post(url, json=body, cert=CERT)",
        "    resp = session.post(url, json=body, cert=CERT)\n    log.debug('veripass tls', version=resp.raw.version)",
        40,
    )
    d = inc.deploy(ts("2026-10-30T06:48"), "kyc-svc")
    cfg = inc.config(
        ts("2026-10-30T07:12"),
        "kyc-svc",
        "kyc-svc: VeriPass read timeout 12s -> 15s",
        "kyc-svc/values-prod.yaml",
        "veripass:\n  read_timeout_s: 12",
        "veripass:\n  read_timeout_s: 15",
        line=14,
    )
    onset = ts("2026-10-30T07:00")
    inc.errors(
        "kyc-svc",
        onset,
        now,
        0.3,
        lambda r: (
            f"verification V-{r.getrandbits(24):06x} failed: SSLError(1, '[SSL: SSLV3_ALERT_CERTIFICATE_EXPIRED] sslv3 alert certificate expired (_ssl.c:2580)')"
        ),
        exc_info=py_stack(
            "ssl.SSLError",
            "[SSL: SSLV3_ALERT_CERTIFICATE_EXPIRED] sslv3 alert certificate expired (_ssl.c:2580)",
            [
                (
                    "/app/kyc/veripass/client.py",
                    40,
                    "submit",
                    "resp = session.post(url, json=body, cert=CERT)",
                ),
                (
                    "/usr/local/lib/python3.12/ssl.py",
                    1347,
                    "do_handshake",
                    "self._sslobj.do_handshake()",
                ),
            ],
        ),
    )
    inc.fleet(kyc_svc={"err": add(step(onset, 0, 0.97))})
    inc.alert = alerts.datadog(
        "kyc-svc verification failures above 20%",
        "kyc-svc",
        ts("2026-10-30T07:21"),
        "critical",
        "sum:kyc.verifications.failed{*}.as_rate() / sum:kyc.verifications{*}.as_rate()",
        0.97,
        0.2,
        ["team:onboarding"],
    )
    inc.outside(
        "kyc-svc's VeriPass mTLS client certificate expired 2026-10-30T07:00:00Z",
        "kyc-svc",
        "configuration_error",
        [c, d, cfg],
        onset,
    )
    return inc


# --- Bramblewood Games --------------------------------------------------------------------------


def xh17_matchmaker_profile_timeout() -> ExtIncident:
    now = ts("2026-11-02T21:00")
    inc = ExtIncident(
        "xh17-matchmaker-profile-timeout",
        "Matchmaking ticket failure rate above 3%",
        """A matchmaker commit "tightened" the per-ticket MMR fetch from player-profile from a 2 s
        to a 200 ms context timeout; player-profile's p99 is 45 ms but parties of five fetch
        five profiles in sequence and cross-region players take 250 ms, so those tickets fail
        with context deadline exceeded in fetchMMR. The 19:30 matchmaker deploy shipped it; a
        20:05 matchmaker deploy adding "matchmaking ticket" metrics and a player-profile deploy
        are the decoys.""",
        now,
        BRAMBLEWOOD,
        seed=3417,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-02T19:00"), 10)
    guilty = inc.code(
        ts("2026-11-02T19:08"),
        "matchmaker",
        "[matchmaker] Fail fast on slow profile lookups",
        "internal/match/profiles.go",
        "func (m *Matcher) fetchMMR(ctx context.Context, ids []string) (map[string]int, error) {\n\tctx, cancel := context.WithTimeout(ctx, 2*time.Second)\n\tdefer cancel()",
        "func (m *Matcher) fetchMMR(ctx context.Context, ids []string) (map[string]int, error) {\n\tctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)\n\tdefer cancel()",
        52,
        author="dpetrov",
    )
    gd = inc.deploy(ts("2026-11-02T19:30"), "matchmaker")
    onset = ts("2026-11-02T19:32")
    pc = inc.code(
        ts("2026-11-02T19:15"),
        "player-profile",
        "[profile] Return MMR per playlist",
        "internal/profile/mmr.go",
        "\treturn p.MMR, nil",
        "\treturn p.MMRByPlaylist[playlist], nil",
        30,
    )
    pd = inc.deploy(ts("2026-11-02T19:44"), "player-profile")
    dc = inc.code(
        ts("2026-11-02T19:48"),
        "matchmaker",
        "[matchmaker] Matchmaking ticket outcome counters",
        "internal/metrics/metrics.go",
        'var ticketsCreated = promauto.NewCounter(prometheus.CounterOpts{Name: "mm_tickets_created_total"})',
        'var ticketsCreated = promauto.NewCounter(prometheus.CounterOpts{Name: "mm_tickets_created_total"})\nvar ticketOutcomes = promauto.NewCounterVec(prometheus.CounterOpts{Name: "mm_ticket_outcomes_total"}, []string{"outcome"})',
        12,
    )
    dd = inc.deploy(ts("2026-11-02T20:05"), "matchmaker")
    stack = go_stack(
        "context deadline exceeded",
        [
            (
                "github.com/bramblewood/matchmaker/internal/match.(*Matcher).fetchMMR",
                "/src/matchmaker/internal/match/profiles.go",
                58,
            ),
            (
                "github.com/bramblewood/matchmaker/internal/match.(*Matcher).AddTicket",
                "/src/matchmaker/internal/match/tickets.go",
                101,
            ),
        ],
    )
    inc.errors(
        "matchmaker",
        onset,
        now,
        1.5,
        lambda r: (
            f"ticket {r.getrandbits(32):08x} rejected: fetch mmr for party of {r.choice([4, 5])}: context deadline exceeded"
        ),
        stack=stack,
        region="euw",
    )
    inc.metric(
        "mm_ticket_failure_ratio", "matchmaker", step(onset, 0.002, 0.07), digits=4, jitter=0.1
    )
    inc.fleet(matchmaker={"err": add(step(onset, 0, 0.07))})
    inc.alert = alerts.grafana(
        "Matchmaking ticket failure rate above 3%",
        "matchmaker",
        ts("2026-11-02T20:12"),
        "critical",
        "Ticket failures",
        "7.1%",
        team="online",
    )
    inc.blame(guilty, [gd], "matchmaker", "code_defect", [pc, pd, dc, dd], onset)
    return inc


def xh18_lobby_session_leak() -> ExtIncident:
    now = ts("2026-11-04T16:00")
    inc = ExtIncident(
        "xh18-lobby-session-leak",
        "lobby-gw pods OOMKilled",
        """A lobby-gw commit kept finished party sessions in a module-level Map for "reconnect
        grace" and never deleted them. Memory of every lobby-gw pod grew linearly from the
        09:20 deploy until the pods hit their 1 GiB limit around 15:00 and were OOMKilled in
        turn; a few disconnects, no error before the kills. The lobby-gw deploy at 14:40 (a
        "party session" copy change) is closest to the kills; a chat-gw deploy too.""",
        now,
        BRAMBLEWOOD,
        seed=3418,
        hours=8,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-04T09:00"), 6)
    guilty = inc.code(
        ts("2026-11-04T08:52"),
        "lobby-gw",
        "[lobby] Keep party sessions for reconnect grace",
        "src/party/sessions.ts",
        "export function endSession(id: string) {\n  sessions.delete(id);\n}",
        "const recentlyEnded = new Map<string, PartySession>();\n\nexport function endSession(id: string) {\n  recentlyEnded.set(id, sessions.get(id)!); // reconnect grace\n  sessions.delete(id);\n}",
        40,
        author="carla.mendes",
    )
    gd = inc.deploy(ts("2026-11-04T09:20"), "lobby-gw")
    onset = ts("2026-11-04T09:22")
    inc.background(
        ts("2026-11-04T09:40"),
        ts("2026-11-04T14:00"),
        8,
        services=["matchmaker", "store-api", "player-profile", "stats-etl"],
    )
    dc = inc.code(
        ts("2026-11-04T14:18"),
        "lobby-gw",
        "[lobby] Party session expired message copy",
        "src/i18n/en.json",
        '"party.expired": "Session expired"',
        '"party.expired": "Your party session has ended"',
        211,
    )
    dd = inc.deploy(ts("2026-11-04T14:40"), "lobby-gw")
    cc = inc.code(
        ts("2026-11-04T14:25"),
        "chat-gw",
        "[chat] Rate limit whispers to 5/s",
        "src/limits.ts",
        "whisper: 10",
        "whisper: 5",
        7,
    )
    cd = inc.deploy(ts("2026-11-04T14:49"), "chat-gw")
    kills = ts("2026-11-04T15:00")
    for k, minute in enumerate((0, 4, 7, 12, 19, 26)):
        inc.log(
            kills + minute * MINUTE,
            "k8s-events",
            "WARNING",
            f"Container lobby-gw in pod lobby-gw-6f8d7-{'abcdef'[k]}{k}w was OOMKilled (limit 1Gi)",
            reason="OOMKilling",
            namespace="online",
        )
        inc.log(
            kills + minute * MINUTE + MINUTE // 2,
            "lobby-gw",
            "ERROR",
            "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
            pod=f"lobby-gw-6f8d7-{'abcdef'[k]}{k}w",
        )
    inc.errors(
        "lobby-gw",
        kills,
        now,
        0.5,
        "websocket closed (1006) for party, client will reconnect",
        level="WARNING",
    )
    inc.metric(
        "container_memory_working_set_bytes",
        "lobby-gw",
        lambda t: (
            2.9e8 if t < onset else min(2.9e8 + 1.4e8 * (t - onset).total_seconds() / 3600, 1.07e9)
        ),
        labels={"container": "lobby-gw"},
        digits=0,
        jitter=0.01,
    )
    inc.metric(
        "kube_pod_container_status_restarts_total",
        "lobby-gw",
        ramp(kills, kills + 30 * MINUTE, 0, 6),
        digits=0,
        jitter=0,
    )
    inc.fleet(lobby_gw={"err": add(step(kills, 0, 0.01))})
    inc.alert = alerts.grafana(
        "lobby-gw pods OOMKilled",
        "lobby-gw",
        ts("2026-11-04T15:08"),
        "warning",
        "OOM kills",
        "3",
        team="online",
    )
    inc.blame(guilty, [gd], "lobby-gw", "code_defect", [dc, dd, cc, cd], onset)
    return inc


def xh19_login_bot_flood() -> ExtIncident:
    now = ts("2026-11-06T03:30")
    inc = ExtIncident(
        "xh19-login-bot-flood",
        "player-profile CPU above 90%",
        """A credential-stuffing botnet hit /players/{id} lookups and the login flow from 02:10:
        request rate 6x, mostly 401s and 404s from a few hundred ASNs; player-profile's CPU
        saturated and real players' loadouts slowed. No change caused it. A player-profile
        deploy at 01:58 changed "login" audit logging; a store-api deploy at 02:20.""",
        now,
        BRAMBLEWOOD,
        seed=3419,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-06T01:30"), 9)
    c = inc.code(
        ts("2026-11-06T01:36"),
        "player-profile",
        "[profile] Audit-log failed logins with client build",
        "internal/auth/audit.go",
        '\taudit.Log("login_failed", id)',
        '\taudit.Log("login_failed", id, "build", build)',
        27,
    )
    d = inc.deploy(ts("2026-11-06T01:58"), "player-profile")
    sc = inc.code(
        ts("2026-11-06T02:02"),
        "store-api",
        "[store] Bundle discount badge",
        "src/main/java/com/bramblewood/store/Offer.java",
        "return price;",
        "return bundle ? price * 0.9 : price;",
        44,
    )
    sd = inc.deploy(ts("2026-11-06T02:20"), "store-api")
    onset = ts("2026-11-06T02:10")
    inc.errors(
        "player-profile",
        onset,
        now,
        1.2,
        lambda r: (
            f"login failed for player p-{r.getrandbits(24):06x}: invalid credentials (asn={r.choice([9009, 14061, 16276, 24940, 51167])})"
        ),
        level="WARNING",
    )
    inc.errors(
        "player-profile",
        onset + 10 * MINUTE,
        now,
        0.2,
        "GET /players/{id}/loadout 503: request queue full",
    )
    inc.metric(
        "http_requests_per_second_by_status",
        "player-profile",
        step(onset, 8, 1300),
        labels={"status": "401"},
        digits=0,
    )
    inc.metric(
        "cpu_utilization_percent", "player-profile", step(onset, 38, 96), digits=1, jitter=0.02
    )
    inc.metric("distinct_client_asns", "player-profile", step(onset, 140, 610), digits=0)
    inc.fleet(
        player_profile={
            "rps": times(step(onset, 1, 6.0)),
            "p99": floor(step(onset, 0, 600)),
            "err": add(step(onset, 0, 0.02)),
        }
    )
    inc.alert = alerts.grafana(
        "player-profile CPU above 90%",
        "player-profile",
        ts("2026-11-06T02:24"),
        "critical",
        "CPU",
        "96%",
        team="accounts",
    )
    inc.outside(
        "credential-stuffing bot traffic (6x requests, mostly 401)",
        "player-profile",
        "resource_exhaustion",
        [c, d, sc, sd],
        onset,
    )
    return inc


def xh20_null_duration_match() -> ExtIncident:
    now = ts("2026-11-09T12:30")
    inc = ExtIncident(
        "xh20-null-duration-match",
        "stats-etl lag on match.results above 20k",
        """One match result from a custom-game server build (match m-55d1e0) arrived with
        "duration": null; stats-etl computes per-minute rates, raises TypeError on it, and
        since the consumer does not skip failures it retries that record forever while lag
        grows. A stats-etl deploy at 10:30 changed the duration rounding (same function,
        harmless for every real value) and is the decoy.""",
        now,
        BRAMBLEWOOD,
        seed=3420,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-09T10:00"), 9)
    c = inc.code(
        ts("2026-11-09T10:08"),
        "stats-etl",
        "[stats] Round match duration to whole seconds",
        "stats/transform.py",
        "    minutes = result['duration'] / 60",
        "    minutes = round(result['duration']) / 60",
        71,
    )
    d = inc.deploy(ts("2026-11-09T10:30"), "stats-etl")
    onset = ts("2026-11-09T11:12")
    sc = inc.code(
        ts("2026-11-09T11:20"),
        "leaderboard-svc",
        "[leaderboard] Season 7 board ids",
        "src/boards/seasons.ts",
        "current: 's6'",
        "current: 's7'",
        3,
    )
    sd = inc.deploy(ts("2026-11-09T11:38"), "leaderboard-svc")
    stack = py_stack(
        "TypeError",
        "unsupported operand type(s) for /: 'NoneType' and 'int'",
        [
            ("/app/stats/consumer.py", 88, "handle", "row = transform(result)"),
            (
                "/app/stats/transform.py",
                71,
                "transform",
                "minutes = round(result['duration']) / 60",
            ),
        ],
    )
    inc.errors(
        "stats-etl",
        onset,
        now,
        1.0,
        "failed to process match m-55d1e0 (offset 3318824), retrying",
        exc_info=stack,
        match_id="m-55d1e0",
        server_build="custom-0.9.3",
    )
    inc.metric(
        "kafka_consumergroup_lag",
        "stats-etl",
        ramp(onset, now, 40, 64000),
        labels={"topic": "match.results"},
        digits=0,
    )
    inc.fleet(stats_etl={"rps": times(step(onset, 1, 0.02)), "err": add(step(onset, 0, 0.95))})
    inc.alert = alerts.grafana(
        "stats-etl lag on match.results above 20k",
        "stats-etl",
        ts("2026-11-09T11:55"),
        "warning",
        "Consumer lag",
        "24310",
        team="data",
    )
    inc.outside(
        "poison record: match m-55d1e0 with null duration",
        "stats-etl",
        "data_quality",
        [c, d, sc, sd],
        onset,
    )
    return inc


def xh21_store_stale_alert() -> ExtIncident:
    now = ts("2026-11-11T18:40")
    inc = ExtIncident(
        "xh21-store-stale-alert",
        "store-api purchase errors above 1%",
        """The alert is stale: it was raised at 15:10 for a 6-minute burst of purchase errors
        (a console platform's commerce API returned 502s, their status page showed a short
        blip) and the Grafana contact point was muted, so it reached Sleuth only now after
        un-muting. Errors have been at baseline for over three hours. A store-api deploy at
        17:55 and a flag flip since are unrelated.""",
        now,
        BRAMBLEWOOD,
        seed=3421,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-11T17:20"), 9)
    blip, end = ts("2026-11-11T15:08"), ts("2026-11-11T15:14")
    inc.errors(
        "store-api",
        blip,
        end,
        2.0,
        "purchase failed: platform commerce API returned 502 Bad Gateway",
        platform="console-b",
    )
    c = inc.code(
        ts("2026-11-11T17:35"),
        "store-api",
        "[store] Show regional price on receipt",
        "src/main/java/com/bramblewood/store/Receipt.java",
        "return new Receipt(offer, price);",
        "return new Receipt(offer, price, region);",
        30,
    )
    d = inc.deploy(ts("2026-11-11T17:55"), "store-api")
    f = inc.flag(
        ts("2026-11-11T18:10"),
        "store-api",
        "store.holiday_bundle",
        "enabled: false",
        "enabled: true",
        "Holiday bundle visible",
    )
    inc.fleet(store_api={"err": add(step(blip, 0, 0.05, end + MINUTE))})
    payload = alerts.grafana(
        "store-api purchase errors above 1%",
        "store-api",
        ts("2026-11-11T18:31"),
        "warning",
        "Purchase errors",
        "5.2%",
        team="commerce",
    )
    payload["payload"]["alerts"][0]["startsAt"] = "2026-11-11T15:10:00Z"
    inc.alert = payload
    inc.healthy(
        "store-api",
        "stale: raised at 15:10 for a 6-minute blip, delivered at 18:31; errors at baseline since 15:14",
        [c, d, f],
        blip,
    )
    return inc


def xh22_zone_impairment() -> ExtIncident:
    now = ts("2026-11-13T10:20")
    inc = ExtIncident(
        "xh22-zone-impairment",
        "player-profile error rate above 2% (prod-use1)",
        """Availability zone use1-az4 had network connectivity problems (provider status notice
        dated 2026-11-13T09:12:00Z): the third of player-profile's pods and of profiledb's
        read replicas in that zone timed out, kube-proxy reported unreachable endpoints, and
        about a third of requests failed until traffic drained from the zone. No change
        caused it; a player-profile deploy at 09:02 and a matchmaker commit are nearby.""",
        now,
        BRAMBLEWOOD,
        seed=3422,
    )
    inc.doc(
        "AWS Service Health: Increased network latency (use1-az4)",
        """Amazon EC2 (N. Virginia) - Increased network connectivity issues
2026-11-13T09:12:00Z We are investigating network connectivity issues affecting instances in a single Availability Zone (use1-az4) in the US-EAST-1 Region.
2026-11-13T09:48:00Z We have identified the root cause and are working towards recovery.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-13T08:30"), 9)
    c = inc.code(
        ts("2026-11-13T08:41"),
        "player-profile",
        "[profile] Loadout endpoint returns cosmetics",
        "internal/loadout/handler.go",
        "\treturn Loadout{Weapons: w}",
        "\treturn Loadout{Weapons: w, Cosmetics: cos}",
        48,
    )
    d = inc.deploy(ts("2026-11-13T09:02"), "player-profile")
    m = inc.code(
        ts("2026-11-13T09:20"),
        "matchmaker",
        "[matchmaker] Prefer same-zone servers",
        "internal/servers/pick.go",
        "\treturn pickLowestPing(servers)",
        "\treturn pickLowestPing(sameZoneFirst(servers))",
        33,
    )
    onset = ts("2026-11-13T09:08")
    inc.errors(
        "player-profile",
        onset,
        now,
        1.5,
        lambda r: (
            f"profiledb read timeout after 1000ms (replica profiledb-r{r.choice([3, 6])}.use1-az4)"
        ),
        error="dial tcp 10.31.4.17:5432: i/o timeout",
        zone="use1-az4",
    )
    for k in range(4):
        inc.log(
            onset + (2 + 5 * k) * MINUTE,
            "k8s-events",
            "WARNING",
            f'Readiness probe failed: Get "http://10.31.4.{20 + k}:8080/healthz": context deadline exceeded',
            reason="Unhealthy",
            pod=f"player-profile-5c9b8-z{k}4",
            zone="use1-az4",
        )
    inc.metric(
        "network_packet_loss_percent",
        "k8s",
        step(onset, 0.01, 18),
        labels={"zone": "use1-az4"},
        digits=2,
    )
    inc.metric(
        "network_packet_loss_percent", "k8s", lambda t: 0.01, labels={"zone": "use1-az2"}, digits=2
    )
    inc.fleet(
        player_profile={"err": add(step(onset, 0, 0.3))},
        matchmaker={"err": add(step(onset, 0, 0.01))},
    )
    inc.alert = alerts.grafana(
        "player-profile error rate above 2% (prod-use1)",
        "player-profile",
        ts("2026-11-13T09:16"),
        "critical",
        "Error rate",
        "31%",
        cluster="prod-use1",
    )
    inc.outside(
        "availability zone use1-az4 network impairment (status notice 2026-11-13T09:12:00Z)",
        "player-profile",
        "infrastructure",
        [c, d, m],
        onset,
    )
    return inc


def xh23_bramble_net_reconnect() -> ExtIncident:
    now = ts("2026-11-16T20:40")
    inc = ExtIncident(
        "xh23-bramble-net-reconnect",
        "chat-gw websocket connections churn above 500/s",
        """@bramble/net 3.2.0 replaced the WebSocket client's exponential reconnect backoff with a
        fixed 50 ms delay ("snappier reconnects"). chat-gw rebuilt with it at 19:40 (its ships
        list names only a chat-gw commit). When the presence service blipped at 19:58 every
        chat-gw connection to it reconnected in a tight loop and the churn never settled.
        leaderboard-svc deployed with the same package but holds no long-lived sockets. A
        chat-gw "reconnect" log tweak deployed at 20:10 is the surface-word decoy.""",
        now,
        BRAMBLEWOOD,
        seed=3423,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-16T18:30"), 9)
    lib = inc.code(
        ts("2026-11-16T18:44"),
        "@bramble/net",
        "[net] Snappier websocket reconnects",
        "src/ws/reconnect.ts",
        "export function nextDelay(attempt: number): number {\n  return Math.min(30_000, 250 * 2 ** attempt) * (0.5 + Math.random());\n}",
        "export function nextDelay(_attempt: number): number {\n  return 50;\n}",
        18,
        author="b.thorsen",
    )
    lc = inc.code(
        ts("2026-11-16T18:58"),
        "leaderboard-svc",
        "[leaderboard] @bramble/net 3.2.0",
        "package.json",
        '"@bramble/net": "3.1.4"',
        '"@bramble/net": "3.2.0"',
        22,
    )
    ld = inc.deploy(ts("2026-11-16T19:15"), "leaderboard-svc")
    own = inc.code(
        ts("2026-11-16T19:20"),
        "chat-gw",
        "[chat] Emoji reactions in party chat",
        "src/messages/reactions.ts",
        "const ALLOWED = ['like'];",
        "const ALLOWED = ['like', 'gg', 'lol'];",
        5,
    )
    gd = inc.deploy(
        ts("2026-11-16T19:40"),
        "chat-gw",
        summary="Deploy chat-gw to production (1 commit; lockfile refreshed)",
    )
    onset = ts("2026-11-16T19:58")
    dc = inc.code(
        ts("2026-11-16T19:52"),
        "chat-gw",
        "[chat] Log reconnect reason at info",
        "src/presence/client.ts",
        "ws.on('close', () => reconnect());",
        "ws.on('close', (code) => { log.info({ code }, 'presence reconnect'); reconnect(); });",
        61,
    )
    dd = inc.deploy(ts("2026-11-16T20:10"), "chat-gw")
    inc.errors(
        "chat-gw",
        onset,
        now,
        2.0,
        "presence socket closed (1006), reconnecting in 50ms",
        level="WARNING",
        err={
            "stack": node_stack(
                "Error",
                "socket hang up",
                [
                    (
                        "ReconnectingSocket.open",
                        "/app/node_modules/@bramble/net/dist/ws/socket.js",
                        77,
                        13,
                    ),
                    (
                        "Timeout._onTimeout",
                        "/app/node_modules/@bramble/net/dist/ws/reconnect.js",
                        21,
                        7,
                    ),
                ],
            )
        },
    )
    inc.errors(
        "chat-gw",
        onset + 8 * MINUTE,
        now,
        0.4,
        "presence handshake rejected: 429 too many connection attempts",
    )
    inc.metric(
        "websocket_connects_per_second",
        "chat-gw",
        step(onset, 40, 2100),
        labels={"target": "presence"},
        digits=0,
    )
    inc.fleet(chat_gw={"err": add(step(onset, 0, 0.02)), "p99": add(step(onset, 0, 60))})
    inc.alert = alerts.grafana(
        "chat-gw websocket connections churn above 500/s",
        "chat-gw",
        ts("2026-11-16T20:16"),
        "warning",
        "WS churn",
        "2100/s",
        team="social",
    )
    inc.blame(lib, [gd], "chat-gw", "code_defect", [lc, ld, own, dc, dd], onset)
    return inc


# --- Corvid Media -------------------------------------------------------------------------------


def xh24_cdn_status_notice() -> ExtIncident:
    now = ts("2026-11-19T21:30")
    inc = ExtIncident(
        "xh24-cdn-status-notice",
        "Video start failures above 4%",
        """The CDN Fastpath had elevated 5xx from its Frankfurt and Amsterdam POPs (status notice
        dated 2026-11-19T20:12:00Z); segment and manifest fetches through cdn.fastpath.example
        failed for European viewers and playback-api's start-failure beacons climbed. A
        manifest-svc deploy at 20:02 changed how signed cdn.fastpath.example URLs are logged,
        and a playback-api commit mentions "CDN failover"; neither changed behaviour.""",
        now,
        CORVID,
        seed=3424,
    )
    inc.doc(
        "Fastpath CDN status: Elevated errors in Europe",
        """status.fastpath.example
Elevated 5xx error rates - FRA, AMS
2026-11-19T20:12:00Z Investigating - Customers may see elevated 5xx responses for requests served from Frankfurt (FRA) and Amsterdam (AMS).
2026-11-19T20:51:00Z Identified - A configuration push to our edge fleet is being rolled back.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-19T19:20"), 9)
    c = inc.code(
        ts("2026-11-19T19:38"),
        "manifest-svc",
        "Redact signature when logging cdn.fastpath.example URLs (#5011)",
        "internal/sign/log.go",
        '\tlog.Debug("signed", "url", u)',
        '\tlog.Debug("signed", "url", redact(u))',
        21,
    )
    d = inc.deploy(ts("2026-11-19T20:02"), "manifest-svc")
    p = inc.code(
        ts("2026-11-19T20:15"),
        "playback-api",
        "Docs: CDN failover switch in playback settings (#5013)",
        "docs/cdn-failover.md",
        "# CDN failover",
        "# CDN failover\n\nSet CDN_SECONDARY=edgewise to fail over manually.",
        1,
    )
    onset = ts("2026-11-19T20:08")
    inc.errors(
        "playback-api",
        onset,
        now,
        2.0,
        lambda r: (
            f"client start failure beacon: segment fetch 503 from cdn.fastpath.example (pop={r.choice(['FRA', 'AMS'])}, asn={r.choice([3320, 1136, 3209])})"
        ),
        level="WARNING",
    )
    inc.errors(
        "manifest-svc",
        onset + 3 * MINUTE,
        now,
        0.3,
        "origin shield health probe via cdn.fastpath.example/FRA failed: 503",
    )
    inc.metric(
        "video_start_failure_ratio",
        "playback-api",
        step(onset, 0.006, 0.071),
        labels={"region": "eu"},
        digits=4,
        jitter=0.1,
    )
    inc.metric(
        "video_start_failure_ratio",
        "playback-api",
        lambda t: 0.006,
        labels={"region": "us"},
        digits=4,
        jitter=0.1,
    )
    inc.metric(
        "cdn_5xx_ratio",
        "manifest-svc",
        step(onset, 0.001, 0.09),
        labels={"cdn": "fastpath", "pop": "FRA"},
        digits=4,
    )
    inc.fleet()
    inc.alert = alerts.generic(
        "Video start failures above 4%",
        "playback-api",
        ts("2026-11-19T20:24"),
        "P1",
        {
            "source": "opsgenie",
            "alias": "vsf-eu",
            "message": "video start failures 7.1% (EU)",
            "tags": ["team:playback"],
        },
    )
    inc.outside(
        "Fastpath CDN errors in FRA/AMS (status notice 2026-11-19T20:12:00Z)",
        "playback-api",
        "dependency_failure",
        [c, d, p],
        onset,
    )
    return inc


def xh25_playdb_backup_iops() -> ExtIncident:
    now = ts("2026-11-21T03:20")
    inc = ExtIncident(
        "xh25-playdb-backup-iops",
        "playback-api p99 above 800ms",
        """The nightly base backup of playdb started at 02:00 and, after a volume resize last
        week removed the provisioned-IOPS setting (done in the cloud console, not in any change
        record), it saturated the volume's 3000 IOPS: queries queued and playback-api slowed.
        No errors except a couple of slow-query warnings. A playback-api deploy at 01:50 and
        an accounts-api deploy are the nearby changes.""",
        now,
        CORVID,
        seed=3425,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-21T01:20"), 9)
    c = inc.code(
        ts("2026-11-21T01:28"),
        "playback-api",
        "Prefetch license URL with manifest (#5030)",
        "playback/start.py",
        "    manifest = await manifests.get(title)",
        "    manifest, license_url = await asyncio.gather(manifests.get(title), licenses.url(title))",
        64,
    )
    d = inc.deploy(ts("2026-11-21T01:50"), "playback-api")
    a = inc.code(
        ts("2026-11-21T01:55"),
        "accounts-api",
        "Cache entitlements for 60s (#5031)",
        "internal/entitlements/cache.go",
        "\tttl := 30 * time.Second",
        "\tttl := 60 * time.Second",
        14,
    )
    ad = inc.deploy(ts("2026-11-21T02:14"), "accounts-api")
    onset = ts("2026-11-21T02:00")
    inc.log(
        onset - 47 * MINUTE,
        "catalog-api",
        "ERROR",
        "artwork fetch failed for title tt-88120: 404 from image origin",
    )
    inc.log(
        onset,
        "playdb",
        "INFO",
        "starting base backup (pg_basebackup -X stream) to s3://corvid-backups/playdb/2026-11-21",
    )
    inc.errors(
        "playback-api",
        onset + 10 * MINUTE,
        now,
        0.1,
        "slow query: SELECT ... FROM sessions WHERE account_id = $1 took 2.4s",
        level="WARNING",
    )
    inc.metric(
        "disk_iops",
        "playdb",
        step(onset, 1100, 3000),
        labels={"volume": "playdb-data"},
        digits=0,
        jitter=0.01,
    )
    inc.metric(
        "disk_queue_length",
        "playdb",
        step(onset, 0.4, 42),
        labels={"volume": "playdb-data"},
        digits=1,
    )
    inc.metric("pg_stat_activity_waiting", "playdb", step(onset, 0, 31), digits=0)
    inc.fleet(playback_api={"p99": floor(step(onset, 0, 1400))})
    inc.alert = alerts.generic(
        "playback-api p99 above 800ms",
        "playback-api",
        ts("2026-11-21T02:22"),
        "P2",
        {
            "source": "opsgenie",
            "alias": "playback-latency",
            "message": "p99 1.4s",
            "tags": ["team:playback"],
        },
    )
    inc.outside(
        "playdb volume IOPS saturated by the nightly base backup",
        "playdb",
        "resource_exhaustion",
        [c, d, a, ad],
        onset,
    )
    return inc


def xh26_recs_n_plus_one() -> ExtIncident:
    now = ts("2026-11-23T20:40")
    inc = ExtIncident(
        "xh26-recs-n-plus-one",
        "recs-svc p99 above 600ms",
        """A recs-svc commit "simplified" the row builder and dropped `select_related("artwork",
        "availability")`, so building a row of 40 titles runs 81 queries instead of 1; recs-svc
        latency tripled from the 19:05 deploy, recsdb connections climbed. The evening holds
        many innocent changes: a recs flag, catalog-api and playback-api deploys, a recs-svc
        deploy adding row metrics after the onset, a dependency bump.""",
        now,
        CORVID,
        seed=3426,
        hours=8,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-23T18:30"), 20)
    guilty = inc.code(
        ts("2026-11-23T18:41"),
        "recs-svc",
        "Simplify row builder queryset (#5044)",
        "recs/rows/builder.py",
        '    titles = (\n        Title.objects.filter(id__in=ids)\n        .select_related("artwork", "availability")\n        .order_by(Field("id", ids))\n    )',
        '    titles = Title.objects.filter(id__in=ids).order_by(Field("id", ids))',
        33,
        author="vkumar",
    )
    gd = inc.deploy(ts("2026-11-23T19:05"), "recs-svc")
    onset = ts("2026-11-23T19:07")
    decoys = []
    for t, svc, subject, path, old, new, line in [
        (
            "2026-11-23T18:52",
            "catalog-api",
            "Home row titles include maturity rating (#5045)",
            "src/rows/title.ts",
            "{ id, name }",
            "{ id, name, rating }",
            18,
        ),
        (
            "2026-11-23T19:12",
            "recs-svc",
            "Row build duration histogram (#5047)",
            "recs/metrics.py",
            "ROWS = Counter('rows_built_total', '')",
            "ROWS = Counter('rows_built_total', '')\nROW_SECONDS = Histogram('row_build_seconds', '')",
            9,
        ),
        (
            "2026-11-23T19:25",
            "playback-api",
            "Continue-watching row position from heartbeat (#5048)",
            "playback/heartbeat.py",
            "pos = hb.position",
            "pos = max(hb.position, 0)",
            40,
        ),
    ]:
        cid = inc.code(ts(t), svc, subject, path, old, new, line)
        decoys += [cid, inc.deploy(ts(t) + 16 * MINUTE, svc)]
    decoys.append(
        inc.flag(
            ts("2026-11-23T19:00"),
            "recs-svc",
            "recs.row_size",
            "value: 30",
            "value: 40",
            "40 titles per row",
        )
    )
    inc.errors(
        "recs-svc",
        onset + 25 * MINUTE,
        now,
        0.3,
        "row build slow: because-you-watched took 1840ms (81 queries)",
        level="WARNING",
    )
    inc.errors(
        "recs-svc",
        onset + 40 * MINUTE,
        now,
        0.1,
        "GET /recs/{profile} timed out after 2000ms",
        exc_info=py_stack(
            "django.db.utils.OperationalError",
            "canceling statement due to statement timeout",
            [
                (
                    "/app/recs/rows/builder.py",
                    41,
                    "build_row",
                    "return [t.artwork.url for t in titles]",
                ),
                (
                    "/usr/local/lib/python3.12/site-packages/django/db/models/fields/related_descriptors.py",
                    218,
                    "__get__",
                    "rel_obj = self.get_object(instance)",
                ),
            ],
        ),
    )
    inc.metric("db_queries_per_request", "recs-svc", step(onset, 2, 81), digits=0, jitter=0.02)
    inc.metric(
        "db_connections_in_use", "recs-svc", step(onset, 8, 29), labels={"db": "recsdb"}, digits=0
    )
    inc.fleet(recs_svc={"p99": floor(step(onset, 0, 820))})
    inc.alert = alerts.generic(
        "recs-svc p99 above 600ms",
        "recs-svc",
        ts("2026-11-23T19:45"),
        "P3",
        {
            "source": "opsgenie",
            "alias": "recs-latency",
            "message": "p99 820ms",
            "tags": ["team:personalization"],
        },
    )
    inc.blame(guilty, [gd], "recs-svc", "code_defect", decoys, onset)
    return inc


def xh27_license_keyring_path() -> ExtIncident:
    now = ts("2026-11-25T11:20")
    inc = ExtIncident(
        "xh27-license-keyring-path",
        "license-svc pods not ready",
        """A config change moved license-svc's key ring to a new Vault path but misspelt it
        (`secret/drm/keyring-v2` instead of `secret/data/drm/keyring-v2`). Pods started after
        it exit with three FATAL lines; the old pods keep serving until the rolling restart at
        10:40 replaces two of them and capacity halves. A license-svc deploy adding FairPlay
        metrics and a playback-api deploy are nearby.""",
        now,
        CORVID,
        seed=3427,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-25T09:40"), 9)
    c = inc.code(
        ts("2026-11-25T09:48"),
        "license-svc",
        "FairPlay CKC counters per device family (#5060)",
        "src/main/java/com/corvid/drm/FairPlayMetrics.java",
        "ckc.increment();",
        'ckc.tag("family", family).increment();',
        20,
    )
    d = inc.deploy(ts("2026-11-25T10:08"), "license-svc")
    cfg = inc.config(
        ts("2026-11-25T10:21"),
        "license-svc",
        "license-svc: key ring v2 in Vault",
        "license-svc/values-prod.yaml",
        "vault:\n  keyring_path: secret/data/drm/keyring",
        "vault:\n  keyring_path: secret/drm/keyring-v2",
        line=17,
    )
    p = inc.code(
        ts("2026-11-25T10:15"),
        "playback-api",
        "Send device family to license-svc (#5061)",
        "playback/license.py",
        "params = {'title': title}",
        "params = {'title': title, 'family': device.family}",
        28,
    )
    pd = inc.deploy(ts("2026-11-25T10:33"), "playback-api")
    onset = ts("2026-11-25T10:40")
    for k, minute in enumerate((0, 1, 5)):
        inc.log(
            onset + minute * MINUTE,
            "license-svc",
            "CRITICAL",
            "FATAL cannot load key ring: Vault GET secret/drm/keyring-v2 returned 404 (no handler for route)",
            pod=f"license-svc-9c7d2-r{k}5",
        )
    for k, minute in enumerate((2, 6, 14)):
        inc.log(
            onset + minute * MINUTE,
            "k8s-events",
            "WARNING",
            f"Back-off restarting failed container license-svc in pod license-svc-9c7d2-r{k}5",
            reason="BackOff",
        )
    inc.metric(
        "kube_deployment_status_replicas_ready",
        "license-svc",
        step(onset, 4, 2),
        digits=0,
        jitter=0,
    )
    inc.fleet(license_svc={"p99": add(step(onset, 0, 70))})
    inc.alert = alerts.generic(
        "license-svc pods not ready",
        "license-svc",
        ts("2026-11-25T10:58"),
        "P2",
        {
            "source": "opsgenie",
            "alias": "license-ready",
            "message": "2/4 ready",
            "tags": ["team:drm"],
        },
    )
    inc.blame(cfg, [], "license-svc", "configuration_error", [c, d, p, pd], onset)
    return inc


def xh28_transcode_queue_noisy() -> ExtIncident:
    now = ts("2026-11-26T02:10")
    inc = ExtIncident(
        "xh28-transcode-queue-noisy",
        "ingest.jobs backlog above 200",
        """Nothing is wrong: a studio drops its weekly batch of 300 episodes at 01:30 every
        Thursday, the ingest.jobs backlog jumps to ~320 and drains at the usual pace (workers
        busy, no failures). The backlog monitor fires every week. A transcode-worker deploy and
        a catalog-api deploy happened in the evening.""",
        now,
        CORVID,
        seed=3428,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-26T01:00"), 9)
    c = inc.code(
        ts("2026-11-26T01:05"),
        "transcode-worker",
        "Log rendition ladder per job (#5070)",
        "transcode/worker.py",
        "    plan = build_ladder(probe(job.source))",
        "    plan = build_ladder(probe(job.source))\n    log.info('ladder', extra={'renditions': len(plan)})",
        142,
    )
    d = inc.deploy(ts("2026-11-26T01:24"), "transcode-worker")
    drop = ts("2026-11-26T01:30")
    inc.log(
        drop,
        "transcode-worker",
        "INFO",
        "studio delivery received: 300 jobs from studio=northlight (weekly batch)",
    )
    inc.metric(
        "queue_depth",
        "transcode-worker",
        lambda t: 15 if t < drop else max(15, 320 - 95 * (t - drop).total_seconds() / 3600),
        labels={"queue": "ingest.jobs"},
        digits=0,
    )
    inc.fleet(transcode_worker={"rps": times(step(drop, 1, 1.0))})
    inc.alert = alerts.generic(
        "ingest.jobs backlog above 200",
        "transcode-worker",
        ts("2026-11-26T01:34"),
        "P3",
        {
            "source": "opsgenie",
            "alias": "ingest-backlog",
            "message": "ingest.jobs depth 318 > 200",
            "tags": ["team:media-pipeline"],
        },
    )
    inc.healthy(
        "transcode-worker",
        "noisy: the weekly studio batch raises the backlog, which drains at the normal pace",
        [c, d],
        drop,
    )
    return inc


def xh29_accounts_unexplained() -> ExtIncident:
    now = ts("2026-11-26T14:20")
    inc = ExtIncident(
        "xh29-accounts-unexplained",
        "accounts-api p99 above 300ms",
        """accounts-api's p99 has been around 700 ms since 13:42 and some entitlement lookups
        time out; CPU, database and traffic metrics sent to Sleuth are flat, no change
        touches accounts-api, and the logs say only "entitlement lookup slow". The cause is
        not in the data (later found to be a noisy hypervisor, which Sleuth never saw).""",
        now,
        CORVID,
        seed=3429,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-26T13:00"), 9)
    c = inc.code(
        ts("2026-11-26T13:18"),
        "catalog-api",
        "Artwork CDN host from config (#5080)",
        "src/artwork.ts",
        "const HOST = 'img.corvid.example';",
        "const HOST = config.artworkHost;",
        4,
    )
    d = inc.deploy(ts("2026-11-26T13:36"), "catalog-api")
    r = inc.flag(
        ts("2026-11-26T13:50"),
        "recs-svc",
        "recs.trending_row",
        "enabled: false",
        "enabled: true",
        "Trending row on home",
    )
    onset, end = ts("2026-11-26T13:42"), now
    inc.errors(
        "accounts-api",
        onset,
        end,
        1.0,
        lambda r: (
            f"entitlement lookup slow: {r.randint(450, 1200)}ms for account a-{r.getrandbits(24):06x}"
        ),
        level="WARNING",
    )
    inc.errors(
        "accounts-api",
        onset + 5 * MINUTE,
        end,
        0.2,
        "GET /entitlements/{account} timed out after 1000ms",
    )
    inc.fleet(accounts_api={"p99": floor(step(onset, 0, 700))})
    inc.alert = alerts.generic(
        "accounts-api p99 above 300ms",
        "accounts-api",
        ts("2026-11-26T13:55"),
        "P3",
        {
            "source": "opsgenie",
            "alias": "accounts-latency",
            "message": "p99 700ms",
            "tags": ["team:accounts"],
        },
    )
    inc.unexplained("accounts-api", [c, d, r], onset)
    return inc


def xh30_playback_retry_budget() -> ExtIncident:
    now = ts("2026-11-26T19:20")
    inc = ExtIncident(
        "xh30-playback-retry-budget",
        "accounts-api request rate 5x normal",
        """A playback-api commit raised the entitlement-check retry budget from 3 attempts with
        backoff to 12 attempts with a fixed 100 ms wait (tenacity stop_after_attempt(12),
        wait_fixed). It is not named in any ships list: the 17:50 playback-api deploy named
        only a heartbeat commit but was cut from main after it. When accounts-api slowed
        briefly at 18:20, playback-api's retries multiplied its traffic and kept it down.
        An accounts-api deploy right before the onset and a playback flag are the decoys.""",
        now,
        CORVID,
        seed=3430,
    )
    inc.noise()
    inc.background(inc.begin, ts("2026-11-26T17:00"), 9)
    guilty = inc.code(
        ts("2026-11-26T17:12"),
        "playback-api",
        "Be more patient with entitlement checks (#5090)",
        "playback/entitlements.py",
        "@retry(stop=stop_after_attempt(3), wait=wait_exponential(multiplier=0.2, max=2))\nasync def check_entitlement(account_id, title_id):",
        "@retry(stop=stop_after_attempt(12), wait=wait_fixed(0.1))\nasync def check_entitlement(account_id, title_id):",
        51,
        author="ethan.cole",
    )
    hb = inc.code(
        ts("2026-11-26T17:30"),
        "playback-api",
        "Heartbeat every 30s instead of 10s (#5091)",
        "playback/heartbeat.py",
        "HEARTBEAT_SECONDS = 10",
        "HEARTBEAT_SECONDS = 30",
        7,
    )
    gd = inc.deploy(
        ts("2026-11-26T17:50"),
        "playback-api",
        ships=[hb],
        summary="Deploy playback-api to production (1 commit: heartbeat interval)",
    )
    a = inc.code(
        ts("2026-11-26T17:58"),
        "accounts-api",
        "Entitlement lookups use the covering index (#5093)",
        "internal/entitlements/query.go",
        "\tq := `SELECT * FROM entitlements WHERE account_id = $1`",
        "\tq := `SELECT title_id, expires_at FROM entitlements WHERE account_id = $1`",
        22,
    )
    ad = inc.deploy(ts("2026-11-26T18:14"), "accounts-api")
    f = inc.flag(
        ts("2026-11-26T18:25"),
        "playback-api",
        "playback.prefetch_license",
        "enabled: false",
        "enabled: true",
        "Prefetch license with manifest",
    )
    onset = ts("2026-11-26T18:20")
    inc.errors(
        "playback-api",
        onset,
        now,
        1.2,
        lambda r: (
            f"entitlement check attempt {r.randint(4, 12)}/12 failed: accounts-api 503, retrying in 0.1s"
        ),
        level="WARNING",
        exc_info=py_stack(
            "tenacity.RetryError",
            "RetryError[<Future state=finished raised HTTPStatusError>]",
            [
                (
                    "/app/playback/start.py",
                    70,
                    "start_playback",
                    "await check_entitlement(account.id, title.id)",
                ),
                (
                    "/app/playback/entitlements.py",
                    52,
                    "check_entitlement",
                    "resp = await accounts.get(f'/entitlements/{account_id}')",
                ),
            ],
        ),
    )
    inc.errors(
        "accounts-api", onset + 3 * MINUTE, now, 1.0, "shedding load: 503 (in-flight 512/512)"
    )
    inc.metric(
        "http_client_retries_per_second",
        "playback-api",
        step(onset, 0.5, 880),
        labels={"upstream": "accounts-api"},
        digits=1,
    )
    inc.fleet(
        accounts_api={
            "rps": times(step(onset, 1, 5.2)),
            "err": add(step(onset + 3 * MINUTE, 0, 0.4)),
            "p99": floor(step(onset, 0, 1500)),
        },
        playback_api={"err": add(step(onset, 0, 0.05))},
    )
    inc.alert = alerts.generic(
        "accounts-api request rate 5x normal",
        "accounts-api",
        ts("2026-11-26T18:36"),
        "P1",
        {
            "source": "opsgenie",
            "alias": "accounts-rps",
            "message": "572 req/s (7-day median 110)",
            "tags": ["team:accounts"],
        },
    )
    inc.blame(guilty, [gd], "playback-api", "code_defect", [hb, a, ad, f], onset)
    return inc


HELDOUT = [
    xh01_yard_pool_size,
    xh02_coredns_failure,
    xh03_kafka_disk_full,
    xh04_gokit_retry_storm,
    xh05_yard_backlog_noisy,
    xh06_eta_model_configmap,
    xh07_portal_unexplained,
    xh08_trakline_status,
    xh09_mcc_null_check,
    xh10_payday_surge,
    xh11_replica_ebs_degraded,
    xh12_fx_ttl_nanoseconds,
    xh13_bff_drain_recovered,
    xh14_ratelimit_redis_neighbour,
    xh15_risk_model_flag,
    xh16_kyc_client_cert,
    xh17_matchmaker_profile_timeout,
    xh18_lobby_session_leak,
    xh19_login_bot_flood,
    xh20_null_duration_match,
    xh21_store_stale_alert,
    xh22_zone_impairment,
    xh23_bramble_net_reconnect,
    xh24_cdn_status_notice,
    xh25_playdb_backup_iops,
    xh26_recs_n_plus_one,
    xh27_license_keyring_path,
    xh28_transcode_queue_noisy,
    xh29_accounts_unexplained,
    xh30_playback_retry_budget,
]
