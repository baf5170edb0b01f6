"""Building blocks of the outside-vocabulary incidents (`evals/rca/ext_build.py` writes them).

Each company (`Company`) brings its own fleet, service catalog, healthy chatter, stray warnings,
commit style, authors and languages; `ExtIncident` is `kit.Incident` speaking that company's
vocabulary, with short helpers for what every story needs (error bursts with stack traces in the
service's language, step and ramp shapes for metrics, the ground truth with a failure category).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from evals.rca.kit import MINUTE, Incident, Svc
from evals.rca.schema import CATEGORIES

Shape = Callable[[datetime], float]


@dataclass
class Company:
    """One company's vocabulary."""

    name: str
    domain: str  # git / ci host names
    services: Sequence[Svc]
    catalog: dict[str, str]
    lang: dict[
        str, str
    ]  # service -> go | java | python | node | rust | elixir | ruby | csharp | php
    authors: Sequence[str]
    style: Callable[[random.Random, str], str]  # commit subject in the house style
    strays: Sequence[tuple[str, str]]  # (level, message) a healthy fleet logs now and then
    chatter: dict[str, Sequence[str]] = field(default_factory=dict)  # extra INFO lines


# --- stack traces in four languages --------------------------------------------------------------


def java_stack(exc: str, message: str, frames: Sequence[tuple[str, str, int]]) -> str:
    """``frames``: ``(qualified.Class.method, File.java, line)``, innermost first."""
    lines = [f"{exc}: {message}"]
    lines += [f"\tat {where}({file}:{line})" for where, file, line in frames]
    lines.append("\t... 42 common frames omitted")
    return "\n".join(lines)


def go_stack(message: str, frames: Sequence[tuple[str, str, int]]) -> str:
    """``frames``: ``(package.Function, /path/file.go, line)``, innermost first."""
    lines = [message, "", "goroutine 1187 [running]:"]
    for func, file, line in frames:
        lines += [f"{func}(...)", f"\t{file}:{line} +0x{line * 7 % 4096:x}"]
    return "\n".join(lines)


def py_stack(exc: str, message: str, frames: Sequence[tuple[str, int, str, str]]) -> str:
    """``frames``: ``(path.py, line, function, source line)``, outermost first."""
    lines = ["Traceback (most recent call last):"]
    for file, line, func, src in frames:
        lines += [f'  File "{file}", line {line}, in {func}', f"    {src}"]
    lines.append(f"{exc}: {message}")
    return "\n".join(lines)


def node_stack(exc: str, message: str, frames: Sequence[tuple[str, str, int, int]]) -> str:
    """``frames``: ``(function, /app/file.js, line, column)``, innermost first."""
    lines = [f"{exc}: {message}"]
    lines += [f"    at {func} ({file}:{line}:{col})" for func, file, line, col in frames]
    return "\n".join(lines)


# --- everyday, innocent commits in each language -------------------------------------------------

# Dependency bumps of the languages beyond the first four: (manifest, line template, choices).
EXTRA_BUMPS: dict[str, tuple[str, str, list[tuple[str, str, str]]]] = {
    "rust": (
        "Cargo.toml",
        '{name} = "{version}"\nserde = {{ version = "1.0", features = ["derive"] }}',
        [
            ("tracing", "0.1.40", "0.1.41"),
            ("tokio", "1.38.0", "1.38.1"),
            ("anyhow", "1.0.86", "1.0.89"),
        ],
    ),
    "elixir": (
        "mix.exs",
        '      {{:{name}, "~> {version}"}},\n      {{:jason, "~> 1.4"}},',
        [
            ("credo", "1.7.6", "1.7.7"),
            ("telemetry", "1.2.1", "1.3.0"),
            ("ex_machina", "2.7.0", "2.8.0"),
        ],
    ),
    "ruby": (
        "Gemfile.lock",
        "    {name} ({version})\n    rack (3.0.11)",
        [
            ("rubocop", "1.64.1", "1.65.0"),
            ("rspec-core", "3.13.0", "3.13.1"),
            ("faker", "3.4.1", "3.4.2"),
        ],
    ),
    "csharp": (
        "Directory.Packages.props",
        '    <PackageVersion Include="{name}" Version="{version}" />',
        [
            ("xunit", "2.8.1", "2.9.0"),
            ("Serilog", "4.0.0", "4.0.1"),
            ("FluentAssertions", "6.12.0", "6.12.1"),
        ],
    ),
    "php": (
        "composer.lock",
        '            "name": "{name}",\n            "version": "{version}",',
        [
            ("phpunit/phpunit", "10.5.20", "10.5.24"),
            ("monolog/monolog", "3.6.0", "3.7.0"),
            ("phpstan/phpstan", "1.11.4", "1.11.5"),
        ],
    ),
}


