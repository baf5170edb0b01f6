"""Reading questions and alerts without a model: time windows, services, terms and passages.

Everything here is a pure function of its arguments (the clock is passed in), so the retrieval
agent built on it is deterministic. The tokenising functions (`terms`, `split_passages` and the
stems `best_passage` compares) are memoised on their input text in bounded LRU caches: the same
runbook text is read by every question, and a cache keyed by the text itself can never serve a
stale result (an edited runbook is a different key), in any process.

Time expressions understood by `infer_window` (times are UTC):

- ``last hour``, ``past 30 minutes``, ``last 2h``, ``last day``, ``last 24 hours``, ``last week``
- ``since 09:00``, ``since 2026-11-22T09:00Z``, ``since yesterday``
- ``between 09:00 and 10:30``, ``from 2026-11-22 09:00 to 2026-11-22 11:00``
- ``yesterday``, ``today``, ``tonight``/``overnight``/``last night`` (00:00-06:00 of today)
- a single time, ISO (``2026-11-22T09:41:00Z``) or ``at 09:41``/``around 09:41``: 30 minutes
  either side

A clock time without a date means the most recent such time not after ``now``.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sleuth_core.intake import prometheus_expression

__all__ = [
    "EARLIEST_INSTANT",
    "LATEST_INSTANT",
    "STOPWORDS",
    "Passage",
    "TimeWindow",
    "best_passage",
    "extract_alert",
    "format_ts",
    "infer_window",
    "match_services",
    "parse_instant",
    "parse_timestamp",
    "split_passages",
    "stem",
    "terms",
]

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "please",
        "tell",
        "show",
        "give",
        "find",
        "know",
        "get",
        "got",
        "need",
        "want",
        "let",
        "us",
        "last",
        "past",
        "since",
        "ago",
        "today",
        "yesterday",
        "hour",
        "hours",
        "minute",
        "minutes",
        "min",
        "mins",
        "day",
        "days",
        "week",
        "weeks",
        "between",
        "around",
        "happened",
        "happening",
        "going",
        "any",
    ]
)

_GENERIC_SUFFIXES = frozenset({"api", "service", "svc", "web", "worker", "app", "server"})
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*[A-Za-z0-9]|[A-Za-z0-9]")


def stem(word: str) -> str:
    """A light English stemmer: enough to match ``errors``/``error``, ``failing``/``failed``."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


#: Bounds of the tokenising caches (entries): a catalog's passages, headings and questions.
TEXT_CACHE_SIZE = 8192
DOCUMENT_CACHE_SIZE = 512


def terms(text: str) -> list[str]:
    """The searchable words of ``text``: lowercased, stopwords and pure numbers dropped, unique,
    in order of first appearance. Hyphenated names (``payments-api``) are kept whole and also
    split into their parts."""
    return list(_terms(text))


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _terms(text: str) -> tuple[str, ...]:
    out: list[str] = []
    seen: set[str] = set()
    for raw in _WORD.findall(text.lower()):
        parts = raw.split("-") if "-" in raw else []
        pieces = [raw] + [p for p in parts if p not in _GENERIC_SUFFIXES]
        for piece in pieces:
            piece = piece.strip(".-_")
            if not piece or piece in STOPWORDS or piece.isdigit() or len(piece) < 2:
                continue
            if piece not in seen:
                seen.add(piece)
                out.append(piece)
    return tuple(out)


def format_ts(value: datetime) -> str:
    """ISO 8601 in UTC with second precision and a ``Z``: ``2026-11-22T09:41:07Z``."""
    return value.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


# --- timestamps ---------------------------------------------------------------------------------

_ISO = (
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?"
    r"(?:\s?(?:Z|UTC|[+-]\d{2}:?\d{2}))?)?"
)
_CLOCK = r"(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s?(?:Z|UTC))?"
_POINT = rf"(?:{_ISO}|{_CLOCK})"
_ISO_RE = re.compile(_ISO)


