"""HELD-OUT outside-vocabulary incidents `xh43`-`xh54` (`evals/rca/heldout_ext/`), written by an
eighth independent examiner who never opened the engine or the agents and never ran them, in two
companies' vocabularies (defined in `companies.py`):

- Kestrel Regional Air (crew rostering and trip trades, Part 117 duty and rest legality, the
  nightly pairing solve, ACARS downlinks over a datalink provider's VPN, layover hotels; Kotlin,
  Scala, Python, Go, TypeScript; Gerrit commits with ``Change-Id`` trailers);
- Cobblegate City Parking (a municipal parking operator: pay-by-phone sessions, resident permits
  and their payment webhooks, ANPR enforcement, penalty charge notices, officers' handhelds, bay
  sensors over LoRaWAN; Python, PHP, Rust, Java, Kotlin, Go, Elixir; GitLab merge-request
  commits).

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
    go_stack,
    java_stack,
    py_stack,
    ramp,
    step,
    times,
)
from evals.rca.ext.companies import COBBLEGATE, KESTREL
from evals.rca.kit import iso, ts

# --- formats of these two companies ---------------------------------------------------------------


def change_id(r: random.Random) -> str:
    return f"Change-Id: I{r.getrandbits(160):040x}"


def laravel_trace(exc: str, message: str, at: tuple[str, int], frames: Sequence[str]) -> str:
    """A Laravel log's exception context: ``[object] (Exc(code: 0): msg at file:line)`` and the
    ``#n`` frames."""
    lines = [f"[object] ({exc}(code: 0): {message} at {at[0]}:{at[1]})", "[stacktrace]"]
    lines += [f"#{i} {frame}" for i, frame in enumerate(frames)]
    lines.append(f"#{len(frames)} {{main}}")
    return "\n".join(lines)


def splunk_oncall(
    title: str,
    service: str,
    fired: datetime,
    severity: str,
    entity: str,
    message: str,
    **extra: str,
) -> dict[str, object]:
    """A Splunk On-Call (VictorOps) REST integration body."""
    return alerts.alert(
        title,
        service,
        fired,
        severity,
        {
            "message_type": "CRITICAL" if severity == "critical" else "WARNING",
            "entity_id": entity,
            "entity_display_name": title,
            "state_message": message,
            "state_start_time": int(fired.timestamp()),
            "monitoring_tool": "prometheus",
            "routing_key": "crew-systems",
            **extra,
        },
    )


def zabbix(
    title: str, service: str, fired: datetime, severity: str, host: str, item: str, value: str
) -> dict[str, object]:
    """A Zabbix webhook media body."""
    return alerts.alert(
        title,
        service,
        fired,
        severity,
        {
            "event": {
                "id": str(int(fired.timestamp()) % 9000000),
                "name": title,
                "severity": {"critical": "Disaster", "high": "High"}.get(severity, "Warning"),
                "date": fired.strftime("%Y.%m.%d"),
                "time": fired.strftime("%H:%M:%S"),
                "status": "PROBLEM",
            },
            "host": {"name": host, "group": "Parking Services"},
            "item": {"name": item, "lastvalue": value},
            "trigger": {
                "name": title,
                "url": "https://zabbix.cobblegate-parking.example/tr_events.php",
            },
        },
    )


def cumulative(rate: Shape, begin: datetime, minutes: int = 4) -> Shape:
    """A ``_total`` counter that grows by ``rate`` per second."""

    def f(t: datetime) -> float:
        total, u = 0.0, begin
        while u < t:
            total += rate(u) * minutes * 60
            u += timedelta(minutes=minutes)
        return total

    return f


# --- Kestrel Regional Air -------------------------------------------------------------------------


def xh43_trade_rest_local_clock() -> ExtIncident:
    now = ts("2027-10-12T15:40")
    inc = ExtIncident(
        "xh43-trade-rest-local-clock",
        "Trip trade submissions failing (crew-app-bff 5xx above 5%)",
        """A legality-engine commit made the day before measures the rest between two duties in
        each station's local wall clock (release and report converted with toLocalDateTime)
        instead of between the two instants. For duty pairs that cross the Central/Mountain
        boundary (RAP-based crews, or Central crews overnighting at RAP) the rest comes out an
        hour off, sometimes negative, and MinRest.check's require() throws for those trades.
        The commit reached production in the 13:05 release 2027.41.2 whose notes name only the
        split-duty FDP table (a sibling commit whose FdpTable frame is in the traces). Trades
        start failing at 13:09 and climb when the afternoon trade window opens; crew-app-bff
        alerts. Decoys: the FDP table sibling, a crew-app-bff deploy of inline legality reasons
        on the trip-trade screen, a roster-api config change raising the legality client
        timeout, and a log-level change after the alert. Category: code_defect.""",
        now,
        KESTREL,
        seed=8043,
        hours=6,
    )
    inc.doc(
        "Runbook: trip trades",
        """Crew swap or drop trips in the app (crew-app-bff -> roster-api POST /v2/trip-trades).
roster-api asks legality-engine (POST /check/trip-trade) whether both resulting rosters are
legal; an illegal trade is refused with 422 and the failed rules, an error is a 5xx. The trade
window for next week's open time opens at 14:00 UTC each weekday. More than 5% 5xx on
/api/trip-trades for 10 minutes pages Crew Systems.""",
    )
    inc.doc(
        "Minimum rest (Part 117.25) as legality-engine implements it",
        """Rest is the time between the release from one duty (block-in plus 15 minutes of
post-flight) and the report for the next. It must be at least 10 hours with 8 hours of sleep
opportunity; both are instants, compare them in UTC. Stations keep local times for display
only: MSP, OMA, DSM, FSD are America/Chicago, RAP is America/Denver.""",
    )
    inc.noise(every=9)
    r = inc.rng
    inc.background(
        ts("2027-10-11T09:00"),
        ts("2027-10-11T16:30"),
        8,
        ["roster-api", "acars-ingest", "crew-notify", "layover-hotels"],
    )
    guilty = inc.code(
        ts("2027-10-11T17:22"),
        "legality-engine",
        "rest: measure rest between duties in station time\n\nOPS-2291: crew reported rest at RAP shown one hour off in the\nroster view. Use each station's clock for release and report.\n\n"
        + change_id(r),
        "src/main/scala/com/kestrelair/legality/rest/RestCalculator.scala",
        """  /** Rest between two consecutive duties: release of `prev` to report of `next`. */
  def restBetween(prev: Duty, next: Duty): Duration =
    Duration.between(prev.release, next.report)

  def sleepOpportunity(prev: Duty, next: Duty): Duration =
    restBetween(prev, next).minus(travelTime(prev.releaseStation))""",
        """  /** Rest between two consecutive duties: release of `prev` to report of `next`. */
  def restBetween(prev: Duty, next: Duty): Duration =
    Duration.between(
      prev.release.atZone(prev.releaseStation.zone).toLocalDateTime,
      next.report.atZone(next.reportStation.zone).toLocalDateTime
    )

  def sleepOpportunity(prev: Duty, next: Duty): Duration =
    restBetween(prev, next).minus(travelTime(prev.releaseStation))""",
        22,
        author="pkowalski",
    )
    fdp = inc.code(
        ts("2027-10-12T10:48"),
        "legality-engine",
        "ftl: split duty credit in the FDP table (117.15)\n\nCrews with a rest opportunity of 3h+ in a suitable\naccommodation get half of it credited to the FDP limit.\n\n"
        + change_id(r),
        "src/main/scala/com/kestrelair/legality/ftl/FdpTable.scala",
        """  def limitFor(report: LocalTime, segments: Int): Duration =
    tableB(bucket(report))(segments.min(7))""",
        """  def limitFor(report: LocalTime, segments: Int): Duration =
    tableB(bucket(report))(segments.min(7))

  def withSplitDutyCredit(duty: Duty, rules: RuleSet): Verdict = {
    val credit = duty.splitRest.filter(_ >= 3.hours).map(_ / 2).getOrElse(Duration.ZERO)
    rules.evaluate(duty.copy(fdpLimit = limitFor(duty.localReport, duty.segments).plus(credit)))
  }""",
        57,
        author="amara.ude",
    )
    logc = inc.code(
        ts("2027-10-12T11:30"),
        "legality-engine",
        "http: log rule names on refusals\n\n" + change_id(r),
        "src/main/scala/com/kestrelair/legality/http/TradeRoutes.scala",
        "        case Refused(rules) => complete(StatusCodes.UnprocessableEntity -> rules)",
        '        case Refused(rules) =>\n          log.info(s"trade refused rules=${rules.map(_.name).mkString(",")}")\n          complete(StatusCodes.UnprocessableEntity -> rules)',
        40,
        author="amara.ude",
    )
    cfg = inc.config(
        ts("2027-10-12T12:50"),
        "roster-api",
        "roster-api: legality client timeout 2s -> 3s for the FDP table rollout\n\n" + change_id(r),
        "deploy/roster-api/application-prod.conf",
        'legality {\n  base-url = "http://legality-engine.crew.svc:8080"\n  request-timeout = 2s\n  retries = 1\n}',
        'legality {\n  base-url = "http://legality-engine.crew.svc:8080"\n  request-timeout = 3s\n  retries = 1\n}',
        author="d.halvorsen",
        line=14,
    )
    rel = inc.deploy(
        ts("2027-10-12T13:05"),
        "legality-engine",
        version="2027.41.2",
        ships=[guilty, fdp, logc],
        summary="legality-engine 2027.41.2 to production: split duty credit in the FDP table (117.15)",
        author="spinnaker",
    )
    bff = inc.code(
        ts("2027-10-12T13:18"),
        "crew-app-bff",
        "trip-trades: show the refused legality rules inline\n\n" + change_id(r),
        "src/trip-trades/trip-trade.controller.ts",
        "    const res = await this.roster.submitTrade(user.crewId, dto);\n    return { status: res.status };",
        "    const res = await this.roster.submitTrade(user.crewId, dto);\n    return { status: res.status, refusedRules: res.rules ?? [] };",
        48,
        author="mferreira",
    )
    bffd = inc.deploy(ts("2027-10-12T13:40"), "crew-app-bff", author="spinnaker")
    inc.background(
        ts("2027-10-12T14:05"),
        ts("2027-10-12T15:40"),
        3,
        ["acars-ingest", "crew-notify", "pairing-optimizer"],
    )
    dbg = inc.config(
        ts("2027-10-12T14:52"),
        "legality-engine",
        "legality-engine: DEBUG for rules package while trade errors are looked at\n\n"
        + change_id(r),
        "deploy/legality-engine/logback-prod.xml",
        '  <logger name="com.kestrelair.legality.rules" level="INFO"/>',
        '  <logger name="com.kestrelair.legality.rules" level="DEBUG"/>',
        author="pkowalski",
        line=9,
    )
    onset = ts("2027-10-12T13:09")
    window = ts("2027-10-12T14:00")
    stack = java_stack(
        "java.lang.IllegalArgumentException",
        "requirement failed: negative rest PT-35M between D-44718-1012-2 and D-44718-1013-1",
        [
            ("scala.Predef$.require", "Predef.scala", 337),
            ("com.kestrelair.legality.rules.MinRest$.check", "MinRest.scala", 41),
            ("com.kestrelair.legality.rules.RuleSet.$anonfun$evaluate$3", "RuleSet.scala", 88),
            ("scala.collection.immutable.List.map", "List.scala", 247),
            ("com.kestrelair.legality.rules.RuleSet.evaluate", "RuleSet.scala", 86),
            ("com.kestrelair.legality.ftl.FdpTable$.withSplitDutyCredit", "FdpTable.scala", 62),
            ("com.kestrelair.legality.TradeCheck.run", "TradeCheck.scala", 57),
            ("com.kestrelair.legality.http.TradeRoutes.$anonfun$routes$2", "TradeRoutes.scala", 37),
        ],
    )

    def rate(f: float) -> float:
        t = onset + (now - onset) * f
        return 0.12 if t < window else 0.4

    inc.errors(
        "legality-engine",
        onset,
        now,
        rate,
        lambda r: (
            f"[legality-engine-akka.actor.default-dispatcher-{r.randint(3, 18)}] ERROR c.k.legality.http.TradeRoutes - trade check failed for crew {r.choice([44718, 40211, 45102, 43390, 41876])}: requirement failed: negative rest PT-{r.randint(5, 58)}M"
        ),
        throwable=stack,
        logger="com.kestrelair.legality.http.TradeRoutes",
    )
    inc.errors(
        "legality-engine",
        onset + 4 * MINUTE,
        now,
        lambda f: 0.1 if onset + (now - onset) * f < window else 0.4,
        lambda r: (
            f"[legality-engine-akka.actor.default-dispatcher-{r.randint(3, 18)}] INFO  c.k.legality.http.TradeRoutes - trade refused rules=MIN_REST_117_25 crew={r.randint(40000, 46000)} rest=PT9H{r.randint(2, 55)}M"
        ),
        level="INFO",
    )
    kt = java_stack(
        "io.ktor.client.plugins.ServerResponseException",
        'Server error(POST http://legality-engine.crew.svc:8080/check/trip-trade: 500 Internal Server Error. Text: "There was an internal server error."',
        [
            (
                "io.ktor.client.plugins.DefaultResponseValidationKt$addDefaultResponseValidation$1$1.invokeSuspend",
                "DefaultResponseValidation.kt",
                54,
            ),
            ("com.kestrelair.roster.legality.LegalityClient.checkTrade", "LegalityClient.kt", 71),
            ("com.kestrelair.roster.trades.TripTradeService.submit", "TripTradeService.kt", 112),
            (
                "com.kestrelair.roster.routes.TradeRoutesKt$tradeRoutes$1$2.invokeSuspend",
                "TradeRoutes.kt",
                29,
            ),
        ],
    )
    inc.errors(
        "roster-api",
        onset + 20 * MINUTE / 60,
        now,
        lambda f: 0.1 if onset + (now - onset) * f < window else 0.35,
        lambda r: f"trip trade TT-{r.randint(88200, 89900)} failed: legality-engine returned 500",
        stack_trace=kt,
        logger_name="com.kestrelair.roster.trades.TripTradeService",
    )
    inc.errors(
        "crew-app-bff",
        onset + MINUTE,
        now,
        lambda f: 0.1 if onset + (now - onset) * f < window else 0.35,
        lambda r: (
            f"[Nest] 1  - ERROR [TripTradeController] POST /api/trip-trades 502 roster-api responded 500 (trade TT-{r.randint(88200, 89900)})"
        ),
    )
    ratio = lambda t: 0.0 if t < onset else (0.018 if t < window else 0.11)  # noqa: E731
    inc.metric(
        "legality_check_errors_per_second",
        "legality-engine",
        lambda t: 0.0 if t < onset else (0.006 if t < window else 0.036),
        labels={"check": "trip-trade"},
        jitter=0.2,
        digits=4,
    )
    inc.metric(
        "legality_refusals_ratio",
        "legality-engine",
        lambda t: 0.07 if t < onset else 0.19,
        labels={"rule": "MIN_REST_117_25"},
        jitter=0.1,
        digits=3,
    )
    inc.metric(
        "legality_refusals_ratio",
        "legality-engine",
        lambda t: 0.04,
        labels={"rule": "FDP_LIMIT_117_13"},
        jitter=0.1,
        digits=3,
    )
    inc.metric(
        "trip_trades_submitted_per_minute",
        "roster-api",
        lambda t: 6 if t < window else 19,
        jitter=0.12,
        digits=1,
    )
    inc.fleet(
        crew_app_bff={"err": add(ratio)},
        roster_api={"err": add(lambda t: ratio(t) * 0.5)},
        legality_engine={"err": add(lambda t: ratio(t) * 0.3)},
    )
    inc.alert = alerts.alertmanager(
        "TripTradeErrorRateHigh",
        "crew-app-bff",
        ts("2027-10-12T14:31"),
        "critical",
        "Trip trade submissions failing (crew-app-bff 5xx above 5%)",
        "5xx ratio on POST /api/trip-trades is 11.2% over 10m",
        'sum(rate(http_server_requests_seconds_count{app="crew-app-bff",uri="/api/trip-trades",status=~"5.."}[5m])) / sum(rate(http_server_requests_seconds_count{app="crew-app-bff",uri="/api/trip-trades"}[5m])) > 0.05',
        team="crew-experience",
    )
    inc.blame(
        guilty, [rel], "legality-engine", "code_defect", [fdp, logc, cfg, bff, bffd, dbg], onset
    )
    return inc


