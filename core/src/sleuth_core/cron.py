"""Five-field cron schedules with Monday = 0, evaluated in UTC.

A digest agent's ``schedule`` is a cron expression of five whitespace-separated fields::

    minute  hour  day-of-month  month  day-of-week
    0-59    0-23  1-31          1-12   0-6 (0 is Monday, 6 is Sunday)

Each field is ``*`` or a comma-separated list of items; an item is a number, a range ``a-b``, or
either of those (or ``*``) followed by a step ``/n``. ``a/n`` means ``a-<field maximum>/n`` (as in
croniter and cronsim). Months and weekdays may also be written as three-letter English names
(``JAN``..``DEC``, ``MON``..``SUN``, any case), also inside ranges (``MON-FRI``).

Differences from Vixie (Debian) cron, on purpose:

- Day of week counts from Monday: ``0`` is Monday and ``6`` is Sunday. ``7`` is refused rather
  than read as Sunday, because in this numbering it could only be a mistake. Names mean the same
  day in both conventions (``SUN`` is Sunday, our ``6``). :class:`Weekday` is the one place where
  the numbering is stated.
- ``?``, ``L``, ``W``, ``#`` and ``@`` macros (``@daily`` ...) are refused, as are reversed
  ("wrap-around") ranges such as ``22-2``; every refusal names the field and the problem.
- An expression that can never fire (``0 0 31 2 *``: February has no 31st) is refused.

Kept from Vixie cron: when day of month and day of week are both restricted (neither field starts
with ``*``), a day matches if either matches; otherwise both must.

Evaluation works on precomputed tables (for each field value, the next and previous allowed value)
and jumps field by field, so :meth:`CronSchedule.next_after` costs a few table look-ups however
sparse the schedule is. Every search is bounded by :data:`HORIZON_YEARS`.
"""

from __future__ import annotations

import calendar
from collections.abc import Sequence
from datetime import UTC, date, datetime
from enum import IntEnum
from typing import Final

from sleuth_core.errors import InvalidSchedule

__all__ = [
    "HORIZON_YEARS",
    "MAX_EXPRESSION_LENGTH",
    "CronSchedule",
    "NoFireTime",
    "Weekday",
    "parse_cron",
]


HORIZON_YEARS: Final = 50
"""How many years :meth:`CronSchedule.next_after` and :meth:`~CronSchedule.previous_before` search.

Every expression :func:`parse_cron` accepts fires at least once in any 40 consecutive years (the
longest gap is a 29 February that must also be a given weekday), so within this horizon a search
only comes back empty at the ends of ``datetime``'s range (years 1 and 9999); it then raises
:class:`NoFireTime`.
"""

MAX_EXPRESSION_LENGTH: Final = 1000
"""Longest expression :func:`parse_cron` reads; longer ones are refused."""


class Weekday(IntEnum):
    """Days of the week as the ``day-of-week`` field numbers them: Monday is 0, Sunday is 6.

    This is Python's ``date.weekday()`` numbering, and differs from Vixie cron, where 0 (and 7) is
    Sunday and Monday is 1. The three-letter names (``MON``..``SUN``) mean the same day in both.
    """

    MONDAY = 0
    TUESDAY = 1
    WEDNESDAY = 2
    THURSDAY = 3
    FRIDAY = 4
    SATURDAY = 5
    SUNDAY = 6


class NoFireTime(LookupError):
    """No fire time lies within :data:`HORIZON_YEARS` of the given instant or within years 1-9999.

    For an accepted expression this only happens at the ends of ``datetime``'s range.
    """


class _Field:
    """How one of the five fields is named, bounded and spelled."""

    __slots__ = ("high", "kind", "label", "low", "names")

    def __init__(self, label: str, low: int, high: int, names: dict[str, int], kind: str) -> None:
        self.label = label
        self.low = low
        self.high = high
        self.names = names
        self.kind = kind  # what a value is called in messages: "number", "month", "weekday"

    def range_text(self) -> str:
        text = f"{self.low}-{self.high}"
        return f"{text} (0 is Monday)" if self.label == "day-of-week" else text