def parse_timestamp(text: str) -> datetime | None:
    """Parse an ISO 8601 date or date-time (naive means UTC), or Unix seconds/milliseconds."""
    value = text.strip()
    if re.fullmatch(r"\d{10}(?:\.\d+)?", value):
        return datetime.fromtimestamp(float(value), UTC)
    if re.fullmatch(r"\d{13}", value):
        return datetime.fromtimestamp(int(value) / 1000, UTC)
    value = re.sub(r"\s?UTC$", "Z", value)
    if value.endswith("Z"):
        value = value[:-1] + "+00:00"
    value = re.sub(r"([+-]\d{2})(\d{2})$", r"\1:\2", value)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


#: The range :func:`parse_instant` accepts (a database column holds no later year).
EARLIEST_INSTANT = datetime(1970, 1, 1, tzinfo=UTC)
LATEST_INSTANT = datetime(9999, 1, 1, tzinfo=UTC)


def parse_instant(value: Any) -> datetime | None:
    """A JSON timestamp: an ISO 8601 string (naive means UTC) or Unix seconds (a number), between
    1970 and 9999 (aware UTC); None for anything else (booleans included).

    >>> parse_instant(0), parse_instant("2026-11-22T09:41:07Z").hour, parse_instant(True)
    (datetime.datetime(1970, 1, 1, 0, 0, tzinfo=datetime.timezone.utc), 9, None)
    """
    parsed: datetime | None = None
    if isinstance(value, str):
        parsed = parse_timestamp(value)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        try:
            parsed = datetime.fromtimestamp(float(value), UTC)
        except (OverflowError, OSError, ValueError):
            parsed = None
    if parsed is None or not EARLIEST_INSTANT <= parsed < LATEST_INSTANT:
        return None
    return parsed


def _point(text: str, now: datetime) -> datetime | None:
    """A time point: ISO, or a clock time meaning its most recent occurrence not after ``now``."""
    text = text.strip()
    if _ISO_RE.fullmatch(text):
        return parse_timestamp(text)
    clock = re.fullmatch(r"(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s?(?:Z|UTC))?", text)
    if clock is None:
        return None
    hour, minute, second = int(clock[1]), int(clock[2]), int(clock[3] or 0)
    candidate = now.astimezone(UTC).replace(hour=hour, minute=minute, second=second, microsecond=0)
    if candidate > now:
        candidate -= timedelta(days=1)
    return candidate


@dataclass(frozen=True)
class TimeWindow:
    """A half-open time range ``[start, end)`` and how it was found (for the answer's wording)."""

    start: datetime
    end: datetime
    label: str


_UNITS = {
    "m": 60,
    "min": 60,
    "mins": 60,
    "minute": 60,
    "minutes": 60,
    "h": 3600,
    "hr": 3600,
    "hrs": 3600,
    "hour": 3600,
    "hours": 3600,
    "d": 86400,
    "day": 86400,
    "days": 86400,
    "week": 604800,
    "weeks": 604800,
}
_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "six": 6, "twelve": 12}
_RELATIVE = re.compile(
    r"\b(?:last|past|previous|recent)\s+(?:(\d+(?:\.\d+)?|a|an|one|two|three|four|six|twelve"
    r"|half(?: an?)?)\s*)?(m|mins?|minutes?|h|hrs?|hours?|d|days?|weeks?)\b",
    re.IGNORECASE,
)
_BETWEEN = re.compile(
    rf"\b(?:between|from)\s+({_POINT})\s+(?:and|to|until|-)\s+({_POINT})", re.IGNORECASE
)
_SINCE = re.compile(rf"\bsince\s+({_POINT}|yesterday)", re.IGNORECASE)
_AT = re.compile(rf"\b(?:at|around|about|near)\s+({_POINT})", re.IGNORECASE)


