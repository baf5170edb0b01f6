"""TUNE split, eleventh examiner: Pawmeadow Veterinary Group (a chain of veterinary clinics) and
Linenfold Laundry Services (a commercial laundry for hospitals and hotels), incidents
``xt109``-``xt120``. Written without opening the engine, the agents or the held-out split, and
never scored by their examiner; each story spelled out in code. The companies are in
`ext/companies.py`; `ext_build.py` appends ``TUNE`` to the tune split after `ext/tune9.py`'s. The
alert-source helpers here (New Relic, Checkmk, Splunk On-Call, Sentry) are shared with
`ext/heldout11.py`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from evals.rca import alerts
from evals.rca.ext.base import (
    MINUTE,
    Company,
    ExtIncident,
    add,
    java_stack,
    py_stack,
    ramp,
    step,
    times,
)
from evals.rca.ext.companies import LINENFOLD, PAWMEADOW
from evals.rca.ext.tune9 import Inc, counter, ruby_trace
from evals.rca.kit import iso, ts


def opened(
    id: str,
    title: str,
    story: str,
    now: datetime,
    company: Company,
    seed: int,
    hours: float,
    docs: Sequence[tuple[str, str]],
    quiet_until: datetime,
    quiet_services: Sequence[str],
    everyday: int = 7,
) -> Inc:
    """An incident with its documents, healthy chatter and ``everyday`` innocent commits of
    ``quiet_services`` before ``quiet_until``."""
    inc = Inc(id, title, story, now, company, seed, hours=hours)
    for t, c in docs:
        inc.doc(t, c)
    inc.noise()
    inc.background(inc.begin, quiet_until, everyday, list(quiet_services))
    return inc


def sub(inc: ExtIncident, text: str) -> str:
    """A commit subject in the company's house style."""
    return inc.company.style(inc.rng, text)


# --- alert sources ---------------------------------------------------------------------------------


def newrelic(
    title: str,
    service: str,
    fired: datetime,
    severity: str,
    policy: str,
    condition: str,
    query: str,
    value: float,
    threshold: float,
) -> dict[str, Any]:
    """A New Relic workflow webhook (the default payload template)."""
    return alerts.alert(
        title,
        service,
        fired,
        severity,
        {
            "id": f"{int(fired.timestamp()) % 10**8:08d}-4c1e-4b7a-9a51-7d3f2c9e0a11",
            "issueUrl": "https://one.newrelic.example/alerts-ai/issues",
            "title": title,
            "priority": severity.upper(),
            "state": "ACTIVATED",
            "trigger": "STATE_CHANGE",
            "createdAt": int(fired.timestamp() * 1000),
            "sources": ["newrelic"],
            "alertPolicyNames": [policy],
            "alertConditionNames": [condition],
            "entitiesData": {"names": [service], "types": ["APPLICATION"]},
            "nrql": query,
            "totalIncidents": 1,
            "violationChartUrl": "https://gorgon.nr-assets.example/image/abc123",
            "value": value,
            "threshold": threshold,
        },
    )


def checkmk(
    title: str, service: str, fired: datetime, host: str, check: str, output: str, state: str
) -> dict[str, Any]:
    """A Checkmk notification forwarded by a custom notification script (NOTIFY_* variables)."""
    return alerts.alert(
        title,
        service,
        fired,
        "critical" if state == "CRIT" else "warning",
        {
            "NOTIFY_WHAT": "SERVICE",
            "NOTIFY_NOTIFICATIONTYPE": "PROBLEM",
            "NOTIFY_HOSTNAME": host,
            "NOTIFY_SERVICEDESC": check,
            "NOTIFY_SERVICESTATE": state,
            "NOTIFY_LASTSERVICESTATE": "OK",
            "NOTIFY_SERVICEOUTPUT": output,
            "NOTIFY_SHORTDATETIME": fired.strftime("%Y-%m-%d %H:%M:%S"),
            "NOTIFY_OMD_SITE": "plant",
        },
    )


def oncall(
    title: str, service: str, fired: datetime, severity: str, entity: str, message: str
) -> dict[str, Any]:
    """A Splunk On-Call (VictorOps) REST endpoint body."""
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
            "monitoring_tool": "prometheus-victorops-bridge",
            "routing_key": service,
        },
    )


def sentry(
    title: str, service: str, fired: datetime, culprit: str, count: int, level: str = "error"
) -> dict[str, Any]:
    """A Sentry issue-alert webhook (``event_alert`` resource)."""
    return alerts.alert(
        title,
        service,
        fired,
        "critical" if level == "fatal" else "error",
        {
            "action": "triggered",
            "data": {
                "event": {
                    "title": title,
                    "culprit": culprit,
                    "level": level,
                    "environment": "production",
                    "datetime": iso(fired),
                    "tags": [["service", service]],
                },
                "triggered_rule": f"{service}: new issue seen {count} times in 10 minutes",
            },
            "actor": {"type": "application", "id": "sentry", "name": "Sentry"},
        },
    )


# --- Pawmeadow Veterinary Group ---------------------------------------------------------------------

_LAB_DOC = (
    "How lab results arrive",
    """Corralis Diagnostics (the reference lab) keeps one MLLP connection open to
lab-results-ingest (lab.pawmeadow.example:2575) and pushes every ORU^R01 message as soon as a result
is authorised; it reconnects within 30 s if the connection drops. The in-clinic analysers (VetScan,
Catalyst) push to the same listener. Every message gets an ACK: AA filed, AE rejected (the lab
keeps the message and shows it on its own portal), AR the listener could not process it. Corralis
sends 30-90 results an hour on weekdays. A result filed shows on the patient's record at once;
clinicians chase a result that has not arrived 4 hours after the sample was collected.""",
)


def xt109_hl7_timestamp_offset() -> ExtIncident:
    now = ts("2028-04-11T12:40")
    story = """lab-results-ingest commit 'Parse HL7 timestamps with their UTC offset' (made the
    afternoon before by r.mahoney) changes the layout of HL7 DTM fields from 20060102150405 to
    20060102150405-0700. The in-clinic analysers send the offset; Corralis Diagnostics does not
    (its OBR-7 is 20280411091233), so from the first Corralis message after the deploy every
    Corralis ORU^R01 is answered AE with 'parsing time ... cannot parse "" as "-0700"' and no
    Corralis result is filed. The release v3.8.0 at 09:04 names only its sibling commit (log the
    MLLP peer address); the guilty commit went to the same repository before and shipped with
    it unnamed. Decoys: a patient-records deploy at 08:52 adding a lab-results panel (shares the
    words), the sibling commit, an imaging-bridge config change. The alert fires at 10:31 from
    New Relic on result volume. Category: code_defect."""
    inc = opened(
        "xt109-hl7-timestamp-offset",
        "Lab results filed per hour below 20 (CORRALIS)",
        story,
        now,
        PAWMEADOW,
        seed=10901,
        hours=7,
        docs=[_LAB_DOC],
        quiet_until=ts("2028-04-11T08:00"),
        quiet_services=["appointments-api", "clinic-pos", "reminders-worker"],
    )
    guilty = inc.code(
        ts("2028-04-10T16:20"),
        "lab-results-ingest",
        sub(inc, "Parse HL7 timestamps with their UTC offset"),
        "internal/hl7/dtm.go",
        """// ParseDTM reads an HL7 v2 DTM value (YYYYMMDDHHMMSS) in the clinic's zone.
func ParseDTM(v string) (time.Time, error) {
	return time.ParseInLocation("20060102150405", v, london)
}""",
        """// ParseDTM reads an HL7 v2 DTM value with its UTC offset (YYYYMMDDHHMMSS+ZZZZ), so
// results from analysers abroad are placed correctly.
func ParseDTM(v string) (time.Time, error) {
	return time.Parse("20060102150405-0700", v)
}""",
        14,
        author="r.mahoney",
    )
    sib = inc.code(
        ts("2028-04-11T08:31"),
        "lab-results-ingest",
        sub(inc, "Log the MLLP peer address on connect and disconnect"),
        "internal/mllp/listener.go",
        """	conn, err := l.ln.Accept()
	if err != nil {
		return err
	}""",
        """	conn, err := l.ln.Accept()
	if err != nil {
		return err
	}
	slog.Info("mllp peer connected", "peer", conn.RemoteAddr().String())""",
        61,
        author="kwame.boateng",
    )
    rel = inc.ship(ts("2028-04-11T09:04"), "lab-results-ingest", [sib], "v3.8.0")
    prc = inc.code(
        ts("2028-04-11T08:12"),
        "patient-records",
        sub(inc, "Show lab results panel with reference ranges on the visit page"),
        "src/main/java/com/pawmeadow/records/visit/LabResultsPanel.java",
        """    return results.stream().map(r -> new ResultRow(r.code(), r.value(), r.unit())).toList();""",
        """    return results.stream()
        .map(r -> new ResultRow(r.code(), r.value(), r.unit(), r.referenceLow(), r.referenceHigh()))
        .toList();""",
        48,
        author="eilidh.macrae",
    )
    prd = inc.ship(ts("2028-04-11T08:52"), "patient-records", [prc], "v12.4.0")
    cfg = inc.config(
        ts("2028-04-11T09:40"),
        "imaging-bridge",
        "imaging-bridge: STOW-RS timeout 60s -> 90s for the Leeds CT",
        "deploy/imaging-bridge/prod.toml",
        '[pacs]\nurl = "https://pacs.pawmeadow.example/dicomweb"\ntimeout_secs = 60',
        '[pacs]\nurl = "https://pacs.pawmeadow.example/dicomweb"\ntimeout_secs = 90',
        author="tom.brennan",
    )
    onset = ts("2028-04-11T09:06")
    inc.log(
        ts("2028-04-11T09:04:40"),
        "lab-results-ingest",
        "INFO",
        'level=INFO msg="lab-results-ingest starting" version=v3.8.0 listen=:2575',
    )
    inc.log(
        ts("2028-04-11T09:05:02"),
        "lab-results-ingest",
        "INFO",
        'level=INFO msg="mllp peer connected" peer=203.0.113.40:51122',
    )
    inc.quiet("lab-results-ingest", onset, ["CORRALIS"])

    def rejected(r: Any) -> str:
        v = f"202804110{r.randint(7, 9)}{r.randint(10, 59)}{r.randint(10, 59)}"
        return (
            f'level=ERROR msg="ORU^R01 rejected" sender=CORRALIS control_id=CRL4881{r.randint(3000, 9999)} '
            f'ack=AE err="OBR-7: parsing time \\"{v}\\" as \\"20060102150405-0700\\": cannot parse \\"\\" as \\"-0700\\""'
        )

    inc.errors("lab-results-ingest", onset, now, 1.0, rejected, logger="hl7.oru", field="OBR-7")
    inc.errors(
        "lab-results-ingest",
        onset,
        now,
        0.3,
        lambda r: (
            f'level=INFO msg="ORU^R01 filed" sender=VETSCAN-{r.choice(["BRS", "LDS", "CDF"])}-{r.randint(1, 3)} control_id=VS00{r.randint(91000, 99999)} obx={r.randint(6, 14)} ack=AA'
        ),
        level="INFO",
    )
    inc.errors(
        "patient-records",
        ts("2028-04-11T10:40"),
        now,
        0.3,
        lambda r: (
            f"Accession A-{r.randint(770000, 779999)} for patient P-{r.randint(200000, 299999)} still awaiting Corralis results {r.randint(4, 5)}h after collection"
        ),
        level="WARNING",
    )
    inc.fleet(lab_results_ingest={"err": add(step(onset, 0.0, 0.7))})
    inc.metric(
        "hl7_results_filed_per_hour",
        "lab-results-ingest",
        step(onset, 58, 0),
        labels={"sender": "CORRALIS"},
        digits=0,
    )
    inc.metric(
        "hl7_results_filed_per_hour",
        "lab-results-ingest",
        lambda t: 17,
        labels={"sender": "analysers"},
        jitter=0.2,
        digits=0,
    )
    inc.metric(
        "hl7_acks_total",
        "lab-results-ingest",
        counter(step(onset, 0, 1 / 60), inc.begin),
        labels={"code": "AE"},
        jitter=0.0,
        digits=0,
    )
    inc.alert = newrelic(
        "Lab results filed per hour below 20 (CORRALIS)",
        "lab-results-ingest",
        ts("2028-04-11T10:31"),
        "critical",
        "Clinical Systems",
        "Corralis results volume",
        "SELECT sum(hl7_results_filed) FROM Metric WHERE sender = 'CORRALIS' SINCE 60 minutes ago",
        3,
        20,
    )
    inc.blame(guilty, [rel], "lab-results-ingest", "code_defect", [sib, prc, prd, cfg], onset)
    return inc


