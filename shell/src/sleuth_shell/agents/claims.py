"""Claims checked before a result is stored, for every agent (embedded and LLM alike).

`verify` reads back what each source of a result vouches for (a document's text, a change
record, a metric query's series and values, a log query's distinct messages and counts, a trace's
spans with their exceptions) and runs
`sleuth_core.claims.check_claims` over the answer: a sentence with a number, service name,
commit id or quoted message no source it cites holds is dropped (the first sentence is rewritten
instead), sources no longer cited are left out, and the result's ``analysis`` records ``claims``:
how many were checked, how many held, the share and the sentences dropped (a result without a
root-cause analysis gets ``{"claims": ...}`` alone), so every stored run carries its share.
These read-backs are not charged: they check the answer, they do not write it.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sleuth_core.claims import check_claims, withhold_instructions
from sleuth_core.language import format_ts, parse_timestamp
from sleuth_shell.agents.base import AgentContext, AgentResult, ChangeRecord, SourceRecord

__all__ = ["change_text", "source_text", "verify"]

_MARKER = re.compile(r"\[\[source:(\d+)\]\]")
#: The tools whose sources are read back here (others, such as trace queries and data-source
#: snapshots, are kept by their own modules; sentences citing them are not checked).
_READABLE = frozenset({"knowledge_search", "log_query", "change_query", "metric_query"})
_MESSAGES = 200


def _when(value: Any) -> datetime | None:
    return parse_timestamp(value) if isinstance(value, str) else None


def change_text(change: ChangeRecord) -> str:
    """What one change record vouches for, as text."""
    return " ".join(
        [
            change.kind,
            change.change_id,
            change.service,
            format_ts(change.timestamp),
            change.summary,
            change.author or "",
            " ".join(change.files),
            " ".join(change.ships),
            json.dumps(change.attributes, default=str),
            change.diff,
        ]
    )


async def source_text(
    ctx: AgentContext, source: SourceRecord, changes: Mapping[str, ChangeRecord] | None = None
) -> str:
    """Everything one source vouches for, as text (see the module doc); instruction-like text in
    the data vouches for nothing (`withhold_instructions`). ``changes`` are change records
    already read (by id), so citing many single changes costs one read."""
    return withhold_instructions(await _source_text(ctx, source, changes or {}))


def _one_change(source: SourceRecord) -> str | None:
    """The change id a source cites alone, if it cites one change record."""
    if source.get("type") != "change":
        return None
    try:
        query = json.loads(str(source.get("query") or "{}"))
    except ValueError:
        return None
    return str(query["change_id"]) if isinstance(query, dict) and "change_id" in query else None


async def _source_text(
    ctx: AgentContext, source: SourceRecord, known: Mapping[str, ChangeRecord]
) -> str:
    kind = source.get("type")
    org = ctx.org_id
    try:
        query = json.loads(str(source.get("query") or "{}"))
    except ValueError:
        query = {}
    if not isinstance(query, dict):
        query = {}
    parts = [str(source.get("display_text") or ""), str(source.get("query") or "")]
    if kind == "knowledge":
        artifact = source.get("artifact_id")
        if artifact is not None and str(artifact).isdigit():
            doc = await ctx.knowledge.get(org, int(str(artifact)))
            if doc is not None:
                parts += [doc.title, doc.content]
        return "\n".join(parts)
    start, end = (
        _when(query.get("start") or source.get("start")),
        _when(query.get("end") or source.get("end")),
    )
    if kind == "change":
        if "change_id" in query and str(query["change_id"]) in known:
            changes = [known[str(query["change_id"])]]
        elif "change_id" in query:
            changes = await ctx.changes.get_many(org, [str(query["change_id"])])
        elif start is not None and end is not None:
            changes = await ctx.changes.query(
                org, start, end, query.get("services"), query.get("kinds"), query.get("text"), 200
            )
        else:
            changes = []
        return "\n".join([*parts, *(change_text(c) for c in changes)])
    if kind == "traces":
        trace_id = query.get("trace_id")
        spans = await ctx.traces.trace(org, str(trace_id)) if trace_id else []
        for span in spans:
            parts.append(
                f"{span.service} {span.name} {span.kind} {span.status} {span.status_message} "
                f"{span.duration_ms:g} {format_ts(span.start)} "
                f"{json.dumps(span.attributes, default=str)} {json.dumps(span.events, default=str)}"
            )
        return "\n".join(parts)
    if start is None or end is None:
        return "\n".join(parts)
    if kind == "metrics":
        series = await ctx.metrics.query(
            org, start, end, query.get("services"), query.get("names"), 100
        )
        for m in series:
            values = " ".join(f"{v:g}" for _, v in m.points)
            parts.append(f"{m.service} {m.name} {json.dumps(m.labels)} {values}")
        return "\n".join(parts)
    services, levels, text = query.get("services"), query.get("levels"), query.get("text")
    if text:
        records = await ctx.logs.query(org, start, end, services, levels, text, _MESSAGES)
        for r in records:
            parts.append(f"{r.service} {r.level} {r.message} {json.dumps(r.attributes)}")
        parts.append(str(len(records)))
        return "\n".join(parts)
    counts: Counter[str] = Counter()
    for service, level, count in await ctx.logs.counts(org, start, end, services):
        if levels and level not in levels:
            continue
        for key in ("all", level, service, f"{service}|{level}"):
            counts[key] += count
        if level in ("ERROR", "CRITICAL"):
            counts["errors"] += count
            counts[f"{service}|errors"] += count
    top = await ctx.logs.top_messages(org, start, end, services, levels, _MESSAGES)
    for message in top:
        parts.append(f"{message.service} {message.level} {message.message} {message.count}")
    counts["distinct"] = len(top)
    parts += list(counts)
    parts.append(" ".join(str(v) for v in counts.values()))
    return "\n".join(parts)


async def verify(
    ctx: AgentContext, result: AgentResult, known: Mapping[int, str] | None = None
) -> AgentResult:
    """``result`` with its claims checked (see the module doc). ``known`` are the texts of
    sources the agent already holds (what it read to write them), read again only when absent."""
    known = known or {}
    missing = {n: r for n, r in result.sources.items() if n not in known}
    wanted = sorted({c for c in map(_one_change, missing.values()) if c is not None})
    changes = (
        {c.change_id: c for c in await ctx.changes.get_many(ctx.org_id, wanted)} if wanted else {}
    )
    texts: dict[int, str | None] = {
        n: withhold_instructions(text) for n, text in known.items() if n in result.sources
    }
    for n, record in missing.items():
        readable = record.get("tool_id") in _READABLE
        texts[n] = await source_text(ctx, record, changes) if readable else None
    check = check_claims(result.markdown, texts)
    cited = {int(n) for n in _MARKER.findall(check.markdown)}
    sources = {n: record for n, record in result.sources.items() if n in cited}
    claims = {
        "checked": check.claims,
        "supported": check.supported,
        "share": check.share,
        "dropped": check.dropped,
    }
    if result.analysis is not None:
        evidence = [e for e in result.analysis.get("evidence") or [] if e in cited]
        analysis = {**result.analysis, "evidence": evidence, "claims": claims}
    else:
        analysis = {"claims": claims}  # a result without a root-cause analysis: the record alone
    markdown = check.markdown if check.markdown.endswith("\n") else check.markdown + "\n"
    return dataclasses.replace(result, markdown=markdown, sources=sources, analysis=analysis)
