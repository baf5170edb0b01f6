"""The answer-quality evaluation of the embedded ``retrieval`` agent (issue 9, item 7).

Run it with ``make eval`` (or ``python -m evals.run`` from the repository root). It builds a
throw-away SQLite database with seven organizations, the shipped demo (Pebble & Pine, loaded at
``DEMO_NOW``), Kestrel Health (`evals.kestrel`, a second corpus with a different company,
services and vocabulary), Tidewater Freight (`evals.tidewater`, a third, written by an
examiner who never read the agent), Larkspur Fare Systems (`evals.larkspur`, a fourth, a
transit-card operator written the same way), Halberd Court Systems (`evals.halberd`, a fifth, a
court electronic filing service written the same way), Ferncombe Blood Network
(`evals.ferncombe`, a sixth, a regional blood-bank network written the same way) and Brackenmoor
Heat (`evals.brackenmoor`, a seventh, a district heating utility written the same way), asks every
question of ``questions_tune.json``, ``questions_heldout.json``, ``questions_tune_ext.json`` and
``questions_heldout_ext.json`` and prints, per split (each split alone) and per kind of question:

- ``source``: the right source is cited. For a catalog question the first source the answer cites
  is the expected runbook; for a log or cause question some cited log query is for exactly the
  expected service (``services == [service]``) and its window overlaps the expected window.
- ``facts``: every expected fact string appears in the answer (case-insensitive), and none of
  the question's ``absent`` strings (what a misread time window would bring in) does.
- ``lead``: the expected facts already appear in the answer's first paragraph (the fact first).
- ``abstain``: an unanswerable question gets "I could not find", no knowledge citation and no
  more credits than a lookup (run + one search); an answerable one does not get "I could not find".
- ``support``: every citation supports its sentence (`check_support`): each code span, bold
  name, number and quoted line of a sentence appears in a source the sentence cites, and each
  timestamp lies in the cited log query's window.
- ``parts``: for a multi-part question (a ``parts`` list, each part with its ``facts`` and
  optionally its ``source``), every part is answered: its facts appear and its runbook is cited
  somewhere in the answer. A part the corpus does not answer has ``missing`` instead (the words
  that name what it asks, e.g. ``["warehouse", "on call"]``): it is answered when one sentence
  of the answer says it "could not find" it and names every one of those words, and the question's
  ``abstain`` check then asks that the answer still cite a runbook for the other parts (it must
  not abstain as a whole).
- ``category``: for a question with a ``category`` (the failure category of a "why" question),
  the answer's ``analysis.category`` is that category (no analysis, or none stated: wrong).

The held-out splits are kept apart: they were written before tuning and are only ever scored
(``-v`` and ``--show`` act on the tune splits only).

``--agent openai`` (with ``SLEUTH_LLM_BASE_URL``/``SLEUTH_LLM_MODEL``/``SLEUTH_LLM_API_KEY`` set as
for ``sleuth serve``) scores the LLM agent on the same questions with the same checks; its token
credits make the ``abstain`` credit bound stricter for it than for the embedded agent.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evals import brackenmoor, ferncombe, halberd, kestrel, larkspur, tidewater
from sleuth_core.language import format_ts
from sleuth_shell import admin
from sleuth_shell.agents.base import Agent, AgentContext, AgentResult
from sleuth_shell.agents.retrieval import RetrievalAgent
from sleuth_shell.config import ConfigError, Settings
from sleuth_shell.db import create_engine, create_session_factory, models
from sleuth_shell.db.migrate import migrate_async
from sleuth_shell.demo import load_demo
from sleuth_shell.services import Services, build_services, load_configured_agent

HERE = Path(__file__).parent
SPLITS = {
    "tune": HERE / "questions_tune.json",
    "held-out": HERE / "questions_heldout.json",
    "tune-ext": HERE / "questions_tune_ext.json",
    "held-out-ext": HERE / "questions_heldout_ext.json",
}
DEMO_NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
PUBLIC = "http://sleuth.eval"
KINDS = ("fact", "logs", "cause", "abstain")
METRICS = ("source", "facts", "lead", "abstain", "support", "parts", "category")
ABSTAIN = "i could not find"


@dataclass
class Outcome:
    """One question's answer and its four verdicts (None: the metric does not apply)."""

    question: dict[str, Any]
    result: AgentResult
    seconds: float
    verdicts: dict[str, bool | None] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def load_questions(split: str) -> list[dict[str, Any]]:
    """The questions of ``split`` (none when its file does not exist yet)."""
    if not SPLITS[split].exists():
        return []
    data = json.loads(SPLITS[split].read_text(encoding="utf-8"))
    return list(data["questions"])


