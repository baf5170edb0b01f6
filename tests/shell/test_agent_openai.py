"""The openai agent against a mock LLM server: a local HTTP server standing in for the cloud LLM."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from sleuth_shell.agents import AgentContext, AgentError, ContextMessage, load_agent
from sleuth_shell.agents.base import (
    KnowledgeDocument,
    KnowledgeHit,
    LogCount,
    LogMessageCount,
    LogRecord,
)
from sleuth_shell.agents.openai import SYSTEM_PROMPT, OpenAIAgent

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
RUNBOOK = "# Deploys and rollbacks\n\n## Rolling back\nRun `deployctl rollback <service>`.\n"


class OneRunbook:
    """A knowledge catalog holding one runbook."""

    async def search(self, org_id: int, query: str, limit: int = 5) -> list[KnowledgeHit]:
        if "roll" not in query.lower():
            return []
        return [KnowledgeHit(7, "Deploys and rollbacks", None, "Run deployctl", 1.0, RUNBOOK)]

    async def get(self, org_id: int, doc_id: int) -> KnowledgeDocument | None:
        return None


class NoLogs:
    """A log store with nothing in it."""

    async def query(self, *args: Any, **kwargs: Any) -> list[LogRecord]:
        return []

    async def counts(self, *args: Any, **kwargs: Any) -> list[LogCount]:
        return []

    async def top_messages(self, *args: Any, **kwargs: Any) -> list[LogMessageCount]:
        return []

    async def histogram(self, *args: Any, **kwargs: Any) -> list[tuple[datetime, int]]:
        return []

    async def services(self, org_id: int) -> list[str]:
        return []

    async def time_bounds(self, org_id: int) -> tuple[datetime, datetime] | None:
        return None


@dataclass
class MockLLM:
    """What the mock LLM server received, and what it answers next."""

    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    replies: list[tuple[int, Any]] = field(default_factory=list)


@pytest.fixture
def mock_llm() -> Iterator[MockLLM]:
    state = MockLLM(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            state.requests.append(
                {
                    "path": self.path,
                    "headers": dict(self.headers),
                    "body": json.loads(self.rfile.read(length)),
                }
            )
            status, body = state.replies.pop(0)
            payload = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def completion(text: str, tokens: int = 1000) -> tuple[int, dict[str, Any]]:
    return 200, {
        "id": "cmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": tokens - 50, "completion_tokens": 50, "total_tokens": tokens},
    }


CTX = AgentContext(1, NOW, OneRunbook(), NoLogs(), "http://sleuth.test")


def agent_for(llm: MockLLM) -> OpenAIAgent:
    class Settings:
        llm_base_url = llm.url
        llm_model = "mock-model"
        llm_api_key = "sk-test"

    agent = load_agent("openai", Settings())
    assert isinstance(agent, OpenAIAgent)
    agent.attempts = 2
    return agent


def ask(agent: OpenAIAgent, question: str, **kwargs: Any) -> Any:
    return asyncio.run(agent.answer(CTX, question, **kwargs))


def test_answer_sends_numbered_context_and_keeps_known_markers(mock_llm: MockLLM) -> None:
    mock_llm.replies.append(
        completion(
            "Roll back with `deployctl rollback` [[source:1]] "
            "at §2026-11-22T11:00:00Z§ [[source:9]]."
        )
    )
    history: Sequence[ContextMessage] = (
        ContextMessage("user", "payments broke after a deploy"),
        ContextMessage("assistant", "Which service?"),
    )
    result = ask(agent_for(mock_llm), "How do I roll back a deploy?", history=history)

    (request,) = mock_llm.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test"
    body = request["body"]
    assert body["model"] == "mock-model"
    assert body["temperature"] == 0
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "system", "user", "assistant", "user"]
    assert body["messages"][0]["content"] == SYSTEM_PROMPT
    context = body["messages"][1]["content"]
    assert "[[source:1]] Runbook: Deploys and rollbacks" in context
    assert "http://sleuth.test/knowledge/7" in context
    assert "deployctl rollback" in context
    assert body["messages"][-1]["content"] == "How do I roll back a deploy?"

    assert "[[source:1]]" in result.markdown
    assert "[[source:9]]" not in result.markdown  # unknown source dropped
    assert "§2026-11-22T11:00:00Z§" in result.markdown
    assert list(result.sources) == [1]
    assert result.sources[1]["link"] == "http://sleuth.test/knowledge/7"
    # retrieval run (1.0 + one knowledge search 0.25) + 1000 tokens at 0.5 per 1k
    assert result.credits == pytest.approx(1.75)


def test_without_tools_sends_no_context_and_returns_no_sources(mock_llm: MockLLM) -> None:
    mock_llm.replies.append(completion("I did not query data. See [[source:1]].", tokens=200))
    result = ask(agent_for(mock_llm), "What is a rollback?", use_tools=False)
    body = mock_llm.requests[0]["body"]
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "Sources:" not in json.dumps(body)
    assert result.sources == {}
    assert "[[source:" not in result.markdown
    assert result.credits == pytest.approx(1.1)


def test_retries_a_server_error_then_succeeds(mock_llm: MockLLM) -> None:
    mock_llm.replies += [(503, {"error": "overloaded"}), completion("fine")]
    result = ask(agent_for(mock_llm), "How do I roll back?")
    assert len(mock_llm.requests) == 2
    assert result.markdown == "fine\n"


def test_client_error_is_reported_without_retry(mock_llm: MockLLM) -> None:
    mock_llm.replies.append((401, {"error": {"message": "bad key"}}))
    with pytest.raises(AgentError, match="HTTP 401"):
        ask(agent_for(mock_llm), "How do I roll back?")
    assert len(mock_llm.requests) == 1


def test_malformed_completion_is_an_agent_error(mock_llm: MockLLM) -> None:
    mock_llm.replies.append((200, {"choices": []}))
    with pytest.raises(AgentError, match="no completion"):
        ask(agent_for(mock_llm), "How do I roll back?")


def test_classify_reads_the_decision(mock_llm: MockLLM) -> None:
    mock_llm.replies.append(completion("STATIC", tokens=20))
    agent = agent_for(mock_llm)
    result = asyncio.run(agent.classify(CTX, "where is the status page?", "FAQ answers"))
    assert result.decision == "STATIC"
    assert "where is the status page?" in mock_llm.requests[0]["body"]["messages"][1]["content"]


def test_missing_configuration_names_the_variables() -> None:
    class Settings:
        llm_base_url = None
        llm_model = None
        llm_api_key = None

    with pytest.raises(AgentError, match="SLEUTH_LLM_BASE_URL and SLEUTH_LLM_MODEL"):
        load_agent("openai", Settings())
