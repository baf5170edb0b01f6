"""Fixtures shared by the shell and end-to-end suites: clean environment and per-test databases.

``database_url`` gives each test its own empty database: a SQLite file in ``tmp_path`` by default,
or a fresh PostgreSQL database (created on the server named by ``SLEUTH_TEST_POSTGRES_URL`` and
dropped afterwards) when the test carries the ``storage`` marker::

    @pytest.mark.storage
    def test_round_trip(database_url): ...

Storage-suite tests run once per back end; the PostgreSQL run is marked ``postgres`` and skipped
when ``SLEUTH_TEST_POSTGRES_URL`` is unset.

A test that asks for ``migrated_url`` (tests/shell/conftest.py) gets a migrated database: on
SQLite a copy of a file migrated once per test process, on PostgreSQL a database created with
``CREATE DATABASE ... TEMPLATE`` from one migrated once per test process (the same schema the
migrations build, without running them again for every test). The PostgreSQL databases are made
one test ahead and dropped after the test, both on a background thread, so a test does not wait
for PostgreSQL's file copies and checkpoints; a failed drop fails the run at the end.

A module marked ``shared_app`` (``pytestmark = pytest.mark.shared_app``) shares one app, running
client and migrated database per back end between its tests instead, each test making its own
organizations (tests/shell/conftest.py, ``SharedApps``); a test of such a module that needs its
own database is marked ``own_app``.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from signature_memo import memoized_signatures

from sleuth_shell.gc_tuning import OLDER_THRESHOLDS, YOUNG_THRESHOLD

# Property tests are about correctness, never speed: no per-example deadline (a loaded CI
# machine must not fail them), and in CI a fixed derivation of examples so a run is repeatable.
settings.register_profile(
    "sleuth", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile("sleuth-ci", parent=settings.get_profile("sleuth"), derandomize=True)
settings.load_profile("sleuth-ci" if os.environ.get("CI") else "sleuth")

POSTGRES_URL_ENV = "SLEUTH_TEST_POSTGRES_URL"

_BACKENDS = [
    "sqlite",
    pytest.param(
        "postgresql",
        marks=[
            pytest.mark.postgres,
            pytest.mark.skipif(
                not os.environ.get(POSTGRES_URL_ENV), reason=f"{POSTGRES_URL_ENV} is not set"
            ),
        ],
    ),
]


def pytest_configure(config: pytest.Config) -> None:
    # The serving processes' collector thresholds (sleuth_shell.gc_tuning): with the interpreter's
    # defaults a young pass runs every 700 container allocations, and the passes over the older
    # generations, which walk the whole heap of a long test process, took a quarter of its CPU.
    # Cycles are still collected (less often); nothing is frozen.
    gc.set_threshold(YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
    config.addinivalue_line(
        "markers",
        "storage: the storage suite, run against SQLite and (when configured) PostgreSQL",
    )
    config.addinivalue_line(
        "markers",
        "shared_app: the module's tests share one app and migrated database per back end, "
        "each test with its own organizations (tests/shell/conftest.py, SharedApps)",
    )
    config.addinivalue_line(
        "markers",
        "own_app: in a shared_app module, this test gets its own app and migrated database",
    )
    # pytest-xdist registers it too; this keeps --strict-markers happy when xdist is off.
    config.addinivalue_line(
        "markers", "xdist_group(name): run these tests on one xdist worker (--dist loadgroup)"
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Make ``--dist loadgroup`` keep an ``xdist_group`` on one worker under pytest 9.

    pytest-xdist (3.8) tells its scheduler about a group by renaming each marked test on the
    worker to ``<nodeid>@<group>``, through ``item._nodeid``; pytest 9 reads the nodeid from
    ``item._id`` instead, so the renaming is lost and a group is spread over the workers like any
    other tests (its module-scoped fixtures then set up once per worker). This does the same
    renaming where pytest 9 reads it; it does nothing when the nodeid already has the suffix.
    """
    if not getattr(config.option, "loadgroup", False):
        return
    from _pytest.nodeid import NodeId

    for item in items:
        groups = {
            str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
            for mark in item.iter_markers("xdist_group")
        }
        if groups and "@" not in item.nodeid:
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(sorted(groups))}")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run every ``storage``-marked test once per back end."""
    if metafunc.definition.get_closest_marker("storage") and "backend" in metafunc.fixturenames:
        metafunc.parametrize("backend", _BACKENDS, indirect=True)


