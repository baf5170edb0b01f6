"""HELD-OUT outside-vocabulary incidents `xh55`-`xh66` (`evals/rca/heldout_ext/`), written by a
tenth independent examiner who never opened the engine or the agents and never ran them, in two
companies' vocabularies (defined in `companies.py`):

- Ashcombe Waterways (an inland waterway operator: lock passage bookings and chamber fitting, AIS
  from shore receivers, gate commands to lock PLCs through a SCADA Modbus gateway, pound level
  gauges in TimescaleDB, licences and the toll invoice run, Notices to Skippers to the national
  River Information Services gateway; Java, TypeScript, Go, Python, Rust, Ruby, Elixir;
  ``Signed-off-by`` commits);
- Quillstone Press (a print-on-demand book manufacturer: retailer print orders over EDI, ONIX
  metadata, PDF preflight, imposition and spine widths, press hot folders on a NAS, carrier labels;
  C#, Java, Python, Go, Kotlin, PHP, Node; ``(refs #1234)`` commits).

Nobody tunes the engine on these.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timedelta

from evals.rca import alerts
from evals.rca.ext.base import (
    MINUTE,
    ExtIncident,
    Shape,
    add,
    java_stack,
    node_stack,
    py_stack,
    step,
    times,
)
from evals.rca.ext.companies import ASHCOMBE, QUILLSTONE
from evals.rca.kit import ts

# --- formats of these two companies ---------------------------------------------------------------


def signed(r: random.Random, subject: str, body: str = "") -> str:
    """An Ashcombe commit message: subject, optional body, ``Signed-off-by`` trailer."""
    who = r.choice(["Ines Corrigan", "Bartek Lis", "Femi Adeyemi", "Hollis Grey", "Nadia Rahman"])
    mail = who.lower().replace(" ", ".")
    text = subject + (f"\n\n{body}" if body else "")
    return f"{text}\n\nSigned-off-by: {who} <{mail}@ashcombe-waterways.example>"


ASHCOMBE_PEOPLE = {
    "i.corrigan": "Ines Corrigan",
    "bartek.lis": "Bartek Lis",
    "f.adeyemi": "Femi Adeyemi",
    "hollis.g": "Hollis Grey",
    "nadia.r": "Nadia Rahman",
}


def signoffs(inc: ExtIncident) -> ExtIncident:
    """Each Ashcombe change signed off by its own author (bots sign nothing)."""
    for c in inc.changes:
        head, sep, _ = c["summary"].partition("\n\nSigned-off-by:")
        if not sep:
            continue
        name = ASHCOMBE_PEOPLE.get(c["author"])
        mail = (name or "").lower().replace(" ", ".")
        c["summary"] = (
            f"{head}\n\nSigned-off-by: {name} <{mail}@ashcombe-waterways.example>" if name else head
        )
    return inc


def refs(r: random.Random, subject: str) -> str:
    """A Quillstone commit subject with its tracker reference."""
    return f"{subject} (refs #{r.randint(2100, 4800)})"


def dotnet_stack(exc: str, message: str, frames: Sequence[tuple[str, str, int]]) -> str:
    """``frames``: ``(Namespace.Type.Method(args), /src/File.cs, line)``, innermost first."""
    lines = [f"{exc}: {message}"]
    lines += [f"   at {where} in {file}:line {line}" for where, file, line in frames]
    return "\n".join(lines)


def php_trace(frames: Sequence[str]) -> str:
    lines = [f"#{i} {frame}" for i, frame in enumerate(frames)]
    return "\n".join([*lines, f"#{len(frames)} {{main}}"])


def cloudwatch(
    title: str, service: str, fired: datetime, severity: str, metric: str, value: float, **dims: str
) -> dict[str, object]:
    """An SNS-delivered CloudWatch alarm body."""
    return alerts.alert(
        title,
        service,
        fired,
        severity,
        {
            "AlarmName": title,
            "AlarmDescription": f"{service}: {metric}",
            "NewStateValue": "ALARM",
            "NewStateReason": f"Threshold Crossed: 3 out of the last 3 datapoints were greater than the threshold. Recent value {value}",
            "StateChangeTime": fired.strftime("%Y-%m-%dT%H:%M:%S.000+0000"),
            "Region": "EU (London)",
            "Trigger": {
                "MetricName": metric,
                "Namespace": "Ashcombe/Ops",
                "Statistic": "Average",
                "Dimensions": [{"name": k, "value": v} for k, v in dims.items()],
                "Period": 300,
                "EvaluationPeriods": 3,
                "ComparisonOperator": "GreaterThanThreshold",
            },
        },
    )


def between(t0: datetime, t1: datetime, inside: float, outside: float = 0.0) -> Shape:
    return lambda t: inside if t0 <= t < t1 else outside


# --- Ashcombe Waterways ---------------------------------------------------------------------------


def xh55_registry_decimal_comma() -> ExtIncident:
    now = ts("2027-06-14T12:40")
    inc = ExtIncident(
        "xh55-registry-decimal-comma",
        "Passage bookings failing on the skipper portal (5xx above 3%)",
        """A commit to the shared library aw-registry-client three days before replaced the
        locale-aware NumberFormat parse of the hull registry's dimensions with Double.parseDouble.
        The registry writes lengths and beams with a decimal comma ("18,29"); whole-metre values
        still parse, the rest throw NumberFormatException in RegistryVesselMapper.toDimensions.
        lockage-scheduler picked the library up through a version bump in its 08:05 release (three
        commits, its notes naming the keeper-queue view); only vessels not looked up in the last
        30 days reach the registry, so failures grow slowly through the morning as new boats
        book. skipper-portal, downstream, alerts. Decoys: a chamber-fitting tolerance commit in the
        same release (ChamberFitter is in every trace), a skipper-portal deploy 35 minutes before
        the alert that adds a licence-expiry warning to the booking form, a licence-billing
        deploy, and a pool-size config change. Category: code_defect.""",
        now,
        ASHCOMBE,
        seed=10055,
    )
    inc.doc(
        "Runbook: passage bookings",
        """Skippers book a passage on skipper-portal (POST /bookings), which calls lockage-scheduler
