"""One run of the embedded agent: the tools it calls (counted for credits), the sources it cites,
and the inline-markdown helpers its answers share.

`EmbeddedRun` wraps an `AgentContext`: every knowledge search and log query goes through it (so
the credits charged follow `sleuth_shell.agents.sources.CostModel`), and `cite` registers a
source record once per ``(tool, query)`` and returns its ``[[source:N]]`` marker. The helpers
below make text safe for inline markdown (one line, no ``§`` or ``[[`` markers, bounded), mark
timestamps (``§...§``) and quote blocks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from sleuth_core.language import TimeWindow, format_ts
from sleuth_shell.agents.base import (
    AgentContext,
    AgentResult,
    KnowledgeHit,
    LogCount,
    LogMessageCount,
    LogRecord,
    SourceRecord,
)
from sleuth_shell.agents.sources import CostModel, display_title, knowledge_source, log_source
from sleuth_shell.text import best_passage

__all__ = [
    "ERROR_LEVELS",
    "EmbeddedRun",
    "code",
    "counts_table",
    "errors_of",
    "inline",
    "plural",
    "quote",
    "runbook_block",
    "services_phrase",
    "totals",
    "ts",
]

ERROR_LEVELS: tuple[str, ...] = ("ERROR", "CRITICAL")
_LEVEL_COLUMNS: tuple[str, ...] = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")
#: Log lines that record a deploy or a rollback (``deployed payments-api v2.14.0 ...``).
CHANGE_MARKER = "deployed"
_ACTION_HEADINGS = ("triage", "diagnosis", "mitigation")


def inline(text: object, limit: int = 300) -> str:
    """Text made safe for inline markdown: one line, no markers, bounded length.

    >>> inline("a  §b§\\n[[source:1]]", 50)
    'a b [ [source:1]]'
    """
    text = " ".join(str(text).split()).replace("§", "").replace("[[", "[ [")
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def code(text: object, limit: int = 200) -> str:
    """A code span holding ``text`` (backticks replaced, so the span cannot be broken)."""
    return "`" + inline(text, limit).replace("`", "'") + "`"


def ts(value: datetime) -> str:
    """A timestamp marker: ``§2026-11-22T09:41:07Z§``."""
    return f"§{format_ts(value)}§"


def quote(text: str) -> str:
    """``text`` as a markdown block quote (markers removed)."""
    cleaned = text.replace("§", "").replace("[[", "[ [")
    return "\n".join(f"> {line}" if line.strip() else ">" for line in cleaned.splitlines())


def short_title(title: str) -> str:
    """A document title as answers show it (no doubled ``Runbook:`` prefix)."""
    return display_title(title).removeprefix("Runbook: ")


def sentence(text: str) -> str:
    """A passage as a sentence: one line, ending in a full stop."""
    line = " ".join(text.split()).replace("§", "").replace("[[", "[ [")
    return line if line.endswith((".", "!", "?", ":")) else line + "."


def excerpt_block(block: str, limit: int = 700) -> str:
    """``block`` cut at a line break before ``limit`` characters."""
    if len(block) <= limit:
        return block
    cut = block.rfind("\n", 0, limit)
    return block[: cut if cut > limit // 2 else limit].rstrip() + " …"


def levels_phrase(levels: Sequence[str]) -> str:
    """``errors`` for the error levels, else ``warnings``, ``info lines``, ..."""
    if set(levels) == set(ERROR_LEVELS):
        return "errors"
    return " and ".join(
        level.lower() + ("s" if level == "WARNING" else " lines") for level in levels
    )


def describe(services: Sequence[str] | None) -> str:
    """Service names for a source's description."""
    return inline(", ".join(services or ["all services"]))


