"""POST/GET /api/v1/interactions in-process: every mode's shape and every 400/401/404 rule."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from callback_receiver import CallbackReceiver
from conftest import PUBLIC_URL, Factory, OrgHandle, shared_client
from interaction_helpers import (
    CREDITS,
    EXPECTED_CONTENT,
    LOGS,
    RUNBOOK,
    FakeAgent,
    execute,
    fakes,
    interaction_row,
    jobs,
    run_worker_until,
    usage,
)
from litestar import Litestar
from litestar.testing import TestClient
from sqlalchemy import update

from sleuth_shell.app import create_app
from sleuth_shell.config import Settings
from sleuth_shell.db.models import Interaction, Job, Team

URL = "/api/v1/interactions"


@pytest.fixture
def agent() -> FakeAgent:
    return FakeAgent()


def _wire(settings: Settings, agent: FakeAgent) -> Litestar:
    return create_app(settings, **fakes(agent))


@pytest.fixture
def ix_client(
    settings: Settings, agent: FakeAgent, backend: str, request: pytest.FixtureRequest
) -> Iterator[TestClient[Litestar]]:
    """A client of an app whose agent is the fake (loopback URLs allowed, no inline worker).

    A ``shared_app`` test (a request refused before any agent runs) gets the module's app with a
    fake agent of its own, on the module's database (tests/shell/conftest.py, SharedApps)."""
    shared = shared_client(request, backend, "fake agent", lambda s: _wire(s, FakeAgent()))
    if shared is not None:
        yield shared
        return
    app = _wire(settings, agent)
    with TestClient(app=app, raise_server_exceptions=False) as client:
        yield client


@pytest.fixture
def strict_client(settings: Settings, agent: FakeAgent) -> Iterator[TestClient[Litestar]]:
    """As ``ix_client`` but with private and loopback URLs refused (the production default)."""
    strict = settings.model_copy(update={"allow_private_urls": False})
    app = _wire(strict, agent)
    with TestClient(app=app, raise_server_exceptions=False) as client:
        yield client


def post(client: TestClient[Litestar], org: OrgHandle, body: Any) -> Any:
    return client.post(URL, json=body, headers=org.headers)


def in_future(seconds: int) -> int:
    return int(time.time()) + seconds


# --- synchronous -------------------------------------------------------------------------------


@pytest.mark.storage
def test_sync_answers_in_the_response_and_stays_retrievable(
    ix_client: TestClient[Litestar], org: OrgHandle, agent: FakeAgent, settings: Settings
) -> None:
    response = post(ix_client, org, {"question": "Why did checkout fail?"})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"question", "content", "sources", "interaction_id", "url"}
    assert body["question"] == "Why did checkout fail?"
    assert body["content"] == EXPECTED_CONTENT
    assert body["sources"] == [LOGS, RUNBOOK]  # sources[n-1] is citation [n]
    assert body["url"] == f"{PUBLIC_URL}/interactions/{body['interaction_id']}"
    assert agent.calls[0]["tools"] is True and agent.calls[0]["history"] == []

    got = ix_client.get(f"{URL}/{body['interaction_id']}", headers=org.headers)
    assert got.status_code == 200
    assert got.json() == {
        "question": "Why did checkout fail?",
        "content": EXPECTED_CONTENT,
        "sources": [LOGS, RUNBOOK],
        "interaction_id": body["interaction_id"],
        "status": "COMPLETED",
        "url": body["url"],
    }
    row = interaction_row(settings, body["interaction_id"])
    assert row.started_at is not None and row.completed_at is not None
    assert row.callback_api_key is None
    assert jobs(settings, "interaction.run") == []


def test_sync_usage_goes_to_the_default_team(
    ix_client: TestClient[Litestar], org: OrgHandle, settings: Settings
) -> None:
    post(ix_client, org, {"question": "q"})
    [event] = usage(settings)
    assert (event.org_id, event.team_id, event.feature) == (
        org.id,
        org.default_team_id,
        "interaction",
    )
    assert event.credits == pytest.approx(CREDITS)


def test_usage_goes_to_the_keys_team(
    ix_client: TestClient[Litestar], org: OrgHandle, factory: Factory, settings: Settings
) -> None:
    team: Team = factory.team(org, "payments")
    key = factory.key(org, team="payments")
    response = ix_client.post(URL, json={"question": "q"}, headers={"X-Service-Org-Api-Key": key})
    assert response.status_code == 200
    [event] = usage(settings)
    assert event.team_id == team.id


