"""Fixtures for the in-process shell tests: a migrated database, the app, a client, factories."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
from litestar import Litestar
from litestar.testing import TestClient
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.ids import encode_global_id
from sleuth_shell import admin
from sleuth_shell.app import create_app
from sleuth_shell.config import Settings
from sleuth_shell.db import create_engine, create_session_factory, migrate
from sleuth_shell.db.models import (
    Interaction,
    Investigation,
    NotificationIntegration,
    Team,
    WebhookSubscription,
)
from sleuth_shell.statuses import InteractionStatus, InvestigationStatus

T = TypeVar("T")
PUBLIC_URL = "http://sleuth.test"

#: A Unix time for the ``clock`` of apps whose test counts requests in one rate-limit window: a
#: clock that never moves cannot cross a window's end between two requests (the system clock did,
#: once, between 13:41:59.998 and 13:42:00.001 in CI).
FIXED_NOW = 1_800_000_030.0


@dataclass
class OrgHandle:
    """An organization made for a test, with one API key."""

    id: int
    name: str
    plan: str
    key: str
    default_team_id: int

    @property
    def headers(self) -> dict[str, str]:
        """Request headers authenticating as this organization."""
        return {"X-Service-Org-Api-Key": self.key}


class Factory:
    """Creates rows directly in the test database (through the same code the CLI uses)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._count = 0

    def run(self, action: Callable[[AsyncSession], Awaitable[T]]) -> T:
        """Run ``action(session)`` on a fresh engine and return its result."""

        async def go() -> T:
            engine = create_engine(self.url)
            try:
                async with create_session_factory(engine)() as session:
                    return await action(session)
            finally:
                await engine.dispose()

        return asyncio.run(go())

    def org(
        self, name: str | None = None, *, plan: str = "free", admin_key: bool = False
    ) -> OrgHandle:
        """A new organization (with its Default team) and an API key for it."""
        self._count += 1
        name = name or f"org-{self._count}"

        async def go(session: AsyncSession) -> OrgHandle:
            org = await admin.create_org(session, name, plan)
            _, key = await admin.create_key(session, name, admin=admin_key)
            team = await admin._get_team(session, org, "Default")
            return OrgHandle(org.id, org.name, org.plan, key, team.id)

        return self.run(go)

    def key(self, org: OrgHandle, *, admin_key: bool = False, team: str | None = None) -> str:
        """Another API key of ``org``."""
        return self.run(lambda s: admin.create_key(s, org.name, admin=admin_key, team_name=team))[1]

    def team(self, org: OrgHandle, name: str) -> Team:
        """A new team in ``org``."""
        return self.run(lambda s: admin.create_team(s, org.name, name))

    def team_gid(self, team: Team) -> str:
        return encode_global_id("Team", team.id)

    def webhook(
        self, org: OrgHandle, type_: str = "PROVIDER_A", name: str = "hook"
    ) -> WebhookSubscription:
        """A new webhook subscription of ``org``."""
        return self.run(lambda s: admin.add_webhook(s, org.name, type_, name))

    def integration(
        self,
        org: OrgHandle,
        kind: str = "CHAT_ALERT",
        name: str = "alerts",
        *,
        url: str | None = None,
        channel: str | None = None,
    ) -> NotificationIntegration:
        """A new notification integration of ``org`` (defaults: chat channel C0ALERTS)."""
        if kind == "CHAT_ALERT" and channel is None:
            channel = "C0ALERTS"
        if kind == "ALT_WEBHOOK" and url is None:
            url = "https://alt.example.com/hook"
        return self.run(
            lambda s: admin.add_integration(s, org.name, kind, name, url=url, channel=channel)
        )

    def add(self, row: Any) -> Any:
        """Insert an ORM object as is (e.g. an investigation) and return it with its id."""

        async def go(session: AsyncSession) -> Any:
            session.add(row)
            await session.commit()
            return row

        return self.run(go)

    def investigation(
        self,
        org: OrgHandle,
        name: str,
        status: InvestigationStatus = InvestigationStatus.COMPLETED,
        **values: Any,
    ) -> Investigation:
        """An investigation of ``org`` in ``status`` (one of its kind's, as the column demands)."""
        row = Investigation(
            org_id=org.id,
            team_id=org.default_team_id,
            name=name,
            status=status,
            prompt=values.pop("prompt", "p"),
            **values,
        )
        return self.add(row)  # type: ignore[no-any-return]

    def interaction(
        self,
        org: OrgHandle,
        question: str,
        status: InteractionStatus = InteractionStatus.COMPLETED,
        **values: Any,
    ) -> Interaction:
        """An interaction of ``org`` in ``status``."""
        row = Interaction(org_id=org.id, question=question, status=status, **values)
        return self.add(row)  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database migrated once per test process, copied for each test that needs one."""
    path = tmp_path_factory.mktemp("template") / "migrated.db"
    migrate(f"sqlite:///{path}")
    return path


@pytest.fixture
def migrated_url(database_url: str, backend: str, sqlite_template: Path) -> str:
    """The test database, with every migration applied.

    On SQLite a copy of the once-migrated template (the SQLite backup API, so the copy is
    consistent whatever the template's journal mode); on PostgreSQL ``database_url`` already
    made it a copy of the once-migrated template database (tests/conftest.py).
    """
    if backend == "sqlite":
        target = database_url.removeprefix("sqlite:///")
        with sqlite3.connect(sqlite_template) as source, sqlite3.connect(target) as copy:
            source.backup(copy)
        source.close()
        copy.close()
    return database_url


@pytest.fixture
def settings(migrated_url: str) -> Settings:
    """Settings for the test app (loopback callbacks allowed, no inline worker)."""
    return Settings(
        database_url=migrated_url,
        public_url=PUBLIC_URL,
        allow_private_urls=True,
        workers_inline=False,
    )


@pytest.fixture
def app(settings: Settings) -> Litestar:
    """The application under test."""
    return create_app(settings)


@pytest.fixture
def client(app: Litestar) -> Iterator[TestClient[Litestar]]:
    """A test client for :func:`app` (lifespan hooks run)."""
    with TestClient(app=app, raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture
def factory(migrated_url: str) -> Factory:
    """Row factories for the test database."""
    return Factory(migrated_url)


@pytest.fixture
def org(factory: Factory) -> OrgHandle:
    """An organization with an API key."""
    return factory.org("acme")