def xt110_chirrup_batch_size() -> ExtIncident:
    now = ts("2028-04-14T09:05")
    story = """A configuration change at 07:48 raises reminders-worker's Chirrup bulk batch from
    100 to 500 recipients (and lowers concurrency from 4 to 1) to stay under Chirrup's
    requests-per-second cap. Chirrup's bulk endpoint accepts at most 100 recipients: from the
    daily 08:00 reminder run every bulk request fails with HTTP 413 BATCH_TOO_LARGE, BullMQ retries
    each job three times and moves it to failed, and no vaccination reminder goes out. Decoys: a
    reminders-worker commit rewording the SMS (clinic phone number), deployed at 07:55 and sharing
    every word of the failing jobs; an appointments-api deploy at 08:10. The alert (Alertmanager,
    failed jobs) fires at 08:36. Category: configuration_error."""
    inc = opened(
        "xt110-chirrup-batch-size",
        "RemindersFailedJobs: 212 failed reminder jobs in 30m",
        story,
        now,
        PAWMEADOW,
        seed=11001,
        hours=6,
        docs=[
            (
                "Reminders",
                """reminders-worker enqueues the day's reminders at 08:00 (about 9,000 on a Monday) and
sends them in bulk requests to Chirrup (POST https://api.chirrup.example/v2/messages/bulk). Chirrup
limits: 30 requests per second per account, 100 recipients per bulk request (HTTP 413 above it).
A job is retried 3 times with exponential backoff, then moved to the failed set.""",
            )
        ],
        quiet_until=ts("2028-04-14T07:20"),
        quiet_services=["patient-records", "clinic-pos", "imaging-bridge", "lab-results-ingest"],
    )
    guilty = inc.config(
        ts("2028-04-14T07:48"),
        "reminders-worker",
        "reminders-worker: fewer, larger Chirrup bulk requests (stay under their rps cap)",
        "deploy/reminders-worker/values-prod.yaml",
        "chirrup:\n  bulkBatchSize: 100\n  concurrency: 4\n  baseUrl: https://api.chirrup.example/v2",
        "chirrup:\n  bulkBatchSize: 500\n  concurrency: 1\n  baseUrl: https://api.chirrup.example/v2",
        author="anjali.desai",
    )
    wc = inc.code(
        ts("2028-04-14T07:31"),
        "reminders-worker",
        sub(inc, "Vaccination reminder SMS includes the clinic phone number"),
        "src/templates/sms.ts",
        "export const vaccination = (p: Pet, c: Clinic) =>\n  `${p.name} is due a vaccination at Pawmeadow ${c.name}. Book: ${c.bookingUrl}`;",
        "export const vaccination = (p: Pet, c: Clinic) =>\n  `${p.name} is due a vaccination at Pawmeadow ${c.name}. Book: ${c.bookingUrl} or call ${c.phone}`;",
        3,
        author="anjali.desai",
    )
    wd = inc.ship(ts("2028-04-14T07:55"), "reminders-worker", [wc], "v5.20.0")
    ac = inc.code(
        ts("2028-04-14T07:40"),
        "appointments-api",
        sub(inc, "Return the clinic phone number with each slot"),
        "src/Pawmeadow.Appointments/Slots/SlotDto.cs",
        "public sealed record SlotDto(string ClinicId, DateTimeOffset Start, string Type);",
        "public sealed record SlotDto(string ClinicId, DateTimeOffset Start, string Type, string ClinicPhone);",
        9,
    )
    ad = inc.ship(ts("2028-04-14T08:10"), "appointments-api", [ac], "v9.2.0")
    onset = ts("2028-04-14T08:00")
    inc.log(
        ts("2028-04-14T08:00:02"),
        "reminders-worker",
        "INFO",
        '{"level":30,"msg":"daily run enqueued","reminders":9114,"batches":19,"batchSize":500}',
    )
    inc.quiet("reminders-worker", onset, ["reminder batch sent"])
    stack = (
        "ChirrupError: 413 Payload Too Large: bulk requests accept at most 100 recipients\n"
        "    at ChirrupClient.sendBulk (/app/dist/chirrup/client.js:88:13)\n"
        "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)\n"
        "    at async sendBatch (/app/dist/jobs/sendBatch.js:41:20)\n"
        "    at async Worker.processJob (/app/node_modules/bullmq/dist/cjs/classes/worker.js:455:28)"
    )
    inc.errors(
        "reminders-worker",
        onset,
        now,
        lambda f: 6.0 if f < 0.6 else 2.0,
        lambda r: (
            f'{{"level":50,"msg":"job failed","queue":"reminders.due","jobId":"{r.randint(88000, 89999)}","attemptsMade":{r.randint(1, 3)},"err":"ChirrupError: 413 BATCH_TOO_LARGE bulk requests accept at most 100 recipients"}}'
        ),
        stack=stack,
    )
    inc.fleet(
        reminders_worker={"err": add(step(onset, 0.0, 1.0)), "rps": times(step(onset, 1.0, 0.2))}
    )
    inc.metric(
        "reminders_sent_per_minute",
        "reminders-worker",
        step(onset, 3.0, 0.0),
        labels={"channel": "sms"},
        digits=0,
    )
    inc.metric(
        "bullmq_failed_jobs",
        "reminders-worker",
        ramp(onset, ts("2028-04-14T08:50"), 0, 250),
        labels={"queue": "reminders.due"},
        digits=0,
    )
    inc.metric(
        "chirrup_http_responses_per_minute",
        "reminders-worker",
        step(onset, 0, 12),
        labels={"status": "413"},
        digits=0,
    )
    inc.alert = alerts.alertmanager(
        "RemindersFailedJobs",
        "reminders-worker",
        ts("2028-04-14T08:36"),
        "critical",
        "212 failed reminder jobs in 30m",
        "BullMQ queue reminders.due has moved 212 jobs to failed in the last 30 minutes.",
        'increase(bullmq_failed_jobs{queue="reminders.due"}[30m]) > 50',
        team="client-experience",
    )
    inc.blame(guilty, [], "reminders-worker", "configuration_error", [wc, wd, ac, ad], onset)
    return inc


