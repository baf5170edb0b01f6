"""The test processes parse each route handler's signature once (tests/signature_memo.py)."""

from __future__ import annotations

import gc
import weakref

from litestar import Litestar
from litestar.handlers import HTTPRouteHandler
from litestar.utils.signature import ParsedSignature

from sleuth_shell.app import create_app
from sleuth_shell.config import Settings


def _signatures(app: Litestar) -> dict[str, ParsedSignature]:
    return {
        str(handler): handler.parsed_fn_signature
        for route in app.routes
        for handler in getattr(route, "route_handlers", [])
        # Closures (OPTIONS, OpenAPI, OTLP handlers) are new functions in every app.
        if isinstance(handler, HTTPRouteHandler) and "<locals>" not in str(handler)
    }


def test_apps_share_one_parse_of_each_handler(app: Litestar, settings: Settings) -> None:
    first = _signatures(app)
    second = _signatures(create_app(settings))
    assert first.keys() == second.keys()
    assert len(first) > 100
    assert [name for name, parsed in first.items() if second[name] is not parsed] == []


def _handler(value: Number) -> Number:  # type: ignore[name-defined]  # noqa: F821
    return value


def test_a_different_namespace_is_parsed_again() -> None:
    as_int = ParsedSignature.from_fn(_handler, {"Number": int})
    as_str = ParsedSignature.from_fn(_handler, {"Number": str})
    assert ParsedSignature.from_fn(_handler, {"Number": int}) is as_int
    assert as_int.parameters["value"].annotation is int
    assert as_str.parameters["value"].annotation is str
    assert as_str.return_type.annotation is str


def test_an_app_is_not_kept_alive_by_the_memo(settings: Settings) -> None:
    """The closures an app makes for itself (OPTIONS, OpenAPI, OTLP handlers) are not held by the
    memo: a test process that builds hundreds of apps frees each once its test is done."""
    marker = _Marker()
    first = create_app(settings)
    first.state.marker = marker
    alive = weakref.ref(marker)
    del first, marker
    # A module-level handler's ``owner`` is the last app that registered it: build another.
    create_app(settings)
    gc.collect()
    assert alive() is None


class _Marker:
    """Something only the first app's state refers to."""
