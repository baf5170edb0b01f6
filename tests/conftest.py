"""Fixtures shared by the shell and end-to-end suites: clean environment and per-test databases.

``database_url`` gives each test its own empty database: a SQLite file in ``tmp_path`` by default,
or a fresh PostgreSQL database (created on the server named by ``SLEUTH_TEST_POSTGRES_URL`` and
dropped afterwards) when the test carries the ``storage`` marker::

    @pytest.mark.storage
    def test_round_trip(database_url): ...

Storage-suite tests run once per back end; the PostgreSQL run is marked ``postgres`` and skipped
when ``SLEUTH_TEST_POSTGRES_URL`` is unset.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

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
    config.addinivalue_line(
        "markers",
        "storage: the storage suite, run against SQLite and (when configured) PostgreSQL",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run every ``storage``-marked test once per back end."""
    if metafunc.definition.get_closest_marker("storage") and "backend" in metafunc.fixturenames:
        metafunc.parametrize("backend", _BACKENDS, indirect=True)


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


@pytest.fixture
def database_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database for this test (not migrated)."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'sleuth.db'}"
        return
    server = os.environ[POSTGRES_URL_ENV]
    name = f"sleuth_test_{uuid.uuid4().hex[:16]}"
    _admin_pg(server, f'CREATE DATABASE "{name}"')
    base, _, _ = server.rpartition("/")
    try:
        yield f"{base}/{name}"
    finally:
        _admin_pg(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
