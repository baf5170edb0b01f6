"""`PrometheusPull`: the `~sleuth_shell.agents.base.DataSources` over the organization's
Prometheus-compatible data sources.

For a `PullRequest` (the failure's services, a range, the alert's expression) each source is
asked, concurrently:

1. the alert's own expression, as given, when there is one;
2. the values of its service label in the range: the request's services it knows, plus every
   other one when it knows at most :data:`MAX_SERVICES` (so a saturating dependency that logs
   nothing is still seen);
3. for each such service, the names of its series (``/api/v1/series`` with ``{label="svc"}``),
   classified by name (:func:`plan_queries`) into error, latency, saturation and traffic queries,
   aggregated per service; then those range queries. Steps 2 and 3 (the plan) are reused for
   :data:`PLAN_TTL` seconds for the same source and services.

Every request is time-boxed (:data:`QUERY_TIMEOUT` seconds) and each source as a whole
(:data:`SOURCE_BUDGET`); a source that fails, is slow or hits the bound on points
(:data:`MAX_POINTS` per run, shared equally among the sources) is named in ``Pulled.notes`` and
keeps what it answered before; the others go on. A source's planned queries are asked in one
range query (`_together`: two round trips to a source per investigation once its plan is known,
the alert's expression being the other); the alert's expression is the only query a source may
refuse (a 4xx: noted, its own series still read). Every range query's answer is kept as an evidence
snapshot (:mod:`sleuth_shell.datasources.snapshots`) before the pull returns.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.agents.base import MetricSeries, Pulled, PulledQuery, PullRequest
from sleuth_shell.datasources import snapshots
from sleuth_shell.datasources.crypto import HeaderCipher, SealedHeadersError
from sleuth_shell.datasources.prometheus import PrometheusClient, PrometheusError, SeriesResult
from sleuth_shell.datasources.store import load_cipher
from sleuth_shell.db.hot_reads import HotStatements
from sleuth_shell.db.models import DataSource, utcnow

__all__ = [
    "MAX_POINTS",
    "MAX_QUERIES",
    "MAX_SERVICES",
    "PLAN_TTL",
    "QUERY_TIMEOUT",
    "SOURCE_BUDGET",
    "PlannedQuery",
    "PrometheusPull",
    "plan_queries",
    "query_step",
]

#: Seconds one request to a source may take.
QUERY_TIMEOUT = 5.0
#: Seconds all of one source's requests of one pull may take together.
SOURCE_BUDGET = 15.0
#: Services of one source read per pull when the request names none of its other services.
MAX_SERVICES = 8
#: Range queries per source per pull.
MAX_QUERIES = 24
#: Points read per pull, all sources together.
MAX_POINTS = 40_000
#: Series kept from the answer to the alert's own expression.
MAX_ALERT_SERIES = 10
#: The shortest step: the engine's error buckets are 5 minutes, and so is the rate window.
MIN_STEP = 300
#: Points per series a range query reads at most (longer ranges get longer steps).
TARGET_POINTS = 500
#: Seconds a source's discovered queries (services and series names) are reused.
PLAN_TTL = 60.0
_MAX_PLANS = 1000
#: HTTP clients kept per event loop (one per data source, the least recently used closed first).
_MAX_CLIENTS = 64
#: Queries per role and service.
_ROLE_LIMITS = {"errors": 3, "latency": 2, "saturation": 4, "traffic": 2}
_ROLE_ORDER = ("errors", "latency", "saturation", "traffic")

_ERROR = re.compile(r"error|fail|exception|5xx|fault|panic|timeout|reject", re.IGNORECASE)
_SATURATION = re.compile(
    r"cpu|mem|heap|rss|conn|pool|queue|lag|backlog|disk|_fds?\b|file_desc|thread|goroutine|"
    r"saturation|util|usage|inflight|in_flight|pending|waiting|active|open",
    re.IGNORECASE,
)
_LATENCY = re.compile(r"latency|duration|response_time|_seconds|_ms\b|p9\d|p50", re.IGNORECASE)
_TRAFFIC = re.compile(r"requests?|rpcs?\b|calls|hits|traffic|throughput|rps|qps", re.IGNORECASE)
_STATUS_LABELS = ("code", "status", "status_code", "http_status", "response_code")
_SKIP_SUFFIXES = ("_sum", "_count", "_created", "_info")


@dataclass(frozen=True)
class PlannedQuery:
    """A range query to run: its PromQL, what it shows, the service and the series name the
    engine reads it under."""

    promql: str
    role: str
    service: str
    name: str


def _string(value: str) -> str:
    """A PromQL string literal."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _role(name: str, counter: bool) -> str | None:
    if _ERROR.search(name):
        return "errors"
    if _SATURATION.search(name):
        return "saturation"
    if _LATENCY.search(name):
        return "latency"
    if _TRAFFIC.search(name):
        return "traffic"
    return None


