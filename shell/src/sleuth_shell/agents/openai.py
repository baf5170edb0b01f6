"""The ``openai`` agent: a model behind an OpenAI-compatible chat-completions endpoint writes the
answer from what the retrieval agent found.

Configuration (DESIGN.md section 2): ``SLEUTH_LLM_BASE_URL`` (e.g. ``https://api.openai.com/v1``;
``/chat/completions`` is appended), ``SLEUTH_LLM_MODEL`` and, when the endpoint needs one,
``SLEUTH_LLM_API_KEY`` (sent as ``Authorization: Bearer``).

Each operation first runs the `RetrievalAgent` (knowledge search and log queries), then sends the
model one request: a system message with the rules (cite with ``[[source:N]]``, mark timestamps
with ``§...§``, use only the context), the numbered sources and the retrieval findings as context,
the conversation history, and the task. The reply's markers are kept only for sources that exist;
``sources`` holds the cited ones. ``use_tools=False`` skips retrieval: the model sees only the
conversation, and no sources are returned.

Credits: the retrieval run's credits plus ``llm_1k_tokens`` per thousand tokens the endpoint
reports in ``usage.total_tokens`` (`CostModel`).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

import httpx

from sleuth_shell.agents.base import (
    AgentContext,
    AgentError,
    AgentResult,
    Classification,
    ClassificationDecision,
    ContextMessage,
    SourceRecord,
)
from sleuth_shell.agents.retrieval import RetrievalAgent
from sleuth_shell.agents.sources import CostModel

__all__ = ["SYSTEM_PROMPT", "OpenAIAgent"]

SYSTEM_PROMPT = (
    "You are Sleuth, an assistant for on-call engineers investigating production systems. "
    "Answer in concise markdown using only the context you are given. Cite every statement that "
    "comes from the context with its source marker, written exactly as in the context, e.g. "
    "[[source:2]]; never invent a source number. Wrap every timestamp in section signs, e.g. "
    "§2026-11-22T09:41:07Z§. If the context does not answer the question, say so plainly."
)
_NO_TOOLS_PROMPT = (
    "You are Sleuth, an assistant for on-call engineers. No data sources are available for this "
    "answer: answer from the conversation only, say that you did not query any data, and do not "
    "write source markers. Wrap every timestamp in section signs, e.g. §2026-11-22T09:41:07Z§."
)
_CLASSIFY_PROMPT = (
    "You route chat messages for an on-call assistant. Given the trigger instructions and a "
    "message, reply with exactly one word: AGENT if the assistant should answer the message, "
    "STATIC if the configured static response should be sent, NONE if the message should be "
    "ignored."
)
_MARKER = re.compile(r"\[\[source:(\d+)\]\]")
_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class OpenAIAgent:
    """An `Agent` backed by an OpenAI-compatible ``/chat/completions`` endpoint."""

    name = "openai"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        costs: CostModel | None = None,
        timeout: float = 60.0,
        attempts: int = 2,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if not base_url or not model:
            raise AgentError(
                "The openai agent needs SLEUTH_LLM_BASE_URL and SLEUTH_LLM_MODEL to be set"
            )
        self.endpoint = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = api_key
        self.costs = costs or CostModel()
        self.timeout = timeout
        self.attempts = max(1, attempts)
        self._transport = transport
        self._retrieval = RetrievalAgent(self.costs)

    @classmethod
    def from_settings(cls, settings: Any) -> OpenAIAgent:
        """Build from ``settings.llm_base_url``, ``llm_model``, ``llm_api_key`` and the cost model
        of ``settings.agent_costs``."""
        return cls(
            base_url=getattr(settings, "llm_base_url", None) or "",
            model=getattr(settings, "llm_model", None) or "",
            api_key=getattr(settings, "llm_api_key", None),
            costs=CostModel.from_settings(settings),
        )

    # --- the endpoint ---------------------------------------------------------------------------

    async def _complete(self, messages: list[dict[str, str]]) -> tuple[str, int]:
        """Send one chat completion; returns the reply text and the tokens used."""
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        body = {"model": self.model, "messages": messages, "temperature": 0}
        last_error = ""
        async with httpx.AsyncClient(timeout=self.timeout, transport=self._transport) as client:
            for attempt in range(self.attempts):
                if attempt:
                    await asyncio.sleep(0.5 * 2 ** (attempt - 1))
                try:
                    response = await client.post(self.endpoint, json=body, headers=headers)
                except httpx.HTTPError as exc:
                    last_error = f"{type(exc).__name__}: {exc}"
                    continue
                if response.status_code in _RETRY_STATUSES:
                    last_error = f"HTTP {response.status_code}: {response.text[:200]}"
                    continue
                if response.status_code != 200:
                    raise AgentError(
                        f"LLM endpoint answered HTTP {response.status_code}: {response.text[:200]}"
                    )
                return self._parse(response)
        raise AgentError(f"LLM endpoint failed after {self.attempts} attempts: {last_error}")

    @staticmethod
    def _parse(response: httpx.Response) -> tuple[str, int]:
        try:
            data = response.json()
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise AgentError(f"LLM endpoint sent no completion: {response.text[:200]}") from None
        if not isinstance(content, str):
            raise AgentError("LLM endpoint sent a completion without text content")
        usage = data.get("usage") if isinstance(data, dict) else None
        tokens = usage.get("total_tokens", 0) if isinstance(usage, dict) else 0
        return content, tokens if isinstance(tokens, int) and tokens > 0 else 0

    def _credits(self, base: float, tokens: int) -> float:
        return round(base + self.costs.llm_1k_tokens * tokens / 1000, 6)

    # --- composing ------------------------------------------------------------------------------

    @staticmethod
    def _context(found: AgentResult) -> str:
        lines = ["Sources:"]
        for source_id, record in sorted(found.sources.items()):
            lines.append(
                f"[[source:{source_id}]] {record['display_text']} ({record['log_type_name']}, "
                f"{record['start']} to {record['end']}, {record['link']})"
            )
        lines += ["", "Findings from querying these sources:", "", found.markdown]
        return "\n".join(lines)

    @staticmethod
    def _history(history: Sequence[ContextMessage]) -> list[dict[str, str]]:
        return [{"role": m.role, "content": m.content} for m in history]

    @staticmethod
    def _keep_cited(markdown: str, sources: dict[int, SourceRecord]) -> AgentResult:
        cited: dict[int, SourceRecord] = {}

        def keep(match: re.Match[str]) -> str:
            source_id = int(match[1])
            if source_id not in sources:
                return ""
            cited[source_id] = sources[source_id]
            return match[0]

        text = _MARKER.sub(keep, markdown).strip() + "\n"
        return AgentResult(text, cited, 0.0)

    async def _grounded(
        self,
        found: AgentResult,
        task: str,
        history: Sequence[ContextMessage] = (),
    ) -> AgentResult:
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "system", "content": self._context(found)},
            *self._history(history),
            {"role": "user", "content": task},
        ]
        reply, tokens = await self._complete(messages)
        result = self._keep_cited(reply, found.sources)
        return AgentResult(result.markdown, result.sources, self._credits(found.credits, tokens))

    # --- the Agent protocol ---------------------------------------------------------------------

    async def answer(
        self,
        ctx: AgentContext,
        question: str,
        *,
        history: Sequence[ContextMessage] = (),
        use_tools: bool = True,
    ) -> AgentResult:
        """Answer with the model, grounded in the retrieval agent's findings."""
        if not use_tools:
            messages = [
                {"role": "system", "content": _NO_TOOLS_PROMPT},
                *self._history(history),
                {"role": "user", "content": question},
            ]
            reply, tokens = await self._complete(messages)
            text = _MARKER.sub("", reply).strip() + "\n"
            return AgentResult(text, {}, self._credits(self.costs.run, tokens))
        found = await self._retrieval.answer(ctx, question, history=history)
        return await self._grounded(found, question, history)

    async def investigate(
        self, ctx: AgentContext, prompt: str, event_payload: str, *, title: str = ""
    ) -> AgentResult:
        """Investigate an alert with the model, grounded in the retrieval investigation."""
        found = await self._retrieval.investigate(ctx, prompt, event_payload, title=title)
        task = (
            f"Investigate this alert{f' ({title})' if title else ''}. Summarise it, say what the "
            "logs show around it, propose the most likely root cause with evidence, and point to "
            f"the runbook.\n\nResponder instructions:\n{prompt}\n\nAlert payload:\n{event_payload}"
        )
        return await self._grounded(found, task)

    async def digest_section(self, ctx: AgentContext, section: str, prompt: str) -> AgentResult:
        """Write a digest section with the model, grounded in the retrieval report."""
        found = await self._retrieval.digest_section(ctx, section, prompt)
        task = f"Write the body of the digest section '{section}' (no heading): {prompt}"
        return await self._grounded(found, task)

    async def classify(self, ctx: AgentContext, message: str, instructions: str) -> Classification:
        """Ask the model for AGENT/STATIC/NONE; an unusable reply falls back to the retrieval
        agent's keyword rules."""
        messages = [
            {"role": "system", "content": _CLASSIFY_PROMPT},
            {"role": "user", "content": f"Instructions:\n{instructions}\n\nMessage:\n{message}"},
        ]
        reply, tokens = await self._complete(messages)
        decision: ClassificationDecision
        match = re.search(r"\b(AGENT|STATIC|NONE)\b", reply.upper())
        if match is not None:
            decision = match[1]  # type: ignore[assignment]
        else:
            decision = (await self._retrieval.classify(ctx, message, instructions)).decision
        return Classification(decision, self._credits(self.costs.classify, tokens))
