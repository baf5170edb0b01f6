"""Data sources against a real Prometheus (Debian's ``prometheus``) over real HTTP.

One Prometheus per module, its TSDB backfilled by ``promtool tsdb create-blocks-from
openmetrics`` with an incident (``prometheus_harness``): ``checkout`` starts failing with 503s
25 minutes before the alert while ``payments-db`` saturates its connection pool. ``sleuth serve``
(SQLite, inline worker) has two data sources: ``prom-main`` (that Prometheus, with an
``Authorization`` header) and ``broken`` (a closed port).

- the data-source API: admin-only changes (403), clear 400s, 409 on a taken name, header values
  never returned and not in the database file in the clear, the connection test; the operator
  CLI's ``add-data-source`` and ``list-data-sources`` (the server opens the headers it sealed);
- an alert through a webhook (its ``generatorURL`` carries the alert's expression) starts an
  investigation that queries Prometheus, names the broken source, cites each query with a link to
  the Prometheus graph and keeps each answer: ``GET /api/v1/evidence/{id}`` returns exactly what
  Prometheus answers for the same query, and its SHA-256 checks out; the snapshot outlives the
  data source;
- a "why" question cites the same kind of source records (``type`` ``metrics``, the source's
  name, the ``{"promql", "start", "end", "step"}`` query, the artifact id).
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from e2e_harness import cli_batch, free_port, poll, serve, sleuth_env
from prometheus_harness import ONSET_BEFORE_ALERT

from sleuth_core.intake import sign_generic

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("prometheus")]

SECRET = "Bearer s3cret-prom-token-0123456789"
EXPRESSION = (
    'sum(rate(http_requests_total{service="checkout",code=~"5.."}[5m])) '
    '/ sum(rate(http_requests_total{service="checkout"}[5m]))'
)


@pytest.fixture
def prom(prometheus_incident: tuple[str, datetime]) -> tuple[str, datetime]:
    return prometheus_incident


def _canonical(document: dict[str, Any]) -> bytes:
    """The documented canonical JSON (docs/data-sources.md), written out here, not imported."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def _logs(fired: datetime) -> list[dict[str, Any]]:
    onset = fired - ONSET_BEFORE_ALERT
    records = []
    t = fired - timedelta(hours=12, minutes=55)
    while t < fired + timedelta(minutes=15):
        records.append(
            {"timestamp": t.isoformat(), "service": "checkout", "level": "INFO",
             "message": "GET /checkout 200"}
        )  # fmt: skip
        t += timedelta(minutes=5)
    t = onset
    while t < fired + timedelta(minutes=15):
        records.append(
            {"timestamp": t.isoformat(), "service": "checkout", "level": "ERROR",
             "message": "payments-db: timed out acquiring a connection from the pool after 2s"}
        )  # fmt: skip
        t += timedelta(seconds=30)
    return records


def _alert(fired: datetime, prom_url: str) -> bytes:
    graph = f"{prom_url}/graph?" + urlencode({"g0.expr": EXPRESSION, "g0.tab": "1"})
    body = {
        "action": "Create",
        "alert": {
            "alertId": "a1b2c3",
            "message": "Checkout 5xx ratio above 10%",
            "createdAt": int(fired.timestamp() * 1000),
            "details": {
                "service": "checkout",
                "startsAt": fired.isoformat(),
                "generatorURL": graph,
            },
        },
        "source": {"name": "alertmanager", "type": "API"},
    }
    return json.dumps(body).encode()


def _prometheus_points(prom_url: str, promql: str, start: str, end: str, step: float) -> Any:
    def unix(text: str) -> float:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()

    answer = httpx.get(
        f"{prom_url}/api/v1/query_range",
        params={"query": promql, "start": unix(start), "end": unix(end), "step": step},
        timeout=10,
    ).json()
    assert answer["status"] == "success"
    return [
        {"metric": s["metric"], "values": [[float(t), v] for t, v in s["values"]]}
        for s in answer["data"]["result"]
    ]


def _check_evidence(base: str, headers: dict[str, str], prom_url: str, artifact: str) -> Any:
    response = httpx.get(f"{base}/api/v1/evidence/{artifact}", headers=headers, timeout=10)
    assert response.status_code == 200, response.text
    evidence = response.json()
    assert set(evidence) == {
        "artifact_id", "data_source", "query", "start", "end", "step", "points", "sha256",
        "fetched_at",
    }  # fmt: skip
    assert evidence["artifact_id"] == artifact
    assert evidence["data_source"]["name"] == "prom-main"
    assert evidence["data_source"]["url"] == prom_url
    assert evidence["points"] and all(s["values"] for s in evidence["points"])
    # What Prometheus answers for the same query now is what was kept.
    assert evidence["points"] == _prometheus_points(
        prom_url, evidence["query"], evidence["start"], evidence["end"], evidence["step"]
    )
    content = {k: evidence[k] for k in ("query", "start", "end", "step", "points")}
    assert evidence["sha256"] == hashlib.sha256(_canonical(content)).hexdigest()
    return evidence


