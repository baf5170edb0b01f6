"""TUNE split, ninth examiner: Skerrylight Ground Network (satellite ground stations) and
Proscenium Box Office (theatre ticketing), incidents ``xt97``-``xt108``. Written without opening
the engine, the agents or the held-out split, and never scored by their examiner; each story
spelled out in code. The companies are in `ext/companies.py`; `ext_build.py` appends ``TUNE`` to
the tune split after `ext/tune7.py`'s."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from evals.rca import alerts
from evals.rca.ext.base import (
    MINUTE,
    ExtIncident,
    Shape,
    add,
    java_stack,
    py_stack,
    ramp,
    step,
    times,
)
from evals.rca.ext.companies import PROSCENIUM, SKERRYLIGHT
from evals.rca.kit import iso, ts


class Inc(ExtIncident):
    """An incident of the ninth examiner's companies (their config and flag hosts)."""

    def config(
        self,
        t: datetime,
        service: str,
        summary: str,
        path: str,
        old: str,
        new: str,
        author: str | None = None,
        cid: str | None = None,
        line: int = 1,
    ) -> str:
        cid = super().config(t, service, summary, path, old, new, author, cid, line)
        self.changes[-1]["url"] = f"https://git.{self.company.domain}/deploy-config/commit/{cid}"
        return cid

    def flag(
        self,
        t: datetime,
        service: str,
        name: str,
        old: str,
        new: str,
        summary: str,
        author: str | None = None,
        fid: str | None = None,
    ) -> str:
        fid = super().flag(t, service, name, old, new, summary, author, fid)
        self.changes[-1]["url"] = f"https://flags.{self.company.domain}/{name}/history"
        return fid

    def ship(
        self, t: datetime, service: str, commits: Sequence[str], version: str, **kw: Any
    ) -> str:
        """A release of ``service`` shipping exactly ``commits``."""
        return self.deploy(t, service, version=version, ships=list(commits), **kw)

    def quiet(self, service: str, after: datetime, words: Sequence[str]) -> None:
        """Drop ``service``'s healthy INFO chatter holding one of ``words`` from ``after`` on
        (call right after ``noise()``)."""
        first = iso(after)
        self.logs = [
            r
            for r in self.logs
            if not (
                r["service"] == service
                and r["level"] == "INFO"
                and r["timestamp"] >= first
                and any(w in r["message"] for w in words)
            )
        ]


def between(a: datetime, b: datetime, inside: float, outside: float) -> Shape:
    return lambda t: inside if a <= t < b else outside


def counter(rate: Shape, begin: datetime, step_minutes: int = 4) -> Shape:
    """A cumulative ``_total`` counter whose per-second rate is ``rate``."""

    def f(t: datetime) -> float:
        total, u = 0.0, begin
        while u < t:
            total += rate(u) * step_minutes * 60
            u += timedelta(minutes=step_minutes)
        return total

    return f


def ruby_trace(exc: str, message: str, frames: Sequence[str]) -> str:
    """A Rails exception as logged: ``frames`` are ``app/file.rb:L:in `method'``."""
    return "\n".join([f"{exc} ({message}):", "", *frames])


def pagerduty(
    summary: str, service: str, fired: datetime, severity: str, source: str, details: dict[str, Any]
) -> dict[str, Any]:
    """A PagerDuty Events API v2 body as the alert source sends it."""
    return alerts.alert(
        summary,
        service,
        fired,
        severity,
        {
            "routing_key": "R02****************************",
            "event_action": "trigger",
            "dedup_key": f"{service}/{summary[:40]}",
            "payload": {
                "summary": summary,
                "source": source,
                "severity": severity,
                "timestamp": iso(fired),
                "component": service,
                "group": "ground-segment",
                "class": "availability",
                "custom_details": details,
            },
        },
    )


def icinga(
    title: str, service: str, fired: datetime, host: str, check: str, output: str, state: str
) -> dict[str, Any]:
    """An Icinga 2 service notification forwarded by the notification script."""
    return alerts.alert(
        title,
        service,
        fired,
        "critical" if state == "CRITICAL" else "warning",
        {
            "notification_type": "PROBLEM",
            "host_name": host,
            "service_name": check,
            "service_state": state,
            "service_output": output,
            "long_date_time": fired.strftime("%Y-%m-%d %H:%M:%S +0000"),
            "notification_author": "",
            "notification_comment": "",
            "icingaweb2_url": "https://icinga.skerrylight.example/icingaweb2",
        },
    )


def honeycomb(
    name: str,
    service: str,
    fired: datetime,
    severity: str,
    query: str,
    result: float,
    threshold: str,
) -> dict[str, Any]:
    """A Honeycomb trigger's webhook body."""
    return alerts.alert(
        name,
        service,
        fired,
        severity,
        {
            "version": "v0.1.0",
            "shared_secret": "",
            "id": f"trg_{int(fired.timestamp()) % 100000:05d}",
            "name": name,
            "trigger_description": query,
            "status": "TRIGGERED",
            "summary": f"Triggered: {name}",
            "result_url": "https://ui.honeycomb.example/proscenium/environments/production/datasets/"
            + service,
            "trigger_url": "https://ui.honeycomb.example/proscenium/environments/production/triggers",
            "is_test": False,
            "type": "trigger",
            "threshold": {"op": threshold.split()[0], "value": float(threshold.split()[1])},
            "result_groups_triggered": [{"Group": {"service.name": service}, "Result": result}],
        },
    )


def at(inc: ExtIncident, change_id: str) -> datetime:
    c = next(c for c in inc.changes if c["id"] == change_id)
    return datetime.fromisoformat(c["timestamp"].replace("Z", "+00:00"))


SITES = ("HVN", "PTA", "KRP")


# --- Skerrylight Ground Network -------------------------------------------------------------------


def _contacts(r: random.Random, begin: datetime, end: datetime, every: float) -> list[datetime]:
    out, t = [], begin + timedelta(minutes=r.uniform(2, every))
    while t < end:
        out.append(t)
        t += timedelta(minutes=r.uniform(every * 0.6, every * 1.4))
    return out


def xt97_tle_epoch_day() -> ExtIncident:
    now = ts("2028-03-02T11:20")
    inc = Inc(
        "xt97-tle-epoch-day",
        "ContactsClosedWithoutFrames: 6 contacts in 30m",
        """The shared package skl-astro 2.4.0 rewrote the TLE epoch parser ('parse the epoch field in
        one place') and dropped the '- 1' that turns the 1-based day of year into an offset from
        Jan 1: every element set's epoch is now one day late, so SGP4 places each satellite about a
        fifth of an orbit away from where it is. contact-planner picked it up through a
        requirements bump shipped in v5.12.0 at 09:42 with a sibling commit (max elevation in pass
        predictions). Pointing tables published from then on point the antennas at empty sky: from
        the 09:56 contact on, at every site and for every customer, the ACUs program-track but find
        no carrier, frame-sync closes contacts with zero frames and delivery-api has nothing to
        deliver. The planner itself warns that its fresh predictions disagree with booked passes by
        tens of minutes. No stack traces: the failure is lock ratio and frame counts. Decoys: an
        antenna-ctl deploy at 09:31 that changes how it reconnects to the ACUs, a frame-sync config
        change of KESTRA's attached sync marker at 09:20, the sibling commit, and an elements-sync
        deploy after the onset. The alert comes from frame-sync, downstream. Category:
        code_defect.""",
        now,
        SKERRYLIGHT,
        seed=9701,
        hours=7,
    )
    inc.doc(
        "Runbook: contacts without frames",
        """A contact closed with no frames means the modem never found the downlink. One satellite only:
ask the customer whether it transmitted (safe mode, schedule). One antenna only: look at the ACU
(antenna-ctl alarms, stow, motor faults) and the RF chain. Every site and satellite at once: the
pointing tables or the element sets. contact-planner logs a warning when a new prediction for a
booked pass differs from the booking by more than 60 s; element sets come from elements-sync.""",
    )
    inc.doc(
        "How a contact runs",
        """contact-planner books the pass from the prediction, then 10 minutes before AOS computes the
pointing table (skl-astro: parse the element set, SGP4 propagate, look angles from the antenna's
coordinates) and publishes it to the site's antenna-ctl. antenna-ctl slews to the AOS point and
program-tracks the table; with a carrier the ACU switches to autotrack (monopulse). frame-sync
receives the CADUs from the modem; delivery-api builds the products when frame-sync closes the
contact.""",
    )
    inc.noise()
    inc.background(
        inc.begin, ts("2028-03-02T08:30"), 7, ["ops-console", "tlm-archive", "delivery-api"]
    )
    guilty = inc.code(
        ts("2028-02-29T15:12"),
        "skl-astro",
        _sub(inc, "Parse the TLE epoch field in one place"),
        "skl_astro/tle.py",
        """def _epoch(line1: str) -> datetime:
    yy = int(line1[18:20])
    year = 2000 + yy if yy < 57 else 1900 + yy
    day_of_year = float(line1[20:32])
    return datetime(year, 1, 1, tzinfo=UTC) + timedelta(days=day_of_year - 1)""",
        """def _epoch(line1: str) -> datetime:
    return epoch_from_fields(line1[18:20], line1[20:32])


def epoch_from_fields(yy_text: str, day_text: str) -> datetime:
    \"\"\"The epoch of a TLE (or of an OMM converted to TLE fields).\"\"\"
    yy = int(yy_text)
    year = 2000 + yy if yy < 57 else 1900 + yy
    return datetime(year, 1, 1, tzinfo=UTC) + timedelta(days=float(day_text))""",
        88,
        author="yusuf.demir",
    )
    relc = inc.code(
        ts("2028-02-29T15:40"),
        "skl-astro",
        _sub(inc, "Release skl-astro 2.4.0"),
        "pyproject.toml",
        'name = "skl-astro"\nversion = "2.3.2"',
        'name = "skl-astro"\nversion = "2.4.0"',
        2,
        author="yusuf.demir",
    )
    bump = inc.code(
        ts("2028-03-01T10:05"),
        "contact-planner",
        _sub(inc, "Bump skl-astro from 2.3.2 to 2.4.0"),
        "requirements.txt",
        "fastapi==0.110.3\nskl-astro==2.3.2\nsqlalchemy==2.0.30",
        "fastapi==0.110.3\nskl-astro==2.4.0\nsqlalchemy==2.0.30",
        7,
        author="renovate[bot]",
    )
    sib = inc.code(
        ts("2028-03-01T14:22"),
        "contact-planner",
        _sub(inc, "Return max elevation with each predicted pass"),
        "planner/api/passes.py",
        """    return [PassOut(aos=p.aos, los=p.los, antenna=p.antenna) for p in passes]""",
        """    return [
        PassOut(aos=p.aos, los=p.los, antenna=p.antenna, max_elevation_deg=round(p.max_el, 1))
        for p in passes
    ]""",
        61,
        author="i.solbakken",
    )
    cfg = inc.config(
        ts("2028-03-02T09:20"),
        "frame-sync",
        "frame-sync: KESTRA-SAR2 uses the CCSDS 32-bit ASM on its new X-band channel",
        "deploy/frame-sync/spacecraft/kestra-sar2.yaml",
        "asm: 1ACFFC1D\ncadu_length: 1279\nrs: {interleave: 5, virtual_fill: 0}\nderandomize: true",
        "asm: 1ACFFC1D\ncadu_length: 1279\nrs: {interleave: 5, virtual_fill: 0}\nderandomize: true\nchannel: x2",
        author="mcarrizo",
    )
    acuc = inc.code(
        ts("2028-03-02T08:51"),
        "antenna-ctl",
        _sub(inc, "Reconnect to the ACU with backoff instead of failing the contact"),
        "src/acu/link.rs",
        """    pub async fn connect(addr: &str) -> Result<AcuLink> {
        let stream = TcpStream::connect(addr).await?;
        Ok(AcuLink::new(stream))
    }""",
        """    pub async fn connect(addr: &str) -> Result<AcuLink> {
        let stream = backoff::future::retry(ExponentialBackoff::default(), || async {
            Ok(TcpStream::connect(addr).await?)
        })
        .await?;
        Ok(AcuLink::new(stream))
    }""",
        33,
        author="bjorn.lie",
    )
    acud = inc.ship(ts("2028-03-02T09:31"), "antenna-ctl", [acuc], "v0.19.0")
    rel = inc.ship(ts("2028-03-02T09:42"), "contact-planner", [bump, sib], "v5.12.0")
    onset = ts("2028-03-02T09:56")
    elc = inc.code(
        ts("2028-03-02T10:02"),
        "elements-sync",
        _sub(inc, "Keep the last 10 element sets per satellite instead of 5"),
        "internal/store/prune.go",
        "const keepPerSatellite = 5",
        "const keepPerSatellite = 10",
        12,
        author="aroha.n",
    )
    eld = inc.ship(ts("2028-03-02T10:18"), "elements-sync", [elc], "v1.8.3")
    sats = ["LUMEN-7", "LUMEN-8", "KESTRA-SAR2", "AURORA-3"]
    ok_before = _contacts(inc.rng, inc.begin, onset, 11)
    bad_after = _contacts(inc.rng, onset, now, 6)
    for t in ok_before:
        site = inc.rng.choice(SITES)
        cid = f"c-{inc.rng.randint(88000, 88999)}"
        inc.log(
            t,
            "antenna-ctl",
            "INFO",
            f"INFO antenna_ctl::track: contact {cid} AOS at {site}, carrier lock acquired after {inc.rng.randint(2, 9)}s, autotrack on",
            site=site,
        )
        inc.log(
            t + 9 * MINUTE,
            "frame-sync",
            "INFO",
            f'level=INFO msg="contact closed" contact={cid} cadus={inc.rng.randint(400000, 2200000)} rs_uncorrectable=0',
            site=site,
        )
    for t in bad_after:
        site = inc.rng.choice(SITES)
        sat = inc.rng.choice(sats)
        cid = f"c-{inc.rng.randint(89000, 89999)}"
        inc.log(
            t - 10 * MINUTE,
            "contact-planner",
            "INFO",
            f"pointing table published contact={cid} site={site} satellite={sat} points={inc.rng.randint(420, 700)}",
        )
        inc.log(
            t + 2 * MINUTE,
            "antenna-ctl",
            "WARNING",
            f"WARN antenna_ctl::track: contact {cid} ({sat}) no carrier 120s after AOS at {site}, staying in program track",
            site=site,
        )
        inc.log(
            t + 8 * MINUTE,
            "antenna-ctl",
            "ERROR",
            f"ERROR antenna_ctl::track: contact {cid} ({sat}) LOS without carrier lock (0.0% of pass), max Eb/N0 -1.2 dB",
            site=site,
            contact=cid,
        )
        inc.log(
            t + 9 * MINUTE,
            "frame-sync",
            "ERROR",
            f'level=ERROR msg="contact closed without frames" contact={cid} satellite={sat} cadus=0 asm_hits=0',
            site=site,
        )
        inc.log(
            t + 10 * MINUTE,
            "delivery-api",
            "WARNING",
            f"No raw data for contact {cid}; product for {sat} not built",
        )
    inc.errors(
        "contact-planner",
        ts("2028-03-02T09:44"),
        now,
        0.4,
        lambda r: (
            f"prediction for {r.choice(sats)} differs from the booked pass by {r.randint(14, 47)} min "
            f"(site={r.choice(SITES)}); booked pass kept, operator review needed"
        ),
        level="WARNING",
        logger="planner.booking",
    )
    inc.log(
        ts("2028-03-02T09:43:10"),
        "contact-planner",
        "INFO",
        "contact-planner 5.12.0 started (skl-astro 2.4.0, sgp4 2.23)",
    )
    inc.quiet("antenna-ctl", onset, ["carrier lock"])
    inc.quiet("frame-sync", onset, ["contact closed"])
    inc.fleet(
        frame_sync={"rps": times(step(onset + 8 * MINUTE, 1.0, 0.03))},
        delivery_api={"rps": times(step(onset + 12 * MINUTE, 1.0, 0.35))},
    )
    for site in SITES:
        inc.metric(
            "contact_carrier_lock_ratio",
            "antenna-ctl",
            step(onset, 0.97, 0.0),
            labels={"site": site},
            jitter=0.02,
        )
    inc.metric(
        "frames_received_per_second",
        "frame-sync",
        step(onset + 5 * MINUTE, 2900, 40),
        jitter=0.2,
        digits=0,
    )
    inc.metric(
        "contacts_closed_without_frames_total",
        "frame-sync",
        counter(step(onset + 9 * MINUTE, 0.0, 1 / 360), inc.begin),
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "pointing_tables_published_per_hour", "contact-planner", lambda t: 10, jitter=0.2, digits=0
    )
    inc.metric(
        "planner_prediction_booking_delta_seconds_max",
        "contact-planner",
        step(ts("2028-03-02T09:44"), 4, 2300),
        jitter=0.3,
        digits=0,
    )
    inc.alert = alerts.alertmanager(
        "ContactsClosedWithoutFrames",
        "frame-sync",
        ts("2028-03-02T10:58"),
        "critical",
        "6 contacts closed without frames in 30m",
        "frame-sync closed 6 contacts with zero CADUs in the last 30 minutes (all sites).",
        "increase(contacts_closed_without_frames_total[30m]) > 3",
        team="ground-segment",
    )
    inc.blame(
        guilty,
        [relc, bump, rel],
        "contact-planner",
        "code_defect",
        [sib, cfg, acuc, acud, elc, eld],
        onset,
    )
    return inc


