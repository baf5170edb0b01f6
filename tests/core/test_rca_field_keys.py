"""The engine's ``key=`` field stripping (what a failing message states, without its fields) keeps
its meaning and stays linear in a long log line."""

import re

from hypothesis import given
from hypothesis import strategies as st

from sleuth_core.rca import engine

#: The meaning: a run of word characters and dots followed by ``=``, from a word boundary.
_REFERENCE = re.compile(r"\b[\w.]+=")


def _strip(message: str) -> str:
    return engine._FIELD_KEY.sub(r"\1 ", message)


@given(st.text(alphabet="ab_1é.=- :/\n", max_size=40))
def test_fields_are_stripped_as_by_their_definition(message: str) -> None:
    assert _strip(message) == _REFERENCE.sub(" ", message)


def test_examples() -> None:
    assert _strip("slow query latency_ms=840 db.pool=main") == "slow query  840  main"
    assert _strip("..x=1 a.=2 ..=3") == ".. 1  2 ..=3"


def test_a_long_line_of_many_boundaries_is_linear() -> None:
    # Each of the 600,000 word boundaries of this line started a scan to its end before (about
    # half an hour on one core); one pass now. The message is what a tenant's log line can be.
    message = "a." * 300_000
    assert _strip(message) == message
    assert _strip(message + "=1") == " 1"
