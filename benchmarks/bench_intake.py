"""Alert intake throughput against a real ``sleuth serve`` on SQLite (``make bench-intake``).

Not a test (no pass/fail; never collected by ``make test``): it prints figures for
docs/performance.md.

Setup (deterministic, seeded): one organization (enterprise plan, rate limit raised out of the
way), one PROVIDER_A subscription, 1,000 ACTIVE alert agents on it created over the API with mixed
criteria - a quarter each: a ``contains`` pattern, an AND of two leaves, an OR tree (with a nested
AND), and an inner-star pattern (``*checkout*<n>*timeout*``, a regex leaf). Load: 5,000 distinct
PagerDuty ``incident.triggered`` deliveries of 1-3 KB, each naming a few agents' words so it
matches 0-3 agents, signed with ``X-Service-Webhook-Signature``, posted by 16 concurrent clients
(one keep-alive connection each, a minimal HTTP/1.1 client on asyncio streams with the
requests signed beforehand, so that the load generator takes little of the shared CPU). The
server runs its job worker as ``sleuth serve`` does by default (one ``sleuth worker`` child,
``SLEUTH_WORKER_PROCESSES=1``), so investigations run while the load goes on;
``--worker-processes 0`` runs it inside the serving process instead.

Then (unless ``--groups 0``) an Alertmanager-shaped load on an ALERTMANAGER subscription the same
agents watch: about as many alerts again, in deliveries of 1-20 alerts each (``--groups N``
deliveries), with Bearer credentials as Alertmanager sends them; reported as accepted alerts/s
(the alerts the 202s list) beside the single-alert figure.

Then the storm (``--storm`` alone, ``--storm-groups 0`` skips it), on a fresh server: 5,000
distinct incidents in 50 groups of related alerts (same service and title, naming the same agents)
to the same 1,000 agents, with the accepted alerts/s, the investigations and credits they cost
once run, and the goal of one investigation per group and matching agent.

Then the overlapping agents (``--overlap`` alone, ``--overlap-alerts 0`` skips them), each on a
fresh server: 1,000 agents in families of 9 that watch the same words with the same mix of
criteria, and 5,000 alerts each naming one family (so each matches about 9 agents): first each
alert its own incident and group (an investigation per alert and matching agent, about 45,000),
then the same number of alerts in 50 groups (goal: one investigation per group and matching
agent).

Reported: accepted alerts/s (202s over wall time), 202 latency p50/p99, the investigations
started and how long they ran against the 202 latency (the request never waits for them), and
matching cost per alert for 10 vs 1,000 agents of the same mix (core ``MatchIndex``, the
structure the intake caches, in this process).

    .venv/bin/python benchmarks/bench_intake.py [--alerts 5000] [--agents 1000] [--clients 16]
    .venv/bin/python benchmarks/bench_intake.py --matching-only [--agents 10000]
    .venv/bin/python benchmarks/bench_intake.py --storm [--storm-alerts 5000 --storm-groups 50]
    .venv/bin/python benchmarks/bench_intake.py --overlap [--overlap-alerts 5000]
    .venv/bin/python benchmarks/bench_intake.py --profile /tmp/intake.txt  # py-spy, during the load
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [
    str(ROOT / "benchmarks" / "http"),
    str(ROOT / "tests" / "e2e"),
    str(ROOT / "core" / "src"),
    str(ROOT / "shell" / "src"),
]

import contextlib  # noqa: E402

from e2e_harness import cli, running, serve, sleuth_env  # noqa: E402
from harness import read_response, top_of_profile  # noqa: E402

from sleuth_core.intake import parse_alert, sign_generic  # noqa: E402
from sleuth_core.matching import MatchIndex  # noqa: E402

WORDS = [
    "latency",
    "timeout",
    "errors",
    "saturation",
    "disk",
    "memory",
    "cpu",
    "queue",
    "replica",
    "deploy",
    "checkout",
    "payments",
    "search",
    "login",
    "cache",
    "gateway",
    "dns",
    "tls",
]


def criteria(n: int, tag: str | None = None) -> dict[str, Any]:
    """Agent ``n``'s matching criteria: contains, AND, OR tree or inner-star, by ``n % 4``, on
    its own words (``svc<n>``) or on ``tag``'s (agents that share a tag match the same alerts)."""
    tag = tag or f"svc{n:04d}"
    kind = n % 4
    if kind == 0:
        return {"text_matches": [f"{tag}x"]}
    if kind == 1:
        return {
            "match_rules": {
                "operator": "AND",
                "conditions": [
                    {"type": "contains", "value": f"{tag}x"},
                    {"type": "contains", "value": WORDS[n % len(WORDS)]},
                ],
            }
        }
    if kind == 2:
        return {
            "match_rules": {
                "operator": "OR",
                "conditions": [
                    {"type": "contains", "value": f"db-{n:04d}-primary"},
                    {
                        "operator": "AND",
                        "conditions": [
                            {"type": "contains", "value": f"{tag}x"},
                            {"type": "regex", "value": r"p[0-9] incident"},
                        ],
                    },
                ],
            }
        }
    return {"text_matches": [f"*checkout*{tag}y*timeout*"]}