def test_use_tools_false_reaches_the_agent(
    ix_client: TestClient[Litestar], org: OrgHandle, agent: FakeAgent
) -> None:
    body = post(ix_client, org, {"question": "hi", "use_tools": False}).json()
    assert agent.calls[0]["tools"] is False
    assert body["content"] == "No tools: hi"
    assert body["sources"] == []


@pytest.mark.storage
def test_context_loads_earlier_conversations_and_user_messages(
    ix_client: TestClient[Litestar], org: OrgHandle, agent: FakeAgent
) -> None:
    first = post(ix_client, org, {"question": "first?", "context": [{"content": "note 0"}]}).json()
    second = post(
        ix_client,
        org,
        {"question": "second?", "context": [{"interaction_id": first["interaction_id"]}]},
    ).json()
    post(
        ix_client,
        org,
        {
            "question": "third?",
            "context": [
                {"content": "before"},
                {"interaction_id": second["interaction_id"]},
                {"content": "after"},
            ],
        },
    )
    history = [(m.role, m.content) for m in agent.calls[2]["history"]]
    assert history == [
        ("user", "before"),
        ("user", "note 0"),
        ("user", "first?"),
        ("assistant", EXPECTED_CONTENT),
        ("user", "second?"),
        ("assistant", EXPECTED_CONTENT),
        ("user", "after"),
    ]


def test_context_of_another_org_or_unknown_is_invalid_payload(
    ix_client: TestClient[Litestar], org: OrgHandle, factory: Factory
) -> None:
    other = factory.org("other")
    theirs = post(ix_client, other, {"question": "secret"}).json()["interaction_id"]
    for ref in (theirs, "00000000-0000-4000-8000-000000000000"):
        response = post(ix_client, org, {"question": "q", "context": [{"interaction_id": ref}]})
        assert response.status_code == 400
        assert response.json() == {"detail": "Invalid payload"}


def test_sync_agent_failure_is_500_and_failed(settings: Settings, org: OrgHandle) -> None:
    app = _wire(settings, FakeAgent(fail="model unreachable"))
    with TestClient(app=app, raise_server_exceptions=False) as client:
        response = post(client, org, {"question": "q"})
        assert response.status_code == 500
        assert response.json() == {"detail": "The agent could not answer: model unreachable"}
        [row] = [r for r in _all_interactions(settings, org)]
        got = client.get(f"{URL}/{row.id}", headers=org.headers).json()
    assert got == {
        "interaction_id": row.id,
        "status": "FAILED",
        "url": f"{PUBLIC_URL}/interactions/{row.id}",
    }
    assert row.error == "The agent could not answer: model unreachable"
    assert usage(settings) == []


def _all_interactions(settings: Settings, org: OrgHandle) -> list[Any]:
    """The organization's interactions."""
    from interaction_helpers import fetch

    from sleuth_shell.db.models import Interaction

    return fetch(settings, Interaction, Interaction.org_id == org.id)


# --- background and scheduled -------------------------------------------------------------------


@pytest.mark.storage
def test_callback_mode_returns_scheduled_then_calls_back_signed(
    ix_client: TestClient[Litestar], org: OrgHandle, agent: FakeAgent, settings: Settings
) -> None:
    with CallbackReceiver() as receiver:
        before = int(time.time())
        response = post(
            ix_client,
            org,
            {"question": "bg?", "notifications": {"web": {"callback_url": receiver.url + "/cb"}}},
        )
        assert response.status_code == 200
        body = response.json()
        assert set(body) == {"interactions", "status"}
        assert body["status"] == "SCHEDULED"
        [item] = body["interactions"]
        assert set(item) == {"interaction_id", "scheduled_runtime", "url"}
        assert before <= item["scheduled_runtime"] <= int(time.time())
        iid = item["interaction_id"]
        assert item["url"] == f"{PUBLIC_URL}/interactions/{iid}"
        assert agent.calls == []  # nothing ran in the request

        pending = ix_client.get(f"{URL}/{iid}", headers=org.headers).json()
        assert pending == {"interaction_id": iid, "status": "PENDING", "url": item["url"]}
        assert interaction_row(settings, iid).callback_api_key == org.key  # kept until delivery

        run_worker_until(settings, agent)
        [callback] = receiver.wait_for(1)

    assert callback.path == "/cb"
    assert callback.json() == {
        "interaction_id": iid,
        "question": "bg?",
        "content": EXPECTED_CONTENT,
        "sources": [LOGS, RUNBOOK],
    }
    assert callback.headers["X-Service-Org-Api-Key"] == org.key
    assert callback.headers["Content-Type"] == "application/json"
    callback.assert_signed(_signing_secret(settings, org))
    done = ix_client.get(f"{URL}/{iid}", headers=org.headers).json()
    assert done["status"] == "COMPLETED" and done["content"] == EXPECTED_CONTENT
    assert interaction_row(settings, iid).callback_api_key is None  # wiped after delivery