def plan_queries(
    service: str, label: str, label_sets: Sequence[dict[str, str]], window: str
) -> list[PlannedQuery]:
    """The error, latency, saturation and traffic queries for ``service`` from the label sets of
    its series (``label`` names the service; ``window`` is the rate window, e.g. ``5m``).

    Counters (``*_total``) are read as per-second rates, histograms (their ``*_bucket``, or their
    ``*_count`` when the buckets were left out of the lookup) as their 99th percentile, summaries
    as their 0.99 quantile, gauges as their peak in each step; each is aggregated per service. A request
    counter with a 5xx status label also gives its 5xx rate as an error series. Names that say
    none of the four are not read.

    >>> sets = [
    ...     {"__name__": "http_requests_total", "service": "api", "code": "200"},
    ...     {"__name__": "http_requests_total", "service": "api", "code": "503"},
    ...     {"__name__": "http_request_duration_seconds_count", "service": "api"},
    ...     {"__name__": "db_pool_connections_in_use", "service": "api"},
    ...     {"__name__": "build_info", "service": "api"},
    ... ]
    >>> for q in plan_queries("api", "service", sets, "5m"):
    ...     print(q.role, q.name, "|", q.promql)
    errors http_requests_total:5xx | sum by (service) (rate(http_requests_total{service="api",code=~"5.."}[5m]))
    latency http_request_duration_seconds:p99 | histogram_quantile(0.99, sum by (service, le) (rate(http_request_duration_seconds_bucket{service="api"}[5m])))
    saturation db_pool_connections_in_use | max by (service) (max_over_time(db_pool_connections_in_use{service="api"}[5m]))
    traffic http_requests_total | sum by (service) (rate(http_requests_total{service="api"}[5m]))
    """  # noqa: E501
    selector = f"{label}={_string(service)}"
    names: dict[str, list[dict[str, str]]] = {}
    for labels in label_sets:
        name = labels.get("__name__", "")
        if name:
            names.setdefault(name, []).append(labels)
    planned: list[PlannedQuery] = []
    for name in sorted(names):
        sets = names[name]
        if name.endswith(("_bucket", "_count")):
            # A histogram: by its buckets, or by its count when the lookup left the buckets out
            # (a summary's count has its quantiles beside it, under the base name).
            base = name.rsplit("_", 1)[0]
            histogram = name.endswith("_bucket") or (
                f"{base}_bucket" not in names and base not in names
            )
            if histogram and _LATENCY.search(base):
                query = PlannedQuery(
                    f"histogram_quantile(0.99, sum by ({label}, le) "
                    f"(rate({base}_bucket{{{selector}}}[{window}])))",
                    "latency",
                    service,
                    f"{base}:p99",
                )
                if query not in planned:
                    planned.append(query)
            continue
        if name.endswith(_SKIP_SUFFIXES):
            continue
        if any(s.get("quantile") == "0.99" for s in sets):
            planned.append(
                PlannedQuery(
                    f"max by ({label}) (max_over_time({name}{{{selector},"
                    f'quantile="0.99"}}[{window}]))',
                    "latency",
                    service,
                    f"{name}:p99",
                )
            )
            continue
        counter = name.endswith("_total")
        role = _role(name, counter)
        if role is None:
            continue
        if counter:
            planned.append(
                PlannedQuery(
                    f"sum by ({label}) (rate({name}{{{selector}}}[{window}]))", role, service, name
                )
            )
            if role == "traffic":
                for status in _STATUS_LABELS:
                    if any(s.get(status, "").startswith("5") for s in sets):
                        planned.append(
                            PlannedQuery(
                                f"sum by ({label}) (rate({name}{{{selector},{status}=~"
                                f'"5.."}}[{window}]))',
                                "errors",
                                service,
                                f"{name}:5xx",
                            )
                        )
                        break
        else:
            planned.append(
                PlannedQuery(
                    f"max by ({label}) (max_over_time({name}{{{selector}}}[{window}]))",
                    role,
                    service,
                    name,
                )
            )
    kept: list[PlannedQuery] = []
    for role in _ROLE_ORDER:
        kept += [q for q in planned if q.role == role][: _ROLE_LIMITS[role]]
    return kept


