"""TUNE split, seventh examiner: Cairnline Mountain Resorts (ski resorts) and Redhaven Port
Authority (a container port), incidents ``xt85``-``xt96``. Written without opening the engine,
the agents or the held-out split, and never scored by their examiner; each story spelled out in
code. The companies are in `ext/companies.py`; `ext_build.py` appends ``TUNE`` to the tune split
after `ext/tune5.py`'s."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from evals.rca import alerts
from evals.rca.ext.base import (
    MINUTE,
    ExtIncident,
    Shape,
    Svc,
    add,
    java_stack,
    py_stack,
    ramp,
    step,
    times,
)
from evals.rca.ext.companies import CAIRNLINE, REDHAVEN
from evals.rca.kit import iso, ts

# --- house habits of the two companies ------------------------------------------------------------


def _chore(r: random.Random, s: Svc, lang: str) -> tuple[str, list[tuple[str, str, str, int]]]:
    """An everyday, innocent commit in the two companies' build tools (Gradle, sbt-free Kotlin,
    Go modules, uv, npm, NuGet, mix, Cargo, Maven, Helm, Grafana, runbooks)."""
    pick = r.randrange(7)
    if pick == 0:
        bumps: dict[str, tuple[str, str, list[tuple[str, str, str]]]] = {
            "kotlin": (
                "gradle/libs.versions.toml",
                '{name} = "{version}"\nexposed = "0.52.0"',
                [
                    ("ktor", "2.3.11", "2.3.12"),
                    ("kotest", "5.9.0", "5.9.1"),
                    ("mockk", "1.13.11", "1.13.12"),
                ],
            ),
            "go": (
                "go.mod",
                "require (\n\t{name} {version}\n\tgithub.com/eclipse/paho.golang v0.21.0\n)",
                [
                    ("github.com/prometheus/client_golang", "v1.19.1", "v1.20.0"),
                    ("golang.org/x/net", "v0.26.0", "v0.27.0"),
                ],
            ),
            "python": (
                "uv.lock",
                'name = "{name}"\nversion = "{version}"',
                [
                    ("pydantic", "2.7.4", "2.8.2"),
                    ("structlog", "24.2.0", "24.4.0"),
                    ("pytest", "8.2.2", "8.3.2"),
                ],
            ),
            "node": (
                "package.json",
                '    "{name}": "^{version}",\n    "zod": "^3.23.8"',
                [("next", "14.2.4", "14.2.5"), ("@sentry/nextjs", "8.13.0", "8.19.0")],
            ),
            "csharp": (
                "Directory.Packages.props",
                '    <PackageVersion Include="{name}" Version="{version}" />',
                [
                    ("Npgsql", "8.0.3", "8.0.4"),
                    ("NLog.Web.AspNetCore", "5.3.11", "5.3.12"),
                    ("xunit", "2.8.1", "2.9.0"),
                ],
            ),
            "elixir": (
                "mix.exs",
                '      {{:{name}, "~> {version}"}},\n      {{:jason, "~> 1.4"}},',
                [("phoenix_live_view", "0.20.14", "0.20.17"), ("credo", "1.7.6", "1.7.7")],
            ),
            "rust": (
                "Cargo.toml",
                '{name} = "{version}"\ntokio = {{ version = "1.38", features = ["full"] }}',
                [("tokio-modbus", "0.13.1", "0.14.0"), ("tracing-subscriber", "0.3.18", "0.3.19")],
            ),
            "java": (
                "pom.xml",
                "    <dependency>\n      <groupId>{name}</groupId>\n      <version>{version}</version>",
                [
                    ("org.apache.camel.springboot", "4.4.2", "4.4.3"),
                    ("org.testcontainers", "1.19.8", "1.20.0"),
                ],
            ),
        }
        path, template, choices = bumps.get(lang, bumps["python"])
        name, a, b = r.choice(choices)
        old = template.format(name=name, version=a)
        short = name.rsplit("/", 1)[-1] if lang in ("go", "java") else name
        return f"bump {short} from {a} to {b}", [(path, old, old.replace(a, b), 9)]
    if pick == 1:
        old = f"replicaCount: 3\nimage:\n  repository: registry.internal/{s.name}\npodAnnotations: {{}}"
        new = old.replace("podAnnotations: {}", 'podAnnotations:\n  prometheus.io/scrape: "true"')
        return f"k8s: scrape annotation for {s.name}", [
            (f"deploy/{s.name}/values.yaml", old, new, 1)
        ]
    if pick == 2:
        old = f"## When {s.name} pages\n\n1. Check the overview board."
        new = old + f"\n2. Look at the last deploys of {s.name} and their release notes."
        return f"docs: {s.name} paging steps", [(f"docs/runbooks/{s.name}.md", old, new, 3)]
    if pick == 3:
        old = f'      "title": "{s.noun} throughput",\n      "type": "timeseries",'
        new = old + '\n      "fieldConfig": {"defaults": {"unit": "reqps"}},'
        return f"dashboards: unit on the {s.noun} throughput panel", [
            (f"ops/grafana/{s.name}.json", old, new, 118)
        ]
    if pick == 4:
        old = f"/{s.name}/ @{s.topic.split('.')[0].split('/')[0]}-maintainers"
        return f"test: owners for {s.name} fixtures", [
            (".github/CODEOWNERS", old, old + " @qa-guild", 7)
        ]
    if pick == 5:
        old = "  lint:\n    runs-on: ubuntu-22.04"
        new = "  lint:\n    runs-on: ubuntu-24.04"
        return "ci: lint job on ubuntu-24.04", [(".ci/pipeline.yaml", old, new, 22)]
    old = f"# TODO(ops): alert when {s.noun} backlog grows"
    new = f"# {s.noun} backlog alert lives in ops/alerts/{s.name}.yaml"
    return f"alerts: point to the {s.noun} backlog alert", [
        (f"ops/alerts/README-{s.name}.txt", old, new, 1)
    ]


# What each service of the two companies logs now and then when nothing is wrong.
_STRAYS: dict[str, list[tuple[str, str]]] = {
    "pass-api": [
        ("WARNING", "pass reload for guest G-551923 declined by issuer (do not honor)"),
        ("WARNING", "media 04:A1:7F:22:9C:51:80 reported lost by guest, pass moved to a new card"),
    ],
    "turnstile-gw": [
        ("WARNING", "gate AP-2-G3 reader temperature -31C below rated -30C, scans may slow"),
        (
            "WARNING",
            "media id 04:A1:7F:22:9C:51:80 read twice within 2s at gate SR-1-G1, debounced",
        ),
    ],
    "shop-web": [
        (
            "ERROR",
            "checkout: card authorisation timed out at the gateway after 20s, order left pending (customer retried)",
        ),
        ("WARNING", "promo code SPRINGFLING expired, removed from cart"),
    ],
    "snowmaking-ctl": [
        ("WARNING", "gun AP-H-107 nozzle heater fault, running without heater"),
        (
            "ERROR",
            "OPC UA read timeout on gun AP-L-022 controller, marked unavailable for this cycle",
        ),
    ],
    "plant-scada": [
        (
            "WARNING",
            "Modbus exception 0x0B (gateway target device failed to respond) from CMP2, retry ok",
        ),
    ],
    "rental-pos": [
        ("ERROR", "receipt printer RP-STONERIDGE-2 offline (paper out)"),
        (
            "WARNING",
            "DIN setting 11.5 above binding range for rental R-88120, fitter override recorded",
        ),
    ],
    "lift-status": [
        (
            "WARNING",
            "grooming report for Whitehorn not published by 07:00 local, using yesterday's",
        ),
        ("ERROR", "webcam snapshot upload failed for cam-wh-summit: 504 from media bucket"),
    ],
    "pcs-edi": [
        ("WARNING", "COPRAR from line HLX: container HLXU 220193 4 has no VGM yet, load list kept"),
        ("ERROR", "IFTMIN from partner CMA rejected: UNT segment count mismatch, CONTRL sent"),
    ],
    "gate-tas": [
        ("WARNING", "haulier H-2291 arrived 47 min after the slot window, admitted by gate clerk"),
        ("ERROR", "kiosk K-04 card reader timeout, driver asked to retry"),
    ],
    "gate-ocr": [
        ("WARNING", "lane 6 seal read confidence 0.38, seal number left for the clerk"),
    ],
    "customs-bridge": [
        ("WARNING", "CustomsNet 429 Too Many Requests on /v2/declarations, backing off 2s"),
    ],
    "reefer-monitor": [
        (
            "WARNING",
            "reefer SZLU 918220 1 setpoint -25.0C differs from booking -18.0C, crew notified",
        ),
        ("ERROR", "RCD modem timeout for block R3 row 11, retrying"),
    ],
    "berth-planner": [
        ("ERROR", "AIS: NMEA sentence checksum mismatch from receiver rx-breakwater, dropped"),
        ("WARNING", "pilot booking for IMO 9811000 moved by the pilot station, ETA recomputed"),
    ],
}


class Inc(ExtIncident):
    """An incident of the seventh examiner's companies (their own everyday commits and their
    config and flag hosts)."""

    def background(
        self, begin: datetime, end: datetime, n: int, services: Sequence[str] | None = None
    ) -> list[str]:
        r = self.rng
        names = list(services or self._svc)
        span = (end - begin).total_seconds()
        made: list[str] = []
        for t in sorted(begin + timedelta(seconds=r.uniform(0, span)) for _ in range(n)):
            s = self._svc[r.choice(names)]
            summary, diffs = _chore(r, s, self.company.lang.get(s.name, "python"))
            made.append(self.commit(t, s.name, self.company.style(r, summary), diffs))
            if r.random() < 0.4 and t + timedelta(minutes=25) < end:
                made.append(self.deploy(t + timedelta(minutes=r.randint(10, 25)), s.name))
        return made

    def _stray(self, s: Svc) -> tuple[str, str]:
        return self.rng.choice(_STRAYS.get(s.name) or list(self.company.strays))

    def quiet(
        self, service: str, after: datetime, words: Sequence[str], until: datetime | None = None
    ) -> None:
        """Drop the healthy chatter of ``service`` from ``after`` on (until ``until``) that would
        say it works (INFO lines holding one of ``words``): call it right after ``noise()``."""
        first, last = iso(after), iso(until or self.now + MINUTE)
        self.logs = [
            r
            for r in self.logs
            if not (
                r["service"] == service
                and r["level"] == "INFO"
                and first <= r["timestamp"] < last
                and any(w in r["message"] for w in words)
            )
        ]

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
        self.changes[-1]["url"] = f"https://git.{self.company.domain}/platform-config/commit/{cid}"
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
        self.changes[-1]["url"] = f"https://flags.{self.company.domain}/flags/{name}/audit"
        return fid

    def ship(
        self, t: datetime, service: str, commits: Sequence[str], version: str, **kw: Any
    ) -> str:
        """A release of ``service`` shipping exactly ``commits``."""
        return self.deploy(t, service, version=version, ships=list(commits), **kw)


def dotnet_stack(
    exc: str, message: str, frames: Sequence[tuple[str, str, int]], inner: str = ""
) -> str:
    """A .NET exception's ToString(): ``frames`` are ``(Namespace.Type.Method(args), /src/File.cs,
    line)``, innermost first; ``inner`` an inner exception's first line."""
    head = f"{exc}: {message}"
    if inner:
        head += f"\n ---> {inner}\n   --- End of inner exception stack trace ---"
    return "\n".join([head, *(f"   at {m} in {f}:line {n}" for m, f, n in frames)])


def counter(rate: Shape, begin: datetime, step_minutes: int = 4) -> Shape:
    """A cumulative ``_total`` counter whose per-second rate is ``rate``."""

    def f(t: datetime) -> float:
        total, u = 0.0, begin
        while u < t:
            total += rate(u) * step_minutes * 60
            u += timedelta(minutes=step_minutes)
        return total

    return f


def between(a: datetime, b: datetime, inside: float, outside: float) -> Shape:
    return lambda t: inside if a <= t < b else outside


def at(inc: ExtIncident, change_id: str) -> datetime:
    c = next(c for c in inc.changes if c["id"] == change_id)
    return datetime.fromisoformat(c["timestamp"].replace("Z", "+00:00"))


_ISO_LETTERS = {}
_v = 10
for _c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
    if _v % 11 == 0:
        _v += 1
    _ISO_LETTERS[_c] = _v
    _v += 1


def iso6346(owner_serial: str) -> int:
    """The ISO 6346 remainder of a container's first ten characters (10 means check digit 0)."""
    total = 0
    for i, c in enumerate(owner_serial):
        total += (_ISO_LETTERS[c] if c.isalpha() else int(c)) << i
    return total % 11


def container(r: random.Random, remainder_ten: bool | None = None) -> str:
    """A container number ``ABCU 123456 7`` (``remainder_ten``: only those whose weighted sum
    leaves 10, check digit 0)."""
    while True:
        owner = r.choice(["MSKU", "TGHU", "HLXU", "OSLU", "CMAU", "TCNU", "SEGU", "BMOU", "FCIU"])
        serial = f"{r.randint(0, 999999):06d}"
        rem = iso6346(owner + serial)
        if remainder_ten is None or remainder_ten == (rem == 10):
            return f"{owner} {serial} {rem % 10}"


def media(r: random.Random) -> str:
    return ":".join(f"{r.getrandbits(8):02X}" for _ in range(7))


# --- Cairnline Mountain Resorts -------------------------------------------------------------------

_KT = "src/main/kotlin/com/cairnline/pass"