def _signing_secret(settings: Settings, org: OrgHandle) -> str:
    from interaction_helpers import fetch

    from sleuth_shell.db.models import Organization

    [row] = fetch(settings, Organization, Organization.id == org.id)
    return str(row.signing_secret)


def test_custom_headers_replace_the_api_key(
    ix_client: TestClient[Litestar], org: OrgHandle, agent: FakeAgent, settings: Settings
) -> None:
    with CallbackReceiver() as receiver:
        body = post(
            ix_client,
            org,
            {
                "question": "q",
                "notifications": {
                    "web": {
                        "callback_url": receiver.url,
                        "custom_headers": {"Authorization": "Bearer abc", "X-Trace": "1"},
                    }
                },
            },
        ).json()
        iid = body["interactions"][0]["interaction_id"]
        assert interaction_row(settings, iid).callback_api_key is None  # never stored
        run_worker_until(settings, agent)
        [callback] = receiver.wait_for(1)
    assert callback.headers["Authorization"] == "Bearer abc"
    assert callback.headers["X-Trace"] == "1"
    assert "X-Service-Org-Api-Key" not in callback.headers
    callback.assert_signed(_signing_secret(settings, org))
    assert callback.headers["X-Service-Delivery-Id"] == f"web:{iid}"  # receivers drop repeats


def test_async_true_runs_in_the_background_for_polling(
    ix_client: TestClient[Litestar], org: OrgHandle, agent: FakeAgent, settings: Settings
) -> None:
    body = post(ix_client, org, {"question": "poll me", "async": True}).json()
    assert body["status"] == "SCHEDULED"
    iid = body["interactions"][0]["interaction_id"]
    assert ix_client.get(f"{URL}/{iid}", headers=org.headers).json()["status"] == "PENDING"
    run_worker_until(settings, agent)
    done = ix_client.get(f"{URL}/{iid}", headers=org.headers).json()
    assert done["status"] == "COMPLETED"
    assert done["sources"] == [LOGS, RUNBOOK]
    assert [j.status for j in jobs(settings, "interaction.run")] == ["done"]
    assert jobs(settings, "notify.web") == []


def test_async_false_without_callback_is_synchronous(
    ix_client: TestClient[Litestar], org: OrgHandle
) -> None:
    body = post(ix_client, org, {"question": "q", "async": False}).json()
    assert body["content"] == EXPECTED_CONTENT


def test_scheduled_runtimes_make_one_interaction_each(
    ix_client: TestClient[Litestar], org: OrgHandle, agent: FakeAgent, settings: Settings
) -> None:
    runtimes = [in_future(600), in_future(1200), in_future(600)]
    body = post(ix_client, org, {"question": "later", "scheduled_runtimes": runtimes}).json()
    assert body["status"] == "SCHEDULED"
    assert [item["scheduled_runtime"] for item in body["interactions"]] == runtimes
    ids = [item["interaction_id"] for item in body["interactions"]]
    assert len(set(ids)) == 3
    run_worker_until(settings, agent)  # nothing is due yet
    assert agent.calls == []
    for iid in ids:
        assert ix_client.get(f"{URL}/{iid}", headers=org.headers).json()["status"] == "PENDING"
    run_jobs = {j.payload["interaction_id"]: j for j in jobs(settings, "interaction.run")}
    assert sorted(int(run_jobs[i].run_at.timestamp()) for i in ids) == sorted(runtimes)


def test_legacy_singular_scheduled_runtime_shape(
    ix_client: TestClient[Litestar], org: OrgHandle
) -> None:
    runtime = in_future(60)
    body = post(ix_client, org, {"question": "later", "scheduled_runtime": runtime}).json()
    assert set(body) == {"interaction_id", "scheduled_runtime", "url", "status"}
    assert body["scheduled_runtime"] == runtime
    assert body["status"] == "SCHEDULED"
    assert body["url"] == f"{PUBLIC_URL}/interactions/{body['interaction_id']}"


