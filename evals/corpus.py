"""What every written evaluation corpus (`evals.kestrel`, `evals.tidewater`, `evals.larkspur`,
`evals.halberd`, `evals.ferncombe`, `evals.brackenmoor`) builds its data with: its runbooks read
from a folder, log records on fixed time grids."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

__all__ = ["Record", "at", "grid", "read_runbooks", "record"]

Record = dict[str, Any]


def read_runbooks(folder: Path) -> list[tuple[str, str]]:
    """``(title, markdown)`` of every ``*.md`` in ``folder``, sorted by file name; the title is
    the first line without its ``#``."""
    out = []
    for path in sorted(folder.glob("*.md")):
        content = path.read_text(encoding="utf-8")
        out.append((content.splitlines()[0].lstrip("#").strip(), content))
    return out


def record(t: datetime, service: str, level: str, message: str, **attributes: Any) -> Record:
    """One log record as the logs API takes it."""
    return {
        "timestamp": t,
        "service": service,
        "level": level,
        "message": message,
        "attributes": attributes,
    }


def grid(start: datetime, end: datetime, step: timedelta) -> Iterator[datetime]:
    """``start``, ``start + step``, ... before ``end``."""
    t = start
    while t < end:
        yield t
        t += step


def at(text: str) -> datetime:
    """A naive ISO 8601 time read as UTC."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)
