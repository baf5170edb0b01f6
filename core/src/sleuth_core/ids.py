"""Relay-style Global IDs: standard base64 of ``"<Type>:<integer pk>"``.

>>> encode_global_id("AlertResponder", 7)
'QWxlcnRSZXNwb25kZXI6Nw=='
>>> decode_global_id("QWxlcnRSZXNwb25kZXI6Nw==", "AlertResponder")
7
>>> decode_global_id("QWxlcnRSZXNwb25kZXI6Nw==", "Digest") is None
True
"""

from __future__ import annotations

import base64
import binascii
from functools import lru_cache

__all__ = ["decode_global_id", "encode_global_id"]

_MAX_LEN = 256
#: How many (string, type) answers :func:`decode_global_id` keeps.
DECODED_CACHE_SIZE = 4096


def encode_global_id(type_name: str, pk: int) -> str:
    """Return the Global ID of the object of type ``type_name`` with primary key ``pk``."""
    if not type_name or ":" in type_name:
        raise ValueError(f"invalid type name: {type_name!r}")
    if isinstance(pk, bool) or not isinstance(pk, int) or pk < 0:
        raise ValueError(f"invalid primary key: {pk!r}")
    return base64.b64encode(f"{type_name}:{pk}".encode()).decode("ascii")


def decode_global_id(value: object, type_name: str) -> int | None:
    """Return the primary key inside ``value`` if it is a Global ID of ``type_name``, else None.

    Junk, a wrong type, non-canonical encodings and anything malformed give None; it never raises.
    The answers for the last :data:`DECODED_CACHE_SIZE` strings are memoised (a pure function of
    the string: an API path's ID is decoded on every request naming it).
    """
    if not isinstance(value, str) or not value or len(value) > _MAX_LEN:
        return None
    return _decode(value, type_name)


@lru_cache(maxsize=DECODED_CACHE_SIZE)
def _decode(value: str, type_name: str) -> int | None:
    try:
        raw = base64.b64decode(value.encode("ascii"), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, UnicodeError, ValueError):
        return None
    kind, sep, number = text.partition(":")
    if not sep or kind != type_name or not number.isascii() or not number.isdigit():
        return None
    pk = int(number)
    # Only the canonical form names the object: no leading zeros, no re-padded variants.
    if encode_global_id(type_name, pk) != value:
        return None
    return pk