def test_background_failure_reads_failed_and_sends_no_callback(
    settings: Settings, org: OrgHandle
) -> None:
    agent = FakeAgent(fail="boom")
    app = _wire(settings, agent)
    with CallbackReceiver() as receiver, TestClient(app=app) as client:
        body = post(
            client, org, {"question": "q", "notifications": {"web": {"callback_url": receiver.url}}}
        ).json()
        iid = body["interactions"][0]["interaction_id"]
        run_worker_until(settings, agent)
        got = client.get(f"{URL}/{iid}", headers=org.headers).json()
        assert receiver.received == []
    assert got == {
        "interaction_id": iid,
        "status": "FAILED",
        "url": f"{PUBLIC_URL}/interactions/{iid}",
    }
    row = interaction_row(settings, iid)
    assert row.error == "The agent could not answer: boom"
    assert row.callback_api_key is None
    [job] = jobs(settings, "interaction.run")
    assert job.status == "failed" and job.last_error == row.error


# --- notifications -----------------------------------------------------------------------------


def test_chat_and_alt_notifications(
    ix_client: TestClient[Litestar], org: OrgHandle, agent: FakeAgent, settings: Settings
) -> None:
    with CallbackReceiver() as alt:
        post(
            ix_client,
            org,
            {
                "question": "Why did checkout fail?",
                "notifications": {
                    "chat": {"chat_channel_ids": ["C0INCIDENT", "G0PRIVATE"]},
                    "alt": {"alt_webhook_urls": [alt.url + "/hook"]},
                },
            },
        )
        run_worker_until(settings, agent)
        [card] = alt.wait_for(1)
    assert card.path == "/hook"
    assert card.headers["Content-Type"] == "application/json"
    assert card.json()  # the core's card rendering, posted as is
    for channel in ("C0INCIDENT", "G0PRIVATE"):
        response = ix_client.get(
            "/api/v1/chat/messages", params={"channel_id": channel}, headers=org.headers
        )
        assert response.status_code == 200
        [message] = response.json()["messages"]
        assert set(message) == {"channel_id", "text", "thread_ts", "created_at"}
        assert message["channel_id"] == channel
        assert "Why did checkout fail?" in message["text"]
        assert message["thread_ts"] is None


def test_chat_outbox_validation_and_isolation(
    ix_client: TestClient[Litestar],
    org: OrgHandle,
    factory: Factory,
    agent: FakeAgent,
    settings: Settings,
) -> None:
    post(ix_client, org, {"question": "q", "notifications": {"chat": {"chat_channel_ids": ["C1"]}}})
    run_worker_until(settings, agent)
    other = factory.org("other")
    url = "/api/v1/chat/messages"
    assert ix_client.get(url, params={"channel_id": "C1"}, headers=other.headers).json() == {
        "messages": []
    }
    assert (
        len(ix_client.get(url, params={"channel_id": "C1"}, headers=org.headers).json()["messages"])
        == 1
    )
    missing = ix_client.get(url, headers=org.headers)
    assert (missing.status_code, missing.json()) == (400, {"detail": "channel_id is required"})
    bad = ix_client.get(url, params={"channel_id": "X1"}, headers=org.headers)
    assert (bad.status_code, bad.json()) == (400, {"detail": "Invalid channel_id: X1"})
    assert ix_client.get(url, params={"channel_id": "C1"}).status_code == 401


# --- callbacks: retries ------------------------------------------------------------------------


def _callback_interaction(client: TestClient[Litestar], org: OrgHandle, url: str) -> str:
    body = post(
        client, org, {"question": "q", "notifications": {"web": {"callback_url": url}}}
    ).json()
    return str(body["interactions"][0]["interaction_id"])


@pytest.mark.storage
def test_callback_retries_on_500_then_succeeds(
    ix_client: TestClient[Litestar], org: OrgHandle, agent: FakeAgent, settings: Settings
) -> None:
    with CallbackReceiver([500, 503, 429]) as receiver:
        iid = _callback_interaction(ix_client, org, receiver.url)
        run_worker_until(
            settings, agent, lambda: [j.status for j in jobs(settings, "notify.web")] == ["done"]
        )
        received = receiver.wait_for(4)
    assert len(received) == 4
    assert len({r.body for r in received}) == 1  # the same body each attempt
    [job] = jobs(settings, "notify.web")
    assert job.attempts == 4
    assert interaction_row(settings, iid).callback_api_key is None


