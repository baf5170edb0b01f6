"""The MCP server over real HTTP against ``sleuth serve``: the official SDK's own client, raw
curl-style posts (errors included), every example of ``docs/mcp.md`` as written, and the SDK's
OAuth client connecting with the URL alone (the consent page driven in Chromium)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shlex
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from e2e_harness import ROOT, cli_batch, free_port, serve, sleuth_env
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl

from sleuth_core.ids import encode_global_id
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import Investigation

# One xdist worker runs the whole module (``make test`` runs ``--dist loadgroup``), so its
# module-scoped server is set up once, not once per worker.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("mcp_e2e")]

DOC = ROOT / "docs" / "mcp.md"
DOC_BASE = "http://127.0.0.1:8000"
QUESTION = "How do I roll back a deploy?"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
TOOLS = ["sleuth_ask", "sleuth_fetch_context", "sleuth_investigation", "sleuth_list_investigations"]
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = ROOT / "build" / "screenshots"


@dataclass
class Server:
    base_url: str
    key: str
    other_key: str
    empty_key: str
    investigation_gid: str
    other_investigation_gid: str


def _add_investigation(database_url: str, org_id: int, name: str) -> str:
    async def go() -> int:
        engine = create_engine(database_url)
        try:
            async with create_session_factory(engine)() as session:
                now = datetime.now(UTC)
                row = Investigation(
                    org_id=org_id,
                    name=name,
                    prompt="Please investigate.",
                    status="COMPLETED",
                    event_payload=json.dumps({"title": name}),
                    result=f"{name}: a bad deploy [1].\n\nSources:\n[1] [deploy log](https://x/1)",
                    created_at=now,
                    started_at=now,
                    completed_at=now,
                )
                session.add(row)
                await session.commit()
                return row.id
        finally:
            await engine.dispose()

    return encode_global_id("Investigation", asyncio.run(go()))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("e2e-mcp")
    database_url = f"sqlite:///{tmp / 'sleuth.db'}"
    env = sleuth_env(database_url)
    names = ("shop", "rival", "newco")
    *created, _ = cli_batch(
        env,
        *(["admin", "create-org", name] for name in names),
        *(["admin", "create-key", name] for name in names),
        ["admin", "load-demo", "shop"],
    )
    orgs = dict(zip(names, created[: len(names)], strict=True))
    keys = {name: key["key"] for name, key in zip(names, created[len(names) :], strict=True)}
    mine = _add_investigation(database_url, orgs["shop"]["id"], "Checkout 500s")
    theirs = _add_investigation(database_url, orgs["rival"]["id"], "Rival outage")
    port = free_port()
    env["SLEUTH_PUBLIC_URL"] = f"http://127.0.0.1:{port}"
    with serve(env, tmp / "server.log", port) as base_url:
        yield Server(base_url, keys["shop"], keys["rival"], keys["newco"], mine, theirs)


@contextlib.asynccontextmanager
async def sdk_session(url: str, headers: dict[str, str]) -> AsyncIterator[ClientSession]:
    """The official SDK client: a full session (``initialize`` first)."""
    async with (
        httpx.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(url, http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def tool_text(result: Any) -> str:
    [block] = result.content
    text: str = block.text
    return text


def raw_call(
    server: Server, name: str, arguments: dict[str, Any], headers: dict[str, str] | None = None
) -> httpx.Response:
    """A bare ``tools/call`` POST, no ``initialize``, as the issue's curl example sends it."""
    body = {
        "jsonrpc": "2.0",
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
        "id": 1,
    }
    headers = {"Authorization": f"Bearer {server.key}"} if headers is None else headers
    return httpx.post(
        f"{server.base_url}/mcp/", json=body, headers={**ACCEPT, **headers}, timeout=60
    )


# --- the SDK's own client ------------------------------------------------------------------------


