"""Building blocks of the frozen root-cause incidents (`evals/rca/build.py` writes them).

An `Incident` collects what an organization would have sent to Sleuth before the investigation:
knowledge documents, log records, metric series and change records, plus the alert and the ground
truth. Everything random comes from one seeded `random.Random`, so a build is reproducible.
"""

from __future__ import annotations

import difflib
import json
import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

MINUTE = timedelta(minutes=1)
AUTHORS = (
    "maria.keller",
    "j.okafor",
    "priya.raman",
    "tomas.novak",
    "li.wei",
    "sam.ortiz",
    "renovate[bot]",
    "anna.berg",
    "kofi.mensah",
    "dmitri.v",
    "hana.sato",
    "oliver.grant",
)


def ts(text: str) -> datetime:
    """``"2026-03-04T10:00"`` as an aware UTC datetime."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def iso(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_ms(t: datetime) -> str:
    t = t.astimezone(UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def udiff(path: str, old: str, new: str, line: int = 1) -> str:
    """A unified diff of one file (``line``: where the snippet starts in the file)."""
    lines = list(
        difflib.unified_diff(
            old.strip("\n").splitlines(),
            new.strip("\n").splitlines(),
            f"a/{path}",
            f"b/{path}",
            lineterm="",
            n=3,
        )
    )

    def shift(match: re.Match[str]) -> str:
        a, b, c, d = (int(g) if g else 1 for g in match.groups())
        return f"@@ -{a + line - 1},{b} +{c + line - 1},{d} @@"

    out = [
        re.sub(r"^@@ -(\d+),?(\d*) \+(\d+),?(\d*) @@", shift, x) if x.startswith("@@") else x
        for x in lines
    ]
    return f"diff --git a/{path} b/{path}\n" + "\n".join(out) + "\n"


@dataclass
class Svc:
    """A service of the incident's fleet and what its healthy logs and metrics look like."""

    name: str
    kind: str = "api"  # api | worker | web
    paths: tuple[str, ...] = ("/healthz",)
    topic: str = "events"
    rps: float = 40.0
    p99: float = 180.0
    err: float = 0.002
    pkg: str = ""
    noun: str = "item"

    def __post_init__(self) -> None:
        if not self.pkg:
            self.pkg = self.name.replace("-", "_")


