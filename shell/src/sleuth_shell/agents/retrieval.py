"""The embedded default agent, ``retrieval``: no network, no model, deterministic.

It reads the question (or alert) for a time window, the services it names and what it asks
(`sleuth_shell.question`), and answers from what it finds, citing each document, query and change
with ``[[source:N]]`` and marking every timestamp with ``§...§``. The same inputs and data always
give the same answer. Costs follow `sleuth_shell.agents.sources.CostModel`. What it does is split
by operation:

- ``answer``: catalog questions (:mod:`~sleuth_shell.agents.catalog_answer`: the asked fact first,
  each part of a several-part question with its own passage), log questions
  (:mod:`~sleuth_shell.agents.log_answer`: counts and distinct messages for exactly the asked
  services and window), and "why" / "root cause" questions, which get the same report as an
  investigation from the root-cause engine (:mod:`~sleuth_shell.agents.rca`); a question about a
  past incident ("what caused the September outage?", or one naming a postmortem by its
  identifier: "PM-0037 - root cause?") is answered from its postmortem in the catalog. On-call
  shorthand is written out first (``yday``, ``errs``, ``cmd``, ``~15:05``:
  `sleuth_shell.question.expand_shorthand`). Follow-ups without a window or service take them
  from the previous user message.
  ``use_tools=False`` queries nothing and cites nothing: it answers from the conversation alone
  and says so.
- ``investigate``: the root-cause engine's report (onset, suspects, verdict and category first,
  hypotheses ruled out, ``AgentResult.analysis``) over the logs, change records, metrics, the
  trace store (:mod:`~sleuth_shell.agents.trace_evidence`) and the data sources' pulled series
  (:mod:`~sleuth_shell.agents.pulled`). Deploy and rollback lines in the logs become
  change records for the engine when the organization sends none.
- ``digest_section``: :mod:`~sleuth_shell.agents.digest_section`.
- ``classify``: keyword rules read from the trigger's instructions, see
  :mod:`sleuth_shell.agents.triage`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sleuth_core.language import TimeWindow, match_services, stated_onset, terms
from sleuth_shell.agents import rca, trace_evidence
from sleuth_shell.agents.base import (
    AgentContext,
    AgentResult,
    Classification,
    ContextMessage,
    SourceRecord,
)
from sleuth_shell.agents.catalog_answer import (
    PAST_INCIDENT,
    answer_from_catalog,
    names_a_record,
)
from sleuth_shell.agents.claims import verify
from sleuth_shell.agents.digest_section import digest_section
from sleuth_shell.agents.embedded_run import (
    ERROR_LEVELS,
    EmbeddedRun,
    conversation_sentences,
    describe,
    inline,
    runbook_block,
    services_phrase,
    ts,
)
from sleuth_shell.agents.log_answer import answer_from_logs
from sleuth_shell.agents.sources import CostModel
from sleuth_shell.agents.triage import classify_message
from sleuth_shell.question import expand_shorthand, understand
from sleuth_shell.text import extract_alert

__all__ = ["RetrievalAgent"]

#: An asked window longer than this is analysed around its first burst of errors.
_LONG_WINDOW = timedelta(hours=3)


def _previous_user_message(history: Sequence[ContextMessage]) -> str:
    for message in reversed(history):
        if message.role == "user" and message.content.strip():
            return message.content
    return ""


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
        """Answer ``question`` from the knowledge catalog or the logs (see the module doc), its
        claims checked against its sources (`sleuth_shell.agents.claims.verify`)."""
        result = await self._answer(ctx, question, history=history, use_tools=use_tools)
        if result.analysis is not None or not result.sources:
            return result  # the engine's report is checked where it is written
        return await verify(ctx, result)

    async def _answer(
        self,
        ctx: AgentContext,
        question: str,
        *,
        history: Sequence[ContextMessage] = (),
        use_tools: bool = True,
    ) -> AgentResult:
        if not use_tools:
            return self._answer_from_conversation(question, history)
        run = EmbeddedRun(ctx, self.costs)
        question = expand_shorthand(question)
        previous = expand_shorthand(_previous_user_message(history))
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
        search = question if len(terms(question)) >= 4 or not previous else f"{previous} {question}"
        if PAST_INCIDENT.search(question) or (
            asked.about_logs and await names_a_record(run, question, known)
        ):
            past = await answer_from_catalog(run, search, asked, bool(known))
            if past.sources:
                return past
            searched = run.knowledge_searches
            run = EmbeddedRun(ctx, self.costs)
            run.knowledge_searches = searched
        if asked.intent == "cause":
            found = await self._answer_cause(run, question, window, services)
            if found is not None:
                return found
        if known and (asked.about_logs or (asked.intent == "fact" and window and services)):
            return await answer_from_logs(run, asked, window, services)
        return await answer_from_catalog(run, search, asked, bool(known))

    async def _answer_cause(
        self,
        run: EmbeddedRun,
        question: str,
        window: TimeWindow | None,
        services: Sequence[str],
    ) -> AgentResult | None:
        """A "why" / "root cause" question answered by the root-cause engine, as if an alert on
        the named service fired at the end of the asked window (or now), the analysis starting
        half a look-back before a "since" time (the asked onset); None when the
        organization has logs and the engine finds no failure to explain (the log answer is given
        instead). Without logs, the engine's report over the changes, metrics, traces and data
        sources is the answer even when it sees no failure."""
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
        start = window.start if window is not None else fired - rca.LOOKBACK
        onset = stated_onset(question, fired)
        if onset is not None:
            # "failing since ~15:05" (whatever day word is beside it): the failure asked about
            # began then; the analysis is centred on it, half a look-back either side, and the
            # engine takes it as the failure's onset.
            start = onset - rca.LOOKBACK / 2
            fired = min(fired, onset + rca.LOOKBACK / 2)
        elif window is not None and window.label in ("since", "between", "at"):
            # "failing since 15:05", "kept erroring 01:00-02:00" or "failing around 03:30": the
            # asked time is when it failed; the analysis starts half a look-back before it, so
            # the failure has a quiet baseline to stand out against.
            start = window.start - rca.LOOKBACK / 2
        if onset is None and window is not None and window.end - window.start > _LONG_WINDOW:
            # A long asked window (a day): the analysis is centred on the first burst of errors
            # in it, half a look-back either side, so the failure has a quiet baseline before it
            # even when it began early in the window.
            top = await run.top(window, named or None, ERROR_LEVELS, 8)
            bursts = [m.first_seen for m in top if m.count >= 3]
            if bursts:
                start = min(bursts) - rca.LOOKBACK / 2
                fired = min(fired, min(bursts) + rca.LOOKBACK / 2)
        return await self._investigate_with_engine(
            run,
            payload["title"],
            payload,
            fired,
            named,
            summary=False,
            need_failure=bool(known),
            window_start=start,
            onset=onset,
        )

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
            for sentence in conversation_sentences(message.content):
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
            f"- {'You' if role == 'user' else 'Earlier answer'}: {inline(text, 400)}"
            for _, _, role, text in best
        ]
        body = "From what was said earlier in this conversation:\n\n" + "\n".join(lines)
        return AgentResult(f"{note}\n\n{body}\n", {}, self.costs.charge(0, 0))

    # --- investigate ----------------------------------------------------------------------------

    async def investigate(
        self, ctx: AgentContext, prompt: str, event_payload: str, *, title: str = ""
    ) -> AgentResult:
        """Investigate an alert with the root-cause engine (see the module doc), the report's
        claims checked against its sources."""
        run = EmbeddedRun(ctx, self.costs)
        alert = extract_alert(event_payload)
        title = (title or alert["title"] or event_payload.strip().split("\n", 1)[0]).strip()
        fired = rca.fired_at(alert["time"], prompt, ctx.now)
        known = await run.services()
        mentioned = match_services(
            " ".join(filter(None, [title, alert["service"] or "", alert["text"]])), known
        )
        # An alert that says when the failure began ("errors since ~14:10"): its onset.
        onset = stated_onset(" ".join(filter(None, [title, alert["text"]])), fired)
        result = await self._investigate_with_engine(
            run, title, alert, fired, mentioned, onset=onset
        )
        assert result is not None  # without need_failure the engine always reports
        return result

    async def _investigate_with_engine(
        self,
        run: EmbeddedRun,
        title: str,
        alert: Mapping[str, Any],
        fired: datetime,
        mentioned: Sequence[str],
        *,
        summary: bool = True,
        need_failure: bool = False,
        window_start: datetime | None = None,
        onset: datetime | None = None,
    ) -> AgentResult | None:
        """The root-cause engine's report (`sleuth_shell.agents.rca`), verdict first; with
        ``need_failure``, None when the engine sees no failure."""
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
            onset=onset,
        )
        traced = gathered.traced or trace_evidence.TraceFindings(gathered.start, gathered.end)
        run.log_queries += gathered.queries
        run.knowledge_searches += gathered.searches
        analysis = rca.run_engine(gathered)
        if need_failure and analysis.onset is None:
            return None
        window = TimeWindow(gathered.start, gathered.end, "look-back")
        when = "in the asked window" if gathered.asked else "before the alert"

        def cite_errors(services: Sequence[str] | None) -> str:
            marker = run.cite_logs(
                window,
                services,
                rca.SIGNAL_LEVELS,
                f"Errors and warnings from {describe(services)} {when}",
            )
            gathered.texts[int(marker[len("[[source:") : -2])] = rca.errors_text(gathered, services)
            return marker

        cite_failures = trace_evidence.errors_citer(
            traced, gathered.logged, cite_errors, run.cite, ctx.public_url
        )
        body, evidence = rca.report(
            gathered, analysis, run.cite, public_url=ctx.public_url, cite_errors=cite_failures
        )
        parts = [body]
        traced_text = trace_evidence.findings_text(traced)

        def cite_trace(record: SourceRecord) -> str:
            marker = run.cite(record)
            gathered.texts[int(marker[len("[[source:") : -2])] = traced_text
            return marker

        traces = trace_evidence.traces_section(traced, cite_trace, ctx.public_url)
        if traces:
            parts.append(traces)
            evidence += [i for i in trace_evidence.cited_ids(traces) if i not in evidence]
        if summary:
            parts.insert(1, self._alert_summary(title, alert, fired, mentioned))
        if not gathered.has_logs and not gathered.has_data and not traced.found:
            parts.insert(
                1,
                "No logs are stored for this organization, and no change records or metrics: "
                "there is nothing to date a failure by.",
            )
        origin = analysis.service or service
        top_message = next(
            (s.message for s in gathered.evidence.signatures if s.service == origin), ""
        )
        search = " ".join(filter(None, [origin, top_message])) or title
        hits = await run.search(search, limit=3) if search else []
        hits = [h for h in hits if "catalog" not in h.title.lower()][:1]
        if hits and set(terms(search)) & set(terms(hits[0].title + " " + hits[0].content[:400])):
            parts.append(
                "## Runbook\n\n" + runbook_block(run, hits[0], search, terms(search), act=True)
            )
        result = run.result("\n\n".join(parts))
        result = dataclasses.replace(
            result, analysis=rca.analysis_dict(analysis, evidence, gathered)
        )
        return await verify(ctx, result, gathered.texts)

    @staticmethod
    def _alert_summary(
        title: str, alert: Mapping[str, Any], fired: datetime, mentioned: Sequence[str]
    ) -> str:
        lines = [f"## Alert\n\n**{inline(title, 200) or 'Untitled alert'}**", ""]
        if alert.get("service"):
            lines.append(f"- Service: {inline(alert['service'], 100)}")
        if alert.get("severity"):
            lines.append(f"- Severity: {inline(alert['severity'], 50)}")
        when = "fired" if alert.get("time") else "received (the payload carries no time)"
        lines.append(f"- {when.capitalize()}: {ts(fired)}")
        if mentioned:
            lines.append(f"- Services it concerns: {services_phrase(mentioned)}")
        return "\n".join(lines)

    # --- digest and classify --------------------------------------------------------------------

    async def digest_section(self, ctx: AgentContext, section: str, prompt: str) -> AgentResult:
        """Report on one digest section (:mod:`sleuth_shell.agents.digest_section`), its claims
        checked against its sources."""
        result = await digest_section(EmbeddedRun(ctx, self.costs), section, prompt)
        return await verify(ctx, result) if result.sources else result

    async def classify(self, ctx: AgentContext, message: str, instructions: str) -> Classification:
        """Decide how a chat trigger handles ``message`` by keyword rules read from the
        instructions (:mod:`sleuth_shell.agents.triage` lists them): a matching "ignore" rule
        wins, else the first matching rule; unmatched messages are ``NONE`` when the instructions
        say what to answer and ``AGENT`` when they only say what to ignore."""
        return Classification(
            classify_message(message, instructions), round(self.costs.classify, 6)
        )
