"""The generic JSON fallback (INTEGRATIONS 8.3): any JSON object, no provider conventions."""

from __future__ import annotations

import hashlib
import json
import re
from collections import deque
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sleuth_core.intake._values import (
    MAX_FIELDS_LENGTH,
    first_text,
    first_time,
    get,
    labels,
    match_text,
    text,
    title_of,
)
from sleuth_core.intake.event import AlertEvent, AlertKind

_TITLE_KEYS = ("title", "summary", "message", "name", "alertname", "subject")
_DEDUP_KEYS = (
    "dedup_key",
    "fingerprint",
    "incident_id",
    "alert_id",
    "alertId",
    "external_id",
    "id",
)
_MAX_VISITED = 5_000
_VOLATILE = frozenset({"timestamp", "time", "updated_at", "updatedAt", "sent_at"})
_KIND_PATHS = (
    ("status",),
    ("state",),
    ("action",),
    ("event_type",),
    ("type",),
    ("event", "type"),
    ("operation",),
)
_LIFECYCLE = re.compile(r"resolv|clos|ack|mitigat|cancel|delet|recover|^ok$", re.IGNORECASE)
_TIME_KEYS = (
    "occurred_at",
    "started_at",
    "startsAt",
    "created_at",
    "createdAt",
    "timestamp",
    "time",
    "issued_at",
)
_MAX_FLATTEN_DEPTH = 32


def _find(payload: Mapping[str, Any], keys: tuple[str, ...]) -> str:
    """First non-empty scalar under ``keys``, breadth-first through nested objects (and the
    objects in arrays): the top level, then every object one level down in document order, and
    so on; within one object the first of ``keys`` present wins."""
    queue: deque[object] = deque([payload])
    visited = 0
    while queue and visited < _MAX_VISITED:
        scope = queue.popleft()
        visited += 1
        if isinstance(scope, dict):
            found = first_text(*(scope.get(key) for key in keys))
            if found:
                return found
            queue.extend(v for v in scope.values() if isinstance(v, dict | list))
        elif isinstance(scope, list):
            queue.extend(v for v in scope if isinstance(v, dict | list))
    return ""


def _strip_volatile(value: object) -> object:
    if isinstance(value, dict):
        return {k: _strip_volatile(v) for k, v in value.items() if k not in _VOLATILE}
    if isinstance(value, list):
        return [_strip_volatile(item) for item in value]
    return value


def _flatten(value: object, path: str, out: list[tuple[str, str]], depth: int) -> None:
    """Depth-first ``dotted.path[i]: value`` pairs, keys sorted, scalars only, empties dropped."""
    if depth > _MAX_FLATTEN_DEPTH:
        return
    if isinstance(value, dict):
        for key in sorted(value, key=str):
            _flatten(value[key], f"{path}.{key}" if path else str(key), out, depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _flatten(item, f"{path}[{index}]", out, depth + 1)
    else:
        scalar = text(value)
        if scalar:
            out.append((path or "value", scalar))


def parse_generic(
    payload: dict[str, Any], raw: str, received_at: datetime, digest: str
) -> AlertEvent:
    """Read any JSON object as an alert; see docs/integrations.md "Generic JSON"."""
    title = title_of(_find(payload, _TITLE_KEYS), fallback="Untitled alert")
    identity = _find(payload, _DEDUP_KEYS)
    if not identity:
        try:
            canonical = json.dumps(
                _strip_volatile(payload), sort_keys=True, separators=(",", ":"), default=str
            )
        except (TypeError, ValueError, RecursionError):  # keys of mixed types, deep nesting
            canonical = raw
        identity = "sha256:" + hashlib.sha256(canonical.encode("utf-8", "replace")).hexdigest()
    states = [text(get(payload, *path)) for path in _KIND_PATHS]
    matched = next((state for state in states if state and _LIFECYCLE.search(state)), "")
    kind: AlertKind = "lifecycle" if matched else "new_alert"
    flat: list[tuple[str, str]] = []
    _flatten(payload, "", flat, 0)
    fields: list[tuple[str, str]] = []
    size = 0
    for key, value in flat:
        size += len(key) + len(value) + 3
        if size > MAX_FIELDS_LENGTH:
            break
        fields.append((key, value))
    return AlertEvent(
        source="GENERIC",
        kind=kind,
        event_type=matched or next((state for state in states if state), ""),
        title=title,
        description=_find(payload, ("description", "details", "body", "text")),
        service=_find(payload, ("service", "host", "entity", "component")),
        severity=_find(payload, ("severity", "priority", "level")),
        tags=labels(payload.get("tags")),
        dedup_key=f"GENERIC:{identity}"[:255],
        delivery_id=digest,
        occurred_at=first_time(*(payload.get(key) for key in _TIME_KEYS)) or received_at,
        url=_find(payload, ("url", "html_url", "link")) or None,
        match_text=match_text(title, fields, raw),
    )