@dataclass
class Incident:
    id: str
    title: str
    story: str
    now: datetime
    services: Sequence[Svc]
    seed: int
    start: datetime | None = None
    step: int = 4  # minutes between metric points
    knowledge: list[dict[str, str]] = field(default_factory=list)
    logs: list[dict[str, Any]] = field(default_factory=list)
    series: list[dict[str, Any]] = field(default_factory=list)
    changes: list[dict[str, Any]] = field(default_factory=list)
    alert: dict[str, Any] = field(default_factory=dict)
    truth: dict[str, Any] = field(default_factory=dict)
    onset: datetime | None = None  # when the failure began (not when the alert fired)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        if self.start is None:
            self.start = self.now - timedelta(hours=7)
        self._svc = {s.name: s for s in self.services}
        self._pending: dict[str, list[str]] = {}
        self._version = {
            s.name: [self.rng.randint(1, 6), self.rng.randint(10, 40), 0] for s in self.services
        }

    @property
    def begin(self) -> datetime:
        assert self.start is not None
        return self.start

    # --- knowledge --------------------------------------------------------------------------

    def doc(self, title: str, content: str) -> None:
        self.knowledge.append({"title": title, "content": content.strip() + "\n"})

    def catalog(self, lines: dict[str, str]) -> None:
        """A service-catalog document: each service, its owner and what it calls."""
        body = ["Service catalog (owners, dependencies). Kept up to date by the platform team.", ""]
        for name, text in lines.items():
            body.append(f"- {name}: {text}")
        self.doc("Service catalog", "\n".join(body))

    # --- logs -------------------------------------------------------------------------------

    def log(self, t: datetime, service: str, level: str, message: str, **attributes: Any) -> None:
        self.logs.append(
            {
                "timestamp": iso_ms(t),
                "service": service,
                "level": level,
                "message": message,
                "attributes": attributes,
            }
        )

    def noise(self, every: float = 9.0, until: datetime | None = None) -> None:
        """Healthy INFO traffic of every service from ``start`` to ``now``, with the odd unrelated
        warning or error a healthy fleet logs."""
        r = self.rng
        end = until or self.now
        for s in self.services:
            t = self.begin + timedelta(seconds=r.uniform(0, 120))
            while t < end:
                self.log(t, s.name, "INFO", self._info(s), **self._attrs(s))
                if r.random() < 0.035:
                    level, message = self._stray(s)
                    self.log(t + timedelta(seconds=r.uniform(1, 50)), s.name, level, message)
                t += timedelta(seconds=r.expovariate(1 / (every * 60)) + 20)

    def _attrs(self, s: Svc) -> dict[str, Any]:
        r = self.rng
        return {
            "pod": f"{s.name}-{r.choice(['7f9c4', '6d2b8', '58ac1'])}-{r.choice('abcdxyz')}{r.randint(10, 99)}",
            "trace_id": f"{r.getrandbits(64):016x}",
        }

    def _info(self, s: Svc) -> str:
        r = self.rng
        ms = int(r.lognormvariate(math.log(s.p99 / 4), 0.5))
        if s.kind == "worker":
            choices = [
                f"processed batch of {r.randint(20, 400)} messages from {s.topic} in {ms}ms",
                f"committed offsets for {s.topic} partition {r.randint(0, 11)}",
                f"{s.noun} job {r.getrandbits(32):08x} completed in {ms}ms",
            ]
        else:
            path = r.choice(s.paths)
            method = "GET" if r.random() < 0.7 else "POST"
            choices = [
                f"{method} {path} 200 {ms}ms",
                f"{method} {path} 200 {ms}ms",
                f"{method} {path} {r.choice([200, 201, 204])} {ms}ms",
            ]
        choices += [
            "health check ok",
            f"refreshed feature flags ({r.randint(30, 60)} flags)",
            f"db pool stats in_use={r.randint(1, 6)} idle={r.randint(4, 10)} size=20",
        ]
        return r.choice(choices)

    def _stray(self, s: Svc) -> tuple[str, str]:
        r = self.rng
        return r.choice(
            [
                ("WARNING", f"slow request GET {r.choice(s.paths)} took {r.randint(1500, 4000)}ms"),
                ("WARNING", "deprecated client header X-Client-Version=4.2.0 (mobile-android)"),
                ("WARNING", f"retrying publish to {s.topic} (attempt 2/5)"),
                ("ERROR", "failed to push metrics to statsd-exporter:9125: connection refused"),
                ("WARNING", "feature flag refresh took 2.4s (threshold 2s)"),
                (
                    "ERROR",
                    f"request validation failed: field 'email' invalid ({r.randint(1, 3)} errors)",
                ),
                ("WARNING", "GC pause 412ms exceeded 250ms target"),
                (
                    "INFO",
                    "received SIGTERM from kubelet during node drain; finishing in-flight requests",
                ),
            ]
        )

    def burst(
        self,
        service: str,
        begin: datetime,
        end: datetime,
        per_min: float | Callable[[float], float],
        make: Callable[[random.Random, datetime], tuple[str, str, dict[str, Any]]],
    ) -> None:
        """Records from ``make(rng, t)`` at ``per_min`` a minute (a number, or a function of the
        fraction of the way from ``begin`` to ``end``)."""
        r = self.rng
        total = (end - begin).total_seconds()
        t = begin + timedelta(seconds=r.uniform(0, 20))
        while t < end:
            frac = (t - begin).total_seconds() / total
            rate = per_min(frac) if callable(per_min) else per_min
            level, message, attrs = make(r, t)
            self.log(t, service, level, message, **attrs)
            gap = r.expovariate(max(rate, 0.01) / 60)
            t += timedelta(seconds=min(gap, 900) + 0.05)

    # --- metrics ----------------------------------------------------------------------------

    def metric(
        self,
        name: str,
        service: str,
        fn: Callable[[datetime], float],
        labels: dict[str, str] | None = None,
        jitter: float = 0.05,
        digits: int = 3,
    ) -> None:
        r = self.rng
        points = []
        t = self.begin
        while t <= self.now:
            v = fn(t) * (1 + r.gauss(0, jitter))
            points.append([iso(t), round(max(v, 0.0), digits)])
            t += timedelta(minutes=self.step)
        self.series.append(
            {"name": name, "service": service, "labels": labels or {}, "points": points}
        )

    def red(
        self,
        service: str,
        rps: Callable[[datetime, float], float] | None = None,
        err: Callable[[datetime, float], float] | None = None,
        p99: Callable[[datetime, float], float] | None = None,
    ) -> None:
        """Request rate, error ratio and p99 latency of ``service`` (each modifiable: a function of
        the time and the healthy value)."""
        s = self._svc[service]
        day = self.begin

        def diurnal(t: datetime) -> float:
            return 1 + 0.15 * math.sin((t - day).total_seconds() / 3600 / 24 * 2 * math.pi * 3)

        names = (
            (
                "messages_processed_per_second",
                "processing_error_ratio",
                "processing_duration_p99_ms",
            )
            if s.kind == "worker"
            else ("http_requests_per_second", "http_error_ratio", "http_request_duration_p99_ms")
        )
        self.metric(
            names[0], service, lambda t: (rps or (lambda t, v: v))(t, s.rps * diurnal(t)), digits=2
        )
        self.metric(
            names[1], service, lambda t: (err or (lambda t, v: v))(t, s.err), jitter=0.3, digits=4
        )
        self.metric(
            names[2], service, lambda t: (p99 or (lambda t, v: v))(t, s.p99), jitter=0.08, digits=1
        )

    # --- changes ----------------------------------------------------------------------------

    def _sha(self) -> str:
        return f"{self.rng.getrandbits(40):010x}"

    def commit(
        self,
        t: datetime,
        service: str,
        summary: str,
        diffs: Sequence[tuple[str, str, str] | tuple[str, str, str, int]],
        author: str | None = None,
        cid: str | None = None,
        deploy_with: str | None = None,
    ) -> str:
        """A commit (``diffs``: ``(path, old, new[, line])``), queued for ``service``'s next
        deploy (or ``deploy_with``'s)."""
        cid = cid or self._sha()
        text = "".join(udiff(*d) for d in diffs)  # type: ignore[arg-type]
        self.changes.append(
            {
                "timestamp": iso(t),
                "service": service,
                "kind": "commit",
                "id": cid,
                "summary": summary,
                "author": author or self.rng.choice(AUTHORS),
                "url": f"https://git.example.com/{service}/commit/{cid}",
                "files": [d[0] for d in diffs],
                "diff": text,
            }
        )
        self._pending.setdefault(deploy_with or service, []).append(cid)
        return cid

    def deploy(
        self,
        t: datetime,
        service: str,
        version: str | None = None,
        ships: Sequence[str] | None = None,
        summary: str | None = None,
        author: str = "deploy-bot",
        did: str | None = None,
    ) -> str:
        """A deploy of ``service`` shipping ``ships`` (default: its queued commits)."""
        if ships is None:
            ships = self._pending.pop(service, [])
        else:
            queued = self._pending.get(service, [])
            self._pending[service] = [c for c in queued if c not in ships]
        did = did or f"deploy-{service}-{t:%Y%m%d-%H%M}"
        if version is None:
            v = self._version.setdefault(service, [1, 0, 0])
            v[1] += 1
            version = f"v{v[0]}.{v[1]}.{v[2]}"
        self.changes.append(
            {
                "timestamp": iso(t),
                "service": service,
                "kind": "deploy",
                "id": did,
                "summary": summary
                or f"Deploy {service} {version} to production ({len(ships)} commits)",
                "author": author,
                "url": f"https://ci.example.com/deploys/{did}",
                "files": [],
                "diff": "",
                "ships": list(ships),
            }
        )
        return did

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
        fid = fid or f"flag-{name.replace('.', '-')}-{t:%H%M}"
        path = f"flags/{name}.yaml"
        self.changes.append(
            {
                "timestamp": iso(t),
                "service": service,
                "kind": "flag",
                "id": fid,
                "summary": summary,
                "author": author or self.rng.choice(AUTHORS),
                "url": f"https://flags.example.com/flags/{name}/history",
                "files": [path],
                "diff": udiff(path, f"key: {name}\n{old}", f"key: {name}\n{new}"),
            }
        )
        return fid

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
        cid = cid or f"cfg-{service}-{t:%m%d%H%M}"
        self.changes.append(
            {
                "timestamp": iso(t),
                "service": service,
                "kind": "config",
                "id": cid,
                "summary": summary,
                "author": author or self.rng.choice(AUTHORS),
                "url": f"https://git.example.com/infra-config/commit/{cid}",
                "files": [path],
                "diff": udiff(path, old, new, line),
            }
        )
        return cid

    def background(
        self, begin: datetime, end: datetime, n: int, services: Sequence[str] | None = None
    ) -> list[str]:
        """``n`` everyday commits (dependency bumps, docs, tests, metrics, tidying) spread over
        ``[begin, end)`` with a deploy of each touched service some minutes after its commits."""
        r = self.rng
        names = list(services or self._svc)
        span = (end - begin).total_seconds()
        made: list[str] = []
        times = sorted(begin + timedelta(seconds=r.uniform(0, span)) for _ in range(n))
        for t in times:
            s = self._svc[r.choice(names)]
            summary, diffs = everyday_commit(r, s)
            made.append(self.commit(t, s.name, summary, diffs))
            if r.random() < 0.45 and t + timedelta(minutes=20) < end:
                when = t + timedelta(minutes=r.randint(8, 25))
                made.append(self.deploy(when, s.name))
        return made

    # --- output -----------------------------------------------------------------------------

    def payload(self) -> dict[str, Any]:
        self.logs.sort(key=lambda x: x["timestamp"])
        self.changes.sort(key=lambda x: x["timestamp"])
        return {
            "id": self.id,
            "title": self.title,
            "story": " ".join(self.story.split()),
            "now": iso(self.now),
            "alert": self.alert,
            "knowledge": self.knowledge,
            "logs": {"records": self.logs},
            "metrics": {"series": self.series},
            "changes": {"records": self.changes},
            "truth": {**self.truth, "onset": iso(self.onset) if self.onset else None},
        }