# --- the data -----------------------------------------------------------------------------------


async def load_corpus(session: Any, org_id: int, corpus: Any) -> None:
    """A written corpus (`evals.kestrel`, `evals.tidewater`, `evals.larkspur`, `evals.halberd`,
    `evals.ferncombe`, `evals.brackenmoor`): its runbooks and its logs."""
    session.add_all(
        models.KnowledgeDocument(org_id=org_id, title=title, content=content, url=None)
        for title, content in corpus.runbooks()
    )
    rows = [{"org_id": org_id, **record} for record in corpus.generate_logs()]
    await session.execute(models.LogRecord.__table__.insert(), rows)
    await session.commit()


class Corpora:
    """The evaluation database: organization ids and clocks per corpus, and the services."""

    def __init__(self, services: Services, orgs: dict[str, int]) -> None:
        self.services = services
        self.orgs = orgs
        self.now = {
            "demo": DEMO_NOW,
            "kestrel": kestrel.NOW,
            "tidewater": tidewater.NOW,
            "larkspur": larkspur.NOW,
            "halberd": halberd.NOW,
            "ferncombe": ferncombe.NOW,
            "brackenmoor": brackenmoor.NOW,
        }

    def context(self, corpus: str) -> AgentContext:
        return self.services.agent_context(self.orgs[corpus], now=self.now[corpus])


async def build_corpora(directory: Path) -> tuple[Corpora, Any]:
    url = f"sqlite:///{directory / 'eval.db'}"
    await migrate_async(url)
    engine = create_engine(url)
    sessions = create_session_factory(engine)
    async with sessions() as session:
        demo = await admin.create_org(session, "eval-demo")
        other = await admin.create_org(session, "eval-kestrel")
        third = await admin.create_org(session, "eval-tidewater")
        fourth = await admin.create_org(session, "eval-larkspur")
        fifth = await admin.create_org(session, "eval-halberd")
        sixth = await admin.create_org(session, "eval-ferncombe")
        seventh = await admin.create_org(session, "eval-brackenmoor")
        demo_id, other_id, third_id, fourth_id = demo.id, other.id, third.id, fourth.id
        fifth_id, sixth_id, seventh_id = fifth.id, sixth.id, seventh.id
        await load_demo(session, demo_id, now=DEMO_NOW)
    async with sessions() as session:
        await load_corpus(session, other_id, kestrel)
    async with sessions() as session:
        await load_corpus(session, third_id, tidewater)
    async with sessions() as session:
        await load_corpus(session, fourth_id, larkspur)
    async with sessions() as session:
        await load_corpus(session, fifth_id, halberd)
    async with sessions() as session:
        await load_corpus(session, sixth_id, ferncombe)
    async with sessions() as session:
        await load_corpus(session, seventh_id, brackenmoor)
    services = build_services(Settings(public_url=PUBLIC), sessions)
    orgs = {
        "demo": demo_id,
        "kestrel": other_id,
        "tidewater": third_id,
        "larkspur": fourth_id,
        "halberd": fifth_id,
        "ferncombe": sixth_id,
        "brackenmoor": seventh_id,
    }
    return Corpora(services, orgs), engine


# --- scoring ------------------------------------------------------------------------------------

_MARKER = re.compile(r"\[\[source:(\d+)\]\]")
_TS = re.compile(r"§([^§]+)§")
_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")
_NUMBER = re.compile(r"(?<![\w.\-/:])(\d+(?:\.\d+)?)(?![\w/:]|\.\d)")


def _norm(text: str) -> str:
    return " ".join(text.replace("`", "").split()).lower()