def query_step(start: datetime, end: datetime) -> float:
    """The step of a range query over ``[start, end]``: the engine's 5-minute buckets, longer
    (in whole 5 minutes) when that would read more than :data:`TARGET_POINTS` points.

    >>> from datetime import timedelta
    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> query_step(t, t + timedelta(hours=12)), query_step(t, t + timedelta(days=7))
    (300.0, 1500.0)
    """
    seconds = max((end - start).total_seconds(), 1.0)
    return float(max(MIN_STEP, math.ceil(seconds / TARGET_POINTS / MIN_STEP) * MIN_STEP))


def _window(step: float) -> str:
    """The window of a query with ``step``: one step, so every point covers its own interval
    (a rate over it, a gauge's peak in it).

    >>> _window(300.0), _window(1500.0)
    ('5m', '25m')
    """
    seconds = int(max(MIN_STEP, step))
    return f"{seconds // 60}m" if seconds % 60 == 0 else f"{seconds}s"


def _sources_statement() -> Any:
    """The organization's data sources as a pull reads them (``org_id`` bound), oldest first."""
    d = DataSource
    return (
        select(d.id, d.org_id, d.name, d.url, d.service_label, d.headers)
        .where(d.org_id == bindparam("org_id"))
        .order_by(d.id)
    )


@dataclass(frozen=True)
class _Source:
    id: int
    org_id: int
    name: str
    url: str
    service_label: str
    headers: str | None


@dataclass
class _Outcome:
    queries: list[PulledQuery]
    snapshots: list[snapshots.NewSnapshot]
    notes: list[str]
    points: int = 0
    #: The sample times seen so far, as datetimes (see `_series`).
    times: dict[int | float, datetime] = field(default_factory=dict)


def _bold(name: str) -> str:
    text = " ".join(name.split()).replace("*", "").replace("§", "").replace("[[", "[ [")
    return f"**{text}**"


def _series(
    result: Sequence[SeriesResult],
    name: str,
    service: str,
    *,
    label: str,
    times: dict[int | float, datetime],
) -> tuple[MetricSeries, ...]:
    """``result`` as the engine's series: each sample's time as a datetime (``times`` holds
    those made so far: the series of one pull share their steps), its value as a float (a value
    that is not a finite number is left out)."""
    out = []
    for item in result:
        metric = item.get("metric") or {}
        points = []
        for at, text in item["values"]:
            when = times.get(at)
            if when is None:
                when = times[at] = datetime.fromtimestamp(at, UTC)
            try:
                value = float(text)
            except ValueError:
                continue
            if math.isfinite(value):
                points.append((when, value))
        labels = {k: v for k, v in metric.items() if k not in ("__name__", label)}
        out.append(MetricSeries(0, name, metric.get(label) or service, labels, tuple(points)))
    return tuple(out)


#: The label that tells the answers of combined queries apart (see `_together`).
_TAG = "sleuth_query"


async def _together(
    client: PrometheusClient,
    queries: Sequence[PlannedQuery],
    start: datetime,
    end: datetime,
    step: float,
) -> list[list[SeriesResult]]:
    """The answers of ``queries``, asked in one range query: each tagged with its index by
    ``label_replace`` and joined with ``or`` (distinct tags: nothing is dropped), then split on
    the tag, which is removed, so each answer is what the query alone gives. One round trip
    instead of one per query; should the source refuse the combination, they are asked in turn.
    """
    if len(queries) <= 1:
        return [await client.query_range(q.promql, start, end, step) for q in queries]
    combined = " or ".join(
        f'label_replace({q.promql}, "{_TAG}", "{i}", "", "")' for i, q in enumerate(queries)
    )
    try:
        answer = await client.query_range(combined, start, end, step)
    except PrometheusError as exc:
        if not exc.refused:
            raise
        return [await client.query_range(q.promql, start, end, step) for q in queries]
    split: list[list[SeriesResult]] = [[] for _ in queries]
    for item in answer:
        index = (item.get("metric") or {}).pop(_TAG, "")
        if not index.isdigit() or int(index) >= len(queries):
            raise PrometheusError("answered a combined query with a series of no query")
        split[int(index)].append(item)
    return split


