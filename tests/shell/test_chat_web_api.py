"""The chat Web API connector (``chat.postMessage``), tested against a local stand-in of that API.

:class:`StandInWebApi` is a stand-in for the chat platform's Web API, not the platform itself: a
real HTTP server on 127.0.0.1 that records every request and answers from a script (``ok: true``,
429 with ``Retry-After``, ``ok: false`` errors, 500). The client under test is the real one over
the real outbound HTTP seam (:class:`AiohttpPoster`); waits go through an injected ``sleep`` that
records them, so retry timing is asserted without real waits.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from sqlalchemy import select

from sleuth_shell.config import ConfigError, Settings
from sleuth_shell.db import create_engine, create_session_factory, migrate_async
from sleuth_shell.db.models import ChatMessage, Job
from sleuth_shell.jobs import DONE, FAILED, Worker
from sleuth_shell.notify.chat import (
    ChatDeliveryError,
    OutboxChatClient,
    WebApiChatClient,
    chat_client_for,
)
from sleuth_shell.notify.delivery import enqueue_chat
from sleuth_shell.notify.http import AiohttpPoster
from sleuth_shell.runtime import job_registry
from sleuth_shell.services import build_services

pytestmark = pytest.mark.anyio

TOKEN = "xoxb-test-token"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class StandInWebApi:
    """A stand-in for the chat platform's Web API: records requests, answers from a script."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.script: list[tuple[int, dict[str, str], bytes]] = []
        self._lock = threading.Lock()
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with stand_in._lock:
                    stand_in.requests.append(
                        Recorded(
                            self.path,
                            {k.lower(): v for k, v in self.headers.items()},
                            json.loads(raw),
                        )
                    )
                    if stand_in.script:
                        status, headers, body = stand_in.script.pop(0)
                    else:
                        status, headers, body = 200, {}, _ok_body(len(stand_in.requests))
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/api"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def answer(self, status: int, body: dict[str, Any], **headers: str) -> None:
        self.script.append((status, headers, json.dumps(body).encode()))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _ok_body(n: int) -> bytes:
    # A realistic success answer, longer than the 200-character excerpt callbacks keep.
    message = {"type": "message", "text": "x" * 300, "ts": f"1714641302.{n:06d}"}
    return json.dumps(
        {"ok": True, "channel": "C04ALERTS9", "ts": message["ts"], "message": message}
    ).encode()


@pytest.fixture
def api() -> Iterator[StandInWebApi]:
    stand_in = StandInWebApi()
    yield stand_in
    stand_in.close()


@pytest.fixture
async def poster() -> AsyncIterator[AiohttpPoster]:
    p = AiohttpPoster(timeout=5)
    yield p
    await p.aclose()


class Sleeps:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def client(
    api: StandInWebApi, poster: AiohttpPoster, sleeps: Sleeps, **kw: Any
) -> WebApiChatClient:
    return WebApiChatClient(TOKEN, poster, base_url=api.base_url, sleep=sleeps, **kw)


async def test_post_sends_bearer_json_mrkdwn_and_thread_ts(api, poster) -> None:
    sleeps = Sleeps()
    chat = client(api, poster, sleeps)
    await chat.post_message(None, 1, "C04ALERTS9", "*Root cause:* bad deploy <https://x|run>", None)  # type: ignore[arg-type]
    await chat.post_message(None, 1, "C04ALERTS9", "In the thread – ünïcode", "1714641250.004200")  # type: ignore[arg-type]
    first, second = api.requests
    assert first.path == second.path == "/api/chat.postMessage"
    assert first.headers["authorization"] == f"Bearer {TOKEN}"
    assert first.headers["content-type"] == "application/json; charset=utf-8"
    assert first.body == {
        "channel": "C04ALERTS9",
        "text": "*Root cause:* bad deploy <https://x|run>",
        "mrkdwn": True,
        "unfurl_links": False,
    }
    assert second.body["thread_ts"] == "1714641250.004200"
    assert second.body["text"] == "In the thread – ünïcode"
    assert sleeps.waits == []


