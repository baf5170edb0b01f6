"""What every ingestion request body shares (logs, change records, metric series): the error that
becomes the 400 detail, and the envelope ``{"<member>": [items]}`` with its size limit.

>>> envelope_items({"records": [1, 2]}, "records", "log records", 10)
[1, 2]
>>> envelope_items({"records": [], "x": 1}, "records", "log records", 10)
Traceback (most recent call last):
...
sleuth_shell.ingestion.IngestError: Unknown field: x
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["IngestError", "envelope_items"]


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