def test_prometheus_data_source_end_to_end(prom: tuple[str, datetime], tmp_path: Path) -> None:
    prom_url, fired = prom
    database = tmp_path / "sleuth.db"
    env = sleuth_env(f"sqlite:///{database}", SLEUTH_RATE_LIMIT_ENTERPRISE="100000")
    _, admin_key, member_key, hook, _, other_key, by_cli, cli_list = cli_batch(
        env,
        ["admin", "create-org", "acme", "--plan", "enterprise"],
        ["admin", "create-key", "acme", "--admin"],
        ["admin", "create-key", "acme"],
        ["admin", "add-webhook", "acme", "--type", "PROVIDER_B", "--name", "alerts"],
        ["admin", "create-org", "other", "--plan", "enterprise"],
        ["admin", "create-key", "other", "--admin"],
        ["admin", "add-data-source", "acme", "--name", "by-cli", "--url", prom_url,
         "--header", f"Authorization={SECRET}", "--service-label", "job"],
        ["admin", "list-data-sources", "acme"],
    )  # fmt: skip
    assert {k: by_cli[k] for k in ("name", "url", "service_label", "header_names")} == {
        "name": "by-cli", "url": prom_url, "service_label": "job",
        "header_names": ["Authorization"],
    }  # fmt: skip
    assert cli_list == {"items": [by_cli]}
    refused = subprocess.run(
        [sys.executable, "-m", "sleuth_shell", "admin", "add-data-source", "acme",
         "--name", "by-cli", "--url", prom_url, "--header", "Bearer abc"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert refused.returncode == 1
    assert refused.stderr == "Error: --header must be NAME=VALUE (e.g. Authorization=Bearer ...)\n"
    admin = {"X-Service-Org-Api-Key": admin_key["key"]}
    member = {"X-Service-Org-Api-Key": member_key["key"]}
    other = {"X-Service-Org-Api-Key": other_key["key"]}
    closed = f"http://127.0.0.1:{free_port()}"
    with serve(env, tmp_path / "serve.log") as base:
        api = f"{base}/api/v1"
        good = {
            "name": "prom-main",
            "kind": "prometheus",
            "url": prom_url + "/",
            "headers": {"Authorization": SECRET},
        }
        # Changes need an admin key; bad bodies get clear 400s.
        refused = httpx.post(f"{api}/data-sources", json=good, headers=member)
        assert (refused.status_code, refused.json()) == (
            403, {"detail": "Admin API key required"},
        )  # fmt: skip
        for body, detail in [
            ({**good, "kind": "graphite"}, "Unknown kind: graphite (supported: prometheus)"),
            ({**good, "url": "http://u:p@prom:9090"}, "url must not carry credentials"),
            ({**good, "url": "ftp://prom"}, "Invalid url: ftp://prom"),
            ({"kind": "prometheus", "url": prom_url}, "Missing required field: name"),
            ({**good, "service_label": "not a label"}, "Invalid service_label: not a label"),
            ({**good, "headers": {"X": 1}}, "The value of header X must be a string"),
            ({**good, "extra": 1}, "Unknown field: extra"),
        ]:
            response = httpx.post(f"{api}/data-sources", json=body, headers=admin)
            assert response.status_code == 400, (body, response.text)
            assert response.json()["detail"].startswith(detail), response.text
        created = httpx.post(f"{api}/data-sources", json=good, headers=admin)
        assert created.status_code == 200, created.text
        source = created.json()
        assert source["id"].startswith("RGF0YVNvdXJjZT")  # base64 of "DataSource:"
        assert {k: source[k] for k in ("name", "kind", "url", "service_label")} == {
            "name": "prom-main", "kind": "prometheus", "url": prom_url, "service_label": "service",
        }  # fmt: skip
        assert source["header_names"] == ["Authorization"] and SECRET not in created.text
        taken = httpx.post(f"{api}/data-sources", json=good, headers=admin)
        assert taken.status_code == 409, taken.text
        broken = httpx.post(
            f"{api}/data-sources",
            json={"name": "broken", "kind": "prometheus", "url": closed},
            headers=admin,
        ).json()
        # Any key reads; nothing returns the header value.
        listed = httpx.get(f"{api}/data-sources", headers=member)
        names = [s["name"] for s in listed.json()["data_sources"]]
        assert names == ["by-cli", "prom-main", "broken"]
        assert SECRET not in listed.text
        one = httpx.get(f"{api}/data-sources/{source['id']}", headers=member)
        assert one.json() == source
        assert httpx.get(f"{api}/data-sources/{source['id']}", headers=other).status_code == 404
        renamed = httpx.put(
            f"{api}/data-sources/{broken['id']}", json={"name": "broken-prom"}, headers=admin
        )
        assert renamed.status_code == 200 and renamed.json()["name"] == "broken-prom"
        assert (
            httpx.put(f"{api}/data-sources/{broken['id']}", json={"name": "x"}, headers=member)
        ).status_code == 403
        # The connection test (the source the CLI added: the server opens the headers it sealed).
        tested = httpx.post(f"{api}/data-sources/{source['id']}/test", headers=admin, timeout=30)
        assert tested.json()["ok"] is True, tested.text
        tested = httpx.post(f"{api}/data-sources/{by_cli['id']}/test", headers=admin, timeout=30)
        assert tested.json()["ok"] is True, tested.text
        removed = httpx.delete(f"{api}/data-sources/{by_cli['id']}", headers=admin)
        assert removed.json() == {"success": True}
        failed = httpx.post(f"{api}/data-sources/{broken['id']}/test", headers=admin, timeout=30)
        assert failed.json()["ok"] is False and "could not be reached" in failed.json()["detail"]
        # Encrypted at rest: the database files never hold the header value.
        stored = b"".join(p.read_bytes() for p in tmp_path.glob("sleuth.db*"))
        assert SECRET.encode() not in stored and b"s3cret" not in stored

        # An alert whose generatorURL carries its expression, through a webhook.
        logs = httpx.post(
            f"{api}/observability/logs", json={"records": _logs(fired)}, headers=admin
        )
        assert logs.status_code == 200, logs.text
        agent = httpx.post(
            f"{api}/alert-responders",
            headers=admin,
            json={
                "team_name": "Default",
                "name": "checkout alerts",
                "matching_criteria": {"text_matches": ["*"]},
                "webhook_sources": [{"type": hook["type"], "remote_id": hook["remote_id"]}],
            },
        )
        assert agent.status_code == 200, agent.text
        body = _alert(fired, prom_url)
        delivered = httpx.post(
            f"{api}/webhooks/{hook['type']}/{hook['remote_id']}",
            content=body,
            headers={
                "Content-Type": "application/json",
                "X-Service-Webhook-Signature": sign_generic(body, hook["secret"]),
            },
        )
        assert delivered.status_code == 202, delivered.text
        [investigation_id] = delivered.json()["investigation_ids"]

        def done() -> Any:
            got = httpx.get(f"{api}/investigations/{investigation_id}", headers=member).json()
            return got if got["status"] in ("COMPLETED", "ERRORED") else None

        investigation = poll(done, timeout=60)
        assert investigation["status"] == "COMPLETED", investigation
        result = investigation["result"]
        section = result.split("## Data sources", 1)[1].split("\n## ", 1)[0]
        assert "**broken-prom** failed: it could not be reached" in section
        # Each query is cited with a link to the Prometheus graph of the same query.
        graphs = re.findall(r"\]\((http://127\.0\.0\.1:\d+/graph\?[^)\s]+)\)", result)
        expressions = {parse_qs(urlsplit(g).query)["g0.expr"][0] for g in graphs}
        assert all(g.startswith(f"{prom_url}/graph?g0.expr=") for g in graphs)
        assert EXPRESSION in expressions
        assert any("db_pool_connections_in_use" in e for e in expressions)
        assert any('code=~"5.."' in e and e != EXPRESSION for e in expressions)
        artifacts = re.findall(r"kept as evidence `([0-9a-f]{32})`", section)
        assert len(artifacts) >= 4
        for artifact in artifacts:
            _check_evidence(base, member, prom_url, artifact)
        # Another organization cannot read them; an unknown id is 404.
        assert httpx.get(f"{api}/evidence/{artifacts[0]}", headers=other).status_code == 404
        assert httpx.get(f"{api}/evidence/nope", headers=member).status_code == 404

        # A "why" question: the same kind of source record, with its artifact.
        asked = httpx.post(
            f"{api}/interactions", json={"question": "Why is checkout failing?"},
            headers=member, timeout=60,
        )  # fmt: skip
        assert asked.status_code == 200, asked.text
        pulled = [s for s in asked.json()["sources"] if s["log_type_name"] == "prom-main"]
        assert pulled, asked.text
        for record in pulled:
            assert (record["type"], record["tool_id"]) == ("metrics", "prometheus_query")
            query = json.loads(record["query"])
            assert set(query) == {"promql", "start", "end", "step"}
            assert record["link"].startswith(f"{prom_url}/graph?g0.expr=")
            evidence = _check_evidence(base, member, prom_url, record["artifact_id"])
            assert (evidence["query"], evidence["start"], evidence["end"]) == (
                query["promql"], query["start"], query["end"],
            )  # fmt: skip

        # A snapshot outlives its data source.
        gone = httpx.delete(f"{api}/data-sources/{source['id']}", headers=admin)
        assert gone.json() == {"success": True}
        kept = httpx.get(f"{api}/evidence/{artifacts[0]}", headers=member).json()
        assert kept["data_source"] == {"id": None, "name": "prom-main", "url": prom_url}
        assert httpx.get(f"{api}/data-sources/{source['id']}", headers=member).status_code == 404
    assert SECRET not in (tmp_path / "serve.log").read_text()
    assert datetime.now(UTC) > fired
