"""HELD-OUT outside-vocabulary incidents `xh31`-`xh42` (`evals/rca/heldout_ext/`), written by a
sixth independent examiner who never opened the engine or the agents and never ran them. Two
companies of their own, defined here:

- Weirbrook Water (a municipal water utility: SCADA telemetry from pump stations and reservoirs
  over OPC UA, AMI smart-meter reads, district metered areas and leak analytics, the nightly
  bill run, crew work orders, customer notices such as boil-water advisories; C#/.NET, Go,
  Python, Java, Node; Serilog compact JSON with ``@mt``/``@x``; ``Subject [WTR-1234]`` commits);
- Longwave Podcasts (a podcast hosting platform: episode uploads and loudness transcoding, RSS
  feeds, the enclosure download edge, dynamic ad insertion against an outside ad exchange,
  IAB download analytics, the creator dashboard; Go, Elixir, Rust, Python, Ruby; logfmt from Go,
  Elixir crash reports, Rust panics, Rails lines; scoped conventional commits).

Nobody tunes the engine on these.
"""

from __future__ import annotations

import random
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
    node_stack,
    py_stack,
    ramp,
    step,
    times,
)
from evals.rca.kit import ts

# --- house styles and stack formats ---------------------------------------------------------------


def _wtr(r: random.Random, text: str) -> str:
    body = text.split(": ", 1)[-1]
    return f"{body[0].upper()}{body[1:]} [WTR-{r.randint(2100, 2390)}]"


def _scoped(r: random.Random, text: str) -> str:
    body = text.split(": ", 1)[-1]
    kind = "chore" if body.lower().startswith("bump") else r.choice(["chore", "docs", "test", "ci"])
    scope = r.choice(["deps", "repo", "ops", "ci"]) if kind == "chore" else r.choice(["ops", "dev"])
    return f"{kind}({scope}): {body[0].lower()}{body[1:]}"


def dotnet(exc: str, message: str, frames: list[tuple[str, str, int]]) -> str:
    """A .NET exception; ``frames``: ``(Namespace.Type.Method(args), /src/path.cs, line)``."""
    lines = [f"{exc}: {message}"]
    for where, file, line in frames:
        lines.append(f"   at {where} in {file}:line {line}" if file else f"   at {where}")
    return "\n".join(lines)


def elixir(exc: str, message: str, frames: list[tuple[str, str, str, int, str]]) -> str:
    """An Elixir crash; ``frames``: ``(app, version, file, line, Module.fun/arity)``."""
    lines = [f"** ({exc}) {message}"]
    lines += [f"    ({app} {v}) {file}:{line}: {fn}" for app, v, file, line, fn in frames]
    return "\n".join(lines)


def ruby(frames: list[tuple[str, int, str]]) -> list[str]:
    """Ruby 3.3 backtrace lines; ``frames``: ``(path.rb, line, method)``, innermost first."""
    return [f"{file}:{line}:in `{method}'" for file, line, method in frames]


def counter(rate: Shape, begin: datetime, step_minutes: int = 4) -> Shape:
    """A monotonic ``_total`` counter growing at ``rate`` per second."""

    def f(t: datetime) -> float:
        total, u = 0.0, begin
        while u < t:
            total += rate(u) * step_minutes * 60
            u += timedelta(minutes=step_minutes)
        return total

    return f


# --- the two companies ----------------------------------------------------------------------------

WEIRBROOK = Company(
    name="Weirbrook Water",
    domain="weirbrook-water.example",
    services=[
        Svc("scada-bridge", "worker", topic="opcua.tags", rps=420, p99=35, noun="tag"),
        Svc("ami-collector", "worker", topic="ami.reads", rps=250, p99=60, noun="meter read"),
        Svc("leak-analytics", "worker", topic="dma.flows", rps=6, p99=2400, noun="dma"),
        Svc("billing-engine", "worker", topic="billrun.accounts", rps=12, p99=900, noun="bill"),
        Svc(
            "workorder-svc",
            "api",
            ("/api/workorders", "/api/workorders/{id}/status", "/api/crews/{id}/assignments"),
            topic="workorders",
            rps=18,
            p99=240,
            noun="work order",
        ),
        Svc(
            "customer-notify",
            "api",
            ("/v1/notices", "/v1/notices/{id}/recipients", "/v1/subscribers"),
            topic="notices",
            rps=9,
            p99=300,
            noun="notice",
        ),
        Svc(
            "customer-portal",
            "web",
            ("/account", "/account/bills/{id}.pdf", "/outages", "/account/usage"),
            topic="portal",
            rps=30,
            p99=420,
            noun="page",
        ),
    ],
    catalog={
        "scada-bridge": "reads pump station, reservoir and booster telemetry from the outstations' RTUs over OPC UA (one session per outstation) and writes tags to the historian (Operational Technology; C# .NET 8 worker, OPC Foundation UA stack); Serilog compact JSON, exception in `@x`",
        "ami-collector": "pulls smart-meter interval reads from the AMI head-end (Kamstrup and Sensus collectors, 15-minute reads) through the ami.reads queue (24 partitions) into TimescaleDB `meter_reads` (Metering; Go 1.22); zerolog JSON",
        "leak-analytics": "water balance per district metered area (DMA): inflow from SCADA against metered consumption; minimum night flow (MNF) per DMA between 01:00 and 04:00 local; raises leak suspicions (Network Performance; Python 3.12)",
        "billing-engine": "nightly bill run (CronJob 01:00 UTC) over the accounts due that day: tariffs, drought surcharges, bill PDFs (Revenue; C# .NET 8); Serilog compact JSON",
        "workorder-svc": "crew work orders: repairs, mains flushing, meter exchanges, hydrant inspections (Field Operations; Java 21, Spring Boot); logstash JSON, `stack_trace`",
        "customer-notify": "customer notices by SMS and voice (boil-water advisories, planned interruptions, leak alerts) through Clarion Messaging (api.clarion-msg.example) (Customer; Node 20, pino)",
        "customer-portal": "customers' web account: bills, usage graphs, outage map (Customer; Node 20, Next.js)",
        "timescaledb": "PostgreSQL 16 + TimescaleDB, `meter_reads` hypertable (7-day chunks), CHECK reading_ts <= now() + interval '1 day'",
        "network": "fibre to the South and East outstations; the 14 North outstations (rtu-n01..rtu-n14) reach the control centre over the carrier's private LTE APN and the IPsec tunnel `north-hub-lte`",
    },
    lang={
        "scada-bridge": "csharp",
        "ami-collector": "go",
        "leak-analytics": "python",
        "billing-engine": "csharp",
        "workorder-svc": "java",
        "customer-notify": "node",
        "customer-portal": "node",
    },
    authors=("a.mbeki", "rhys.pritchard", "chen.yue", "f.oduya", "gwen.lloyd", "renovate[bot]"),
    style=_wtr,
    strays=[
        ("WARNING", "Tag South/Res04/Level quality Uncertain_LastUsableValue for 31s"),
        (
            "WARNING",
            "AMI head-end returned 0 reads for collector DCU-118 (scheduled maintenance window)",
        ),
        (
            "ERROR",
            "SMTP relay mail.weirbrook.internal refused message: 452 4.3.1 insufficient system storage, queued for retry",
        ),
        ("WARNING", "Work order WO-87102 reopened by supervisor gwen.lloyd"),
        (
            "ERROR",
            "Meter WBM-6620391 read rejected: negative delta -0.004 m3 (reverse flow), flagged for review",
        ),
        ("WARNING", "GIS layer refresh took 14.2s (threshold 10s)"),
    ],
    chatter={
        "scada-bridge": [
            "Historian write batch 2000 tags in 41 ms",
            "Subscription 7 keep-alive ok (outstations 42/42)",
        ],
        "ami-collector": [
            '{"level":"info","partition":11,"batch":500,"msg":"reads committed"}',
            '{"level":"info","collector":"DCU-204","msg":"head-end poll ok"}',
        ],
        "leak-analytics": ["DMA balance window closed (42 DMAs)", "MNF job idle until 01:00"],
        "billing-engine": ["Bill PDF rendered", "Tariff table 2027/28 loaded (41 tariffs)"],
        "workorder-svc": ["Crew C-07 assignment synced to mobile", "WO status change published"],
        "customer-notify": ["notice batch queued", "delivery receipts reconciled"],
    },
)

LONGWAVE = Company(
    name="Longwave Podcasts",
    domain="longwave.example",
    services=[
        Svc(
            "dl-edge",
            "api",
            ("/e/{show}/{episode}.mp3", "/e/{show}/{episode}.m4a", "/e/{show}/artwork.jpg"),
            topic="downloads",
            rps=900,
            p99=45,
            noun="download",
        ),
        Svc(
            "feed-builder",
            "api",
            ("/feeds/{slug}.xml", "/feeds/{slug}/private/{token}.xml"),
            topic="feeds",
            rps=300,
            p99=140,
            noun="feed",
        ),
        Svc(
            "ad-stitcher",
            "api",
            ("/stitch/{episode}", "/breaks/{episode}"),
            topic="stitch",
            rps=220,
            p99=380,
            noun="ad break",
        ),
        Svc(
            "transcode-worker",
            "worker",
            topic="episodes.uploaded",
            rps=0.6,
            p99=52000,
            noun="episode",
        ),
        Svc(
            "creator-dashboard",
            "web",
            ("/shows/{id}", "/shows/{id}/episodes/new", "/shows/{id}/analytics", "/payouts"),
            topic="dashboard",
            rps=35,
            p99=650,
            noun="show",
        ),
        Svc(
            "analytics-ingest",
            "worker",
            topic="downloads.raw",
            rps=800,
            p99=30,
            noun="download event",
        ),
    ],
    catalog={
        "dl-edge": "serves episode enclosures behind the CDN: range requests, prefix redirects, signed origin URLs; calls ad-stitcher for shows with dynamic ads (Delivery; Go 1.22, net/http); logfmt lines; uses the shared lwkit module (httprange, sign)",
        "lwkit": "shared Go module github.com/longwave/lwkit (httprange, sign, logfmt helpers), tagged releases picked up by a go.mod bump",
        "feed-builder": "renders each show's RSS (iTunes and Podcasting 2.0 namespaces), cached 5 minutes at the CDN (Publishing; Elixir 1.16, Phoenix); crash reports in `crash_reason`",
        "ad-stitcher": "dynamic ad insertion: fetches ad decisions per break from the Pelagic Exchange (ssp.pelagic.example, 2,000 requests/s per publisher) and stitches them into the audio (Ads; Rust, axum, tokio); falls back to the ad-free file",
        "transcode-worker": "normalises uploads to -16 LUFS (two-pass ffmpeg loudnorm) and encodes MP3/AAC renditions; scratch space /scratch (200 GiB local SSD per pod) (Media; Python 3.12)",
        "creator-dashboard": "creators' web app: uploads, episode scheduling, analytics, payouts (Creators; Ruby 3.3, Rails 7.1, Puma); lograge lines",
        "analytics-ingest": "IAB 2.1 download counting from the CDN logs (downloads.raw) (Insights; Python)",
    },
    lang={
        "dl-edge": "go",
        "feed-builder": "elixir",
        "ad-stitcher": "rust",
        "transcode-worker": "python",
        "creator-dashboard": "ruby",
        "analytics-ingest": "python",
    },
    authors=("ines.valle", "tobi.adeyemi", "mkaur", "sven.h", "lena.osei", "dependabot[bot]"),
    style=_scoped,
    strays=[
        ("WARNING", "feed validation: show sh_8812 has explicit=yes but category Kids & Family"),
        (
            "ERROR",
            "podcast index webhook signature mismatch (rotated secret on the staging key), ignored",
        ),
        ("WARNING", "ID3 tag missing TLEN on upload ep_55120, computed from the stream"),
        ("WARNING", "slow query downloads_daily rollup 2.1s"),
        ("ERROR", "payout export to Tipalti retried: 502 Bad Gateway (attempt 1/3)"),
        ("WARNING", "CDN purge for /feeds/night-shift.xml took 7.8s"),
    ],
    chatter={
        "dl-edge": [
            'level=info msg="redirect" prefix=chtbl status=302 dur=3ms',
            'level=info msg="served" status=206 range="bytes=0-1" dur=4ms',
        ],
        "feed-builder": [
            "GET /feeds/the-long-field.xml - Sent 200 in 38ms",
            "[info] feed cache warmed shows=412",
        ],
        "ad-stitcher": [
            "INFO ad_stitcher::stitch: stitched episode breaks=3 filled=3 dur_ms=212",
            "INFO ad_stitcher::decision: decision ok break=pre-1 ms=64",
        ],
        "transcode-worker": [
            "loudnorm pass 2 done I=-16.0 LUFS TP=-1.5",
            "renditions uploaded (3)",
        ],
        "creator-dashboard": [
            "method=GET path=/shows/4411/analytics format=html status=200 duration=212.40 view=88.1 db=71.9",
            "method=POST path=/shows/4411/episodes status=302 duration=96.02 view=0.00 db=22.3",
        ],
        "analytics-ingest": ["window 05m flushed downloads=48211 bots_filtered=3120"],
    },
)


