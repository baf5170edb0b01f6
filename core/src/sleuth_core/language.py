"""Language, read without a model: tokens, stems, stopwords, time expressions and names.

One module for every reader of text in Sleuth (questions, runbooks, alerts, failure signatures):

- `terms` - the searchable words of a text (lowercased, stopwords and bare numbers dropped,
  hyphenated names kept whole and split), memoised on the text;
- `stem` - one light English stemmer, so ``connections``, ``connection`` and ``connect`` meet;
- `STOPWORDS` - the words that carry no topic in a question;
- `parse_timestamp`, `parse_instant`, `parse_iso`, `format_ts` - instants in and out (UTC);
- `parse_window` - the time window a question or prompt names (below), explicit times first;
- `match_services` - the known service names a text mentions.

Time expressions (all UTC; a clock time without a date is its latest occurrence not after
``now``). An explicit instant or date in the text wins over a relative phrase elsewhere in it:

- ``last hour``, ``past 30 minutes``, ``last 2h``, ``last day``, ``last week``;
- ``since 09:00``, ``since 2026-11-22T09:00Z``, ``since yesterday``;
- ``between 09:00 and 10:30``, ``from 2026-11-22 09:00 to 2026-11-22 11:00``;
- a date with a clock range: ``2026-03-14 21:00-22:30 UTC``, ``Mar 14 between 9 and 10pm``;
- a date alone: ``on 2026-03-14``, ``Mar 14`` (the whole day);
- a day and a time: ``yesterday 14:00``, ``Saturday 21:30`` (30 minutes either side);
- weekday names and parts of days: ``on Saturday``, ``Saturday night``, ``Friday morning``;
- a clock range written in full, alone or beside a part of the day: ``08:00-08:30Z``,
  ``this morning 08:00-08:30Z``, ``overnight 01:00-02:00 UTC`` (the range, on its latest day not
  after ``now``);
- ``yesterday``, ``today``, ``this morning``, ``tonight``/``overnight``/``last night``;
- a span beside the one instant named: ``at 22:00Z - what did it log in the 40 min after that?``,
  ``the 10 minutes before it``;
- a single instant, ISO (``2026-11-22T09:41:00Z``) or ``at 09:41``: 30 minutes either side; an
  alert that ``fired at 12:30`` (also ``triggered``, ``paged``, ``went off``): the hour before it,
  ending at that instant.

Pure: the clock is passed in; no I/O.

>>> from datetime import UTC, datetime
>>> now = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
>>> w = parse_window("errors in the last 5 minutes? the alert fired at 2026-11-22T09:30:00Z", now)
>>> format_ts(w.start), format_ts(w.end), w.label
('2026-11-22T08:30:00Z', '2026-11-22T09:30:00Z', 'fired')
>>> stem("connections"), stem("failing"), terms("Roll back payments-api")
('connect', 'fail', ['roll', 'back', 'payments-api', 'payments'])
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = [
    "DOCUMENT_CACHE_SIZE",
    "EARLIEST_INSTANT",
    "LATEST_INSTANT",
    "STOPWORDS",
    "TEXT_CACHE_SIZE",
    "TimeWindow",
    "format_ts",
    "match_services",
    "parse_instant",
    "parse_iso",
    "parse_timestamp",
    "parse_window",
    "stated_onset",
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


_SUFFIXES = ("ions", "ion", "ings", "ing", "es", "ed", "s")


@functools.lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A light English stem: the longest of a few suffixes cut while four letters remain.

    >>> [stem(w) for w in ("connections", "connect", "exhausted", "errors", "status", "pool")]
    ['connect', 'connect', 'exhaust', 'error', 'status', 'pool']
    >>> [stem(w) for w in ("cause", "caused", "causes", "schedule", "scheduling", "free")]
    ['caus', 'caus', 'caus', 'schedul', 'schedul', 'free']
    """
    if word.endswith(("is", "us", "ss")):
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    # A silent final e goes, so "cause", "caused" and "causes" meet.
    return word[:-1] if len(word) >= 5 and word.endswith("e") and word[-2] not in "aeiou" else word


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


# --- instants and time windows -----------------------------------------------------------------


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
    return parse_iso(value)


def parse_iso(text: str) -> datetime | None:
    """An ISO 8601 date or date-time (naive means UTC) as aware UTC; None when it is not one or
    its UTC time is outside ``datetime``'s range.

    >>> parse_iso("2026-11-22T10:41:07+01:00").hour, parse_iso("0001-01-01T00:00:00+01:00")
    (9, None)
    """
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)
    except (OverflowError, ValueError):
        return None


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