def _sub(inc: ExtIncident, text: str) -> str:
    """A subject in the company's house style."""
    return inc.company.style(inc.rng, text)


_JV = "src/main/java/example/skerrylight/delivery"


def xt98_multipart_part_size() -> ExtIncident:
    now = ts("2028-03-09T14:30")
    inc = Inc(
        "xt98-multipart-part-size",
        "KESTRA products undelivered for more than 60 minutes",
        """A configuration change at 06:12 lowers delivery-api's S3 multipart part size from 64 MB to
        1 MB (and raises upload concurrency) to cut heap use per upload. S3-compatible stores accept
        at most 10,000 parts per upload, so any product above about 9.8 GB can no longer be
        uploaded. The optical and AIS customers' products (0.1-1.5 GB) keep going out with more
        parts; the first KESTRA-SAR2 radar product after the change (11.6 GB, contact at 10:47)
        fails at part 10,001 with 'InvalidArgument: Part number must be an integer between 1 and
        10000, inclusive' after uploading for 40 minutes, is retried from the start, and fails
        again, as does the next radar contact. Delivered products keep succeeding, so error ratios
        barely move; the mechanism is in the config diff and in the part counts. Decoys: a
        delivery-api release at 10:20 whose commit changes MultipartUploader's retry on SlowDown
        (the file every stack trace names), KESTRA's new bucket endpoint configured at 09:55, and
        a frame-sync deploy and ops-console deploy near the onset. Category:
        configuration_error.""",
        now,
        SKERRYLIGHT,
        seed=9801,
        hours=9,
    )
    inc.doc(
        "Customer delivery contract (excerpt)",
        """Products are delivered to the customer's bucket within 60 minutes of LOS (raw CADU files and
level-0). KESTRA-SAR2 radar contacts produce 9-14 GB per contact; LUMEN optical 0.8-1.5 GB; AURORA
under 200 MB. Deliveries use multipart upload to the customer's S3-compatible store; we retry a
failed product 3 times from the start, then page.""",
    )
    inc.doc(
        "delivery-api settings",
        """delivery.s3.multipart.part-size: the size of each uploaded part; S3 and its clones allow parts of
5 MB to 5 GB (the last part may be smaller; MinIO and Ceph accept smaller parts) and at most 10,000
parts per upload. delivery.s3.multipart.max-concurrency: parts uploaded in parallel per product.
Heap use is about part-size x max-concurrency per product in flight.""",
    )
    inc.noise()
    inc.background(
        inc.begin,
        ts("2028-03-09T09:00"),
        8,
        ["contact-planner", "tlm-archive", "antenna-ctl", "elements-sync"],
    )
    guilty = inc.config(
        ts("2028-03-09T06:12"),
        "delivery-api",
        "delivery-api: smaller multipart parts, more parallel parts (heap per upload down from 512 MB) GSN-742",
        "deploy/delivery-api/application-prod.yaml",
        """delivery:
  s3:
    multipart:
      part-size: 64MB
      max-concurrency: 8
      threshold: 16MB""",
        """delivery:
  s3:
    multipart:
      part-size: 1MB
      max-concurrency: 16
      threshold: 16MB""",
        author="mcarrizo",
        line=14,
    )
    bucket = inc.config(
        ts("2028-03-09T09:55"),
        "delivery-api",
        "delivery-api: KESTRA moves to their eu-2 bucket",
        "deploy/delivery-api/customers/kestra.yaml",
        "bucket: kestra-sar-prod\nendpoint: https://s3.eu-1.kestra-space.example\npath-style: true",
        "bucket: kestra-sar-prod-eu2\nendpoint: https://s3.eu-2.kestra-space.example\npath-style: true",
        author="aroha.n",
    )
    retryc = inc.code(
        ts("2028-03-09T09:48"),
        "delivery-api",
        _sub(inc, "Retry parts on SlowDown with full jitter"),
        f"{_JV}/s3/MultipartUploader.java",
        """    private CompletedPart uploadPart(UploadContext ctx, int partNumber, ByteBuffer chunk) {
        return retry.execute(() -> s3.uploadPart(ctx.request(partNumber), RequestBody.fromByteBuffer(chunk)))
            .toCompletedPart(partNumber);
    }""",
        """    private CompletedPart uploadPart(UploadContext ctx, int partNumber, ByteBuffer chunk) {
        return retry.withBackoff(Backoff.fullJitter(Duration.ofMillis(200), Duration.ofSeconds(20)))
            .retryOn(e -> e instanceof S3Exception s && "SlowDown".equals(s.awsErrorDetails().errorCode()))
            .execute(() -> s3.uploadPart(ctx.request(partNumber), RequestBody.fromByteBuffer(chunk)))
            .toCompletedPart(partNumber);
    }""",
        118,
        author="bjorn.lie",
    )
    logc = inc.code(
        ts("2028-03-09T09:58"),
        "delivery-api",
        _sub(inc, "Log the customer id with each delivery"),
        f"{_JV}/DeliveryService.java",
        '        log.info("Product delivered product={} bytes={} parts={}", p.id(), p.size(), parts);',
        '        log.info("Product delivered product={} customer={} bytes={} parts={}", p.id(), p.customer(), p.size(), parts);',
        77,
        author="i.solbakken",
    )
    rel = inc.ship(ts("2028-03-09T10:20"), "delivery-api", [retryc, logc], "v3.7.0")
    fsc = inc.code(
        ts("2028-03-09T10:31"),
        "frame-sync",
        _sub(inc, "Close contacts 30 s after LOS instead of 60 s"),
        "internal/contact/close.go",
        "const closeGrace = 60 * time.Second",
        "const closeGrace = 30 * time.Second",
        19,
        author="mcarrizo",
    )
    fsd = inc.ship(ts("2028-03-09T10:44"), "frame-sync", [fsc], "v2.30.1")
    occ = inc.code(
        ts("2028-03-09T11:02"),
        "ops-console",
        _sub(inc, "Show delivery progress per product on the contact page"),
        "app/contacts/[id]/page.tsx",
        "      <FrameCounts contact={contact} />",
        "      <FrameCounts contact={contact} />\n      <DeliveryProgress products={contact.products} />",
        48,
        author="aroha.n",
    )
    ocd = inc.ship(ts("2028-03-09T11:20"), "ops-console", [occ], "v1.66.0")
    losses = [ts("2028-03-09T10:47"), ts("2028-03-09T12:29")]
    onset = losses[0] + 3 * MINUTE
    r = inc.rng
    # healthy deliveries before and after, with their part counts
    t = inc.begin + 10 * MINUTE
    while t < now:
        size = r.randint(120, 1500) * 1_000_000
        small_parts = (
            -(-size // (1 << 20)) if t >= ts("2028-03-09T06:12") else -(-size // (64 << 20))
        )
        inc.log(
            t,
            "delivery-api",
            "INFO",
            f"Product delivered product=p-{r.randint(51000, 59999)} customer={r.choice(['lumen', 'lumen', 'aurora'])} bytes={size} parts={small_parts}",
            logger="e.s.delivery.DeliveryService",
        )
        t += timedelta(minutes=r.uniform(12, 30))
    inc.log(
        ts("2028-03-09T04:41"),
        "delivery-api",
        "INFO",
        "Product delivered product=p-50977 customer=kestra bytes=12114001920 parts=181",
        logger="e.s.delivery.DeliveryService",
    )
    stack = java_stack(
        "software.amazon.awssdk.services.s3.model.S3Exception",
        "Part number must be an integer between 1 and 10000, inclusive (Service: S3, Status Code: 400, Request ID: 17F2A9C0E1B3D4A5)",
        [
            (
                "software.amazon.awssdk.protocols.xml.internal.unmarshall.AwsXmlPredicatedResponseHandler.handleErrorResponse",
                "AwsXmlPredicatedResponseHandler.java",
                156,
            ),
            (
                "software.amazon.awssdk.services.s3.DefaultS3Client.uploadPart",
                "DefaultS3Client.java",
                11022,
            ),
            (
                "example.skerrylight.delivery.s3.MultipartUploader.lambda$uploadPart$2",
                "MultipartUploader.java",
                121,
            ),
            (
                "example.skerrylight.delivery.s3.MultipartUploader.uploadPart",
                "MultipartUploader.java",
                120,
            ),
            (
                "example.skerrylight.delivery.s3.MultipartUploader.upload",
                "MultipartUploader.java",
                88,
            ),
            ("example.skerrylight.delivery.DeliveryService.deliver", "DeliveryService.java", 64),
        ],
    )
    for i, los in enumerate(losses):
        prod = f"p-{60211 + i}"
        size = 11_603_550_208 if i == 0 else 12_870_221_824
        attempt_start = los + 3 * MINUTE
        for attempt in range(1, 4):
            end = attempt_start + timedelta(minutes=r.randint(36, 44))
            if end > now:
                break
            inc.log(
                attempt_start,
                "delivery-api",
                "INFO",
                f"Delivery started product={prod} customer=kestra bytes={size} part-size=1MB attempt={attempt}/3",
                logger="e.s.delivery.DeliveryService",
            )
            inc.log(
                end,
                "delivery-api",
                "ERROR",
                f"Delivery failed product={prod} customer=kestra at part 10001 after 10000 parts: Part number must be an integer between 1 and 10000, inclusive",
                logger="e.s.delivery.DeliveryService",
                stack_trace=stack,
                product=prod,
            )
            inc.log(
                end + timedelta(seconds=2),
                "delivery-api",
                "WARNING",
                f"AbortMultipartUpload product={prod} uploadId={r.getrandbits(64):016x} (10000 parts discarded)",
                logger="e.s.delivery.s3.MultipartUploader",
            )
            attempt_start = end + 2 * MINUTE
        if attempt_start < now:
            inc.log(
                attempt_start,
                "delivery-api",
                "ERROR",
                f"Product {prod} (kestra) not delivered after 3 attempts; paging",
                logger="e.s.delivery.DeliveryService",
            )
    inc.fleet(
        delivery_api={
            "err": add(lambda t: 0.004 if t >= onset else 0.0),
        }
    )

    def backlog(t: datetime) -> float:
        return float(sum(1 for los in losses if t >= los + 3 * MINUTE))

    inc.metric(
        "delivery_backlog_products",
        "delivery-api",
        backlog,
        labels={"customer": "kestra"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "delivery_backlog_products",
        "delivery-api",
        lambda t: 0.0,
        labels={"customer": "lumen"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "s3_multipart_parts_per_upload_max",
        "delivery-api",
        lambda t: (
            24 if t < ts("2028-03-09T06:12") else (1500 if t < losses[0] + 3 * MINUTE else 10000)
        ),
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "s3_upload_bytes_per_second",
        "delivery-api",
        lambda t: 3.1e6 + (4.9e6 if t >= losses[0] + 3 * MINUTE else 0.0),
        jitter=0.15,
        digits=0,
    )
    inc.metric(
        "jvm_memory_used_bytes",
        "delivery-api",
        step(ts("2028-03-09T06:20"), 1.35e9, 0.52e9),
        labels={"area": "heap"},
        jitter=0.08,
        digits=0,
    )
    inc.alert = pagerduty(
        "KESTRA products undelivered for more than 60 minutes",
        "delivery-api",
        ts("2028-03-09T12:05"),
        "error",
        "delivery-api",
        {
            "customer": "kestra",
            "oldest_product": "p-60211",
            "oldest_los": "2028-03-09T10:47:00Z",
            "backlog": 1,
        },
    )
    inc.blame(
        guilty,
        [],
        "delivery-api",
        "configuration_error",
        [bucket, retryc, logc, rel, fsc, fsd, occ, ocd],
        onset,
    )
    return inc


def xt99_orbitcat_outage() -> ExtIncident:
    now = ts("2028-03-14T10:10")
    inc = Inc(
        "xt99-orbitcat-outage",
        "Contacts cancelled: no usable element set (LUMEN-8)",
        """OrbitCat, the public element-set catalogue, starts answering 503 at 03:08 (their storage
        cluster degraded; ISO 8601 notices at 03:42 and 06:15). elements-sync fails every
        30-minute refresh from then on and the element sets stop getting newer. LUMEN-8's newest
        set was already 18 hours old (OrbitCat publishes about twice a day, and LUMEN-8's next set
        was due); contact-planner uses a LUMEN set only while it is younger than 24 hours (their
        350-km orbits decay fastest), so from 09:02 every LUMEN-8 contact is
        cancelled with 'no usable element set' and its imagery is lost; the other satellites'
        sets are younger and keep working for now. The alert fires on contact-planner, which only
        consumes what elements-sync could not fetch. Decoys: an elements-sync release at 02:49
        that sets a User-Agent and a 20 s timeout on the very OrbitCat client that fails (the
        commit shares every word of the errors), a contact-planner release at 08:40 and a
        tlm-archive config change. Category: dependency_failure.""",
        now,
        SKERRYLIGHT,
        seed=9901,
        hours=8.5,
    )
    inc.doc(
        "OrbitCat status - GP API",
        """2028-03-14T03:42:00Z Investigating - Requests to /v3/gp are failing with HTTP 503 for most
clients. Element-set publication is paused.
2028-03-14T06:15:00Z Identified - A storage cluster behind the catalogue is degraded after a failed
disk replacement. We are rebuilding it; new element sets will be published once the catalogue is
consistent again. No ETA yet.""",
    )
    inc.doc(
        "Element sets and freshness",
        """elements-sync fetches every customer's GP data (OMM JSON) from OrbitCat every 30 minutes; a
satellite gets a new set when OrbitCat publishes one, usually every 8-16 hours. contact-planner
refuses to compute a pointing table from a set older than 36 hours, 24 hours for LUMEN-7 and
LUMEN-8 (350 km, drag), because the pointing error grows past the beamwidth, and cancels the
contact. Customers can upload their own sets through the console as a
fallback (KESTRA does for every manoeuvre).""",
    )
    inc.noise()
    inc.background(
        inc.begin,
        ts("2028-03-14T07:30"),
        7,
        ["delivery-api", "ops-console", "frame-sync", "antenna-ctl"],
    )
    uac = inc.code(
        ts("2028-03-14T01:58"),
        "elements-sync",
        _sub(inc, "Identify ourselves to OrbitCat and time out requests after 20s"),
        "internal/orbitcat/client.go",
        """func New(baseURL, token string) *Client {
	return &Client{base: baseURL, token: token, http: http.DefaultClient}
}""",
        """func New(baseURL, token string) *Client {
	return &Client{
		base:  baseURL,
		token: token,
		http:  &http.Client{Timeout: 20 * time.Second, Transport: withUserAgent("skerrylight-elements-sync/1.9 (ops@skerrylight.example)")},
	}
}""",
        24,
        author="aroha.n",
    )
    uad = inc.ship(ts("2028-03-14T02:49"), "elements-sync", [uac], "v1.9.0")
    onset = ts("2028-03-14T03:08")
    tlm = inc.config(
        ts("2028-03-14T03:30"),
        "tlm-archive",
        "tlm-archive: insert batches of 8192 rows",
        "deploy/tlm-archive/config/prod.exs",
        "config :tlm_archive, TlmArchive.Sink, batch_rows: 4096, flush_ms: 1000",
        "config :tlm_archive, TlmArchive.Sink, batch_rows: 8192, flush_ms: 1000",
        author="bjorn.lie",
    )
    cpc = inc.code(
        ts("2028-03-14T08:12"),
        "contact-planner",
        _sub(inc, "Cache pass predictions for 10 minutes"),
        "planner/api/passes.py",
        """@router.get("/v1/passes/predict")
def predict(norad: int, days: int = 3) -> list[PassOut]:""",
        """@router.get("/v1/passes/predict")
@ttl_cache(seconds=600)
def predict(norad: int, days: int = 3) -> list[PassOut]:""",
        40,
        author="i.solbakken",
    )
    cpd = inc.ship(ts("2028-03-14T08:40"), "contact-planner", [cpc], "v5.14.0")
    inc.quiet("elements-sync", onset, ["elements refreshed"])
    r = inc.rng
    t = inc.begin + 6 * MINUTE
    while t < now:
        if t < onset:
            inc.log(
                t,
                "elements-sync",
                "INFO",
                f'level=INFO msg="elements refreshed" source=orbitcat sets=14 new={r.choice([0, 0, 1, 2])} newest_epoch_age={r.randint(1, 9)}h{r.randint(0, 59)}m',
            )
        else:
            for attempt in (1, 2, 3):
                inc.log(
                    t + timedelta(seconds=attempt * 7),
                    "elements-sync",
                    "WARNING" if attempt < 3 else "ERROR",
                    f'level={"WARN" if attempt < 3 else "ERROR"} msg="orbitcat fetch failed" url="https://api.orbitcat.example/v3/gp?GROUP=skerrylight&FORMAT=json" status=503 attempt={attempt}/3'
                    + (
                        ""
                        if attempt < 3
                        else ' err="503 Service Unavailable: catalogue temporarily unavailable"'
                    ),
                )
            inc.log(
                t + timedelta(seconds=25),
                "elements-sync",
                "WARNING",
                f'level=WARN msg="keeping previous element sets" sets=14 lumen8_epoch_age={int((t - ts("2028-03-13T09:01:30")).total_seconds() // 3600)}h',
            )
        t += timedelta(minutes=30)
    cancel_start = ts("2028-03-14T09:02")
    for when in (cancel_start, ts("2028-03-14T09:31"), ts("2028-03-14T09:58")):
        cid = f"c-{r.randint(90000, 90999)}"
        inc.log(
            when,
            "contact-planner",
            "ERROR",
            f"contact {cid} (LUMEN-8, {r.choice(SITES)}) cancelled: no usable element set (newest epoch 2028-03-13T09:01:30Z is over 24h old, limit 24h for LUMEN-8)",
            logger="planner.pointing",
        )
        inc.log(
            when + timedelta(seconds=20),
            "ops-console",
            "WARNING",
            f"alarm raised: contact {cid} cancelled by planner",
        )
    inc.errors(
        "contact-planner",
        ts("2028-03-14T07:10"),
        now,
        0.12,
        lambda r: (
            f"element set for LUMEN-8 is {r.randint(20, 23)}h old (limit 24h); contacts will be cancelled at the limit"
        ),
        level="WARNING",
        logger="planner.pointing",
    )

    def age(base_h: float) -> Shape:
        return lambda t: base_h + (t - inc.begin).total_seconds() / 3600

    inc.metric(
        "element_set_age_hours",
        "elements-sync",
        age(16.6),
        labels={"satellite": "LUMEN-8"},
        jitter=0.0,
        digits=1,
    )
    inc.metric(
        "element_set_age_hours",
        "elements-sync",
        age(9),
        labels={"satellite": "LUMEN-7"},
        jitter=0.0,
        digits=1,
    )
    inc.metric(
        "element_set_age_hours",
        "elements-sync",
        age(4),
        labels={"satellite": "KESTRA-SAR2"},
        jitter=0.0,
        digits=1,
    )
    inc.metric(
        "orbitcat_requests_total",
        "elements-sync",
        counter(lambda t: 1 / 600 if t >= onset else 0.0, inc.begin),
        labels={"code": "503"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "orbitcat_requests_total",
        "elements-sync",
        counter(lambda t: 0.0 if t >= onset else 1 / 1800, inc.begin),
        labels={"code": "200"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "contacts_cancelled_per_hour",
        "contact-planner",
        step(cancel_start, 0, 2),
        jitter=0.0,
        digits=0,
    )
    inc.fleet(elements_sync={"err": lambda t, v: 1.0 if t >= onset else v})
    inc.alert = alerts.alertmanager(
        "ContactsCancelled",
        "contact-planner",
        ts("2028-03-14T09:35"),
        "critical",
        "Contacts cancelled: no usable element set (LUMEN-8)",
        "contact-planner cancelled 2 contacts in the last hour because no element set was younger than 36h.",
        "increase(contacts_cancelled_total[1h]) >= 2",
        team="flight-dynamics",
        satellite="LUMEN-8",
    )
    inc.outside(
        "OrbitCat element-set API outage (503s, publication paused)",
        "elements-sync",
        "dependency_failure",
        [uac, uad, tlm, cpc, cpd],
        onset,
    )
    return inc


def xt100_pta_pdu_trip() -> ExtIncident:
    now = ts("2028-03-21T15:30")
    inc = Inc(
        "xt100-pta-pdu-trip",
        "check_contact_frames PTA CRITICAL",
        """At 14:06 Puerto Tala loses utility power. The UPS carries the site and the generator
        starts, but at the transfer back to generator power the breaker of PDU PTA-PDU-B (modem
        rack B) trips: modems PTA-1-M1 and PTA-2-M1 go dark at 14:07. frame-sync's TCP sessions to
        both modems are reset, then every dial gets 'no route to host'; antenna-ctl at PTA keeps
        tracking but reads no Eb/N0 from the modems, and every PTA contact closes without frames
        while HVN and KRP work normally. The site's facility monitoring (UPS, generator, PDU
        SNMP traps) says what happened. Decoys: a frame-sync release at 13:58 whose commit changes
        how it reconnects to modems (the words of every error), an antenna-ctl config change of
        PTA-2's elevation mask at 13:35, and a delivery-api deploy after the onset. Category:
        infrastructure.""",
        now,
        SKERRYLIGHT,
        seed=10001,
        hours=6,
    )
    inc.doc(
        "Puerto Tala site",
        """Two 7.3 m antennas (PTA-1, PTA-2). Rack A: ACUs, site switch sw-pta-01, timing. Rack B: the
modems PTA-1-M1 and PTA-2-M1 (10.62.4.11, 10.62.4.12) on PDU PTA-PDU-B. UPS PTA-UPS-1 (20 min at full
load) and a 60 kVA diesel generator with automatic transfer. Facility events (UPS, generator, PDUs)
arrive as SNMP traps in site-facility. The site has no staff at night; the caretaker in Punta
Vidal can be on site in 40 minutes.""",
    )
    inc.noise()
    inc.background(
        inc.begin,
        ts("2028-03-21T12:30"),
        7,
        ["contact-planner", "ops-console", "tlm-archive", "elements-sync"],
    )
    mask = inc.config(
        ts("2028-03-21T13:35"),
        "antenna-ctl",
        "antenna-ctl: PTA-2 elevation mask 5 -> 3 deg to the west (new survey)",
        "deploy/antenna-ctl/sites/pta.toml",
        '[antennas.PTA-2]\nacu = "10.62.3.22:4001"\nmask_deg = { west = 5.0, east = 7.5 }',
        '[antennas.PTA-2]\nacu = "10.62.3.22:4001"\nmask_deg = { west = 3.0, east = 7.5 }',
        author="bjorn.lie",
    )
    recc = inc.code(
        ts("2028-03-21T13:20"),
        "frame-sync",
        _sub(inc, "Reconnect to modems with capped exponential backoff"),
        "internal/modem/session.go",
        """	for {
		conn, err := net.DialTimeout("tcp", m.Addr, 5*time.Second)
		if err != nil {
			log.Warn("modem dial failed", "modem", m.Name, "err", err)
			time.Sleep(2 * time.Second)
			continue
		}""",
        """	b := backoff.NewExponentialBackOff(backoff.WithMaxInterval(30 * time.Second))
	for {
		conn, err := net.DialTimeout("tcp", m.Addr, 5*time.Second)
		if err != nil {
			log.Warn("modem dial failed", "modem", m.Name, "err", err)
			time.Sleep(b.NextBackOff())
			continue
		}
		b.Reset()""",
        71,
        author="mcarrizo",
    )
    recd = inc.ship(ts("2028-03-21T13:58"), "frame-sync", [recc], "v2.31.0")
    onset = ts("2028-03-21T14:07")
    dc = inc.code(
        ts("2028-03-21T14:05"),
        "delivery-api",
        _sub(inc, "Send product.ready webhooks with an idempotency key"),
        "src/main/java/example/skerrylight/delivery/webhook/WebhookSender.java",
        '        req.header("Content-Type", "application/json");',
        '        req.header("Content-Type", "application/json");\n        req.header("Idempotency-Key", event.id());',
        52,
        author="i.solbakken",
    )
    dd = inc.ship(ts("2028-03-21T14:24"), "delivery-api", [dc], "v3.8.1")
    fac = [
        (
            "14:06:02",
            "WARNING",
            "trap upsOnBattery from PTA-UPS-1: input voltage 0 V, load 41%, runtime 24 min",
        ),
        ("14:06:09", "INFO", "trap genStarted from GEN-PTA: engine running, 0 kW"),
        ("14:06:41", "WARNING", "trap upsTransferToGenerator from PTA-UPS-1: input 221 V 48.1 Hz"),
        (
            "14:06:44",
            "CRITICAL",
            "trap pduBankOverload from PTA-PDU-B: bank 2 current 19.6 A > 16 A, breaker tripped",
        ),
        (
            "14:06:45",
            "ERROR",
            "trap pduOutletOff from PTA-PDU-B: outlets 9-16 de-energised (PTA-1-M1, PTA-2-M1)",
        ),
        (
            "14:07:30",
            "ERROR",
            "ping lost: pta-modem-1 (10.62.4.11) and pta-modem-2 (10.62.4.12), 5/5 probes",
        ),
        ("14:36:00", "WARNING", "GEN-PTA running 30 min, fuel 82%; utility still down"),
        ("15:06:00", "WARNING", "GEN-PTA running 60 min, fuel 71%; utility still down"),
    ]
    for hm, level, msg in fac:
        inc.log(ts(f"2028-03-21T{hm}"), "site-facility", level, msg, site="PTA", source="snmptrapd")
    inc.log(
        ts("2028-03-21T13:59:20"),
        "frame-sync",
        "INFO",
        'level=INFO msg="frame-sync starting" version=2.31.0 modems=6',
    )
    for m, ip in (("PTA-1-M1", "10.62.4.11"), ("PTA-2-M1", "10.62.4.12")):
        inc.log(
            ts("2028-03-21T14:06:46"),
            "frame-sync",
            "ERROR",
            f'level=ERROR msg="modem session lost" modem={m} err="read tcp 10.62.0.5:48122->{ip}:5000: read: connection reset by peer"',
            site="PTA",
        )
    inc.errors(
        "frame-sync",
        onset,
        now,
        1.2,
        lambda r: (
            f'level=WARN msg="modem dial failed" modem={r.choice(["PTA-1-M1", "PTA-2-M1"])} '
            f'err="dial tcp {r.choice(["10.62.4.11", "10.62.4.12"])}:5000: connect: no route to host" next_retry={r.choice(["16s", "30s", "30s"])}'
        ),
        level="WARNING",
        site="PTA",
    )
    r = inc.rng
    for t in _contacts(r, onset + 4 * MINUTE, now, 14):
        ant = r.choice(["PTA-1", "PTA-2"])
        cid = f"c-{r.randint(91000, 91999)}"
        inc.log(
            t + 2 * MINUTE,
            "antenna-ctl",
            "WARNING",
            f"WARN antenna_ctl::rf: {ant} modem not answering status requests; Eb/N0 unavailable for contact {cid}",
            site="PTA",
        )
        inc.log(
            t + 9 * MINUTE,
            "frame-sync",
            "ERROR",
            f'level=ERROR msg="contact closed without frames" contact={cid} antenna={ant} cadus=0 reason="modem offline"',
            site="PTA",
        )
    for t in _contacts(r, inc.begin, now, 12):
        site = r.choice(["HVN", "KRP"] if t >= onset else list(SITES))
        inc.log(
            t,
            "frame-sync",
            "INFO",
            f'level=INFO msg="contact closed" contact=c-{r.randint(88000, 90999)} cadus={r.randint(300000, 2100000)} rs_uncorrectable=0',
            site=site,
        )
    for site in SITES:
        inc.metric(
            "modems_connected",
            "frame-sync",
            (lambda t: 0 if t >= onset else 2) if site == "PTA" else (lambda t: 2),
            labels={"site": site},
            jitter=0.0,
            digits=0,
        )
        inc.metric(
            "contact_carrier_lock_ratio",
            "antenna-ctl",
            step(onset, 0.97, 0.0) if site == "PTA" else (lambda t: 0.97),
            labels={"site": site},
            jitter=0.02,
        )
    inc.metric(
        "ups_on_battery",
        "site-facility",
        between(ts("2028-03-21T14:06"), ts("2028-03-21T14:07"), 1, 0),
        labels={"ups": "PTA-UPS-1"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "generator_running",
        "site-facility",
        step(ts("2028-03-21T14:06"), 0, 1),
        labels={"generator": "GEN-PTA"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "pdu_bank_current_amps",
        "site-facility",
        lambda t: 0.0 if t >= onset else 11.8,
        labels={"pdu": "PTA-PDU-B", "bank": "2"},
        jitter=0.03,
        digits=1,
    )
    inc.fleet(frame_sync={"rps": times(step(onset, 1.0, 0.62))})
    inc.alert = icinga(
        "check_contact_frames PTA CRITICAL",
        "frame-sync",
        ts("2028-03-21T14:41"),
        "gs-pta",
        "check_contact_frames",
        "CRITICAL - 3 of the last 3 contacts at PTA closed without frames (HVN 0/6, KRP 0/2)",
        "CRITICAL",
    )
    inc.outside(
        "Puerto Tala power cut: PDU PTA-PDU-B breaker tripped at generator transfer, modems off",
        "frame-sync",
        "infrastructure",
        [mask, recc, recd, dc, dd],
        onset,
    )
    return inc


def xt101_grazing_pass() -> ExtIncident:
    now = ts("2028-03-25T19:50")
    inc = Inc(
        "xt101-grazing-pass",
        "ContactSuccessRatioLow KRP",
        """Nothing is wrong. Kerrow Point has one antenna and few contacts at night; the
        ContactSuccessRatioLow rule divides successful by scheduled contacts over two hours with
        no minimum count and no 'for'. At 18:34 a best-effort AURORA-3 pass with a maximum
        elevation of 2.6 degrees (below the 5 degree mask; customers may book such passes as
        best effort, and they lock 20-60% of the time) locks for 31% of the pass and counts as a
        failure: one of three contacts, the ratio reads 0.67 and pages. The next two contacts are
        normal. Grazing best-effort passes at HVN earlier in the day locked just as poorly without
        paging (more contacts there). Decoys: an antenna-ctl release at KRP 22 minutes before
        (ACU wind-stow threshold) sharing the tracking words, a contact-planner commit about best
        effort labels in the console, and a tlm-archive deploy. Category: healthy.""",
        now,
        SKERRYLIGHT,
        seed=10101,
        hours=6,
    )
    inc.doc(
        "Best-effort passes",
        """Customers may book passes whose maximum elevation is below the site's mask (5 deg) as best
effort: they are cheaper, not covered by the delivery contract, and lock 20-60% of the pass
(terrain, multipath, atmosphere). antenna-ctl marks a contact successful when the carrier was locked
for at least 50% of the scheduled time, best effort or not.""",
    )
    inc.doc(
        "Alert rule ContactSuccessRatioLow",
        """expr: sum by (site) (increase(contacts_successful_total[2h])) / sum by (site)
(increase(contacts_scheduled_total[2h])) < 0.9 (no `for`, no minimum count). Known to be noisy at
KRP at night; ticket GSN-611 (count best-effort passes separately) is open.""",
    )
    inc.noise()
    inc.background(
        inc.begin, ts("2028-03-25T17:30"), 7, ["delivery-api", "ops-console", "frame-sync"]
    )
    windc = inc.code(
        ts("2028-03-25T17:28"),
        "antenna-ctl",
        _sub(inc, "Stow KRP-1 at 18 m/s sustained wind instead of 20 m/s"),
        "src/site/krp.rs",
        "pub const WIND_STOW_SUSTAINED_MS: f32 = 20.0;",
        "pub const WIND_STOW_SUSTAINED_MS: f32 = 18.0;",
        9,
        author="bjorn.lie",
    )
    windd = inc.ship(ts("2028-03-25T18:12"), "antenna-ctl", [windc], "v0.20.2")
    labc = inc.code(
        ts("2028-03-25T17:50"),
        "contact-planner",
        _sub(inc, "Label best-effort passes in the schedule export"),
        "planner/export/schedule.py",
        '        row["kind"] = "contact"',
        '        row["kind"] = "best-effort" if c.best_effort else "contact"',
        33,
        author="i.solbakken",
    )
    tlmc = inc.code(
        ts("2028-03-25T18:20"),
        "tlm-archive",
        _sub(inc, "Name the ClickHouse insert timeout in config"),
        "config/runtime.exs",
        "config :tlm_archive, TlmArchive.Sink, timeout: 30_000",
        'config :tlm_archive, TlmArchive.Sink, timeout: String.to_integer(System.get_env("CH_INSERT_TIMEOUT_MS", "30000"))',
        18,
        author="aroha.n",
    )
    tlmd = inc.ship(ts("2028-03-25T18:41"), "tlm-archive", [tlmc], "v0.14.0")
    onset = ts("2028-03-25T18:34")
    r = inc.rng
    krp = [
        ts("2028-03-25T14:05"),
        ts("2028-03-25T15:48"),
        ts("2028-03-25T17:01"),
        ts("2028-03-25T17:55"),
        onset,
        ts("2028-03-25T19:02"),
        ts("2028-03-25T19:31"),
    ]
    for t in krp:
        cid = f"c-{r.randint(92000, 92999)}"
        if t == onset:
            inc.log(
                t,
                "antenna-ctl",
                "INFO",
                f"INFO antenna_ctl::track: contact {cid} (AURORA-3, best effort, max el 2.6 deg) AOS at KRP-1, program track",
                site="KRP",
            )
            inc.log(
                t + 4 * MINUTE,
                "antenna-ctl",
                "INFO",
                f"INFO antenna_ctl::track: contact {cid} carrier lock acquired at el 1.9 deg",
                site="KRP",
            )
            inc.log(
                t + 7 * MINUTE,
                "antenna-ctl",
                "WARNING",
                f"WARN antenna_ctl::track: contact {cid} carrier lost at el 2.4 deg (Eb/N0 3.1 dB)",
                site="KRP",
            )
            inc.log(
                t + 11 * MINUTE,
                "antenna-ctl",
                "ERROR",
                f"ERROR antenna_ctl::track: contact {cid} unsuccessful: carrier lock 31% of pass (< 50%), best effort",
                site="KRP",
                contact=cid,
            )
            inc.log(
                t + 12 * MINUTE,
                "frame-sync",
                "INFO",
                f'level=INFO msg="contact closed" contact={cid} cadus=21877 rs_uncorrectable=412',
                site="KRP",
            )
        else:
            inc.log(
                t + 9 * MINUTE,
                "antenna-ctl",
                "INFO",
                f"INFO antenna_ctl::track: contact {cid} LOS at KRP-1, carrier lock {r.uniform(95, 99.5):.1f}% of pass",
                site="KRP",
            )
            inc.log(
                t + 10 * MINUTE,
                "frame-sync",
                "INFO",
                f'level=INFO msg="contact closed" contact={cid} cadus={r.randint(300000, 1900000)} rs_uncorrectable=0',
                site="KRP",
            )
    for hm, pct in (("15:12", 44), ("16:40", 27)):
        cid = f"c-{r.randint(93000, 93999)}"
        inc.log(
            ts(f"2028-03-25T{hm}"),
            "antenna-ctl",
            "ERROR",
            f"ERROR antenna_ctl::track: contact {cid} unsuccessful: carrier lock {pct}% of pass (< 50%), best effort",
            site="HVN",
            contact=cid,
        )
    inc.log(
        ts("2028-03-25T18:13:05"),
        "antenna-ctl",
        "INFO",
        "INFO antenna_ctl: starting 0.20.2 site=KRP acu=KRP-1 wind_stow_ms=18.0",
        site="KRP",
    )

    def ratio(t: datetime) -> float:
        window = [k for k in krp if t - timedelta(hours=2) <= k + 11 * MINUTE <= t]
        if not window:
            return 1.0
        return round(sum(1 for k in window if k != onset) / len(window), 3)

    inc.metric("contact_success_ratio_2h", "antenna-ctl", ratio, labels={"site": "KRP"}, jitter=0.0)
    inc.metric(
        "contact_success_ratio_2h",
        "antenna-ctl",
        lambda t: 0.96,
        labels={"site": "HVN"},
        jitter=0.02,
    )
    inc.metric(
        "wind_speed_ms", "antenna-ctl", lambda t: 7.5, labels={"site": "KRP"}, jitter=0.2, digits=1
    )
    inc.fleet()
    inc.alert = alerts.alertmanager(
        "ContactSuccessRatioLow",
        "antenna-ctl",
        onset + 12 * MINUTE,
        "warning",
        "Contact success ratio at KRP is 0.67",
        "Fewer than 90% of scheduled contacts at KRP succeeded in the last 2 hours.",
        "sum by (site) (increase(contacts_successful_total[2h])) / sum by (site) (increase(contacts_scheduled_total[2h])) < 0.9",
        site="KRP",
        team="ground-segment",
    )
    inc.healthy(
        "antenna-ctl",
        "a best-effort grazing pass (max elevation 2.6 deg) counted as one failure in three under a ratio rule with no minimum count",
        [windc, windd, labc, tlmc, tlmd],
        onset,
    )
    return inc


def xt102_rs_burst_hvn() -> ExtIncident:
    now = ts("2028-04-02T07:40")
    inc = Inc(
        "xt102-rs-burst-hvn",
        "Reed-Solomon uncorrectable ratio above 2% at HVN",
        """For about forty minutes (06:12-06:52) three contacts on two Havnoy antennas (HVN-1 and
        HVN-3) close with 6-9% of their frames uncorrectable by Reed-Solomon, then the next contacts
        are clean again. Eb/N0 stayed normal, the weather was clear and dry, the modems logged no
        fault, the antennas tracked normally, the satellites were different ones and no change
        touched frame-sync, the modems or the site. Nothing in the data explains it. Decoys: a
        tlm-archive deploy and a delivery-api config change near the onset, and an antenna-ctl
        commit after it. Category: unknown.""",
        now,
        SKERRYLIGHT,
        seed=10201,
        hours=6,
    )
    inc.doc(
        "Runbook: Reed-Solomon errors",
        """Uncorrectable frames are normally under 0.1%. Causes seen before: low Eb/N0 (rain fade, low
elevation, pointing), RF interference (check the spectrum monitor), a modem firmware fault (modem
log), a wrong RS configuration (interleave depth, virtual fill) after a config change. One contact
alone: the satellite. Several antennas at one site: site RF or interference.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2028-04-02T05:00"), 8)
    onset, end = ts("2028-04-02T06:12"), ts("2028-04-02T06:52")
    tlmc = inc.code(
        ts("2028-04-02T05:31"),
        "tlm-archive",
        _sub(inc, "Drop the legacy tlm_hk_v1 writer"),
        "lib/tlm_archive/sink.ex",
        "    :ok = write(:tlm_hk, rows)\n    :ok = write(:tlm_hk_v1, rows)",
        "    :ok = write(:tlm_hk, rows)",
        41,
        author="aroha.n",
    )
    tlmd = inc.ship(ts("2028-04-02T05:52"), "tlm-archive", [tlmc], "v0.15.0")
    dcfg = inc.config(
        ts("2028-04-02T06:05"),
        "delivery-api",
        "delivery-api: AURORA webhook secret rotated",
        "deploy/delivery-api/customers/aurora.yaml",
        "webhook:\n  url: https://hooks.aurora-sat.example/skerry\n  secret-ref: aurora-webhook-2027",
        "webhook:\n  url: https://hooks.aurora-sat.example/skerry\n  secret-ref: aurora-webhook-2028",
        author="i.solbakken",
    )
    late = inc.code(
        ts("2028-04-02T07:05"),
        "antenna-ctl",
        _sub(inc, "Record the ACU firmware version at session start"),
        "src/acu/session.rs",
        '        info!(acu = %self.name, "ACU session open");',
        '        info!(acu = %self.name, firmware = %status.firmware, "ACU session open");',
        58,
        author="bjorn.lie",
    )
    r = inc.rng
    bad = [
        (ts("2028-04-02T06:12"), "HVN-1", "LUMEN-7", 6.4),
        (ts("2028-04-02T06:27"), "HVN-3", "AURORA-3", 8.9),
        (ts("2028-04-02T06:44"), "HVN-1", "KESTRA-SAR2", 7.1),
    ]
    for t, ant, sat, pct in bad:
        cid = f"c-{r.randint(94000, 94999)}"
        inc.log(
            t,
            "frame-sync",
            "WARNING",
            f'level=WARN msg="rs uncorrectable rate high" contact={cid} antenna={ant} satellite={sat} ratio={pct / 100:.3f} window=60s',
            site="HVN",
        )
        inc.log(
            t + 8 * MINUTE,
            "frame-sync",
            "ERROR",
            f'level=ERROR msg="contact closed degraded" contact={cid} antenna={ant} satellite={sat} cadus={r.randint(800000, 1500000)} rs_uncorrectable_ratio={pct / 100:.3f} ebn0_db_mean={r.uniform(12.5, 14.0):.1f}',
            site="HVN",
        )
        inc.log(
            t + 9 * MINUTE,
            "delivery-api",
            "WARNING",
            f"Product for contact {cid} built with gaps ({pct:.1f}% frames missing); customer notified",
            logger="e.s.delivery.DeliveryService",
        )
        inc.log(
            t + 8 * MINUTE,
            "antenna-ctl",
            "INFO",
            f"INFO antenna_ctl::track: contact {cid} LOS at {ant}, carrier lock 99.{r.randint(1, 8)}% of pass",
            site="HVN",
        )
    for t in _contacts(r, inc.begin, now, 13):
        if onset - 10 * MINUTE <= t <= end:
            continue
        inc.log(
            t,
            "frame-sync",
            "INFO",
            f'level=INFO msg="contact closed" contact=c-{r.randint(88000, 93999)} cadus={r.randint(300000, 2100000)} rs_uncorrectable=0',
            site=r.choice(SITES),
        )
    inc.log(
        ts("2028-04-02T07:12"),
        "ops-console",
        "INFO",
        "operator note on alarm RS-HVN: spectrum monitor recording reviewed, nothing above the noise floor",
    )
    inc.metric(
        "rs_uncorrectable_ratio",
        "frame-sync",
        between(onset, end, 0.075, 0.0006),
        labels={"site": "HVN"},
        jitter=0.2,
        digits=4,
    )
    inc.metric(
        "rs_uncorrectable_ratio",
        "frame-sync",
        lambda t: 0.0005,
        labels={"site": "KRP"},
        jitter=0.2,
        digits=4,
    )
    inc.metric(
        "ebn0_db_mean", "antenna-ctl", lambda t: 13.2, labels={"site": "HVN"}, jitter=0.04, digits=1
    )
    inc.metric(
        "rain_rate_mm_h", "antenna-ctl", lambda t: 0.0, labels={"site": "HVN"}, jitter=0.0, digits=1
    )
    inc.metric(
        "modem_temperature_celsius",
        "frame-sync",
        lambda t: 38.5,
        labels={"site": "HVN"},
        jitter=0.02,
        digits=1,
    )
    inc.fleet()
    inc.alert = alerts.grafana(
        "Reed-Solomon uncorrectable ratio above 2% at HVN",
        "frame-sync",
        ts("2028-04-02T06:36"),
        "warning",
        "Frame quality by site",
        "rs_uncorrectable_ratio{site=HVN} = 0.089",
        site="HVN",
        team="ground-segment",
    )
    inc.unexplained("frame-sync", [tlmc, tlmd, dcfg, late], onset)
    return inc


# --- Proscenium Box Office ------------------------------------------------------------------------

_HJ = "src/main/java/uk/example/proscenium/holds"


def _perf(r: random.Random) -> int:
    return r.choice([77102, 77118, 77140, 77141, 77163, 77190])


def xt103_hold_ttl_millis() -> ExtIncident:
    now = ts("2028-05-11T19:40")
    inc = Inc(
        "xt103-hold-ttl-millis",
        "checkout payment errors above 5%",
        """hold-service 3.18.0 (deployed 18:38, three commits) moved the hold TTL into configuration
        properties: the commit writes the Redis key with PSETEX, which takes milliseconds, but
        passes holdTtl.getSeconds() (600): every new hold now lives 0.6 s. Customers pick seats,
        the hold is created and expires before they reach payment; checkout's confirm call gets
        404 hold_expired and the order fails, and the seats flash back to available on seat maps.
        Holds created before the deploy keep their 10 minutes, so failures ramp up over the first
        minutes. checkout alerts (downstream); its Ruby backtraces name HoldClient#confirm!.
        hold-service itself logs a flood of 'hold expired' INFO lines and its expiry metrics show
        holds living under a second. Decoys: a checkout deploy at 18:52 that adds a hold countdown
        to the payment page (shares 'hold' and 'payment'), an Apple Pay flag at 18:20, the
        release's sibling commits (a gauge of active holds, a Lettuce bump) and a seatmap-api
        deploy after the onset. Category: code_defect.""",
        now,
        PROSCENIUM,
        seed=10301,
        hours=6,
    )
    inc.doc(
        "How a booking flows",
        """seatmap-api shows the map; selecting seats asks hold-service for a hold (POST /holds, 10 minutes,
Redis key hold:{id} with the TTL, row in boxdb.holds); checkout collects details and payment and
calls POST /holds/{id}/confirm before charging the card. An expired hold releases its seats (Redis
keyspace notification -> hold-service's expiry listener) and confirm answers 404 hold_expired.""",
    )
    inc.noise()
    inc.background(
        inc.begin,
        ts("2028-05-11T17:00"),
        7,
        ["ticket-issuer", "door-scan", "pricing-engine", "waiting-room"],
    )
    guilty = inc.code(
        ts("2028-05-10T16:44"),
        "hold-service",
        _sub(inc, "Move the hold TTL to HoldProperties"),
        f"{_HJ}/HoldStore.java",
        """    public Hold create(HoldRequest req) {
        Hold hold = Hold.newFor(req, clock.instant());
        redis.setex(key(hold.id()), 600, codec.encode(hold));
        repository.insert(hold);
        return hold;
    }""",
        """    public Hold create(HoldRequest req) {
        Hold hold = Hold.newFor(req, clock.instant(), props.getHoldTtl());
        redis.psetex(key(hold.id()), props.getHoldTtl().getSeconds(), codec.encode(hold));
        repository.insert(hold);
        return hold;
    }""",
        47,
        author="priya.kaul",
    )
    gauge = inc.code(
        ts("2028-05-10T17:30"),
        "hold-service",
        _sub(inc, "Gauge of active holds per performance"),
        f"{_HJ}/HoldMetrics.java",
        "    private final MeterRegistry registry;",
        "    private final MeterRegistry registry;\n    private final Map<Long, AtomicInteger> active = new ConcurrentHashMap<>();",
        21,
        author="tobi.adeyemi",
    )
    lettuce = inc.code(
        ts("2028-05-11T08:02"),
        "hold-service",
        _sub(inc, "Bump lettuce-core from 6.3.2.RELEASE to 6.4.0.RELEASE"),
        "pom.xml",
        "      <artifactId>lettuce-core</artifactId>\n      <version>6.3.2.RELEASE</version>",
        "      <artifactId>lettuce-core</artifactId>\n      <version>6.4.0.RELEASE</version>",
        102,
        author="dependabot[bot]",
    )
    applepay = inc.flag(
        ts("2028-05-11T18:20"),
        "checkout",
        "checkout.apple_pay",
        "enabled: false\nrollout: 0",
        "enabled: true\nrollout: 100",
        "Apple Pay for everyone after the 10% trial",
        author="ffion.price",
    )
    rel = inc.ship(ts("2028-05-11T18:38"), "hold-service", [guilty, gauge, lettuce], "3.18.0")
    onset = ts("2028-05-11T18:40")
    cdc = inc.code(
        ts("2028-05-11T18:01"),
        "checkout",
        _sub(inc, "Show the hold countdown on the payment step"),
        "app/views/checkout/payments/new.html.erb",
        '<%= render "checkout/basket_summary", basket: @basket %>',
        '<%= render "checkout/basket_summary", basket: @basket %>\n<%= render "checkout/hold_countdown", expires_at: @basket.hold_expires_at %>',
        12,
        author="g.ashdown",
    )
    cdd = inc.ship(ts("2028-05-11T18:52"), "checkout", [cdc], "2028.05.11.2")
    smc = inc.code(
        ts("2028-05-11T18:49"),
        "seatmap-api",
        _sub(inc, "Return wheelchair spaces as a separate layer"),
        "internal/render/layers.go",
        "\tlayers := []Layer{seatsLayer(m)}",
        "\tlayers := []Layer{seatsLayer(m), accessLayer(m)}",
        30,
        author="m.szabo",
    )
    smd = inc.ship(ts("2028-05-11T19:06"), "seatmap-api", [smc], "v2.44.0")
    inc.quiet("hold-service", onset + 3 * MINUTE, ["Hold confirmed"])
    inc.log(
        ts("2028-05-11T18:39:12"),
        "hold-service",
        "INFO",
        "Started HoldServiceApplication in 7.9 seconds (process running for 8.6)",
        logger="u.e.p.holds.HoldServiceApplication",
    )

    def failing(frac: float) -> float:
        return 0.8 + 2.2 * min(1.0, frac * 6)

    trace = ruby_trace(
        "HoldClient::HoldExpired",
        "hold not found or expired (404 hold_expired)",
        [
            "app/clients/hold_client.rb:42:in `confirm!'",
            "app/services/checkout/place_order.rb:31:in `block in call'",
            "app/services/checkout/place_order.rb:24:in `call'",
            "app/controllers/checkout/payments_controller.rb:27:in `create'",
            "actionpack (7.1.3.4) lib/action_controller/metal/basic_implicit_render.rb:6:in `send_action'",
        ],
    )
    inc.errors(
        "checkout",
        onset + 3 * MINUTE,
        now,
        failing,
        lambda r: (
            f"HoldClient::HoldExpired (hold h_{r.randint(9100000, 9199999)} not found or expired (404 hold_expired)) order=PB-{r.randint(4480000, 4489999)} performance={_perf(r)}"
        ),
        exception=trace,
    )
    inc.errors(
        "checkout",
        onset + 3 * MINUTE,
        now,
        lambda f: failing(f) * 0.8,
        lambda r: (
            f"Completed 409 Conflict in {r.randint(180, 420)}ms (Views: 0.0ms | ActiveRecord: {r.uniform(4, 15):.1f}ms | Allocations: {r.randint(20000, 40000)})"
        ),
        level="WARNING",
    )
    inc.errors(
        "hold-service",
        onset,
        now,
        5,
        lambda r: (
            f"Hold h_{r.randint(9100000, 9199999)} expired after PT0.6S, {r.randint(1, 6)} seats released performance={_perf(r)}"
        ),
        level="INFO",
        logger="u.e.p.holds.ExpiryListener",
    )
    inc.errors(
        "hold-service",
        onset + 3 * MINUTE,
        now,
        2,
        lambda r: (
            f"Confirm refused: hold h_{r.randint(9100000, 9199999)} not found (expired) -> 404"
        ),
        level="WARNING",
        logger="u.e.p.holds.HoldController",
    )
    inc.errors(
        "seatmap-api",
        onset + 2 * MINUTE,
        now,
        0.5,
        lambda r: (
            f'level=warn msg="availability changed during render" performance={_perf(r)} seats_released={r.randint(2, 9)}'
        ),
        level="WARNING",
    )
    inc.fleet(
        checkout={"err": add(ramp(onset + 2 * MINUTE, onset + 12 * MINUTE, 0.0, 0.21))},
        hold_service={"err": add(ramp(onset + 2 * MINUTE, onset + 12 * MINUTE, 0.0, 0.18))},
    )
    inc.metric(
        "holds_expired_per_second", "hold-service", step(onset, 0.35, 0.62), jitter=0.1, digits=3
    )
    inc.metric(
        "hold_lifetime_seconds_p50", "hold-service", step(onset, 560, 0.6), jitter=0.03, digits=1
    )
    inc.metric(
        "holds_confirmed_per_second",
        "hold-service",
        step(onset + 3 * MINUTE, 0.31, 0.01),
        jitter=0.1,
        digits=3,
    )
    inc.metric(
        "redis_keys",
        "hold-service",
        step(onset, 2150, 9),
        labels={"prefix": "hold:"},
        jitter=0.05,
        digits=0,
    )
    inc.metric(
        "orders_completed_per_minute",
        "checkout",
        step(onset + 3 * MINUTE, 18, 0.4),
        jitter=0.1,
        digits=1,
    )
    inc.alert = honeycomb(
        "checkout payment errors above 5%",
        "checkout",
        ts("2028-05-11T18:58"),
        "critical",
        "COUNT where http.route = /checkout/payment and error exists / COUNT, last 10 min",
        0.21,
        "> 0.05",
    )
    inc.blame(
        guilty,
        [rel],
        "hold-service",
        "code_defect",
        [gauge, lettuce, applepay, cdc, cdd, smc, smd],
        onset,
    )
    return inc


def xt104_puma_threads_pool() -> ExtIncident:
    now = ts("2028-05-20T12:40")
    inc = Inc(
        "xt104-puma-threads-pool",
        "checkout p95 latency above 3s",
        """A Helm values change at 09:05 runs checkout with fewer Puma workers and more threads
        (WEB_CONCURRENCY 4 -> 2, RAILS_MAX_THREADS 5 -> 16) to save memory, but leaves DB_POOL at 5:
        each worker's 16 threads now share 5 ActiveRecord connections. At Saturday morning's
        quiet traffic nothing shows; when the matinee crowd arrives at 11:30 (10:00 box office
        opening plus the lunchtime peak) threads wait for a connection, checkout's p95 climbs and
        from 11:34 requests fail with ActiveRecord::ConnectionTimeoutError after 5 s. boxdb is
        idle (connections and CPU low). Decoys: a checkout deploy at 11:10 that eager-loads order
        tickets (ActiveRecord words, the orders controller), boxdb's max_connections raised at
        10:40, and a waiting-room deploy at 11:26. Category: configuration_error.""",
        now,
        PROSCENIUM,
        seed=10401,
        hours=6,
    )
    inc.doc(
        "checkout runtime",
        """Puma in cluster mode: WEB_CONCURRENCY workers per pod, RAILS_MAX_THREADS threads per worker.
config/database.yml: pool: <%= ENV.fetch("DB_POOL", 5) %>, checkout_timeout 5. Each thread that
touches the database holds a connection from its worker's pool until the request ends. 8 pods.""",
    )
    inc.noise()
    inc.background(
        inc.begin,
        ts("2028-05-20T10:20"),
        7,
        ["ticket-issuer", "door-scan", "pricing-engine", "seatmap-api"],
    )
    guilty = inc.config(
        ts("2028-05-20T09:05"),
        "checkout",
        "checkout: 2 Puma workers x 16 threads per pod (memory 3.1 GiB -> 1.9 GiB)",
        "deploy/checkout/values-prod.yaml",
        """env:
  RAILS_ENV: production
  WEB_CONCURRENCY: "4"
  RAILS_MAX_THREADS: "5"
  DB_POOL: "5"
resources:
  limits:
    memory: 3584Mi""",
        """env:
  RAILS_ENV: production
  WEB_CONCURRENCY: "2"
  RAILS_MAX_THREADS: "16"
  DB_POOL: "5"
resources:
  limits:
    memory: 2304Mi""",
        author="tobi.adeyemi",
        line=18,
    )
    pgc = inc.config(
        ts("2028-05-20T10:40"),
        "boxdb",
        "boxdb: max_connections 300 -> 400 ahead of the summer on-sales",
        "terraform/boxdb/parameters.tf",
        '  parameter {\n    name  = "max_connections"\n    value = "300"\n  }',
        '  parameter {\n    name  = "max_connections"\n    value = "400"\n  }',
        author="m.szabo",
    )
    eager = inc.code(
        ts("2028-05-20T10:48"),
        "checkout",
        _sub(inc, "Eager-load tickets on the order confirmation page"),
        "app/controllers/orders_controller.rb",
        """  def show
    @order = current_customer.orders.find_by!(reference: params[:ref])
  end""",
        """  def show
    @order = current_customer.orders.includes(tickets: :seat).find_by!(reference: params[:ref])
  end""",
        14,
        author="g.ashdown",
    )
    ed = inc.ship(ts("2028-05-20T11:10"), "checkout", [eager], "2028.05.20.1")
    wrc = inc.code(
        ts("2028-05-20T11:02"),
        "waiting-room",
        _sub(inc, "Show the estimated wait in minutes rather than a position"),
        "src/routes/status.ts",
        "  return { position: ticket.position };",
        "  return { position: ticket.position, etaMinutes: Math.ceil(ticket.position / rate) };",
        22,
        author="priya.kaul",
    )
    wrd = inc.ship(ts("2028-05-20T11:26"), "waiting-room", [wrc], "v4.9.0")
    rollout = ts("2028-05-20T09:12")
    inc.log(
        rollout,
        "checkout",
        "INFO",
        "Puma starting in cluster mode... * Puma version: 6.4.2 * Min threads: 16 * Max threads: 16 * Environment: production * Master PID: 1 * Workers: 2",
    )
    onset = ts("2028-05-20T11:31")
    peak = ramp(ts("2028-05-20T11:15"), ts("2028-05-20T11:45"), 1.0, 2.6)
    trace = ruby_trace(
        "ActiveRecord::ConnectionTimeoutError",
        "could not obtain a connection from the pool within 5.000 seconds (waited 5.002 seconds); all pooled connections were in use",
        [
            "activerecord (7.1.3.4) lib/active_record/connection_adapters/abstract/connection_pool/queue.rb:128:in `block in wait_poll'",
            "activerecord (7.1.3.4) lib/active_record/connection_adapters/abstract/connection_pool.rb:651:in `acquire_connection'",
            "app/models/basket.rb:58:in `refresh_totals!'",
            "app/controllers/checkout/details_controller.rb:19:in `update'",
        ],
    )
    inc.errors(
        "checkout",
        onset + 3 * MINUTE,
        now,
        lambda f: 1 + 2.5 * min(1.0, f * 4),
        lambda r: (
            f"ActiveRecord::ConnectionTimeoutError (could not obtain a connection from the pool within 5.000 seconds (waited 5.00{r.randint(1, 9)} seconds); all pooled connections were in use) path={r.choice(['/checkout/details', '/checkout/payment', '/basket', '/orders/PB-4491022'])}"
        ),
        exception=trace,
    )
    inc.errors(
        "checkout",
        onset,
        now,
        2,
        lambda r: (
            f"Completed 200 OK in {r.randint(2600, 4900)}ms (Views: {r.uniform(20, 40):.1f}ms | ActiveRecord: {r.randint(2400, 4700)}.{r.randint(0, 9)}ms | Allocations: {r.randint(30000, 50000)})"
        ),
        level="WARNING",
    )
    inc.fleet(
        checkout={
            "rps": times(peak),
            "p99": lambda t, v: v if t < onset else 5200.0,
            "err": add(lambda t: 0.0 if t < onset + 3 * MINUTE else 0.07),
        },
        seatmap_api={"rps": times(peak)},
        hold_service={"rps": times(peak)},
        waiting_room={"rps": times(peak)},
    )
    inc.metric("puma_pool_capacity", "checkout", step(rollout, 5, 14), jitter=0.1, digits=0)
    inc.metric(
        "activerecord_pool_waiting",
        "checkout",
        lambda t: 0 if t < onset else 11 * peak(t) / 2.6,
        jitter=0.15,
        digits=0,
    )
    inc.metric("activerecord_pool_size", "checkout", lambda t: 5, jitter=0.0, digits=0)
    inc.metric(
        "pg_stat_activity_count",
        "boxdb",
        lambda t: (160 if t < rollout else 80) * (1 + (peak(t) - 1) * 0.2),
        labels={"datname": "box"},
        jitter=0.05,
        digits=0,
    )
    inc.metric(
        "node_cpu_utilisation", "boxdb", lambda t: 0.22 * peak(t) ** 0.3, jitter=0.06, digits=3
    )
    inc.metric(
        "container_memory_working_set_bytes",
        "checkout",
        step(rollout, 3.05e9, 1.85e9),
        jitter=0.03,
        digits=0,
    )
    inc.alert = alerts.grafana(
        "checkout p95 latency above 3s",
        "checkout",
        ts("2028-05-20T11:44"),
        "critical",
        "checkout request latency",
        "p95 = 5.1s",
        team="ticketing-core",
    )
    inc.blame(guilty, [], "checkout", "configuration_error", [pgc, eager, ed, wrc, wrd], onset)
    return inc


def xt105_seatmap_cache_key() -> ExtIncident:
    now = ts("2028-06-03T18:30")
    inc = Inc(
        "xt105-seatmap-cache-key",
        "seatmap-api p99 above 1s",
        """seatmap-api v2.47.0 (15:40, three commits) personalises seat maps with the member's presale
        eligibility; its commit adds the session id to the Redis cache key of the rendered map, so
        every visitor renders their own map from boxdb: the hit ratio falls from 96% to 3% at the
        deploy. In the afternoon lull nothing pages; the failure shows only in metrics (hit ratio,
        render count, boxdb CPU and rows read, Redis keys and memory). When the evening on-sale
        and the pre-show rush arrive at 17:30 boxdb's CPU saturates and seatmap-api's p99 passes
        1 s; no error lines until a few context deadlines at the very end. Decoys: a
        pricing-engine release at 17:12 that recomputes price bands every 5 minutes during
        on-sales (writes to boxdb), boxdb's work_mem raised at 14:50, the release's sibling commits
        (restricted-view markers in the render function, a pgx bump) and a door-scan deploy.
        Category: code_defect.""",
        now,
        PROSCENIUM,
        seed=10501,
        hours=7,
    )
    inc.doc(
        "seatmap-api caching",
        """A rendered seat map (layout, price bands, availability) is cached in Redis for 5 s per
performance; availability changes invalidate it. A miss renders from boxdb (about 40 ms of database
time per map). With 90-300 map requests a second, the cache is what keeps boxdb's CPU low.""",
    )
    inc.noise()
    inc.background(
        inc.begin,
        ts("2028-06-03T14:30"),
        7,
        ["ticket-issuer", "hold-service", "waiting-room", "checkout"],
    )
    wm = inc.config(
        ts("2028-06-03T14:50"),
        "boxdb",
        "boxdb: work_mem 4MB -> 16MB (sorts spilling in the sales report)",
        "terraform/boxdb/parameters.tf",
        '  parameter {\n    name  = "work_mem"\n    value = "4096"\n  }',
        '  parameter {\n    name  = "work_mem"\n    value = "16384"\n  }',
        author="m.szabo",
    )
    guilty = inc.code(
        ts("2028-06-02T11:20"),
        "seatmap-api",
        _sub(inc, "Personalise seat maps with presale eligibility"),
        "internal/seatmap/handler.go",
        """func (h *Handler) Get(w http.ResponseWriter, r *http.Request) {
	perf := chi.URLParam(r, "id")
	key := fmt.Sprintf("seatmap:%s:v%d", perf, h.layoutVersion(perf))
	m, err := h.cache.GetOrRender(r.Context(), key, 5*time.Second, func() (*Map, error) {
		return h.render(r.Context(), perf)
	})""",
        """func (h *Handler) Get(w http.ResponseWriter, r *http.Request) {
	perf := chi.URLParam(r, "id")
	sess := session.FromContext(r.Context())
	key := fmt.Sprintf("seatmap:%s:v%d:%s", perf, h.layoutVersion(perf), sess.ID)
	m, err := h.cache.GetOrRender(r.Context(), key, 5*time.Second, func() (*Map, error) {
		return h.render(r.Context(), perf, sess.PresaleTier)
	})""",
        38,
        author="m.szabo",
    )
    marks = inc.code(
        ts("2028-06-02T15:05"),
        "seatmap-api",
        _sub(inc, "Mark restricted-view seats in the render"),
        "internal/render/render.go",
        "\t\tcell := Cell{ID: s.ID, Band: s.Band, Free: s.Free}",
        "\t\tcell := Cell{ID: s.ID, Band: s.Band, Free: s.Free, Restricted: s.RestrictedView}",
        77,
        author="g.ashdown",
    )
    pgx = inc.code(
        ts("2028-06-03T07:14"),
        "seatmap-api",
        _sub(inc, "Bump github.com/jackc/pgx/v5 from 5.5.5 to 5.6.0"),
        "go.mod",
        "require (\n\tgithub.com/jackc/pgx/v5 v5.5.5\n\tgithub.com/redis/go-redis/v9 v9.5.1\n)",
        "require (\n\tgithub.com/jackc/pgx/v5 v5.6.0\n\tgithub.com/redis/go-redis/v9 v9.5.1\n)",
        5,
        author="dependabot[bot]",
    )
    rel = inc.ship(ts("2028-06-03T15:40"), "seatmap-api", [guilty, marks, pgx], "v2.47.0")
    onset = ts("2028-06-03T15:42")
    prc = inc.code(
        ts("2028-06-03T16:30"),
        "pricing-engine",
        _sub(inc, "Recompute price bands every 5 minutes during on-sales"),
        "pricing/schedule.py",
        "ONSALE_RECOMPUTE_EVERY = timedelta(minutes=15)",
        "ONSALE_RECOMPUTE_EVERY = timedelta(minutes=5)",
        12,
        author="ffion.price",
    )
    prd = inc.ship(ts("2028-06-03T17:12"), "pricing-engine", [prc], "v1.31.0")
    dsc = inc.code(
        ts("2028-06-03T17:20"),
        "door-scan",
        _sub(inc, "Sync barcodes for the next two performances, not one"),
        "lib/door_scan/sync.ex",
        "    performances = Schedule.next_performances(venue, 1)",
        "    performances = Schedule.next_performances(venue, 2)",
        23,
        author="tobi.adeyemi",
    )
    dsd = inc.ship(ts("2028-06-03T17:38"), "door-scan", [dsc], "v0.41.0")
    evening = ramp(ts("2028-06-03T17:15"), ts("2028-06-03T17:45"), 1.0, 3.2)
    inc.log(
        ts("2028-06-03T15:41:05"),
        "seatmap-api",
        "INFO",
        'level=info msg="seatmap-api starting" version=2.47.0 cache=redis://seatmap-cache:6379/0',
    )
    inc.quiet("seatmap-api", onset, ["cache=hit"])
    inc.errors(
        "seatmap-api",
        onset,
        now,
        lambda f: 1.5 + 4 * f,
        lambda r: (
            f'level=info msg="seatmap served" performance={_perf(r)} cache=miss dur_ms={r.randint(45, 90)}'
        ),
        level="INFO",
    )
    inc.errors(
        "seatmap-api",
        ts("2028-06-03T18:12"),
        now,
        0.6,
        lambda r: (
            f'level=error msg="render failed" performance={_perf(r)} err="context deadline exceeded" dur_ms=2000'
        ),
        level="ERROR",
    )
    inc.errors(
        "pricing-engine",
        ts("2028-06-03T17:15"),
        now,
        0.25,
        lambda r: (
            f"price run done performance={_perf(r)} bands=6 changed={r.randint(0, 2)} took={r.uniform(0.8, 2.1):.1f}s"
        ),
        level="INFO",
    )

    def cpu(t: datetime) -> float:
        if t < onset:
            return 0.28
        return min(0.97, 0.28 + 0.22 * evening(t))

    inc.fleet(
        seatmap_api={
            "rps": times(evening),
            "p99": lambda t, v: (
                v
                if t < onset
                else (v * 2.1 if t < ts("2028-06-03T17:30") else 1400 + 900 * (evening(t) - 2))
            ),
        },
        hold_service={"rps": times(evening)},
        checkout={"rps": times(evening)},
    )
    inc.metric("seatmap_cache_hit_ratio", "seatmap-api", step(onset, 0.96, 0.03), jitter=0.05)
    inc.metric(
        "seatmap_renders_per_second",
        "seatmap-api",
        lambda t: (3.6 if t < onset else 87) * evening(t),
        jitter=0.08,
        digits=1,
    )
    inc.metric(
        "redis_used_memory_bytes",
        "seatmap-cache",
        ramp(onset, now, 1.9e8, 2.3e9),
        jitter=0.03,
        digits=0,
    )
    inc.metric("node_cpu_utilisation", "boxdb", cpu, jitter=0.04, digits=3)
    inc.metric(
        "pg_stat_database_tup_fetched_per_second",
        "boxdb",
        lambda t: (1.2e5 if t < onset else 2.6e6) * evening(t),
        labels={"datname": "box"},
        jitter=0.06,
        digits=0,
    )
    inc.metric(
        "pg_stat_statements_mean_exec_time_ms",
        "boxdb",
        lambda t: 1.4 if t < ts("2028-06-03T17:30") else 1.4 * evening(t) ** 2,
        labels={"query": "seatmap_render"},
        jitter=0.08,
        digits=2,
    )
    inc.alert = alerts.grafana(
        "seatmap-api p99 above 1s",
        "seatmap-api",
        ts("2028-06-03T17:52"),
        "critical",
        "seatmap-api latency",
        "p99 = 1.63s",
        team="web",
    )
    inc.blame(
        guilty, [rel], "seatmap-api", "code_defect", [wm, marks, pgx, prc, prd, dsc, dsd], onset
    )
    return inc


def xt106_cabaret_layout_null_row() -> ExtIncident:
    now = ts("2028-06-10T16:20")
    inc = Inc(
        "xt106-cabaret-layout-null-row",
        "Price bands stale for more than 45 minutes",
        """At 14:18 the Corn Exchange's venue manager uploads a new cabaret layout (tables instead of
        rows) through the venue admin; one table seat, T12-7, has no row label (the file has
        "row": null). pricing-engine's scheduled run recomputes every on-sale performance in one
        job, sorting each performance's seats by (row, number); from the 14:30 run on, every run
        crashes with TypeError: '<' not supported between instances of 'NoneType' and 'str' at the
        first Corn Exchange performance and aborts, so the 22 performances after it in the run,
        at every venue, keep stale price bands. seatmap-api warned about the seat at upload. No change is at fault. Decoys: a
        pricing-engine release at 14:05 that caps price rises per run (it changed recompute.py,
        the file in every traceback), a ticket-issuer deploy and a door-scan config near the
        onset. Category: data_quality.""",
        now,
        PROSCENIUM,
        seed=10601,
        hours=6,
    )
    inc.doc(
        "Venue layouts",
        """Venue managers upload layouts (JSON: sections, rows, seats with row and number, price band
defaults) through the venue admin in seatmap-api; a layout takes effect for performances on sale
at once. The Corn Exchange switches between 'stalls' (rows A-P) and 'cabaret' (tables T1-T30 with
seats 1-8; the row of a table seat is the table).""",
    )
    inc.doc(
        "Runbook: price bands stale",
        """pricing-engine recomputes every on-sale performance every 15 minutes in one RQ job
(recompute_all). If bands are stale, look at the job's failures in pricing-engine's log (rq
failed registry) and at the last change to pricing-engine. Prices stay at their last values while
the job fails; sales continue.""",
    )
    inc.noise()
    inc.background(
        inc.begin,
        ts("2028-06-10T13:00"),
        7,
        ["hold-service", "checkout", "waiting-room", "seatmap-api"],
    )
    capc = inc.code(
        ts("2028-06-10T13:22"),
        "pricing-engine",
        _sub(inc, "Cap a band's price rise at 15% per run"),
        "pricing/recompute.py",
        """    for band in bands:
        band.price = model.price_for(band, pace)""",
        """    for band in bands:
        target = model.price_for(band, pace)
        band.price = min(target, band.price * MAX_RISE_PER_RUN)""",
        71,
        author="ffion.price",
    )
    capd = inc.ship(ts("2028-06-10T14:05"), "pricing-engine", [capc], "v1.33.0")
    dcfg = inc.config(
        ts("2028-06-10T14:40"),
        "door-scan",
        "door-scan: Corn Exchange doors open 30 min earlier for the cabaret",
        "deploy/door-scan/venues.yaml",
        "corn-exchange:\n  doors_open_before: 45m\n  scanners: 6",
        "corn-exchange:\n  doors_open_before: 75m\n  scanners: 6",
        author="tobi.adeyemi",
    )
    tic = inc.code(
        ts("2028-06-10T14:12"),
        "ticket-issuer",
        _sub(inc, "Table number on cabaret e-tickets"),
        "src/Ticket/TicketPdfBuilder.php",
        "        $seatLine = sprintf('%s %s', $seat->row(), $seat->number());",
        "        $seatLine = $seat->table() !== null\n            ? sprintf('Table %s, seat %s', $seat->table(), $seat->number())\n            : sprintf('%s %s', $seat->row(), $seat->number());",
        88,
        author="g.ashdown",
    )
    tid = inc.ship(ts("2028-06-10T14:33"), "ticket-issuer", [tic], "v6.2.0")
    upload = ts("2028-06-10T14:18")
    onset = ts("2028-06-10T14:30")
    inc.log(
        upload,
        "seatmap-api",
        "INFO",
        'level=info msg="venue layout uploaded" venue=corn-exchange layout=cabaret-v3 seats=236 by=venue-manager@cornexchange.example',
    )
    inc.log(
        upload + timedelta(seconds=1),
        "seatmap-api",
        "WARNING",
        'level=warn msg="layout seat without row" venue=corn-exchange layout=cabaret-v3 seat=T12-7 section=floor',
    )
    inc.log(
        upload + timedelta(seconds=2),
        "seatmap-api",
        "INFO",
        'level=info msg="layout applied to performances on sale" venue=corn-exchange performances=4',
    )
    tb = py_stack(
        "TypeError",
        "'<' not supported between instances of 'NoneType' and 'str'",
        [
            (
                "/app/.venv/lib/python3.12/site-packages/rq/worker.py",
                1431,
                "perform_job",
                "rv = job.perform()",
            ),
            ("/app/pricing/jobs.py", 22, "recompute_all", "recompute(perf, conn)"),
            (
                "/app/pricing/recompute.py",
                58,
                "recompute",
                "seats = sorted(load_seats(perf, conn), key=lambda s: (s.row, s.number))",
            ),
        ],
    )
    inc.quiet("pricing-engine", onset, ["price run done"])
    t = onset
    while t < now:
        inc.log(
            t,
            "pricing-engine",
            "INFO",
            "default: pricing.jobs.recompute_all() (performances=31)",
            logger="rq.worker",
        )
        inc.log(
            t + timedelta(seconds=14),
            "pricing-engine",
            "ERROR",
            "recompute_all failed at performance 77311 (corn-exchange): TypeError: '<' not supported between instances of 'NoneType' and 'str'; 9 of 31 performances done, job moved to FailedJobRegistry",
            logger="rq.worker",
            exc_info=tb,
        )
        t += timedelta(minutes=15)
    t = inc.begin + 5 * MINUTE
    while t < onset:
        inc.log(
            t,
            "pricing-engine",
            "INFO",
            "recompute_all done performances=31 bands_changed=4 took=38.2s",
            logger="pricing.jobs",
        )
        t += timedelta(minutes=15)
    inc.log(
        ts("2028-06-10T15:31"),
        "checkout",
        "WARNING",
        "price band for performance 77140 band B older than 60 min at basket refresh; using it",
    )
    inc.fleet(pricing_engine={"err": lambda t, v: 1.0 if t >= onset else v})
    inc.metric(
        "price_bands_age_seconds_max",
        "pricing-engine",
        lambda t: 300 if t < onset else 300 + (t - onset).total_seconds(),
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "rq_failed_jobs",
        "pricing-engine",
        lambda t: 0 if t < onset else 1 + int((t - onset).total_seconds() // 900),
        labels={"queue": "default"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "pricing_performances_recomputed_per_run",
        "pricing-engine",
        step(onset, 31, 9),
        jitter=0.0,
        digits=0,
    )
    inc.alert = alerts.alertmanager(
        "PriceBandsStale",
        "pricing-engine",
        ts("2028-06-10T15:20"),
        "warning",
        "Price bands stale for more than 45 minutes",
        "The oldest price band of an on-sale performance was last recomputed more than 45 minutes ago.",
        "max(price_bands_age_seconds_max) > 2700",
        team="revenue",
    )
    inc.outside(
        "Corn Exchange cabaret layout with a seat (T12-7) whose row is null",
        "pricing-engine",
        "data_quality",
        [capc, capd, dcfg, tic, tid],
        onset,
    )
    return inc


def xt107_holds_id_sequence() -> ExtIncident:
    now = ts("2028-06-17T09:50")
    inc = Inc(
        "xt107-holds-id-sequence",
        "hold-service 5xx ratio above 20%",
        """boxdb.holds.id is a 32-bit serial from 2016. At 09:14, during the 09:00 on-sale of a hit
        musical, holds_id_seq reaches 2147483647 and every new hold fails with 'nextval: reached
        maximum value of sequence "holds_id_seq" (2147483647)'; nobody can select seats. The
        sequence had been climbing for years (the DBA's capacity note from February and the weekly
        check warning at 99.9% that morning); the on-sale's burst of holds used the last ids. No
        change causes it. Decoys: a hold-service release at 08:50 that batch-inserts a hold's
        seats (its commit changes HoldRepository.insert, the method in every stack trace), a
        waiting-room flag raising the admission rate at 08:58 (more holds), and a checkout deploy
        after the onset. The alert comes from hold-service; seatmap-api and checkout show the
        knock-on. Category: resource_exhaustion.""",
        now,
        PROSCENIUM,
        seed=10701,
        hours=6,
    )
    inc.doc(
        "boxdb capacity note (2028-02-08)",
        """holds.id is `serial` (int4) since the 2016 migration; ids are never reused (every hold, expired
or confirmed, takes one). At 2.09 billion today and about 9 million a week, growing with on-sales.
Plan: BOX-2210 migrate holds.id and hold_seats.hold_id to bigint before summer (needs a maintenance
window: rewrite of both tables). Other int4 keys are below 30% of their range.""",
    )
    inc.doc(
        "Marketing calendar, June",
        """Sat 17 June 10:00 BST (09:00 UTC): general on-sale of 'The Lighthouse Keeper' (the Lyric, 14
weeks of performances), waiting room opens 09:30 BST. Expect 50-70k visitors in the first hour.""",
    )
    inc.noise()
    inc.background(
        inc.begin,
        ts("2028-06-17T07:30"),
        7,
        ["ticket-issuer", "door-scan", "pricing-engine", "seatmap-api"],
    )
    batch = inc.code(
        ts("2028-06-16T15:02"),
        "hold-service",
        _sub(inc, "Insert a hold's seats in one batch"),
        f"{_HJ}/HoldRepository.java",
        """    public void insert(Hold hold) {
        long id = jdbc.queryForObject("INSERT INTO holds (performance_id, expires_at) VALUES (?, ?) RETURNING id", Long.class, hold.performanceId(), hold.expiresAt());
        for (SeatRef seat : hold.seats()) {
            jdbc.update("INSERT INTO hold_seats (hold_id, seat_id) VALUES (?, ?)", id, seat.id());
        }
    }""",
        """    public void insert(Hold hold) {
        long id = jdbc.queryForObject("INSERT INTO holds (performance_id, expires_at) VALUES (?, ?) RETURNING id", Long.class, hold.performanceId(), hold.expiresAt());
        jdbc.batchUpdate("INSERT INTO hold_seats (hold_id, seat_id) VALUES (?, ?)", hold.seats(), 50,
            (ps, seat) -> { ps.setLong(1, id); ps.setLong(2, seat.id()); });
    }""",
        61,
        author="priya.kaul",
    )
    hd = inc.ship(ts("2028-06-17T08:50"), "hold-service", [batch], "3.21.0")
    rate = inc.flag(
        ts("2028-06-17T08:58"),
        "waiting-room",
        "waiting-room.admit_per_minute.lighthouse",
        "value: 300",
        "value: 450",
        "Admit 450 a minute for The Lighthouse Keeper (the Lyric can take it)",
        author="ffion.price",
    )
    onset = ts("2028-06-17T09:14")
    chc = inc.code(
        ts("2028-06-17T09:05"),
        "checkout",
        _sub(inc, "Explain sold-out performances on the basket page"),
        "app/views/baskets/show.html.erb",
        '<%= render "baskets/lines", basket: @basket %>',
        '<%= render "baskets/lines", basket: @basket %>\n<%= render "baskets/sold_out_notice" if @basket.sold_out_lines.any? %>',
        9,
        author="g.ashdown",
    )
    chd = inc.ship(ts("2028-06-17T09:24"), "checkout", [chc], "2028.06.17.1")
    inc.quiet("hold-service", onset, ["Hold created", "Hold confirmed"])
    inc.log(
        ts("2028-06-17T06:00:04"),
        "boxdb-maint",
        "WARNING",
        "weekly sequence check: holds_id_seq last_value=2145771902 of 2147483647 (99.92%); other sequences below 30%",
        job="pg-capacity-check",
    )
    inc.log(
        ts("2028-06-17T08:51:10"),
        "hold-service",
        "INFO",
        "Started HoldServiceApplication in 8.1 seconds (process running for 8.8)",
        logger="u.e.p.holds.HoldServiceApplication",
    )
    stack = (
        java_stack(
            "org.springframework.dao.DataAccessResourceFailureException",
            'PreparedStatementCallback; SQL [INSERT INTO holds (performance_id, expires_at) VALUES (?, ?) RETURNING id]; ERROR: nextval: reached maximum value of sequence "holds_id_seq" (2147483647)',
            [
                (
                    "org.springframework.jdbc.support.SQLStateSQLExceptionTranslator.doTranslate",
                    "SQLStateSQLExceptionTranslator.java",
                    105,
                ),
                (
                    "org.springframework.jdbc.core.JdbcTemplate.queryForObject",
                    "JdbcTemplate.java",
                    894,
                ),
                ("uk.example.proscenium.holds.HoldRepository.insert", "HoldRepository.java", 62),
                ("uk.example.proscenium.holds.HoldStore.create", "HoldStore.java", 50),
                ("uk.example.proscenium.holds.HoldController.create", "HoldController.java", 41),
            ],
        )
        + '\nCaused by: org.postgresql.util.PSQLException: ERROR: nextval: reached maximum value of sequence "holds_id_seq" (2147483647)'
    )
    inc.errors(
        "hold-service",
        onset,
        now,
        lambda f: 7 - 3 * f,
        lambda r: (
            f'POST /holds failed performance={r.choice([80101, 80102, 80107, 80115])} seats={r.randint(1, 6)}: nextval: reached maximum value of sequence "holds_id_seq" (2147483647)'
        ),
        logger="u.e.p.holds.HoldController",
        stack_trace=stack,
    )
    inc.errors(
        "seatmap-api",
        onset + MINUTE,
        now,
        2,
        lambda r: (
            f'level=warn msg="hold request failed" performance={r.choice([80101, 80102, 80107])} status=500 upstream=hold-service'
        ),
        level="WARNING",
    )
    inc.errors(
        "boxdb",
        onset,
        now,
        1,
        'ERROR:  nextval: reached maximum value of sequence "holds_id_seq" (2147483647)\nSTATEMENT:  INSERT INTO holds (performance_id, expires_at) VALUES ($1, $2) RETURNING id',
        source="postgresql",
    )
    onsale = ts("2028-06-17T09:00")
    surge = lambda t: 1.0 if t < onsale else 3.4  # noqa: E731
    inc.fleet(
        hold_service={"rps": times(surge), "err": add(lambda t: 0.0 if t < onset else 0.93)},
        seatmap_api={"rps": times(surge)},
        waiting_room={"rps": times(lambda t: 1.0 if t < ts("2028-06-17T08:30") else 6.0)},
        checkout={"rps": times(lambda t: 1.0 if t < onset else 0.2)},
    )
    used = 2145771902 / 2147483647

    def seq(t: datetime) -> float:
        if t < onsale:
            return used + (t - inc.begin).total_seconds() * 2.0e-9
        return min(
            1.0,
            used
            + (onsale - inc.begin).total_seconds() * 2.0e-9
            + (t - onsale).total_seconds() * 1.45e-6,
        )

    inc.metric(
        "pg_sequence_used_ratio",
        "boxdb",
        seq,
        labels={"sequence": "holds_id_seq"},
        jitter=0.0,
        digits=6,
    )
    inc.metric(
        "holds_created_per_second",
        "hold-service",
        lambda t: 0.0 if t >= onset else (18 if t >= onsale else 5),
        jitter=0.1,
        digits=1,
    )
    inc.metric(
        "waiting_room_admitted_per_minute",
        "waiting-room",
        lambda t: 0 if t < ts("2028-06-17T08:30") else 450,
        labels={"performance_group": "lighthouse"},
        jitter=0.02,
        digits=0,
    )
    inc.alert = alerts.alertmanager(
        "HoldService5xx",
        "hold-service",
        ts("2028-06-17T09:19"),
        "critical",
        "hold-service 5xx ratio above 20%",
        "More than 20% of hold-service requests answered 5xx over 5 minutes.",
        'sum(rate(http_server_requests_seconds_count{service="hold-service",status=~"5.."}[5m])) / sum(rate(http_server_requests_seconds_count{service="hold-service"}[5m])) > 0.2',
        team="ticketing-core",
    )
    inc.outside(
        "boxdb sequence holds_id_seq (int4) reached its maximum 2147483647",
        "boxdb",
        "resource_exhaustion",
        [batch, hd, rate, chc, chd],
        onset,
    )
    return inc


def xt108_onsale_queue() -> ExtIncident:
    now = ts("2028-06-24T09:45")
    inc = Inc(
        "xt108-onsale-queue",
        "waiting room queue depth above 20000",
        """Nothing is wrong. The Albany Playhouse's pantomime goes on general sale at 10:00 BST (09:00
        UTC); the waiting room opens at 08:30 and 41,000 visitors are in it by 09:05. The queue
        depth alert (above 20,000, no 'for') fires at 09:04. The waiting room admits 300 a minute
        as configured, seat selection, holds and checkout run at their planned rates with normal
        error ratios and latencies, and the queue shrinks steadily once joins slow down. Decoys: a
        waiting-room deploy at 08:35 (queue page copy and a token refresh), a pricing-engine config
        change for the pantomime's price bands at 08:50 and a ticket-issuer deploy at 09:10.
        Category: healthy.""",
        now,
        PROSCENIUM,
        seed=10801,
        hours=5,
    )
    inc.doc(
        "Marketing calendar, June",
        """Sat 24 June 10:00 BST (09:00 UTC): general on-sale of the Albany Playhouse pantomime 'Jack and
the Beanstalk' (42 performances). Waiting room opens 09:30 BST (08:30 UTC); members' presale sold
out last week. Expect 40-60k visitors in the first hour; admission 300 a minute (the Albany's
seat-selection capacity).""",
    )
    inc.doc(
        "Alert rule WaitingRoomDepth",
        """waiting_room_queue_depth > 20000 (no `for`). Meant to catch a stuck queue (admission stopped);
on big on-sales it fires by design. Check admissions per minute: if they run at the configured rate
the queue is doing its job.""",
    )
    inc.noise()
    inc.background(
        inc.begin,
        ts("2028-06-24T08:00"),
        6,
        ["door-scan", "hold-service", "seatmap-api", "checkout"],
    )
    wrc = inc.code(
        ts("2028-06-24T08:02"),
        "waiting-room",
        _sub(inc, "Refresh queue tokens every 60s and reword the queue page"),
        "src/routes/status.ts",
        """  reply.header("Cache-Control", "no-store");
  return { position: ticket.position, refreshAfterMs: 30_000 };""",
        """  reply.header("Cache-Control", "no-store");
  return { position: ticket.position, refreshAfterMs: 60_000, message: copy.waiting(ticket) };""",
        18,
        author="priya.kaul",
    )
    wrd = inc.ship(ts("2028-06-24T08:35"), "waiting-room", [wrc], "v4.11.0")
    pcfg = inc.config(
        ts("2028-06-24T08:50"),
        "pricing-engine",
        "pricing: pantomime bands start at the floor price",
        "deploy/pricing-engine/events/albany-panto-2028.yaml",
        "bands:\n  A: {floor: 38, ceiling: 72, start: 45}\n  B: {floor: 28, ceiling: 55, start: 33}",
        "bands:\n  A: {floor: 38, ceiling: 72, start: 38}\n  B: {floor: 28, ceiling: 55, start: 28}",
        author="ffion.price",
    )
    tic = inc.code(
        ts("2028-06-24T08:44"),
        "ticket-issuer",
        _sub(inc, "Show the performance's running time on e-tickets"),
        "src/Ticket/TicketPdfBuilder.php",
        "        $this->line($pdf, $performance->startsAt()->format('D j M, H:i'));",
        "        $this->line($pdf, $performance->startsAt()->format('D j M, H:i'));\n        $this->line($pdf, sprintf('Running time %s', $performance->runningTime()));",
        64,
        author="g.ashdown",
    )
    tid = inc.ship(ts("2028-06-24T09:10"), "ticket-issuer", [tic], "v6.4.0")
    opens, sale = ts("2028-06-24T08:30"), ts("2028-06-24T09:00")

    def depth(t: datetime) -> float:
        if t < opens:
            return 0.0
        joined = 41000 * min(1.0, (t - opens).total_seconds() / 2100) + 9000 * max(
            0.0, min(1.0, (t - opens - 35 * MINUTE).total_seconds() / 2400)
        )
        admitted = 300 * max(0.0, (t - sale).total_seconds() / 60)
        return max(0.0, joined - admitted)

    inc.metric(
        "waiting_room_queue_depth",
        "waiting-room",
        depth,
        labels={"group": "albany-panto"},
        jitter=0.01,
        digits=0,
    )
    inc.metric(
        "waiting_room_admitted_per_minute",
        "waiting-room",
        lambda t: 300 if t >= sale else 0,
        labels={"group": "albany-panto"},
        jitter=0.02,
        digits=0,
    )
    inc.metric(
        "holds_created_per_second",
        "hold-service",
        lambda t: 4.6 if t >= sale else 0.6,
        jitter=0.1,
        digits=1,
    )
    inc.metric(
        "orders_completed_per_minute",
        "checkout",
        lambda t: 82 if t >= sale + 5 * MINUTE else 6,
        jitter=0.08,
        digits=0,
    )
    r = inc.rng
    t = opens + MINUTE
    while t < now:
        if t >= sale:
            inc.log(
                t,
                "waiting-room",
                "INFO",
                f'{{"msg":"admitted batch","group":"albany-panto","admitted":50,"depth":{int(depth(t))}}}',
            )
        else:
            inc.log(
                t,
                "waiting-room",
                "INFO",
                f'{{"msg":"queue joined","group":"albany-panto","depth":{int(depth(t))}}}',
            )
        t += timedelta(seconds=r.uniform(50, 110))
    inc.errors(
        "waiting-room",
        opens,
        now,
        0.3,
        lambda r: (
            '{"level":40,"msg":"queue token rejected","reason":"expired","action":"rejoin at back"}'
        ),
        level="WARNING",
    )
    busy = lambda t: 1.0 if t < sale else 2.4  # noqa: E731
    inc.fleet(
        waiting_room={"rps": times(lambda t: 1.0 if t < opens else 8.0)},
        seatmap_api={"rps": times(busy)},
        hold_service={"rps": times(busy)},
        checkout={"rps": times(busy)},
    )
    inc.alert = alerts.grafana(
        "waiting room queue depth above 20000",
        "waiting-room",
        ts("2028-06-24T09:04"),
        "warning",
        "On-sale waiting room",
        "waiting_room_queue_depth{group=albany-panto} = 40466",
        group="albany-panto",
        team="web",
    )
    inc.healthy(
        "waiting-room",
        "the announced pantomime on-sale: the queue fills by design and admits at its configured 300 a minute",
        [wrc, wrd, pcfg, tic, tid],
        opens,
    )
    return inc


TUNE = [
    xt97_tle_epoch_day,
    xt98_multipart_part_size,
    xt99_orbitcat_outage,
    xt100_pta_pdu_trip,
    xt101_grazing_pass,
    xt102_rs_burst_hvn,
    xt103_hold_ttl_millis,
    xt104_puma_threads_pool,
    xt105_seatmap_cache_key,
    xt106_cabaret_layout_null_row,
    xt107_holds_id_sequence,
    xt108_onsale_queue,
]