def everyday(r: random.Random, s: Svc, lang: str) -> tuple[str, list[tuple[str, str, str, int]]]:
    """An everyday commit (dependency bump, docs, test, dashboard, tidying) for ``s``."""
    pick = r.randrange(6)
    if pick == 0:
        if lang == "go":
            mod, a, b = r.choice(
                [
                    ("github.com/stretchr/testify", "v1.9.0", "v1.10.0"),
                    ("go.uber.org/zap", "v1.26.0", "v1.27.0"),
                    ("golang.org/x/sync", "v0.7.0", "v0.8.0"),
                ]
            )
            old = f"require (\n\t{mod} {a}\n\tgithub.com/google/uuid v1.6.0\n)"
            return f"bump {mod.rsplit('/', 1)[-1]} to {b}", [("go.mod", old, old.replace(a, b), 5)]
        if lang == "java":
            art, a, b = r.choice(
                [
                    ("junit-jupiter", "5.10.2", "5.10.3"),
                    ("assertj-core", "3.25.3", "3.26.0"),
                    ("mockito-core", "5.11.0", "5.12.0"),
                ]
            )
            old = f"    <dependency>\n      <artifactId>{art}</artifactId>\n      <version>{a}</version>\n      <scope>test</scope>"
            return f"Bump {art} from {a} to {b}", [("pom.xml", old, old.replace(a, b), 88)]
        if lang == "node":
            pkg, a, b = r.choice(
                [
                    ("eslint", "8.57.0", "8.57.1"),
                    ("vitest", "1.6.0", "1.6.1"),
                    ("pino", "9.1.0", "9.2.0"),
                ]
            )
            old = f'    "{pkg}": "^{a}",\n    "typescript": "^5.4.5"'
            return f"chore(deps): bump {pkg} from {a} to {b}", [
                ("package.json", old, old.replace(a, b), 31)
            ]
        if lang in EXTRA_BUMPS:
            path, template, choices = EXTRA_BUMPS[lang]
            name, a, b = r.choice(choices)
            old = template.format(name=name, version=a)
            return f"bump {name} from {a} to {b}", [(path, old, old.replace(a, b), 12)]
        lib, a, b = r.choice(
            [
                ("pytest", "8.2.1", "8.2.2"),
                ("structlog", "24.1.0", "24.2.0"),
                ("ruff", "0.4.8", "0.4.9"),
            ]
        )
        old = f"{lib}=={a}\nhypothesis==6.103.0"
        return f"Bump {lib} from {a} to {b}", [("requirements-dev.txt", old, old.replace(a, b), 4)]
    if pick == 1:
        old = f"# {s.name}\n\nOwned by the {s.topic} team."
        new = old + f"\n\n## Dashboards\n\nSee the `{s.name} overview` board in Grafana."
        return f"docs: link {s.name} dashboards", [("README.md", old, new, 1)]
    if pick == 2:
        old = f"  - alert: {s.pkg.title().replace('_', '')}HighLatency\n    for: 10m"
        new = old.replace("10m", "15m")
        return f"alerts: {s.name} latency alert waits 15m", [
            (f"ops/alerts/{s.name}.yaml", old, new, 12)
        ]
    if pick == 3:
        old = "metadata:\n  labels:\n    app: " + s.name
        new = old + "\n    cost-center: " + r.choice(["cc-104", "cc-220", "cc-318"])
        return f"k8s: cost-center label for {s.name}", [
            (f"deploy/{s.name}/deployment.yaml", old, new, 3)
        ]
    if pick == 4:
        ext = {
            "go": "go",
            "java": "java",
            "node": "ts",
            "python": "py",
            "rust": "rs",
            "elixir": "exs",
            "ruby": "rb",
            "csharp": "cs",
            "php": "php",
        }[lang]
        old = f"// TODO: cover the empty {s.noun} list"
        new = f"// the empty {s.noun} list is covered by the table test below"
        return f"test: cover empty {s.noun} list", [
            (f"test/{s.noun}_list_test.{ext}", old, new, 40)
        ]
    old = f"# {s.noun} dashboard\npanels: 6"
    new = f"# {s.noun} dashboard\npanels: 7  # added saturation panel"
    return f"dashboards: {s.noun} saturation panel", [
        (f"ops/dashboards/{s.name}.yaml", old, new, 1)
    ]


