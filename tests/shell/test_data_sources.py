"""Data sources in-process: the header cipher, the API's validation and storage (SQLite and
PostgreSQL), the migration's downgrade, `PrometheusPull` against Debian's real Prometheus and
VictoriaMetrics (slow, refusing and failing sources, the bound on points, the snapshots it keeps),
and "why" questions that reach the engine without logs."""

from __future__ import annotations

import asyncio
import contextlib
import doctest
import json
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from prometheus_harness import incident_exposition_ms, victoria_metrics
from rca_memory import MemoryChanges, MemoryKnowledge, MemoryLogs, MemoryMetrics

from sleuth_shell.agents import pulled, rca
from sleuth_shell.agents.base import AgentContext, ChangeRecord, PullRequest
from sleuth_shell.agents.retrieval import RetrievalAgent
from sleuth_shell.datasources import crypto, pull, snapshots, store
from sleuth_shell.datasources.crypto import HeaderCipher, SealedHeadersError
from sleuth_shell.datasources.prometheus import PrometheusClient, PrometheusError
from sleuth_shell.datasources.pull import PrometheusPull
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import DataSource, EvidenceSnapshot

PATH = "/api/v1/data-sources"
SECRET = "Bearer top-secret-value-42"


def test_module_doctests() -> None:
    for module in (crypto, snapshots, pull, pulled):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_cipher_round_trip_and_refusals() -> None:
    cipher = HeaderCipher("a" * 40)
    sealed = cipher.seal(3, {"Authorization": SECRET, "X-Scope-OrgID": "team-a"})
    assert SECRET not in sealed and cipher.open(3, sealed)["Authorization"] == SECRET
    # A fresh nonce every time: the same headers never seal to the same text.
    assert cipher.seal(3, {"A": "b"}) != cipher.seal(3, {"A": "b"})
    for org, key, text in [
        (4, cipher, sealed),  # another organization's row
        (3, HeaderCipher("b" * 40), sealed),  # the server secret changed
        (3, cipher, sealed[:-4] + "AAAA"),  # tampered
        (3, cipher, "plain text"),
    ]:
        with pytest.raises(SealedHeadersError):
            key.open(org, text)


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ([], "Request body must be a JSON object"),
        ({"name": "p", "kind": "prometheus"}, "Missing required field: url"),
        ({"name": " ", "kind": "prometheus", "url": "http://p"}, "name must be a non-empty"),
        ({"name": "p", "kind": "loki", "url": "http://p"}, "Unknown kind: loki"),
        ({"name": "p", "kind": "prometheus", "url": "prom:9090"}, "Invalid url: prom:9090"),
        ({"name": "p", "kind": "prometheus", "url": "http://p/?x=1"}, "Invalid url"),
        ({"name": "p", "kind": "prometheus", "url": "http://a:b@p"}, "url must not carry"),
        ({"name": "p", "kind": "prometheus", "url": "http://p:99999"}, "Invalid url"),
        ({"name": "p", "kind": "prometheus", "url": "http://p", "headers": []}, "headers must"),
        (
            {"name": "p", "kind": "prometheus", "url": "http://p", "headers": {"A B": "x"}},
            "Invalid header name: A B",
        ),
        (
            {"name": "p", "kind": "prometheus", "url": "http://p", "headers": {"A": "x\ny"}},
            "The value of header A must be at most",
        ),
        (
            {"name": "p", "kind": "prometheus", "url": "http://p", "service_label": "1x"},
            "Invalid service_label: 1x",
        ),
    ],
)
def test_bad_bodies_get_clear_400s_and_store_nothing(
    client: Any, factory: Any, body: Any, detail: str
) -> None:
    org = factory.org(admin_key=True)
    response = client.post(PATH, json=body, headers=org.headers)
    assert response.status_code == 400, response.text
    assert response.json()["detail"].startswith(detail)
    assert client.get(PATH, headers=org.headers).json() == {"data_sources": []}


def _rows(url: str, model: Any) -> list[Any]:
    async def go() -> list[Any]:
        engine = create_engine(url)
        try:
            async with create_session_factory(engine)() as session:
                return list(await session.scalars(sa.select(model)))
        finally:
            await engine.dispose()

    return asyncio.run(go())


