"""How column values become database values: the JSON text of ``JSON`` columns (``json_text``,
every engine's serializer, and ``json_value``, its deserializer) and the SQLite text of
``UTCDateTime`` (one ``isoformat``), each against what the standard library and SQLAlchemy
write and read."""

from __future__ import annotations

import dataclasses
import decimal
import enum
import json
import math
import uuid
from datetime import UTC, date, datetime, time, timedelta, timezone

import pytest
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.sqlite import DATETIME

from sleuth_shell.db import create_engine
from sleuth_shell.db.engine import json_text, json_value
from sleuth_shell.db.models import UTCDateTime

VALUES = [
    {},
    {"service.name": "api", "n": 3, "ok": True, "ratio": 0.25, "tags": ["a", 1, None]},
    {"nested": {"deep": {"list": [1.5, -2, "é", "\u2603"]}}, "quote": 'say "hi"\n\t'},
    [1, "two", {"three": 3}],
    "text",
    12,
    None,
    {1: "int key", "big": 2**70},
    {"nan": float("nan"), "inf": float("inf")},
    {None: "none key", True: "bool key"},
    {"surrogate": "\ud800"},
    {"word": "nullable"},
]


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_json_text_reads_back_as_json_dumps_does(value: object) -> None:
    text = json_text(value)
    assert isinstance(text, str)
    assert _same(json.loads(text), json.loads(json.dumps(value)))


def test_json_text_is_compact_and_keeps_the_order() -> None:
    assert json_text({"b": 1, "a": [True, "é"]}) == '{"b":1,"a":[true,"é"]}'


class _Colour(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class _Point:
    x: int


@pytest.mark.parametrize(
    "refused",
    [
        object(),
        datetime(2026, 1, 2, tzinfo=UTC),
        date(2026, 1, 2),
        time(3, 4),
        decimal.Decimal("1.5"),
        uuid.UUID(int=7),
        b"bytes",
        {1, 2},
        frozenset({1}),
        _Colour.RED,
        _Point(1),
    ],
)
def test_json_text_refuses_what_json_dumps_refuses(refused: object) -> None:
    with pytest.raises(TypeError):
        json.dumps({"x": refused})
    with pytest.raises(TypeError):
        json_text({"x": refused})
    with pytest.raises(TypeError):
        json_text([1, {"nested": [refused]}])


def test_json_text_writes_what_json_dumps_writes_for_equal_values() -> None:
    """Values that read back as a different type are written by json.dumps (tuples, int keys,
    int and str enums), and read back as json.dumps's text does."""
    for value in ({"t": (1, 2)}, {1: "a"}, {"e": enum.IntEnum("E", "A").A}):
        assert json.loads(json_text(value)) == json.loads(json.dumps(value))


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_engines_write_json_columns_with_json_text(backend: str, tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}" if backend == "sqlite" else "postgresql://u@h/d"
    engine = create_engine(url)
    assert engine.dialect._json_serializer is json_text  # type: ignore[attr-defined]
    assert engine.dialect._json_deserializer is json_value  # type: ignore[attr-defined]


STORED_TEXTS = [
    *(json.dumps(value) for value in VALUES),
    *(json_text(value) for value in VALUES),
    '{"a": 1, "a": 2}',
    "[12345678901234567890123456789, -12345678901234567890123, 18446744073709551616]",
    "[-0, -0.0, 1e-400, 5e-324, 1.7976931348623157e308, 0.30000000000000004, 1e2]",
    "[1E400, -1e400]",
    "[NaN, Infinity, -Infinity]",
    '"\\ud800 and \\udfff"',
    '"\\u0000"',
    ' [1, 2.5, "x", null, true] ',
    "[" * 300 + "]" * 300,
]


@pytest.mark.parametrize("text", STORED_TEXTS, ids=range(len(STORED_TEXTS)))
def test_json_value_reads_what_json_loads_reads(text: str) -> None:
    expected = json.loads(text)
    got = json_value(text)
    assert _same(got, expected)
    assert repr(got) == repr(expected)  # the same types too (int, float, str, list, dict)


@pytest.mark.parametrize("text", ["", "[1,", "{'a': 1}", "[" * 1000 + "]" * 1000, "nul"])
def test_json_value_refuses_what_json_loads_refuses(text: str) -> None:
    with pytest.raises((ValueError, RecursionError)) as expected:
        json.loads(text)
    with pytest.raises(expected.type):
        json_value(text)


DATETIMES = [
    datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC),
    datetime(2026, 1, 2, 3, 4, 5),
    datetime(5, 1, 1, tzinfo=UTC),
    datetime(2026, 1, 2, 3, 4, 5, 999_999, tzinfo=timezone(timedelta(hours=2))),
    datetime(2026, 12, 31, 23, 30, tzinfo=timezone(timedelta(hours=-5))),
    datetime(9999, 12, 31, 23, 59, 59, 999_999),
    datetime(1970, 1, 1, tzinfo=UTC),
]


@pytest.mark.parametrize("value", DATETIMES, ids=range(len(DATETIMES)))
def test_utc_datetime_binds_the_text_of_sqlalchemys_sqlite_datetime(value: datetime) -> None:
    dialect = sqlite.dialect()
    column = UTCDateTime()
    processor = column.bind_processor(dialect)
    assert processor is not None
    expected = DATETIME().bind_processor(dialect)(column.process_bind_param(value, dialect))
    assert processor(value) == expected
    assert processor(None) is None


def test_utc_datetime_keeps_the_generic_path_elsewhere() -> None:
    dialect = postgresql.dialect()
    value = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2)))
    processor = UTCDateTime().bind_processor(dialect)
    bound = processor(value) if processor is not None else value
    assert bound == datetime(2026, 1, 2, 1, 4, 5, tzinfo=UTC)
    assert bound.tzinfo is UTC
    custom = UTCDateTime()
    custom.impl = DATETIME(storage_format="%(year)04d/%(month)02d/%(day)02d")
    found = custom.bind_processor(sqlite.dialect())
    assert found is not None and found(datetime(2026, 1, 2, tzinfo=UTC)) == "2026/01/02"