# --- the incident ---------------------------------------------------------------------------------


class ExtIncident(Incident):
    """An incident in ``company``'s vocabulary."""

    def __init__(
        self,
        id: str,
        title: str,
        story: str,
        now: datetime,
        company: Company,
        seed: int,
        hours: float = 7,
    ) -> None:
        self.company = company
        super().__init__(
            id, title, story, now, company.services, seed, start=now - timedelta(hours=hours)
        )
        self.catalog(company.catalog)

    def log(self, t: datetime, service: str, level: str, message: str, **attributes: Any) -> None:
        if t <= self.now:  # nothing is logged after the investigation runs
            super().log(t, service, level, message, **attributes)

    def _stray(self, s: Svc) -> tuple[str, str]:
        return self.rng.choice(list(self.company.strays))

    def _info(self, s: Svc) -> str:
        extra = self.company.chatter.get(s.name)
        if extra and self.rng.random() < 0.35:
            return self.rng.choice(list(extra))
        return super()._info(s)

    def commit(  # type: ignore[override]
        self,
        t: datetime,
        service: str,
        summary: str,
        diffs: Sequence[tuple[str, str, str] | tuple[str, str, str, int]],
        author: str | None = None,
        cid: str | None = None,
        deploy_with: str | None = None,
    ) -> str:
        cid = super().commit(
            t,
            service,
            summary,
            diffs,
            author or self.rng.choice(list(self.company.authors)),
            cid,
            deploy_with,
        )
        self.changes[-1]["url"] = f"https://git.{self.company.domain}/{service}/commit/{cid}"
        return cid

    def deploy(  # type: ignore[override]
        self,
        t: datetime,
        service: str,
        version: str | None = None,
        ships: Sequence[str] | None = None,
        summary: str | None = None,
        author: str = "deploy-bot",
        did: str | None = None,
    ) -> str:
        did = super().deploy(t, service, version, ships, summary, author, did)
        self.changes[-1]["url"] = f"https://ci.{self.company.domain}/deploys/{did}"
        return did

    def background(
        self, begin: datetime, end: datetime, n: int, services: Sequence[str] | None = None
    ) -> list[str]:
        r = self.rng
        names = list(services or self._svc)
        span = (end - begin).total_seconds()
        made: list[str] = []
        for t in sorted(begin + timedelta(seconds=r.uniform(0, span)) for _ in range(n)):
            s = self._svc[r.choice(names)]
            summary, diffs = everyday(r, s, self.company.lang.get(s.name, "python"))
            made.append(self.commit(t, s.name, self.company.style(r, summary), diffs))
            if r.random() < 0.45 and t + timedelta(minutes=20) < end:
                made.append(self.deploy(t + timedelta(minutes=r.randint(8, 25)), s.name))
        return made

    # --- shortcuts --------------------------------------------------------------------------

    def code(
        self,
        t: datetime,
        service: str,
        summary: str,
        path: str,
        old: str,
        new: str,
        line: int = 1,
        author: str | None = None,
        deploy_with: str | None = None,
    ) -> str:
        """A one-file commit."""
        return self.commit(
            t, service, summary, [(path, old, new, line)], author, deploy_with=deploy_with
        )

    def errors(
        self,
        service: str,
        begin: datetime,
        end: datetime,
        per_min: float | Callable[[float], float],
        message: str | Callable[[random.Random], str],
        level: str = "ERROR",
        **attrs: Any,
    ) -> None:
        """Records of one kind at ``per_min`` a minute, each with a pod and trace id."""

        def make(r: random.Random, t: datetime) -> tuple[str, str, dict[str, Any]]:
            text = message(r) if callable(message) else message
            extra = {
                "pod": f"{service}-{r.choice(['5d8f7', '7c6b9'])}-{r.choice('kmpqrt')}{r.randint(10, 99)}",
                "trace_id": f"{r.getrandbits(64):016x}",
            }
            return level, text, {**attrs, **extra}

        self.burst(service, begin, end, per_min, make)

    def fleet(self, **effects: dict[str, Callable[[datetime, float], float]]) -> None:
        """RED metrics for every service; ``effects[service_with_underscores]`` modifies some."""
        for s in self.services:
            self.red(s.name, **effects.get(s.name.replace("-", "_"), {}))

    def pending(self, service: str) -> list[str]:
        return list(self._pending.get(service, []))

    # --- ground truth -----------------------------------------------------------------------

    def blame(
        self,
        change_id: str,
        accept: Sequence[str],
        service: str,
        category: str,
        decoys: Sequence[str],
        onset: datetime,
    ) -> None:
        self.onset = onset
        self.truth = {
            "verdict": "change",
            "change_id": change_id,
            "accept": list(accept),
            "service": service,
            "external_cause": None,
            "category": category,
            "decoys": list(decoys),
        }

    def outside(
        self, label: str, service: str, category: str, decoys: Sequence[str], onset: datetime
    ) -> None:
        self.onset = onset
        self.truth = {
            "verdict": "external",
            "change_id": None,
            "accept": [],
            "service": service,
            "external_cause": label,
            "category": category,
            "decoys": list(decoys),
        }

    def healthy(self, service: str, note: str, decoys: Sequence[str], onset: datetime) -> None:
        self.onset = onset
        self.truth = {
            "verdict": "healthy",
            "change_id": None,
            "accept": [],
            "service": service,
            "external_cause": None,
            "healthy": note,
            "category": "healthy",
            "decoys": list(decoys),
        }

    def unexplained(self, service: str, decoys: Sequence[str], onset: datetime) -> None:
        self.onset = onset
        self.truth = {
            "verdict": "none",
            "change_id": None,
            "accept": [],
            "service": service,
            "external_cause": None,
            "category": "unknown",
            "decoys": list(decoys),
        }