_MONTH_FULL_NAMES = (
    "",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
# Spelled out rather than taken from `calendar.month_abbr`, which follows the process locale.
_MONTH_NAMES = {name[:3].upper(): number for number, name in enumerate(_MONTH_FULL_NAMES) if name}
_WEEKDAY_NAMES = {day.name[:3]: int(day) for day in Weekday}

_MINUTE = _Field("minute", 0, 59, {}, "number")
_HOUR = _Field("hour", 0, 23, {}, "number")
_DAY = _Field("day-of-month", 1, 31, {}, "number")
_MONTH = _Field("month", 1, 12, _MONTH_NAMES, "month")
_WEEKDAY = _Field("day-of-week", 0, 6, _WEEKDAY_NAMES, "weekday")
_FIELDS = (_MINUTE, _HOUR, _DAY, _MONTH, _WEEKDAY)

_DIGITS = frozenset("0123456789")
# Longest month, by month number (index 0 unused); February counted with its leap day.
_MAX_MONTH_DAYS = (0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_COMMON_MONTH_DAYS = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


# --------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------


def parse_cron(expr: str) -> CronSchedule:
    """Parse a five-field, Monday-zero cron expression.

    >>> schedule = parse_cron("0 9 * * MON-FRI")
    >>> schedule.next_after(datetime(2026, 1, 3, 12, 0, tzinfo=UTC)).isoformat()
    '2026-01-05T09:00:00+00:00'

    Raises :class:`~sleuth_core.errors.InvalidSchedule` whose message names the field and the
    problem, e.g. ``day-of-week: '7' is out of range 0-6 (0 is Monday)``.
    """
    if not isinstance(expr, str):
        raise InvalidSchedule(f"the schedule must be a string, not {type(expr).__name__}")
    if len(expr) > MAX_EXPRESSION_LENGTH:
        raise InvalidSchedule(
            f"the expression is {len(expr)} characters long; at most {MAX_EXPRESSION_LENGTH} "
            "are allowed"
        )
    parts = expr.split()
    if not parts:
        raise InvalidSchedule(
            "the expression is empty; write five fields: minute hour day-of-month month "
            "day-of-week, e.g. '0 9 * * 0-4'"
        )
    if parts[0].startswith("@"):
        raise InvalidSchedule(
            f"macros such as '{parts[0]}' are not supported; write the five fields instead, "
            "e.g. '0 0 * * *' for daily at midnight UTC"
        )
    if len(parts) != 5:
        raise InvalidSchedule(
            f"expected 5 fields (minute hour day-of-month month day-of-week), got {len(parts)}"
        )
    values = [_parse_field(field, text) for field, text in zip(_FIELDS, parts, strict=True)]
    # Vixie cron: the two day fields are OR-ed only when neither starts with '*'.
    days_or = not parts[2].startswith("*") and not parts[4].startswith("*")
    if not days_or:
        _check_day_exists(values[2], values[3])
    return CronSchedule(expr, *values, days_or=days_or)


def _parse_field(field: _Field, text: str) -> tuple[int, ...]:
    allowed: set[int] = set()
    for item in text.split(","):
        if not item:
            raise InvalidSchedule(f"{field.label}: empty item in '{text}'")
        allowed.update(_parse_item(field, item))
    return tuple(sorted(allowed))


def _parse_item(field: _Field, item: str) -> range:
    for char, what in (("?", "'?' (no specific value)"), ("#", "'#' (nth weekday of the month)")):
        if char in item:
            hint = "; use '*'" if char == "?" else ""
            raise InvalidSchedule(
                f"{field.label}: '{item}' uses {what}, which is not supported{hint}"
            )
    base, slash, step_text = item.partition("/")
    if base == "*":
        low, high = field.low, field.high
    elif "-" in base:
        first, _, last = base.partition("-")
        low, high = _parse_value(field, first, item), _parse_value(field, last, item)
        if low > high:
            raise InvalidSchedule(
                f"{field.label}: range '{base}' is reversed; wrap-around ranges are not supported, "
                f"write '{first}-{field.high},{field.low}-{last}' instead"
            )
    else:
        low = _parse_value(field, base, item)
        high = field.high if slash else low
    if not slash:
        return range(low, high + 1)
    span = field.high - field.low + 1
    if not step_text or not _DIGITS.issuperset(step_text) or not 1 <= int(step_text) <= span:
        raise InvalidSchedule(
            f"{field.label}: step '{step_text}' in '{item}' must be a whole number from 1 to {span}"
        )
    return range(low, high + 1, int(step_text))


def _parse_value(field: _Field, token: str, item: str) -> int:
    if token and _DIGITS.issuperset(token):
        value = int(token)
        if not field.low <= value <= field.high:
            raise InvalidSchedule(f"{field.label}: '{token}' is out of range {field.range_text()}")
        return value
    upper = token.upper()
    if upper in field.names:
        return field.names[upper]
    if upper in {"L", "LW"} or (upper.endswith("L") and _DIGITS.issuperset(upper[:-1])):
        raise InvalidSchedule(f"{field.label}: '{item}' uses 'L' (last), which is not supported")
    if upper.endswith("W") and _DIGITS.issuperset(upper[:-1]):
        raise InvalidSchedule(
            f"{field.label}: '{item}' uses 'W' (nearest weekday), which is not supported"
        )
    if not token:
        raise InvalidSchedule(f"{field.label}: '{item}' is missing a value")
    if field.kind == "weekday":
        expected = "a weekday (MON..SUN, or 0-6 where 0 is Monday)"
    elif field.kind == "month":
        expected = "a month (JAN..DEC, or 1-12)"
    else:
        expected = "a number"
    raise InvalidSchedule(f"{field.label}: '{token}' is not {expected}")


def _check_day_exists(days: tuple[int, ...], months: tuple[int, ...]) -> None:
    """Refuse a day-of-month that no allowed month has (only when it must match on its own)."""
    if days[0] <= max(_MAX_MONTH_DAYS[month] for month in months):
        return
    names = ", ".join(_MONTH_FULL_NAMES[month] for month in months)
    raise InvalidSchedule(
        f"day-of-month: no day in {_spell(days)} exists in {names}, "
        "so the schedule would never fire"
    )


def _spell(values: Sequence[int]) -> str:
    return ",".join(str(value) for value in values)


# --------------------------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------------------------


def _next_table(allowed: Sequence[int], size: int) -> list[int]:
    """``table[i]`` is the smallest allowed value >= i, or -1; indexes 0..size (size is -1)."""
    table = [-1] * (size + 1)
    following = -1
    members = set(allowed)
    for i in range(size - 1, -1, -1):
        if i in members:
            following = i
        table[i] = following
    return table


def _previous_table(allowed: Sequence[int], size: int) -> list[int]:
    """``table[i]`` is the largest allowed value <= i, or -1; indexes 0..size-1."""
    table = [-1] * size
    preceding = -1
    members = set(allowed)
    for i in range(size):
        if i in members:
            preceding = i
        table[i] = preceding
    return table


_MONTH_CACHE_LIMIT: Final = 4096


class CronSchedule:
    """A parsed cron expression: answers when it fires. Build one with :func:`parse_cron`.

    Instants are ``datetime`` objects. Aware ones are converted to UTC, naive ones are taken as
    UTC; results are always aware, in UTC, on whole minutes.
    """

    __slots__ = (
        "_days_next",
        "_days_previous",
        "_first_day",
        "_first_hour",
        "_first_minute",
        "_hour_next",
        "_hour_ok",
        "_hour_previous",
        "_last_day",
        "_last_hour",
        "_last_minute",
        "_minute_next",
        "_minute_ok",
        "_minute_previous",
        "_month_next",
        "_month_ok",
        "_month_previous",
        "_next_days_cache",
        "_previous_days_cache",
        "_weekday_matters",
        "days_of_month",
        "days_of_week",
        "days_or",
        "expression",
        "hours",
        "minutes",
        "months",
    )

    expression: str
    """The expression exactly as given to :func:`parse_cron`."""
    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    days_of_month: tuple[int, ...]
    months: tuple[int, ...]
    days_of_week: tuple[int, ...]
    """Allowed values of each field, ascending (days of week as :class:`Weekday` numbers)."""
    days_or: bool
    """Whether a day matches when its day of month *or* its day of week does (both restricted)."""

    def __init__(
        self,
        expression: str,
        minutes: tuple[int, ...],
        hours: tuple[int, ...],
        days_of_month: tuple[int, ...],
        months: tuple[int, ...],
        days_of_week: tuple[int, ...],
        *,
        days_or: bool,
    ) -> None:
        self.expression = expression
        self.minutes = minutes
        self.hours = hours
        self.days_of_month = days_of_month
        self.months = months
        self.days_of_week = days_of_week
        self.days_or = days_or

        self._minute_next = _next_table(minutes, 60)
        self._minute_previous = _previous_table(minutes, 60)
        self._minute_ok = [value in minutes for value in range(60)]
        self._hour_next = _next_table(hours, 24)
        self._hour_previous = _previous_table(hours, 24)
        self._hour_ok = [value in hours for value in range(24)]
        self._month_next = _next_table(months, 13)
        self._month_previous = _previous_table(months, 13)
        self._month_ok = [value in months for value in range(13)]
        self._first_minute, self._last_minute = minutes[0], minutes[-1]
        self._first_hour, self._last_hour = hours[0], hours[-1]
        # Which days of a month match depends on its length and, unless every weekday is
        # allowed, on the weekday of its first day. Tables are shared between months alike.
        self._weekday_matters = len(days_of_week) < 7
        # Otherwise the first and last allowed day of each month, by month (13 is a leap February).
        self._first_day = [-1] * 14
        self._last_day = [-1] * 14
        if not self._weekday_matters:
            for month, length in [*enumerate(_COMMON_MONTH_DAYS), (13, 29)]:
                allowed = [day for day in range(1, length + 1) if self._day_ok(day, 0)]
                if month and allowed:
                    self._first_day[month], self._last_day[month] = allowed[0], allowed[-1]
        self._days_next: dict[tuple[int, int], list[int]] = {}
        self._days_previous: dict[tuple[int, int], list[int]] = {}
        # (year * 16 + month) -> next-day and previous-day tables of an allowed month.
        self._next_days_cache: dict[int, list[int]] = {}
        self._previous_days_cache: dict[int, list[int]] = {}

    def __repr__(self) -> str:
        return f"parse_cron({self.expression!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CronSchedule):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[object, ...]:
        return (
            self.minutes,
            self.hours,
            self.days_of_month,
            self.months,
            self.days_of_week,
            self.days_or,
        )

    # -- days of a month ----------------------------------------------------------------------

    def _month_days(self, year: int, month: int) -> tuple[list[int], list[int]]:
        """Next/previous allowed day tables (indexes 0..32) for an allowed month of a year."""
        key = year * 16 + month
        following = self._next_days_cache.get(key)
        if following is None:
            length = _COMMON_MONTH_DAYS[month]
            if month == 2 and calendar.isleap(year):
                length = 29
            first = date(year, month, 1).weekday() if self._weekday_matters else 0
            shape = (length, first)
            following = self._days_next.get(shape)
            if following is None:
                allowed = [day for day in range(1, length + 1) if self._day_ok(day, first)]
                following = self._days_next[shape] = _next_table(allowed, 33)
                self._days_previous[shape] = _previous_table(allowed, 33)
            if len(self._next_days_cache) >= _MONTH_CACHE_LIMIT:
                self._next_days_cache.clear()
                self._previous_days_cache.clear()
            self._next_days_cache[key] = following
            self._previous_days_cache[key] = self._days_previous[shape]
        return following, self._previous_days_cache[key]

    def _day_ok(self, day: int, first_weekday: int) -> bool:
        by_date = day in self.days_of_month
        by_weekday = (first_weekday + day - 1) % 7 in self.days_of_week
        return (by_date or by_weekday) if self.days_or else (by_date and by_weekday)

    # -- public queries -----------------------------------------------------------------------

    def matches(self, dt: datetime) -> bool:
        """Whether ``dt`` is a fire time: a whole minute (no seconds) the expression selects."""
        if type(dt) is not datetime or dt.tzinfo is not UTC:
            dt = _to_utc(dt)
        if dt.second or dt.microsecond or not self._month_ok[dt.month]:
            return False
        if not (self._minute_ok[dt.minute] and self._hour_ok[dt.hour]):
            return False
        return self._month_days(dt.year, dt.month)[0][dt.day] == dt.day

    def next_after(self, dt: datetime) -> datetime:
        """The first fire time strictly after ``dt``, as an aware UTC datetime.

        Raises :class:`NoFireTime` when there is none within :data:`HORIZON_YEARS` years (only at
        the end of ``datetime``'s range for an accepted expression).
        """
        if type(dt) is not datetime or dt.tzinfo is not UTC:
            dt = _to_utc(dt)
        year, month, day, hour = dt.year, dt.month, dt.day, dt.hour
        if self._month_ok[month]:
            following = (
                self._next_days_cache.get(year * 16 + month) or self._month_days(year, month)[0]
            )
            if following[day] == day:
                # Later today: this hour, then a later hour.
                if self._hour_ok[hour]:
                    minute = self._minute_next[dt.minute + 1]
                    if minute >= 0:
                        return datetime(year, month, day, hour, minute, tzinfo=UTC)
                hour = self._hour_next[hour + 1]
                if hour >= 0:
                    return datetime(year, month, day, hour, self._first_minute, tzinfo=UTC)
            day = following[day + 1]
        else:
            day = -1
        if day < 0:
            # A later month: the first allowed day of each allowed month in turn.
            limit = year + HORIZON_YEARS
            month_next = self._month_next
            first_day = None if self._weekday_matters else self._first_day
            while day < 0:
                month = month_next[month + 1]
                if month < 0:
                    year += 1
                    if year > limit or year > 9999:
                        raise NoFireTime(
                            f"'{self.expression}' does not fire within {HORIZON_YEARS} years "
                            f"after {dt.isoformat()} (or before the end of year 9999)"
                        )
                    month = self.months[0]
                if first_day is None:
                    day = self._month_days(year, month)[0][1]
                elif month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0):
                    day = first_day[13]
                else:
                    day = first_day[month]
        return datetime(year, month, day, self._first_hour, self._first_minute, tzinfo=UTC)

    def previous_before(self, dt: datetime) -> datetime:
        """The last fire time strictly before ``dt``, as an aware UTC datetime.

        Raises :class:`NoFireTime` when there is none within :data:`HORIZON_YEARS` years (only at
        the start of ``datetime``'s range for an accepted expression).
        """
        if type(dt) is not datetime or dt.tzinfo is not UTC:
            dt = _to_utc(dt)
        year, month, day, hour = dt.year, dt.month, dt.day, dt.hour
        # The minute containing dt is itself before dt unless dt is exactly on it.
        minute = dt.minute if (dt.second or dt.microsecond) else dt.minute - 1
        if self._month_ok[month]:
            preceding = (
                self._previous_days_cache.get(year * 16 + month) or self._month_days(year, month)[1]
            )
            if preceding[day] == day:
                # Earlier today: this hour, then an earlier hour.
                if self._hour_ok[hour] and minute >= 0:
                    minute = self._minute_previous[minute]
                    if minute >= 0:
                        return datetime(year, month, day, hour, minute, tzinfo=UTC)
                if hour > 0:
                    hour = self._hour_previous[hour - 1]
                    if hour >= 0:
                        return datetime(year, month, day, hour, self._last_minute, tzinfo=UTC)
            day = preceding[day - 1]
        else:
            day = -1
        if day < 0:
            # An earlier month: the last allowed day of each allowed month in turn.
            limit = year - HORIZON_YEARS
            month_previous = self._month_previous
            last_day = None if self._weekday_matters else self._last_day
            while day < 0:
                month = month_previous[month - 1]
                if month < 0:
                    year -= 1
                    if year < limit or year < 1:
                        raise NoFireTime(
                            f"'{self.expression}' does not fire within {HORIZON_YEARS} years "
                            f"before {dt.isoformat()} (or after the start of year 1)"
                        )
                    month = self.months[-1]
                if last_day is None:
                    day = self._month_days(year, month)[1][32]
                elif month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0):
                    day = last_day[13]
                else:
                    day = last_day[month]
        return datetime(year, month, day, self._last_hour, self._last_minute, tzinfo=UTC)


def _to_utc(dt: datetime) -> datetime:
    """``dt`` as a plain aware UTC datetime; naive values are taken to be UTC already."""
    if not isinstance(dt, datetime):
        raise TypeError(f"expected a datetime, got {type(dt).__name__}")
    if dt.tzinfo is None or dt.utcoffset() is None:
        dt = dt.replace(tzinfo=UTC)
    else:
        dt = dt.astimezone(UTC)
    if type(dt) is not datetime:
        dt = datetime(
            dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, dt.microsecond, tzinfo=UTC
        )
    return dt
