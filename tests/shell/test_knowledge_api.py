"""Knowledge and observability endpoints, the pages source links open, and ``load-demo``."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from sleuth_shell.cli import main
from sleuth_shell.db import create_engine
from sleuth_shell.db.models import KnowledgeDocument, LogRecord

# One app and database per back end for the module, an organization per test
# (tests/shell/conftest.py, SharedApps).
pytestmark = pytest.mark.shared_app

NOW = datetime.now(UTC).replace(microsecond=0)


def iso(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


def test_document_lifecycle(client, org) -> None:
    created = client.post(
        "/api/v1/knowledge/documents",
        json={"title": "Redis failover", "content": "Run `sentinel failover`.", "url": None},
        headers=org.headers,
    )
    assert created.status_code == 200, created.text
    doc = created.json()
    assert set(doc) == {"id", "title"} and doc["title"] == "Redis failover"
    listed = client.get("/api/v1/knowledge/documents", headers=org.headers).json()
    assert [d["title"] for d in listed["documents"]] == ["Redis failover"]
    assert set(listed["documents"][0]) == {"id", "title", "url", "created_at"}
    gone = client.delete(f"/api/v1/knowledge/documents/{doc['id']}", headers=org.headers)
    assert (gone.status_code, gone.json()) == (200, {"success": True})
    again = client.delete(f"/api/v1/knowledge/documents/{doc['id']}", headers=org.headers)
    assert again.json() == {"success": True}
    assert client.get("/api/v1/knowledge/documents", headers=org.headers).json() == {
        "documents": []
    }


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ([], "Request body must be a JSON object"),
        ({"content": "x"}, "Invalid title: a non-empty string is required"),
        ({"title": "  ", "content": "x"}, "Invalid title: a non-empty string is required"),
        ({"title": "t" * 501, "content": "x"}, "Invalid title: at most 500 characters"),
        ({"title": "t"}, "Invalid content: a non-empty string is required"),
        ({"title": "t", "content": 3}, "Invalid content: a non-empty string is required"),
        (
            {"title": "t", "content": "x", "url": "ftp://x"},
            "Invalid url: an absolute http(s) URL is required",
        ),
        ({"title": "t", "content": "x", "tags": []}, "Unknown field: tags"),
    ],
)
def test_document_validation(client, org, body, detail) -> None:
    response = client.post("/api/v1/knowledge/documents", json=body, headers=org.headers)
    assert (response.status_code, response.json()) == (400, {"detail": detail})


def test_endpoints_need_a_key(client) -> None:
    assert client.get("/api/v1/knowledge/documents").json() == {"detail": "Missing API key"}
    response = client.post("/api/v1/observability/logs", json={"records": []})
    assert response.status_code == 401
    page = client.get("/knowledge/1", follow_redirects=False)
    assert page.status_code == 303
    assert page.headers["location"] == "/login?next=%2Fknowledge%2F1"


def record(**overrides):
    base = {
        "timestamp": iso(NOW - timedelta(minutes=5)),
        "service": "api",
        "level": "error",
        "message": "boom 100% <b>",
    }
    base.update(overrides)
    return base


def test_ingest_and_query_page(client, org, factory) -> None:
    records = [
        record(),
        record(level="WARN", message="slow"),
        record(timestamp=(NOW - timedelta(minutes=1)).timestamp(), level="info", message="ok"),
        record(service="web", attributes={"path": "/"}),
    ]
    response = client.post(
        "/api/v1/observability/logs", json={"records": records}, headers=org.headers
    )
    assert (response.status_code, response.json()) == (200, {"ingested": 4})
    other = factory.org("other")
    query = {
        "start": iso(NOW - timedelta(hours=1)),
        "end": iso(NOW + timedelta(minutes=1)),
        "services": ["api"],
        "levels": None,
        "text": "100%",
    }
    url = "/logs?" + urlencode({"query": json.dumps(query)})
    page = client.get(url, headers=org.headers)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "boom 100% &lt;b&gt;" in page.text and "<b>" not in page.text
    assert "slow" not in page.text  # text filter
    assert "1 matching lines" in page.text
    # The counts follow every filter (the text too): only the one matching ERROR line counts.
    assert "<td>api</td><td>ERROR</td><td>1</td>" in page.text
    assert "<td>api</td><td>WARNING</td>" not in page.text
    unfiltered = dict(query, text=None)
    page = client.get("/logs?" + urlencode({"query": json.dumps(unfiltered)}), headers=org.headers)
    assert "<td>api</td><td>WARNING</td><td>1</td>" in page.text  # levels normalized
    assert "boom" not in client.get(url, headers=other.headers).text  # org scoped
    bad = client.get("/logs?" + urlencode({"query": "{}"}), headers=org.headers)
    assert bad.status_code == 400
    assert bad.json() == {"detail": "Invalid query: start and end must be ISO 8601 date-times"}


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({}, "records: a list of log records is required"),
        ({"records": {}}, "records: a list of log records is required"),
        ({"records": [], "x": 1}, "Unknown field: x"),
        ({"records": [record(), 5]}, "records[1]: a JSON object is required"),
        (
            {"records": [record(timestamp="yesterday")]},
            "records[0].timestamp: an ISO 8601 date-time or Unix seconds is required",
        ),
        ({"records": [record(service="")]}, "records[0].service: a non-empty string is required"),
        (
            {"records": [record(level="loud")]},
            "records[0].level: one of DEBUG, INFO, WARNING, ERROR, CRITICAL is required",
        ),
        ({"records": [record(message=None)]}, "records[0].message: a string is required"),
        ({"records": [record(attributes=[1])]}, "records[0].attributes: a JSON object is required"),
        ({"records": [record(extra=1)]}, "records[0]: unknown field extra"),
    ],
)
def test_ingest_validation_writes_nothing(client, org, body, detail) -> None:
    response = client.post("/api/v1/observability/logs", json=body, headers=org.headers)
    assert (response.status_code, response.json()) == (400, {"detail": detail})
    query = {"start": iso(NOW - timedelta(days=1)), "end": iso(NOW + timedelta(days=1))}
    page = client.get("/logs?" + urlencode({"query": json.dumps(query)}), headers=org.headers)
    assert "0 matching lines" in page.text


def test_knowledge_page_escapes_html(client, org, factory) -> None:
    doc = client.post(
        "/api/v1/knowledge/documents",
        json={
            "title": "<script>alert(1)</script>",
            "content": "# Hi\n\n<img src=x onerror=1>\n\n[x](javascript:alert(1))",
        },
        headers=org.headers,
    ).json()
    page = client.get(f"/knowledge/{doc['id']}", headers=org.headers)
    assert page.status_code == 200
    assert "<script>" not in page.text and "&lt;script&gt;" in page.text
    assert "<img" not in page.text and "javascript:" not in page.text.split("</style>")[1].replace(
        "[x](javascript:alert(1))", ""
    )
    other = factory.org("other")
    assert client.get(f"/knowledge/{doc['id']}", headers=other.headers).status_code == 404


@pytest.mark.storage
def test_load_demo_command(database_url, monkeypatch) -> None:
    monkeypatch.setenv("SLEUTH_DATABASE_URL", database_url)
    runner = CliRunner()
    assert runner.invoke(main, ["admin", "create-org", "pebble"]).exit_code == 0
    result = runner.invoke(main, ["admin", "load-demo", "pebble"])
    assert result.exit_code == 0, result.output
    first = json.loads(result.stdout)
    assert first["documents"] == 12 and 4500 < first["log_records"] < 5500
    again = runner.invoke(main, ["admin", "load-demo", "pebble"])  # replaces, no duplicates
    second = json.loads(again.stdout)

    async def stored() -> tuple[int, int]:
        engine = create_engine(database_url)
        try:
            async with engine.connect() as connection:
                docs = await connection.scalar(select(func.count()).select_from(KnowledgeDocument))
                logs = await connection.scalar(select(func.count()).select_from(LogRecord))
                return int(docs), int(logs)
        finally:
            await engine.dispose()

    assert asyncio.run(stored()) == (12, second["log_records"])
    missing = runner.invoke(main, ["admin", "load-demo", "nope"])
    assert missing.exit_code != 0 and missing.stdout == ""
