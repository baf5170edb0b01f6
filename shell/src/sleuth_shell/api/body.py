"""Request bodies: the checks every JSON body under ``/api/v1`` passes before a handler sees it.

:func:`check_request_body` runs as the ``/api/v1`` router's ``before_request`` hook (after the API
key guard, before Litestar decodes ``data``): a body that is not UTF-8, or that nests arrays and
objects more than :data:`MAX_JSON_DEPTH` levels deep, is 400 before any decoder recurses into it.
Handlers that read the body themselves decode it with :func:`decode_json_body` (msgspec, which also
refuses lone UTF-16 surrogate escapes such as ``"\\ud800"`` that no database can store).

The 400 detail is the route's ``invalid_body_detail`` option when it has one (``Invalid payload``
on ``POST /api/v1/interactions``, whose details SPEC fixes), else one of :data:`NOT_UTF8`,
:data:`TOO_DEEP` or :data:`NOT_JSON`. The same details answer a ``RecursionError`` or
``UnicodeError`` that still reaches the error boundary (:mod:`sleuth_shell.errors`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import msgspec
from litestar import Request
from litestar.enums import RequestEncodingType
from litestar.openapi.spec import OpenAPIMediaType, Operation, RequestBody, Schema
from litestar.params import Body

from sleuth_shell.errors import (
    INVALID_BODY_OPT,
    MAX_JSON_DEPTH,
    NOT_JSON,
    NOT_UTF8,
    TOO_DEEP,
    bad_request,
    invalid_body_detail,
)

__all__ = [
    "INVALID_BODY_OPT",
    "MAX_JSON_DEPTH",
    "NOT_JSON",
    "NOT_UTF8",
    "TOO_DEEP",
    "StrictBody",
    "check_request_body",
    "decode_json_body",
    "documented_json_body",
    "exceeds_depth",
    "invalid_body_detail",
]

T = TypeVar("T")

#: A JSON body of a ``forbid_unknown_fields`` struct, documented with ``additionalProperties:
#: false``; an unknown member is 400 ``Unknown field: <name>`` (:mod:`sleuth_shell.errors`).
StrictBody = Annotated[
    T,
    Body(media_type=RequestEncodingType.JSON, schema_extra={"additionalProperties": False}),
]

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
# A JSON string literal (escapes included); its brackets are text, not structure.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
# Every byte but the four structural brackets, deleted by ``bytes.translate``.
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
# Objects and arrays nest alike: fold ``{}`` onto ``[]``.
_FOLD = bytes.maketrans(b"{}", b"[]")


def exceeds_depth(raw: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the JSON text ``raw`` nests arrays/objects more than ``limit`` levels deep.

    Linear in the body per level and never recursive: string literals are dropped, the brackets
    kept, and each round deletes every innermost ``[]`` pair (one nesting level). Text that is not
    balanced JSON is left to the decoder to refuse.

    >>> exceeds_depth(b'{"a": [1, {"b": "[[[["}]}', limit=3), exceeds_depth(b"[[[[]]]]", limit=3)
    (False, True)
    """
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    brackets = _STRING.sub(b"", raw).translate(_FOLD, _NOT_BRACKET)
    for _ in range(limit):
        reduced = brackets.replace(b"[]", b"")
        if len(reduced) == len(brackets):  # unbalanced: not JSON, the decoder says so
            return False
        brackets = reduced
        if not brackets:
            return False
    return b"[]" in brackets


async def check_request_body(request: Request[Any, Any, Any]) -> None:
    """``before_request`` hook: 400 for a body that is not UTF-8 or nests too deeply."""
    if request.method not in _BODY_METHODS:
        return
    raw = await request.body()  # cached on the request: the handler's decoding reuses it
    if not raw:
        return
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        raise bad_request(invalid_body_detail(request, NOT_UTF8)) from None
    if exceeds_depth(raw):
        raise bad_request(invalid_body_detail(request, TOO_DEEP))


def documented_json_body(schema: Schema, description: str) -> type[Operation]:
    """An ``operation_class`` documenting a JSON request body of ``schema`` for a handler that
    reads and validates its body itself (so its 400 details name the bad item, e.g.
    ``records[3].kind: ...``, instead of the generic decoder's)."""

    @dataclass
    class JsonBodyOperation(Operation):
        def __post_init__(self) -> None:
            if self.request_body is None:
                self.request_body = RequestBody(
                    content={"application/json": OpenAPIMediaType(schema=schema)},
                    description=description,
                    required=True,
                )

    return JsonBodyOperation


def decode_json_body(raw: bytes, *, not_json: str = NOT_JSON) -> Any:
    """The decoded JSON ``raw`` (``None`` for an empty body); ``ValueError`` naming the problem
    (``not_json`` for text that is not JSON).

    Refuses what :func:`check_request_body` refuses (for callers outside the router) plus
    malformed JSON, numbers out of range and lone surrogate escapes.
    """
    if not raw.strip():
        return None
    if exceeds_depth(raw):
        raise ValueError(TOO_DEEP)
    try:
        return msgspec.json.decode(raw)
    except UnicodeError:
        raise ValueError(NOT_UTF8) from None
    except RecursionError:
        raise ValueError(TOO_DEEP) from None
    except msgspec.DecodeError:
        raise ValueError(not_json) from None