def alert_body(i: int, agents: int, rng: random.Random) -> bytes:
    """A PagerDuty V3 ``incident.triggered`` delivery of 1-3 KB naming 1-3 agents' words."""
    named = [rng.randrange(agents) for _ in range(rng.randint(1, 3))]
    words = " ".join(f"svc{n:04d}x svc{n:04d}y db-{n:04d}-primary" for n in named)
    title = f"p{rng.randint(1, 4)} incident checkout {words} {rng.choice(WORDS)} timeout"
    pad = " ".join(rng.choice(WORDS) for _ in range(rng.randint(60, 250)))
    body = {
        "event": {
            "id": f"bench-event-{i}",
            "event_type": "incident.triggered",
            "resource_type": "incident",
            "occurred_at": "2026-11-23T10:00:00.000Z",
            "agent": None,
            "client": None,
            "data": {
                "id": f"BENCH{i:06d}",
                "type": "incident",
                "self": f"https://api.pagerduty.com/incidents/BENCH{i:06d}",
                "html_url": f"https://acme.pagerduty.com/incidents/BENCH{i:06d}",
                "number": i,
                "status": "triggered",
                "incident_key": f"bench-{i}",
                "created_at": "2026-11-23T10:00:00Z",
                "title": title[:250],
                "service": {"id": "PSVC", "summary": "checkout-api", "type": "service_reference"},
                "urgency": "high",
                "priority": {"id": "P1ID", "summary": "P1", "type": "priority_reference"},
                "teams": [{"id": "PTEAM", "summary": "Payments", "type": "team_reference"}],
                "body": {"type": "incident_body", "details": pad},
            },
        }
    }
    return json.dumps(body).encode()


def group_body(g: int, agents: int, rng: random.Random) -> tuple[bytes, int]:
    """An Alertmanager webhook delivery (``version: "4"``) of 1-20 firing alerts, each like
    :func:`alert_body`'s incident (its title naming 1-3 agents' words, 0.3-1 KB of annotation),
    with a fingerprint of its own; returns the body and its number of alerts."""
    size = rng.randint(1, 20)
    alerts = []
    for k in range(size):
        named = [rng.randrange(agents) for _ in range(rng.randint(1, 3))]
        words = " ".join(f"svc{n:04d}x svc{n:04d}y db-{n:04d}-primary" for n in named)
        title = f"p{rng.randint(1, 4)} incident checkout {words} {rng.choice(WORDS)} timeout"
        pad = " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 120)))
        alerts.append(
            {
                "status": "firing",
                "labels": {
                    "alertname": "CheckoutTimeout",
                    "service": "checkout-api",
                    "severity": "critical",
                    "instance": f"checkout-{k}:9100",
                },
                "annotations": {"summary": title[:250], "description": pad},
                "startsAt": "2026-11-23T10:00:00Z",
                "endsAt": "0001-01-01T00:00:00Z",
                "generatorURL": "http://prometheus:9090/graph?g0.expr=checkout_timeouts+%3E+0",
                "fingerprint": f"{g:08x}{k:08x}",
            }
        )
    body = {
        "receiver": "sleuth",
        "status": "firing",
        "alerts": alerts,
        "groupLabels": {"alertname": "CheckoutTimeout"},
        "commonLabels": {"alertname": "CheckoutTimeout", "service": "checkout-api"},
        "commonAnnotations": {},
        "externalURL": "http://alertmanager:9093",
        "version": "4",
        "groupKey": f'{{}}:{{alertname="CheckoutTimeout", group="{g}"}}',
        "truncatedAlerts": 0,
    }
    return json.dumps(body).encode(), size


