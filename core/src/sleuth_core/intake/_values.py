"""Defensive readers for untrusted JSON: every helper accepts any JSON value and never raises.

Provider bodies are real captures with nulls where a string is documented, numbers where a string
is usual, and several date formats; these helpers turn whatever arrives into plain ``str``,
``tuple[str, ...]`` or aware UTC ``datetime`` values, or into "nothing" (``""``, ``()``, ``None``).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from sleuth_core.errors import InvalidAlertPayload
from sleuth_core.language import parse_iso

#: Longest title an adapter returns (an investigation's ``name``, DESIGN 4 "Statuses").
MAX_TITLE_LENGTH = 200
#: Cap on the ``key: value`` part of a match text (the raw body is appended after it, uncapped).
MAX_FIELDS_LENGTH = 8_000

_SPACE = re.compile(r"\s+")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def load_object(body: bytes | str, source: str) -> tuple[dict[str, Any], str]:
    """Parse ``body`` as a JSON object; returns it with the body decoded as text.

    Raises :class:`InvalidAlertPayload` for bytes that are not UTF-8, text that is not JSON, and
    JSON that is not an object.
    """
    value, raw = load_json(body)
    if not isinstance(value, dict):
        raise InvalidAlertPayload(f"{source} payload must be a JSON object")
    return value, raw


def load_json(body: bytes | str) -> tuple[Any, str]:
    """Parse ``body`` as JSON (any value); returns it with the body decoded as text.

    Raises :class:`InvalidAlertPayload` for bytes that are not UTF-8 and text that is not JSON.
    """
    if isinstance(body, bytes | bytearray):
        try:
            raw = bytes(body).decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidAlertPayload("Request body is not valid JSON") from None
    else:
        raw = body
    try:
        return json.loads(raw), raw
    except (ValueError, RecursionError):
        raise InvalidAlertPayload("Request body is not valid JSON") from None


def body_digest(body: bytes | str) -> str:
    """``sha256:<hex>`` of the raw body: the delivery id of providers that send none."""
    data = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    return "sha256:" + hashlib.sha256(data).hexdigest()


def obj(value: object) -> Mapping[str, Any]:
    """``value`` if it is a JSON object, else an empty mapping."""
    return value if isinstance(value, dict) else {}


def get(value: object, *path: str) -> object:
    """Walk ``path`` through nested objects; ``None`` as soon as a step is not an object."""
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def text(value: object) -> str:
    """A JSON scalar as normalised one-line text (strings, numbers); ``""`` for anything else."""
    if isinstance(value, str):
        return _SPACE.sub(" ", value).strip()
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    return ""


def first_text(*values: object) -> str:
    """The first of ``values`` with non-empty :func:`text`."""
    for value in values:
        found = text(value)
        if found:
            return found
    return ""


def texts(value: object, *keys: str) -> tuple[str, ...]:
    """Non-empty texts of an array: its scalars, or ``keys`` (first present) of its objects."""
    if not isinstance(value, list):
        return ()
    found: list[str] = []
    for item in value:
        item_text = first_text(*(get(item, key) for key in keys)) if keys else text(item)
        if item_text:
            found.append(item_text)
    return tuple(found)


def labels(value: object) -> tuple[str, ...]:
    """Labels as ``key:value`` strings: an object, or a list of strings or ``{key, value}``."""
    if isinstance(value, dict):
        return tuple(f"{text(k)}:{text(v)}" if text(v) else text(k) for k, v in value.items())
    if isinstance(value, list):
        found: list[str] = []
        for item in value:
            if isinstance(item, dict):
                key, item_value = text(item.get("key")), text(item.get("value"))
                entry = f"{key}:{item_value}" if key and item_value else key or item_value
            else:
                entry = text(item)
            if entry:
                found.append(entry)
        return tuple(found)
    return ()


def title_of(*candidates: object, fallback: str) -> str:
    """The first non-empty candidate, whitespace collapsed, cut to :data:`MAX_TITLE_LENGTH`."""
    return (first_text(*candidates) or fallback)[:MAX_TITLE_LENGTH].rstrip()


def parse_time(value: object) -> datetime | None:
    """An aware UTC datetime from what providers send, or ``None`` when it is not a time.

    Accepts ISO 8601 (``Z``, offsets, fractions; naive means UTC), ``YYYY-MM-DD HH:MM:SS UTC``
    and epoch numbers or numeric strings, read as seconds, milliseconds or nanoseconds by
    magnitude (below 1e11 seconds, below 1e14 milliseconds, else nanoseconds).
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return _from_epoch(value)
    if not isinstance(value, str):
        return None
    candidate = value.strip()
    if not candidate:
        return None
    try:
        number = Decimal(candidate)
    except InvalidOperation:
        pass
    else:  # exact decimal arithmetic: "1719209506.817929" keeps its microseconds
        return _from_epoch(number)
    if candidate.upper().endswith(" UTC"):
        candidate = candidate[:-4].rstrip() + "+00:00"
    return parse_iso(candidate)


def _from_epoch(number: float | Decimal) -> datetime | None:
    try:
        exact = Decimal(number)
        if not exact.is_finite():
            return None
        magnitude = abs(exact)
        if magnitude >= 10**20:  # beyond any nanosecond time; keeps int() below cheap
            return None
        scale = 1 if magnitude < 10**11 else 10**3 if magnitude < 10**14 else 10**9
        micros = int((exact * 10**6 / scale).to_integral_value())
        return _EPOCH + timedelta(microseconds=micros)
    except (OverflowError, ArithmeticError, ValueError):
        return None


def first_time(*values: object) -> datetime | None:
    """The first of ``values`` that :func:`parse_time` reads."""
    for value in values:
        parsed = parse_time(value)
        if parsed is not None:
            return parsed
    return None


def match_text(title: str, fields: Iterable[tuple[str, str]], raw: str) -> str:
    """The text criteria are matched against (INTEGRATIONS 8.1, DESIGN 4 "Matching").

    The title on the first line, then one ``key: value`` line per non-empty field in the given
    order (whitespace collapsed, this part capped at :data:`MAX_FIELDS_LENGTH` characters), then
    a blank line and the raw body exactly as received.
    """
    lines = [title]
    lines.extend(f"{key}: {value}" for key, value in fields if value)
    head = "\n".join(lines)[:MAX_FIELDS_LENGTH]
    return f"{head}\n\n{raw}"