def _plain_window(text: str, now: datetime) -> TimeWindow | None:
    """The window of the plain forms (relative, since, between, day words, an instant)."""
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
    if (fired := _fired_at(text, now)) is not None:
        return fired
    if (m := _ISO_RE.search(text)) is not None and re.search(r"\d:\d", m[0]):
        # An explicit instant beats any relative phrase ("in the last 5 minutes") elsewhere.
        point = parse_timestamp(m[0])
        if point is not None:
            return TimeWindow(point - timedelta(minutes=30), point + timedelta(minutes=30), "at")
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


_MONTHS = {
    m: i
    for i, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for m in names
}
_WEEKDAYS = {
    name: i
    for i, names in enumerate(
        [
            ("monday", "mon"),
            ("tuesday", "tue", "tues"),
            ("wednesday", "wed"),
            ("thursday", "thu", "thurs"),
            ("friday", "fri"),
            ("saturday", "sat"),
            ("sunday", "sun"),
        ]
    )
    for name in names
}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY_PARTS = {
    "morning": (6, 12),
    "afternoon": (12, 18),
    "evening": (18, 24),
    "night": (18, 30),
}
_CLOCKISH = r"(\d{1,2})(?::(\d{2}))?\s*(am|pm)?"
_RANGE = re.compile(
    rf"(?:\bbetween\s+|\bfrom\s+)?\b{_CLOCKISH}\s*(?:-|–|to|and|until)\s*{_CLOCKISH}"
    r"(?:\s*(?:utc|z)\b)?",
    re.IGNORECASE,
)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})(?![T\d:])")
_MONTH_DAY = re.compile(
    rf"\b(?:({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?|(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH_RE})\b)"
    r"(?:,?\s+(\d{4}))?",
    re.IGNORECASE,
)
_WEEKDAY = re.compile(
    r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
    r"(?:\s+(morning|afternoon|evening|night))?",
    re.IGNORECASE,
)
_DAY_AND_TIME = re.compile(
    r"\b(yesterday|today|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\s+"
    rf"(?:at\s+|around\s+)?{_CLOCKISH}\b(?!\s*(?:-|–|to|and|until)\s*\d)",
    re.IGNORECASE,
)


def _hour(hour: str, minute: str | None, meridiem: str | None) -> tuple[int, int] | None:
    h, m = int(hour), int(minute or 0)
    if meridiem:
        if not 1 <= h <= 12:
            return None
        h = h % 12 + (12 if meridiem.lower() == "pm" else 0)
    if not (0 <= h <= 24 and 0 <= m < 60):
        return None
    return h, m


def _named_date(text: str, now: datetime) -> tuple[datetime, re.Match[str]] | None:
    """The calendar day ``text`` names (ISO or month-day), as its UTC midnight."""
    if (m := _ISO_DATE.search(text)) is not None:
        try:
            return datetime(int(m[1]), int(m[2]), int(m[3]), tzinfo=UTC), m
        except ValueError:
            return None
    if (m := _MONTH_DAY.search(text)) is not None:
        month = _MONTHS[(m[1] or m[4]).lower()]
        day = int(m[2] or m[3])
        year = int(m[5]) if m[5] else now.year
        try:
            date = datetime(year, month, day, tzinfo=UTC)
        except ValueError:
            return None
        if not m[5] and date > now:
            date = date.replace(year=year - 1)
        return date, m
    return None


def _weekday_date(name: str, now: datetime) -> datetime:
    """The latest day named ``name`` not after today."""
    today = _day_start(now)
    back = (today.weekday() - _WEEKDAYS[name.lower()]) % 7
    return today - timedelta(days=back)


def _range_on(day: datetime, m: re.Match[str]) -> TimeWindow | None:
    end_parts = _hour(m[4], m[5], m[6])
    # "9 and 10pm": the meridiem of the end applies to the start when the start has none.
    start_parts = _hour(m[1], m[2], m[3] or (m[6] if m[6] and int(m[1]) <= 12 else None))
    if start_parts is None or end_parts is None:
        return None
    if m[3] is None and m[2] is None and m[6] is None and m[5] is None:
        return None  # "2 to 3" without any clock marker is not a time range
    start = day + timedelta(hours=start_parts[0], minutes=start_parts[1])
    end = day + timedelta(hours=end_parts[0], minutes=end_parts[1])
    if end <= start:
        end += timedelta(days=1)
    return TimeWindow(start, end, "between")