def xt111_pm_units_integer_division() -> ExtIncident:
    now = ts("2028-04-18T13:10")
    story = """The shared gem pm-units 1.7.0 rewrote Volume#to_register ('register precision without
    floats'): (ml * 100).floor / 100.0 became (ml * 100).to_i / 100, an Integer division, so every
    volume sent to the controlled-drug register is truncated to whole millilitres. pharmacy-dispense
    took it in a Dependabot bump, shipped with a label commit in v2.41.0 at 10:12. From the first
    controlled liquid dispensed after it (ketamine, methadone, buprenorphine at 0.3-2.45 ml) the
    register balance no longer matches stock and every such dispensing fails with
    Register::BalanceMismatch (a 422 at the counter); tablets and non-controlled medicines are
    fine. Decoys: a patient-records dosing-calculator commit about mg/kg rounding deployed at 09:58
    (shares 'dose' and 'rounding'), the sibling label commit, a clinic-pos config change. The alert
    is a Sentry issue alert at 11:02. Category: code_defect."""
    inc = opened(
        "xt111-pm-units-integer-division",
        "Register::BalanceMismatch: register balance differs from stock",
        story,
        now,
        PAWMEADOW,
        seed=11101,
        hours=6.5,
        docs=[
            (
                "Controlled drugs register",
                """Every dispensing of a Schedule 2 or 3 controlled drug writes a register entry; the
running balance of each bottle must equal the stock count to 0.01 ml, otherwise the dispensing is
refused (Register::BalanceMismatch) and the clinic must call the pharmacy team. Volumes are converted
with pm-units (Volume#to_register) before they are written.""",
            )
        ],
        quiet_until=ts("2028-04-18T09:00"),
        quiet_services=["appointments-api", "reminders-worker", "imaging-bridge", "clinic-pos"],
    )
    guilty = inc.code(
        ts("2028-04-17T15:02"),
        "pm-units",
        sub(inc, "Register precision without floats"),
        "lib/pm_units/volume.rb",
        """    # Volume in ml, rounded down to the register's 0.01 ml.
    def to_register
      (ml * 100).floor / 100.0
    end""",
        """    # Volume in ml at the register's precision, without float noise.
    def to_register
      (ml * 100).to_i / 100
    end""",
        31,
        author="tom.brennan",
    )
    librel = inc.code(
        ts("2028-04-17T15:30"),
        "pm-units",
        sub(inc, "Release pm-units 1.7.0"),
        "lib/pm_units/version.rb",
        'module PmUnits\n  VERSION = "1.6.2"\nend',
        'module PmUnits\n  VERSION = "1.7.0"\nend',
        1,
        author="tom.brennan",
    )
    bump = inc.code(
        ts("2028-04-18T08:40"),
        "pharmacy-dispense",
        sub(inc, "Bump pm-units from 1.6.2 to 1.7.0"),
        "Gemfile.lock",
        "    pm-units (1.6.2)\n    rack (3.0.11)",
        "    pm-units (1.7.0)\n    rack (3.0.11)",
        112,
        author="dependabot[bot]",
    )
    sib = inc.code(
        ts("2028-04-18T09:10"),
        "pharmacy-dispense",
        sub(inc, "Show batch expiry on the dispensing label"),
        "app/views/dispensings/_label.html.erb",
        "<p><%= dispensing.product.name %> <%= dispensing.quantity_label %></p>",
        "<p><%= dispensing.product.name %> <%= dispensing.quantity_label %></p>\n<p>Exp. <%= dispensing.batch.expires_on.strftime('%m/%Y') %></p>",
        4,
    )
    rel = inc.ship(ts("2028-04-18T10:12"), "pharmacy-dispense", [bump, sib], "v2.41.0")
    pc = inc.code(
        ts("2028-04-18T09:21"),
        "patient-records",
        sub(inc, "Dosing calculator: round mg/kg dose to 2 decimals for display"),
        "src/main/java/com/pawmeadow/records/dosing/DoseCalculator.java",
        "    return new Dose(mgPerKg.multiply(weightKg), unit);",
        "    return new Dose(mgPerKg.multiply(weightKg).setScale(2, RoundingMode.HALF_UP), unit);",
        57,
    )
    pd = inc.ship(ts("2028-04-18T09:58"), "patient-records", [pc], "v12.5.1")
    cfg = inc.config(
        ts("2028-04-18T10:30"),
        "clinic-pos",
        "clinic-pos: card terminal PIN timeout 60s -> 90s",
        "deploy/clinic-pos/.env.production",
        "TERMINAL_PIN_TIMEOUT=60\nTERMINAL_POLL_MS=500",
        "TERMINAL_PIN_TIMEOUT=90\nTERMINAL_POLL_MS=500",
        author="kwame.boateng",
    )
    onset = ts("2028-04-18T10:19")
    drugs = [
        ("KETAMINE-100-10ML", 47.55),
        ("METHADONE-10-5ML", 12.3),
        ("BUPRENORPHINE-0.3-10ML", 6.45),
    ]
    trace = ruby_trace(
        "Register::BalanceMismatch",
        "register balance 47.0 ml differs from stock 47.55 ml for KETAMINE-100-10ML",
        [
            "app/models/register_entry.rb:58:in `check_balance!'",
            "app/models/register_entry.rb:22:in `block in record!'",
            "app/services/dispense_controlled.rb:41:in `call'",
            "app/controllers/dispensings_controller.rb:33:in `create'",
        ],
    )

    def mismatch(r: Any) -> str:
        sku, bal = r.choice(drugs)
        return f"Register::BalanceMismatch (register balance {int(bal - r.randint(0, 2))}.0 ml differs from stock {bal} ml for {sku}) clinic={r.choice(['BRS-02', 'LDS-01', 'CDF-01', 'YRK-03'])}"

    inc.errors("pharmacy-dispense", onset, now, 0.7, mismatch, exception=trace)
    inc.errors(
        "pharmacy-dispense",
        onset,
        now,
        0.7,
        lambda r: (
            "Completed 422 Unprocessable Content in 96ms (ActiveRecord: 18.2ms | Allocations: 9120)"
        ),
        level="WARNING",
    )
    inc.log(
        ts("2028-04-18T10:12:40"),
        "pharmacy-dispense",
        "INFO",
        "Puma starting in cluster mode... * Version 6.4.2; app v2.41.0 (pm-units 1.7.0)",
    )
    inc.fleet(pharmacy_dispense={"err": add(step(onset, 0.0, 0.09))})
    inc.metric(
        "controlled_dispensings_refused_per_hour",
        "pharmacy-dispense",
        step(onset, 0, 40),
        jitter=0.2,
        digits=0,
    )
    inc.metric(
        "dispensings_recorded_per_hour",
        "pharmacy-dispense",
        lambda t: 430,
        labels={"schedule": "none"},
        jitter=0.1,
        digits=0,
    )
    inc.alert = sentry(
        "Register::BalanceMismatch: register balance differs from stock",
        "pharmacy-dispense",
        ts("2028-04-18T11:02"),
        "RegisterEntry#check_balance! (app/models/register_entry.rb)",
        31,
    )
    inc.blame(
        guilty, [librel, bump, rel], "pharmacy-dispense", "code_defect", [sib, pc, pd, cfg], onset
    )
    return inc


