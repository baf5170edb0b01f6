"""The shared cursor-paging helper in ``sleuth_shell.api.common``."""

from __future__ import annotations

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


@given(st.integers(min_value=1, max_value=MAX_PK))
def test_cursor_round_trips(pk: int) -> None:
    cursor = encode_cursor(pk)
    assert decode_cursor(cursor) == pk
    assert "=" not in cursor


@pytest.mark.parametrize(
    "cursor",
    ["", "abc", "YmVmb3JlOg", "YmVmb3JlOi0x", "YmVmb3JlOjA", "bm9wZTo1", "é", "x" * 100],
)
def test_foreign_cursors_are_refused(cursor: str) -> None:
    assert decode_cursor(cursor) is None
    with pytest.raises(ApiError) as info:
        parse_page(None, cursor)
    assert info.value.status_code == 400
    assert info.value.detail == f"Invalid cursor: {cursor}"


def test_parse_page_defaults_and_limits() -> None:
    assert parse_page(None, None).limit == DEFAULT_PAGE_LIMIT
    assert parse_page(None, None).before is None
    assert parse_page("7", encode_cursor(42)).limit == 7
    assert parse_page("7", encode_cursor(42)).before == 42
    assert parse_page(str(MAX_PAGE_LIMIT), None).limit == MAX_PAGE_LIMIT
    for bad in ["0", "-1", "abc", str(MAX_PAGE_LIMIT + 1), "1.5", "", "٣"]:
        with pytest.raises(ApiError) as info:
            parse_page(bad, None)
        assert info.value.detail.startswith(f"Invalid limit: {bad} ")