def matching_cost(bodies: list[bytes], agents: int) -> float:
    """Microseconds per alert of ``MatchIndex.match`` with ``agents`` agents of the mix."""
    from datetime import UTC, datetime

    from sleuth_core.matching import normalize_criteria

    index: MatchIndex[int] = MatchIndex()
    for n in range(agents):
        index.add(n, normalize_criteria(criteria(n))["match_rules"])
    now = datetime.now(UTC)
    texts = [parse_alert("PROVIDER_A", body, received_at=now).match_text for body in bodies]
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for text in texts:
            index.match(text)
        best = min(best, time.perf_counter() - start)
    return best / len(texts) * 1e6


async def load(
    url: str,
    bodies: list[bytes],
    secret: str,
    clients: int,
    answered: dict[int, float],
    *,
    bearer: bool = False,
) -> tuple[list[float], float, list[int], int]:
    """Post ``bodies`` from ``clients`` concurrent clients; ``answered`` gets, per investigation
    pk, the wall time the first 202 naming it arrived. Returns the latencies, the wall time, the
    status codes and the number of alerts the 202s accepted (``alerts`` of each answer).
    ``bearer`` sends ``Authorization: Bearer <secret>`` (as Alertmanager does) instead of the
    signature header.

    Each client is one keep-alive HTTP/1.1 connection written with asyncio streams, the requests
    built and signed before the clock starts: the benchmark shares the machine with the server,
    and a full client library (httpx: about 2.7 ms of CPU a request here) would take more of it
    than the server's own work."""
    parsed = httpx.URL(url)
    host, port, path = parsed.host, parsed.port or 80, parsed.raw_path.decode()
    queue: asyncio.Queue[bytes] = asyncio.Queue()
    for body in bodies:
        credential = (
            f"Authorization: Bearer {secret}"
            if bearer
            else f"X-Service-Webhook-Signature: {sign_generic(body, secret)}"
        )
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            "Content-Type: application/json\r\n"
            f"{credential}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        queue.put_nowait(head.encode() + body)
    latencies: list[float] = []
    codes: list[int] = []
    alerts = 0

    async def client() -> None:
        nonlocal alerts
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while not queue.empty():
                request = queue.get_nowait()
                start = time.perf_counter()
                writer.write(request)
                status, payload = await read_response(reader)
                latencies.append(time.perf_counter() - start)
                codes.append(status)
                done = time.time()
                if status == 202:
                    answer = json.loads(payload)
                    alerts += len(answer["alerts"])
                    for gid in answer["investigation_ids"]:
                        pk = int(base64.b64decode(gid).decode().split(":")[1])
                        answered.setdefault(pk, done)
        finally:
            writer.close()

    start = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies, time.perf_counter() - start, codes, alerts


def server_pid(base: str) -> int:
    """The pid of the ``sleuth serve`` listening on ``base``'s port (found in /proc)."""
    port = base.rsplit(":", 1)[1]
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"serve" in args and b"--port" in args and port.encode() in args:
            return int(entry.name)
    raise RuntimeError(f"no sleuth serve process on port {port}")


def wait_drained(db: Path, timeout: float) -> float | None:
    """Wait until no investigation is PENDING or IN_PROGRESS; the time it happened, or None."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        with sqlite3.connect(db, timeout=30) as conn:
            (left,) = conn.execute(
                "SELECT count(*) FROM investigations WHERE status IN ('PENDING', 'IN_PROGRESS')"
            ).fetchone()
        conn.close()
        if left == 0:
            return time.time()
        time.sleep(0.5)
    return None


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (serve's job worker children)."""
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads) so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def written_bytes(pid: int) -> int:
    """Bytes ``pid`` has caused to be written to storage so far (``write_bytes`` of
    /proc/<pid>/io: the database's pages, its WAL and journal)."""
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    return 0