def _day_start(value: datetime) -> datetime:
    return value.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def infer_window(text: str, now: datetime) -> TimeWindow | None:
    """The time window ``text`` talks about, or None when it names none (see the module doc)."""
    if (m := _BETWEEN.search(text)) is not None:
        start, end = _point(m[1], now), _point(m[2], now)
        if start is not None and end is not None:
            if end <= start and not _ISO_RE.fullmatch(m[2].strip()):
                end += timedelta(days=1)
            if end > start:
                return TimeWindow(start, end, "between")
    if (m := _SINCE.search(text)) is not None:
        start = _day_start(now) - timedelta(days=1) if m[1].lower() == "yesterday" else None
        start = start or _point(m[1], now)
        if start is not None and start < now:
            return TimeWindow(start, now, "since")
    if (m := _RELATIVE.search(text)) is not None:
        amount_text = (m[1] or "1").lower()
        if amount_text.startswith("half"):
            amount = 0.5
        else:
            amount = float(_WORDS.get(amount_text, amount_text))
        seconds = amount * _UNITS[m[2].lower()]
        if seconds > 0:
            return TimeWindow(now - timedelta(seconds=seconds), now, "relative")
    lowered = text.lower()
    if re.search(r"\byesterday\b", lowered):
        today = _day_start(now)
        return TimeWindow(today - timedelta(days=1), today, "yesterday")
    if re.search(r"\b(?:overnight|last night|tonight)\b", lowered):
        today = _day_start(now)
        return TimeWindow(today, min(now, today + timedelta(hours=6)), "overnight")
    if re.search(r"\btoday\b|\bthis morning\b", lowered):
        return TimeWindow(_day_start(now), now, "today")
    if (m := _AT.search(text)) is not None or (m := _ISO_RE.search(text)) is not None:
        point = _point(m[1] if m.lastindex else m[0], now)
        if point is not None:
            return TimeWindow(point - timedelta(minutes=30), point + timedelta(minutes=30), "at")
    return None


# --- services -----------------------------------------------------------------------------------


def match_services(text: str, services: Iterable[str]) -> list[str]:
    """The known ``services`` that ``text`` mentions, sorted.

    A service matches by its full name (``payments-api``) or, when its name ends in a generic
    suffix (``-api``, ``-service``, ``-worker``, ...), by its base name, singular or plural
    (``payments``, ``payment``).
    """
    lowered = text.lower()
    words = set(re.findall(r"[a-z0-9][a-z0-9_\-]*", lowered))
    found: list[str] = []
    for service in services:
        name = service.lower()
        if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", lowered):
            found.append(service)
            continue
        base, _, suffix = name.rpartition("-")
        if not base or suffix not in _GENERIC_SUFFIXES:
            continue
        variants = {base, base.rstrip("s"), base + "s"}
        if variants & words:
            found.append(service)
    return sorted(set(found))


# --- passages -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Passage:
    """A block of a markdown document (a paragraph, list or code block) under its heading."""

    heading: str
    text: str
    index: int


def split_passages(markdown: str) -> list[Passage]:
    """Split a markdown document into blocks separated by blank lines, each under its heading.

    A list (consecutive items and their continuation lines) is one block; a fenced code block is
    never split.
    """
    return list(_split_passages(markdown))


@functools.lru_cache(maxsize=DOCUMENT_CACHE_SIZE)
def _split_passages(markdown: str) -> tuple[Passage, ...]:
    passages: list[Passage] = []
    heading = ""
    block: list[str] = []
    in_fence = False

    def flush() -> None:
        if block:
            passages.append(Passage(heading, "\n".join(block).strip("\n"), len(passages)))
            block.clear()

    for line in markdown.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
            block.append(line)
            continue
        if in_fence:
            block.append(line)
            continue
        if re.match(r"#{1,6}\s", stripped):
            flush()
            heading = stripped.lstrip("#").strip()
            continue
        if not stripped:
            flush()
            continue
        block.append(line)
    flush()
    return tuple(passages)


def _stems(words: Iterable[str]) -> set[str]:
    return {stem(w) for w in words}


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _text_stems(text: str) -> frozenset[str]:
    """The stems of `terms` of ``text``."""
    return frozenset(stem(w) for w in _terms(text))