def test_sdk_client_full_session(server: Server) -> None:
    async def go() -> None:
        headers = {"Authorization": f"Bearer {server.key}"}
        async with sdk_session(f"{server.base_url}/mcp", headers) as session:
            listed = await session.list_tools()
            assert sorted(tool.name for tool in listed.tools) == TOOLS

            asked = await session.call_tool("sleuth_ask", {"query": QUESTION})
            assert asked.isError is False
            answer = tool_text(asked)
            assert "[1]" in answer and "[[source:" not in answer
            assert "\n\nSources:\n[1] [Runbook: Deploys and rollbacks](" in answer
            url = answer.rsplit("Interaction: ", 1)[1].strip()
            assert url.startswith(f"{server.base_url}/interactions/")

            fetched = await session.call_tool("sleuth_fetch_context", {"url": url})
            page = tool_text(fetched)
            assert fetched.isError is False
            assert f"## Question\n\n{QUESTION}" in page and "- Status: COMPLETED" in page

            listing = tool_text(await session.call_tool("sleuth_list_investigations", {}))
            assert "Checkout 500s" in listing and "Rival outage" not in listing
            assert server.investigation_gid in listing

            record = await session.call_tool(
                "sleuth_investigation", {"id": server.investigation_gid}
            )
            assert record.isError is False
            assert tool_text(record).startswith("# Investigation: Checkout 500s")

            wrong = await session.call_tool("sleuth_ask", {})
            assert wrong.isError is True
            assert "'query' is a required property" in tool_text(wrong)

        # The REST API sees the interaction the MCP call made, with the same key.
        interaction_id = url.rsplit("/", 1)[1]
        got = httpx.get(
            f"{server.base_url}/api/v1/interactions/{interaction_id}",
            headers={"X-Service-Org-Api-Key": server.key},
        ).json()
        assert got["status"] == "COMPLETED" and got["question"] == QUESTION

    asyncio.run(go())


def test_sdk_client_with_the_api_key_header(server: Server) -> None:
    async def go() -> list[str]:
        async with sdk_session(
            f"{server.base_url}/mcp/", {"X-Service-Org-Api-Key": server.key}
        ) as session:
            return sorted(tool.name for tool in (await session.list_tools()).tools)

    assert asyncio.run(go()) == TOOLS


def test_sdk_client_with_a_bad_key_fails(server: Server) -> None:
    async def go() -> None:
        async with sdk_session(f"{server.base_url}/mcp", {"Authorization": "Bearer slk_nope"}):
            pass

    with pytest.raises(BaseException) as raised:
        asyncio.run(go())
    assert "401" in repr(raised.value) or any(
        "401" in repr(exc) for exc in getattr(raised.value, "exceptions", [])
    )


# --- raw posts -----------------------------------------------------------------------------------


def test_raw_bare_tools_call(server: Server) -> None:
    response = raw_call(server, "sleuth_list_investigations", {"status": "COMPLETED"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert int(response.headers["x-ratelimit-remaining"]) >= 0
    body = response.json()
    assert body["id"] == 1 and body["result"]["isError"] is False
    assert "Checkout 500s" in body["result"]["content"][0]["text"]


def test_raw_errors(server: Server) -> None:
    for headers, message in (
        ({}, "Missing API key"),
        ({"Authorization": "Bearer slk_nope"}, "Invalid API key"),
    ):
        refused = raw_call(server, "sleuth_ask", {"query": QUESTION}, headers)
        assert refused.status_code == 401
        assert refused.json() == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32001, "message": message},
        }

    unknown = raw_call(server, "sleuth_summon", {})
    assert unknown.status_code == 200
    assert unknown.json()["error"] == {"code": -32602, "message": "Unknown tool: sleuth_summon"}

    bad = raw_call(server, "sleuth_list_investigations", {"limit": "ten"}).json()["result"]
    assert bad["isError"] is True
    assert bad["content"][0]["text"] == (
        "Invalid arguments for sleuth_list_investigations: limit: 'ten' is not of type 'integer'"
    )

    # Another organization's investigation: read like an unknown one, nothing of it shown.
    for name, arguments in (
        ("sleuth_investigation", {"id": server.other_investigation_gid}),
        (
            "sleuth_fetch_context",
            {"url": f"{server.base_url}/investigations/{server.other_investigation_gid}"},
        ),
    ):
        result = raw_call(server, name, arguments).json()["result"]
        assert result["isError"] is True
        assert result["content"][0]["text"].startswith("No investigation found for ")
        assert "Rival outage" not in result["content"][0]["text"]
    # ...and the other organization does see it.
    theirs = raw_call(
        server,
        "sleuth_investigation",
        {"id": server.other_investigation_gid},
        {"Authorization": f"Bearer {server.other_key}"},
    ).json()["result"]
    assert theirs["isError"] is False and "Rival outage" in theirs["content"][0]["text"]

    not_post = httpx.get(
        f"{server.base_url}/mcp", headers={"Authorization": f"Bearer {server.key}"}
    )
    assert not_post.status_code == 405 and not_post.json()["error"]["code"] == -32000


