"""The agent plug-in contract: the `Agent` protocol, its data types and the stores it reads.

An agent answers questions, investigates alerts, writes digest sections and classifies chat
messages.
Every operation returns markdown carrying the markers of DESIGN.md section 4:

- ``[[source:<source_id>]]`` cites the source record with that ``source_id`` (a key of
  ``AgentResult.sources``); rendering turns the markers into numbered citations.
- ``§...§`` surrounds a timestamp; rendering removes the ``§`` characters.

Agents never touch the database directly: they read through the two protocols below, which the
shell implements over its storage (``sleuth_shell.knowledge``, ``sleuth_shell.observability``) and
passes in an `AgentContext` (built by ``Services.agent_context``).

- `KnowledgeSearch`: the org's knowledge catalog (runbooks, notes), full-text ranked.
- `LogStore`: the org's observability data (application log records).
- `ChangeStore`: the org's change records (deploys, commits, flag flips, config changes).
- `MetricStore`: the org's metric series (error rates, latencies, saturation, any named series).
- `DataSources`: the org's own observability systems (a Prometheus-compatible HTTP API), queried
  at investigation time; what they answer comes back as `MetricSeries`, read like stored ones.

All datetimes crossing these interfaces are timezone-aware UTC.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, NamedTuple, Protocol, runtime_checkable

__all__ = [
    "CHANGE_KINDS",
    "LOG_LEVELS",
    "Agent",
    "AgentContext",
    "AgentError",
    "AgentResult",
    "ChangeKind",
    "ChangeRecord",
    "ChangeStore",
    "Classification",
    "ClassificationDecision",
    "ContextMessage",
    "DataSources",
    "KnowledgeDocument",
    "KnowledgeHit",
    "KnowledgeSearch",
    "LogCount",
    "LogMessageCount",
    "LogRecord",
    "LogStore",
    "MetricSeries",
    "MetricStore",
    "NoChanges",
    "NoDataSources",
    "NoMetrics",
    "NoTraces",
    "PullRequest",
    "Pulled",
    "PulledQuery",
    "SourceRecord",
    "Span",
    "SpanDurations",
    "TraceStore",
    "TraceSummary",
]

SourceRecord = dict[str, Any]
"""A SPEC source record. Members and types:

``log_type_name`` (str, e.g. ``"Knowledge catalog"``, ``"Application logs"``), ``query`` (str: a
JSON object of the query parameters), ``start`` and ``end`` (str, ISO 8601, the query's time range),
``link`` (str, a URL that opens the data), ``artifact_id`` (str or None), ``tool_id`` (str, e.g.
``"knowledge_search"``, ``"log_query"``), ``type`` (str, e.g. ``"knowledge"``, ``"logs"``),
``source_id`` (int, the key used in ``[[source:N]]`` markers) and ``display_text`` (str).
"""

ClassificationDecision = Literal["AGENT", "STATIC", "NONE"]

ChangeKind = Literal["deploy", "commit", "flag", "config"]
CHANGE_KINDS: tuple[ChangeKind, ...] = ("deploy", "commit", "flag", "config")

LOG_LEVELS: tuple[str, ...] = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
"""The canonical log levels, least to most severe. Stores keep levels in this spelling."""


class AgentError(Exception):
    """An agent could not produce a result (misconfiguration, unreachable model, bad reply)."""


@dataclass(frozen=True)
class AgentResult:
    """What an agent operation returns.

    ``markdown`` carries ``[[source:<source_id>]]`` and ``§...§`` markers; ``sources`` maps each
    ``source_id`` to its source record; ``credits`` is what the run cost (the agent's cost model).

    ``analysis`` is the structured root-cause result of an investigation (or of a "why" answer),
    None when the operation produced none: ``{verdict: "change"|"external"|"unknown", change_id,
    service, affected_services, confidence: "CONFIRMED"|"LIKELY"|"INCONCLUSIVE", remediation,
    evidence: [source_id, ...]}`` where each evidence item is a key of ``sources``. Once the
    result's claims are checked (`sleuth_shell.agents.claims.verify`) it also holds ``claims``;
    a checked result without a root-cause analysis has ``{"claims": ...}`` alone.
    """

    markdown: str
    sources: dict[int, SourceRecord]
    credits: float
    analysis: dict[str, Any] | None = None


@dataclass(frozen=True)
class Classification:
    """The decision for a chat message under a chat trigger, and what deciding cost."""

    decision: ClassificationDecision
    credits: float


@dataclass(frozen=True)
class ContextMessage:
    """One earlier message of the conversation an answer continues."""

    role: Literal["user", "assistant"]
    content: str


@dataclass(frozen=True)
class KnowledgeHit:
    """A knowledge document matching a search, best first.

    ``snippet`` is a short excerpt around the matched terms; ``score`` is higher for better matches
    (comparable only within one search); ``content`` is the whole document text.
    """

    id: int
    title: str
    url: str | None
    snippet: str
    score: float
    content: str


@dataclass(frozen=True)
class KnowledgeDocument:
    """A stored knowledge document."""

    id: int
    title: str
    content: str
    url: str | None
    created_at: datetime


@dataclass(frozen=True)
class LogRecord:
    """One application log line."""

    id: int
    timestamp: datetime
    service: str
    level: str
    message: str
    attributes: dict[str, Any] = field(default_factory=dict)
    trace_id: str | None = None
    """The trace it was written in (lower-case hex), when it came with one."""
    span_id: str | None = None
    """The span it was written in (lower-case hex), when it came with one."""


class LogCount(NamedTuple):
    """How many records one service logged at one level in a window."""

    service: str
    level: str
    # A NamedTuple field named like tuple.count: callers read the field, never the method.
    count: int  # type: ignore[assignment]


class LogMessageCount(NamedTuple):
    """How often one service logged one message in a window, and when first and last."""

    service: str
    level: str
    message: str
    count: int  # type: ignore[assignment]  # the field shadows tuple.count, as above
    first_seen: datetime
    last_seen: datetime


@runtime_checkable
class KnowledgeSearch(Protocol):
    """Full-text search over an organization's knowledge catalog."""

    async def search(self, org_id: int, query: str, limit: int = 5) -> list[KnowledgeHit]:
        """Documents matching any of the query's words, best (most relevant) first.

        A query with no searchable words returns ``[]``; it never raises on user text.
        """
        ...

    async def get(self, org_id: int, doc_id: int) -> KnowledgeDocument | None:
        """The document with this id in this organization, or None."""
        ...


@runtime_checkable
class LogStore(Protocol):
    """Queries over an organization's application logs; ``start`` inclusive, ``end`` exclusive."""

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
        """Records in ``[start, end)``, oldest first, filtered by service, level and a substring."""
        ...

    async def messages(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        levels: Sequence[str] | None = None,
        limit: int = 100,
    ) -> list[tuple[int, datetime, str]]:
        """``(id, timestamp, message)`` of the records `query` returns without a text filter
        (the root-cause evidence reads thousands of lines and needs nothing else of them)."""
        ...

    async def counts(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
    ) -> list[LogCount]:
        """Record counts per (service, level) in ``[start, end)``, sorted by service then level."""
        ...

    async def top_messages(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        levels: Sequence[str] | None = None,
        limit: int = 5,
    ) -> list[LogMessageCount]:
        """The most frequent (service, level, message) triples, most frequent first."""
        ...

    async def histogram(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        bucket_seconds: int,
        services: Sequence[str] | None = None,
        levels: Sequence[str] | None = None,
    ) -> list[tuple[datetime, int]]:
        """Record counts per ``bucket_seconds`` bucket (aligned to the Unix epoch), oldest first;
        empty buckets are left out."""
        ...

    async def services(self, org_id: int) -> list[str]:
        """Every service name this organization has logged, sorted."""
        ...

    async def time_bounds(self, org_id: int) -> tuple[datetime, datetime] | None:
        """The timestamps of the oldest and newest record, or None when there are none."""
        ...


@dataclass(frozen=True)
class ChangeRecord:
    """One change: a deploy, a commit, a feature-flag flip or a configuration change.

    ``id`` is the stored row's id (used in links); ``change_id`` is the record's own id as sent
    (a commit SHA, a deploy id, a flag key with its version). ``files`` are the paths a commit
    touched, ``diff`` its (size-bounded) unified diff, ``ships`` the commit ids a deploy carries.
    """

    id: int
    change_id: str
    timestamp: datetime
    service: str
    kind: ChangeKind
    summary: str
    author: str | None = None
    url: str | None = None
    files: tuple[str, ...] = ()
    diff: str = ""
    ships: tuple[str, ...] = ()
    attributes: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class ChangeStore(Protocol):
    """Queries over an organization's change records; ``start`` inclusive, ``end`` exclusive."""

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
        """Records in ``[start, end)``, oldest first, filtered by service, kind and a
        case-insensitive substring of the summary, files or diff."""
        ...

    async def get_many(self, org_id: int, change_ids: Sequence[str]) -> list[ChangeRecord]:
        """The records with these ``change_id`` values (any time), oldest first; unknown ids are
        left out. Resolves the commits a deploy ``ships``."""
        ...


@dataclass(frozen=True)
class MetricSeries:
    """One metric series: its identity and its points in the queried range, oldest first."""

    id: int
    name: str
    service: str
    labels: dict[str, str]
    points: tuple[tuple[datetime, float], ...]


@runtime_checkable
class MetricStore(Protocol):
    """Queries over an organization's metric series; ``start`` inclusive, ``end`` exclusive."""

    async def query(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        names: Sequence[str] | None = None,
        limit: int = 100,
    ) -> list[MetricSeries]:
        """At most ``limit`` series (sorted by service, name, labels) with their points in
        ``[start, end)``; series without a point in the range are left out."""
        ...


@dataclass(frozen=True)
class Span:
    """One span of a trace: ids in lower-case hex (``parent_span_id`` None for a root), ``kind``
    (``server``, ``client``, ``internal``, ``producer``, ``consumer``, ``unspecified``), ``status``
    ``ok``, ``error`` or ``unset``; ``events`` are ``{name, time, attributes}`` (an exception event
    carries ``exception.type``, ``exception.message`` and ``exception.stacktrace``)."""

    trace_id: str
    span_id: str
    parent_span_id: str | None
    service: str
    name: str
    kind: str
    start: datetime
    duration_ms: float
    status: str
    status_message: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class TraceSummary:
    """One trace at a glance: its root span's service and name, when it started, how long it
    lasted (earliest start to latest end), whether any span failed, how many spans it has."""

    trace_id: str
    root_service: str
    root_name: str
    start: datetime
    duration_ms: float
    error: bool
    span_count: int


class SpanDurations(NamedTuple):
    """The spans of one service that started in one time bucket: how many, and how long the
    longest of them lasted."""

    service: str
    bucket: datetime
    spans: int
    longest_ms: float


@runtime_checkable
class TraceStore(Protocol):
    """Queries over an organization's spans; ``start`` inclusive, ``end`` exclusive."""

    async def spans(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        *,
        errors_only: bool = False,
        min_duration_ms: float | None = None,
        limit: int = 200,
    ) -> list[Span]:
        """Spans starting in the range (of ``services``; failed ones only with ``errors_only``;
        lasting at least ``min_duration_ms``), the longest first, at most ``limit``."""
        ...

    async def trace(self, org_id: int, trace_id: str) -> list[Span]:
        """Every span of one trace, earliest first ([] when the trace is unknown)."""
        ...

    async def durations(
        self, org_id: int, start: datetime, end: datetime, bucket_seconds: int
    ) -> list[SpanDurations]:
        """Per service and ``bucket_seconds`` bucket (aligned to the Unix epoch) of the spans
        starting in the range: their count and the longest's duration; non-empty buckets only,
        by service, then oldest first."""
        ...


class NoTraces:
    """A `TraceStore` with no spans (contexts built without trace data)."""

    async def spans(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        *,
        errors_only: bool = False,
        min_duration_ms: float | None = None,
        limit: int = 200,
    ) -> list[Span]:
        return []

    async def trace(self, org_id: int, trace_id: str) -> list[Span]:
        return []

    async def durations(
        self, org_id: int, start: datetime, end: datetime, bucket_seconds: int
    ) -> list[SpanDurations]:
        return []


class NoChanges:
    """A `ChangeStore` with no records (contexts built without change data)."""

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
        return []

    async def get_many(self, org_id: int, change_ids: Sequence[str]) -> list[ChangeRecord]:
        return []


class NoMetrics:
    """A `MetricStore` with no series (contexts built without metric data)."""

    async def query(
        self,
        org_id: int,
        start: datetime,
        end: datetime,
        services: Sequence[str] | None = None,
        names: Sequence[str] | None = None,
        limit: int = 100,
    ) -> list[MetricSeries]:
        return []


@dataclass(frozen=True)
class PullRequest:
    """What to read from the data sources: the services of the failure (most relevant first),
    the range, and the alert's own query expression when it carries one."""

    services: tuple[str, ...]
    start: datetime
    end: datetime
    expression: str | None = None


@dataclass(frozen=True)
class PulledQuery:
    """One query a data source answered, kept as evidence snapshot ``artifact_id``.

    ``role`` is what the series show (``errors``, ``latency``, ``traffic``, ``saturation``, or
    ``alert`` for the alert's own expression); ``series`` are the answer as `MetricSeries` (ids
    0), read like stored series; ``step`` is in seconds.
    """

    source_name: str
    source_url: str
    promql: str
    start: datetime
    end: datetime
    step: float
    artifact_id: str
    role: str
    service: str
    series: tuple[MetricSeries, ...]


@dataclass(frozen=True)
class Pulled:
    """What the data sources answered: the queries (with their series), one sentence per source
    that failed, was too slow or was cut short (markdown-safe text naming it), and how many
    sources were consulted."""

    queries: tuple[PulledQuery, ...] = ()
    notes: tuple[str, ...] = ()
    consulted: int = 0

    @property
    def series(self) -> list[MetricSeries]:
        """Every pulled series, in query order."""
        return [s for q in self.queries for s in q.series]

    def query_of(self, service: str, name: str) -> PulledQuery | None:
        """The query whose answer holds the series ``name`` of ``service``, or None."""
        for query in self.queries:
            if any(s.service == service and s.name == name for s in query.series):
                return query
        return None


@runtime_checkable
class DataSources(Protocol):
    """The organization's data sources, queried over a range (every query time-boxed; a source
    that fails or is slow is named in ``Pulled.notes`` and the others still answer)."""

    async def pull(self, org_id: int, request: PullRequest) -> Pulled:
        """Query every data source of the organization for ``request``; never raises for a
        source's failure."""
        ...


class NoDataSources:
    """`DataSources` with none configured (contexts built without them)."""

    async def pull(self, org_id: int, request: PullRequest) -> Pulled:
        return Pulled()


@dataclass(frozen=True)
class AgentContext:
    """What an agent run may read: whose data, the current time, and the stores.

    ``now`` is the run's clock (agents never read the system clock); ``public_url`` is the base of
    every ``link`` in a source record (``SLEUTH_PUBLIC_URL``, no trailing slash).
    """

    org_id: int
    now: datetime
    knowledge: KnowledgeSearch
    logs: LogStore
    public_url: str
    changes: ChangeStore = field(default_factory=NoChanges)
    metrics: MetricStore = field(default_factory=NoMetrics)
    traces: TraceStore = field(default_factory=NoTraces)
    data_sources: DataSources = field(default_factory=NoDataSources)


@runtime_checkable
class Agent(Protocol):
    """An agent implementation. Register one under the ``sleuth.agents`` entry-point group.

    Implementations must be safe to call concurrently for different contexts.
    """

    name: str

    async def answer(
        self,
        ctx: AgentContext,
        question: str,
        *,
        history: Sequence[ContextMessage] = (),
        use_tools: bool = True,
    ) -> AgentResult:
        """Answer a question, continuing ``history``. With ``use_tools=False`` query no data and
        return no sources."""
        ...

    async def investigate(
        self, ctx: AgentContext, prompt: str, event_payload: str, *, title: str = ""
    ) -> AgentResult:
        """Investigate an alert: ``prompt`` is the responder's runbook prompt, ``event_payload`` the
        raw alert, ``title`` the alert's title."""
        ...

    async def digest_section(self, ctx: AgentContext, section: str, prompt: str) -> AgentResult:
        """Write one section of a digest: ``section`` is its heading, ``prompt`` what to report."""
        ...

    async def classify(self, ctx: AgentContext, message: str, instructions: str) -> Classification:
        """Decide how a chat trigger handles ``message`` given the trigger's ``instructions``:
        ``AGENT`` (answer it), ``STATIC`` (reply with the static response) or ``NONE``."""
        ...
