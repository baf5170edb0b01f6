"""Change records and metrics: ingestion endpoints, queries, stores, pages and source records.

Storage-touching tests are marked ``storage`` (SQLite, and PostgreSQL when
``SLEUTH_TEST_POSTGRES_URL`` is set).
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode, urlsplit

import pytest
from sqlalchemy import func, select

from sleuth_shell.agents.base import ChangeRecord, ChangeStore, MetricStore, NoChanges
from sleuth_shell.agents.sources import change_query_source, change_source, metric_source
from sleuth_shell.app import create_app
from sleuth_shell.changes.ingest import MAX_DIFF_BYTES, truncate_diff
from sleuth_shell.changes.store import SqlChangeStore
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import ChangeRow, LogRecord, MetricPoint, MetricSeriesRow
from sleuth_shell.observability.metric_store import SqlMetricStore

# One app and database per back end for the module, an organization per test
# (tests/shell/conftest.py, SharedApps).
pytestmark = pytest.mark.shared_app

T0 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
PUBLIC = "http://sleuth.test"


def iso(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


def change(**overrides):
    base = {
        "timestamp": iso(T0),
        "service": "payments-api",
        "kind": "commit",
        "id": "abc123",
        "summary": "refunds: open a transaction per request",
    }
    base.update(overrides)
    return base


def post_changes(client, org, records):
    return client.post("/api/v1/changes", json={"records": records}, headers=org.headers)


def post_metrics(client, org, series):
    return client.post(
        "/api/v1/observability/metrics", json={"series": series}, headers=org.headers
    )


def run_store(url: str, action):
    async def go():
        engine = create_engine(url)
        try:
            return await action(create_session_factory(engine))
        finally:
            await engine.dispose()

    return asyncio.run(go())


def counts(url: str, org_id: int) -> tuple[int, int, int]:
    """The organization's change rows, metric series and metric points."""

    async def action(sessions):
        out = []
        async with sessions() as session:
            for query in (
                select(func.count()).select_from(ChangeRow).where(ChangeRow.org_id == org_id),
                select(func.count())
                .select_from(MetricSeriesRow)
                .where(MetricSeriesRow.org_id == org_id),
                select(func.count())
                .select_from(MetricPoint)
                .join(MetricSeriesRow, MetricPoint.series_id == MetricSeriesRow.id)
                .where(MetricSeriesRow.org_id == org_id),
            ):
                out.append(int(await session.scalar(query) or 0))
        return tuple(out)

    return run_store(url, action)


# --- change records: validation ---


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ([], "Request body must be a JSON object"),
        ({}, "records: a list of change records is required"),
        ({"records": {}}, "records: a list of change records is required"),
        ({"records": [], "x": 1}, "Unknown field: x"),
        ({"records": [change(), 5]}, "records[1]: a JSON object is required"),
        ({"records": [change(extra=1)]}, "records[0]: unknown field extra"),
        (
            {"records": [change(), change(timestamp="yesterday")]},
            "records[1].timestamp: an ISO 8601 date-time or Unix seconds is required",
        ),
        (
            {"records": [change(timestamp=True)]},
            "records[0].timestamp: an ISO 8601 date-time or Unix seconds is required",
        ),
        ({"records": [change(service=" ")]}, "records[0].service: a non-empty string is required"),
        ({"records": [change(service="s" * 201)]}, "records[0].service: at most 200 characters"),
        (
            {"records": [change(kind="release")]},
            "records[0].kind: one of deploy, commit, flag, config is required",
        ),
        ({"records": [change(id=7)]}, "records[0].id: a non-empty string is required"),
        ({"records": [change(id="x" * 256)]}, "records[0].id: at most 255 characters"),
        ({"records": [change(id="a\x00b")]}, "records[0].id: NUL characters are not allowed"),
        ({"records": [change(summary=None)]}, "records[0].summary: a non-empty string is required"),
        ({"records": [change(author=3)]}, "records[0].author: a string or null is required"),
        (
            {"records": [change(url="javascript:alert(1)")]},
            "records[0].url: an absolute http(s) URL of at most 2000 characters is required",
        ),
        ({"records": [change(files="a.py")]}, "records[0].files: a list of strings is required"),
        (
            {"records": [change(files=["a.py", ""])]},
            "records[0].files[1]: a non-empty string is required",
        ),
        ({"records": [change(files=["f"] * 1001)]}, "records[0].files: at most 1000 items"),
        ({"records": [change(diff=["x"])]}, "records[0].diff: a string or null is required"),
        ({"records": [change(diff="a\x00")]}, "records[0].diff: NUL characters are not allowed"),
        ({"records": [change(ships=[1])]}, "records[0].ships[0]: a non-empty string is required"),
        (
            {"records": [change(attributes=[1])]},
            "records[0].attributes: a JSON object is required",
        ),
        (
            {"records": [change(id=str(i)) for i in range(1001)]},
            "records: at most 1000 records per request",
        ),
    ],
)
def test_change_validation_writes_nothing(client, org, migrated_url, body, detail) -> None:
    response = client.post("/api/v1/changes", json=body, headers=org.headers)
    assert (response.status_code, response.json()) == (400, {"detail": detail})
    assert counts(migrated_url, org.id)[0] == 0