def xt85_blackout_utc_day() -> ExtIncident:
    now = ts("2027-12-26T00:50")
    inc = Inc(
        "xt85-blackout-utc-day",
        "Lift gate deny ratio above 15% (Alder Peak)",
        """Christmas night skiing on Alder Peak (lifts AP-3 and AP-4, 16:30-21:00 local, America/Denver,
        UTC-7). At 17:00 local, 00:00 UTC on Dec 26, the gates start denying every restricted pass
        (ALDER_LOCAL_4, PEAK_FLEX) with reason BLACKOUT: those products are blacked out Dec 26 -
        Jan 1, and pass-api now derives the scan's calendar day in UTC. The commit did it two days
        earlier ('derive scan day without a zone lookup per scan': LocalDate.ofInstant(scannedAt,
        ZoneOffset.UTC) instead of scannedAt.atZone(resort.zoneId)) and shipped in the Dec 24
        release v4.31.0 with two other commits; nothing went wrong until the UTC date rolled over
        into a blackout date while the local date was still Dec 25. The deny lines carry
        day=2027-12-26. Denials are HTTP 200s, so error ratios stay flat: the failure shows in the
        deny-ratio and decision metrics. Decoys: the sibling commit of the same release (blackout
        calendar CSV import: shares the word), a turnstile-gw deploy 12 minutes before the onset
        that shows resort-local time on the gate displays (shares the time-zone words), a flag that
        texts guests when they are denied (its SMS 429 errors come with the denials), the night
        schedule config of AP-4 and a shop-web deploy after the onset. Category: code_defect.""",
        now,
        CAIRNLINE,
        seed=8501,
        hours=8,
    )
    inc.doc(
        "Runbook: lift gate denials",
        """pass-api answers every scan ALLOW or DENY with a reason: NOT_VALID_TODAY (day ticket for
another day), WRONG_RESORT, BLACKOUT (restricted product on a blackout date), ALLIANCE_LIMIT,
VERIFY_UNAVAILABLE, MEDIA_BLOCKED. A normal deny ratio is 2-5%. A sudden rise at one resort: look at
the reasons in pass-api's `scan denied` lines. Lift operators can open a gate by hand (logged by
lift-status as a manual override); ask them to do so while we look.""",
    )
    inc.doc(
        "Products and blackout dates, season 2027-28",
        """Restricted products: ALDER_LOCAL_4 (Alder Peak 4-day), PEAK_FLEX (any resort, midweek).
Blackout dates (resort-local calendar days): Dec 26 - Jan 1, Jan 15-16, Feb 19-20, Mar 12-19.
Unrestricted: PEAK_SEASON, DAY_TICKET (valid on its day), alliance passes (Summit Alliance rules).
Christmas Day night skiing at Alder Peak: AP-3 and AP-4, 16:30-21:00 local.""",
    )
    inc.noise()
    guilty = inc.code(
        ts("2027-12-23T22:14"),
        "pass-api",
        "validate: derive scan day without a zone lookup per scan\n\nResort.zoneId went through the "
        "resort cache on every scan (2% of validate CPU in the profile); the scan instant is UTC "
        "anyway.\n\nChange-Id: I5c0de7e1b2a94f0c8d1e6a3b7f90c2d4e5a6b7c8",
        f"{_KT}/validate/BlackoutPolicy.kt",
        """class BlackoutPolicy(private val calendar: BlackoutCalendar) {
    fun check(pass: Pass, resort: Resort, scannedAt: Instant): Decision {
        val day = scannedAt.atZone(resort.zoneId).toLocalDate()
        if (pass.product.restricted && calendar.isBlackedOut(pass.product, resort.id, day)) {
            return Decision.deny(DenyReason.BLACKOUT, day)
        }
        return Decision.allow(day)
    }""",
        """class BlackoutPolicy(private val calendar: BlackoutCalendar) {
    fun check(pass: Pass, resort: Resort, scannedAt: Instant): Decision {
        val day = LocalDate.ofInstant(scannedAt, ZoneOffset.UTC)
        if (pass.product.restricted && calendar.isBlackedOut(pass.product, resort.id, day)) {
            return Decision.deny(DenyReason.BLACKOUT, day)
        }
        return Decision.allow(day)
    }""",
        14,
        author="pquispe",
    )
    sib = inc.code(
        ts("2027-12-24T01:30"),
        "pass-api",
        "admin: bulk import of blackout dates from CSV\n\nMountain ops send next season's blackout "
        "calendar as a spreadsheet.\n\nChange-Id: I0b1a2c3d4e5f60718293a4b5c6d7e8f901234567",
        f"{_KT}/admin/BlackoutCalendarImporter.kt",
        """    fun import(rows: List<BlackoutRow>) = transaction {
        rows.forEach { BlackoutDates.insert(it) }
    }""",
        """    fun import(rows: List<BlackoutRow>) = transaction {
        rows.forEach { BlackoutDates.insertIgnore(it) }
    }

    fun importCsv(text: String) = import(
        text.lineSequence().drop(1).filter { it.isNotBlank() }.map(BlackoutRow::parse).toList()
    )""",
        22,
        author="ellie.marchetti",
    )
    ktor = inc.code(
        ts("2027-12-24T09:02"),
        "pass-api",
        "deps: bump ktor from 2.3.12 to 2.3.13\n\nChange-Id: I77aa0912bb34cc56dd78ee90ff12ab34cd56ef78",
        "gradle/libs.versions.toml",
        'ktor = "2.3.12"\nexposed = "0.52.0"',
        'ktor = "2.3.13"\nexposed = "0.52.0"',
        3,
        author="renovate[bot]",
    )
    rel = inc.ship(
        ts("2027-12-24T15:05"),
        "pass-api",
        [guilty, sib, ktor],
        "v4.31.0",
        summary="pass-api v4.31.0 to production (3 changes; holiday freeze exception HF-12 approved by t.odonnell)",
    )
    inc.background(
        inc.begin,
        ts("2027-12-25T22:00"),
        7,
        ["shop-web", "lift-status", "rental-pos", "plant-scada"],
    )
    flag = inc.flag(
        ts("2027-12-25T22:40"),
        "pass-api",
        "pass.deny_sms_notice",
        "enabled: false\naudience: passholders_with_mobile",
        "enabled: true\naudience: passholders_with_mobile",
        "Text passholders when a gate denies their pass (guest services request GS-88)",
        author="tara.odonnell",
    )
    tzc = inc.code(
        ts("2027-12-25T23:05"),
        "turnstile-gw",
        "display: show resort-local time on the TX-400 gate display\n\nGuests read UTC on the "
        "display since the firmware update.\n\nChange-Id: I3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e",
        "internal/gates/display.go",
        """func (g *Gate) pushDisplay(d Decision) error {
	return g.client.Publish(g.topic("display"), displayMsg{Text: d.Text, Clock: time.Now().UTC().Format("15:04")})
}""",
        """func (g *Gate) pushDisplay(d Decision) error {
	now := time.Now().In(g.site.Location) // America/Denver for all three resorts
	return g.client.Publish(g.topic("display"), displayMsg{Text: d.Text, Clock: now.Format("15:04")})
}""",
        61,
        author="jonas.reinholt",
    )
    tzd = inc.ship(ts("2027-12-25T23:48"), "turnstile-gw", [tzc], "v2.8.4")
    cfg = inc.config(
        ts("2027-12-25T23:25"),
        "turnstile-gw",
        "alder-peak: AP-4 night gates until 21:00 local on Dec 25",
        "deploy/turnstile-gw/sites/alder-peak.yaml",
        'night_gates: [AP-3-G1, AP-3-G2, AP-4-G1, AP-4-G2]\nnight_until: "20:00"',
        'night_gates: [AP-3-G1, AP-3-G2, AP-4-G1, AP-4-G2]\nnight_until: "21:00"',
        author="sven.haugland",
    )
    onset = ts("2027-12-26T00:00")
    shopc = inc.code(
        ts("2027-12-26T00:04"),
        "shop-web",
        "promo: holiday week banner on the lift-ticket page\n\nChange-Id: I99e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0",
        "app/lift-tickets/page.tsx",
        "      <TicketGrid products={products} />",
        '      <HolidayBanner from="2027-12-26" to="2028-01-01" />\n      <TicketGrid products={products} />',
        40,
        author="tara.odonnell",
    )
    shopd = inc.ship(ts("2027-12-26T00:12"), "shop-web", [shopc], "v7.44.0")
    gates = ["AP-3-G1", "AP-3-G2", "AP-4-G1", "AP-4-G2"]
    day_end = ts("2027-12-25T23:00")

    def deny(day: str, reason: str, product: str) -> Callable[[random.Random], str]:
        return lambda r: (
            f"scan denied decision=DENY reason={reason} product={product} gate={r.choice(gates)} "
            f"media={media(r)} day={day} resort=alder-peak took={r.randint(4, 11)}ms"
        )

    inc.errors(
        "pass-api",
        inc.begin,
        onset,
        0.2,
        deny("2027-12-25", "NOT_VALID_TODAY", "DAY_TICKET"),
        level="WARNING",
        logger_name="c.c.pass.validate.ScanValidator",
    )
    inc.errors(
        "pass-api",
        onset,
        now,
        2.4,
        lambda r: deny(
            "2027-12-26", "BLACKOUT", r.choice(["ALDER_LOCAL_4", "ALDER_LOCAL_4", "PEAK_FLEX"])
        )(r),
        level="WARNING",
        logger_name="c.c.pass.validate.ScanValidator",
    )
    inc.errors(
        "turnstile-gw",
        onset + MINUTE,
        now,
        2.0,
        lambda r: (
            f"gate answered decision=deny reason=BLACKOUT gate={r.choice(gates)} rtt_ms={r.randint(30, 70)}"
        ),
        level="WARNING",
        site="alder-peak",
    )
    inc.errors(
        "pass-api",
        at(inc, flag),
        onset,
        0.3,
        lambda r: f"deny notice queued channel=sms guest=G-{r.randint(100000, 999999)}",
        level="INFO",
        logger_name="c.c.pass.notify.DenyNotifier",
    )
    inc.errors(
        "pass-api",
        onset + 3 * MINUTE,
        now,
        1.1,
        lambda r: (
            f"deny notice failed guest=G-{r.randint(100000, 999999)}: SMS provider answered 429 Too Many Requests (1 msg/s per sender)"
        ),
        logger_name="c.c.pass.notify.DenyNotifier",
        stack_trace=java_stack(
            "io.ktor.client.plugins.ClientRequestException",
            "Client request(POST https://api.textwell.example/v1/messages) invalid: 429 Too Many Requests",
            [
                (
                    "io.ktor.client.plugins.DefaultResponseValidationKt$addDefaultResponseValidation$1$1.invokeSuspend",
                    "DefaultResponseValidation.kt",
                    54,
                ),
                ("com.cairnline.pass.notify.SmsClient.send", "SmsClient.kt", 37),
                ("com.cairnline.pass.notify.DenyNotifier.notify", "DenyNotifier.kt", 22),
            ],
        ),
    )
    inc.errors(
        "lift-status",
        onset + 6 * MINUTE,
        now,
        0.5,
        lambda r: (
            f'[warning] manual gate override lift=AP-{r.choice([3, 4])} operator=lo-{r.randint(100, 140)} note="pass says blackout, guest has Christmas night ticket"'
        ),
        level="WARNING",
    )
    inc.log(
        ts("2027-12-25T23:49:30"),
        "turnstile-gw",
        "INFO",
        "turnstile-gw v2.8.4 started, display clock zone America/Denver",
        pod="turnstile-gw-6f7d9-x21",
    )
    night = between(inc.begin, day_end, 1.0, 0.012)
    inc.fleet(
        turnstile_gw={"rps": times(night)},
        pass_api={"rps": times(lambda t: 1.0 if t < day_end else 0.02)},
    )
    for res, share in (("alder-peak", 0.45), ("stoneridge", 0.3), ("whitehorn", 0.25)):

        def scans(t: datetime, share: float = share, res: str = res) -> float:
            return 45 * share * (1.0 if t < day_end else (0.027 if res == "alder-peak" else 0.0))

        def ratio(t: datetime, res: str = res) -> float:
            if res != "alder-peak":
                return 0.03
            return 0.035 if t < onset else 0.29

        def denied(t: datetime, s: Shape = scans, q: Shape = ratio) -> float:
            return s(t) * q(t)

        def opened(t: datetime, s: Shape = scans, q: Shape = ratio) -> float:
            return s(t) * (1 - q(t))

        inc.metric(
            "gate_scan_decisions_total",
            "turnstile-gw",
            counter(denied, inc.begin),
            labels={"resort": res, "decision": "deny"},
            jitter=0.0,
            digits=0,
        )
        inc.metric(
            "gate_scan_decisions_total",
            "turnstile-gw",
            counter(opened, inc.begin),
            labels={"resort": res, "decision": "open"},
            jitter=0.0,
            digits=0,
        )
    inc.metric(
        "gate_deny_ratio",
        "turnstile-gw",
        lambda t: 0.035 if t < onset else 0.29,
        labels={"resort": "alder-peak"},
        jitter=0.1,
        digits=3,
    )
    inc.metric(
        "pass_validate_denied_per_second",
        "pass-api",
        lambda t: 0.0 if t < onset else 0.065,
        labels={"reason": "BLACKOUT"},
        jitter=0.15,
        digits=3,
    )
    inc.metric(
        "pass_validate_denied_per_second",
        "pass-api",
        lambda t: 0.02 if t < day_end else 0.006,
        labels={"reason": "NOT_VALID_TODAY"},
        jitter=0.2,
        digits=3,
    )
    inc.metric(
        "sms_send_errors_per_second",
        "pass-api",
        lambda t: 0.0 if t < onset + 3 * MINUTE else 0.02,
        labels={"provider": "textwell"},
        jitter=0.2,
        digits=3,
    )
    inc.alert = alerts.grafana(
        "Lift gate deny ratio above 15% (Alder Peak)",
        "turnstile-gw",
        ts("2027-12-26T00:26"),
        "warning",
        "Gate decisions by resort",
        'deny ratio 0.29 (A=sum(rate(gate_scan_decisions_total{decision="deny"}[10m])) / sum(rate(gate_scan_decisions_total[10m])))',
        resort="alder-peak",
        team="ticketing",
    )
    inc.blame(
        guilty,
        [rel],
        "pass-api",
        "code_defect",
        [sib, ktor, tzc, tzd, flag, cfg, shopc, shopd],
        onset,
    )
    return inc


def zabbix(
    title: str, service: str, fired: datetime, severity: str, host: str, item: str, value: str
) -> dict[str, Any]:
    """A Zabbix media-type webhook body (the OT monitoring of the pump houses)."""
    return alerts.alert(
        title,
        service,
        fired,
        severity,
        {
            "event_id": f"{int(fired.timestamp()) % 10_000_000}",
            "event_name": title,
            "event_severity": severity.capitalize(),
            "event_status": "PROBLEM",
            "event_date": fired.strftime("%Y.%m.%d"),
            "event_time": fired.strftime("%H:%M:%S"),
            "host_name": host,
            "item_name": item,
            "item_value": value,
            "trigger_description": "Pressure on the hydrant line fed by the pump station; guns close their valves below 150 psi.",
            "zabbix_url": "https://zabbix.ot.cairnline.example",
            "tags": [{"tag": "service", "value": service}, {"tag": "site", "value": "alder-peak"}],
        },
    )


