"""sleuth_core.cron against croniter, the reference, with day-of-week numbers translated.

Random expressions are built from a small structure, rendered twice: once in our syntax and once
for croniter, where our weekday number d is croniter's (d + 1) % 7 (names stay names), and where
croniter's ``day_or`` flag is set from our rule (OR only when neither day field starts with '*').
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from itertools import pairwise

from croniter import croniter
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sleuth_core.cron import parse_cron
from sleuth_core.errors import InvalidSchedule

WEEKDAY_NAMES = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"]
MONTH_NAMES = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]


@dataclass(frozen=True)
class Item:
    """One list item of a field: values low..high every step; how it is written."""

    low: int
    high: int
    step: int
    form: str  # "star", "value", "range", "start-step"
    named: bool  # written with names (months and weekdays only)

    def values(self) -> set[int]:
        return set(range(self.low, self.high + 1, self.step))


def render_item(item: Item, names: list[str] | None, offset: int) -> str:
    def spell(value: int) -> str:
        return names[value - offset] if item.named and names else str(value)

    step = f"/{item.step}" if item.step > 1 else ""
    if item.form == "star":
        return f"*{step}"
    if item.form == "value":
        return spell(item.low)
    if item.form == "start-step":
        return f"{spell(item.low)}/{item.step}"
    return f"{spell(item.low)}-{spell(item.high)}{step}"


@st.composite
def items(draw, low: int, high: int, nameable: bool, star: bool) -> Item:
    forms = ["star"] if star else ["value", "value", "range", "range", "start-step"]
    form = draw(st.sampled_from(forms))
    named = nameable and form != "star" and draw(st.booleans())
    span = high - low + 1
    if form == "star":
        return Item(low, high, draw(st.integers(1, span)), form, False)
    start = draw(st.integers(low, high))
    if form == "value":
        return Item(start, start, 1, form, named)
    if form == "start-step":
        return Item(start, high, draw(st.integers(1, span)), form, named)
    # Ranges of at least two values: croniter reads an equal range 'a-a' as the whole field.
    assume(start < high)
    end = draw(st.integers(start + 1, high))
    step = draw(st.sampled_from([1, 1, 2, 3, draw(st.integers(1, span))]))
    return Item(start, end, step, form, named)


@st.composite
def fields(draw, low: int, high: int, nameable: bool = False) -> list[Item] | None:
    """None stands for a bare '*'."""
    shape = draw(st.integers(0, 4))
    if shape == 0:
        return None
    if shape == 1:
        # '*/n' stands alone: croniter misreads a '*' inside a list ('1,*').
        return [draw(items(low, high, nameable, star=True))]
    return draw(st.lists(items(low, high, nameable, star=False), min_size=1, max_size=3))


def render(field: list[Item] | None, names: list[str] | None = None, offset: int = 0) -> str:
    if field is None:
        return "*"
    return ",".join(render_item(item, names, offset) for item in field)


def render_weekdays_for_croniter(field: list[Item] | None) -> str:
    """Our Monday-zero weekday field in croniter's Sunday-zero numbering."""
    if field is None:
        return "*"
    parts = []
    for item in field:
        if item.form == "value" and item.named:
            parts.append(WEEKDAY_NAMES[item.low])  # names mean the same day in both
        else:
            parts.extend(str((day + 1) % 7) for day in sorted(item.values()))
    return ",".join(parts)


@dataclass(frozen=True)
class Case:
    ours: str
    theirs: str
    day_or: bool


@st.composite
def expressions(draw) -> Case:
    minute = draw(fields(0, 59))
    hour = draw(fields(0, 23))
    day = draw(fields(1, 31))
    month = draw(fields(1, 12, nameable=True))
    weekday = draw(fields(0, 6, nameable=True))
    head = f"{render(minute)} {render(hour)} {render(day)} {render(month, MONTH_NAMES, 1)}"
    ours = f"{head} {render(weekday, WEEKDAY_NAMES)}"
    theirs = f"{head} {render_weekdays_for_croniter(weekday)}"
    day_text, weekday_text = ours.split()[2], ours.split()[4]
    day_or = not day_text.startswith("*") and not weekday_text.startswith("*")
    return Case(ours, theirs, day_or)


instants = st.datetimes(
    min_value=datetime(1990, 1, 1), max_value=datetime(2090, 12, 31), timezones=st.just(UTC)
)


