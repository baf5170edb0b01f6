"""One parse of each route handler's signature per test process, however many apps the tests build.

Litestar copies every route handler when an app registers it, and each copy parses its function's
signature again (``ParsedSignature.from_fn``: ``inspect.signature`` plus ``get_type_hints`` on the
string annotations). A process builds one app, so the product pays this once; the in-process
tests build one app per test (about 580 in a run) and paid it every time: about a third of
``create_app``'s CPU (docs/performance.md, "Suite time: create_app").

``from_fn`` depends only on the function (its code, annotations and module globals, fixed once
imported) and on the signature namespace, and returns a frozen ``ParsedSignature`` that Litestar
never modifies, so :func:`memoized_from_fn` returns the first result for the same function (or
method of the same function: a controller's handlers are bound to a new instance in every app)
and a namespace holding the same objects. The cache holds the function and the namespace's values,
so an ``id`` in a key is never reused by another object. Functions defined inside a function
(``<locals>``, the closures an app makes for itself) are parsed each time and never held: they
are new in every app, and holding one would keep its app alive.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import MethodType
from typing import Any

import pytest
from litestar.utils.signature import ParsedSignature

_Key = tuple[Callable[..., Any], bool, tuple[tuple[str, int], ...]]

_parse: Callable[[Callable[..., Any], dict[str, Any]], ParsedSignature] = ParsedSignature.from_fn
_cache: dict[_Key, tuple[ParsedSignature, Callable[..., Any], list[Any]]] = {}


def memoized_from_fn(
    cls: type[ParsedSignature], fn: Callable[..., Any], signature_namespace: dict[str, Any]
) -> ParsedSignature:
    """``ParsedSignature.from_fn``, parsed once per function and namespace."""
    # A controller's handler is a method bound to the controller each app makes: its parse is its
    # function's without the first parameter, whatever the instance.
    function = fn.__func__ if isinstance(fn, MethodType) else fn
    if "<locals>" in function.__qualname__:
        # A function made by a call (the OPTIONS, OpenAPI and OTLP handlers each app makes) is new
        # in every app, so it is never met again; kept here, its closure would keep its app (and
        # the app's routes, about 20,000 objects) alive for the rest of the run.
        return _parse(fn, signature_namespace)
    names = tuple(sorted((name, id(value)) for name, value in signature_namespace.items()))
    key = (function, isinstance(fn, MethodType), names)
    hit = _cache.get(key)
    if hit is None:
        parsed = _parse(fn, signature_namespace)
        # Keep the function and the namespace's values alive: their ids stay theirs.
        _cache[key] = (parsed, function, list(signature_namespace.values()))
        return parsed
    return hit[0]


@contextmanager
def memoized_signatures() -> Iterator[None]:
    """Install :func:`memoized_from_fn` as ``ParsedSignature.from_fn`` while the block runs."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ParsedSignature, "from_fn", classmethod(memoized_from_fn))
        yield