def xh44_solver_time_limit() -> ExtIncident:
    now = ts("2027-10-19T05:50")
    inc = ExtIncident(
        "xh44-solver-time-limit",
        "Roster publication 2027-10-20 incomplete: 3 of 5 bases unpublished",
        """A configuration change to pairing-optimizer's production values, titled as aligning the
        solver settings with staging, cut CP-SAT's max_time_in_seconds from 2400 to 240 (staging
        solves one small base) along with a harmless worker count change. At 02:00 the nightly
        solve starts; every base stops at the 240 s limit from 02:04. The two small bases get a
        feasible (poorer) roster; MSP, OMA and DSM end with status UNKNOWN and no solution, so
        roster-api cannot publish them at 04:30 and alerts. Few error lines; the solve wall time
        and status metrics carry it. Decoys: an OR-Tools bump deployed 40 minutes before the
        solve, a roster-api deploy touching the publication endpoint at 03:55, a crew-notify
        change. Category: configuration_error.""",
        now,
        KESTREL,
        seed=8044,
        hours=9,
    )
    inc.doc(
        "Nightly solve report 2027-10-18 (posted to #ops-research by the optimizer)",
        """Pairing and reserve solve for 2027-10-19, started 02:00:02Z
base  pairings  status   wall_s  objective   gap
MSP   412       OPTIMAL  2210.4  1843220     0.0%
OMA   266       FEASIBLE 2400.0  1190455     0.6%
DSM   198       OPTIMAL  1731.9   871004     0.0%
FSD    74       OPTIMAL   318.2   302118     0.0%
RAP    51       OPTIMAL   201.7   219876     0.0%
all bases solved, publication ready 02:40:05Z""",
    )
    inc.doc(
        "Runbook: roster publication",
        """roster-api publishes tomorrow's pairings and reserve lines for each base at 04:30 UTC from
the nightly solve's results. A base without a result is not published and crews see
yesterday's plan; crew scheduling must be told before 05:30 (first reports at 06:00 local).
Re-run one base: `kubectl -n ops-research create job --from=cronjob/pairing-solve solve-<base>
-- --base <BASE>`; a large base takes 30-40 minutes.""",
    )
    inc.noise(every=11)
    r = inc.rng
    inc.background(
        inc.begin,
        ts("2027-10-18T23:50"),
        8,
        ["roster-api", "acars-ingest", "crew-app-bff", "layover-hotels", "crew-notify"],
    )
    guilty = inc.config(
        ts("2027-10-18T21:14"),
        "pairing-optimizer",
        "pairing-optimizer: align prod solver settings with staging\n\n" + change_id(r),
        "deploy/pairing-optimizer/values-prod.yaml",
        """solver:
  engine: cp-sat
  num_search_workers: 8
  max_time_in_seconds: 2400
  relative_gap_limit: 0.005
  log_search_progress: false""",
        """solver:
  engine: cp-sat
  num_search_workers: 16
  max_time_in_seconds: 240
  relative_gap_limit: 0.005
  log_search_progress: false""",
        author="r.tanaka",
        line=31,
    )
    bump = inc.code(
        ts("2027-10-19T00:58"),
        "pairing-optimizer",
        "deps: bump ortools from 9.10.4067 to 9.11.4210\n\n" + change_id(r),
        "requirements.txt",
        "numpy==1.26.4\nortools==9.10.4067\npandas==2.2.2",
        "numpy==1.26.4\nortools==9.11.4210\npandas==2.2.2",
        6,
        author="renovate[bot]",
    )
    bd = inc.deploy(ts("2027-10-19T01:20"), "pairing-optimizer", author="argo-cd")
    pub = inc.code(
        ts("2027-10-19T03:21"),
        "roster-api",
        "publication: return 409 when a base is already published\n\n" + change_id(r),
        "src/main/kotlin/com/kestrelair/roster/publication/PublicationRoutes.kt",
        "            publications.publish(date, base)\n            call.respond(HttpStatusCode.OK)",
        "            if (publications.isPublished(date, base)) return@post call.respond(HttpStatusCode.Conflict)\n            publications.publish(date, base)\n            call.respond(HttpStatusCode.OK)",
        44,
        author="d.halvorsen",
    )
    pubd = inc.deploy(ts("2027-10-19T03:55"), "roster-api", author="argo-cd")
    cn = inc.code(
        ts("2027-10-19T02:25"),
        "crew-notify",
        "roster: batch publication pushes per base\n\n" + change_id(r),
        "internal/roster/publish.go",
        "\tfor _, c := range crews {\n\t\tn.push(ctx, c, msg)\n\t}",
        "\tfor _, batch := range chunk(crews, 200) {\n\t\tn.pushBatch(ctx, batch, msg)\n\t}",
        61,
        author="amara.ude",
    )
    cnd = inc.deploy(ts("2027-10-19T02:44"), "crew-notify", author="argo-cd")
    start = ts("2027-10-19T02:00")
    onset = ts("2027-10-19T02:04")
    bases = {
        "MSP": (412, "UNKNOWN"),
        "OMA": (266, "UNKNOWN"),
        "DSM": (198, "UNKNOWN"),
        "FSD": (74, "FEASIBLE"),
        "RAP": (51, "FEASIBLE"),
    }
    for i, (base, (n, _)) in enumerate(bases.items()):
        inc.log(
            start + timedelta(seconds=2 + i),
            "pairing-optimizer",
            "INFO",
            f"event=solve_started base={base} horizon=2027-10-20 pairings={n} workers=16 ortools=9.11.4210",
        )
        inc.log(
            start + timedelta(seconds=40 + i),
            "pairing-optimizer",
            "INFO",
            f"event=model_built base={base} vars={n * 1710} constraints={n * 2380}",
        )
    for i, (base, (_n, status)) in enumerate(bases.items()):
        t = onset + timedelta(seconds=3 + i)
        if status == "FEASIBLE":
            inc.log(
                t,
                "pairing-optimizer",
                "WARNING",
                f"event=solve_finished base={base} status=FEASIBLE wall_s=240.0 objective={r.randint(230000, 330000)} gap=4.{r.randint(1, 9)}% reason=time_limit",
            )
            inc.log(
                t + 30 * timedelta(seconds=1),
                "pairing-optimizer",
                "INFO",
                f"event=result_stored base={base} horizon=2027-10-20",
            )
        else:
            inc.log(
                t,
                "pairing-optimizer",
                "ERROR",
                f"event=solve_finished base={base} status=UNKNOWN wall_s=240.0 objective=nan reason=time_limit no solution found",
                solver_log_tail="#Done 240.00s  no feasible solution found (search was interrupted)",
            )
            inc.log(
                t + 5 * timedelta(seconds=1),
                "pairing-optimizer",
                "ERROR",
                f"event=result_missing base={base} horizon=2027-10-20 publication will be blocked",
            )
    pubt = ts("2027-10-19T04:30")
    for base in bases:
        if bases[base][1] == "UNKNOWN":
            inc.log(
                pubt + timedelta(seconds=4),
                "roster-api",
                "ERROR",
                f"publication 2027-10-20 base={base} skipped: no solve result",
                logger_name="com.kestrelair.roster.publication.Publisher",
            )
        else:
            inc.log(
                pubt + timedelta(seconds=3),
                "roster-api",
                "INFO",
                f"publication 2027-10-20 base={base} published pairings={bases[base][0]}",
                logger_name="com.kestrelair.roster.publication.Publisher",
            )
    wall = {"MSP": 2210, "OMA": 2400, "DSM": 1732, "FSD": 318, "RAP": 202}
    for base in bases:
        inc.metric(
            "optimizer_last_solve_wall_seconds",
            "pairing-optimizer",
            step(onset, wall[base], 240),
            labels={"base": base},
            jitter=0,
            digits=1,
        )
        inc.metric(
            "optimizer_last_solve_status",
            "pairing-optimizer",
            step(onset, 0, 2 if bases[base][1] == "UNKNOWN" else 1),
            labels={"base": base, "legend": "0=OPTIMAL 1=FEASIBLE 2=UNKNOWN 3=INFEASIBLE"},
            jitter=0,
            digits=0,
        )
    inc.metric(
        "optimizer_solver_threads",
        "pairing-optimizer",
        step(start, 0, 16, onset + 2 * MINUTE),
        jitter=0,
        digits=0,
    )
    inc.metric(
        "container_cpu_usage_cores",
        "pairing-optimizer",
        step(start, 0.05, 15.2, onset + 2 * MINUTE),
        jitter=0.05,
    )
    inc.metric(
        "roster_publication_bases_published",
        "roster-api",
        step(pubt, 5, 2),
        labels={"date": "next"},
        jitter=0,
        digits=0,
    )
    inc.fleet(pairing_optimizer={"rps": times(step(start, 0.02, 1, onset + 3 * MINUTE))})
    inc.alert = splunk_oncall(
        "Roster publication 2027-10-20 incomplete: 3 of 5 bases unpublished",
        "roster-api",
        ts("2027-10-19T04:35"),
        "critical",
        "roster-api/publication",
        'roster_publication_bases_published{date="2027-10-20"} = 2 < 5 at 04:35Z (MSP, OMA, DSM missing)',
    )
    inc.blame(
        guilty,
        [],
        "pairing-optimizer",
        "configuration_error",
        [bump, bd, pub, pubd, cn, cnd],
        onset,
    )
    return inc