@pytest.mark.storage
def test_headers_encrypted_at_rest_and_snapshots_outlive_their_source(
    client: Any, factory: Any, migrated_url: str
) -> None:
    org = factory.org(admin_key=True)
    body = {"name": "prom", "kind": "prometheus", "url": "http://127.0.0.1:1/"}
    created = client.post(
        PATH, json={**body, "headers": {"Authorization": SECRET}}, headers=org.headers
    )
    assert created.status_code == 200, created.text
    item = created.json()
    assert item["url"] == "http://127.0.0.1:1" and item["header_names"] == ["Authorization"]
    [row] = _rows(migrated_url, DataSource)
    assert row.headers and SECRET not in row.headers
    cipher = asyncio.run(_cipher(migrated_url))
    assert store.headers_of(row, cipher) == {"Authorization": SECRET}
    # PUT changes only what it names; {} removes the headers.
    changed = client.put(f"{PATH}/{item['id']}", json={"headers": {}}, headers=org.headers)
    assert changed.json() == {**item, "header_names": []}
    [row] = _rows(migrated_url, DataSource)
    assert row.headers is None
    # A snapshot kept under the source stays when the source goes.
    fetched = datetime(2026, 1, 1, tzinfo=UTC)
    snap = snapshots.NewSnapshot(
        "ab" * 16, org.id, row.id, "prom", row.url, "up", fetched, fetched, 60.0,
        [{"metric": {}, "values": [[fetched.timestamp(), "1"]]}], fetched,
    )  # fmt: skip
    factory.run(lambda s: _save(s, [snap]))
    assert client.delete(f"{PATH}/{item['id']}", headers=org.headers).json() == {"success": True}
    evidence = client.get(f"/api/v1/evidence/{'ab' * 16}", headers=org.headers).json()
    assert evidence["data_source"] == {"id": None, "name": "prom", "url": row.url}
    assert evidence["points"] == snap.points
    assert evidence["start"] == "2026-01-01T00:00:00Z"
    assert [r.data_source_id for r in _rows(migrated_url, EvidenceSnapshot)] == [None]


async def _save(session: Any, kept: list[snapshots.NewSnapshot]) -> None:
    await snapshots.save(create_session_factory(session.bind), kept)


async def _cipher(url: str) -> HeaderCipher:
    engine = create_engine(url)
    try:
        return await store.load_cipher(create_session_factory(engine), None)
    finally:
        await engine.dispose()


def test_only_admin_keys_change_or_test(client: Any, factory: Any) -> None:
    org = factory.org()
    body = {"name": "prom", "kind": "prometheus", "url": "http://127.0.0.1:1"}
    for method, path in [("POST", PATH), ("PUT", f"{PATH}/x"), ("DELETE", f"{PATH}/x"),
                         ("POST", f"{PATH}/x/test")]:  # fmt: skip
        response = client.request(method, path, json=body, headers=org.headers)
        assert (response.status_code, response.json()) == (
            403, {"detail": "Admin API key required"},
        ), (method, path)  # fmt: skip
    assert client.get(f"{PATH}/x", headers=org.headers).status_code == 404


@pytest.mark.storage
def test_migration_0018_downgrades_and_upgrades_again(database_url: str) -> None:
    from test_ids_never_reused import _downgrade

    from sleuth_shell.db import migrate

    migrate(database_url)
    asyncio.run(_downgrade(database_url, "0020"))

    async def tables() -> set[str]:
        engine = create_engine(database_url)
        try:
            async with engine.connect() as connection:
                return set(await connection.run_sync(lambda c: sa.inspect(c).get_table_names()))
        finally:
            await engine.dispose()

    assert not {"data_sources", "evidence_snapshots"} & asyncio.run(tables())
    migrate(database_url)
    assert {"data_sources", "evidence_snapshots"} <= asyncio.run(tables())


# --- the pull, against real servers --------------------------------------------------------------