def services_phrase(services: Sequence[str] | None) -> str:
    """``**a**``, ``**a** and **b**``, or ``all services``."""
    if not services:
        return "all services"
    names = [f"**{inline(s, 100)}**" for s in services]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def plural(n: int, word: str) -> str:
    """``1 error``, ``3 errors``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class EmbeddedRun:
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

    def cite(self, record: SourceRecord) -> str:
        """Register ``record`` (once per tool and query) and return its marker."""
        key = (str(record["tool_id"]), str(record["query"]))
        if key not in self._keys:
            source_id = len(self.sources) + 1
            record["source_id"] = source_id
            self.sources[source_id] = record
            self._keys[key] = source_id
        return f"[[source:{self._keys[key]}]]"

    def cite_document(self, hit: KnowledgeHit, search: str) -> str:
        return self.cite(
            knowledge_source(
                0,
                doc_id=hit.id,
                title=inline(hit.title, 200),
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
        return self.cite(
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

    async def deploy_lines(self, window: TimeWindow) -> list[LogRecord]:
        """Deploys and rollbacks recorded in the logs: records whose message contains
        ``deployed``."""
        return await self.lines(window, text=CHANGE_MARKER, limit=50)

    def result(self, markdown: str) -> AgentResult:
        return AgentResult(markdown.strip() + "\n", dict(self.sources), self.credits)


def marker_target(record: LogRecord) -> str:
    """The service a deploy marker line names (its ``target`` or ``service`` attribute)."""
    return str(record.attributes.get("target") or record.attributes.get("service") or "")


def deploy_line(record: LogRecord) -> str:
    """A deploy marker as a list item: time, message, author and change note."""
    details = []
    author = record.attributes.get("author")
    if author:
        details.append(f"by {inline(str(author), 80)}")
    note = record.attributes.get("change")
    if note:
        details.append(f"change: {inline(str(note), 160)}")
    suffix = f" ({'; '.join(details)})" if details else ""
    return f"- {ts(record.timestamp)} {code(record.message)}{suffix}"


def totals(counts: Iterable[LogCount]) -> dict[str, dict[str, int]]:
    """Counts as ``{service: {level: count}}``."""
    table: dict[str, dict[str, int]] = {}
    for service, level, count in counts:
        table.setdefault(service, {})
        table[service][level] = table[service].get(level, 0) + count
    return table


def errors_of(levels: Mapping[str, int]) -> int:
    """The error-level lines of one service's row."""
    return sum(levels.get(level, 0) for level in ERROR_LEVELS)


def counts_table(table: Mapping[str, Mapping[str, int]]) -> str:
    """A markdown table of lines per service and level, most errors first."""
    present = [lvl for lvl in _LEVEL_COLUMNS if any(lvl in row for row in table.values())]
    extra = sorted({lvl for row in table.values() for lvl in row} - set(_LEVEL_COLUMNS))
    columns = present + extra
    lines = [
        "| Service | " + " | ".join(columns) + " | Total |",
        "|---|" + "---:|" * (len(columns) + 1),
    ]
    ordered = sorted(table.items(), key=lambda item: (-errors_of(item[1]), item[0]))
    for service, row in ordered:
        cells = [str(row.get(level, 0)) for level in columns]
        lines.append(
            f"| {inline(service, 100)} | " + " | ".join(cells) + f" | {sum(row.values())} |"
        )
    return "\n".join(lines)


def runbook_block(
    run: EmbeddedRun, hit: KnowledgeHit, search: str, words: Sequence[str], *, act: bool = False
) -> str:
    """A runbook's best passage for ``words``, quoted under its title and citation."""
    heading, passage = best_passage(hit.content, words, prefer=_ACTION_HEADINGS if act else ())
    where = f" — *{inline(heading, 120)}*" if heading else ""
    citation = run.cite_document(hit, search)
    return f"**{inline(hit.title, 200)}**{where} {citation}\n\n{quote(passage)}"


def conversation_sentences(text: str) -> list[str]:
    """The sentences of an earlier message (markers removed), three words or more."""
    cleaned = re.sub(r"\[\[source:\d+\]\]", "", text).replace("§", "")
    parts = re.split(r"(?<=[.!?])\s+|\n+", cleaned)
    return [" ".join(p.split()) for p in parts if len(p.split()) >= 3]
