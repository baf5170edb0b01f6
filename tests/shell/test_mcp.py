"""The MCP server at ``/mcp`` in process: raw JSON-RPC posts as simple clients send them.

Over real HTTP with the SDK's own client: ``tests/e2e/test_mcp_e2e.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from conftest import FIXED_NOW, PUBLIC_URL, Factory, OrgHandle
from interaction_helpers import (
    CREDITS,
    EXPECTED_CONTENT,
    FakeAgent,
    fakes,
    interaction_row,
    usage,
)
from litestar import Litestar
from litestar.testing import TestClient

from sleuth_core.ids import encode_global_id
from sleuth_shell.app import MAX_BODY_BYTES, create_app
from sleuth_shell.config import Settings
from sleuth_shell.db.models import AlertResponder, Digest, DigestRun, Interaction, Investigation

ACCEPT = {"Accept": "application/json, text/event-stream"}
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def agent() -> FakeAgent:
    return FakeAgent()


@pytest.fixture
def mcp(settings: Settings, agent: FakeAgent) -> Iterator[TestClient[Litestar]]:
    with TestClient(app=create_app(settings, **fakes(agent)), raise_server_exceptions=False) as c:
        yield c


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def rpc(
    client: TestClient[Litestar],
    method: str,
    params: dict[str, Any] | None = None,
    *,
    headers: dict[str, str],
    path: str = "/mcp/",
    request_id: int = 1,
) -> Any:
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "id": request_id}
    if params is not None:
        body["params"] = params
    return client.post(path, json=body, headers={**ACCEPT, **headers})


def call(
    client: TestClient[Litestar], org: OrgHandle, name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    """A bare ``tools/call`` (no ``initialize``); returns the CallToolResult."""
    response = rpc(
        client, "tools/call", {"name": name, "arguments": arguments}, headers=bearer(org.key)
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["id"] == 1, body
    result: dict[str, Any] = body["result"]
    return result


def text(result: dict[str, Any]) -> str:
    [block] = result["content"]
    assert block["type"] == "text"
    value: str = block["text"]
    return value


def ok(result: dict[str, Any]) -> str:
    assert result["isError"] is False, result
    return text(result)


def failed(result: dict[str, Any]) -> str:
    assert result["isError"] is True, result
    return text(result)


# --- transport and authentication --------------------------------------------------------------


def test_bare_tools_call_without_initialize_answers_with_json(
    mcp: TestClient[Litestar], org: OrgHandle
) -> None:
    for path in ("/mcp", "/mcp/"):
        response = rpc(
            mcp,
            "tools/call",
            {"name": "sleuth_list_investigations", "arguments": {}},
            headers=bearer(org.key),
            path=path,
            request_id=7,
        )
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/json")
        assert response.json() == {
            "jsonrpc": "2.0",
            "id": 7,
            "result": {
                "content": [{"type": "text", "text": "No investigations."}],
                "isError": False,
            },
        }


def test_full_session_initialize_then_list_tools(mcp: TestClient[Litestar], org: OrgHandle) -> None:
    init = rpc(
        mcp,
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
        headers=org.headers,
    )
    assert init.status_code == 200
    server = init.json()["result"]
    assert server["serverInfo"]["name"] == "sleuth"
    assert "tools" in server["capabilities"]
    assert "sleuth_ask" in server["instructions"]
    assert "mcp-session-id" not in init.headers  # stateless: no session to carry

    listed = rpc(mcp, "tools/list", headers=org.headers, request_id=2)
    tools = {tool["name"]: tool for tool in listed.json()["result"]["tools"]}
    assert set(tools) == {
        "sleuth_ask",
        "sleuth_fetch_context",
        "sleuth_list_investigations",
        "sleuth_investigation",
    }
    assert tools["sleuth_ask"]["inputSchema"]["required"] == ["query"]
    assert tools["sleuth_ask"]["annotations"]["readOnlyHint"] is False
    assert tools["sleuth_fetch_context"]["inputSchema"]["required"] == ["url"]
    assert tools["sleuth_investigation"]["inputSchema"]["required"] == ["id"]
    listing = tools["sleuth_list_investigations"]
    assert listing["annotations"]["readOnlyHint"] is True
    assert listing["inputSchema"]["properties"]["status"]["enum"] == [
        "PENDING",
        "IN_PROGRESS",
        "ERRORED",
        "COMPLETED",
        "STOPPED",
    ]
    for tool in tools.values():
        assert len(tool["description"]) > 150  # enough for a model to choose by


def test_missing_or_bad_key_is_a_jsonrpc_error_with_401(
    mcp: TestClient[Litestar], org: OrgHandle, agent: FakeAgent
) -> None:
    params = {"name": "sleuth_ask", "arguments": {"query": "q"}}
    cases = [
        ({}, "Missing API key"),
        (bearer("not-a-key"), "Invalid API key"),
        ({"X-Service-Org-Api-Key": "not-a-key"}, "Invalid API key"),
        ({"Authorization": f"Basic {org.key}"}, "Missing API key"),
        ({"Cookie": f"sleuth_key={org.key}"}, "Missing API key"),  # the page cookie never counts
    ]
    for headers, message in cases:
        response = rpc(mcp, "tools/call", params, headers=headers)
        assert response.status_code == 401, headers
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert response.json() == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32001, "message": message},
        }
    assert agent.calls == []


def test_either_header_authenticates(mcp: TestClient[Litestar], org: OrgHandle) -> None:
    for headers in (bearer(org.key), {"authorization": f"bearer  {org.key} "}, org.headers):
        response = rpc(mcp, "tools/list", headers=headers)
        assert response.status_code == 200, headers
        assert len(response.json()["result"]["tools"]) == 4


def test_bearer_is_only_for_mcp(mcp: TestClient[Litestar], org: OrgHandle) -> None:
    response = mcp.get("/api/v1/settings/advanced", headers=bearer(org.key))
    assert response.status_code == 401


def test_only_post_is_served(mcp: TestClient[Litestar], org: OrgHandle) -> None:
    for method in ("GET", "DELETE", "PUT"):
        response = mcp.request(method, "/mcp", headers={**ACCEPT, **org.headers})
        assert response.status_code == 405
        assert response.headers["allow"] == "POST"
        assert response.json()["error"]["code"] == -32000


def test_protocol_errors(mcp: TestClient[Litestar], org: OrgHandle) -> None:
    unknown = rpc(mcp, "tools/call", {"name": "sleuth_nope", "arguments": {}}, headers=org.headers)
    assert unknown.status_code == 200
    assert unknown.json()["error"] == {"code": -32602, "message": "Unknown tool: sleuth_nope"}

    garbage = mcp.post(
        "/mcp",
        content=b"{not json",
        headers={**ACCEPT, **org.headers, "Content-Type": "application/json"},
    )
    assert garbage.status_code == 400
    assert garbage.json()["error"]["code"] == -32700

    too_big = mcp.post(
        "/mcp",
        content=b" " * (MAX_BODY_BYTES + 1),
        headers={**ACCEPT, **org.headers, "Content-Type": "application/json"},
    )
    assert too_big.status_code == 413


def test_rate_limit_applies_per_organization(
    migrated_url: str, factory: Factory, agent: FakeAgent
) -> None:
    settings = Settings(
        database_url=migrated_url,
        public_url=PUBLIC_URL,
        workers_inline=False,
        rate_limits={"free": 2, "team": 100},
    )
    busy, other = factory.org("busy"), factory.org("other")
    app = create_app(settings, clock=lambda: FIXED_NOW, **fakes(agent))
    with TestClient(app=app) as client:
        for remaining in ("1", "0"):
            response = rpc(client, "tools/list", headers=bearer(busy.key))
            assert response.status_code == 200
            assert response.headers["x-ratelimit-remaining"] == remaining
        refused = rpc(client, "tools/list", headers=bearer(busy.key))
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) >= 1
        assert refused.json() == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32000, "message": "Rate limit exceeded"},
        }
        # The REST API shares the organization's budget; another organization has its own.
        assert client.get("/api/v1/settings/advanced", headers=busy.headers).status_code == 429
        assert rpc(client, "tools/list", headers=bearer(other.key)).status_code == 200


# --- sleuth_ask ----------------------------------------------------------------------------------


@pytest.mark.storage
def test_ask_creates_a_billed_attributed_interaction(
    mcp: TestClient[Litestar], org: OrgHandle, agent: FakeAgent, settings: Settings
) -> None:
    answer = ok(call(mcp, org, "sleuth_ask", {"query": "Why did checkout fail?"}))
    assert answer.startswith(EXPECTED_CONTENT + "\n\nSources:\n")
    assert "[1] [checkout errors](http://sleuth.test/knowledge/7)" in answer
    assert "[2] [Checkout runbook](http://sleuth.test/knowledge/3)" in answer
    url = answer.rsplit("Interaction: ", 1)[1].strip()
    assert url.startswith(f"{PUBLIC_URL}/interactions/")
    row: Interaction = interaction_row(settings, url.rsplit("/", 1)[1])
    assert (row.org_id, row.status, row.question) == (org.id, "COMPLETED", "Why did checkout fail?")
    assert row.team_id == org.default_team_id and row.api_key_id is not None
    assert row.content == EXPECTED_CONTENT
    [event] = usage(settings)
    assert (event.org_id, event.team_id, event.feature) == (
        org.id,
        org.default_team_id,
        "interaction",
    )
    assert event.credits == pytest.approx(CREDITS)
    assert agent.calls[0]["org_id"] == org.id and agent.calls[0]["tools"] is True

    # The same interaction through the REST API.
    got = mcp.get(f"/api/v1/interactions/{row.id}", headers=org.headers).json()
    assert got["content"] == EXPECTED_CONTENT and got["url"] == url


def test_ask_is_attributed_to_the_keys_team(
    mcp: TestClient[Litestar], org: OrgHandle, factory: Factory, settings: Settings
) -> None:
    team = factory.team(org, "payments")
    key = factory.key(org, team="payments")
    response = rpc(
        mcp, "tools/call", {"name": "sleuth_ask", "arguments": {"query": "q"}}, headers=bearer(key)
    )
    assert response.json()["result"]["isError"] is False
    [event] = usage(settings)
    assert event.team_id == team.id


def test_ask_bad_arguments_are_tool_errors(
    mcp: TestClient[Litestar], org: OrgHandle, agent: FakeAgent, settings: Settings
) -> None:
    cases = [
        ({}, "'query' is a required property"),
        ({"query": 5}, "query: 5 is not of type 'string'"),
        ({"query": ""}, "query: '' should be non-empty"),
        (
            {"query": "q", "mode": "x"},
            "Additional properties are not allowed ('mode' was unexpected)",
        ),
    ]
    for arguments, message in cases:
        assert failed(call(mcp, org, "sleuth_ask", arguments)) == (
            f"Invalid arguments for sleuth_ask: {message}"
        )
    assert (
        failed(call(mcp, org, "sleuth_ask", {"query": "   "})) == "Invalid query: Invalid question"
    )
    assert agent.calls == [] and usage(settings) == []


def test_ask_agent_failure_is_a_tool_error(settings: Settings, org: OrgHandle) -> None:
    with TestClient(app=create_app(settings, **fakes(FakeAgent(fail="model offline")))) as client:
        message = failed(call(client, org, "sleuth_ask", {"query": "q"}))
    assert message == "The agent could not answer: model offline"


# --- reading -------------------------------------------------------------------------------------


def _investigation(org: OrgHandle, name: str, created: datetime, **values: Any) -> Investigation:
    defaults: dict[str, Any] = {
        "org_id": org.id,
        "team_id": org.default_team_id,
        "name": name,
        "prompt": "Please investigate.",
        "status": "COMPLETED",
        "event_payload": json.dumps({"title": name}),
        "result": f"{name}: the disk filled up [1].\n\nSources:\n[1] [disk logs](https://logs/1)",
        "created_at": created,
        "started_at": created,
        "completed_at": created + timedelta(minutes=2),
    }
    defaults.update(values)
    return Investigation(**defaults)


def _responder(org: OrgHandle, name: str) -> AlertResponder:
    return AlertResponder(
        org_id=org.id,
        team_id=org.default_team_id,
        name=name,
        text_matches=["*x*"],
        match_rules={"operator": "AND", "conditions": [{"type": "contains", "value": "x"}]},
        webhook_sources=[{"type": "PROVIDER_A", "remote_id": f"wh_{name}"}],
    )


def gid(type_name: str, pk: int) -> str:
    return encode_global_id(type_name, pk)


@pytest.mark.storage
def test_list_investigations_newest_first_with_filters(
    mcp: TestClient[Litestar], org: OrgHandle, factory: Factory
) -> None:
    agent_a = factory.add(_responder(org, "a"))
    agent_b = factory.add(_responder(org, "b"))
    old = factory.add(_investigation(org, "DB down", T0, alert_responder_id=agent_a.id))
    mid = factory.add(
        _investigation(
            org,
            "Queue stuck",
            T0 + timedelta(hours=1),
            status="ERRORED",
            alert_responder_id=agent_b.id,
        )
    )
    new = factory.add(
        _investigation(org, "Checkout 500s", T0 + timedelta(hours=2), alert_responder_id=agent_a.id)
    )
    other = factory.org("other")
    factory.add(_investigation(other, "Their incident", T0 + timedelta(hours=3)))

    listing = ok(call(mcp, org, "sleuth_list_investigations", {}))
    assert listing.splitlines()[0] == "3 most recent investigations, newest first:"
    assert "Their incident" not in listing
    names = [line.split("**")[1] for line in listing.splitlines() if line.startswith("- **")]
    assert names == ["Checkout 500s", "Queue stuck", "DB down"]
    assert f"ID: {gid('Investigation', new.id)}" in listing
    assert f"{PUBLIC_URL}/investigations/{gid('Investigation', new.id)}" in listing
    assert "(COMPLETED), created 2026-03-01T14:00:00Z, completed 2026-03-01T14:02:00Z" in listing

    errored = ok(call(mcp, org, "sleuth_list_investigations", {"status": "ERRORED"}))
    assert "Queue stuck" in errored and "DB down" not in errored
    assert errored.startswith("1 most recent investigation (status ERRORED)")

    by_agent = ok(
        call(
            mcp,
            org,
            "sleuth_list_investigations",
            {"alert_responder_id": gid("AlertResponder", agent_a.id)},
        )
    )
    assert "Checkout 500s" in by_agent and "DB down" in by_agent and "Queue stuck" not in by_agent
    assert f"alert agent: {gid('AlertResponder', agent_a.id)}" in by_agent

    limited = ok(call(mcp, org, "sleuth_list_investigations", {"limit": 1}))
    assert "Checkout 500s" in limited and "Queue stuck" not in limited
    assert mid.id != old.id

    none = ok(call(mcp, org, "sleuth_list_investigations", {"status": "STOPPED"}))
    assert none == "No investigations (status STOPPED)."


def test_list_investigations_bad_arguments(mcp: TestClient[Litestar], org: OrgHandle) -> None:
    assert "limit: 0 is less than the minimum of 1" in failed(
        call(mcp, org, "sleuth_list_investigations", {"limit": 0})
    )
    assert "limit: 101 is greater than the maximum of 100" in failed(
        call(mcp, org, "sleuth_list_investigations", {"limit": 101})
    )
    assert "status: 'DONE' is not one of" in failed(
        call(mcp, org, "sleuth_list_investigations", {"status": "DONE"})
    )
    assert (
        failed(
            call(mcp, org, "sleuth_list_investigations", {"alert_responder_id": gid("Digest", 1)})
        )
        == f"Invalid alert_responder_id: {gid('Digest', 1)}"
    )


def test_list_investigations_of_another_orgs_agent_is_empty(
    mcp: TestClient[Litestar], org: OrgHandle, factory: Factory
) -> None:
    other = factory.org("other")
    theirs = factory.add(_responder(other, "theirs"))
    factory.add(_investigation(other, "Their incident", T0, alert_responder_id=theirs.id))
    arguments = {"alert_responder_id": gid("AlertResponder", theirs.id)}
    assert ok(call(mcp, org, "sleuth_list_investigations", arguments)).startswith(
        "No investigations"
    )


def test_investigation_reads_the_whole_record(
    mcp: TestClient[Litestar], org: OrgHandle, factory: Factory
) -> None:
    responder = factory.add(_responder(org, "a"))
    row = factory.add(
        _investigation(
            org,
            "DB down",
            T0,
            alert_responder_id=responder.id,
            event_payload='{"title": "DB down", "note": "```"}',
        )
    )
    inv_gid = gid("Investigation", row.id)
    for reference in (inv_gid, f"{PUBLIC_URL}/investigations/{inv_gid}"):
        record = ok(call(mcp, org, "sleuth_investigation", {"id": reference}))
        assert record.startswith("# Investigation: DB down\n")
        assert f"- ID: {inv_gid}" in record and "- Status: COMPLETED" in record
        assert "- Team: Default" in record and "- Started: 2026-03-01T12:00:00Z" in record
        assert f"- Alert agent: {gid('AlertResponder', responder.id)}" in record
        assert '````\n{"title": "DB down", "note": "```"}\n````' in record  # fence outlasts payload
        assert "## Investigation prompt\n\nPlease investigate." in record
        assert record.endswith(
            "## Result\n\nDB down: the disk filled up [1].\n\nSources:\n[1] [disk logs](https://logs/1)"
        )


def test_investigation_of_another_org_or_junk_is_an_error(
    mcp: TestClient[Litestar], org: OrgHandle, factory: Factory
) -> None:
    other = factory.org("other")
    theirs = factory.add(_investigation(other, "Their incident", T0))
    their_gid = gid("Investigation", theirs.id)
    message = failed(call(mcp, org, "sleuth_investigation", {"id": their_gid}))
    assert message == f"No investigation found for {their_gid} in this organization"
    assert "Their incident" not in message
    for junk in ("nope", gid("Digest", theirs.id), "https://x/digests/1/runs/2"):
        assert failed(call(mcp, org, "sleuth_investigation", {"id": junk})) == (
            f"Not an investigation ID or URL: {junk}"
        )


def test_fetch_context_of_an_interaction(mcp: TestClient[Litestar], org: OrgHandle) -> None:
    answer = ok(call(mcp, org, "sleuth_ask", {"query": "Why did checkout fail?"}))
    url = answer.rsplit("Interaction: ", 1)[1].strip()
    interaction_id = url.rsplit("/", 1)[1]
    for reference in (
        url,
        interaction_id,
        f"http://other.host/api/v1/interactions/{interaction_id}",
    ):
        page = ok(call(mcp, org, "sleuth_fetch_context", {"url": reference}))
        assert page.startswith(f"# Interaction {interaction_id}\n")
        assert "- Status: COMPLETED" in page and f"- URL: {url}" in page
        assert "## Question\n\nWhy did checkout fail?" in page
        assert page.endswith(f"## Answer\n\n{EXPECTED_CONTENT}")
    with_sources = ok(call(mcp, org, "sleuth_fetch_context", {"url": url, "include_sources": True}))
    assert with_sources.endswith(
        "Sources:\n[1] [checkout errors](http://sleuth.test/knowledge/7) (Knowledge catalog, "
        "2026-01-01T00:00:00Z to 2026-01-02T00:00:00Z)\n[2] [Checkout runbook]"
        "(http://sleuth.test/knowledge/3) (Knowledge catalog, 2026-01-01T00:00:00Z to "
        "2026-01-02T00:00:00Z)"
    )


def test_fetch_context_of_an_investigation_strips_sources_unless_asked(
    mcp: TestClient[Litestar], org: OrgHandle, factory: Factory
) -> None:
    row = factory.add(_investigation(org, "DB down", T0))
    url = f"{PUBLIC_URL}/investigations/{gid('Investigation', row.id)}"
    plain = ok(call(mcp, org, "sleuth_fetch_context", {"url": url}))
    assert '## Alert\n\n```\n{"title": "DB down"}\n```' in plain
    assert plain.endswith("## Result\n\nDB down: the disk filled up [1].")
    full = ok(call(mcp, org, "sleuth_fetch_context", {"url": url, "include_sources": True}))
    assert full.endswith("[1].\n\nSources:\n[1] [disk logs](https://logs/1)")


@pytest.mark.storage
def test_fetch_context_of_a_digest_run(
    mcp: TestClient[Litestar], org: OrgHandle, factory: Factory
) -> None:
    digest = factory.add(
        Digest(
            org_id=org.id,
            team_id=org.default_team_id,
            name="Morning report",
            sections=[{"section": "Errors", "prompt": "Top errors?"}],
            schedule="0 9 * * *",
        )
    )
    run = factory.add(
        DigestRun(
            org_id=org.id,
            digest_id=digest.id,
            status="COMPLETED",
            scheduled_runtime=T0,
            completed_at=T0 + timedelta(minutes=1),
            results=[
                {
                    "section": "Errors",
                    "prompt": "Top errors?",
                    "result": "Timeouts [1].\n\nSources:\n[1] [api logs](https://logs/2)",
                }
            ],
        )
    )
    digest_gid, run_gid = gid("Digest", digest.id), gid("DigestRun", run.id)
    url = f"{PUBLIC_URL}/digests/{digest_gid}/runs/{run_gid}"
    for reference in (url, run_gid):
        page = ok(call(mcp, org, "sleuth_fetch_context", {"url": reference}))
        assert page.startswith("# Digest run: Morning report\n")
        assert f"- URL: {url}" in page and "- Scheduled for: 2026-03-01T12:00:00Z" in page
        assert page.endswith("## Errors\n\n_Prompt: Top errors?_\n\nTimeouts [1].")
    full = ok(call(mcp, org, "sleuth_fetch_context", {"url": url, "include_sources": True}))
    assert full.endswith("Timeouts [1].\n\nSources:\n[1] [api logs](https://logs/2)")
    # The run under another digest's URL names nothing.
    wrong = f"{PUBLIC_URL}/digests/{gid('Digest', digest.id + 1)}/runs/{run_gid}"
    assert failed(call(mcp, org, "sleuth_fetch_context", {"url": wrong})).startswith(
        "No digest run found"
    )


@pytest.mark.storage
def test_fetch_context_isolation_and_junk(
    mcp: TestClient[Litestar], org: OrgHandle, factory: Factory, settings: Settings
) -> None:
    other = factory.org("other")
    theirs = factory.add(_investigation(other, "Their incident", T0))
    their_interaction = factory.add(
        Interaction(org_id=other.id, question="secret?", status="COMPLETED", content="secret!")
    )
    for reference, thing in (
        (gid("Investigation", theirs.id), "investigation"),
        (f"{PUBLIC_URL}/interactions/{their_interaction.id}", "interaction"),
        (their_interaction.id, "interaction"),
    ):
        message = failed(call(mcp, org, "sleuth_fetch_context", {"url": reference}))
        assert message == f"No {thing} found for {reference} in this organization"
    for junk in ("ftp://x/interactions/1", "https://x/alert-responders/abc", "two words", "%%%"):
        assert failed(call(mcp, org, "sleuth_fetch_context", {"url": junk})) == (
            f"Not a Sleuth interaction, investigation or digest run URL or ID: {junk}"
        )
    assert "include_sources: 'yes' is not of type 'boolean'" in failed(
        call(mcp, org, "sleuth_fetch_context", {"url": "x", "include_sources": "yes"})
    )


# --- bodies the REST API refuses with 400 ------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": '
            + b"[" * 50_000
            + b"]" * 50_000
            + b"}",
            id="50000 deep",
        ),
        pytest.param(
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": '
            b'{"name": "sleuth_ask", "arguments": {"query": "\xff\xfe"}}}',
            id="invalid UTF-8",
        ),
    ],
)
def test_malformed_bodies_are_parse_errors_not_500(
    mcp: TestClient[Litestar], org: OrgHandle, agent: FakeAgent, raw: bytes
) -> None:
    response = mcp.post(
        "/mcp",
        content=raw,
        headers={**ACCEPT, **org.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == -32700 and error["message"], error
    assert agent.calls == []


def test_a_lone_surrogate_argument_is_an_invalid_argument(
    mcp: TestClient[Litestar], org: OrgHandle, agent: FakeAgent, settings: Settings
) -> None:
    raw = (
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": '
        b'{"name": "sleuth_ask", "arguments": {"query": "why \\ud800?"}}}'
    )
    response = mcp.post(
        "/mcp",
        content=raw,
        headers={**ACCEPT, **org.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == -32700 and "surrogate" in error["message"], error
    assert agent.calls == [] and usage(settings) == []


def test_a_huge_argument_is_not_echoed_back(mcp: TestClient[Litestar], org: OrgHandle) -> None:
    huge = "x" * 900_000
    message = failed(call(mcp, org, "sleuth_list_investigations", {"status": huge}))
    assert len(message) < 1_000, len(message)
    assert message.startswith("Invalid arguments for sleuth_list_investigations: status: ")
    message = failed(call(mcp, org, "sleuth_ask", {"query": 5, "mode": huge}))
    assert len(message) < 1_000, len(message)


@pytest.mark.storage
def test_api_pages_and_mcp_list_investigations_alike(
    mcp: TestClient[Litestar], org: OrgHandle, factory: Factory
) -> None:
    """One read path: the same filter gives the same investigations in the same order (newest
    created first, whatever the ids) through the API, the web app and MCP."""
    agent = factory.add(_responder(org, "a"))
    created = [3, 1, 4, 0, 2]  # hours after T0, in id order: ids and times disagree
    rows = [
        factory.add(
            _investigation(
                org,
                f"Incident {n}",
                T0 + timedelta(hours=hours),
                status="ERRORED" if n % 2 else "COMPLETED",
                alert_responder_id=agent.id if n != 2 else None,
            )
        )
        for n, hours in enumerate(created)
    ]
    by_time = sorted(rows, key=lambda r: created[rows.index(r)], reverse=True)
    for status, agent_id in ((None, None), ("ERRORED", None), (None, agent.id)):
        wanted = [
            r.name
            for r in by_time
            if (status is None or r.status == status)
            and (agent_id is None or r.alert_responder_id == agent_id)
        ]
        params: dict[str, Any] = {}
        page_params: dict[str, str] = {}
        if status:
            params["status"] = page_params["status"] = status
        if agent_id:
            params["alert_responder_id"] = page_params["agent"] = gid("AlertResponder", agent_id)
        api = mcp.get("/api/v1/investigations", params=params, headers=org.headers).json()
        assert [i["name"] for i in api["investigations"]] == wanted, params
        listing = ok(call(mcp, org, "sleuth_list_investigations", params))
        names = [line.split("**")[1] for line in listing.splitlines() if line.startswith("- **")]
        assert names == wanted, params
        html = mcp.get("/investigations", params=page_params, headers=org.headers).text
        shown = [n for n in (f"Incident {i}" for i in range(5)) if n in html]
        assert sorted(shown, key=html.index) == wanted, params