def test_callback_stops_after_five_attempts(
    ix_client: TestClient[Litestar], org: OrgHandle, agent: FakeAgent, settings: Settings
) -> None:
    with CallbackReceiver(default_status=500) as receiver:
        iid = _callback_interaction(ix_client, org, receiver.url)
        run_worker_until(
            settings, agent, lambda: [j.status for j in jobs(settings, "notify.web")] == ["failed"]
        )
        assert len(receiver.received) == 5
    [job] = jobs(settings, "notify.web")
    assert job.attempts == 5
    assert job.last_error == f"POST {receiver.url} answered 500 (after 5 attempts)"
    assert interaction_row(settings, iid).callback_api_key is None  # wiped after the final failure


def test_callback_does_not_retry_on_400(
    ix_client: TestClient[Litestar], org: OrgHandle, agent: FakeAgent, settings: Settings
) -> None:
    with CallbackReceiver([400]) as receiver:
        iid = _callback_interaction(ix_client, org, receiver.url)
        run_worker_until(
            settings, agent, lambda: [j.status for j in jobs(settings, "notify.web")] == ["failed"]
        )
        assert len(receiver.received) == 1
    [job] = jobs(settings, "notify.web")
    assert job.attempts == 1
    assert job.last_error == f"POST {receiver.url} answered 400"
    assert interaction_row(settings, iid).callback_api_key is None
    # The interaction itself completed; only the delivery failed.
    assert interaction_row(settings, iid).status == "COMPLETED"


def test_callback_retries_on_network_error(
    ix_client: TestClient[Litestar], org: OrgHandle, agent: FakeAgent, settings: Settings
) -> None:
    with CallbackReceiver() as receiver:
        dead_url = receiver.url  # nothing listens here once the receiver is closed
    _callback_interaction(ix_client, org, dead_url)
    run_worker_until(
        settings, agent, lambda: [j.status for j in jobs(settings, "notify.web")] == ["failed"]
    )
    [job] = jobs(settings, "notify.web")
    assert job.attempts == 5
    assert job.last_error is not None and job.last_error.startswith(f"POST {dead_url} failed:")


# --- restart -------------------------------------------------------------------------------------


@pytest.mark.storage
def test_restart_runs_each_pending_scheduled_interaction_exactly_once(
    ix_client: TestClient[Litestar], org: OrgHandle, settings: Settings
) -> None:
    runtimes = [in_future(600), in_future(600), in_future(900)]
    body = post(ix_client, org, {"question": "later", "scheduled_runtimes": runtimes}).json()
    ids = {item["interaction_id"] for item in body["interactions"]}
    first = FakeAgent()
    run_worker_until(settings, first, lambda: True)  # a worker runs briefly and stops: nothing due
    assert first.calls == []

    # While the service is down, the scheduled times arrive.
    execute(
        settings,
        update(Job)
        .where(Job.kind == "interaction.run")
        .values(run_at=datetime.now(UTC) - timedelta(seconds=1)),
    )
    second = FakeAgent()  # a new process after the restart
    run_worker_until(
        settings,
        second,
        lambda: {j.status for j in jobs(settings, "interaction.run")} == {"done"},
    )
    assert len(second.calls) == 3
    for iid in ids:
        assert interaction_row(settings, iid).status == "COMPLETED"
    assert len(usage(settings)) == 3

    # A run whose completion was lost (the worker died after the answer was stored) is claimed
    # again, and finds the interaction already COMPLETED: no second agent run, no second usage row.
    execute(settings, update(Job).where(Job.kind == "interaction.run").values(status="pending"))
    run_worker_until(settings, second)
    assert len(second.calls) == 3
    assert len(usage(settings)) == 3
    assert {j.status for j in jobs(settings, "interaction.run")} == {"done"}


# --- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["post", "get"])
@pytest.mark.parametrize("headers", [{}, {"X-Service-Org-Api-Key": "nope"}])
def test_unauthorized(
    ix_client: TestClient[Litestar], method: str, headers: dict[str, str]
) -> None:
    if method == "post":
        response = ix_client.post(URL, json={"question": "q"}, headers=headers)
    else:
        response = ix_client.get(f"{URL}/some-id", headers=headers)
    assert response.status_code == 401
    assert response.json() == {"detail": "Unauthorized"}


