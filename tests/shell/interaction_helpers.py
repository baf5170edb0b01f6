"""Shared pieces of the interaction tests: a deterministic fake agent and a job-draining worker."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import select

from sleuth_shell.agents.base import AgentContext, AgentResult, ContextMessage
from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import Interaction, Job, UsageEvent
from sleuth_shell.jobs import Worker
from sleuth_shell.runtime import job_registry
from sleuth_shell.services import Services, build_services


def source(source_id: int, name: str) -> dict[str, Any]:
    """A complete SPEC source record."""
    return {
        "log_type_name": "Knowledge catalog",
        "query": f'{{"q": "{name}"}}',
        "start": "2026-01-01T00:00:00Z",
        "end": "2026-01-02T00:00:00Z",
        "link": f"http://sleuth.test/knowledge/{source_id}",
        "artifact_id": None,
        "tool_id": "knowledge_search",
        "type": "knowledge",
        "source_id": source_id,
        "display_text": name,
    }


RUNBOOK = source(3, "Checkout runbook")
LOGS = source(7, "checkout errors")
#: What the fake agent answers: source 7 is cited first, 3 second, 7 again, 99 is unknown.
MARKDOWN = (
    "Checkout errors spiked [[source:7]] at §2026-01-01T10:00:00Z§. "
    "Follow the runbook [[source:3]]; the errors [[source:7]] stop after a restart[[source:99]]."
)
EXPECTED_CONTENT = (
    "Checkout errors spiked [1] at 2026-01-01T10:00:00Z. "
    "Follow the runbook [2]; the errors [1] stop after a restart."
)
CREDITS = 1.25


class FakeAgent:
    """Answers deterministically and records every call."""

    name = "fake"

    def __init__(self, *, fail: str | None = None) -> None:
        self.calls: list[dict[str, Any]] = []
        self.fail = fail

    async def answer(
        self,
        ctx: AgentContext,
        question: str,
        *,
        history: Sequence[ContextMessage] = (),
        use_tools: bool = True,
    ) -> AgentResult:
        self.calls.append(
            {
                "org_id": ctx.org_id,
                "question": question,
                "history": list(history),
                "tools": use_tools,
            }
        )
        if self.fail is not None:
            raise RuntimeError(self.fail)
        if not use_tools:
            return AgentResult(markdown=f"No tools: {question}", sources={}, credits=0.5)
        return AgentResult(markdown=MARKDOWN, sources={3: RUNBOOK, 7: LOGS}, credits=CREDITS)

    async def investigate(self, *args: Any, **kwargs: Any) -> AgentResult:
        raise NotImplementedError

    async def digest_section(self, *args: Any, **kwargs: Any) -> AgentResult:
        raise NotImplementedError

    async def classify(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


class NoStore:
    """A knowledge search / log store the fake agents never read (any use fails the test)."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the fake agent's store was used: {name}")


def fakes(agent: FakeAgent) -> dict[str, Any]:
    """``create_app``/``build_services`` keyword arguments wiring the fake agent and no stores."""
    return {"agent": agent, "knowledge": NoStore(), "logs": NoStore()}


def make_services(settings: Settings, agent: FakeAgent, sessions: Any, **kwargs: Any) -> Services:
    """Services for tests: the fake agent, no stores, fast retries."""
    options: dict[str, Any] = {"retry_base_seconds": 0.02, **kwargs}
    return build_services(settings, sessions, **fakes(agent), **options)


def run_worker_until(
    settings: Settings,
    agent: FakeAgent,
    done: Callable[[], bool] | None = None,
    *,
    timeout: float = 20.0,
    **worker_options: Any,
) -> None:
    """Run a real worker (own engine and loop) until ``done()`` or, without it, until idle."""

    async def go() -> None:
        engine = create_engine(settings.database_url)
        services = make_services(settings, agent, create_session_factory(engine))
        worker = Worker(services, job_registry(), **{"poll_interval": 0.05, **worker_options})
        try:
            if done is None:
                await worker.run_until_idle()
                return
            await worker.start()
            deadline = time.monotonic() + timeout
            while not await asyncio.to_thread(done):
                if time.monotonic() > deadline:
                    raise AssertionError("the worker did not reach the expected state in time")
                await asyncio.sleep(0.05)
            await worker.stop()
        finally:
            await services.aclose()
            await engine.dispose()

    asyncio.run(go())


def fetch(settings: Settings, model: Any, *where: Any) -> list[Any]:
    """Rows of ``model`` matching ``where`` (a fresh engine each time)."""

    async def go() -> list[Any]:
        engine = create_engine(settings.database_url)
        try:
            async with create_session_factory(engine)() as session:
                return list((await session.scalars(select(model).where(*where))).all())
        finally:
            await engine.dispose()

    return asyncio.run(go())


def interaction_row(settings: Settings, interaction_id: str) -> Interaction:
    [row] = fetch(settings, Interaction, Interaction.id == interaction_id)
    return row


def jobs(settings: Settings, kind: str) -> list[Job]:
    return fetch(settings, Job, Job.kind == kind)


def usage(settings: Settings) -> list[UsageEvent]:
    return fetch(settings, UsageEvent)


def execute(settings: Settings, statement: Any) -> None:
    """Run one statement and commit (tests simulating time passing or a lost completion)."""

    async def go() -> None:
        engine = create_engine(settings.database_url)
        try:
            async with create_session_factory(engine)() as session:
                await session.execute(statement)
                await session.commit()
        finally:
            await engine.dispose()

    asyncio.run(go())