POST /v1/passages. lockage-scheduler fits the vessel into the chamber: hull length, beam and
draught come from the national hull registry by ENI number through aw-registry-client, and are
kept in waterdb.vessels for 30 days. A failed lookup makes the booking fail with 500 (the
portal shows 'try again later'). The registry exports numbers as in its paper forms, with a
decimal comma. Page Lock Operations if more than 3% of POST /bookings fail for 10 minutes.""",
    )
    inc.noise(every=8)
    r = inc.rng
    inc.background(
        ts("2027-06-11T08:00"),
        ts("2027-06-13T16:00"),
        7,
        ["ais-ingest", "level-telemetry", "notices-publisher", "gate-control-bridge"],
    )
    guilty = inc.code(
        ts("2027-06-11T14:37"),
        "aw-registry-client",
        signed(
            r,
            "registry: parse dimensions without NumberFormat",
            "NumberFormat is not thread-safe and the shared instance showed up in a\nthread dump. Plain parsing is enough for the registry's fields.",
        ),
        "src/main/java/uk/ashcombe/registry/RegistryVesselMapper.java",
        """    private static final NumberFormat REGISTRY_NUMBERS = NumberFormat.getInstance(Locale.GERMANY);

    static Dimensions toDimensions(Map<String, String> row) throws ParseException {
        synchronized (REGISTRY_NUMBERS) {
            double length = REGISTRY_NUMBERS.parse(row.get("hull_length_m")).doubleValue();
            double beam = REGISTRY_NUMBERS.parse(row.get("hull_beam_m")).doubleValue();
            double draught = REGISTRY_NUMBERS.parse(row.get("draught_m")).doubleValue();
            return new Dimensions(length, beam, draught);
        }
    }""",
        """    static Dimensions toDimensions(Map<String, String> row) {
        double length = Double.parseDouble(row.get("hull_length_m").trim());
        double beam = Double.parseDouble(row.get("hull_beam_m").trim());
        double draught = Double.parseDouble(row.get("draught_m").trim());
        return new Dimensions(length, beam, draught);
    }""",
        51,
        author="bartek.lis",
        deploy_with="lockage-scheduler",
    )
    bump = inc.code(
        ts("2027-06-11T15:02"),
        "lockage-scheduler",
        signed(r, "deps: aw-registry-client 2.7.0 -> 2.8.0"),
        "pom.xml",
        "    <dependency>\n      <groupId>uk.ashcombe</groupId>\n      <artifactId>aw-registry-client</artifactId>\n      <version>2.7.0</version>",
        "    <dependency>\n      <groupId>uk.ashcombe</groupId>\n      <artifactId>aw-registry-client</artifactId>\n      <version>2.8.0</version>",
        64,
        author="dependabot[bot]",
    )
    tol = inc.code(
        ts("2027-06-12T10:15"),
        "lockage-scheduler",
        signed(
            r,
            "fitting: 10 cm length tolerance for the Vale narrow locks",
            "Keepers fit 21.95 m boats in L15 by hand; let the booking through and\nflag it for the keeper instead of refusing.",
        ),
        "src/main/java/uk/ashcombe/lockage/fitting/ChamberFitter.java",
        """    public Fit fit(Chamber chamber, Dimensions hull) {
        if (hull.length() > chamber.usableLength()) {
            return Fit.refused("length");
        }""",
        """    private static final double NARROW_TOLERANCE_M = 0.10;

    public Fit fit(Chamber chamber, Dimensions hull) {
        double allowed = chamber.usableLength() + (chamber.narrow() ? NARROW_TOLERANCE_M : 0);
        if (hull.length() > allowed) {
            return Fit.refused("length");
        }""",
        38,
        author="i.corrigan",
    )
    queue = inc.code(
        ts("2027-06-13T11:40"),
        "lockage-scheduler",
        signed(r, "queue: show chamber assignments in the keeper queue view"),
        "src/main/java/uk/ashcombe/lockage/queue/KeeperQueueView.java",
        "        return new QueueRow(p.ref(), p.vessel().name(), p.direction());",
        "        return new QueueRow(p.ref(), p.vessel().name(), p.direction(), p.chamberSlot());",
        27,
        author="hollis.g",
    )
    lb = inc.code(
        ts("2027-06-14T06:55"),
        "licence-billing",
        signed(r, "tolls: show the toll band on the licence page"),
        "app/views/licences/show.html.erb",
        "<dd><%= @licence.expires_on %></dd>",
        "<dd><%= @licence.expires_on %></dd>\n<dt>Toll band</dt><dd><%= @licence.toll_band %></dd>",
        18,
        author="nadia.r",
    )
    lbd = inc.deploy(ts("2027-06-14T07:32"), "licence-billing", author="argocd")
    rel = inc.deploy(
        ts("2027-06-14T08:05"),
        "lockage-scheduler",
        version="2027.24.1",
        ships=[bump, tol, queue],
        summary="lockage-scheduler 2027.24.1: chamber assignments in the keeper queue view",
        author="argocd",
    )
    pool = inc.config(
        ts("2027-06-14T10:48"),
        "lockage-scheduler",
        signed(r, "lockage-scheduler: hikari maximum-pool-size 20 -> 24 for the summer season"),
        "deploy/lockage-scheduler/application-prod.yaml",
        "spring:\n  datasource:\n    hikari:\n      maximum-pool-size: 20\n      connection-timeout: 3000",
        "spring:\n  datasource:\n    hikari:\n      maximum-pool-size: 24\n      connection-timeout: 3000",
        author="f.adeyemi",
        line=8,
    )
    sp = inc.code(
        ts("2027-06-14T10:58"),
        "skipper-portal",
        signed(r, "bookings: warn on the booking form when the licence expires before the slot"),
        "app/bookings/BookingForm.tsx",
        "      <SlotPicker lock={lock} onChange={setSlot} />",
        "      <SlotPicker lock={lock} onChange={setSlot} />\n      {licence.expiresOn < slot?.date && <LicenceExpiryWarning licence={licence} />}",
        72,
        author="nadia.r",
    )
    spd = inc.deploy(ts("2027-06-14T11:20"), "skipper-portal", author="argocd")
    onset = ts("2027-06-14T08:07")
    stack = java_stack(
        "java.lang.NumberFormatException",
        'For input string: "18,29"',
        [
            (
                "jdk.internal.math.FloatingDecimal.readJavaFormatString",
                "FloatingDecimal.java",
                2054,
            ),
            ("java.lang.Double.parseDouble", "Double.java", 792),
            (
                "uk.ashcombe.registry.RegistryVesselMapper.toDimensions",
                "RegistryVesselMapper.java",
                52,
            ),
            ("uk.ashcombe.registry.RegistryClient.lookup", "RegistryClient.java", 97),
            ("uk.ashcombe.lockage.fitting.HullDataService.resolve", "HullDataService.java", 44),
            ("uk.ashcombe.lockage.fitting.ChamberFitter.fitFor", "ChamberFitter.java", 61),
            ("uk.ashcombe.lockage.passage.PassageService.book", "PassageService.java", 118),
            ("uk.ashcombe.lockage.passage.PassageController.create", "PassageController.java", 49),
        ],
    )

    def grow(f: float) -> float:
        return 0.08 + 0.5 * f

    inc.errors(
        "lockage-scheduler",
        onset,
        now,
        grow,
        lambda r: (
            f'booking failed lock=L{r.randint(1, 19):02d} eni={r.choice(["0230", "0240", "0600"])}{r.randint(1000, 9999)}: hull data unavailable: For input string: "{r.randint(14, 22)},{r.randint(10, 95)}"'
        ),
        stack_trace=stack,
        logger_name="uk.ashcombe.lockage.passage.PassageController",
    )
    inc.errors(
        "skipper-portal",
        onset + MINUTE,
        now,
        grow,
        lambda r: (
            f"POST /bookings 502: lockage-scheduler responded 500 (booking ABK-{r.randint(88400, 89900)})"
        ),
        route="/bookings",
    )
    inc.errors(
        "lockage-scheduler",
        onset,
        now,
        lambda f: 0.5 + 0.3 * f,
        lambda r: (
            f"registry lookup ok eni=0230{r.randint(1000, 9999)} length={r.randint(15, 21)} cached=30d"
        ),
        level="INFO",
    )

    def frac(t: datetime) -> float:
        return 0.0 if t < onset else min(1.0, (t - onset) / (now - onset))

    inc.metric(
        "registry_lookups_per_second",
        "lockage-scheduler",
        lambda t: 0.9 + 0.4 * frac(t),
        labels={"outcome": "ok"},
        jitter=0.15,
    )
    inc.metric(
        "registry_lookups_per_second",
        "lockage-scheduler",
        lambda t: 0.0 if t < onset else 0.1 + 0.45 * frac(t),
        labels={"outcome": "error"},
        jitter=0.15,
    )
    inc.fleet(
        skipper_portal={"err": add(lambda t: 0.0 if t < onset else 0.01 + 0.05 * frac(t))},
        lockage_scheduler={"err": add(lambda t: 0.0 if t < onset else 0.015 + 0.06 * frac(t))},
    )
    inc.alert = alerts.grafana(
        "Booking failures on skipper-portal",
        "skipper-portal",
        ts("2027-06-14T11:55"),
        "critical",
        "POST /bookings 5xx ratio",
        "5.8%",
        team="customer-services",
    )
    inc.blame(
        guilty,
        [bump, rel],
        "lockage-scheduler",
        "code_defect",
        [tol, queue, pool, sp, spd, lb, lbd],
        onset,
    )
    return signoffs(inc)


def xh56_toll_run_daytime() -> ExtIncident:
    now = ts("2027-07-03T08:20")
    inc = ExtIncident(
        "xh56-toll-run-daytime",
        "lockage-scheduler booking latency p99 above 5s",
        """A configuration change the afternoon before moved licence-billing's nightly toll invoice
        run from 02:00 to 07:00 UTC so that finance sees the invoices at the start of their day.
        The run locks licence rows batch by batch (SELECT ... FOR UPDATE in transactions of 500)
        and was scheduled at night because passage bookings update licences.last_passage_at; at
        07:00 the first boats are booking, and lockage-scheduler's bookings wait on the run's row
        locks until the 4 s lock_timeout cancels them. No code changed. lockage-scheduler alerts.
        Decoys: a lockage-scheduler deploy at 06:48 with an index hint on the lock-queue query,
        a licence-billing deploy of an invoice template, a skipper-portal timeout change after
        the onset and a gate-control-bridge deploy. Category: configuration_error.""",
        now,
        ASHCOMBE,
        seed=10056,
        hours=6,
    )
    inc.doc(
        "Toll invoice run (licence-billing)",
        """CronJob toll-invoice-run (bin/rails tolls:invoice_run) invoices every licence with
passages since its last invoice. It walks licences in batches of 500, each batch in one
transaction that locks the licence rows (FOR UPDATE) while tolls are summed and the invoice is
written; a full run takes 60-90 minutes. It runs while the navigation is closed: locks operate
08:00-20:00 local (07:00-19:00 UTC in summer), bookings open at 06:30 UTC. lockage-scheduler
touches licences.last_passage_at on every booking.""",
    )
    inc.noise(every=9)
    r = inc.rng
    inc.background(
        ts("2027-07-02T09:00"),
        ts("2027-07-02T15:00"),
        6,
        ["ais-ingest", "level-telemetry", "notices-publisher", "skipper-portal"],
    )
    guilty = inc.config(
        ts("2027-07-02T16:10"),
        "licence-billing",
        signed(
            r, "licence-billing: toll invoice run at 07:00 so finance has it at 08:00", "FIN-311"
        ),
        "deploy/licence-billing/cronjob-toll-invoice-run.yaml",
        """kind: CronJob
metadata:
  name: toll-invoice-run
spec:
  # runs while the navigation is closed (no bookings)
  schedule: "0 2 * * *"
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      template:
        spec:
          containers:
            - name: invoice-run
              command: ["bin/rails", "tolls:invoice_run"]
              env:
                - name: BATCH_SIZE
                  value: "500\"""",
        """kind: CronJob
metadata:
  name: toll-invoice-run
spec:
  # runs while the navigation is closed (no bookings)
  schedule: "0 7 * * *"
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      template:
        spec:
          containers:
            - name: invoice-run
              command: ["bin/rails", "tolls:invoice_run"]
              env:
                - name: BATCH_SIZE
                  value: "500\"""",
        author="nadia.r",
    )
    tpl = inc.code(
        ts("2027-07-02T17:40"),
        "licence-billing",
        signed(r, "invoices: show vessel name on toll lines"),
        "app/views/invoices/_toll_line.html.erb",
        "<td><%= line.lock_name %></td><td><%= line.passed_at %></td>",
        "<td><%= line.vessel_name %></td><td><%= line.lock_name %></td><td><%= line.passed_at %></td>",
        4,
        author="nadia.r",
    )
    tpld = inc.deploy(ts("2027-07-03T06:25"), "licence-billing", author="argocd")
    hint = inc.code(
        ts("2027-07-02T18:05"),
        "lockage-scheduler",
        signed(r, "queue: use the (lock_id, slot) index for the keeper queue query"),
        "src/main/java/uk/ashcombe/lockage/queue/LockQueueRepository.java",
        """    @Query(value = "SELECT * FROM lock_queue WHERE lock_id = :lockId AND slot >= now() ORDER BY slot",
           nativeQuery = true)""",
        """    @Query(value = "SELECT /*+ IndexScan(lock_queue lock_queue_lock_slot_idx) */ * FROM lock_queue "
                 + "WHERE lock_id = :lockId AND slot >= now() ORDER BY slot",
           nativeQuery = true)""",
        31,
        author="hollis.g",
    )
    lsd = inc.deploy(ts("2027-07-03T06:48"), "lockage-scheduler", author="argocd")
    gcb = inc.code(
        ts("2027-07-02T19:10"),
        "gate-control-bridge",
        signed(r, "commands: include keeper id in command audit log"),
        "bridge/audit.py",
        '    log.info("command", lock=cmd.lock, gate=cmd.gate, action=cmd.action)',
        '    log.info("command", lock=cmd.lock, gate=cmd.gate, action=cmd.action, keeper=cmd.keeper_id)',
        22,
        author="f.adeyemi",
    )
    gcbd = inc.deploy(ts("2027-07-03T06:58"), "gate-control-bridge", author="argocd")
    onset = ts("2027-07-03T07:00")
    spt = inc.config(
        ts("2027-07-03T07:26"),
        "skipper-portal",
        signed(
            r, "skipper-portal: lockage-scheduler client timeout 5s -> 10s (bookings timing out)"
        ),
        "deploy/skipper-portal/values-prod.yaml",
        "lockageScheduler:\n  timeoutMs: 5000",
        "lockageScheduler:\n  timeoutMs: 10000",
        author="nadia.r",
    )
    for i, t in enumerate(
        [onset + timedelta(seconds=20)]
        + [onset + timedelta(minutes=1 + 1.3 * k) for k in range(60)]
    ):
        if t > now:
            break
        inc.log(
            t,
            "licence-billing",
            "INFO",
            "I, [toll-invoice-run] toll invoice run started batch_size=500 licences=41872"
            if i == 0
            else f"I, [toll-invoice-run] invoiced batch {i}/84 licences={500 * i} elapsed={1.3 * i:.1f}m",
            job="toll-invoice-run",
        )
    stack = java_stack(
        "org.springframework.dao.CannotAcquireLockException",
        'could not execute statement; SQL [n/a]; nested exception is org.postgresql.util.PSQLException: ERROR: canceling statement due to lock timeout\n  Where: while updating tuple (18342,7) in relation "licences"',
        [
            (
                "org.springframework.orm.jpa.vendor.HibernateJpaDialect.convertHibernateAccessException",
                "HibernateJpaDialect.java",
                269,
            ),
            (
                "uk.ashcombe.lockage.licence.LicenceRepository.touchLastPassage",
                "LicenceRepository.java",
                38,
            ),
            ("uk.ashcombe.lockage.passage.PassageService.book", "PassageService.java", 131),
            ("uk.ashcombe.lockage.passage.PassageController.create", "PassageController.java", 49),
        ],
    )
    inc.errors(
        "lockage-scheduler",
        onset + MINUTE,
        now,
        lambda f: 0.6 + 0.8 * f,
        lambda r: (
            f"booking failed lock=L{r.randint(1, 19):02d} ref=ABK-{r.randint(90100, 91900)}: canceling statement due to lock timeout (relation licences)"
        ),
        stack_trace=stack,
        logger_name="uk.ashcombe.lockage.passage.PassageController",
    )
    inc.errors(
        "lockage-scheduler",
        onset + 2 * MINUTE,
        now,
        0.5,
        lambda r: f"slow request POST /v1/passages took {r.randint(3900, 4200)}ms",
        level="WARNING",
    )
    inc.errors(
        "skipper-portal",
        onset + 2 * MINUTE,
        now,
        0.7,
        lambda r: (
            f"POST /bookings failed: lockage-scheduler {r.choice(['500', 'timeout after 5000ms'])} (booking ABK-{r.randint(90100, 91900)})"
        ),
        route="/bookings",
    )
    run = step(onset, 0, 1)
    inc.metric(
        "cronjob_active_jobs",
        "licence-billing",
        run,
        labels={"cronjob": "toll-invoice-run"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "pg_locks_waiting",
        "waterdb",
        lambda t: 0.3 if t < onset else 11,
        labels={"mode": "RowExclusiveLock", "relation": "licences"},
        jitter=0.3,
        digits=1,
    )
    inc.metric(
        "pg_stat_activity_max_tx_duration_seconds",
        "waterdb",
        lambda t: 2 if t < onset else 95,
        labels={"application_name": "licence-billing"},
        jitter=0.2,
        digits=1,
    )
    inc.metric(
        "passage_bookings_per_minute",
        "lockage-scheduler",
        lambda t: 0.4 if t < ts("2027-07-03T06:30") else 7.5,
        labels={"outcome": "requested"},
        jitter=0.15,
        digits=2,
    )
    inc.fleet(
        lockage_scheduler={
            "p99": add(step(onset, 0, 4600)),
            "err": add(step(onset + MINUTE, 0, 0.16)),
        },
        skipper_portal={
            "err": add(step(onset + 2 * MINUTE, 0, 0.09)),
            "p99": add(step(onset, 0, 3800)),
        },
    )
    inc.alert = alerts.alertmanager(
        "PassageBookingLatencyHigh",
        "lockage-scheduler",
        ts("2027-07-03T07:24"),
        "warning",
        "lockage-scheduler booking latency p99 above 5s",
        "p99 of POST /v1/passages is 4.9s-6.1s for 15m",
        'histogram_quantile(0.99, sum by (le) (rate(http_server_requests_seconds_bucket{app="lockage-scheduler",uri="/v1/passages"}[5m]))) > 4',
        team="lock-operations",
    )
    inc.blame(
        guilty,
        [],
        "lockage-scheduler",
        "configuration_error",
        [tpl, tpld, hint, lsd, gcb, gcbd, spt],
        onset,
    )
    return signoffs(inc)


def xh57_ris_gateway_outage() -> ExtIncident:
    now = ts("2027-07-20T10:30")
    inc = ExtIncident(
        "xh57-ris-gateway-outage",
        "Notices to Skippers backlog: outbox older than 20 minutes",
        """From 08:58 the waterways authority's River Information Services gateway answers
        notices-publisher's NtS submissions with 503 and its health endpoint fails from our
        blackbox prober; the authority's status page posts an incident at 09:02Z and identifies a
        fault in its NtS store at 09:40Z. Stoppage and water-level notices pile up in the outbox;
        notices-publisher alerts on the outbox age. Decoys: a notices-publisher deploy at 08:35
        whose commit changes the NtS XML builder (the module named in every crash report), a
        skipper-portal deploy of the notices page, a retry back-off config change after the
        onset and an ais-ingest deploy. Category: dependency_failure.""",
        now,
        ASHCOMBE,
        seed=10057,
        hours=6,
    )
    inc.doc(
        "RIS gateway (waterways authority)",
        """Notices to Skippers go to the national River Information Services gateway
(https://ris-gw.waterways-authority.example/nts/v4/messages, client certificate auth) in NtS XML
4.0. A 400 means our XML was refused (see the validation text); 5xx are theirs and are retried
with back-off from notices.outbox. Status page: https://status.waterways-authority.example.
Stoppage notices must reach RIS within 30 minutes of publication (navigation authority duty).""",
    )
    inc.doc(
        "status.waterways-authority.example: RIS NtS gateway incident",
        """RIS NtS message gateway - degraded
2027-07-20T09:02Z Investigating: data providers receive errors (HTTP 503) when submitting
Notices to Skippers. Retrieval of published notices is not affected.
2027-07-20T09:40Z Identified: a storage fault in the NtS message store. Submissions are refused
until the store is failed over. Next update by 10:45Z.""",
    )
    inc.noise(every=8)
    r = inc.rng
    inc.background(
        inc.begin,
        ts("2027-07-20T08:00"),
        6,
        ["level-telemetry", "licence-billing", "lockage-scheduler"],
    )
    xml = inc.code(
        ts("2027-07-20T07:55"),
        "notices-publisher",
        signed(r, "nts: Welsh text alongside English in <communication>"),
        "lib/notices/nts_xml.ex",
        """  defp communication(notice) do
    element(:communication, [element(:text, [lang: "en"], notice.text_en)])
  end""",
        """  defp communication(notice) do
    element(:communication, [
      element(:text, [lang: "en"], notice.text_en),
      element(:text, [lang: "cy"], notice.text_cy || notice.text_en)
    ])
  end""",
        88,
        author="hollis.g",
    )
    npd = inc.deploy(ts("2027-07-20T08:35"), "notices-publisher", author="argocd")
    ais = inc.code(
        ts("2027-07-20T08:10"),
        "ais-ingest",
        signed(r, "decode: keep the AIS type 24 part B call sign"),
        "internal/decode/type24.go",
        "\tm.ShipType = int(bits.Uint(40, 8))",
        "\tm.ShipType = int(bits.Uint(40, 8))\n\tm.CallSign = bits.String(90, 42)",
        57,
        author="bartek.lis",
    )
    aisd = inc.deploy(ts("2027-07-20T08:50"), "ais-ingest", author="argocd")
    spn = inc.code(
        ts("2027-07-20T08:30"),
        "skipper-portal",
        signed(r, "notices: filter the notices page by navigation"),
        "app/notices/NoticeList.tsx",
        "  const items = notices;",
        "  const items = navigation ? notices.filter((n) => n.navigation === navigation) : notices;",
        19,
        author="nadia.r",
    )
    spnd = inc.deploy(ts("2027-07-20T09:12"), "skipper-portal", author="argocd")
    onset = ts("2027-07-20T08:58")
    backoff = inc.config(
        ts("2027-07-20T09:24"),
        "notices-publisher",
        signed(r, "notices-publisher: RIS retry back-off max 5m -> 2m while RIS is flaky"),
        "deploy/notices-publisher/runtime.exs",
        "config :notices, :ris_retry, base_ms: 5_000, max_ms: 300_000",
        "config :notices, :ris_retry, base_ms: 5_000, max_ms: 120_000",
        author="f.adeyemi",
    )
    crash = """** (RuntimeError) RIS submission failed: HTTP 503 Service Unavailable
    (notices 3.14.0) lib/notices/ris_client.ex:61: Notices.RisClient.submit!/2
    (notices 3.14.0) lib/notices/nts_xml.ex:140: Notices.NtsXml.deliver/2
    (notices 3.14.0) lib/notices/pipeline.ex:47: Notices.Pipeline.handle_message/3
    (broadway 1.1.0) lib/broadway/topology/processor_stage.ex:168: Broadway.Topology.ProcessorStage.handle_messages/4"""
    inc.errors(
        "notices-publisher",
        onset,
        now,
        1.2,
        lambda r: r.choice(
            [
                f"[error] NtS-2027-{r.randint(600, 690):04d} delivery to RIS failed: 503 Service Unavailable (retry {r.randint(1, 9)})",
                f"[error] NtS-2027-{r.randint(600, 690):04d} delivery to RIS failed: {{:error, %Mint.TransportError{{reason: :timeout}}}}",
            ]
        ),
        crash_reason=crash,
    )
    inc.errors(
        "skipper-portal",
        onset + 10 * MINUTE,
        now,
        0.1,
        lambda r: (
            f"notice NtS-2027-{r.randint(600, 690):04d} shown without RIS reference (pending delivery)"
        ),
        level="WARNING",
    )
    inc.metric(
        "probe_success",
        "notices-publisher",
        step(onset, 1, 0.05),
        labels={"target": "https://ris-gw.waterways-authority.example/health"},
        jitter=0.1,
        digits=2,
    )
    inc.metric(
        "ris_submissions_per_minute",
        "notices-publisher",
        lambda t: 0.03 if t < onset else 2.2,
        labels={"status": "503"},
        jitter=0.2,
        digits=2,
    )
    inc.metric(
        "notices_outbox_oldest_age_seconds",
        "notices-publisher",
        lambda t: 20 if t < onset else 20 + (t - onset).total_seconds(),
        labels={"outbox": "ris"},
        jitter=0.05,
        digits=0,
    )
    inc.fleet(
        notices_publisher={"err": add(step(onset, 0, 0.93)), "p99": add(step(onset, 0, 9000))}
    )
    inc.alert = alerts.alertmanager(
        "NoticesOutboxStale",
        "notices-publisher",
        ts("2027-07-20T09:20"),
        "critical",
        "Notices to Skippers backlog: outbox older than 20 minutes",
        "oldest notice in the RIS outbox waited 21m",
        'max(notices_outbox_oldest_age_seconds{outbox="ris"}) > 1200',
        team="vessel-traffic",
    )
    inc.outside(
        "RIS NtS gateway outage at the waterways authority (503, status notice 09:02Z)",
        "notices-publisher",
        "dependency_failure",
        [xml, npd, ais, aisd, spn, spnd, backoff],
        onset,
    )
    return signoffs(inc)


def xh58_gauge_volume_burst_credits() -> ExtIncident:
    now = ts("2027-08-09T15:10")
    inc = ExtIncident(
        "xh58-gauge-volume-burst-credits",
        "Pound level data stale (newest reading older than 5 minutes)",
        """Heavy rain from 07:50 puts the river-fed pound gauges into their storm mode (a reading
        every 5 s instead of 30 s), as they are built to do. level-telemetry's writes to
        TimescaleDB rise to about four times the gp2 volume's 300 IOPS baseline, which the volume
        serves from its burst credits; the BurstBalance falls all day and reaches zero at 13:52.
        From then the volume is held to its baseline, inserts take seconds, level-telemetry's
        channel fills and drops readings, and the level checks see stale data. Nothing changed:
        the volume was sized for fair-weather load. Decoys: a level-telemetry deploy at 13:30
        moving batch writes from multi-row INSERT to COPY, a batch-size config change after the
        onset, and an ais-ingest deploy. Category: resource_exhaustion.""",
        now,
        ASHCOMBE,
        seed=10058,
        hours=8,
    )
    inc.doc(
        "Runbook: pound level data",
        """level-telemetry writes every gauge reading to tsdb-levels (TimescaleDB 2.14 on an EC2
instance, data on a 100 GiB gp2 EBS volume: 300 IOPS baseline, bursts to 3000 IOPS while burst
credits last). The level checks page Water Management when the newest reading of any pound is
older than 5 minutes. Gauges on river-fed pounds switch to storm mode (5 s interval) when the
level rises faster than 2 cm in 10 minutes and stay there until it settles.""",
    )
    inc.doc(
        "Met Office warning (yellow, rain) 2027-08-09",
        """Yellow warning of rain, Vale and Ashcombe catchments, 2027-08-09T06:00Z to
2027-08-09T21:00Z. 30-50 mm widely, up to 80 mm on high ground. Rivers will respond quickly.""",
    )
    inc.noise(every=8)
    r = inc.rng
    inc.background(
        inc.begin,
        ts("2027-08-09T12:00"),
        6,
        ["lockage-scheduler", "licence-billing", "skipper-portal"],
    )
    storm = ts("2027-08-09T07:50")
    onset = ts("2027-08-09T13:52")
    for k in range(14):
        inc.log(
            storm + timedelta(minutes=3 * k + r.uniform(0, 2)),
            "level-telemetry",
            "INFO",
            f"INFO level_telemetry::gauges: gauge G-{r.choice(['VALE', 'ASH'])}-{r.randint(1, 12):02d} switched to storm mode interval=5s",
        )
    copy = inc.code(
        ts("2027-08-09T12:55"),
        "level-telemetry",
        signed(
            r,
            "writer: COPY batches instead of multi-row INSERT",
            "Fewer round trips per batch; same rows.",
        ),
        "src/writer.rs",
        """    let stmt = client.prepare_cached(&insert_sql(batch.len())).await?;
    client.execute(&stmt, &params(&batch)).await?;""",
        """    let sink = client.copy_in("COPY readings (gauge_id, ts, level_mm) FROM STDIN BINARY").await?;
    let writer = BinaryCopyInWriter::new(sink, &[Type::TEXT, Type::TIMESTAMPTZ, Type::INT4]);
    write_rows(writer, &batch).await?;""",
        64,
        author="i.corrigan",
    )
    ltd = inc.deploy(ts("2027-08-09T13:30"), "level-telemetry", author="argocd")
    ais = inc.code(
        ts("2027-08-09T12:40"),
        "ais-ingest",
        signed(r, "receivers: reconnect RX-ASH-1 with jitter"),
        "internal/rx/conn.go",
        "\ttime.Sleep(5 * time.Second)",
        "\ttime.Sleep(5*time.Second + time.Duration(rand.Intn(2000))*time.Millisecond)",
        88,
        author="bartek.lis",
    )
    aisd = inc.deploy(ts("2027-08-09T13:05"), "ais-ingest", author="argocd")
    cfg = inc.config(
        ts("2027-08-09T14:12"),
        "level-telemetry",
        signed(r, "level-telemetry: batch_rows 120 -> 500 to catch up"),
        "deploy/level-telemetry/config.toml",
        "[writer]\nbatch_rows = 120\nflush_ms = 1000",
        "[writer]\nbatch_rows = 500\nflush_ms = 1000",
        author="i.corrigan",
    )
    inc.errors(
        "level-telemetry",
        onset - 25 * MINUTE,
        onset,
        0.2,
        lambda r: (
            f"WARN level_telemetry::writer: write batch took {r.randint(700, 1400)}ms rows=120"
        ),
        level="WARNING",
    )
    inc.errors(
        "level-telemetry",
        onset,
        now,
        0.5,
        lambda r: (
            f"WARN level_telemetry::writer: write batch took {r.randint(3800, 9000)}ms rows=120"
        ),
        level="WARNING",
    )
    inc.errors(
        "level-telemetry",
        onset + 3 * MINUTE,
        now,
        1.0,
        lambda r: r.choice(
            [
                f"ERROR level_telemetry::writer: batch failed: db error: ERROR: canceling statement due to statement timeout (rows=120, attempt {r.randint(1, 3)})",
                f"ERROR level_telemetry::ingest: channel full (capacity 20000), dropped {r.randint(200, 900)} oldest readings",
            ]
        ),
    )
    inc.errors(
        "lockage-scheduler",
        onset + 18 * MINUTE,
        now,
        0.2,
        lambda r: (
            f"pound level for L{r.randint(1, 19):02d} older than 300s, using last known value for the cycle plan"
        ),
        level="WARNING",
    )
    inc.metric(
        "aws_ebs_burst_balance_average",
        "tsdb-levels",
        lambda t: (
            100
            if t < ts("2027-08-09T08:05")
            else max(
                0.0, 100 - 100 * (t - ts("2027-08-09T08:05")) / (onset - ts("2027-08-09T08:05"))
            )
        ),
        labels={"volume_id": "vol-0a41c9e2d7f3b8c51", "instance": "tsdb-levels-1"},
        jitter=0.01,
        digits=1,
    )
    inc.metric(
        "aws_ebs_volume_write_ops_per_second",
        "tsdb-levels",
        lambda t: 260 if t < storm else (1150 if t < onset else 300),
        labels={"volume_id": "vol-0a41c9e2d7f3b8c51"},
        jitter=0.06,
        digits=0,
    )
    inc.metric(
        "node_disk_write_await_ms",
        "tsdb-levels",
        lambda t: 1.2 if t < onset else 48,
        labels={"device": "nvme1n1"},
        jitter=0.15,
        digits=1,
    )
    inc.metric(
        "gauge_readings_per_second",
        "level-telemetry",
        lambda t: 60 if t < storm else 250,
        jitter=0.05,
        digits=1,
    )
    inc.metric(
        "pound_level_newest_age_seconds",
        "level-telemetry",
        lambda t: 35 if t < onset else 35 + 0.9 * (t - onset).total_seconds(),
        labels={"pound": "max"},
        jitter=0.05,
        digits=0,
    )
    inc.fleet(
        level_telemetry={
            "rps": lambda t, v: v if t < storm else (v * 4.1 if t < onset else v * 1.3),
            "err": add(step(onset, 0, 0.22)),
            "p99": add(step(onset, 0, 6500)),
        },
    )
    inc.alert = cloudwatch(
        "PoundLevelDataStale",
        "level-telemetry",
        ts("2027-08-09T14:18"),
        "critical",
        "pound_level_newest_age_seconds",
        1290.0,
        pound="max",
    )
    inc.outside(
        "gp2 volume of tsdb-levels out of burst credits under storm-mode gauge load",
        "level-telemetry",
        "resource_exhaustion",
        [copy, ltd, ais, aisd, cfg],
        onset,
    )
    return signoffs(inc)


def xh59_modbus_retry_forever() -> ExtIncident:
    now = ts("2027-08-23T10:15")
    inc = ExtIncident(
        "xh59-modbus-retry-forever",
        "Lock cycles overdue at several locks",
        """A gate-control-bridge commit the afternoon before replaced the three bounded attempts of
        a Modbus write (with back-off, on one shared client) by a loop that retries until the PLC
        acknowledges, opening a new ModbusTcpClient on every attempt and never closing the old
        one. It shipped in the 07:40 release beside a logging commit. At 09:12 the Hartsmoor radio
        link drops packets in the rain as it often does; commands to L13 time out, the loop spins
        and the SCADA gateway's 16 client connections fill with the bridge's abandoned sockets.
        Every lock's commands are refused from then on and cycles overrun; lockage-scheduler, which
        times the cycles, alerts. Decoys: a lockage-scheduler deploy at 09:05 shortening the
        overdue threshold the alert counts, a paddle-polling config change, and an ais-ingest
        deploy. Category: code_defect.""",
        now,
        ASHCOMBE,
        seed=10059,
        hours=6,
    )
    inc.doc(
        "Gate commands (OT Integration)",
        """gate-control-bridge sends gate, paddle and sluice commands to each lock's PLC through the
SCADA Modbus TCP gateway scada-gw-1, which accepts at most 16 client connections; the bridge
keeps one client per worker (4 workers). Locks 12-15 (Hartsmoor) are behind a licensed radio
link that drops packets in heavy rain: writes there time out now and then and are retried (3
attempts, 1 s/2 s/4 s back-off) before the keeper is asked to operate locally.
lockage-scheduler marks a cycle overdue when it has no completion from the bridge in time.""",
    )
    inc.noise(every=8)
    r = inc.rng
    inc.background(
        ts("2027-08-22T09:00"),
        ts("2027-08-22T14:00"),
        5,
        ["licence-billing", "level-telemetry", "skipper-portal"],
    )
    guilty = inc.code(
        ts("2027-08-22T15:31"),
        "gate-control-bridge",
        signed(
            r,
            "commands: retry writes until the PLC acknowledges",
            "Keepers at Hartsmoor had to operate locally after three failed attempts\nin drizzle. Keep trying with a fresh connection instead.",
        ),
        "bridge/commands.py",
        """def send_with_retry(client: ModbusTcpClient, cmd: GateCommand) -> None:
    for attempt in range(3):
        result = client.write_register(cmd.register, cmd.value, slave=cmd.unit)
        if not result.isError():
            return
        time.sleep(2**attempt)
    raise CommandFailed(cmd, "no acknowledgement after 3 attempts")""",
        """def send_with_retry(client: ModbusTcpClient, cmd: GateCommand) -> None:
    attempt = 0
    while True:
        attempt += 1
        result = client.write_register(cmd.register, cmd.value, slave=cmd.unit)
        if not result.isError():
            return
        log.warning("write to %s unit %s timed out; retrying (attempt %d)", cmd.lock, cmd.unit, attempt)
        client = ModbusTcpClient(settings.SCADA_GATEWAY, port=502, timeout=3)
        client.connect()""",
        41,
        author="f.adeyemi",
    )
    dbg = inc.code(
        ts("2027-08-23T07:10"),
        "gate-control-bridge",
        signed(r, "paddles: log paddle positions at DEBUG"),
        "bridge/paddles.py",
        "    positions = read_positions(client, lock)",
        '    positions = read_positions(client, lock)\n    log.debug("paddle positions", lock=lock, positions=positions)',
        30,
        author="f.adeyemi",
    )
    rel = inc.deploy(
        ts("2027-08-23T07:40"), "gate-control-bridge", version="1.31.0", author="argocd"
    )
    poll = inc.config(
        ts("2027-08-23T08:20"),
        "gate-control-bridge",
        signed(r, "gate-control-bridge: paddle position poll 10s -> 15s"),
        "deploy/gate-control-bridge/values-prod.yaml",
        'env:\n  PADDLE_POLL_SECONDS: "10"\n  SCADA_GATEWAY: scada-gw-1.ot.ashcombe.internal',
        'env:\n  PADDLE_POLL_SECONDS: "15"\n  SCADA_GATEWAY: scada-gw-1.ot.ashcombe.internal',
        author="hollis.g",
    )
    ovd = inc.code(
        ts("2027-08-23T08:32"),
        "lockage-scheduler",
        signed(r, "cycles: mark a cycle overdue after 25 minutes (was 30)"),
        "src/main/java/uk/ashcombe/lockage/cycles/CycleWatchdog.java",
        "    private static final Duration OVERDUE_AFTER = Duration.ofMinutes(30);",
        "    private static final Duration OVERDUE_AFTER = Duration.ofMinutes(25);",
        19,
        author="hollis.g",
    )
    lsd = inc.deploy(ts("2027-08-23T09:05"), "lockage-scheduler", author="argocd")
    ais = inc.code(
        ts("2027-08-23T08:50"),
        "ais-ingest",
        signed(r, "decode: drop sentences with a bad checksum quietly"),
        "internal/nmea/checksum.go",
        '\t\tlog.Warn("bad checksum", "sentence", s)',
        "\t\tmetrics.BadChecksum.Inc()",
        33,
        author="bartek.lis",
    )
    aisd = inc.deploy(ts("2027-08-23T09:28"), "ais-ingest", author="argocd")
    onset = ts("2027-08-23T09:12")
    full = onset + 9 * MINUTE
    inc.errors(
        "gate-control-bridge",
        onset,
        now,
        3.0,
        lambda r: (
            f"write to L13 unit {r.randint(1, 4)} timed out; retrying (attempt {r.randint(4, 900)})"
        ),
        level="WARNING",
        logger="bridge.commands",
    )
    stack = py_stack(
        "pymodbus.exceptions.ConnectionException",
        "Modbus Error: [Connection] Failed to connect[ModbusTcpClient scada-gw-1.ot.ashcombe.internal:502]",
        [
            ("/app/bridge/worker.py", 77, "handle", "send_with_retry(self.client, cmd)"),
            ("/app/bridge/commands.py", 50, "send_with_retry", "client.connect()"),
            (
                "/usr/local/lib/python3.11/site-packages/pymodbus/client/tcp.py",
                116,
                "connect",
                "raise ConnectionException(self._str())",
            ),
        ],
    )
    inc.errors(
        "gate-control-bridge",
        full,
        now,
        1.4,
        lambda r: (
            f"command failed lock=L{r.choice([2, 4, 7, 9, 11, 13, 16, 18]):02d} gate={r.choice(['TOP_LEFT', 'BOTTOM_RIGHT', 'PADDLE_TOP'])}: Failed to connect to scada-gw-1:502 (connection refused: max clients)"
        ),
        exc_info=stack,
        logger="bridge.worker",
    )
    inc.errors(
        "lockage-scheduler",
        full + 14 * MINUTE,
        now,
        0.5,
        lambda r: (
            f"cycle overdue lock=L{r.randint(1, 19):02d} started={r.randint(9, 10)}:{r.randint(10, 59)} no completion from gate-control-bridge"
        ),
        logger_name="uk.ashcombe.lockage.cycles.CycleWatchdog",
    )
    inc.metric(
        "scada_gateway_client_connections",
        "gate-control-bridge",
        lambda t: 4 if t < onset else min(16, 4 + (t - onset).total_seconds() / 45),
        labels={"gateway": "scada-gw-1"},
        jitter=0.02,
        digits=0,
    )
    inc.metric(
        "process_open_fds",
        "gate-control-bridge",
        lambda t: 38 if t < onset else 38 + (t - onset).total_seconds() / 4,
        jitter=0.02,
        digits=0,
    )
    inc.metric(
        "gate_commands_per_minute",
        "gate-control-bridge",
        lambda t: 0.3 if t < full else 4.0,
        labels={"outcome": "failed"},
        jitter=0.2,
        digits=2,
    )
    inc.metric(
        "radio_link_packet_loss_ratio",
        "gate-control-bridge",
        lambda t: 0.03 if t < onset else 0.11,
        labels={"link": "hartsmoor"},
        jitter=0.3,
        digits=3,
    )
    inc.metric(
        "lock_cycles_overdue",
        "lockage-scheduler",
        lambda t: 0 if t < full + 14 * MINUTE else 9,
        jitter=0.1,
        digits=0,
    )
    inc.fleet(
        gate_control_bridge={"err": add(step(full, 0, 0.7))},
        lockage_scheduler={"err": add(step(full + 14 * MINUTE, 0, 0.02))},
    )
    inc.alert = alerts.alertmanager(
        "LockCyclesOverdue",
        "lockage-scheduler",
        ts("2027-08-23T09:41"),
        "critical",
        "Lock cycles overdue at several locks",
        "9 lock cycles overdue across 7 locks",
        "sum(lock_cycles_overdue) > 3",
        team="lock-operations",
    )
    inc.blame(
        guilty, [rel], "gate-control-bridge", "code_defect", [dbg, poll, ovd, lsd, ais, aisd], onset
    )
    return signoffs(inc)


def xh60_lock9_stoppage() -> ExtIncident:
    now = ts("2027-09-06T09:30")
    inc = ExtIncident(
        "xh60-lock9-stoppage",
        "No passages through lock L09 for 30 minutes",
        """Lock 9 (Ashcombe Top) is closed for a planned stoppage from 07:00Z to replace its top
        gates, announced two weeks before as NtS-2027-0588. The electricians isolate the lock's
        power at 07:05, so its PLC stops answering and gate-control-bridge logs it unreachable;
        lockage-scheduler refuses L09 bookings with 409 and the passage counter for L09 drops to
        zero. The throughput alert has no maintenance silence. Everything behaves as designed and
        the other locks are busy as usual. Decoys: a gate-control-bridge deploy at 06:50 and a
        notices-publisher deploy at 07:20. Nothing is wrong.""",
        now,
        ASHCOMBE,
        seed=10060,
        hours=6,
    )
    inc.doc(
        "NtS-2027-0588: Lock 9 Ashcombe Top, stoppage",
        """Notice to Skippers NtS-2027-0588 (published 2027-08-23T10:00Z)
Waterway: Ashcombe Navigation. Location: Lock 9 (Ashcombe Top).
Type: stoppage (closure to navigation). Reason: replacement of the top gates.
From 2027-09-06T07:00Z until 2027-09-10T16:00Z. No passage. Moorings above and below the lock
remain available; the towpath is diverted. Power to the lock is isolated during the works.""",
    )
    inc.doc(
        "Alert: lock throughput",
        """LockThroughputZero fires when a lock that passed boats in the previous hour records no
passage for 30 minutes between 07:00 and 19:00 UTC. Stoppages are not silenced automatically;
the on-call checks the Notices to Skippers and acknowledges.""",
    )
    inc.noise(every=8)
    r = inc.rng
    inc.background(
        inc.begin,
        ts("2027-09-06T06:20"),
        5,
        ["licence-billing", "level-telemetry", "skipper-portal", "ais-ingest"],
    )
    gc = inc.code(
        ts("2027-09-06T06:12"),
        "gate-control-bridge",
        signed(r, "plc: read the L09 top gate limit switches from the new register map"),
        "bridge/plc_maps/l09.yaml",
        "top_gate_open_limit: 40012\ntop_gate_closed_limit: 40013",
        "top_gate_open_limit: 40112\ntop_gate_closed_limit: 40113",
        3,
        author="f.adeyemi",
    )
    gcd = inc.deploy(ts("2027-09-06T06:50"), "gate-control-bridge", author="argocd")
    npc = inc.code(
        ts("2027-09-06T06:40"),
        "notices-publisher",
        signed(r, "nts: send the stoppage end time as validity end"),
        "lib/notices/nts_xml.ex",
        "      element(:validity, [element(:from, n.starts_at)])",
        "      element(:validity, [element(:from, n.starts_at), element(:to, n.ends_at)])",
        64,
        author="hollis.g",
    )
    npd = inc.deploy(ts("2027-09-06T07:20"), "notices-publisher", author="argocd")
    onset = ts("2027-09-06T07:00")
    iso_at = ts("2027-09-06T07:05")
    inc.errors(
        "gate-control-bridge",
        iso_at,
        now,
        0.25,
        lambda r: (
            f"PLC L09 unit {r.randint(1, 3)} unreachable via scada-gw-1 (Modbus exception 0x0B gateway target device failed to respond)"
        ),
        logger="bridge.health",
    )
    inc.errors(
        "lockage-scheduler",
        onset,
        now,
        0.3,
        lambda r: (
            f"booking refused lock=L09 ref=ABK-{r.randint(93000, 93900)}: 409 lock closed (stoppage NtS-2027-0588)"
        ),
        level="WARNING",
    )
    inc.metric(
        "lock_passages_per_hour",
        "lockage-scheduler",
        lambda t: 0 if t >= onset else (2 if t.hour < 6 else 6),
        labels={"lock": "L09"},
        jitter=0.2,
        digits=0,
    )
    inc.metric(
        "lock_passages_per_hour",
        "lockage-scheduler",
        lambda t: 2 if t.hour < 6 else 7,
        labels={"lock": "L08"},
        jitter=0.2,
        digits=0,
    )
    inc.metric(
        "plc_reachable",
        "gate-control-bridge",
        step(iso_at, 1, 0),
        labels={"lock": "L09"},
        jitter=0,
        digits=0,
    )
    inc.fleet()
    inc.alert = alerts.grafana(
        "LockThroughputZero",
        "lockage-scheduler",
        ts("2027-09-06T07:40"),
        "warning",
        "Passages per lock",
        "0 passages in 30m",
        lock="L09",
    )
    inc.healthy(
        "lockage-scheduler",
        "Lock 9 is closed for a planned stoppage announced in NtS-2027-0588; its PLC is powered down for the works",
        [gc, gcd, npc, npd],
        onset,
    )
    return signoffs(inc)


# --- Quillstone Press -----------------------------------------------------------------------------


def xh61_spine_floor() -> ExtIncident:
    now = ts("2027-09-14T13:40")
    inc = ExtIncident(
        "xh61-spine-floor",
        "Binder PB-2 cover misfit rejects above 5 per hour",
        """An imposition commit snaps the computed spine width to the binder clamp's 0.5 mm steps
        with math.Floor where the old code rounded to the nearest step, so about half the covers
        come out up to 0.5 mm narrower than the book block; the binder rejects those beyond its
        0.3 mm tolerance. The commit shipped in the 10:20 imposition release with two siblings (a
        spine-text rule in the same file and a JDF paper stock id). Covers imposed after the
        release reach the binder from 11:10; rejects and reprints climb. No service logs an
        error: the binder's misfit reports are warnings in press-queue and the rest is metrics.
        Decoys: the spine-text sibling, a press-queue deploy at 12:40 that parses the binder's
        misfit reports from a new firmware, a binder glue profile config change and a preflight
        deploy. Category: code_defect.""",
        now,
        QUILLSTONE,
        seed=10061,
    )
    inc.doc(
        "Spine width and the perfect binder",
        """imposition computes the spine width of each title from its extent and the paper's
caliper (spine = pages / 2 x caliper + 0.4 mm cover allowance) and prints the cover to it. The
perfect binder PB-2 clamps in 0.5 mm steps and measures each book block against its cover; a
cover more than 0.3 mm narrower or wider than the block is rejected to the reprint bin and
press-queue creates a reprint job. Normal reject rate: under 1 per hour.""",
    )
    inc.noise(every=9)
    r = inc.rng
    inc.background(
        inc.begin,
        ts("2027-09-14T09:30"),
        6,
        ["order-intake", "onix-ingest", "shipping-labels", "publisher-dashboard"],
    )
    guilty = inc.code(
        ts("2027-09-13T16:12"),
        "imposition",
        refs(r, "Snap spine width to the binder's 0.5 mm clamp steps"),
        "internal/spine/spine.go",
        """// Width returns the spine width in mm for a block of `pages` on paper of `caliperUm`.
func Width(pages int, caliperUm int) float64 {
	raw := float64(pages)/2*float64(caliperUm)/1000 + coverAllowanceMm
	return math.Round(raw*10) / 10
}""",
        """// Width returns the spine width in mm for a block of `pages` on paper of `caliperUm`,
// in the 0.5 mm steps the PB-2 clamp uses.
func Width(pages int, caliperUm int) float64 {
	raw := float64(pages)/2*float64(caliperUm)/1000 + coverAllowanceMm
	return math.Floor(raw*2) / 2
}""",
        18,
        author="p.santos",
    )
    text = inc.code(
        ts("2027-09-13T17:05"),
        "imposition",
        refs(r, "Print spine text only when the spine is at least 6 mm"),
        "internal/spine/spine.go",
        """func SpineText(w float64, title string) string {
	return title
}""",
        """func SpineText(w float64, title string) string {
	if w < 6 {
		return ""
	}
	return title
}""",
        31,
        author="p.santos",
    )
    jdf = inc.code(
        ts("2027-09-14T09:02"),
        "imposition",
        refs(r, "JDF: write the paper stock id into the job ticket"),
        "internal/jdf/ticket.go",
        "\tt.Media = Media{Weight: s.PaperGsm}",
        "\tt.Media = Media{Weight: s.PaperGsm, StockID: s.PaperStock}",
        52,
        author="gwen.h",
    )
    rel = inc.deploy(
        ts("2027-09-14T10:20"),
        "imposition",
        version="v3.18.0",
        ships=[guilty, text, jdf],
        summary="imposition v3.18.0: JDF paper stock id",
        author="flux",
    )
    glue = inc.config(
        ts("2027-09-14T10:48"),
        "press-queue",
        refs(r, "Binder profile: hot-melt 175C for 90gsm cream stock"),
        "config/binder/pb2-profiles.yaml",
        "cream-90:\n  glue_temp_c: 170\n  clamp_pressure_bar: 4.5",
        "cream-90:\n  glue_temp_c: 175\n  clamp_pressure_bar: 4.5",
    )
    pf = inc.code(
        ts("2027-09-14T10:30"),
        "preflight",
        refs(r, "Warn on RGB images in covers"),
        "preflight/checks/colour.py",
        "    if page.is_cover and has_spot_colours(page):",
        "    if page.is_cover and (has_spot_colours(page) or has_rgb_images(page)):",
        40,
    )
    pfd = inc.deploy(ts("2027-09-14T11:05"), "preflight", author="flux")
    mis = inc.code(
        ts("2027-09-14T12:05"),
        "press-queue",
        refs(r, "Binder: parse misfit reports from PB-2 firmware 4.2"),
        "src/main/kotlin/com/quillstone/press/binder/MisfitReportParser.kt",
        '        val (block, cover) = line.substringAfter("MISFIT ").split(";").map { it.toDouble() }',
        '        val fields = line.substringAfter("MISFIT ").split(";", "|")\n        val (block, cover) = fields.take(2).map { it.trim().toDouble() }',
        22,
        author="yuki.m",
    )
    pqd = inc.deploy(ts("2027-09-14T12:40"), "press-queue", author="flux")
    onset = ts("2027-09-14T11:10")
    inc.errors(
        "press-queue",
        onset,
        now,
        lambda f: 0.05 + 0.25 * f,
        lambda r: (
            lambda b: (
                f"binder PB-2 reported cover misfit job=QJ-{r.randint(400000, 499999)} block={b:.1f}mm cover={b - r.choice([0.4, 0.4, 0.5]):.1f}mm; reprint queued"
            )
        )(r.randint(60, 300) / 10),
        level="WARNING",
        logger="c.q.press.binder.MisfitHandler",
    )
    inc.errors(
        "imposition",
        ts("2027-09-14T10:21"),
        now,
        0.6,
        lambda r: (
            lambda p: (
                f'level=info msg="imposed" pages={p} sheets={p // 8} spine_mm={(p / 2 * 90 / 1000 + 0.4) // 0.5 * 0.5:.1f}'
            )
        )(r.randrange(96, 600, 8)),
        level="INFO",
    )

    def frac(t: datetime) -> float:
        return 0.0 if t < onset else min(1.0, (t - onset) / (now - onset))

    inc.metric(
        "binder_cover_misfit_rejects_per_hour",
        "press-queue",
        lambda t: 0.4 if t < onset else 2 + 12 * frac(t),
        labels={"binder": "PB-2"},
        jitter=0.15,
        digits=1,
    )
    inc.metric(
        "reprint_jobs_created_per_hour",
        "press-queue",
        lambda t: 0.6 if t < onset else 2 + 11 * frac(t),
        labels={"reason": "binding"},
        jitter=0.15,
        digits=1,
    )
    inc.metric(
        "spine_width_error_mm_p50",
        "press-queue",
        lambda t: 0.05 if t < onset else 0.24,
        labels={"binder": "PB-2", "direction": "cover_narrower"},
        jitter=0.1,
        digits=2,
    )
    inc.metric(
        "binder_books_bound_per_hour",
        "press-queue",
        lambda t: 410,
        labels={"binder": "PB-2"},
        jitter=0.05,
        digits=0,
    )
    inc.fleet()
    inc.alert = alerts.grafana(
        "Binder misfit rejects high",
        "press-queue",
        ts("2027-09-14T13:05"),
        "warning",
        "PB-2 misfit rejects per hour",
        "11.6",
        binder="PB-2",
    )
    inc.blame(
        guilty, [rel], "imposition", "code_defect", [text, jdf, glue, pf, pfd, mis, pqd], onset
    )
    return inc


def xh62_token_cache_minutes() -> ExtIncident:
    now = ts("2027-09-21T10:25")
    inc = ExtIncident(
        "xh62-token-cache-minutes",
        "Label creation failures above 20%",
        """A shipping-labels commit starts caching the ParcelRoute OAuth access token in the shared
        Redis cache instead of fetching one per label, but builds the cache lifetime as
        DateInterval('PT' . expires_in . 'M'): 3600 minutes where ParcelRoute means 3600 seconds.
        It shipped at 08:40 with a manifest commit; the token cached at 08:41 expires at 09:41
        and from then every label call sends the expired token and gets 401 invalid_token, while
        no new token is requested (the token request rate fell to zero at 08:41). Decoys: a
        shipping-labels deploy at 09:30 changing the label PDF resolution, ParcelRoute's
        scheduled maintenance notice for its tracking API that morning, and an order-intake
        deploy. Category: code_defect.""",
        now,
        QUILLSTONE,
        seed=10062,
        hours=6,
    )
    inc.doc(
        "ParcelRoute integration",
        """shipping-labels authenticates to ParcelRoute (api.parcelroute.example) with OAuth2 client
credentials: POST /oauth/token returns an access token with expires_in in seconds (3600). Labels:
POST /v2/shipments/label. The Symfony cache.app pool is Redis (shared by all pods, survives
deploys). A 401 from ParcelRoute means our token is missing, wrong or expired.""",
    )
    inc.doc(
        "status.parcelroute.example: scheduled maintenance",
        """Tracking API v1 - scheduled maintenance
Scheduled for 2027-09-21T09:00Z to 2027-09-21T11:00Z. Tracking API v1 (GET /v1/tracking) is
read-only and may return 503 for up to 5 minutes. Label and shipment APIs are not affected.""",
    )
    inc.noise(every=8)
    r = inc.rng
    inc.background(
        inc.begin,
        ts("2027-09-21T08:00"),
        5,
        ["onix-ingest", "preflight", "imposition", "publisher-dashboard"],
    )
    guilty = inc.code(
        ts("2027-09-20T15:44"),
        "shipping-labels",
        refs(r, "Cache the ParcelRoute token between requests"),
        "src/Carrier/ParcelRouteClient.php",
        """    private function accessToken(): string
    {
        $body = $this->http->request('POST', '/oauth/token', ['body' => $this->credentials()])->toArray();

        return $body['access_token'];
    }""",
        """    private function accessToken(): string
    {
        return $this->cache->get('parcelroute.token', function (ItemInterface $item): string {
            $body = $this->http->request('POST', '/oauth/token', ['body' => $this->credentials()])->toArray();
            $item->expiresAfter(new \\DateInterval('PT'.$body['expires_in'].'M'));

            return $body['access_token'];
        });
    }""",
        74,
        author="arjun.k",
    )
    man = inc.code(
        ts("2027-09-21T07:58"),
        "shipping-labels",
        refs(r, "Manifest: close the NEXTDAY manifest at 16:30"),
        "config/packages/manifests.yaml",
        "nextday:\n  close_at: '16:00'",
        "nextday:\n  close_at: '16:30'",
        4,
        author="c.obrien",
    )
    rel = inc.deploy(ts("2027-09-21T08:40"), "shipping-labels", version="2.44.0", author="flux")
    dpi = inc.code(
        ts("2027-09-21T09:10"),
        "shipping-labels",
        refs(r, "Labels: render at 203 dpi for the new Zebra printers"),
        "src/Label/LabelRenderer.php",
        "    private const DPI = 300;",
        "    private const DPI = 203;",
        15,
        author="c.obrien",
    )
    dpid = inc.deploy(ts("2027-09-21T09:30"), "shipping-labels", author="flux")
    oi = inc.code(
        ts("2027-09-21T08:55"),
        "order-intake",
        refs(r, "EDI: accept ship-to GLNs with a leading zero"),
        "src/Orders/Edi/ShipToResolver.cs",
        "        var gln = segment.Gln;",
        "        var gln = segment.Gln.PadLeft(13, '0');",
        28,
    )
    oid = inc.deploy(ts("2027-09-21T09:20"), "order-intake", author="flux")
    cached = ts("2027-09-21T08:41")
    onset = ts("2027-09-21T09:41")
    trace = php_trace(
        [
            "/srv/app/src/Carrier/ParcelRouteClient.php(61): App\\Carrier\\ParcelRouteClient->request('POST', '/v2/shipments/...', Array)",
            "/srv/app/src/Label/LabelService.php(44): App\\Carrier\\ParcelRouteClient->createLabel(Object(App\\Label\\Shipment))",
            "/srv/app/src/Controller/LabelController.php(37): App\\Label\\LabelService->create(Object(App\\Label\\Shipment))",
            "/srv/app/vendor/symfony/http-kernel/HttpKernel.php(181): App\\Controller\\LabelController->create(Object(Symfony\\Component\\HttpFoundation\\Request))",
        ]
    )
    inc.errors(
        "shipping-labels",
        onset,
        now,
        1.6,
        lambda r: (
            f'request.CRITICAL: Uncaught PHP Exception App\\Carrier\\ParcelRouteException: "ParcelRoute 401 Unauthorized: invalid_token (The access token expired)" at /srv/app/src/Carrier/ParcelRouteClient.php line 88 {{"shipment":"QS-{r.randint(780000, 799999)}"}}'
        ),
        exception=trace,
        channel="request",
    )
    inc.errors(
        "press-queue",
        onset + 3 * MINUTE,
        now,
        0.4,
        lambda r: (
            f"dispatch hold: no label for job QJ-{r.randint(500000, 599999)} (shipping-labels 500)"
        ),
        level="WARNING",
    )
    inc.errors(
        "shipping-labels",
        ts("2027-09-21T09:02"),
        ts("2027-09-21T09:06"),
        1.0,
        "app.WARNING: ParcelRoute tracking poll failed: 503 Service Unavailable (GET /v1/tracking)",
        level="WARNING",
    )
    inc.metric(
        "parcelroute_oauth_token_requests_per_second",
        "shipping-labels",
        lambda t: 0.15 if t < cached else 0.0,
        jitter=0.1,
        digits=3,
    )
    inc.metric(
        "parcelroute_responses_per_second",
        "shipping-labels",
        lambda t: 0.0 if t < onset else 0.14,
        labels={"code": "401"},
        jitter=0.1,
        digits=3,
    )
    inc.metric(
        "parcelroute_responses_per_second",
        "shipping-labels",
        lambda t: 0.15 if t < onset else 0.005,
        labels={"code": "201"},
        jitter=0.1,
        digits=3,
    )
    inc.metric(
        "dispatch_jobs_on_hold",
        "press-queue",
        lambda t: 3 if t < onset else 3 + (t - onset).total_seconds() / 90,
        jitter=0.05,
        digits=0,
    )
    inc.fleet(shipping_labels={"err": add(step(onset, 0, 0.93))})
    inc.alert = alerts.datadog(
        "Label creation failures above 20%",
        "shipping-labels",
        ts("2027-09-21T09:58"),
        "critical",
        "sum:shipping.labels.failed{env:prod}.as_count() / sum:shipping.labels.requested{env:prod}.as_count()",
        0.94,
        0.2,
        ["team:fulfilment", "carrier:parcelroute"],
    )
    inc.blame(guilty, [rel], "shipping-labels", "code_defect", [man, dpi, dpid, oi, oid], onset)
    return inc


def xh63_strict_isbn_flag() -> ExtIncident:
    now = ts("2027-09-28T14:15")
    inc = ExtIncident(
        "xh63-strict-isbn-flag",
        "Order rejection rate above 8%",
        """At 13:02 the order-intake flag for strict ISBN validation is switched on for all traffic
        (planned for the REST API of new retailers): it accepts only 13-digit ISBNs with a 978 or
        979 prefix. The distributor GZ-DIST still sends ISBN-10s in its EDI 850 orders, as its
        trading agreement allows, and every such line is now rejected; order-intake alerts on its
        rejection rate. Decoys: an order-intake commit to the ISBN validator's message (the file
        and function in every trace) deployed at 13:20, an onix-ingest deploy that normalises
        hyphenated ISBNs, and a publisher-dashboard deploy. Category: configuration_error.""",
        now,
        QUILLSTONE,
        seed=10063,
        hours=6,
    )
    inc.doc(
        "Trading agreements: EDI order formats",
        """Distributors send EDI X12 850 purchase orders; the item is identified in PO1 by ISBN (qualifier
IB). GZ-DIST's agreement (2019) allows ISBN-10 or ISBN-13; their system still sends ISBN-10 for
backlist titles. order-intake converts ISBN-10 to ISBN-13 (978 prefix, recomputed check digit)
before looking the title up. Rejected lines go back in the EDI 855 acknowledgement with code IR.""",
    )
    inc.noise(every=8)
    r = inc.rng
    inc.background(
        inc.begin,
        ts("2027-09-28T11:30"),
        6,
        ["preflight", "imposition", "press-queue", "shipping-labels"],
    )
    msg = inc.code(
        ts("2027-09-28T12:10"),
        "order-intake",
        refs(r, "ISBN validator: name the offending value in the error"),
        "src/Orders/Isbn/IsbnValidator.cs",
        '            throw new ValidationException("invalid ISBN");',
        "            throw new ValidationException($\"ISBN '{raw}' is not valid ({reason})\");",
        41,
        author="gwen.h",
    )
    flag = inc.flag(
        ts("2027-09-28T13:02"),
        "order-intake",
        "intake.isbn.strict",
        "enabled: false\nrollout: 0\naccepts: isbn10-or-isbn13\ndescription: strict mode accepts only ISBN-13 with a 978/979 prefix",
        "enabled: true\nrollout: 100\naccepts: isbn13-only\ndescription: strict mode accepts only ISBN-13 with a 978/979 prefix",
        refs(r, "Strict ISBN validation on (new retailer onboarding)"),
        author="yuki.m",
    )
    oid = inc.deploy(ts("2027-09-28T13:20"), "order-intake", author="flux")
    ox = inc.code(
        ts("2027-09-28T12:20"),
        "onix-ingest",
        refs(r, "Normalise hyphenated ISBN-13 in ProductIdentifier"),
        "src/main/java/com/quillstone/onix/ProductIdentifiers.java",
        "        return id.getIDValue();",
        '        return id.getIDValue().replace("-", "").trim();',
        33,
        author="arjun.k",
    )
    oxd = inc.deploy(ts("2027-09-28T12:45"), "onix-ingest", author="flux")
    pdb = inc.code(
        ts("2027-09-28T12:30"),
        "publisher-dashboard",
        refs(r, "Titles: show ISBN-10 alongside ISBN-13"),
        "app/titles/TitleRow.tsx",
        "      <td>{title.isbn13}</td>",
        "      <td>{title.isbn13}</td>\n      <td>{title.isbn10 ?? '-'}</td>",
        14,
    )
    pdd = inc.deploy(ts("2027-09-28T13:35"), "publisher-dashboard", author="flux")
    onset = ts("2027-09-28T13:03")
    stack = dotnet_stack(
        "Quillstone.Orders.Validation.ValidationException",
        "invalid ISBN",
        [
            (
                "Quillstone.Orders.Isbn.IsbnValidator.Validate(String raw)",
                "/src/Orders/Isbn/IsbnValidator.cs",
                41,
            ),
            (
                "Quillstone.Orders.Edi.Po1LineMapper.Map(Po1Segment segment)",
                "/src/Orders/Edi/Po1LineMapper.cs",
                57,
            ),
            (
                "Quillstone.Orders.Edi.EdiOrderHandler.HandleAsync(X12Document doc, CancellationToken ct)",
                "/src/Orders/Edi/EdiOrderHandler.cs",
                92,
            ),
        ],
    )
    deployed = ts("2027-09-28T13:20")

    def reject(r: random.Random) -> str:
        isbn = f"{r.choice(['1', '0'])}{r.randint(100000000, 999999999)}"[:9] + r.choice(
            "0123456789X"
        )
        return f"EDI 850 line rejected po=GZ{r.randint(480000, 489999)} line={r.randint(1, 40)}: ISBN '{isbn}' invalid"

    inc.errors(
        "order-intake",
        onset,
        deployed,
        0.9,
        reject,
        exception=stack,
        SourceContext="Quillstone.Orders.Edi.EdiOrderHandler",
    )
    stack2 = stack.replace("invalid ISBN", "ISBN '1916043350' is not valid (not ISBN-13)")
    inc.errors(
        "order-intake",
        deployed,
        now,
        0.9,
        lambda r: reject(r).replace("invalid", "is not valid (not ISBN-13)"),
        exception=stack2,
        SourceContext="Quillstone.Orders.Edi.EdiOrderHandler",
    )
    inc.errors(
        "order-intake",
        onset + 5 * MINUTE,
        now,
        0.12,
        lambda r: (
            f"EDI 855 sent to GZ-DIST po=GZ{r.randint(480000, 489999)} lines_rejected={r.randint(3, 30)} code=IR"
        ),
        level="INFO",
    )
    inc.metric(
        "orders_lines_rejected_per_minute",
        "order-intake",
        lambda t: 0.3 if t < onset else 9.5,
        labels={"reason": "invalid_isbn", "channel": "edi"},
        jitter=0.15,
        digits=1,
    )
    inc.metric(
        "orders_lines_rejected_per_minute",
        "order-intake",
        lambda t: 0.2,
        labels={"reason": "invalid_isbn", "channel": "rest"},
        jitter=0.3,
        digits=1,
    )
    inc.metric(
        "orders_lines_accepted_per_minute",
        "order-intake",
        lambda t: 95 if t < onset else 83,
        jitter=0.08,
        digits=0,
    )
    inc.fleet(order_intake={"err": add(step(onset, 0, 0.1))})
    inc.alert = alerts.datadog(
        "Order rejection rate above 8%",
        "order-intake",
        ts("2027-09-28T13:41"),
        "high",
        "sum:orders.lines.rejected{env:prod}.as_count() / sum:orders.lines.received{env:prod}.as_count()",
        0.103,
        0.08,
        ["team:order-management"],
    )
    inc.blame(flag, [], "order-intake", "configuration_error", [msg, oid, ox, oxd, pdb, pdd], onset)
    return inc


def xh64_nas_stale_handles() -> ExtIncident:
    now = ts("2027-10-05T11:20")
    inc = ExtIncident(
        "xh64-nas-stale-handles",
        "Presses idle: no jobs reached the RIP hot folders for 20 minutes",
        """At 10:14 the prepress NAS nas-prepress-01 loses controller A's heartbeat and fails over to
        controller B. The takeover does not carry the NFS v4.1 state over cleanly: every client
        that had the export mounted (press-queue's hot folder writer, imposition writing JDF
        tickets, preflight reading interiors) gets ESTALE (Stale file handle) on its open
        directories until remounted. Jobs stop reaching the RIP hot folders and the presses run
        dry; press-queue alerts. No change is involved. Decoys: a press-queue deploy at 09:58
        whose commit makes the hot folder writer write a .part file and rename it (HotFolderWriter
        is in every trace), an imposition deploy, and a preflight config change after the onset.
        Category: infrastructure.""",
        now,
        QUILLSTONE,
        seed=10064,
        hours=6,
    )
    inc.doc(
        "Prepress storage",
        """nas-prepress-01 is a two-controller NAS (active/standby) exporting /prepress over NFS v4.1.
press-queue mounts it at /mnt/hotfolders (the RIP watches one hot folder per press), imposition
writes JDF tickets to /mnt/hotfolders/jdf, preflight reads interiors from /mnt/hotfolders/in.
After a controller takeover, clients that see 'Stale file handle' need their mounts refreshed
(restart the pods or run the remount job). Vendor support: storage-support@nasvendor.example.""",
    )
    inc.noise(every=8)
    r = inc.rng
    inc.background(
        inc.begin,
        ts("2027-10-05T09:00"),
        5,
        ["order-intake", "onix-ingest", "shipping-labels", "publisher-dashboard"],
    )
    part = inc.code(
        ts("2027-10-05T09:20"),
        "press-queue",
        refs(r, "Hot folders: write a .part file and rename it when complete"),
        "src/main/kotlin/com/quillstone/press/hotfolder/HotFolderWriter.kt",
        """    fun drop(job: PressJob, folder: Path) {
        Files.copy(job.pdf, folder.resolve(job.fileName), StandardCopyOption.REPLACE_EXISTING)
    }""",
        """    fun drop(job: PressJob, folder: Path) {
        val part = folder.resolve(job.fileName + ".part")
        Files.copy(job.pdf, part, StandardCopyOption.REPLACE_EXISTING)
        Files.move(part, folder.resolve(job.fileName), StandardCopyOption.ATOMIC_MOVE)
    }""",
        18,
        author="yuki.m",
    )
    pqd = inc.deploy(ts("2027-10-05T09:58"), "press-queue", author="flux")
    imp = inc.code(
        ts("2027-10-05T09:30"),
        "imposition",
        refs(r, "Sheets: 2-up for B-format on the P4 roll"),
        "internal/layout/sheets.go",
        '\t"B-format": {Up: 1},',
        '\t"B-format": {Up: 2},',
        44,
        author="p.santos",
    )
    impd = inc.deploy(ts("2027-10-05T10:05"), "imposition", author="flux")
    onset = ts("2027-10-05T10:14")
    pfc = inc.config(
        ts("2027-10-05T10:40"),
        "preflight",
        refs(r, "preflight: worker concurrency 4 -> 2 while prepress storage is slow"),
        "deploy/preflight/values-prod.yaml",
        "celery:\n  concurrency: 4",
        "celery:\n  concurrency: 2",
        author="gwen.h",
    )
    for k, text in enumerate(
        [
            "kernel: CLUSTER: heartbeat from controller A lost (3 of 3 missed)",
            "kernel: CLUSTER: HA takeover initiated by controller B",
            "nfsd: NFSv4 grace period started (90 s) on controller B",
            "kernel: CLUSTER: takeover complete, controller B serving /prepress",
        ]
    ):
        inc.log(
            onset - 40 * timedelta(seconds=1) + timedelta(seconds=25 * k),
            "nas-prepress-01",
            "WARNING" if k < 2 else "INFO",
            text,
            facility="kern",
            host="nas-prepress-01b",
        )
    stack = java_stack(
        "java.nio.file.FileSystemException",
        "/mnt/hotfolders/P2-interior/QJ-612044.pdf.part: Stale file handle",
        [
            ("sun.nio.fs.UnixException.translateToIOException", "UnixException.java", 100),
            (
                "sun.nio.fs.UnixFileSystemProvider.newByteChannel",
                "UnixFileSystemProvider.java",
                261,
            ),
            ("java.nio.file.Files.copy", "Files.java", 3161),
            ("com.quillstone.press.hotfolder.HotFolderWriter.drop", "HotFolderWriter.kt", 20),
            ("com.quillstone.press.scheduling.PressScheduler.dispatch", "PressScheduler.kt", 77),
        ],
    )
    inc.errors(
        "press-queue",
        onset + timedelta(seconds=30),
        now,
        1.1,
        lambda r: (
            f"hot folder drop failed press=P{r.randint(1, 4)} job=QJ-{r.randint(610000, 619999)}: /mnt/hotfolders/P{r.randint(1, 4)}-interior: Stale file handle"
        ),
        stack_trace=stack,
        logger_name="c.q.press.scheduling.PressScheduler",
    )
    inc.errors(
        "imposition",
        onset + MINUTE,
        now,
        0.4,
        lambda r: (
            f'level=error msg="write JDF ticket" job=QJ-{r.randint(610000, 619999)} err="open /mnt/hotfolders/jdf/QJ-{r.randint(610000, 619999)}.jdf: stale NFS file handle"'
        ),
    )
    inc.errors(
        "preflight",
        onset + 2 * MINUTE,
        now,
        0.3,
        lambda r: (
            f"preflight.check[{r.getrandbits(64):016x}] raised unexpected: OSError(116, 'Stale file handle') reading /mnt/hotfolders/in/{r.randint(9781800000000, 9781999999999)}_interior.pdf"
        ),
    )
    inc.metric(
        "nfs_client_ops_errors_per_second",
        "press-queue",
        lambda t: 0 if t < onset else 2.4,
        labels={"mount": "/mnt/hotfolders", "error": "ESTALE"},
        jitter=0.2,
        digits=2,
    )
    inc.metric(
        "nfs_client_ops_errors_per_second",
        "imposition",
        lambda t: 0 if t < onset else 0.9,
        labels={"mount": "/mnt/hotfolders", "error": "ESTALE"},
        jitter=0.2,
        digits=2,
    )
    inc.metric(
        "nas_controller_active",
        "nas-prepress-01",
        lambda t: 1 if t < onset else 2,
        labels={"cluster": "nas-prepress-01"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "press_jobs_in_hotfolder",
        "press-queue",
        lambda t: 6 if t < onset else max(0.0, 6 - (t - onset).total_seconds() / 180),
        labels={"press": "all"},
        jitter=0.05,
        digits=0,
    )
    inc.metric(
        "press_utilisation_ratio",
        "press-queue",
        lambda t: 0.82 if t < onset + 15 * MINUTE else 0.04,
        jitter=0.05,
        digits=2,
    )
    inc.fleet(
        press_queue={"err": add(step(onset, 0, 0.35))},
        imposition={"err": add(step(onset, 0, 0.4))},
        preflight={"err": add(step(onset, 0, 0.2))},
    )
    inc.alert = alerts.alertmanager(
        "PressesStarved",
        "press-queue",
        ts("2027-10-05T10:36"),
        "critical",
        "Presses idle: no jobs reached the RIP hot folders for 20 minutes",
        "0 successful hot folder drops in 20m while 140 jobs are scheduled",
        'sum(increase(hotfolder_drops_total{outcome="ok"}[20m])) == 0 and sum(press_jobs_scheduled) > 0',
        team="production",
    )
    inc.outside(
        "prepress NAS controller failover left NFS clients with stale file handles",
        "press-queue",
        "infrastructure",
        [part, pqd, imp, impd, pfc],
        onset,
    )
    return inc


def xh65_damaged_interior_pdf() -> ExtIncident:
    now = ts("2027-10-12T16:45")
    inc = ExtIncident(
        "xh65-damaged-interior-pdf",
        "Preflight backlog: oldest job waiting over 45 minutes",
        """A publisher uploaded an interior PDF whose cross-reference stream is damaged, and their
        upload tool retried twice, so three preflight messages point at the same file. Ghostscript
        loops on the file until Celery's 600 s hard time limit kills the worker process; with
        late acknowledgement each message goes back to the queue and is picked up again. From
        14:48 (the first kill at 14:58) two to three of the four worker processes are always stuck on this one file, other
        interiors pass at a fraction of the usual rate, and the backlog ages until preflight
        alerts. Decoys: a preflight deploy at 14:20 adding an RGB check for covers, an onix-ingest
        deploy and an imposition config change. Category: data_quality.""",
        now,
        QUILLSTONE,
        seed=10065,
        hours=6,
    )
    inc.doc(
        "Runbook: preflight",
        """preflight consumes preflight.jobs (RabbitMQ) with 4 worker processes per pod, 1 pod,
prefetch 1 and acks_late, so a job whose worker dies is redelivered. Each job runs qpdf --check
and then Ghostscript (pdfwrite to the output intent). Hard time limit 600 s per job. A file that
fails repeatedly can be parked with `celery call preflight.park --args '["<job id>"]'`; the
publisher is then asked to re-export.""",
    )
    inc.noise(every=8)
    r = inc.rng
    inc.background(
        inc.begin,
        ts("2027-10-12T13:40"),
        6,
        ["order-intake", "press-queue", "shipping-labels", "publisher-dashboard"],
    )
    rgb = inc.code(
        ts("2027-10-12T13:50"),
        "preflight",
        refs(r, "Covers: flag RGB images in the colour check"),
        "preflight/checks/colour.py",
        "    if page.is_cover and has_spot_colours(page):",
        "    if page.is_cover and (has_spot_colours(page) or has_rgb_images(page)):",
        40,
        author="gwen.h",
    )
    pfd = inc.deploy(ts("2027-10-12T14:20"), "preflight", author="flux")
    ox = inc.code(
        ts("2027-10-12T14:05"),
        "onix-ingest",
        refs(r, "Read <PageCount> when <Extent> is missing"),
        "src/main/java/com/quillstone/onix/ExtentReader.java",
        '        return extent(product, "00").orElseThrow();',
        '        return extent(product, "00").or(() -> pageCount(product)).orElseThrow();',
        27,
        author="arjun.k",
    )
    oxd = inc.deploy(ts("2027-10-12T14:38"), "onix-ingest", author="flux")
    onset = ts("2027-10-12T14:48")
    imc = inc.config(
        ts("2027-10-12T15:20"),
        "imposition",
        refs(r, "imposition: JDF output retention 7d -> 3d"),
        "deploy/imposition/values-prod.yaml",
        "jdf:\n  retentionDays: 7",
        "jdf:\n  retentionDays: 3",
        author="p.santos",
    )
    bad = "9781916043358_interior_v3.pdf"
    jobs = [
        "a41f0c2e-5b7d-4d61-9f0e-3c2a8e1b7d90",
        "0c9d2e71-8a4b-4f3e-b1d2-6e5f7a8c9b01",
        "e7b3a9c4-1d2f-4e8a-9b6c-5f0d3e2a1c48",
    ]
    k = 0
    t = onset
    while t < now:
        job = jobs[k % 3]
        w = 1 + k % 4
        inc.log(
            t,
            "preflight",
            "INFO",
            f"Task preflight.check[{job}] received (file={bad}, redelivered={k >= 3})",
            worker=f"ForkPoolWorker-{w}",
        )
        inc.log(
            t + timedelta(seconds=6),
            "preflight",
            "ERROR",
            f"gs: **** Error: An error occurred while reading an XREF table. **** The file has been damaged. ({bad})",
            worker=f"ForkPoolWorker-{w}",
            job=job,
        )
        inc.log(
            t + timedelta(seconds=600),
            "preflight",
            "ERROR",
            f"Hard time limit (600s) exceeded for preflight.check[{job}]",
            worker=f"ForkPoolWorker-{w}",
        )
        inc.log(
            t + timedelta(seconds=601),
            "preflight",
            "ERROR",
            f"Process 'ForkPoolWorker-{w}' pid:{4100 + k} exited with 'signal 9 (SIGKILL)'",
            job=job,
        )
        k += 1
        t += timedelta(seconds=205 + r.uniform(0, 30))
    inc.errors(
        "publisher-dashboard",
        onset + 30 * MINUTE,
        now,
        0.1,
        lambda r: (
            f"title {r.randint(9781800000000, 9781999999999)} preflight pending for {r.randint(40, 95)} min; publisher notified of delay"
        ),
        level="WARNING",
    )
    inc.metric(
        "rabbitmq_queue_messages_ready",
        "preflight",
        lambda t: 3 if t < onset else 3 + (t - onset).total_seconds() / 110,
        labels={"queue": "preflight.jobs"},
        jitter=0.05,
        digits=0,
    )
    inc.metric(
        "preflight_oldest_job_age_seconds",
        "preflight",
        lambda t: 60 if t < onset else 60 + 0.95 * (t - onset).total_seconds(),
        jitter=0.05,
        digits=0,
    )
    inc.metric(
        "celery_worker_processes_busy",
        "preflight",
        lambda t: 1.5 if t < onset else 3.8,
        labels={"pod": "preflight-0"},
        jitter=0.05,
        digits=1,
    )
    inc.metric(
        "preflight_jobs_completed_per_minute",
        "preflight",
        lambda t: 1.9 if t < onset else 0.6,
        labels={"outcome": "passed"},
        jitter=0.15,
        digits=2,
    )
    inc.metric(
        "celery_task_time_limit_exceeded_per_minute",
        "preflight",
        lambda t: 0 if t < ts("2027-10-12T14:58") else 0.3,
        jitter=0.2,
        digits=2,
    )
    inc.fleet(preflight={"p99": add(step(onset, 0, 560000)), "rps": times(step(onset, 1, 0.35))})
    inc.alert = alerts.alertmanager(
        "PreflightBacklogOld",
        "preflight",
        ts("2027-10-12T15:52"),
        "warning",
        "Preflight backlog: oldest job waiting over 45 minutes",
        "oldest job in preflight.jobs is 48m old (52 ready)",
        "max(preflight_oldest_job_age_seconds) > 2700",
        team="prepress",
    )
    inc.outside(
        "damaged interior PDF (broken XREF) redelivered to preflight workers",
        "preflight",
        "data_quality",
        [rgb, pfd, ox, oxd, imc],
        onset,
    )
    return inc


def xh66_export_timeouts_unexplained() -> ExtIncident:
    now = ts("2027-10-19T12:10")
    inc = ExtIncident(
        "xh66-export-timeouts-unexplained",
        "publisher-dashboard report exports failing (504)",
        """From 11:02 to 11:21 about a third of the sales report exports on publisher-dashboard
        end in 504 after the 60 s gateway timeout; then they succeed again. The reporting replica
        of ordersdb shows nothing: CPU, waits, redo queue and replica lag are flat, as are the
        pod's CPU and memory, and other pages of the dashboard are unaffected. No change fits:
        a publisher-dashboard deploy 40 minutes before only reordered CSV columns and the other
        changes are elsewhere. What happened is not in the data (no network or database trace of
        it was collected). Decoys: the CSV deploy, an order-intake deploy and a read replica
        config change. Category: unknown.""",
        now,
        QUILLSTONE,
        seed=10066,
        hours=6,
    )
    inc.noise(every=8)
    r = inc.rng
    inc.background(
        inc.begin,
        ts("2027-10-19T09:30"),
        6,
        ["onix-ingest", "preflight", "imposition", "press-queue", "shipping-labels"],
    )
    csv = inc.code(
        ts("2027-10-19T09:55"),
        "publisher-dashboard",
        refs(r, "Exports: put ISBN first in the sales CSV"),
        "app/reports/export/salesCsv.ts",
        "const COLUMNS = ['title', 'isbn', 'format', 'units', 'revenue'];",
        "const COLUMNS = ['isbn', 'title', 'format', 'units', 'revenue'];",
        6,
        author="c.obrien",
    )
    pdd = inc.deploy(ts("2027-10-19T10:22"), "publisher-dashboard", author="flux")
    oi = inc.code(
        ts("2027-10-19T10:10"),
        "order-intake",
        refs(r, "Orders: expose the print site on GET /api/orders/{id}"),
        "src/Orders/Api/OrderDto.cs",
        '    public string Status { get; init; } = "";',
        '    public string Status { get; init; } = "";\n    public string PrintSite { get; init; } = "";',
        19,
        author="gwen.h",
    )
    oid = inc.deploy(ts("2027-10-19T10:44"), "order-intake", author="flux")
    rep = inc.config(
        ts("2027-10-19T10:30"),
        "publisher-dashboard",
        refs(r, "publisher-dashboard: reporting connection string ApplicationIntent=ReadOnly"),
        "deploy/publisher-dashboard/values-prod.yaml",
        "reporting:\n  connection: Server=ordersdb-ag-listener;Database=orders;MultiSubnetFailover=True",
        "reporting:\n  connection: Server=ordersdb-ag-listener;Database=orders;MultiSubnetFailover=True;ApplicationIntent=ReadOnly",
        author="c.obrien",
    )
    onset = ts("2027-10-19T11:02")
    end = ts("2027-10-19T11:21")
    stack = node_stack(
        "RequestError",
        "Timeout: Request failed to complete in 55000ms",
        [
            ("Request.userCallback", "/app/node_modules/mssql/lib/tedious/request.js", 458, 19),
            ("runExport", "/app/.next/server/app/reports/export/route.js", 212, 23),
            ("async exportSales", "/app/.next/server/app/reports/export/route.js", 148, 17),
        ],
    )
    inc.errors(
        "publisher-dashboard",
        onset,
        end,
        0.5,
        lambda r: (
            f"GET /reports/export?report=sales-{r.choice(['monthly', 'weekly', 'by-title'])} failed after 55001ms: Timeout: Request failed to complete in 55000ms (publisher {r.randint(1000, 1400)})"
        ),
        err={"stack": stack, "code": "ETIMEOUT"},
    )
    inc.errors(
        "publisher-dashboard",
        onset + MINUTE,
        end,
        0.3,
        lambda r: (
            f"upstream timed out (60s) GET /reports/export 504 client={r.randint(10, 250)}.{r.randint(0, 255)}.x.x"
        ),
        level="WARNING",
        source="ingress-nginx",
    )
    inc.metric(
        "mssql_cpu_percent",
        "ordersdb",
        lambda t: 31,
        labels={"replica": "ordersdb-2", "role": "secondary"},
        jitter=0.08,
        digits=1,
    )
    inc.metric(
        "mssql_ag_redo_queue_kb",
        "ordersdb",
        lambda t: 140,
        labels={"replica": "ordersdb-2"},
        jitter=0.2,
        digits=0,
    )
    inc.metric(
        "mssql_wait_time_ms_per_second",
        "ordersdb",
        lambda t: 45,
        labels={"replica": "ordersdb-2", "wait_type": "all"},
        jitter=0.15,
        digits=0,
    )
    inc.metric(
        "report_exports_per_minute", "publisher-dashboard", lambda t: 1.6, jitter=0.2, digits=2
    )
    inc.metric(
        "container_cpu_usage_ratio", "publisher-dashboard", lambda t: 0.22, jitter=0.1, digits=2
    )
    inc.fleet(
        publisher_dashboard={
            "err": add(between(onset, end, 0.04)),
            "p99": add(between(onset, end, 52000)),
        }
    )
    inc.alert = alerts.grafana(
        "Report exports failing",
        "publisher-dashboard",
        ts("2027-10-19T11:14"),
        "warning",
        "Export 5xx ratio",
        "34%",
        route="/reports/export",
    )
    inc.unexplained("publisher-dashboard", [csv, pdd, oi, oid, rep], onset)
    return inc


HELDOUT = [
    xh55_registry_decimal_comma,
    xh56_toll_run_daytime,
    xh57_ris_gateway_outage,
    xh58_gauge_volume_burst_credits,
    xh59_modbus_retry_forever,
    xh60_lock9_stoppage,
    xh61_spine_floor,
    xh62_token_cache_minutes,
    xh63_strict_isbn_flag,
    xh64_nas_stale_handles,
    xh65_damaged_interior_pdf,
    xh66_export_timeouts_unexplained,
]