# --- Weirbrook Water ------------------------------------------------------------------------------


def xh31_drought_surcharge_null() -> ExtIncident:
    now = ts("2027-05-04T03:10")
    inc = ExtIncident(
        "xh31-drought-surcharge-null",
        "Bill run: failed accounts above 100",
        """A billing-engine commit applies the stage 2 drought surcharge by reading
        account.DroughtAllowance.MonthlyM3 for every metered account, but commercial accounts
        have no drought allowance (null), so TariffCalculator.ApplyDroughtSurcharge throws a
        NullReferenceException for each commercial account in the nightly bill run. The commit
        was made the day before and shipped by the afternoon release whose notes name only the
        bill PDF usage graph. The bill run starts at 01:00 and the first commercial accounts
        fail at 01:04. Decoys: the PDF commit shipped with it, a config change raising the bill
        run's parallelism at 00:30 and a customer-portal deploy about bill downloads at 00:40.
        Category: code_defect.""",
        now,
        WEIRBROOK,
        seed=6031,
        hours=8,
    )
    inc.doc(
        "Tariff notice: stage 2 drought surcharge",
        """From bills dated 2027-05-04 a stage 2 drought surcharge applies to RESIDENTIAL metered
accounts using more than their monthly drought allowance (account.DroughtAllowance, set per
household size). Commercial and industrial accounts have no drought allowance; they are covered
by their contract tariffs. Owner: Revenue.""",
    )
    inc.doc(
        "Runbook: bill run",
        """The bill run (CronJob billing-engine-billrun, 01:00 UTC) bills the accounts due that day,
about 38,000 on weekdays. A failed account is logged with the exception in `@x` and retried in
the next night's run; more than 100 failures pages Revenue on-call. Re-run one cycle with
`billctl rerun --cycle <date> --failed-only`.""",
    )
    inc.noise(every=14)
    inc.background(ts("2027-05-03T07:00"), ts("2027-05-03T10:30"), 9)
    guilty = inc.code(
        ts("2027-05-03T11:42"),
        "billing-engine",
        "Apply stage 2 drought surcharge to metered accounts [WTR-2291]",
        "src/Weirbrook.Billing/Tariffs/TariffCalculator.cs",
        """    public decimal ApplyDroughtSurcharge(Account account, decimal volumeM3)
    {
        if (account.Class != AccountClass.Residential || account.DroughtAllowance is null)
            return 0m;
        var excess = volumeM3 - account.DroughtAllowance.MonthlyM3;
        return excess > 0 ? excess * _tariffs.DroughtRatePerM3(account.Stage) : 0m;
    }""",
        """    public decimal ApplyDroughtSurcharge(Account account, decimal volumeM3)
    {
        // stage 2: surcharge applies to all metered accounts above the allowance
        var allowance = account.DroughtAllowance.MonthlyM3;
        var excess = volumeM3 - allowance;
        return excess > 0 ? excess * _tariffs.DroughtRatePerM3(DroughtStage.Stage2) : 0m;
    }""",
        136,
        author="a.mbeki",
    )
    pdf = inc.code(
        ts("2027-05-03T14:18"),
        "billing-engine",
        "Show 12-month usage graph on bill PDF [WTR-2288]",
        "src/Weirbrook.Billing/Pdf/BillDocument.cs",
        "        page.Add(new ChargesTable(bill.Lines));",
        "        page.Add(new ChargesTable(bill.Lines));\n        page.Add(new UsageGraph(bill.Account.UsageHistory(months: 12)));",
        61,
        author="chen.yue",
    )
    rel = inc.deploy(
        ts("2027-05-03T16:05"),
        "billing-engine",
        version="2027.05.3",
        ships=[pdf],
        summary="Release billing-engine 2027.05.3: bill PDF usage graph (WTR-2288)",
    )
    inc.background(
        ts("2027-05-03T16:30"),
        ts("2027-05-03T23:30"),
        5,
        ["workorder-svc", "scada-bridge", "ami-collector"],
    )
    par = inc.config(
        ts("2027-05-04T00:30"),
        "billing-engine",
        "billrun: parallelism 4 -> 6 for the larger May cycle [WTR-2296]",
        "deploy/billing-engine/appsettings.Production.json",
        '  "BillRun": {\n    "Parallelism": 4,\n    "BatchSize": 250\n  }',
        '  "BillRun": {\n    "Parallelism": 6,\n    "BatchSize": 250\n  }',
        author="rhys.pritchard",
    )
    portal = inc.code(
        ts("2027-05-04T00:12"),
        "customer-portal",
        "Bill download: stream the PDF instead of buffering it [WTR-2293]",
        "src/pages/api/bills/[id].ts",
        "  const pdf = await billing.getPdf(id);\n  res.send(pdf);",
        "  const stream = await billing.streamPdf(id);\n  stream.pipe(res);",
        18,
        author="gwen.lloyd",
    )
    pd = inc.deploy(ts("2027-05-04T00:40"), "customer-portal")
    start = ts("2027-05-04T01:00")
    onset = ts("2027-05-04T01:04")
    inc.log(
        start,
        "billing-engine",
        "INFO",
        "Bill run 2027-05-04 started: 38412 accounts due, parallelism 6",
    )
    stack = dotnet(
        "System.NullReferenceException",
        "Object reference not set to an instance of an object.",
        [
            (
                "Weirbrook.Billing.Tariffs.TariffCalculator.ApplyDroughtSurcharge(Account account, Decimal volumeM3)",
                "/src/Weirbrook.Billing/Tariffs/TariffCalculator.cs",
                139,
            ),
            (
                "Weirbrook.Billing.Tariffs.TariffCalculator.Calculate(Account account, MeterPeriod period)",
                "/src/Weirbrook.Billing/Tariffs/TariffCalculator.cs",
                58,
            ),
            (
                "Weirbrook.Billing.BillRun.AccountBiller.BillAsync(Account account, CancellationToken ct)",
                "/src/Weirbrook.Billing/BillRun/AccountBiller.cs",
                44,
            ),
            (
                "Weirbrook.Billing.BillRun.BillRunWorker.<>c__DisplayClass9_0.<<ExecuteAsync>b__0>d.MoveNext()",
                "/src/Weirbrook.Billing/BillRun/BillRunWorker.cs",
                77,
            ),
        ],
    )
    inc.errors(
        "billing-engine",
        onset,
        now,
        1.0,
        lambda r: (
            f"Account {r.randint(30000000, 39999999)} (class Commercial) failed in bill run 2027-05-04"
        ),
        **{
            "@mt": "Account {AccountId} (class {AccountClass}) failed in bill run {Cycle}",
            "@x": stack,
            "SourceContext": "Weirbrook.Billing.BillRun.BillRunWorker",
        },
    )
    run = step(start, 0, 1)
    inc.metric(
        "billrun_accounts_processed_total",
        "billing-engine",
        counter(lambda t: 10.5 * run(t), inc.begin),
        labels={"cycle": "2027-05-04"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "billrun_accounts_failed_total",
        "billing-engine",
        counter(lambda t: 0.0167 * step(onset, 0, 1)(t), inc.begin),
        labels={"cycle": "2027-05-04"},
        jitter=0,
        digits=0,
    )
    inc.fleet(
        billing_engine={"rps": times(step(start, 0.05, 1)), "err": add(step(onset, 0, 0.0016))}
    )
    inc.alert = alerts.grafana(
        "Bill run: failed accounts above 100",
        "billing-engine",
        ts("2027-05-04T02:46"),
        "critical",
        "Revenue / Bill run",
        "102",
        team="revenue",
        cycle="2027-05-04",
    )
    inc.blame(guilty, [rel], "billing-engine", "code_defect", [pdf, par, portal, pd], onset)
    return inc


def xh32_ami_cpu_limit() -> ExtIncident:
    now = ts("2027-05-11T09:30")
    inc = ExtIncident(
        "xh32-ami-cpu-limit",
        "DMA water balance stale: meter data incomplete for 31 of 42 DMAs",
        """A FinOps right-sizing change cut ami-collector's CPU limit from 2 cores to 500m. The
        pods restart at 07:04 and from then on are throttled most of every CFS period: the
        collector ingests about 170 reads/s while the head-end delivers 250/s at the morning
        peak, so the ami.reads backlog and the ingest lag grow for two hours with almost no
        errors. leak-analytics, downstream, cannot close its DMA balance windows and alerts.
        Decoys: an ami-collector deploy at 06:55 logging head-end batch ids (shares the words),
        and a leak-analytics commit about window handling. Metric-only. Category:
        configuration_error.""",
        now,
        WEIRBROOK,
        seed=6032,
    )
    inc.doc(
        "Runbook: DMA balance stale",
        """leak-analytics closes each DMA's 15-minute balance window when the window's meter reads
have arrived (ami-collector's ingest lag under 20 minutes). If reads are late the window is
skipped and the alert counts the DMAs missing data. Look at ami-collector first (ingest lag,
head-end queue depth, pod resources), then the head-end.""",
    )
    inc.noise(every=10)
    inc.background(inc.begin, ts("2027-05-11T06:00"), 8)
    dec = inc.code(
        ts("2027-05-11T06:22"),
        "ami-collector",
        "Log head-end batch ids on committed read batches [WTR-2311]",
        "internal/ingest/commit.go",
        '\tlog.Info().Int("partition", p).Int("batch", len(reads)).Msg("reads committed")',
        '\tlog.Info().Int("partition", p).Int("batch", len(reads)).Str("headend_batch", b.ID).Msg("reads committed")',
        88,
        author="chen.yue",
    )
    dd = inc.deploy(ts("2027-05-11T06:55"), "ami-collector")
    guilty = inc.config(
        ts("2027-05-11T07:02"),
        "ami-collector",
        "Right-size ami-collector requests/limits after FinOps review [WTR-2310]",
        "deploy/ami-collector/values-prod.yaml",
        'resources:\n  requests:\n    cpu: "1"\n    memory: 512Mi\n  limits:\n    cpu: "2"\n    memory: 1Gi',
        "resources:\n  requests:\n    cpu: 250m\n    memory: 512Mi\n  limits:\n    cpu: 500m\n    memory: 1Gi",
        author="f.oduya",
        line=22,
    )
    la = inc.code(
        ts("2027-05-11T07:20"),
        "leak-analytics",
        "Skip DMA balance windows with under 95% of reads instead of 90% [WTR-2305]",
        "leak_analytics/balance/window.py",
        "MIN_READ_COVERAGE = 0.90",
        "MIN_READ_COVERAGE = 0.95",
        12,
        author="rhys.pritchard",
    )
    lad = inc.deploy(ts("2027-05-11T07:41"), "leak-analytics")
    onset = ts("2027-05-11T07:05")
    for pod in (
        "ami-collector-6b7d9-q2x41",
        "ami-collector-6b7d9-w8k17",
        "ami-collector-6b7d9-z5m03",
    ):
        inc.log(
            ts("2027-05-11T07:04"),
            "ami-collector",
            "INFO",
            '{"level":"info","msg":"starting ami-collector","gomaxprocs":1,"partitions":8}',
            pod=pod,
        )
    lag = ramp(onset, now, 35, 8600)
    inc.errors(
        "ami-collector",
        onset + 25 * MINUTE,
        now,
        0.25,
        lambda r: (
            f'{{"level":"warn","msg":"head-end queue depth above 20000","depth":{r.randint(21000, 96000)}}}'
        ),
        level="WARNING",
    )
    inc.errors(
        "leak-analytics",
        onset + 30 * MINUTE,
        now,
        0.3,
        lambda r: (
            f"DMA-{r.randint(1, 42):02d} balance window skipped: read coverage {r.uniform(0.2, 0.8):.2f} < 0.95"
        ),
        level="WARNING",
    )
    inc.metric("ami_ingest_lag_seconds", "ami-collector", lag, jitter=0.04, digits=0)
    inc.metric(
        "container_cpu_cfs_throttled_periods_ratio",
        "ami-collector",
        step(ts("2027-05-11T07:04"), 0.02, 0.86),
        labels={"container": "ami-collector"},
        jitter=0.05,
    )
    inc.metric(
        "kube_pod_container_resource_limits",
        "ami-collector",
        step(ts("2027-05-11T07:04"), 2.0, 0.5),
        labels={"resource": "cpu", "unit": "core"},
        jitter=0,
    )
    inc.metric(
        "container_cpu_usage_cores",
        "ami-collector",
        step(ts("2027-05-11T07:04"), 0.95, 0.5),
        jitter=0.03,
    )
    inc.metric(
        "headend_queue_depth",
        "ami-collector",
        lambda t: 900 if t < onset else 900 + 13.3 * (t - onset).total_seconds() / 60 * 60 / 4,
        labels={"queue": "ami.reads"},
        jitter=0.03,
        digits=0,
    )
    inc.metric(
        "dma_balance_windows_skipped",
        "leak-analytics",
        lambda t: 0 if t < onset + 25 * MINUTE else 31,
        jitter=0.1,
        digits=0,
    )
    inc.fleet(ami_collector={"rps": lambda t, v: v if t < onset else min(v, 172.0)})
    inc.alert = alerts.grafana(
        "DMA water balance stale",
        "leak-analytics",
        ts("2027-05-11T09:05"),
        "warning",
        "Network Performance / DMA balance",
        "31 of 42 DMAs missing meter data",
        team="network-performance",
    )
    inc.blame(guilty, [], "ami-collector", "configuration_error", [dec, dd, la, lad], onset)
    return inc


def xh33_clarion_sms_outage() -> ExtIncident:
    now = ts("2027-05-18T15:20")
    inc = ExtIncident(
        "xh33-clarion-sms-outage",
        "Notices undelivered above 500",
        """Clarion Messaging, the SMS and voice provider, returned 503 for SMS submissions in its
        EU-West region from 14:00 (its status page: investigating at 14:02, identified at
        14:40). customer-notify's submissions fail and the boil-water advisory for Ashby Hill,
        issued at 13:55 after a burst main, piles up undelivered. Decoys: a customer-notify
        deploy at 13:38 shipping a commit to the very Clarion client file the stack traces name
        (a User-Agent header) and a boil-water template change; the advisory itself is a burst
        of notices just before the onset, but the failures are 503s, not 429s, and other
        notices fail too. Category: dependency_failure.""",
        now,
        WEIRBROOK,
        seed=6033,
    )
    inc.doc(
        "Clarion Messaging status (status.clarion-msg.example)",
        """Elevated error rates for SMS submissions (EU-West)
Investigating - 2027-05-18T14:02:00Z - We are investigating elevated HTTP 503 responses from the
SMS submission API (POST /v2/messages) for customers homed in EU-West. Voice is not affected.
Identified - 2027-05-18T14:40:00Z - A storage failover in EU-West is degrading the message queue.
We are working on a fix. Messages rejected with 503 were not accepted and must be resubmitted.""",
    )
    inc.doc(
        "Runbook: undelivered notices",
        """customer-notify submits each recipient's SMS to Clarion (rate limit 600 messages/s per
account, answered with 429 above it). A 5xx is retried 3 times with backoff, then the recipient
is marked undelivered and retried every 10 minutes for 6 hours. Boil-water advisories must reach
every subscriber in the zone: if SMS is down, switch the advisory to voice
(`notifyctl channel --notice <id> voice`) and tell the duty manager.""",
    )
    inc.noise(every=9)
    inc.background(inc.begin, ts("2027-05-18T12:40"), 10)
    ua = inc.code(
        ts("2027-05-18T12:58"),
        "customer-notify",
        "Clarion client: send a User-Agent with our version [WTR-2318]",
        "src/providers/clarion.js",
        "    const res = await this.http.post('/v2/messages', body, {\n      headers: { Authorization: `Bearer ${this.token}` },",
        "    const res = await this.http.post('/v2/messages', body, {\n      headers: { Authorization: `Bearer ${this.token}`, 'User-Agent': `weirbrook-notify/${pkg.version}` },",
        84,
        author="gwen.lloyd",
    )
    tpl = inc.code(
        ts("2027-05-18T13:20"),
        "customer-notify",
        "Boil-water notice: include affected postcodes [WTR-2321]",
        "src/templates/boil-water.js",
        "  `Weirbrook Water: please boil tap water before drinking in ${zone}. Updates: ${url}`",
        "  `Weirbrook Water: please boil tap water before drinking in ${zone} (${postcodes.join(', ')}). Updates: ${url}`",
        9,
        author="gwen.lloyd",
    )
    nd = inc.deploy(ts("2027-05-18T13:38"), "customer-notify")
    wo = inc.code(
        ts("2027-05-18T13:44"),
        "workorder-svc",
        "Link boil-water notices to the burst main work order [WTR-2319]",
        "src/main/java/water/weirbrook/workorders/NoticeLink.java",
        "        order.setNoticeId(null);",
        "        order.setNoticeId(notice.getId());",
        31,
        author="f.oduya",
    )
    inc.log(
        ts("2027-05-18T13:52"),
        "workorder-svc",
        "INFO",
        "WO-88390 BURST_MAIN Ashby Hill 300mm CI main, crew C-04 dispatched",
    )
    inc.log(
        ts("2027-05-18T13:55"),
        "customer-notify",
        "INFO",
        "notice N-20270518-07 boil-water zone=Ashby Hill recipients=11842 channel=sms queued",
    )
    onset = ts("2027-05-18T14:00")
    stack = node_stack(
        "AxiosError",
        "Request failed with status code 503",
        [
            ("settle", "/app/node_modules/axios/dist/node/axios.cjs", 1966, 12),
            (
                "IncomingMessage.handleStreamEnd",
                "/app/node_modules/axios/dist/node/axios.cjs",
                3065,
                11,
            ),
            ("async ClarionClient.submit", "/app/src/providers/clarion.js", 86, 17),
            ("async NoticeDispatcher.sendOne", "/app/src/dispatch/dispatcher.js", 142, 9),
        ],
    )
    inc.errors(
        "customer-notify",
        onset,
        now,
        lambda f: 2.4 if f < 0.4 else 1.4,
        lambda r: (
            f"clarion submit failed for recipient {r.randint(100000, 999999)}: 503 Service Unavailable (attempt 3/3), marked undelivered"
        ),
        err={
            "type": "AxiosError",
            "message": "Request failed with status code 503",
            "stack": stack,
            "code": "ERR_BAD_RESPONSE",
        },
        provider="clarion",
        status=503,
    )
    inc.metric(
        "notify_messages_submitted_total",
        "customer-notify",
        counter(lambda t: 0.6 + (38.0 if ts("2027-05-18T13:55") <= t < onset else 0.0), inc.begin),
        labels={"channel": "sms"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "notify_provider_responses",
        "customer-notify",
        lambda t: 0.01 if t < onset else 3.2,
        labels={"provider": "clarion", "code": "503"},
        jitter=0.15,
    )
    inc.metric(
        "notify_provider_responses",
        "customer-notify",
        lambda t: 0.0,
        labels={"provider": "clarion", "code": "429"},
        jitter=0,
    )
    inc.metric(
        "notify_undelivered_recipients",
        "customer-notify",
        lambda t: 3 if t < onset else min(11842, 3 + 110 * (t - onset).total_seconds() / 60),
        jitter=0.02,
        digits=0,
    )
    inc.fleet(customer_notify={"err": add(step(onset, 0, 0.62)), "p99": add(step(onset, 0, 2600))})
    inc.alert = alerts.generic(
        "Notices undelivered above 500",
        "customer-notify",
        ts("2027-05-18T14:12"),
        "critical",
        {
            "source": "opsgenie",
            "alias": "notify-undelivered",
            "message": "Notices undelivered above 500 (notice N-20270518-07 boil-water, Ashby Hill)",
            "priority": "P1",
            "tags": ["customer", "notices", "regulatory"],
            "details": {"undelivered": "1183", "threshold": "500", "window": "10m"},
        },
    )
    inc.outside(
        "Clarion Messaging SMS API outage (503s, EU-West, status notice)",
        "customer-notify",
        "dependency_failure",
        [ua, tpl, nd, wo],
        onset,
    )
    return inc


def xh34_north_tunnel_down() -> ExtIncident:
    now = ts("2027-05-25T22:50")
    inc = ExtIncident(
        "xh34-north-tunnel-down",
        "SCADA COMMS FAIL: North outstations",
        """The IPsec tunnel north-hub-lte, which carries the 14 North outstations' traffic over
        the carrier's private LTE APN, went down at 21:37 (dead peer detection timeouts). Every
        OPC UA session to rtu-n01..rtu-n14 is lost and every reconnect times out; South and
        East outstations (fibre) are fine. Decoys: a scada-bridge deploy at 21:10 with a commit
        changing reconnect backoff in SessionSupervisor.cs, the file in the stack traces, and a
        network config change at 22:05 (after the onset) raising the DPD timeout as a
        mitigation attempt. Category: infrastructure.""",
        now,
        WEIRBROOK,
        seed=6034,
    )
    inc.doc(
        "Network: outstation links",
        """South (16) and East (12) outstations: utility-owned fibre ring, redundant.
North (14, rtu-n01..rtu-n14): the carrier's private LTE APN `weirbrook.scada`, terminated on the
north-hub router and carried to the control centre over the IPsec tunnel `north-hub-lte`
(IKEv2, DPD 30s). If the tunnel drops, every North outstation goes dark at once; the RTUs keep
running their local control and buffer 72 hours of data. Carrier NOC: +44 20 7946 0815.""",
    )
    inc.doc(
        "Runbook: SCADA comms failure",
        """One outstation dark: send a technician. A whole zone dark: it is the zone's link (see
Network: outstation links), not scada-bridge; check `ipsec_tunnel_up` and the hub router. The
control room moves the zone to manual reservoir checks until comms return.""",
    )
    inc.noise(every=9)
    inc.background(inc.begin, ts("2027-05-25T20:20"), 9)
    boff = inc.code(
        ts("2027-05-25T20:31"),
        "scada-bridge",
        "OPC UA: exponential reconnect backoff capped at 5 minutes [WTR-2334]",
        "src/Weirbrook.Scada/Sessions/SessionSupervisor.cs",
        "        await Task.Delay(TimeSpan.FromSeconds(10), ct);",
        "        var delay = TimeSpan.FromSeconds(Math.Min(300, 10 * Math.Pow(2, attempt)));\n        await Task.Delay(delay, ct);",
        118,
        author="chen.yue",
    )
    sd = inc.deploy(ts("2027-05-25T21:10"), "scada-bridge")
    onset = ts("2027-05-25T21:37")
    dpd = inc.config(
        ts("2027-05-25T22:05"),
        "north-hub",
        "north-hub: DPD timeout 30s -> 60s while the LTE link is flapping",
        "network/north-hub/ipsec.conf",
        "conn north-hub-lte\n    dpddelay=10s\n    dpdtimeout=30s\n    dpdaction=restart",
        "conn north-hub-lte\n    dpddelay=10s\n    dpdtimeout=60s\n    dpdaction=restart",
        author="netops.k.harris",
    )
    for i in range(1, 15):
        inc.log(
            onset + timedelta(seconds=5 + 3 * i),
            "scada-bridge",
            "WARNING",
            f"Session to opc.tcp://rtu-n{i:02d}.scada.weirbrook.internal:4840 lost: BadConnectionClosed; reconnecting",
            **{
                "@mt": "Session to {Endpoint} lost: {Status}; reconnecting",
                "SourceContext": "Weirbrook.Scada.Sessions.SessionSupervisor",
            },
        )
    stack = dotnet(
        "Opc.Ua.ServiceResultException",
        "BadTimeout",
        [
            (
                "Opc.Ua.Bindings.ChannelAsyncOperation`1.End(Int32 timeout, Boolean throwOnError)",
                "",
                0,
            ),
            ("Opc.Ua.Bindings.UaSCUaBinaryClientChannel.EndConnect(IAsyncResult result)", "", 0),
            (
                "Opc.Ua.Client.Session.Create(ApplicationConfiguration configuration, ConfiguredEndpoint endpoint, Boolean updateBeforeConnect)",
                "",
                0,
            ),
            (
                "Weirbrook.Scada.Sessions.SessionSupervisor.ReconnectAsync(Outstation station, Int32 attempt, CancellationToken ct)",
                "/src/Weirbrook.Scada/Sessions/SessionSupervisor.cs",
                124,
            ),
        ],
    )
    inc.errors(
        "scada-bridge",
        onset + MINUTE,
        now,
        1.6,
        lambda r: (
            f"Reconnect to opc.tcp://rtu-n{r.randint(1, 14):02d}.scada.weirbrook.internal:4840 failed: BadTimeout (0x800A0000) after 15000 ms"
        ),
        **{
            "@mt": "Reconnect to {Endpoint} failed: {Status} after {ElapsedMs} ms",
            "@x": stack,
            "SourceContext": "Weirbrook.Scada.Sessions.SessionSupervisor",
            "zone": "north",
        },
    )
    inc.errors(
        "leak-analytics",
        onset + 20 * MINUTE,
        now,
        0.2,
        lambda r: (
            f"DMA-{r.choice([3, 4, 7, 9, 11, 12])} inflow tag North/DMA{r.randint(1, 14)}/Inflow stale (quality Bad), balance skipped"
        ),
        level="WARNING",
    )
    for zone, n in (("north", 14), ("south", 16), ("east", 12)):
        inc.metric(
            "scada_outstations_comms_ok",
            "scada-bridge",
            step(onset, n, 0 if zone == "north" else n),
            labels={"zone": zone},
            jitter=0,
            digits=0,
        )
    inc.metric(
        "ipsec_tunnel_up",
        "north-hub",
        step(onset, 1, 0),
        labels={"tunnel": "north-hub-lte"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "ipsec_tunnel_up",
        "north-hub",
        lambda t: 1,
        labels={"tunnel": "control-dr"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "scada_tag_quality_bad_ratio",
        "scada-bridge",
        step(onset, 0.004, 0.33),
        jitter=0.03,
        digits=4,
    )
    inc.fleet(scada_bridge={"rps": times(step(onset, 1, 0.67)), "err": add(step(onset, 0, 0.3))})
    inc.alert = alerts.generic(
        "SCADA COMMS FAIL: North outstations",
        "scada-bridge",
        ts("2027-05-25T21:41"),
        "critical",
        {
            "source": "scada-alarm-gateway",
            "alarmPath": "prov:default:/tag:North/Comms/ZoneCommsFail:/alm:CommsFail",
            "displayPath": "North / Comms",
            "priority": "High",
            "eventState": "ActiveUnacked",
            "eventTime": "2027-05-25T21:41:07Z",
            "eventValue": "14 outstations not responding",
        },
    )
    inc.outside(
        "IPsec tunnel north-hub-lte down (carrier LTE APN): North outstations unreachable",
        "scada-bridge",
        "infrastructure",
        [boff, sd, dpd],
        onset,
    )
    return inc


def xh35_dma17_flushing() -> ExtIncident:
    now = ts("2027-06-02T05:40")
    inc = ExtIncident(
        "xh35-dma17-flushing",
        "Leak suspicion: DMA-17 minimum night flow 14.2 l/s above 9.0 l/s",
        """Planned mains flushing in DMA-17 (work order WO-88412, 01:00-03:30 UTC) opened
        hydrants and raised the district's night inflow, which leak-analytics' minimum night
        flow check read as a leak suspicion and alerted on at 03:12. The flushing completed at
        03:34 and the night flow is back under the threshold; nothing is wrong now. Decoy: a
        leak-analytics commit at 00:40 changing the MNF statistic (mean to median), deployed at
        00:52, and a workorder-svc deploy. Category: healthy.""",
        now,
        WEIRBROOK,
        seed=6135,
    )
    inc.doc(
        "Mains flushing programme, June 2027",
        """Unidirectional flushing, at night to keep pressure for customers:
- 2027-06-02 01:00-03:30 UTC, DMA-17 Harrow Lane, hydrants H17-03..H17-09, WO-88412, crew C-12
- 2027-06-04 01:00-03:30 UTC, DMA-21 Mill Road, hydrants H21-01..H21-06, WO-88413, crew C-12
Flushing discharges 4-8 l/s per open hydrant; expect the DMA's night flow to rise meanwhile.
Network Performance: suppress MNF leak suspicions for these windows (not automated).""",
    )
    inc.doc(
        "Runbook: leak suspicion",
        """An MNF above the DMA's threshold for two consecutive 15-minute windows raises a leak
suspicion. Check planned work in the DMA (flushing, main repairs) and the inflow meter's quality
first; if none, send a leak detection crew in the morning.""",
    )
    inc.noise(every=10)
    inc.background(inc.begin, ts("2027-06-02T00:10"), 8)
    mnf = inc.code(
        ts("2027-06-02T00:40"),
        "leak-analytics",
        "MNF: use the 15-minute median instead of the mean [WTR-2340]",
        "leak_analytics/mnf/night_flow.py",
        "    return float(np.mean(window.inflow_lps - window.metered_lps))",
        "    return float(np.median(window.inflow_lps - window.metered_lps))",
        47,
        author="rhys.pritchard",
    )
    md = inc.deploy(ts("2027-06-02T00:52"), "leak-analytics")
    woc = inc.code(
        ts("2027-06-02T00:20"),
        "workorder-svc",
        "Crew app: show hydrant ids on flushing orders [WTR-2338]",
        "src/main/java/water/weirbrook/workorders/mobile/FlushingView.java",
        '        view.put("dma", order.getDma());',
        '        view.put("dma", order.getDma());\n        view.put("hydrants", order.getAssetIds());',
        27,
        author="f.oduya",
    )
    wod = inc.deploy(ts("2027-06-02T00:35"), "workorder-svc")
    onset = ts("2027-06-02T01:05")
    done = ts("2027-06-02T03:34")
    inc.log(
        ts("2027-06-02T00:58"),
        "workorder-svc",
        "INFO",
        "WO-88412 FLUSHING DMA-17 status IN_PROGRESS crew C-12",
    )
    inc.log(
        done,
        "workorder-svc",
        "INFO",
        "WO-88412 FLUSHING DMA-17 status COMPLETED crew C-12 (hydrants H17-03..H17-09 closed)",
    )
    inc.errors(
        "leak-analytics",
        onset + 10 * MINUTE,
        done,
        0.07,
        lambda r: f"DMA-17 MNF window {r.uniform(12.5, 14.6):.1f} l/s exceeds threshold 9.0 l/s",
        level="WARNING",
    )
    inc.log(
        ts("2027-06-02T03:12"),
        "leak-analytics",
        "WARNING",
        "leak suspicion raised: DMA-17 MNF 14.2 l/s above 9.0 l/s for 2 windows",
    )
    inc.errors(
        "leak-analytics",
        done + 6 * MINUTE,
        ts("2027-06-02T04:00"),
        0.07,
        lambda r: f"DMA-17 MNF window {r.uniform(5.8, 6.6):.1f} l/s within threshold 9.0 l/s",
        level="INFO",
    )
    inc.metric(
        "dma_inflow_lps",
        "leak-analytics",
        step(onset, 21.0, 34.5, done),
        labels={"dma": "DMA-17"},
        jitter=0.03,
    )
    inc.metric(
        "dma_inflow_lps", "leak-analytics", lambda t: 16.0, labels={"dma": "DMA-21"}, jitter=0.03
    )
    inc.metric(
        "dma_mnf_lps",
        "leak-analytics",
        step(onset, 6.2, 14.0, done),
        labels={"dma": "DMA-17"},
        jitter=0.04,
    )
    inc.metric(
        "dma_mnf_lps", "leak-analytics", lambda t: 4.9, labels={"dma": "DMA-21"}, jitter=0.04
    )
    inc.fleet()
    inc.alert = alerts.grafana(
        "Leak suspicion: DMA-17 minimum night flow 14.2 l/s above 9.0 l/s",
        "leak-analytics",
        ts("2027-06-02T03:12"),
        "warning",
        "Network Performance / Minimum night flow",
        "14.2 l/s",
        dma="DMA-17",
        team="network-performance",
    )
    inc.healthy(
        "leak-analytics",
        "planned mains flushing in DMA-17 (WO-88412, 01:00-03:30) raised the night inflow; it completed at 03:34 and the night flow is back under the threshold",
        [mnf, md, woc, wod],
        onset,
    )
    return inc


def xh36_meter_clock_poison() -> ExtIncident:
    now = ts("2027-06-08T11:50")
    inc = ExtIncident(
        "xh36-meter-clock-poison",
        "AmiPartitionLagHigh: ami.reads partition 7 lag above 50000",
        """One Kamstrup meter (WBM-7741203) whose clock reset after a battery swap reports a read
        stamped 2087-01-01. TimescaleDB's meter_reads CHECK constraint rejects it, and
        ami-collector retries the same message at partition 7 offset 88123411 forever, so that
        partition's lag grows while the other 23 are fine; its reads stop reaching billing and
        leak-analytics for the DMAs on that partition. Decoys: an ami-collector deploy at 10:05
        that parses Sensus FlexNet v3 battery fields (a parser change, but for another vendor
        and another field) and a timescaledb config change raising the chunk interval. Category:
        data_quality.""",
        now,
        WEIRBROOK,
        seed=6036,
    )
    inc.doc(
        "Runbook: ami.reads partition lag",
        """ami-collector retries a batch until TimescaleDB accepts it (no dead-letter queue: reads
feed bills). A read the database rejects stalls its partition. Find the offset in the error,
inspect it with `amictl peek --partition N --offset X`, and skip it with
`amictl skip --partition N --offset X --reason ...` (the read goes to the quarantine table).""",
    )
    inc.noise(every=10)
    inc.background(inc.begin, ts("2027-06-08T09:20"), 9)
    flex = inc.code(
        ts("2027-06-08T09:41"),
        "ami-collector",
        "Parse Sensus FlexNet v3 battery voltage from read payloads [WTR-2351]",
        "internal/headend/sensus/flexnet.go",
        "\tr.Battery = nil // not sent by FlexNet v2",
        "\tif p.Version >= 3 {\n\t\tv := float64(p.BattMilliVolts) / 1000\n\t\tr.Battery = &v\n\t}",
        142,
        author="chen.yue",
    )
    fd = inc.deploy(ts("2027-06-08T10:05"), "ami-collector")
    chunk = inc.config(
        ts("2027-06-08T10:40"),
        "ami-collector",
        "timescaledb: meter_reads chunk interval 7d -> 14d for new chunks [WTR-2349]",
        "db/timescale/policies.sql",
        "SELECT set_chunk_time_interval('meter_reads', INTERVAL '7 days');",
        "SELECT set_chunk_time_interval('meter_reads', INTERVAL '14 days');",
        author="f.oduya",
    )
    onset = ts("2027-06-08T10:31")
    inc.log(
        onset - 2 * MINUTE,
        "ami-collector",
        "INFO",
        '{"level":"info","collector":"DCU-311","meter":"WBM-7741203","model":"Kamstrup flowIQ 2200","msg":"meter rejoined after battery replacement"}',
    )
    stack = go_stack(
        'pq: new row for relation "meter_reads" violates check constraint "reading_ts_not_future"',
        [
            (
                "github.com/weirbrook/ami-collector/internal/ingest.(*Writer).CopyBatch",
                "/src/internal/ingest/writer.go",
                117,
            ),
            (
                "github.com/weirbrook/ami-collector/internal/ingest.(*Consumer).handle",
                "/src/internal/ingest/consumer.go",
                88,
            ),
            (
                "github.com/weirbrook/ami-collector/internal/ingest.(*Consumer).Run",
                "/src/internal/ingest/consumer.go",
                51,
            ),
        ],
    )
    inc.errors(
        "ami-collector",
        onset,
        now,
        1.0,
        lambda r: (
            '{"level":"error","partition":7,"offset":88123411,"meter":"WBM-7741203","reading_ts":"2087-01-01T00:15:00Z","error":"pq: new row for relation \\"meter_reads\\" violates check constraint \\"reading_ts_not_future\\"","msg":"batch insert failed, retrying"}'
        ),
        stack=stack,
        partition=7,
        offset=88123411,
    )
    for p in (3, 7, 12):
        inc.metric(
            "ami_partition_lag_messages",
            "ami-collector",
            (lambda t: 40 if t < onset else 40 + 1050 * (t - onset).total_seconds() / 60)
            if p == 7
            else (lambda t: 40),
            labels={"topic": "ami.reads", "partition": str(p)},
            jitter=0.05,
            digits=0,
        )
    inc.metric(
        "ami_batch_insert_errors_total",
        "ami-collector",
        counter(lambda t: 0.0 if t < onset else 1 / 60, inc.begin),
        jitter=0,
        digits=0,
    )
    inc.fleet(
        ami_collector={"rps": times(step(onset, 1, 0.958)), "err": add(step(onset, 0, 0.004))}
    )
    inc.alert = alerts.alertmanager(
        "AmiPartitionLagHigh",
        "ami-collector",
        ts("2027-06-08T11:22"),
        "warning",
        "ami.reads partition 7 lag above 50000",
        "Consumer group ami-collector is 50,310 messages behind on ami.reads partition 7.",
        'max by (partition) (ami_partition_lag_messages{topic="ami.reads"}) > 50000',
        team="metering",
        partition="7",
    )
    inc.outside(
        "one meter read stamped 2087 (WBM-7741203 clock reset) rejected by the meter_reads check constraint and retried forever at ami.reads partition 7 offset 88123411",
        "ami-collector",
        "data_quality",
        [flex, fd, chunk],
        onset,
    )
    return inc


# --- Longwave Podcasts ----------------------------------------------------------------------------


def _logfmt(level: str, msg: str, **kv: object) -> str:
    parts = [f"level={level}", f'msg="{msg}"']
    for k, v in kv.items():
        text = str(v)
        parts.append(f'{k}="{text}"' if (" " in text or "=" in text) else f"{k}={text}")
    return " ".join(parts)


def xh37_lwkit_suffix_range() -> ExtIncident:
    now = ts("2027-06-08T18:30")
    inc = ExtIncident(
        "xh37-lwkit-suffix-range",
        "DlEdge416Ratio: dl-edge 416 responses above 2%",
        """A commit to the shared Go module lwkit rewrote httprange.Parse for 'strict RFC 9110
        parsing' but dropped the suffix form (bytes=-N): an empty first position now fails
        strconv.ParseInt and returns ErrUnsatisfiable. Players that read the ID3v1 footer with
        bytes=-128 (Overcast, several Android apps) get 416 and give up on the episode. It
        reached dl-edge through a go.mod bump shipped with an innocent x-lw-pop header commit in
        the 16:41 deploy. Decoys: that sibling commit, an ad-stitcher deploy at 16:50 about
        Content-Range on stitched audio, and a CDN config change at 17:10 (after the onset) not
        caching 416s. Category: code_defect.""",
        now,
        LONGWAVE,
        seed=6037,
    )
    inc.doc(
        "Runbook: dl-edge 4xx",
        """dl-edge answers range requests itself (206) for un-stitched shows and proxies stitched
audio from ad-stitcher. A 416 means the Range header could not be satisfied: the client asked
past the end, or we failed to parse it. Group the 416 lines by `range` and `ua`. Rollback:
`lwctl rollback dl-edge --to <version>`.""",
    )
    inc.noise(every=9)
    inc.background(
        inc.begin,
        ts("2027-06-08T14:40"),
        9,
        ["feed-builder", "creator-dashboard", "analytics-ingest", "transcode-worker"],
    )
    guilty = inc.code(
        ts("2027-06-07T15:10"),
        "lwkit",
        "feat(httprange): strict RFC 9110 parsing of Range headers",
        "httprange/parse.go",
        """	for _, spec := range strings.Split(strings.TrimPrefix(h, "bytes="), ",") {
		spec = strings.TrimSpace(spec)
		if strings.HasPrefix(spec, "-") { // suffix range: last N bytes
			n, err := strconv.ParseInt(spec[1:], 10, 64)
			if err != nil || n <= 0 {
				return nil, ErrUnsatisfiable
			}
			out = append(out, Range{Start: max(size-n, 0), End: size - 1})
			continue
		}
		first, last, _ := strings.Cut(spec, "-")""",
        """	for _, spec := range strings.Split(strings.TrimPrefix(h, "bytes="), ",") {
		first, last, ok := strings.Cut(strings.TrimSpace(spec), "-")
		if !ok {
			return nil, ErrUnsatisfiable
		}
		start, err := strconv.ParseInt(first, 10, 64)
		if err != nil || start >= size {
			return nil, ErrUnsatisfiable
		}""",
        31,
        author="sven.h",
    )
    bump = inc.code(
        ts("2027-06-08T16:02"),
        "dl-edge",
        "chore(deps): bump github.com/longwave/lwkit from v0.13.2 to v0.14.0",
        "go.mod",
        "require (\n\tgithub.com/longwave/lwkit v0.13.2\n\tgithub.com/prometheus/client_golang v1.19.1\n)",
        "require (\n\tgithub.com/longwave/lwkit v0.14.0\n\tgithub.com/prometheus/client_golang v1.19.1\n)",
        5,
        author="dependabot[bot]",
    )
    pop = inc.code(
        ts("2027-06-08T16:15"),
        "dl-edge",
        "feat(edge): add x-lw-pop response header for CDN debugging",
        "internal/serve/headers.go",
        '\tw.Header().Set("Accept-Ranges", "bytes")',
        '\tw.Header().Set("Accept-Ranges", "bytes")\n\tw.Header().Set("X-Lw-Pop", s.pop)',
        40,
        author="ines.valle",
    )
    dd = inc.deploy(ts("2027-06-08T16:41"), "dl-edge")
    st = inc.code(
        ts("2027-06-08T16:20"),
        "ad-stitcher",
        "fix(stitch): correct Content-Range total on stitched audio",
        "src/stitch/response.rs",
        '    format!("bytes {}-{}/{}", start, end, original_len)',
        '    format!("bytes {}-{}/{}", start, end, stitched_len)',
        77,
        author="tobi.adeyemi",
    )
    sd = inc.deploy(ts("2027-06-08T16:50"), "ad-stitcher")
    onset = ts("2027-06-08T16:43")
    cdn = inc.config(
        ts("2027-06-08T17:10"),
        "dl-edge",
        "cdn: do not cache 416 responses",
        "cdn/fastly/enclosures.vcl",
        "  if (beresp.status == 416) {\n    set beresp.ttl = 60s;\n  }",
        "  if (beresp.status == 416) {\n    set beresp.ttl = 0s;\n    return(pass);\n  }",
        author="mkaur",
    )
    uas = [
        "Overcast/3.0 (+http://overcast.fm/)",
        "AntennaPod/3.4.0",
        "PodcastAddict/v5 - Dalvik/2.1.0",
        "Podverse/4.16",
    ]
    inc.errors(
        "dl-edge",
        onset,
        now,
        3.0,
        lambda r: _logfmt(
            "warn",
            "range not satisfiable",
            status=416,
            range=f"bytes=-{r.choice([128, 128, 10, 4096])}",
            ua=r.choice(uas),
            episode=f"ep_{r.randint(40000, 69999)}",
            err="lwkit/httprange: unsatisfiable range",
            caller="serve/enclosure.go:203",
        ),
        level="WARNING",
    )
    inc.errors(
        "dl-edge",
        onset + 30 * MINUTE,
        now,
        0.15,
        lambda r: _logfmt(
            "error",
            "client abandoned episode after repeated 416",
            ua=r.choice(uas),
            episode=f"ep_{r.randint(40000, 69999)}",
            attempts=3,
        ),
    )
    inc.metric(
        "dl_edge_responses_per_second",
        "dl-edge",
        lambda t: 1.2 if t < onset else 52.0,
        labels={"code": "416"},
        jitter=0.08,
    )
    inc.metric(
        "dl_edge_responses_per_second",
        "dl-edge",
        lambda t: 610.0 if t < onset else 575.0,
        labels={"code": "206"},
        jitter=0.04,
    )
    inc.metric(
        "iab_downloads_counted_per_minute",
        "analytics-ingest",
        lambda t: 21000 if t < onset else 19300,
        jitter=0.03,
        digits=0,
    )
    inc.fleet(dl_edge={"err": add(step(onset, 0, 0.058))})
    inc.alert = alerts.alertmanager(
        "DlEdge416Ratio",
        "dl-edge",
        ts("2027-06-08T17:01"),
        "warning",
        "dl-edge 416 responses above 2%",
        "5.8% of dl-edge responses are 416 Range Not Satisfiable over the last 15 minutes.",
        'sum(rate(dl_edge_responses_total{code="416"}[15m])) / sum(rate(dl_edge_responses_total[15m])) > 0.02',
        team="delivery",
    )
    inc.blame(guilty, [bump, dd], "dl-edge", "code_defect", [pop, st, sd, cdn], onset)
    return inc


def xh38_prefetch_all_breaks() -> ExtIncident:
    now = ts("2027-06-15T12:40")
    inc = ExtIncident(
        "xh38-prefetch-all-breaks",
        "Ad fill rate below 50%",
        """The flag adstitch.prefetch_all_breaks was turned on at 11:02: ad-stitcher now asks the
        Pelagic Exchange for every break of an episode at once (about four per episode) instead
        of the pre-roll first and the rest as the listener gets there. Decision requests
        quadruple past Pelagic's 2,000 requests/s publisher limit; Pelagic answers 429 and the
        stitcher falls back to unfilled breaks, so the fill rate drops from 78% to about 30%.
        Pelagic's status page shows nothing. Decoy: an ad-stitcher deploy at 10:45 that honours
        Retry-After on 429s (shares the errors' words), and a feed-builder deploy. Category:
        configuration_error.""",
        now,
        LONGWAVE,
        seed=6038,
    )
    inc.doc(
        "Pelagic Exchange: publisher limits",
        """Publisher account longwave-prod: 2,000 decision requests/s, burst 2,500; above it the
exchange answers 429 with Retry-After: 1. Status page status.pelagic.example: All Systems
Operational (2027-06-15).""",
    )
    inc.doc(
        "Runbook: ad fill rate",
        """Fill rate = filled breaks / breaks. Normal 70-85% (lower overnight). A drop with 429s from
Pelagic means we exceed our request limit (check decision requests/s and recent flags); with 5xx
or timeouts it is Pelagic's side (check their status page, then their account manager).""",
    )
    inc.noise(every=9)
    inc.background(inc.begin, ts("2027-06-15T10:00"), 9)
    ra = inc.code(
        ts("2027-06-15T10:18"),
        "ad-stitcher",
        "fix(decision): honour Retry-After on 429 from the exchange",
        "src/decision/client.rs",
        "            StatusCode::TOO_MANY_REQUESTS => Err(DecisionError::RateLimited),",
        "            StatusCode::TOO_MANY_REQUESTS => {\n                let wait = retry_after(&resp).unwrap_or(Duration::from_secs(1));\n                Err(DecisionError::RateLimited { retry_after: wait })\n            }",
        64,
        author="tobi.adeyemi",
    )
    rad = inc.deploy(ts("2027-06-15T10:45"), "ad-stitcher")
    guilty = inc.flag(
        ts("2027-06-15T11:02"),
        "ad-stitcher",
        "adstitch.prefetch_all_breaks",
        "enabled: false\nrollout: 0",
        "enabled: true\nrollout: 100",
        "Prefetch ad decisions for all breaks of an episode in parallel",
        author="lena.osei",
    )
    fb = inc.code(
        ts("2027-06-15T10:50"),
        "feed-builder",
        "feat(rss): podcast:person tags for hosts",
        "lib/longwave_feeds/rss/channel.ex",
        "    |> itunes_owner(show)",
        "    |> itunes_owner(show)\n    |> persons(show.hosts)",
        88,
        author="ines.valle",
    )
    fbd = inc.deploy(ts("2027-06-15T11:20"), "feed-builder")
    onset = ts("2027-06-15T11:03")
    inc.errors(
        "ad-stitcher",
        onset,
        now,
        3.0,
        lambda r: (
            f"WARN ad_stitcher::decision: decision failed break=mid-{r.randint(1, 4)} episode=ep_{r.randint(40000, 69999)} status=429 retry_after=1s"
        ),
        level="WARNING",
        target="ad_stitcher::decision",
    )
    inc.errors(
        "ad-stitcher",
        onset + 2 * MINUTE,
        now,
        1.2,
        lambda r: (
            f"ERROR ad_stitcher::stitch: stitch degraded episode=ep_{r.randint(40000, 69999)} breaks={(b := r.randint(3, 5))} unfilled={r.randint(2, b)} reason=rate_limited"
        ),
        target="ad_stitcher::stitch",
    )
    inc.metric(
        "adstitch_decision_requests_per_second",
        "ad-stitcher",
        lambda t: 520 if t < onset else 2480,
        labels={"exchange": "pelagic"},
        jitter=0.05,
        digits=0,
    )
    inc.metric(
        "adstitch_decision_responses_per_second",
        "ad-stitcher",
        lambda t: 0.2 if t < onset else 640,
        labels={"exchange": "pelagic", "code": "429"},
        jitter=0.1,
    )
    inc.metric(
        "adstitch_decision_responses_per_second",
        "ad-stitcher",
        lambda t: 0.05,
        labels={"exchange": "pelagic", "code": "5xx"},
        jitter=0.3,
    )
    inc.metric("adstitch_fill_ratio", "ad-stitcher", step(onset, 0.78, 0.31), jitter=0.04)
    inc.metric(
        "adstitch_decision_latency_p99_ms",
        "ad-stitcher",
        step(onset, 140, 160),
        labels={"exchange": "pelagic"},
        jitter=0.06,
        digits=0,
    )
    inc.fleet(ad_stitcher={"p99": add(step(onset, 0, 60))})
    inc.alert = alerts.datadog(
        "Ad fill rate below 50%",
        "ad-stitcher",
        ts("2027-06-15T11:40"),
        "high",
        "avg(last_15m):avg:adstitch.fill_ratio{env:prod} < 0.5",
        0.31,
        0.5,
        ["team:ads", "exchange:pelagic"],
    )
    inc.blame(guilty, [], "ad-stitcher", "configuration_error", [ra, rad, fb, fbd], onset)
    return inc


def xh39_transcript_keyerror() -> ExtIncident:
    now = ts("2027-06-22T08:15")
    inc = ExtIncident(
        "xh39-transcript-keyerror",
        "feed-builder 5xx ratio above 5%",
        """A feed-builder commit emits a podcast:transcript tag per item with
        episode.transcript.url, but most episodes have no transcript (nil), so
        LongwaveFeeds.RSS.Item.transcript_tag/1 raises KeyError and the whole feed render fails
        with a 500 for every show with an episode lacking a transcript. The CDN serves stale
        copies for five minutes, then podcast apps get 500s. Shipped at 06:58 with an innocent
        ETag commit. Decoys: that ETag commit, a creator-dashboard deploy at 06:40 adding the
        transcript upload UI, and a transcode-worker deploy at 07:10 (after the onset) about
        transcript generation. Category: code_defect.""",
        now,
        LONGWAVE,
        seed=6039,
    )
    inc.doc(
        "Runbook: feed errors",
        """Podcast apps poll feeds every 15-60 minutes; Apple marks a show's feed as failing after
repeated errors and stops refreshing it. The CDN serves a stale feed for up to 5 minutes on a
5xx. Crash reports are in `crash_reason`. Rollback: `lwctl rollback feed-builder --to <version>`.""",
    )
    inc.noise(every=9)
    inc.background(inc.begin, ts("2027-06-22T05:50"), 9)
    guilty = inc.code(
        ts("2027-06-22T06:32"),
        "feed-builder",
        "feat(rss): emit podcast:transcript for episodes with transcripts",
        "lib/longwave_feeds/rss/item.ex",
        """  def render(episode, show) do
    [
      enclosure(episode, show),
      guid(episode),
      itunes_duration(episode)
    ]
  end""",
        """  def render(episode, show) do
    [
      enclosure(episode, show),
      guid(episode),
      itunes_duration(episode),
      transcript_tag(episode)
    ]
  end

  defp transcript_tag(episode) do
    element("podcast:transcript", url: episode.transcript.url, type: "text/vtt")
  end""",
        58,
        author="mkaur",
    )
    etag = inc.code(
        ts("2027-06-22T06:44"),
        "feed-builder",
        "perf(feeds): weak ETag on feed responses",
        "lib/longwave_feeds_web/controllers/feed_controller.ex",
        '    conn |> put_resp_content_type("application/rss+xml") |> send_resp(200, xml)',
        '    conn\n    |> put_resp_content_type("application/rss+xml")\n    |> put_resp_header("etag", ~s(W/"#{:erlang.phash2(xml)}"))\n    |> send_resp(200, xml)',
        31,
        author="ines.valle",
    )
    fd = inc.deploy(ts("2027-06-22T06:58"), "feed-builder")
    ui = inc.code(
        ts("2027-06-22T06:05"),
        "creator-dashboard",
        "feat(episodes): upload a transcript (VTT/SRT) with an episode",
        "app/views/episodes/_form.html.erb",
        "  <%= f.file_field :audio %>",
        '  <%= f.file_field :audio %>\n  <%= f.file_field :transcript, accept: ".vtt,.srt" %>',
        22,
        author="sven.h",
    )
    uid = inc.deploy(ts("2027-06-22T06:40"), "creator-dashboard")
    tw = inc.code(
        ts("2027-06-22T06:50"),
        "transcode-worker",
        "perf(transcripts): batch whisper segments by 30s",
        "transcode/transcripts.py",
        "SEGMENT_SECONDS = 15",
        "SEGMENT_SECONDS = 30",
        9,
        author="tobi.adeyemi",
    )
    twd = inc.deploy(ts("2027-06-22T07:10"), "transcode-worker")
    onset = ts("2027-06-22T07:00")
    crash = elixir(
        "KeyError",
        "key :url not found in: nil\n\nIf you are using the dot syntax, such as map.field, make sure the left-hand side of the dot is a map",
        [
            (
                "longwave_feeds",
                "3.8.0",
                "lib/longwave_feeds/rss/item.ex",
                69,
                "LongwaveFeeds.RSS.Item.transcript_tag/1",
            ),
            (
                "longwave_feeds",
                "3.8.0",
                "lib/longwave_feeds/rss/item.ex",
                64,
                "LongwaveFeeds.RSS.Item.render/2",
            ),
            ("elixir", "1.16.2", "lib/enum.ex", 1700, 'Enum."-map/2-lists^map/1-1-"/2'),
            (
                "longwave_feeds",
                "3.8.0",
                "lib/longwave_feeds/rss/channel.ex",
                41,
                "LongwaveFeeds.RSS.Channel.render/1",
            ),
            (
                "longwave_feeds",
                "3.8.0",
                "lib/longwave_feeds_web/controllers/feed_controller.ex",
                24,
                "LongwaveFeedsWeb.FeedController.show/2",
            ),
        ],
    )
    slugs = [
        "the-long-field",
        "night-shift",
        "sable-hill-sessions",
        "kitchen-table-econ",
        "bureau-files",
        "low-tide",
    ]
    inc.errors(
        "feed-builder",
        onset,
        now,
        2.5,
        lambda r: f"GET /feeds/{r.choice(slugs)}.xml - Sent 500 in {r.randint(9, 40)}ms",
        crash_reason=crash,
        mfa="LongwaveFeeds.RSS.Item.transcript_tag/1",
    )
    inc.metric(
        "phoenix_endpoint_responses_per_second",
        "feed-builder",
        lambda t: 0.3 if t < onset else 71.0,
        labels={"status": "500"},
        jitter=0.08,
    )
    inc.metric(
        "cdn_stale_served_ratio",
        "feed-builder",
        step(onset, 0.002, 0.18),
        labels={"path": "/feeds/*"},
        jitter=0.08,
        digits=4,
    )
    inc.fleet(feed_builder={"err": add(step(onset, 0, 0.23))})
    inc.alert = alerts.grafana(
        "feed-builder 5xx ratio above 5%",
        "feed-builder",
        ts("2027-06-22T07:16"),
        "critical",
        "Publishing / feed-builder",
        "23.4%",
        team="publishing",
    )
    inc.blame(guilty, [fd], "feed-builder", "code_defect", [etag, ui, uid, tw, twd], onset)
    return inc


def xh40_scratch_mkdtemp_leak() -> ExtIncident:
    now = ts("2027-06-29T15:10")
    inc = ExtIncident(
        "xh40-scratch-mkdtemp-leak",
        "TranscodeJobsFailing: transcode-worker failures above 10%",
        """A transcode-worker refactor replaced `with tempfile.TemporaryDirectory()` by
        `tempfile.mkdtemp(dir=SCRATCH)` in the two-pass loudness step and never removes the
        directory, so every episode leaves its decoded WAV (hundreds of MB) on /scratch. From
        the 04:05 deploy the scratch volume fills steadily for ten hours with no errors; at
        14:38 it is full and every job fails with ENOSPC. Decoys: a transcode-worker deploy at
        13:50 adding an HE-AAC rendition, and a creator-dashboard deploy at 14:20 allowing 4 GB
        WAV uploads (shares the words, lands right before the errors). Category: code_defect.""",
        now,
        LONGWAVE,
        seed=6040,
        hours=12,
    )
    inc.doc(
        "Runbook: transcode failures",
        """Each transcode-worker pod has a 200 GiB local SSD at /scratch for decoded audio; a job
needs up to 3x the upload's size while it runs and cleans up after itself. Failed jobs retry 3
times, then the episode shows 'processing failed' to the creator. Emptying /scratch:
`kubectl exec <pod> -- find /scratch -mindepth 1 -mmin +60 -delete`.""",
    )
    inc.noise(every=14)
    inc.background(inc.begin, ts("2027-06-29T03:00"), 6)
    guilty = inc.code(
        ts("2027-06-29T03:20"),
        "transcode-worker",
        "refactor(loudness): keep the decoded WAV on /scratch between loudnorm passes",
        "transcode/loudness.py",
        """def normalise(upload: Path) -> Path:
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        wav = decode_to_wav(upload, Path(tmp) / "decoded.wav")
        stats = loudnorm_pass1(wav)
        return loudnorm_pass2(wav, stats, out_dir=OUTPUT)""",
        """def normalise(upload: Path) -> Path:
    tmp = Path(tempfile.mkdtemp(dir=SCRATCH, prefix="ln-"))
    wav = decode_to_wav(upload, tmp / "decoded.wav")
    stats = loudnorm_pass1(wav)
    return loudnorm_pass2(wav, stats, out_dir=OUTPUT)""",
        41,
        author="tobi.adeyemi",
    )
    gd = inc.deploy(ts("2027-06-29T04:05"), "transcode-worker")
    inc.background(
        ts("2027-06-29T04:30"),
        ts("2027-06-29T12:30"),
        7,
        ["dl-edge", "feed-builder", "analytics-ingest", "ad-stitcher"],
    )
    aac = inc.code(
        ts("2027-06-29T13:22"),
        "transcode-worker",
        "feat(renditions): HE-AAC 48k rendition for low-bandwidth listeners",
        "transcode/renditions.py",
        'RENDITIONS = [("mp3", "128k"), ("aac", "96k")]',
        'RENDITIONS = [("mp3", "128k"), ("aac", "96k"), ("aac_he", "48k")]',
        7,
        author="mkaur",
    )
    ad = inc.deploy(ts("2027-06-29T13:50"), "transcode-worker")
    wav = inc.code(
        ts("2027-06-29T13:58"),
        "creator-dashboard",
        "feat(uploads): accept WAV uploads up to 4 GB",
        "config/initializers/uploads.rb",
        "MAX_UPLOAD_BYTES = 2.gigabytes",
        "MAX_UPLOAD_BYTES = 4.gigabytes",
        3,
        author="sven.h",
    )
    wd = inc.deploy(ts("2027-06-29T14:20"), "creator-dashboard")
    onset = ts("2027-06-29T04:07")
    full = ts("2027-06-29T14:38")
    tb = py_stack(
        "OSError",
        "[Errno 28] No space left on device",
        [
            ("/app/transcode/worker.py", 88, "handle", "output = loudness.normalise(upload)"),
            (
                "/app/transcode/loudness.py",
                43,
                "normalise",
                'wav = decode_to_wav(upload, tmp / "decoded.wav")',
            ),
            (
                "/app/transcode/ffmpeg.py",
                61,
                "decode_to_wav",
                "shutil.copyfileobj(proc.stdout, out, 1 << 20)",
            ),
            ("/usr/local/lib/python3.12/shutil.py", 203, "copyfileobj", "fdst_write(buf)"),
        ],
    )
    inc.errors(
        "transcode-worker",
        full,
        now,
        0.5,
        lambda r: (
            f"job ep_{r.randint(70000, 79999)} failed (attempt {r.randint(1, 3)}/3): [Errno 28] No space left on device"
        ),
        exc_info=tb,
        logger="transcode.worker",
    )
    inc.errors(
        "creator-dashboard",
        full + 15 * MINUTE,
        now,
        0.2,
        lambda r: (
            f"method=GET path=/shows/{r.randint(1000, 9999)}/episodes/ep_{r.randint(70000, 79999)} status=200 duration=88.20 episode_state=processing_failed"
        ),
        level="WARNING",
    )
    used = ramp(onset, full, 0.06, 1.0)
    for pct in (80, 85, 90, 95):
        when = onset + (full - onset) * ((pct / 100 - 0.06) / 0.94)
        inc.log(
            when,
            "transcode-worker",
            "WARNING",
            f"/scratch usage {pct}% (free {200 * (100 - pct) // 100} GiB), jobs continue",
            logger="transcode.diskcheck",
        )
    for pod in ("transcode-worker-7c9d4-b2k8p", "transcode-worker-7c9d4-h6q1z"):
        inc.metric(
            "node_filesystem_used_ratio",
            "transcode-worker",
            used,
            labels={"mountpoint": "/scratch", "pod": pod},
            jitter=0.01,
            digits=4,
        )
    inc.metric(
        "transcode_scratch_dirs",
        "transcode-worker",
        lambda t: 2 if t < onset else 2 + 0.3 * (t - onset).total_seconds() / 60,
        jitter=0.02,
        digits=0,
    )
    inc.fleet(transcode_worker={"err": add(step(full, 0, 0.9))})
    inc.alert = alerts.alertmanager(
        "TranscodeJobsFailing",
        "transcode-worker",
        ts("2027-06-29T14:55"),
        "critical",
        "transcode-worker failures above 10%",
        "91% of transcode jobs failed in the last 15 minutes.",
        'sum(rate(transcode_jobs_total{result="failed"}[15m])) / sum(rate(transcode_jobs_total[15m])) > 0.1',
        team="media",
    )
    inc.blame(guilty, [gd], "transcode-worker", "code_defect", [aac, ad, wav, wd], onset)
    return inc


def xh41_season_drop_surge() -> ExtIncident:
    now = ts("2027-07-06T06:10")
    inc = ExtIncident(
        "xh41-season-drop-surge",
        "DlEdgeHighLatency: dl-edge p99 above 500ms",
        """The Midnight Bureau (2.1 million followers) released all eight episodes of its fourth
        season at 05:00 UTC. Downloads jump six-fold; dl-edge scales to its HPA maximum of 24
        pods by 05:06, CPU saturates, p99 climbs from 45 ms to about 2 s and the load shedder
        answers 503 above 512 in-flight requests per pod. Decoys: a dl-edge deploy at 04:48
        logging listener country (its own, innocent), an ad-stitcher deploy, and a config change
        at 05:20 (after the onset) raising maxReplicas to 48 as mitigation. Category:
        resource_exhaustion.""",
        now,
        LONGWAVE,
        seed=6041,
    )
    inc.doc(
        "Publishing calendar, week 27",
        """- 2027-07-06 05:00 UTC: The Midnight Bureau (Sable Hill Audio), season 4, all 8
  episodes at once (binge drop), 2.1M followers; Apple and Spotify features the same morning.
- 2027-07-08 10:00 UTC: Kitchen Table Economics weekly episode.""",
    )
    inc.doc(
        "Runbook: dl-edge latency",
        """dl-edge autoscales on CPU (HPA min 6, max 24 pods, target 60%). Above 512 in-flight requests
a pod sheds load with 503 + Retry-After. A big release raises downloads for a few hours: check
the publishing calendar, then raise maxReplicas (`deploy/dl-edge/hpa.yaml`) and warm the CDN.""",
    )
    inc.noise(every=9)
    inc.background(inc.begin, ts("2027-07-06T04:00"), 9)
    geo = inc.code(
        ts("2027-07-06T04:21"),
        "dl-edge",
        "feat(edge): log listener country for IAB geo reports",
        "internal/serve/enclosure.go",
        '\tlogger.Info("served", "status", code, "dur", d)',
        '\tlogger.Info("served", "status", code, "dur", d, "country", geoip.Country(r))',
        212,
        author="ines.valle",
    )
    gd = inc.deploy(ts("2027-07-06T04:48"), "dl-edge")
    sc = inc.code(
        ts("2027-07-06T04:30"),
        "ad-stitcher",
        "perf(stitch): reuse the decoded pre-roll across requests",
        "src/stitch/cache.rs",
        "const PREROLL_CACHE_ENTRIES: usize = 256;",
        "const PREROLL_CACHE_ENTRIES: usize = 1024;",
        12,
        author="tobi.adeyemi",
    )
    sd = inc.deploy(ts("2027-07-06T04:55"), "ad-stitcher")
    onset = ts("2027-07-06T05:00")
    hpa = inc.config(
        ts("2027-07-06T05:20"),
        "dl-edge",
        "dl-edge: maxReplicas 24 -> 48 for the Midnight Bureau drop",
        "deploy/dl-edge/hpa.yaml",
        "spec:\n  minReplicas: 6\n  maxReplicas: 24",
        "spec:\n  minReplicas: 6\n  maxReplicas: 48",
        author="mkaur",
    )
    surge: Shape = lambda t: 1.0 if t < onset else (6.0 if t < onset + 90 * MINUTE else 4.5)  # noqa: E731
    inc.errors(
        "dl-edge",
        onset + 5 * MINUTE,
        now,
        lambda f: 3.0 if f < 0.3 else 1.6,
        lambda r: _logfmt(
            "error",
            "load shed",
            status=503,
            inflight=512,
            limit=512,
            path=f"/e/midnight-bureau/s4e{r.randint(1, 8)}.mp3",
            retry_after="2s",
            pod=f"dl-edge-5f6c8-{r.choice('abcdfghk')}{r.randint(10, 99)}",
        ),
    )
    inc.errors(
        "dl-edge",
        onset + 2 * MINUTE,
        onset + 8 * MINUTE,
        1.0,
        lambda r: (
            f"HPA dl-edge: scaled to {r.choice([12, 18, 24])} replicas (cpu 97% / target 60%)"
        ),
        level="INFO",
    )
    inc.log(
        onset + 6 * MINUTE,
        "dl-edge",
        "WARNING",
        "HPA dl-edge: desired replicas 41 capped at maxReplicas 24",
    )
    inc.errors(
        "ad-stitcher",
        onset + 8 * MINUTE,
        now,
        0.4,
        lambda r: (
            f"WARN ad_stitcher::server: request queue above 800, p99 {r.randint(900, 1500)}ms"
        ),
        level="WARNING",
    )
    inc.metric(
        "kube_hpa_status_current_replicas",
        "dl-edge",
        lambda t: 8 if t < onset else (24 if t >= onset + 6 * MINUTE else 14),
        labels={"hpa": "dl-edge"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "kube_hpa_spec_max_replicas",
        "dl-edge",
        lambda t: 24 if t < ts("2027-07-06T05:20") else 48,
        labels={"hpa": "dl-edge"},
        jitter=0,
        digits=0,
    )
    inc.metric(
        "container_cpu_utilisation_ratio",
        "dl-edge",
        lambda t: 0.52 if t < onset else 0.97,
        jitter=0.03,
    )
    inc.metric(
        "dl_edge_inflight_requests",
        "dl-edge",
        lambda t: 70 if t < onset else 505,
        jitter=0.04,
        digits=0,
    )
    inc.metric(
        "feed_polls_per_second",
        "feed-builder",
        lambda t: 300 * (1 if t < onset else 2.2),
        jitter=0.05,
        digits=0,
    )
    inc.fleet(
        dl_edge={
            "rps": times(lambda t: min(surge(t), 3.4)),
            "err": add(step(onset + 5 * MINUTE, 0, 0.14)),
            "p99": add(step(onset, 0, 1900)),
        },
        ad_stitcher={"rps": times(surge), "p99": add(step(onset, 0, 900))},
    )
    inc.alert = alerts.alertmanager(
        "DlEdgeHighLatency",
        "dl-edge",
        ts("2027-07-06T05:14"),
        "critical",
        "dl-edge p99 above 500ms",
        "dl-edge p99 latency is 1.94s (threshold 500ms) for 10 minutes.",
        'histogram_quantile(0.99, sum by (le) (rate(http_server_duration_seconds_bucket{service="dl-edge"}[5m]))) > 0.5',
        team="delivery",
    )
    inc.outside(
        "download surge from The Midnight Bureau season 4 binge drop (about 6x), dl-edge capped at HPA maxReplicas 24",
        "dl-edge",
        "resource_exhaustion",
        [geo, gd, sc, sd, hpa],
        onset,
    )
    return inc


def xh42_dashboard_timeouts_unexplained() -> ExtIncident:
    now = ts("2027-07-13T20:30")
    inc = ExtIncident(
        "xh42-dashboard-timeouts-unexplained",
        "creator-dashboard: request timeouts",
        """From 19:40 creator-dashboard requests time out (Rack::Timeout after 15 s) on every
        kind of page, intermittently and still now, a few per minute. Its database, Redis and
        the services it calls look normal, there is no deploy of it near the onset beyond a
        copy change hours earlier, and nothing in the logs, metrics or changes explains the
        stalls. Decoys: that copy change's deploy at 18:55, a feed-builder deploy at 19:15 and an
        analytics-ingest config change at 19:32. Category: unknown.""",
        now,
        LONGWAVE,
        seed=6042,
    )
    inc.doc(
        "Runbook: creator-dashboard",
        """Puma, 6 pods x 4 workers x 5 threads, Rack::Timeout 15 s. Database: creatordb (PostgreSQL 15,
pool 5 per worker). Redis for sessions and Sidekiq. Timeouts usually come from a slow query
(check creatordb's slow log and pg_stat_activity) or from analytics queries against the
warehouse (the analytics page only).""",
    )
    inc.noise(every=9)
    inc.background(inc.begin, ts("2027-07-13T18:00"), 10)
    copy = inc.code(
        ts("2027-07-13T18:31"),
        "creator-dashboard",
        "fix(i18n): payout page copy for Brazilian Portuguese",
        "config/locales/pt-BR.yml",
        '    payouts:\n      title: "Pagamentos"\n      next: "Próximo pagamento em %{date}"',
        '    payouts:\n      title: "Pagamentos"\n      next: "Seu próximo pagamento será em %{date}"',
        212,
        author="sven.h",
    )
    cd = inc.deploy(ts("2027-07-13T18:55"), "creator-dashboard")
    fb = inc.code(
        ts("2027-07-13T18:50"),
        "feed-builder",
        "feat(rss): podcast:funding tag from the show's support link",
        "lib/longwave_feeds/rss/channel.ex",
        "    |> persons(show.hosts)",
        "    |> persons(show.hosts)\n    |> funding(show.support_url)",
        90,
        author="ines.valle",
    )
    fbd = inc.deploy(ts("2027-07-13T19:15"), "feed-builder")
    ai = inc.config(
        ts("2027-07-13T19:32"),
        "analytics-ingest",
        "analytics-ingest: flush window 5m -> 10m",
        "deploy/analytics-ingest/values-prod.yaml",
        "flush:\n  window: 5m\n  maxRows: 200000",
        "flush:\n  window: 10m\n  maxRows: 200000",
        author="mkaur",
    )
    onset = ts("2027-07-13T19:40")
    paths = [
        "/shows/{}/episodes",
        "/shows/{}/analytics",
        "/payouts",
        "/shows/{}/episodes/new",
        "/shows/{}",
        "/account/settings",
    ]

    def timeout(r: random.Random) -> str:
        path = r.choice(paths).format(r.randint(1000, 9999))
        return f"method=GET path={path} status=503 duration=15003.22 error='Rack::Timeout::RequestTimeoutException: Request waited 3ms, then ran for longer than 15000ms'"

    inc.errors(
        "creator-dashboard",
        onset,
        now,
        lambda f: 1.6 if f < 0.5 else 1.1,
        timeout,
        exception=[
            "Rack::Timeout::RequestTimeoutException",
            "Request waited 3ms, then ran for longer than 15000ms",
        ],
        backtrace=ruby(
            [
                (
                    "/usr/local/bundle/gems/puma-6.4.2/lib/puma/thread_pool.rb",
                    155,
                    "block in spawn_thread",
                ),
                (
                    "/usr/local/bundle/gems/rack-timeout-0.7.0/lib/rack/timeout/core.rb",
                    148,
                    "block in call",
                ),
                (
                    "/usr/local/bundle/gems/actionpack-7.1.3.4/lib/action_dispatch/middleware/executor.rb",
                    14,
                    "call",
                ),
            ]
        )[::-1],
    )
    inc.metric(
        "pg_stat_activity_count",
        "creator-dashboard",
        lambda t: 38,
        labels={"datname": "creatordb", "state": "active"},
        jitter=0.15,
        digits=0,
    )
    inc.metric(
        "pg_slow_queries_per_minute",
        "creator-dashboard",
        lambda t: 0.4,
        labels={"datname": "creatordb"},
        jitter=0.5,
        digits=1,
    )
    inc.metric(
        "redis_commands_duration_p99_ms",
        "creator-dashboard",
        lambda t: 1.2,
        labels={"instance": "dashboard-redis"},
        jitter=0.1,
        digits=2,
    )
    inc.metric("puma_busy_threads_ratio", "creator-dashboard", step(onset, 0.35, 0.55), jitter=0.08)
    inc.fleet(
        creator_dashboard={"err": add(step(onset, 0, 0.012)), "p99": add(step(onset, 0, 9000))}
    )
    inc.alert = alerts.grafana(
        "creator-dashboard: request timeouts",
        "creator-dashboard",
        ts("2027-07-13T20:02"),
        "warning",
        "Creators / creator-dashboard",
        "1.2% of requests timed out",
        team="creators",
    )
    inc.unexplained("creator-dashboard", [copy, cd, fbd, ai, fb], onset)
    return inc


HELDOUT = [
    xh31_drought_surcharge_null,
    xh32_ami_cpu_limit,
    xh33_clarion_sms_outage,
    xh34_north_tunnel_down,
    xh35_dma17_flushing,
    xh36_meter_clock_poison,
    xh37_lwkit_suffix_range,
    xh38_prefetch_all_breaks,
    xh39_transcript_keyerror,
    xh40_scratch_mkdtemp_leak,
    xh41_season_drop_surge,
    xh42_dashboard_timeouts_unexplained,
]
