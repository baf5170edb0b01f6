"""Fixtures for the in-process shell tests: a migrated database, the app, a client, factories."""

from __future__ import annotations

import asyncio
import itertools
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
#: Where the app keeps its rate limiter (``sleuth_shell.ratelimit.rate_limiter_of``).
RATE_LIMITER_STATE = "rate_limiter"
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
    """Creates rows directly in the test database (through the same code the CLI uses).

    With ``names`` (a module's shared database, :class:`SharedApps`) every organization's name
    ends in the next of those numbers (``acme-7``), so tests sharing the database never meet.
    """

    def __init__(self, url: str, *, names: Iterator[int] | None = None) -> None:
        self.url = url
        self._count = 0
        self._names = names

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
        if self._names is not None:
            name = f"{name}-{next(self._names)}"

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


class SharedApps:
    """One app and migrated database per back end, shared by the tests of a ``shared_app`` module.

    Building an app costs a test 0.2-0.4 s of CPU (Litestar registers every route handler anew;
    docs/performance.md), while the product isolates tenants by organization, not by database:
    the tests of a module marked ``shared_app`` use one app, one running client (lifespan hooks
    run once) and one migrated database per back end, and each makes its own organizations
    (:class:`Factory` gives them names no other test of the module uses). Per test the client
    forgets its cookies and the app its rate-limit counters, as a new app would.
    """

    def __init__(self, request: pytest.FixtureRequest, directory: Path) -> None:
        self._request = request
        self._directory = directory
        self._databases: dict[str, str] = {}
        self._apps: dict[tuple[str, str], tuple[str, Litestar, TestClient[Litestar]]] = {}
        self._postgres: list[str] = []
        self.names = itertools.count(1)
        """Numbers that make the module's organization names unique."""

    def get(
        self,
        backend: str,
        name: str = "app",
        build: Callable[[Settings], Litestar] = create_app,
    ) -> tuple[str, Litestar, TestClient[Litestar]]:
        """``(database URL, app, running client)`` of ``backend``, made on first use. A module may
        share other apps on the same database (``name``, ``build``: e.g. one with stand-ins)."""
        if (backend, name) not in self._apps:
            url = self.url(backend)
            app = build(
                Settings(
                    database_url=url,
                    public_url=PUBLIC_URL,
                    allow_private_urls=True,
                    workers_inline=False,
                )
            )
            client = TestClient(app=app, raise_server_exceptions=False)
            client.__enter__()
            self._apps[backend, name] = (url, app, client)
        return self._apps[backend, name]

    def url(self, backend: str) -> str:
        """The module's migrated database of ``backend``, made on first use."""
        if backend not in self._databases:
            self._databases[backend] = self._database(backend)
        return self._databases[backend]

    def _database(self, backend: str) -> str:
        if backend == "sqlite":
            template: Path = self._request.getfixturevalue("sqlite_template")
            target = self._directory / "shared.db"
            with sqlite3.connect(template) as source, sqlite3.connect(target) as copy:
                source.backup(copy)
            source.close()
            copy.close()
            return f"sqlite:///{target}"
        databases = self._request.getfixturevalue("postgres_databases")
        name = databases.take(self._request.getfixturevalue("postgres_template"))
        self._postgres.append(name)
        return f"{databases.base}/{name}"

    def close(self) -> None:
        for _url, _app, client in self._apps.values():
            client.__exit__(None, None, None)
        if self._postgres:
            databases = self._request.getfixturevalue("postgres_databases")
            for name in self._postgres:
                databases.give_back(name)


@pytest.fixture(scope="module")
def shared_apps(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SharedApps]:
    """The apps of a ``shared_app`` module (see :class:`SharedApps`)."""
    apps = SharedApps(request, tmp_path_factory.mktemp("shared"))
    try:
        yield apps
    finally:
        apps.close()


def _shared(request: pytest.FixtureRequest) -> SharedApps | None:
    """The module's :class:`SharedApps`, unless the test has its own app (``own_app``)."""
    marks = request.node
    if marks.get_closest_marker("shared_app") is None or marks.get_closest_marker("own_app"):
        return None
    apps: SharedApps = request.getfixturevalue("shared_apps")
    return apps


@pytest.fixture
def migrated_url(backend: str, request: pytest.FixtureRequest) -> str:
    """The test database, with every migration applied.

    On SQLite a copy of the once-migrated template (the SQLite backup API, so the copy is
    consistent whatever the template's journal mode); on PostgreSQL ``database_url`` already
    made it a copy of the once-migrated template database (tests/conftest.py). In a
    ``shared_app`` module, the module's database of this back end (:class:`SharedApps`).
    """
    shared = _shared(request)
    if shared is not None:
        return shared.url(backend)
    database_url: str = request.getfixturevalue("database_url")
    if backend == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        target = database_url.removeprefix("sqlite:///")
        with sqlite3.connect(template) as source, sqlite3.connect(target) as copy:
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
def app(settings: Settings, backend: str, request: pytest.FixtureRequest) -> Litestar:
    """The application under test (in a ``shared_app`` module, the module's)."""
    shared = _shared(request)
    if shared is not None:
        return shared.get(backend)[1]
    return create_app(settings)


@pytest.fixture
def client(
    app: Litestar, backend: str, request: pytest.FixtureRequest
) -> Iterator[TestClient[Litestar]]:
    """A test client for :func:`app` (lifespan hooks run); in a ``shared_app`` module the
    module's running client, without the previous test's cookies and rate-limit counts."""
    test_client = shared_client(request, backend)
    if test_client is not None:
        yield test_client
        return
    with TestClient(app=app, raise_server_exceptions=False) as test_client:
        yield test_client


def shared_client(
    request: pytest.FixtureRequest,
    backend: str,
    name: str = "app",
    build: Callable[[Settings], Litestar] = create_app,
) -> TestClient[Litestar] | None:
    """In a ``shared_app`` test, the module's running client of app ``name`` (see
    :meth:`SharedApps.get`), without the previous test's cookies and rate-limit counts; else
    ``None``."""
    shared = _shared(request)
    if shared is None:
        return None
    test_client = shared.get(backend, name, build)[2]
    test_client.cookies.clear()
    test_client.app.state.pop(RATE_LIMITER_STATE, None)
    return test_client


@pytest.fixture
def factory(migrated_url: str, request: pytest.FixtureRequest) -> Factory:
    """Row factories for the test database (in a ``shared_app`` module, organization names no
    other test of the module uses)."""
    shared = _shared(request)
    return Factory(migrated_url, names=shared.names if shared is not None else None)


@pytest.fixture
def org(factory: Factory) -> OrgHandle:
    """An organization with an API key."""
    return factory.org("acme")