def test_not_found_for_unknown_and_other_orgs(
    ix_client: TestClient[Litestar], org: OrgHandle, factory: Factory
) -> None:
    other = factory.org("other")
    theirs = post(ix_client, other, {"question": "q"}).json()["interaction_id"]
    for iid in (theirs, "00000000-0000-4000-8000-000000000000", "x" * 300):
        response = ix_client.get(f"{URL}/{iid}", headers=org.headers)
        assert response.status_code == 404
        assert response.json() == {"detail": "Interaction not found"}


def _runtimes(*offsets: int) -> list[int]:
    return [in_future(o) for o in offsets]


INVALID_BODIES: list[tuple[str, Any, str]] = [
    ("array body", [], "Invalid payload"),
    ("string body", "question", "Invalid payload"),
    ("null body", None, "Invalid payload"),
    ("missing question", {}, "Invalid question"),
    ("null question", {"question": None}, "Invalid question"),
    ("number question", {"question": 5}, "Invalid question"),
    ("blank question", {"question": "  \n"}, "Invalid question"),
    ("question checked before context", {"context": "x"}, "Invalid question"),
    ("string context", {"question": "q", "context": "earlier"}, "Context must be a list"),
    ("object context", {"question": "q", "context": {"content": "x"}}, "Context must be a list"),
    (
        "context before payload",
        {"question": "q", "context": 1, "use_tools": "x"},
        "Context must be a list",
    ),
    ("context item not object", {"question": "q", "context": ["x"]}, "Invalid payload"),
    ("empty context item", {"question": "q", "context": [{}]}, "Invalid payload"),
    (
        "context id not string",
        {"question": "q", "context": [{"interaction_id": 4}]},
        "Invalid payload",
    ),
    ("use_tools string", {"question": "q", "use_tools": "yes"}, "Invalid payload"),
    ("user_id number", {"question": "q", "user_id": 5}, "Invalid payload"),
    ("async string", {"question": "q", "async": "true"}, "Invalid payload"),
    ("runtimes not list", {"question": "q", "scheduled_runtimes": 5}, "Invalid payload"),
    ("runtime in the past", {"question": "q", "scheduled_runtimes": [1000]}, "Invalid payload"),
    ("runtime now-ish past", {"question": "q", "scheduled_runtimes": "PAST"}, "Invalid payload"),
    ("runtime over 24h", {"question": "q", "scheduled_runtimes": "FAR"}, "Invalid payload"),
    ("eleven runtimes", {"question": "q", "scheduled_runtimes": "ELEVEN"}, "Invalid payload"),
    ("float runtime", {"question": "q", "scheduled_runtimes": "FLOAT"}, "Invalid payload"),
    ("bool runtime", {"question": "q", "scheduled_runtimes": [True]}, "Invalid payload"),
    ("string runtime", {"question": "q", "scheduled_runtimes": ["1800000000"]}, "Invalid payload"),
    ("both runtime forms", {"question": "q", "scheduled_runtimes": "BOTH"}, "Invalid payload"),
    ("legacy in the past", {"question": "q", "scheduled_runtime": 1000}, "Invalid payload"),
    ("notifications not object", {"question": "q", "notifications": []}, "Invalid payload"),
    ("chat not object", {"question": "q", "notifications": {"chat": "C1"}}, "Invalid payload"),
    (
        "bad channel",
        {"question": "q", "notifications": {"chat": {"chat_channel_ids": ["D123"]}}},
        "Invalid payload",
    ),
    (
        "channels not list",
        {"question": "q", "notifications": {"chat": {"chat_channel_ids": "C1"}}},
        "Invalid payload",
    ),
    (
        "bad alt url",
        {"question": "q", "notifications": {"alt": {"alt_webhook_urls": ["ftp://x"]}}},
        "Invalid payload",
    ),
    (
        "callback not string",
        {"question": "q", "notifications": {"web": {"callback_url": 5}}},
        "Invalid payload",
    ),
    (
        "headers not object",
        {
            "question": "q",
            "notifications": {
                "web": {"callback_url": "http://h.example/", "custom_headers": ["a"]}
            },
        },
        "Invalid payload",
    ),
    (
        "header value number",
        {
            "question": "q",
            "notifications": {
                "web": {"callback_url": "http://h.example/", "custom_headers": {"A": 1}}
            },
        },
        "Invalid payload",
    ),
    (
        "header name invalid",
        {
            "question": "q",
            "notifications": {
                "web": {"callback_url": "http://h.example/", "custom_headers": {"A B": "x"}}
            },
        },
        "Invalid payload",
    ),
    (
        "header value newline",
        {
            "question": "q",
            "notifications": {
                "web": {"callback_url": "http://h.example/", "custom_headers": {"A": "x\r\nB: y"}}
            },
        },
        "Invalid payload",
    ),
    (
        "relative callback",
        {"question": "q", "notifications": {"web": {"callback_url": "/hook"}}},
        "Invalid callback_url: /hook",
    ),
    (
        "ftp callback",
        {"question": "q", "notifications": {"web": {"callback_url": "ftp://h.example/x"}}},
        "Invalid callback_url: ftp://h.example/x",
    ),
    (
        "not a url",
        {"question": "q", "notifications": {"web": {"callback_url": "not a url"}}},
        "Invalid callback_url: not a url",
    ),
    (
        "payload before callback",
        {"question": "q", "use_tools": 1, "notifications": {"web": {"callback_url": "/x"}}},
        "Invalid payload",
    ),
]


