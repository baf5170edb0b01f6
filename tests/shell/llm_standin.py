"""A local stand-in for a cloud LLM, and in-memory stores, for the ``openai`` agent's tests.

`StandInLLM` is a real HTTP server on 127.0.0.1 (a thread) that speaks the OpenAI chat-completions
wire format: it records every request it receives and answers with scripted replies, which may be
tool calls. It stands in for a cloud LLM; no model runs. The memory stores implement the agent
protocols (`KnowledgeSearch`, `LogStore`, `ChangeStore`, `MetricStore`) over lists, with the same
filtering rules as the database stores (``[start, end)``, substring text filters).
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from sleuth_core.language import terms
from sleuth_shell.agents.base import (
    ChangeRecord,
    KnowledgeDocument,
    KnowledgeHit,
    LogCount,
    LogMessageCount,
    LogRecord,
    MetricSeries,
)

Reply = tuple[int, Any] | Callable[[dict[str, Any]], tuple[int, Any]]


@dataclass
class StandInLLM:
    """What the stand-in server received (``requests``: path, headers, JSON body) and the replies
    it sends next, in order (a reply is ``(status, body)`` or a function of the request body)."""

    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)

    def bodies(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests]


@contextmanager
def standin_llm() -> Iterator[StandInLLM]:
    """Run a `StandInLLM` server for the duration of the block."""
    state = StandInLLM()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            body = json.loads(self.rfile.read(length))
            state.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            reply = state.replies.pop(0) if state.replies else (500, {"error": "no reply left"})
            status, payload_obj = reply(body) if callable(reply) else reply
            payload = json.dumps(payload_obj).encode()
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
    """A final answer."""
    return 200, {
        "id": "cmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": tokens - 50, "completion_tokens": 50, "total_tokens": tokens},
    }


def tool_calls(*calls: tuple[str, Any], tokens: int = 1000) -> tuple[int, dict[str, Any]]:
    """A reply asking for tool calls: ``(name, arguments)`` with arguments as an object (sent as
    JSON text, as OpenAI does) or as raw text (sent as is)."""
    items = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        }
        for i, (name, args) in enumerate(calls, start=1)
    ]
    return 200, {
        "id": "cmpl-2",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "tool_calls": items},
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": tokens - 20, "completion_tokens": 20, "total_tokens": tokens},
    }


# --- in-memory stores ---------------------------------------------------------------------------


class MemoryKnowledge:
    """Documents ranked by how many of the query's words they hold (title words count 4x)."""

    def __init__(self, documents: Sequence[tuple[int, str, str]]) -> None:
        self.documents = [
            KnowledgeDocument(i, t, c, None, datetime(2026, 1, 1)) for i, t, c in documents
        ]

    async def search(self, org_id: int, query: str, limit: int = 5) -> list[KnowledgeHit]:
        wanted = set(terms(query))
        scored = []
        for d in self.documents:
            score = 4 * len(wanted & set(terms(d.title))) + len(wanted & set(terms(d.content)))
            if score:
                scored.append((score, d))
        scored.sort(key=lambda item: (-item[0], item[1].id))
        return [
            KnowledgeHit(d.id, d.title, d.url, d.content[:100], float(s), d.content)
            for s, d in scored[:limit]
        ]

    async def get(self, org_id: int, doc_id: int) -> KnowledgeDocument | None:
        return next((d for d in self.documents if d.id == doc_id), None)


class MemoryLogs:
    """Log records in a list."""

    def __init__(self, records: Sequence[LogRecord]) -> None:
        self.records = sorted(records, key=lambda r: (r.timestamp, r.id))
        self.calls: list[str] = []

    def _select(
        self,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None,
        levels: Sequence[str] | None = None,
        text: str | None = None,
    ) -> list[LogRecord]:
        return [
            r
            for r in self.records
            if start <= r.timestamp < end
            and (not services or r.service in services)
            and (not levels or r.level in levels)
            and (not text or text.lower() in r.message.lower())
        ]

    async def query(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        levels: Sequence[str] | None = None,
        text: str | None = None,
        limit: int = 100,
    ) -> list[LogRecord]:
        self.calls.append("query")
        return self._select(start, end, services, levels, text)[:limit]

    async def messages(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        levels: Sequence[str] | None = None,
        limit: int = 100,
    ) -> list[tuple[int, datetime, str]]:
        self.calls.append("messages")
        return [(r.id, r.timestamp, r.message) for r in self._select(start, end, services, levels)][
            :limit
        ]

    async def counts(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
    ) -> list[LogCount]:
        self.calls.append("counts")
        found = Counter((r.service, r.level) for r in self._select(start, end, services))
        return [LogCount(s, lvl, n) for (s, lvl), n in sorted(found.items())]

    async def top_messages(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        levels: Sequence[str] | None = None,
        limit: int = 5,
    ) -> list[LogMessageCount]:
        self.calls.append("top_messages")
        groups: dict[tuple[str, str, str], list[LogRecord]] = {}
        for r in self._select(start, end, services, levels):
            groups.setdefault((r.service, r.level, r.message), []).append(r)
        rows = [
            LogMessageCount(s, lvl, m, len(g), g[0].timestamp, g[-1].timestamp)
            for (s, lvl, m), g in groups.items()
        ]
        rows.sort(key=lambda m: (-m.count, m.service, m.message))
        return rows[:limit]

    async def histogram(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        bucket_seconds: int,
        services: Sequence[str] | None = None,
        levels: Sequence[str] | None = None,
    ) -> list[tuple[datetime, int]]:
        self.calls.append("histogram")
        found: Counter[datetime] = Counter()
        for r in self._select(start, end, services, levels):
            epoch = int(r.timestamp.timestamp()) // bucket_seconds * bucket_seconds
            found[datetime.fromtimestamp(epoch, r.timestamp.tzinfo)] += 1
        return sorted(found.items())

    async def services(self, org_id: int) -> list[str]:
        return sorted({r.service for r in self.records})

    async def time_bounds(self, org_id: int) -> tuple[datetime, datetime] | None:
        if not self.records:
            return None
        return self.records[0].timestamp, self.records[-1].timestamp


class MemoryChanges:
    """Change records in a list."""

    def __init__(self, records: Sequence[ChangeRecord]) -> None:
        self.records = sorted(records, key=lambda c: (c.timestamp, c.id))

    async def query(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
        text: str | None = None,
        limit: int = 200,
    ) -> list[ChangeRecord]:
        needle = (text or "").lower()
        return [
            c
            for c in self.records
            if start <= c.timestamp < end
            and (not services or c.service in services)
            and (not kinds or c.kind in kinds)
            and (
                not needle
                or needle in c.summary.lower()
                or needle in c.diff.lower()
                or any(needle in f.lower() for f in c.files)
            )
        ][:limit]

    async def get_many(self, org_id: int, change_ids: Sequence[str]) -> list[ChangeRecord]:
        return [c for c in self.records if c.change_id in change_ids]


class MemoryMetrics:
    """Metric series in a list."""

    def __init__(self, series: Sequence[MetricSeries]) -> None:
        self.series = list(series)

    async def query(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        names: Sequence[str] | None = None,
        limit: int = 100,
    ) -> list[MetricSeries]:
        out = []
        for s in sorted(self.series, key=lambda s: (s.service, s.name, sorted(s.labels.items()))):
            if (services and s.service not in services) or (names and s.name not in names):
                continue
            points = tuple(p for p in s.points if start <= p[0] < end)
            if points:
                out.append(MetricSeries(s.id, s.name, s.service, s.labels, points))
        return out[:limit]
