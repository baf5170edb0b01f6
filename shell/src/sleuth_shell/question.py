"""Question understanding: what an on-call question asks, read without a model.

`understand(text, now, services)` returns a `Question`: the time window it names, the services it
names (full names, base names, plural/singular, explicit aliases), the log levels it asks about,
whether it asks for the window "since the deploy" (resolved by the agent from the logs), and its
intent: ``fact`` (a value, threshold, owner), ``how-to`` (a procedure or command), ``errors`` (what
was logged), ``cause`` ("why", "root cause") or ``count`` ("how many").

Time forms, on top of `sleuth_shell.text.infer_window` (``last 90 minutes``, ``since 09:00``,
``between 09:00 and 10:30``, ``yesterday``, ISO points, ...), all UTC:

- a date with a clock range: ``2026-03-14 21:00-22:30 UTC``, ``on 2026-03-14 between 21:00 and
  22:30``, ``Mar 14 between 9 and 10pm UTC``, ``14 March from 9pm to 10pm``;
- a date alone: ``on 2026-03-14``, ``Mar 14`` (the whole day; a month-day without a year is its
  latest occurrence not after ``now``);
- a day and a time: ``yesterday 14:00``, ``yesterday at 2pm``, ``Saturday 21:30`` (30 minutes
  either side);
- weekday names: ``on Saturday`` (that whole day, its latest occurrence before today, or today when
  it is today), ``Saturday night`` (18:00 to 06:00 the next morning), ``Friday morning``
  (06:00-12:00), ``afternoon`` (12:00-18:00), ``evening`` (18:00-24:00);
- ``this morning`` (06:00-12:00 today, up to ``now``);
- ``since the deploy``: sets `Question.since_deploy`; the window is resolved by the caller.

Pure: the clock is passed in; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal

from sleuth_shell.text import TimeWindow, infer_window

__all__ = ["Intent", "Question", "match_service_names", "parse_window", "understand"]

Intent = Literal["fact", "how-to", "errors", "cause", "count"]

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
_SINCE_DEPLOY = re.compile(
    r"\bsince\s+(?:the\s+)?(?:last\s+|latest\s+)?(?:deploy(?:ment)?|release|rollout)\b",
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


def _day_start(value: datetime) -> datetime:
    return value.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


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
    if re.search(r"\bthis morning\b", text, re.IGNORECASE):
        today = _day_start(now)
        return TimeWindow(today + timedelta(hours=6), min(now, today + timedelta(hours=12)), "am")
    window = infer_window(text, now)
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


# --- services -----------------------------------------------------------------------------------

_NOT_ALIASES = frozenset({"deploy", "db", "api", "web", "app", "the", "data"})


def match_service_names(
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


# --- levels and intent --------------------------------------------------------------------------

_ERRORS = ("ERROR", "CRITICAL")
_LEVEL_WORDS = (
    (re.compile(r"\bcritical\b", re.IGNORECASE), ("CRITICAL",)),
    (re.compile(r"\b(?:errors?|exceptions?|fail(?:ures?|ing|ed)|5xx|5\d\d)\b", re.I), _ERRORS),
    (re.compile(r"\bwarn(?:ings?|s)?\b", re.IGNORECASE), ("WARNING",)),
    (re.compile(r"\bdebug\b", re.IGNORECASE), ("DEBUG",)),
    (re.compile(r"\binfo\b", re.IGNORECASE), ("INFO",)),
)
_CAUSE = re.compile(
    r"^\s*why\b|\broot[- ]cause\b|\bwhat\s+(?:caused|broke|triggered)\b|\bcause\s+of\b|"
    r"\breason\s+(?:for|why)\b|\bwhy\s+(?:is|are|was|were|did|does|do)\b",
    re.IGNORECASE,
)
_COUNT = re.compile(
    r"\bhow\s+many\b|\bcount\b|\bnumber\s+of\b|\bhow\s+often\s+did\b", re.IGNORECASE
)
_HOW_TO = re.compile(
    r"^\s*(?:how\s+(?:do|to|can|should|would)|what(?:'s| is)\s+the\s+(?:procedure|process|steps?|"
    r"command)|which\s+command|steps\s+to)\b",
    re.IGNORECASE,
)
_LOGGED = re.compile(
    r"\b(?:log(?:s|ged)?|report(?:ed)?|throw\w*|errors|warnings|exceptions|fail(?:ed|ing|ures)|"
    r"timeouts|timed out|5xx|incidents?|outages?|went wrong|happen\w*|broken|down)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Question:
    """What a question asks (see the module doc)."""

    text: str
    intent: Intent
    window: TimeWindow | None
    services: list[str] = field(default_factory=list)
    levels: tuple[str, ...] | None = None
    since_deploy: bool = False

    @property
    def about_logs(self) -> bool:
        """True when the answer should come from the logs."""
        return self.intent in ("errors", "cause", "count")


def understand(
    text: str,
    now: datetime,
    services: Iterable[str] = (),
    aliases: Mapping[str, str] | None = None,
) -> Question:
    """Read ``text`` at ``now`` against the organization's ``services`` (see the module doc)."""
    known = list(services)
    named = match_service_names(text, known, aliases)
    window = parse_window(text, now)
    since_deploy = _SINCE_DEPLOY.search(text) is not None
    levels: tuple[str, ...] | None = None
    for pattern, found in _LEVEL_WORDS:
        if pattern.search(text):
            levels = found
            break
    logged = _LOGGED.search(text) is not None
    intent: Intent
    if _CAUSE.search(text):
        intent = "cause"
    elif _COUNT.search(text) and (logged or window is not None):
        intent = "count"
    elif _HOW_TO.search(text):
        intent = "how-to"
    elif (logged and (named or window is not None or since_deploy)) or (window and named):
        intent = "errors"
    else:
        intent = "fact"
    return Question(text, intent, window, named, levels, since_deploy)
