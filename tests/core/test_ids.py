import base64

from hypothesis import given
from hypothesis import strategies as st

from sleuth_core.ids import decode_global_id, encode_global_id


def test_round_trip_known_value():
    gid = encode_global_id("AlertResponder", 7)
    assert gid == base64.b64encode(b"AlertResponder:7").decode()
    assert decode_global_id(gid, "AlertResponder") == 7


def test_wrong_type_is_none():
    assert decode_global_id(encode_global_id("Digest", 3), "AlertResponder") is None


@given(st.integers(min_value=0, max_value=2**63))
def test_round_trip(pk):
    assert decode_global_id(encode_global_id("Investigation", pk), "Investigation") == pk


@given(st.one_of(st.text(max_size=40), st.binary(max_size=40), st.integers(), st.none()))
def test_junk_never_raises(value):
    result = decode_global_id(value, "Team")
    assert result is None or isinstance(result, int)


def test_malformed_forms_are_none():
    for value in [
        "",
        "not base64!",
        base64.b64encode(b"Team:").decode(),
        base64.b64encode(b"Team:-1").decode(),
        base64.b64encode(b"Team:01").decode(),
        base64.b64encode(b"Team:1:2").decode(),
        base64.b64encode(b"Team:\xd9\xa3").decode(),  # Arabic-Indic digit
        base64.b64encode(b"Team:12").decode().rstrip("="),
        "x" * 1000,
    ]:
        assert decode_global_id(value, "Team") is None, value
