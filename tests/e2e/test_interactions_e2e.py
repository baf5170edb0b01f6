"""End to end over real HTTP: ``sleuth serve`` as a subprocess, a real local callback receiver, and
each interaction mode (sync, callback, async poll, scheduled with two runtimes, legacy singular)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from callback_receiver import CallbackReceiver

from sleuth_shell.notify.signing import verify

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
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


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    env.update(
        {
            "PYTHONPATH": os.pathsep.join([str(ROOT / "core/src"), str(ROOT / "shell/src")]),
            "SLEUTH_DATABASE_URL": f"sqlite:///{tmp / 'sleuth.db'}",
            "SLEUTH_ALLOW_PRIVATE_URLS": "true",
        }
    )
    return env


def _cli(env: dict[str, str], *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "sleuth_shell", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def poll(check: Callable[[], Any], *, timeout: float = 20.0, interval: float = 0.1) -> Any:
    """Call ``check`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached before the deadline")
        time.sleep(interval)


@contextlib.contextmanager
def running(
    args: list[str], env: dict[str, str], log_path: Path
) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``sleuth <args>`` as a subprocess; SIGTERM it (then kill) on exit."""
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "sleuth_shell", *args],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            yield process
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


@contextlib.contextmanager
def serving(tmp: Path, **extra_env: str) -> Iterator[Server]:
    """A bootstrapped organization with the demo data, and ``sleuth serve`` answering for it."""
    env = _env(tmp)
    org = _cli(env, "admin", "create-org", "shop")
    key = _cli(env, "admin", "create-key", "shop")["key"]
    _cli(env, "admin", "load-demo", "shop")
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}"
    env.update({"SLEUTH_PUBLIC_URL": base_url, **extra_env})
    log_path = tmp / "server.log"
    with running(["serve", "--port", str(port)], env, log_path) as process:

        def healthy() -> bool:
            assert process.poll() is None, log_path.read_text()
            try:
                return httpx.get(f"{base_url}/health", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False

        poll(healthy, timeout=30)
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
    assert verify(callback.body, server.signing_secret, callback.headers["X-Service-Signature"])
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
        assert verify(callback.body, server.signing_secret, callback.headers["X-Service-Signature"])
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