def xt86_wetbulb_units() -> ExtIncident:
    now = ts("2027-12-09T04:20")
    inc = Inc(
        "xt86-wetbulb-units",
        "PS2 Alder Peak: hydrant line pressure below 150 psi",
        """A config change to Alder Peak's snowmaking settings set auto_start.wetbulb_max_c to 27.5:
        the mountain ops sheet gives the start temperature in Fahrenheit (27.5 F = -2.5 C), the key
        is in Celsius. Nothing happened for five hours; when the night window opened at 18:00 local
        (01:00 UTC) snowmaking-ctl started every gun whose station read a wet-bulb below 27.5 C, all
        148 instead of the 52 on the upper mountain (the lower mountain was at +0.5 C and makes
        slush). Three times the usual water draw emptied pond PS2 to its 20% low-suction cut-off;
        both pumps tripped at 03:08, the hydrant line lost pressure and the guns faulted on low
        water pressure. The failure shows in metrics (guns running, pond level, flow, pressure)
        and in the 01:00 cycle line (eligible=148, wetbulb_max_c=27.5) long before the error
        lines. Decoys: a snowmaking-ctl deploy 25 minutes before the window (staggered compressor
        loading when guns start), a flag turning on auto mode at Stoneridge 10 minutes before
        (same words, other resort, its 31 guns are normal), plant-scada and lift-status deploys in
        between. Category: configuration_error.""",
        now,
        CAIRNLINE,
        seed=8502,
        hours=9,
    )
    inc.doc(
        "Snowmaking at Alder Peak",
        """Pond PS2 feeds the hydrant line through pumps P2-A and P2-B (together about 1,800 gpm, which
runs about 60 fan guns). Pumps trip on low suction when the pond falls below 20%; refilling from the
creek intake takes about 10 hours. Auto-start: in the night window (18:00-08:00 local) a gun starts
when its trail's wet-bulb temperature is at or below the resort's start threshold (normally -2.5 C)
and the pond is above 35%. Upper-mountain guns (AP-H-*) usually run all night in December;
lower-mountain guns (AP-L-*) only on the coldest nights.""",
    )
    inc.doc(
        "Runbook: hydrant line pressure low",
        """Guns close their valves and fault below 150 psi. Check the pumps in plant-scada (tripped?),
the pond level, and how many guns snowmaking-ctl has running; stop guns by trail in the
snowmaking console if the pond is low.""",
    )
    inc.noise()
    inc.background(
        inc.begin, ts("2027-12-08T23:30"), 7, ["pass-api", "shop-web", "rental-pos", "turnstile-gw"]
    )
    guilty = inc.config(
        ts("2027-12-08T19:46"),
        "snowmaking-ctl",
        "alder-peak: auto-start at 27.5 wet-bulb as in the mountain ops sheet (MO-311)",
        "deploy/snowmaking-ctl/resorts/alder-peak.yaml",
        """resort: alder-peak
night_window: {start: "18:00", end: "08:00"}  # resort-local
auto_start:
  wetbulb_max_c: -2.5
  pond_min_pct: 35
  max_guns: 160""",
        """resort: alder-peak
night_window: {start: "18:00", end: "08:00"}  # resort-local
auto_start:
  wetbulb_max_c: 27.5
  pond_min_pct: 35
  max_guns: 160""",
        author="sven.haugland",
        line=1,
    )
    seqc = inc.code(
        ts("2027-12-09T00:05"),
        "snowmaking-ctl",
        "sequencer: stagger compressor loading by 20 s when starting guns\n\nCMP1 tripped on inrush "
        "last Tuesday when 40 guns opened together.\n\nChange-Id: Ia1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
        "snowmaking_ctl/sequencer.py",
        """    async def start(self, guns: list[Gun]) -> None:
        await asyncio.gather(*(g.open_valve() for g in guns))""",
        """    async def start(self, guns: list[Gun]) -> None:
        for batch in itertools.batched(guns, 8):
            await asyncio.gather(*(g.open_valve() for g in batch))
            await asyncio.sleep(self.settings.compressor_stagger_s)  # 20 s""",
        88,
        author="jonas.reinholt",
    )
    seqd = inc.ship(ts("2027-12-09T00:35"), "snowmaking-ctl", [seqc], "v1.19.0")
    flag = inc.flag(
        ts("2027-12-09T00:50"),
        "snowmaking-ctl",
        "snowmaking.auto_mode",
        "resorts:\n  alder-peak: auto\n  stoneridge: manual\n  whitehorn: manual",
        "resorts:\n  alder-peak: auto\n  stoneridge: auto\n  whitehorn: manual",
        "Stoneridge snowmaking on auto for the night (crew short-staffed)",
        author="sven.haugland",
    )
    onset = ts("2027-12-09T01:00")
    scadac = inc.code(
        ts("2027-12-09T01:40"),
        "plant-scada",
        "modbus: read PS2 pump vibration registers\n\nChange-Id: Ic0ffee00112233445566778899aabbccddeeff00",
        "internal/units/ps2.go",
        '\t{Name: "p2a_current_a", Addr: 30011, Scale: 0.1},',
        '\t{Name: "p2a_current_a", Addr: 30011, Scale: 0.1},\n\t{Name: "p2a_vibration_mm_s", Addr: 30021, Scale: 0.01},\n\t{Name: "p2b_vibration_mm_s", Addr: 30022, Scale: 0.01},',
        40,
        author="pquispe",
    )
    scadad = inc.ship(ts("2027-12-09T02:05"), "plant-scada", [scadac], "v0.14.2")
    lsc = inc.code(
        ts("2027-12-09T01:12"),
        "lift-status",
        "grooming: show snowmaking trails on the live board\n\nChange-Id: I5566778899aabbccddeeff0011223344556677aa",
        "lib/lift_status_web/live/lifts_live.ex",
        "    |> assign(:runs, Runs.list(resort))",
        "    |> assign(:runs, Runs.list(resort))\n    |> assign(:snowmaking, Snowmaking.active_trails(resort))",
        31,
        author="ellie.marchetti",
    )
    lsd = inc.ship(ts("2027-12-09T01:30"), "lift-status", [lsc], "v3.2.0")
    trip = ts("2027-12-09T03:08")
    lower = ["lower-bitterroot", "chute-run", "base-area", "meadow-cat"]
    upper = ["upper-bitterroot", "cornice", "high-traverse"]
    inc.log(
        onset + timedelta(seconds=4),
        "snowmaking-ctl",
        "INFO",
        "night window open resort=alder-peak (18:00 America/Denver)",
    )
    inc.log(
        onset + timedelta(seconds=9),
        "snowmaking-ctl",
        "INFO",
        "auto-start cycle resort=alder-peak eligible=148 started=148 wetbulb_max_c=27.5 pond_pct=81.6 max_guns=160",
    )
    inc.log(
        onset + timedelta(seconds=12),
        "snowmaking-ctl",
        "INFO",
        "auto-start cycle resort=stoneridge eligible=31 started=31 wetbulb_max_c=-2.5 pond_pct=74.2 max_guns=90",
    )
    inc.errors(
        "snowmaking-ctl",
        onset,
        onset + 8 * MINUTE,
        6,
        lambda r: (
            f"gun AP-L-{r.randint(1, 96):03d} started trail={r.choice(lower)} wetbulb_c={r.uniform(-0.4, 1.1):+.1f}"
            if r.random() < 0.65
            else f"gun AP-H-{r.randint(100, 152):03d} started trail={r.choice(upper)} wetbulb_c={r.uniform(-7.5, -5.5):+.1f}"
        ),
        level="INFO",
    )
    inc.errors(
        "snowmaking-ctl",
        onset + 25 * MINUTE,
        trip,
        0.4,
        lambda r: (
            f"gun AP-L-{r.randint(1, 96):03d} snow quality poor (nucleation): wetbulb_c={r.uniform(0.0, 1.2):+.1f} output=wet"
        ),
        level="WARNING",
    )
    t = onset + 40 * MINUTE
    while t < trip:
        level = 82.0 - 62.2 * (t - onset).total_seconds() / (trip - onset).total_seconds()
        inc.log(
            t,
            "plant-scada",
            "WARNING",
            f"PS2 pond level {level:.1f}% and falling, draw exceeds inflow",
            unit="PS2",
        )
        t += 10 * MINUTE
    inc.log(
        trip, "plant-scada", "ERROR", "PS2 pump P2-A trip LOW_SUCTION pond_pct=19.8", unit="PS2"
    )
    inc.log(
        trip + timedelta(seconds=14),
        "plant-scada",
        "ERROR",
        "PS2 pump P2-B trip LOW_SUCTION pond_pct=19.7",
        unit="PS2",
    )
    inc.errors(
        "snowmaking-ctl",
        trip + 2 * MINUTE,
        now,
        2.2,
        lambda r: (
            f"gun AP-{r.choice('HL')}-{r.randint(1, 152):03d} fault LOW_WATER_PRESSURE ({r.randint(40, 140)} psi), valve closed"
        ),
        traceback=py_stack(
            "snowmaking_ctl.errors.GunFault",
            "LOW_WATER_PRESSURE",
            [
                ("/app/snowmaking_ctl/opcua/client.py", 141, "read_status", "raise GunFault(code)"),
                (
                    "/app/snowmaking_ctl/guns.py",
                    77,
                    "poll",
                    "status = await self.client.read_status(self.node)",
                ),
            ][::-1],
        ),
    )
    inc.fleet(
        snowmaking_ctl={"err": add(step(trip, 0, 0.3))},
        plant_scada={"err": add(step(trip, 0, 0.01))},
    )

    def running(t: datetime) -> float:
        return 0 if t < onset else (148 if t < trip else 19)

    inc.metric(
        "snowmaking_guns_running",
        "snowmaking-ctl",
        running,
        labels={"resort": "alder-peak"},
        jitter=0.01,
        digits=0,
    )
    inc.metric(
        "snowmaking_guns_running",
        "snowmaking-ctl",
        lambda t: 0 if t < onset else 31,
        labels={"resort": "stoneridge"},
        jitter=0.02,
        digits=0,
    )
    inc.metric(
        "wetbulb_temperature_celsius",
        "plant-scada",
        ramp(inc.begin, now, 1.8, 0.3),
        labels={"station": "ap-base"},
        jitter=0.0,
        digits=1,
    )
    inc.metric(
        "wetbulb_temperature_celsius",
        "plant-scada",
        ramp(inc.begin, now, -4.9, -7.2),
        labels={"station": "ap-summit"},
        jitter=0.0,
        digits=1,
    )

    def pond(t: datetime) -> float:
        if t < onset:
            return 82.0
        if t < trip:
            return 82.0 - 62.2 * (t - onset).total_seconds() / (trip - onset).total_seconds()
        return 19.8 + 0.6 * (t - trip).total_seconds() / 3600

    inc.metric(
        "pond_level_percent", "plant-scada", pond, labels={"pond": "PS2"}, jitter=0.004, digits=1
    )
    inc.metric(
        "pump_flow_gpm",
        "plant-scada",
        lambda t: 0 if t < onset else (2950 if t < trip else 0),
        labels={"station": "PS2"},
        jitter=0.03,
        digits=0,
    )
    inc.metric(
        "hydrant_line_pressure_psi",
        "plant-scada",
        lambda t: 470 if t < onset else (395 if t < trip else 45),
        labels={"station": "PS2"},
        jitter=0.03,
        digits=0,
    )
    inc.metric(
        "compressor_load_percent",
        "plant-scada",
        lambda t: 8 if t < onset else (97 if t < trip else 22),
        labels={"unit": "CMP1"},
        jitter=0.03,
        digits=0,
    )
    inc.alert = zabbix(
        "PS2 Alder Peak: hydrant line pressure below 150 psi",
        "plant-scada",
        ts("2027-12-09T03:22"),
        "high",
        "PS2-ALDER",
        "Hydrant line pressure",
        "44 psi",
    )
    inc.blame(
        guilty,
        [],
        "snowmaking-ctl",
        "configuration_error",
        [seqc, seqd, flag, scadac, scadad, lsc, lsd],
        onset,
    )
    return inc