def parse_or_skip(case: Case):
    try:
        return parse_cron(case.ours)
    except InvalidSchedule as error:
        # The only generated expressions we refuse are those that can never fire.
        assert "so the schedule would never fire" in str(error), (case, error)
        assume(False)


@settings(max_examples=250, deadline=None)
@given(expressions(), instants)
def test_next_after_matches_croniter(case, start):
    schedule = parse_or_skip(case)
    reference = croniter(case.theirs, start, day_or=case.day_or)
    expected = [reference.get_next(datetime) for _ in range(3)]
    got, t = [], start
    for _ in range(3):
        t = schedule.next_after(t)
        got.append(t)
    assert got == expected, case


@settings(max_examples=150, deadline=None)
@given(expressions(), instants)
def test_previous_before_matches_croniter(case, start):
    schedule = parse_or_skip(case)
    reference = croniter(case.theirs, start, day_or=case.day_or)
    expected = [reference.get_prev(datetime) for _ in range(3)]
    got, t = [], start
    for _ in range(3):
        t = schedule.previous_before(t)
        got.append(t)
    assert got == expected, case


@settings(max_examples=200, deadline=None)
@given(expressions(), instants)
def test_next_and_previous_are_consistent(case, t):
    schedule = parse_or_skip(case)
    following = schedule.next_after(t)
    preceding = schedule.previous_before(t)
    assert preceding < t < following
    assert schedule.matches(following) and schedule.matches(preceding)
    # Nothing fires strictly between them except, possibly, t itself.
    assert schedule.previous_before(following) == (t if schedule.matches(t) else preceding)
    assert schedule.next_after(preceding) == (t if schedule.matches(t) else following)
    assert schedule.previous_before(schedule.next_after(t)) <= t
    assert schedule.next_after(schedule.previous_before(t)) >= t


@settings(max_examples=150, deadline=None)
@given(expressions(), instants)
def test_matches_agrees_with_croniter_match(case, t):
    schedule = parse_or_skip(case)
    minute = t.replace(second=0, microsecond=0)
    assert schedule.matches(minute) == croniter.match(case.theirs, minute, day_or=case.day_or)


@settings(max_examples=100, deadline=None)
@given(expressions(), instants, st.integers(-14 * 60, 14 * 60))
def test_any_offset_means_the_same_instant(case, t, offset_minutes):
    schedule = parse_or_skip(case)
    local = t.astimezone(timezone(timedelta(minutes=offset_minutes)))
    assert schedule.next_after(local) == schedule.next_after(t)
    assert schedule.previous_before(local) == schedule.previous_before(t)
    assert schedule.next_after(t.replace(tzinfo=None)) == schedule.next_after(t)


BENCHMARK_EXPRESSIONS = [
    # (ours, croniter's, how many successive fires)
    ("*/5 * * * *", "*/5 * * * *", 20_000),
    ("0 9 * * 0-4", "0 9 * * 1-5", 20_000),
    ("30 8 1,15 * *", "30 8 1,15 * *", 20_000),
    ("0 */6 * * *", "0 */6 * * *", 20_000),
    ("15 14 1 * *", "15 14 1 * *", 20_000),
    ("0 0 29 2 *", "0 0 29 2 *", 1_000),
    ("0 12 * * 4", "0 12 * * 5", 20_000),
]


def test_benchmark_chains_equal_croniter():
    """The chains benchmarks/test_bench_cron.py times are the chains croniter produces.

    croniter needs about 15 s for all 121,000 fires, so it checks 10 windows of 100 successive
    fires spread evenly over each chain (the first window starting at 2026-01-01T00:00Z, the last
    one ending at the chain's end), each window started afresh from our previous fire.
    """
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for ours, theirs, count in BENCHMARK_EXPRESSIONS:
        schedule = parse_cron(ours)
        chain, t = [start], start
        for _ in range(count):
            t = schedule.next_after(t)
            chain.append(t)
        assert all(a < b for a, b in pairwise(chain))
        window = 100
        for first in range(0, count - window + 1, (count - window) // 9):
            reference = croniter(theirs, chain[first])
            expected = [reference.get_next(datetime) for _ in range(window)]
            assert chain[first + 1 : first + 1 + window] == expected, (ours, chain[first])