def xt112_corralis_dispatch_outage() -> ExtIncident:
    now = ts("2028-04-24T11:20")
    story = """Corralis Diagnostics' result dispatch system fails at 06:52 (their notices, dated in
    ISO 8601, at 07:38 and 09:05: a failed database upgrade; results are authorised but held). The
    Corralis MLLP connection to lab-results-ingest drops at 06:52 and never comes back; no Corralis
    result arrives after it, while the in-clinic analysers keep filing. patient-records starts
    warning about overdue accessions at about 10:50 and the alert fires at 11:02. Decoy: a
    lab-results-ingest release at 06:31 that closes idle MLLP connections after 10 minutes (shares
    the words of the disconnect; Corralis would reconnect within 30 s if it could), an
    appointments-api deploy and a reminders-worker config change. Category:
    dependency_failure."""
    inc = opened(
        "xt112-corralis-dispatch-outage",
        "38 lab accessions overdue (> 4h, Corralis)",
        story,
        now,
        PAWMEADOW,
        seed=11201,
        hours=7,
        docs=[
            _LAB_DOC,
            (
                "Corralis Diagnostics status - Result delivery",
                """2028-04-24T07:38:00Z Investigating - Electronic result delivery (HL7/MLLP) to practices
is interrupted. Samples are being processed and results authorised as normal; results will be
delivered once service is restored.
2028-04-24T09:05:00Z Identified - A database upgrade of our dispatch system failed and is being rolled
back. Results authorised since 06:50 UTC are queued. Portal access is unaffected.""",
            ),
        ],
        quiet_until=ts("2028-04-24T05:50"),
        quiet_services=["patient-records", "clinic-pos", "imaging-bridge"],
    )
    ic = inc.code(
        ts("2028-04-24T06:02"),
        "lab-results-ingest",
        sub(inc, "Close idle MLLP connections after 10 minutes"),
        "internal/mllp/listener.go",
        """func (l *Listener) serve(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)""",
        """func (l *Listener) serve(conn net.Conn) {
	defer conn.Close()
	idle := newIdleTimer(conn, 10*time.Minute) // peers reconnect on their own
	defer idle.Stop()
	r := bufio.NewReader(idleReader{r: conn, t: idle})""",
        88,
        author="kwame.boateng",
    )
    idp = inc.ship(ts("2028-04-24T06:31"), "lab-results-ingest", [ic], "v3.9.0")
    ac = inc.code(
        ts("2028-04-24T06:40"),
        "appointments-api",
        sub(inc, "Hide surgery slots on bank holidays"),
        "src/Pawmeadow.Appointments/Slots/SlotFilter.cs",
        "    return slots.Where(s => s.Type != SlotType.Closed);",
        "    return slots.Where(s => s.Type != SlotType.Closed && !(s.Type == SlotType.Surgery && holidays.Contains(s.Start.Date)));",
        20,
    )
    ad = inc.ship(ts("2028-04-24T07:05"), "appointments-api", [ac], "v9.3.0")
    rc = inc.config(
        ts("2028-04-24T10:35"),
        "reminders-worker",
        "reminders-worker: email reminders from reminders@ not noreply@",
        "deploy/reminders-worker/values-prod.yaml",
        "email:\n  from: noreply@pawmeadow.example",
        "email:\n  from: reminders@pawmeadow.example",
        author="anjali.desai",
    )
    onset = ts("2028-04-24T06:52")
    inc.quiet("lab-results-ingest", onset, ["CORRALIS"])
    inc.log(
        ts("2028-04-24T06:31:30"),
        "lab-results-ingest",
        "INFO",
        'level=INFO msg="mllp peer connected" peer=203.0.113.40:49810 sender=CORRALIS',
    )
    inc.log(
        ts("2028-04-24T06:52:11"),
        "lab-results-ingest",
        "WARNING",
        'level=WARN msg="mllp peer disconnected" peer=203.0.113.40:49810 sender=CORRALIS err="read tcp 10.20.1.14:2575->203.0.113.40:49810: read: connection reset by peer"',
    )
    inc.errors(
        "lab-results-ingest",
        ts("2028-04-24T07:07"),
        now,
        1 / 15,
        lambda r: (
            'level=ERROR msg="no connection from expected peer" sender=CORRALIS since=06:52:11 expected_reconnect=30s'
        ),
        logger="mllp.watchdog",
    )
    inc.errors(
        "lab-results-ingest",
        inc.begin,
        now,
        0.3,
        lambda r: (
            f'level=INFO msg="ORU^R01 filed" sender=VETSCAN-{r.choice(["BRS", "LDS", "CDF"])}-{r.randint(1, 3)} control_id=VS00{r.randint(91000, 99999)} obx={r.randint(6, 14)} ack=AA'
        ),
        level="INFO",
    )
    inc.errors(
        "lab-results-ingest",
        inc.begin,
        onset,
        0.9,
        lambda r: (
            f'level=INFO msg="ORU^R01 filed" sender=CORRALIS control_id=CRL4882{r.randint(1000, 9999)} obx={r.randint(8, 22)} ack=AA'
        ),
        level="INFO",
    )
    inc.errors(
        "patient-records",
        ts("2028-04-24T10:50"),
        now,
        0.5,
        lambda r: (
            f"Accession A-{r.randint(780000, 789999)} for patient P-{r.randint(200000, 299999)} still awaiting Corralis results {r.randint(4, 5)}h after collection"
        ),
        level="WARNING",
    )
    inc.fleet(lab_results_ingest={"rps": times(step(onset, 1.0, 0.25))})
    inc.metric(
        "mllp_connections_open",
        "lab-results-ingest",
        step(onset, 1, 0),
        labels={"sender": "CORRALIS"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "hl7_results_filed_per_hour",
        "lab-results-ingest",
        step(onset, 61, 0),
        labels={"sender": "CORRALIS"},
        digits=0,
    )
    inc.metric(
        "hl7_results_filed_per_hour",
        "lab-results-ingest",
        lambda t: 18,
        labels={"sender": "analysers"},
        jitter=0.2,
        digits=0,
    )
    inc.metric(
        "lab_accessions_overdue",
        "patient-records",
        ramp(ts("2028-04-24T10:50"), now, 0, 52),
        digits=0,
    )
    inc.alert = newrelic(
        "38 lab accessions overdue (> 4h, Corralis)",
        "patient-records",
        ts("2028-04-24T11:02"),
        "high",
        "Clinical Systems",
        "Overdue lab accessions",
        "SELECT latest(lab_accessions_overdue) FROM Metric",
        38,
        25,
    )
    inc.outside(
        "Corralis Diagnostics result dispatch outage (failed database upgrade)",
        "lab-results-ingest",
        "dependency_failure",
        [ic, idp, ac, ad, rc],
        onset,
    )
    return inc


def xt113_furlong_certificate_expired() -> ExtIncident:
    now = ts("2028-05-02T09:40")
    story = """Furlong Pet Insurance's server certificate for claims.furlong.example expires at
    2028-05-02T00:00:00Z and they do not renew it in time. Every direct insurance claim from
    clinic-pos fails the TLS handshake with 'certificate has expired' from the first claim after
    midnight (the Leeds emergency hospital's, 00:41), and from 08:00, when the clinics open, dozens
    an hour; invoices and card payments are fine. Decoy: a clinic-pos deploy at 08:46 that moves
    the Furlong client-certificate bundle path (mutual TLS; shares every word of the errors, but the
    errors began eight hours earlier and concern the server's certificate), an imaging-bridge
    config change near midnight and a patient-records deploy. Alert: New Relic error rate on the
    claims transaction at 09:21. Category: dependency_failure."""
    inc = opened(
        "xt113-furlong-certificate-expired",
        "clinic-pos: error rate on POST /pos/claims above 50%",
        story,
        now,
        PAWMEADOW,
        seed=11301,
        hours=10,
        docs=[
            (
                "Direct insurance claims",
                """clinic-pos submits claims to Furlong Pet Insurance (POST https://claims.furlong.example/v3/claims)
with mutual TLS: our client certificate (issued by Furlong's partner CA, renewed by us every year in
March) and Furlong's server certificate (their public certificate, renewed by them). A claim that
fails is kept as 'pending submission' and the client pays the invoice in full.""",
            )
        ],
        quiet_until=ts("2028-05-02T07:30"),
        quiet_services=["appointments-api", "reminders-worker", "lab-results-ingest"],
    )
    cfg = inc.config(
        ts("2028-05-01T23:50"),
        "imaging-bridge",
        "imaging-bridge: retry STOW-RS 3 times on 503",
        "deploy/imaging-bridge/prod.toml",
        "[retry]\nmax_attempts = 2\nbackoff_ms = 2000",
        "[retry]\nmax_attempts = 3\nbackoff_ms = 2000",
        author="tom.brennan",
    )
    cc = inc.code(
        ts("2028-05-02T08:15"),
        "clinic-pos",
        sub(inc, "Read the Furlong client certificate bundle from the mounted secret"),
        "config/services.php",
        """    'furlong' => [
        'base_url' => env('FURLONG_URL', 'https://claims.furlong.example/v3'),
        'cert' => storage_path('certs/furlong-client.pem'),""",
        """    'furlong' => [
        'base_url' => env('FURLONG_URL', 'https://claims.furlong.example/v3'),
        'cert' => env('FURLONG_CLIENT_CERT', '/var/run/secrets/furlong/client.pem'),""",
        41,
        author="kwame.boateng",
    )
    cd = inc.ship(ts("2028-05-02T08:46"), "clinic-pos", [cc], "v4.17.0")
    pc = inc.code(
        ts("2028-05-02T08:20"),
        "patient-records",
        sub(inc, "Owner merge keeps both phone numbers"),
        "src/main/java/com/pawmeadow/records/owner/OwnerMerge.java",
        "    target.setPhone(source.getPhone());",
        "    target.addPhone(source.getPhone());",
        72,
    )
    pd = inc.ship(ts("2028-05-02T09:05"), "patient-records", [pc], "v12.6.0")
    onset = ts("2028-05-02T00:00")
    trace = (
        "GuzzleHttp\\Exception\\RequestException: cURL error 60: SSL certificate problem: certificate has expired "
        "(see https://curl.haxx.se/libcurl/c/libcurl-errors.html) for https://claims.furlong.example/v3/claims in "
        "/var/www/vendor/guzzlehttp/guzzle/src/Handler/CurlFactory.php:275\n"
        "#0 /var/www/vendor/guzzlehttp/guzzle/src/Handler/CurlFactory.php(205): GuzzleHttp\\Handler\\CurlFactory::createRejection()\n"
        "#1 /var/www/app/Insurance/FurlongClient.php(63): GuzzleHttp\\Client->post()\n"
        "#2 /var/www/app/Jobs/SubmitClaim.php(38): App\\Insurance\\FurlongClient->submit()\n"
        "#3 {main}"
    )

    def failed(r: Any) -> str:
        return (
            f"[2028-05-02] production.ERROR: Furlong claim submission failed claim=CLM-{r.randint(550000, 559999)} "
            "cURL error 60: SSL certificate problem: certificate has expired"
        )

    inc.errors(
        "clinic-pos",
        ts("2028-05-02T00:41"),
        ts("2028-05-02T00:42"),
        1.0,
        failed,
        exception=trace,
        peer_cert_not_after="2028-05-02T00:00:00Z",
        peer="claims.furlong.example:443",
    )
    inc.errors(
        "clinic-pos",
        ts("2028-05-02T03:12"),
        ts("2028-05-02T03:13"),
        1.0,
        failed,
        exception=trace,
        peer_cert_not_after="2028-05-02T00:00:00Z",
        peer="claims.furlong.example:443",
    )
    inc.errors(
        "clinic-pos",
        ts("2028-05-02T08:02"),
        now,
        0.8,
        failed,
        exception=trace,
        peer_cert_not_after="2028-05-02T00:00:00Z",
        peer="claims.furlong.example:443",
    )
    inc.errors(
        "clinic-pos",
        inc.begin,
        ts("2028-05-01T23:59"),
        0.12,
        lambda r: (
            f"[2028-05-01] production.INFO: Furlong claim submitted claim=CLM-{r.randint(540000, 549999)} status=received"
        ),
        level="INFO",
    )
    inc.fleet(clinic_pos={"err": add(step(ts("2028-05-02T08:00"), 0.0, 0.06))})
    inc.metric(
        "insurance_claims_failed_per_hour",
        "clinic-pos",
        lambda t: 0 if t < onset else (1 if t.hour < 8 else 48),
        jitter=0.2,
        digits=0,
    )
    inc.metric(
        "insurance_claims_submitted_per_hour",
        "clinic-pos",
        lambda t: 0 if t >= onset else 6,
        jitter=0.2,
        digits=0,
    )
    inc.alert = newrelic(
        "clinic-pos: error rate on POST /pos/claims above 50%",
        "clinic-pos",
        ts("2028-05-02T09:21"),
        "critical",
        "Finance",
        "Claims transaction errors",
        "SELECT percentage(count(*), WHERE error IS true) FROM Transaction WHERE name = 'WebTransaction/Action/pos/claims'",
        100,
        50,
    )
    inc.outside(
        "Furlong Pet Insurance's server certificate expired at 2028-05-02T00:00:00Z",
        "clinic-pos",
        "dependency_failure",
        [cc, cd, cfg, pc, pd],
        onset,
    )
    return inc


def xt114_pacs_maintenance_backlog() -> ExtIncident:
    now = ts("2028-05-07T08:15")
    story = """The central PACS has its announced weekly maintenance on Sunday 06:00-06:45; during it
    STOW-RS answers 503 and imaging-bridge queues the Leeds and Bristol emergency hospitals'
    studies. The backlog peaks at 46 studies at 06:44, drains by 07:05, and the alert (studies
    queued > 25 for 30 minutes) fires at 06:58 and is still open at 08:15 although nothing has
    been queued since 07:05. Nothing is wrong now. Decoys: an imaging-bridge deploy at 06:12
    (reqwest bump) and an appointments-api config change. Category: healthy."""
    inc = opened(
        "xt114-pacs-maintenance-backlog",
        "ImagingBacklog: DICOM studies queued > 25",
        story,
        now,
        PAWMEADOW,
        seed=11401,
        hours=6,
        docs=[
            (
                "PACS maintenance window",
                """The central PACS (pacs.pawmeadow.example) is patched every Sunday from 06:00 to 06:45 UTC.
During the window STOW-RS answers 503; imaging-bridge keeps studies in its local queue and retries
every 2 minutes, then drains the queue. Only the two emergency hospitals image on Sunday mornings.""",
            )
        ],
        quiet_until=ts("2028-05-07T05:30"),
        quiet_services=["patient-records", "clinic-pos", "reminders-worker"],
    )
    ic = inc.code(
        ts("2028-05-07T05:48"),
        "imaging-bridge",
        sub(inc, "Bump reqwest from 0.12.4 to 0.12.5"),
        "Cargo.toml",
        'reqwest = { version = "0.12.4", features = ["rustls-tls"] }',
        'reqwest = { version = "0.12.5", features = ["rustls-tls"] }',
        14,
        author="dependabot[bot]",
    )
    idp = inc.ship(ts("2028-05-07T06:12"), "imaging-bridge", [ic], "v1.14.2")
    acf = inc.config(
        ts("2028-05-07T07:20"),
        "appointments-api",
        "appointments-api: open Sunday online booking for Leeds",
        "deploy/appointments-api/appsettings.Production.json",
        '"OnlineBooking": { "SundayClinics": ["BRS-01"] }',
        '"OnlineBooking": { "SundayClinics": ["BRS-01", "LDS-01"] }',
        author="eilidh.macrae",
    )
    onset = ts("2028-05-07T06:00")
    end = ts("2028-05-07T06:46")
    inc.errors(
        "imaging-bridge",
        onset,
        end,
        1.2,
        lambda r: (
            f"WARN imaging_bridge::stow: STOW-RS 503 Service Unavailable for study 1.2.826.0.1.3680043.8.498.{r.randint(12000, 12999)}, queued (attempt {r.randint(1, 20)})"
        ),
        level="WARNING",
    )
    inc.log(
        ts("2028-05-07T06:31:10"),
        "imaging-bridge",
        "ERROR",
        "ERROR imaging_bridge::stow: study 1.2.826.0.1.3680043.8.498.12410 failed 16 attempts; kept in queue",
        attempt=16,
    )
    inc.log(
        ts("2028-05-07T06:47:00"),
        "imaging-bridge",
        "INFO",
        "INFO imaging_bridge::queue: PACS reachable again, draining 46 queued studies",
    )
    inc.log(
        ts("2028-05-07T07:05:20"),
        "imaging-bridge",
        "INFO",
        "INFO imaging_bridge::queue: queue drained, 0 studies pending",
    )

    def backlog(t: datetime) -> float:
        if t < onset or t >= ts("2028-05-07T07:06"):
            return 0
        if t < end:
            return 46 * (t - onset).total_seconds() / (end - onset).total_seconds()
        return 46 * (1 - (t - end).total_seconds() / 1200)

    inc.fleet()
    inc.metric("imaging_queue_studies", "imaging-bridge", backlog, jitter=0.02, digits=0)
    inc.metric(
        "stow_responses_per_minute",
        "imaging-bridge",
        step(onset, 0, 1.2, end),
        labels={"status": "503"},
        digits=1,
    )
    inc.alert = alerts.alertmanager(
        "ImagingBacklog",
        "imaging-bridge",
        ts("2028-05-07T06:58"),
        "warning",
        "DICOM studies queued > 25",
        "imaging-bridge has had more than 25 studies queued for 30 minutes.",
        "max_over_time(imaging_queue_studies[30m]) > 25",
        team="clinical-systems",
    )
    inc.healthy(
        "imaging-bridge",
        "announced PACS maintenance window; the queue drained by 07:05 and the alert is stale",
        [ic, idp, acf],
        onset,
    )
    return inc


def xt115_booking_timeouts_unexplained() -> ExtIncident:
    now = ts("2028-05-09T11:55")
    story = """From 11:02 to 11:16 about one booking request in twelve at appointments-api fails
    with a SQL Server 'Execution Timeout Expired' on the slot query, then it stops. SQL Server
    metrics (CPU, waits, blocked sessions) stay flat, no change touched appointments-api or its
    database, other services are healthy; nothing in the data explains it. Decoys: a clinic-pos
    deploy at 10:50 and a patient-records config change at 11:20. The alert fires at 11:10.
    Category: unknown."""
    inc = opened(
        "xt115-booking-timeouts-unexplained",
        "appointments-api 5xx ratio above 5% (POST /api/v2/bookings)",
        story,
        now,
        PAWMEADOW,
        seed=11501,
        hours=6,
        docs=[
            (
                "appointments-api database",
                """Bookings and slots live in the SQL Server database pmdb-bookings (Azure SQL, General
Purpose 8 vCores). The slot query has a 30 s command timeout. The DBA team owns the server.""",
            )
        ],
        quiet_until=ts("2028-05-09T10:00"),
        quiet_services=[
            "reminders-worker",
            "imaging-bridge",
            "lab-results-ingest",
            "pharmacy-dispense",
        ],
    )
    pc = inc.code(
        ts("2028-05-09T10:22"),
        "clinic-pos",
        sub(inc, "Estimates show VAT per line"),
        "resources/views/estimates/show.blade.php",
        "<td>{{ $line->total }}</td>",
        "<td>{{ $line->total }}</td>\n<td>{{ $line->vat }}</td>",
        31,
    )
    pd = inc.ship(ts("2028-05-09T10:50"), "clinic-pos", [pc], "v4.18.0")
    prc = inc.config(
        ts("2028-05-09T11:20"),
        "patient-records",
        "patient-records: Hikari maximumPoolSize 20 -> 24",
        "deploy/patient-records/application-prod.yaml",
        "spring:\n  datasource:\n    hikari:\n      maximum-pool-size: 20",
        "spring:\n  datasource:\n    hikari:\n      maximum-pool-size: 24",
        author="eilidh.macrae",
    )
    onset = ts("2028-05-09T11:02")
    end = ts("2028-05-09T11:16")
    trace = (
        "Microsoft.Data.SqlClient.SqlException (0x80131904): Execution Timeout Expired.  The timeout period elapsed prior to completion of the operation or the server is not responding.\n"
        " ---> System.ComponentModel.Win32Exception (258): The wait operation timed out.\n"
        "   at Microsoft.Data.SqlClient.SqlCommand.<>c.<ExecuteDbDataReaderAsync>b__211_0(Task`1 result)\n"
        "   at Microsoft.EntityFrameworkCore.Query.Internal.SingleQueryingEnumerable`1.AsyncEnumerator.MoveNextAsync()\n"
        "   at Pawmeadow.Appointments.Slots.SlotRepository.FreeSlotsAsync(String clinicId, DateOnly day) in /src/Pawmeadow.Appointments/Slots/SlotRepository.cs:line 44\n"
        "   at Pawmeadow.Appointments.Bookings.BookingService.CreateAsync(BookingRequest request) in /src/Pawmeadow.Appointments/Bookings/BookingService.cs:line 61"
    )
    inc.errors(
        "appointments-api",
        onset,
        end,
        2.5,
        lambda r: (
            f"fail: Pawmeadow.Appointments.Bookings.BookingService[0] Booking failed for clinic {r.choice(['BRS-02', 'LDS-01', 'YRK-03', 'EXE-01'])}: Execution Timeout Expired"
        ),
        exception=trace,
    )
    inc.fleet(
        appointments_api={"err": add(step(onset, 0.0, 0.08, end)), "p99": floor_(onset, end, 30000)}
    )
    for name, v in (
        ("sql_cpu_percent", 31),
        ("sql_blocked_sessions", 0.5),
        ("sql_wait_ms_per_sec", 40),
    ):
        inc.metric(name, "pmdb-bookings", lambda t, v=v: v, jitter=0.1, digits=1)
    inc.alert = alerts.grafana(
        "appointments-api 5xx ratio above 5% (POST /api/v2/bookings)",
        "appointments-api",
        ts("2028-05-09T11:10"),
        "warning",
        "Bookings - errors",
        "8.1%",
        team="client-experience",
    )
    inc.unexplained("appointments-api", [pc, pd, prc], onset)
    return inc


def floor_(a: datetime, b: datetime, value: float) -> Any:
    """A RED modifier: ``value`` between ``a`` and ``b``, healthy otherwise."""
    return lambda t, v: value if a <= t < b else v


# --- Linenfold Laundry Services ---------------------------------------------------------------------

_PORTAL_DOC = (
    "How carts are counted",
    """Every cart of linen passes an RFID portal: soil carts at the soil dock when they arrive from
a customer (items in, billed per item), clean carts at the clean dock before they leave. A portal
reads each tag many times (a cart of 200 items gives 1,500-2,000 reads); rfid-gateway
de-duplicates the reads of a cart by EPC within the cart's read window, decodes the SGTIN-96 EPCs
(header, filter, partition, company prefix, item reference, serial) and publishes one count per
cart to Kafka cart.counts. A hospital cart holds 150-220 items, a hotel cart 90-160.""",
)


def xt116_rfid_dedupe_prefix() -> ExtIncident:
    now = ts("2028-06-02T16:10")
    story = """rfid-gateway release v2.14.0 at 13:04 bundles three commits; one, 'smaller dedupe
    keys', keys the read de-duplication by the first 6 bytes of the EPC instead of the whole
    12-byte EPC. Those 6 bytes are the header, filter, partition and most of the company prefix,
    so every item of the same supplier in a cart collapses into one: carts that held 150-220 items
    are counted as 2-6. Reads per cart are unchanged, nothing throws; the failure is in the counts:
    par-levels holds implausible top-up orders and billing-run warns that soil counts fell 98%.
    Decoys: the two sibling commits (portal health endpoint, kafka-go bump), a customer-portal
    deploy at 13:20 reworking the par-levels page, a chem-dosing config change. The Grafana alert
    on items per cart fires at 15:42, long after the onset. Category: code_defect."""
    inc = opened(
        "xt116-rfid-dedupe-prefix",
        "Items per soil cart below 20 (both plants)",
        story,
        now,
        LINENFOLD,
        seed=11601,
        hours=7,
        docs=[_PORTAL_DOC],
        quiet_until=ts("2028-06-02T12:00"),
        quiet_services=["route-planner", "tunnel-control", "billing-run"],
    )
    guilty = inc.code(
        ts("2028-06-02T10:41"),
        "rfid-gateway",
        sub(inc, "Smaller dedupe keys: halve the memory of the read window"),
        "internal/dedupe/window.go",
        """func key(epc []byte) string {
	return hex.EncodeToString(epc) // 96-bit EPC, 24 hex chars
}""",
        """func key(epc []byte) string {
	return hex.EncodeToString(epc[:6]) // 12 hex chars are plenty within one cart
}""",
        22,
        author="gareth.lowe",
    )
    s1 = inc.code(
        ts("2028-06-02T11:15"),
        "rfid-gateway",
        sub(inc, "Portal health endpoint reports antenna return loss"),
        "internal/portal/health.go",
        "	return Health{Portal: p.ID, Up: p.Up()}",
        "	return Health{Portal: p.ID, Up: p.Up(), ReturnLossDB: p.ReturnLoss()}",
        30,
        author="gareth.lowe",
    )
    s2 = inc.code(
        ts("2028-06-02T11:40"),
        "rfid-gateway",
        sub(inc, "Bump kafka-go from v0.4.46 to v0.4.47"),
        "go.mod",
        "require (\n\tgithub.com/segmentio/kafka-go v0.4.46\n)",
        "require (\n\tgithub.com/segmentio/kafka-go v0.4.47\n)",
        5,
        author="renovate[bot]",
    )
    rel = inc.ship(ts("2028-06-02T13:04"), "rfid-gateway", [guilty, s1, s2], "v2.14.0")
    cc = inc.code(
        ts("2028-06-02T12:50"),
        "customer-portal",
        sub(inc, "Par levels page groups items by cart type"),
        "app/par-levels/page.tsx",
        "  const rows = parLevels.map(toRow);",
        "  const rows = groupBy(parLevels.map(toRow), (r) => r.cartType);",
        18,
    )
    cd = inc.ship(ts("2028-06-02T13:20"), "customer-portal", [cc], "v3.30.0")
    chem = inc.config(
        ts("2028-06-02T13:35"),
        "chem-dosing",
        "chem-dosing: LDS-T2 disinfectant 90 -> 95 ml per batch",
        "deploy/chem-dosing/lds-t2.toml",
        "[dose]\nalkali_ml = 410\ndisinfectant_ml = 90",
        "[dose]\nalkali_ml = 410\ndisinfectant_ml = 95",
        author="sunita.patel",
    )
    onset = ts("2028-06-02T13:07")
    inc.quiet("rfid-gateway", onset, ["cart counted"])
    inc.quiet("par-levels", onset, ["counted for"])
    inc.log(
        ts("2028-06-02T13:04:50"),
        "rfid-gateway",
        "INFO",
        'level=info msg="rfid-gateway starting" version=v2.14.0 portals=8',
    )
    inc.errors(
        "rfid-gateway",
        inc.begin,
        onset,
        1.0,
        lambda r: (
            f'level=info msg="cart counted" portal={r.choice(["LDS-SOIL-1", "LDS-SOIL-2", "WKF-SOIL-1", "LDS-CLEAN-1"])} cart=C-{r.randint(10000, 29999)} items={r.randint(150, 220)} reads={r.randint(1300, 2100)} dur={r.randint(30, 48) / 10}s'
        ),
        level="INFO",
    )
    inc.errors(
        "rfid-gateway",
        onset,
        now,
        1.0,
        lambda r: (
            f'level=info msg="cart counted" portal={r.choice(["LDS-SOIL-1", "LDS-SOIL-2", "WKF-SOIL-1", "LDS-CLEAN-1"])} cart=C-{r.randint(10000, 29999)} items={r.randint(2, 6)} reads={r.randint(1300, 2100)} dur={r.randint(30, 48) / 10}s'
        ),
        level="INFO",
    )
    inc.errors(
        "par-levels",
        onset + 3 * MINUTE,
        now,
        0.8,
        lambda r: (
            f"[warning] cart C-{r.randint(20000, 29999)} counted for {r.choice(['St Aidan', 'Harrogate General', 'Premier Inn Leeds City'])} ward W-{r.randint(1, 30):02d}: {r.randint(2, 6)} items, par 180, top-up {r.randint(174, 178)} exceeds the ward maximum 120; order held for review"
        ),
        level="WARNING",
    )
    inc.errors(
        "billing-run",
        ts("2028-06-02T14:00"),
        now,
        0.2,
        lambda r: (
            f"fail: Billing.Run[3] Soil count for customer CU-{r.randint(100, 220)} fell {r.randint(96, 99)}% against the 7-day average; lines withheld from invoicing"
        ),
    )
    inc.fleet()
    inc.metric(
        "cart_items_counted_avg",
        "rfid-gateway",
        step(onset, 182, 4),
        labels={"dock": "soil"},
        digits=1,
    )
    inc.metric(
        "cart_items_counted_avg",
        "rfid-gateway",
        step(onset + 40 * MINUTE, 176, 4),
        labels={"dock": "clean"},
        digits=1,
    )
    inc.metric("cart_reads_avg", "rfid-gateway", lambda t: 1720, jitter=0.1, digits=0)
    inc.metric("dedupe_window_keys", "rfid-gateway", step(onset, 182, 4), digits=0)
    inc.metric("topup_orders_held_per_hour", "par-levels", step(onset, 0.3, 48), digits=0)
    inc.alert = alerts.grafana(
        "Items per soil cart below 20 (both plants)",
        "rfid-gateway",
        ts("2028-06-02T15:42"),
        "critical",
        "Soil dock - items per cart",
        "4.1",
        team="plant-systems",
    )
    inc.blame(guilty, [rel], "rfid-gateway", "code_defect", [s1, s2, cc, cd, chem], onset)
    return inc


def xt117_opcua_batch_write_flag() -> ExtIncident:
    now = ts("2028-06-06T12:30")
    story = """The flag tunnel.opcua_batch_write is switched on at 10:16: tunnel-control then writes
    a batch's 38 recipe parameters in one OPC UA Write call instead of one call per node. The
    tunnel PLCs' OPC UA servers allow 16 nodes per Write (OperationLimits/MaxNodesPerWrite), so
    every recipe write from then on fails with BadTooManyOperations, batches are held at the
    loading conveyor and both plants' tunnels stop taking linen. Decoy: a tunnel-control release
    at 10:02 that retries recipe writes on BadCommunicationError, in the very module the stack
    traces name (recipe_writer.py), a route-planner deploy and a billing-run config change. Alert:
    Checkmk on batches per hour at 11:05. Category: configuration_error."""
    inc = opened(
        "xt117-opcua-batch-write-flag",
        "LDS-T1 tunnel batches/h CRIT",
        story,
        now,
        LINENFOLD,
        seed=11701,
        hours=6,
        docs=[
            (
                "Tunnel PLC interface",
                """tunnel-control writes each batch's recipe (38 parameters: water levels, temperatures and
hold times per compartment, dosing) to the tunnel PLC (Siemens S7-1500 OPC UA server) before the
batch enters the tunnel, then sets Batch.Ready. The PLC servers' OperationLimits: MaxNodesPerRead 64,
MaxNodesPerWrite 16. A batch whose recipe cannot be written stays on the loading conveyor. Each
tunnel takes a batch every 2-3 minutes.""",
            )
        ],
        quiet_until=ts("2028-06-06T09:30"),
        quiet_services=["customer-portal", "par-levels", "chem-dosing"],
    )
    rc = inc.code(
        ts("2028-06-06T09:35"),
        "tunnel-control",
        sub(inc, "Retry recipe writes once on BadCommunicationError"),
        "tunnel_control/recipe_writer.py",
        """    async def write(self, batch: Batch) -> None:
        await self._write_nodes(batch.recipe.nodes())""",
        """    async def write(self, batch: Batch) -> None:
        try:
            await self._write_nodes(batch.recipe.nodes())
        except ua.uaerrors.BadCommunicationError:
            log.warning("recipe write for %s lost the session, retrying once", batch.id)
            await self._reconnect()
            await self._write_nodes(batch.recipe.nodes())""",
        40,
        author="beata.nowak",
    )
    rd = inc.ship(ts("2028-06-06T10:02"), "tunnel-control", [rc], "v6.3.0")
    guilty = inc.flag(
        ts("2028-06-06T10:16"),
        "tunnel-control",
        "tunnel.opcua_batch_write",
        "enabled: false\ndescription: write all recipe nodes in one Write service call (fewer round trips)\nplants: [leeds, wakefield]",
        "enabled: true\ndescription: write all recipe nodes in one Write service call (fewer round trips)\nplants: [leeds, wakefield]",
        "Turn on one-call recipe writes for both plants",
        author="beata.nowak",
    )
    rpc = inc.code(
        ts("2028-06-06T09:50"),
        "route-planner",
        sub(inc, "Vans carry cage counts on the load sheet"),
        "src/main/java/com/linenfold/routes/LoadSheet.java",
        "    return new LoadSheet(route, carts);",
        "    return new LoadSheet(route, carts, cages(route));",
        33,
    )
    rpd = inc.ship(ts("2028-06-06T10:25"), "route-planner", [rpc], "v8.1.0")
    bcf = inc.config(
        ts("2028-06-06T11:30"),
        "billing-run",
        "billing-run: hourly run at :15 instead of :05",
        "deploy/billing-run/appsettings.Production.json",
        '"Schedule": { "Hourly": "5 * * * *" }',
        '"Schedule": { "Hourly": "15 * * * *" }',
        author="dave.hirst",
    )
    onset = ts("2028-06-06T10:17")
    inc.quiet("tunnel-control", onset, ["loaded tunnel"])
    inc.log(
        ts("2028-06-06T10:16:30"),
        "tunnel-control",
        "INFO",
        "refreshed feature flags: tunnel.opcua_batch_write=true (was false)",
    )
    trace = py_stack(
        "asyncua.ua.uaerrors._auto.BadTooManyOperations",
        '"The request could not be processed because there are too many operations in the request."(BadTooManyOperations)',
        [
            ("/app/tunnel_control/batches.py", 112, "load", "await self.writer.write(batch)"),
            (
                "/app/tunnel_control/recipe_writer.py",
                44,
                "write",
                "await self._write_nodes(batch.recipe.nodes())",
            ),
            (
                "/app/tunnel_control/recipe_writer.py",
                71,
                "_write_nodes",
                "await self.client.write_values(nodes, values)",
            ),
            (
                "/usr/local/lib/python3.12/site-packages/asyncua/client/client.py",
                980,
                "write_values",
                "results = await self.uaclient.write_attributes(nodeids, dvs)",
            ),
            (
                "/usr/local/lib/python3.12/site-packages/asyncua/ua/uaprotocol_auto.py",
                8843,
                "check",
                "raise UaStatusCodeError(self.value)",
            ),
        ],
    )
    for tunnel in ("LDS-T1", "LDS-T2", "WKF-T1"):
        inc.errors(
            "tunnel-control",
            onset,
            now,
            0.25,
            lambda r, tunnel=tunnel: (
                f"batch B-77{r.randint(40000, 49999)} held on {tunnel}: recipe write failed: BadTooManyOperations (38 nodes in one Write)"
            ),
            exc_info=trace,
            tunnel=tunnel,
        )
    inc.errors(
        "tunnel-control",
        inc.begin,
        onset,
        1.1,
        lambda r: (
            f"batch B-77{r.randint(30000, 39999)} loaded tunnel={r.choice(['LDS-T1', 'LDS-T2', 'WKF-T1'])} recipe={r.choice(['HOSP-THERMAL-71', 'HOTEL-60', 'KITCHEN-75'])} weight_kg={r.randint(420, 500) / 10}"
        ),
        level="INFO",
    )
    inc.fleet(
        tunnel_control={"err": add(step(onset, 0.0, 1.0)), "rps": times(step(onset, 1.0, 0.05))}
    )
    for tunnel in ("LDS-T1", "LDS-T2", "WKF-T1"):
        inc.metric(
            "tunnel_batches_per_hour",
            "tunnel-control",
            step(onset, 24, 0),
            labels={"tunnel": tunnel},
            jitter=0.1,
            digits=0,
        )
    inc.metric(
        "opcua_write_calls_per_batch", "tunnel-control", step(onset, 38, 1), jitter=0.0, digits=0
    )
    inc.metric("batches_waiting_on_conveyor", "tunnel-control", ramp(onset, now, 0, 90), digits=0)
    inc.alert = checkmk(
        "LDS-T1 tunnel batches/h CRIT",
        "tunnel-control",
        ts("2028-06-06T11:05"),
        "lf-lds-edge-01",
        "Tunnel LDS-T1 throughput",
        "CRIT - 0 batches in the last hour (warn/crit below 15/8)",
        "CRIT",
    )
    inc.blame(guilty, [], "tunnel-control", "configuration_error", [rc, rd, rpc, rpd, bcf], onset)
    return inc


def xt118_distance_cache_unbounded() -> ExtIncident:
    now = ts("2028-06-09T12:20")
    story = """route-planner v8.2.0 (06:08) ships two commits; one replaces the distance-matrix cache's
maximumSize(500) and 30-minute expiry with a 24-hour expiry and no size bound ('cache matrices
for the whole day'). Every optimisation adds matrices for its stop set, so the heap grows all
morning (from about 06:20), G1 full collections start at about 10:30 and at 11:38 the pods die
with OutOfMemoryError: Java heap space and restart in a loop; the route-planner error alert fires
at 11:47, five and a half hours after the failure began. Decoys: the sibling commit (load sheet
sort order), a route-planner config change of the map tiles URL at 11:15 and a customer-portal
deploy at 11:32. Category: resource_exhaustion."""
    inc = opened(
        "xt118-distance-cache-unbounded",
        "route-planner: 5xx above 20% for 5 minutes",
        story,
        now,
        LINENFOLD,
        seed=11801,
        hours=7.5,
        docs=[
            (
                "route-planner",
                """route-planner optimises each depot's routes with OptaPlanner; every run needs a
road-distance matrix for its stop set (built from the map provider, 2-40 MB each). Pods have a 3 GiB
heap (-Xmx3g). Dispatchers re-optimise routes all morning as orders change.""",
            )
        ],
        quiet_until=ts("2028-06-09T09:00"),
        quiet_services=["rfid-gateway", "tunnel-control", "chem-dosing", "billing-run"],
    )
    guilty = inc.code(
        ts("2028-06-08T16:30"),
        "route-planner",
        sub(inc, "Cache distance matrices for the whole day"),
        "src/main/java/com/linenfold/routes/distance/DistanceMatrixCache.java",
        """    private final Cache<StopSet, DistanceMatrix> cache = Caffeine.newBuilder()
        .maximumSize(500)
        .expireAfterWrite(Duration.ofMinutes(30))
        .recordStats()
        .build();""",
        """    private final Cache<StopSet, DistanceMatrix> cache = Caffeine.newBuilder()
        .expireAfterWrite(Duration.ofHours(24))
        .recordStats()
        .build();""",
        27,
        author="sunita.patel",
    )
    sib = inc.code(
        ts("2028-06-08T17:05"),
        "route-planner",
        sub(inc, "Load sheet lists carts in drop order"),
        "src/main/java/com/linenfold/routes/LoadSheet.java",
        "    carts.sort(Comparator.comparing(Cart::id));",
        "    carts.sort(Comparator.comparing(Cart::dropSequence));",
        40,
    )
    rel = inc.ship(ts("2028-06-09T06:08"), "route-planner", [guilty, sib], "v8.2.0")
    rcf = inc.config(
        ts("2028-06-09T11:15"),
        "route-planner",
        "route-planner: map tiles from tiles-v2 endpoint",
        "deploy/route-planner/application-prod.yaml",
        "maps:\n  tiles: https://maps.provider.example/tiles/v1",
        "maps:\n  tiles: https://maps.provider.example/tiles/v2",
        author="dave.hirst",
    )
    pc = inc.code(
        ts("2028-06-09T11:02"),
        "customer-portal",
        sub(inc, "Invoice page links to the route's proof of delivery"),
        "app/invoices/[id]/page.tsx",
        "  <InvoiceLines lines={invoice.lines} />",
        "  <InvoiceLines lines={invoice.lines} />\n  <PodLink routeId={invoice.routeId} />",
        51,
    )
    pd = inc.ship(ts("2028-06-09T11:32"), "customer-portal", [pc], "v3.31.0")
    onset = ts("2028-06-09T06:20")
    gc = ts("2028-06-09T10:30")
    oom = ts("2028-06-09T11:38")
    inc.errors(
        "route-planner",
        gc,
        oom,
        lambda f: 0.3 + 2 * f,
        lambda r: (
            f"[gc,heap] GC(41{r.randint(10, 99)}) Pause Full (G1 Compaction Pause) 2{r.randint(800, 999)}M->2{r.randint(700, 790)}M(3072M) {r.randint(1800, 4200)}.{r.randint(100, 999)}ms"
        ),
        level="WARNING",
    )
    trace = java_stack(
        "java.lang.OutOfMemoryError",
        "Java heap space",
        [
            ("com.linenfold.routes.distance.MatrixBuilder.build", "MatrixBuilder.java", 88),
            (
                "com.linenfold.routes.distance.DistanceMatrixCache.lambda$get$0",
                "DistanceMatrixCache.java",
                41,
            ),
            (
                "com.github.benmanes.caffeine.cache.BoundedLocalCache.lambda$doComputeIfAbsent$14",
                "BoundedLocalCache.java",
                2688,
            ),
            ("com.linenfold.routes.optimise.RouteOptimiser.optimise", "RouteOptimiser.java", 63),
            ("com.linenfold.routes.api.RoutesController.optimise", "RoutesController.java", 52),
        ],
    )
    inc.errors(
        "route-planner",
        oom,
        now,
        3,
        lambda r: r.choice(
            [
                "Servlet.service() for servlet [dispatcherServlet] threw exception java.lang.OutOfMemoryError: Java heap space",
                f"Route R-{r.choice(['LDS', 'WKF'])}-{r.randint(1, 14):02d} optimisation failed: java.lang.OutOfMemoryError: Java heap space",
                "Terminating due to java.lang.OutOfMemoryError: Java heap space (ExitOnOutOfMemoryError)",
            ]
        ),
        stack_trace=trace,
    )
    inc.fleet(
        route_planner={
            "err": add(step(oom, 0.0, 0.45)),
            "p99": add(ramp(gc, oom, 0, 7000)),
        }
    )
    inc.metric(
        "jvm_memory_used_bytes",
        "route-planner",
        ramp(onset, oom, 0.7e9, 3.2e9),
        labels={"area": "heap"},
        jitter=0.03,
        digits=0,
    )
    inc.metric("jvm_gc_pause_seconds_max", "route-planner", ramp(gc, oom, 0.05, 4.0), digits=2)
    inc.metric(
        "cache_size",
        "route-planner",
        ramp(onset, oom, 300, 2900),
        labels={"cache": "distance-matrix"},
        jitter=0.02,
        digits=0,
    )
    inc.metric(
        "kube_pod_container_status_restarts_total",
        "route-planner",
        lambda t: 0 if t < oom else 1 + (t - oom).total_seconds() // 240,
        jitter=0.0,
        digits=0,
    )
    inc.alert = alerts.grafana(
        "route-planner: 5xx above 20% for 5 minutes",
        "route-planner",
        ts("2028-06-09T11:47"),
        "critical",
        "route-planner - errors",
        "44%",
        team="logistics",
    )
    inc.blame(guilty, [rel], "route-planner", "resource_exhaustion", [sib, rcf, pc, pd], onset)
    return inc


def xt119_cart_for_deleted_ward() -> ExtIncident:
    now = ts("2028-06-13T11:40")
    story = """Harrogate General closed its ward W-17 on Friday and a customer-portal user deleted
    the ward; a clean cart still tagged for W-17 is counted at the Wakefield clean dock at 09:14
    and its cart.counts message carries "ward_id": null. par-levels' Broadway processor crashes on
    it with a FunctionClauseError in ParLevels.TopUp.compute/2, the message is never acknowledged,
    the pipeline restarts and fetches it again: partition 3 is stuck from 09:14 and its consumer
    lag grows, so no top-up order is raised for any cart on that partition (a third of the
    customers) while the other partitions flow. One poison record, no change behind it. Decoy: a
    par-levels release at 08:35 that logs top-up decisions at debug level (ParLevels.TopUp is the
    module it touched), an rfid-gateway deploy near the onset and a billing-run config change.
    The consumer-lag alert fires at 10:02. Category: data_quality."""
    inc = opened(
        "xt119-cart-for-deleted-ward",
        "KafkaConsumerLag par-levels cart.counts > 500",
        story,
        now,
        LINENFOLD,
        seed=11901,
        hours=6,
        docs=[
            (
                "par-levels",
                """par-levels consumes cart.counts (12 partitions, keyed by customer) with Broadway. For each
clean cart it looks up the ward or floor's par level and raises a top-up order for the difference.
A message is acknowledged only after its order is written; a crash restarts the pipeline from the
last acknowledged offset.""",
            )
        ],
        quiet_until=ts("2028-06-13T08:00"),
        quiet_services=["route-planner", "tunnel-control", "customer-portal"],
    )
    pc = inc.code(
        ts("2028-06-13T08:05"),
        "par-levels",
        sub(inc, "Log top-up decisions at debug level"),
        "lib/par_levels/top_up.ex",
        """  def compute(%Cart{} = cart, %Par{} = par) do
    Logger.info("top-up #{cart.id}: #{par.level - cart.items}")
    max(par.level - cart.items, 0)""",
        """  def compute(%Cart{} = cart, %Par{} = par) do
    Logger.debug("top-up #{cart.id}: #{par.level - cart.items}")
    max(par.level - cart.items, 0)""",
        14,
        author="beata.nowak",
    )
    pd = inc.ship(ts("2028-06-13T08:35"), "par-levels", [pc], "v1.19.0")
    rc = inc.code(
        ts("2028-06-13T08:40"),
        "rfid-gateway",
        sub(inc, "Count foreign tags per cart in the cart log line"),
        "internal/portal/cart.go",
        '	slog.Info("cart counted", "cart", c.ID, "items", len(c.Items))',
        '	slog.Info("cart counted", "cart", c.ID, "items", len(c.Items), "foreign", c.Foreign)',
        77,
    )
    rd = inc.ship(ts("2028-06-13T09:02"), "rfid-gateway", [rc], "v2.15.0")
    bc = inc.config(
        ts("2028-06-13T10:20"),
        "billing-run",
        "billing-run: include WKF in the hourly run",
        "deploy/billing-run/appsettings.Production.json",
        '"Plants": ["LDS"]',
        '"Plants": ["LDS", "WKF"]',
        author="dave.hirst",
    )
    onset = ts("2028-06-13T09:14")
    inc.log(
        ts("2028-06-13T09:14:05"),
        "rfid-gateway",
        "INFO",
        'level=info msg="cart counted" portal=WKF-CLEAN-1 cart=C-20412 items=168 reads=1544 dur=3.9s customer=CU-118 ward=""',
    )
    inc.quiet("par-levels", onset, ["counted for"])
    trace = """** (FunctionClauseError) no function clause matching in ParLevels.TopUp.compute/2

    The following arguments were given to ParLevels.TopUp.compute/2:

        # 1
        %ParLevels.Cart{id: "C-20412", customer_id: "CU-118", ward_id: nil, items: 168}

        # 2
        nil

    Attempted function clauses (showing 1 out of 1):

        def compute(%ParLevels.Cart{} = cart, %ParLevels.Par{} = par)

    (par_levels 1.19.0) lib/par_levels/top_up.ex:13: ParLevels.TopUp.compute/2
    (par_levels 1.19.0) lib/par_levels/pipeline.ex:41: ParLevels.Pipeline.handle_message/3
    (broadway 1.0.7) lib/broadway/topology/processor_stage.ex:168: Broadway.Topology.ProcessorStage.handle_messages/4"""
    inc.errors(
        "par-levels",
        onset,
        now,
        0.45,
        lambda r: (
            "[error] GenServer ParLevels.Pipeline.Broadway.Processor_default_3 terminating: ** (FunctionClauseError) no function clause matching in ParLevels.TopUp.compute/2 (message cart=C-20412 partition=3 offset=4418210)"
        ),
        exception=trace,
        partition=3,
        offset=4418210,
    )
    inc.errors(
        "par-levels",
        onset,
        now,
        0.45,
        lambda r: (
            "[info] Broadway pipeline ParLevels.Pipeline restarted processor 3; resuming cart.counts partition 3 at offset 4418210"
        ),
        level="INFO",
    )
    inc.errors(
        "par-levels",
        inc.begin,
        now,
        0.9,
        lambda r: (
            f"[info] cart C-{r.randint(20000, 29999)} counted for {r.choice(['St Aidan', 'Pinderfields', 'Premier Inn Leeds City', 'Hilton Leeds'])} ward W-{r.randint(1, 30):02d}: {r.randint(150, 200)} items, par 180, top-up {r.randint(0, 30)} (partition {r.choice([0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11])})"
        ),
        level="INFO",
    )
    inc.fleet(par_levels={"err": add(step(onset, 0.0, 0.3)), "rps": times(step(onset, 1.0, 0.9))})
    for part in (2, 3, 4):
        lag = ramp(onset, now, 3, 1400) if part == 3 else (lambda t: 3)
        inc.metric(
            "kafka_consumergroup_lag",
            "par-levels",
            lag,
            labels={"topic": "cart.counts", "partition": str(part)},
            jitter=0.1,
            digits=0,
        )
    inc.metric("topup_orders_per_hour", "par-levels", step(onset, 90, 60), digits=0)
    inc.alert = alerts.alertmanager(
        "KafkaConsumerLag",
        "par-levels",
        ts("2028-06-13T10:02"),
        "warning",
        "par-levels is 512 messages behind on cart.counts",
        "Consumer group par-levels lag on cart.counts above 500 for 10 minutes (partition 3).",
        'sum by (partition) (kafka_consumergroup_lag{group="par-levels",topic="cart.counts"}) > 500',
        team="customer",
    )
    inc.outside(
        "a cart.counts record for a deleted ward (ward_id null) redelivered forever",
        "par-levels",
        "data_quality",
        [pc, pd, rc, rd, bc],
        onset,
    )
    return inc


def xt120_edge_ssd_readonly() -> ExtIncident:
    now = ts("2028-06-16T15:50")
    story = """The NVMe drive of lf-lds-edge-02 (the Leeds edge server that runs tunnel LDS-T2's
    tunnel-control and chem-dosing pods) starts failing at 14:31: the kernel logs I/O errors and
    ext4 remounts /var/lib read-only. tunnel-control on that node can no longer journal batches
    (OSError: [Errno 30] Read-only file system) and holds every LDS-T2 batch; LDS-T1 and WKF-T1,
    on other nodes and running the same version, keep washing. The alert (Checkmk, LDS-T2 batches
    per hour) fires at 15:12. Decoy: a tunnel-control release at 14:09 that keeps 7 days of
    batch journals instead of 3 (the journal is the file that fails to open), a route-planner
    deploy and a customer-portal config change. Category: infrastructure."""
    inc = opened(
        "xt120-edge-ssd-readonly",
        "LDS-T2 tunnel batches/h CRIT",
        story,
        now,
        LINENFOLD,
        seed=12001,
        hours=6,
        docs=[
            (
                "Plant edge servers",
                """Each tunnel's tunnel-control and chem-dosing pods run on one of the plant's k3s edge servers
(lf-lds-edge-01: LDS-T1, lf-lds-edge-02: LDS-T2, lf-wkf-edge-01: WKF-T1), pinned by node affinity to
the server wired to the tunnel's PLC. tunnel-control journals each batch to
/var/lib/tunnel-control/journal before writing the recipe; without the journal it holds the batch.""",
            )
        ],
        quiet_until=ts("2028-06-16T13:30"),
        quiet_services=["billing-run", "par-levels", "rfid-gateway"],
    )
    tc = inc.code(
        ts("2028-06-16T13:40"),
        "tunnel-control",
        sub(inc, "Keep 7 days of batch journals"),
        "tunnel_control/journal.py",
        "JOURNAL_DIR = Path('/var/lib/tunnel-control/journal')\nKEEP_DAYS = 3",
        "JOURNAL_DIR = Path('/var/lib/tunnel-control/journal')\nKEEP_DAYS = 7",
        9,
        author="beata.nowak",
    )
    td = inc.ship(ts("2028-06-16T14:09"), "tunnel-control", [tc], "v6.4.0")
    rc = inc.code(
        ts("2028-06-16T13:55"),
        "route-planner",
        sub(inc, "Skip closed care homes when optimising"),
        "src/main/java/com/linenfold/routes/optimise/StopFilter.java",
        "    return stops;",
        "    return stops.stream().filter(s -> !s.customer().closed()).toList();",
        19,
    )
    rd = inc.ship(ts("2028-06-16T14:25"), "route-planner", [rc], "v8.3.0")
    cc = inc.config(
        ts("2028-06-16T15:00"),
        "customer-portal",
        "customer-portal: session lifetime 8h -> 12h",
        "deploy/customer-portal/values-prod.yaml",
        "session:\n  maxAgeHours: 8",
        "session:\n  maxAgeHours: 12",
        author="gareth.lowe",
    )
    onset = ts("2028-06-16T14:31")
    node = "lf-lds-edge-02"
    for i, (t, msg) in enumerate(
        [
            ("14:31:02", "nvme nvme0: I/O 388 QID 3 timeout, aborting"),
            (
                "14:31:33",
                "blk_update_request: I/O error, dev nvme0n1, sector 412880112 op 0x1:(WRITE) flags 0x800 phys_seg 1 prio class 0",
            ),
            (
                "14:31:33",
                "EXT4-fs error (device nvme0n1p3): ext4_journal_check_start:83: comm tunnel-control: Detected aborted journal",
            ),
            ("14:31:34", "EXT4-fs (nvme0n1p3): Remounting filesystem read-only"),
        ]
    ):
        inc.log(
            ts(f"2028-06-16T{t}"),
            node,
            "CRITICAL" if i >= 2 else "ERROR",
            f"kernel: {msg}",
            host=node,
            facility="kern",
        )
    inc.errors(
        node,
        ts("2028-06-16T14:35"),
        now,
        0.1,
        lambda r: (
            f"k3s[812]: kubelet: eviction manager: failed to write pod status checkpoint: open /var/lib/rancher/k3s/agent/pod-manifests/.tmp{r.randint(100, 999)}: read-only file system"
        ),
        host=node,
    )
    trace = py_stack(
        "OSError",
        "[Errno 30] Read-only file system: '/var/lib/tunnel-control/journal/B-7790213.json'",
        [
            ("/app/tunnel_control/batches.py", 104, "load", "self.journal.record(batch)"),
            (
                "/app/tunnel_control/journal.py",
                31,
                "record",
                "with open(self._path(batch), 'w') as f:",
            ),
        ],
    )
    inc.errors(
        "tunnel-control",
        onset + MINUTE,
        now,
        0.45,
        lambda r: (
            f"batch B-779{r.randint(1000, 9999)} held on LDS-T2: cannot journal batch: [Errno 30] Read-only file system"
        ),
        exc_info=trace,
        tunnel="LDS-T2",
        node=node,
    )
    inc.errors(
        "tunnel-control",
        inc.begin,
        now,
        0.8,
        lambda r: (
            f"batch B-779{r.randint(1000, 9999)} loaded tunnel={r.choice(['LDS-T1', 'WKF-T1'])} recipe={r.choice(['HOSP-THERMAL-71', 'HOTEL-60'])} weight_kg={r.randint(420, 500) / 10}"
        ),
        level="INFO",
    )
    inc.errors(
        "chem-dosing",
        onset + 2 * MINUTE,
        now,
        0.1,
        lambda r: (
            "ERROR chem_dosing::log: cannot append dosing log /var/lib/chem-dosing/LDS-T2.log: Read-only file system (os error 30)"
        ),
        node=node,
    )
    inc.fleet(tunnel_control={"err": add(step(onset, 0.0, 0.33))})
    for tunnel, edge in (
        ("LDS-T1", "lf-lds-edge-01"),
        ("LDS-T2", node),
        ("WKF-T1", "lf-wkf-edge-01"),
    ):
        inc.metric(
            "tunnel_batches_per_hour",
            "tunnel-control",
            step(onset, 24, 0) if tunnel == "LDS-T2" else (lambda t: 24),
            labels={"tunnel": tunnel, "node": edge},
            jitter=0.1,
            digits=0,
        )
        inc.metric(
            "node_filesystem_readonly",
            edge,
            step(onset, 0, 1) if edge == node else (lambda t: 0),
            labels={"mountpoint": "/var/lib"},
            jitter=0.0,
            digits=0,
        )
    inc.metric(
        "node_disk_io_errors_total",
        node,
        counter(step(onset, 0, 0.02), inc.begin),
        labels={"device": "nvme0n1"},
        jitter=0.0,
        digits=0,
    )
    inc.alert = checkmk(
        "LDS-T2 tunnel batches/h CRIT",
        "tunnel-control",
        ts("2028-06-16T15:12"),
        node,
        "Tunnel LDS-T2 throughput",
        "CRIT - 0 batches since about 14:31 (warn/crit below 15/8)",
        "CRIT",
    )
    inc.outside(
        "NVMe drive failure on edge server lf-lds-edge-02 (filesystem remounted read-only)",
        "tunnel-control",
        "infrastructure",
        [tc, td, rc, rd, cc],
        onset,
    )
    return inc


TUNE = [
    xt109_hl7_timestamp_offset,
    xt110_chirrup_batch_size,
    xt111_pm_units_integer_division,
    xt112_corralis_dispatch_outage,
    xt113_furlong_certificate_expired,
    xt114_pacs_maintenance_backlog,
    xt115_booking_timeouts_unexplained,
    xt116_rfid_dedupe_prefix,
    xt117_opcua_batch_write_flag,
    xt118_distance_cache_unbounded,
    xt119_cart_for_deleted_ward,
    xt120_edge_ssd_readonly,
]