def xh45_fatigue_flag_all_bases() -> ExtIncident:
    now = ts("2027-10-26T10:50")
    inc = ExtIncident(
        "xh45-fatigue-flag-all-bases",
        "Crew app roster view slow / failing (p95 > 4s)",
        """The flag roster.legality.fatigue_score, which makes roster-api ask legality-engine for
        the biomathematical fatigue score on every roster view, had been on for the RAP pilot
        base only. At 08:32 it was widened to all bases ahead of the morning check-in wave. Each
        fatigue evaluation costs about 350 ms of CPU; legality-engine's six 2-vCPU pods saturate
        from 08:35, every check queues (trip trades and pairing checks too), roster-api's calls
        time out at 3 s and the crew app's roster view fails. Decoys: a legality-engine deploy at
        08:10 that caches fatigue model parameters per crew member (shares every word), a
        roster-api deploy adding a traceparent header to the legality client, a crew-app-bff
        deploy and a later replica bump as mitigation. Category: configuration_error.""",
        now,
        KESTREL,
        seed=8045,
    )
    inc.doc(
        "Fatigue score pilot (RAP) and rollout",
        """The fatigue score (a three-process alertness model) is shown next to each duty in the
crew app's roster view. Pilot base: RAP since 2027-09-01. Rollout plan: the other four bases
after a load test of legality-engine at 5x the RAP volume (ticket OPS-2350, not yet run).
Controlled by the flag roster.legality.fatigue_score (bases list) in roster-api.""",
    )
    inc.doc(
        "Runbook: legality-engine saturated",
        """legality-engine runs 6 pods (2 vCPU). Symptoms of saturation: akka dispatcher queue
above 200, p99 over 1 s, roster-api LegalityClient timeouts. Every roster change needs a legality
answer, so saturation stops trades and publication. Scale with `kubectl -n crew scale
deploy/legality-engine --replicas=10` and look for what raised the check volume or cost.""",
    )
    inc.noise(every=8)
    r = inc.rng
    inc.background(inc.begin, ts("2027-10-26T07:30"), 9)
    cache = inc.code(
        ts("2027-10-26T07:41"),
        "legality-engine",
        "fatigue: cache model parameters per crew member for 10 minutes\n\n" + change_id(r),
        "src/main/scala/com/kestrelair/legality/fatigue/FatigueModel.scala",
        "  def score(crew: CrewId, duties: Seq[Duty]): FatigueScore =\n    simulate(params(crew), duties)",
        "  private val paramCache = Scaffeine().expireAfterWrite(10.minutes).maximumSize(20000).build[CrewId, Params]()\n\n  def score(crew: CrewId, duties: Seq[Duty]): FatigueScore =\n    simulate(paramCache.get(crew, params), duties)",
        30,
        author="amara.ude",
    )
    cached = inc.deploy(ts("2027-10-26T08:10"), "legality-engine", author="spinnaker")
    tp = inc.code(
        ts("2027-10-26T07:58"),
        "roster-api",
        "legality client: propagate W3C traceparent\n\n" + change_id(r),
        "src/main/kotlin/com/kestrelair/roster/legality/LegalityClient.kt",
        "    install(HttpTimeout) { requestTimeoutMillis = 3000 }",
        "    install(HttpTimeout) { requestTimeoutMillis = 3000 }\n    install(KtorClientTelemetry) { setOpenTelemetry(otel) }",
        22,
        author="d.halvorsen",
    )
    tpd = inc.deploy(ts("2027-10-26T08:20"), "roster-api", author="spinnaker")
    guilty = inc.flag(
        ts("2027-10-26T08:32"),
        "roster-api",
        "roster.legality.fatigue_score",
        "enabled: true\nbases: [RAP]",
        "enabled: true\nbases: [RAP, MSP, OMA, DSM, FSD]",
        "Fatigue score for all bases before the morning check-in wave",
        author="mferreira",
    )
    bffc = inc.code(
        ts("2027-10-26T08:38"),
        "crew-app-bff",
        "roster: render fatigue badge next to each duty\n\n" + change_id(r),
        "src/roster/roster.presenter.ts",
        "      report: d.report,\n      release: d.release,",
        "      report: d.report,\n      release: d.release,\n      fatigue: d.fatigue ? { score: d.fatigue.score, band: d.fatigue.band } : undefined,",
        37,
        author="mferreira",
    )
    bffd = inc.deploy(ts("2027-10-26T08:52"), "crew-app-bff", author="spinnaker")
    onset = ts("2027-10-26T08:35")
    scale = inc.config(
        ts("2027-10-26T09:47"),
        "legality-engine",
        "legality-engine: replicas 6 -> 10 (saturated)\n\n" + change_id(r),
        "deploy/legality-engine/values-prod.yaml",
        'replicaCount: 6\nresources:\n  limits:\n    cpu: "2"',
        'replicaCount: 10\nresources:\n  limits:\n    cpu: "2"',
        author="pkowalski",
    )
    relief = ts("2027-10-26T09:55")
    inc.errors(
        "legality-engine",
        onset + 3 * MINUTE,
        now,
        lambda f: 0.4 if onset + (now - onset) * f < relief else 0.15,
        lambda r: (
            f"[legality-engine-akka.actor.default-dispatcher-{r.randint(3, 18)}] WARN  c.k.legality.http.Server - dispatcher queue depth {r.randint(210, 690)} above 200; oldest request waited {r.randint(1400, 5200)} ms"
        ),
        level="WARNING",
        logger="com.kestrelair.legality.http.Server",
    )
    inc.errors(
        "legality-engine",
        onset,
        now,
        0.6,
        lambda r: (
            f"[legality-engine-akka.actor.default-dispatcher-{r.randint(3, 18)}] INFO  c.k.legality.fatigue.FatigueModel - fatigue evaluated crew={r.randint(40000, 46000)} duties={r.randint(8, 16)} elapsed_ms={r.randint(280, 520)}"
        ),
        level="INFO",
    )
    kt = java_stack(
        "io.ktor.client.plugins.HttpRequestTimeoutException",
        "Request timeout has expired [url=http://legality-engine.crew.svc:8080/check/roster?fatigue=true, request_timeout=3000 ms]",
        [
            (
                "io.ktor.client.plugins.HttpTimeoutKt$HttpTimeout$2$1$1$killer$1.invokeSuspend",
                "HttpTimeout.kt",
                165,
            ),
            ("com.kestrelair.roster.legality.LegalityClient.checkRoster", "LegalityClient.kt", 88),
            ("com.kestrelair.roster.view.RosterViewService.view", "RosterViewService.kt", 64),
            (
                "com.kestrelair.roster.routes.RosterRoutesKt$rosterRoutes$1$1.invokeSuspend",
                "RosterRoutes.kt",
                21,
            ),
        ],
    )
    inc.errors(
        "roster-api",
        onset + 5 * MINUTE,
        now,
        lambda f: 0.8 if onset + (now - onset) * f < relief else 0.25,
        lambda r: (
            f"roster view for crew {r.randint(40000, 46000)} failed: legality check timed out after 3000 ms"
        ),
        stack_trace=kt,
        logger_name="com.kestrelair.roster.view.RosterViewService",
    )
    inc.errors(
        "roster-api",
        onset + 9 * MINUTE,
        now,
        lambda f: 0.2 if onset + (now - onset) * f < relief else 0.05,
        lambda r: (
            f"trip trade TT-{r.randint(89000, 89900)} failed: legality check timed out after 3000 ms"
        ),
        stack_trace=kt.replace("checkRoster", "checkTrade").replace(
            "/check/roster?fatigue=true", "/check/trip-trade"
        ),
        logger_name="com.kestrelair.roster.trades.TripTradeService",
    )
    inc.errors(
        "crew-app-bff",
        onset + 6 * MINUTE,
        now,
        lambda f: 0.7 if onset + (now - onset) * f < relief else 0.2,
        lambda r: (
            f"[Nest] 1  - ERROR [RosterController] GET /api/me/roster 504 upstream roster-api timed out after {r.randint(3010, 3100)}ms"
        ),
    )
    sat = lambda t: 0.31 if t < onset else (0.97 if t < relief else 0.71)  # noqa: E731
    inc.metric(
        "process_cpu_usage", "legality-engine", sat, labels={"app": "legality-engine"}, jitter=0.03
    )
    inc.metric(
        "akka_dispatcher_queue_depth",
        "legality-engine",
        lambda t: 4 if t < onset else (430 if t < relief else 120),
        labels={"dispatcher": "default"},
        jitter=0.2,
        digits=0,
    )
    inc.metric(
        "legality_fatigue_evaluations_per_second",
        "legality-engine",
        step(onset, 0.4, 24.0),
        jitter=0.1,
    )
    inc.metric(
        "legality_client_timeouts_per_minute",
        "roster-api",
        lambda t: 0 if t < onset else (3.8 if t < relief else 1.0),
        labels={"target": "legality-engine"},
        jitter=0.15,
        digits=2,
    )
    inc.metric(
        "kube_deployment_status_replicas_available",
        "legality-engine",
        step(relief - 6 * MINUTE, 6, 10),
        jitter=0,
        digits=0,
    )
    slow = lambda t: 0 if t < onset else (2900 if t < relief else 1100)  # noqa: E731
    inc.fleet(
        legality_engine={"p99": add(lambda t: slow(t) * 1.4)},
        roster_api={
            "p99": add(slow),
            "err": add(lambda t: 0 if t < onset else (0.07 if t < relief else 0.02)),
        },
        crew_app_bff={
            "p99": add(slow),
            "err": add(lambda t: 0 if t < onset else (0.09 if t < relief else 0.025)),
        },
    )
    inc.alert = alerts.grafana(
        "Crew app roster view slow / failing (p95 > 4s)",
        "crew-app-bff",
        ts("2027-10-26T08:49"),
        "critical",
        "Crew Experience / Roster view",
        "p95 5.8s, 5xx 8.7%",
        team="crew-experience",
        route="/api/me/roster",
    )
    inc.blame(
        guilty,
        [],
        "legality-engine",
        "configuration_error",
        [cache, cached, tp, tpd, bffc, bffd, scale],
        onset,
    )
    return inc


