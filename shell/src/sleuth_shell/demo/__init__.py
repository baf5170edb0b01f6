"""The demo data set shipped in the package: runbooks, a day of logs, change records and metrics of
a small fictional shop.

Pebble & Pine sells outdoor gear online. Its twelve runbooks (``data/runbooks/*.md``) cover
checkout, payments, the database connection pool, inventory, search, auth, the cache, the orders
queue, deploys and rollbacks, on-call escalation, incident communication and TLS certificates. Its
logs (`sleuth_shell.demo.logs`) cover the 24 hours before loading and contain an incident: a bad
deploy of ``payments-api`` 2 h 30 min before load time leaks database connections, checkout fails
with 5xx until the on-call rolls it back 1 h 35 min before load time. Its deploys and the commits
they ship are change records, with files and diffs (`sleuth_shell.demo.changes`), and error-rate,
p99-latency and connection-pool series show the incident.

The log timestamps are relative to ``now`` (default: the current time, rounded down to the
minute), so the incident is always within the last few hours, where questions such as "what went
wrong with checkout in the last 3 hours?" find it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from importlib.resources import files
from typing import Any

from sqlalchemy import delete, select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.changes.ingest import store_changes
from sleuth_shell.db import models
from sleuth_shell.demo.changes import (
    METRIC_NAMES,
    METRIC_SERVICES,
    generate_changes,
    generate_metrics,
)
from sleuth_shell.demo.logs import SERVICES, generate_logs
from sleuth_shell.knowledge.search import merge_search_index
from sleuth_shell.observability.metric_ingest import store_metrics

__all__ = ["DEMO_DATASET", "demo_runbooks", "load_demo"]

DEMO_DATASET = "pebble-and-pine-demo"
"""The ``dataset`` attribute every demo log record carries (how a reload finds the old ones)."""


def demo_runbooks() -> list[tuple[str, str]]:
    """The demo runbooks as ``(title, markdown)``, sorted by file name; the title is the first
    heading."""
    folder = files("sleuth_shell.demo").joinpath("data", "runbooks")
    runbooks = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".md"):
            continue
        content = entry.read_text(encoding="utf-8")
        first = content.lstrip().splitlines()[0]
        runbooks.append((first.lstrip("#").strip(), content))
    return runbooks


async def load_demo(
    session: AsyncSession,
    org_id: int,
    *,
    now: datetime | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, int]:
    """Load the demo runbooks, logs, change records and metrics into ``org_id`` and commit;
    returns the numbers loaded.

    Loading again moves the demo logs, changes and metric points to end at ``now`` (change records
    keep their row ids, as any re-sent change does) (so the sample incident is always in the
    last few hours: ``make demo`` reloads at every start), replaces the demo runbooks whose text
    changed (unchanged ones keep their IDs, so earlier answers' sources still open), and leaves
    everything else alone. ``progress`` is told about each step (the CLI prints it in a terminal).
    """
    say = progress or (lambda _message: None)
    end = (now or datetime.now(UTC)).astimezone(UTC)
    runbooks = demo_runbooks()
    titles = [title for title, _ in runbooks]
    existing = {
        (doc.title, doc.content)
        for doc in await session.scalars(
            select(models.KnowledgeDocument).where(
                models.KnowledgeDocument.org_id == org_id,
                models.KnowledgeDocument.title.in_(titles),
            )
        )
    }
    fresh = [(title, content) for title, content in runbooks if (title, content) not in existing]
    changed = {title for title, _ in fresh}
    say(f"runbooks: {len(runbooks) - len(fresh)} unchanged, {len(fresh)} to (re)load")
    if changed:
        await session.execute(
            delete(models.KnowledgeDocument).where(
                models.KnowledgeDocument.org_id == org_id,
                models.KnowledgeDocument.title.in_(sorted(changed)),
            )
        )
    old = (
        await session.execute(
            select(models.LogRecord.id, models.LogRecord.attributes).where(
                models.LogRecord.org_id == org_id, models.LogRecord.service.in_(SERVICES)
            )
        )
    ).all()
    stale = [row.id for row in old if (row.attributes or {}).get("dataset") == DEMO_DATASET]
    for start in range(0, len(stale), 500):
        await session.execute(
            delete(models.LogRecord).where(models.LogRecord.id.in_(stale[start : start + 500]))
        )
    say(f"logs: removed {len(stale)} earlier demo records")
    session.add_all(
        models.KnowledgeDocument(org_id=org_id, title=title, content=content, url=None)
        for title, content in fresh
    )
    records: list[dict[str, Any]] = [
        {
            "org_id": org_id,
            "timestamp": record["timestamp"],
            "service": record["service"],
            "level": record["level"],
            "message": record["message"],
            "attributes": {**record["attributes"], "dataset": DEMO_DATASET},
        }
        for record in generate_logs(end)
    ]
    say(f"logs: writing {len(records)} records ending {end:%Y-%m-%d %H:%M} UTC")
    if records:
        await session.execute(models.LogRecord.__table__.insert(), records)
    day_end = end.replace(second=0, microsecond=0)
    changes = [
        {**row, "attributes": {**row["attributes"], "dataset": DEMO_DATASET}}
        for row in generate_changes(day_end)
    ]
    await store_changes(session, org_id, changes)
    say(f"changes: wrote {len(changes)} change records")
    S = models.MetricSeriesRow
    demo_series = select(S.id).where(
        S.org_id == org_id,
        S.labels_key == "{}",
        tuple_(S.service, S.name).in_([(s, n) for s in METRIC_SERVICES for n in METRIC_NAMES]),
    )
    await session.execute(
        delete(models.MetricPoint).where(models.MetricPoint.series_id.in_(demo_series))
    )
    points = await store_metrics(session, org_id, generate_metrics(day_end))
    say(f"metrics: wrote {points} points")
    await merge_search_index(session)  # the runbooks' search index, merged as for any write
    await session.commit()
    say("done")
    return {
        "documents": len(runbooks),
        "log_records": len(records),
        "changes": len(changes),
        "metric_points": points,
    }
