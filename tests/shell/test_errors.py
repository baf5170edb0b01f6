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
