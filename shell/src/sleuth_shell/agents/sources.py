"""Source records (SPEC "Source record") for what the built-in agents cite, and their cost model.

Two kinds of source:

- a knowledge document: ``tool_id`` ``knowledge_search``, ``type`` ``knowledge``,
  ``log_type_name`` ``Knowledge catalog``, ``artifact_id`` the document id (as a string),
  ``query`` ``{"query": <search text>, "document_id": <id>}``, ``start`` = ``end`` = the time of the
  search, ``link`` the document's own URL or ``{public_url}/knowledge/{id}``;
- a log query: ``tool_id`` ``log_query``, ``type`` ``logs``, ``log_type_name`` ``Application logs``,
  ``artifact_id`` null, ``query`` ``{"start", "end", "services", "levels", "text"}`` (the
  parameters of `LogStore.query`), ``start``/``end`` the query's range, ``link``
  ``{public_url}/logs?query=<the query JSON, URL-encoded>``;
- a change record: ``tool_id`` ``change_query``, ``type`` ``change``, ``log_type_name``
  ``Change records``, ``artifact_id`` the change's own id (a commit SHA, a deploy id), ``query``
  ``{"change_id", "service", "kind"}``, ``start`` = ``end`` = the change's time, ``link``
  ``{public_url}/changes/{row id}`` (`change_source`);
- a change query: the same ``tool_id``, ``type`` and ``log_type_name``, ``artifact_id`` null,
  ``query`` ``{"start", "end", "services", "kinds", "text"}`` (the parameters of
  `ChangeStore.query`), ``link`` ``{public_url}/changes?query=<the query JSON, URL-encoded>``
  (`change_query_source`);
- a metric query: ``tool_id`` ``metric_query``, ``type`` ``metrics``, ``log_type_name``
  ``Metrics``, ``artifact_id`` null, ``query`` ``{"start", "end", "services", "names"}`` (the
  parameters of `MetricStore.query`), ``link`` ``{public_url}/metrics?query=<the query JSON,
  URL-encoded>`` (`metric_source`).

Sources echo what was asked in bounded excerpts: a search text or log ``text`` filter longer than
:data:`MAX_QUERY_EXCERPT` characters is cut (ending in ``…``) and ``display_text`` is at most
:data:`MAX_DISPLAY_TEXT`, so a 1 MB question does not make every source (and the stored row and
the response) 1 MB larger.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from sleuth_core.language import format_ts
from sleuth_shell.agents.base import ChangeRecord, SourceRecord

__all__ = [
    "MAX_DISPLAY_TEXT",
    "MAX_QUERY_EXCERPT",
    "CostModel",
    "change_query_json",
    "change_query_source",
    "change_source",
    "display_title",
    "excerpt",
    "knowledge_source",
    "log_query_json",
    "log_source",
    "metric_query_json",
    "metric_source",
    "subject_line",
]


@dataclass(frozen=True)
class CostModel:
    """Credits charged by the built-in agents.

    A run of ``answer``, ``investigate`` or ``digest_section`` costs ``run`` plus
    ``knowledge_search`` per catalog search plus ``log_query`` per log query (counts, top messages,
    lines, histograms; looking up the service list is free). ``classify`` is a flat price. The
    ``openai`` agent charges its tool calls the same way (change-record and metric queries at
    ``log_query``) and adds ``llm_1k_tokens`` per thousand model tokens. Override any of them with
    ``SLEUTH_AGENT_COSTS``, e.g. ``run=1,knowledge_search=0.25,log_query=0.1``.
    """

    run: float = 1.0
    knowledge_search: float = 0.25
    log_query: float = 0.1
    classify: float = 0.1
    llm_1k_tokens: float = 0.5

    @classmethod
    def parse(cls, spec: str) -> CostModel:
        """Build from ``name=value`` pairs separated by commas; unknown names or bad values raise
        ValueError naming them."""
        known = {f.name for f in fields(cls)}
        values: dict[str, float] = {}
        for item in filter(None, (part.strip() for part in spec.split(","))):
            name, sep, raw = item.partition("=")
            name = name.strip()
            if not sep or name not in known:
                raise ValueError(
                    f"SLEUTH_AGENT_COSTS: unknown item {item!r}; use {', '.join(sorted(known))}"
                )
            try:
                value = float(raw)
            except ValueError:
                raise ValueError(
                    f"SLEUTH_AGENT_COSTS: {name} must be a number, got {raw!r}"
                ) from None
            if not value >= 0 or value == float("inf"):
                raise ValueError(f"SLEUTH_AGENT_COSTS: {name} must be >= 0, got {raw!r}")
            values[name] = value
        return cls(**values)

    @classmethod
    def from_settings(cls, settings: Any = None) -> CostModel:
        """The model of ``settings.agent_costs`` (``SLEUTH_AGENT_COSTS``; defaults when unset).

        Raises ValueError naming the bad item (checked when ``sleuth serve``/``worker`` start).
        """
        return cls.parse(str(getattr(settings, "agent_costs", "") or ""))

    def charge(self, knowledge_searches: int, log_queries: int) -> float:
        """The credits of one run that made these many tool queries."""
        total = self.run + self.knowledge_search * knowledge_searches + self.log_query * log_queries
        return round(total, 6)


#: Longest excerpt of a search text or log filter a source's ``query`` carries (docs/decisions.md).
MAX_QUERY_EXCERPT = 500
#: Longest ``display_text`` of a source.
MAX_DISPLAY_TEXT = 300


def excerpt(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters, else its first ``limit - 1`` and ``…``.

    >>> excerpt("abcdef", 4), excerpt("abc", 4)
    ('abc…', 'abc')
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _dump(value: Mapping[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def display_title(title: str) -> str:
    """``Runbook: <title>``, unless the title already starts with its kind (``Runbook``,
    ``Playbook``, ``Guide``, ...), which is kept as it is (no "Runbook: Runbook: ...")."""
    if re.match(r"\s*(?:runbook|playbook|guide|procedure|sop|how-to)\b", title, re.IGNORECASE):
        return title.strip()
    return f"Runbook: {title}"


def knowledge_source(
    source_id: int,
    *,
    doc_id: int,
    title: str,
    url: str | None,
    search: str,
    at: datetime,
    public_url: str,
) -> SourceRecord:
    """The source record citing knowledge document ``doc_id`` found by searching ``search``."""
    return {
        "log_type_name": "Knowledge catalog",
        "query": _dump({"query": excerpt(search, MAX_QUERY_EXCERPT), "document_id": doc_id}),
        "start": format_ts(at),
        "end": format_ts(at),
        "link": url or f"{public_url}/knowledge/{doc_id}",
        "artifact_id": str(doc_id),
        "tool_id": "knowledge_search",
        "type": "knowledge",
        "source_id": source_id,
        "display_text": excerpt(display_title(title), MAX_DISPLAY_TEXT),
    }


def log_query_json(
    start: datetime,
    end: datetime,
    services: Sequence[str] | None = None,
    levels: Sequence[str] | None = None,
    text: str | None = None,
) -> str:
    """The JSON form of a log query, as carried in ``query`` and in the ``/logs`` page link."""
    return _query_json(start, end, services, "levels", levels, text)


def log_source(
    source_id: int,
    *,
    start: datetime,
    end: datetime,
    services: Sequence[str] | None,
    levels: Sequence[str] | None,
    text: str | None,
    description: str,
    public_url: str,
) -> SourceRecord:
    """The source record citing a log query; ``description`` becomes ``display_text``."""
    query = log_query_json(start, end, services, levels, text)
    return _query_source(source_id, _LOGS, query, start, end, description, public_url)


_KIND_LABELS = {"deploy": "Deploy", "commit": "Commit", "flag": "Flag change", "config": "Config"}


def subject_line(summary: str) -> str:
    """A change summary's first line: a commit message's subject, without its body.

    >>> subject_line("refunds: one transaction per request\\n\\nThe ledger entry commits too.")
    'refunds: one transaction per request'
    >>> subject_line("")
    ''
    """
    return summary.strip().splitlines()[0] if summary.strip() else ""


def change_source(source_id: int, *, change: ChangeRecord, public_url: str) -> SourceRecord:
    """The source record citing one change record (its page is ``/changes/{change.id}``)."""
    label = _KIND_LABELS.get(change.kind, change.kind.title())
    summary = subject_line(change.summary)
    return {
        "log_type_name": "Change records",
        "query": _dump(
            {"change_id": change.change_id, "service": change.service, "kind": change.kind}
        ),
        "start": format_ts(change.timestamp),
        "end": format_ts(change.timestamp),
        "link": f"{public_url}/changes/{change.id}",
        "artifact_id": change.change_id,
        "tool_id": "change_query",
        "type": "change",
        "source_id": source_id,
        "display_text": excerpt(
            f"{label} {change.change_id} ({change.service}): {summary}", MAX_DISPLAY_TEXT
        ),
    }


def change_query_json(
    start: datetime,
    end: datetime,
    services: Sequence[str] | None = None,
    kinds: Sequence[str] | None = None,
    text: str | None = None,
) -> str:
    """The JSON form of a change query, as carried in ``query`` and in the ``/changes`` link."""
    return _query_json(start, end, services, "kinds", kinds, text)


def change_query_source(
    source_id: int,
    *,
    start: datetime,
    end: datetime,
    services: Sequence[str] | None,
    kinds: Sequence[str] | None,
    text: str | None,
    description: str,
    public_url: str,
) -> SourceRecord:
    """The source record citing a change query; ``description`` becomes ``display_text``."""
    query = change_query_json(start, end, services, kinds, text)
    return _query_source(source_id, _CHANGES, query, start, end, description, public_url)


def metric_query_json(
    start: datetime,
    end: datetime,
    services: Sequence[str] | None = None,
    names: Sequence[str] | None = None,
) -> str:
    """The JSON form of a metric query, as carried in ``query`` and in the ``/metrics`` link."""
    return _query_json(start, end, services, "names", names, None, with_text=False)


def metric_source(
    source_id: int,
    *,
    start: datetime,
    end: datetime,
    services: Sequence[str] | None,
    names: Sequence[str] | None,
    description: str,
    public_url: str,
) -> SourceRecord:
    """The source record citing a metric query; ``description`` becomes ``display_text``."""
    query = metric_query_json(start, end, services, names)
    return _query_source(source_id, _METRICS, query, start, end, description, public_url)


@dataclass(frozen=True, slots=True)
class _Store:
    """What a query source says of the store it queried: ``log_type_name``, the page listing
    it (``/{page}?query=...``), ``tool_id`` and ``type``."""

    log_type_name: str
    page: str
    tool_id: str
    type: str


_LOGS = _Store("Application logs", "logs", "log_query", "logs")
_CHANGES = _Store("Change records", "changes", "change_query", "change")
_METRICS = _Store("Metrics", "metrics", "metric_query", "metrics")


def _query_json(
    start: datetime,
    end: datetime,
    services: Sequence[str] | None,
    name: str,
    values: Sequence[str] | None,
    text: str | None,
    *,
    with_text: bool = True,
) -> str:
    """``{"start", "end", "services", <name>, "text"}`` (``text`` only ``with_text``)."""
    query: dict[str, Any] = {
        "start": format_ts(start),
        "end": format_ts(end),
        "services": list(services) if services else None,
        name: list(values) if values else None,
    }
    if with_text:
        query["text"] = excerpt(text, MAX_QUERY_EXCERPT) if text is not None else None
    return _dump(query)


def _query_source(
    source_id: int,
    store: _Store,
    query: str,
    start: datetime,
    end: datetime,
    description: str,
    public_url: str,
) -> SourceRecord:
    """The source record citing ``query`` of ``store``; ``description`` becomes
    ``display_text``."""
    return {
        "log_type_name": store.log_type_name,
        "query": query,
        "start": format_ts(start),
        "end": format_ts(end),
        "link": f"{public_url}/{store.page}?{urlencode({'query': query})}",
        "artifact_id": None,
        "tool_id": store.tool_id,
        "type": store.type,
        "source_id": source_id,
        "display_text": excerpt(description, MAX_DISPLAY_TEXT),
    }
