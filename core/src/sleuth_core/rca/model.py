"""The typed inputs and outputs of the root-cause engine (:mod:`sleuth_core.rca`).

Every datetime is timezone-aware UTC. Every type is a frozen dataclass of plain values, so an
analysis is a pure function of its `Evidence`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, get_args

__all__ = [
    "CATEGORIES",
    "Alert",
    "Analysis",
    "Category",
    "Change",
    "Confidence",
    "ErrorSeries",
    "ErrorSignature",
    "Evidence",
    "ExternalSignal",
    "Hypothesis",
    "MetricPoints",
    "Onset",
    "Suspect",
    "Verdict",
]

Verdict = Literal["change", "external", "unknown"]
Confidence = Literal["CONFIRMED", "LIKELY", "INCONCLUSIVE"]
Category = Literal[
    "code_defect",
    "configuration_error",
    "resource_exhaustion",
    "dependency_failure",
    "infrastructure",
    "data_quality",
    "healthy",
    "unknown",
]
#: Every failure category, in the order the documentation lists them.
CATEGORIES: tuple[Category, ...] = get_args(Category)


@dataclass(frozen=True)
class Alert:
    """The alert under investigation: its title, the service it names (or ""), when it fired and
    its free text (description, labels). ``asked`` marks a question about the time up to
    ``fired_at`` rather than an alert: a failure that ended before then is still the one asked
    about, not a stale alert. ``onset`` is when the alert or question says the failure began
    ("failing since ~15:05"), None when it says nothing: the failure asked about is the one
    that began then, not an older one of the look-back."""

    title: str
    service: str
    fired_at: datetime
    text: str = ""
    asked: bool = False
    onset: datetime | None = None


@dataclass(frozen=True)
class ErrorSeries:
    """Error counts of one service per bucket: ``points`` are ``(bucket start, count)``, oldest
    first; buckets left out count as zero. ``bucket_seconds`` is the bucket width."""

    service: str
    bucket_seconds: int
    points: tuple[tuple[datetime, float], ...]


@dataclass(frozen=True)
class ErrorSignature:
    """One distinct error message of one service, how often, and when first and last seen.

    ``level`` is its most severe log level ("" when unknown; ``CRITICAL`` covers fatal lines),
    ``detail`` the text of its structured attributes that locate it in code (a stack trace,
    an exception type, ``file:line``, a function name), "" when it has none, and ``same`` whether
    every line of it had the very same text, ids and numbers included (one item failing again
    and again)."""

    service: str
    message: str
    count: int
    first_seen: datetime
    last_seen: datetime
    level: str = ""
    detail: str = ""
    same: bool = False


@dataclass(frozen=True)
class MetricPoints:
    """One metric series (error rate, latency, saturation, request rate, any named series)."""

    name: str
    service: str
    points: tuple[tuple[datetime, float], ...]
    labels: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Change:
    """A deploy, commit, feature-flag flip or configuration change.

    ``ships`` are the commit ids a deploy carries; a commit takes effect when the first deploy
    shipping it lands (which may be another service's deploy, e.g. for a shared library).
    """

    change_id: str
    service: str
    kind: str
    timestamp: datetime
    summary: str = ""
    files: tuple[str, ...] = ()
    diff: str = ""
    ships: tuple[str, ...] = ()
    author: str = ""


@dataclass(frozen=True)
class ExternalSignal:
    """Something outside the change data: e.g. a provider status notice from the knowledge
    catalog. ``at`` is when it was published, when known."""

    title: str
    text: str
    at: datetime | None = None
    ref: str = ""


@dataclass(frozen=True)
class Evidence:
    """Everything one analysis reads.

    ``dependencies`` are ``(caller, callee)`` hints; more are read from error messages that name
    another known service. ``services`` are all known service names (for those hints). ``since``
    is where the data begins (the first stored record in the look-back); when None it is taken
    from the earliest point, error or metric given. ``until`` is when the investigation looked
    (None: at the alert) and ``errors_after`` the services that logged errors between the end of
    the look-back and ``until``: a failure quiet since then no longer holds.
    """

    alert: Alert
    errors: tuple[ErrorSeries, ...] = ()
    signatures: tuple[ErrorSignature, ...] = ()
    metrics: tuple[MetricPoints, ...] = ()
    changes: tuple[Change, ...] = ()
    signals: tuple[ExternalSignal, ...] = ()
    dependencies: tuple[tuple[str, str], ...] = ()
    services: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    errors_after: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Onset:
    """When one service (or metric) began failing, and what showed it (``basis``: ``"errors"``
    for new error messages or an error-rate change point, ``"metric"`` for a metric change point
    with ``metric`` naming it)."""

    service: str
    at: datetime
    basis: str
    metric: str = ""


@dataclass(frozen=True)
class Suspect:
    """A change considered as the cause, with how it scored.

    ``effective_at`` is when it reached production (the shipping deploy's time for a commit),
    ``deploy_id`` the deploy that shipped it ("" when none did), ``relatedness`` in ``[0, 1]``
    how much of the failure's signature its files, diff and summary touch, ``matched`` those
    terms, ``score`` the ranking value, and ``ruled_out`` why it is not the cause ("" if it is
    still a suspect). ``kinds`` names the kinds of evidence that tie it to the failure, each
    read separately: ``words`` (terms shared with the failure), ``mechanism`` (it alters a
    mechanism the failure shows), ``code`` (the failure's stack runs through what it changed)
    and ``time`` (when it went live is itself the evidence: a switch minutes before the onset, a
    rollback that stopped the errors, a build-up that began as it shipped). ``alters`` names
    the mechanisms the failure shows that it alters (``timeout``, ``pool``, ``memory`` ...).
    """

    change: Change
    effective_at: datetime
    deploy_id: str
    relatedness: float
    matched: tuple[str, ...]
    score: float
    ruled_out: str = ""
    kinds: frozenset[str] = frozenset()
    alters: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Hypothesis:
    """A cause considered beside the changes (``traffic surge``, ``dependency outage``,
    ``resource exhaustion``, ``configuration change``): whether the data ``supported`` it and
    the ``evidence`` sentence that says why, with the metric series (``(service, name)``) or
    change ids it rests on."""

    name: str
    supported: bool
    evidence: str
    metrics: tuple[tuple[str, str], ...] = ()
    changes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Analysis:
    """The engine's result.

    ``verdict`` is ``change`` (``change_id`` names it, ``deploy_id`` the deploy that shipped it),
    ``external`` (``external_cause`` says what the data shows, or "") or ``unknown``. ``service``
    is the first failing service, ``affected_services`` every failing one (first failing first).
    ``reasons`` are plain sentences behind the verdict; ``suspects`` every change considered,
    best first (the ruled-out ones with why). ``category`` is the kind of failure (``healthy``
    when the data shows none), ``hypotheses`` the causes other than a change weighed, each
    supported or ruled out with its evidence.
    """

    verdict: Verdict
    confidence: Confidence
    change_id: str | None
    deploy_id: str | None
    service: str | None
    affected_services: tuple[str, ...]
    onset: datetime | None
    onsets: tuple[Onset, ...]
    remediation: str
    external_cause: str
    reasons: tuple[str, ...]
    suspects: tuple[Suspect, ...] = field(default=())
    category: Category = "unknown"
    hypotheses: tuple[Hypothesis, ...] = field(default=())