def parse_window(text: str, now: datetime) -> TimeWindow | None:
    """The time window ``text`` names (see the module doc), or None."""
    now = now.astimezone(UTC)
    if (around := _span_beside(text, now)) is not None:
        return around
    if (fired := _fired_at(text, now)) is not None:
        return fired
    if (m := _BETWEEN.search(text)) is not None and all(
        re.match(r"\d{4}-", p.strip()) for p in (m[1], m[2])
    ):
        return _plain_window(text, now)  # two full instants
    named = _named_date(text, now)
    if named is not None:
        day, found = named
        rest = text[: found.start()] + " " + text[found.end() :]
        if (m := _RANGE.search(rest)) is not None and (w := _range_on(day, m)) is not None:
            return w
        point = re.search(rf"\b(?:at|around)\s+{_CLOCKISH}\b", rest, re.IGNORECASE)
        if point is None:
            point = re.search(r"\b(\d{1,2}):(\d{2})()\b", rest)
        if point is not None and (parts := _hour(point[1], point[2], point[3])) is not None:
            at = day + timedelta(hours=parts[0], minutes=parts[1])
            return TimeWindow(at - timedelta(minutes=30), at + timedelta(minutes=30), "at")
        if not re.search(r"\d{1,2}:\d{2}", rest):
            return TimeWindow(day, day + timedelta(days=1), "day")
    if (m := re.search(r"\b(yesterday|today)\b", text, re.IGNORECASE)) is not None:
        # "yesterday between 02:00 and 03:00": the range on that day.
        day = _day_start(now) - timedelta(days=1 if m[1].lower() == "yesterday" else 0)
        rest = text[: m.start()] + " " + text[m.end() :]
        if (r := _RANGE.search(rest)) is not None and (w := _range_on(day, r)) is not None:
            return w
    if (m := _DAY_AND_TIME.search(text)) is not None:
        word = m[1].lower()
        if word == "yesterday":
            day = _day_start(now) - timedelta(days=1)
        elif word == "today":
            day = _day_start(now)
        else:
            day = _weekday_date(word, now)
        parts = _hour(m[2], m[3], m[4])
        if parts is not None and (m[3] is not None or m[4] is not None):
            at = day + timedelta(hours=parts[0], minutes=parts[1])
            return TimeWindow(at - timedelta(minutes=30), at + timedelta(minutes=30), "at")
    if (m := _WEEKDAY.search(text)) is not None:
        day = _weekday_date(m[1], now)
        rest = text[: m.start()] + " " + text[m.end() :]
        if (r := _RANGE.search(rest)) is not None and (w := _range_on(day, r)) is not None:
            return w
        if m[2]:
            first, last = _DAY_PARTS[m[2].lower()]
            return TimeWindow(
                day + timedelta(hours=first), day + timedelta(hours=last), m[2].lower()
            )
        return TimeWindow(day, min(day + timedelta(days=1), now), "day")
    if (m := _RANGE.search(text)) is not None and m[2] is not None and m[5] is not None:
        # A clock range written in full ("08:00-08:30Z", "01:00-02:00 UTC") is the asked window
        # on its latest day not after now, whatever part of the day is named beside it
        # ("this morning 08:00-08:30Z", "overnight 01:00-02:00Z").
        window = _range_on(_day_start(now), m)
        if window is not None and window.start > now:
            window = TimeWindow(
                window.start - timedelta(days=1), window.end - timedelta(days=1), "between"
            )
        if window is not None:
            return window
    if re.search(r"\bthis morning\b", text, re.IGNORECASE):
        today = _day_start(now)
        return TimeWindow(today + timedelta(hours=6), min(now, today + timedelta(hours=12)), "am")
    window = _plain_window(text, now)
    if (
        window is None
        and (m := _RANGE.search(text)) is not None
        and re.search(r"\b(?:between|from)\b", text, re.IGNORECASE)
    ):
        window = _range_on(_day_start(now), m)
        if window is not None and window.start > now:
            window = TimeWindow(
                window.start - timedelta(days=1), window.end - timedelta(days=1), "between"
            )
    return window


