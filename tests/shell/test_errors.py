"""Core errors are mapped to HTTP in one place, and every class is mapped."""

from __future__ import annotations

import pytest
from litestar import get
from litestar.testing import TestClient

from sleuth_core import errors as core_errors
from sleuth_shell.app import create_app
from sleuth_shell.errors import CORE_ERROR_STATUS


def _all_subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found.append(sub)
        found.extend(_all_subclasses(sub))
    return found


def test_every_core_error_is_mapped() -> None:
    unmapped = [
        cls.__name__
        for cls in _all_subclasses(core_errors.CoreError)
        if cls not in CORE_ERROR_STATUS
    ]
    assert unmapped == []


@pytest.mark.parametrize("cls", [core_errors.CoreError, *_all_subclasses(core_errors.CoreError)])
def test_core_errors_answer_their_status_and_message(settings, cls: type) -> None:
    @get("/raise")
    async def raise_it() -> None:
        raise cls(f"{cls.__name__}: bad value")

    app = create_app(settings)
    app.register(raise_it)
    with TestClient(app=app) as client:
        response = client.get("/raise")
    # Input errors are 400; agent output the core refuses is the server's fault (502).
    expected = 502 if cls is core_errors.InvalidSources else 400
    assert response.status_code == CORE_ERROR_STATUS[cls] == expected
    assert response.json() == {"detail": f"{cls.__name__}: bad value"}


def _locked_write(path: str) -> None:
    """A real write refused with ``database is locked``: another connection holds the write
    lock and this one waits for it no time at all."""
    import sqlite3

    import sqlalchemy

    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE IF NOT EXISTS t (x INTEGER)")
    holder.execute("BEGIN IMMEDIATE")
    engine = sqlalchemy.create_engine(f"sqlite:///{path}", connect_args={"timeout": 0})
    try:
        with engine.begin() as connection:
            connection.execute(sqlalchemy.text("INSERT INTO t VALUES (1)"))
    finally:
        engine.dispose()
        holder.execute("ROLLBACK")
        holder.close()


def test_a_database_locked_past_its_wait_is_503_with_retry_after(settings, tmp_path) -> None:
    from sleuth_shell.errors import RETRY_AFTER_SECONDS

    @get("/locked")
    async def locked() -> None:
        _locked_write(str(tmp_path / "busy.sqlite"))

    app = create_app(settings)
    app.register(locked)
    with TestClient(app=app) as client:
        response = client.get("/locked")
        page = client.get("/locked", headers={"accept": "text/html"})
    assert response.status_code == 503
    assert response.json() == {"detail": "The database is busy; retry in a few seconds"}
    assert response.headers["retry-after"] == str(RETRY_AFTER_SECONDS)
    assert page.status_code == 503 and "Busy for a moment" in page.text


def test_a_wrong_statement_stays_a_500(settings, tmp_path) -> None:
    import sqlalchemy

    @get("/wrong")
    async def wrong() -> None:
        engine = sqlalchemy.create_engine(f"sqlite:///{tmp_path / 'x.sqlite'}")
        try:
            with engine.begin() as connection:
                connection.execute(sqlalchemy.text("INSERT INTO missing VALUES (1)"))
        finally:
            engine.dispose()

    app = create_app(settings)
    app.register(wrong)
    with TestClient(app=app) as client:
        response = client.get("/wrong")
    assert response.status_code == 500
    assert response.json() == {"detail": "Internal server error"}
    assert "retry-after" not in response.headers
