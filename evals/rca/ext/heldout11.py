"""HELD-OUT split, eleventh examiner: Liftwright Elevator Services (lift maintenance and remote
monitoring) and Ketterbrook Brewing Co. (a brewery with taprooms, trade and online sales),
incidents ``xh67``-``xh78``. Written without opening the engine or the agents, and never scored by
their examiner; never opened while tuning the engine. The companies are in `ext/companies.py`;
`ext_build.py` appends ``HELDOUT`` to the held-out split after `ext/heldout10.py`'s."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from evals.rca import alerts
from evals.rca.ext.base import (
    MINUTE,
    ExtIncident,
    add,
    go_stack,
    java_stack,
    py_stack,
    ramp,
    step,
    times,
)
from evals.rca.ext.companies import KETTERBROOK, LIFTWRIGHT
from evals.rca.ext.tune9 import counter
from evals.rca.ext.tune11 import floor_, newrelic, oncall, opened, sub
from evals.rca.kit import ts

# --- Liftwright Elevator Services -------------------------------------------------------------------

_ALARM_DOC = (
    "Entrapment alarms",
    """A passenger pressing the alarm button, or a controller reporting a car stopped between floors
with the doors shut, opens an alarm in entrapment-line. entrapment-line routes the voice call within
15 s: in office hours to the building's own contact if the building has one, otherwise (and out of
hours, in the building's local time) to Liftwright's 24/7 rescue desk. An alarm that cannot be
routed is an emergency: the passenger hears nothing. Controllers whose uplink fails buffer frames
for 6 hours; an alarm pressed while offline reaches us only through the car's autodialler.""",
)


