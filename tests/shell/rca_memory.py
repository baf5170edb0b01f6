"""An `AgentContext` over one frozen incident, on the in-memory stores of `llm_standin` (logs,
changes, metrics) and a knowledge fake that matches words anywhere in a document, for the
root-cause tests. Semantics follow `sleuth_shell.agents.base`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from llm_standin import MemoryChanges, MemoryLogs, MemoryMetrics

from sleuth_shell.agents.base import (
    ChangeRecord,
    KnowledgeDocument,
    KnowledgeHit,
    LogRecord,
    MetricSeries,
)


def parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


class MemoryKnowledge:
    def __init__(self, docs: Sequence[tuple[str, str]]) -> None:
        now = datetime(2026, 1, 1, tzinfo=UTC)
        self.docs = [KnowledgeDocument(i + 1, t, c, None, now) for i, (t, c) in enumerate(docs)]

    async def search(self, org_id, query, limit=5):  # type: ignore[no-untyped-def]
        import re

        words = {w for w in re.findall(r"[a-z0-9]{3,}", query.lower())}
        scored = []
        for d in self.docs:
            text = f"{d.title} {d.content}".lower()
            score = sum(1 for w in words if w in text)
            if score:
                scored.append((score, d))
        scored.sort(key=lambda x: (-x[0], x[1].id))
        return [
            KnowledgeHit(d.id, d.title, d.url, d.content[:200], float(s), d.content)
            for s, d in scored[:limit]
        ]

    async def get(self, org_id, doc_id):  # type: ignore[no-untyped-def]
        return next((d for d in self.docs if d.id == doc_id), None)


def incident_context(data: dict[str, Any]) -> Any:
    """An `AgentContext` over one frozen incident (evals/rca format)."""
    from sleuth_shell.agents.base import AgentContext

    logs = [
        LogRecord(
            i + 1,
            parse(r["timestamp"]),
            r["service"],
            r["level"],
            r["message"],
            r.get("attributes") or {},
        )
        for i, r in enumerate(data["logs"]["records"])
    ]
    changes = [
        ChangeRecord(
            i + 1,
            c["id"],
            parse(c["timestamp"]),
            c["service"],
            c["kind"],
            c.get("summary") or "",
            c.get("author"),
            c.get("url"),
            tuple(c.get("files") or ()),
            c.get("diff") or "",
            tuple(c.get("ships") or ()),
            c.get("attributes") or {},
        )
        for i, c in enumerate(data["changes"]["records"])
    ]
    metrics = [
        MetricSeries(
            i + 1,
            s["name"],
            s["service"],
            s.get("labels") or {},
            tuple((parse(t), float(v)) for t, v in s["points"]),
        )
        for i, s in enumerate(data["metrics"]["series"])
    ]
    knowledge = [(k["title"], k["content"]) for k in data.get("knowledge", [])]
    return AgentContext(
        org_id=1,
        now=parse(data["now"]),
        knowledge=MemoryKnowledge(knowledge),
        logs=MemoryLogs(logs),
        public_url="http://sleuth.test",
        changes=MemoryChanges(changes),
        metrics=MemoryMetrics(metrics),
    )
