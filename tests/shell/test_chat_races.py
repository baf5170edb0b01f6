"""Parallel deliveries of one chat event over real HTTP: one delivery record, one investigation,
the same answer for every copy. Runs on SQLite and PostgreSQL (``storage``)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest
from conftest import Factory, OrgHandle
from sqlalchemy import func, select
from test_races import served  # noqa: F401  (the served-app fixture)

from sleuth_core.intake import sign_chat
from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import ChatDelivery, Investigation

pytestmark = pytest.mark.storage

PARALLEL = 10


def _fixture() -> bytes:
    for parent in Path(__file__).resolve().parents[2].parents:
        candidate = (
            parent / "shared" / "fixtures" / "alert-payloads" / "slack" / "message_user.json"
        )
        if candidate.is_file():
            return candidate.read_bytes()
    raise AssertionError("no shared/fixtures/alert-payloads/slack beside the repository")


def count(settings: Settings, model: type) -> int:
    async def go() -> int:
        engine = create_engine(settings.database_url)
        try:
            async with create_session_factory(engine)() as session:
                return int(await session.scalar(select(func.count()).select_from(model)) or 0)
        finally:
            await engine.dispose()

    return asyncio.run(go())


def test_parallel_copies_of_one_event_start_one_investigation(
    served: str,  # noqa: F811
    factory: Factory,
    org: OrgHandle,
    settings: Settings,
) -> None:
    hook = factory.webhook(org, "CHAT", "workspace")
    created = httpx.post(
        f"{served}/api/v1/alert-responders",
        headers=org.headers,
        json={
            "team_name": "Default",
            "name": "chat alerts",
            "chat_channel_id": "C06NRA6JLER",
            "matching_criteria": {"text_matches": ["*normal text*"]},
        },
        timeout=30,
    )
    assert created.status_code == 200, created.text
    body = _fixture()
    stamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "X-Chat-Request-Timestamp": str(stamp),
        "X-Chat-Signature": sign_chat(body, hook.secret, stamp),
    }

    async def one() -> httpx.Response:
        async with httpx.AsyncClient(base_url=served, timeout=60) as client:
            return await client.post(
                f"/api/v1/webhooks/CHAT/{hook.remote_id}", content=body, headers=headers
            )

    async def all_at_once() -> list[httpx.Response]:
        return list(await asyncio.gather(*(one() for _ in range(PARALLEL))))

    responses = asyncio.run(all_at_once())
    assert {r.status_code for r in responses} == {202}, [r.text for r in responses]
    answers = {r.text for r in responses}
    assert len(answers) == 1
    assert len(responses[0].json()["investigation_ids"]) == 1
    assert count(settings, ChatDelivery) == 1
    assert count(settings, Investigation) == 1


def test_a_message_and_its_app_mention_in_parallel_get_one_reply(
    served: str,  # noqa: F811
    factory: Factory,
    org: OrgHandle,
    settings: Settings,
) -> None:
    """40 parallel deliveries of one message: the same event id retried, and the same message
    as ``message`` and ``app_mention`` under other event ids. One delivery record runs it: one
    trigger reply queued, and every copy gets that answer."""
    import json

    from sleuth_shell.chat import TRIGGER_KIND
    from sleuth_shell.db.models import AdvancedSettings, Job

    hook = factory.webhook(org, "CHAT", "workspace")
    factory.add(
        AdvancedSettings(
            org_id=org.id,
            document={
                "assignments": [
                    {
                        "type": "watch_chat",
                        "text_match": ["normal text"],
                        "filtering_instructions": "STATIC: normal",
                        "static_response": "Seen.",
                    }
                ]
            },
        )
    )
    original = json.loads(_fixture())
    bodies = []
    for n in range(40):
        payload = json.loads(json.dumps(original))
        if n % 2:
            payload["event"]["type"] = "app_mention"
        if n % 4 >= 2:
            payload["event_id"] = f"Ev-copy-{n}"
        bodies.append(json.dumps(payload).encode())
    stamp = int(time.time())

    async def one(body: bytes) -> httpx.Response:
        async with httpx.AsyncClient(base_url=served, timeout=60) as client:
            return await client.post(
                f"/api/v1/webhooks/CHAT/{hook.remote_id}",
                content=body,
                headers={
                    "Content-Type": "application/json",
                    "X-Chat-Request-Timestamp": str(stamp),
                    "X-Chat-Signature": sign_chat(body, hook.secret, stamp),
                },
            )

    async def all_at_once() -> list[httpx.Response]:
        return list(await asyncio.gather(*(one(body) for body in bodies)))

    responses = asyncio.run(all_at_once())
    assert {r.status_code for r in responses} == {202}, [r.text for r in responses]
    assert {r.text for r in responses} == {responses[0].text}
    assert responses[0].json()["replies"] == 1

    async def triggers() -> int:
        engine = create_engine(settings.database_url)
        try:
            async with create_session_factory(engine)() as session:
                return int(
                    await session.scalar(
                        select(func.count()).select_from(Job).where(Job.kind == TRIGGER_KIND)
                    )
                    or 0
                )
        finally:
            await engine.dispose()

    assert asyncio.run(triggers()) == 1