def _materialize(body: Any) -> Any:
    if not isinstance(body, dict):
        return body
    body = dict(body)
    special = body.get("scheduled_runtimes")
    if special == "PAST":
        body["scheduled_runtimes"] = [int(time.time()) - 5]
    elif special == "FAR":
        body["scheduled_runtimes"] = _runtimes(60, 24 * 3600 + 60)
    elif special == "ELEVEN":
        body["scheduled_runtimes"] = _runtimes(*range(60, 60 * 12, 60))
    elif special == "FLOAT":
        body["scheduled_runtimes"] = [in_future(60) + 0.5]
    elif special == "BOTH":
        body["scheduled_runtimes"] = _runtimes(60)
        body["scheduled_runtime"] = in_future(60)
    return body


@pytest.mark.shared_app
@pytest.mark.parametrize(
    ("case", "body", "detail"), INVALID_BODIES, ids=[c[0] for c in INVALID_BODIES]
)
def test_invalid_requests(
    ix_client: TestClient[Litestar],
    org: OrgHandle,
    case: str,
    body: Any,
    detail: str,
    settings: Settings,
) -> None:
    response = post(ix_client, org, _materialize(body))
    assert response.status_code == 400, response.text
    assert response.json() == {"detail": detail}
    assert _all_interactions(settings, org) == []


@pytest.mark.shared_app
@pytest.mark.parametrize("raw", [b"{", b"", b"\xff\xfe", b"question=q"])
def test_unparseable_body_is_invalid_payload(
    ix_client: TestClient[Litestar], org: OrgHandle, raw: bytes
) -> None:
    response = ix_client.post(
        URL, content=raw, headers={**org.headers, "Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json() == {"detail": "Invalid payload"}


def test_ten_runtimes_and_24h_are_accepted(ix_client: TestClient[Litestar], org: OrgHandle) -> None:
    runtimes = _runtimes(*range(60, 660, 60))
    assert len(runtimes) == 10
    ok = post(ix_client, org, {"question": "q", "scheduled_runtimes": runtimes})
    assert ok.status_code == 200 and len(ok.json()["interactions"]) == 10
    edge = post(
        ix_client, org, {"question": "q", "scheduled_runtimes": [in_future(24 * 3600 - 30)]}
    )
    assert edge.status_code == 200


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/cb",
        "http://localhost/cb",
        "http://10.1.2.3/cb",
        "http://192.168.0.10/cb",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/cb",
        "http://[::ffff:127.0.0.1]/cb",
        "http://0.0.0.0/cb",
    ],
)
def test_private_callback_urls_are_refused_by_default(
    strict_client: TestClient[Litestar], org: OrgHandle, url: str
) -> None:
    response = post(
        strict_client, org, {"question": "q", "notifications": {"web": {"callback_url": url}}}
    )
    assert response.status_code == 400
    assert response.json() == {"detail": f"Invalid callback_url: {url}"}


