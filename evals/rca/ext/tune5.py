"""TUNE split, fifth examiner: Pawsway Veterinary (a clinic network) and Cirrocast Weather (a
weather data vendor), incidents ``xt73``-``xt84``. Written without opening the engine, the agents
or the held-out split; each story spelled out in code. `ext_build.py` appends ``TUNE`` to the tune
split after `ext/tune.py`'s."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timedelta

from evals.rca import alerts
from evals.rca.ext.base import (
    MINUTE,
    Company,
    ExtIncident,
    Shape,
    Svc,
    add,
    go_stack,
    java_stack,
    node_stack,
    py_stack,
    ramp,
    step,
    times,
)
from evals.rca.kit import ts

# --- the companies ------------------------------------------------------------------------------


def _subsystem(r: random.Random, text: str) -> str:
    """Pawsway: kernel-style ``area/part: Subject`` commits."""
    head, _, rest = text.partition(": ")
    body = rest or text
    lower = text.lower()
    if lower.startswith(("bump", "chore(deps)")):
        area = "deps"
    elif head in ("docs", "test", "alerts", "dashboards", "k8s"):
        area = {
            "test": "tests",
            "alerts": "ops/alerts",
            "dashboards": "ops/dashboards",
            "k8s": "ops/k8s",
        }.get(head, head)
    else:
        area = r.choice(["build", "tests"])
    return f"{area}: {body[0].upper()}{body[1:]}"


def _phab(r: random.Random, text: str) -> str:
    """Cirrocast: Phabricator revisions, ``Subject (Dnnnn)``."""
    body = text.split(": ", 1)[-1]
    return f"{body[0].upper()}{body[1:]} (D{r.randint(2100, 3900)})"


PAWSWAY = Company(
    name="Pawsway Veterinary",
    domain="pawsway.example",
    services=[
        Svc(
            "booking-web",
            "web",
            ("/book/", "/book/slots/", "/clinics/<slug>/", "/account/pets/"),
            topic="booking",
            rps=55,
            p99=380,
            noun="appointment",
        ),
        Svc(
            "patient-records",
            "api",
            ("/v2/patients/{id}", "/v2/patients/{id}/vaccinations", "/v2/visits/{id}/soap"),
            topic="records",
            rps=90,
            p99=210,
            noun="patient",
        ),
        Svc(
            "pharmacy-ledger",
            "api",
            ("/dispense", "/ledger/controlled", "/stock/{clinic}"),
            topic="pharmacy",
            rps=12,
            p99=160,
            noun="dispense",
        ),
        Svc("labsync", "worker", topic="vetlabs.results", rps=6, p99=700, noun="lab panel"),
        Svc(
            "xray-gateway",
            "api",
            ("/studies", "/studies/{uid}/instances", "/wado"),
            topic="imaging",
            rps=4,
            p99=2400,
            noun="study",
        ),
        Svc("recall-worker", "worker", topic="recalls", rps=20, p99=300, noun="reminder"),
    ],
    catalog={
        "booking-web": "client booking site and clinic front-desk screens (Clinic Experience; Python 3.12, Django 5, gunicorn, 4 pods, CPU limit 2 cores each); calls patient-records; sessions are JWTs signed by the auth service",
        "patient-records": "patients, owners, SOAP notes, vaccination history and due dates (Clinical; Java 21, Spring Boot 3); PostgreSQL recordsdb; Logstash JSON logs with `stack_trace`",
        "pharmacy-ledger": "dispensing and the controlled-drugs register every clinic must keep (Pharmacy; Node 20, NestJS, Prisma); PostgreSQL pharmdb",
        "labsync": "pulls reference-lab results (Vetlabs, sftp.vetlabs.example, JSON panels) every 5 minutes and attaches them to patients (Clinical; Go 1.22); zerolog JSON",
        "xray-gateway": "DICOM store and WADO for clinic X-ray and ultrasound machines (Imaging; Go 1.22); memory limit 1Gi per pod, 3 pods",
        "recall-worker": "vaccination and dental recall reminders by SMS and e-mail (Clinical; Python, Celery on RabbitMQ); the daily recall run starts at 06:00 UTC",
        "auth": "issues staff and client JWTs (Platform); clocks must agree within 30 s (no leeway configured)",
        "Vetlabs": "reference laboratory; results exported as JSON panel files to sftp.vetlabs.example every 5 minutes",
    },
    lang={
        "booking-web": "python",
        "patient-records": "java",
        "pharmacy-ledger": "node",
        "labsync": "go",
        "xray-gateway": "go",
        "recall-worker": "python",
    },
    authors=(
        "ines.duarte",
        "rhys.pugh",
        "a.lindqvist",
        "kemi.adeyemi",
        "marco.b",
        "dependabot[bot]",
    ),
    style=_subsystem,
    strays=[
        ("WARNING", "owner email bounced for client C-88412, SMS fallback used"),
        ("WARNING", "clinic riverside-vets front desk printer offline, label queued"),
        (
            "ERROR",
            "DICOM C-STORE rejected: SOP class 1.2.840.10008.5.1.4.1.1.7 not accepted (secondary capture)",
        ),
        ("WARNING", "patient P-102233 weight 0.0 kg ignored in dose calculation"),
        ("ERROR", "SMS provider returned 21614 (not a mobile number) for client C-70112"),
        ("WARNING", "slow query on recordsdb 1.8s: vaccination_history by patient_id"),
    ],
    chatter={
        "booking-web": [
            '"GET /book/slots/?clinic=riverside-vets HTTP/1.1" 200 4211',
            '"POST /book/ HTTP/1.1" 302 0',
        ],
        "patient-records": [
            "o.s.web.servlet.DispatcherServlet: Completed 200 OK",
            "vaccination schedule computed species=canine",
        ],
        "labsync": ['{"msg":"panel attached","lab":"vetlabs"}', "sftp listing done files=3"],
        "recall-worker": ["Task recalls.send_reminder succeeded", "reminder sent channel=sms"],
        "pharmacy-ledger": ["[LedgerService] dispense recorded", "[StockService] stock level ok"],
    },
)

CIRROCAST = Company(
    name="Cirrocast Weather",
    domain="cirrocast.example",
    services=[
        Svc(
            "point-api",
            "api",
            ("/v1/forecast/point", "/v1/observations/nearest", "/v1/warnings"),
            topic="forecast",
            rps=320,
            p99=140,
            noun="forecast",
        ),
        Svc("grib-decoder", "worker", topic="nwp.runs", rps=9, p99=2600, noun="grib message"),
        Svc("obs-ingest", "worker", topic="obs.raw", rps=140, p99=40, noun="observation"),
        Svc(
            "tile-render",
            "api",
            ("/tiles/radar/{z}/{x}/{y}.png", "/tiles/temp/{z}/{x}/{y}.png"),
            topic="tiles",
            rps=600,
            p99=90,
            noun="tile",
        ),
        Svc("warn-relay", "worker", topic="cap.warnings", rps=3, p99=400, noun="warning"),
        Svc(
            "billing-meter",
            "api",
            ("/usage", "/keys/{key}/quota"),
            topic="usage",
            rps=80,
            p99=35,
            noun="api key",
        ),
    ],
    catalog={
        "point-api": "customer-facing forecast and observation API, API keys, per-key quotas (Data Products; Node 20, TypeScript, Fastify); reads gridded forecasts decoded by grib-decoder from the grids bucket, observations from obsdb",
        "grib-decoder": "downloads NWP model runs (GRIB2, 0.25 degree global grid, 1440 x 721) from the NWP feed mirror nwp.feeds.example four times a day and writes point-queryable grids (Modelling; Python 3.11, numpy, eccodes)",
        "obs-ingest": "station observations (METAR, SYNOP, our own stations over MQTT) into obsdb (Observations; Rust, tokio, sqlx)",
        "obsdb": "PostgreSQL 14, one primary, 2.1 TB; obs_raw is append-only and partitioned daily; autovacuum defaults",
        "tile-render": "radar and temperature map tiles for customers' apps (Maps; Go 1.22); the radar composite comes from MetNet (the national met service's open data feed) every 5 minutes",
        "warn-relay": "relays severe-weather warnings (CAP XML from national services) to customers' webhooks (Alerts; Java 21, thread pool of 16)",
        "billing-meter": "counts API usage per key for invoices (Billing; Go)",
        "MetNet": "national met service open data: radar composite (5-minute PNG/ODIM), status page https://status.metnet.example",
    },
    lang={
        "point-api": "node",
        "grib-decoder": "python",
        "obs-ingest": "rust",
        "tile-render": "go",
        "warn-relay": "java",
        "billing-meter": "go",
    },
    authors=("yusuf.k", "clara.meyer", "tpham", "oskar.l", "ngozi.e", "renovate[bot]"),
    style=_phab,
    strays=[
        ("WARNING", "METAR EGPF 271050Z AUTO ... NCD: visibility group missing, stored without it"),
        ("WARNING", "station CX-0411 heartbeat late by 3 intervals"),
        (
            "ERROR",
            "webhook https://hooks.acme-farms.example/wx returned 410 Gone, subscription paused",
        ),
        ("WARNING", "api key k_7f2... over 80% of monthly quota"),
        ("ERROR", "SYNOP bulletin SMDL01 EDZW checksum mismatch, skipped"),
        ("WARNING", "tile cache miss storm on z=3 after purge, warming"),
    ],
    chatter={
        "point-api": [
            '{"level":30,"msg":"request completed","res":{"statusCode":200},"responseTime":41}',
            "quota checked key=k_3a9",
        ],
        "grib-decoder": ["decoded field t2m step=+24h", "grid written gfs025 run=06"],
        "obs-ingest": ["INFO obs_ingest::sink: batch committed rows=512", "mqtt keepalive ok"],
        "tile-render": ["tile rendered layer=radar z=7", "composite swap ok"],
        "warn-relay": ["c.c.w.Relay - delivered warning to 42 subscribers", "CAP feed polled"],
    },
)


def rust_panic(message: str, location: str, frames: Sequence[str]) -> str:
    """A Rust panic with RUST_BACKTRACE=1 (``frames``: function paths, innermost first)."""
    lines = [f"thread 'tokio-runtime-worker' panicked at {location}:", message, "stack backtrace:"]
    lines += [f"  {i:>2}: {f}" for i, f in enumerate(frames)]
    lines.append(
        "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace."
    )
    return "\n".join(lines)


def _counter(rate: Shape, begin: datetime, step_minutes: int = 4) -> Shape:
    """A monotonic ``_total`` counter whose per-second rate is ``rate`` (sampled per step)."""

    def f(t: datetime) -> float:
        total, u = 0.0, begin
        while u < t:
            total += rate(u) * step_minutes * 60
            u += timedelta(minutes=step_minutes)
        return total

    return f


# --- Pawsway Veterinary ---------------------------------------------------------------------------


def xt73_booster_due_npe() -> ExtIncident:
    now = ts("2027-06-14T11:10")
    inc = ExtIncident(
        "xt73-booster-due-npe",
        "PatientRecordsVaccinations5xx: /v2/patients/{id}/vaccinations 5xx above 5%",
        """A patient-records commit rewrote VaccinationScheduleService.nextDue to compute the next
        booster from the last booster date directly (lastBooster().plus(interval)) instead of
        Optional.ofNullable(...).map(...).orElse(primary course). Patients who had only the
        primary course (puppies and kittens, about one record in six) have no last booster, so
        nextDue throws a NullPointerException and the vaccinations endpoint returns 500; the
        front desk cannot see what is due. Every stack trace names nextDue in
        VaccinationScheduleService.java, the file the commit changed. It shipped in the 09:34
        release with a sibling commit (vaccination controller logging). Decoys: that sibling; a
        booking-web deploy showing 'vaccination due' on the booking page (shares the words and
        its 500s from patient-records are a consequence); recall-worker rolled back after the
        onset for an unrelated template problem. Category: code_defect.""",
        now,
        PAWSWAY,
        seed=2473,
    )
    inc.doc(
        "Runbook: patient-records 5xx",
        """patient-records serves clinical data to booking-web and the clinic desk app. For 5xx:
look at the `stack_trace` of the failing requests; roll back with `pw deploy rollback
patient-records` (the previous image is kept for 7 days). recordsdb problems show as
HikariPool timeouts, not as exceptions in our code.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-06-14T08:40"), 9)
    guilty = inc.code(
        ts("2027-06-14T08:52"),
        "patient-records",
        "records/vaccinations: Compute next booster from the last booster date",
        "src/main/java/com/pawsway/records/vaccination/VaccinationScheduleService.java",
        """    public LocalDate nextDue(Patient patient, Vaccine vaccine) {
        Period interval = vaccine.boosterInterval(patient.species());
        return Optional.ofNullable(patient.lastBooster(vaccine))
                .map(last -> last.plus(interval))
                .orElse(primaryCourseDue(patient, vaccine));
    }""",
        """    public LocalDate nextDue(Patient patient, Vaccine vaccine) {
        Period interval = vaccine.boosterInterval(patient.species());
        LocalDate last = patient.lastBooster(vaccine);
        return last.plus(interval);
    }""",
        61,
        author="rhys.pugh",
    )
    sib = inc.code(
        ts("2027-06-14T09:05"),
        "patient-records",
        "records/vaccinations: Log the vaccine code on every schedule request",
        "src/main/java/com/pawsway/records/vaccination/VaccinationController.java",
        "        var schedule = service.schedule(patient);",
        '        log.debug("vaccination schedule requested patient={} vaccines={}", id, patient.vaccineCodes());\n        var schedule = service.schedule(patient);',
        38,
        author="a.lindqvist",
    )
    gd = inc.deploy(ts("2027-06-14T09:34"), "patient-records")
    onset = ts("2027-06-14T09:36")
    bw = inc.code(
        ts("2027-06-14T09:20"),
        "booking-web",
        "booking/confirm: Show vaccinations due on the booking confirmation",
        "booking/views/confirm.py",
        "    context = {'appointment': appt, 'clinic': appt.clinic}",
        "    due = records.vaccinations_due(appt.patient_id)\n    context = {'appointment': appt, 'clinic': appt.clinic, 'vaccinations_due': due}",
        44,
        author="kemi.adeyemi",
    )
    bwd = inc.deploy(ts("2027-06-14T09:48"), "booking-web")
    rc = inc.deploy(
        ts("2027-06-14T10:12"),
        "recall-worker",
        version="v3.18.2",
        ships=[],
        summary="Rollback recall-worker to v3.18.2 (SMS template lost the clinic phone number)",
        author="ines.duarte",
    )
    stack = java_stack(
        "java.lang.NullPointerException",
        'Cannot invoke "java.time.LocalDate.plus(java.time.temporal.TemporalAmount)" because "last" is null',
        [
            (
                "com.pawsway.records.vaccination.VaccinationScheduleService.nextDue",
                "VaccinationScheduleService.java",
                64,
            ),
            (
                "com.pawsway.records.vaccination.VaccinationScheduleService.lambda$schedule$2",
                "VaccinationScheduleService.java",
                41,
            ),
            (
                "java.base/java.util.stream.ReferencePipeline$3$1.accept",
                "ReferencePipeline.java",
                197,
            ),
            (
                "com.pawsway.records.vaccination.VaccinationScheduleService.schedule",
                "VaccinationScheduleService.java",
                43,
            ),
            (
                "com.pawsway.records.vaccination.VaccinationController.vaccinations",
                "VaccinationController.java",
                39,
            ),
        ],
    )
    inc.errors(
        "patient-records",
        onset,
        now,
        lambda f: 1.2 + 0.6 * f,
        lambda r: (
            f"Servlet.service() for servlet [dispatcherServlet] threw exception [Request processing failed: java.lang.NullPointerException] GET /v2/patients/P-{r.randint(100000, 199999)}/vaccinations"
        ),
        stack_trace=stack,
        logger_name="o.a.c.c.C.[.[.[/].[dispatcherServlet]",
        thread_name="http-nio-8080-exec-" + "7",
    )
    inc.errors(
        "booking-web",
        ts("2027-06-14T09:49"),
        now,
        1.2,
        lambda r: (
            f"records client: GET /v2/patients/P-{r.randint(100000, 199999)}/vaccinations returned 500, showing the page without vaccinations"
        ),
        level="WARNING",
    )
    inc.fleet(
        patient_records={"err": add(step(onset, 0, 0.07))},
        booking_web={"err": add(step(ts("2027-06-14T09:49"), 0, 0.004))},
    )
    inc.metric(
        "http_server_requests_seconds_count_rate",
        "patient-records",
        lambda t: 0.02 if t < onset else 5.1,
        labels={
            "uri": "/v2/patients/{id}/vaccinations",
            "status": "500",
            "exception": "NullPointerException",
        },
        jitter=0.1,
        digits=2,
    )
    inc.alert = alerts.alertmanager(
        "PatientRecordsVaccinations5xx",
        "patient-records",
        ts("2027-06-14T09:51"),
        "critical",
        "/v2/patients/{id}/vaccinations 5xx above 5%",
        "patient-records answers 7.2% of vaccination schedule requests with 5xx.",
        'sum(rate(http_server_requests_seconds_count{uri="/v2/patients/{id}/vaccinations",status=~"5.."}[5m])) / sum(rate(http_server_requests_seconds_count{uri="/v2/patients/{id}/vaccinations"}[5m])) > 0.05',
        team="clinical",
    )
    inc.blame(guilty, [gd], "patient-records", "code_defect", [sib, bw, bwd, rc], onset)
    return inc