def xh67_out_of_hours_null_timezone() -> ExtIncident:
    now = ts("2028-07-04T19:30")
    story = """entrapment-line v7.3.0 (16:22) ships two commits; one routes out-of-hours alarms by
    the building's local time with ZoneId.of(building.getTimezone()). 1,100 buildings imported
    from the 2019 acquisition have no timezone, so every alarm in one of them throws
    NullPointerException in CallRouter.isOutOfHours and is left unrouted (the alarm stays OPEN,
    no call placed); alarms in other buildings route as before. The first failure is at 16:31, the
    alert (Splunk On-Call, unrouted alarms) at 17:02. Decoys: a telemetry-ingest deploy at 16:10
    that maps fault 0x2F (door reversal) to 'entrapment suspected' and so changes what opens
    alarms (shares the words), the sibling commit (alarm DTO field), a dispatch config change.
    Category: code_defect."""
    inc = opened(
        "xh67-out-of-hours-null-timezone",
        "Unrouted entrapment alarms (3 in 30 min)",
        story,
        now,
        LIFTWRIGHT,
        seed=16701,
        hours=6,
        docs=[_ALARM_DOC],
        quiet_until=ts("2028-07-04T15:30"),
        quiet_services=["work-orders", "parts-stock", "owner-portal"],
    )
    guilty = inc.code(
        ts("2028-07-04T11:20"),
        "entrapment-line",
        sub(inc, "Route out-of-hours alarms by the building's local time"),
        "src/main/java/com/liftwright/rescue/routing/CallRouter.java",
        """    boolean isOutOfHours(Building building, Instant at) {
        LocalTime local = at.atZone(ZoneId.of("Europe/London")).toLocalTime();
        return local.isBefore(OFFICE_OPEN) || local.isAfter(OFFICE_CLOSE);
    }""",
        """    boolean isOutOfHours(Building building, Instant at) {
        LocalTime local = at.atZone(ZoneId.of(building.getTimezone())).toLocalTime();
        return local.isBefore(OFFICE_OPEN) || local.isAfter(OFFICE_CLOSE);
    }""",
        74,
        author="helga.sorensen",
    )
    sib = inc.code(
        ts("2028-07-04T12:05"),
        "entrapment-line",
        sub(inc, "Alarm DTO carries the car's last floor"),
        "src/main/java/com/liftwright/rescue/api/AlarmDto.java",
        "public record AlarmDto(String id, String liftId, Instant openedAt) {}",
        "public record AlarmDto(String id, String liftId, Instant openedAt, Integer lastFloor) {}",
        8,
    )
    rel = inc.ship(ts("2028-07-04T16:22"), "entrapment-line", [guilty, sib], "v7.3.0")
    tc = inc.code(
        ts("2028-07-04T15:40"),
        "telemetry-ingest",
        sub(
            inc,
            "Map fault 0x2F door reversal to entrapment suspected when the car is between floors",
        ),
        "internal/faults/map.go",
        '\t0x2F: {Name: "door reversal", Severity: SevInfo},',
        '\t0x2F: {Name: "door reversal", Severity: SevInfo, EntrapmentIfBetweenFloors: true},',
        40,
        author="c.oyelaran",
    )
    td = inc.ship(ts("2028-07-04T16:10"), "telemetry-ingest", [tc], "v11.8.0")
    dcf = inc.config(
        ts("2028-07-04T17:10"),
        "dispatch",
        "dispatch: rescue jobs search radius 25 -> 30 km",
        "deploy/dispatch/values-prod.yaml",
        "assign:\n  rescueRadiusKm: 25",
        "assign:\n  rescueRadiusKm: 30",
        author="pete.marsh",
    )
    onset = ts("2028-07-04T16:31")
    trace = java_stack(
        "java.lang.NullPointerException",
        "zoneId",
        [
            ("java.base/java.util.Objects.requireNonNull", "Objects.java", 259),
            ("java.base/java.time.ZoneId.of", "ZoneId.java", 406),
            ("com.liftwright.rescue.routing.CallRouter.isOutOfHours", "CallRouter.java", 75),
            ("com.liftwright.rescue.routing.CallRouter.route", "CallRouter.java", 51),
            ("com.liftwright.rescue.alarm.AlarmService.open", "AlarmService.java", 88),
            ("com.liftwright.rescue.api.AlarmController.create", "AlarmController.java", 42),
        ],
    )
    legacy = ["B-0931", "B-1177", "B-0402", "B-1288", "B-0815"]
    inc.errors(
        "entrapment-line",
        onset,
        now,
        0.18,
        lambda r: (
            f"Alarm A-55{r.randint(3000, 3999)} for lift L-{r.randint(10000, 99999)} (building {r.choice(legacy)}) not routed: java.lang.NullPointerException: zoneId"
        ),
        stack_trace=trace,
        logger="c.l.rescue.routing.CallRouter",
    )
    inc.errors(
        "entrapment-line",
        inc.begin,
        now,
        0.3,
        lambda r: (
            f"Alarm A-55{r.randint(3000, 3999)} routed to {r.choice(['RESCUE_DESK', 'BUILDING_CONTACT'])} in {r.randint(3, 11)}s"
        ),
        level="INFO",
    )
    inc.log(
        ts("2028-07-04T16:22:40"),
        "entrapment-line",
        "INFO",
        "Started EntrapmentLineApplication in 14.2 seconds (process running for 15.0) version=7.3.0",
    )
    inc.fleet(entrapment_line={"err": add(step(onset, 0.0, 0.35))})
    inc.metric(
        "alarms_unrouted",
        "entrapment-line",
        lambda t: 0 if t < onset else min(9, 1 + (t - onset).total_seconds() // 900),
        jitter=0.0,
        digits=0,
    )
    inc.metric("alarms_opened_per_hour", "entrapment-line", lambda t: 19, jitter=0.2, digits=0)
    inc.alert = oncall(
        "Unrouted entrapment alarms (3 in 30 min)",
        "entrapment-line",
        ts("2028-07-04T17:02"),
        "critical",
        "entrapment-line/unrouted",
        "3 alarms OPEN without a routed call for more than 60 s in the last 30 minutes.",
    )
    inc.blame(guilty, [rel], "entrapment-line", "code_defect", [sib, tc, td, dcf], onset)
    return inc


def xh68_firmware_wave_rev_b() -> ExtIncident:
    now = ts("2028-07-11T16:40")
    story = """A firmware-rollout configuration change at 13:30 adds hardware revision B to wave
    W-2028-15 (KX-300, firmware 4.9.2). Rev B controllers have 4 MB of flash and the 4.9.2 image is
    4.6 MB: they flash it, fail the image check on boot, have no valid fallback slot and stop
    reporting. From 13:42, as the wave reaches them, KX-300 rev B controllers go silent in the
    hundreds; revs C and D and KX-500 update fine. Few error lines: the failure is in the offline
    count and the wave's install results. The alert, Alertmanager on offline controllers, says
    'since about 13:45' and fires at 14:20. Decoys: a telemetry-ingest deploy at 13:38 that
    changes frame compression to TimescaleDB, an owner-portal deploy showing the offline reason,
    a dispatch deploy. Category: configuration_error."""
    inc = opened(
        "xh68-firmware-wave-rev-b",
        "ControllersOffline: 1,030 controllers offline (baseline ~90)",
        story,
        now,
        LIFTWRIGHT,
        seed=16801,
        hours=6,
        docs=[
            (
                "Firmware waves",
                """firmware-rollout updates controllers in waves, each a model, a list of hardware revisions and
a firmware version, 50 controllers a minute. KX-300 rev B (2014-2016, 2,100 units) has 4 MB of flash
and runs firmware up to 4.8.x only; revs C and D have 8 MB. A controller reports install results
(INSTALLED, VERIFY_FAILED, ROLLED_BACK) after reboot, if it comes back.""",
            )
        ],
        quiet_until=ts("2028-07-11T12:30"),
        quiet_services=["work-orders", "parts-stock", "entrapment-line"],
    )
    guilty = inc.config(
        ts("2028-07-11T13:30"),
        "firmware-rollout",
        "firmware-rollout: W-2028-15 covers the remaining KX-300 revisions",
        "waves/2028-15.toml",
        '[wave]\nid = "W-2028-15"\nmodel = "KX-300"\nhardware_revs = ["C", "D"]\nfirmware = "4.9.2"\nrate_per_minute = 50',
        '[wave]\nid = "W-2028-15"\nmodel = "KX-300"\nhardware_revs = ["B", "C", "D"]\nfirmware = "4.9.2"\nrate_per_minute = 50',
        author="yuki.tan",
    )
    tc = inc.code(
        ts("2028-07-11T13:02"),
        "telemetry-ingest",
        sub(inc, "Enable compression on the frames hypertable"),
        "migrations/0042_frames_compression.sql",
        "-- frames: no compression",
        "ALTER TABLE frames SET (timescaledb.compress, timescaledb.compress_segmentby = 'controller_id');\nSELECT add_compression_policy('frames', INTERVAL '7 days');",
        1,
    )
    td = inc.ship(ts("2028-07-11T13:38"), "telemetry-ingest", [tc], "v11.9.0")
    oc = inc.code(
        ts("2028-07-11T13:10"),
        "owner-portal",
        sub(inc, "Lift page shows why a controller is offline"),
        "app/buildings/[id]/lifts/LiftCard.tsx",
        "  {lift.online ? <Online /> : <Offline />}",
        "  {lift.online ? <Online /> : <Offline reason={lift.offlineReason} />}",
        22,
    )
    od = inc.ship(ts("2028-07-11T14:05"), "owner-portal", [oc], "v6.2.0")
    dc = inc.code(
        ts("2028-07-11T14:20"),
        "dispatch",
        sub(inc, "ETA uses live traffic when available"),
        "dispatch/eta.py",
        "    return distance_km / AVG_SPEED_KMH * 60",
        "    return traffic.minutes(origin, dest) or distance_km / AVG_SPEED_KMH * 60",
        17,
    )
    dd = inc.ship(ts("2028-07-11T14:40"), "dispatch", [dc], "v4.13.0")
    onset = ts("2028-07-11T13:42")
    inc.quiet("telemetry-ingest", onset, ["heartbeats"])

    def online(t: datetime) -> float:
        return 9214 - min(940, max(0.0, (t - onset).total_seconds() / 60 * 17))

    inc.errors(
        "firmware-rollout",
        inc.begin,
        now,
        0.8,
        lambda r: (
            f"INFO firmware_rollout: controller KX3-{r.randint(100000, 199999)} rev {r.choice(['C', 'D'])} INSTALLED 4.9.2 in {r.randint(140, 260)}s"
        ),
        level="INFO",
    )
    inc.errors(
        "firmware-rollout",
        onset,
        ts("2028-07-11T14:40"),
        2.0,
        lambda r: (
            f"WARN firmware_rollout: controller KX3-{r.randint(100000, 199999)} rev B did not report after install of 4.9.2 (timeout 600s), wave W-2028-15"
        ),
        level="WARNING",
    )
    inc.errors(
        "firmware-rollout",
        onset + 5 * MINUTE,
        ts("2028-07-11T14:40"),
        0.3,
        lambda r: (
            f"ERROR firmware_rollout: controller KX3-{r.randint(100000, 199999)} rev B reported VERIFY_FAILED (image 4718592 bytes > flash slot 4194304), no valid fallback slot"
        ),
    )
    inc.errors(
        "telemetry-ingest",
        onset,
        now,
        lambda f: 2.0 if f < 0.3 else 0.4,
        lambda r: (
            f'level=WARN msg="controller went silent" controller=KX3-{r.randint(100000, 199999)} model=KX-300 last_frame_age=5m firmware=4.9.2'
        ),
        level="WARNING",
    )
    inc.burst(
        "telemetry-ingest",
        inc.begin,
        now,
        0.2,
        lambda r, t: (
            "INFO",
            f'level=INFO msg="heartbeats" online={int(online(t))} offline={9300 - int(online(t))}',
            {},
        ),
    )
    inc.fleet(telemetry_ingest={"rps": times(lambda t: online(t) / 9214)})
    inc.metric(
        "controllers_online",
        "telemetry-ingest",
        online,
        labels={"fleet": "all"},
        jitter=0.002,
        digits=0,
    )
    inc.metric(
        "controllers_offline",
        "telemetry-ingest",
        lambda t: 9300 - online(t),
        labels={"model": "KX-300", "hardware_rev": "B"},
        jitter=0.01,
        digits=0,
    )
    inc.metric(
        "firmware_installs_per_minute",
        "firmware-rollout",
        step(onset, 6, 15, ts("2028-07-11T14:40")),
        labels={"result": "INSTALLED"},
        digits=0,
    )
    inc.metric(
        "firmware_installs_per_minute",
        "firmware-rollout",
        step(onset, 0, 0.3, ts("2028-07-11T14:40")),
        labels={"result": "VERIFY_FAILED"},
        digits=1,
    )
    inc.alert = alerts.alertmanager(
        "ControllersOffline",
        "telemetry-ingest",
        ts("2028-07-11T14:20"),
        "critical",
        "1,030 controllers offline (baseline ~90)",
        "Controllers without a heartbeat for 5 minutes: 1030, rising since about 13:45.",
        "sum(controllers_offline) > 400",
        team="connected-lifts",
    )
    inc.blame(
        guilty, [], "firmware-rollout", "configuration_error", [tc, td, oc, od, dc, dd], onset
    )
    return inc


def xh69_location_history_connection_leak() -> ExtIncident:
    now = ts("2028-07-18T10:40")
    story = """dispatch v4.14.0 (07:40) bundles three commits; one records each technician location
    update in a history table from a background task with conn = engine.connect() and never closes
    it, so every update leaks a pooled connection until garbage collection gets to it, slower than
    the 400 updates a minute. Pool checkouts climb from 07:41 and at about 09:48 the pool (10 +
    overflow 20) is exhausted: requests wait 30 s and fail with sqlalchemy.exc.TimeoutError
    (QueuePool limit ... reached), breakdown and rescue jobs stop being assigned. The alert (New
    Relic, dispatch p99) fires at 10:01, more than two hours after the onset. Decoys: the two
    sibling commits (ETA rounding, job list pagination), a parts-stock deploy at 09:30 that also
    mentions reservations per technician, a work-orders config change. Category:
    resource_exhaustion."""
    inc = opened(
        "xh69-location-history-connection-leak",
        "dispatch: p99 response time above 5 s",
        story,
        now,
        LIFTWRIGHT,
        seed=16901,
        hours=5,
        docs=[
            (
                "dispatch",
                """dispatch runs 4 uvicorn workers per pod, 3 pods; each worker has a SQLAlchemy QueuePool of
10 connections with 20 overflow and a 30 s checkout timeout against PostgreSQL lwdb. Technicians'
vans send a location every 30 s (about 400 updates a minute in the day).""",
            )
        ],
        quiet_until=ts("2028-07-18T07:00"),
        quiet_services=["telemetry-ingest", "owner-portal", "firmware-rollout"],
    )
    guilty = inc.code(
        ts("2028-07-17T15:10"),
        "dispatch",
        sub(inc, "Record technician location history"),
        "dispatch/locations.py",
        """async def update_location(tech_id: str, loc: Location) -> None:
    async with session_scope() as s:
        await s.execute(update(Technician).where(Technician.id == tech_id).values(lat=loc.lat, lon=loc.lon))""",
        """async def update_location(tech_id: str, loc: Location) -> None:
    async with session_scope() as s:
        await s.execute(update(Technician).where(Technician.id == tech_id).values(lat=loc.lat, lon=loc.lon))
    background.add(_record_history(tech_id, loc))


async def _record_history(tech_id: str, loc: Location) -> None:
    conn = await engine.connect()
    await conn.execute(insert(LocationHistory).values(tech_id=tech_id, lat=loc.lat, lon=loc.lon, at=utcnow()))
    await conn.commit()""",
        22,
        author="ines.carvalho",
    )
    s1 = inc.code(
        ts("2028-07-17T16:00"),
        "dispatch",
        sub(inc, "Round ETAs to 5 minutes for customers"),
        "dispatch/eta.py",
        "    return minutes",
        "    return 5 * math.ceil(minutes / 5)",
        30,
    )
    s2 = inc.code(
        ts("2028-07-17T16:40"),
        "dispatch",
        sub(inc, "Paginate the open jobs list"),
        "dispatch/api/jobs.py",
        "    return await repo.open_jobs()",
        "    return await repo.open_jobs(limit=limit, offset=offset)",
        45,
    )
    rel = inc.ship(ts("2028-07-18T07:40"), "dispatch", [guilty, s1, s2], "v4.14.0")
    pc = inc.code(
        ts("2028-07-18T09:05"),
        "parts-stock",
        sub(inc, "Reservations per technician van"),
        "src/PartsStock/Reservations/ReservationService.cs",
        "    var reservation = new Reservation(sku, jobId);",
        "    var reservation = new Reservation(sku, jobId, technicianId);",
        28,
    )
    pd = inc.ship(ts("2028-07-18T09:30"), "parts-stock", [pc], "v3.7.0")
    wcf = inc.config(
        ts("2028-07-18T10:10"),
        "work-orders",
        "work-orders: LOLER reminder 30 -> 45 days ahead",
        "deploy/work-orders/config/settings.yml",
        "loler:\n  remind_days_ahead: 30",
        "loler:\n  remind_days_ahead: 45",
        author="pete.marsh",
    )
    onset = ts("2028-07-18T07:41")
    full = ts("2028-07-18T09:48")
    trace = py_stack(
        "sqlalchemy.exc.TimeoutError",
        "QueuePool limit of size 10 overflow 20 reached, connection timed out, timeout 30.00 (Background on this error at: https://sqlalche.me/e/20/3o7r)",
        [
            ("/app/dispatch/api/jobs.py", 61, "assign_job", "async with session_scope() as s:"),
            ("/app/dispatch/db.py", 34, "session_scope", "await session.connection()"),
            (
                "/usr/local/lib/python3.12/site-packages/sqlalchemy/pool/impl.py",
                157,
                "_do_get",
                "raise exc.TimeoutError(",
            ),
        ],
    )
    inc.errors(
        "dispatch",
        full,
        now,
        4,
        lambda r: (
            f"ERROR dispatch.api: {r.choice(['POST /jobs/{id}/assign', 'PUT /technicians/{id}/location', 'GET /jobs/{id}/eta'])} failed: QueuePool limit of size 10 overflow 20 reached, connection timed out, timeout 30.00"
        ),
        exc_info=trace,
    )
    inc.errors(
        "dispatch",
        ts("2028-07-18T09:20"),
        now,
        0.3,
        lambda r: (
            f"WARNING sqlalchemy.pool.impl.AsyncAdaptedQueuePool: connection checked out for {r.randint(600, 6000)}s was garbage collected without being returned to the pool"
        ),
        level="WARNING",
    )
    inc.errors(
        "entrapment-line",
        full + 6 * MINUTE,
        now,
        0.15,
        lambda r: (
            f"Rescue job for alarm A-55{r.randint(4000, 4999)} not assigned within 120s: dispatch returned 503"
        ),
        level="WARNING",
    )
    inc.fleet(
        dispatch={
            "err": add(step(full, 0.0, 0.4)),
            "p99": add(ramp(ts("2028-07-18T09:30"), full, 0, 29000)),
        }
    )
    inc.metric(
        "db_pool_checked_out",
        "dispatch",
        ramp(onset, full, 4, 30),
        labels={"pool": "lwdb"},
        jitter=0.03,
        digits=0,
    )
    inc.metric(
        "pg_stat_activity_count",
        "lwdb",
        ramp(onset, full, 60, 360),
        labels={"state": "idle"},
        jitter=0.05,
        digits=0,
    )
    inc.metric("jobs_assigned_per_hour", "dispatch", step(full, 70, 9), jitter=0.15, digits=0)
    inc.alert = newrelic(
        "dispatch: p99 response time above 5 s",
        "dispatch",
        ts("2028-07-18T10:01"),
        "critical",
        "Field Service",
        "dispatch p99",
        "SELECT percentile(duration, 99) FROM Transaction WHERE appName = 'dispatch' SINCE 10 minutes ago",
        29.6,
        5,
    )
    inc.blame(guilty, [rel], "dispatch", "resource_exhaustion", [s1, s2, pc, pd, wcf], onset)
    return inc


def xh70_tellicore_apn_outage() -> ExtIncident:
    now = ts("2028-07-22T06:10")
    story = """Tellicore IoT's private APN stops establishing data sessions in northern England at
    04:12 (their notices, in ISO 8601, at 04:40 and 05:25: a failed core-network change on their
    packet gateway). 3,400 controllers on Tellicore SIMs in the North lose their uplink within
    minutes: the MQTT broker sees their keepalives time out and they go offline; controllers in
    the South and those on the backup carrier keep reporting. Entrapment alarms from the affected
    lifts now arrive only through autodiallers. Decoy: a telemetry-ingest release at 03:55 that
    shortens the MQTT keepalive from 60 s to 30 s (the disconnect lines say 'keepalive timeout'),
    but the controllers that keep working run with it too; a firmware-rollout config change and a
    work-orders deploy. Alert: Alertmanager on offline controllers at 04:31. Category:
    dependency_failure."""
    inc = opened(
        "xh70-tellicore-apn-outage",
        "ControllersOffline: 3,512 controllers offline",
        story,
        now,
        LIFTWRIGHT,
        seed=17001,
        hours=6,
        docs=[
            (
                "Tellicore IoT status - Private APN (UK North)",
                """2028-07-22T04:40:00Z Investigating - Customers on private APNs may be unable to establish new data
sessions in northern England and Scotland. Existing sessions may drop.
2028-07-22T05:25:00Z Identified - A configuration change on a packet gateway in our Manchester core
has been identified as the cause. We are rolling it back; sessions will re-establish automatically.""",
            ),
            (
                "Controller connectivity",
                """Controllers connect to mqtt.liftwright.example over an IoT SIM: Tellicore (primary, 78% of
the fleet) or Northbeam (backup carrier, fitted to newer KX-500 units). A controller that loses its
uplink buffers frames for 6 hours and reconnects on its own.""",
            ),
        ],
        quiet_until=ts("2028-07-22T03:00"),
        quiet_services=["owner-portal", "parts-stock", "dispatch"],
    )
    tc = inc.code(
        ts("2028-07-22T03:21"),
        "telemetry-ingest",
        sub(inc, "MQTT keepalive 30 s so dead controllers are noticed sooner"),
        "internal/broker/config.go",
        "const keepAlive = 60 * time.Second",
        "const keepAlive = 30 * time.Second",
        18,
        author="c.oyelaran",
    )
    td = inc.ship(ts("2028-07-22T03:55"), "telemetry-ingest", [tc], "v11.10.0")
    fcf = inc.config(
        ts("2028-07-22T04:45"),
        "firmware-rollout",
        "firmware-rollout: pause waves during the night window",
        "waves/schedule.toml",
        "[schedule]\nquiet_hours = []",
        '[schedule]\nquiet_hours = ["00:00-06:00"]',
        author="yuki.tan",
    )
    wc = inc.code(
        ts("2028-07-22T03:05"),
        "work-orders",
        sub(inc, "LOLER reports list the examiner's licence number"),
        "app/views/inspections/report.pdf.erb",
        "<p>Examiner: <%= @inspection.examiner.name %></p>",
        "<p>Examiner: <%= @inspection.examiner.name %> (<%= @inspection.examiner.licence %>)</p>",
        12,
    )
    wd = inc.ship(ts("2028-07-22T03:30"), "work-orders", [wc], "v2.40.0")
    onset = ts("2028-07-22T04:12")
    inc.quiet("telemetry-ingest", onset, ["heartbeats"])
    inc.errors(
        "telemetry-ingest",
        onset,
        ts("2028-07-22T04:30"),
        14,
        lambda r: (
            f'level=WARN msg="client disconnected" client=KX{r.choice(["3", "5"])}-{r.randint(100000, 299999)} reason="keepalive timeout" carrier=tellicore region={r.choice(["NW", "NE", "YH", "SCO"])}'
        ),
        level="WARNING",
    )
    inc.errors(
        "telemetry-ingest",
        onset + 8 * MINUTE,
        now,
        0.2,
        lambda r: (
            f'level=ERROR msg="region offline ratio above 40%" region={r.choice(["NW", "NE", "YH", "SCO"])} carrier=tellicore offline={r.randint(700, 1100)}'
        ),
    )
    inc.errors(
        "telemetry-ingest",
        inc.begin,
        now,
        0.7,
        lambda r: (
            f'level=INFO msg="client connected" client=KX{r.choice(["3", "5"])}-{r.randint(100000, 299999)} carrier={r.choice(["tellicore", "northbeam"])} region={r.choice(["LDN", "SE", "SW", "WM"])}'
        ),
        level="INFO",
    )
    inc.errors(
        "entrapment-line",
        ts("2028-07-22T05:02"),
        now,
        0.05,
        lambda r: (
            f"Alarm A-55{r.randint(5000, 5999)} opened by autodialler call from lift L-{r.randint(10000, 99999)}; controller offline since 04:1{r.randint(2, 9)}"
        ),
        level="WARNING",
    )
    inc.fleet(telemetry_ingest={"rps": times(step(onset, 1.0, 0.62))})
    for region, lost in (
        ("NW", 1100),
        ("NE", 800),
        ("YH", 950),
        ("SCO", 650),
        ("LDN", 0),
        ("SE", 0),
    ):
        inc.metric(
            "controllers_offline",
            "telemetry-ingest",
            step(onset + 3 * MINUTE, 15, 15 + lost),
            labels={"region": region},
            jitter=0.03,
            digits=0,
        )
    inc.metric(
        "mqtt_sessions",
        "telemetry-ingest",
        step(onset + 3 * MINUTE, 9210, 5710),
        labels={"carrier": "all"},
        jitter=0.005,
        digits=0,
    )
    inc.alert = alerts.alertmanager(
        "ControllersOffline",
        "telemetry-ingest",
        ts("2028-07-22T04:31"),
        "critical",
        "3,512 controllers offline",
        "Controllers without a heartbeat for 5 minutes: 3512.",
        "sum(controllers_offline) > 400",
        team="connected-lifts",
    )
    inc.outside(
        "Tellicore IoT private APN outage in northern England (packet gateway change)",
        "telemetry-ingest",
        "dependency_failure",
        [tc, td, fcf, wc, wd],
        onset,
    )
    return inc


def xh71_harbour_tower_planned_shutdown() -> ExtIncident:
    now = ts("2028-07-25T10:05")
    story = """Harbour Tower (building B-2201) has a planned electrical shutdown from 09:00 to 12:00
    for switchgear replacement, booked in work-orders as a planned visit and notified by the
    building manager. Its 14 lifts park at ground floor with doors open, report 'mains lost, on
    battery' and go offline at 09:01-09:04. The building-offline alert fires at 09:12 and is still
    open. Nothing is wrong. Decoys: a telemetry-ingest deploy at 08:50 and an owner-portal config
    change at 09:20. Category: healthy."""
    inc = opened(
        "xh71-harbour-tower-planned-shutdown",
        "BuildingLiftsOffline: 14 lifts offline at Harbour Tower (B-2201)",
        story,
        now,
        LIFTWRIGHT,
        seed=17101,
        hours=5,
        docs=[
            (
                "Work order WO-88410 (planned)",
                """Harbour Tower, B-2201. Planned visit 2028-07-25 08:30-12:30. Building manager's notice:
full electrical shutdown 09:00-12:00 for switchgear replacement. All 14 lifts will be parked at
ground floor and isolated before the shutdown; our technician T-0318 attends to recommission
each lift after power is restored.""",
            ),
            (
                "Controller power loss",
                """On mains loss a controller runs a battery rescue: the car goes to the nearest floor (the
ground floor if programmed), opens its doors, reports POWER_LOST and shuts down after 2 minutes;
it reports POWER_RESTORED when mains returns.""",
            ),
        ],
        quiet_until=ts("2028-07-25T08:00"),
        quiet_services=["parts-stock", "dispatch", "work-orders"],
    )
    tc = inc.code(
        ts("2028-07-25T08:20"),
        "telemetry-ingest",
        sub(inc, "Drop frames older than 7 days on reconnect"),
        "internal/frames/replay.go",
        "	if f.Age() > 30*24*time.Hour {",
        "	if f.Age() > 7*24*time.Hour {",
        44,
    )
    td = inc.ship(ts("2028-07-25T08:50"), "telemetry-ingest", [tc], "v11.11.0")
    ocf = inc.config(
        ts("2028-07-25T09:20"),
        "owner-portal",
        "owner-portal: uptime report excludes planned visits",
        "deploy/owner-portal/values-prod.yaml",
        "reports:\n  excludePlanned: false",
        "reports:\n  excludePlanned: true",
        author="ines.carvalho",
    )
    onset = ts("2028-07-25T09:01")
    for i in range(14):
        t = onset + i * 13 * MINUTE / 60 + MINUTE * (i % 3)
        lift = f"L-22{i + 10:03d}"
        inc.log(
            t,
            "telemetry-ingest",
            "WARNING",
            f'level=WARN msg="controller event" controller=KX5-2201{i:02d} lift={lift} building=B-2201 event=POWER_LOST car_floor=0 doors=open battery=98%',
        )
        inc.log(
            t + 2 * MINUTE,
            "telemetry-ingest",
            "INFO",
            f'level=INFO msg="client disconnected" client=KX5-2201{i:02d} reason="clean shutdown"',
        )
    inc.log(
        ts("2028-07-25T08:41"),
        "work-orders",
        "INFO",
        "Work order WO-88410 started by T-0318 (planned: electrical shutdown, Harbour Tower)",
    )
    inc.log(
        ts("2028-07-25T09:08"),
        "telemetry-ingest",
        "ERROR",
        'level=ERROR msg="building offline" building=B-2201 lifts_offline=14 lifts_total=14',
    )
    inc.fleet()
    inc.metric(
        "building_lifts_offline",
        "telemetry-ingest",
        step(onset, 0, 14),
        labels={"building": "B-2201"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "controllers_offline",
        "telemetry-ingest",
        step(onset, 88, 102),
        labels={"fleet": "all"},
        jitter=0.02,
        digits=0,
    )
    inc.alert = alerts.alertmanager(
        "BuildingLiftsOffline",
        "telemetry-ingest",
        ts("2028-07-25T09:12"),
        "warning",
        "14 lifts offline at Harbour Tower (B-2201)",
        "All lifts of building B-2201 have been offline for 10 minutes.",
        "building_lifts_offline / building_lifts_total == 1",
        building="B-2201",
    )
    inc.healthy(
        "telemetry-ingest",
        "planned electrical shutdown of Harbour Tower (work order WO-88410); the lifts were parked and powered off on purpose",
        [tc, td, ocf],
        onset,
    )
    return inc


def xh72_empty_fault_list_frame() -> ExtIncident:
    now = ts("2028-07-29T14:25")
    story = """At 12:47 controller KX5-204417 (a KX-500 whose modem corrupts a frame) sends a fault
    frame whose fault list is empty although its header says one fault. telemetry-ingest's
    consumer panics on it (index out of range [0] with length 0 in decodeFaults), restarts, reads
    the same uncommitted offset and panics again: partition 11 of controller.frames is stuck from
    12:47, its lag grows, and the 780 controllers hashed to it look frozen (no heartbeats, no
    faults, alarms from them delayed). The other partitions flow. One malformed record, no change
    behind it. Decoy: a telemetry-ingest release at 12:20 that skips duplicate heartbeats in the
    same package (internal/frames), a parts-stock deploy and an entrapment-line config change.
    The alert (Splunk On-Call, consumer restarts) fires at 13:05. Category: data_quality."""
    inc = opened(
        "xh72-empty-fault-list-frame",
        "telemetry-ingest consumer crash-looping (partition 11)",
        story,
        now,
        LIFTWRIGHT,
        seed=17201,
        hours=5,
        docs=[
            (
                "telemetry-ingest consumer",
                """telemetry-ingest consumes controller.frames (24 partitions keyed by controller id) and commits
an offset only after the frame is stored. A crash restarts the consumer at the last committed
offset. Frames are binary: header (controller id, type, fault count) then the fault list.""",
            )
        ],
        quiet_until=ts("2028-07-29T11:30"),
        quiet_services=["work-orders", "owner-portal", "dispatch"],
    )
    tc = inc.code(
        ts("2028-07-29T11:52"),
        "telemetry-ingest",
        sub(inc, "Skip duplicate heartbeats within 5 s"),
        "internal/frames/heartbeat.go",
        "func (h *Heartbeats) Accept(f Frame) bool {\n\treturn true\n}",
        "func (h *Heartbeats) Accept(f Frame) bool {\n\tlast, ok := h.seen[f.Controller]\n\th.seen[f.Controller] = f.At\n\treturn !ok || f.At.Sub(last) > 5*time.Second\n}",
        12,
        author="c.oyelaran",
    )
    td = inc.ship(ts("2028-07-29T12:20"), "telemetry-ingest", [tc], "v11.12.0")
    pc = inc.code(
        ts("2028-07-29T12:30"),
        "parts-stock",
        sub(inc, "Depot stock export includes bin location"),
        "src/PartsStock/Export/StockCsv.cs",
        'yield return $"{p.Sku},{p.Quantity}";',
        'yield return $"{p.Sku},{p.Quantity},{p.Bin}";',
        17,
    )
    pd = inc.ship(ts("2028-07-29T12:58"), "parts-stock", [pc], "v3.8.0")
    ecf = inc.config(
        ts("2028-07-29T13:30"),
        "entrapment-line",
        "entrapment-line: call ring timeout 25 -> 30 s",
        "deploy/entrapment-line/application-prod.yaml",
        "routing:\n  ringTimeoutSeconds: 25",
        "routing:\n  ringTimeoutSeconds: 30",
        author="helga.sorensen",
    )
    onset = ts("2028-07-29T12:47")
    trace = go_stack(
        "panic: runtime error: index out of range [0] with length 0",
        [
            (
                "liftwright/telemetry-ingest/internal/frames.decodeFaults",
                "/src/internal/frames/faults.go",
                57,
            ),
            (
                "liftwright/telemetry-ingest/internal/frames.Decode",
                "/src/internal/frames/decode.go",
                88,
            ),
            (
                "liftwright/telemetry-ingest/internal/consumer.(*Consumer).handle",
                "/src/internal/consumer/consumer.go",
                131,
            ),
            (
                "liftwright/telemetry-ingest/internal/consumer.(*Consumer).Run",
                "/src/internal/consumer/consumer.go",
                96,
            ),
        ],
    )
    inc.errors(
        "telemetry-ingest",
        onset,
        now,
        1.5,
        lambda r: (
            'level=ERROR msg="consumer panic, restarting" topic=controller.frames partition=11 offset=88127730 controller=KX5-204417 frame_type=FAULT fault_count=1 payload_len=14'
        ),
        stack=trace,
    )
    inc.errors(
        "telemetry-ingest",
        onset,
        now,
        1.5,
        lambda r: (
            'level=INFO msg="consumer started" topic=controller.frames partition=11 committed_offset=88127730'
        ),
        level="INFO",
    )
    inc.errors(
        "owner-portal",
        ts("2028-07-29T13:20"),
        now,
        0.1,
        lambda r: (
            f'{{"level":"warn","msg":"lift status stale","lift":"L-{r.randint(10000, 99999)}","last_update_min":{r.randint(30, 90)}}}'
        ),
        level="WARNING",
    )
    inc.fleet(
        telemetry_ingest={"rps": times(step(onset, 1.0, 0.96)), "err": add(step(onset, 0.0, 0.02))}
    )
    for part in (10, 11, 12):
        lag = ramp(onset, now, 20, 135000) if part == 11 else (lambda t: 20)
        inc.metric(
            "kafka_consumergroup_lag",
            "telemetry-ingest",
            lag,
            labels={"topic": "controller.frames", "partition": str(part)},
            jitter=0.05,
            digits=0,
        )
    inc.metric(
        "consumer_restarts_total",
        "telemetry-ingest",
        counter(step(onset, 0, 1.5 / 60), inc.begin),
        jitter=0.0,
        digits=0,
    )
    inc.alert = oncall(
        "telemetry-ingest consumer crash-looping (partition 11)",
        "telemetry-ingest",
        ts("2028-07-29T13:05"),
        "critical",
        "telemetry-ingest/consumer-restarts",
        "Consumer restarted 27 times in 15 minutes; partition 11 lag 4,900 and rising.",
    )
    inc.outside(
        "a malformed controller frame (empty fault list) redelivered forever on partition 11",
        "telemetry-ingest",
        "data_quality",
        [tc, td, pc, pd, ecf],
        onset,
    )
    return inc


# --- Ketterbrook Brewing Co. ------------------------------------------------------------------------


def xh73_duty_abv_percent() -> ExtIncident:
    now = ts("2028-08-03T15:20")
    story = """duty-returns v2.9.0 (11:40) ships a commit that takes each product's ABV from the
    catalogue API ('one source of truth') instead of the stored ratio: the catalogue gives 5.2
    (percent) where the duty formula expects 0.052, so every duty line is 100 times too large and
    fails the plausibility check with DutyCalculationException; no movement out of bond since the
    release has a duty line, and the monthly return cannot be compiled. Decoys: a trade-orders
    deploy at 11:25 that shows ABV on the trade price list (shares the word and the catalogue
    field), the sibling commit (return PDF footer), a canning-line config change. The Datadog
    alert fires at 12:30. Category: code_defect."""
    inc = opened(
        "xh73-duty-abv-percent",
        "[Triggered] duty-returns: duty lines failing",
        story,
        now,
        KETTERBROOK,
        seed=17301,
        hours=6,
        docs=[
            (
                "Alcohol duty",
                """Every movement of beer out of bond gets a duty line: litres x ABV (as a ratio, 0.052 for 5.2%)
x the duty rate per litre of pure alcohol for the band (GBP 21.01 for 3.5-8.4%, small producer
relief applied). duty-returns refuses a line above GBP 1,000 for one movement (our largest pallet
pays about GBP 700). Failed lines must be fixed before the monthly return is filed.""",
            )
        ],
        quiet_until=ts("2028-08-03T10:30"),
        quiet_services=["brewlog", "webshop", "taproom-pos"],
    )
    guilty = inc.code(
        ts("2028-08-02T16:45"),
        "duty-returns",
        sub(inc, "Take ABV from the catalogue API, one source of truth"),
        "src/DutyReturns/Calculation/DutyCalculator.cs",
        """    public decimal DutyFor(Movement m) =>
        m.Litres * m.Line.AbvRatio * _rates.PerLitreOfAlcohol(m.Line.Band) * (1 - _relief.For(m));""",
        """    public decimal DutyFor(Movement m)
    {
        var product = _catalogue.Product(m.Line.Sku);
        return m.Litres * product.Abv * _rates.PerLitreOfAlcohol(product.Band) * (1 - _relief.For(m));
    }""",
        33,
        author="kasia.lis",
    )
    sib = inc.code(
        ts("2028-08-03T09:15"),
        "duty-returns",
        sub(inc, "Return PDF footer shows the producer reference"),
        "src/DutyReturns/Pdf/ReturnDocument.cs",
        '    footer.Text("Ketterbrook Brewing Co.");',
        '    footer.Text($"Ketterbrook Brewing Co. - {_producerRef}");',
        61,
    )
    rel = inc.ship(ts("2028-08-03T11:40"), "duty-returns", [guilty, sib], "v2.9.0")
    tc = inc.code(
        ts("2028-08-03T10:50"),
        "trade-orders",
        sub(inc, "Trade price list shows ABV from the catalogue"),
        "src/main/java/com/ketterbrook/trade/pricelist/PriceListRow.java",
        "    return new PriceListRow(p.sku(), p.name(), price);",
        '    return new PriceListRow(p.sku(), p.name(), p.abv() + "%", price);',
        27,
    )
    td = inc.ship(ts("2028-08-03T11:25"), "trade-orders", [tc], "v5.11.0")
    ccf = inc.config(
        ts("2028-08-03T12:05"),
        "canning-line",
        "canning-line: 440ml fill target 442 -> 443 ml",
        "deploy/canning-line/config/prod.exs",
        'config :canning_line, fill_target_ml: %{"440" => 442}',
        'config :canning_line, fill_target_ml: %{"440" => 443}',
        author="sam.whitlock",
    )
    onset = ts("2028-08-03T11:44")
    trace = (
        "Ketterbrook.DutyReturns.Calculation.DutyCalculationException: duty 31245.60 GBP for movement M-220912 exceeds plausibility bound 1000.00 GBP\n"
        "   at Ketterbrook.DutyReturns.Calculation.DutyLineBuilder.Build(Movement m) in /src/DutyReturns/Calculation/DutyLineBuilder.cs:line 47\n"
        "   at Ketterbrook.DutyReturns.Movements.MovementConsumer.HandleAsync(Movement m, CancellationToken ct) in /src/DutyReturns/Movements/MovementConsumer.cs:line 58"
    )
    inc.errors(
        "duty-returns",
        onset,
        now,
        0.5,
        lambda r: (
            f"fail: Ketterbrook.DutyReturns.Movements.MovementConsumer[0] Duty line rejected for movement M-22{r.randint(1000, 9999)} sku={r.choice(['KB-PALE-30L', 'KB-IPA-440', 'KB-STOUT-50L', 'KB-LAGER-440'])}: duty {r.randint(4000, 60000)}.{r.randint(10, 99)} GBP exceeds plausibility bound 1000.00 GBP"
        ),
        exception=trace,
    )
    inc.errors(
        "duty-returns",
        inc.begin,
        onset,
        0.4,
        lambda r: (
            f"info: Ketterbrook.DutyReturns.Movements.MovementConsumer[0] Duty line M-22{r.randint(1000, 9999)} {r.randint(40, 690)}.{r.randint(10, 99)} GBP"
        ),
        level="INFO",
    )
    inc.fleet(duty_returns={"err": add(step(onset, 0.0, 1.0))})
    inc.metric("duty_lines_rejected_per_hour", "duty-returns", step(onset, 0, 30), digits=0)
    inc.metric("duty_line_gbp_avg", "duty-returns", step(onset, 310, 31000), jitter=0.2, digits=2)
    inc.alert = alerts.datadog(
        "[Triggered] duty-returns: duty lines failing",
        "duty-returns",
        ts("2028-08-03T12:30"),
        "error",
        "sum(last_30m):sum:duty.lines.rejected{env:prod}.as_count() > 5",
        14,
        5,
        ["team:finance"],
    )
    inc.blame(guilty, [rel], "duty-returns", "code_defect", [sib, tc, td, ccf], onset)
    return inc


def xh74_scan_location_flag() -> ExtIncident:
    now = ts("2028-08-08T17:30")
    story = """The flag scan.require_location is turned on for all clients at 15:05 (meant for the
    new driver app only). keg-tracker then refuses every scan without a GPS location with 422
    'location required'; the distributors' handheld app (2.x) and their nightly-and-hourly batch
    uploads send none, so empty kegs coming back through distributors are no longer recorded and
    each batch upload fails; our own drivers' app (3.x) sends a location and keeps working.
    Decoy: a keg-tracker release at 14:52 that validates the QR payload checksum (rejections of
    its own would look alike, but none name a checksum), a taproom-pos deploy and a webshop config
    change. Datadog alert at 16:05 on keg-tracker's 4xx ratio. Category: configuration_error."""
    inc = opened(
        "xh74-scan-location-flag",
        "keg-tracker 4xx ratio above 20% on POST /v1/kegs/{id}/scan",
        story,
        now,
        KETTERBROOK,
        seed=17401,
        hours=6,
        docs=[
            (
                "Keg scans",
                """Kegs are scanned (QR) full when they leave the brewery and empty when they come back. Our
drivers use the Ketterbrook Driver app (3.x, sends GPS); distributors (Caledonia Drinks, Penn Beer
Supply) use the older handheld app (2.x, no GPS) or upload scans in batches every hour. A keg not
scanned back stays 'at customer' and the pub is charged a keg deposit.""",
            )
        ],
        quiet_until=ts("2028-08-08T14:00"),
        quiet_services=["brewlog", "duty-returns", "canning-line"],
    )
    kc = inc.code(
        ts("2028-08-08T14:20"),
        "keg-tracker",
        sub(inc, "Validate the QR payload checksum before recording a scan"),
        "internal/scan/handler.go",
        "\tkeg, err := qr.Parse(req.Payload)\n\tif err != nil {\n\t\treturn badRequest(w, err)\n\t}",
        '\tkeg, err := qr.Parse(req.Payload)\n\tif err != nil {\n\t\treturn badRequest(w, err)\n\t}\n\tif !keg.ChecksumOK() {\n\t\treturn unprocessable(w, "checksum mismatch")\n\t}',
        52,
        author="olu.bankole",
    )
    kd = inc.ship(ts("2028-08-08T14:52"), "keg-tracker", [kc], "v3.21.0")
    guilty = inc.flag(
        ts("2028-08-08T15:05"),
        "keg-tracker",
        "scan.require_location",
        "enabled: false\nclients: [driver-app-3]",
        "enabled: true\nclients: all",
        "Require a location on keg scans",
        author="olu.bankole",
    )
    pc = inc.code(
        ts("2028-08-08T14:40"),
        "taproom-pos",
        sub(inc, "Menu shows keg-day specials"),
        "resources/views/menu/index.blade.php",
        "@foreach($taps as $tap)",
        "@foreach($taps->sortByDesc('special') as $tap)",
        9,
    )
    pd = inc.ship(ts("2028-08-08T15:15"), "taproom-pos", [pc], "v7.4.0")
    wcf = inc.config(
        ts("2028-08-08T16:20"),
        "webshop",
        "webshop: free delivery threshold 50 -> 45 GBP",
        "deploy/webshop/values-prod.yaml",
        "shipping:\n  freeOverGbp: 50",
        "shipping:\n  freeOverGbp: 45",
        author="morag.fife",
    )
    onset = ts("2028-08-08T15:05")
    inc.log(
        ts("2028-08-08T15:05:20"),
        "keg-tracker",
        "INFO",
        'level=INFO msg="flags refreshed" changed="scan.require_location=true"',
    )
    inc.errors(
        "keg-tracker",
        onset,
        now,
        1.6,
        lambda r: (
            f'level=WARN msg="scan rejected" keg=KB-{r.choice(["30", "50"])}-{r.randint(1000, 99999):05d} client=handheld-{r.choice(["2.4.1", "2.5.0"])} status=422 detail="location required"'
        ),
        level="WARNING",
    )
    inc.errors(
        "keg-tracker",
        inc.begin,
        now,
        0.8,
        lambda r: (
            f'level=INFO msg="keg scanned" keg=KB-{r.choice(["30", "50"])}-{r.randint(1000, 99999):05d} state={r.choice(["full", "empty"])} client=driver-app-3.{r.randint(1, 3)}.0'
        ),
        level="INFO",
    )
    for t in (ts("2028-08-08T16:00"), ts("2028-08-08T17:00")):
        for dist, n in (("caledonia-drinks", 212), ("penn-beer-supply", 96)):
            inc.log(
                t + 2 * MINUTE,
                "keg-tracker",
                "ERROR",
                f'level=ERROR msg="batch upload failed" distributor={dist} scans={n} rejected={n} first_error="location required"',
                distributor=dist,
            )
    inc.log(
        ts("2028-08-08T15:00:40"),
        "keg-tracker",
        "INFO",
        'level=INFO msg="batch upload done" distributor=caledonia-drinks scans=188 recorded=188',
    )
    inc.fleet(keg_tracker={"err": add(step(onset, 0.0, 0.02))})
    inc.metric(
        "http_4xx_ratio",
        "keg-tracker",
        step(onset, 0.01, 0.62),
        labels={"route": "/v1/kegs/{id}/scan"},
        digits=3,
    )
    inc.metric(
        "kegs_returned_empty_per_hour", "keg-tracker", step(onset, 210, 70), jitter=0.15, digits=0
    )
    inc.alert = alerts.datadog(
        "keg-tracker 4xx ratio above 20% on POST /v1/kegs/{id}/scan",
        "keg-tracker",
        ts("2028-08-08T16:05"),
        "warning",
        "avg(last_15m):sum:trace.http.request.errors{service:keg-tracker,http.status_class:4xx}.as_rate() / sum:trace.http.request.hits{service:keg-tracker}.as_rate() > 0.2",
        0.61,
        0.2,
        ["team:trade"],
    )
    inc.blame(guilty, [], "keg-tracker", "configuration_error", [kc, kd, pc, pd, wcf], onset)
    return inc


def xh75_pricelist_per_sku_query() -> ExtIncident:
    now = ts("2028-08-14T12:10")
    story = """trade-orders v5.12.0 (09:10) bundles three commits; one rewrites the price list so
    that each of the ~600 products looks up the account's override with
    findByAccountIdAndSku() instead of one findAllByAccountId(): 600 queries per price list.
    Monday-morning ordering (pubs open the price list before ordering) drives kbdb's CPU from 30%
    to 95%, trade-orders' p99 from 0.4 s to 9 s, and slows keg-tracker, the other user of kbdb.
    Hardly any errors: a few Hikari timeouts and slow-request warnings; the failure is in the
    metrics (queries per request, database CPU, latency). Decoys: a keg-tracker deploy at 09:20
    (the other kbdb client; its latency rises too), the two sibling commits, a webshop deploy. The
    alert (Grafana, kbdb CPU) fires at 10:40. Category: code_defect."""
    inc = opened(
        "xh75-pricelist-per-sku-query",
        "kbdb CPU above 90% for 15 minutes",
        story,
        now,
        KETTERBROOK,
        seed=17501,
        hours=6,
        docs=[
            (
                "kbdb",
                """kbdb (PostgreSQL 15, db.r6g.xlarge, 4 vCPU) serves trade-orders and keg-tracker. Trade
customers open the price list (GET /trade/pricelist, about 600 products with per-account overrides)
before ordering; Monday 09:00-12:00 is the weekly peak.""",
            )
        ],
        quiet_until=ts("2028-08-14T08:30"),
        quiet_services=["brewlog", "canning-line", "duty-returns"],
    )
    guilty = inc.code(
        ts("2028-08-11T15:30"),
        "trade-orders",
        sub(inc, "Price list resolves overrides per product"),
        "src/main/java/com/ketterbrook/trade/pricelist/PriceListService.java",
        """        Map<String, Override> overrides = overrideRepository.findAllByAccountId(accountId).stream()
            .collect(toMap(Override::sku, identity()));
        return products.stream().map(p -> row(p, overrides.get(p.sku()))).toList();""",
        """        return products.stream()
            .map(p -> row(p, overrideRepository.findByAccountIdAndSku(accountId, p.sku()).orElse(null)))
            .toList();""",
        41,
        author="sam.whitlock",
    )
    s1 = inc.code(
        ts("2028-08-11T16:10"),
        "trade-orders",
        sub(inc, "Order confirmation email lists keg deposits"),
        "src/main/resources/templates/order-confirmation.html",
        '<td th:text="${line.total}"></td>',
        '<td th:text="${line.total}"></td>\n<td th:text="${line.kegDeposit}"></td>',
        30,
    )
    s2 = inc.code(
        ts("2028-08-12T10:00"),
        "trade-orders",
        sub(inc, "Bump spring-boot from 3.3.1 to 3.3.2"),
        "pom.xml",
        "    <version>3.3.1</version>",
        "    <version>3.3.2</version>",
        12,
        author="dependabot[bot]",
    )
    rel = inc.ship(ts("2028-08-14T09:10"), "trade-orders", [guilty, s1, s2], "v5.12.0")
    kc = inc.code(
        ts("2028-08-14T08:50"),
        "keg-tracker",
        sub(inc, "Customer keg list sorted by days out"),
        "internal/store/kegs.go",
        "\tq := `SELECT id, state, since FROM kegs WHERE customer_id = $1`",
        "\tq := `SELECT id, state, since FROM kegs WHERE customer_id = $1 ORDER BY since`",
        71,
    )
    kd = inc.ship(ts("2028-08-14T09:20"), "keg-tracker", [kc], "v3.22.0")
    wc = inc.code(
        ts("2028-08-14T09:40"),
        "webshop",
        sub(inc, "Product cards show tasting notes"),
        "components/ProductCard.tsx",
        "  <Price value={p.price} />",
        "  <Price value={p.price} />\n  <Notes text={p.tastingNotes} />",
        19,
    )
    wd = inc.ship(ts("2028-08-14T10:05"), "webshop", [wc], "v12.3.0")
    onset = ts("2028-08-14T09:12")
    inc.errors(
        "trade-orders",
        ts("2028-08-14T09:40"),
        now,
        0.5,
        lambda r: (
            f"WARN c.k.trade.web.SlowRequestFilter : GET /trade/pricelist account=TA-0{r.randint(100, 999)} took {r.randint(4000, 14000)}ms (sql statements: {r.randint(598, 612)})"
        ),
        level="WARNING",
    )
    inc.errors(
        "trade-orders",
        ts("2028-08-14T10:20"),
        now,
        0.08,
        lambda r: (
            "ERROR o.h.engine.jdbc.spi.SqlExceptionHelper : HikariPool-1 - Connection is not available, request timed out after 30000ms (total=20, active=20, idle=0, waiting=31)"
        ),
        stack_trace=java_stack(
            "org.springframework.dao.DataAccessResourceFailureException",
            "Unable to acquire JDBC Connection",
            [
                (
                    "com.ketterbrook.trade.pricelist.PriceListService.lambda$priceList$2",
                    "PriceListService.java",
                    43,
                ),
                (
                    "com.ketterbrook.trade.pricelist.PriceListController.get",
                    "PriceListController.java",
                    29,
                ),
            ],
        ),
    )
    inc.errors(
        "keg-tracker",
        ts("2028-08-14T09:50"),
        now,
        0.2,
        lambda r: f'level=WARN msg="slow query" query=customer_kegs dur={r.randint(1200, 4000)}ms',
        level="WARNING",
    )
    busy = ramp(onset, ts("2028-08-14T10:10"), 0, 1)
    inc.fleet(
        trade_orders={"p99": add(lambda t: 8600 * busy(t)), "err": add(lambda t: 0.01 * busy(t))},
        keg_tracker={"p99": add(lambda t: 900 * busy(t))},
    )
    inc.metric("db_cpu_percent", "kbdb", lambda t: 30 + 65 * busy(t), jitter=0.04, digits=1)
    inc.metric(
        "db_queries_per_second", "kbdb", lambda t: 900 + 11000 * busy(t), jitter=0.06, digits=0
    )
    inc.metric(
        "sql_statements_per_request",
        "trade-orders",
        step(onset, 3, 604),
        labels={"route": "/trade/pricelist"},
        jitter=0.01,
        digits=0,
    )
    inc.alert = alerts.grafana(
        "kbdb CPU above 90% for 15 minutes",
        "trade-orders",
        ts("2028-08-14T10:40"),
        "critical",
        "kbdb - CPU",
        "94.7%",
        database="kbdb",
    )
    inc.blame(guilty, [rel], "trade-orders", "code_defect", [s1, s2, kc, kd, wc, wd], onset)
    return inc


def xh76_euw2b_network_impairment() -> ExtIncident:
    now = ts("2028-08-19T13:15")
    story = """AWS eu-west-2b (London) has network connectivity issues from 10:08 (AWS Health notices
    in ISO 8601 at 10:31 and 11:20). taproom-pos pods scheduled in eu-west-2b cannot reach the MySQL
    primary in eu-west-2a: every request they serve that needs the database fails after the 5 s
    connect timeout with SQLSTATE[HY000] [2002] Connection timed out, about a third of the
    taprooms' till requests; pods in 2a and 2c are fine. The Saturday lunchtime alert (New
    Relic, error rate) fires at 11:52, long after the onset because the morning is quiet. Decoys:
    a taproom-pos release at 09:55 that turns on persistent PDO connections (shares every word of
    the errors, but pods in other zones run it without errors), a webshop deploy and a brewlog
    config change. Category: infrastructure."""
    inc = opened(
        "xh76-euw2b-network-impairment",
        "taproom-pos error rate above 10%",
        story,
        now,
        KETTERBROOK,
        seed=17601,
        hours=5,
        docs=[
            (
                "AWS Health - Amazon EC2 (London)",
                """2028-08-19T10:31:00Z [Investigating] We are investigating network connectivity issues for some
instances in a single Availability Zone (euw2-az2) in the EU-LONDON Region.
2028-08-19T11:20:00Z [Identified] We have identified the cause of the elevated packet loss affecting
instances in euw2-az2 and are working towards recovery. Instances in other Availability Zones are
not affected.""",
            ),
            (
                "taproom-pos hosting",
                """taproom-pos runs 6 pods spread over eu-west-2a, 2b and 2c (euw2-az1/az2/az3 for our account:
eu-west-2b is euw2-az2). MySQL 8 (taproomdb) primary in eu-west-2a, replica in 2c. Three taprooms
(Arches, Quayside, Mill Yard) open 11:00.""",
            ),
        ],
        quiet_until=ts("2028-08-19T09:00"),
        quiet_services=["keg-tracker", "trade-orders", "duty-returns"],
    )
    pc = inc.code(
        ts("2028-08-19T09:20"),
        "taproom-pos",
        sub(inc, "Persistent PDO connections to taproomdb"),
        "config/database.php",
        "            'options' => extension_loaded('pdo_mysql') ? array_filter([\n                PDO::MYSQL_ATTR_SSL_CA => env('MYSQL_ATTR_SSL_CA'),\n            ]) : [],",
        "            'options' => extension_loaded('pdo_mysql') ? array_filter([\n                PDO::MYSQL_ATTR_SSL_CA => env('MYSQL_ATTR_SSL_CA'),\n                PDO::ATTR_PERSISTENT => true,\n            ]) : [],",
        58,
        author="morag.fife",
    )
    pd = inc.ship(ts("2028-08-19T09:55"), "taproom-pos", [pc], "v7.5.0")
    wc = inc.code(
        ts("2028-08-19T09:40"),
        "webshop",
        sub(inc, "Gift cards in the basket"),
        "app/cart/GiftCard.tsx",
        "export const GiftCard = () => null;",
        "export const GiftCard = ({ code }: { code: string }) => <Redeem code={code} />;",
        1,
    )
    wd = inc.ship(ts("2028-08-19T10:20"), "webshop", [wc], "v12.4.0")
    bcf = inc.config(
        ts("2028-08-19T11:30"),
        "brewlog",
        "brewlog: FV-14 crash-cool setpoint 2.0 -> 1.5 C",
        "deploy/brewlog/tanks.yaml",
        "FV-14:\n  crash_cool_c: 2.0",
        "FV-14:\n  crash_cool_c: 1.5",
        author="kasia.lis",
    )
    onset = ts("2028-08-19T10:08")
    pods_b = ["taproom-pos-6c9d8-b41", "taproom-pos-6c9d8-b77"]
    pods_ok = [
        "taproom-pos-6c9d8-a12",
        "taproom-pos-6c9d8-a58",
        "taproom-pos-6c9d8-c03",
        "taproom-pos-6c9d8-c91",
    ]
    trace = (
        "PDOException: SQLSTATE[HY000] [2002] Connection timed out in /var/www/vendor/laravel/framework/src/Illuminate/Database/Connectors/Connector.php:65\n"
        "#0 /var/www/vendor/laravel/framework/src/Illuminate/Database/Connectors/Connector.php(65): PDO->__construct()\n"
        "#1 /var/www/vendor/laravel/framework/src/Illuminate/Database/Connectors/MySqlConnector.php(24): Illuminate\\Database\\Connectors\\Connector->createConnection()\n"
        "#2 /var/www/app/Http/Controllers/TabController.php(41): Illuminate\\Database\\Eloquent\\Builder->findOrFail()\n"
        "#3 {main}"
    )

    def rate(f: float) -> float:
        return 0.3 if f < 0.28 else 1.4  # the taprooms open at 11:00

    def failing(r: Any) -> str:
        return f"[2028-08-19] production.ERROR: SQLSTATE[HY000] [2002] Connection timed out (Connection: mysql, SQL: select * from `tabs` where `id` = {r.randint(88000, 89999)} limit 1)"

    inc.burst(
        "taproom-pos",
        onset,
        now,
        rate,
        lambda r, t: (
            "ERROR",
            failing(r),
            {"pod": r.choice(pods_b), "node_zone": "eu-west-2b", "exception": trace},
        ),
    )
    inc.burst(
        "taproom-pos",
        inc.begin,
        now,
        lambda f: 0.8,
        lambda r, t: (
            "INFO",
            f"[2028-08-19] production.INFO: tab closed tab=T-{r.randint(88000, 89999)} taproom={r.choice(['ARCHES', 'QUAYSIDE', 'MILLYARD'])} total={r.randint(8, 90)}.{r.choice(['00', '50', '20'])}",
            {
                "pod": r.choice(pods_ok + (pods_b if t < onset else [])),
                "node_zone": "eu-west-2a/2c",
            },
        ),
    )
    inc.fleet(taproom_pos={"err": add(step(onset, 0.0, 0.3)), "p99": floor_(onset, now, 5200)})
    for zone, loss in (("eu-west-2a", 0.0), ("eu-west-2b", 0.18), ("eu-west-2c", 0.0)):
        inc.metric(
            "node_network_packet_loss_ratio",
            "eks-nodes",
            step(onset, 0.0, loss),
            labels={"zone": zone},
            jitter=0.2,
            digits=3,
        )
        inc.metric(
            "http_error_ratio_by_zone",
            "taproom-pos",
            step(onset, 0.002, 0.92 if loss else 0.002),
            labels={"zone": zone},
            jitter=0.1,
            digits=3,
        )
    inc.alert = newrelic(
        "taproom-pos error rate above 10%",
        "taproom-pos",
        ts("2028-08-19T11:52"),
        "critical",
        "Hospitality",
        "taproom-pos errors",
        "SELECT percentage(count(*), WHERE error IS true) FROM Transaction WHERE appName = 'taproom-pos' SINCE 10 minutes ago",
        31.4,
        10,
    )
    inc.outside(
        "AWS eu-west-2b (euw2-az2) network connectivity impairment",
        "taproom-pos",
        "infrastructure",
        [pc, pd, wc, wd, bcf],
        onset,
    )
    return inc


def xh77_barrel_store_release_surge() -> ExtIncident:
    now = ts("2028-08-25T12:40")
    story = """The Barrel Store limited release (Midnight Rye, a barrel-aged imperial stout, 1,200
    bottles) goes on sale at 12:00, announced in the newsletter to 48,000 subscribers and on social
    media. webshop traffic goes from 30 to about 650 requests a second within two minutes; its pods
    hit their CPU limits, the event loop lags by seconds, checkout requests time out and the
    ingress answers 503 (upstream connect error); Paydock rate-limits the burst of payment intents
    (429). No change causes it; the surge is the release's demand, beyond the 6 pods' capacity
    (the autoscaler's maximum). Decoy: a webshop release at 11:32 that shows remaining stock on
    product pages (the page every shopper refreshes), a trade-orders deploy and a canning-line
    config change. The Grafana alert fires at 12:06. Category: resource_exhaustion."""
    inc = opened(
        "xh77-barrel-store-release-surge",
        "webshop 5xx above 10%",
        story,
        now,
        KETTERBROOK,
        seed=17702,
        hours=5,
        docs=[
            (
                "Release calendar (Direct)",
                """2028-08-25 12:00 Barrel Store: Midnight Rye (BA imperial stout, 1,200 x 750 ml, max 2 per order).
Newsletter at 09:00 to the full list (48k), Instagram at 11:45. Last Barrel Store release (March)
sold out in 19 minutes with 380 requests a second at peak.""",
            ),
            (
                "webshop capacity",
                """webshop: Node 20 (Next.js) on EKS, HPA 2-6 pods on CPU 60%, each pod about 110 requests a
second before the event loop lags. Paydock (payments) allows 100 payment intents a second per
merchant.""",
            ),
        ],
        quiet_until=ts("2028-08-25T10:30"),
        quiet_services=["brewlog", "keg-tracker", "duty-returns"],
    )
    wc = inc.code(
        ts("2028-08-25T11:05"),
        "webshop",
        sub(inc, "Product page shows remaining stock for limited releases"),
        "app/shop/products/[slug]/page.tsx",
        "  <AddToCart product={product} />",
        "  <AddToCart product={product} />\n  {product.limited && <Remaining count={await stock.remaining(product.sku)} />}",
        34,
        author="morag.fife",
    )
    wd = inc.ship(ts("2028-08-25T11:32"), "webshop", [wc], "v12.6.0")
    tc = inc.code(
        ts("2028-08-25T11:10"),
        "trade-orders",
        sub(inc, "Accounts can save a standing order"),
        "src/main/java/com/ketterbrook/trade/orders/StandingOrder.java",
        "public record StandingOrder() {}",
        "public record StandingOrder(String accountId, List<Line> lines, DayOfWeek day) {}",
        5,
    )
    td = inc.ship(ts("2028-08-25T11:45"), "trade-orders", [tc], "v5.13.0")
    ccf = inc.config(
        ts("2028-08-25T12:15"),
        "canning-line",
        "canning-line: date code format DD/MM/YY",
        "deploy/canning-line/config/prod.exs",
        'config :canning_line, date_code: "{D}{M}{YY}"',
        'config :canning_line, date_code: "{D}/{M}/{YY}"',
        author="sam.whitlock",
    )
    onset = ts("2028-08-25T12:00")
    load = step(onset, 1.0, 21.0)
    inc.errors(
        "webshop",
        onset + MINUTE,
        now,
        12,
        lambda r: r.choice(
            [
                '{"level":"error","msg":"checkout failed","err":"TimeoutError: paydock createPaymentIntent timed out after 10000ms"}',
                '{"level":"error","msg":"checkout failed","err":"PaydockError: 429 Too Many Requests (rate limit 100/s)"}',
                '{"level":"warn","msg":"event loop lag","lag_ms":'
                + str(r.randint(900, 4200))
                + "}",
                '{"level":"error","msg":"upstream connect error or disconnect/reset before headers. reset reason: overflow","status":503}',
            ]
        ),
    )
    inc.errors(
        "webshop",
        onset,
        now,
        6,
        lambda r: (
            f'{{"level":"info","msg":"order completed","order":"W-77{r.randint(3000, 9999)}","items":{r.randint(1, 2)},"sku":"KB-MIDNIGHT-RYE-750"}}'
        ),
        level="INFO",
    )
    inc.fleet(
        webshop={
            "rps": times(load),
            "err": add(step(onset, 0.0, 0.22)),
            "p99": add(step(onset, 0, 9000)),
        }
    )
    inc.metric(
        "container_cpu_usage_ratio",
        "webshop",
        step(onset, 0.35, 1.0),
        labels={"pods": "6/6"},
        jitter=0.03,
        digits=2,
    )
    inc.metric("hpa_replicas", "webshop", step(onset, 2, 6), jitter=0.0, digits=0)
    inc.metric(
        "stock_remaining",
        "webshop",
        lambda t: 1200 if t < onset else max(0.0, 1200 - (t - onset).total_seconds() / 60 * 28),
        labels={"sku": "KB-MIDNIGHT-RYE-750"},
        jitter=0.0,
        digits=0,
    )
    inc.alert = alerts.grafana(
        "webshop 5xx above 10%",
        "webshop",
        ts("2028-08-25T12:06"),
        "critical",
        "webshop - errors",
        "23%",
        team="direct",
    )
    inc.outside(
        "demand surge at the Barrel Store limited release (12:00) beyond webshop's capacity",
        "webshop",
        "resource_exhaustion",
        [wc, wd, tc, td, ccf],
        onset,
    )
    return inc


def xh78_keg_list_timeouts_unexplained() -> ExtIncident:
    now = ts("2028-08-29T17:05")
    story = """From 16:20 to 16:31 keg-tracker's customer keg list (GET /v1/customers/{id}/kegs) fails
    for about one request in ten with 'canceling statement due to statement timeout', then stops.
    kbdb's CPU, connections, locks and replication lag stay flat, trade-orders (the other kbdb
    user) is unaffected and nothing changed keg-tracker or kbdb; the data do not say why. Decoys:
    a webshop deploy at 16:10, a duty-returns config change at 16:40. The alert fires at 16:27.
    Category: unknown."""
    inc = opened(
        "xh78-keg-list-timeouts-unexplained",
        "keg-tracker errors above 5% (customer keg list)",
        story,
        now,
        KETTERBROOK,
        seed=17801,
        hours=6,
        docs=[
            (
                "keg-tracker",
                """keg-tracker reads and writes kbdb (PostgreSQL 15) with pgx; statement_timeout 2 s for API
requests. The customer keg list is used by the trade team and by pubs in the trade portal.""",
            )
        ],
        quiet_until=ts("2028-08-29T15:00"),
        quiet_services=["brewlog", "canning-line", "taproom-pos"],
    )
    wc = inc.code(
        ts("2028-08-29T15:40"),
        "webshop",
        sub(inc, "Age check wording on checkout"),
        "app/checkout/AgeCheck.tsx",
        "  <p>You must be 18 or over.</p>",
        "  <p>You must be 18 or over to buy alcohol. We may ask for ID on delivery.</p>",
        7,
    )
    wd = inc.ship(ts("2028-08-29T16:10"), "webshop", [wc], "v12.7.0")
    dcf = inc.config(
        ts("2028-08-29T16:40"),
        "duty-returns",
        "duty-returns: small producer relief table for 2028-09",
        "deploy/duty-returns/appsettings.Production.json",
        '"ReliefTable": "2028-08"',
        '"ReliefTable": "2028-09"',
        author="kasia.lis",
    )
    onset = ts("2028-08-29T16:20")
    end = ts("2028-08-29T16:31")
    inc.errors(
        "keg-tracker",
        onset,
        end,
        2.5,
        lambda r: (
            f'level=ERROR msg="request failed" route="/v1/customers/{{id}}/kegs" customer=TA-0{r.randint(100, 999)} err="ERROR: canceling statement due to statement timeout (SQLSTATE 57014)" dur=2003ms'
        ),
    )
    inc.fleet(keg_tracker={"err": add(step(onset, 0.0, 0.1, end)), "p99": floor_(onset, end, 2010)})
    for name, v in (
        ("db_cpu_percent", 28),
        ("db_connections", 41),
        ("db_lock_waits", 0.2),
        ("db_replication_lag_seconds", 0.4),
    ):
        inc.metric(name, "kbdb", lambda t, v=v: v, jitter=0.1, digits=1)
    inc.alert = alerts.datadog(
        "keg-tracker errors above 5% (customer keg list)",
        "keg-tracker",
        ts("2028-08-29T16:27"),
        "warning",
        "avg(last_5m):sum:trace.http.request.errors{service:keg-tracker,resource_name:get_/v1/customers/_id/kegs}.as_rate() / sum:trace.http.request.hits{service:keg-tracker,resource_name:get_/v1/customers/_id/kegs}.as_rate() > 0.05",
        0.09,
        0.05,
        ["team:trade"],
    )
    inc.unexplained("keg-tracker", [wc, wd, dcf], onset)
    return inc


HELDOUT = [
    xh67_out_of_hours_null_timezone,
    xh68_firmware_wave_rev_b,
    xh69_location_history_connection_leak,
    xh70_tellicore_apn_outage,
    xh71_harbour_tower_planned_shutdown,
    xh72_empty_fault_list_frame,
    xh73_duty_abv_percent,
    xh74_scan_location_flag,
    xh75_pricelist_per_sku_query,
    xh76_euw2b_network_impairment,
    xh77_barrel_store_release_surge,
    xh78_keg_list_timeouts_unexplained,
]
