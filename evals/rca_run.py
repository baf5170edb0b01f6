"""The root-cause evaluation (issue 10, item 7; issue 23): `make eval-rca`.

Run it as ``PYTHONPATH=core/src:shell/src:. python -m evals.rca_run`` from the repository root.
For each frozen incident of ``evals/rca/tune``, ``evals/rca/heldout`` and the outside-vocabulary
splits ``evals/rca/tune_ext`` and ``evals/rca/heldout_ext`` (format and truth:
``evals/rca/README.md``) it makes an organization with an API key in a throw-away SQLite database,
ingests the incident through the real HTTP API in process (knowledge documents, logs, metrics,
changes), runs the investigation the way the product does
(``services.agent.investigate(...)``, reading ``result.analysis``) and asks "Investigate this alert
and name the root cause" through ``services.agent.answer(...)``. Per split, each split alone, it
prints the culprit named, innocent changes blamed, planted decoys blamed, wrong abstentions,
correct abstentions, outside causes named, the failure category, valid evidence, answers leading
with their verdict and the time per investigation, next to two naive baselines computed from the
same data ("blame the latest deploy before the alert", "blame the alerting service's last
deploy").

``-v`` lists the failures of the tune splits; the held-out splits are only ever scored. The exit
status is non-zero when the run crashes (an agent raising, an ingestion request refused for a
reason other than a missing endpoint), never for low scores.
"""

from __future__ import annotations

import argparse
import asyncio
import fnmatch
import json
import logging
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from litestar.testing import AsyncTestClient

from evals.rca import schema
from evals.rca.perturb import FAMILIES, perturb
from sleuth_shell import admin
from sleuth_shell.app import create_app
from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.migrate import migrate_async
from sleuth_shell.investigations import DEFAULT_PROMPT
from sleuth_shell.services import Services

SPLITS = tuple(schema.SPLITS)
PUBLIC = "http://sleuth.eval"
ASK = "Investigate this alert and name the root cause: {title}"
MAX_BODY = 700_000  # bytes per ingestion request (the API takes up to 1 MiB)
NO_CHANGE = re.compile(
    r"\bno (?:recent |single )?(?:change|deploy|commit)s?\b[^.]*\b(?:explain|cause|account)"
    r"|\bnot (?:caused by|due to|explained by) (?:a |any )?(?:recent )?(?:change|deploy|commit)"
    r"|\bnone of the (?:recent )?(?:changes|deploys|commits)",
    re.IGNORECASE,
)
METRICS = (
    "culprit",
    "innocent",
    "decoys",
    "wrong_abstain",
    "abstain",
    "external",
    "category",
    "service",
    "evidence",
    "leads",
)
HEADERS = {
    "culprit": "culprit",
    "innocent": "innocent",
    "decoys": "decoys",
    "wrong_abstain": "wrong.abs",
    "abstain": "abstain",
    "category": "category",
    "external": "ext.named",
    "service": "service",
    "evidence": "evidence",
    "leads": "leads",
}


@dataclass
class Outcome:
    """One incident's run: the analysis, the answer and their timings, or the error."""

    incident: dict[str, Any]
    analysis: dict[str, Any] | None = None
    sources: dict[Any, Any] = field(default_factory=dict)
    answer: str = ""
    seconds: float = 0.0
    answer_seconds: float = 0.0
    error: str | None = None


@dataclass
class Run:
    outcomes: dict[str, list[Outcome]]
    missing: list[str]  # ingestion endpoints the app does not have yet
    crashes: list[str]

    def __repr__(self) -> str:  # short: test reports must not spell out held-out answers
        counts = {split: len(rows) for split, rows in self.outcomes.items()}
        return f"Run({counts}, missing={self.missing}, crashes={len(self.crashes)})"


def parse(text: str) -> datetime:
    value = schema.parse(text)
    assert value is not None, text
    return value


# --- ingestion through the HTTP API ------------------------------------------------------------


def chunks(items: list[Any], limit: int = MAX_BODY) -> list[list[Any]]:
    """``items`` split into runs whose JSON stays under ``limit`` bytes."""
    out: list[list[Any]] = [[]]
    size = 0
    for item in items:
        n = len(json.dumps(item)) + 1
        if out[-1] and size + n > limit:
            out.append([])
            size = 0
        out[-1].append(item)
        size += n
    return [c for c in out if c]