@contextlib.contextmanager
def silent_server() -> Iterator[str]:
    """A TCP server that accepts connections and never answers (a hung data source)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        sock.settimeout(0.1)
        while not stop.is_set():
            with contextlib.suppress(TimeoutError, OSError):
                accepted.append(sock.accept()[0])

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for conn in accepted:
            conn.close()
        sock.close()


def _add_sources(factory: Any, org: Any, sources: list[tuple[str, str, str]]) -> None:
    cipher = asyncio.run(_cipher(factory.url))

    async def go(session: Any) -> None:
        for name, url, label in sources:
            data = store.DataSourceInput(name, "prometheus", url, label, {"Authorization": SECRET})
            await store.create(session, org.id, data, cipher)

    factory.run(go)


def _pull(url: str, org_id: int, request: PullRequest, **options: Any) -> Any:
    async def go() -> Any:
        engine = create_engine(url)
        pull = PrometheusPull(create_session_factory(engine), None, **options)
        try:
            return await pull.pull(org_id, request)
        finally:
            await pull.aclose()
            await engine.dispose()

    return asyncio.run(go())


def _request(fired: datetime, expression: str | None = None) -> PullRequest:
    return PullRequest(
        ("checkout",), fired - timedelta(hours=12), fired + timedelta(minutes=5), expression
    )


@pytest.mark.xdist_group("prometheus")
def test_pull_reads_prometheus_and_keeps_every_answer(
    prometheus_incident: tuple[str, datetime], factory: Any, migrated_url: str
) -> None:
    prom_url, fired = prometheus_incident
    org = factory.org()
    with silent_server() as hung:
        _add_sources(
            factory,
            org,
            [("prom", prom_url, "service"), ("hung", hung, "service"),
             ("unlabelled", prom_url, "team"), ("not-an-api", f"{prom_url}/nothing", "service")],
        )  # fmt: skip
        got = _pull(
            migrated_url, org.id, _request(fired, "sum(rate(http_requests_total[5m]"),
            timeout=0.5, budget=5.0,
        )  # fmt: skip
    assert got.consulted == 4
    notes = "\n".join(got.notes)
    assert "**not-an-api** failed: it answered HTTP 404 without a Prometheus API body" in notes
    assert "**hung** failed: it did not answer within 0.5 s" in notes
    # A refused expression is named, and the source's own series are still read.
    assert "**prom** refused the alert's expression: it answered HTTP 400" in notes
    # No series under its label: nothing of its own to read, and no failure.
    assert [n for n in got.notes if "unlabelled" in n and "refused" not in n] == []
    assert {q.source_name for q in got.queries} == {"prom"}
    roles = {(q.role, q.service) for q in got.queries}
    assert roles == {
        ("errors", "checkout"), ("latency", "checkout"), ("traffic", "checkout"),
        ("saturation", "payments-db"),
    }  # fmt: skip
    errors = next(q for q in got.queries if q.role == "errors")
    [series] = errors.series
    assert (series.name, series.service) == ("http_requests_total:5xx", "checkout")
    onset = fired - timedelta(minutes=25)
    before = [v for t, v in series.points if t < onset - timedelta(minutes=10)]
    after = [v for t, v in series.points if onset + timedelta(minutes=6) <= t <= fired]
    assert before and max(before) == 0 and after and min(after) == pytest.approx(5.0)
    # Every answer is a snapshot whose digest covers what was read.
    kept = {r.id: r for r in _rows(migrated_url, EvidenceSnapshot)}
    assert set(kept) == {q.artifact_id for q in got.queries}
    for query in got.queries:
        row = kept[query.artifact_id]
        assert (row.query, row.data_source_name, row.step) == (query.promql, "prom", 300.0)
        document = snapshots.content(
            row.query, row.start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            row.end.strftime("%Y-%m-%dT%H:%M:%SZ"), row.step, row.points,
        )  # fmt: skip
        assert row.sha256 == snapshots.digest(document)
        assert sum(len(s.points) for s in query.series) == sum(
            len(item["values"]) for item in row.points
        )
        record = pulled.pulled_source(query)
        assert json.loads(record["query"])["promql"] == query.promql
        assert record["artifact_id"] == query.artifact_id


@pytest.mark.xdist_group("prometheus")
def test_pull_stops_at_the_bound_on_points(
    prometheus_incident: tuple[str, datetime], factory: Any, migrated_url: str
) -> None:
    prom_url, fired = prometheus_incident
    org = factory.org()
    _add_sources(factory, org, [("prom", prom_url, "service")])
    got = _pull(migrated_url, org.id, _request(fired), max_points=200)
    points = sum(len(s.points) for q in got.queries for s in q.series)
    assert len(got.queries) == 1 and 0 < points <= 200
    assert got.notes == ("Data source **prom**: 1 of 4 queries read (the bound of 200 points "
                         "per investigation).",)  # fmt: skip


@pytest.mark.xdist_group("prometheus")
def test_a_source_keeps_its_client_until_its_headers_change(
    prometheus_incident: tuple[str, datetime], factory: Any, migrated_url: str
) -> None:
    """Pulls reuse the source's HTTP client (and its connection); a new header set gets a new
    client and the old one is closed; closing the pull closes the rest."""
    prom_url, fired = prometheus_incident
    org = factory.org()
    _add_sources(factory, org, [("prom", prom_url, "service")])
    cipher = asyncio.run(_cipher(factory.url))

    async def go() -> tuple[Any, ...]:
        engine = create_engine(migrated_url)
        sessions = create_session_factory(engine)
        puller = PrometheusPull(sessions, None)
        try:
            first = await puller.pull(org.id, _request(fired))
            [client] = puller._clients[asyncio.get_running_loop()].values()
            again = await puller.pull(org.id, _request(fired))
            [same] = puller._clients[asyncio.get_running_loop()].values()
            async with sessions() as session:
                [row] = await store.list_all(session, org.id)
                await store.update(session, row, {"headers": {"Authorization": "new"}}, cipher)
            await puller.pull(org.id, _request(fired))
            [fresh] = puller._clients[asyncio.get_running_loop()].values()
            stale_closed = client._client.is_closed
            await puller.aclose()
            return first, again, client, same, fresh, stale_closed
        finally:
            await engine.dispose()

    first, again, client, same, fresh, stale_closed = asyncio.run(go())
    assert len(first.queries) == len(again.queries) == 4 and not again.notes
    assert same is client and fresh is not client
    assert stale_closed and fresh._client.is_closed


def test_the_pull_runs_while_the_stores_are_read_and_stops_when_one_fails() -> None:
    """The pull starts before the stores are read (the metric store here waits for it to have
    started); a store that fails cancels it."""
    started = asyncio.Event()
    cancelled: list[bool] = []

    class SlowSources:
        async def pull(self, org_id: int, request: PullRequest) -> Any:
            started.set()
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                cancelled.append(True)
                raise

    class BrokenMetrics:
        async def query(self, *args: Any, **kwargs: Any) -> Any:
            await asyncio.wait_for(started.wait(), 5)
            raise RuntimeError("metric store down")

    fired = datetime(2026, 3, 1, 12, tzinfo=UTC)
    ctx = AgentContext(
        org_id=1, now=fired, knowledge=MemoryKnowledge([]), logs=MemoryLogs([]),
        public_url="http://sleuth.test", metrics=BrokenMetrics(), data_sources=SlowSources(),
    )  # fmt: skip

    async def go() -> list[bool]:
        with pytest.raises(RuntimeError, match="metric store down"):
            await rca.gather(ctx, title="Checkout failing", service="checkout", fired=fired)
        await asyncio.sleep(0)
        return list(cancelled)

    assert asyncio.run(go()) == [True]


@pytest.fixture(scope="module")
def victoria(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, datetime]]:
    from prometheus_harness import alert_time

    fired = alert_time()
    directory = tmp_path_factory.mktemp("victoria-metrics")
    with victoria_metrics(directory, incident_exposition_ms(fired)) as url:
        yield url, fired


def test_malformed_answers_are_named_and_answers_asked_uncompressed() -> None:
    """A range query's answer is checked as it is decoded: a wrong shape, a sample time no
    snapshot could keep and a body that is no API answer each fail with what is wrong; every
    request asks for an uncompressed answer and the samples come back as the server gave them."""
    matrix = {
        "resultType": "matrix",
        "result": [{"metric": {"job": "a"}, "values": [[1767225600, "1"]]}],
    }
    bodies = {
        "good": {"status": "success", "data": matrix},
        "number": {
            "status": "success",
            "data": {"resultType": "matrix", "result": [{"values": [[1767225600, 1]]}]},
        },
        "time": {
            "status": "success",
            "data": {"resultType": "matrix", "result": [{"values": [[1e20, "1"]]}]},
        },
        "vector": {"status": "success", "data": {"resultType": "vector", "result": []}},
    }
    encodings: list[str | None] = []

    def answer(request: httpx.Request) -> httpx.Response:
        encodings.append(request.headers.get("accept-encoding"))
        query = dict(httpx.QueryParams(request.content.decode()))["query"]
        if query == "html":
            return httpx.Response(200, text="<html>login</html>")
        return httpx.Response(200, json=bodies[query])

    async def go() -> dict[str, Any]:
        out: dict[str, Any] = {}
        start = datetime(2026, 1, 1, tzinfo=UTC)
        async with PrometheusClient("http://prom", transport=httpx.MockTransport(answer)) as client:
            for name in ("good", "number", "time", "vector", "html"):
                try:
                    out[name] = await client.query_range(name, start, start, 300.0)
                except PrometheusError as exc:
                    out[name] = str(exc)
        return out

    got = asyncio.run(go())
    assert got["good"] == [{"metric": {"job": "a"}, "values": [(1767225600, "1")]}]
    assert got["number"] == (
        "answered a range query with a malformed result (Expected `str`, got `int` - at "
        "`$.data.result[0].values[0][1]`)"
    )
    assert got["time"].startswith("answered a range query with a malformed result (Expected")
    assert "`$.data.result[0].values[0][0]`" in got["time"]
    assert got["vector"] == "answered a range query without a matrix"
    assert got["html"] == "answered HTTP 200 without a Prometheus API body"
    assert encodings == ["identity"] * 5


@pytest.mark.xdist_group("prometheus")
def test_pull_reads_victoria_metrics_alike(
    victoria: tuple[str, datetime], factory: Any, migrated_url: str
) -> None:
    vm_url, fired = victoria
    org = factory.org()
    _add_sources(factory, org, [("vm", vm_url, "service")])
    got = _pull(migrated_url, org.id, _request(fired))
    assert got.notes == () and got.consulted == 1
    assert {(q.role, q.service) for q in got.queries} >= {
        ("errors", "checkout"), ("saturation", "payments-db"),
    }  # fmt: skip
    saturation = next(q for q in got.queries if q.role == "saturation")
    assert max(v for s in saturation.series for _, v in s.points) == 100.0


# --- "why" questions ----------------------------------------------------------------------------


def test_why_question_with_changes_and_no_logs_reaches_the_engine() -> None:
    now = datetime(2026, 5, 6, 12, tzinfo=UTC)
    deploy = ChangeRecord(1, "deploy-7", now - timedelta(hours=1), "checkout", "deploy", "v7")
    ctx = AgentContext(
        org_id=1,
        now=now,
        knowledge=MemoryKnowledge([]),
        logs=MemoryLogs([]),
        public_url="http://sleuth.test",
        changes=MemoryChanges([deploy]),
        metrics=MemoryMetrics([]),
    )
    result = asyncio.run(RetrievalAgent().answer(ctx, "Why is checkout failing?"))
    assert "could not find" not in result.markdown
    assert result.analysis is not None and result.analysis["verdict"] == "unknown"
    assert "## Suspects considered" in result.markdown
    assert result.markdown.startswith("**No change in the data explains this**")
    assert result.analysis["category"] == "unknown" and "Healthy" not in result.markdown


def test_pulled_section_names_failures_and_cites_each_query(tmp_path: Path) -> None:
    del tmp_path
    start = datetime(2026, 1, 1, tzinfo=UTC)
    from sleuth_shell.agents.base import MetricSeries, Pulled, PulledQuery

    query = PulledQuery(
        "prom", "http://p:9090", "up", start, start + timedelta(hours=1), 60.0, "cd" * 16,
        "errors", "api", (MetricSeries(0, "up", "api", {}, ((start, 2.0),)),),
    )  # fmt: skip
    cited: list[dict[str, Any]] = []

    def cite(query: PulledQuery) -> str:
        cited.append(pulled.pulled_source(query))
        return f"[[source:{len(cited)}]]"

    text = pulled.pulled_section(Pulled((query,), ("Data source **slow** failed.",), 2), cite)
    assert text.startswith("## Data sources\n\n- **prom**, errors of **api**: `up`, peak 2 at")
    assert "kept as evidence `" + "cd" * 16 + "` [[source:1]]" in text
    assert text.endswith("- Data source **slow** failed.")
    assert cited[0]["link"].startswith("http://p:9090/graph?g0.expr=up&")
    assert pulled.pulled_section(Pulled(), cite) == ""


def test_the_alert_expression_is_read_from_the_alert() -> None:
    from sleuth_shell.text import extract_alert

    generated = {
        "alerts": [
            {
                "labels": {"alertname": "HighErrors", "service": "api"},
                "generatorURL": "http://prom:9090/graph?g0.expr=rate%28errors_total%5B5m%5D%29+%3E+1",
            }
        ]
    }
    assert extract_alert(json.dumps(generated))["expression"] == "rate(errors_total[5m]) > 1"
    given = {"title": "x", "expression": " up == 0 ", "generatorURL": "http://p/graph?g0.expr=a"}
    assert extract_alert(json.dumps(given))["expression"] == "up == 0"
    grafana = {"alerts": [{"generatorURL": "https://grafana.example/alerting/grafana/u/view"}]}
    assert extract_alert(json.dumps(grafana))["expression"] is None
    assert extract_alert("disk full on db-1")["expression"] is None
