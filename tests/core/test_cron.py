"""Unit tests for sleuth_core.cron: every rule and every refusal, as readable tables."""

# ruff: noqa: E501  (the case tables read best one case per line)

import calendar
from datetime import UTC, date, datetime, timedelta, timezone
from itertools import pairwise

import pytest

from sleuth_core.cron import (
    HORIZON_YEARS,
    MAX_EXPRESSION_LENGTH,
    CronSchedule,
    NoFireTime,
    Weekday,
    parse_cron,
)
from sleuth_core.errors import CoreError, InvalidSchedule


def at(text: str) -> datetime:
    """'2026-01-05 09:00' -> aware UTC datetime."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def table(text: str) -> list[tuple[str, str, list[str]]]:
    """Rows 'expression | start | expected, expected, ...'; lines starting with '#' are notes."""
    rows = []
    for line in text.strip().splitlines():
        if not line.startswith("#"):
            expr, start, expected = (part.strip() for part in line.split("|"))
            rows.append((expr, start, expected.split(", ")))
    return rows


def next_three(expr: str, start: str) -> list[str]:
    schedule = parse_cron(expr)
    out, t = [], at(start)
    for _ in range(3):
        t = schedule.next_after(t)
        out.append(t.strftime("%Y-%m-%d %H:%M %a"))
    return out


# (expression, start, the next three fire times). 2026-01-01 is a Thursday.
NEXT_CASES = table("""
* * * * *        | 2026-01-01 00:00 | 2026-01-01 00:01 Thu, 2026-01-01 00:02 Thu, 2026-01-01 00:03 Thu
*/5 * * * *      | 2026-01-01 00:03 | 2026-01-01 00:05 Thu, 2026-01-01 00:10 Thu, 2026-01-01 00:15 Thu
*/20 * * * *     | 2026-01-01 23:50 | 2026-01-02 00:00 Fri, 2026-01-02 00:20 Fri, 2026-01-02 00:40 Fri
10-30/10 * * * * | 2026-01-01 00:00 | 2026-01-01 00:10 Thu, 2026-01-01 00:20 Thu, 2026-01-01 00:30 Thu
45/10 * * * *    | 2026-01-01 00:00 | 2026-01-01 00:45 Thu, 2026-01-01 00:55 Thu, 2026-01-01 01:45 Thu
0 9 * * 0-4      | 2026-01-01 09:00 | 2026-01-02 09:00 Fri, 2026-01-05 09:00 Mon, 2026-01-06 09:00 Tue
0 9 * * MON-FRI  | 2026-01-01 09:00 | 2026-01-02 09:00 Fri, 2026-01-05 09:00 Mon, 2026-01-06 09:00 Tue
0 12 * * 4       | 2026-01-01 00:00 | 2026-01-02 12:00 Fri, 2026-01-09 12:00 Fri, 2026-01-16 12:00 Fri
0 0 * * 6        | 2026-01-01 00:00 | 2026-01-04 00:00 Sun, 2026-01-11 00:00 Sun, 2026-01-18 00:00 Sun
0 0 * * sat,sun  | 2026-01-01 00:00 | 2026-01-03 00:00 Sat, 2026-01-04 00:00 Sun, 2026-01-10 00:00 Sat
30 8 1,15 * *    | 2026-01-01 08:30 | 2026-01-15 08:30 Thu, 2026-02-01 08:30 Sun, 2026-02-15 08:30 Sun
0 */6 * * *      | 2026-01-01 05:59 | 2026-01-01 06:00 Thu, 2026-01-01 12:00 Thu, 2026-01-01 18:00 Thu
15 14 1 * *      | 2026-01-01 14:15 | 2026-02-01 14:15 Sun, 2026-03-01 14:15 Sun, 2026-04-01 14:15 Wed
0 0 29 2 *       | 2026-01-01 00:00 | 2028-02-29 00:00 Tue, 2032-02-29 00:00 Sun, 2036-02-29 00:00 Fri
0 0 31 * *       | 2026-01-31 00:00 | 2026-03-31 00:00 Tue, 2026-05-31 00:00 Sun, 2026-07-31 00:00 Fri
0 0 1 jan,JUL *  | 2026-01-01 00:00 | 2026-07-01 00:00 Wed, 2027-01-01 00:00 Fri, 2027-07-01 00:00 Thu
0 0 1 */4 *      | 2026-01-01 00:00 | 2026-05-01 00:00 Fri, 2026-09-01 00:00 Tue, 2027-01-01 00:00 Fri
0 0 1 FEB/5 *    | 2026-01-01 00:00 | 2026-02-01 00:00 Sun, 2026-07-01 00:00 Wed, 2026-12-01 00:00 Tue
59 23 31 12 *    | 2026-12-31 23:59 | 2027-12-31 23:59 Fri, 2028-12-31 23:59 Sun, 2029-12-31 23:59 Mon
# Both day fields restricted: either may match (Vixie OR rule). 13th or any Friday.
0 0 13 * 4       | 2026-02-01 00:00 | 2026-02-06 00:00 Fri, 2026-02-13 00:00 Fri, 2026-02-20 00:00 Fri
0 0 13 * MON     | 2026-02-10 00:00 | 2026-02-13 00:00 Fri, 2026-02-16 00:00 Mon, 2026-02-23 00:00 Mon
# A day field starting with '*' means both must match: odd days that are Mondays.
0 0 */2 * 0      | 2026-01-01 00:00 | 2026-01-05 00:00 Mon, 2026-01-19 00:00 Mon, 2026-02-09 00:00 Mon
0 0 13 * */7     | 2026-01-01 00:00 | 2026-04-13 00:00 Mon, 2026-07-13 00:00 Mon, 2027-09-13 00:00 Mon
# OR rule keeps an impossible day of month harmless: Mondays in February.
0 0 31 2 0       | 2026-01-01 00:00 | 2026-02-02 00:00 Mon, 2026-02-09 00:00 Mon, 2026-02-16 00:00 Mon
""")


@pytest.mark.parametrize(("expr", "start", "expected"), NEXT_CASES, ids=[c[0] for c in NEXT_CASES])
def test_next_three(expr, start, expected):
    assert next_three(expr, start) == expected


# (expression, start, the previous three fire times)
PREVIOUS_CASES = table("""
*/5 * * * *   | 2026-01-01 00:03 | 2026-01-01 00:00, 2025-12-31 23:55, 2025-12-31 23:50
0 9 * * 0-4   | 2026-01-05 09:00 | 2026-01-02 09:00, 2026-01-01 09:00, 2025-12-31 09:00
0 0 29 2 *    | 2028-02-29 00:00 | 2024-02-29 00:00, 2020-02-29 00:00, 2016-02-29 00:00
30 8 1,15 * * | 2026-03-01 08:31 | 2026-03-01 08:30, 2026-02-15 08:30, 2026-02-01 08:30
0 0 31 * *    | 2026-05-01 00:00 | 2026-03-31 00:00, 2026-01-31 00:00, 2025-12-31 00:00
0 0 13 * 4    | 2026-02-14 00:00 | 2026-02-13 00:00, 2026-02-06 00:00, 2026-01-30 00:00
""")


@pytest.mark.parametrize(
    ("expr", "start", "expected"), PREVIOUS_CASES, ids=[c[0] for c in PREVIOUS_CASES]
)
def test_previous_three(expr, start, expected):
    schedule = parse_cron(expr)
    out, t = [], at(start)
    for _ in range(3):
        t = schedule.previous_before(t)
        out.append(t.strftime("%Y-%m-%d %H:%M"))
    assert out == expected


class TestMondayZero:
    """Where our day-of-week numbers differ from Vixie (Debian) cron, where 0 and 7 are Sunday."""

    def test_weekday_enum_states_the_convention(self):
        assert Weekday.MONDAY == 0
        assert Weekday.SUNDAY == 6
        assert [day.name[:3] for day in Weekday] == [
            "MON",
            "TUE",
            "WED",
            "THU",
            "FRI",
            "SAT",
            "SUN",
        ]
        # The same numbering as Python's date.weekday().
        assert date(2026, 1, 5).weekday() == Weekday.MONDAY

    def test_zero_is_monday_not_sunday(self):
        # Vixie cron would fire on Sunday 2026-01-04 for '0 0 * * 0'.
        assert next_three("0 0 * * 0", "2026-01-01 00:00")[0] == "2026-01-05 00:00 Mon"

    def test_six_is_sunday_not_saturday(self):
        assert next_three("0 0 * * 6", "2026-01-01 00:00")[0] == "2026-01-04 00:00 Sun"

    def test_one_to_five_is_tuesday_to_saturday(self):
        # Vixie's weekdays '1-5' are our Tuesday..Saturday; our weekdays are '0-4'.
        assert parse_cron("0 0 * * 1-5").days_of_week == (1, 2, 3, 4, 5)
        fires = next_three("0 0 * * 1-5", "2026-01-02 00:00")
        assert fires == ["2026-01-03 00:00 Sat", "2026-01-06 00:00 Tue", "2026-01-07 00:00 Wed"]

    def test_names_mean_the_same_day_in_both_conventions(self):
        assert parse_cron("0 0 * * SUN").days_of_week == (Weekday.SUNDAY,)
        assert parse_cron("0 0 * * MON").days_of_week == (Weekday.MONDAY,)
        assert parse_cron("0 0 * * MON-FRI") == parse_cron("0 0 * * 0-4")

    def test_seven_is_refused(self):
        with pytest.raises(InvalidSchedule) as info:
            parse_cron("0 0 * * 7")
        assert str(info.value) == "day-of-week: '7' is out of range 0-6 (0 is Monday)"

    def test_sunday_ending_range_is_a_plain_range(self):
        # Vixie writes Friday..Sunday as '5-7'; ours is '4-6' or 'FRI-SUN'.
        assert parse_cron("0 0 * * FRI-SUN").days_of_week == (4, 5, 6)


class TestFieldSyntax:
    @pytest.mark.parametrize(
        ("field", "expected"),
        [
            ("*", tuple(range(60))),
            ("7", (7,)),
            ("07", (7,)),
            ("1,2,3", (1, 2, 3)),
            ("3,1,3", (1, 3)),
            ("10-12", (10, 11, 12)),
            ("5-5", (5,)),
            ("*/15", (0, 15, 30, 45)),
            ("*/60", (0,)),
            ("10-30/7", (10, 17, 24)),
            ("50/4", (50, 54, 58)),
            ("59/15", (59,)),
            ("0-4,*/20,58", (0, 1, 2, 3, 4, 20, 40, 58)),
        ],
    )
    def test_minute_field(self, field, expected):
        assert parse_cron(f"{field} * * * *").minutes == expected

    def test_hour_day_month_bounds(self):
        schedule = parse_cron("0 */8 */10 */5 *")
        assert schedule.hours == (0, 8, 16)
        assert schedule.days_of_month == (1, 11, 21, 31)
        assert schedule.months == (1, 6, 11)
        assert schedule.days_of_week == tuple(range(7))

    @pytest.mark.parametrize("name", ["jan", "Jan", "JAN", "jAn"])
    def test_names_are_case_insensitive(self, name):
        assert parse_cron(f"0 0 1 {name} *").months == (1,)

    def test_month_names_in_ranges_and_steps(self):
        assert parse_cron("0 0 1 MAR-may *").months == (3, 4, 5)
        assert parse_cron("0 0 1 JAN-DEC/3 *").months == (1, 4, 7, 10)
        assert parse_cron("0 0 1 OCT/2 *").months == (10, 12)

    def test_weekday_names_in_ranges_and_lists(self):
        assert parse_cron("0 0 * * tue,THU-sat").days_of_week == (1, 3, 4, 5)
        assert parse_cron("0 0 * * MON/2").days_of_week == (0, 2, 4, 6)

    def test_whitespace_between_fields(self):
        schedule = parse_cron("  0\t9  *  * \t 0-4 ")
        assert schedule == parse_cron("0 9 * * 0-4")
        assert schedule.expression == "  0\t9  *  * \t 0-4 "

    def test_expression_is_kept_as_given(self):
        assert parse_cron("0 9 * * mon").expression == "0 9 * * mon"
        assert repr(parse_cron("0 9 * * mon")) == "parse_cron('0 9 * * mon')"

    def test_equality_follows_meaning(self):
        assert parse_cron("*/30 * * * *") == parse_cron("0,30 * * * *")
        assert hash(parse_cron("*/30 * * * *")) == hash(parse_cron("0,30 * * * *"))
        assert parse_cron("0 0 1 * *") != parse_cron("0 0 2 * *")
        assert parse_cron("0 0 1 * *") != "0 0 1 * *"


class TestDayRule:
    """Vixie cron's rule for the two day fields."""

    @pytest.mark.parametrize(
        ("expr", "days_or"),
        [
            ("0 0 * * *", False),
            ("0 0 1 * *", False),
            ("0 0 * * 0", False),
            ("0 0 */2 * 0", False),
            ("0 0 1 * */2", False),
            ("0 0 1 * 0", True),
            ("0 0 1-31 * 0-6", True),
            ("0 0 1 * MON", True),
        ],
    )
    def test_or_only_when_neither_starts_with_star(self, expr, days_or):
        assert parse_cron(expr).days_or is days_or

    def test_or_rule_matches_either(self):
        schedule = parse_cron("0 0 13 * 4")  # the 13th, or any Friday
        assert schedule.matches(at("2026-02-13 00:00"))  # a Friday the 13th
        assert schedule.matches(at("2026-03-13 00:00"))  # the 13th, a Friday too
        assert schedule.matches(at("2026-04-13 00:00"))  # the 13th, a Monday
        assert schedule.matches(at("2026-04-03 00:00"))  # a Friday, not the 13th
        assert not schedule.matches(at("2026-04-14 00:00"))

    def test_and_rule_needs_both(self):
        schedule = parse_cron("0 0 */2 * 4")  # odd days that are Fridays
        assert schedule.matches(at("2026-04-03 00:00"))
        assert not schedule.matches(at("2026-04-10 00:00"))  # Friday, even day
        assert not schedule.matches(at("2026-04-11 00:00"))  # odd day, Saturday

    def test_full_day_of_week_list_with_or_fires_every_day(self):
        schedule = parse_cron("0 0 1 * 0-6")
        assert next_three("0 0 1 * 0-6", "2026-01-01 00:00")[0] == "2026-01-02 00:00 Fri"
        assert schedule.days_or