async def ingest(client: Any, key: str, incident: dict[str, Any], missing: set[str]) -> None:
    """Post the incident's data as its organization would; a 404/405 marks an endpoint missing,
    any other refusal raises."""
    headers = {"X-Service-Org-Api-Key": key}

    async def post(path: str, body: dict[str, Any]) -> bool:
        response = await client.post(f"/api/v1{path}", json=body, headers=headers)
        if response.status_code in (404, 405):
            missing.add(path)
            return False
        if response.status_code != 200:
            raise RuntimeError(
                f"{incident['id']}: POST {path} -> {response.status_code} {response.text[:300]}"
            )
        stored = response.json().get("ingested")
        if "records" in body and stored != len(body["records"]):  # logs and changes: one each
            raise RuntimeError(
                f"{incident['id']}: POST {path} stored {stored} of {len(body['records'])} records"
            )
        return True

    for doc in incident["knowledge"]:
        await post("/knowledge/documents", doc)
    for part in chunks(incident["logs"]["records"]):
        await post("/observability/logs", {"records": part})
    for part in chunks(incident["metrics"]["series"]):
        if not await post("/observability/metrics", {"series": part}):
            break
    for part in chunks(incident["changes"]["records"]):
        if not await post("/changes", {"records": part}):
            break


# --- running -----------------------------------------------------------------------------------


async def investigate(services: Services, org_id: int, incident: dict[str, Any]) -> Outcome:
    outcome = Outcome(incident)
    alert = incident["alert"]
    ctx = services.agent_context(org_id, now=parse(incident["now"]))
    try:
        started = time.perf_counter()
        result = await services.agent.investigate(
            ctx, DEFAULT_PROMPT, json.dumps(alert["payload"]), title=alert["title"]
        )
        outcome.seconds = time.perf_counter() - started
        outcome.analysis = result.analysis
        outcome.sources = dict(result.sources)
        started = time.perf_counter()
        answer = await services.agent.answer(ctx, ASK.format(title=alert["title"]))
        outcome.answer_seconds = time.perf_counter() - started
        outcome.answer = answer.markdown
    except Exception as exc:  # a crash is reported, and fails the run
        outcome.error = f"{type(exc).__name__}: {exc}"
    return outcome


async def run_all(
    splits: Sequence[str] = SPLITS, families: Sequence[str] = (), only: Sequence[str] = ()
) -> Run:
    """Load every incident of ``splits`` into its own organization and investigate each; with
    ``families``, each tune split again rewritten by each perturbation family
    (`evals.rca.perturb`), as its own split ``<split>~<family>``. ``only`` keeps the incidents
    whose id matches one of these shell patterns (a batch scored alone)."""
    incidents = {
        split: [
            i
            for i in schema.load(split)
            if not only or any(fnmatch.fnmatchcase(i["id"], p) for p in only)
        ]
        for split in splits
    }
    for split in [s for s in splits if s.startswith("tune")]:  # never a held-out split
        for family in families:
            incidents[f"{split}~{family}"] = [perturb(i, family) for i in incidents[split]]
    splits = list(incidents)
    missing: set[str] = set()
    crashes: list[str] = []
    outcomes: dict[str, list[Outcome]] = {}
    with tempfile.TemporaryDirectory() as directory:
        url = f"sqlite:///{Path(directory) / 'rca.db'}"
        await migrate_async(url)
        engine = create_engine(url)
        keys: dict[str, tuple[int, str]] = {}
        try:
            async with create_session_factory(engine)() as session:
                for split in splits:
                    for n in range(len(incidents[split])):
                        org = await admin.create_org(session, f"rca-{split}-{n}")
                        _, key = await admin.create_key(session, org.name)
                        keys[f"{split}/{n}"] = (org.id, key)
        finally:
            await engine.dispose()
        unlimited = 10**9
        settings = Settings(
            database_url=url,
            public_url=PUBLIC,
            workers_inline=False,
            rate_limits={"free": unlimited, "team": unlimited, "enterprise": unlimited},
        )
        app = create_app(settings)
        async with AsyncTestClient(app=app, raise_server_exceptions=False) as client:
            services: Services = app.state.services
            for split in splits:
                for n, incident in enumerate(incidents[split]):
                    try:
                        await ingest(client, keys[f"{split}/{n}"][1], incident, missing)
                    except RuntimeError as exc:
                        crashes.append(str(exc))
                rows = []
                for n, incident in enumerate(incidents[split]):
                    outcome = await investigate(services, keys[f"{split}/{n}"][0], incident)
                    if outcome.error:
                        crashes.append(f"{incident['id']}: {outcome.error}")
                    rows.append(outcome)
                outcomes[split] = rows
    return Run(outcomes, sorted(missing), crashes)


