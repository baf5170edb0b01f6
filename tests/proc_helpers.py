"""Looking at real processes from tests (Linux ``/proc``): is one alive, what are its children."""

from __future__ import annotations

from pathlib import Path


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its parent to reap it does not count)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


def children(pid: int) -> list[int]:
    """The live child processes of ``pid``."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except FileNotFoundError:
        return []
    return [int(child) for child in text.split() if alive(int(child))]


def cmdline(pid: int) -> list[str]:
    """The arguments ``pid`` was started with."""
    return Path(f"/proc/{pid}/cmdline").read_text().split("\0")