# --- docs/mcp.md, as written ---------------------------------------------------------------------


def doc_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)\n```", DOC.read_text(), flags=re.S)


def doc_commands() -> dict[str, str]:
    """The ``$ `` lines of the doc's console blocks, by program."""
    lines = [
        line[2:]
        for block in doc_blocks("console")
        for line in block.splitlines()
        if line.startswith("$ ")
    ]
    return {line.split()[0]: line for line in lines}


def expand(text: str, server: Server, key: str) -> str:
    return text.replace(DOC_BASE, server.base_url).replace("$SLEUTH_API_KEY", key)


def test_doc_curl_example_runs_as_written(server: Server) -> None:
    command = doc_commands()["curl"]
    [console] = [block for block in doc_blocks("console") if block.startswith("$ curl")]
    documented = json.loads(console.splitlines()[1])
    done = subprocess.run(
        ["bash", "-c", command.replace(DOC_BASE, server.base_url)],
        env={**os.environ, "SLEUTH_API_KEY": server.key},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    got = json.loads(done.stdout)
    uuid = r"[0-9a-f-]{36}"
    got_text = re.sub(uuid, "<id>", got["result"]["content"][0]["text"])
    doc_text = re.sub(uuid, "<id>", documented["result"]["content"][0]["text"])
    assert got_text == doc_text.replace(DOC_BASE, server.base_url)
    assert {**got, "result": None} == {**documented, "result": None}
    assert got["result"]["isError"] is False


def test_doc_claude_code_command_connects(server: Server) -> None:
    args = shlex.split(expand(doc_commands()["claude"], server, server.key))
    assert args[:5] == ["claude", "mcp", "add", "--transport", "http"]
    name, url = args[5], args[6]
    assert name == "sleuth" and args[7] == "--header"
    header_name, _, header_value = args[8].partition(": ")

    async def go() -> list[str]:
        async with sdk_session(url, {header_name: header_value}) as session:
            return sorted(tool.name for tool in (await session.list_tools()).tools)

    assert asyncio.run(go()) == TOOLS


def test_doc_cursor_config_connects(server: Server) -> None:
    [block] = doc_blocks("json")
    entry = json.loads(block)["mcpServers"]["sleuth"]
    url = entry["url"].replace(DOC_BASE, server.base_url)
    headers = {
        name: value.replace("${env:SLEUTH_API_KEY}", server.key)
        for name, value in entry["headers"].items()
    }

    async def go() -> str:
        async with sdk_session(url, headers) as session:
            result = await session.call_tool(
                "sleuth_investigation", {"id": server.investigation_gid}
            )
            return tool_text(result)

    assert asyncio.run(go()).startswith("# Investigation: Checkout 500s")


def test_doc_python_example_prints_what_the_doc_says(server: Server, tmp_path: Path) -> None:
    [script] = doc_blocks("python")
    [expected] = doc_blocks("text")
    path = tmp_path / "example.py"
    path.write_text(script.replace(DOC_BASE, server.base_url))
    done = subprocess.run(
        [sys.executable, str(path)],
        env={**os.environ, "SLEUTH_API_KEY": server.empty_key},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected.strip()


# --- the MCP authorization flow: the SDK's OAuth client, the consent page in Chromium -----------


class MemoryStorage:
    """The SDK's token storage, in memory (a real agent keeps it on disk)."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class Callback:
    """A loopback listener for the authorization response, as a native agent runs one."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.received: asyncio.Future[str] = loop.create_future()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                loop.call_soon_threadsafe(
                    lambda: outer.received.done() or outer.received.set_result(self.path)
                )
                body = b"Signed in; you may close this window."
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.uri = f"http://127.0.0.1:{self.http.server_address[1]}/callback"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs Chromium at /usr/bin/chromium (apt-get install chromium)"
)
def test_sdk_oauth_client_connects_with_the_url_alone(server: Server) -> None:
    """Discover, register, consent (sign in with an org key, approve), exchange, list tools and
    call one; then the person revokes the client on the settings page and its token stops."""
    from playwright.async_api import async_playwright

    # The URL the shipped Claude Code plug-in connects to, with SLEUTH_URL set to this server.
    entry = json.loads((ROOT / "integrations" / "claude-code" / ".mcp.json").read_text())
    mcp_url = re.sub(
        r"\$\{SLEUTH_URL:-[^}]*\}", server.base_url, entry["mcpServers"]["sleuth"]["url"]
    )
    assert mcp_url == f"{server.base_url}/mcp"

    async def go() -> tuple[list[str], str, str, httpx.Response]:
        loop = asyncio.get_running_loop()
        callback = Callback(loop)
        storage = MemoryStorage()
        async with async_playwright() as p:
            browser = await p.chromium.launch(
                executable_path=str(CHROMIUM),
                headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
            )
            page = await browser.new_page(viewport={"width": 390, "height": 844})

            async def redirect_handler(url: str) -> None:
                # The person: sign in with an org key, read the consent page, approve.
                await page.goto(url)
                await page.fill("#api_key", server.empty_key)
                await page.click("button:has-text('Sign in')")
                await page.wait_for_selector("h1:has-text('Authorize Sleuth e2e agent')")
                overflow = await page.evaluate(
                    "document.documentElement.scrollWidth - document.documentElement.clientWidth"
                )
                assert overflow <= 0, "the consent page scrolls sideways at 390 px"
                SHOTS.mkdir(parents=True, exist_ok=True)
                await page.screenshot(path=str(SHOTS / "oauth-consent-390.png"), full_page=True)
                await page.set_viewport_size({"width": 1280, "height": 800})
                await page.screenshot(path=str(SHOTS / "oauth-consent-1280.png"), full_page=True)
                await page.click("button[value=approve]")

            async def callback_handler() -> tuple[str, str | None]:
                query = parse_qs(urlsplit(await callback.received).query)
                return query["code"][0], query.get("state", [None])[0]

            provider = OAuthClientProvider(
                server_url=mcp_url,
                client_metadata=OAuthClientMetadata(
                    client_name="Sleuth e2e agent",
                    redirect_uris=[AnyUrl(callback.uri)],
                    grant_types=["authorization_code", "refresh_token"],
                    response_types=["code"],
                ),
                storage=storage,
                redirect_handler=redirect_handler,
                callback_handler=callback_handler,
            )
            try:
                async with (
                    httpx.AsyncClient(auth=provider, timeout=60) as http,
                    streamable_http_client(mcp_url, http_client=http) as (
                        read,
                        write,
                        _,
                    ),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    tools = sorted(t.name for t in (await session.list_tools()).tools)
                    result = await session.call_tool("sleuth_list_investigations", {"limit": 5})
                    answer = result.content[0].text  # type: ignore[union-attr]
                # The person revokes the client on the settings page (same browser session).
                await page.goto(f"{server.base_url}/settings")
                listed = await page.inner_text("main")
                await page.click("button[aria-label='Revoke Sleuth e2e agent']")
                await page.wait_for_selector("text=Application access revoked.")
            finally:
                await browser.close()
                callback.close()
        assert storage.tokens is not None
        after = httpx.post(
            f"{server.base_url}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={
                "Authorization": f"Bearer {storage.tokens.access_token}",
                "Accept": "application/json, text/event-stream",
            },
        )
        return tools, answer, listed, after

    tools, answer, listed, after = asyncio.run(go())
    assert tools == TOOLS
    assert answer == "No investigations."
    assert "Sleuth e2e agent" in listed
    assert after.status_code == 401
    assert after.headers["www-authenticate"] == (
        f'Bearer resource_metadata="{server.base_url}/.well-known/oauth-protected-resource/mcp"'
        ', error="invalid_token"'
    )