def test_endpoints_need_a_key_and_pages_a_sign_in(client) -> None:
    assert client.post("/api/v1/changes", json={"records": []}).status_code == 401
    assert client.get("/api/v1/changes").json() == {"detail": "Missing API key"}
    assert client.post("/api/v1/observability/metrics", json={"series": []}).status_code == 401
    assert client.get("/api/v1/observability/metrics").status_code == 401
    for path in ("/changes", "/changes/1", "/metrics"):
        page = client.get(path, follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"].startswith("/login?next=")


def test_body_limit_applies(client, org) -> None:
    huge = change(diff="x" * (1024 * 1024 + 10))
    response = post_changes(client, org, [huge])
    assert response.status_code == 413


def test_diff_truncation_keeps_whole_lines_and_says_so() -> None:
    diff = "".join(f"+line {i}\n" for i in range(20_000))
    cut = truncate_diff(diff)
    body, marker = cut.rsplit("\n[diff truncated", 1)
    assert len(body.encode()) <= MAX_DIFF_BYTES and diff.startswith(body + "\n")
    assert marker.endswith(f" of {len(diff.encode())} bytes kept]\n")
    assert truncate_diff("short\n") == "short\n"
    # A multi-byte character is never split.
    assert truncate_diff("é" * 10, 5).startswith("éé\n[diff truncated by Sleuth: 4 of 20")


# --- change records: storage, upsert, queries ---


@pytest.mark.storage
def test_ingest_list_filters_and_upsert(client, org, migrated_url) -> None:
    big_diff = "".join(f"+x{i}\n" for i in range(20_000))
    records = [
        change(id="c1", timestamp=iso(T0), files=["refunds/tx.py"], diff="+ BEGIN;\n"),
        change(
            id="c2",
            timestamp=(T0 + timedelta(minutes=5)).timestamp(),
            service="checkout-api",
            summary="Bump retries",
            files=["Config/Retry.YAML"],
        ),
        change(id="f1", kind="FLAG", timestamp=iso(T0 + timedelta(minutes=10)), summary="flag on"),
        change(
            id="d1",
            kind="deploy",
            timestamp=iso(T0 + timedelta(minutes=20)),
            summary="deploy v2.14.0",
            ships=["c1", "missing"],
            author="deploy-bot",
            url="https://ci.example.com/d/1",
            attributes={"version": "v2.14.0"},
            diff=big_diff,
        ),
    ]
    response = post_changes(client, org, records)
    assert (response.status_code, response.json()) == (200, {"ingested": 4})
    listed = client.get("/api/v1/changes", headers=org.headers).json()["changes"]
    assert [c["id"] for c in listed] == ["d1", "f1", "c2", "c1"]  # newest first
    d1 = listed[0]
    assert d1["kind"] == "deploy" and d1["ships"] == ["c1", "missing"]
    assert d1["attributes"] == {"version": "v2.14.0"} and d1["author"] == "deploy-bot"
    assert d1["timestamp"] == "2026-11-20T12:20:00Z"
    assert "[diff truncated by Sleuth:" in d1["diff"] and len(d1["diff"]) < MAX_DIFF_BYTES + 100
    assert listed[1]["kind"] == "flag"  # normalized
    assert urlsplit(d1["link"]).path.startswith("/changes/")

    def ids(**params):
        response = client.get("/api/v1/changes?" + urlencode(params), headers=org.headers)
        assert response.status_code == 200, response.text
        return [c["id"] for c in response.json()["changes"]]

    assert ids(service="checkout-api") == ["c2"]
    assert ids(kind="commit") == ["c2", "c1"]
    assert ids(since=iso(T0 + timedelta(minutes=5))) == ["d1", "f1", "c2"]  # inclusive
    assert ids(until=iso(T0 + timedelta(minutes=5))) == ["c1"]  # exclusive
    assert ids(since=str(int((T0 + timedelta(minutes=10)).timestamp()))) == ["d1", "f1"]
    assert ids(q="retry.yaml") == ["c2"]  # files, case-insensitive
    assert ids(q="begin;") == ["c1"]  # diff
    assert ids(q="BUMP") == ["c2"]  # summary
    assert ids(q="100%") == []  # LIKE wildcards are literal
    assert ids(limit="2") == ["d1", "f1"]
    for params, detail in [
        ({"since": "soon"}, "Invalid since: an ISO 8601 date-time or Unix seconds is required"),
        ({"until": "x"}, "Invalid until: an ISO 8601 date-time or Unix seconds is required"),
        ({"kind": "release"}, "Invalid kind: one of deploy, commit, flag, config is required"),
        ({"limit": "0"}, "Invalid limit: 0 (a whole number from 1 to 200)"),
        ({"limit": "201"}, "Invalid limit: 201 (a whole number from 1 to 200)"),
        ({"q": "q" * 501}, "Invalid q: at most 500 characters, without NUL"),
        ({"service": "a\x00"}, "Invalid service: at most 200 characters, without NUL"),
    ]:
        bad = client.get("/api/v1/changes?" + urlencode(params), headers=org.headers)
        assert (bad.status_code, bad.json()) == (400, {"detail": detail}), params

    # Upsert: the same id again replaces the content and keeps the row (and its link).
    again = post_changes(
        client,
        org,
        [
            change(id="c1", summary="first version", timestamp=iso(T0)),
            change(id="c1", summary="amended", timestamp=iso(T0 + timedelta(minutes=1))),
        ],
    )
    assert again.json() == {"ingested": 1}  # one per distinct id: the last wins
    after = client.get("/api/v1/changes?kind=commit", headers=org.headers).json()["changes"]
    c1 = next(c for c in after if c["id"] == "c1")
    before = next(c for c in listed if c["id"] == "c1")
    assert c1["summary"] == "amended" and c1["files"] == [] and c1["diff"] == ""
    assert c1["timestamp"] == "2026-11-20T12:01:00Z" and c1["link"] == before["link"]
    assert counts(migrated_url, org.id)[0] == 4


@pytest.mark.storage
def test_store_protocol_conformance(client, org, migrated_url) -> None:
    post_changes(
        client,
        org,
        [
            change(id="c1", timestamp=iso(T0)),
            change(id="c2", timestamp=iso(T0 + timedelta(minutes=1)), service="web"),
            change(id="d1", kind="deploy", timestamp=iso(T0 + timedelta(minutes=2)), ships=["c1"]),
            change(id="d2", kind="deploy", timestamp=iso(T0 + timedelta(minutes=3)), ships=["c10"]),
        ],
    )

    async def action(sessions):
        store = SqlChangeStore(sessions)
        assert isinstance(store, ChangeStore) and isinstance(SqlMetricStore(sessions), MetricStore)
        window = await store.query(org.id, T0, T0 + timedelta(minutes=2))
        services = await store.query(org.id, T0, T0 + timedelta(hours=1), services=["web"])
        kinds = await store.query(org.id, T0, T0 + timedelta(hours=1), kinds=["deploy"], limit=1)
        many = await store.get_many(org.id, ["d1", "c1", "nope", "a\x00"])
        shipped = await store.shipped_by(org.id, "c1")
        other = await store.query(org.id + 1000, T0, T0 + timedelta(hours=1))
        return window, services, kinds, many, shipped, other

    window, services, kinds, many, shipped, other = run_store(migrated_url, action)
    assert [c.change_id for c in window] == ["c1", "c2"]  # oldest first, end exclusive
    assert isinstance(window[0], ChangeRecord) and window[0].timestamp == T0
    assert window[0].kind == "commit" and window[0].files == () and window[0].ships == ()
    assert [c.change_id for c in services] == ["c2"]
    assert [c.change_id for c in kinds] == ["d1"]
    assert [c.change_id for c in many] == ["c1", "d1"]
    assert [c.change_id for c in shipped] == ["d1"]  # not d2, which ships "c10"
    assert other == []


# --- metrics ---


def series(**overrides):
    base = {
        "name": "http_error_rate",
        "service": "payments-api",
        "labels": {"route": "/refund"},
        "points": [[iso(T0), 0.01], [T0.timestamp() + 60, 0.5]],
    }
    base.update(overrides)
    return base


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ([], "Request body must be a JSON object"),
        ({}, "series: a list of metric series is required"),
        ({"series": [], "x": 1}, "Unknown field: x"),
        ({"series": [3]}, "series[0]: a JSON object is required"),
        ({"series": [series(unit="s")]}, "series[0]: unknown field unit"),
        ({"series": [series(name="")]}, "series[0].name: a non-empty string is required"),
        ({"series": [series(name="n" * 201)]}, "series[0].name: at most 200 characters"),
        ({"series": [series(service=None)]}, "series[0].service: a non-empty string is required"),
        (
            {"series": [series(labels=["a"])]},
            "series[0].labels: a JSON object of strings is required",
        ),
        (
            {"series": [series(labels={"code": 500})]},
            "series[0].labels.code: a string (without NUL) is required",
        ),
        (
            {"series": [series(labels={f"k{i}": "v" for i in range(33)})]},
            "series[0].labels: at most 32 labels",
        ),
        (
            {"series": [series(labels={"k": "v" * 900})]},
            "series[0].labels: too large (at most 800 characters as JSON)",
        ),
        (
            {"series": [series(points={})]},
            "series[0].points: a list of [timestamp, value] pairs is required",
        ),
        (
            {"series": [series(points=[[iso(T0), 1], [iso(T0)]])]},
            "series[0].points[1]: a [timestamp, value] pair is required",
        ),
        (
            {"series": [series(), series(points=[["noon", 1]])]},
            "series[1].points[0].timestamp: an ISO 8601 date-time or Unix seconds is required",
        ),
        (
            {"series": [series(points=[[iso(T0), "1"]])]},
            "series[0].points[0].value: a finite number is required",
        ),
        (
            {"series": [series(points=[[iso(T0), True]])]},
            "series[0].points[0].value: a finite number is required",
        ),
        (
            {"series": [series(points=[[iso(T0), 10**400]])]},
            "series[0].points[0].value: a finite number is required",
        ),
        (
            {"series": [series(points=[[0, 1]] * 50_001)]},
            "series: at most 50000 points per request",
        ),
    ],
)
def test_metric_validation_writes_nothing(client, org, migrated_url, body, detail) -> None:
    response = client.post("/api/v1/observability/metrics", json=body, headers=org.headers)
    assert (response.status_code, response.json()) == (400, {"detail": detail})
    assert counts(migrated_url, org.id)[1:] == (0, 0)