async def test_429_waits_retry_after_then_delivers_the_same_message(api, poster) -> None:
    api.answer(429, {"ok": False, "error": "ratelimited"}, **{"Retry-After": "3"})
    api.answer(429, {"ok": False, "error": "ratelimited"}, **{"Retry-After": "1"})
    sleeps = Sleeps()
    await client(api, poster, sleeps).post_message(None, 1, "C1", "hello", "1.2")  # type: ignore[arg-type]
    assert sleeps.waits == [3.0, 1.0]
    assert len(api.requests) == 3
    assert all(r.body == api.requests[0].body for r in api.requests)
    assert api.requests[-1].body["thread_ts"] == "1.2"


async def test_429_with_a_long_retry_after_is_handed_back_without_waiting(api, poster) -> None:
    api.answer(429, {"ok": False, "error": "ratelimited"}, **{"Retry-After": "120"})
    sleeps = Sleeps()
    with pytest.raises(ChatDeliveryError) as caught:
        await client(api, poster, sleeps, max_wait=10).post_message(None, 1, "C1", "t", None)  # type: ignore[arg-type]
    assert caught.value.permanent is False and caught.value.retry_after == 120.0
    assert sleeps.waits == [] and len(api.requests) == 1


async def test_5xx_and_transient_errors_back_off_then_succeed(api, poster) -> None:
    api.answer(500, {"oops": True})
    api.answer(200, {"ok": False, "error": "internal_error"})
    sleeps = Sleeps()
    await client(api, poster, sleeps, backoff=0.25).post_message(None, 1, "C1", "t", None)  # type: ignore[arg-type]
    assert sleeps.waits == [0.25, 0.5]
    assert len(api.requests) == 3


async def test_retries_are_bounded_and_report_a_transient_failure(api, poster) -> None:
    for _ in range(5):
        api.answer(503, {})
    sleeps = Sleeps()
    with pytest.raises(ChatDeliveryError, match="HTTP 503") as caught:
        await client(api, poster, sleeps, attempts=3, backoff=0.1).post_message(
            None, 1, "C1", "t", None
        )  # type: ignore[arg-type]
    assert caught.value.permanent is False and caught.value.retry_after is None
    assert len(api.requests) == 3 and sleeps.waits == [0.1, 0.2]


async def test_network_errors_are_retried_a_bounded_number_of_times(poster) -> None:
    stand_in = StandInWebApi()
    base_url = stand_in.base_url
    stand_in.close()  # nothing listens there any more: connection refused
    sleeps = Sleeps()
    chat = WebApiChatClient(TOKEN, poster, base_url=base_url, attempts=2, backoff=0.1, sleep=sleeps)
    with pytest.raises(ChatDeliveryError, match="network error") as caught:
        await chat.post_message(None, 1, "C1", "t", None)  # type: ignore[arg-type]
    assert caught.value.permanent is False and sleeps.waits == [0.1]


@pytest.mark.parametrize(
    "error", ["channel_not_found", "not_in_channel", "invalid_auth", "is_archived", "no_text"]
)
async def test_permanent_errors_fail_at_once_and_are_logged(api, poster, caplog, error) -> None:
    api.answer(200, {"ok": False, "error": error})
    sleeps = Sleeps()
    chat = client(api, poster, sleeps)
    with (
        caplog.at_level(logging.WARNING, logger="sleuth.notify.chat"),
        pytest.raises(ChatDeliveryError, match=error) as caught,
    ):
        await chat.post_message(None, 7, "C9", "t", None)  # type: ignore[arg-type]
    assert caught.value.permanent is True
    assert len(api.requests) == 1 and sleeps.waits == []
    assert any(error in r.getMessage() and "C9" in r.getMessage() for r in caplog.records)
    assert TOKEN not in caplog.text