# --- scoring -----------------------------------------------------------------------------------


def first_sentence(markdown: str) -> str:
    text = re.sub(r"\[\[source:\d+\]\]", "", markdown)
    text = text.replace("§", "").replace("**", "").replace("`", "")
    text = re.sub(r"[ \t]+([.!?,;:])", r"\1", text).strip()
    for line in text.splitlines():
        line = line.strip().lstrip("#>*-| ").strip()
        if line:
            return re.split(r"(?<=[.!?])\s+", line, maxsplit=1)[0]
    return ""


def named_ids(text: str, incident: dict[str, Any]) -> set[str]:
    lowered = text.lower()
    return {c["id"] for c in incident["changes"]["records"] if c["id"].lower() in lowered}


def verdicts(incident: dict[str, Any], analysis: dict[str, Any] | None) -> dict[str, bool | None]:
    """The per-incident verdicts of the analysis metrics (None: the metric does not apply).

    ``decoys``: the verdict names one of the planted innocent changes; ``wrong_abstain``: a
    change-caused incident gets no change verdict; ``abstain``: an incident with no change at
    fault (outside cause, nothing wrong, no cause in the data) gets no change id; ``category``:
    ``analysis.category`` is the truth's (incidents without a truth category: not applicable; an
    analysis without one: wrong)."""
    truth = incident["truth"]
    analysis = analysis or {}
    verdict = analysis.get("verdict")
    change_id = analysis.get("change_id")
    right = {truth["change_id"], *truth["accept"]} - {None}
    is_change = truth["verdict"] == "change"
    blamed = verdict == "change" and bool(change_id)
    abstained = verdict in ("external", "unknown", "healthy", "none") and not change_id
    return {
        "culprit": (change_id in right) if is_change else None,
        "innocent": verdict == "change" and change_id not in right,
        "decoys": blamed and change_id in truth.get("decoys", []),
        "wrong_abstain": (not blamed) if is_change else None,
        "abstain": None if is_change else abstained,
        "external": verdict == "external" if truth["verdict"] == "external" else None,
        "category": (analysis.get("category") == truth["category"])
        if "category" in truth
        else None,
        "service": analysis.get("service") == truth["service"],
    }


def score(outcome: Outcome) -> dict[str, bool | None]:
    marks = verdicts(outcome.incident, outcome.analysis)
    analysis = outcome.analysis or {}
    evidence = analysis.get("evidence")
    marks["evidence"] = (
        outcome.analysis is not None
        and isinstance(evidence, list)
        and (bool(evidence) or analysis.get("verdict") == "unknown")
        and all(item in outcome.sources for item in evidence)
    )
    lead = first_sentence(outcome.answer)
    marks["leads"] = bool(named_ids(lead, outcome.incident) or NO_CHANGE.search(lead))
    return marks


def baseline(incident: dict[str, Any], *, alerting_only: bool) -> dict[str, Any]:
    """The analysis a naive rule gives: the latest deploy before the alert (of any service, or
    of the alerting service only); ``unknown`` when there is none."""
    alert = incident["alert"]
    fired = parse(alert["fired_at"])
    deploys = [
        c
        for c in incident["changes"]["records"]
        if c["kind"] == "deploy"
        and parse(c["timestamp"]) <= fired
        and (not alerting_only or c["service"] == alert["service"])
    ]
    if not deploys:
        return {"verdict": "unknown", "change_id": None, "service": alert["service"]}
    latest = max(deploys, key=lambda c: parse(c["timestamp"]))
    return {"verdict": "change", "change_id": latest["id"], "service": latest["service"]}


def share(marks: Sequence[bool | None]) -> float | None:
    applicable = [m for m in marks if m is not None]
    return sum(map(bool, applicable)) / len(applicable) if applicable else None


def summarize(outcomes: Sequence[Outcome]) -> dict[str, float | None]:
    """The split's scores: each metric's share (None: not applicable) and the timings."""
    marks = [score(o) for o in outcomes]
    table: dict[str, float | None] = {m: share([x[m] for x in marks]) for m in METRICS}
    times = [o.seconds for o in outcomes if o.error is None]
    table["median_s"] = statistics.median(times) if times else None
    table["max_s"] = max(times) if times else None
    return table