@pytest.fixture(scope="session", autouse=True)
def parse_handler_signatures_once() -> Iterator[None]:
    """Each route handler's signature is parsed once per process, not once per app the tests
    build (tests/signature_memo.py)."""
    with memoized_signatures():
        yield


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``SLEUTH_*`` setting leaks from the developer's shell into a test."""
    for name in list(os.environ):
        if name.startswith("SLEUTH_") and not name.startswith("SLEUTH_TEST_"):
            monkeypatch.delenv(name)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """``sqlite``, or each back end in turn for ``storage``-marked tests."""
    return getattr(request, "param", "sqlite")


def _admin_pg(url: str, statement: str) -> None:
    import asyncpg

    async def run() -> None:
        connection = await asyncpg.connect(url)
        try:
            await connection.execute(statement)
        finally:
            await connection.close()

    asyncio.run(run())


class _PostgresDatabases:
    """Fresh PostgreSQL databases for one test process, made and dropped on a background thread.

    ``take(template)`` returns the name of a new database (empty, or a copy of ``template``) that
    was created while the previous test ran, and starts creating the next one; ``give_back``
    queues the drop. ``close`` drops what is left and raises the first error any of it had.
    """

    def __init__(self, server: str) -> None:
        self.server = server
        self.base = server.rpartition("/")[0]
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pg-databases")
        self._ahead: dict[str | None, Future[str]] = {}
        self._drops: list[Future[None]] = []
        self._lock = threading.Lock()

    def _create(self, template: str | None) -> str:
        name = f"sleuth_test_{uuid.uuid4().hex[:16]}"
        clause = f' TEMPLATE "{template}"' if template else ""
        _admin_pg(self.server, f'CREATE DATABASE "{name}"{clause}')
        return name

    def _drop(self, name: str) -> None:
        _admin_pg(self.server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def take(self, template: str | None = None) -> str:
        with self._lock:
            ready = self._ahead.pop(template, None)
            name = ready.result() if ready is not None else self._create(template)
            self._ahead[template] = self._thread.submit(self._create, template)
        return name

    def give_back(self, name: str) -> None:
        with self._lock:
            self._drops.append(self._thread.submit(self._drop, name))

    def drop_now(self, name: str) -> None:
        """Drop a database at once (a template: no copy of it may be under way)."""
        with self._lock:
            for ahead in self._ahead.values():
                with_error = ahead.exception()
                if with_error is None:
                    self._drops.append(self._thread.submit(self._drop, ahead.result()))
            self._ahead.clear()
            for drop in self._drops:
                drop.exception()
        self._drop(name)

    def close(self) -> None:
        with self._lock:
            for ahead in self._ahead.values():
                if ahead.exception() is None:
                    self._drops.append(self._thread.submit(self._drop, ahead.result()))
            self._ahead.clear()
            self._thread.shutdown(wait=True)
            errors = [e for f in self._drops if (e := f.exception()) is not None]
        if errors:
            raise errors[0]


@pytest.fixture(scope="session")
def postgres_databases() -> Iterator[_PostgresDatabases]:
    """This test process's PostgreSQL databases (see :class:`_PostgresDatabases`)."""
    databases = _PostgresDatabases(os.environ[POSTGRES_URL_ENV])
    try:
        yield databases
    finally:
        databases.close()


@pytest.fixture(scope="session")
def postgres_template(postgres_databases: _PostgresDatabases) -> Iterator[str]:
    """A PostgreSQL database migrated once per test process: the template of migrated ones."""
    from sleuth_shell.db import migrate

    name = postgres_databases._create(None)
    try:
        migrate(f"{postgres_databases.base}/{name}")
        yield name
    finally:
        postgres_databases.drop_now(name)


@pytest.fixture
def database_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh database for this test: empty, or (when the test uses ``migrated_url``) migrated
    on PostgreSQL, a copy of :func:`postgres_template`."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'sleuth.db'}"
        return
    databases: _PostgresDatabases = request.getfixturevalue("postgres_databases")
    template = None
    if "migrated_url" in request.fixturenames:
        template = request.getfixturevalue("postgres_template")
    name = databases.take(template)
    try:
        yield f"{databases.base}/{name}"
    finally:
        databases.give_back(name)


@pytest.fixture(scope="session")
def prometheus_incident(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, Any]]:
    """Debian's Prometheus holding the incident of ``prometheus_harness`` (one per test
    process: its tests share the ``prometheus`` xdist group): ``(base URL, alert time)``."""
    from prometheus_harness import alert_time, incident_openmetrics, prometheus

    fired = alert_time()
    with prometheus(tmp_path_factory.mktemp("prometheus"), incident_openmetrics(fired)) as url:
        yield url, fired