# --- shapes ---------------------------------------------------------------------------------------


def step(t0: datetime, before: float, after: float, t1: datetime | None = None) -> Shape:
    """``before`` until ``t0``, ``after`` from ``t0`` (until ``t1``, then ``before`` again)."""
    return lambda t: after if t0 <= t and (t1 is None or t < t1) else before


def ramp(t0: datetime, t1: datetime, low: float, high: float) -> Shape:
    """``low`` until ``t0``, rising linearly to ``high`` at ``t1``, ``high`` after."""

    def f(t: datetime) -> float:
        if t <= t0:
            return low
        if t >= t1:
            return high
        return low + (high - low) * (t - t0).total_seconds() / (t1 - t0).total_seconds()

    return f


def add(shape: Shape) -> Callable[[datetime, float], float]:
    """A RED modifier adding ``shape`` to the healthy value."""
    return lambda t, v: v + shape(t)


def times(shape: Shape) -> Callable[[datetime, float], float]:
    """A RED modifier multiplying the healthy value by ``shape``."""
    return lambda t, v: v * shape(t)


def floor(shape: Shape) -> Callable[[datetime, float], float]:
    """A RED modifier: at least ``shape``."""
    return lambda t, v: max(v, shape(t))


__all__ = [
    "CATEGORIES",
    "MINUTE",
    "Company",
    "ExtIncident",
    "Shape",
    "Svc",
    "add",
    "floor",
    "go_stack",
    "java_stack",
    "node_stack",
    "py_stack",
    "ramp",
    "step",
    "times",
]
