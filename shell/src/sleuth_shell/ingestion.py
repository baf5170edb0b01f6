"""What every ingestion request body shares (logs, change records, metric series): the error that
becomes the 400 detail, the envelope ``{"<member>": [items]}`` with its size limit, and the check
of a text member.

>>> envelope_items({"records": [1, 2]}, "records", "log records", 10)
[1, 2]
>>> envelope_items({"records": [], "x": 1}, "records", "log records", 10)
Traceback (most recent call last):
...
sleuth_shell.ingestion.IngestError: Unknown field: x
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, overload

__all__ = ["IngestError", "envelope_items", "text_value"]


class IngestError(ValueError):
    """The request is invalid; the message is the API's 400 detail."""


def envelope_items(body: Any, member: str, what: str, limit: int) -> list[Any]:
    """The list ``body[member]`` of an object with no other member and at most ``limit`` items;
    `IngestError` naming the first problem (``what`` names the items, e.g. ``log records``)."""
    if not isinstance(body, Mapping):
        raise IngestError("Request body must be a JSON object")
    unknown = sorted(set(body) - {member})
    if unknown:
        raise IngestError(f"Unknown field: {unknown[0]}")
    items = body.get(member)
    if not isinstance(items, list):
        raise IngestError(f"{member}: a list of {what} is required")
    if len(items) > limit:
        raise IngestError(f"{member}: at most {limit} {what.split()[-1]} per request")
    return items


@overload
def text_value(value: Any, path: str, limit: int, *, required: Literal[True] = ...) -> str: ...


@overload
def text_value(value: Any, path: str, limit: int, *, required: bool) -> str | None: ...


def text_value(value: Any, path: str, limit: int, *, required: bool = True) -> str | None:
    """``value`` stripped: a string without NUL of at most ``limit`` characters, not blank when
    ``required`` (else None may stand for it); `IngestError` naming ``path`` otherwise.

    >>> text_value("  api ", "records[0].service", 10)
    'api'
    >>> text_value(" ", "records[0].service", 10)
    Traceback (most recent call last):
    ...
    sleuth_shell.ingestion.IngestError: records[0].service: a non-empty string is required
    """
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        need = "a non-empty string" if required else "a string or null"
        raise IngestError(f"{path}: {need} is required")
    if "\x00" in value:
        raise IngestError(f"{path}: NUL characters are not allowed")
    text: str = value.strip()
    if len(text) > limit:
        raise IngestError(f"{path}: at most {limit} characters")
    return text