#: "failing since ~15:05", "errors started around 14:10", "began failing at 09:32Z": when the
#: text says the failure began (an approximate time: "~", "about", "around" may precede it).
_STATED_ONSET = re.compile(
    rf"\b(?:since|started|starting|began|begun|beginning|broke|breaking)\s+"
    rf"(?:[a-z]+ing(?:\s+out)?\s+)?"  # "began failing at", "started timing out around"
    rf"(?:(?:at|around|about|approx(?:imately)?\.?|roughly|circa|ca\.)\s*|~\s*)*({_POINT})",
    re.IGNORECASE,
)


def stated_onset(text: str, now: datetime) -> datetime | None:
    """When ``text`` says the failure began ("since ~15:05", "started around 14:10"), at or
    before ``now``; None when it states no such time: a day alone ("since yesterday", "since
    2026-10-06") is not an onset, only a time of day is, and an instant outside the range
    `parse_instant` accepts is none.

    >>> from datetime import UTC, datetime
    >>> now = datetime(2026, 10, 7, 15, 40, tzinfo=UTC)
    >>> stated_onset("why is orders-api failing since ~15:05 today?", now).isoformat()
    '2026-10-07T15:05:00+00:00'
    >>> stated_onset("why is it failing since yesterday?", now) is None
    True
    >>> stated_onset("why is it failing since 2026-10-06?", now) is None
    True
    """
    now = now.astimezone(UTC)
    for m in _STATED_ONSET.finditer(text):
        if ":" not in m[1]:  # a date without a time of day
            continue
        point = _point(m[1], now)
        if point is not None and EARLIEST_INSTANT <= point <= now:
            return point
    return None


#: "in the 40 min after that", "the 10 minutes before it": a span beside an instant.
_BESIDE = re.compile(
    r"\b(?:in\s+|during\s+|for\s+)?the\s+(\d+(?:\.\d+)?|half\s+an?|an?)\s*"
    r"(m|mins?|minutes?|h|hrs?|hours?)\s+(after|following|since|before|prior|leading\s+up)\b",
    re.IGNORECASE,
)


def _span_beside(text: str, now: datetime) -> TimeWindow | None:
    """``... at 2026-09-15T22:00Z - what did it log in the 40 min after that?``: the span after
    (or before) the one instant the text names."""
    m = _BESIDE.search(text)
    if m is None:
        return None
    instants = re.findall(_POINT, text[: m.start()] + " " + text[m.end() :])
    if len(instants) != 1 or (point := _point(instants[0], now)) is None:
        return None
    amount_text = m[1].lower()
    amount = (
        0.5
        if amount_text.startswith("half")
        else 1.0
        if amount_text in ("a", "an")
        else float(amount_text)
    )
    span = timedelta(seconds=amount * _UNITS[m[2].lower()])
    if m[3].lower() in ("after", "following", "since"):
        return TimeWindow(point, min(point + span, max(now, point)), "after")
    return TimeWindow(point - span, point, "before")


_FIRED = re.compile(
    rf"\b(?:fired|triggered|alerted|paged|went off|started firing|firing since|opened)\s+"
    rf"(?:at|around|on)?\s*({_ISO}|{_CLOCK})",
    re.IGNORECASE,
)


def _fired_at(text: str, now: datetime) -> TimeWindow | None:
    """``fired at 12:30``: the hour before the alert, ending when it fired."""
    m = _FIRED.search(text)
    if m is None:
        return None
    point = _point(m[1], now)
    if point is None:
        return None
    return TimeWindow(point - timedelta(hours=1), point, "fired")


# --- services -----------------------------------------------------------------------------------

_NOT_ALIASES = frozenset({"deploy", "db", "api", "web", "app", "the", "data"})


def match_services(
    text: str, services: Iterable[str], aliases: Mapping[str, str] | None = None
) -> list[str]:
    """The known ``services`` that ``text`` names, sorted: by full name, by the part before the
    last hyphen (``payments`` for ``payments-api``, singular or plural, not for ``deploy-bot``),
    or by an explicit ``aliases`` entry (alias -> service)."""
    lowered = text.lower()
    words = set(re.findall(r"[a-z0-9][a-z0-9_]*", lowered))
    found: set[str] = set()
    known = list(services)
    for service in known:
        name = service.lower()
        if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", lowered):
            found.add(service)
            continue
        base = name.rpartition("-")[0] or ""
        if not base or "-" in base or base in _NOT_ALIASES or len(base) < 3:
            continue
        if {base, base.rstrip("s"), base + "s"} & words:
            found.add(service)
    for alias, service in (aliases or {}).items():
        if service in known and re.search(rf"\b{re.escape(alias.lower())}\b", lowered):
            found.add(service)
    return sorted(found)