def table_bytes(db: Path) -> dict[str, int]:
    """Bytes of each table and index of the SQLite file ``db`` (its pages, ``dbstat``)."""
    with sqlite3.connect(db) as conn:
        sizes = dict(conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"))
    conn.close()
    return sizes


def start_profile(base: str, output: str) -> subprocess.Popen[bytes]:
    """``py-spy record`` of the server and its worker children (collapsed stacks to
    ``output``) until SIGINT."""
    py_spy = Path(sys.executable).with_name("py-spy")
    return subprocess.Popen(
        [
            str(py_spy),
            "record",
            "--pid",
            str(server_pid(base)),
            "--format",
            "raw",
            "--rate",
            "200",
            "--output",
            output,
            "--nonblocking",
            "--subprocesses",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def storm_body(i: int, group: int, named: list[int]) -> bytes:
    """Alert ``i`` of storm group ``group``: its own incident, the group's title and service (so
    it matches the group's agents and is related to the group's other alerts)."""
    words = " ".join(f"svc{n:04d}x svc{n:04d}y db-{n:04d}-primary" for n in named)
    return incident_body(i, f"p1 incident checkout storm {group} {words} timeout")


def incident_body(i: int, title: str, details: str = "") -> bytes:
    """A PagerDuty V3 ``incident.triggered`` delivery of its own incident ``i``, titled ``title``
    (the title and the service make its group key)."""
    data: dict[str, Any] = {
        "id": f"STORM{i:06d}",
        "type": "incident",
        "status": "triggered",
        "title": title,
        "service": {"id": "PSVC", "summary": "checkout-api", "type": "service_reference"},
        "urgency": "high",
    }
    if details:
        data["body"] = {"type": "incident_body", "details": details}
    body = {
        "event": {
            "id": f"storm-event-{i}",
            "event_type": "incident.triggered",
            "resource_type": "incident",
            "occurred_at": "2026-11-26T10:00:00.000Z",
            "data": data,
        }
    }
    return json.dumps(body).encode()


#: Agents that watch the same words in the overlapping-agents load (each alert matches about 9).
FAMILY = 9


def family_criteria(n: int) -> dict[str, Any]:
    """Agent ``n`` of the overlapping-agents load: the usual mix of criteria on its family's
    words, shared with the :data:`FAMILY` - 1 agents next to it."""
    return criteria(n, tag=f"fam{n // FAMILY:03d}")


def overlap_body(i: int, family: int, group: int | None) -> bytes:
    """Alert ``i`` naming ``family``'s words, so it matches every agent of the family: its own
    title (its own group) when ``group`` is None, else group ``group``'s title."""
    tag = f"fam{family:03d}"
    case = f"case {i}" if group is None else f"group {group}"
    return incident_body(
        i, f"p1 incident checkout {tag}x {tag}y {case} timeout", " ".join(WORDS) + " timeout"
    )


def run_storm(args: argparse.Namespace) -> None:
    """The storm: ``--storm-alerts`` alerts in ``--storm-groups`` groups of related alerts, each
    group naming the same 1-3 agents, to ``--agents`` agents; accepted alerts/s, then (with the
    inline worker) the investigations and credits once they have run. Goal: one investigation
    per group and matching agent."""
    rng = random.Random(11)
    named = [
        [rng.randrange(args.agents) for _ in range(rng.randint(1, 3))]
        for _ in range(args.storm_groups)
    ]
    bodies = [
        storm_body(i, i % args.storm_groups, named[i % args.storm_groups])
        for i in range(args.storm_alerts)
    ]
    rng.shuffle(bodies)
    goal = goal_of([storm_body(g, g, named[g]) for g in range(args.storm_groups)], criteria, args)
    run_related(
        args,
        "storm",
        f"{args.storm_alerts} alerts in {args.storm_groups} groups to {args.agents} agents",
        bodies,
        criteria,
        goal,
        drain=True,
    )


def run_overlap(args: argparse.Namespace) -> None:
    """Overlapping agents: ``--overlap-alerts`` alerts, each naming one family of :data:`FAMILY`
    agents (so each matches about 9 of ``--agents``), first each its own incident and group (an
    investigation per alert and matching agent), then in ``--overlap-groups`` groups (goal: one
    investigation per group and matching agent). Each on a fresh server; accepted alerts/s."""
    rng = random.Random(13)
    families = (args.agents + FAMILY - 1) // FAMILY
    named = [rng.randrange(families) for _ in range(args.overlap_alerts)]
    distinct = [overlap_body(i, named[i], None) for i in range(args.overlap_alerts)]
    goal = goal_of(distinct, family_criteria, args)
    print(f"overlap: each alert matches {goal / len(distinct):.1f} agents on average")
    run_related(
        args,
        "overlap (each alert its own group)",
        f"{args.overlap_alerts} alerts to {args.agents} agents in families of {FAMILY}",
        distinct,
        family_criteria,
        goal,
        drain=False,
    )
    if args.overlap_groups <= 0:
        return
    groups = args.overlap_groups
    group_family = [rng.randrange(families) for _ in range(groups)]
    grouped = [
        overlap_body(i, group_family[i % groups], i % groups) for i in range(args.overlap_alerts)
    ]
    rng.shuffle(grouped)
    goal = goal_of(
        [overlap_body(g, group_family[g], g) for g in range(groups)], family_criteria, args
    )
    run_related(
        args,
        "overlap (grouped)",
        f"{args.overlap_alerts} alerts in {groups} groups to {args.agents} agents in families"
        f" of {FAMILY}",
        grouped,
        family_criteria,
        goal,
        drain=True,
    )


def goal_of(bodies: list[bytes], criteria_of: Any, args: argparse.Namespace) -> int:
    """How many (alert, agent) matches ``bodies`` make with ``--agents`` agents of
    ``criteria_of``: the investigations one per body and matching agent would open."""
    from datetime import UTC, datetime

    from sleuth_core.matching import normalize_criteria

    index: MatchIndex[int] = MatchIndex()
    for n in range(args.agents):
        index.add(n, normalize_criteria(criteria_of(n))["match_rules"])
    now = datetime.now(UTC)
    return sum(
        len(index.match(parse_alert("PROVIDER_A", body, received_at=now).match_text))
        for body in bodies
    )


def server_env(db: Path, args: argparse.Namespace) -> dict[str, str]:
    """``sleuth serve``'s environment on SQLite file ``db``: the rate limit out of the way, and
    its job worker as ``--no-inline-worker``, ``--workers`` and ``--worker-processes`` say (by
    default the product's: one ``sleuth worker`` child)."""
    return sleuth_env(
        f"sqlite:///{db}",
        SLEUTH_RATE_LIMIT_ENTERPRISE="100000000",
        SLEUTH_WORKERS_INLINE="false" if args.no_inline_worker or args.workers else "true",
        **(
            {"SLEUTH_WORKER_PROCESSES": str(args.worker_processes)}
            if args.worker_processes is not None
            else {}
        ),
    )


def run_related(
    args: argparse.Namespace,
    name: str,
    what: str,
    bodies: list[bytes],
    criteria_of: Any,
    goal: int,
    *,
    drain: bool,
) -> None:
    """Post ``bodies`` to a fresh server with ``--agents`` agents of ``criteria_of`` on one
    PROVIDER_A subscription; print the accepted alerts/s and the investigations opened against
    ``goal`` (with ``drain``, once every investigation has run, with their credits)."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        env = server_env(db, args)
        cli(env, "admin", "create-org", "bench", "--plan", "enterprise")
        key = cli(env, "admin", "create-key", "bench")["key"]
        hook = cli(env, "admin", "add-webhook", "bench", "--type", "PROVIDER_A", "--name", "pd")
        with serve(env, Path(tmp) / "serve.log") as base:
            source = [{"type": "PROVIDER_A", "remote_id": hook["remote_id"]}]
            with httpx.Client(base_url=base, headers={"X-Service-Org-Api-Key": key}) as http:
                for n in range(args.agents):
                    http.post(
                        "/api/v1/alert-responders/",
                        json={
                            "team_name": "Default",
                            "name": f"agent {n}",
                            "webhook_sources": source,
                            "matching_criteria": criteria_of(n),
                        },
                    ).raise_for_status()
            url = f"{base}/api/v1/webhooks/PROVIDER_A/{hook['remote_id']}"
            loadavg = os.getloadavg()
            profiler = start_profile(base, args.profile) if args.profile else None
            pid = server_pid(base)
            server_cpu = cpu_seconds(pid)
            worker_cpu = sum(cpu_seconds(child) for child in children(pid))
            served = written_bytes(pid)
            worked = sum(written_bytes(c) for c in children(pid))
            latencies, wall, codes, _alerts = asyncio.run(
                load(url, bodies, hook["secret"], args.clients, {})
            )
            server_cpu = cpu_seconds(pid) - server_cpu
            worker_cpu = sum(cpu_seconds(child) for child in children(pid)) - worker_cpu
            served = written_bytes(pid) - served
            worked = sum(written_bytes(c) for c in children(pid)) - worked
            if profiler is not None:
                profiler.send_signal(signal.SIGINT)
                profiler.wait(timeout=60)
            loadavg_after = os.getloadavg()
            # Without serve's worker (``--no-inline-worker``) nothing runs them.
            drain = drain and not (args.no_inline_worker or args.workers)
            drained = wait_drained(db, timeout=args.drain or 120) if drain else None
        with sqlite3.connect(db) as conn:
            investigations, credits = conn.execute(
                "SELECT count(*), coalesce(sum(credits), 0) FROM investigations"
            ).fetchone()
            decisions = dict(
                conn.execute("SELECT decision, count(*) FROM alert_decisions GROUP BY decision")
            )
        conn.close()
        sizes = table_bytes(db)
    accepted = codes.count(202)
    latencies.sort()
    print(f"{name}: load average {loadavg[0]:.2f} at start, {loadavg_after[0]:.2f} at end")
    print(
        f"{name}: {what}: accepted {accepted}/{len(codes)} in {wall:.2f} s ="
        f" {accepted / wall:.0f} alerts/s; 202 p50"
        f" {latencies[len(latencies) // 2] * 1000:.1f} ms, p99"
        f" {latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] * 1000:.1f} ms"
    )
    print(
        f"{name}: CPU during the load: server {server_cpu:.1f} s"
        f" ({server_cpu / max(accepted, 1) * 1000:.2f} ms per accepted alert), serve's worker"
        f" children {worker_cpu:.1f} s"
    )
    ran = "" if not drain else f"; credits {credits:g}; all run: {'yes' if drained else 'no'}"
    print(
        f"{name}: investigations {investigations} (one per alert or group and matching agent:"
        f" {goal}){ran}"
    )
    print(f"{name}: decisions {json.dumps(decisions, sort_keys=True)}")
    per_alert = max(accepted, 1)
    biggest = sorted(sizes.items(), key=lambda kv: -kv[1])[:6]
    print(
        f"{name}: written during the load (/proc io): server {served / per_alert / 1024:.1f},"
        f" worker {worked / per_alert / 1024:.1f} KiB per accepted alert; database"
        f" {sum(sizes.values()) / per_alert / 1024:.1f} KiB per alert, of which "
        + ", ".join(f"{table} {size / per_alert / 1024:.1f}" for table, size in biggest)
    )
    if args.profile:
        top_of_profile(args.profile)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alerts", type=int, default=5000)
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument(
        "--no-inline-worker",
        action="store_true",
        help="serve with SLEUTH_WORKERS_INLINE=false (investigations wait in the queue)",
    )
    parser.add_argument(
        "--drain",
        type=float,
        default=0,
        metavar="SECONDS",
        help="after the load, wait up to SECONDS for every investigation to finish and report"
        " the drain rate",
    )
    parser.add_argument(
        "--worker-processes",
        type=int,
        default=None,
        metavar="N",
        help="SLEUTH_WORKER_PROCESSES for serve (default: the product's default, 1)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        metavar="N",
        help="run N `sleuth worker` processes beside serve instead of its inline worker",
    )
    parser.add_argument(
        "--profile", metavar="PATH", help="py-spy record the server during the load into PATH"
    )
    parser.add_argument(
        "--groups",
        type=int,
        default=None,
        metavar="N",
        help="Alertmanager-shaped load after the single-alert one: N deliveries of 1-20 alerts"
        " each (default: about --alerts alerts in all; 0 skips it)",
    )
    parser.add_argument(
        "--matching-only",
        action="store_true",
        help="only the in-process matching cost per alert at 10, 100, 1,000 and --agents agents",
    )
    parser.add_argument(
        "--storm",
        action="store_true",
        help="only the storm (it follows the other loads by default, on a fresh server):"
        " --storm-alerts related alerts in --storm-groups groups (0 skips it)",
    )
    parser.add_argument("--storm-alerts", type=int, default=5000)
    parser.add_argument("--storm-groups", type=int, default=50)
    parser.add_argument(
        "--overlap",
        action="store_true",
        help="only the overlapping-agents loads (they follow the storm by default, each on a"
        " fresh server): --overlap-alerts alerts each matching about 9 agents, each its own"
        " group, then in --overlap-groups groups (--overlap-alerts 0 skips them)",
    )
    parser.add_argument("--overlap-alerts", type=int, default=5000)
    parser.add_argument("--overlap-groups", type=int, default=50)
    args = parser.parse_args()
    if args.storm:
        run_storm(args)
        return
    if args.overlap:
        run_overlap(args)
        return
    rng = random.Random(8)
    bodies = [alert_body(i, args.agents, rng) for i in range(args.alerts)]
    if args.matching_only:
        print("load average at start {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
        for agents in sorted({10, 100, 1000, args.agents}):
            cost = matching_cost(bodies[:500], agents)
            print(f"matching cost, {agents} agents: {cost:.1f} us/alert")
        return
    sizes = [len(b) for b in bodies]
    print(
        f"alerts: {len(bodies)}, body size {min(sizes)}-{max(sizes)} B"
        f" (mean {statistics.mean(sizes):.0f})"
    )
    wanted_groups = round(args.alerts / 10.5) if args.groups is None else args.groups
    made = [group_body(g, args.agents, rng) for g in range(wanted_groups)]
    groups = [body for body, _size in made]
    if groups:
        group_sizes = [size for _body, size in made]
        print(
            f"Alertmanager groups: {len(groups)} deliveries, {sum(group_sizes)} alerts"
            f" (1-20 a delivery, mean {statistics.mean(group_sizes):.1f})"
        )

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        env = server_env(db, args)
        cli(env, "admin", "create-org", "bench", "--plan", "enterprise")
        key = cli(env, "admin", "create-key", "bench")["key"]
        hook = cli(env, "admin", "add-webhook", "bench", "--type", "PROVIDER_A", "--name", "pd")
        am_hook = cli(
            env, "admin", "add-webhook", "bench", "--type", "ALERTMANAGER", "--name", "am"
        )
        with contextlib.ExitStack() as stack:
            base = stack.enter_context(serve(env, Path(tmp) / "serve.log"))
            for n in range(args.workers):
                stack.enter_context(running(["worker"], env, Path(tmp) / f"worker{n}.log"))
            source = [
                {"type": "PROVIDER_A", "remote_id": hook["remote_id"]},
                {"type": "ALERTMANAGER", "remote_id": am_hook["remote_id"]},
            ]
            with httpx.Client(base_url=base, headers={"X-Service-Org-Api-Key": key}) as http:
                started = time.perf_counter()
                for n in range(args.agents):
                    response = http.post(
                        "/api/v1/alert-responders/",
                        json={
                            "team_name": "Default",
                            "name": f"agent {n}",
                            "webhook_sources": source,
                            "matching_criteria": criteria(n),
                        },
                    )
                    response.raise_for_status()
                print(f"agents: {args.agents} created in {time.perf_counter() - started:.1f} s")
            url = f"{base}/api/v1/webhooks/PROVIDER_A/{hook['remote_id']}"
            loadavg = os.getloadavg()
            answered: dict[int, float] = {}
            profiler = start_profile(base, args.profile) if args.profile else None
            pid = server_pid(base)
            server_cpu = cpu_seconds(pid)
            worker_cpu = sum(cpu_seconds(child) for child in children(pid))
            client_cpu = time.process_time()
            latencies, wall, codes, _alerts = asyncio.run(
                load(url, bodies, hook["secret"], args.clients, answered)
            )
            server_cpu = cpu_seconds(pid) - server_cpu
            worker_cpu = sum(cpu_seconds(child) for child in children(pid)) - worker_cpu
            client_cpu = time.process_time() - client_cpu
            if profiler is not None:
                profiler.send_signal(signal.SIGINT)
                profiler.wait(timeout=60)
            loadavg_after = os.getloadavg()
            load_ended = time.time()
            grouped = None
            if groups:
                am_url = f"{base}/api/v1/webhooks/ALERTMANAGER/{am_hook['remote_id']}"
                am_loadavg = os.getloadavg()
                am_cpu = cpu_seconds(pid)
                am_latencies, am_wall, am_codes, am_alerts = asyncio.run(
                    load(am_url, groups, am_hook["secret"], args.clients, {}, bearer=True)
                )
                am_cpu = cpu_seconds(pid) - am_cpu
                grouped = (
                    am_loadavg,
                    os.getloadavg(),
                    am_latencies,
                    am_wall,
                    am_codes,
                    am_alerts,
                    am_cpu,
                )
            drained_at = None
            if args.drain:
                drained_at = wait_drained(db, timeout=args.drain)
            else:
                time.sleep(2)
        with sqlite3.connect(db) as conn:
            total, pending = conn.execute(
                "SELECT count(*), sum(status = 'PENDING') FROM investigations"
            ).fetchone()
            runs = [
                row[0]
                for row in conn.execute(
                    "SELECT (julianday(completed_at) - julianday(started_at)) * 86400000 "
                    "FROM investigations WHERE completed_at IS NOT NULL"
                )
            ]
            finished = dict(
                conn.execute(
                    "SELECT id, (julianday(completed_at) - 2440587.5) * 86400.0 "
                    "FROM investigations WHERE completed_at IS NOT NULL"
                ).fetchall()
            )
            job_instants = conn.execute("SELECT count(DISTINCT created_at) FROM jobs").fetchone()[0]
        before_202 = sum(1 for pk, t in finished.items() if pk in answered and t < answered[pk])
        conn.close()
    accepted = codes.count(202)
    latencies.sort()
    p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000  # noqa: E731
    print(
        "load average at start {:.2f} {:.2f} {:.2f}; at end {:.2f}".format(
            *loadavg, loadavg_after[0]
        )
    )
    print(f"accepted: {accepted}/{len(codes)} in {wall:.2f} s = {accepted / wall:.0f} alerts/s")
    if grouped is not None:
        am_loadavg, am_loadavg_after, am_latencies, am_wall, am_codes, am_alerts, am_cpu = grouped
        am_latencies.sort()
        print(
            f"Alertmanager-shaped load (load average {am_loadavg[0]:.2f} -> "
            f"{am_loadavg_after[0]:.2f}): {am_codes.count(202)}/{len(am_codes)} deliveries,"
            f" {am_alerts} alerts accepted in {am_wall:.2f} s = {am_alerts / am_wall:.0f} alerts/s"
            f" ({am_codes.count(202) / am_wall:.0f} deliveries/s; single-alert load:"
            f" {accepted / wall:.0f} alerts/s); server CPU {am_cpu / max(am_alerts, 1) * 1000:.2f}"
            f" ms per alert; 202 p50"
            f" {am_latencies[len(am_latencies) // 2] * 1000:.1f} ms, p99"
            f" {am_latencies[min(len(am_latencies) - 1, int(0.99 * len(am_latencies)))] * 1000:.1f}"
            " ms"
        )
    print(
        f"CPU during the load: server {server_cpu:.1f} s ({server_cpu / wall:.0%} of one core,"
        f" {server_cpu / max(accepted, 1) * 1000:.2f} ms per accepted alert),"
        f" serve's worker children {worker_cpu:.1f} s, benchmark clients {client_cpu:.1f} s"
    )
    print(
        f"202 latency: p50 {p(0.5):.1f} ms, p99 {p(0.99):.1f} ms, max {latencies[-1] * 1000:.1f} ms"
    )
    print(f"investigations: {total} opened, {pending} still PENDING after the load")
    print(
        f"write transactions that enqueued investigation jobs (distinct jobs.created_at):"
        f" {job_instants}"
    )
    if runs:
        print(
            f"investigation run time ({len(runs)} completed): "
            f"median {statistics.median(runs):.0f} ms"
        )
    print(
        f"investigations completed before the 202 naming them arrived: {before_202}"
        f" of {len(finished)} completed"
    )
    if args.drain:
        if drained_at is None:
            print(f"investigations NOT drained within {args.drain} s after the load")
        else:
            first = min([t for t in finished.values()] or [load_ended])
            print(
                f"investigations drained: all {total} finished {drained_at - load_ended:.1f} s"
                f" after the load ended; {total / (drained_at - first):.0f} investigations/s"
                " from the first completion to the last"
            )
    if args.profile:
        top_of_profile(args.profile)
    for agents in (10, 100, args.agents):
        print(f"matching cost, {agents} agents: {matching_cost(bodies[:500], agents):.1f} us/alert")
    if args.storm_groups > 0:
        run_storm(args)
    if args.overlap_alerts > 0:
        run_overlap(args)


if __name__ == "__main__":
    main()