def test_private_alt_urls_are_refused_by_default(
    strict_client: TestClient[Litestar], org: OrgHandle
) -> None:
    response = post(
        strict_client,
        org,
        {"question": "q", "notifications": {"alt": {"alt_webhook_urls": ["http://10.0.0.1/x"]}}},
    )
    assert response.status_code == 400
    assert response.json() == {"detail": "Invalid payload"}


class _AnalysingAgent(FakeAgent):
    """Answers like `FakeAgent`, with a root-cause analysis citing agent ids 3, 7 and 99."""

    async def answer(self, ctx: Any, question: str, **kwargs: Any) -> Any:
        found = await super().answer(ctx, question, **kwargs)
        analysis = {"verdict": "unknown", "change_id": None, "evidence": [3, 7, 99]}
        return type(found)(found.markdown, found.sources, found.credits, analysis)


def test_why_answer_carries_its_analysis_with_final_citation_numbers(
    settings: Settings, org: OrgHandle
) -> None:
    expected = {"verdict": "unknown", "change_id": None, "evidence": [1, 2]}
    with TestClient(app=_wire(settings, _AnalysingAgent())) as client:
        body = post(client, org, {"question": "Why did checkout fail?"}).json()
        # The SPEC's shapes stay exact: the analysis is served on its own.
        assert set(body) == {"question", "content", "sources", "interaction_id", "url"}
        # Citations: the logs (agent id 7) are [1], the runbook (3) is [2]; 99 was never cited.
        assert body["sources"] == [LOGS, RUNBOOK]
        iid = body["interaction_id"]
        got = client.get(f"{URL}/{iid}", headers=org.headers).json()
        assert set(got) == {"question", "content", "sources", "interaction_id", "status", "url"}
        analysis = client.get(f"{URL}/{iid}/analysis", headers=org.headers)
        assert analysis.status_code == 200 and analysis.json() == {"analysis": expected}
        assert interaction_row(settings, iid).analysis == expected
        # A question without an analysis reads null; an unknown one is 404.
        execute(settings, update(Interaction).where(Interaction.id == iid).values(analysis=None))
        assert client.get(f"{URL}/{iid}/analysis", headers=org.headers).json() == {"analysis": None}
        missing = client.get(
            f"{URL}/00000000-0000-4000-8000-000000000000/analysis", headers=org.headers
        )
        assert missing.status_code == 404
        assert missing.json() == {"detail": "Interaction not found"}


@pytest.mark.storage
def test_callbacks_stuck_on_a_slow_target_do_not_stall_runs_or_other_callbacks(
    ix_client: TestClient[Litestar], org: OrgHandle, agent: FakeAgent, settings: Settings
) -> None:
    """Three callbacks hang on a target that does not answer (real HTTP): they hold at most their
    key's share of the worker's I/O lane (``key_limit``), the runs never wait for them, and an
    interaction created after them calls back to another target while they still hang; the held
    ones complete once released."""
    release = threading.Event()
    with CallbackReceiver(hold=release) as slow, CallbackReceiver() as fast:
        stuck = [
            post(
                ix_client,
                org,
                {"question": f"slow {i}?", "notifications": {"web": {"callback_url": slow.url}}},
            ).json()["interactions"][0]["interaction_id"]
            for i in range(3)
        ]
        later = post(
            ix_client,
            org,
            {"question": "fast?", "notifications": {"web": {"callback_url": fast.url}}},
        ).json()["interactions"][0]["interaction_id"]
        seen: dict[str, object] = {}

        def two_held_and_later_called_back() -> bool:
            # With a key limit of 2, two callbacks are in flight on the slow target, and the
            # later interaction's callback (another target) arrives while they hang...
            if len(slow.received) < 2 or len(fast.received) < 1:
                return False
            if "held" not in seen:
                seen["held"] = len(slow.received)
                seen["stuck_statuses"] = {interaction_row(settings, i).status for i in stuck}
            release.set()  # ...then the target answers and everything drains.
            return (
                len(fast.received) == 1
                and len(slow.received) == 3
                and not [job for job in jobs(settings, "notify.web") if job.status != "done"]
            )

        run_worker_until(
            settings, agent, two_held_and_later_called_back, concurrency=4, key_limit=2
        )
    assert seen["held"] == 2
    assert seen["stuck_statuses"] == {"COMPLETED"}  # the runs themselves never waited
    assert [r.json()["interaction_id"] for r in fast.received] == [later]
    assert sorted(r.json()["interaction_id"] for r in slow.received) == sorted(stuck)
