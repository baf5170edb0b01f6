"""Building blocks of the root-cause engine: change points, failure-signature terms, relatedness.

Pure functions over plain values; :mod:`sleuth_core.rca.engine` composes them.

>>> from datetime import UTC, datetime, timedelta
>>> t0 = datetime(2026, 3, 14, 8, 0, tzinfo=UTC)
>>> series = [(t0 + timedelta(minutes=i), 2.0 if i < 60 else 40.0) for i in range(90)]
>>> change_point(series, direction=1).at == t0 + timedelta(minutes=60)
True
>>> terms = signature_terms(["PoolTimeoutError: db_pool max_connections=20 exhausted"])
>>> " ".join(sorted(terms))
'20 connect databas db_pool exhaust max_connections pool pooltimeouterror timeout'
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from operator import itemgetter

from sleuth_core.language import STOPWORDS, stem

__all__ = [
    "ChangePoint",
    "change_point",
    "change_terms",
    "compound_hits",
    "message_template",
    "relatedness",
    "signature_terms",
    "words_of",
]


@dataclass(frozen=True)
class ChangePoint:
    """Where a series left its baseline: ``at`` (the first point of the shifted segment),
    ``baseline`` (median of the early part), ``scale`` (robust spread), ``level`` (median of the
    last points), ``shift`` (``(level - baseline) / scale``, signed)."""

    at: datetime
    baseline: float
    scale: float
    level: float
    shift: float


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return 0.0
    mid = n // 2
    return ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def change_point(
    points: Sequence[tuple[datetime, float]],
    *,
    direction: int = 1,
    baseline_share: float = 1 / 3,
    threshold: float = 5.0,
    min_scale: float = 0.0,
    counts: bool = False,
) -> ChangePoint | None:
    """The start of the last sustained shift of ``points`` away from its early baseline, or None.

    The baseline is the median and MAD of the first ``baseline_share`` of the points; a one-sided
    CUSUM (upwards for ``direction=1``, downwards for ``-1``) with slack half a scale accumulates
    the excess, and the change point is the point after the last time the sum was zero before it
    crossed ``threshold`` scales. The series must still be shifted at its end (median of the last
    points at least ``threshold / 2`` scales away), so a spike that recovered is not an onset.
    ``counts=True`` floors the scale at the Poisson spread ``sqrt(baseline)`` (and at 1).

    >>> from datetime import UTC, datetime, timedelta
    >>> t0 = datetime(2026, 1, 1, tzinfo=UTC)
    >>> flat = [(t0 + timedelta(minutes=i), 5.0) for i in range(30)]
    >>> change_point(flat) is None
    True
    """
    if len(points) < 6:
        return None
    values = [float(v) for _, v in points]
    baseline = _baseline(values, baseline_share, min_scale, counts)
    return _shifted(points, values, baseline, direction, threshold)


_COARSE = timedelta(minutes=8)


def _baseline(
    values: Sequence[float],
    baseline_share: float,
    min_scale: float,
    counts: bool,
    tail: int = 3,
) -> tuple[float, float, float, float]:
    """``(median, scale, level, shift)`` of `change_point`: what both directions share."""
    n_base = max(3, int(len(values) * baseline_share))
    base = values[:n_base]
    m = _median(base)
    mad = _median([abs(v - m) for v in base])
    scale = max(1.4826 * mad, min_scale, 1e-9)
    if counts:
        scale = max(scale, math.sqrt(max(m, 1.0)))
    level = _median(values[-tail:])
    return m, scale, level, (level - m) / scale


def _shifted(
    points: Sequence[tuple[datetime, float]],
    values: Sequence[float],
    baseline: tuple[float, float, float, float],
    direction: int,
    threshold: float,
) -> ChangePoint | None:
    """`change_point` in one ``direction`` given the series' `_baseline` (at least 6 values)."""
    m, scale, level, shift = baseline
    if direction * shift < threshold / 2:
        return None
    total = 0.0
    start = 0
    crossed: int | None = None
    for i, v in enumerate(values):
        total = max(0.0, total + direction * (v - m) / scale - 0.5)
        if total == 0.0:
            start = i + 1
            crossed = None
        elif total >= threshold and crossed is None:
            crossed = i
    if crossed is None or start >= len(values):
        return None
    return ChangePoint(points[start][0], m, scale, level, shift)


_VALUE = itemgetter(1)


