"""In-memory fakes of the agent store protocols (logs, changes, metrics, knowledge), for the
root-cause tests and private evaluation scripts. Semantics follow `sleuth_shell.agents.base`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sleuth_shell.agents.base import (
    ChangeRecord,
    KnowledgeDocument,
    KnowledgeHit,
    LogCount,
    LogMessageCount,
    LogRecord,
    MetricSeries,
)


def parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


class MemoryLogs:
    def __init__(self, records: Sequence[LogRecord]) -> None:
        self.records = sorted(records, key=lambda r: (r.timestamp, r.id))

    def _select(self, start, end, services=None, levels=None, text=None):  # type: ignore[no-untyped-def]
        for r in self.records:
            if not (start <= r.timestamp < end):
                continue
            if services and r.service not in services:
                continue
            if levels and r.level not in levels:
                continue
            if text and text.lower() not in r.message.lower():
                continue
            yield r

    async def query(self, org_id, start, end, services=None, levels=None, text=None, limit=100):  # type: ignore[no-untyped-def]
        return list(self._select(start, end, services, levels, text))[:limit]

    async def counts(self, org_id, start, end, services=None):  # type: ignore[no-untyped-def]
        table: dict[tuple[str, str], int] = {}
        for r in self._select(start, end, services):
            table[(r.service, r.level)] = table.get((r.service, r.level), 0) + 1
        return [LogCount(s, lvl, n) for (s, lvl), n in sorted(table.items())]

    async def top_messages(self, org_id, start, end, services=None, levels=None, limit=5):  # type: ignore[no-untyped-def]
        table: dict[tuple[str, str, str], list[Any]] = {}
        for r in self._select(start, end, services, levels):
            row = table.setdefault((r.service, r.level, r.message), [0, r.timestamp, r.timestamp])
            row[0] += 1
            row[2] = r.timestamp
        ordered = sorted(table.items(), key=lambda kv: (-kv[1][0], kv[0]))
        return [LogMessageCount(s, lvl, m, n, f, la) for (s, lvl, m), (n, f, la) in ordered][:limit]

    async def histogram(self, org_id, start, end, bucket_seconds, services=None, levels=None):  # type: ignore[no-untyped-def]
        table: dict[int, int] = {}
        for r in self._select(start, end, services, levels):
            key = int(r.timestamp.timestamp()) // bucket_seconds * bucket_seconds
            table[key] = table.get(key, 0) + 1
        return [(datetime.fromtimestamp(k, UTC), n) for k, n in sorted(table.items())]

    async def services(self, org_id):  # type: ignore[no-untyped-def]
        return sorted({r.service for r in self.records})

    async def time_bounds(self, org_id):  # type: ignore[no-untyped-def]
        if not self.records:
            return None
        return self.records[0].timestamp, self.records[-1].timestamp


class MemoryChanges:
    def __init__(self, records: Sequence[ChangeRecord]) -> None:
        self.records = sorted(records, key=lambda r: (r.timestamp, r.id))

    async def query(self, org_id, start, end, services=None, kinds=None, text=None, limit=200):  # type: ignore[no-untyped-def]
        out = []
        for r in self.records:
            if not (start <= r.timestamp < end):
                continue
            if services and r.service not in services:
                continue
            if kinds and r.kind not in kinds:
                continue
            blob = f"{r.summary} {' '.join(r.files)} {r.diff}".lower()
            if text and text.lower() not in blob:
                continue
            out.append(r)
        return out[:limit]

    async def get_many(self, org_id, change_ids):  # type: ignore[no-untyped-def]
        wanted = set(change_ids)
        return [r for r in self.records if r.change_id in wanted]


class MemoryMetrics:
    def __init__(self, series: Sequence[MetricSeries]) -> None:
        self.series = list(series)

    async def query(self, org_id, start, end, services=None, names=None, limit=100):  # type: ignore[no-untyped-def]
        out = []
        for s in sorted(self.series, key=lambda s: (s.service, s.name, sorted(s.labels.items()))):
            if services and s.service not in services:
                continue
            if names and s.name not in names:
                continue
            points = tuple(p for p in s.points if start <= p[0] < end)
            if points:
                out.append(MetricSeries(s.id, s.name, s.service, s.labels, points))
        return out[:limit]


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
