"""The status of every kind of run, as the run lifecycle defines it (:mod:`sleuth_shell.runs`).

A run is ``PENDING`` (waiting for its job), ``IN_PROGRESS`` (being produced), then ``COMPLETED`` or
failed; a kind names its failed status and may add further end states. Each kind's statuses are
one :class:`~enum.StrEnum`, and its :class:`Lifecycle` says which member plays which part and
derives the terminal and unfinished sets from them. The enum is checked against the lifecycle
when the lifecycle is built, so a kind cannot have a status the lifecycle does not know (or miss
one). The storage columns carry a CHECK constraint over :attr:`Lifecycle.values`; the API, the
pages, MCP and the templates all read the statuses from here.

>>> INVESTIGATION.failed, INVESTIGATION.terminal
(<InvestigationStatus.ERRORED: 'ERRORED'>, ('COMPLETED', 'ERRORED', 'STOPPED'))
>>> INTERACTION.unfinished
('PENDING', 'IN_PROGRESS')
>>> InvestigationStatus("IN_PROGRESS") == "IN_PROGRESS"
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Generic, TypeVar

__all__ = [
    "DIGEST_RUN",
    "INTERACTION",
    "INVESTIGATION",
    "DigestRunStatus",
    "InteractionStatus",
    "InvestigationStatus",
    "Lifecycle",
    "check_constraint",
]

S = TypeVar("S", bound=StrEnum)


class InteractionStatus(StrEnum):
    """An interaction's status (``interactions.status``)."""

    PENDING = "PENDING"
    IN_PROGRESS = "IN_PROGRESS"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"


class DigestRunStatus(StrEnum):
    """A digest run's status (``digest_runs.status``)."""

    PENDING = "PENDING"
    IN_PROGRESS = "IN_PROGRESS"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"


class InvestigationStatus(StrEnum):
    """An investigation's status (``investigations.status``): it fails as ``ERRORED`` and may be
    ``STOPPED`` (an end state of its own)."""

    PENDING = "PENDING"
    IN_PROGRESS = "IN_PROGRESS"
    ERRORED = "ERRORED"
    COMPLETED = "COMPLETED"
    STOPPED = "STOPPED"


@dataclass(frozen=True)
class Lifecycle(Generic[S]):
    """The part each member of ``enum`` plays in the run lifecycle.

    ``PENDING``, ``IN_PROGRESS`` and ``COMPLETED`` are the lifecycle's own names; ``failed`` is
    the kind's failed status and ``extra_terminal`` its further end states. Every member of
    ``enum`` plays exactly one part (checked here).

    >>> class Bad(StrEnum):
    ...     PENDING = "PENDING"
    ...     IN_PROGRESS = "IN_PROGRESS"
    ...     COMPLETED = "COMPLETED"
    ...     FAILED = "FAILED"
    ...     PAUSED = "PAUSED"
    >>> Lifecycle(Bad, failed=Bad.FAILED)
    Traceback (most recent call last):
    ...
    ValueError: Bad has statuses the run lifecycle does not know: PAUSED
    """

    enum: type[S]
    failed: S
    extra_terminal: tuple[S, ...] = ()
    pending: S = field(init=False)
    in_progress: S = field(init=False)
    completed: S = field(init=False)

    def __post_init__(self) -> None:
        members = self.enum.__members__
        named = ("PENDING", "IN_PROGRESS", "COMPLETED")
        missing = [name for name in named if name not in members]
        if missing:
            raise ValueError(f"{self.enum.__name__} lacks the lifecycle's {', '.join(missing)}")
        for name in named:
            object.__setattr__(self, name.lower(), members[name])
        played = {*named, self.failed.name, *(s.name for s in self.extra_terminal)}
        unknown = [name for name in members if name not in played]
        if unknown:
            raise ValueError(
                f"{self.enum.__name__} has statuses the run lifecycle does not know: "
                + ", ".join(unknown)
            )

    @property
    def values(self) -> tuple[str, ...]:
        """Every status, in the enum's order (the SPEC's; what a filter accepts)."""
        return tuple(str(member) for member in self.enum)

    @property
    def terminal(self) -> tuple[str, ...]:
        """Statuses a run never leaves."""
        return (str(self.completed), str(self.failed), *(str(s) for s in self.extra_terminal))

    @property
    def unfinished(self) -> tuple[str, ...]:
        """Statuses of work waiting or in progress."""
        return (str(self.pending), str(self.in_progress))


INTERACTION = Lifecycle(InteractionStatus, failed=InteractionStatus.FAILED)
DIGEST_RUN = Lifecycle(DigestRunStatus, failed=DigestRunStatus.FAILED)
INVESTIGATION = Lifecycle(
    InvestigationStatus,
    failed=InvestigationStatus.ERRORED,
    extra_terminal=(InvestigationStatus.STOPPED,),
)


def check_constraint(lifecycle: Lifecycle[S], column: str = "status") -> str:
    """The SQL of the CHECK constraint that keeps ``column`` to the lifecycle's statuses.

    >>> check_constraint(DIGEST_RUN)
    "status IN ('PENDING', 'IN_PROGRESS', 'COMPLETED', 'FAILED')"
    """
    return f"{column} IN ({', '.join(repr(value) for value in lifecycle.values)})"