# (expression, the exact message). The shell prefixes "Invalid schedule: ".
REFUSALS = [
    ("", "the expression is empty; write five fields: minute hour day-of-month month day-of-week, e.g. '0 9 * * 0-4'"),
    ("   ", "the expression is empty; write five fields: minute hour day-of-month month day-of-week, e.g. '0 9 * * 0-4'"),
    ("* * * *", "expected 5 fields (minute hour day-of-month month day-of-week), got 4"),
    ("0 * * * * *", "expected 5 fields (minute hour day-of-month month day-of-week), got 6"),
    ("@daily", "macros such as '@daily' are not supported; write the five fields instead, e.g. '0 0 * * *' for daily at midnight UTC"),
    ("@reboot", "macros such as '@reboot' are not supported; write the five fields instead, e.g. '0 0 * * *' for daily at midnight UTC"),
    ("60 * * * *", "minute: '60' is out of range 0-59"),
    ("0 24 * * *", "hour: '24' is out of range 0-23"),
    ("0 0 0 * *", "day-of-month: '0' is out of range 1-31"),
    ("0 0 32 * *", "day-of-month: '32' is out of range 1-31"),
    ("0 0 1 0 *", "month: '0' is out of range 1-12"),
    ("0 0 1 13 *", "month: '13' is out of range 1-12"),
    ("0 0 * * 7", "day-of-week: '7' is out of range 0-6 (0 is Monday)"),
    ("0 0 * * 5-7", "day-of-week: '7' is out of range 0-6 (0 is Monday)"),
    ("0 0 ? * 1", "day-of-month: '?' uses '?' (no specific value), which is not supported; use '*'"),
    ("0 0 * * ?", "day-of-week: '?' uses '?' (no specific value), which is not supported; use '*'"),
    ("0 0 L * *", "day-of-month: 'L' uses 'L' (last), which is not supported"),
    ("0 0 * * 5L", "day-of-week: '5L' uses 'L' (last), which is not supported"),
    ("0 0 LW * *", "day-of-month: 'LW' uses 'L' (last), which is not supported"),
    ("0 0 15W * *", "day-of-month: '15W' uses 'W' (nearest weekday), which is not supported"),
    ("0 0 * * 1#2", "day-of-week: '1#2' uses '#' (nth weekday of the month), which is not supported"),
    ("0 0 * * MOX", "day-of-week: 'MOX' is not a weekday (MON..SUN, or 0-6 where 0 is Monday)"),
    ("0 0 * * MONDAY", "day-of-week: 'MONDAY' is not a weekday (MON..SUN, or 0-6 where 0 is Monday)"),
    ("0 0 1 JUNE *", "month: 'JUNE' is not a month (JAN..DEC, or 1-12)"),
    ("0 0 1 * JAN", "day-of-week: 'JAN' is not a weekday (MON..SUN, or 0-6 where 0 is Monday)"),
    ("MON * * * *", "minute: 'MON' is not a number"),
    ("x * * * *", "minute: 'x' is not a number"),
    ("-5 * * * *", "minute: '-5' is missing a value"),
    ("5- * * * *", "minute: '5-' is missing a value"),
    ("1-2-3 * * * *", "minute: '2-3' is not a number"),
    ("١ * * * *", "minute: '١' is not a number"),  # an Arabic-Indic digit
    ("1,,2 * * * *", "minute: empty item in '1,,2'"),
    ("1, * * * *", "minute: empty item in '1,'"),
    ("0 22-2 * * *", "hour: range '22-2' is reversed; wrap-around ranges are not supported, write '22-23,0-2' instead"),
    ("0 0 * * FRI-MON", "day-of-week: range 'FRI-MON' is reversed; wrap-around ranges are not supported, write 'FRI-6,0-MON' instead"),
    ("*/0 * * * *", "minute: step '0' in '*/0' must be a whole number from 1 to 60"),
    ("*/61 * * * *", "minute: step '61' in '*/61' must be a whole number from 1 to 60"),
    ("0 0 * * */8", "day-of-week: step '8' in '*/8' must be a whole number from 1 to 7"),
    ("*/ * * * *", "minute: step '' in '*/' must be a whole number from 1 to 60"),
    ("*/x * * * *", "minute: step 'x' in '*/x' must be a whole number from 1 to 60"),
    ("1/2/3 * * * *", "minute: step '2/3' in '1/2/3' must be a whole number from 1 to 60"),
    ("0 0 31 2 *", "day-of-month: no day in 31 exists in February, so the schedule would never fire"),
    ("0 0 30,31 2 *", "day-of-month: no day in 30,31 exists in February, so the schedule would never fire"),
    ("0 0 31 4,6,9,11 *", "day-of-month: no day in 31 exists in April, June, September, November, so the schedule would never fire"),
    ("0 0 31 2 */2", "day-of-month: no day in 31 exists in February, so the schedule would never fire"),
]  # fmt: skip