def xh46_roomlane_gateway_errors() -> ExtIncident:
    now = ts("2027-11-02T23:50")
    inc = ExtIncident(
        "xh46-roomlane-gateway-errors",
        "Crew hotel bookings failing during irregular ops",
        """From 21:12 the Roomlane hotel distribution API answers most requests with 502 and 504
        from its edge, or holds them until our 20 s timeout: bookings and rooming-list reads
        both fail, and the blackbox probe of its health endpoint (from another region) fails
        with them. Roomlane's status page stays green the whole evening; the cause is on their
        side. It matters because thunderstorms at MSP are cancelling the last waves and crews
        need rooms. Decoys: a layover-hotels deploy at 20:55 shipping a commit to the Roomlane
        client (an Idempotency-Key header) whose file is in every stack trace, the storm's extra
        booking demand, a crew-notify deploy and a roster-api config change. Category:
        dependency_failure.""",
        now,
        KESTREL,
        seed=8046,
    )
    inc.doc(
        "Roomlane integration",
        """Roomlane (api.roomlane.example) is our hotel distribution API for disruption rooms:
availability search, POST /v3/bookings, GET /v3/rooming-lists/{property}. Contract SLA 99.9%,
support roomlane-support@roomlane.example, status https://status.roomlane.example. A 5xx is
retried once; if Roomlane is down, crew support books by phone from the contract list in the
hotels admin. layover-hotels timeout: 20 s.""",
    )
    inc.doc(
        "status.roomlane.example (checked 22:30Z)",
        """All Systems Operational
Booking API - Operational
Availability Search - Operational
Extranet - Operational
No incidents reported today.""",
    )
    inc.doc(
        "IROPS bulletin 2027-11-02 19:40Z",
        """Line of thunderstorms through MSP from 20:00Z. Ground stop 20:40-22:10Z. Expect
cancellations of the last two waves; crews out of legality will overnight at MSP and OMA. Crew
Support: pre-block 40 rooms at MSP.""",
    )
    inc.noise(every=9)
    r = inc.rng
    inc.background(
        inc.begin,
        ts("2027-11-02T20:10"),
        9,
        ["roster-api", "legality-engine", "acars-ingest", "crew-app-bff", "pairing-optimizer"],
    )
    idem = inc.code(
        ts("2027-11-02T20:26"),
        "layover-hotels",
        "roomlane: send an Idempotency-Key on booking create\n\nRetries during IROPS created duplicate rooms (OPS-2388).\n\n"
        + change_id(r),
        "hotels/roomlane/client.py",
        """    def create_booking(self, req: BookingRequest) -> Booking:
        resp = self.session.post(f"{self.base}/v3/bookings", json=req.payload(), timeout=20)""",
        """    def create_booking(self, req: BookingRequest) -> Booking:
        headers = {"Idempotency-Key": req.idempotency_key()}
        resp = self.session.post(
            f"{self.base}/v3/bookings", json=req.payload(), headers=headers, timeout=20
        )""",
        41,
        author="r.tanaka",
    )
    hd = inc.deploy(ts("2027-11-02T20:55"), "layover-hotels", author="spinnaker")
    cn = inc.code(
        ts("2027-11-02T20:48"),
        "crew-notify",
        "hotel: include confirmation number in the push text\n\n" + change_id(r),
        "internal/hotel/message.go",
        '\treturn fmt.Sprintf("Hotel: %s, %s", b.Property, b.City)',
        '\treturn fmt.Sprintf("Hotel: %s, %s (conf %s)", b.Property, b.City, b.Confirmation)',
        19,
        author="amara.ude",
    )
    cnd = inc.deploy(ts("2027-11-02T21:20"), "crew-notify", author="spinnaker")
    rc = inc.config(
        ts("2027-11-02T21:02"),
        "roster-api",
        "roster-api: IROPS mode on (allow legality overrides by duty managers)\n\n" + change_id(r),
        "deploy/roster-api/application-prod.conf",
        "irops {\n  mode = off\n}",
        "irops {\n  mode = on\n}",
        author="d.halvorsen",
        line=40,
    )
    onset = ts("2027-11-02T21:12")
    storm = ts("2027-11-02T20:40")
    stack = py_stack(
        "requests.exceptions.HTTPError",
        "502 Server Error: Bad Gateway for url: https://api.roomlane.example/v3/bookings",
        [
            (
                "/app/hotels/views/bookings.py",
                88,
                "post",
                "booking = self.provider.book(request_for(crew, station))",
            ),
            (
                "/app/hotels/providers/roomlane.py",
                57,
                "book",
                "return self.client.create_booking(req)",
            ),
            ("/app/hotels/roomlane/client.py", 46, "create_booking", "resp.raise_for_status()"),
            (
                "/usr/local/lib/python3.12/site-packages/requests/models.py",
                1024,
                "raise_for_status",
                "raise HTTPError(http_error_msg, response=self)",
            ),
        ],
    )
    inc.errors(
        "layover-hotels",
        onset,
        now,
        0.6,
        lambda r: r.choice(
            [
                f"roomlane booking failed station=MSP crew={r.randint(40000, 46000)}: 502 Bad Gateway (server: roomlane-edge, x-edge-id {r.getrandbits(32):08x})",
                f"roomlane booking failed station={r.choice(['MSP', 'OMA'])} crew={r.randint(40000, 46000)}: 504 Gateway Timeout",
                f"roomlane booking failed station=MSP crew={r.randint(40000, 46000)}: ReadTimeout(HTTPSConnectionPool(host='api.roomlane.example', port=443): Read timed out. (read timeout=20))",
            ]
        ),
        exc_info=stack,
        logger="hotels.views.bookings",
    )
    inc.errors(
        "layover-hotels",
        onset + 2 * MINUTE,
        now,
        0.25,
        lambda r: (
            f"rooming list sync failed property=RL-{r.randint(1000, 9999)}: GET https://api.roomlane.example/v3/rooming-lists 502 Bad Gateway"
        ),
        logger="hotels.tasks.rooming",
    )
    inc.errors(
        "crew-app-bff",
        onset + MINUTE,
        now,
        0.4,
        lambda r: (
            f"[Nest] 1  - ERROR [HotelController] GET /api/me/hotel 502 layover-hotels: provider unavailable (crew {r.randint(40000, 46000)})"
        ),
    )
    inc.metric(
        "probe_success",
        "layover-hotels",
        step(onset, 1, 0.1),
        labels={"target": "https://api.roomlane.example/health", "prober": "blackbox-us-east"},
        jitter=0.2,
        digits=2,
    )
    inc.metric(
        "probe_http_status_code",
        "layover-hotels",
        step(onset, 200, 502),
        labels={"target": "https://api.roomlane.example/health"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "roomlane_request_duration_seconds_p95",
        "layover-hotels",
        step(onset, 0.9, 17.5),
        labels={"host": "api.roomlane.example"},
        jitter=0.1,
        digits=2,
    )
    inc.metric(
        "roomlane_responses_per_minute",
        "layover-hotels",
        lambda t: 0.2 if t < onset else 7.5,
        labels={"code": "5xx"},
        jitter=0.2,
        digits=2,
    )
    inc.metric(
        "hotel_booking_requests_per_minute",
        "layover-hotels",
        lambda t: 2.5 if t < storm else 9.0,
        jitter=0.12,
        digits=2,
    )
    inc.fleet(
        layover_hotels={
            "err": add(step(onset, 0, 0.78)),
            "p99": add(step(onset, 0, 16000)),
            "rps": times(step(storm, 1, 3.2)),
        },
        crew_app_bff={"err": add(step(onset, 0, 0.03))},
    )
    inc.alert = alerts.alertmanager(
        "HotelBookingFailures",
        "layover-hotels",
        ts("2027-11-02T21:31"),
        "critical",
        "Crew hotel bookings failing during irregular ops",
        "layover-hotels booking failure ratio 81% over 15m (IROPS active)",
        'sum(rate(hotel_bookings_total{outcome="failed"}[15m])) / sum(rate(hotel_bookings_total[15m])) > 0.2',
        team="crew-support",
    )
    inc.outside(
        "Roomlane hotel API failing (502/504 from its edge, no status notice)",
        "layover-hotels",
        "dependency_failure",
        [idem, hd, cn, cnd, rc],
        onset,
    )
    return inc


def xh47_datalink_vpn_mtu() -> ExtIncident:
    now = ts("2027-11-09T10:10")
    inc = ExtIncident(
        "xh47-datalink-vpn-mtu",
        "ACARS downlink rate low: 3.1/s (expected > 10/s)",
        """AeroLink replaced a core router in its MSP point of presence between 06:00 and 07:00
        (maintenance notice). When the site-to-site VPN came back at 06:41 its path MTU had
        shrunk, and the ICMP "fragmentation needed" replies are filtered on their side: small
        packets pass, full-size ones vanish. acars-ingest's long-polls with few downlinks still
        work, but any response carrying several downlinks or a load sheet stalls while reading
        the body until the client timeout; the tunnel stays up. Decoys: an acars-ingest deploy
        at 06:20 adding multi-block message reassembly (large messages, same words), a poll
        timeout raise at 07:15 after the onset, and a roster-api deploy. Category:
        infrastructure.""",
        now,
        KESTREL,
        seed=8047,
    )
    inc.doc(
        "AeroLink maintenance notice MN-2027-1109",
        """AeroLink Network Operations - planned maintenance
Window: 2027-11-09 06:00-07:00 UTC
Scope: core router replacement, MSP point of presence. Customer IPsec tunnels terminating in
MSP will renegotiate once during the window (expected interruption under 5 minutes).
Customer action: none required.""",
    )
    inc.doc(
        "acars-ingest and the datalink",
        """acars-ingest long-polls https://gw.aerolink.example/v2/downlinks?cursor=... over the
site-to-site VPN vpn-aerolink (our side: tgw-ops, MTU 1500, TCP MSS clamped to 1379 only on the
ops VPC's NAT path). A poll returns up to 50 downlinks (OOOI events are ~300 bytes, load sheets
and multi-block free text 2-8 KB). Client timeout 20 s. A healthy day: 9-18 downlinks per
second at this hour. Blackbox ICMP probes of the gateway run with 64- and 1472-byte payloads.""",
    )
    inc.noise(every=9)
    r = inc.rng
    inc.background(
        inc.begin,
        ts("2027-11-09T05:40"),
        8,
        ["roster-api", "legality-engine", "crew-app-bff", "layover-hotels", "crew-notify"],
    )
    mb = inc.code(
        ts("2027-11-09T05:52"),
        "acars-ingest",
        "parse: reassemble multi-block downlinks (label H1, blocks 2-16)\n\n" + change_id(r),
        "internal/parse/multiblock.go",
        "func (p *Parser) Feed(b Block) (*Downlink, error) {\n\treturn decode(b)\n}",
        "func (p *Parser) Feed(b Block) (*Downlink, error) {\n\tif b.More {\n\t\tp.pending[b.MsgSeq] = append(p.pending[b.MsgSeq], b)\n\t\treturn nil, nil\n\t}\n\treturn decode(join(p.pending[b.MsgSeq], b))\n}",
        33,
        author="pkowalski",
    )
    md = inc.deploy(ts("2027-11-09T06:20"), "acars-ingest", author="argo-cd")
    onset = ts("2027-11-09T06:41")
    tmo = inc.config(
        ts("2027-11-09T07:15"),
        "acars-ingest",
        "acars-ingest: AeroLink poll timeout 20s -> 45s (polls timing out)\n\n" + change_id(r),
        "deploy/acars-ingest/values-prod.yaml",
        "aerolink:\n  pollTimeout: 20s\n  maxBatch: 50",
        "aerolink:\n  pollTimeout: 45s\n  maxBatch: 50",
        author="pkowalski",
        line=12,
    )
    rsc = inc.code(
        ts("2027-11-09T06:05"),
        "roster-api",
        "actuals: store block times with second precision\n\n" + change_id(r),
        "src/main/kotlin/com/kestrelair/roster/actuals/BlockTimes.kt",
        "    val blockOut = msg.out.truncatedTo(ChronoUnit.MINUTES)",
        "    val blockOut = msg.out.truncatedTo(ChronoUnit.SECONDS)",
        18,
        author="d.halvorsen",
    )
    rsd = inc.deploy(ts("2027-11-09T06:33"), "roster-api", author="argo-cd")
    inc.log(
        ts("2027-11-09T06:14"),
        "acars-ingest",
        "WARNING",
        'poll failed: Get "https://gw.aerolink.example/v2/downlinks?cursor=8f21a0": dial tcp 10.220.4.18:443: connect: connection timed out',
        tunnel="vpn-aerolink",
    )
    inc.log(
        ts("2027-11-09T06:39"),
        "acars-ingest",
        "INFO",
        "poll ok cursor advanced downlinks=47 (backlog after tunnel renegotiation)",
    )
    gstack = go_stack(
        "context deadline exceeded (Client.Timeout or context cancellation while reading body)",
        [
            ("net/http.(*cancelTimerBody).Read", "/usr/local/go/src/net/http/client.go", 971),
            ("io.ReadAll", "/usr/local/go/src/io/io.go", 712),
            (
                "github.com/kestrelair/acars-ingest/internal/aerolink.(*Client).Poll",
                "/src/internal/aerolink/client.go",
                118,
            ),
            (
                "github.com/kestrelair/acars-ingest/internal/ingest.(*Loop).run",
                "/src/internal/ingest/loop.go",
                64,
            ),
        ],
    )
    longer = ts("2027-11-09T07:21")  # the 45 s poll timeout rolled out
    for begin, end, (low, high) in ((onset, longer, (19900, 20100)), (longer, now, (44900, 45100))):
        inc.errors(
            "acars-ingest",
            begin,
            end,
            0.5,
            lambda r, low=low, high=high: (
                f"poll failed after {r.randint(low, high)}ms: context deadline exceeded (Client.Timeout or context cancellation while reading body) cursor={r.getrandbits(24):06x} bytes_read={r.choice([1368, 2736, 4104, 1368])}"
            ),
            err=gstack,
            tunnel="vpn-aerolink",
        )
    inc.errors(
        "acars-ingest",
        onset + MINUTE,
        now,
        0.6,
        lambda r: (
            f"poll ok cursor advanced downlinks={r.randint(1, 3)} bytes={r.randint(320, 1180)}"
        ),
        level="INFO",
    )
    inc.errors(
        "roster-api",
        onset + 40 * MINUTE,
        now,
        0.3,
        lambda r: (
            f"actual block times missing for flight KR{r.randint(3100, 3899)} (scheduled in {r.randint(20, 90)} min ago); duty time uses schedule"
        ),
        level="WARNING",
        logger_name="com.kestrelair.roster.actuals.ActualsWatcher",
    )
    inc.metric(
        "acars_downlinks_received_per_second",
        "acars-ingest",
        lambda t: (
            12.5
            if t < ts("2027-11-09T06:12")
            else (0 if t < ts("2027-11-09T06:38") else (25 if t < onset else 3.0))
        ),
        jitter=0.12,
        digits=2,
    )
    inc.metric(
        "aerolink_poll_duration_seconds_p95",
        "acars-ingest",
        lambda t: 1.8 if t < onset else (20.0 if t < ts("2027-11-09T07:20") else 45.0),
        jitter=0.03,
        digits=2,
    )
    inc.metric(
        "vpn_tunnel_up",
        "acars-ingest",
        lambda t: 0 if ts("2027-11-09T06:12") <= t < ts("2027-11-09T06:37") else 1,
        labels={"tunnel": "vpn-aerolink"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "probe_icmp_success",
        "acars-ingest",
        lambda t: 0 if ts("2027-11-09T06:12") <= t < ts("2027-11-09T06:37") else 1,
        labels={"target": "gw.aerolink.example", "payload_bytes": "64"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "probe_icmp_success",
        "acars-ingest",
        lambda t: 0 if ts("2027-11-09T06:12") <= t else 1,
        labels={"target": "gw.aerolink.example", "payload_bytes": "1472", "df": "true"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "node_netstat_Tcp_RetransSegs_rate",
        "acars-ingest",
        step(onset, 0.4, 36.0),
        labels={"node": "ip-10-40-12-7"},
        jitter=0.15,
        digits=2,
    )
    inc.metric(
        "crew_actuals_missing_flights", "roster-api", ramp(onset, now, 0, 61), jitter=0.05, digits=0
    )
    inc.fleet(
        acars_ingest={
            "rps": lambda t, v: v if t < onset else v * 0.22,
            "err": add(step(onset, 0, 0.4)),
            "p99": add(step(onset, 0, 19000)),
        }
    )
    inc.alert = alerts.alertmanager(
        "AcarsDownlinkRateLow",
        "acars-ingest",
        ts("2027-11-09T07:26"),
        "warning",
        "ACARS downlink rate low: 3.1/s (expected > 10/s)",
        "acars_downlinks_received_per_second below 10 for 30m while 118 flights are airborne",
        "avg_over_time(acars_downlinks_received_per_second[30m]) < 10 and on() kestrel_flights_airborne > 50",
        team="ops-systems",
    )
    inc.outside(
        "AeroLink VPN path MTU shrank after the provider's router maintenance (ICMP blackhole: large responses stall)",
        "acars-ingest",
        "infrastructure",
        [mb, md, tmo, rsc, rsd],
        onset,
    )
    return inc


def xh48_ccheck_silent_tails() -> ExtIncident:
    now = ts("2027-11-16T09:40")
    inc = ExtIncident(
        "xh48-ccheck-silent-tails",
        "ACARS silent tails: N409KR, N415KR, N422KR no downlink for 6h",
        """Three aircraft were inducted into a heavy maintenance (C) check at the TUL MRO
        overnight, as the November heavy maintenance plan says: their avionics are powered down
        and they will not downlink for about three weeks. The silent-tail rule does not read the
        maintenance plan, so it fired at 08:55. acars-ingest is healthy (other tails downlink
        normally). Decoys: an acars-ingest deploy at 08:20 with a commit to the silent-tail
        detector, a legality-engine deploy, a roster-api config change. Category: healthy.""",
        now,
        KESTREL,
        seed=8048,
    )
    inc.doc(
        "Heavy maintenance plan, November 2027",
        """C-check slots at the TUL MRO (aircraft ferried in the evening before, inducted on arrival;
avionics off, no ACARS until return to service):
- N409KR: inducted 2027-11-16, return to service 2027-12-06
- N415KR: inducted 2027-11-16, return to service 2027-12-07
- N422KR: inducted 2027-11-16, return to service 2027-12-09
- N418KR: inducted 2027-11-30, return to service 2027-12-20
Ops Systems: mark these tails as in maintenance in the tail registry (manual, ticket per slot).""",
    )
    inc.doc(
        "Runbook: silent tails",
        """The silent-tail rule fires when a tail of the active fleet (tail registry status ACTIVE)
has sent no ACARS downlink for 6 hours. Check the tail's last event (IN at a maintenance base
means it is parked), the maintenance plan and the aircraft's status in the tail registry; if it
is flying, call Maintenance Control: its datalink unit may be failed.""",
    )
    inc.noise(every=9)
    r = inc.rng
    inc.background(
        inc.begin,
        ts("2027-11-16T07:50"),
        9,
        ["roster-api", "crew-app-bff", "layover-hotels", "crew-notify", "pairing-optimizer"],
    )
    for i, tail in enumerate(("N409KR", "N415KR", "N422KR")):
        t = ts("2027-11-16T02:31") + timedelta(minutes=9 * i)
        inc.log(
            t,
            "acars-ingest",
            "INFO",
            f"oooi decoded label=QA tail={tail} event=ON station=TUL flight=KR9{i}01F (ferry)",
        )
        inc.log(
            t + 6 * MINUTE,
            "acars-ingest",
            "INFO",
            f"oooi decoded label=QA tail={tail} event=IN station=TUL flight=KR9{i}01F (ferry)",
        )
        inc.log(
            t + 14 * MINUTE,
            "acars-ingest",
            "INFO",
            f'free text downlink tail={tail} text="MX INDUCTION TUL C-CHK PWR DOWN"',
        )
    det = inc.code(
        ts("2027-11-16T07:58"),
        "acars-ingest",
        "silent-tail: include the last station and event in the alert labels\n\n" + change_id(r),
        "internal/silent/detector.go",
        "\t\td.emit(tail, lastSeen)",
        "\t\td.emit(tail, lastSeen, last.Station, last.Event)",
        52,
        author="pkowalski",
    )
    dd = inc.deploy(ts("2027-11-16T08:20"), "acars-ingest", author="argo-cd")
    le = inc.code(
        ts("2027-11-16T08:04"),
        "legality-engine",
        "rules: 117.23 cumulative limits over 168h rolling window (was calendar week)\n\n"
        + change_id(r),
        "src/main/scala/com/kestrelair/legality/rules/Cumulative.scala",
        "    duties.filter(d => d.week == week)",
        "    duties.filter(d => d.report.isAfter(at.minus(168.hours)))",
        27,
        author="amara.ude",
    )
    led = inc.deploy(ts("2027-11-16T08:36"), "legality-engine", author="spinnaker")
    cfg = inc.config(
        ts("2027-11-16T09:02"),
        "roster-api",
        "roster-api: actuals watcher grace 20m -> 30m\n\n" + change_id(r),
        "deploy/roster-api/application-prod.conf",
        "actuals {\n  missing-grace = 20m\n}",
        "actuals {\n  missing-grace = 30m\n}",
        author="d.halvorsen",
        line=52,
    )
    onset = ts("2027-11-16T02:55")
    for tail in ("N409KR", "N415KR", "N422KR"):
        inc.metric(
            "acars_tail_seconds_since_last_downlink",
            "acars-ingest",
            ramp(onset, now, 60, (now - onset).total_seconds()),
            labels={"tail": tail},
            jitter=0.01,
            digits=0,
        )
    for tail in ("N407KR", "N411KR", "N418KR"):
        inc.metric(
            "acars_tail_seconds_since_last_downlink",
            "acars-ingest",
            lambda t: 240.0,
            labels={"tail": tail},
            jitter=0.6,
            digits=0,
        )
    inc.metric(
        "acars_downlinks_received_per_second", "acars-ingest", lambda t: 12.0, jitter=0.1, digits=2
    )
    inc.metric(
        "kestrel_aircraft_active",
        "acars-ingest",
        step(onset, 31, 28),
        labels={"source": "flight-plan"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "tail_registry_status",
        "acars-ingest",
        lambda t: 1,
        labels={"tail": "N409KR", "legend": "1=ACTIVE 2=MAINTENANCE"},
        jitter=0,
        digits=0,
    )
    inc.fleet()
    inc.alert = splunk_oncall(
        "ACARS silent tails: N409KR, N415KR, N422KR no downlink for 6h",
        "acars-ingest",
        ts("2027-11-16T08:55"),
        "warning",
        "acars-ingest/silent-tails",
        "3 ACTIVE tails without ACARS downlink for > 6h: N409KR (last IN TUL 02:37Z), N415KR (last IN TUL 02:46Z), N422KR (last IN TUL 02:55Z)",
    )
    inc.healthy(
        "acars-ingest",
        "the three tails were inducted into a planned C-check at TUL (maintenance plan); the rule ignores maintenance status; downlinks from the flying fleet are normal",
        [det, dd, le, led, cfg],
        onset,
    )
    return inc


# --- Cobblegate City Parking ----------------------------------------------------------------------


def xh49_anpr_permit_scan() -> ExtIncident:
    now = ts("2027-11-23T12:10")
    inc = ExtIncident(
        "xh49-anpr-permit-scan",
        "ANPR enforcement feed lag above 15 minutes",
        """anpr-ingest release 3.14.0 (07:42) carries a commit that lets a permit hold up to three
        vehicles: the permit index keyed by plate became a Vec of permits searched with
        iter().find() and a contains() over each permit's plates, a linear scan of about 180,000
        permits for every plate read. At the night's 30 reads/s it keeps up; from about 08:22
        the morning traffic (90-120 reads/s) exceeds what two cores can match, the consumer lag
        grows and the enforcement feed falls behind. Almost no error lines: CPU at the limit,
        match time per read and lag show it. Decoys: the image crate bump and a tracing commit
        in the same release, the permits-portal deploy of the very multi-vehicle feature at
        07:55, a pcn-service deploy and the morning's traffic rise itself. Category:
        code_defect.""",
        now,
        COBBLEGATE,
        seed=8049,
    )
    inc.doc(
        "Runbook: ANPR feed lag",
        """Every plate read from the bus lane and controlled zone cameras is matched against valid
permits and paid sessions within 15 minutes (enforcement SLA: reads older than 45 minutes cannot
become a PCN). anpr-ingest consumes anpr.reads (12 partitions) with 2 pods; lag per partition is
on the ANPR board. Usual peak 08:00-10:00: 110-130 reads/s. If lag grows: check the matcher's
time per read and the pods' CPU throttling before adding pods (partitions cap it at 12).""",
    )
    inc.doc(
        "Resident permits: multiple vehicles (from 2027-11-23)",
        """Residents may register up to three vehicles on one permit (only one parked at a time).
permits-portal lets them add vehicles from today; anpr-ingest matches any of the permit's
vehicles. About 180,000 valid permits, 6% expected to add a second vehicle.""",
    )
    inc.noise(every=9)
    inc.background(
        ts("2027-11-22T10:00"),
        ts("2027-11-22T17:00"),
        7,
        ["paybyphone-api", "pcn-service", "keeper-lookup", "bay-sensors"],
    )
    guilty = inc.code(
        ts("2027-11-22T15:37"),
        "anpr-ingest",
        "Permits: match any of up to 3 vehicles on a permit (!712)",
        "src/matcher/permits.rs",
        """pub struct PermitIndex {
    by_vrm: HashMap<Vrm, PermitId>,
}

impl PermitIndex {
    pub fn lookup(&self, vrm: &Vrm, zone: ZoneId) -> Option<&PermitId> {
        self.by_vrm.get(vrm).filter(|p| p.zones.contains(&zone))
    }
}""",
        """pub struct PermitIndex {
    permits: Vec<Permit>,
}

impl PermitIndex {
    pub fn lookup(&self, vrm: &Vrm, zone: ZoneId) -> Option<&Permit> {
        self.permits
            .iter()
            .find(|p| p.vrms.contains(vrm) && p.zones.contains(&zone))
    }
}""",
        18,
        author="t.lindqvist",
    )
    img = inc.code(
        ts("2027-11-22T16:10"),
        "anpr-ingest",
        "Bump image from 0.24.9 to 0.25.1 (!715)",
        "Cargo.toml",
        'image = { version = "0.24.9", default-features = false, features = ["jpeg"] }\nrdkafka = "0.36"',
        'image = { version = "0.25.1", default-features = false, features = ["jpeg"] }\nrdkafka = "0.36"',
        21,
        author="renovate-bot",
    )
    trc = inc.code(
        ts("2027-11-23T07:05"),
        "anpr-ingest",
        "Add camera_id to the read span (!718)",
        "src/consumer.rs",
        '    let span = info_span!("read", partition = msg.partition());',
        '    let span = info_span!("read", partition = msg.partition(), camera_id = %read.camera_id);',
        77,
        author="ewan.b",
    )
    rel = inc.deploy(
        ts("2027-11-23T07:42"),
        "anpr-ingest",
        version="3.14.0",
        ships=[guilty, img, trc],
        summary="anpr-ingest 3.14.0 (pipeline #48213): multi-vehicle permits, image 0.25, camera_id span",
        author="gitlab-ci",
    )
    pp = inc.code(
        ts("2027-11-23T07:21"),
        "permits-portal",
        'Resolve "Residents can add a second and third vehicle to a permit"',
        "app/Http/Controllers/PermitVehicleController.php",
        "        if ($permit->vehicles()->count() >= 1) {\n            return back()->withErrors(['vrm' => 'One vehicle per permit']);\n        }",
        "        if ($permit->vehicles()->count() >= 3) {\n            return back()->withErrors(['vrm' => 'Up to three vehicles per permit']);\n        }",
        41,
        author="h.mcallister",
    )
    ppd = inc.deploy(ts("2027-11-23T07:55"), "permits-portal", author="gitlab-ci")
    pc = inc.code(
        ts("2027-11-23T08:40"),
        "pcn-service",
        "Draft PCNs: skip reads older than 45 minutes with a reason (!720)",
        "src/main/java/uk/cobblegate/pcn/draft/AnprDraftListener.java",
        "        if (read.age().toMinutes() > 45) return;",
        '        if (read.age().toMinutes() > 45) {\n            skipped.increment("too_old");\n            return;\n        }',
        58,
        author="oksana.p",
    )
    pcd = inc.deploy(ts("2027-11-23T09:10"), "pcn-service", author="gitlab-ci")
    onset = ts("2027-11-23T08:22")
    deployed = ts("2027-11-23T07:44")

    def reads(t: datetime) -> float:
        h = t.hour + t.minute / 60
        if h < 7.5:
            return 28.0
        if h < 9:
            return 28 + (h - 7.5) * 60
        if h < 10:
            return 118 - (h - 9) * 23
        return 95.0

    capacity = 80.0  # plate reads a second two cores match after the release
    backlog: dict[datetime, float] = {}
    u, total = inc.begin, 0.0
    while u <= now:
        total = max(0.0, total + (reads(u) - capacity) * 60) if u >= deployed else 0.0
        backlog[u.replace(second=0)] = total
        u += MINUTE

    def lag(t: datetime) -> float:
        return backlog.get(t.replace(second=0), 0.0)

    inc.metric(
        "anpr_reads_received_per_second",
        "anpr-ingest",
        reads,
        labels={"topic": "anpr.reads"},
        jitter=0.05,
        digits=1,
    )
    inc.metric(
        "anpr_consumer_lag_messages",
        "anpr-ingest",
        lambda t: lag(t) + 15,
        labels={"group": "anpr-matcher"},
        jitter=0.02,
        digits=0,
    )
    inc.metric(
        "anpr_oldest_unmatched_read_age_seconds",
        "anpr-ingest",
        lambda t: 3.0 if t < onset else 3 + lag(t) / capacity,
        jitter=0.03,
        digits=0,
    )
    inc.metric(
        "anpr_permit_match_seconds_p99",
        "anpr-ingest",
        step(deployed, 0.00041, 0.0297),
        jitter=0.08,
        digits=5,
    )
    inc.metric(
        "container_cpu_usage_cores",
        "anpr-ingest",
        lambda t: min(2.0, (0.004 if t < deployed else 0.0235) * reads(t) + 0.12),
        labels={"container": "anpr-ingest", "limit": "2"},
        jitter=0.03,
        digits=3,
    )
    inc.metric(
        "container_cpu_cfs_throttled_ratio",
        "anpr-ingest",
        lambda t: 0.01 if t < onset else 0.71,
        labels={"container": "anpr-ingest"},
        jitter=0.06,
        digits=3,
    )
    inc.metric(
        "permits_vehicles_added_total",
        "permits-portal",
        cumulative(lambda t: 0 if t < ts("2027-11-23T07:57") else 0.05, inc.begin),
        jitter=0,
        digits=0,
    )
    inc.errors(
        "anpr-ingest",
        onset + 13 * MINUTE,
        now,
        0.4,
        lambda r: (
            f"WARN anpr_ingest::consumer: consumer lag above threshold partition={r.randint(0, 11)} lag={r.randint(3000, 40000)}"
        ),
        level="WARNING",
        target="anpr_ingest::consumer",
    )
    inc.errors(
        "anpr-ingest",
        ts("2027-11-23T11:26"),
        now,
        0.6,
        lambda r: (
            f"ERROR anpr_ingest::matcher: read {r.getrandbits(48):012x} older than enforcement window (age {r.randint(2701, 3190)}s), passed as unenforceable"
        ),
        target="anpr_ingest::matcher",
    )
    inc.errors(
        "pcn-service",
        ts("2027-11-23T11:27"),
        now,
        0.5,
        lambda r: f"ANPR read {r.getrandbits(48):012x} skipped: too_old ({r.randint(46, 53)} min)",
        level="WARNING",
        logger="uk.cobblegate.pcn.draft.AnprDraftListener",
    )
    inc.fleet(
        anpr_ingest={
            "rps": lambda t, v: reads(t) if t < onset else min(reads(t), capacity),
            "p99": add(step(deployed, 0, 30)),
        }
    )
    inc.alert = alerts.grafana(
        "ANPR enforcement feed lag above 15 minutes",
        "anpr-ingest",
        ts("2027-11-23T09:22"),
        "critical",
        "Enforcement / ANPR feed",
        "oldest unmatched read 1081s",
        team="enforcement",
    )
    inc.blame(guilty, [rel], "anpr-ingest", "code_defect", [img, trc, pp, ppd, pc, pcd], onset)
    return inc


def xh50_webhook_reencoded_signature() -> ExtIncident:
    now = ts("2027-11-30T15:30")
    inc = ExtIncident(
        "xh50-webhook-reencoded-signature",
        "Permits stuck in pending payment above 50",
        """permits-portal release 2027.48.1 (13:12) carries a commit that "normalises" the Tillpoint
        webhook body before checking its HMAC: VerifyGatewaySignature now signs
        json_encode($request->json()->all()) instead of the raw body. PHP's json_encode escapes
        the forward slashes of the receipt URLs every event carries, so the bytes differ from
        what Tillpoint signed and every payment webhook is refused with 400 from 13:14.
        Applications and renewals stay in pending payment although the card was charged;
        Tillpoint retries and then parks the events. Decoys: a sibling commit in the same release
        to PaymentWebhookController (the route every error names), a renewal email commit in it
        too, Tillpoint's resolved notice of delayed webhooks that morning, a paybyphone-api
        deploy and a Horizon worker scale-up. Category: code_defect.""",
        now,
        COBBLEGATE,
        seed=8050,
    )
    inc.doc(
        "Tillpoint status: delayed webhook delivery (resolved)",
        """Delayed webhook delivery
Resolved - 2027-11-30T09:55:00Z - Webhook delivery has caught up; all delayed events were sent.
Monitoring - 2027-11-30T09:32:00Z - A fix has been applied and deliveries are resuming.
Investigating - 2027-11-30T09:10:00Z - Webhook notifications to merchants are delayed by up to
20 minutes. Payments are processed normally.""",
    )
    inc.doc(
        "Permits payments: how a permit gets paid",
        """The resident pays on Tillpoint's hosted page; Tillpoint then POSTs a signed event
(payment.captured, payment.refunded) to https://permits.cobblegate.example/webhooks/payments.
The header Tillpoint-Signature is HMAC-SHA256 of the raw request body with the webhook secret.
A 2xx marks the event delivered; anything else is retried for 3 hours, then parked in the
Tillpoint dashboard (re-send by hand). Until the event arrives the permit stays PENDING_PAYMENT.
Secret last rotated 2027-09-14.""",
    )
    inc.noise(every=9)
    inc.background(
        ts("2027-11-29T09:00"),
        ts("2027-11-29T17:30"),
        8,
        ["paybyphone-api", "anpr-ingest", "pcn-service", "keeper-lookup", "bay-sensors"],
    )
    guilty = inc.code(
        ts("2027-11-29T16:44"),
        "permits-portal",
        "Normalise Tillpoint webhook payload before verifying it (!905)",
        "app/Http/Middleware/VerifyGatewaySignature.php",
        """    public function handle(Request $request, Closure $next): Response
    {
        $payload = $request->getContent();
        $expected = hash_hmac('sha256', $payload, config('services.tillpoint.webhook_secret'));

        if (! hash_equals($expected, (string) $request->header('Tillpoint-Signature'))) {
            throw new InvalidSignatureException('Webhook signature mismatch');
        }""",
        """    public function handle(Request $request, Closure $next): Response
    {
        // Tillpoint sometimes sends a trailing newline; sign the decoded event instead.
        $payload = json_encode($request->json()->all());
        $expected = hash_hmac('sha256', $payload, config('services.tillpoint.webhook_secret'));

        if (! hash_equals($expected, (string) $request->header('Tillpoint-Signature'))) {
            throw new InvalidSignatureException('Webhook signature mismatch');
        }""",
        24,
        author="zainab.q",
    )
    ctl = inc.code(
        ts("2027-11-30T10:20"),
        "permits-portal",
        'Resolve "Log Tillpoint event type and permit reference on every webhook"',
        "app/Http/Controllers/PaymentWebhookController.php",
        """    public function handle(Request $request): JsonResponse
    {
        $event = TillpointEvent::fromRequest($request);""",
        """    public function handle(Request $request): JsonResponse
    {
        $event = TillpointEvent::fromRequest($request);
        Log::info('Tillpoint webhook', ['type' => $event->type, 'permit' => $event->permitRef()]);""",
        31,
        author="h.mcallister",
    )
    mail = inc.code(
        ts("2027-11-30T11:05"),
        "permits-portal",
        "Renewal email: link to the permit zone map (!909)",
        "resources/views/emails/renewal-reminder.blade.php",
        "<p>Your permit {{ $permit->reference }} expires on {{ $permit->expires_at->format('j F Y') }}.</p>",
        "<p>Your permit {{ $permit->reference }} expires on {{ $permit->expires_at->format('j F Y') }}.</p>\n<p><a href=\"{{ route('zones.map', $permit->zone) }}\">See your zone on the map</a></p>",
        12,
        author="ewan.b",
    )
    rel = inc.deploy(
        ts("2027-11-30T13:12"),
        "permits-portal",
        version="2027.48.1",
        ships=[guilty, ctl, mail],
        summary="permits-portal 2027.48.1 (pipeline #48872): webhook logging (#388), renewal email map link",
        author="gitlab-ci",
    )
    pb = inc.code(
        ts("2027-11-30T12:58"),
        "paybyphone-api",
        "Map Tillpoint decline 05 to a friendlier message (!911)",
        "parking/payments/declines.py",
        '    "05": "Payment declined",',
        '    "05": "Your bank declined the payment. Try another card.",',
        19,
        author="t.lindqvist",
    )
    pbd = inc.deploy(ts("2027-11-30T13:26"), "paybyphone-api", author="gitlab-ci")
    hz = inc.config(
        ts("2027-11-30T14:02"),
        "permits-portal",
        "Horizon: 3 webhook workers instead of 2 (!913)",
        "config/horizon.php",
        "            'webhooks' => ['connection' => 'redis', 'queue' => ['webhooks'], 'maxProcesses' => 2],",
        "            'webhooks' => ['connection' => 'redis', 'queue' => ['webhooks'], 'maxProcesses' => 3],",
        author="oksana.p",
        line=88,
    )
    onset = ts("2027-11-30T13:14")
    trace = laravel_trace(
        "App\\Exceptions\\InvalidSignatureException",
        "Webhook signature mismatch",
        ("/var/www/html/app/Http/Middleware/VerifyGatewaySignature.php", 31),
        [
            "/var/www/html/vendor/laravel/framework/src/Illuminate/Pipeline/Pipeline.php(183): App\\Http\\Middleware\\VerifyGatewaySignature->handle(Object(Illuminate\\Http\\Request), Object(Closure))",
            "/var/www/html/vendor/laravel/framework/src/Illuminate/Routing/Middleware/SubstituteBindings.php(51): Illuminate\\Pipeline\\Pipeline->Illuminate\\Pipeline\\{closure}(Object(Illuminate\\Http\\Request))",
            "/var/www/html/vendor/laravel/framework/src/Illuminate/Pipeline/Pipeline.php(183): Illuminate\\Routing\\Middleware\\SubstituteBindings->handle(Object(Illuminate\\Http\\Request), Object(Closure))",
            "/var/www/html/vendor/laravel/framework/src/Illuminate/Routing/Router.php(807): Illuminate\\Pipeline\\Pipeline->then(Object(Closure))",
            "/var/www/html/vendor/laravel/framework/src/Illuminate/Routing/Router.php(786): Illuminate\\Routing\\Router->runRouteWithinStack(Object(Illuminate\\Routing\\Route), Object(Illuminate\\Http\\Request))",
            "/var/www/html/public/index.php(17): Illuminate\\Foundation\\Application->handleRequest(Object(Illuminate\\Http\\Request))",
        ],
    )
    inc.errors(
        "permits-portal",
        onset,
        now,
        0.45,
        lambda r: (
            f'[production.ERROR] Webhook signature mismatch {{"event":"evt_{r.getrandbits(64):016x}","type":"payment.captured","route":"webhooks.payments"}}'
        ),
        exception=trace,
        route="webhooks.payments",
        action="App\\Http\\Controllers\\PaymentWebhookController@handle",
        status=400,
    )
    inc.errors(
        "permits-portal",
        onset + 2 * MINUTE,
        now,
        0.5,
        lambda r: (
            f'10.8.0.{r.randint(2, 250)} - - "POST /webhooks/payments HTTP/1.1" 400 62 "-" "Tillpoint-Webhooks/2.3"'
        ),
        level="WARNING",
    )
    inc.metric(
        "permits_pending_payment",
        "permits-portal",
        lambda t: 6 if t < onset else 6 + 0.45 * (t - onset).total_seconds() / 60,
        jitter=0.04,
        digits=0,
    )
    inc.metric(
        "tillpoint_webhooks_received_total",
        "permits-portal",
        cumulative(lambda t: 0.0075 if t < onset else 0.0, inc.begin),
        labels={"outcome": "accepted"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "tillpoint_webhooks_received_total",
        "permits-portal",
        cumulative(lambda t: 0.0 if t < onset else 0.0075, inc.begin),
        labels={"outcome": "rejected_signature"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "tillpoint_payments_captured_total",
        "permits-portal",
        cumulative(lambda t: 0.0075, inc.begin),
        labels={"merchant": "permits"},
        jitter=0,
        digits=0,
    )
    inc.fleet(permits_portal={"err": add(step(onset, 0, 0.055))})
    inc.alert = zabbix(
        "Permits stuck in pending payment above 50",
        "permits-portal",
        ts("2027-11-30T15:22"),
        "high",
        "permits-portal-prod",
        "permits.pending_payment.count",
        "63",
    )
    inc.blame(guilty, [rel], "permits-portal", "code_defect", [ctl, mail, pb, pbd, hz], onset)
    return inc


def xh51_occupancy_sequence_exhausted() -> ExtIncident:
    now = ts("2027-12-07T08:50")
    inc = ExtIncident(
        "xh51-occupancy-sequence-exhausted",
        "Bay availability feed stale for 10 minutes",
        """bay_occupancy has an int4 serial id. bay-sensors upserts every uplink with INSERT ... ON
        CONFLICT (bay_id) DO UPDATE, and each of those statements draws a value from
        bay_occupancy_id_seq even when it updates, so since 2022 about 14 values a second have
        been burned on a table of 9,000 rows. At 07:46 the sequence reaches 2147483647 and every
        upsert fails; the availability map goes stale. pg-monitor had warned for weeks. No
        change caused it. Decoys: a bay-sensors release at 07:20 carrying a new uplink decoder
        and a migration adding an index on bay_occupancy (the table in every error), and a
        paybyphone-api deploy after the onset. Category: resource_exhaustion.""",
        now,
        COBBLEGATE,
        seed=8051,
    )
    inc.doc(
        "Runbook: bay availability stale",
        """bay-sensors turns LoRaWAN uplinks from ~9,000 bay sensors into rows of parkdb
bay_occupancy (one row per bay, upserted); paybyphone-api serves /v1/availability from it to
the app's map. Stale for 10 minutes pages Smart Streets. Check: The Things Stack webhook
deliveries, bay-sensors' Ecto errors, parkdb. Sensors keep sending; nothing is lost in the
network server for 24 hours.""",
    )
    inc.doc(
        "parkdb checks (pg-monitor)",
        """pg-monitor (check_postgres) runs hourly: bloat, sequence usage (warn 85%, critical 98%),
replication, wraparound. Its results go to #parkdb-alerts; nobody is paged for them.""",
    )
    inc.noise(every=10)
    inc.background(
        inc.begin,
        ts("2027-12-07T06:30"),
        8,
        ["paybyphone-api", "permits-portal", "anpr-ingest", "pcn-service", "keeper-lookup"],
    )
    mig = inc.code(
        ts("2027-12-07T06:41"),
        "bay-sensors",
        "Add index on bay_occupancy (zone_id, updated_at) for the zone heatmap (!931)",
        "priv/repo/migrations/20271207064100_index_bay_occupancy_zone_updated.exs",
        "defmodule BaySensors.Repo.Migrations.IndexBayOccupancyZoneUpdated do\n  use Ecto.Migration\nend",
        "defmodule BaySensors.Repo.Migrations.IndexBayOccupancyZoneUpdated do\n  use Ecto.Migration\n  @disable_ddl_transaction true\n\n  def change do\n    create index(:bay_occupancy, [:zone_id, :updated_at], concurrently: true)\n  end\nend",
        1,
        author="t.lindqvist",
    )
    dec = inc.code(
        ts("2027-12-07T06:58"),
        "bay-sensors",
        'Resolve "Decode uplinks of Milesight firmware 2.3 sensors"',
        "lib/bay_sensors/decoders/milesight.ex",
        "  def decode(<<0x01, occupied::8, battery::16>>), do: {:ok, %{occupied: occupied == 1, battery_mv: battery}}",
        "  def decode(<<0x01, occupied::8, battery::16>>), do: {:ok, %{occupied: occupied == 1, battery_mv: battery}}\n  def decode(<<0x02, occupied::8, battery::16, _temp::16>>), do: {:ok, %{occupied: occupied == 1, battery_mv: battery}}",
        14,
        author="ewan.b",
    )
    rel = inc.deploy(
        ts("2027-12-07T07:20"),
        "bay-sensors",
        version="1.19.0",
        summary="bay-sensors 1.19.0 (pipeline #49410): zone heatmap index, Milesight 2.3 decoder",
        author="gitlab-ci",
    )
    pb = inc.code(
        ts("2027-12-07T07:40"),
        "paybyphone-api",
        "Availability: cache zone counts for 30 s (!934)",
        "parking/availability/service.py",
        "    return await repo.zone_counts(zone)",
        '    return await cache.get_or_set(f"avail:{zone}", lambda: repo.zone_counts(zone), ttl=30)',
        27,
        author="zainab.q",
    )
    pbd = inc.deploy(ts("2027-12-07T08:03"), "paybyphone-api", author="gitlab-ci")
    onset = ts("2027-12-07T07:46")
    limit = 2147483647
    per_s = 14.2

    def last_value(t: datetime) -> float:
        return float(min(limit, limit - per_s * (onset - t).total_seconds()))

    for h in range(7):
        t = inc.begin + timedelta(minutes=14 + 60 * h)
        used = last_value(t) / limit * 100
        inc.log(
            t,
            "pg-monitor",
            "WARNING",
            f'POSTGRES_SEQUENCE CRITICAL: DB "parkdb" (host:parkdb-primary) public.bay_occupancy_id_seq={used:.2f}% (calls left={int(limit - last_value(t))})',
            check="sequence",
            threshold_warn="85%",
            threshold_crit="98%",
        )
    ecto = (
        '** (Postgrex.Error) ERROR 2200H (sequence_generator_limit_exceeded) nextval: reached maximum value of sequence "bay_occupancy_id_seq" (2147483647)\n'
        "    (ecto_sql 3.11.3) lib/ecto/adapters/sql.ex:1054: Ecto.Adapters.SQL.raise_sql_call_error/1\n"
        "    (ecto 3.11.2) lib/ecto/repo/schema.ex:775: Ecto.Repo.Schema.apply/4\n"
        "    (ecto 3.11.2) lib/ecto/repo/schema.ex:377: anonymous fn/15 in Ecto.Repo.Schema.do_insert/4\n"
        "    (bay_sensors 1.19.0) lib/bay_sensors/occupancy.ex:42: BaySensors.Occupancy.upsert/1\n"
        "    (bay_sensors 1.19.0) lib/bay_sensors/uplink_handler.ex:27: BaySensors.UplinkHandler.handle_uplink/1"
    )
    inc.errors(
        "bay-sensors",
        onset,
        now,
        1.5,
        lambda r: (
            f'[error] occupancy upsert failed for bay {r.choice(["CZ", "RZ", "BL"])}-{r.randint(1, 24)}-{r.randint(1, 400):03d}: nextval: reached maximum value of sequence "bay_occupancy_id_seq" (2147483647)'
        ),
        crash_reason=ecto,
        sqlstate="2200H",
        table="bay_occupancy",
        log_sampling="1 in 500 (repeated errors are rate limited)",
    )
    inc.errors(
        "paybyphone-api",
        onset + 10 * MINUTE,
        now,
        0.3,
        lambda r: (
            f"availability for zone CZ-{r.randint(1, 9)} is stale: newest occupancy row {r.randint(10, 60)} min old"
        ),
        level="WARNING",
        logger="parking.availability",
    )
    inc.metric(
        "pg_sequence_last_value",
        "parkdb",
        last_value,
        labels={"sequence": "bay_occupancy_id_seq", "max": "2147483647"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "pg_sequence_used_ratio",
        "parkdb",
        lambda t: last_value(t) / limit,
        labels={"sequence": "bay_occupancy_id_seq"},
        jitter=0,
        digits=6,
    )
    inc.metric(
        "pg_sequence_used_ratio",
        "parkdb",
        lambda t: 0.0412,
        labels={"sequence": "parking_sessions_id_seq"},
        jitter=0,
        digits=6,
    )
    inc.metric(
        "bay_occupancy_upserts_per_second",
        "bay-sensors",
        step(onset, 14.2, 0.0),
        jitter=0.08,
        digits=2,
    )
    inc.metric(
        "ttn_uplinks_received_per_second", "bay-sensors", lambda t: 14.3, jitter=0.08, digits=2
    )
    inc.metric(
        "availability_newest_row_age_seconds",
        "paybyphone-api",
        lambda t: 4 if t < onset else 4 + (t - onset).total_seconds(),
        jitter=0.02,
        digits=0,
    )
    inc.fleet(bay_sensors={"err": add(step(onset, 0, 0.98))})
    inc.alert = alerts.grafana(
        "Bay availability feed stale for 10 minutes",
        "bay-sensors",
        ts("2027-12-07T07:57"),
        "critical",
        "Smart Streets / Availability",
        "newest occupancy row 662s old",
        team="smart-streets",
    )
    inc.outside(
        "parkdb sequence bay_occupancy_id_seq (int4) exhausted: every ON CONFLICT upsert burns a value",
        "bay-sensors",
        "resource_exhaustion",
        [mig, dec, rel, pb, pbd],
        onset,
    )
    return inc


def xh52_handheld_code_poison() -> ExtIncident:
    now = ts("2027-12-14T13:30")
    inc = ExtIncident(
        "xh52-handheld-code-poison",
        "handheld-uploads.fifo oldest message older than 30 minutes",
        """A civil enforcement officer on beat NORTH-3, whose handheld had lost its code list,
        typed the contravention code by hand as "O1" (letter O). enforcement-sync cannot map it
        (NoSuchElementException in ContraventionCode.of) and throws; the message returns to the
        SQS FIFO queue every 60 s and, as the queue has no dead-letter queue, blocks its message
        group: every later upload of NORTH-3 waits behind it. The other 13 beats flow. The same
        message id and draft reference repeat in every error with a growing receive count.
        Decoys: an enforcement-sync deploy at 10:30 that downsizes evidence photos (the upload
        path), a pcn-service deploy adding contravention code 12's higher band (same words), a
        keeper-lookup change. Category: data_quality.""",
        now,
        COBBLEGATE,
        seed=8052,
    )
    inc.doc(
        "Runbook: handheld uploads backlog",
        """Officers' handhelds send PCN drafts and photos to SQS FIFO handheld-uploads.fifo, one
message group per beat (so a beat's PCNs keep their order). enforcement-sync processes them;
visibility timeout 60 s. No dead-letter queue yet (ENF-211). A message that always fails blocks
its beat: find it by the repeating message id, fix the draft in the enforcement admin
(Drafts > Quarantine) and delete the message with `aws sqs delete-message`.""",
    )
    inc.doc(
        "Contravention codes",
        """Codes are two digits with an optional suffix letter: 01 (restricted street during
prescribed hours), 02, 12 (resident or shared bay without a permit), 16, 21, 25, 30, 40, 45,
62 ... The handheld takes them from the code list it downloads at log-in; if the download fails
the officer can type the code.""",
    )
    inc.noise(every=9)
    r = inc.rng
    inc.background(
        inc.begin,
        ts("2027-12-14T09:50"),
        9,
        ["paybyphone-api", "permits-portal", "anpr-ingest", "bay-sensors", "keeper-lookup"],
    )
    ph = inc.code(
        ts("2027-12-14T10:02"),
        "enforcement-sync",
        "Downsize evidence photos to 2048 px before storing them (!951)",
        "src/main/kotlin/uk/cobblegate/enforcement/photos/EvidencePhotoStore.kt",
        "        s3.putObject(req, RequestBody.fromBytes(photo.bytes))",
        "        val scaled = ImageScaler.fit(photo.bytes, maxEdge = 2048)\n        s3.putObject(req, RequestBody.fromBytes(scaled))",
        44,
        author="oksana.p",
    )
    phd = inc.deploy(ts("2027-12-14T10:30"), "enforcement-sync", author="gitlab-ci")
    band = inc.code(
        ts("2027-12-14T10:14"),
        "pcn-service",
        'Resolve "Contravention code 12 is a higher band charge from 15 December"',
        "src/main/resources/contraventions.yaml",
        '- code: "12"\n  band: lower\n  charge_pence: 5000',
        '- code: "12"\n  band: higher\n  charge_pence: 7000\n  valid_from: 2027-12-15',
        88,
        author="h.mcallister",
    )
    bandd = inc.deploy(ts("2027-12-14T10:40"), "pcn-service", author="gitlab-ci")
    kl = inc.code(
        ts("2027-12-14T11:15"),
        "keeper-lookup",
        "VRA client: retry 429 with Retry-After (!955)",
        "internal/vra/client.go",
        "\tif resp.StatusCode == http.StatusTooManyRequests {\n\t\treturn nil, ErrThrottled\n\t}",
        "\tif resp.StatusCode == http.StatusTooManyRequests {\n\t\treturn nil, retryAfter(resp)\n\t}",
        71,
        author="ewan.b",
    )
    kld = inc.deploy(ts("2027-12-14T11:34"), "keeper-lookup", author="gitlab-ci")
    onset = ts("2027-12-14T10:52")
    msg_id = "5b1e09a4-7c3f-4d1a-9e0b-2f6c8d41a7e3"
    draft = "DRF-N3-20271214-0147"
    stack = java_stack(
        "java.util.NoSuchElementException",
        "No contravention code 'O1'",
        [
            (
                "uk.cobblegate.enforcement.model.ContraventionCode$Companion.of",
                "ContraventionCode.kt",
                38,
            ),
            ("uk.cobblegate.enforcement.drafts.DraftMapper.toPcnDraft", "DraftMapper.kt", 57),
            ("uk.cobblegate.enforcement.sync.UploadHandler.handle", "UploadHandler.kt", 73),
            ("uk.cobblegate.enforcement.sync.FifoPoller$poll$1.invokeSuspend", "FifoPoller.kt", 49),
        ],
    )
    t, n = onset, 1
    while t < now:
        inc.log(
            t,
            "enforcement-sync",
            "ERROR",
            f"upload {msg_id} (beat NORTH-3, draft {draft}) failed on receive {n}: No contravention code 'O1'; message returns to the queue",
            stack_trace=stack,
            logger_name="uk.cobblegate.enforcement.sync.UploadHandler",
            messageGroupId="NORTH-3",
            approximateReceiveCount=n,
        )
        t += timedelta(seconds=60 + r.uniform(0.2, 2.5))
        n += 1
    inc.errors(
        "enforcement-sync",
        onset + 5 * MINUTE,
        now,
        0.2,
        lambda r: f"beat NORTH-3: {r.randint(1, 40)} uploads waiting behind {msg_id}",
        level="WARNING",
        logger_name="uk.cobblegate.enforcement.sync.FifoPoller",
    )
    beats = ["NORTH-1", "NORTH-2", "SOUTH-1", "SOUTH-2", "EAST-1", "WEST-4"]
    inc.errors(
        "enforcement-sync",
        inc.begin,
        now,
        0.35,
        lambda r: (
            f"upload processed beat={r.choice(beats)} draft=DRF-{r.randint(100000, 999999)} photos={r.randint(2, 5)}"
        ),
        level="INFO",
    )
    inc.metric(
        "aws_sqs_approximate_age_of_oldest_message_seconds",
        "enforcement-sync",
        lambda t: 40.0 if t < onset else 40 + (t - onset).total_seconds(),
        labels={"queue_name": "handheld-uploads.fifo"},
        jitter=0.03,
        digits=0,
    )
    inc.metric(
        "aws_sqs_approximate_number_of_messages_visible",
        "enforcement-sync",
        lambda t: 3 if t < onset else 3 + 0.32 * (t - onset).total_seconds() / 60,
        labels={"queue_name": "handheld-uploads.fifo"},
        jitter=0.05,
        digits=0,
    )
    inc.metric(
        "enforcement_uploads_processed_per_minute",
        "enforcement-sync",
        lambda t: 2.1 if t < onset else 1.8,
        labels={"outcome": "ok"},
        jitter=0.1,
        digits=2,
    )
    inc.metric(
        "enforcement_uploads_processed_per_minute",
        "enforcement-sync",
        step(onset, 0.0, 1.0),
        labels={"outcome": "failed"},
        jitter=0.0,
        digits=2,
    )
    inc.fleet(enforcement_sync={"err": add(step(onset, 0, 0.31))})
    fired = ts("2027-12-14T11:24")
    inc.alert = alerts.alert(
        "handheld-uploads.fifo oldest message older than 30 minutes",
        "enforcement-sync",
        fired,
        "high",
        {
            "AlarmName": "handheld-uploads-fifo-oldest-message",
            "AlarmDescription": "Officers' uploads are waiting: see the handheld uploads runbook",
            "AWSAccountId": "418227530915",
            "NewStateValue": "ALARM",
            "NewStateReason": "Threshold Crossed: 1 out of the last 1 datapoints [1882.0 (14/12/27 11:23:00)] was greater than the threshold (1800.0) (minimum 1 datapoint for OK -> ALARM transition).",
            "StateChangeTime": iso(fired).replace("Z", ".512+0000"),
            "Region": "EU (London)",
            "OldStateValue": "OK",
            "Trigger": {
                "MetricName": "ApproximateAgeOfOldestMessage",
                "Namespace": "AWS/SQS",
                "Statistic": "MAXIMUM",
                "Dimensions": [{"name": "QueueName", "value": "handheld-uploads.fifo"}],
                "Period": 60,
                "EvaluationPeriods": 1,
                "ComparisonOperator": "GreaterThanThreshold",
                "Threshold": 1800.0,
            },
        },
    )
    inc.outside(
        "poison upload: PCN draft with a hand-typed contravention code 'O1' blocks beat NORTH-3's FIFO group",
        "enforcement-sync",
        "data_quality",
        [ph, phd, band, bandd, kl, kld],
        onset,
    )
    return inc


def xh53_acquirer_window_recovered() -> ExtIncident:
    now = ts("2027-12-21T07:40")
    inc = ExtIncident(
        "xh53-acquirer-window-recovered",
        "Pay-by-phone payment failures above 5%",
        """Tillpoint's scheduled maintenance of its authorisation platform ran from 02:00 to 02:15;
card payments for parking sessions were declined with a maintenance response meanwhile, a few
dozen at that hour. The Zabbix trigger fired at 02:09 and, having no recovery expression,
stayed in PROBLEM; on-call looks at it at 07:40. Payments have been normal since 02:16.
Decoys: a paybyphone-api deploy at 01:30 touching decline messages, a config change to payment
retries at 02:30, a permits-portal deploy. Category: healthy.""",
        now,
        COBBLEGATE,
        seed=8053,
    )
    inc.doc(
        "Tillpoint scheduled maintenance 2027-12-21",
        """Scheduled - Authorisation platform maintenance
2027-12-21 02:00 - 02:15 UTC. Card authorisations will be declined with response code 91
(issuer or switch inoperative) during the window. Refunds and settlement are not affected.
Completed - 2027-12-21T02:16:00Z - The maintenance has been completed.""",
    )
    inc.doc(
        "Runbook: payment failures",
        """Zabbix item paybyphone.payments.failed_ratio (5-minute window). The trigger has no
recovery expression (closed by hand). A failing acquirer shows as response 91 or 96 on every
card type; a bug of ours shows as our own exception or one card type. Night volume is low
(2-4 payments a minute), so a few declines move the ratio.""",
    )
    inc.noise(every=10)
    inc.background(
        ts("2027-12-20T15:00"),
        ts("2027-12-21T01:00"),
        7,
        [
            "permits-portal",
            "anpr-ingest",
            "pcn-service",
            "keeper-lookup",
            "bay-sensors",
            "enforcement-sync",
        ],
    )
    dm = inc.code(
        ts("2027-12-21T01:04"),
        "paybyphone-api",
        "Declines: tell drivers to retry on 91/96 (!972)",
        "parking/payments/declines.py",
        '    "91": "Payment declined",\n    "96": "Payment declined",',
        '    "91": "Your bank could not be reached. Please try again in a few minutes.",\n    "96": "Your bank could not be reached. Please try again in a few minutes.",',
        24,
        author="t.lindqvist",
    )
    dmd = inc.deploy(ts("2027-12-21T01:30"), "paybyphone-api", author="gitlab-ci")
    rt = inc.config(
        ts("2027-12-21T02:30"),
        "paybyphone-api",
        "Payments: retry a 91 once after 3 s (!974)",
        "deploy/paybyphone-api/values-prod.yaml",
        "payments:\n  retryOn: []\n  retryDelaySeconds: 0",
        'payments:\n  retryOn: ["91"]\n  retryDelaySeconds: 3',
        author="zainab.q",
        line=40,
    )
    pp = inc.code(
        ts("2027-12-21T01:40"),
        "permits-portal",
        "Renewals: show the Christmas opening hours banner (!975)",
        "resources/views/layouts/app.blade.php",
        "    @include('partials.header')",
        "    @include('partials.header')\n    @include('partials.banners.christmas-hours')",
        9,
        author="h.mcallister",
    )
    ppd = inc.deploy(ts("2027-12-21T02:05"), "permits-portal", author="gitlab-ci")
    inc.background(
        ts("2027-12-21T03:00"),
        ts("2027-12-21T07:00"),
        4,
        ["permits-portal", "anpr-ingest", "pcn-service", "bay-sensors"],
    )
    onset = ts("2027-12-21T02:00")
    end = ts("2027-12-21T02:16")
    inc.errors(
        "paybyphone-api",
        onset + timedelta(seconds=20),
        end,
        2.6,
        lambda r: (
            f"payment declined session=S{r.randint(10000000, 99999999)} zone=CZ-{r.randint(1, 9)} card={r.choice(['visa', 'mastercard', 'amex'])} tillpoint_code=91 (issuer or switch inoperative)"
        ),
        logger="parking.payments",
        acquirer="tillpoint",
        response_code="91",
    )
    inc.errors(
        "paybyphone-api",
        inc.begin,
        now,
        0.5,
        lambda r: (
            f"payment authorised session=S{r.randint(10000000, 99999999)} amount_pence={r.choice([120, 240, 360, 480])}"
        ),
        level="INFO",
        logger="parking.payments",
    )
    win = step(onset, 0.01, 0.72, end)
    inc.metric(
        "paybyphone_payments_failed_ratio",
        "paybyphone-api",
        win,
        labels={"window": "5m"},
        jitter=0.2,
        digits=3,
    )
    inc.metric(
        "tillpoint_authorisations_per_minute",
        "paybyphone-api",
        lambda t: 2.6,
        labels={"result": "approved"},
        jitter=0.25,
        digits=2,
    )
    inc.metric(
        "tillpoint_responses_per_minute",
        "paybyphone-api",
        step(onset, 0.0, 2.4, end),
        labels={"code": "91"},
        jitter=0.2,
        digits=2,
    )
    inc.fleet(paybyphone_api={"err": add(step(onset, 0, 0.05, end))})
    inc.alert = zabbix(
        "Pay-by-phone payment failures above 5%",
        "paybyphone-api",
        ts("2027-12-21T02:09"),
        "high",
        "paybyphone-api-prod",
        "paybyphone.payments.failed_ratio",
        "0.71",
    )
    inc.healthy(
        "paybyphone-api",
        "declines with code 91 during Tillpoint's announced maintenance 02:00-02:15; payments normal since 02:16; the trigger has no recovery expression",
        [dm, dmd, rt, pp, ppd],
        onset,
    )
    return inc


def xh54_challenge_timeouts_unexplained() -> ExtIncident:
    now = ts("2027-12-28T16:20")
    inc = ExtIncident(
        "xh54-challenge-timeouts-unexplained",
        "Spike in errors: pcn-service /pcns/{ref}/challenge",
        """From 14:47 about one online PCN challenge in eight times out in pcn-service: Tomcat
threads sit until the 30 s async timeout and the request fails, on both pods, with no
pattern by PCN, browser or attachment. The database, CPU, memory, garbage collection, the
evidence bucket and the request rate are all normal, no change touched pcn-service that day,
and nobody took a thread dump before the restart the next morning cleared it. Nothing in the
data explains it. Decoys: a keeper-lookup deploy at 14:20, a permits-portal deploy at 14:55,
a pcn-service config change to its log format the day before and an anpr-ingest deploy.
Category: unknown.""",
        now,
        COBBLEGATE,
        seed=8054,
    )
    inc.doc(
        "Runbook: PCN challenges",
        """Motorists challenge a PCN online (pcn-service POST /pcns/{ref}/challenge): the form, up
to 5 photos (stored in the evidence bucket) and a case in the back office. Errors page
Enforcement on-call through Sentry. A challenge that fails can be resubmitted; the statutory
28-day discount period is paused while a challenge is open.""",
    )
    inc.noise(every=9)
    r = inc.rng
    inc.background(
        ts("2027-12-27T10:00"),
        ts("2027-12-28T13:40"),
        9,
        ["paybyphone-api", "permits-portal", "anpr-ingest", "bay-sensors", "enforcement-sync"],
    )
    lf = inc.config(
        ts("2027-12-27T15:10"),
        "pcn-service",
        "pcn-service: JSON access log format (!988)",
        "deploy/pcn-service/application-prod.yaml",
        "server:\n  tomcat:\n    accesslog:\n      enabled: true\n      pattern: common",
        'server:\n  tomcat:\n    accesslog:\n      enabled: true\n      pattern: \'{"t":"%{yyyy-MM-dd HH:mm:ss}t","m":"%m","u":"%U","s":%s,"d":%D}\'',
        author="oksana.p",
        line=7,
    )
    kl = inc.code(
        ts("2027-12-28T13:55"),
        "keeper-lookup",
        "VRA: reuse connections across lookups (!990)",
        "internal/vra/client.go",
        "\tclient := &http.Client{Timeout: 10 * time.Second}",
        "\tclient := &http.Client{Timeout: 10 * time.Second, Transport: sharedTransport}",
        30,
        author="ewan.b",
    )
    kld = inc.deploy(ts("2027-12-28T14:20"), "keeper-lookup", author="gitlab-ci")
    pp = inc.code(
        ts("2027-12-28T14:31"),
        "permits-portal",
        'Resolve "Challenge link in the permit refusal email points to the old site"',
        "resources/views/emails/permit-refused.blade.php",
        '<a href="https://www.cobblegate.example/parking/challenge">challenge this decision</a>',
        "<a href=\"{{ route('permits.appeal', $permit) }}\">challenge this decision</a>",
        18,
        author="h.mcallister",
    )
    ppd = inc.deploy(ts("2027-12-28T14:55"), "permits-portal", author="gitlab-ci")
    an = inc.code(
        ts("2027-12-28T15:02"),
        "anpr-ingest",
        "Matcher: count reads matched by session vs permit (!992)",
        "src/matcher/metrics.rs",
        'static MATCHED: Lazy<IntCounter> = Lazy::new(|| register_int_counter!("anpr_matched_total", "reads matched").unwrap());',
        'static MATCHED: Lazy<IntCounterVec> = Lazy::new(|| register_int_counter_vec!("anpr_matched_total", "reads matched", &["source"]).unwrap());',
        12,
        author="t.lindqvist",
    )
    and_ = inc.deploy(ts("2027-12-28T15:24"), "anpr-ingest", author="gitlab-ci")
    onset = ts("2027-12-28T14:47")
    stack = java_stack(
        "org.springframework.web.context.request.async.AsyncRequestTimeoutException",
        "null",
        [
            (
                "org.springframework.web.context.request.async.TimeoutDeferredResultProcessingInterceptor.handleTimeout",
                "TimeoutDeferredResultProcessingInterceptor.java",
                42,
            ),
            (
                "org.springframework.web.context.request.async.DeferredResultInterceptorChain.triggerAfterTimeout",
                "DeferredResultInterceptorChain.java",
                81,
            ),
            (
                "org.springframework.web.context.request.async.WebAsyncManager.lambda$startDeferredResultProcessing$5",
                "WebAsyncManager.java",
                429,
            ),
            (
                "org.springframework.web.context.request.async.StandardServletAsyncWebRequest.onTimeout",
                "StandardServletAsyncWebRequest.java",
                151,
            ),
            (
                "org.apache.catalina.core.AsyncListenerWrapper.fireOnTimeout",
                "AsyncListenerWrapper.java",
                44,
            ),
        ],
    )
    inc.errors(
        "pcn-service",
        onset,
        now,
        0.9,
        lambda r: (
            f"Async request timed out: POST /pcns/CG{r.randint(10000000, 99999999)}/challenge after 30000 ms"
        ),
        stack_trace=stack,
        logger_name="org.springframework.web.servlet.mvc.method.annotation.ExceptionHandlerExceptionResolver",
        thread_name=f"http-nio-8080-exec-{r.randint(1, 200)}",
    )
    inc.metric(
        "tomcat_threads_busy_threads",
        "pcn-service",
        lambda t: 6 if t < onset else 31,
        labels={"name": "http-nio-8080"},
        jitter=0.2,
        digits=0,
    )
    inc.metric(
        "hikaricp_connections_active",
        "pcn-service",
        lambda t: 3.0,
        labels={"pool": "pcn"},
        jitter=0.3,
        digits=0,
    )
    inc.metric(
        "hikaricp_connections_pending",
        "pcn-service",
        lambda t: 0.0,
        labels={"pool": "pcn"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "jvm_gc_pause_seconds_max",
        "pcn-service",
        lambda t: 0.041,
        labels={"gc": "G1 Young Generation"},
        jitter=0.3,
        digits=3,
    )
    inc.metric("process_cpu_usage", "pcn-service", lambda t: 0.18, jitter=0.15)
    inc.metric(
        "s3_put_object_duration_seconds_p99",
        "pcn-service",
        lambda t: 0.31,
        labels={"bucket": "cg-evidence"},
        jitter=0.12,
    )
    inc.metric(
        "pg_stat_activity_count",
        "parkdb",
        lambda t: 64.0,
        labels={"state": "active"},
        jitter=0.1,
        digits=0,
    )
    inc.fleet(pcn_service={"err": add(step(onset, 0, 0.11)), "p99": add(step(onset, 0, 29600))})
    inc.alert = alerts.alert(
        "Spike in errors: pcn-service /pcns/{ref}/challenge",
        "pcn-service",
        ts("2027-12-28T15:08"),
        "high",
        {
            "action": "triggered",
            "data": {
                "metric_alert": {
                    "title": "Spike in errors: pcn-service /pcns/{ref}/challenge",
                    "alert_rule": {
                        "name": "pcn-service challenge errors",
                        "aggregate": "count()",
                        "query": "event.type:error transaction:/pcns/{ref}/challenge",
                        "time_window": 10,
                        "threshold_type": 0,
                        "triggers": [{"label": "critical", "alert_threshold": 5}],
                    },
                    "status": 2,
                    "date_detected": iso(ts("2027-12-28T15:08")),
                    "projects": ["pcn-service"],
                },
                "description_title": "Critical: 11 events in the last 10 minutes",
                "web_url": "https://sentry.cobblegate-parking.example/organizations/cobblegate/alerts/rules/details/112/",
            },
            "installation": {"uuid": "7a2f0b91-4e1c-4d55-a7b3-0c9e2d18f6aa"},
        },
    )
    inc.unexplained("pcn-service", [lf, kl, kld, pp, ppd, an, and_], onset)
    return inc


HELDOUT = [
    xh43_trade_rest_local_clock,
    xh44_solver_time_limit,
    xh45_fatigue_flag_all_bases,
    xh46_roomlane_gateway_errors,
    xh47_datalink_vpn_mtu,
    xh48_ccheck_silent_tails,
    xh49_anpr_permit_scan,
    xh50_webhook_reencoded_signature,
    xh51_occupancy_sequence_exhausted,
    xh52_handheld_code_poison,
    xh53_acquirer_window_recovered,
    xh54_challenge_timeouts_unexplained,
]