def _parse_ts(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _units(markdown: str) -> list[tuple[str, list[int], bool]]:
    """The answer's sentences (table rows, list items, quoted lines, prose sentences), each with
    the sources it cites: its own markers, else those of the sentence before it (a list or quote
    under a cited lead-in); a heading resets. The flag says whether the unit is a quoted line."""
    units: list[tuple[str, list[int], bool]] = []
    current: list[int] = []
    for line in markdown.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            current = []
            continue
        quoted = stripped.startswith(">")
        pieces = (
            [stripped]
            if quoted or stripped.startswith("|")
            else re.split(r"(?<=[.!?])\s+(?=[A-Z*`§])", stripped)
        )
        for piece in pieces:
            cited = [int(n) for n in _MARKER.findall(piece)]
            if cited:
                current = cited
            units.append((piece, list(current), quoted))
    return units


async def _support_text(corpora: Corpora, corpus: str, source: dict[str, Any]) -> str:
    """Everything a source can vouch for, as text: a document's content, or a log query's
    records (service, level, message, attributes) and every count over them."""
    ctx = corpora.context(corpus)
    if source["type"] == "knowledge":
        doc = await ctx.knowledge.get(ctx.org_id, int(source["artifact_id"]))
        return doc.content if doc is not None else ""
    query = json.loads(source["query"])
    if source["type"] == "change":
        if "change_id" in query:  # one change record
            changes = await ctx.changes.get_many(ctx.org_id, [query["change_id"]])
        else:  # a change query
            changes = await ctx.changes.query(
                ctx.org_id,
                _parse_ts(query["start"]),
                _parse_ts(query["end"]),
                query.get("services"),
                query.get("kinds"),
                query.get("text"),
                10_000,
            )
        return "\n".join(
            " ".join(
                [
                    c.kind,
                    c.change_id,
                    c.service,
                    format_ts(c.timestamp),
                    c.summary,
                    c.author or "",
                    " ".join(c.files),
                    " ".join(c.ships),
                    c.diff,
                ]
            )
            for c in changes
        )
    if source["type"] == "metrics":
        series = await ctx.metrics.query(
            ctx.org_id,
            _parse_ts(query["start"]),
            _parse_ts(query["end"]),
            query.get("services"),
            query.get("names"),
            1000,
        )
        return "\n".join(
            f"{m.service} {m.name} {json.dumps(m.labels)} "
            + " ".join(f"{format_ts(t)} {v:g} {v:.1f} {v:.2f} {v:.0f}" for t, v in m.points)
            for m in series
        )
    records = await ctx.logs.query(
        ctx.org_id,
        _parse_ts(query["start"]),
        _parse_ts(query["end"]),
        query["services"],
        query["levels"],
        query["text"],
        1_000_000,
    )
    counts: Counter[str] = Counter()
    parts: list[str] = []
    for r in records:
        parts.append(f"{r.service} {r.level} {r.message} {json.dumps(r.attributes)}")
        for key in (
            "all",
            r.level,
            r.service,
            f"{r.service}|{r.level}",
            f"{r.service}|{r.message}",
        ):
            counts[key] += 1
        if r.level in ("ERROR", "CRITICAL"):
            counts["errors"] += 1
            counts[f"{r.service}|errors"] += 1
    counts["distinct"] = len({(r.service, r.message) for r in records})
    parts.append(" ".join(str(v) for v in counts.values()))
    parts.append(source["query"])  # the query itself names its services and window
    return "\n".join(parts)


async def check_support(corpora: Corpora, corpus: str, result: AgentResult) -> list[str]:
    """The claims of ``result`` that no source their sentence cites supports (empty: all good)."""
    texts: dict[int, str] = {}
    for n, source in result.sources.items():
        texts[n] = await _support_text(corpora, corpus, dict(source))
    problems = []
    for unit, cited, quoted in _units(result.markdown):
        if not cited:
            continue
        support = " \n ".join(texts.get(n, "") for n in cited)
        normalized = _norm(support)
        body = _MARKER.sub("", unit)
        if quoted:
            line = _norm(body.lstrip("> ").rstrip(" …"))
            if line and line not in normalized:
                problems.append(f"quote not in its source: {line[:80]!r}")
            continue
        windows = [
            (_parse_ts(result.sources[n]["start"]), _parse_ts(result.sources[n]["end"]))
            for n in cited
            if n in result.sources and result.sources[n]["type"] == "logs"
        ]
        for stamp in _TS.findall(body):
            when = _parse_ts(stamp)
            if windows and not any(a <= when <= b for a, b in windows):
                problems.append(f"timestamp {stamp} outside the cited window")
        body = _TS.sub(" ", body)
        # Code spans and bold names (a bold phrase with spaces is a label, not a claim).
        names = [b for b in _BOLD.findall(_CODE.sub(" ", body)) if " " not in b.strip()]
        claims = _CODE.findall(body) + names
        for claim in claims:
            if _norm(claim).strip(" .…") not in normalized:
                problems.append(f"{claim[:80]!r} not in its source")
        plain = _BOLD.sub(" ", _CODE.sub(" ", body))
        plain = re.sub(r"^\s*(?:\d+\.|[-*])\s", " ", plain)
        tokens = set(re.findall(r"[\w.\-/:%]+", support.lower()))
        words = set(re.findall(r"\d+(?:\.\d+)?", support))
        for number in _NUMBER.findall(plain):
            if number != "0" and number not in words and number not in tokens:
                problems.append(f"number {number} not in its source")
    return problems


def _overlaps(source: dict[str, Any], expected: dict[str, str]) -> bool:
    query = json.loads(source["query"])
    if query.get("services") != [expected["service"]]:
        return False
    start, end = _parse_ts(source["start"]), _parse_ts(source["end"])
    return start < _parse_ts(expected["end"]) and end > _parse_ts(expected["start"])


def _says_not_found(text: str, words: Sequence[str]) -> bool:
    r"""Whether one sentence of the (lowercased) answer says it could not find something and
    names every one of ``words``, as whole words.

    >>> _says_not_found("the limit is 500.\ni could not find who is on call for the warehouse.",
    ...                 ["warehouse", "on call"])
    True
    >>> _says_not_found("i could not find it.\nthe warehouse is on call.", ["warehouse"])
    False
    >>> _says_not_found("the warehouse rota is kept by ops [1]. i could not find anything on "
    ...                 "*who approves a refund*.", ["warehouse", "rota"])
    False
    """
    return any(
        ABSTAIN in sentence
        and all(re.search(rf"\b{re.escape(w.lower())}\b", sentence) for w in words)
        for sentence in re.split(r"(?<=[.!?])\s+|\n", text)
    )


async def score(corpora: Corpora, question: dict[str, Any], outcome: Outcome) -> None:
    result = outcome.result
    text = result.markdown.lower()
    order = [int(n) for n in _MARKER.findall(result.markdown)]
    cited = [result.sources[n] for n in dict.fromkeys(order) if n in result.sources]
    abstained = ABSTAIN in text
    verdicts = outcome.verdicts
    partial = any("missing" in part for part in question.get("parts", []))
    if question["kind"] == "abstain":
        lookup = RetrievalAgent().costs.charge(1, 0)
        knowledge = [s for s in cited if s["type"] == "knowledge"]
        verdicts["abstain"] = abstained and not knowledge and result.credits <= lookup + 1e-9
        verdicts["source"] = verdicts["facts"] = verdicts["lead"] = None
    else:
        # With a part the corpus does not answer, saying so is right; abstaining on the whole
        # question (no runbook cited for the parts it does answer) is not.
        verdicts["abstain"] = (
            any(s["type"] == "knowledge" for s in cited) if partial else not abstained
        )
        if "source" in question:
            first = next((s for s in cited), None)
            title = first["display_text"].removeprefix("Runbook: ") if first else None
            verdicts["source"] = (
                first is not None and first["type"] == "knowledge" and title == question["source"]
            )
        else:
            verdicts["source"] = any(
                s["type"] == "logs" and _overlaps(dict(s), question["logs"]) for s in cited
            )
        missing = [f for f in question.get("facts", []) if f.lower() not in text]
        present = [f for f in question.get("absent", []) if f.lower() in text]
        verdicts["facts"] = not missing and not present
        lead = result.markdown.strip().split("\n\n", 1)[0].lower()
        verdicts["lead"] = all(f.lower() in lead for f in question.get("facts", []))
        if missing:
            outcome.problems.append(f"missing facts: {missing}")
        if present:
            outcome.problems.append(f"outside the asked window or question: {present}")
    verdicts["parts"] = None
    if question.get("parts"):
        titles = {
            s["display_text"].removeprefix("Runbook: ") for s in cited if s["type"] == "knowledge"
        }
        unanswered = [
            n
            for n, part in enumerate(question["parts"], 1)
            if (
                not _says_not_found(text, part["missing"])
                if "missing" in part
                else any(f.lower() not in text for f in part["facts"])
                or ("source" in part and part["source"] not in titles)
            )
        ]
        verdicts["parts"] = not unanswered
        if unanswered:
            outcome.problems.append(f"parts not answered: {unanswered}")
    verdicts["category"] = None
    if "category" in question:
        analysis = getattr(result, "analysis", None) or {}
        stated = analysis.get("category") if isinstance(analysis, dict) else None
        verdicts["category"] = stated == question["category"]
        if not verdicts["category"]:
            outcome.problems.append(f"category {stated!r}, expected {question['category']!r}")
        if not verdicts["source"]:
            outcome.problems.append(f"cited: {[s['display_text'] for s in cited][:4]}")
    unsupported = await check_support(corpora, question["corpus"], result)
    verdicts["support"] = not unsupported
    outcome.problems.extend(unsupported[:5])


async def evaluate(
    corpora: Corpora, agent: Agent, questions: Sequence[dict[str, Any]]
) -> list[Outcome]:
    outcomes = []
    for question in questions:
        ctx = corpora.context(question["corpus"])
        started = time.perf_counter()
        result = await agent.answer(ctx, question["question"])
        outcome = Outcome(question, result, time.perf_counter() - started)
        await score(corpora, question, outcome)
        outcomes.append(outcome)
    return outcomes


def summarize(outcomes: Sequence[Outcome]) -> dict[str, dict[str, float | None]]:
    """Per kind (and ``all``): the share of questions passing each metric (None: not applicable)."""
    table: dict[str, dict[str, float | None]] = {}
    for kind in (*KINDS, "all"):
        rows = [o for o in outcomes if kind in ("all", o.question["kind"])]
        scores: dict[str, float | None] = {"n": float(len(rows))}
        for metric in METRICS:
            verdicts = [o.verdicts[metric] for o in rows if o.verdicts.get(metric) is not None]
            scores[metric] = sum(map(bool, verdicts)) / len(verdicts) if verdicts else None
        table[kind] = scores
    return table


def render(split: str, outcomes: Sequence[Outcome], *, verbose: bool = False) -> str:
    table = summarize(outcomes)
    lines = [
        f"== {split} ({len(outcomes)} questions)",
        f"{'kind':<8} {'n':>3}  " + "  ".join(f"{m:>7}" for m in METRICS),
    ]
    for kind, scores in table.items():
        cells = [
            "      -" if scores[m] is None else f"{100 * scores[m]:6.0f}%"  # type: ignore[operator]
            for m in METRICS
        ]
        lines.append(f"{kind:<8} {int(scores['n'] or 0):>3}  " + "  ".join(cells))
    times = [o.seconds * 1000 for o in outcomes]
    lines.append(f"latency: median {statistics.median(times):.0f} ms, max {max(times):.0f} ms")
    if verbose and not split.startswith("held-out"):  # held-out failures are never listed
        for o in outcomes:
            failed = [m for m, v in o.verdicts.items() if v is False]
            if failed:
                lines.append(f"  {o.question['id']} {o.question['question']!r}: fails {failed}")
                lines.extend(f"      {p}" for p in o.problems[:6])
    return "\n".join(lines)


async def run_all(
    splits: Sequence[str],
    agent: Agent | None = None,
    corpora_only: Sequence[str] = (),
    authors_only: Sequence[str] = (),
) -> dict[str, list[Outcome]]:
    """Each split's outcomes; with ``corpora_only`` or ``authors_only``, only the questions over
    those corpora or by those authors (a new batch scored alone)."""
    agent = agent or RetrievalAgent()
    wanted = {
        split: [
            q
            for q in load_questions(split)
            if (not corpora_only or q["corpus"] in corpora_only)
            and (not authors_only or q.get("author") in authors_only)
        ]
        for split in splits
    }
    with tempfile.TemporaryDirectory() as directory:
        corpora, engine = await build_corpora(Path(directory))
        try:
            return {
                split: await evaluate(corpora, agent, questions)
                for split, questions in wanted.items()
                if questions
            }
        finally:
            await corpora.services.aclose()
            await engine.dispose()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="all")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="list each failure (tune split only)"
    )
    parser.add_argument("--show", help="print the answer to the question with this id")
    parser.add_argument(
        "--corpus",
        default="",
        help="score only the questions over these corpora (comma-separated, e.g. larkspur)",
    )
    parser.add_argument(
        "--author",
        default="",
        help="score only the questions by these authors (comma-separated, e.g. examinerq5)",
    )
    parser.add_argument(
        "--agent",
        default="retrieval",
        help="the agent to score (e.g. openai, configured by SLEUTH_LLM_* as for `sleuth serve`)",
    )
    args = parser.parse_args(argv)
    splits = list(SPLITS) if args.split == "all" else [args.split]
    try:
        settings = Settings.from_env().model_copy(update={"agent": args.agent})
        agent = load_configured_agent(settings)
    except ConfigError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    only = [c for c in args.corpus.split(",") if c]
    authors = [a for a in args.author.split(",") if a]
    results = asyncio.run(run_all(splits, agent, only, authors))
    for split, outcomes in results.items():
        print(render(split, outcomes, verbose=args.verbose))
        for o in outcomes:
            if o.question["id"] == args.show and not split.startswith("held-out"):
                print(o.result.markdown)
                print(json.dumps(o.result.sources, indent=1)[:3000])
    return 0


if __name__ == "__main__":
    sys.exit(main())