class PrometheusPull:
    """`~sleuth_shell.agents.base.DataSources` over the database's data sources (see the module
    doc). ``secret_key`` is ``SLEUTH_SECRET_KEY`` (the header cipher's key is derived from it,
    or from the generated server secret when it is unset)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        secret_key: str | None,
        *,
        timeout: float = QUERY_TIMEOUT,
        budget: float = SOURCE_BUDGET,
        max_points: int = MAX_POINTS,
        clock: Callable[[], datetime] = utcnow,
        plan_ttl: float = PLAN_TTL,
    ) -> None:
        self._sessions = sessions
        self._hot = HotStatements(sessions)
        self._secret_key = secret_key
        self.timeout = timeout
        self.budget = budget
        self.max_points = max_points
        self._clock = clock
        self._cipher: HeaderCipher | None = None
        self.plan_ttl = plan_ttl
        self._plans: dict[tuple[Any, ...], tuple[float, tuple[PlannedQuery, ...]]] = {}
        self._clients: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[tuple[int, str, str | None], PrometheusClient]
        ] = weakref.WeakKeyDictionary()

    async def _client(self, source: _Source, cipher: HeaderCipher) -> PrometheusClient:
        """The source's client on the running event loop, kept from one pull to the next so its
        connections are reused (no connect per investigation); a new one once the source's URL
        or headers change, the least recently used closed beyond :data:`_MAX_CLIENTS`.
        :class:`SealedHeadersError` when the stored headers cannot be opened."""
        clients = self._clients.setdefault(asyncio.get_running_loop(), {})
        key = (source.id, source.url, source.headers)
        client = clients.pop(key, None)
        if client is None:
            headers = cipher.open(source.org_id, source.headers) if source.headers else {}
            client = PrometheusClient(source.url, headers, timeout=self.timeout)
            stale = [k for k in clients if k[0] == source.id]
            while len(clients) - len(stale) >= _MAX_CLIENTS:
                stale.append(next(k for k in clients if k not in stale))
            for old in stale:
                await clients.pop(old).aclose()
        clients[key] = client  # the most recently used last
        return client

    async def aclose(self) -> None:
        """Close the clients kept on the running event loop."""
        for client in self._clients.pop(asyncio.get_running_loop(), {}).values():
            await client.aclose()

    async def _get_cipher(self) -> HeaderCipher:
        if self._cipher is None:
            self._cipher = await load_cipher(self._sessions, self._secret_key)
        return self._cipher

    async def pull(self, org_id: int, request: PullRequest) -> Pulled:
        """Query every data source of ``org_id`` for ``request`` and keep the answers."""
        # Read like the other stores the agents read (the hot-read path: on SQLite no session and
        # no wait for the loop, so the first request goes out before the other reads start).
        rows = await self._hot.rows("data_sources", _sources_statement, {"org_id": org_id})
        sources = [_Source(*row) for row in rows]
        if not sources:
            return Pulled()
        cipher = await self._get_cipher()
        share = max(1, self.max_points // len(sources))
        reads = [self._source(source, cipher, request, share) for source in sources]
        # One source is read in this task: its request goes out now, not after a scheduling round.
        outcomes = [await reads[0]] if len(reads) == 1 else await asyncio.gather(*reads)
        await snapshots.save(self._sessions, [s for outcome in outcomes for s in outcome.snapshots])
        return Pulled(
            tuple(q for outcome in outcomes for q in outcome.queries),
            tuple(note for outcome in outcomes for note in outcome.notes),
            len(sources),
        )

    async def _source(
        self, source: _Source, cipher: HeaderCipher, request: PullRequest, points: int
    ) -> _Outcome:
        outcome = _Outcome([], [], [])
        try:
            client = await self._client(source, cipher)
        except SealedHeadersError as exc:
            outcome.notes.append(f"Data source {_bold(source.name)} was not queried: {exc}.")
            return outcome
        try:
            async with asyncio.timeout(self.budget):
                await self._read(client, source, request, points, outcome)
        except TimeoutError:
            outcome.notes.append(
                f"Data source {_bold(source.name)} did not finish within {self.budget:g} s; "
                "the investigation went on with what it had answered."
            )
        except PrometheusError as exc:
            outcome.notes.append(
                f"Data source {_bold(source.name)} failed: it {exc}; the investigation went on "
                "without it."
            )
        return outcome

    async def _read(
        self,
        client: PrometheusClient,
        source: _Source,
        request: PullRequest,
        budget: int,
        outcome: _Outcome,
    ) -> None:
        """Plan the source's queries, run them while the points allow and keep their answers in
        ``outcome`` (what was answered stays there if a later request fails)."""
        start = request.start.replace(microsecond=0)
        end = request.end.replace(microsecond=0)
        step = query_step(start, end)
        if request.expression and request.expression.strip():
            expression = request.expression.strip()
            first = next((s for s in request.services if s), "")
            alert = PlannedQuery(expression, "alert", first, expression[:200])
            try:
                result = await client.query_range(alert.promql, start, end, step)
            except PrometheusError as exc:
                if not exc.refused:
                    raise
                # An expression this source refuses (another system's, or not PromQL): noted,
                # and the source's own series are still read.
                outcome.notes.append(
                    f"Data source {_bold(source.name)} refused the alert's expression: it {exc}."
                )
            else:
                result = result[:MAX_ALERT_SERIES]
                if any(item["values"] for item in result):
                    self._keep(outcome, source, alert, result, start, end, step)
        planned = await self._discover(client, source, request.services, start, end, step)
        planned = planned[: MAX_QUERIES - 1]
        # Each planned query answers one series (aggregated per service): run those that fit.
        per_series = int((end - start).total_seconds() // step) + 1
        room = max(0, budget - outcome.points) // per_series
        chosen = planned[: max(room, 0)]
        if len(chosen) < len(planned):
            outcome.notes.append(
                f"Data source {_bold(source.name)}: {len(chosen)} of {len(planned)} queries read "
                f"(the bound of {budget} points per investigation)."
            )
        answers = await _together(client, chosen, start, end, step)
        for query, result in zip(chosen, answers, strict=True):
            if any(item["values"] for item in result):
                self._keep(outcome, source, query, result, start, end, step)

    async def _discover(
        self,
        client: PrometheusClient,
        source: _Source,
        services: Sequence[str],
        start: datetime,
        end: datetime,
        step: float,
    ) -> list[PlannedQuery]:
        """The source's queries for ``services`` (see the module doc), from its service label's
        values and each service's series names; the plan is kept :attr:`plan_ttl` seconds per
        source and services (an alert storm plans once)."""
        label = source.service_label
        key = (source.id, source.url, label, tuple(services), step)
        now = time.monotonic()
        cached = self._plans.get(key)
        if cached is not None and now - cached[0] < self.plan_ttl:
            return list(cached[1])
        known = await client.label_values(label, start, end)
        wanted = [s for s in dict.fromkeys(services) if s and s in set(known)]
        if len(known) <= MAX_SERVICES:
            wanted += [s for s in sorted(known) if s not in wanted]
        wanted = wanted[:MAX_SERVICES]
        by_service: dict[str, list[dict[str, str]]] = {s: [] for s in wanted}
        if wanted:
            # One lookup for every service (a match[] each), histogram buckets left out: they
            # multiply a histogram's series by its buckets, and its count names it as well.
            matchers = [f'{{{label}={_string(s)},le=""}}' for s in wanted]
            for labels in await client.series(matchers, start, end):
                if labels.get(label) in by_service:
                    by_service[labels[label]].append(labels)
        planned: list[PlannedQuery] = []
        for service in wanted:
            planned += plan_queries(service, label, by_service[service], _window(step))
        if len(self._plans) >= _MAX_PLANS:
            self._plans.clear()
        self._plans[key] = (now, tuple(planned))
        return planned

    def _keep(
        self,
        outcome: _Outcome,
        source: _Source,
        query: PlannedQuery,
        result: list[SeriesResult],
        start: datetime,
        end: datetime,
        step: float,
    ) -> None:
        outcome.points += sum(len(item["values"]) for item in result)
        artifact_id = snapshots.new_artifact_id()
        outcome.snapshots.append(
            snapshots.NewSnapshot(
                artifact_id,
                source.org_id,
                source.id,
                source.name,
                source.url,
                query.promql,
                start,
                end,
                step,
                result,
                self._clock(),
            )
        )
        outcome.queries.append(
            PulledQuery(
                source_name=source.name,
                source_url=source.url,
                promql=query.promql,
                start=start,
                end=end,
                step=step,
                artifact_id=artifact_id,
                role=query.role,
                service=query.service,
                series=_series(
                    result,
                    query.name,
                    query.service,
                    label=source.service_label,
                    times=outcome.times,
                ),
            )
        )
