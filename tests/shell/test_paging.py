"""The shared cursor-paging helper in ``sleuth_shell.api.common``."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sleuth_shell.api.common import (
    DEFAULT_PAGE_LIMIT,
    MAX_PAGE_LIMIT,
    MAX_PK,
    decode_cursor,
    encode_cursor,
    parse_page,
)
from sleuth_shell.errors import ApiError


@given(
    st.datetimes(timezones=st.just(UTC)),
    st.one_of(st.integers(1, MAX_PK).map(str), st.uuids().map(str)),
)
def test_cursor_round_trips(created: datetime, key: str) -> None:
    cursor = encode_cursor(created, key)
    assert decode_cursor(cursor) == (created, key)
    assert "=" not in cursor


def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    [
        "",
        "abc",
        "é",
        "x" * 300,
        _b64("2026-01-01T00:00:00.000000"),
        _b64("2026-01-01T00:00:00.000000|"),
        _b64("2026-13-01T00:00:00.000000|5"),
        _b64("yesterday|5"),
        _b64("2026-01-01T00:00:00.000000|5") + "==",
    ],
)
def test_foreign_cursors_are_refused(cursor: str) -> None:
    assert decode_cursor(cursor) is None
    with pytest.raises(ApiError) as info:
        parse_page(None, cursor)
    assert info.value.status_code == 400
    assert info.value.detail == f"Invalid cursor: {cursor}"


def test_parse_page_defaults_and_limits() -> None:
    assert parse_page(None, None).limit == DEFAULT_PAGE_LIMIT
    assert parse_page(None, None).after is None
    moment = datetime(2026, 5, 1, 12, 30, 1, 250, tzinfo=UTC)
    page = parse_page("7", encode_cursor(moment, 42))
    assert (page.limit, page.after) == (7, (moment, "42"))
    assert parse_page(str(MAX_PAGE_LIMIT), None).limit == MAX_PAGE_LIMIT
    for bad in ["0", "-1", "abc", str(MAX_PAGE_LIMIT + 1), "1.5", "", "٣"]:
        with pytest.raises(ApiError) as info:
            parse_page(bad, None)
        assert info.value.detail.startswith(f"Invalid limit: {bad} ")
