"""JSON request bodies before any decoder recurses into them: the depth check and the one decoding
every reader of a raw body uses (the API's body hook and handlers, the MCP endpoint).

A body that is not UTF-8, that nests arrays and objects more than :data:`MAX_JSON_DEPTH` levels
deep, that is not JSON, or that holds a lone UTF-16 surrogate escape (``"\\ud800"``, which no
database can store) is refused with one of the details below.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

__all__ = [
    "MAX_JSON_DEPTH",
    "NOT_JSON",
    "NOT_UTF8",
    "SURROGATE",
    "TOO_DEEP",
    "decode_json_body",
    "exceeds_depth",
]

#: Deepest accepted nesting of arrays and objects in a request body (see docs/decisions.md).
MAX_JSON_DEPTH = 32
NOT_UTF8 = "Invalid request body: not valid UTF-8 text"
TOO_DEEP = f"Invalid request body: nested more than {MAX_JSON_DEPTH} levels deep"
NOT_JSON = "Invalid request body: not valid JSON"
SURROGATE = "Invalid request body: a lone UTF-16 surrogate escape"

# A JSON string literal (escapes included); its brackets are text, not structure.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
# A high surrogate escape without its low half, or a low one without its high half.
_LONE_SURROGATE = re.compile(
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)
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


def decode_json_body(raw: bytes, *, not_json: str = NOT_JSON, surrogate: str | None = None) -> Any:
    """The decoded JSON ``raw`` (``None`` for an empty body); ``ValueError`` naming the problem
    (``not_json`` for text that is not JSON, and for a lone surrogate escape unless
    ``surrogate`` names that).

    Refuses what :func:`sleuth_shell.api.body.check_request_body` refuses (for callers outside
    the API router) plus
    malformed JSON, numbers out of range and lone surrogate escapes.
    """
    if not raw.strip():
        return None
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(NOT_UTF8) from None
    if exceeds_depth(raw):
        raise ValueError(TOO_DEEP)
    try:
        return msgspec.json.decode(raw)
    except UnicodeError:
        raise ValueError(NOT_UTF8) from None
    except RecursionError:
        raise ValueError(TOO_DEEP) from None
    except msgspec.DecodeError:
        if surrogate is not None and _LONE_SURROGATE.search(raw):
            raise ValueError(surrogate) from None
        raise ValueError(not_json) from None
