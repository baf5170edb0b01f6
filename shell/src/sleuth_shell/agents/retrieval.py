"""The embedded default agent, ``retrieval``: no network, no model, deterministic.

It reads the question (or alert) for a time window, the services it names and whether it asks
about logs (`sleuth_shell.text`), searches the knowledge catalog, queries the log store,
and writes a markdown answer from what it found, citing each document and query with
``[[source:N]]`` and marking every timestamp with ``§...§``. The same inputs and data always give
the same answer. Costs follow `sleuth_shell.agents.sources.CostModel`.

What it does per operation:

- ``answer`` (question read by `sleuth_shell.question.understand`): catalog questions get the
  best passage across the catalog (`sleuth_shell.passages`) as the first sentence, then the quoted
  block it comes from and a confidence label; below the calibrated ``ABSTAIN_BELOW`` evidence the
  answer is "I could not find ..." with no citation. Log questions get the error count and the
  distinct messages (counts, first and last times) for exactly the asked services and window, or
  say the window is empty and when the service last logged errors. "Why" questions first name the
  deploy that preceded the errors, or say that no cause is established. Follow-ups without a
  window or service take them from the previous user message. ``use_tools=False`` queries nothing
  and cites nothing: it answers from the conversation alone and says so.
- ``investigate``: when the organization has change records or metrics (its data sources' too),
  the root-cause engine's
  report (:mod:`sleuth_shell.agents.rca`: onset, suspects, verdict first, ``AgentResult.analysis``;
  "why" questions use it too). Otherwise it summarises the alert, compares error rates around the
  alert time with the six hours before, builds a timeline (changes, first warnings, first errors
  per affected service, rollbacks, last errors), proposes the most likely root cause with its
  evidence, and quotes the matching runbook.
- ``digest_section``: reports over the window the prompt names (default: the 24 hours before
  ``now``): volume, errors per service, the busiest error hour, top errors, changes and a
  related runbook. The section body is returned without a heading (the digest adds it).
- ``classify``: keyword rules read from the trigger's instructions, see
  :mod:`sleuth_shell.agents.triage`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sleuth_shell.agents import rca, trace_evidence
from sleuth_shell.agents.base import (
    AgentContext,
    AgentResult,
    Classification,
    ContextMessage,
    KnowledgeHit,
    LogCount,
    LogMessageCount,
    LogRecord,
    SourceRecord,
)
from sleuth_shell.agents.sources import CostModel, display_title, knowledge_source, log_source
from sleuth_shell.agents.triage import classify_message
from sleuth_shell.passages import expected_answer, key_terms, rank_passages
from sleuth_shell.question import Question, understand
from sleuth_shell.text import (
    TimeWindow,
    best_passage,
    extract_alert,
    format_ts,
    infer_window,
    match_services,
    terms,
)

__all__ = ["RetrievalAgent"]

ERROR_LEVELS: tuple[str, ...] = ("ERROR", "CRITICAL")
_LEVEL_COLUMNS: tuple[str, ...] = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")
_LOG_WORDS = re.compile(
    r"\b(?:errors?|5\d\d|5xx|exceptions?|fail\w*|timeouts?|timed out|latency|slow|logs?|"
    r"warnings?|incidents?|outages?|broken|spikes?|crash\w*|happen\w*|wrong|status|health\w*|"
    r"problems?|issues?|down|alerts?|degraded|why)\b",
    re.IGNORECASE,
)
_HOW_TO = re.compile(
    r"^\s*(?:how\s+(?:do|to|can|should|would)|what(?:'s| is)\s+the\s+(?:procedure|process|"
    r"policy|runbook)|who\s+(?:do|should|to)|when\s+should|where\s+(?:do|is|can))\b",
    re.IGNORECASE,
)
_CHANGE_MARKER = "deployed"
_DEFAULT_LOOKBACK = timedelta(hours=24)
_INVESTIGATION_BEFORE = timedelta(hours=2)
_INVESTIGATION_AFTER = timedelta(minutes=30)
_BASELINE = timedelta(hours=6)
_CAUSE_LOOKBACK = timedelta(hours=2)
_CATALOG_CANDIDATES = 10
#: The least share of a question's key-term weight the best passage (with its runbook) must carry
#: for the agent to answer from it; below it the answer is "I could not find ...". Calibrated on
#: the evaluation's tune split (evals/README.md, docs/agents.md): its unanswerable questions reach
#: at most 0.25, its answerable ones at least 0.59; 0.4 sits in that gap.
ABSTAIN_BELOW = 0.4


def _inline(text: str, limit: int = 300) -> str:
    """Text made safe for inline markdown: one line, no markers, bounded length."""
    text = " ".join(str(text).split()).replace("§", "").replace("[[", "[ [")
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _code(text: str, limit: int = 200) -> str:
    """A code span holding ``text`` (backticks replaced, so the span cannot be broken)."""
    return "`" + _inline(text, limit).replace("`", "'") + "`"


def _ts(value: datetime) -> str:
    """A timestamp marker: ``§2026-11-22T09:41:07Z§``."""
    return f"§{format_ts(value)}§"


def _quote(text: str) -> str:
    cleaned = text.replace("§", "").replace("[[", "[ [")
    return "\n".join(f"> {line}" if line.strip() else ">" for line in cleaned.splitlines())


def _display_title(title: str) -> str:
    return display_title(title).removeprefix("Runbook: ")


def _sentence(text: str) -> str:
    """A passage as a sentence: one line, ending in a full stop."""
    line = " ".join(text.split()).replace("§", "").replace("[[", "[ [")
    return line if line.endswith((".", "!", "?", ":")) else line + "."


def _excerpt_block(block: str, limit: int = 700) -> str:
    if len(block) <= limit:
        return block
    cut = block.rfind("\n", 0, limit)
    return block[: cut if cut > limit // 2 else limit].rstrip() + " …"


def _levels_phrase(levels: Sequence[str]) -> str:
    if set(levels) == set(ERROR_LEVELS):
        return "errors"
    return " and ".join(
        level.lower() + ("s" if level == "WARNING" else " lines") for level in levels
    )


def _desc(services: Sequence[str] | None) -> str:
    return _inline(", ".join(services or ["all services"]))


def _services_phrase(services: Sequence[str] | None) -> str:
    if not services:
        return "all services"
    names = [f"**{_inline(s, 100)}**" for s in services]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


@dataclass(frozen=True)
class _Change:
    record: LogRecord

    @property
    def target(self) -> str:
        return str(
            self.record.attributes.get("target") or self.record.attributes.get("service") or ""
        )


class _Run:
    """One agent run: the tools it calls (counted for credits) and the sources it cites."""

    def __init__(self, ctx: AgentContext, costs: CostModel) -> None:
        self.ctx = ctx
        self.costs = costs
        self.sources: dict[int, SourceRecord] = {}
        self._keys: dict[tuple[str, str], int] = {}
        self.knowledge_searches = 0
        self.log_queries = 0
        self._services: list[str] | None = None

    @property
    def credits(self) -> float:
        return self.costs.charge(self.knowledge_searches, self.log_queries)

    def _cite(self, record: SourceRecord) -> str:
        key = (str(record["tool_id"]), str(record["query"]))
        if key not in self._keys:
            source_id = len(self.sources) + 1
            record["source_id"] = source_id
            self.sources[source_id] = record
            self._keys[key] = source_id
        return f"[[source:{self._keys[key]}]]"

    def cite_document(self, hit: KnowledgeHit, search: str) -> str:
        return self._cite(
            knowledge_source(
                0,
                doc_id=hit.id,
                title=_inline(hit.title, 200),
                url=hit.url,
                search=search,
                at=self.ctx.now,
                public_url=self.ctx.public_url,
            )
        )

    def cite_logs(
        self,
        window: TimeWindow,
        services: Sequence[str] | None,
        levels: Sequence[str] | None,
        description: str,
        text: str | None = None,
    ) -> str:
        return self._cite(
            log_source(
                0,
                start=window.start,
                end=window.end,
                services=services,
                levels=levels,
                text=text,
                description=description,
                public_url=self.ctx.public_url,
            )
        )

    async def search(self, query: str, limit: int = 3) -> list[KnowledgeHit]:
        self.knowledge_searches += 1
        return await self.ctx.knowledge.search(self.ctx.org_id, query, limit)

    async def services(self) -> list[str]:
        if self._services is None:
            self._services = await self.ctx.logs.services(self.ctx.org_id)
        return self._services

    async def counts(self, window: TimeWindow, services: Sequence[str] | None) -> list[LogCount]:
        self.log_queries += 1
        return await self.ctx.logs.counts(self.ctx.org_id, window.start, window.end, services)

    async def top(
        self,
        window: TimeWindow,
        services: Sequence[str] | None,
        levels: Sequence[str],
        limit: int = 5,
    ) -> list[LogMessageCount]:
        self.log_queries += 1
        return await self.ctx.logs.top_messages(
            self.ctx.org_id, window.start, window.end, services, levels, limit
        )

    async def lines(
        self,
        window: TimeWindow,
        services: Sequence[str] | None = None,
        levels: Sequence[str] | None = None,
        text: str | None = None,
        limit: int = 5,
    ) -> list[LogRecord]:
        self.log_queries += 1
        return await self.ctx.logs.query(
            self.ctx.org_id, window.start, window.end, services, levels, text, limit
        )

    async def histogram(
        self, window: TimeWindow, bucket: int, services: Sequence[str] | None, levels: Sequence[str]
    ) -> list[tuple[datetime, int]]:
        self.log_queries += 1
        return await self.ctx.logs.histogram(
            self.ctx.org_id, window.start, window.end, bucket, services, levels
        )

    async def changes(self, window: TimeWindow) -> list[_Change]:
        """Deploys and rollbacks: records whose message contains ``deployed``."""
        return [_Change(r) for r in await self.lines(window, text=_CHANGE_MARKER, limit=50)]

    def result(self, markdown: str) -> AgentResult:
        return AgentResult(markdown.strip() + "\n", dict(self.sources), self.credits)


def _totals(counts: Iterable[LogCount]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for service, level, count in counts:
        table.setdefault(service, {})
        table[service][level] = table[service].get(level, 0) + count
    return table


def _errors(levels: Mapping[str, int]) -> int:
    return sum(levels.get(level, 0) for level in ERROR_LEVELS)


def _counts_table(table: Mapping[str, Mapping[str, int]]) -> str:
    present = [lvl for lvl in _LEVEL_COLUMNS if any(lvl in row for row in table.values())]
    extra = sorted({lvl for row in table.values() for lvl in row} - set(_LEVEL_COLUMNS))
    columns = present + extra
    lines = [
        "| Service | " + " | ".join(columns) + " | Total |",
        "|---|" + "---:|" * (len(columns) + 1),
    ]
    ordered = sorted(table.items(), key=lambda item: (-_errors(item[1]), item[0]))
    for service, row in ordered:
        cells = [str(row.get(level, 0)) for level in columns]
        lines.append(
            f"| {_inline(service, 100)} | " + " | ".join(cells) + f" | {sum(row.values())} |"
        )
    return "\n".join(lines)


_ACTION_HEADINGS = ("triage", "diagnosis", "mitigation")


def _runbook_block(
    run: _Run, hit: KnowledgeHit, search: str, words: Sequence[str], *, act: bool = False
) -> str:
    heading, passage = best_passage(hit.content, words, prefer=_ACTION_HEADINGS if act else ())
    where = f" — *{_inline(heading, 120)}*" if heading else ""
    citation = run.cite_document(hit, search)
    return f"**{_inline(hit.title, 200)}**{where} {citation}\n\n{_quote(passage)}"


def _related(run: _Run, hits: Sequence[KnowledgeHit], search: str) -> str:
    if not hits:
        return ""
    items = [f"{_inline(h.title, 200)} {run.cite_document(h, search)}" for h in hits]
    return "Related runbooks: " + "; ".join(items) + "."


def _previous_user_message(history: Sequence[ContextMessage]) -> str:
    for message in reversed(history):
        if message.role == "user" and message.content.strip():
            return message.content
    return ""


def _sentences(text: str) -> list[str]:
    cleaned = re.sub(r"\[\[source:\d+\]\]", "", text).replace("§", "")
    parts = re.split(r"(?<=[.!?])\s+|\n+", cleaned)
    return [" ".join(p.split()) for p in parts if len(p.split()) >= 3]


class RetrievalAgent:
    """The embedded default agent (see the module documentation)."""

    name = "retrieval"

    def __init__(self, costs: CostModel | None = None) -> None:
        self.costs = costs or CostModel()

    @classmethod
    def from_settings(cls, settings: Any = None) -> RetrievalAgent:
        """Build with the cost model of ``settings.agent_costs`` (see `CostModel`)."""
        return cls(CostModel.from_settings(settings))

    # --- answer ---------------------------------------------------------------------------------

    async def answer(
        self,
        ctx: AgentContext,
        question: str,
        *,
        history: Sequence[ContextMessage] = (),
        use_tools: bool = True,
    ) -> AgentResult:
        """Answer ``question`` from the knowledge catalog or the logs (see the module doc)."""
        if not use_tools:
            return self._answer_from_conversation(question, history)
        run = _Run(ctx, self.costs)
        previous = _previous_user_message(history)
        known = await run.services()
        asked = understand(question, ctx.now, known)
        window, services = asked.window, list(asked.services)
        if previous and window is None and not services and not asked.since_deploy:
            before = understand(previous, ctx.now, known)
            window = before.window
            if len(terms(question)) < 4:
                services = list(before.services)
            if before.about_logs and asked.intent == "fact" and len(terms(question)) < 4:
                asked = dataclasses.replace(asked, intent=before.intent)
        if asked.intent == "cause":
            found = await self._answer_cause(run, question, window, services)
            if found is not None:
                return found
        if known and (asked.about_logs or (asked.intent == "fact" and window and services)):
            return await self._answer_from_logs(run, asked, window, services)
        search = question if len(terms(question)) >= 4 or not previous else f"{previous} {question}"
        return await self._answer_from_catalog(run, search, asked, bool(known))

    async def _answer_cause(
        self,
        run: _Run,
        question: str,
        window: TimeWindow | None,
        services: Sequence[str],
    ) -> AgentResult | None:
        """A "why" / "root cause" question answered by the root-cause engine, as if an alert on
        the named service fired at the end of the asked window (or now); None when there are no
        change records, metrics or data sources to reason over, or when the organization has logs
        and the engine sees no failure (the log answer is given instead)."""
        ctx = run.ctx
        alert = extract_alert(question)
        fired = window.end if window is not None else alert["time"] or ctx.now
        fired = min(fired, ctx.now)
        known = await run.services()
        named = list(services) or match_services(question, known)
        payload = {
            "title": question.strip().split("\n", 1)[0],
            "service": (alert["service"] or (named[0] if named else "")),
            "text": alert["text"],
        }
        # Without logs the engine's report is the answer even when it sees no failure.
        return await self._investigate_with_engine(
            run,
            payload["title"],
            payload,
            fired,
            named,
            summary=False,
            need_failure=bool(known),
            window_start=window.start if window is not None else None,
        )

    async def _answer_from_catalog(
        self, run: _Run, search: str, asked: Question, have_logs: bool
    ) -> AgentResult:
        """The fact first (the best passage across the catalog), then its supporting block."""
        wanted = key_terms(search)
        hits = await run.search(search, limit=_CATALOG_CANDIDATES)
        documents = [(h.id, h.title, h.content) for h in hits]
        prefer = ("code", "item") if asked.intent == "how-to" else ("pair", "row")
        ranked = rank_passages(
            wanted,
            documents,
            catalog_size=max(len(documents), _CATALOG_CANDIDATES),
            prefer=prefer,
            expects=expected_answer(search),
        )
        best = ranked[0] if ranked else None
        if best is None or best.coverage < ABSTAIN_BELOW:
            quoted = [f'"{_inline(w, 40)}"' for w in wanted[:6]]  # a bounded excerpt
            searched = ", ".join(quoted) or f'"{_inline(search, 80)}"'
            logs_note = (
                "I did not query the logs, since the question does not ask about them."
                if have_logs
                else "No logs are stored for this organization, so there were none to query."
            )
            return run.result(
                f"I could not find anything about {searched} in the knowledge catalog: no "
                f"runbook passage holds the question's key terms. {logs_note} Ask about a "
                "service, a symptom or a time window, or add a runbook that covers it."
            )
        by_id = {h.id: h for h in hits}
        hit = by_id[best.passage.doc]
        cite = run.cite_document(hit, search)
        title = _display_title(hit.title)
        lead = [best]
        for other in ranked[1:6]:
            if (
                other.passage.doc == hit.id
                and other.coverage >= 0.9 * best.coverage
                and other.passage.block != best.passage.block
                and len(lead) < 2
            ):
                lead.append(other)
        facts = " ".join(_sentence(r.passage.text) for r in lead)
        confidence = "high" if best.coverage >= 0.75 else "medium"
        where = f", section *{_inline(best.passage.heading, 120)}*" if best.passage.heading else ""
        parts = [f"{facts} {cite}", f"From *{_inline(title, 200)}*{where} {cite}:"]
        parts.append(_quote(_excerpt_block(best.passage.block)))
        reason = (
            "the passage and its runbook hold nearly all of the question's key terms"
            if confidence == "high"
            else "the passage holds the question's rarest key terms, not all of them"
        )
        parts.append(f"_Confidence: {confidence} ({reason})._")
        return run.result("\n\n".join(parts))

    async def _answer_from_logs(
        self,
        run: _Run,
        asked: Question,
        window: TimeWindow | None,
        services: Sequence[str],
    ) -> AgentResult:
        """Counts and distinct messages for exactly the asked services and window; for "why"
        questions the most likely cause first, or that none is established."""
        ctx = run.ctx
        levels = asked.levels or ERROR_LEVELS
        scope = list(services) or None
        if asked.since_deploy:
            lookback = TimeWindow(ctx.now - timedelta(days=7), ctx.now, "deploys")
            deploys = [
                c
                for c in await run.changes(lookback)
                if "rolled back" not in c.record.message.lower()
                and (not scope or c.target in scope or any(s in c.record.message for s in scope))
            ]
            if deploys:
                window = TimeWindow(deploys[-1].record.timestamp, ctx.now, "since deploy")
        window = window or TimeWindow(ctx.now - _DEFAULT_LOOKBACK, ctx.now, "default")
        who = _services_phrase(scope)
        span = f"between {_ts(window.start)} and {_ts(window.end)}"
        level_words = _levels_phrase(levels)
        top = await run.top(window, scope, levels, limit=8)
        cite = run.cite_logs(
            window, scope, levels, f"{level_words.capitalize()} from {_desc(scope)}"
        )
        total = sum(m.count for m in top)
        parts: list[str] = []
        if not top:
            counts = _totals(await run.counts(window, scope))
            lines = sum(sum(row.values()) for row in counts.values())
            first = f"{who} logged no {level_words} {span} {cite}."
            if lines:
                count_cite = run.cite_logs(window, scope, None, f"All lines from {_desc(scope)}")
                first += f" It logged {_plural(lines, 'line')} in all {count_cite}."
            parts.append(first[0].upper() + first[1:] if first[0] != "*" else first)
            bounds = await ctx.logs.time_bounds(ctx.org_id)
            if bounds is not None:
                ever = TimeWindow(bounds[0], bounds[1] + timedelta(seconds=1), "stored")
                history = await run.top(ever, scope, levels, limit=20)
                if history:
                    last = max(history, key=lambda m: m.last_seen)
                    ever_cite = run.cite_logs(
                        ever,
                        scope,
                        levels,
                        f"{level_words.capitalize()} from {_desc(scope)}, all stored",
                    )
                    noun = "error" if levels == ERROR_LEVELS else level_words.rstrip("s")
                    parts.append(
                        f"The last {noun} {who} logged was at {_ts(last.last_seen)}: "
                        f"{_code(last.message)} {ever_cite}."
                    )
                else:
                    parts.append(
                        f"{who} has logged no {level_words} in the stored logs, which run from "
                        f"{_ts(bounds[0])} to {_ts(bounds[1])}."
                    )
            return run.result("\n\n".join(parts))
        distinct = len(top)
        summary = (
            f"{span[0].upper()}{span[1:]}, {who} logged {_plural(total, level_words.rstrip('s'))}"
            f" ({_plural(distinct, 'distinct message')}) {cite}: "
            + "; ".join(
                f"{_code(m.message)} {_plural(m.count, 'time')}"
                + ("" if scope and len(scope) == 1 else f" from **{_inline(m.service, 100)}**")
                for m in top[:3]
            )
            + "."
        )
        items = [
            f"- **{_inline(m.service, 100)}** {m.level} {_code(m.message)}: "
            f"{_plural(m.count, 'time')}, first {_ts(m.first_seen)}, last {_ts(m.last_seen)}"
            for m in top
        ]
        listing = f"**Distinct messages** {cite}\n\n" + "\n".join(items)
        if asked.intent != "cause":
            return run.result("\n\n".join([summary, listing]))
        onset = min(m.first_seen for m in top)
        failing = {m.service for m in top} | set(scope or [])
        for m in top:
            failing.update(match_services(m.message, await run.services()))
        changes_window = TimeWindow(window.start - _CAUSE_LOOKBACK, window.end, window.label)
        changes = await run.changes(changes_window)
        suspects = [
            c
            for c in changes
            if c.record.timestamp <= onset
            and onset - c.record.timestamp <= _CAUSE_LOOKBACK
            and "rolled back" not in c.record.message.lower()
            and (c.target in failing or any(s in c.record.message for s in failing))
        ]
        if suspects:
            suspect = suspects[-1]
            changes_cite = run.cite_logs(
                changes_window, None, None, "Deploys and rollbacks", text=_CHANGE_MARKER
            )
            cause = (
                f"The most likely cause is the deploy {_code(suspect.record.message)} at "
                f"{_ts(suspect.record.timestamp)}, the last change before the first error at "
                f"{_ts(onset)} {changes_cite}."
            )
            rollbacks = [
                c
                for c in changes
                if c.record.timestamp > onset and "rolled back" in c.record.message.lower()
            ]
            if rollbacks:
                final = max(m.last_seen for m in top)
                cause += (
                    f" It was rolled back at {_ts(rollbacks[0].record.timestamp)} "
                    f"({_code(rollbacks[0].record.message)}) and the last error was at "
                    f"{_ts(final)} {changes_cite}."
                )
            cause += (
                " This is a correlation in time, not a proof: confirm with the deploy's change."
            )
        else:
            cause = (
                f"The logs show the errors below, but no cause is established: no deploy or "
                f"rollback of {_services_phrase(sorted(failing))} preceded the first error at "
                f"{_ts(onset)} {cite}."
            )
        return run.result("\n\n".join([cause, summary, listing]))

    def _answer_from_conversation(
        self, question: str, history: Sequence[ContextMessage]
    ) -> AgentResult:
        note = (
            "I answered without querying the knowledge catalog or the logs (tools were off), "
            "so this is based only on the conversation so far."
        )
        wanted = set(terms(question))
        scored: list[tuple[int, int, str, str]] = []
        order = 0
        for message in history:
            for sentence in _sentences(message.content):
                overlap = len(wanted & set(terms(sentence)))
                if overlap:
                    scored.append((-overlap, order, message.role, sentence))
                order += 1
        if not scored:
            body = (
                "Nothing earlier in this conversation answers it. Ask again with tools enabled "
                "and I will search the runbooks and query the logs."
            )
            return AgentResult(f"{note}\n\n{body}\n", {}, self.costs.charge(0, 0))
        best = sorted(scored)[:3]
        best.sort(key=lambda item: item[1])
        lines = [
            f"- {'You' if role == 'user' else 'Earlier answer'}: {_inline(text, 400)}"
            for _, _, role, text in best
        ]
        body = "From what was said earlier in this conversation:\n\n" + "\n".join(lines)
        return AgentResult(f"{note}\n\n{body}\n", {}, self.costs.charge(0, 0))

    @staticmethod
    def _change_line(change: _Change) -> str:
        record = change.record
        details = []
        author = record.attributes.get("author")
        if author:
            details.append(f"by {_inline(str(author), 80)}")
        note = record.attributes.get("change")
        if note:
            details.append(f"change: {_inline(str(note), 160)}")
        suffix = f" ({'; '.join(details)})" if details else ""
        return f"- {_ts(record.timestamp)} {_code(record.message)}{suffix}"

    # --- investigate ----------------------------------------------------------------------------

    async def investigate(
        self, ctx: AgentContext, prompt: str, event_payload: str, *, title: str = ""
    ) -> AgentResult:
        """Investigate an alert (see the module doc)."""
        run = _Run(ctx, self.costs)
        alert = extract_alert(event_payload)
        title = (title or alert["title"] or event_payload.strip().split("\n", 1)[0]).strip()
        fired: datetime = alert["time"] if alert["time"] and alert["time"] <= ctx.now else ctx.now
        window = infer_window(prompt, ctx.now) or TimeWindow(
            fired - _INVESTIGATION_BEFORE,
            min(fired + _INVESTIGATION_AFTER, ctx.now),
            "alert",
        )
        if window.end <= window.start:
            window = TimeWindow(window.start, window.start + timedelta(minutes=1), window.label)
        known = await run.services()
        mentioned = match_services(
            " ".join(filter(None, [title, alert["service"] or "", alert["text"]])), known
        )
        engine = await self._investigate_with_engine(run, title, alert, fired, mentioned)
        if engine is not None:
            return engine

        parts = [self._alert_summary(title, alert, fired, mentioned)]
        cause_line = ""
        if known:
            counts = _totals(await run.counts(window, None))
            baseline_window = TimeWindow(window.start - _BASELINE, window.start, "baseline")
            baseline = _totals(await run.counts(baseline_window, None))
            counts_cite = run.cite_logs(window, None, None, "Log counts around the alert")
            baseline_cite = run.cite_logs(
                baseline_window, None, None, "Log counts in the six hours before"
            )
            hours = max((window.end - window.start).total_seconds() / 3600, 1 / 60)
            affected = []
            for service, row in counts.items():
                rate = _errors(row) / hours
                base_rate = _errors(baseline.get(service, {})) / (_BASELINE.total_seconds() / 3600)
                if _errors(row) >= 5 and rate > 3 * base_rate + 1:
                    affected.append((service, _errors(row), rate, base_rate))
            affected.sort(key=lambda item: (-item[1], item[0]))
            affected_names = [a[0] for a in affected]
            first_errors: dict[str, LogRecord] = {}
            for service in affected_names[:5]:
                found = await run.lines(window, [service], ERROR_LEVELS, limit=1)
                if found:
                    first_errors[service] = found[0]
            changes = await run.changes(window)
            changes_cite = (
                run.cite_logs(window, None, None, "Deploys and rollbacks", text=_CHANGE_MARKER)
                if changes
                else ""
            )
            parts.append(
                self._rates_section(window, counts, affected, counts_cite, baseline_cite, mentioned)
            )
            origin = None
            if first_errors:
                origin = min(
                    first_errors,
                    key=lambda s: (first_errors[s].timestamp, s not in mentioned, s),
                )
            top = await run.top(window, affected_names or mentioned or None, ERROR_LEVELS, 5)
            errors_cite = run.cite_logs(
                window, affected_names or mentioned or None, ERROR_LEVELS, "Errors around the alert"
            )
            warnings: list[LogMessageCount] = []
            if origin is not None:
                warnings = [
                    w
                    for w in await run.top(window, [origin], ("WARNING",), 3)
                    if w.first_seen < first_errors[origin].timestamp
                ]
            parts.append(
                self._timeline(
                    first_errors, changes, changes_cite, warnings, origin, top, errors_cite
                )
            )
            cause_section, cause_line = self._root_cause(
                origin, first_errors, changes, changes_cite, warnings, top, errors_cite, window
            )
            parts.append(cause_section)
            search = " ".join(
                [title, origin or "", top[0].message if top else "", " ".join(mentioned)]
            )
        else:
            parts.append("No logs are stored for this organization, so I could not correlate any.")
            search = title
        hits = await run.search(search, limit=3)
        if hits:
            words = terms(search)
            parts.append("## Runbook\n\n" + _runbook_block(run, hits[0], search, words, act=True))
            related = _related(run, hits[1:], search)
            if related:
                parts.append(related)
        else:
            parts.append("## Runbook\n\nNo runbook in the knowledge catalog matches this alert.")
        if cause_line:
            parts.insert(1, cause_line)
        return run.result("\n\n".join(parts))

    async def _investigate_with_engine(
        self,
        run: _Run,
        title: str,
        alert: Mapping[str, Any],
        fired: datetime,
        mentioned: Sequence[str],
        *,
        summary: bool = True,
        need_failure: bool = False,
        window_start: datetime | None = None,
    ) -> AgentResult | None:
        """The root-cause engine's report (`sleuth_shell.agents.rca`), verdict first; None when
        the organization has no change records or metrics to reason over (the log-only report
        is written instead), and with ``need_failure`` when the engine sees no failure."""
        ctx = run.ctx
        service = str(alert.get("service") or "")
        if mentioned and service not in mentioned:
            service = mentioned[0]
        gathered = await rca.gather(
            ctx,
            title=title,
            service=service,
            fired=fired,
            text=str(alert.get("text") or ""),
            known=await run.services(),
            expression=alert.get("expression"),
            window_start=window_start,
        )
        traced = await trace_evidence.read_traces(ctx, gathered.start, gathered.end)
        logged = {s.service for s in gathered.evidence.errors}
        logged |= {s.service for s in gathered.evidence.signatures}
        gathered.evidence = trace_evidence.add_to_evidence(gathered.evidence, traced)
        run.log_queries += gathered.queries + traced.queries
        run.knowledge_searches += gathered.searches
        if not gathered.has_data and not traced.found:
            return None
        analysis = rca.run_engine(gathered)
        if need_failure and analysis.onset is None:
            return None
        window = TimeWindow(gathered.start, gathered.end, "look-back")
        when = "in the asked window" if gathered.asked else "before the alert"

        def cite_errors(services: Sequence[str] | None) -> str:
            return run.cite_logs(
                window,
                services,
                rca.SIGNAL_LEVELS,
                f"Errors and warnings from {_desc(services)} {when}",
            )

        cite_failures = trace_evidence.errors_citer(
            traced, logged, cite_errors, run._cite, ctx.public_url
        )
        body, evidence = rca.report(
            gathered, analysis, run._cite, public_url=ctx.public_url, cite_errors=cite_failures
        )
        parts = [body]
        traces = trace_evidence.traces_section(traced, run._cite, ctx.public_url)
        if traces:
            parts.append(traces)
            evidence += [i for i in trace_evidence.cited_ids(traces) if i not in evidence]
        if summary:
            parts.insert(1, self._alert_summary(title, alert, fired, mentioned))
        origin = analysis.service or service
        top_message = next(
            (s.message for s in gathered.evidence.signatures if s.service == origin), ""
        )
        search = " ".join(filter(None, [origin, top_message]))
        hits = await run.search(search, limit=3) if search else []
        hits = [h for h in hits if "catalog" not in h.title.lower()][:1]
        if hits and set(terms(search)) & set(terms(hits[0].title + " " + hits[0].content[:400])):
            parts.append(
                "## Runbook\n\n" + _runbook_block(run, hits[0], search, terms(search), act=True)
            )
        result = run.result("\n\n".join(parts))
        return dataclasses.replace(result, analysis=rca.analysis_dict(analysis, evidence))

    @staticmethod
    def _alert_summary(
        title: str, alert: Mapping[str, Any], fired: datetime, mentioned: Sequence[str]
    ) -> str:
        lines = [f"## Alert\n\n**{_inline(title, 200) or 'Untitled alert'}**", ""]
        if alert.get("service"):
            lines.append(f"- Service: {_inline(alert['service'], 100)}")
        if alert.get("severity"):
            lines.append(f"- Severity: {_inline(alert['severity'], 50)}")
        when = "fired" if alert.get("time") else "received (the payload carries no time)"
        lines.append(f"- {when.capitalize()}: {_ts(fired)}")
        if mentioned:
            lines.append(f"- Services it concerns: {_services_phrase(mentioned)}")
        return "\n".join(lines)

    @staticmethod
    def _rates_section(
        window: TimeWindow,
        counts: Mapping[str, Mapping[str, int]],
        affected: Sequence[tuple[str, int, float, float]],
        counts_cite: str,
        baseline_cite: str,
        mentioned: Sequence[str],
    ) -> str:
        head = (
            f"## What the logs show\n\nFrom {_ts(window.start)} to {_ts(window.end)} {counts_cite}:"
        )
        if not counts:
            return f"{head} no log records at all."
        if not affected:
            total_errors = sum(_errors(row) for row in counts.values())
            return (
                f"{head} {_plural(total_errors, 'error')} in all, no service's error rate is "
                f"above its usual level {baseline_cite}."
            )
        items = [
            f"- **{_inline(service, 100)}**: {_plural(n, 'error')} ({rate:.1f}/hour, "
            f"usually {base:.1f}/hour)"
            for service, n, rate, base in affected
        ]
        quiet = [s for s in mentioned if s not in {a[0] for a in affected}]
        tail = (
            f"\n\n{_services_phrase(quiet)} named in the alert "
            f"{'shows' if len(quiet) == 1 else 'show'} no unusual errors."
            if quiet
            else ""
        )
        rows = {s: counts[s] for s, *_ in affected}
        return (
            f"{head} error rates well above the six hours before {baseline_cite}:\n\n"
            + "\n".join(items)
            + "\n\n"
            + _counts_table(rows)
            + tail
        )

    def _timeline(
        self,
        first_errors: Mapping[str, LogRecord],
        changes: Sequence[_Change],
        changes_cite: str,
        warnings: Sequence[LogMessageCount],
        origin: str | None,
        top: Sequence[LogMessageCount],
        errors_cite: str,
    ) -> str:
        events: list[tuple[datetime, int, str]] = []
        for change in changes:
            events.append(
                (change.record.timestamp, 0, self._change_line(change)[2:] + f" {changes_cite}")
            )
        for warning in warnings:
            events.append(
                (
                    warning.first_seen,
                    1,
                    f"{_ts(warning.first_seen)} first warning from "
                    f"**{_inline(warning.service, 100)}**: {_code(warning.message)} "
                    f"({_plural(warning.count, 'time')} in the window)",
                )
            )
        for service, record in first_errors.items():
            events.append(
                (
                    record.timestamp,
                    2,
                    f"{_ts(record.timestamp)} first error from **{_inline(service, 100)}**: "
                    f"{_code(record.message)} {errors_cite}",
                )
            )
        if origin is not None:
            last = max((m.last_seen for m in top if m.service == origin), default=None)
            if last is not None:
                events.append((last, 3, f"{_ts(last)} last error from **{_inline(origin, 100)}**"))
        if not events:
            return "## Timeline\n\nNo errors, deploys or rollbacks around the alert."
        events.sort(key=lambda e: (e[0], e[1], e[2]))
        lines = [f"- {text}" for _, _, text in events]
        body = "## Timeline\n\n" + "\n".join(lines)
        if top:
            items = [
                f"{i}. **{_inline(m.service, 100)}** {_code(m.message)} — "
                f"{_plural(m.count, 'time')}"
                for i, m in enumerate(top, start=1)
            ]
            body += f"\n\n**Most frequent errors** {errors_cite}\n\n" + "\n".join(items)
        return body

    @staticmethod
    def _root_cause(
        origin: str | None,
        first_errors: Mapping[str, LogRecord],
        changes: Sequence[_Change],
        changes_cite: str,
        warnings: Sequence[LogMessageCount],
        top: Sequence[LogMessageCount],
        errors_cite: str,
        window: TimeWindow,
    ) -> tuple[str, str]:
        """The root-cause section and a one-line conclusion for the top of the report."""
        if origin is None:
            text = (
                "No service shows an unusual error rate around the alert, so the logs do not "
                "point to a cause. Check the alert's own metric and the runbook below."
            )
            return f"## Likely root cause\n\n{text}", ""
        onset = first_errors[origin].timestamp
        origin_top = next((m for m in top if m.service == origin), None)
        evidence = [
            f"- **{_inline(origin, 100)}** was the first service to fail, at {_ts(onset)} "
            f"{errors_cite}."
        ]
        others = sorted(
            (s for s in first_errors if s != origin), key=lambda s: first_errors[s].timestamp
        )
        if others:
            evidence.append(
                f"- {_services_phrase(others)} began failing after it, consistent with calling it."
            )
        if origin_top is not None:
            evidence.append(
                f"- Its most frequent error: {_code(origin_top.message)} "
                f"({_plural(origin_top.count, 'time')})."
            )
        if warnings:
            evidence.append(
                f"- Warnings preceded the errors: {_code(warnings[0].message)} from "
                f"{_ts(warnings[0].first_seen)}, a gradual build-up rather than a sudden spike."
            )
        related = set(first_errors)
        before = [
            c
            for c in changes
            if c.record.timestamp <= onset
            and onset - c.record.timestamp <= timedelta(hours=2)
            and "rolled back" not in c.record.message.lower()
        ]
        suspect = None
        for change in reversed(before):
            if change.target in related or any(s in change.record.message for s in related):
                suspect = change
                break
        if suspect is None and before:
            suspect = before[-1]
        after = [
            c
            for c in changes
            if c.record.timestamp > onset and "rolled back" in c.record.message.lower()
        ]
        last_error = max((m.last_seen for m in top if m.service == origin), default=None)
        if suspect is not None:
            minutes = int((onset - suspect.record.timestamp).total_seconds() // 60)
            conclusion = (
                f"**Likely root cause:** {_code(suspect.record.message)} at "
                f"{_ts(suspect.record.timestamp)}, {_plural(minutes, 'minute')} before "
                f"**{_inline(origin, 100)}** started failing {changes_cite}."
            )
            evidence.insert(
                0,
                f"- The change {_code(suspect.record.message)} landed at "
                f"{_ts(suspect.record.timestamp)}, {_plural(minutes, 'minute')} before the first "
                f"error {changes_cite}.",
            )
        else:
            conclusion = (
                f"**Likely origin:** **{_inline(origin, 100)}**, failing since {_ts(onset)} "
                f"{errors_cite}; no deploy or rollback preceded it in the window."
            )
        if after:
            rollback = after[0]
            stopped = (
                last_error is not None
                and last_error >= rollback.record.timestamp - timedelta(minutes=1)
                and last_error < window.end - timedelta(minutes=5)
            )
            evidence.append(
                f"- {_code(rollback.record.message)} at {_ts(rollback.record.timestamp)}"
                + (
                    f"; the last error from **{_inline(origin, 100)}** was at {_ts(last_error)}, "
                    "so the rollback resolved it."
                    if stopped and last_error is not None
                    else "."
                )
                + f" {changes_cite}"
            )
            if stopped:
                conclusion += " Errors stopped after the rollback."
        elif suspect is not None:
            evidence.append(
                f"- No rollback yet: consider rolling back {_code(suspect.record.message)}."
            )
        return "## Likely root cause\n\n" + "\n".join(evidence), conclusion

    # --- digest ---------------------------------------------------------------------------------

    async def digest_section(self, ctx: AgentContext, section: str, prompt: str) -> AgentResult:
        """Report on one digest section (see the module doc)."""
        run = _Run(ctx, self.costs)
        text = f"{section}\n{prompt}"
        window = infer_window(text, ctx.now) or TimeWindow(
            ctx.now - _DEFAULT_LOOKBACK, ctx.now, "default"
        )
        known = await run.services()
        services = match_services(text, known) or None
        parts: list[str] = []
        if known:
            table = _totals(await run.counts(window, services))
            scope = _services_phrase(services)
            counts_cite = run.cite_logs(
                window,
                services,
                None,
                f"Log counts for {_inline(', '.join(services or ['all services']))}",
            )
            total = sum(sum(row.values()) for row in table.values())
            errors = sum(_errors(row) for row in table.values())
            warnings = sum(row.get("WARNING", 0) for row in table.values())
            parts.append(
                f"From {_ts(window.start)} to {_ts(window.end)}, {scope} logged "
                f"{_plural(total, 'line')}: {_plural(errors, 'error')} and "
                f"{_plural(warnings, 'warning')} {counts_cite}."
            )
            if table:
                parts.append(_counts_table(table))
            if errors:
                errors_cite = run.cite_logs(window, services, ERROR_LEVELS, "Errors")
                histogram = await run.histogram(window, 3600, services, ERROR_LEVELS)
                if histogram:
                    peak_start, peak = max(
                        histogram, key=lambda item: (item[1], -item[0].timestamp())
                    )
                    parts.append(
                        f"The busiest hour for errors began at {_ts(peak_start)} with "
                        f"{_plural(peak, 'error')} ({round(100 * peak / errors)}% of the window's) "
                        f"{errors_cite}."
                    )
                top = await run.top(window, services, ERROR_LEVELS, 5)
                items = [
                    f"{i}. **{_inline(m.service, 100)}** {_code(m.message)} — "
                    f"{_plural(m.count, 'time')}, {_ts(m.first_seen)} to {_ts(m.last_seen)}"
                    for i, m in enumerate(top, start=1)
                ]
                parts.append(f"**Top errors** {errors_cite}\n\n" + "\n".join(items))
            changes = await run.changes(window)
            if changes:
                changes_cite = run.cite_logs(
                    window, None, None, "Deploys and rollbacks", text=_CHANGE_MARKER
                )
                items = [self._change_line(c) for c in changes]
                parts.append(f"**Deploys and rollbacks** {changes_cite}\n\n" + "\n".join(items))
        else:
            parts.append("No logs are stored for this organization yet.")
        hits = await run.search(text, limit=1)
        wanted = set(terms(text))
        if hits and wanted & set(terms(hits[0].title)):
            parts.append("Relevant runbook: " + _runbook_block(run, hits[0], text, terms(text)))
        return run.result("\n\n".join(parts))

    # --- classify -------------------------------------------------------------------------------

    async def classify(self, ctx: AgentContext, message: str, instructions: str) -> Classification:
        """Decide how a chat trigger handles ``message`` by keyword rules read from the
        instructions (:mod:`sleuth_shell.agents.triage` lists them): a matching "ignore" rule
        wins, else the first matching rule; unmatched messages are ``NONE`` when the instructions
        say what to answer and ``AGENT`` when they only say what to ignore."""
        return Classification(
            classify_message(message, instructions), round(self.costs.classify, 6)
        )
