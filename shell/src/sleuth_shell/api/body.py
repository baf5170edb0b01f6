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

from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from litestar import Request
from litestar.enums import RequestEncodingType
from litestar.openapi.spec import OpenAPIMediaType, Operation, RequestBody, Schema
from litestar.params import Body

from sleuth_shell.errors import INVALID_BODY_OPT, bad_request, invalid_body_detail
from sleuth_shell.json_body import (
    MAX_JSON_DEPTH,
    NOT_JSON,
    NOT_UTF8,
    TOO_DEEP,
    decode_json_body,
    exceeds_depth,
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
