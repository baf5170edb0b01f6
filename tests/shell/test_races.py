"""Concurrent writes over real HTTP: a served app (uvicorn in a thread), requests fired in parallel.

Identical alert-agent creates all answer 200 with the one agent's ID; concurrent renames onto one
name answer 200 once and 409 otherwise, never 500. Runs on SQLite and PostgreSQL (``storage``).
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn

from sleuth_shell.app import create_app
from sleuth_shell.config import Settings

PARALLEL = 20


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def served(settings: Settings) -> Iterator[str]:
    """The app under test served over TCP on a free port (no rate limits in the way)."""
    unlimited = settings.model_copy(
        update={"rate_limits": {"free": 10**9, "team": 10**9, "enterprise": 10**9}}
    )
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(unlimited), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)


def fire(base: str, requests: list[tuple[str, str, dict[str, Any]]], headers: dict[str, str]):
    """Send every ``(method, path, body)`` at once, each on its own connection; the responses."""

    async def one(method: str, path: str, body: dict[str, Any]) -> httpx.Response:
        async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as client:
            return await client.request(method, path, json=body)

    async def every() -> list[httpx.Response]:
        return list(await asyncio.gather(*(one(*request) for request in requests)))

    return asyncio.run(every())


def agent_body(name: str, hook_id: str) -> dict[str, Any]:
    return {
        "team_name": "Default",
        "name": name,
        "webhook_sources": [{"type": "PROVIDER_A", "remote_id": hook_id}],
        "matching_criteria": {"text_matches": ["db"]},
    }


@pytest.mark.storage
def test_parallel_identical_creates_all_answer_the_one_agent(served, factory, org) -> None:
    hook = factory.webhook(org, "PROVIDER_A", "pager")
    body = agent_body("checkout-latency", hook.remote_id)
    responses = fire(served, [("POST", "/api/v1/alert-responders", body)] * PARALLEL, org.headers)
    statuses = Counter(r.status_code for r in responses)
    assert statuses == {200: PARALLEL}, [r.text for r in responses if r.status_code != 200]
    ids = {r.json()["id"] for r in responses}
    assert len(ids) == 1
    listed = httpx.get(f"{served}/api/v1/alert-responders", headers=org.headers).json()
    assert [a["id"] for a in listed["alert_responders"]] == list(ids)


@pytest.mark.storage
def test_parallel_renames_onto_one_name_answer_409(served, factory, org) -> None:
    hook = factory.webhook(org, "PROVIDER_A", "pager")
    ids = []
    with httpx.Client(base_url=served, headers=org.headers) as client:
        for number in range(PARALLEL):
            created = client.post(
                "/api/v1/alert-responders", json=agent_body(f"agent-{number}", hook.remote_id)
            )
            assert created.status_code == 200, created.text
            ids.append(created.json()["id"])
    renames = [("PUT", f"/api/v1/alert-responders/{gid}", {"name": "the-one"}) for gid in ids]
    responses = fire(served, renames, org.headers)
    statuses = Counter(r.status_code for r in responses)
    assert statuses == {200: 1, 409: PARALLEL - 1}, [r.text for r in responses]
    assert {r.json()["detail"] for r in responses if r.status_code == 409} == {
        "An alert responder named the-one already exists in this team"
    }
    listed = httpx.get(f"{served}/api/v1/alert-responders", headers=org.headers).json()
    names = Counter(a["name"] for a in listed["alert_responders"])
    assert names["the-one"] == 1