@pytest.mark.parametrize(("expr", "message"), REFUSALS, ids=[c[0] or "empty" for c in REFUSALS])
def test_refusals(expr, message):
    with pytest.raises(InvalidSchedule) as info:
        parse_cron(expr)
    assert str(info.value) == message
    assert isinstance(info.value, CoreError)
    assert not str(info.value).startswith("Invalid schedule")


def test_refuses_non_strings_and_overlong_expressions():
    with pytest.raises(InvalidSchedule, match="must be a string, not int"):
        parse_cron(5)  # type: ignore[arg-type]
    with pytest.raises(InvalidSchedule, match=f"at most {MAX_EXPRESSION_LENGTH} are allowed"):
        parse_cron("0," * 600 + "0 * * * *")


def test_possible_day_month_combinations_are_accepted():
    assert parse_cron("0 0 29 2 *").next_after(at("2026-01-01 00:00")) == at("2028-02-29 00:00")
    assert parse_cron("0 0 30,31 1,2 *").months == (1, 2)
    assert parse_cron("0 0 31 2,3 *").next_after(at("2026-01-01 00:00")) == at("2026-03-31 00:00")


class TestInstants:
    def test_results_are_aware_utc(self):
        result = parse_cron("*/5 * * * *").next_after(at("2026-01-01 00:00"))
        assert result.tzinfo is UTC
        assert type(result) is datetime

    def test_naive_means_utc(self):
        schedule = parse_cron("0 9 * * *")
        assert schedule.next_after(datetime(2026, 1, 1, 8, 0)) == at("2026-01-01 09:00")
        assert schedule.previous_before(datetime(2026, 1, 1, 10, 0)) == at("2026-01-01 09:00")
        assert schedule.matches(datetime(2026, 1, 1, 9, 0))

    def test_other_offsets_are_converted(self):
        schedule = parse_cron("0 9 * * *")
        new_york = timezone(timedelta(hours=-5))
        # 04:30 in New York is 09:30 UTC: the next 09:00 UTC is tomorrow.
        result = schedule.next_after(datetime(2026, 1, 1, 4, 30, tzinfo=new_york))
        assert result == at("2026-01-02 09:00")
        assert result.tzinfo is UTC
        assert schedule.previous_before(datetime(2026, 1, 1, 4, 30, tzinfo=new_york)) == at(
            "2026-01-01 09:00"
        )
        assert schedule.matches(datetime(2026, 1, 1, 4, 0, tzinfo=new_york))

    def test_strictly_after_and_before(self):
        schedule = parse_cron("0 9 * * *")
        fire = at("2026-01-01 09:00")
        assert schedule.next_after(fire) == at("2026-01-02 09:00")
        assert schedule.previous_before(fire) == at("2025-12-31 09:00")
        assert schedule.next_after(fire - timedelta(microseconds=1)) == fire
        assert schedule.previous_before(fire + timedelta(microseconds=1)) == fire
        assert schedule.next_after(fire + timedelta(seconds=59)) == at("2026-01-02 09:00")

    def test_matches_only_whole_minutes(self):
        schedule = parse_cron("0 9 * * *")
        assert schedule.matches(at("2026-01-01 09:00"))
        assert not schedule.matches(at("2026-01-01 09:00") + timedelta(seconds=1))
        assert not schedule.matches(at("2026-01-01 09:01"))
        assert not schedule.matches(at("2026-01-01 10:00"))

    def test_matches_month_and_day(self):
        schedule = parse_cron("0 0 29 2 *")
        assert schedule.matches(at("2028-02-29 00:00"))
        assert not schedule.matches(at("2028-03-29 00:00"))
        assert not schedule.matches(at("2028-02-28 00:00"))

    def test_rejects_non_datetimes(self):
        schedule = parse_cron("* * * * *")
        with pytest.raises(TypeError, match="expected a datetime, got date"):
            schedule.next_after(date(2026, 1, 1))  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="expected a datetime, got str"):
            schedule.previous_before("2026-01-01")  # type: ignore[arg-type]

    def test_datetime_subclasses_come_back_as_datetime(self):
        class Stamp(datetime):
            pass

        result = parse_cron("0 * * * *").next_after(Stamp(2026, 1, 1, 0, 30, tzinfo=UTC))
        assert type(result) is datetime
        assert result == at("2026-01-01 01:00")