def xt87_summit_fibre() -> ExtIncident:
    now = ts("2028-01-08T18:05")
    inc = Inc(
        "xt87-summit-fibre",
        "TurnstileSiteGatesDisconnected: whitehorn-summit 0 of 21 gates connected",
        """Saturday morning at Whitehorn. At 17:12 UTC (10:12 local) the single fibre between the
        base switch (sw-wh-base-01, port xe-0/0/12) and the summit switch that carries lifts WH-6,
        WH-7 and WH-8 lost light: LibreNMS logs the receive power falling to -40 dBm and the summit
        switch unreachable. The summit MQTT broker and its 21 gates drop off; the gates fall back
        to their offline allow-list, turnstile-gw cannot reach the broker (no route to host) and
        the summit's scans stop reaching pass-api. Ten minutes earlier turnstile-gw was deployed
        fleet-wide with a commit changing how it reconnects to the site brokers: the rolling
        restart made every site's gates reconnect within a minute (a dip in the gates-connected
        series at every site, all back by 17:06, the summit included). Only the summit stays down,
        and the network monitor says why. Other decoys: a whitehorn site config adding two
        controllers, lift-status and pass-api deploys. Category: infrastructure (no change at
        fault).""",
        now,
        CAIRNLINE,
        seed=8503,
    )
    inc.doc(
        "Whitehorn site network",
        """Base area: sw-wh-base-01 (core), MQTT broker mqtt-wh-base (gates of WH-1 to WH-5).
Summit: sw-wh-summit-01 fed by one single-mode fibre from sw-wh-base-01 xe-0/0/12 along the WH-6
lift line (no redundant path; a radio backup is planned for 2028), MQTT broker mqtt-wh-summit
(gates of WH-6, WH-7, WH-8, 21 controllers). LibreNMS polls every switch each minute.""",
    )
    inc.doc(
        "Runbook: gates disconnected",
        """Gates keep working offline with the allow-list they last downloaded (passes sold or
reloaded since are denied; scans are stored and uploaded when the gate reconnects). If one site is
down and the others are fine, it is the site's network or broker: check LibreNMS for the site's
switches and call the resort's IT tech. If every site dropped, look at turnstile-gw.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2028-01-08T16:00"), 8)
    cfg = inc.config(
        ts("2028-01-08T16:30"),
        "turnstile-gw",
        "whitehorn: two TX-400 controllers for the new WH-8 maze",
        "deploy/turnstile-gw/sites/whitehorn.yaml",
        "summit:\n  broker: mqtts://mqtt-wh-summit.cairnline.lan:8883\n  gates: 19",
        "summit:\n  broker: mqtts://mqtt-wh-summit.cairnline.lan:8883\n  gates: 21",
        author="jonas.reinholt",
    )
    mqttc = inc.code(
        ts("2028-01-08T16:20"),
        "turnstile-gw",
        "mqtt: reconnect to site brokers with jittered backoff\n\nAll gateways hit a broker at the "
        "same instant after a broker restart.\n\nChange-Id: I8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f",
        "internal/mqtt/conn.go",
        """	opts.SetAutoReconnect(true)
	opts.SetMaxReconnectInterval(10 * time.Second)""",
        """	opts.SetAutoReconnect(true)
	opts.SetMaxReconnectInterval(30 * time.Second)
	opts.SetReconnectingHandler(func(_ mqtt.Client, o *mqtt.ClientOptions) {
		time.Sleep(time.Duration(rand.Int63n(int64(3 * time.Second)))) // jitter
	})""",
        48,
        author="jonas.reinholt",
    )
    lsc = inc.code(
        ts("2028-01-08T16:45"),
        "lift-status",
        "liftops: wind hold icon on the guest board\n\nChange-Id: I1a2b3c4d5e6f708192a3b4c5d6e7f80912a3b4c5",
        "lib/lift_status_web/components/lift_badge.ex",
        '      :hold -> "Hold"',
        '      :hold -> "Hold"\n      :wind_hold -> "Wind hold"',
        18,
        author="ellie.marchetti",
    )
    mqttd = inc.ship(ts("2028-01-08T17:02"), "turnstile-gw", [mqttc], "v2.9.0")
    lsd = inc.ship(ts("2028-01-08T17:05"), "lift-status", [lsc], "v3.3.1")
    onset = ts("2028-01-08T17:12")
    passc = inc.code(
        ts("2028-01-08T17:20"),
        "pass-api",
        "products: spring break 3-day bundle\n\nChange-Id: I4455667788990011aabbccddeeff001122334455",
        f"{_KT}/products/Catalog.kt",
        '        product("PEAK_FLEX", restricted = true),',
        '        product("PEAK_FLEX", restricted = true),\n        product("SPRING_3DAY", restricted = true, validFrom = LocalDate.parse("2028-03-11")),',
        55,
        author="pquispe",
    )
    passd = inc.ship(ts("2028-01-08T17:40"), "pass-api", [passc], "v4.33.0")
    sites = {"alder-peak": 64, "stoneridge": 47, "whitehorn-base": 38, "whitehorn-summit": 21}
    restart = at(inc, mqttd)
    for site in sites:
        inc.log(
            restart + timedelta(seconds=40),
            "turnstile-gw",
            "INFO",
            f"mqtt reconnecting site={site} backoff=jittered",
            site=site,
        )
        inc.log(
            restart + timedelta(seconds=70),
            "turnstile-gw",
            "INFO",
            f"mqtt connected site={site} gates={sites[site]}",
            site=site,
        )
    inc.log(
        onset - 3 * MINUTE,
        "librenms",
        "WARNING",
        "Sensor 'xe-0/0/12 Rx Power' on sw-wh-base-01 below warning threshold: -17.9 dBm (warn -16.0)",
    )
    inc.log(
        onset,
        "librenms",
        "ERROR",
        "Port xe-0/0/12 (summit uplink) on sw-wh-base-01 is down: ifOperStatus down, Rx Power -40.0 dBm (LOS)",
    )
    inc.log(
        onset + timedelta(seconds=55),
        "librenms",
        "ERROR",
        "Device sw-wh-summit-01 (10.44.8.2) is down: ICMP unreachable",
    )
    inc.errors(
        "librenms",
        onset + 5 * MINUTE,
        now,
        0.2,
        "Device sw-wh-summit-01 (10.44.8.2) still down, 0/3 polls answered",
        level="WARNING",
    )
    inc.log(
        onset + timedelta(seconds=46),
        "turnstile-gw",
        "WARNING",
        "mqtt connection lost site=whitehorn-summit: keepalive timeout (3 x 15s)",
        site="whitehorn-summit",
    )
    inc.errors(
        "turnstile-gw",
        onset + MINUTE,
        now,
        1.0,
        lambda r: "mqtt reconnect failed site=whitehorn-summit",
        site="whitehorn-summit",
        error="dial tcp 10.44.8.10:8883: connect: no route to host",
    )
    inc.errors(
        "turnstile-gw",
        onset + 2 * MINUTE,
        now,
        0.25,
        "site whitehorn-summit: 0/21 gates connected, gates running on offline allow-list",
        level="WARNING",
        site="whitehorn-summit",
    )
    inc.errors(
        "lift-status",
        onset + 20 * MINUTE,
        now,
        0.15,
        lambda r: (
            f'[warning] liftops note lift=WH-{r.choice([6, 7, 8])} "gates show OFFLINE, guests with today\'s reloads denied, opening by hand"'
        ),
        level="WARNING",
    )

    def connected(site: str) -> Shape:
        n = sites[site]

        def f(t: datetime) -> float:
            if restart <= t < restart + 4 * MINUTE:
                return n * 0.55
            if site == "whitehorn-summit" and t >= onset:
                return 0
            return n

        return f

    for site in sites:
        inc.metric(
            "turnstile_gates_connected",
            "turnstile-gw",
            connected(site),
            labels={"site": site},
            jitter=0.0,
            digits=0,
        )
        per = {
            "alder-peak": 17.0,
            "stoneridge": 12.0,
            "whitehorn-base": 10.0,
            "whitehorn-summit": 6.0,
        }[site]

        def scans(t: datetime, p: float = per, cut: bool = site == "whitehorn-summit") -> float:
            return 0.0 if cut and t >= onset else p

        inc.metric(
            "turnstile_scans_per_second",
            "turnstile-gw",
            scans,
            labels={"site": site},
            jitter=0.08,
            digits=2,
        )
    inc.metric(
        "ifOperStatus",
        "librenms",
        lambda t: 1 if t < onset else 2,
        labels={"device": "sw-wh-base-01", "ifName": "xe-0/0/12", "ifAlias": "summit uplink"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "sensor_dbm",
        "librenms",
        lambda t: -7.4 if t < onset - 4 * MINUTE else (-17.9 if t < onset else -40.0),
        labels={"device": "sw-wh-base-01", "sensor": "xe-0/0/12 Rx Power"},
        jitter=0.01,
        digits=1,
    )
    inc.fleet(
        turnstile_gw={"rps": times(step(onset, 1.0, 0.87)), "err": add(step(onset, 0, 0.006))},
        pass_api={"rps": times(step(onset, 1.0, 0.9))},
    )
    inc.alert = alerts.alertmanager(
        "TurnstileSiteGatesDisconnected",
        "turnstile-gw",
        ts("2028-01-08T17:28"),
        "critical",
        "whitehorn-summit 0 of 21 gates connected",
        'turnstile_gates_connected{site="whitehorn-summit"} has been 0 for 15 minutes; gates are on their offline allow-list.',
        'turnstile_gates_connected{site="whitehorn-summit"} / turnstile_gates_expected < 0.5',
        site="whitehorn-summit",
        team="ticketing",
    )
    inc.outside(
        "fibre uplink to the Whitehorn summit down (LOS on sw-wh-base-01 xe-0/0/12)",
        "turnstile-gw",
        "infrastructure",
        [mqttc, mqttd, cfg, lsc, lsd, passc, passd],
        onset,
    )
    return inc


def xt88_alliance_outage() -> ExtIncident:
    now = ts("2028-02-12T16:40")
    inc = Inc(
        "xt88-alliance-outage",
        "Lift gate deny ratio above 10% (all resorts)",
        """Saturday opening rush. At 15:41 UTC (08:41 local) Summit Alliance's redemption API,
        which pass-api calls at the first scan of the day of every alliance partner pass, starts
        answering 503 and timing out (a failover of their primary database). pass-api denies those
        scans with VERIFY_UNAVAILABLE after waiting up to 4 s, the gates give up after 300 ms, and
        the deny ratio at all three resorts jumps from 3% to 14% while guests queue at the ticket
        windows. The alliance posted a status notice at 16:02, after our alert. Every stack trace
        names AllianceClient.redeem, and AllianceClient.kt is the file a pass-api commit changed in
        the 15:05 release (a latency histogram per partner resort, plus a sibling logging commit);
        the alliance client's connection pool was raised by a config change at 14:10. Other decoys:
        a turnstile-gw allow-list refresh config, a shop-web deploy at 15:30 and, after the onset,
        a config change cutting the alliance timeout to 2 s (mitigation). Category:
        dependency_failure.""",
        now,
        CAIRNLINE,
        seed=8504,
    )
    inc.doc(
        "Summit Alliance status — Partner redemption API",
        """2028-02-12T16:02:00Z Investigating - We are seeing elevated error rates and timeouts on the
partner redemption API (api.summitalliance.example/v2/redemptions). Member resorts may be unable to
redeem alliance passes at their gates.
2028-02-12T16:24:00Z Identified - A failover of the primary database in our us-west region is in
progress; redemptions will recover as it completes.""",
    )
    inc.doc(
        "Runbook: alliance passes",
        """An alliance pass is redeemed once per resort and day: pass-api's AllianceClient POSTs
/v2/redemptions at the first scan (timeout 4 s, pool alliance.maxConnections). While the alliance is
down the gates deny alliance passes with VERIFY_UNAVAILABLE; ticket windows can redeem by hand in
the alliance's partner portal. There is no offline mode for alliance passes (contract).""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2028-02-12T14:00"), 8)
    pool = inc.config(
        ts("2028-02-12T14:10"),
        "pass-api",
        "pass-api: alliance client pool 32 -> 48 for the weekend peak",
        "deploy/pass-api/values-prod.yaml",
        "alliance:\n  baseUrl: https://api.summitalliance.example\n  maxConnections: 32\n  requestTimeoutMs: 4000",
        "alliance:\n  baseUrl: https://api.summitalliance.example\n  maxConnections: 48\n  requestTimeoutMs: 4000",
        author="tara.odonnell",
    )
    hist = inc.code(
        ts("2028-02-12T14:40"),
        "pass-api",
        "alliance: redemption latency histogram per partner resort\n\nChange-Id: I2468ace02468ace02468ace02468ace02468ace0",
        f"{_KT}/alliance/AllianceClient.kt",
        """    suspend fun redeem(pass: AlliancePass, resort: Resort): Redemption {
        val response = http.post("$baseUrl/v2/redemptions") {
            setBody(RedemptionRequest(pass.allianceId, resort.allianceCode, LocalDate.now(resort.zoneId)))
        }
        return response.body()
    }""",
        """    suspend fun redeem(pass: AlliancePass, resort: Resort): Redemption {
        val timer = Timer.start(registry)
        val response = http.post("$baseUrl/v2/redemptions") {
            setBody(RedemptionRequest(pass.allianceId, resort.allianceCode, LocalDate.now(resort.zoneId)))
        }
        timer.stop(registry.timer("alliance.redeem", "resort", resort.id))
        return response.body()
    }""",
        80,
        author="pquispe",
    )
    logc = inc.code(
        ts("2028-02-12T14:52"),
        "pass-api",
        "validate: log a hash of the media id instead of the raw id\n\nChange-Id: I1357bdf11357bdf11357bdf11357bdf11357bdf1",
        f"{_KT}/validate/ScanValidator.kt",
        '        log.info("scan validated decision={} gate={} media={}", d.decision, gate, mediaId)',
        '        log.info("scan validated decision={} gate={} media#={}", d.decision, gate, mediaId.sha256().take(10))',
        47,
        author="ellie.marchetti",
    )
    rel = inc.ship(ts("2028-02-12T15:05"), "pass-api", [hist, logc], "v4.36.0")
    allow = inc.config(
        ts("2028-02-12T15:20"),
        "turnstile-gw",
        "gates: refresh the offline allow-list every 10 min (was 15)",
        "deploy/turnstile-gw/values-prod.yaml",
        'env:\n  ALLOWLIST_REFRESH: "15m"',
        'env:\n  ALLOWLIST_REFRESH: "10m"',
        author="jonas.reinholt",
    )
    shopc = inc.code(
        ts("2028-02-12T15:12"),
        "shop-web",
        "checkout: show the alliance pass upgrade offer\n\nChange-Id: I9753fdb99753fdb99753fdb99753fdb99753fdb9",
        "app/checkout/upsell.tsx",
        "  if (!cart.hasSeasonPass) return null",
        "  if (!cart.hasSeasonPass && !cart.hasAlliancePass) return null",
        12,
        author="tara.odonnell",
    )
    shopd = inc.ship(ts("2028-02-12T15:30"), "shop-web", [shopc], "v7.52.0")
    onset = ts("2028-02-12T15:41")
    cut = inc.config(
        ts("2028-02-12T16:15"),
        "pass-api",
        "pass-api: alliance timeout 4s -> 2s so gates answer faster while the alliance is down",
        "deploy/pass-api/values-prod.yaml",
        "alliance:\n  maxConnections: 48\n  requestTimeoutMs: 4000",
        "alliance:\n  maxConnections: 48\n  requestTimeoutMs: 2000",
        author="tara.odonnell",
    )
    opening = ts("2028-02-12T15:30")
    gates = ["AP-1-G2", "AP-2-G1", "SR-1-G3", "SR-2-G2", "WH-1-G1", "WH-3-G4", "WH-6-G2"]
    trace_503 = java_stack(
        "io.ktor.client.plugins.ServerResponseException",
        'Server error(POST https://api.summitalliance.example/v2/redemptions: 503 Service Unavailable. Text: "upstream connect error or disconnect/reset before headers. reset reason: connection failure"',
        [
            (
                "io.ktor.client.plugins.DefaultResponseValidationKt$addDefaultResponseValidation$1$1.invokeSuspend",
                "DefaultResponseValidation.kt",
                58,
            ),
            ("com.cairnline.pass.alliance.AllianceClient.redeem", "AllianceClient.kt", 88),
            ("com.cairnline.pass.validate.AlliancePolicy.check", "AlliancePolicy.kt", 31),
            ("com.cairnline.pass.validate.ScanValidator.validate", "ScanValidator.kt", 40),
        ],
    )
    trace_to = java_stack(
        "io.ktor.client.plugins.HttpRequestTimeoutException",
        "Request timeout has expired [url=https://api.summitalliance.example/v2/redemptions, request_timeout=4000 ms]",
        [
            (
                "io.ktor.client.plugins.HttpTimeoutKt$HttpTimeout$2$1$killer$1.invokeSuspend",
                "HttpTimeout.kt",
                165,
            ),
            ("com.cairnline.pass.alliance.AllianceClient.redeem", "AllianceClient.kt", 84),
            ("com.cairnline.pass.validate.AlliancePolicy.check", "AlliancePolicy.kt", 31),
        ],
    )
    inc.errors(
        "pass-api",
        onset,
        now,
        1.3,
        lambda r: (
            f"alliance redemption failed resort={r.choice(['alder-peak', 'stoneridge', 'whitehorn'])} allianceId=SA-{r.randint(1000000, 9999999)}: 503 Service Unavailable"
        ),
        logger_name="c.c.pass.alliance.AllianceClient",
        stack_trace=trace_503,
    )
    inc.errors(
        "pass-api",
        onset + 2 * MINUTE,
        now,
        0.6,
        lambda r: (
            f"alliance redemption failed resort={r.choice(['alder-peak', 'stoneridge', 'whitehorn'])} allianceId=SA-{r.randint(1000000, 9999999)}: request timeout 4000 ms"
        ),
        logger_name="c.c.pass.alliance.AllianceClient",
        stack_trace=trace_to,
    )
    inc.errors(
        "pass-api",
        onset,
        now,
        2.2,
        lambda r: (
            f"scan denied decision=DENY reason=VERIFY_UNAVAILABLE product=ALLIANCE gate={r.choice(gates)} media#={r.getrandbits(40):010x}"
        ),
        level="WARNING",
        logger_name="c.c.pass.validate.ScanValidator",
    )
    inc.errors(
        "turnstile-gw",
        onset + MINUTE,
        now,
        1.6,
        lambda r: (
            f"pass-api answer late ({r.randint(2100, 4100)} ms > 300 ms), gate shows SEE TICKET OFFICE gate={r.choice(gates)}"
        ),
        level="WARNING",
    )
    inc.errors(
        "pass-api",
        opening,
        now,
        0.6,
        lambda r: (
            f"scan validated decision=ALLOW product=ALLIANCE gate={r.choice(gates)} redeemed=cached"
        ),
        level="INFO",
        logger_name="c.c.pass.validate.ScanValidator",
    )
    inc.errors(
        "pass-api",
        opening,
        onset,
        2.0,
        lambda r: (
            f"alliance redemption ok resort={r.choice(['alder-peak', 'stoneridge', 'whitehorn'])} took={r.randint(90, 260)}ms"
        ),
        level="INFO",
        logger_name="c.c.pass.alliance.AllianceClient",
    )

    def day(t: datetime) -> float:
        return 1.0 if t >= opening else 0.05

    inc.fleet(
        pass_api={
            "rps": times(day),
            "err": add(step(onset, 0, 0.012)),
            "p99": lambda t, v: v if t < onset else 3900.0,
        },
        turnstile_gw={"rps": times(day), "p99": lambda t, v: v if t < onset else 310.0},
    )
    inc.metric(
        "gate_deny_ratio",
        "turnstile-gw",
        lambda t: 0.0 if t < opening else (0.032 if t < onset else 0.14),
        labels={"resort": "all"},
        jitter=0.08,
        digits=3,
    )
    inc.metric(
        "http_client_requests_per_second",
        "pass-api",
        lambda t: 0.2 if t < opening else (2.6 if t < onset else 0.05),
        labels={"client": "alliance", "status": "2xx"},
        jitter=0.1,
        digits=2,
    )
    inc.metric(
        "http_client_requests_per_second",
        "pass-api",
        lambda t: 0.0 if t < onset else 2.4,
        labels={"client": "alliance", "status": "5xx_or_timeout"},
        jitter=0.1,
        digits=2,
    )
    inc.metric(
        "http_client_request_duration_p99_ms",
        "pass-api",
        lambda t: 210 if t < onset else 4000,
        labels={"client": "alliance"},
        jitter=0.04,
        digits=0,
    )
    inc.metric(
        "hikaricp_connections_active",
        "pass-api",
        lambda t: 6 if t < opening else 11,
        labels={"pool": "ticketdb"},
        jitter=0.1,
        digits=0,
    )
    inc.alert = alerts.grafana(
        "Lift gate deny ratio above 10% (all resorts)",
        "turnstile-gw",
        ts("2028-02-12T15:58"),
        "critical",
        "Gate decisions by resort",
        "deny ratio 0.14",
        resort="all",
        team="ticketing",
    )
    inc.outside(
        "Summit Alliance redemption API outage (503s and timeouts; status notice)",
        "pass-api",
        "dependency_failure",
        [pool, hist, logc, rel, allow, shopc, shopd, cut],
        onset,
    )
    return inc


def xt89_wind_hold() -> ExtIncident:
    now = ts("2028-01-22T18:55")
    inc = Inc(
        "xt89-wind-hold",
        "LiftScansStopped: no scans at WH-7 for 15 minutes",
        """Whitehorn's Cornice Express (WH-7) went on wind hold at 18:05 UTC (11:05 local): the lift
        operator set it in lift-status with gusts of 95 km/h at the top terminal. With the lift
        stopped nobody is scanned at its gates, and the LiftScansStopped alert (no scans for 15
        minutes during operating hours; it does not know about lift holds) fired at 18:21. The
        gates are online and heartbeating, guests moved to WH-6, whose scans went up; everything
        works. Five minutes before the hold, a config change rolled gate firmware 3.4.3 to the
        gates of WH-5, WH-6 and WH-7 (the gates rebooted, a dip in gates connected until 18:06),
        and turnstile-gw was deployed at 17:50: both are decoys, WH-5 and WH-6 scan normally on
        the same firmware. A lift-status deploy at 18:12 touches the wind-hold display.
        Category: healthy (a noisy alert during a planned operational hold).""",
        now,
        CAIRNLINE,
        seed=8505,
        hours=6,
    )
    inc.doc(
        "Lift operations: holds",
        """Lift operators put a lift on hold (mechanical, evacuation drill) or wind hold (gusts above
80 km/h at a terminal for WH-7 and WH-8) in lift-status; the board shows it to guests. A wind hold
lasts until gusts stay below 65 km/h for 20 minutes. Scans at a held lift fall to zero; guests go
to the neighbouring lifts.""",
    )
    inc.doc(
        "Alert: LiftScansStopped",
        """Fires when a lift's gates record no scans for 15 minutes between 08:30 and 16:00 local.
Known gap: it does not read lift-status holds (ticket OPS-412), so it fires on every hold longer
than 15 minutes; check lift-status and the gates' heartbeats first.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2028-01-22T17:00"), 6)
    offc = inc.code(
        ts("2028-01-22T17:20"),
        "turnstile-gw",
        "offline: upload stored scans in batches of 200\n\nChange-Id: I0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c",
        "internal/gates/offline.go",
        "\tfor _, s := range stored {\n\t\tif err := g.upload(ctx, s); err != nil {\n\t\t\treturn err\n\t\t}\n\t}",
        "\tfor batch := range slices.Chunk(stored, 200) {\n\t\tif err := g.uploadBatch(ctx, batch); err != nil {\n\t\t\treturn err\n\t\t}\n\t}",
        72,
        author="jonas.reinholt",
    )
    offd = inc.ship(ts("2028-01-22T17:50"), "turnstile-gw", [offc], "v2.9.3")
    fw = inc.config(
        ts("2028-01-22T18:00"),
        "turnstile-gw",
        "whitehorn: TX-400 firmware 3.4.3 on the WH-5, WH-6 and WH-7 gates (reader fix for cold mornings)",
        "deploy/turnstile-gw/sites/whitehorn.yaml",
        "firmware:\n  default: 3.4.2\n  canary: {}",
        "firmware:\n  default: 3.4.2\n  canary:\n    lifts: [WH-5, WH-6, WH-7]\n    version: 3.4.3",
        author="sven.haugland",
    )
    hold = ts("2028-01-22T18:05")
    lsc = inc.code(
        ts("2028-01-22T17:58"),
        "lift-status",
        "board: show the wind-hold reason and the last gust reading\n\nChange-Id: Iabcabcabcabcabcabcabcabcabcabcabcabcabca",
        "lib/lift_status_web/components/lift_badge.ex",
        '      :wind_hold -> "Wind hold"',
        '      :wind_hold -> "Wind hold (gusts #{@lift.last_gust_kmh} km/h)"',
        19,
        author="ellie.marchetti",
    )
    lsd = inc.ship(ts("2028-01-22T18:12"), "lift-status", [lsc], "v3.4.0")
    gates = {"WH-5": 4, "WH-6": 3, "WH-7": 4}
    for i, (lift, n) in enumerate(gates.items()):
        for g in range(1, n + 1):
            t = at(inc, fw) + timedelta(seconds=40 + 25 * (i * 4 + g))
            inc.log(
                t,
                "turnstile-gw",
                "INFO",
                f"gate firmware updated gate={lift}-G{g} from=3.4.2 to=3.4.3 reboot=true",
                site="whitehorn-summit",
            )
            inc.log(
                t + timedelta(seconds=50),
                "turnstile-gw",
                "INFO",
                f"gate online gate={lift}-G{g} version=3.4.3",
                site="whitehorn-summit",
            )
    inc.log(
        hold + timedelta(seconds=8),
        "lift-status",
        "INFO",
        '[info] lift WH-7 status open -> wind_hold by liftops:mkowalski reason="gusts 95 km/h at top terminal"',
    )
    inc.log(
        hold + timedelta(seconds=9),
        "lift-status",
        "INFO",
        "[info] broadcast lift WH-7 wind_hold subscribers=2214",
    )
    inc.errors(
        "lift-status",
        hold + 20 * MINUTE,
        now,
        0.1,
        lambda r: f"[info] wind reading lift=WH-7 gust_kmh={r.randint(78, 99)} hold=continues",
        level="INFO",
    )
    inc.errors(
        "turnstile-gw",
        hold,
        now,
        0.6,
        lambda r: f"gate heartbeat gate=WH-7-G{r.randint(1, 4)} state=idle version=3.4.3 reader=ok",
        level="INFO",
        site="whitehorn-summit",
    )
    inc.errors(
        "turnstile-gw",
        inc.begin + 3 * timedelta(hours=1),
        now,
        1.2,
        lambda r: (
            f"gate answered site=whitehorn-summit gate=WH-{r.choice([5, 6, 6])}-G{r.randint(1, 3)} decision=open rtt_ms={r.randint(30, 60)}"
        ),
        level="INFO",
        site="whitehorn-summit",
    )
    inc.errors(
        "rental-pos",
        inc.begin + 3 * timedelta(hours=1),
        now,
        0.05,
        "receipt printer RP-WHITEHORN-1 offline (paper out)",
    )
    opening = ts("2028-01-22T15:30")

    def day(t: datetime) -> float:
        return 1.0 if t >= opening else 0.05

    inc.fleet(
        turnstile_gw={"rps": times(day)},
        pass_api={"rps": times(day)},
        rental_pos={"rps": times(day)},
    )
    for lift, per in (("WH-5", 3.0), ("WH-6", 2.8), ("WH-7", 3.2)):

        def rate(t: datetime, lift: str = lift, per: float = per) -> float:
            if t < opening:
                return 0.0
            if lift == "WH-7" and t >= hold:
                return 0.0
            if lift == "WH-6" and t >= hold:
                return per * 1.5
            return per

        inc.metric(
            "turnstile_scans_per_second",
            "turnstile-gw",
            rate,
            labels={"lift": lift},
            jitter=0.08,
            digits=2,
        )
    inc.metric(
        "turnstile_gates_connected",
        "turnstile-gw",
        lambda t: 14 if at(inc, fw) <= t < at(inc, fw) + 5 * MINUTE else 21,
        labels={"site": "whitehorn-summit"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "lift_wind_gust_kmh",
        "lift-status",
        ramp(ts("2028-01-22T17:10"), hold, 42, 95),
        labels={"lift": "WH-7", "terminal": "top"},
        jitter=0.06,
        digits=0,
    )
    inc.metric(
        "lift_status_code",
        "lift-status",
        lambda t: 0 if t < opening else (1 if t < hold else 3),
        labels={"lift": "WH-7", "codes": "0 closed,1 open,2 hold,3 wind_hold"},
        jitter=0.0,
        digits=0,
    )
    inc.alert = alerts.alertmanager(
        "LiftScansStopped",
        "turnstile-gw",
        ts("2028-01-22T18:21"),
        "warning",
        "no scans at WH-7 for 15 minutes",
        'sum(increase(gate_scans_total{lift="WH-7"}[15m])) == 0 during operating hours.',
        'sum by (lift) (increase(gate_scans_total{lift="WH-7"}[15m])) == 0 and on() operating_hours == 1',
        lift="WH-7",
        team="ticketing",
    )
    inc.healthy(
        "turnstile-gw",
        "expected: WH-7 on wind hold since 18:05 (gusts 95 km/h), so no guests are scanned; gates are online and heartbeating; the alert does not read lift holds",
        [offc, offd, fw, lsc, lsd],
        hold,
    )
    return inc


def sentry(
    title: str, service: str, fired: datetime, culprit: str, rule: str, tags: dict[str, str]
) -> dict[str, Any]:
    """A Sentry issue-alert webhook body."""
    return alerts.alert(
        title,
        service,
        fired,
        "error",
        {
            "action": "triggered",
            "actor": {"type": "application", "name": "Sentry"},
            "data": {
                "event": {
                    "title": title,
                    "culprit": culprit,
                    "level": "error",
                    "platform": "csharp",
                    "datetime": iso(fired),
                    "environment": "production",
                    "tags": [[k, v] for k, v in tags.items()],
                    "web_url": "https://sentry.cairnline.example/organizations/cairnline/issues/48211/",
                },
                "triggered_rule": rule,
            },
        },
    )


def xt90_rentaldb_reads_stall() -> ExtIncident:
    now = ts("2028-02-26T16:48")
    inc = Inc(
        "xt90-rentaldb-reads-stall",
        "NpgsqlException: Exception while reading from stream",
        """For fourteen minutes (16:05-16:19 UTC, the rental shops' morning rush) rental-pos's
        queries to rentaldb stalled: reads from the database socket timed out after 30 s, about 7%
        of checkouts and fittings failed in every shop, then it stopped by itself. rentaldb's own
        metrics show nothing (connections, CPU, locks, statement times flat), no pod restarted, no
        network device logged anything, and no change touches rental-pos's database path. Nothing
        in the data explains it. Nearby changes are decoys: a rental-pos config change 25 minutes
        before (receipt text), shop-web and pass-api deploys just before the onset, and a rental-pos
        commit after it. Category: unknown.""",
        now,
        CAIRNLINE,
        seed=8506,
        hours=6,
    )
    inc.doc(
        "Runbook: rental-pos",
        """rental-pos (shops at the three base areas) talks to rentaldb (PostgreSQL 16 on VM
pg-rental-01, same rack as the k8s workers) through Npgsql, pool 50 per pod, command timeout 30 s.
Shops can fall back to paper rental forms. Escalate to the DBA on call if rentaldb shows load or
locks.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2028-02-26T15:00"), 7)
    cfg = inc.config(
        ts("2028-02-26T15:40"),
        "rental-pos",
        "rental-pos: DIN disclaimer on receipts in Spanish too",
        "deploy/rental-pos/appsettings.Production.json",
        '  "Receipts": {\n    "Languages": ["en"],\n    "Printer": "escpos"\n  },',
        '  "Receipts": {\n    "Languages": ["en", "es"],\n    "Printer": "escpos"\n  },',
        author="tara.odonnell",
    )
    shopc = inc.code(
        ts("2028-02-26T15:31"),
        "shop-web",
        "rentals: pre-book rental packages with the lift ticket\n\nChange-Id: I7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b",
        "app/lift-tickets/addons.tsx",
        "  const addons = [lessons, parking]",
        "  const addons = [lessons, parking, rentalPackages]",
        20,
        author="pquispe",
    )
    shopd = inc.ship(ts("2028-02-26T15:55"), "shop-web", [shopc], "v7.58.0")
    passc = inc.code(
        ts("2028-02-26T15:36"),
        "pass-api",
        "products: rental package add-on SKU\n\nChange-Id: I3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d",
        f"{_KT}/products/Catalog.kt",
        '        product("DAY_TICKET"),',
        '        product("DAY_TICKET"),\n        addon("RENTAL_PKG_STD", fulfilledBy = "rental-pos"),',
        49,
        author="pquispe",
    )
    passd = inc.ship(ts("2028-02-26T16:01"), "pass-api", [passc], "v4.38.1")
    onset, end = ts("2028-02-26T16:05"), ts("2028-02-26T16:19")
    later = inc.code(
        ts("2028-02-26T16:31"),
        "rental-pos",
        "checkout: shorter command timeout for the fitting lookup\n\nChange-Id: I0d1c2b3a4f5e6d7c8b9a0f1e2d3c4b5a6f7e8d9c",
        "src/RentalPos/Fittings/FittingRepository.cs",
        "            .WithCommandTimeout(30)",
        "            .WithCommandTimeout(10)",
        64,
        author="jonas.reinholt",
    )
    stack = dotnet_stack(
        "Npgsql.NpgsqlException (0x80004005)",
        "Exception while reading from stream",
        [
            (
                "Npgsql.Internal.NpgsqlReadBuffer.<Ensure>g__EnsureLong|55_0(NpgsqlReadBuffer buffer, Int32 count, Boolean async, Boolean readingNotifications)",
                "/_/src/Npgsql/Internal/NpgsqlReadBuffer.cs",
                0,
            ),
            (
                "Npgsql.NpgsqlDataReader.NextResult(Boolean async, Boolean isConsuming, CancellationToken cancellationToken)",
                "/_/src/Npgsql/NpgsqlDataReader.cs",
                0,
            ),
            (
                "RentalPos.Checkout.CheckoutService.CompleteAsync(Guid rentalId, CheckoutRequest request, CancellationToken ct)",
                "/src/RentalPos/Checkout/CheckoutService.cs",
                88,
            ),
            (
                "RentalPos.Checkout.CheckoutEndpoints.<>c.<<Map>b__0_1>d.MoveNext()",
                "/src/RentalPos/Checkout/CheckoutEndpoints.cs",
                31,
            ),
        ],
        inner="System.TimeoutException: Timeout during reading attempt",
    ).replace(":line 0", "")
    shops = ["alder-peak-base", "stoneridge-village", "whitehorn-base"]
    inc.errors(
        "rental-pos",
        onset,
        end,
        3.0,
        lambda r: (
            f"Failed executing DbCommand (30,0{r.randint(10, 99)}ms) [Parameters=[@__rentalId_0='?' (DbType = Guid)], CommandType='Text', CommandTimeout='30'] shop={r.choice(shops)}"
        ),
        category="Microsoft.EntityFrameworkCore.Database.Command",
        exception=stack,
    )
    inc.errors(
        "rental-pos",
        onset + MINUTE,
        end,
        0.6,
        lambda r: (
            f"HTTP POST /api/rentals/{r.getrandbits(32):08x}/checkout responded 500 in 30{r.randint(100, 900)}.4 ms"
        ),
        level="WARNING",
    )
    inc.errors(
        "rental-pos",
        onset + 2 * MINUTE,
        end,
        0.3,
        "Npgsql: breaking connector to rentaldb.internal:5432 after read timeout; it will not be returned to the pool",
        level="WARNING",
    )
    inc.errors(
        "rental-pos",
        end + 2 * MINUTE,
        now,
        0.1,
        lambda r: f"paper form reconciled shop={r.choice(shops)} rental entered by hand",
        level="INFO",
    )
    inc.fleet(
        rental_pos={
            "err": add(between(onset, end, 0.07, 0.0)),
            "p99": lambda t, v: 30000.0 if onset <= t < end else v,
        }
    )
    inc.metric(
        "db_client_connections_usage",
        "rental-pos",
        between(onset, end, 41, 7),
        labels={"pool": "rentaldb", "state": "used"},
        jitter=0.1,
        digits=0,
    )
    inc.metric(
        "pg_stat_database_numbackends",
        "rentaldb",
        lambda t: 29,
        labels={"datname": "rental"},
        jitter=0.05,
        digits=0,
    )
    inc.metric(
        "node_cpu_utilisation",
        "rentaldb",
        lambda t: 0.17,
        labels={"instance": "pg-rental-01"},
        jitter=0.1,
        digits=3,
    )
    inc.metric(
        "pg_locks_waiting",
        "rentaldb",
        lambda t: 0,
        labels={"datname": "rental"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "pg_stat_statements_mean_exec_time_ms",
        "rentaldb",
        lambda t: 3.1,
        labels={"datname": "rental"},
        jitter=0.08,
        digits=2,
    )
    inc.metric(
        "node_network_receive_errs_total",
        "rentaldb",
        lambda t: 12,
        labels={"instance": "pg-rental-01", "device": "ens192"},
        jitter=0.0,
        digits=0,
    )
    inc.alert = sentry(
        "NpgsqlException: Exception while reading from stream",
        "rental-pos",
        ts("2028-02-26T16:11"),
        "RentalPos.Checkout.CheckoutService in CompleteAsync",
        "rental-pos checkout errors: more than 20 events in 5 minutes",
        {
            "environment": "production",
            "server_name": "rental-pos-7d9f8-k2x4p",
            "release": "rental-pos@5.12.0",
        },
    )
    inc.unexplained("rental-pos", [cfg, shopc, shopd, passc, passd, later], onset)
    return inc


# --- Redhaven Port Authority ------------------------------------------------------------------------


def xt91_check_digit_remainder() -> ExtIncident:
    now = ts("2028-02-15T08:05")
    inc = Inc(
        "xt91-check-digit-remainder",
        "Gate trouble-lane share above 8%",
        """gate-ocr release v2.14.0 (06:40 UTC, before the in-gate opens at 07:00) shipped three
        commits. One rewrote the ISO 6346 check digit with a numpy weights table and returns the
        weighted sum modulo 11 as it is; the old loop mapped a remainder of 10 to check digit 0,
        as the standard says. About one container in eleven has check digit 0, and from the first
        trucks at 07:00 every such read fails the check ('computed=10'), so gate-tas sends the
        truck to the trouble lane for a clerk to key the number in. The OCR itself is fine
        (confidence unchanged), error ratios barely move; the trouble-lane share, its queue and the
        truck turn time climb. Decoys: the sibling commits of the same release (glare compensation
        for the new lane cameras; a PaddleOCR bump), a lane 3 camera exposure config at 06:55, a
        gate-tas deploy at 07:15 that shows OCR confidence on the trouble-lane screen, and a
        berth-planner deploy. Category: code_defect.""",
        now,
        REDHAVEN,
        seed=8507,
    )
    inc.doc(
        "In-gate process",
        """The in-gate is open 07:00-19:00. Each truck passes an OCR portal (gate-ocr reads container
numbers, seals and the plate, checks the ISO 6346 check digit) and stops at a kiosk; gate-tas
matches the read with the appointment. A read gate-tas cannot trust (check digit failed, no
appointment, customs hold) sends the truck to the trouble lane, where one clerk keys it in (about 3
minutes a truck). A normal trouble-lane share is 2-4%.""",
    )
    inc.noise()
    inc.background(
        inc.begin,
        ts("2028-02-15T05:30"),
        6,
        ["pcs-edi", "customs-bridge", "reefer-monitor", "berth-planner"],
    )
    guilty = inc.code(
        ts("2028-02-14T16:20"),
        "gate-ocr",
        "Changed: ISO 6346 check digit with a weights table, no per-character loop [RPA-2291]",
        "gate_ocr/validate/iso6346.py",
        '''def check_digit(code: str) -> int:
    """Check digit of the owner code, category and serial (first 10 characters)."""
    total = 0
    for i, ch in enumerate(code[:10]):
        value = int(ch) if ch.isdigit() else LETTER_VALUES[ch]
        total += value * 2**i
    remainder = total % 11
    return 0 if remainder == 10 else remainder''',
        '''WEIGHTS = np.array([2**i for i in range(10)])


def check_digit(code: str) -> int:
    """Check digit of the owner code, category and serial (first 10 characters)."""
    values = np.array([CHAR_VALUES[ch] for ch in code[:10]])
    return int(values @ WEIGHTS % 11)''',
        18,
        author="k.vandermeer",
    )
    sib = inc.code(
        ts("2028-02-14T17:05"),
        "gate-ocr",
        "Added: glare compensation for the new lane 7-8 cameras [RPA-2287]",
        "gate_ocr/preprocess.py",
        "    frame = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)",
        '    frame = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)\n    if lane.camera_model == "Q1800":\n        frame = clahe(frame, clip_limit=2.0)  # low sun on the east lanes',
        33,
        author="lena.sorensen",
    )
    bump = inc.code(
        ts("2028-02-15T05:48"),
        "gate-ocr",
        "Changed: paddleocr 2.7.3 -> 2.8.1 [RPA-2290]",
        "pyproject.toml",
        '    "paddleocr==2.7.3",\n    "opencv-python-headless==4.10.0.84",',
        '    "paddleocr==2.8.1",\n    "opencv-python-headless==4.10.0.84",',
        14,
        author="dependabot[bot]",
    )
    rel = inc.ship(ts("2028-02-15T06:40"), "gate-ocr", [guilty, sib, bump], "v2.14.0")
    cfg = inc.config(
        ts("2028-02-15T06:55"),
        "gate-ocr",
        "gate-ocr: lane 3 exposure 1/1000 -> 1/2000 (motion blur on fast trucks)",
        "deploy/gate-ocr/lanes.yaml",
        "lane3:\n  camera: Q1700\n  exposure: 1/1000\n  gain_db: 6",
        "lane3:\n  camera: Q1700\n  exposure: 1/2000\n  gain_db: 9",
        author="lena.sorensen",
    )
    onset = ts("2028-02-15T07:00")
    # the in-gate is closed at night: no lane reads, no gate transactions
    inc.quiet("gate-ocr", inc.begin, ("read ok", "processed batch", "completed in"), onset)
    inc.quiet("gate-tas", inc.begin, ("Gate transaction completed", "/api/gate/"), onset)
    tasc = inc.code(
        ts("2028-02-15T06:48"),
        "gate-tas",
        "Added: OCR confidence per character on the trouble-lane screen [RPA-2295]",
        "src/GateTas/TroubleLane/TroubleLaneView.cshtml",
        "        <td>@tx.ContainerRead</td>",
        '        <td>@tx.ContainerRead</td>\n        <td>@string.Join(" ", tx.CharConfidences.Select(c => c.ToString("0.00")))</td>',
        57,
        author="gdacosta",
    )
    tasd = inc.ship(ts("2028-02-15T07:15"), "gate-tas", [tasc], "v9.3.0")
    bpc = inc.code(
        ts("2028-02-15T07:05"),
        "berth-planner",
        "Fixed: pilot boarding time shown in local time [RPA-2298]",
        "berths/templates/berths/call_detail.html",
        "{{ call.pilot_boarding|date:'H:i' }} UTC",
        "{{ call.pilot_boarding|localtime|date:'H:i' }}",
        22,
        author="m.halvorsen",
    )
    bpd = inc.ship(ts("2028-02-15T07:22"), "berth-planner", [bpc], "v4.7.2")
    lanes = list(range(1, 9))
    inc.errors(
        "gate-ocr",
        onset,
        now,
        1.1,
        lambda r: (
            f"ISO 6346 check failed container={container(r, True)} computed=10 lane={r.choice(lanes)} conf=0.{r.randint(93, 99)}"
        ),
        level="WARNING",
        logger="gate_ocr.validate",
    )
    inc.errors(
        "gate-ocr",
        onset,
        now,
        6.0,
        lambda r: (
            f"lane {r.choice(lanes)} read ok container={container(r, False)} conf=0.{r.randint(92, 99)} check=ok"
        ),
        level="INFO",
        logger="gate_ocr.pipeline",
    )
    inc.errors(
        "gate-tas",
        onset + MINUTE,
        now,
        1.2,
        lambda r: (
            f"Gate transaction routed to trouble lane lane={r.choice(lanes)} reason=CONTAINER_ID_UNVERIFIED appointment=A-{r.randint(400000, 499999)}"
        ),
        level="WARNING",
        logger="GateTas.Gate.GateTransactionService",
    )
    inc.errors(
        "gate-tas",
        ts("2028-02-15T07:35"),
        now,
        0.5,
        lambda r: (
            f"Appointment A-{r.randint(400000, 499999)} slot 07:00-08:00 missed: truck held in trouble lane {r.randint(31, 52)} min, haulier H-{r.randint(1000, 2999)} charged no-show"
        ),
        logger="GateTas.Appointments.SlotEnforcer",
    )
    inc.fleet(
        gate_ocr={"rps": times(step(onset, 0.05, 1.0))},
        gate_tas={
            "rps": times(step(onset, 0.1, 1.0)),
            "err": add(step(ts("2028-02-15T07:35"), 0, 0.003)),
        },
    )
    inc.metric(
        "gate_ocr_reads_total",
        "gate-ocr",
        counter(lambda t: 0.0 if t < onset else 0.2, inc.begin),
        labels={"result": "ok"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "gate_ocr_reads_total",
        "gate-ocr",
        counter(lambda t: 0.0 if t < onset else 0.019, inc.begin),
        labels={"result": "check_digit_failed"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "gate_ocr_confidence_mean",
        "gate-ocr",
        lambda t: 0.96,
        labels={"field": "container"},
        jitter=0.01,
        digits=3,
    )
    inc.metric(
        "gate_trouble_lane_share",
        "gate-tas",
        lambda t: 0.0 if t < onset else 0.12,
        jitter=0.12,
        digits=3,
    )
    inc.metric("gate_trouble_lane_queue", "gate-tas", ramp(onset, now, 0, 17), jitter=0.1, digits=0)
    inc.metric(
        "gate_truck_turn_time_p90_minutes",
        "gate-tas",
        ramp(onset, now, 27, 58),
        jitter=0.05,
        digits=1,
    )
    inc.alert = alerts.datadog(
        "Gate trouble-lane share above 8%",
        "gate-tas",
        ts("2028-02-15T07:38"),
        "high",
        "avg(last_15m):sum:gate.trouble_lane.routed{env:prod}.as_count() / sum:gate.transactions{env:prod}.as_count()",
        0.12,
        0.08,
        ["team:landside", "site:in-gate"],
    )
    inc.blame(
        guilty, [rel], "gate-ocr", "code_defect", [sib, bump, cfg, tasc, tasd, bpc, bpd], onset
    )
    return inc


def xt92_customs_push_mode() -> ExtIncident:
    now = ts("2028-02-22T12:00")
    inc = Inc(
        "xt92-customs-push-mode",
        "Import pickups refused for customs hold above 25/h",
        """At 10:20 UTC the integration team flipped customs-bridge.release_feed_mode from poll to
        push, the planned cutover to CustomsNet's push notifications. In production the callback
        URL had never been registered in the CustomsNet trader portal (only staging was), so from
        10:20 no release reaches customs-bridge: it stopped polling and waits for notifications
        that never come. Containers customs released after 10:20 stay on HOLD in the TOS and
        gate-tas, and hauliers arriving to pick them up are refused at the kiosk; refusals climb
        as the releases pile up. No error is logged by customs-bridge (an idle-feed warning every
        five minutes); the failure shows as releases and CustomsNet requests falling to zero and
        the holds count rising. Decoys: a customs-bridge deploy at 09:55 that changed release
        message parsing (shares the words), a gate-tas deploy at 10:45 changing the kiosk text for
        customs holds, a pcs-edi retry config and a reefer-monitor deploy. Category:
        configuration_error.""",
        now,
        REDHAVEN,
        seed=8508,
    )
    inc.doc(
        "customs-bridge: release feed",
        """Two modes, chosen by the flag customs-bridge.release_feed_mode: poll (GET /v2/releases?since=
cursor every 30 s) and push (CustomsNet POSTs each release to /callbacks/customsnet/releases). Push
needs the callback URL registered in the CustomsNet trader portal for the environment; the
cutover plan (RPA-2350) registers production on the day, checks that the first notification
arrives, and switches back to poll if none arrives within 10 minutes. About 6 releases a minute
arrive on a weekday.""",
    )
    inc.doc(
        "CustomsNet notices",
        """2028-02-29T02:00:00Z - 04:00 UTC: planned maintenance of the trader API (read-only).
2028-02-08T13:10:00Z resolved: delayed push notifications for some traders (30 minutes).""",
    )
    inc.noise()
    inc.background(
        inc.begin,
        ts("2028-02-22T09:00"),
        7,
        ["pcs-edi", "gate-ocr", "reefer-monitor", "berth-planner"],
    )
    parse = inc.code(
        ts("2028-02-22T09:20"),
        "customs-bridge",
        "Fixed: release messages with several MRNs for one container [RPA-2341]",
        "internal/customsnet/release.go",
        """type Release struct {
	Container string `json:"containerNumber"`
	MRN       string `json:"mrn"`
}""",
        """type Release struct {
	Container string   `json:"containerNumber"`
	MRN       string   `json:"mrn"`
	MRNs      []string `json:"mrns,omitempty"` // consolidated declarations
}

func (r Release) AllMRNs() []string {
	if len(r.MRNs) > 0 {
		return r.MRNs
	}
	return []string{r.MRN}
}""",
        12,
        author="aoife.brennan",
    )
    parsed = inc.ship(ts("2028-02-22T09:55"), "customs-bridge", [parse], "v1.22.0")
    retry = inc.config(
        ts("2028-02-22T10:05"),
        "pcs-edi",
        "pcs-edi: COPARN redelivery attempts 3 -> 5",
        "deploy/pcs-edi/application-prod.yaml",
        "camel:\n  routes:\n    coparn-in:\n      maximumRedeliveries: 3",
        "camel:\n  routes:\n    coparn-in:\n      maximumRedeliveries: 5",
        author="k.vandermeer",
    )
    flag = inc.flag(
        ts("2028-02-22T10:20"),
        "customs-bridge",
        "customs-bridge.release_feed_mode",
        "mode: poll\npoll_interval: 30s",
        "mode: push\npoll_interval: 30s",
        "Cut customs releases over to CustomsNet push notifications (RPA-2350)",
        author="aoife.brennan",
    )
    onset = at(inc, flag)
    inc.quiet(
        "customs-bridge", onset, ("release", "pushed", "processed batch", "committed offsets")
    )
    kiosk = inc.code(
        ts("2028-02-22T10:25"),
        "gate-tas",
        "Changed: kiosk explains customs holds and where to check them [RPA-2352]",
        "src/GateTas/Kiosk/Messages.resx",
        '  <data name="CustomsHold"><value>Container on customs hold. Please see the gate office.</value></data>',
        '  <data name="CustomsHold"><value>Container on customs hold. Check the release in CustomsNet or see the gate office.</value></data>',
        88,
        author="gdacosta",
    )
    kioskd = inc.ship(ts("2028-02-22T10:45"), "gate-tas", [kiosk], "v9.4.1")
    rm = inc.code(
        ts("2028-02-22T10:50"),
        "reefer-monitor",
        "Changed: batch reefer readings per block, not per row [RPA-2349]",
        "src/sink.rs",
        "    for row in block.rows() {\n        sink.write(row.readings()).await?;\n    }",
        "    sink.write(block.rows().flat_map(|r| r.readings())).await?;",
        41,
        author="m.halvorsen",
    )
    rmd = inc.ship(ts("2028-02-22T11:10"), "reefer-monitor", [rm], "v0.31.0")
    inc.errors(
        "customs-bridge",
        inc.begin,
        onset,
        0.5,
        lambda r: (
            f"poll CustomsNet releases since={r.getrandbits(48):012x} got={r.randint(0, 9)} took={r.randint(80, 240)}ms"
        ),
        level="INFO",
        feed="poll",
    )
    inc.errors(
        "customs-bridge",
        inc.begin,
        onset,
        0.6,
        lambda r: (
            f"release applied container={container(r)} mrn=28GB{r.randint(10**13, 10**14 - 1)} -> TOS ok, gate-tas ok"
        ),
        level="INFO",
    )
    inc.log(
        onset + timedelta(seconds=3),
        "customs-bridge",
        "INFO",
        "flag customs-bridge.release_feed_mode changed: poll -> push",
    )
    inc.log(
        onset + timedelta(seconds=4),
        "customs-bridge",
        "INFO",
        "release feed mode=push, poller stopped, receiver listening path=/callbacks/customsnet/releases",
    )
    t = onset + 5 * MINUTE
    while t < now:
        inc.log(
            t,
            "customs-bridge",
            "WARNING",
            "release feed idle for 300s mode=push last_event_at=2028-02-22T10:19:41Z",
            feed="push",
        )
        t += 5 * MINUTE
    inc.errors(
        "gate-tas",
        inc.begin,
        onset + 20 * MINUTE,
        0.05,
        lambda r: (
            f"Pickup refused at kiosk K-0{r.randint(1, 6)}: container {container(r)} customs status HOLD"
        ),
        level="WARNING",
        logger="GateTas.Kiosk.PickupCheck",
    )
    inc.errors(
        "gate-tas",
        onset + 20 * MINUTE,
        now,
        lambda f: 0.2 + 1.0 * f,
        lambda r: (
            f"Pickup refused at kiosk K-0{r.randint(1, 6)}: container {container(r)} customs status HOLD"
        ),
        level="WARNING",
        logger="GateTas.Kiosk.PickupCheck",
    )
    inc.errors(
        "gate-tas",
        onset + 45 * MINUTE,
        now,
        0.2,
        lambda r: (
            f"Gate-out rejected by TOS for container {container(r)}: on customs hold (haulier H-{r.randint(1000, 2999)} says CustomsNet shows it released)"
        ),
        logger="GateTas.Gate.GateOutService",
    )
    inc.fleet(
        customs_bridge={"rps": times(step(onset, 1.0, 0.05))},
        gate_tas={"err": add(step(onset + 30 * MINUTE, 0, 0.004))},
    )
    inc.metric(
        "customs_release_events_total",
        "customs-bridge",
        counter(lambda t: 0.1 if t < onset else 0.0, inc.begin),
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "customsnet_requests_per_second",
        "customs-bridge",
        lambda t: 0.034 if t < onset else 0.0017,
        labels={"endpoint": "/v2/releases"},
        jitter=0.05,
        digits=4,
    )
    inc.metric(
        "customsnet_requests_per_second",
        "customs-bridge",
        lambda t: 0.0017,
        labels={"endpoint": "/oauth/token"},
        jitter=0.0,
        digits=4,
    )
    inc.metric(
        "tos_containers_on_customs_hold",
        "customs-bridge",
        lambda t: 340 if t < onset else 340 + 5.8 * (t - onset).total_seconds() / 60,
        jitter=0.01,
        digits=0,
    )
    inc.metric(
        "gate_pickups_refused_per_hour",
        "gate-tas",
        lambda t: (
            3
            if t < onset + 20 * MINUTE
            else 3 + 45 * min(1.0, (t - onset - 20 * MINUTE).total_seconds() / 4800)
        ),
        labels={"reason": "customs_hold"},
        jitter=0.08,
        digits=0,
    )
    inc.alert = alerts.grafana(
        "Import pickups refused for customs hold above 25/h",
        "gate-tas",
        ts("2028-02-22T11:35"),
        "warning",
        "Kiosk refusals by reason",
        "31 refusals/h (reason=customs_hold)",
        reason="customs_hold",
        team="landside",
    )
    inc.blame(
        flag,
        [],
        "customs-bridge",
        "configuration_error",
        [parse, parsed, retry, kiosk, kioskd, rm, rmd],
        onset,
    )
    return inc


def xt93_baplie_readall() -> ExtIncident:
    now = ts("2028-03-06T14:00")
    inc = Inc(
        "xt93-baplie-readall",
        "KubePodCrashLooping: pcs-edi restarting (OOMKilled)",
        """A pcs-edi commit made on Friday changed the BAPLIE splitter from Camel's streaming
        tokenizer to reading the whole interchange into one String and splitting it with a regex
        into a list of segments, then mapping them all before the first is routed. For the usual
        bay plans (2-7 MB) it made no visible difference after Monday's 08:30 release (which also
        bumped the Smooks EDI cartridge). At 13:10 the bay plan of NORDLYS HORIZON (24,100 TEU,
        18.6 MB) arrived: the splitter needs several copies of it on a 768m heap, the JVM throws
        OutOfMemoryError in BaplieSplitter.segments, the container is OOMKilled, Artemis
        redelivers the same message to the restarted pod and it dies again, every five minutes.
        COPRAR and CODECO traffic queues behind it. It looks like a poison message (one
        interchange, redelivered, unusually large), but the file is valid and the previous code
        handled such files; the commit's diff holds the mechanism and the stack traces name its
        function. Decoys: the Smooks bump in the same release, a config change raising the JMS
        consumers from 4 to 6 thirty minutes before the onset, berth-planner and gate-tas deploys
        around it. Category: code_defect.""",
        now,
        REDHAVEN,
        seed=8509,
    )
    inc.doc(
        "Runbook: pcs-edi",
        """pcs-edi consumes edi.inbound (Artemis) with concurrentConsumers from application-prod.yaml;
a message that fails is redelivered up to maximumRedeliveries times, then dead-lettered (DLQ
edi.inbound.DLQ). Bay plans (BAPLIE) of the largest ships are 15-20 MB; the splitter streams them
segment by segment, so heap use does not depend on the file size (768m heap, 1Gi container).
A message that crashes the pod is redelivered to the new pod: move it to the DLQ by hand if the
pod keeps restarting.""",
    )
    inc.doc(
        "Berth schedule (week 10)",
        """NORDLYS HORIZON (IMO 9934110, 24,100 TEU, line OSL) berth 7, ETA 2028-03-07T04:00Z; bay plan
expected from OSL around 13:00 the day before. KITTIWAKE BAY (IMO 9702231, 8,500 TEU) berth 4, ETA
2028-03-06T22:00Z.""",
    )
    inc.noise()
    inc.background(
        inc.begin, ts("2028-03-06T08:00"), 5, ["gate-ocr", "customs-bridge", "reefer-monitor"]
    )
    guilty = inc.code(
        ts("2028-03-03T15:10"),
        "pcs-edi",
        "Changed: BAPLIE splitter reads the interchange once and splits on the segment terminator [RPA-2301]",
        "src/main/java/com/redhavenport/pcs/edi/baplie/BaplieSplitter.java",
        """    public Iterator<String> segments(InputStream in) {
        // stream segment by segment: bay plans of the largest ships are 15-20 MB
        Scanner scanner = new Scanner(in, StandardCharsets.ISO_8859_1).useDelimiter(SEGMENT_TERMINATOR);
        return scanner;
    }""",
        """    public List<Segment> segments(InputStream in) throws IOException {
        String interchange = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        List<String> raw = Arrays.asList(interchange.split("(?<!\\\\?)'\\\\s*"));
        // parse everything up front so a bad segment fails the whole interchange, not half of it
        return raw.stream().map(Segment::parse).collect(Collectors.toList());
    }""",
        38,
        author="k.vandermeer",
    )
    smooks = inc.code(
        ts("2028-03-06T07:40"),
        "pcs-edi",
        "Security: smooks-edi-cartridge 2.0.0-RC3 -> 2.0.0-RC4 [RPA-2306]",
        "pom.xml",
        "      <artifactId>smooks-edi-cartridge</artifactId>\n      <version>2.0.0-RC3</version>",
        "      <artifactId>smooks-edi-cartridge</artifactId>\n      <version>2.0.0-RC4</version>",
        112,
        author="dependabot[bot]",
    )
    rel = inc.ship(ts("2028-03-06T08:30"), "pcs-edi", [guilty, smooks], "v3.9.0")
    cfg = inc.config(
        ts("2028-03-06T12:40"),
        "pcs-edi",
        "pcs-edi: 6 concurrent consumers on edi.inbound for the Monday COPRAR peak",
        "deploy/pcs-edi/application-prod.yaml",
        "camel:\n  routes:\n    edi-inbound:\n      concurrentConsumers: 4\n      maximumRedeliveries: 6",
        "camel:\n  routes:\n    edi-inbound:\n      concurrentConsumers: 6\n      maximumRedeliveries: 6",
        author="lena.sorensen",
    )
    bpc = inc.code(
        ts("2028-03-06T12:35"),
        "berth-planner",
        "Fixed: ignore AIS positions older than 30 minutes in the ETA [RPA-2310]",
        "berths/eta.py",
        "    positions = vessel.positions.order_by('-received_at')[:20]",
        "    cutoff = timezone.now() - timedelta(minutes=30)\n    positions = vessel.positions.filter(received_at__gte=cutoff).order_by('-received_at')[:20]",
        27,
        author="m.halvorsen",
    )
    bpd = inc.ship(ts("2028-03-06T12:55"), "berth-planner", [bpc], "v4.8.0")
    onset = ts("2028-03-06T13:10")
    inc.quiet(
        "pcs-edi",
        onset,
        (
            "Exchange completed",
            "processed batch",
            "completed in",
            "MDN received",
            "committed offsets",
        ),
    )
    tasc = inc.code(
        ts("2028-03-06T12:58"),
        "gate-tas",
        "Added: export of the day's gate transactions as CSV [RPA-2311]",
        "src/GateTas/Reports/GateExport.cs",
        "    public static void Map(IEndpointRouteBuilder app) {",
        '    public static void Map(IEndpointRouteBuilder app) {\n        app.MapGet("/api/reports/gate.csv", ExportCsvAsync).RequireAuthorization("clerk");',
        9,
        author="gdacosta",
    )
    tasd = inc.ship(ts("2028-03-06T13:15"), "gate-tas", [tasc], "v9.5.0")
    inc.errors(
        "pcs-edi",
        inc.begin,
        onset,
        0.25,
        lambda r: (
            f"Exchange completed route=baplie-in partner={r.choice(['MAE', 'HLX', 'CMA', 'OSL'])} segments={r.randint(3000, 9500)} bytes={r.randint(2_000_000, 7_000_000)} took={r.randint(600, 1500)}ms"
        ),
        level="INFO",
        logger="c.r.pcs.edi.routes.BaplieRoute",
    )
    inc.log(
        onset + timedelta(seconds=14),
        "pcs-edi",
        "INFO",
        "Picked up file /sftp/osl/in/BAPLIE_NORDLYSHORIZON_028W_20280306.edi (18.6 MB) partner=OSL interchange=OSL2803060119",
        logger="c.r.pcs.edi.routes.SftpPickup",
    )
    oom = java_stack(
        "java.lang.OutOfMemoryError",
        "Java heap space",
        [
            ("java.base/java.util.Arrays.copyOfRange", "Arrays.java", 3852),
            ("java.base/java.lang.StringLatin1.newString", "StringLatin1.java", 769),
            ("java.base/java.lang.String.split", "String.java", 3142),
            ("com.redhavenport.pcs.edi.baplie.BaplieSplitter.segments", "BaplieSplitter.java", 40),
            ("org.apache.camel.support.ObjectHelper.invokeMethodSafe", "ObjectHelper.java", 431),
            (
                "org.apache.camel.processor.Splitter.createProcessorExchangePairs",
                "Splitter.java",
                204,
            ),
        ],
    )
    cycle = onset + timedelta(seconds=30)
    k = 0
    while cycle < now:
        pod = f"pcs-edi-5b7c9-{'hjn'[k % 3]}{k + 14}"
        inc.log(
            cycle,
            "pcs-edi",
            "INFO",
            f"route=baplie-in started interchange=OSL2803060119 deliveryCount={k + 1}",
            pod=pod,
        )
        inc.log(
            cycle + timedelta(seconds=50),
            "pcs-edi",
            "WARNING",
            f"[gc] Pause Young (Concurrent Start) (G1 Humongous Allocation) 702M->698M(768M) {2841.117 + 97.3 * k:.3f}ms",
            pod=pod,
        )
        inc.log(
            cycle + timedelta(seconds=95),
            "pcs-edi",
            "ERROR",
            f"Failed delivery for (MessageId: ID:artemis-1-40211-7). On delivery attempt: {k} caught: java.lang.OutOfMemoryError: Java heap space",
            pod=pod,
            logger="o.a.c.p.e.DefaultErrorHandler",
            exception=oom,
        )
        inc.log(
            cycle + timedelta(seconds=110),
            "kubelet",
            "WARNING",
            f"Container pcs-edi in pod {pod} was OOMKilled (exit code 137), memory limit 1Gi; back-off restarting",
            pod=pod,
        )
        inc.log(
            cycle + timedelta(seconds=150),
            "pcs-edi",
            "INFO",
            "Started PcsEdiApplication in 21.4 seconds (process running for 23.1)",
            pod=pod,
        )
        cycle += timedelta(minutes=5, seconds=20 + 10 * k)
        k += 1
    t = onset + 10 * MINUTE
    while t < now:
        waiting = int(19 * (t - onset).total_seconds() / 60)
        inc.log(
            t,
            "pcs-edi",
            "WARNING",
            f"route=coprar-in consumer lag: {waiting} messages waiting on edi.inbound",
            logger="c.r.pcs.edi.routes.LagWatch",
        )
        t += 4 * MINUTE
    inc.errors(
        "gate-tas",
        onset + 30 * MINUTE,
        now,
        0.2,
        lambda r: (
            f"Export booking not found for container {container(r)}: COPARN not yet received from pcs-edi"
        ),
        level="WARNING",
        logger="GateTas.Gate.ExportCheck",
    )

    def heap(t: datetime) -> float:
        if t < onset:
            return 3.1e8
        return 7.6e8 if ((t - onset).total_seconds() // 60) % 5 < 3 else 2.4e8

    inc.fleet(
        pcs_edi={"rps": times(step(onset, 1.0, 0.12)), "err": add(step(onset, 0, 0.08))},
        gate_tas={"err": add(step(onset + 30 * MINUTE, 0, 0.003))},
    )
    inc.metric(
        "jvm_memory_used_bytes", "pcs-edi", heap, labels={"area": "heap"}, jitter=0.04, digits=0
    )
    inc.metric(
        "jvm_gc_pause_seconds_max",
        "pcs-edi",
        lambda t: 0.04 if t < onset else 2.8,
        labels={"gc": "G1 Young Generation"},
        jitter=0.15,
        digits=3,
    )
    inc.metric(
        "kube_pod_container_status_restarts_total",
        "pcs-edi",
        counter(lambda t: 0.0 if t < onset else 1 / 330, inc.begin),
        labels={"container": "pcs-edi"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "artemis_message_count",
        "pcs-edi",
        lambda t: 4 if t < onset else 4 + 19 * (t - onset).total_seconds() / 60,
        labels={"queue": "edi.inbound"},
        jitter=0.03,
        digits=0,
    )
    inc.metric(
        "edi_interchange_bytes_max",
        "pcs-edi",
        lambda t: 6.4e6 if t < onset else 1.86e7,
        labels={"type": "BAPLIE"},
        jitter=0.02,
        digits=0,
    )
    inc.alert = alerts.alertmanager(
        "KubePodCrashLooping",
        "pcs-edi",
        ts("2028-03-06T13:34"),
        "critical",
        "pcs-edi restarting (OOMKilled)",
        "Pod port-systems/pcs-edi-5b7c9 (container pcs-edi) is in CrashLoopBackOff: 4 restarts in 25 minutes, last state OOMKilled.",
        'max_over_time(kube_pod_container_status_waiting_reason{reason="CrashLoopBackOff",container="pcs-edi"}[5m]) >= 1',
        namespace="port-systems",
        team="port-systems",
    )
    inc.blame(guilty, [rel], "pcs-edi", "code_defect", [smooks, cfg, bpc, bpd, tasc, tasd], onset)
    return inc


def xt94_wal_slot_disk_full() -> ExtIncident:
    now = ts("2028-03-14T13:20")
    inc = Inc(
        "xt94-wal-slot-disk-full",
        "gate-tas error rate above 5%",
        """The Data team's Debezium connector, which streams portdb into the reporting lake through
        the logical replication slot dbz_reporting, died at 02:10 UTC on a Kafka authorization
        error and was not restarted (Kafka Connect is theirs; nothing in our change records). An
        inactive slot keeps every WAL segment from its position on, and portdb has no
        max_slot_wal_keep_size: the retained WAL grew by about 10 GB an hour and free space on the
        one data-and-WAL volume fell steadily for ten and a half hours, checkpoints recycling
        nothing. At 12:45 pg_wal could not be written, PostgreSQL PANICked and has been crashing
        in recovery since; gate-tas and berth-planner fail on every query. The gate-tas deploy at
        12:10 ran a CREATE INDEX CONCURRENTLY migration, which wrote about 2 GB of WAL, 35 minutes
        before the disk filled: a tempting decoy, but the volume was falling at the same pace for
        hours before it. Other decoys: a berth-planner pool config, a reefer-monitor deploy and a
        customs-bridge flag. Category: resource_exhaustion (no change at fault).""",
        now,
        REDHAVEN,
        seed=8510,
        hours=12,
    )
    inc.doc(
        "Runbook: portdb",
        """portdb: PostgreSQL 15 on pg-port-01, replica pg-port-02. One 400 GB volume holds data and
pg_wal. Disk alerts go to the DBA channel (warning at 10% free, no page). Replication slots:
pg_port_02 (physical, the replica) and dbz_reporting (logical, owned by the Data team's Kafka Connect
cluster). If a slot is inactive for long, it retains WAL without limit: ask the Data team, or
drop the slot (the lake then needs a re-snapshot).""",
    )
    inc.noise(every=12)
    inc.background(inc.begin, ts("2028-03-14T11:00"), 9)
    dead = ts("2028-03-14T02:10")
    pool = inc.config(
        ts("2028-03-14T11:50"),
        "berth-planner",
        "berth-planner: CONN_MAX_AGE 60 -> 300 for fewer reconnects to portdb",
        "deploy/berth-planner/values-prod.yaml",
        'env:\n  DJANGO_CONN_MAX_AGE: "60"\n  DJANGO_DB_HOST: pg-port-01',
        'env:\n  DJANGO_CONN_MAX_AGE: "300"\n  DJANGO_DB_HOST: pg-port-01',
        author="m.halvorsen",
    )
    idx = inc.code(
        ts("2028-03-14T11:40"),
        "gate-tas",
        "Added: index on appointments(slot_start) for the slot board query [RPA-2402]",
        "src/GateTas/Data/Migrations/20280314114000_AppointmentsSlotStartIndex.cs",
        "        protected override void Up(MigrationBuilder migrationBuilder)\n        {\n        }",
        '        protected override void Up(MigrationBuilder migrationBuilder)\n        {\n            migrationBuilder.Sql("CREATE INDEX CONCURRENTLY IF NOT EXISTS ix_appointments_slot_start ON appointments (slot_start);", suppressTransaction: true);\n        }',
        12,
        author="gdacosta",
    )
    idxd = inc.ship(ts("2028-03-14T12:10"), "gate-tas", [idx], "v9.7.0")
    rm = inc.code(
        ts("2028-03-14T12:05"),
        "reefer-monitor",
        "Fixed: alarm for units whose setpoint changed while unplugged [RPA-2404]",
        "src/alarms.rs",
        "    if unit.powered && unit.supply_temp > unit.setpoint + tolerance {",
        "    if unit.powered && unit.supply_temp > unit.effective_setpoint() + tolerance {",
        58,
        author="m.halvorsen",
    )
    rmd = inc.ship(ts("2028-03-14T12:30"), "reefer-monitor", [rm], "v0.33.1")
    flag = inc.flag(
        ts("2028-03-14T12:38"),
        "customs-bridge",
        "customs-bridge.hold_reason_details",
        "enabled: false",
        "enabled: true",
        "Show customs hold reasons to gate clerks",
        author="aoife.brennan",
    )
    onset = ts("2028-03-14T12:45")
    inc.quiet("gate-tas", onset, (" 200", " 201", " 204", "booked", "completed", "db pool"))
    inc.quiet("berth-planner", onset, (" 200", "ETA updated", "db pool"))
    inc.log(
        dead,
        "kafka-connect",
        "ERROR",
        "WorkerSourceTask{id=dbz-portdb-0} Task threw an uncaught and unrecoverable exception. Task is being killed and will not recover until manually restarted",
        connector="dbz-portdb",
        exception="org.apache.kafka.common.errors.TopicAuthorizationException: Not authorized to access topics: [portdb.public.gate_transactions]",
    )
    inc.log(
        dead + timedelta(seconds=1),
        "kafka-connect",
        "INFO",
        "Stopping down connector dbz-portdb task 0 (state FAILED)",
        connector="dbz-portdb",
    )
    t = inc.begin + 7 * MINUTE
    while t < onset:
        recycled = 38 + t.minute % 7 if t < dead else 0
        inc.log(
            t,
            "portdb",
            "INFO",
            f"LOG:  checkpoint complete: wrote {2000 + (t.hour * 317) % 9000} buffers (1.{t.minute % 9}%); 0 WAL file(s) added, 0 removed, {recycled} recycled; write=269.8 s, sync=0.012 s, total=270.1 s",
            instance="pg-port-01",
        )
        t += 15 * MINUTE
    inc.log(
        at(inc, idxd) + timedelta(seconds=20),
        "gate-tas",
        "INFO",
        "Applying migration '20280314114000_AppointmentsSlotStartIndex'.",
        logger="Microsoft.EntityFrameworkCore.Migrations",
    )
    inc.log(
        at(inc, idxd) + timedelta(seconds=61),
        "gate-tas",
        "INFO",
        "Executed DbCommand (41,208ms) CREATE INDEX CONCURRENTLY IF NOT EXISTS ix_appointments_slot_start ON appointments (slot_start);",
        logger="Microsoft.EntityFrameworkCore.Database.Command",
    )
    inc.log(
        onset,
        "portdb",
        "CRITICAL",
        'PANIC:  could not write to file "pg_wal/xlogtemp.41822": No space left on device',
        instance="pg-port-01",
    )
    inc.log(
        onset + timedelta(seconds=1),
        "portdb",
        "INFO",
        "LOG:  server process (PID 41822) was terminated by signal 6: Aborted",
        instance="pg-port-01",
    )
    inc.log(
        onset + timedelta(seconds=1),
        "portdb",
        "INFO",
        "LOG:  terminating any other active server processes",
        instance="pg-port-01",
    )
    t = onset + 40 * timedelta(seconds=1)
    while t < now:
        inc.log(
            t,
            "portdb",
            "INFO",
            "LOG:  database system was interrupted; last known up at 2028-03-14 12:44:12 UTC",
            instance="pg-port-01",
        )
        inc.log(
            t + timedelta(seconds=30),
            "portdb",
            "CRITICAL",
            f'PANIC:  could not write to file "pg_wal/xlogtemp.{41900 + t.minute}": No space left on device',
            instance="pg-port-01",
        )
        inc.log(
            t + timedelta(seconds=31),
            "portdb",
            "INFO",
            f"LOG:  startup process (PID {41901 + t.minute}) was terminated by signal 6: Aborted",
            instance="pg-port-01",
        )
        t += timedelta(minutes=3, seconds=17)
    npg = dotnet_stack(
        "Npgsql.PostgresException (0x80004005)",
        "57P03: the database system is in recovery mode",
        [
            (
                "Npgsql.Internal.NpgsqlConnector.ReadMessageLong(Boolean async, DataRowLoadingMode dataRowLoadingMode, Boolean readingNotifications, Boolean isReadingPrependedMessage)",
                "/_/src/Npgsql/Internal/NpgsqlConnector.cs",
                1425,
            ),
            (
                "Npgsql.Internal.NpgsqlConnector.Open(NpgsqlTimeout timeout, Boolean async, CancellationToken cancellationToken)",
                "/_/src/Npgsql/Internal/NpgsqlConnector.cs",
                562,
            ),
            (
                "GateTas.Appointments.SlotBoard.GetAsync(DateOnly day, CancellationToken ct)",
                "/src/GateTas/Appointments/SlotBoard.cs",
                44,
            ),
        ],
    )
    inc.errors(
        "gate-tas",
        onset + timedelta(seconds=5),
        now,
        2.5,
        lambda r: r.choice(
            [
                "An error occurred using the connection to database 'port' on server 'tcp://pg-port-01:5432'.",
                "HTTP GET /api/slots responded 500",
                "HTTP POST /api/gate/transactions responded 500",
            ]
        ),
        logger="Microsoft.EntityFrameworkCore.Database.Connection",
        exception=npg,
    )
    inc.errors(
        "berth-planner",
        onset + timedelta(seconds=20),
        now,
        0.5,
        'django.db.utils.OperationalError: connection to server at "pg-port-01" (10.60.1.11), port 5432 failed: FATAL:  the database system is in recovery mode',
        exc_info=py_stack(
            "django.db.utils.OperationalError",
            'connection to server at "pg-port-01" (10.60.1.11), port 5432 failed: FATAL:  the database system is in recovery mode',
            [
                (
                    "/app/.venv/lib/python3.12/site-packages/django/db/backends/base/base.py",
                    275,
                    "ensure_connection",
                    "self.connect()",
                ),
                (
                    "/app/.venv/lib/python3.12/site-packages/psycopg/connection.py",
                    748,
                    "connect",
                    "raise ex.with_traceback(None)",
                ),
            ],
        ),
    )
    vol = 4.0e11
    start_free = 1.12e11
    slope = (start_free - 2.0e9) / (onset - dead).total_seconds()

    def free(t: datetime) -> float:
        if t < dead:
            return start_free
        used = slope * (t - dead).total_seconds() + (2.0e9 if t >= at(inc, idxd) else 0.0)
        return max(start_free - used, 0.0)

    inc.metric(
        "node_filesystem_avail_bytes",
        "portdb",
        free,
        labels={"instance": "pg-port-01", "mountpoint": "/var/lib/postgresql"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "node_filesystem_size_bytes",
        "portdb",
        lambda t: vol,
        labels={"instance": "pg-port-01", "mountpoint": "/var/lib/postgresql"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "pg_replication_slots_retained_wal_bytes",
        "portdb",
        lambda t: (
            1.8e8 if t < dead else 1.8e8 + slope * min(t - dead, onset - dead).total_seconds()
        ),
        labels={"slot_name": "dbz_reporting", "slot_type": "logical"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "pg_replication_slots_retained_wal_bytes",
        "portdb",
        lambda t: 3.2e7 if t < onset else 0,
        labels={"slot_name": "pg_port_02", "slot_type": "physical"},
        jitter=0.2,
        digits=0,
    )
    inc.metric(
        "pg_replication_slots_active",
        "portdb",
        lambda t: 1 if t < dead else 0,
        labels={"slot_name": "dbz_reporting"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "pg_up",
        "portdb",
        lambda t: 1 if t < onset else 0,
        labels={"instance": "pg-port-01"},
        jitter=0.0,
        digits=0,
    )
    inc.fleet(
        gate_tas={"err": add(step(onset, 0, 0.62)), "p99": add(step(onset, 0, 900))},
        berth_planner={"err": add(step(onset, 0, 0.55))},
    )
    inc.alert = alerts.datadog(
        "gate-tas error rate above 5%",
        "gate-tas",
        ts("2028-03-14T12:52"),
        "critical",
        "sum(last_5m):sum:trace.aspnet_core.request.errors{service:gate-tas,env:prod}.as_count() / sum:trace.aspnet_core.request.hits{service:gate-tas,env:prod}.as_count()",
        0.61,
        0.05,
        ["team:landside"],
    )
    inc.outside(
        "portdb volume full: WAL retained by the inactive logical replication slot dbz_reporting (Debezium connector dead since 02:10)",
        "portdb",
        "resource_exhaustion",
        [pool, idx, idxd, rm, rmd, flag],
        onset,
    )
    return inc


def xt95_partner_as2_cert() -> ExtIncident:
    now = ts("2028-03-01T02:10")
    inc = Inc(
        "xt95-partner-as2-cert",
        "EdiOutboundBacklog: AS2 outbound to OSL above 200 messages",
        """Oceanic Star Lines' AS2 server certificate (as2.oceanicstar.example) expired at
        2028-02-29T23:59:59Z, the leap day. From 00:00 UTC every CODECO and COARRI pcs-edi sends to
        OSL fails the TLS handshake (PKIX path validation: CertificateExpiredException, NotAfter
        Tue Feb 29 23:59:59 UTC 2028) and is queued for retry; the backlog to OSL grows while the
        other lines (HLX, MAE, CMA) receive theirs normally. The line renews its certificate, not
        us. Fifty-five minutes before, pcs-edi was released with a new JRE base image (updated
        cacerts: the tempting suspect, yet TLS to every other partner keeps working on it) and an
        AS2 MDN signing change for HLX; a config change 20 minutes before the onset sends CODECO to
        OSL every 2 minutes instead of 5 (same partner, harmless). A gate-tas deploy lands after
        the onset. Category: dependency_failure.""",
        now,
        REDHAVEN,
        seed=8511,
    )
    inc.doc(
        "AS2 partners",
        """pcs-edi exchanges EDIFACT with the lines over AS2 (HTTPS, signed and encrypted, MDN
receipts): OSL https://as2.oceanicstar.example/as2/receive, HLX https://edi.hlx.example/as2,
MAE https://as2.mae.example/in, CMA https://as2.cma.example/receive. TLS server certificates are
validated against the JRE's cacerts; the partners' AS2 signing certificates are pinned in
partners.yaml and renewed with each line's EDI team. Failed sends are retried every 5 minutes
for 24 hours.""",
    )
    inc.noise()
    inc.background(
        inc.begin,
        ts("2028-02-29T22:00"),
        6,
        ["gate-ocr", "customs-bridge", "reefer-monitor", "berth-planner", "gate-tas"],
    )
    mdn = inc.code(
        ts("2028-02-29T20:50"),
        "pcs-edi",
        "Added: MDN signed with sha256 for partner HLX [RPA-2415]",
        "src/main/resources/as2/partners.yaml",
        "  HLX:\n    url: https://edi.hlx.example/as2\n    mdnSigningAlgorithm: sha1",
        "  HLX:\n    url: https://edi.hlx.example/as2\n    mdnSigningAlgorithm: sha256",
        31,
        author="k.vandermeer",
    )
    jre = inc.code(
        ts("2028-02-29T21:30"),
        "pcs-edi",
        "Changed: base image eclipse-temurin 17.0.10_7-jre -> 17.0.11_9-jre, updated cacerts [RPA-2420]",
        "Dockerfile",
        "FROM eclipse-temurin:17.0.10_7-jre-jammy\nCOPY target/pcs-edi.jar /app/pcs-edi.jar",
        "FROM eclipse-temurin:17.0.11_9-jre-jammy\nCOPY target/pcs-edi.jar /app/pcs-edi.jar",
        1,
        author="dependabot[bot]",
    )
    rel = inc.ship(ts("2028-02-29T23:05"), "pcs-edi", [mdn, jre], "v3.10.0")
    cfg = inc.config(
        ts("2028-02-29T23:40"),
        "pcs-edi",
        "pcs-edi: CODECO batches to OSL every 2 minutes (was 5) at the line's request",
        "deploy/pcs-edi/application-prod.yaml",
        "outbound:\n  codeco:\n    OSL: {batchWindow: 5m}\n    HLX: {batchWindow: 5m}",
        "outbound:\n  codeco:\n    OSL: {batchWindow: 2m}\n    HLX: {batchWindow: 5m}",
        author="lena.sorensen",
    )
    onset = ts("2028-03-01T00:00")
    tasc = inc.code(
        ts("2028-03-01T00:02"),
        "gate-tas",
        "Fixed: slot board shows the night shift's slots after midnight [RPA-2421]",
        "src/GateTas/Appointments/SlotBoard.cs",
        "        var day = DateOnly.FromDateTime(DateTime.UtcNow);",
        "        var day = DateOnly.FromDateTime(clock.UtcNow.AddHours(-6)); // the night shift's day",
        40,
        author="gdacosta",
    )
    tasd = inc.ship(ts("2028-03-01T00:20"), "gate-tas", [tasc], "v9.6.2")
    inc.log(
        at(inc, rel) + timedelta(seconds=70),
        "pcs-edi",
        "INFO",
        "Started PcsEdiApplication in 22.8 seconds (process running for 24.5) JVM 17.0.11+9",
        pod="pcs-edi-6c8d1-p31",
    )
    partners = ["HLX", "MAE", "CMA"]
    inc.errors(
        "pcs-edi",
        inc.begin,
        onset,
        1.2,
        lambda r: (
            f"AS2 message sent partner={r.choice(['OSL', 'OSL', *partners])} type={r.choice(['CODECO', 'COARRI'])} msgs={r.randint(3, 30)} mdn=processed took={r.randint(300, 900)}ms"
        ),
        level="INFO",
        logger="c.r.pcs.as2.As2Sender",
    )
    inc.errors(
        "pcs-edi",
        onset,
        now,
        0.9,
        lambda r: (
            f"AS2 message sent partner={r.choice(partners)} type={r.choice(['CODECO', 'COARRI'])} msgs={r.randint(3, 30)} mdn=processed took={r.randint(300, 900)}ms"
        ),
        level="INFO",
        logger="c.r.pcs.as2.As2Sender",
    )
    tls = java_stack(
        "javax.net.ssl.SSLHandshakeException",
        "PKIX path validation failed: java.security.cert.CertPathValidatorException: validity check failed",
        [
            ("java.base/sun.security.ssl.Alert.createSSLException", "Alert.java", 131),
            (
                "java.base/sun.security.ssl.CertificateMessage$T13CertificateConsumer.checkServerCerts",
                "CertificateMessage.java",
                1351,
            ),
            (
                "org.apache.hc.client5.http.impl.classic.InternalHttpClient.doExecute",
                "InternalHttpClient.java",
                170,
            ),
            ("com.redhavenport.pcs.as2.As2Sender.send", "As2Sender.java", 97),
        ],
    ).replace(
        "\t... 42 common frames omitted",
        "Caused by: java.security.cert.CertificateExpiredException: NotAfter: Tue Feb 29 23:59:59 UTC 2028\n\tat java.base/sun.security.x509.CertificateValidity.valid(CertificateValidity.java:277)\n\t... 42 common frames omitted",
    )
    inc.errors(
        "pcs-edi",
        onset + 30 * timedelta(seconds=1),
        now,
        0.6,
        lambda r: (
            f"AS2 send failed partner=OSL url=https://as2.oceanicstar.example/as2/receive type=CODECO msgs={r.randint(3, 30)}: PKIX path validation failed: java.security.cert.CertPathValidatorException: validity check failed"
        ),
        logger="c.r.pcs.as2.As2Sender",
        exception=tls,
    )
    inc.errors(
        "pcs-edi",
        onset + MINUTE,
        now,
        0.6,
        lambda r: (
            f"outbound message queued for retry partner=OSL attempt={r.randint(1, 24)} next_in=5m pending={r.randint(20, 400)}"
        ),
        level="WARNING",
        logger="c.r.pcs.as2.RetryScheduler",
    )
    inc.errors(
        "pcs-edi",
        onset + 5 * MINUTE,
        now,
        0.2,
        lambda r: f"mdn signature verified partner=HLX alg=sha256 msgs={r.randint(3, 30)}",
        level="INFO",
        logger="c.r.pcs.as2.MdnVerifier",
    )
    inc.fleet(pcs_edi={"err": add(step(onset, 0, 0.18))})
    for p in ["OSL", *partners]:
        inc.metric(
            "as2_outbound_pending",
            "pcs-edi",
            (lambda t: 1 if t < onset else 1 + 3.1 * (t - onset).total_seconds() / 60)
            if p == "OSL"
            else (lambda t: 1),
            labels={"partner": p},
            jitter=0.05,
            digits=0,
        )
        inc.metric(
            "as2_send_errors_per_second",
            "pcs-edi",
            (lambda t: 0.0 if t < onset else 0.011) if p == "OSL" else (lambda t: 0.0),
            labels={"partner": p},
            jitter=0.1,
            digits=4,
        )
    inc.metric(
        "as2_peer_certificate_not_after_seconds",
        "pcs-edi",
        lambda t: 1835481599,
        labels={"partner": "OSL", "host": "as2.oceanicstar.example"},
        jitter=0.0,
        digits=0,
    )
    inc.alert = alerts.alertmanager(
        "EdiOutboundBacklog",
        "pcs-edi",
        ts("2028-03-01T01:37"),
        "warning",
        "AS2 outbound to OSL above 200 messages",
        'as2_outbound_pending{partner="OSL"} is 289 and has been above 200 for 30 minutes.',
        "as2_outbound_pending > 200",
        partner="OSL",
        team="port-systems",
    )
    inc.outside(
        "Oceanic Star Lines' AS2 server certificate expired at 2028-02-29T23:59:59Z",
        "pcs-edi",
        "dependency_failure",
        [mdn, jre, rel, cfg, tasc, tasd],
        onset,
    )
    return inc


def xt96_reefers_unplugged_for_loading() -> ExtIncident:
    now = ts("2028-03-09T14:40")
    inc = Inc(
        "xt96-reefers-unplugged-for-loading",
        "Reefer power loss: 38 units unplugged in block R2",
        """KITTIWAKE BAY is loading at berth 4. From 13:50 UTC the reefer crew unplugs the reefers of
        block R2 that are in the vessel's load work queue, and the straddle carriers take them to
        the quay: each one reports power OFF to reefer-monitor, whose power-loss alarm (it does not
        look at the TOS state) counts 38 by 14:12 and fires. Every line says tos_state=LOADING,
        units leave the block as they are loaded, temperatures held at their setpoints, the work
        queue shrinks as planned. Nothing is wrong. Decoys: a reefer-monitor deploy at 13:40 that
        halved the power-loss alarm's debounce (shares the words; with the old debounce the alarm
        fires the same way, the units stay unplugged for 20 minutes), a config change to the TOS
        work-queue poll at 13:55 and a berth-planner deploy. Category: healthy (expected alarms of
        a planned vessel operation).""",
        now,
        REDHAVEN,
        seed=8512,
        hours=6,
    )
    inc.doc(
        "Reefer operations",
        """Reefers sit plugged in the reefer blocks (R1-R3). For vessel loading, the reefer crew unplugs
the units of the load work queue 10-30 minutes before a straddle carrier takes them to the quay,
where they are plugged in on board. reefer-monitor raises a power-loss alarm for any unit without
power for longer than the debounce; the alarm does not read the TOS move state (known gap,
RPA-1980), so a loading vessel shows as a wave of power-loss alarms in its block. A frozen unit
holds its temperature for several hours unplugged.""",
    )
    inc.noise()
    inc.background(inc.begin, ts("2028-03-09T12:30"), 6)
    deb = inc.code(
        ts("2028-03-09T13:10"),
        "reefer-monitor",
        "Changed: power-loss alarm debounce 120 s -> 60 s [RPA-2377]",
        "src/alarms.rs",
        "const POWER_LOSS_DEBOUNCE: Duration = Duration::from_secs(120);",
        "const POWER_LOSS_DEBOUNCE: Duration = Duration::from_secs(60); // crew asked for faster alarms",
        12,
        author="m.halvorsen",
    )
    debd = inc.ship(ts("2028-03-09T13:40"), "reefer-monitor", [deb], "v0.34.0")
    bpc = inc.code(
        ts("2028-03-09T13:02"),
        "berth-planner",
        "Added: crane split per vessel call on the berth page [RPA-2379]",
        "berths/templates/berths/call_detail.html",
        "<h3>Operations</h3>",
        "<h3>Operations</h3>\n{% include 'berths/_crane_split.html' with call=call %}",
        40,
        author="m.halvorsen",
    )
    bpd = inc.ship(ts("2028-03-09T13:20"), "berth-planner", [bpc], "v4.9.0")
    onset = ts("2028-03-09T13:50")
    poll = inc.config(
        ts("2028-03-09T13:55"),
        "reefer-monitor",
        "reefer-monitor: poll TOS work queues every 30 s (was 60 s)",
        "deploy/reefer-monitor/config.toml",
        '[tos]\nbase_url = "https://tos-gw.redhavenport.lan"\nwork_queue_poll_secs = 60',
        '[tos]\nbase_url = "https://tos-gw.redhavenport.lan"\nwork_queue_poll_secs = 30',
        author="lena.sorensen",
    )
    inc.log(
        onset - 20 * MINUTE,
        "berth-planner",
        "INFO",
        "vessel call KITTIWAKE BAY (IMO 9702231) berth 4: operations started, load 612 / discharge 580, reefers to load 64",
    )
    inc.errors(
        "reefer-monitor",
        onset,
        onset + 34 * MINUTE,
        1.9,
        lambda r: (
            f"WARN reefer_monitor::alarms: unit {container(r)} power OFF (RCD lost) block=R2 row={r.randint(1, 14):02d} tier={r.randint(1, 3)} tos_state=LOADING wq=KITTIWAKE-BAY-LOAD-03 supply_c={r.uniform(-18.4, -17.6):.1f} setpoint_c=-18.0"
        ),
        level="WARNING",
    )
    inc.errors(
        "reefer-monitor",
        onset + 18 * MINUTE,
        now,
        1.0,
        lambda r: (
            f"INFO reefer_monitor::tos: unit {container(r)} left block R2 (move completed to KITTIWAKE BAY bay {r.choice([50, 54, 58, 62])}), alarm cleared"
        ),
        level="INFO",
    )
    inc.errors(
        "reefer-monitor",
        inc.begin,
        now,
        0.06,
        lambda r: (
            f"ERROR reefer_monitor::rcd: controller comms error block=R1 unit {container(r)}: modem timeout, retrying"
        ),
    )
    inc.fleet()
    n0 = 212.0

    def alarms(t: datetime) -> float:
        if t < onset:
            return 0.0
        m = (t - onset).total_seconds() / 60
        return max(0.0, min(1.9 * m, 64.0) - max(0.0, m - 18) * 1.0)

    inc.metric(
        "reefer_power_loss_alarms_active",
        "reefer-monitor",
        alarms,
        labels={"block": "R2"},
        jitter=0.03,
        digits=0,
    )
    inc.metric(
        "reefer_power_loss_alarms_active",
        "reefer-monitor",
        lambda t: 0,
        labels={"block": "R1"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "reefer_units_in_block",
        "reefer-monitor",
        lambda t: (
            n0 if t < onset + 18 * MINUTE else n0 - (t - onset - 18 * MINUTE).total_seconds() / 60
        ),
        labels={"block": "R2"},
        jitter=0.0,
        digits=0,
    )
    inc.metric(
        "reefer_supply_temp_deviation_max_celsius",
        "reefer-monitor",
        lambda t: 0.4,
        labels={"block": "R2"},
        jitter=0.15,
        digits=2,
    )
    inc.metric(
        "tos_work_queue_moves_remaining",
        "reefer-monitor",
        lambda t: (
            64
            if t < onset + 18 * MINUTE
            else max(64 - (t - onset - 18 * MINUTE).total_seconds() / 60, 0)
        ),
        labels={"work_queue": "KITTIWAKE-BAY-LOAD-03"},
        jitter=0.0,
        digits=0,
    )
    inc.alert = alerts.grafana(
        "Reefer power loss: 38 units unplugged in block R2",
        "reefer-monitor",
        ts("2028-03-09T14:12"),
        "warning",
        "Reefer alarms by block",
        "38",
        block="R2",
        team="terminal-ops",
    )
    inc.healthy(
        "reefer-monitor",
        "expected: R2 reefers unplugged by the crew for loading onto KITTIWAKE BAY (tos_state=LOADING), leaving the block as loaded, temperatures at setpoint; the alarm does not read the TOS state",
        [deb, debd, bpc, bpd, poll],
        onset,
    )
    return inc


TUNE = [
    xt85_blackout_utc_day,
    xt86_wetbulb_units,
    xt87_summit_fibre,
    xt88_alliance_outage,
    xt89_wind_hold,
    xt90_rentaldb_reads_stall,
    xt91_check_digit_remainder,
    xt92_customs_push_mode,
    xt93_baplie_readall,
    xt94_wal_slot_disk_full,
    xt95_partner_as2_cert,
    xt96_reefers_unplugged_for_loading,
]