def metric_change_point(
    points: Sequence[tuple[datetime, float]], *, threshold: float, min_scale: float
) -> tuple[ChangePoint, int] | None:
    """`change_point` upwards, else downwards (the first that finds a shift) with its direction:
    the same results as two calls, the values and baseline computed once."""
    if len(points) < 6:
        return None
    values = list(map(float, map(_VALUE, points)))
    # The level at the end is read over the last quarter of an hour or so: three points of a
    # series sampled every few minutes, two of a coarser one (8 minutes and more).
    coarse = points[-1][0] - points[-2][0] >= _COARSE
    baseline = _baseline(values, 1 / 3, min_scale, False, tail=2 if coarse else 3)
    for direction in (1, -1):
        cp = _shifted(points, values, baseline, direction, threshold)
        if cp is not None:
            return cp, direction
    return None


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-/:]*[A-Za-z0-9_]|[A-Za-z]{3,}")
_NUMBER = re.compile(r"(?<![\w.])\d{2,6}(?![\w.])")
_SPLIT = re.compile(r"[._\-/:]+")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_STOP = STOPWORDS | frozenset(
    """
    list the and for with from into that this then than when while after before about over
    under error errors exception exceptions failed failure failures fail failing unable
    could cannot not none null true false yes value values http https status code line lines
    file files java python src main test tests info warn warning debug trace return returns
    self def import func class new old are was were has have had will would should can may
    use used using get set put post call calls called calling request requests response
    responses service services server client handler handle handling process processing
    message messages log logs logging level time timed retry retrying retries attempt
    attempts data object type string int float bool dict map key keys item items ok err com
    org net www api app internal default update updated updates add added remove removed
    change changes changed fix fixed bump refactor cleanup docs readme chore tweak improve
    improved support version merge branch pull commit deploy deployed release rollout rolled
    back via per all any one two some more less total count second seconds minute minutes
    hour hours sum bucket
    """.split()  # noqa: SIM905 (a word list reads best as text)
)
_SKIP_NUMBERS = frozenset({"200", "400", "404", "500", "502", "503", "504"})


_ABBREVIATIONS = {
    "conn": "connect",
    "conns": "connect",
    "cnx": "connect",
    "txn": "transaction",
    "db": "database",
    "cfg": "config",
    "conf": "config",
    "mem": "memory",
    "req": "request",
    "resp": "response",
    "msg": "message",
    "cert": "certificate",
    "int": "integer",
    "certs": "certificate",
}


@lru_cache(maxsize=8192)  # a pure function of the token (service names, words of messages)
def _pieces(token: str) -> tuple[str, ...]:
    out: list[str] = []
    for part in _SPLIT.split(token):
        for piece in _CAMEL.findall(part):
            lowered = piece.lower()
            out.append(stem(_ABBREVIATIONS.get(lowered, lowered)))
    return tuple(out)


def _terms(text: str, ignore: frozenset[str], weights: dict[str, float], scale: float) -> None:
    # The text's own terms (memoised on the text), merged as if tokenised here: the same keys
    # in the same first-seen order, each at the maximum of its weights.
    for term, value in _text_terms(text, ignore, scale):
        weights[term] = max(weights.get(term, 0.0), value)


@lru_cache(maxsize=4096)
def _text_terms(text: str, ignore: frozenset[str], scale: float) -> tuple[tuple[str, float], ...]:
    weights: dict[str, float] = {}
    _tokenise_terms(text, ignore, weights, scale)
    return tuple(weights.items())


def _tokenise_terms(
    text: str, ignore: frozenset[str], weights: dict[str, float], scale: float
) -> None:
    for match in _IDENT.finditer(text):
        token = match.group(0).strip("._-/:")
        lowered = token.lower()
        every = _pieces(token)
        pieces = [p for p in every if len(p) >= 3]
        compound = len(every) >= 2 or (
            len(pieces) == 1 and token != token.lower() and token != token.upper()
        )
        if compound and lowered not in ignore and len(lowered) >= 5:
            parts = [p for p in pieces if p not in _STOP and p not in ignore]
            if parts:
                weights[lowered] = max(weights.get(lowered, 0.0), 3.0 * scale)
        for piece in pieces:
            if len(piece) >= 4 and piece not in _STOP and piece not in ignore:
                weights[piece] = max(weights.get(piece, 0.0), 1.0 * scale)
    for number in _NUMBER.findall(text):
        if number not in _SKIP_NUMBERS:
            weights[number] = max(weights.get(number, 0.0), 0.75 * scale)


def signature_terms(
    texts: Iterable[str], *, ignore: Iterable[str] = (), weight: float = 1.0
) -> dict[str, float]:
    """The weighted terms of a failure signature: compound identifiers (``max_connections``,
    ``PoolTimeoutError``, ``payments.timeout_ms``; weight 3), their word pieces of four letters or
    more (weight 1) and numbers such as limits (weight 0.75), generic words and ``ignore`` (e.g.
    service names) left out. Every weight is multiplied by ``weight``.

    >>> terms = signature_terms(["checkout: PaymentTimeout after 3000 ms"], ignore=["checkout"])
    >>> terms["paymenttimeout"], terms["payment"], terms["3000"]
    (3.0, 1.0, 0.75)
    """
    ignored = frozenset(i.lower() for i in ignore) | frozenset(
        p for i in ignore for p in _pieces(i) if len(p) >= 3
    )
    weights: dict[str, float] = {}
    for text in texts:
        _terms(text, ignored, weights, weight)
    return weights