class TestHorizon:
    def test_longest_gap_is_within_the_horizon(self):
        # The sparsest accepted schedule: 29 February on one given weekday (AND rule).
        for weekday in Weekday:
            years = [
                y
                for y in range(1, 10000)
                if calendar.isleap(y) and date(y, 2, 29).weekday() == weekday
            ]
            assert max(b - a for a, b in pairwise(years)) < HORIZON_YEARS

    def test_sparsest_schedule_across_2100(self):
        # 29 February on a Monday: 2072, then 2112 (2100 is not a leap year), a 40-year gap.
        schedule = parse_cron("0 0 29 2 */7")  # '*/7' is Monday only, and keeps the AND rule
        assert schedule.days_of_week == (Weekday.MONDAY,)
        assert not schedule.days_or
        assert schedule.next_after(at("2044-03-01 00:00")) == at("2072-02-29 00:00")
        assert schedule.next_after(at("2072-02-29 00:00")) == at("2112-02-29 00:00")
        assert schedule.previous_before(at("2112-02-29 00:00")) == at("2072-02-29 00:00")

    def test_end_of_datetime_range(self):
        schedule = parse_cron("0 0 29 2 *")
        with pytest.raises(NoFireTime, match="does not fire within 50 years after 9997-01-01"):
            schedule.next_after(at("9997-01-01 00:00"))
        with pytest.raises(NoFireTime, match="before 0003-01-01"):
            schedule.previous_before(at("0003-01-01 00:00"))
        assert schedule.previous_before(at("0005-01-01 00:00")) == at("0004-02-29 00:00")
        assert schedule.next_after(at("9995-01-01 00:00")) == at("9996-02-29 00:00")

    def test_last_minute_of_datetime_range(self):
        schedule = parse_cron("* * * * *")
        with pytest.raises(NoFireTime):
            schedule.next_after(datetime.max.replace(tzinfo=UTC))
        with pytest.raises(NoFireTime):
            schedule.previous_before(datetime.min.replace(tzinfo=UTC))
        assert schedule.next_after(at("9999-12-31 23:58")) == at("9999-12-31 23:59")


def test_schedule_class_is_exported():
    assert isinstance(parse_cron("* * * * *"), CronSchedule)