def best_passage(
    markdown: str,
    query_terms: Sequence[str],
    *,
    max_chars: int = 900,
    prefer: Sequence[str] = (),
) -> tuple[str, str]:
    """The heading and text of the passage of ``markdown`` that best matches ``query_terms``.

    A passage scores one point per distinct query term (stemmed) it contains, half a point per term
    in its section heading (not the document's title) and 0.75 when its heading contains one of the
    ``prefer`` words (e.g. ``mitigation``); ties go to the earlier passage. The chosen passage is
    extended with the following passages under the same heading while it stays under ``max_chars``.
    With no matching term the document's first passage is returned.
    """
    passages = split_passages(markdown)
    if not passages:
        return "", ""
    wanted = _stems(query_terms)
    preferred = {word.lower() for word in prefer}
    title = next((line for line in markdown.splitlines() if line.strip()), "").strip()
    best, best_score = passages[0], 0.0
    for passage in passages:
        is_title = title.startswith("# ") and passage.heading == title.lstrip("#").strip()
        heading_terms = set() if is_title else set(_terms(passage.heading))
        heading_stems = frozenset() if is_title else _text_stems(passage.heading)
        score = len(wanted & _text_stems(passage.text)) + 0.5 * len(wanted & heading_stems)
        if score and heading_terms & preferred:
            score += 0.75
        if score > best_score:
            best, best_score = passage, score
    text = best.text
    for following in passages[best.index + 1 :]:
        if following.heading != best.heading or len(text) + len(following.text) + 2 > max_chars:
            break
        text = f"{text}\n\n{following.text}"
    if len(text) > max_chars:
        cut = text.rfind("\n", 0, max_chars)
        text = text[: cut if cut > max_chars // 2 else max_chars].rstrip() + " …"
    return best.heading, text


# --- alerts -------------------------------------------------------------------------------------

_TITLE_KEYS = ("title", "summary", "alertname", "name", "subject", "message", "description")
_SERVICE_KEYS = ("service", "service_name", "app", "application", "component", "job", "host")
_SEVERITY_KEYS = ("severity", "priority", "level", "urgency")
_TIME_KEYS = (
    "startsat",
    "starts_at",
    "started_at",
    "triggered_at",
    "fired_at",
    "created_at",
    "timestamp",
    "time",
    "date",
    "event_time",
)


def _walk(value: Any, prefix: str = "") -> Iterable[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, prefix)
    else:
        yield prefix, value


def extract_alert(payload: str) -> dict[str, Any]:
    """Pick the alert's title, service, severity and time out of a raw payload (JSON or text).

    Returns ``{"title": str|None, "service": str|None, "severity": str|None, "time":
    datetime|None, "expression": str|None, "text": str}`` where ``text`` joins every string value
    (the payload itself when it is not JSON) and ``expression`` is the alert's own query: an
    ``expression`` or ``expr`` member, else the ``g0.expr`` of a ``generatorURL`` (Prometheus
    alerts through Alertmanager). Keys are matched case-insensitively on the last path segment;
    the first match in document order wins.
    """
    found: dict[str, Any] = {"title": None, "service": None, "severity": None, "time": None}
    expression: str | None = None
    generated: str | None = None
    try:
        data = json.loads(payload)
    except (ValueError, TypeError):
        data = None
    strings: list[str] = []
    if isinstance(data, dict | list):
        for path, value in _walk(data):
            key = path.rsplit(".", 1)[-1].lower()
            if isinstance(value, str):
                strings.append(value)
            if value is None or isinstance(value, bool):
                continue
            if found["title"] is None and key in _TITLE_KEYS and isinstance(value, str):
                found["title"] = value.strip() or None
            elif found["service"] is None and key in _SERVICE_KEYS and isinstance(value, str):
                found["service"] = value.strip() or None
            elif found["severity"] is None and key in _SEVERITY_KEYS:
                found["severity"] = str(value).strip() or None
            elif found["time"] is None and key in _TIME_KEYS:
                found["time"] = parse_timestamp(str(value))
            elif expression is None and key in ("expression", "expr") and isinstance(value, str):
                expression = value.strip() or None
            elif generated is None and key == "generatorurl" and isinstance(value, str):
                generated = prometheus_expression(value)
        text = "\n".join(strings)
    else:
        text = payload
    if found["time"] is None and (m := _ISO_RE.search(text)) is not None:
        found["time"] = parse_timestamp(m[0])
    found["expression"] = expression or generated
    found["text"] = text
    return found