def summarize_baseline(
    incidents: Sequence[dict[str, Any]], rule: Callable[[dict[str, Any]], dict[str, Any]]
) -> dict[str, float | None]:
    marks = [verdicts(i, rule(i)) for i in incidents]
    table: dict[str, float | None] = {m: share([x.get(m) for x in marks]) for m in METRICS}
    return table


def _cell(value: float | None) -> str:
    return "        -" if value is None else f"{100 * value:8.0f}%"


def render(split: str, outcomes: Sequence[Outcome], *, verbose: bool = False) -> str:
    incidents = [o.incident for o in outcomes]
    kinds = Counter(i["truth"]["verdict"] for i in incidents)
    mix = ", ".join(
        f"{kinds[v]} {text}"
        for v, text in (
            ("change", "caused by a change"),
            ("external", "outside"),
            ("healthy", "healthy"),
            ("none", "no cause in the data"),
        )
        if kinds[v] or v in ("change", "external")
    )
    lines = [
        f"== {split} ({len(incidents)} incidents: {mix})",
        f"{'':<30}" + "".join(f" {HEADERS[m]:>9}" for m in METRICS) + "  median s   max s",
    ]
    rows = [
        ("sleuth", summarize(outcomes)),
        (
            "baseline: latest deploy",
            summarize_baseline(incidents, lambda i: baseline(i, alerting_only=False)),
        ),
        (
            "baseline: alerting svc deploy",
            summarize_baseline(incidents, lambda i: baseline(i, alerting_only=True)),
        ),
    ]
    if "~" in split:  # a perturbed split: the baselines are the untouched split's
        rows = rows[:1]
    for name, table in rows:
        times = ""
        if table.get("median_s") is not None:
            times = f"  {table['median_s']:8.3f} {table['max_s']:7.3f}"
        lines.append(f"{name:<30}" + "".join(f" {_cell(table[m])}" for m in METRICS) + times)
    crashed = [o for o in outcomes if o.error]
    if crashed:
        lines.append(f"crashed: {len(crashed)} incident(s)")
    if verbose and split.startswith("tune"):  # held-out failures are never listed (no peeking)
        for o in outcomes:
            marks = score(o)
            failed = [
                m
                for m, v in marks.items()
                if m != "service"
                and (v is True if m in ("innocent", "decoys", "wrong_abstain") else v is False)
            ]
            if not failed and not o.error:
                continue
            truth = o.incident["truth"]
            analysis = o.analysis or {}
            lines.append(f"  {o.incident['id']}: fails {failed}")
            lines.append(
                f"      truth: {truth['verdict']} "
                f"{truth['change_id'] or truth['external_cause'] or truth.get('healthy', '')}"
                f" on {truth['service']}"
            )
            lines.append(
                f"      got:   {analysis.get('verdict')} {analysis.get('change_id')} on "
                f"{analysis.get('service')} ({analysis.get('confidence')}), category "
                f"{analysis.get('category')} (truth {truth.get('category', '-')})"
            )
            lines.append(f"      answer: {first_sentence(o.answer)[:160]!r}")
            if o.error:
                lines.append(f"      error: {o.error}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="all")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="list each failure (tune splits only)"
    )
    parser.add_argument(
        "--perturb",
        default="",
        metavar="FAMILIES",
        help="also score the tune splits rewritten by these perturbation families "
        f"(comma-separated, or 'all': {', '.join(FAMILIES)}), each as its own split",
    )
    parser.add_argument(
        "--only",
        default="",
        metavar="PATTERNS",
        help="score only the incidents whose id matches one of these comma-separated shell "
        "patterns, e.g. 'xt8[5-9]*,xt9*' (a new batch scored alone)",
    )
    args = parser.parse_args(argv)
    wanted = args.perturb.split(",")
    families = list(FAMILIES) if args.perturb == "all" else [f for f in wanted if f]
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        parser.error(f"unknown perturbation families: {', '.join(unknown)}")
    for name in ("mcp", "httpx"):
        logging.getLogger(name).setLevel(logging.WARNING)
    splits = list(SPLITS) if args.split == "all" else [args.split]
    only = [p for p in args.only.split(",") if p]
    run = asyncio.run(run_all(splits, families, only))
    if run.missing:
        print(
            "endpoint missing: "
            + ", ".join(f"POST /api/v1{p}" for p in run.missing)
            + " (answered 404/405; those parts of each incident were not loaded)"
        )
    for split, outcomes in run.outcomes.items():
        print(render(split, outcomes, verbose=args.verbose))
    if run.crashes:
        print("CRASHES:")
        for crash in run.crashes[:20]:
            print(f"  {crash}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