def change_terms(summary: str, files: Sequence[str], diff: str) -> frozenset[str]:
    """Every term a change touches: of its summary, its file paths and its diff's changed lines
    (changed lines and their context), spelled as :func:`signature_terms` spells them.

    >>> diff = "-max_connections=50\\n+max_connections=20"
    >>> sorted(change_terms("Lower pool", ["db/pool.py"], diff))
    ['20', '50', 'connect', 'databas', 'db/pool.py', 'lower', 'max_connections', 'pool']
    """
    return _change_terms(summary, tuple(files), diff)


@lru_cache(maxsize=256)  # diffs are at most 64 KiB: at most 16 MiB held
def _change_terms(summary: str, files: tuple[str, ...], diff: str) -> frozenset[str]:
    # Memoised on the change's text (immutable result): every investigation over the same
    # changes tokenises the same summaries, paths and diffs.
    lines = [summary, *files]
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            lines.append(line[3:])
        elif line.startswith(("+", "-", "@@", " ")):
            lines.append(line[1:])
    found: dict[str, float] = {}
    for text in lines:
        _terms(text, frozenset(), found, 1.0)
    return frozenset(found)


def words_of(texts: Iterable[str]) -> frozenset[str]:
    """Every word piece of four letters or more in ``texts`` (stemmed, generic words included).

    >>> sorted(words_of(["client intended to send too large body"]))
    ['body', 'client', 'intend', 'larg', 'send']
    """
    out: set[str] = set()
    for text in texts:
        for match in _IDENT.finditer(text):
            out.update(p for p in _pieces(match.group(0)) if len(p) >= 4)
    return frozenset(out)


def compound_hits(touched: frozenset[str], words: frozenset[str]) -> tuple[str, ...]:
    """The snake_case identifiers (settings, variables) a change touches of which two or more word
    pieces appear in ``words`` (the failure's words): ``client_max_body_size`` for "client ... too
    large body".

    >>> compound_hits(frozenset({"client_max_body_size", "color"}), frozenset({"client", "body"}))
    ('client_max_body_size',)
    """
    hits = []
    for term in sorted(touched):
        if "_" not in term or any(c in term for c in "./:"):
            continue  # setting and variable names only, not paths, URLs or module names
        pieces = {p for p in _pieces(term) if len(p) >= 4}
        if len(pieces) >= 2 and len(pieces & words) >= 2:
            hits.append(term)
    return tuple(hits)


def relatedness(
    signature: Mapping[str, float],
    touched: frozenset[str],
    document_frequency: Mapping[str, int],
    documents: int,
) -> tuple[float, tuple[str, ...]]:
    """How much of ``signature`` a change touching ``touched`` explains, in ``[0, 1)``, and the
    matched terms, most telling first.

    Each matched term adds its weight times its rarity among the ``documents`` changes considered
    (a term every change touches tells nothing); the sum ``s`` maps to ``s / (s + 3)``, so one
    rare compound identifier gives 0.5.

    >>> touched = frozenset({"max_connections"})
    >>> relatedness({"max_connections": 3.0}, touched, {"max_connections": 1}, 10)
    (0.5, ('max_connections',))
    """
    total = 0.0
    matched: list[tuple[float, str]] = []
    for term, weight in signature.items():
        if term in touched:
            df = max(1, document_frequency.get(term, 1))
            rarity = 1.0 if documents <= 1 else max(0.1, 1.0 - (df - 1) / documents)
            gain = weight * rarity
            total += gain
            matched.append((gain, term))
    matched.sort(key=lambda item: (-item[0], item[1]))
    return round(total / (total + 3.0), 6), tuple(term for _, term in matched)


_VARIABLE = re.compile(r"\b\w*\d\w*\b")


def message_template(message: str) -> str:
    """``message`` with its variable parts (every word holding a digit: numbers, ids, addresses)
    replaced by ``#``, so one
    failure's log lines group together.

    >>> message_template("body too large: 5595115 bytes, client: 10.0.2.7, order 9f3a2b1c77")
    'body too large: # bytes, client: #.#.#.#, order #'
    """
    return _message_template(message)


@lru_cache(maxsize=4096)
def _message_template(message: str) -> str:
    # Memoised on the text: a failure's log lines repeat a few messages thousands of times.
    return _VARIABLE.sub("#", message)


def minutes(delta: timedelta) -> float:
    """A duration in minutes."""
    return delta.total_seconds() / 60