def test_non_finite_json_numbers_are_refused(client, org) -> None:
    body = (
        b'{"series": [{"name": "n", "service": "s", "points": [["2026-11-20T12:00:00Z", 1e999]]}]}'
    )
    response = client.post(
        "/api/v1/observability/metrics",
        content=body,
        headers={**org.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["detail"] in {
        "series[0].points[0].value: a finite number is required",
        "Request body must be a JSON object",
    }


@pytest.mark.storage
def test_metrics_ingest_overwrite_and_query(client, org, migrated_url) -> None:
    first = post_metrics(
        client,
        org,
        [
            series(),
            series(labels={"route": "/pay"}, points=[[iso(T0), 0.2]]),
            series(name="p99_latency_ms", labels=None, points=[[iso(T0), 120], [iso(T0), 130]]),
            series(service="checkout-api", points=[[iso(T0 + timedelta(hours=2)), 1]]),
        ],
    )
    assert (first.status_code, first.json()) == (200, {"ingested": 5})
    # Same series and time again: the value is overwritten, nothing added.
    again = post_metrics(client, org, [series(points=[[iso(T0), 0.03]])])
    assert again.json() == {"ingested": 1}
    assert counts(migrated_url, org.id)[1:] == (4, 5)

    def query(**params):
        params.setdefault("start", iso(T0 - timedelta(hours=1)))
        params.setdefault("end", iso(T0 + timedelta(hours=1)))
        response = client.get(
            "/api/v1/observability/metrics?" + urlencode(params), headers=org.headers
        )
        assert response.status_code == 200, response.text
        return response.json()["series"]

    found = query(service="payments-api")
    assert [(s["name"], s["labels"]) for s in found] == [
        ("http_error_rate", {"route": "/pay"}),
        ("http_error_rate", {"route": "/refund"}),
        ("p99_latency_ms", {}),
    ]
    refund = found[1]
    assert refund["points"] == [["2026-11-20T12:00:00Z", 0.03], ["2026-11-20T12:01:00Z", 0.5]]
    assert refund["truncated"] is False and found[2]["points"] == [["2026-11-20T12:00:00Z", 130.0]]
    assert [s["service"] for s in query(name="http_error_rate")] == ["payments-api"] * 2
    assert query(start=iso(T0 + timedelta(minutes=1)), name="http_error_rate")[0]["points"] == [
        ["2026-11-20T12:01:00Z", 0.5]
    ]  # series without a point in range are left out, start inclusive
    assert query(end=iso(T0)) == []  # end exclusive
    for params, detail in [
        ({"start": "x"}, "Invalid start: an ISO 8601 date-time or Unix seconds is required"),
        ({"end": iso(T0 - timedelta(hours=2))}, "Invalid time range: end must be after start"),
        ({"name": "n\x00"}, "Invalid name: at most 200 characters, without NUL"),
    ]:
        full = {"start": iso(T0 - timedelta(hours=1)), **params}
        bad = client.get("/api/v1/observability/metrics?" + urlencode(full), headers=org.headers)
        assert (bad.status_code, bad.json()) == (400, {"detail": detail}), params

    async def action(sessions):
        store = SqlMetricStore(sessions)
        latest = await store.query(
            org.id, T0, T0 + timedelta(hours=1), names=["http_error_rate"], max_points=1
        )
        limited = await store.query(org.id, T0, T0 + timedelta(hours=3), limit=1)
        return latest, limited

    latest, limited = run_store(migrated_url, action)
    assert [len(s.points) for s in latest] == [1, 1]
    assert latest[1].points == ((T0 + timedelta(minutes=1), 0.5),)
    assert [(s.service, s.name) for s in limited] == [("checkout-api", "http_error_rate")]


# --- isolation, pages, sources ---


@pytest.mark.storage
def test_org_isolation_api_pages_and_stores(client, org, factory, migrated_url) -> None:
    post_changes(client, org, [change(id="secret-sha", summary="secret change")])
    post_metrics(client, org, [series(name="secret_metric")])
    other = factory.org("other")
    # Org B sends the same change id and series: its own rows, org A's untouched.
    post_changes(client, other, [change(id="secret-sha", summary="b's change")])
    mine = client.get("/api/v1/changes", headers=org.headers).json()["changes"]
    theirs = client.get("/api/v1/changes", headers=other.headers).json()["changes"]
    assert [c["summary"] for c in mine] == ["secret change"]
    assert [c["summary"] for c in theirs] == ["b's change"]
    window = {"start": iso(T0 - timedelta(hours=1)), "end": iso(T0 + timedelta(hours=1))}
    assert client.get(
        "/api/v1/observability/metrics?" + urlencode(window), headers=other.headers
    ).json() == {"series": []}
    link = urlsplit(mine[0]["link"]).path
    assert client.get(link, headers=org.headers).status_code == 200
    assert client.get(link, headers=other.headers).status_code == 404
    assert "secret change" not in client.get("/changes", headers=other.headers).text
    query = json.dumps({**window, "services": None, "names": None})
    metrics_page = client.get("/metrics?" + urlencode({"query": query}), headers=other.headers)
    assert metrics_page.status_code == 200 and "secret_metric" not in metrics_page.text

    async def action(sessions):
        changes = await SqlChangeStore(sessions).get_many(other.id, ["secret-sha"])
        metrics = await SqlMetricStore(sessions).query(
            other.id, T0 - timedelta(hours=1), T0 + timedelta(hours=1)
        )
        return changes, metrics

    changes, metrics = run_store(migrated_url, action)
    assert [c.summary for c in changes] == ["b's change"] and metrics == []


@pytest.mark.storage
def test_pages_render_and_escape(client, org) -> None:
    post_changes(
        client,
        org,
        [
            change(
                id="c<1>",
                summary="<script>alert(1)</script> fix",
                author="<b>eve</b>",
                files=["src/<img src=x>.py"],
                diff="-old\n+<iframe>\n",
                url="https://git.example.com/c/1",
            ),
            change(
                id="d1",
                kind="deploy",
                timestamp=iso(T0 + timedelta(minutes=1)),
                summary="deploy v2",
                ships=["c<1>", "unknown-sha"],
            ),
        ],
    )
    items = {
        c["id"]: c for c in client.get("/api/v1/changes", headers=org.headers).json()["changes"]
    }
    commit = client.get(urlsplit(items["c<1>"]["link"]).path, headers=org.headers)
    assert commit.status_code == 200 and commit.headers["content-type"].startswith("text/html")
    body = commit.text.split("</style>", 1)[1]
    for raw in ("<script>", "<b>eve", "<img", "<iframe>"):
        assert raw not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt; fix" in body and "+&lt;iframe&gt;" in body
    assert "src/&lt;img src=x&gt;.py" in body and 'href="https://git.example.com/c/1"' in body
    deploy_path = urlsplit(items["d1"]["link"]).path
    assert f'href="{deploy_path}"' in body  # "Shipped by" links the deploy
    deploy = client.get(deploy_path, headers=org.headers).text
    assert f'href="{urlsplit(items["c<1>"]["link"]).path}"' in deploy and "unknown-sha" in deploy
    assert "(no record)" in deploy
    assert client.get("/changes/999999", headers=org.headers).status_code == 404
    assert client.get("/changes/99999999999", headers=org.headers).status_code == 404
    listing = client.get("/changes?" + urlencode({"kind": "deploy"}), headers=org.headers)
    assert "1 matching changes" in listing.text and "deploy v2" in listing.text
    assert "<script>" not in listing.text.split("</style>", 1)[1]
    filtered = client.get("/changes?" + urlencode({"text": "iframe"}), headers=org.headers)
    assert "1 matching changes" in filtered.text
    bad = client.get("/changes?kind=release", headers=org.headers)
    assert bad.status_code == 400

    post_metrics(
        client,
        org,
        [
            series(
                labels={"route": "<svg onload=1>"},
                points=[[iso(T0), 1], [iso(T0 + timedelta(minutes=1)), 3]],
            )
        ],
    )
    query = json.dumps(
        {
            "start": iso(T0 - timedelta(hours=1)),
            "end": iso(T0 + timedelta(hours=1)),
            "services": ["payments-api"],
            "names": None,
        }
    )
    page = client.get("/metrics?" + urlencode({"query": query}), headers=org.headers)
    assert page.status_code == 200
    text = page.text.split("</style>", 1)[1]
    assert "<svg onload" not in text and "route=&lt;svg onload=1&gt;" in text
    # The chart spans the queried two hours: both points sit just after its middle, 1 at the
    # value axis' third tick and 3 at its top.
    assert '<polyline class="series"' in text and 'points="300.0,138.0 304.1,14.0"' in text
    assert '<text class="ttick" x="300.0" y="217" text-anchor="middle">12:00</text>' in text
    # The first and last labels are aligned inwards (not cut off at the edges).
    assert '<text class="ttick" x="52.0" y="217" text-anchor="start">11:00</text>' in text
    assert '<text class="ttick" x="548.0" y="217" text-anchor="end">13:00</text>' in text
    assert "2026-11-20 12:01:00 UTC</td><td>3.0</td>" in text
    form = client.get(
        "/metrics?"
        + urlencode(
            {
                "from": iso(T0 - timedelta(hours=1)),
                "to": iso(T0 + timedelta(hours=1)),
                "name": "http_error_rate",
            }
        ),
        headers=org.headers,
    )
    assert "2 points" in form.text
    assert client.get("/metrics?" + urlencode({"query": "{}"}), headers=org.headers).json() == {
        "detail": "Invalid query: start and end must be ISO 8601 date-times"
    }


@pytest.mark.storage
def test_source_links_open_their_pages(client, org) -> None:
    post_changes(client, org, [change(id="c1", summary="refunds: leak\nbody text")])

    async def action(sessions):
        return (await SqlChangeStore(sessions).get_many(org.id, ["c1"]))[0]

    record = run_store(client.app.state.settings.database_url, action)
    one = change_source(3, change=record, public_url=PUBLIC)
    assert one["type"] == "change" and one["tool_id"] == "change_query"
    assert one["log_type_name"] == "Change records" and one["artifact_id"] == "c1"
    assert one["display_text"] == "Commit c1 (payments-api): refunds: leak"
    assert one["link"] == f"{PUBLIC}/changes/{record.id}" and one["start"] == one["end"]
    assert json.loads(one["query"]) == {
        "change_id": "c1",
        "service": "payments-api",
        "kind": "commit",
    }
    listing = change_query_source(
        4,
        start=T0 - timedelta(hours=1),
        end=T0 + timedelta(hours=1),
        services=["payments-api"],
        kinds=["commit"],
        text="LEAK",
        description="Changes to payments-api",
        public_url=PUBLIC,
    )
    metric = metric_source(
        5,
        start=T0 - timedelta(hours=1),
        end=T0 + timedelta(hours=1),
        services=["payments-api"],
        names=["http_error_rate"],
        description="payments-api error rate",
        public_url=PUBLIC,
    )
    assert metric["type"] == "metrics" and metric["tool_id"] == "metric_query"
    post_metrics(client, org, [series()])
    for source in (one, listing, metric):
        url = urlsplit(source["link"])
        page = client.get(f"{url.path}?{url.query}", headers=org.headers)
        assert page.status_code == 200, (source["type"], page.text)
    opened = urlsplit(listing["link"])
    assert (
        "1 matching changes"
        in client.get(f"{opened.path}?{opened.query}", headers=org.headers).text
    )
    opened = urlsplit(metric["link"])
    assert (
        "http_error_rate" in client.get(f"{opened.path}?{opened.query}", headers=org.headers).text
    )


def test_services_pass_the_stores_to_agents(settings) -> None:
    fake = NoChanges()
    app = create_app(settings, changes=fake)
    services = app.state.services
    context = services.agent_context(1)
    assert context.changes is fake
    assert isinstance(context.metrics, SqlMetricStore) and context.metrics is services.metrics
    assert isinstance(create_app(settings).state.services.changes, SqlChangeStore)


# --- demo ---


@pytest.mark.storage
def test_demo_loads_changes_and_metrics_consistent_with_its_logs(org, migrated_url) -> None:
    from sleuth_shell.demo import load_demo
    from sleuth_shell.demo.logs import INCIDENT

    now = datetime(2026, 11, 22, 10, 0, 30, tzinfo=UTC)
    end = now.replace(second=0)

    async def action(sessions):
        async with sessions() as session:
            first = await load_demo(session, org.id, now=now)
        changes = SqlChangeStore(sessions)
        before = {c.change_id: c.id for c in await changes.search(org.id, limit=100)}
        async with sessions() as session:
            again = await load_demo(session, org.id, now=now + timedelta(hours=1))
        after = await changes.search(org.id, limit=100)
        deploy = (await changes.get_many(org.id, ["payments-api@v2.14.0"]))[0]
        shipped = await changes.get_many(org.id, list(deploy.ships))
        metrics = await SqlMetricStore(sessions).query(
            org.id, end - timedelta(hours=25), end + timedelta(hours=2)
        )
        async with sessions() as session:
            deploy_logs = (
                await session.execute(
                    select(LogRecord.timestamp, LogRecord.message).where(
                        LogRecord.org_id == org.id, LogRecord.service == "deploy-bot"
                    )
                )
            ).all()
        return first, again, before, after, deploy, shipped, metrics, deploy_logs

    first, again, before, after, deploy, shipped, metrics, deploy_logs = run_store(
        migrated_url, action
    )
    assert first["changes"] == again["changes"] == 10
    assert first["metric_points"] == again["metric_points"] == 7 * 24 * 60
    assert {c.change_id: c.id for c in after} == before  # reload keeps row ids
    later = end + timedelta(hours=1)
    assert deploy.timestamp == later - INCIDENT["deploy"]
    # Every deploy record matches a deploy-bot log line at the same time naming the version.
    deploys = [c for c in after if c.kind == "deploy"]
    assert len(deploys) == 4
    for record in deploys:
        lines = [m for t, m in deploy_logs if t == record.timestamp]
        assert lines and record.attributes["version"] in lines[0], record.change_id
    culprit = next(c for c in shipped if c.author == "dana")
    assert "payments_api/refunds/handler.py" in culprit.files and "db_pool" in culprit.diff
    assert culprit.timestamp < deploy.timestamp
    by_key = {(s.service, s.name): s for s in metrics}
    assert len(by_key) == 7 and all(len(s.points) == 24 * 60 for s in metrics)  # old points gone
    errors = dict(by_key[("payments-api", "http_error_rate")].points)
    during = later - INCIDENT["first_error"] + timedelta(minutes=5)
    calm = later - timedelta(hours=10)
    assert errors[during] > 0.4 > 0.01 > errors[calm]
    pool = dict(by_key[("payments-api", "db_pool_in_use")].points)
    assert pool[during] == 20.0 and pool[calm] <= 8


def test_openapi_documents_closed_request_bodies(client) -> None:
    paths = client.get("/schema/openapi.json").json()["paths"]
    for path, member in (
        ("/api/v1/changes", "records"),
        ("/api/v1/observability/metrics", "series"),
    ):
        body = paths[path]["post"]["requestBody"]
        schema = body["content"]["application/json"]["schema"]
        assert body["required"] is True and schema["additionalProperties"] is False
        assert schema["required"] == [member]
        assert schema["properties"][member]["items"]["additionalProperties"] is False
    assert set(paths["/api/v1/changes"]) == {"get", "post"}
    assert set(paths["/api/v1/observability/metrics"]) == {"get", "post"}
    params = {p["name"] for p in paths["/api/v1/changes"]["get"]["parameters"]}
    assert params == {"service", "since", "until", "kind", "q", "limit"}
