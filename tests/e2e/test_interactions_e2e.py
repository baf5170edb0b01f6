"""End to end over real HTTP: ``sleuth serve`` as a subprocess, a real local callback receiver, and
each interaction mode (sync, callback, async poll, scheduled with two runtimes, legacy singular)."""

from __future__ import annotations

import contextlib
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from callback_receiver import CallbackReceiver
from e2e_harness import cli_batch, free_port, poll, running, serve, sleuth_env

# One xdist worker runs the whole module (``make test`` runs ``--dist loadgroup``), so its
# module-scoped server is set up once, not once per worker.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("interactions_e2e")]

QUESTION = "How do I roll back a deploy?"
RUNBOOK = "Runbook: Deploys and rollbacks"


@dataclass
class Server:
    base_url: str
    key: str
    signing_secret: str
    env: dict[str, str]

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Service-Org-Api-Key": self.key}


@contextlib.contextmanager
def serving(tmp: Path, **extra_env: str) -> Iterator[Server]:
    """A bootstrapped organization with the demo data, and ``sleuth serve`` answering for it."""
    env = sleuth_env(f"sqlite:///{tmp / 'sleuth.db'}", SLEUTH_ALLOW_PRIVATE_URLS="true")
    org, created_key, _ = cli_batch(
        env,
        ["admin", "create-org", "shop"],
        ["admin", "create-key", "shop"],
        ["admin", "load-demo", "shop"],
    )
    key = created_key["key"]
    port = free_port()
    env.update({"SLEUTH_PUBLIC_URL": f"http://127.0.0.1:{port}", **extra_env})
    with serve(env, tmp / "server.log", port) as base_url:
        yield Server(base_url, key, org["signing_secret"], env)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("e2e-interactions")) as running_server:
        yield running_server


def create(server: Server, body: dict[str, Any]) -> dict[str, Any]:
    response = httpx.post(
        f"{server.base_url}/api/v1/interactions", json=body, headers=server.headers, timeout=30
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def get(server: Server, interaction_id: str) -> dict[str, Any]:
    response = httpx.get(
        f"{server.base_url}/api/v1/interactions/{interaction_id}", headers=server.headers
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def completed(server: Server, interaction_id: str) -> dict[str, Any]:
    return poll(lambda: (got := get(server, interaction_id))["status"] == "COMPLETED" and got)  # type: ignore[no-any-return]


def assert_cites_the_runbook(answer: dict[str, Any]) -> None:
    assert "[1]" in answer["content"]
    assert "[[source:" not in answer["content"] and "§" not in answer["content"]
    assert answer["sources"][0]["display_text"] == RUNBOOK


def test_sync(server: Server) -> None:
    body = create(server, {"question": QUESTION})
    assert set(body) == {"question", "content", "sources", "interaction_id", "url"}
    assert_cites_the_runbook(body)
    assert body["url"] == f"{server.base_url}/interactions/{body['interaction_id']}"
    got = get(server, body["interaction_id"])
    assert got == {**body, "status": "COMPLETED"}


def test_callback(server: Server) -> None:
    with CallbackReceiver() as receiver:
        body = create(
            server,
            {
                "question": QUESTION,
                "notifications": {"web": {"callback_url": receiver.url + "/cb"}},
            },
        )
        assert body["status"] == "SCHEDULED"
        [item] = body["interactions"]
        [callback] = receiver.wait_for(1, timeout=20)
    payload = callback.json()
    assert set(payload) == {"interaction_id", "question", "content", "sources"}
    assert payload["interaction_id"] == item["interaction_id"]
    assert_cites_the_runbook(payload)
    assert callback.headers["X-Service-Org-Api-Key"] == server.key
    callback.assert_signed(server.signing_secret)
    got = completed(server, item["interaction_id"])
    assert (got["content"], got["sources"]) == (payload["content"], payload["sources"])


def test_async_poll(server: Server) -> None:
    body = create(server, {"question": QUESTION, "async": True})
    assert body["status"] == "SCHEDULED"
    [item] = body["interactions"]
    got = completed(server, item["interaction_id"])
    assert_cites_the_runbook(got)


def test_scheduled_two_runtimes_two_callbacks(server: Server) -> None:
    now = int(time.time())
    runtimes = [now + 2, now + 3]
    with CallbackReceiver() as receiver:
        body = create(
            server,
            {
                "question": QUESTION,
                "scheduled_runtimes": runtimes,
                "notifications": {"web": {"callback_url": receiver.url}},
            },
        )
        assert body["status"] == "SCHEDULED"
        assert [i["scheduled_runtime"] for i in body["interactions"]] == runtimes
        ids = [i["interaction_id"] for i in body["interactions"]]
        assert len(set(ids)) == 2
        assert get(server, ids[1])["status"] == "PENDING"
        callbacks = receiver.wait_for(2, timeout=30)
    assert len(callbacks) == 2
    assert sorted(c.json()["interaction_id"] for c in callbacks) == sorted(ids)
    for callback in callbacks:
        callback.assert_signed(server.signing_secret)
    for interaction_id in ids:
        assert_cites_the_runbook(completed(server, interaction_id))


def test_legacy_singular_scheduled_runtime(server: Server) -> None:
    runtime = int(time.time()) + 2
    body = create(server, {"question": QUESTION, "scheduled_runtime": runtime})
    assert set(body) == {"interaction_id", "scheduled_runtime", "url", "status"}
    assert (body["scheduled_runtime"], body["status"]) == (runtime, "SCHEDULED")
    got = completed(server, body["interaction_id"])
    assert_cites_the_runbook(got)


def test_errors_over_http(server: Server) -> None:
    url = f"{server.base_url}/api/v1/interactions"
    assert httpx.post(url, json={"question": "q"}).json() == {"detail": "Unauthorized"}
    bad = httpx.post(url, json={"question": ""}, headers=server.headers)
    assert (bad.status_code, bad.json()) == (400, {"detail": "Invalid question"})
    missing = httpx.get(f"{url}/nope", headers=server.headers)
    assert (missing.status_code, missing.json()) == (404, {"detail": "Interaction not found"})


def test_separate_worker_process(tmp_path: Path) -> None:
    """``serve`` with SLEUTH_WORKERS_INLINE=false runs nothing; ``sleuth worker`` does, and stops
    cleanly on SIGTERM."""
    with serving(tmp_path, SLEUTH_WORKERS_INLINE="false") as api:
        body = create(api, {"question": QUESTION, "async": True})
        [item] = body["interactions"]
        assert get(api, item["interaction_id"])["status"] == "PENDING"
        with running(["worker"], api.env, tmp_path / "worker.log") as worker:
            assert_cites_the_runbook(completed(api, item["interaction_id"]))
            worker.send_signal(signal.SIGTERM)
            assert worker.wait(timeout=20) == 0