def xt74_controlled_ledger_full_scan() -> ExtIncident:
    now = ts("2027-06-16T15:30")
    inc = ExtIncident(
        "xt74-controlled-ledger-full-scan",
        "[FIRING:1] pharmacy-ledger dispense p99 > 1.5s",
        """A pharmacy-ledger commit changed how the running balance of a controlled drug is
        checked on every dispense: instead of summing the register since the clinic's last
        daily close (ledger.sumSince(clinicId, drugId, lastClose)), it sums the drug's whole
        register (ledger.sumAll(clinicId, drugId)) 'to be safe after the stock-take bug'.
        Registers go back years, so every dispense reads tens of thousands of rows: p99 of
        /dispense climbs from 160 ms to about 2.4 s, pharmdb rows read per second jumps forty
        times and Prisma's query durations follow; there are almost no errors (a few client
        timeouts). It shipped in the 13:10 release with a sibling commit (stock export CSV).
        Decoys: that sibling; a config change of pharmdb's connection limit for pharmacy-ledger
        at 13:20 (latency is not pool waiting: pool in-use stays low); a patient-records deploy.
        Category: code_defect (metric-only).""",
        now,
        PAWSWAY,
        seed=2474,
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-06-16T12:30"), 8)
    guilty = inc.code(
        ts("2027-06-16T12:41"),
        "pharmacy-ledger",
        "pharmacy/ledger: Check the controlled balance against the whole register",
        "src/ledger/controlled-balance.service.ts",
        """  async balance(clinicId: string, drugId: string): Promise<Decimal> {
    const close = await this.closes.last(clinicId);
    const moved = await this.ledger.sumSince(clinicId, drugId, close.at);
    return close.balance(drugId).plus(moved);
  }""",
        """  async balance(clinicId: string, drugId: string): Promise<Decimal> {
    // recompute from the whole register: the daily close was wrong after the stock-take bug
    return this.ledger.sumAll(clinicId, drugId);
  }""",
        18,
        author="marco.b",
    )
    sib = inc.code(
        ts("2027-06-16T12:55"),
        "pharmacy-ledger",
        "pharmacy/stock: Export the controlled register as CSV for inspections",
        "src/stock/export.controller.ts",
        "  @Get('stock/:clinic')",
        "  @Get('stock/:clinic/register.csv')\n  exportRegister(@Param('clinic') clinic: string) { return this.exporter.csv(clinic); }\n\n  @Get('stock/:clinic')",
        12,
        author="kemi.adeyemi",
    )
    gd = inc.deploy(ts("2027-06-16T13:10"), "pharmacy-ledger")
    onset = ts("2027-06-16T13:12")
    cfg = inc.config(
        ts("2027-06-16T13:20"),
        "pharmacy-ledger",
        "ops/k8s: pharmacy-ledger connection_limit 10 -> 15",
        "deploy/pharmacy-ledger/values-prod.yaml",
        'env:\n  DATABASE_URL: "postgresql://ledger@pharmdb:5432/pharm?connection_limit=10"',
        'env:\n  DATABASE_URL: "postgresql://ledger@pharmdb:5432/pharm?connection_limit=15"',
        author="ines.duarte",
    )
    pr = inc.code(
        ts("2027-06-16T13:02"),
        "patient-records",
        "records/soap: Keep the dispensed drug name on SOAP notes",
        "src/main/java/com/pawsway/records/soap/SoapNote.java",
        "    private String plan;",
        "    private String plan;\n    private String dispensedDrug;",
        27,
        author="a.lindqvist",
    )
    prd = inc.deploy(ts("2027-06-16T13:25"), "patient-records")
    inc.errors(
        "pharmacy-ledger",
        onset + 30 * MINUTE,
        now,
        0.15,
        lambda r: (
            f"[ExceptionsHandler] POST /dispense aborted by client after 5000ms (clinic {r.choice(['riverside-vets', 'oak-lane', 'harbour-pets'])})"
        ),
        level="WARNING",
        err_stack=node_stack(
            "Error",
            "Request aborted",
            [
                (
                    "PrismaClient._request",
                    "/app/node_modules/@prisma/client/runtime/library.js",
                    123,
                    17,
                ),
                (
                    "async ControlledBalanceService.balance",
                    "/app/dist/ledger/controlled-balance.service.js",
                    21,
                    16,
                ),
                ("async DispenseService.record", "/app/dist/ledger/dispense.service.js", 48, 25),
            ],
        ),
    )
    inc.fleet(
        pharmacy_ledger={"p99": add(step(onset, 0, 2250))},
        booking_web={"p99": add(step(onset, 0, 15))},
    )
    inc.metric(
        "pg_stat_statements_rows_per_second",
        "pharmdb",
        lambda t: 1800.0 if t < onset else 74000.0,
        labels={"datname": "pharm", "queryid": "controlled_ledger_sum"},
        jitter=0.08,
        digits=0,
    )
    inc.metric(
        "prisma_client_queries_duration_p99_ms",
        "pharmacy-ledger",
        lambda t: 12.0 if t < onset else 1900.0,
        jitter=0.1,
        digits=1,
    )
    inc.metric(
        "prisma_pool_connections_busy",
        "pharmacy-ledger",
        lambda t: 2.0 if t < onset else 3.5,
        labels={"pool": "pharmdb"},
        jitter=0.2,
        digits=0,
    )
    inc.alert = alerts.grafana(
        "pharmacy-ledger dispense p99 > 1.5s",
        "pharmacy-ledger",
        ts("2027-06-16T13:34"),
        "warning",
        "Pharmacy / dispense latency",
        "p99=2.41s",
        route="/dispense",
        team="pharmacy",
    )
    inc.blame(guilty, [gd], "pharmacy-ledger", "code_defect", [sib, cfg, pr, prd], onset)
    return inc


def xt75_dicom_buffer_config() -> ExtIncident:
    now = ts("2027-06-18T10:40")
    inc = ExtIncident(
        "xt75-dicom-buffer-config",
        "XrayGatewayRestarts: xray-gateway containers restarting",
        """A config change raised xray-gateway's in-memory receive buffer for DICOM C-STORE
        associations from 8 MiB to 512 MiB (DICOM_RECEIVE_BUFFER_MB, 'fewer temp files on
        the slow disks'). Each concurrent study upload now holds up to 512 MiB in memory, so
        as soon as the morning X-ray sessions overlap (two or three machines sending at once)
        a pod passes its 1Gi memory limit and is OOMKilled; the machines' uploads abort and
        retry. The symptom is memory exhaustion, but the cause is the value: with 8 MiB the
        same load used about 300 MiB. Decoys: an xray-gateway code deploy 25 minutes before
        the onset (DICOM tag logging, touching the receive handler's file); a labsync deploy;
        a Go toolchain bump. Category: configuration_error.""",
        now,
        PAWSWAY,
        seed=2475,
    )
    inc.doc(
        "xray-gateway operations",
        """Clinic modalities (X-ray, ultrasound) send studies by DICOM C-STORE to xray-gateway, which
spools them to /spool (network disk) and then to object storage. Memory limit 1Gi per pod (3
pods); a study is 20-400 MiB. Morning X-ray sessions start at 08:30 local in every clinic.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-06-18T07:30"), 8)
    tag = inc.code(
        ts("2027-06-18T07:41"),
        "xray-gateway",
        "imaging/dicom: Log the modality and station name of each association",
        "internal/dicom/receive.go",
        '\tlog.Info().Str("calling_ae", assoc.CallingAE).Msg("association accepted")',
        '\tlog.Info().Str("calling_ae", assoc.CallingAE).Str("modality", assoc.Modality).Str("station", assoc.StationName).Msg("association accepted")',
        52,
        author="rhys.pugh",
    )
    tagd = inc.deploy(ts("2027-06-18T08:05"), "xray-gateway")
    guilty = inc.config(
        ts("2027-06-18T08:12"),
        "xray-gateway",
        "ops/k8s: xray-gateway buffers studies in memory (fewer temp files on the slow disks)",
        "deploy/xray-gateway/values-prod.yaml",
        'env:\n  DICOM_RECEIVE_BUFFER_MB: "8"\n  DICOM_SPOOL_DIR: "/spool"\nresources:\n  limits:\n    memory: 1Gi',
        'env:\n  DICOM_RECEIVE_BUFFER_MB: "512"\n  DICOM_SPOOL_DIR: "/spool"\nresources:\n  limits:\n    memory: 1Gi',
        author="marco.b",
    )
    onset = ts("2027-06-18T08:31")
    ls = inc.code(
        ts("2027-06-18T08:10"),
        "labsync",
        "clinical/labsync: Retry SFTP listing once on EOF",
        "internal/sftp/list.go",
        "\tentries, err := c.ReadDir(dir)",
        "\tentries, err := c.ReadDir(dir)\n\tif errors.Is(err, io.EOF) {\n\t\tentries, err = c.ReadDir(dir)\n\t}",
        30,
        author="ines.duarte",
    )
    lsd = inc.deploy(ts("2027-06-18T08:40"), "labsync")
    gobump = inc.code(
        ts("2027-06-18T08:50"),
        "xray-gateway",
        "build: Go 1.22.4 -> 1.22.5",
        "Dockerfile",
        "FROM golang:1.22.4-bookworm AS build",
        "FROM golang:1.22.5-bookworm AS build",
        1,
        author="dependabot[bot]",
    )
    for i, t in enumerate(
        [
            ts("2027-06-18T08:37"),
            ts("2027-06-18T08:58"),
            ts("2027-06-18T09:14"),
            ts("2027-06-18T09:26"),
            ts("2027-06-18T09:41"),
            ts("2027-06-18T09:55"),
            ts("2027-06-18T10:08"),
            ts("2027-06-18T10:21"),
        ]
    ):
        pod = f"xray-gateway-6c9d4-{'qwz'[i % 3]}{41 + i % 3}"
        inc.log(
            t - timedelta(seconds=40),
            "xray-gateway",
            "WARNING",
            f"association buffer in use 3 studies, {1.0 + 0.05 * i:.2f} GiB held",
            pod=pod,
        )
        inc.log(
            t,
            "kubelet",
            "WARNING",
            f"Container xray-gateway in pod {pod} was OOMKilled (exit code 137), memory limit 1Gi; back-off restarting",
            pod=pod,
        )
        inc.log(
            t + timedelta(seconds=25),
            "xray-gateway",
            "INFO",
            "xray-gateway starting, DICOM listener on :11112 (receive buffer 512 MiB)",
            pod=pod,
        )
    inc.errors(
        "xray-gateway",
        onset + 6 * MINUTE,
        now,
        0.8,
        lambda r: (
            f'{{"level":"error","error":"read tcp 10.8.2.{r.randint(10, 90)}:11112: connection reset by peer","calling_ae":"{r.choice(["RIVXR01", "OAKXR02", "HBRUS01"])}","message":"C-STORE association aborted, modality will retry"}}'
        ),
    )
    inc.fleet(xray_gateway={"err": add(step(onset, 0, 0.09)), "p99": add(step(onset, 0, 3000))})
    inc.metric(
        "container_memory_working_set_bytes",
        "xray-gateway",
        lambda t: 3.1e8 if t < onset else 1.0e9,
        labels={"container": "xray-gateway"},
        jitter=0.06,
        digits=0,
    )
    inc.metric(
        "kube_pod_container_status_restarts_total",
        "xray-gateway",
        _counter(lambda t: 0.0 if t < onset else 1 / 560, inc.begin),
        labels={"container": "xray-gateway"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "dicom_associations_active",
        "xray-gateway",
        lambda t: 1.2 if t < onset else 2.6,
        jitter=0.2,
        digits=0,
    )
    inc.alert = alerts.alertmanager(
        "XrayGatewayRestarts",
        "xray-gateway",
        ts("2027-06-18T09:20"),
        "warning",
        "xray-gateway containers restarting",
        "xray-gateway restarted 3 times in 45 minutes (OOMKilled).",
        'increase(kube_pod_container_status_restarts_total{container="xray-gateway"}[45m]) > 2',
        team="imaging",
    )
    inc.blame(
        guilty, [], "xray-gateway", "configuration_error", [tag, tagd, ls, lsd, gobump], onset
    )
    return inc


def xt76_booking_cpu_throttled() -> ExtIncident:
    now = ts("2027-06-21T07:55")
    inc = ExtIncident(
        "xt76-booking-cpu-throttled",
        "[FIRING:1] booking-web p99 latency > 1.2s",
        """Monday morning: every clinic opens its phone lines and online booking at 07:00 UTC
        and owners book the week's appointments. booking-web's request rate roughly triples as
        it does every Monday (the runbook says so), but its gunicorn pods run at their 2-core
        CPU limit, the CFS quota throttles them (throttled periods above 60%) and p99 rises
        from 380 ms to about 2.5 s with a few worker timeouts. Limits and replicas have not
        changed for months; last Monday's peak was smaller (a bank-holiday week). Nothing was
        changed that explains it: the booking-web deploy on Friday only touched a template and
        a patient-records deploy at 06:50 changed a report. Category: resource_exhaustion (CPU
        quota), with no change cause.""",
        now,
        PAWSWAY,
        seed=2476,
        hours=6,
    )
    inc.doc(
        "Runbook: booking-web",
        """booking-web: 4 pods, requests 1 core / limit 2 cores, gunicorn 9 sync workers each. No HPA
(the clinic desk screens keep sessions on a pod). Monday 07:00-09:00 UTC is the weekly peak (about
3x the weekday rate). If latency is high and container_cpu_cfs_throttled ratio is above 25%:
scale with `kubectl scale deploy/booking-web --replicas=8` and raise the limit in values-prod.yaml.
Note: Monday 2027-06-14 was a bank holiday in most of our regions (clinics closed until 10:00), so
last week had no full Monday peak; limits and replicas were set in March and have not changed.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-06-21T05:30"), 6)
    tpl = inc.code(
        ts("2027-06-21T05:48"),
        "booking-web",
        "booking/templates: Bigger tap targets on the slot picker",
        "booking/templates/booking/slots.html",
        '<button class="slot">{{ slot.start|time:"H:i" }}</button>',
        '<button class="slot slot--lg">{{ slot.start|time:"H:i" }}</button>',
        23,
        author="kemi.adeyemi",
    )
    tpld = inc.deploy(ts("2027-06-21T06:02"), "booking-web")
    rep = inc.code(
        ts("2027-06-21T06:31"),
        "patient-records",
        "records/reports: Weekly overdue-vaccinations report per clinic",
        "src/main/java/com/pawsway/records/reports/OverdueReport.java",
        "    // weekly report: not implemented",
        '    @Scheduled(cron = "0 0 5 * * MON")\n    public void weekly() { clinics.forEach(this::overdueFor); }',
        15,
        author="a.lindqvist",
    )
    repd = inc.deploy(ts("2027-06-21T06:50"), "patient-records")
    flag = inc.flag(
        ts("2027-06-21T06:58"),
        "booking-web",
        "booking.show-clinic-photos",
        "enabled: false",
        "enabled: true",
        "Show clinic photos on the clinic page",
        author="ines.duarte",
    )
    peak = ramp(ts("2027-06-21T06:55"), ts("2027-06-21T07:20"), 1.0, 3.1)
    onset = ts("2027-06-21T07:08")
    inc.fleet(
        booking_web={
            "rps": times(peak),
            "p99": add(ramp(onset, ts("2027-06-21T07:25"), 0, 2100)),
            "err": add(step(ts("2027-06-21T07:15"), 0, 0.006)),
        },
        patient_records={
            "rps": times(ramp(ts("2027-06-21T06:55"), ts("2027-06-21T07:20"), 1.0, 1.8))
        },
    )
    inc.metric(
        "container_cpu_cfs_throttled_ratio",
        "booking-web",
        lambda t: (
            0.02
            if t < ts("2027-06-21T06:55")
            else min(0.68, 0.02 + 0.66 * (t - ts("2027-06-21T06:55")).total_seconds() / 1500)
        ),
        labels={"container": "booking-web"},
        jitter=0.08,
        digits=3,
    )
    inc.metric(
        "container_cpu_usage_cores",
        "booking-web",
        lambda t: min(2.0, 0.6 * peak(t)),
        labels={"container": "booking-web", "limit": "2"},
        jitter=0.03,
        digits=2,
    )
    inc.metric(
        "gunicorn_workers_busy_ratio",
        "booking-web",
        lambda t: 0.3 if t < onset else 0.97,
        jitter=0.04,
        digits=2,
    )
    inc.errors(
        "booking-web",
        ts("2027-06-21T07:15"),
        now,
        1.0,
        lambda r: f"[CRITICAL] WORKER TIMEOUT (pid:{r.randint(20, 60)})",
        level="ERROR",
    )
    inc.errors(
        "booking-web",
        onset,
        now,
        2.0,
        lambda r: (
            f"slow request GET /book/slots/?clinic={r.choice(['riverside-vets', 'oak-lane', 'harbour-pets', 'millbrook'])} took {r.randint(1500, 3200)}ms"
        ),
        level="WARNING",
    )
    inc.alert = alerts.grafana(
        "booking-web p99 latency > 1.2s",
        "booking-web",
        ts("2027-06-21T07:24"),
        "warning",
        "Booking / latency",
        "p99=2.31s",
        team="clinic-experience",
    )
    inc.outside(
        "Monday-morning booking peak beyond booking-web's CPU limit: containers throttled by their CFS quota (no change)",
        "booking-web",
        "resource_exhaustion",
        [tpl, tpld, rep, repd, flag],
        onset,
    )
    return inc


def xt77_vetlabs_censored_value() -> ExtIncident:
    now = ts("2027-06-23T14:45")
    inc = ExtIncident(
        "xt77-vetlabs-censored-value",
        "LabsyncBacklog: Vetlabs results not attached for 30m",
        """Vetlabs, the reference laboratory, exported a panel file whose thyroid result carries a
        censored value as text ('value': '<0.5', a below-detection-limit reading) where the
        format always has a number. labsync's decoder rejects the whole file (json: cannot
        unmarshal string into Go struct field Result.results.value of type float64); the file
        stays in the inbox and is retried every 5 minutes, and because labsync processes files in
        order, every later file queues behind it: no lab results reach clinics from 13:52. The
        files before and the other labs are fine; nothing in labsync changed in the format.
        Decoys: a labsync deploy at 13:30 bumping the SFTP library, a patient-records deploy
        attaching lab PDFs, a config change of the polling interval after the onset.
        Category: data_quality.""",
        now,
        PAWSWAY,
        seed=2477,
    )
    inc.doc(
        "Vetlabs panel export format",
        """Files `panels-YYYYMMDDHHMM.json` in /out on sftp.vetlabs.example, every 5 minutes. Each panel:
{"accession": "VL-...", "patient_ref": "P-...", "results": [{"code": "T4", "value": 2.1, "unit":
"ug/dL", "flag": "N"}]}. `value` is always a number (below-detection results are reported as the
limit with flag "L<"). labsync processes files strictly in order and moves them to /done.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-06-23T12:50"), 8)
    sftp = inc.code(
        ts("2027-06-23T13:04"),
        "labsync",
        "deps: Bump github.com/pkg/sftp from 1.13.6 to 1.13.7",
        "go.mod",
        "require (\n\tgithub.com/pkg/sftp v1.13.6\n\tgithub.com/rs/zerolog v1.33.0\n)",
        "require (\n\tgithub.com/pkg/sftp v1.13.7\n\tgithub.com/rs/zerolog v1.33.0\n)",
        5,
        author="dependabot[bot]",
    )
    sftpd = inc.deploy(ts("2027-06-23T13:30"), "labsync")
    pdf = inc.code(
        ts("2027-06-23T13:15"),
        "patient-records",
        "records/labs: Attach the lab report PDF link to each panel",
        "src/main/java/com/pawsway/records/labs/LabPanel.java",
        "    private String accession;",
        "    private String accession;\n    private URI reportPdf;",
        19,
        author="a.lindqvist",
    )
    pdfd = inc.deploy(ts("2027-06-23T13:44"), "patient-records")
    onset = ts("2027-06-23T13:52")
    poll = inc.config(
        ts("2027-06-23T14:20"),
        "labsync",
        "ops/k8s: labsync polls Vetlabs every 2 minutes",
        "deploy/labsync/values-prod.yaml",
        'env:\n  VETLABS_POLL_INTERVAL: "5m"',
        'env:\n  VETLABS_POLL_INTERVAL: "2m"',
        author="rhys.pugh",
    )
    bad = "panels-202706231350.json"
    stack = go_stack(
        "json: cannot unmarshal string into Go struct field Result.results.value of type float64",
        [
            (
                "encoding/json.(*decodeState).unmarshal",
                "/usr/local/go/src/encoding/json/decode.go",
                184,
            ),
            (
                "github.com/pawsway/labsync/internal/vetlabs.DecodePanels",
                "/src/internal/vetlabs/decode.go",
                41,
            ),
            (
                "github.com/pawsway/labsync/internal/sync.(*Runner).processFile",
                "/src/internal/sync/runner.go",
                96,
            ),
        ],
    )
    t = onset
    while t < now:
        inc.log(
            t,
            "labsync",
            "ERROR",
            f'{{"level":"error","file":"{bad}","offset":18422,"accession":"VL-7781204","error":"json: cannot unmarshal string into Go struct field Result.results.value of type float64","message":"panel file rejected, will retry"}}',
            stack=stack,
            file=bad,
        )
        waiting = int((t - onset).total_seconds() // 300)
        if waiting:
            inc.log(
                t + timedelta(seconds=2),
                "labsync",
                "WARNING",
                f"{waiting} newer panel files waiting behind {bad}",
            )
        t += timedelta(minutes=5 if t < poll_time(poll, inc) else 2)
    inc.fleet(labsync={"rps": times(step(onset, 1.0, 0.02)), "err": add(step(onset, 0, 0.9))})
    inc.metric(
        "labsync_inbox_files",
        "labsync",
        lambda t: 1 if t < onset else 1 + (t - onset).total_seconds() / 300,
        labels={"lab": "vetlabs"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "labsync_last_attached_age_seconds",
        "labsync",
        lambda t: 150 if t < onset else 150 + (t - onset).total_seconds(),
        labels={"lab": "vetlabs"},
        jitter=0.02,
        digits=0,
    )
    inc.alert = alerts.alertmanager(
        "LabsyncBacklog",
        "labsync",
        ts("2027-06-23T14:24"),
        "critical",
        "Vetlabs results not attached for 30m",
        "No Vetlabs panel attached to a patient for 32 minutes; inbox holds 7 files.",
        'labsync_last_attached_age_seconds{lab="vetlabs"} > 1800',
        team="clinical",
    )
    inc.outside(
        "Vetlabs panel file with a censored text value ('<0.5') where a number is required, blocking the ordered file queue",
        "labsync",
        "data_quality",
        [sftp, sftpd, pdf, pdfd, poll],
        onset,
    )
    return inc


def poll_time(change_id: str, inc: ExtIncident) -> datetime:
    """When a change landed (by id)."""
    found = next(c for c in inc.changes if c["id"] == change_id)
    return datetime.fromisoformat(found["timestamp"].replace("Z", "+00:00"))


def xt78_recall_run_queue() -> ExtIncident:
    now = ts("2027-06-24T06:32")
    inc = ExtIncident(
        "xt78-recall-run-queue",
        "RecallQueueDepthHigh: recalls queue above 10000",
        """The daily recall run starts at 06:00 UTC and enqueues one reminder task per patient due
        for a vaccination or dental check (about 38,000 on a Thursday); recall-worker drains it
        in about 40 minutes, every day. The RabbitMQ queue-depth alert (threshold 10,000, no
        'for' duration) fires at 06:01 every morning; on-call looked at 06:32 when the queue
        was already down to about 8,000 and falling at the usual rate, reminders are being sent,
        error ratio is the usual (the odd invalid mobile number). Decoys: a recall-worker deploy
        the evening before (SMS template wording) and a config change of the worker's
        prefetch at 05:40. Category: healthy (a scheduled batch doing what it always does).""",
        now,
        PAWSWAY,
        seed=2478,
        hours=5,
    )
    inc.doc(
        "Runbook: recall reminders",
        """The recall run (Celery beat, `recalls.plan_daily` at 06:00 UTC) enqueues every reminder due
today on the `recalls` queue at once; 6 workers x concurrency 8 send them in 35-45 minutes. The
RecallQueueDepthHigh alert therefore fires briefly every morning; it only matters if the queue
does not fall (workers stuck) or is still above 1,000 at 07:00.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-06-24T04:30"), 5)
    tpl = inc.code(
        ts("2027-06-24T04:41"),
        "recall-worker",
        "clinical/recalls: Friendlier SMS wording for dental checks",
        "recalls/templates/sms_dental.txt",
        "{{ pet }} is due a dental check at {{ clinic }}. Book: {{ link }}",
        "Time for {{ pet }}'s dental check at {{ clinic }}! Book here: {{ link }}",
        1,
        author="kemi.adeyemi",
    )
    tpld = inc.deploy(ts("2027-06-24T05:02"), "recall-worker")
    pref = inc.config(
        ts("2027-06-24T05:40"),
        "recall-worker",
        "ops/k8s: recall-worker prefetch multiplier 4 -> 2",
        "deploy/recall-worker/values-prod.yaml",
        'env:\n  CELERY_WORKER_PREFETCH_MULTIPLIER: "4"\n  CELERY_CONCURRENCY: "8"',
        'env:\n  CELERY_WORKER_PREFETCH_MULTIPLIER: "2"\n  CELERY_CONCURRENCY: "8"',
        author="marco.b",
    )
    run = ts("2027-06-24T06:00")
    inc.log(
        run,
        "recall-worker",
        "INFO",
        "Scheduler: Sending due task recalls.plan_daily (recalls.plan_daily)",
    )
    inc.log(
        run + timedelta(seconds=71),
        "recall-worker",
        "INFO",
        "recalls.plan_daily: 38214 reminders enqueued (vaccination 29810, dental 8404)",
    )
    inc.errors(
        "recall-worker",
        run + 2 * MINUTE,
        now,
        1.1,
        lambda r: (
            f"Task recalls.send_reminder[{r.getrandbits(64):016x}] raised expected: SmsRejected('21614: not a mobile number for client C-{r.randint(10000, 99999)}')"
        ),
        level="WARNING",
    )
    inc.errors(
        "recall-worker",
        run + 3 * MINUTE,
        now,
        0.2,
        lambda r: (
            f"reminder e-mail to client C-{r.randint(10000, 99999)} bounced: 550 5.1.1 mailbox unavailable"
        ),
    )

    def depth(t: datetime) -> float:
        if t < run:
            return 3.0
        m = (t - run).total_seconds() / 60
        return max(3.0, 38214 - 950 * max(m - 1.2, 0))

    inc.metric(
        "rabbitmq_queue_messages_ready",
        "recall-worker",
        depth,
        labels={"queue": "recalls"},
        jitter=0.02,
        digits=0,
    )
    inc.fleet(
        recall_worker={"rps": add(step(run, 0, 15.5)), "err": add(step(run, 0, 0.003))},
    )
    inc.metric(
        "celery_tasks_succeeded_per_second",
        "recall-worker",
        lambda t: 0.2 if t < run else 15.8,
        labels={"task": "recalls.send_reminder"},
        jitter=0.05,
        digits=2,
    )
    inc.alert = alerts.alertmanager(
        "RecallQueueDepthHigh",
        "recall-worker",
        ts("2027-06-24T06:01"),
        "warning",
        "recalls queue above 10000",
        "RabbitMQ queue recalls holds 38214 ready messages.",
        'rabbitmq_queue_messages_ready{queue="recalls"} > 10000',
        team="clinical",
    )
    inc.healthy(
        "recall-worker",
        "expected: the 06:00 daily recall run fills the queue and workers drain it at the usual rate (about 40 minutes); the alert has no for: duration",
        [tpl, tpld, pref],
        run,
    )
    return inc


def xt79_node_clock_skew() -> ExtIncident:
    now = ts("2027-06-25T16:20")
    inc = ExtIncident(
        "xt79-node-clock-skew",
        "[FIRING:1] patient-records 401 ratio > 3%",
        """Kubernetes node pw-prod-pool-b-7k2m's clock drifts: chronyd on it lost all its NTP
        sources at 11:40 (node-problem-detector warns every hour) and the clock runs ahead,
        about 3.5 minutes by 14:50 and more after. Pods on that node (one of three
        patient-records pods, one booking-web pod) judge JWTs by their own clock, so every
        staff token in the last minutes of its 10-minute life already looks expired there:
        about a third of the requests those pods serve answer 401 'Jwt expired', growing as
        the clock drifts, and only on that node. node_timex_offset_seconds shows the node
        ahead and climbing while the other nodes are within 5 ms. Decoys: a patient-records
        commit tightening JWT audience checks deployed 22 minutes before the onset (it touches
        the very JWT filter in the stack traces), a flag for the new staff login page, and an
        auth config change of the token lifetime after the onset. Category: infrastructure.""",
        now,
        PAWSWAY,
        seed=2479,
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-06-25T13:40"), 7)
    aud = inc.code(
        ts("2027-06-25T14:02"),
        "patient-records",
        "records/security: Require the records audience on staff JWTs",
        "src/main/java/com/pawsway/records/security/JwtAuthFilter.java",
        "        Jwt jwt = decoder.decode(token);",
        '        Jwt jwt = decoder.decode(token);\n        if (!jwt.getAudience().contains("records")) {\n            throw new BadJwtException("audience mismatch");\n        }',
        47,
        author="a.lindqvist",
    )
    audd = inc.deploy(ts("2027-06-25T14:28"), "patient-records")
    fl = inc.flag(
        ts("2027-06-25T14:35"),
        "booking-web",
        "staff.new-login-page",
        "enabled: false\npercent: 0",
        "enabled: true\npercent: 25",
        "New staff login page for 25% of clinics",
        author="kemi.adeyemi",
    )
    onset = ts("2027-06-25T14:50")
    ttl = inc.config(
        ts("2027-06-25T15:25"),
        "auth",
        "ops/auth: Staff access token lifetime 10m -> 15m",
        "deploy/auth/values-prod.yaml",
        'env:\n  STAFF_ACCESS_TOKEN_TTL: "10m"',
        'env:\n  STAFF_ACCESS_TOKEN_TTL: "15m"',
        author="ines.duarte",
    )
    node = "pw-prod-pool-b-7k2m"
    for t, off in [
        (ts("2027-06-25T12:40"), 66.0),
        (ts("2027-06-25T13:40"), 133.0),
        (ts("2027-06-25T14:40"), 199.0),
        (ts("2027-06-25T15:40"), 266.0),
    ]:
        inc.log(
            t,
            "node-problem-detector",
            "WARNING",
            f"chronyd: no selectable sources, system clock unsynchronised for {int((t - ts('2027-06-25T11:40')).total_seconds() // 60)} min (estimated offset +{off:.1f}s)",
            node=node,
        )
    stack = java_stack(
        "org.springframework.security.oauth2.jwt.JwtValidationException",
        "An error occurred while attempting to decode the Jwt: Jwt expired at 2027-06-25T14:51:12Z",
        [
            (
                "org.springframework.security.oauth2.jwt.NimbusJwtDecoder.validateJwt",
                "NimbusJwtDecoder.java",
                189,
            ),
            (
                "org.springframework.security.oauth2.jwt.NimbusJwtDecoder.decode",
                "NimbusJwtDecoder.java",
                138,
            ),
            (
                "com.pawsway.records.security.JwtAuthFilter.doFilterInternal",
                "JwtAuthFilter.java",
                47,
            ),
        ],
    )
    inc.errors(
        "patient-records",
        onset,
        now,
        lambda f: 1.0 + 0.6 * f,
        lambda r: (
            f"401 Unauthorized GET /v2/patients/P-{r.randint(100000, 199999)}: Jwt expired (token exp {r.randint(5, 210)}s ago by local clock)"
        ),
        stack_trace=stack,
        node=node,
        logger_name="c.p.r.security.JwtAuthFilter",
    )
    inc.errors(
        "booking-web",
        onset + 3 * MINUTE,
        now,
        0.8,
        lambda r: (
            "PyJWT ExpiredSignatureError: Signature has expired (session refresh failed, user sent to login)"
        ),
        level="WARNING",
        node=node,
    )
    inc.fleet(
        patient_records={"err": add(step(onset, 0, 0.11))},
        booking_web={"err": add(step(onset, 0, 0.02))},
    )
    for n, base in [(node, None), ("pw-prod-pool-b-2x9q", 0.003), ("pw-prod-pool-b-9fvd", 0.002)]:
        if base is None:
            fn = ramp(ts("2027-06-25T11:40"), now, 0.0, 310.0)
        else:
            fn = (lambda b: lambda t: b)(base)
        inc.metric(
            "node_timex_offset_seconds", "kubernetes", fn, labels={"node": n}, jitter=0.02, digits=3
        )
        inc.metric(
            "node_timex_sync_status",
            "kubernetes",
            (lambda b: lambda t: 1.0 if b is not None or t < ts("2027-06-25T11:40") else 0.0)(base),
            labels={"node": n},
            jitter=0.0,
            digits=0,
        )
    inc.metric(
        "http_server_requests_401_ratio",
        "patient-records",
        lambda t: (
            0.002 if t < onset else min(0.5, 0.33 + 0.17 * (t - onset).total_seconds() / 5400)
        ),
        labels={"node": node},
        jitter=0.1,
        digits=3,
    )
    inc.metric(
        "http_server_requests_401_ratio",
        "patient-records",
        lambda t: 0.002,
        labels={"node": "pw-prod-pool-b-2x9q"},
        jitter=0.3,
        digits=4,
    )
    inc.alert = alerts.grafana(
        "patient-records 401 ratio > 3%",
        "patient-records",
        ts("2027-06-25T15:06"),
        "warning",
        "Records / auth failures",
        "11.2%",
        team="clinical",
    )
    inc.outside(
        f"clock skew on node {node}: chronyd lost its NTP sources, clock minutes ahead, JWTs rejected by pods on that node",
        "patient-records",
        "infrastructure",
        [aud, audd, fl, ttl],
        onset,
    )
    return inc


# --- Cirrocast Weather ----------------------------------------------------------------------------


def xt80_grid_index_round() -> ExtIncident:
    now = ts("2027-07-02T12:05")
    inc = ExtIncident(
        "xt80-grid-index-round",
        "P2: point-api 502 on /v1/forecast/point above 1%",
        """A grib-decoder commit replaced the floor-based grid lookup (int((lon % 360) / dlon))
        with 'nearest grid point' rounding (int(round((lon % 360) / dlon))). On the 0.25 degree
        global grid (1440 columns) every longitude within 0.125 degrees west of Greenwich (lon %
        360 above 359.875, e.g. London, Le Havre, Accra) now rounds to column 1440, one past
        the end, and numpy raises IndexError; the point service answers those points with
        502 while the rest of the world is fine. Every traceback names point_value in
        grib_decoder/grid.py, the function the commit changed. It shipped in the 10:20 release
        with a sibling commit bumping numpy 1.26 -> 2.0 (tempting: a numpy upgrade and a numpy
        IndexError). Other decoys: a point-api deploy that rounds coordinates in the cache key,
        and a tile-render rollback after the onset. Category: code_defect.""",
        now,
        CIRROCAST,
        seed=2580,
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-07-02T09:30"), 9)
    guilty = inc.code(
        ts("2027-07-02T09:41"),
        "grib-decoder",
        "Use the nearest grid point instead of the south-west corner for point values",
        "grib_decoder/grid.py",
        """def point_value(field: np.ndarray, lat: float, lon: float, grid: Grid) -> float:
    row = int((grid.lat0 - lat) / grid.dlat)
    col = int((lon % 360) / grid.dlon)
    return float(field[row, col])""",
        """def point_value(field: np.ndarray, lat: float, lon: float, grid: Grid) -> float:
    row = int(round((grid.lat0 - lat) / grid.dlat))
    col = int(round((lon % 360) / grid.dlon))
    return float(field[row, col])""",
        33,
        author="clara.meyer",
    )
    npb = inc.code(
        ts("2027-07-02T09:58"),
        "grib-decoder",
        "Bump numpy from 1.26.4 to 2.0.1",
        "requirements.txt",
        "eccodes==1.7.1\nnumpy==1.26.4\nxarray==2024.6.0",
        "eccodes==1.7.1\nnumpy==2.0.1\nxarray==2024.6.0",
        3,
        author="renovate[bot]",
    )
    gd = inc.deploy(ts("2027-07-02T10:20"), "grib-decoder")
    onset = ts("2027-07-02T10:22")
    ck = inc.code(
        ts("2027-07-02T10:05"),
        "point-api",
        "Round coordinates to 3 decimals in the forecast cache key",
        "src/forecast/cache-key.ts",
        "  return `fc:${model}:${lat}:${lon}:${units}`;",
        "  return `fc:${model}:${lat.toFixed(3)}:${lon.toFixed(3)}:${units}`;",
        9,
        author="yusuf.k",
    )
    ckd = inc.deploy(ts("2027-07-02T10:34"), "point-api")
    rb = inc.deploy(
        ts("2027-07-02T10:51"),
        "tile-render",
        version="v5.40.1",
        ships=[],
        summary="Rollback tile-render to v5.40.1 (temperature palette too dark on z>8)",
        author="oskar.l",
    )
    tb = py_stack(
        "IndexError",
        "index 1440 is out of bounds for axis 1 with size 1440",
        [
            (
                "/app/grib_decoder/server.py",
                88,
                "handle_point",
                "value = grid.point_value(field, req.lat, req.lon, spec)",
            ),
            ("/app/grib_decoder/grid.py", 36, "point_value", "return float(field[row, col])"),
        ],
    )
    inc.errors(
        "grib-decoder",
        onset,
        now,
        lambda f: 1.0 + 0.5 * f,
        lambda r: (
            f"point lookup failed lat={r.uniform(5, 58):.3f} lon=-{r.uniform(0.001, 0.124):.3f} model=gfs025 run=06"
        ),
        traceback=tb,
        logger="grib_decoder.server",
    )
    inc.errors(
        "point-api",
        onset + MINUTE,
        now,
        lambda f: 1.0 + 0.5 * f,
        lambda r: (
            f'{{"level":50,"msg":"grid service error","err":{{"type":"UpstreamError","message":"grib-decoder answered 500 for lon=-{r.uniform(0.001, 0.124):.3f}"}},"res":{{"statusCode":502}}}}'
        ),
    )
    inc.fleet(
        point_api={"err": add(step(onset, 0, 0.014))},
        grib_decoder={"err": add(step(onset, 0, 0.03))},
    )
    inc.metric(
        "cirro.point_api.responses.502.count",
        "point-api",
        lambda t: 0.0 if t < onset else 4.6,
        labels={"route": "/v1/forecast/point"},
        jitter=0.12,
        digits=2,
    )
    inc.alert = alerts.generic(
        "P2: point-api 502 on /v1/forecast/point above 1%",
        "point-api",
        ts("2027-07-02T10:39"),
        "P2",
        {
            "alias": "point-api-502-ratio",
            "message": "point-api 502 on /v1/forecast/point above 1%",
            "description": "502 ratio 1.4% over 10 minutes (threshold 1%). Region tags: eu-west, af-west.",
            "entity": "point-api",
            "source": "Graphite",
            "priority": "P2",
            "tags": ["team:data-products", "env:prod"],
            "details": {"metric": "cirro.point_api.responses.502.count", "value": "1.4%"},
        },
    )
    inc.blame(guilty, [gd], "grib-decoder", "code_defect", [npb, ck, ckd, rb], onset)
    return inc


def xt81_cap_shared_dateformat() -> ExtIncident:
    now = ts("2027-07-05T18:30")
    inc = ExtIncident(
        "xt81-cap-shared-dateformat",
        "WarnRelayFailures: CAP warnings failing to parse",
        """A warn-relay commit 'stop allocating a SimpleDateFormat per warning' moved the CAP
        timestamp formatter into a static final field of CapParser. SimpleDateFormat is not
        thread-safe and warn-relay parses on a pool of 16 threads, so under load concurrent
        parses corrupt each other: NumberFormatException ('multiple points', 'For input
        string: ""') from CapParser.parseOnset, and some warnings relayed with wrong onset
        times. It stayed quiet all morning (a warning every few minutes) and broke when a storm
        front brought hundreds of warnings at 16:40; the diff holds the mechanism. It shipped
        in a release with a sibling commit (CAP feed URL for a new country); decoys also a
        point-api deploy 'warnings endpoint returns onset in local time' sharing the words and
        an obs-ingest rollback. Category: code_defect.""",
        now,
        CIRROCAST,
        seed=2581,
        hours=8,
    )
    inc.doc(
        "warn-relay",
        """warn-relay polls national services' CAP feeds every minute, parses each <alert> (onset,
expires, area polygons) and posts to subscribers' webhooks. Thread pool of 16 parsers. Storm days
bring hundreds of warnings an hour; quiet days a few.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-07-05T11:00"), 8)
    guilty = inc.code(
        ts("2027-07-05T11:22"),
        "warn-relay",
        "Stop allocating a SimpleDateFormat per warning",
        "src/main/java/com/cirrocast/warn/cap/CapParser.java",
        """    Instant parseOnset(String text) throws ParseException {
        SimpleDateFormat fmt = new SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ssXXX");
        return fmt.parse(text).toInstant();
    }""",
        """    private static final SimpleDateFormat CAP_TIME = new SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ssXXX");

    Instant parseOnset(String text) throws ParseException {
        return CAP_TIME.parse(text).toInstant();
    }""",
        74,
        author="tpham",
    )
    sib = inc.code(
        ts("2027-07-05T11:40"),
        "warn-relay",
        "Add the CAP feed of the Irish met service",
        "src/main/resources/feeds.yaml",
        "feeds:\n  - country: DE\n    url: https://cap.dwd.example/alerts.xml",
        "feeds:\n  - country: DE\n    url: https://cap.dwd.example/alerts.xml\n  - country: IE\n    url: https://cap.met.ie.example/warnings.xml",
        1,
        author="ngozi.e",
    )
    gd = inc.deploy(ts("2027-07-05T12:05"), "warn-relay")
    onset = ts("2027-07-05T16:40")
    pa = inc.code(
        ts("2027-07-05T16:02"),
        "point-api",
        "Warnings endpoint returns onset and expiry in the location's time zone",
        "src/warnings/serialize.ts",
        "    onset: w.onset.toISOString(),",
        "    onset: formatInTimeZone(w.onset, tzOf(w.area), \"yyyy-MM-dd'T'HH:mm:ssXXX\"),",
        14,
        author="yusuf.k",
    )
    pad = inc.deploy(ts("2027-07-05T16:21"), "point-api")
    rb = inc.deploy(
        ts("2027-07-05T17:05"),
        "obs-ingest",
        version="v2.9.3",
        ships=[],
        summary="Rollback obs-ingest to v2.9.3 (MQTT reconnect loop on one station gateway)",
        author="oskar.l",
    )
    storm = step(onset, 1.0, 60.0)

    def bad(r: random.Random) -> str:
        return r.choice(
            ["multiple points", 'For input string: ""', 'For input string: ".2027E4.2027E4"']
        )

    inc.errors(
        "warn-relay",
        onset,
        now,
        lambda f: 1.4,
        lambda r: (
            f"c.c.w.Relay - failed to parse CAP alert {r.choice(['DE', 'IE', 'NL', 'BE'])}.{r.getrandbits(32):08x}: java.lang.NumberFormatException: {bad(r)}"
        ),
        throwable=java_stack(
            "java.lang.NumberFormatException",
            "multiple points",
            [
                (
                    "java.base/jdk.internal.math.FloatingDecimal.readJavaFormatString",
                    "FloatingDecimal.java",
                    1914,
                ),
                ("java.base/java.lang.Double.parseDouble", "Double.java", 651),
                ("java.base/java.text.DigitList.getDouble", "DigitList.java", 169),
                ("java.base/java.text.DecimalFormat.parse", "DecimalFormat.java", 2198),
                ("java.base/java.text.SimpleDateFormat.subParse", "SimpleDateFormat.java", 1936),
                ("java.base/java.text.SimpleDateFormat.parse", "SimpleDateFormat.java", 1546),
                ("java.base/java.text.DateFormat.parse", "DateFormat.java", 397),
                ("com.cirrocast.warn.cap.CapParser.parseOnset", "CapParser.java", 77),
                ("com.cirrocast.warn.cap.CapParser.parse", "CapParser.java", 41),
                ("com.cirrocast.warn.RelayWorker.run", "RelayWorker.java", 58),
            ],
        ),
        thread=f"cap-parser-{7}",
    )
    inc.errors(
        "warn-relay",
        onset + 5 * MINUTE,
        now,
        0.7,
        lambda r: (
            f"c.c.w.Relay - warning {r.getrandbits(32):08x} onset {2027 + r.randint(1, 40)}-07-05T17:00:00Z is after its expiry, delivered anyway"
        ),
        level="WARNING",
    )
    inc.fleet(
        warn_relay={"rps": times(storm), "err": add(step(onset, 0, 0.1))},
        point_api={"rps": times(step(onset, 1.0, 1.25))},
    )
    inc.metric(
        "warn_relay_cap_alerts_received_total",
        "warn-relay",
        _counter(lambda t: storm(t) * 0.05, inc.begin),
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "warn_relay_parse_failures_total",
        "warn-relay",
        _counter(lambda t: 0.0 if t < onset else 0.1, inc.begin),
        jitter=0.0,
        digits=0,
    )
    inc.alert = alerts.alertmanager(
        "WarnRelayFailures",
        "warn-relay",
        ts("2027-07-05T16:52"),
        "critical",
        "CAP warnings failing to parse",
        "warn-relay failed to parse 9.6% of CAP alerts in the last 10 minutes.",
        "rate(warn_relay_parse_failures_total[10m]) / rate(warn_relay_cap_alerts_received_total[10m]) > 0.02",
        team="alerts",
    )
    inc.blame(guilty, [gd], "warn-relay", "code_defect", [sib, pa, pad, rb], onset)
    return inc


def xt82_nwp_para_path() -> ExtIncident:
    now = ts("2027-07-08T05:30")
    inc = ExtIncident(
        "xt82-nwp-para-path",
        "P1: gfs025 forecast grids older than 11h",
        """A config change meant for the staging decoder (to test the NWP centre's parallel model
        run) was merged into grib-decoder's production values: NWP_BASE_URL now points at
        https://nwp.feeds.example/gfs/para/ instead of .../gfs/prod/. The parallel directory only
        holds the 00 and 12 cycles' index files, so every download of the 00Z run's GRIB2 files
        answers 404 from 03:40 (when the 00Z files are normally ready), grib-decoder retries
        and gives up, and point-api keeps serving the 18Z run from yesterday: the run-age
        metric climbs past 11 hours (normally it saw-tooths between about 3.7 and 9.7). The mirror itself is healthy (its prod directory serves the
        files, another customer of it is fine) and its status page only announces maintenance
        of the parallel system next week, a tempting decoy. Other decoys: a grib-decoder code
        deploy after the change (eccodes definitions bump), a point-api deploy. Category:
        configuration_error.""",
        now,
        CIRROCAST,
        seed=2582,
        hours=8,
    )
    inc.doc(
        "NWP feed mirror status",
        """2027-07-07T15:00:00Z Scheduled maintenance - The parallel (para) GFS system will be unavailable on
2027-07-14 between 12:00 and 18:00 UTC while it is upgraded. Production (prod) feeds are not affected.
All production feeds operational.""",
    )
    inc.doc(
        "grib-decoder runs",
        """GFS 0.25 degree cycles 00/06/12/18Z; files appear on the mirror about 3h40m after the cycle
(https://nwp.feeds.example/gfs/prod/gfs.YYYYMMDD/HH/atmos/gfs.tHHz.pgrb2.0p25.fNNN). grib-decoder
polls every 5 minutes and decodes f000-f120. point-api serves the newest complete run; its age
normally runs from 3h40m to 9h40m, and the run-age alert fires at 11 hours.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-07-07T23:40"), 8)
    guilty = inc.config(
        ts("2027-07-07T23:58"),
        "grib-decoder",
        "Point the decoder at the GFS parallel run for the v17 evaluation (D3312)",
        "deploy/grib-decoder/values-prod.yaml",
        'env:\n  NWP_BASE_URL: "https://nwp.feeds.example/gfs/prod/"\n  NWP_MODEL: "gfs025"',
        'env:\n  NWP_BASE_URL: "https://nwp.feeds.example/gfs/para/"\n  NWP_MODEL: "gfs025"',
        author="clara.meyer",
    )
    ecc = inc.code(
        ts("2027-07-08T02:31"),
        "grib-decoder",
        "Bump eccodes definitions to 2.36 for the new GRIB2 local tables (D3318)",
        "Dockerfile",
        "ENV ECCODES_VERSION=2.35.0",
        "ENV ECCODES_VERSION=2.36.0",
        4,
        author="renovate[bot]",
    )
    eccd = inc.deploy(ts("2027-07-08T03:05"), "grib-decoder")
    onset = ts("2027-07-08T03:40")
    pa = inc.code(
        ts("2027-07-08T03:22"),
        "point-api",
        "Return the model run time in the X-Model-Run header (D3320)",
        "src/forecast/route.ts",
        "  reply.header('Cache-Control', 'public, max-age=300');",
        "  reply.header('Cache-Control', 'public, max-age=300');\n  reply.header('X-Model-Run', grid.runTime.toISOString());",
        27,
        author="yusuf.k",
    )
    pad = inc.deploy(ts("2027-07-08T03:52"), "point-api")
    t = onset
    while t < now:
        step_h = int(r_choice(t))
        url = f"https://nwp.feeds.example/gfs/para/gfs.20270708/00/atmos/gfs.t00z.pgrb2.0p25.f{step_h:03d}"
        inc.log(
            t,
            "grib-decoder",
            "ERROR",
            f"download failed after 3 attempts: 404 Client Error: Not Found for url: {url}",
            logger="grib_decoder.fetch",
            run="2027070800",
            traceback=py_stack(
                "requests.exceptions.HTTPError",
                f"404 Client Error: Not Found for url: {url}",
                [
                    ("/app/grib_decoder/fetch.py", 61, "download", "resp.raise_for_status()"),
                    (
                        "/usr/local/lib/python3.11/site-packages/requests/models.py",
                        1024,
                        "raise_for_status",
                        "raise HTTPError(http_error_msg, response=self)",
                    ),
                ],
            ),
        )
        t += timedelta(minutes=5)
    inc.log(
        onset + 2 * MINUTE,
        "grib-decoder",
        "WARNING",
        "run 2027070800 incomplete: 0/121 files available, keeping run 2027070718",
    )
    inc.log(
        onset + 2 * MINUTE + timedelta(seconds=3),
        "point-api",
        "INFO",
        "serving gfs025 run 2027-07-07T18:00Z",
    )
    run18 = ts("2027-07-07T18:00") + timedelta(hours=3, minutes=50)
    inc.metric(
        "cirro.grids.gfs025.run_age_hours",
        "grib-decoder",
        lambda t: (
            ((t - ts("2027-07-07T18:00")).total_seconds() / 3600)
            if t >= run18
            else ((t - ts("2027-07-07T12:00")).total_seconds() / 3600)
        ),
        jitter=0.0,
        digits=2,
    )
    inc.metric(
        "cirro.grib_decoder.fetch.http_404.count",
        "grib-decoder",
        lambda t: 0.0 if t < onset else 0.2,
        labels={"host": "nwp.feeds.example"},
        jitter=0.1,
        digits=2,
    )
    inc.fleet(grib_decoder={"rps": times(step(onset, 1.0, 0.0)), "err": add(step(onset, 0, 0.9))})
    inc.alert = alerts.generic(
        "P1: gfs025 forecast grids older than 11h",
        "grib-decoder",
        ts("2027-07-08T05:00"),
        "P1",
        {
            "alias": "grids-age-gfs025",
            "message": "gfs025 forecast grids older than 11h",
            "description": "cirro.grids.gfs025.run_age_hours = 11.0 (threshold 11). Newest complete run 2027-07-07T18:00Z.",
            "entity": "grib-decoder",
            "source": "Graphite",
            "priority": "P1",
            "tags": ["team:modelling", "env:prod"],
        },
    )
    inc.blame(guilty, [], "grib-decoder", "configuration_error", [ecc, eccd, pa, pad], onset)
    return inc


def r_choice(t: datetime) -> int:
    """The forecast step a download attempt asks for (cycles f000-f120 every 3h)."""
    return (int(t.timestamp()) // 300 % 41) * 3


def xt83_obsdb_xid_wraparound() -> ExtIncident:
    now = ts("2027-07-11T09:15")
    inc = ExtIncident(
        "xt83-obsdb-xid-wraparound",
        "P1: obs-ingest not writing observations",
        """obsdb's transaction IDs ran out: obs-ingest commits hundreds of small transactions a
        second, and autovacuum (default settings, the 2.1 TB obs_raw partitions) never finished
        an anti-wraparound freeze of the oldest partitions, so age(datfrozenxid) climbed for
        weeks. PostgreSQL warned in its log for hours ('database "obsdb" must be vacuumed within
        N transactions') and at 08:31 stopped accepting commands that assign transaction IDs:
        every insert fails with 'database is not accepting commands to avoid wraparound data
        loss', observations stop and point-api's /v1/observations/nearest serves stale data.
        No change caused it (obs-ingest's write pattern has been the same for months); the fix
        is a single-user-mode or aggressive VACUUM FREEZE. Decoys: an obs-ingest deploy 20
        minutes before the onset (tokio bump and batch-size log line), a billing-meter deploy,
        and a config change raising obs-ingest's write batch size after the onset.
        Category: resource_exhaustion (transaction ID space).""",
        now,
        CIRROCAST,
        seed=2583,
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-07-11T07:40"), 8)
    tok = inc.code(
        ts("2027-07-11T07:52"),
        "obs-ingest",
        "Bump tokio to 1.38.1 and log the write batch size (D3401)",
        "Cargo.toml",
        'tokio = { version = "1.38.0", features = ["full"] }\nsqlx = { version = "0.7.4", features = ["postgres", "runtime-tokio"] }',
        'tokio = { version = "1.38.1", features = ["full"] }\nsqlx = { version = "0.7.4", features = ["postgres", "runtime-tokio"] }',
        14,
        author="oskar.l",
    )
    tokd = inc.deploy(ts("2027-07-11T08:11"), "obs-ingest")
    bm = inc.code(
        ts("2027-07-11T07:58"),
        "billing-meter",
        "Count observation lookups separately on invoices (D3403)",
        "internal/usage/classify.go",
        '\tcase strings.HasPrefix(path, "/v1/forecast"):\n\t\treturn "forecast"',
        '\tcase strings.HasPrefix(path, "/v1/forecast"):\n\t\treturn "forecast"\n\tcase strings.HasPrefix(path, "/v1/observations"):\n\t\treturn "observations"',
        31,
        author="ngozi.e",
    )
    bmd = inc.deploy(ts("2027-07-11T08:24"), "billing-meter")
    onset = ts("2027-07-11T08:31")
    bs = inc.config(
        ts("2027-07-11T08:50"),
        "obs-ingest",
        "obs-ingest: write batch 512 -> 2048 rows to catch up (D3407)",
        "deploy/obs-ingest/values-prod.yaml",
        'env:\n  OBS_WRITE_BATCH: "512"',
        'env:\n  OBS_WRITE_BATCH: "2048"',
        author="tpham",
    )
    left = ramp(inc.begin, onset, 9_400_000, 3_000_000)
    t = inc.begin + 7 * MINUTE
    while t < onset:
        inc.log(
            t,
            "obsdb",
            "WARNING",
            f'WARNING:  database "obsdb" must be vacuumed within {int(left(t)):d} transactions\nHINT:  To avoid a database shutdown, execute a database-wide VACUUM in that database.',
            pid=str(40000 + int(t.timestamp()) % 9000),
        )
        t += timedelta(minutes=11)
    inc.log(
        onset,
        "obsdb",
        "ERROR",
        'ERROR:  database is not accepting commands to avoid wraparound data loss in database "obsdb"\nHINT:  Stop the postmaster and vacuum that database in single-user mode.',
    )
    inc.log(
        ts("2027-07-11T06:02"),
        "obsdb",
        "INFO",
        'automatic aggressive vacuum to prevent wraparound of table "obsdb.public.obs_raw_20270402": index scans: 1, pages: 0 removed, 4120332 remain, 1998113 scanned (48.49% of total) -- canceled due to statement_timeout',
    )
    panic = rust_panic(
        'called `Result::unwrap()` on an `Err` value: Database(PgDatabaseError { severity: Error, code: "54000", message: "database is not accepting commands to avoid wraparound data loss in database \\"obsdb\\"" })',
        "src/sink/postgres.rs:118:38",
        [
            "rust_begin_unwind",
            "core::result::unwrap_failed",
            "obs_ingest::sink::postgres::PgSink::flush::{{closure}}",
            "obs_ingest::pipeline::run::{{closure}}",
            "tokio::runtime::task::harness::Harness<T,S>::poll",
        ],
    )
    inc.errors(
        "obs-ingest",
        onset,
        now,
        lambda f: 5.0,
        lambda r: (
            f'ERROR obs_ingest::sink::postgres: batch insert failed rows=512 station_batch={r.getrandbits(24):06x}: error returned from database: database is not accepting commands to avoid wraparound data loss in database "obsdb"'
        ),
        sqlstate="54000",
    )
    inc.log(
        onset + 4 * MINUTE,
        "obs-ingest",
        "ERROR",
        "sink task panicked, restarting pipeline",
        panic=panic,
    )
    inc.errors(
        "point-api",
        onset + 10 * MINUTE,
        now,
        0.6,
        lambda r: (
            f'{{"level":40,"msg":"nearest observation older than 30m, serving with stale=true","station":"{r.choice(["EGLL", "EDDF", "LFPG", "EHAM"])}"}}'
        ),
        level="WARNING",
    )
    inc.metric(
        "pg_database_datfrozenxid_age",
        "obsdb",
        lambda t: 2_147_483_647 - left(t),
        labels={"datname": "obsdb"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "pg_stat_database_xact_commit_rate",
        "obsdb",
        lambda t: 310.0 if t < onset else 4.0,
        labels={"datname": "obsdb"},
        jitter=0.05,
        digits=1,
    )
    inc.fleet(
        obs_ingest={"rps": times(step(onset, 1.0, 0.05)), "err": add(step(onset, 0, 0.95))},
    )
    inc.alert = alerts.generic(
        "P1: obs-ingest not writing observations",
        "obs-ingest",
        ts("2027-07-11T08:46"),
        "P1",
        {
            "alias": "obs-ingest-writes-stalled",
            "message": "obs-ingest not writing observations",
            "description": "cirro.obs_ingest.rows_written.rate = 0.3/s for 15 minutes (normally ~140/s).",
            "entity": "obs-ingest",
            "source": "Graphite",
            "priority": "P1",
            "tags": ["team:observations", "env:prod"],
        },
    )
    inc.outside(
        "obsdb transaction ID wraparound protection: autovacuum never froze the oldest obs_raw partitions, database stopped accepting writes",
        "obsdb",
        "resource_exhaustion",
        [tok, tokd, bm, bmd, bs],
        onset,
    )
    return inc


def xt84_metnet_radar_stale() -> ExtIncident:
    now = ts("2027-07-14T13:20")
    inc = ExtIncident(
        "xt84-metnet-radar-stale",
        "TileRenderRadarStale: radar composite older than 20m",
        """MetNet, the national met service whose open-data radar composite tile-render draws,
        stopped publishing new composites at 12:15: the feed's latest file stays
        composite_202707141210.h5, tile-render keeps polling every minute and logs that the
        composite did not change, and customers' radar layers freeze at 12:10. MetNet's status
        page posted 'radar composite production delayed' at 12:38 (a processing-centre fault,
        single-site radars still published). Our fetches succeed (200, same Last-Modified);
        other MetNet products update. Decoys: a tile-render deploy 20 minutes before (radar
        palette for hail, touching the radar layer code), a config change of the poll interval
        at 12:50 by on-call, and a point-api deploy. Category: dependency_failure.""",
        now,
        CIRROCAST,
        seed=2584,
        hours=6,
    )
    inc.doc(
        "MetNet status: open data",
        """2027-07-14T12:38:00Z Investigating - Production of the national radar composite is delayed. Single-site
radar files are published normally. We are investigating.
2027-07-14T13:05:00Z Identified - A fault at the processing centre stopped composite generation.
Engineers are restarting the composite chain; expect recovery within 60 minutes.""",
    )
    inc.doc(
        "Runbook: stale radar",
        """tile-render polls https://opendata.metnet.example/radar/composite/latest every minute and
renders when the file name changes (every 5 minutes). If the composite age exceeds 20 minutes,
check the MetNet status page first; we can fall back to single-site mosaics with
`cirro radar fallback on` (lower quality, needs the Maps lead's approval).""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2027-07-14T11:30"), 8)
    pal = inc.code(
        ts("2027-07-14T11:38"),
        "tile-render",
        "Radar palette: magenta for hail reflectivity above 60 dBZ (D3502)",
        "internal/radar/palette.go",
        "\t{55, color.RGBA{200, 0, 0, 255}},\n\t{60, color.RGBA{150, 0, 0, 255}},",
        "\t{55, color.RGBA{200, 0, 0, 255}},\n\t{60, color.RGBA{150, 0, 0, 255}},\n\t{65, color.RGBA{255, 0, 255, 255}},",
        18,
        author="oskar.l",
    )
    pald = inc.deploy(ts("2027-07-14T11:55"), "tile-render")
    pa = inc.code(
        ts("2027-07-14T11:50"),
        "point-api",
        "Include precipitation type in nowcasts (D3505)",
        "src/nowcast/serialize.ts",
        "    precip_mm: n.precip,",
        "    precip_mm: n.precip,\n    precip_type: n.ptype ?? null,",
        22,
        author="yusuf.k",
    )
    pad = inc.deploy(ts("2027-07-14T12:08"), "point-api")
    onset = ts("2027-07-14T12:15")
    poll = inc.config(
        ts("2027-07-14T12:50"),
        "tile-render",
        "tile-render: poll the composite every 30s while MetNet is late (D3509)",
        "deploy/tile-render/values-prod.yaml",
        'env:\n  RADAR_POLL_INTERVAL: "60s"',
        'env:\n  RADAR_POLL_INTERVAL: "30s"',
        author="clara.meyer",
    )
    t = inc.begin + timedelta(seconds=50)
    while t < now:
        if t < onset + 2 * MINUTE:
            if t.minute % 5 == 1:
                u = t - timedelta(minutes=6)
                name = u.replace(minute=u.minute - u.minute % 5).strftime("%Y%m%d%H%M")
                inc.log(
                    t,
                    "tile-render",
                    "INFO",
                    f'level=info msg="composite swapped" file=composite_{name}.h5 age=6m',
                )
        else:
            age = int((t - ts("2027-07-14T12:10")).total_seconds() // 60)
            level = "WARNING" if age < 20 else "ERROR"
            inc.log(
                t,
                "tile-render",
                level,
                f'level={"warn" if level == "WARNING" else "error"} msg="radar composite unchanged" file=composite_202707141210.h5 age={age}m status=200 last_modified="Wed, 14 Jul 2027 12:11:04 GMT" source=opendata.metnet.example',
            )
        t += MINUTE if t < ts("2027-07-14T12:50") else timedelta(seconds=30)
    inc.metric(
        "tile_render_radar_composite_age_seconds",
        "tile-render",
        lambda t: 330.0 if t < onset else (t - ts("2027-07-14T12:10")).total_seconds(),
        labels={"source": "metnet"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "tile_render_upstream_fetch_duration_seconds_p99",
        "tile-render",
        lambda t: 0.42,
        labels={"host": "opendata.metnet.example"},
        jitter=0.1,
        digits=3,
    )
    inc.fleet(tile_render={"err": add(step(onset, 0, 0.0005))})
    inc.alert = alerts.alertmanager(
        "TileRenderRadarStale",
        "tile-render",
        ts("2027-07-14T12:31"),
        "critical",
        "radar composite older than 20m",
        "The radar composite behind customers' radar tiles is 21 minutes old.",
        'tile_render_radar_composite_age_seconds{source="metnet"} > 1200',
        team="maps",
    )
    inc.outside(
        "MetNet stopped producing the national radar composite (processing-centre fault, status notice)",
        "tile-render",
        "dependency_failure",
        [pal, pald, pa, pad, poll],
        onset,
    )
    return inc


TUNE = [
    xt73_booster_due_npe,
    xt74_controlled_ledger_full_scan,
    xt75_dicom_buffer_config,
    xt76_booking_cpu_throttled,
    xt77_vetlabs_censored_value,
    xt78_recall_run_queue,
    xt79_node_clock_skew,
    xt80_grid_index_round,
    xt81_cap_shared_dateformat,
    xt82_nwp_para_path,
    xt83_obsdb_xid_wraparound,
    xt84_metnet_radar_stale,
]