def everyday_commit(r: random.Random, s: Svc) -> tuple[str, list[tuple[str, str, str, int]]]:
    """An innocent, everyday commit for ``s``."""
    pkg, noun = s.pkg, s.noun
    pick = r.randrange(9)
    if pick == 0:
        lib, a, b = r.choice(
            [
                ("pytest", "8.2.1", "8.2.2"),
                ("mypy", "1.10.0", "1.10.1"),
                ("ruff", "0.4.8", "0.4.9"),
                ("freezegun", "1.5.0", "1.5.1"),
                ("coverage", "7.5.3", "7.5.4"),
            ]
        )
        old = f"black==24.4.2\ncoverage==7.5.3\n{lib}=={a}\nhypothesis==6.103.0"
        return f"chore(deps-dev): bump {lib} from {a} to {b}", [
            ("requirements-dev.txt", old, old.replace(f"{lib}=={a}", f"{lib}=={b}"), 3)
        ]
    if pick == 1:
        old = f'{noun.upper()}_LATENCY = Histogram("{noun}_latency_seconds", "time per {noun}")'
        new = (
            old
            + f'\n{noun.upper()}_RETRIES = Counter("{noun}_retries_total", "retries per {noun}")'
        )
        return f"Add {noun}_retries_total counter", [(f"{pkg}/metrics.py", old, new, 14)]
    if pick == 2:
        old = f"def test_{noun}_pagination(client):\n    page = client.get('/{noun}s?page=2')\n    assert page.status_code == 200"
        new = old + "\n    assert len(page.json()['items']) <= 50"
        return f"test: tighten {noun} pagination assertion", [
            (f"tests/test_{noun}_pagination.py", old, new, 20)
        ]
    if pick == 3:
        old = "## Local setup\n\nRun `make dev`."
        new = "## Local setup\n\nRun `make dev`, then `make seed` to load fixtures.\nThe API listens on :8080."
        return f"docs: {s.name} local setup steps", [("README.md", old, new, 8)]
    if pick == 4:
        old = f"import os\nimport json\nimport logging\nfrom {pkg}.models import {noun.title()}"
        new = f"import json\nimport logging\nimport os\n\nfrom {pkg}.models import {noun.title()}"
        return f"style: sort imports in {noun} handlers", [
            (f"{pkg}/handlers/{noun}.py", old, new, 1)
        ]
    if pick == 5:
        old = "metadata:\n  labels:\n    app: " + s.name
        new = old + "\n    team: " + r.choice(["commerce", "platform", "core", "growth"])
        return f"k8s: add team label to {s.name}", [(f"deploy/k8s/{s.name}.yaml", old, new, 3)]
    if pick == 6:
        old = f"# {noun.title()} API\n\nGET /{noun}s returns a page of {noun}s."
        new = (
            old
            + f"\n\nExample:\n\n    curl -H 'Authorization: Bearer …' https://api.example.com/{noun}s?page=1"
        )
        return f"docs: example request for /{noun}s", [(f"docs/api/{noun}.md", old, new, 1)]
    if pick == 7:
        old = f'    def describe(self):\n        return f"{noun} {{self.id}}"'
        new = f'    def __repr__(self):\n        return f"<{noun.title()} {{self.id}}>"'
        return f"Give {noun.title()} a readable repr", [(f"{pkg}/models.py", old, new, 41)]
    old = f"/{s.name}/  @{r.choice(['commerce', 'platform', 'core'])}-team"
    return f"CODEOWNERS: add reviewers for {s.name}", [
        ("CODEOWNERS", old, old + " @sre-oncall", 12)
    ]


def write(incident: dict[str, Any], directory: Path) -> Path:
    """The incident as JSON: one log record, series or change per line (diffable, compact)."""
    lines = ["{"]
    keys = list(incident)
    for i, key in enumerate(keys):
        value = incident[key]
        comma = "," if i < len(keys) - 1 else ""
        if key in ("logs", "metrics", "changes"):
            inner = next(iter(value))
            items = value[inner]
            lines.append(f'  "{key}": {{"{inner}": [')
            for j, item in enumerate(items):
                end = "," if j < len(items) - 1 else ""
                lines.append(
                    "    " + json.dumps(item, separators=(",", ":"), ensure_ascii=False) + end
                )
            lines.append(f"  ]}}{comma}")
        else:
            text = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")
            lines.append(f'  "{key}": {text}{comma}')
    lines.append("}")
    path = directory / f"{incident['id']}.json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