def test_settings_pick_the_client() -> None:
    poster = AiohttpPoster()
    default = Settings.from_env({})
    assert default.chat_bot_token is None and default.chat_api_url == "https://slack.com/api"
    assert isinstance(chat_client_for(default, poster), OutboxChatClient)
    configured = Settings.from_env(
        {"SLEUTH_CHAT_BOT_TOKEN": "xoxb-1", "SLEUTH_CHAT_API_URL": "http://127.0.0.1:9/api/"}
    )
    web = chat_client_for(configured, poster)
    assert isinstance(web, WebApiChatClient)
    assert web.url == "http://127.0.0.1:9/api/chat.postMessage"
    assert "xoxb-1" not in repr(configured)
    with pytest.raises(ConfigError, match="SLEUTH_CHAT_API_URL"):
        Settings.from_env({"SLEUTH_CHAT_API_URL": "slack.com/api"})


# --- through the notify.chat job --------------------------------------------------------------


async def _run_chat_jobs(url: str, settings: Settings, messages: list[tuple[str, str | None]]):
    """Enqueue ``messages`` as notify.chat jobs, run a worker until they finish, return the rows."""
    await migrate_async(url)
    engine = create_engine(url)
    try:
        sessions = create_session_factory(engine)
        async with sessions() as session:
            from sleuth_shell import admin

            org = await admin.create_org(session, "acme")
            for text, thread_ts in messages:
                await enqueue_chat(session, org.id, "C04ALERTS9", text, thread_ts)
            await session.commit()
        services = build_services(settings, sessions, retry_base_seconds=0.01)
        worker = Worker(services, job_registry(), poll_interval=0.05)
        await worker.start()
        try:
            for _ in range(400):
                async with sessions() as session:
                    jobs = (await session.scalars(select(Job))).all()
                if jobs and all(job.status in {DONE, FAILED} for job in jobs):
                    break
                await asyncio.sleep(0.05)
        finally:
            await worker.stop()
        async with sessions() as session:
            jobs = (await session.scalars(select(Job).order_by(Job.id))).all()
            outbox = (await session.scalars(select(ChatMessage))).all()
        return jobs, outbox
    finally:
        await engine.dispose()


async def test_with_a_token_jobs_post_to_the_web_api_and_nothing_is_lost(api, tmp_path) -> None:
    # The first job attempt exhausts the client's three tries on 500s; the job retries and delivers.
    for _ in range(3):
        api.answer(500, {})
    url = f"sqlite:///{tmp_path / 'sleuth.db'}"
    settings = Settings(database_url=url, chat_bot_token=TOKEN, chat_api_url=api.base_url)
    jobs, outbox = await _run_chat_jobs(url, settings, [("*first*", None), ("second", "1.5")])
    assert [job.status for job in jobs] == [DONE, DONE]
    delivered = [r.body for r in api.requests[3:]]
    assert sorted((b["text"], b.get("thread_ts")) for b in delivered) == [
        ("*first*", None),
        ("second", "1.5"),
    ]
    assert outbox == []  # with a token the Web API replaces the outbox


async def test_a_permanent_error_fails_the_job_with_the_error_recorded(api, tmp_path) -> None:
    api.answer(200, {"ok": False, "error": "channel_not_found"})
    url = f"sqlite:///{tmp_path / 'sleuth.db'}"
    settings = Settings(database_url=url, chat_bot_token=TOKEN, chat_api_url=api.base_url)
    jobs, outbox = await _run_chat_jobs(url, settings, [("lost channel", None)])
    [job] = jobs
    assert job.status == FAILED and "channel_not_found" in (job.last_error or "")
    assert len(api.requests) == 1 and outbox == []


async def test_without_a_token_jobs_fill_the_outbox(api, tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'sleuth.db'}"
    jobs, outbox = await _run_chat_jobs(url, Settings(database_url=url), [("to the outbox", "9.1")])
    assert [job.status for job in jobs] == [DONE]
    assert [(m.channel_id, m.text, m.thread_ts) for m in outbox] == [
        ("C04ALERTS9", "to the outbox", "9.1")
    ]
    assert api.requests == []
