import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from test_matching_strategies import ALPHABET, regexes, texts_for, tree_literals, trees

from sleuth_core.errors import InvalidCriteria
from sleuth_core.matching import MAX_TEXT_LENGTH, MatchIndex, matches
from sleuth_core.matching.prefilter import required_literals

NATIVE = [True, False]


def AND(*conditions):
    return {"operator": "AND", "conditions": list(conditions)}


def OR(*conditions):
    return {"operator": "OR", "conditions": list(conditions)}


def leaf(kind, value):
    return {"type": kind, "value": value}


def expected(entries, text):
    return {key for key, tree in entries.items() if matches(tree, text)}


@pytest.mark.parametrize("native", NATIVE)
def test_basic_match_add_remove(native):
    index = MatchIndex(
        {
            "db": AND(leaf("contains", "postgres")),
            "prod": AND(leaf("starts_with", "[prod]")),
            "both": AND(leaf("contains", "POSTGRES"), leaf("ends_with", "lag")),
        },
        native=native,
    )
    assert index.native is native
    assert index.match("[prod] Postgres replica lag") == {"db", "prod", "both"}
    assert index.match("[dev] mysql") == set()
    index.remove("db")
    assert "db" not in index and len(index) == 2
    assert index.match("[prod] Postgres replica lag") == {"prod", "both"}
    index.add("prod", AND(leaf("regex", r"api-\d+")))  # replaces
    assert len(index) == 2
    assert index.match("[prod] api-7 postgres lag") == {"prod", "both"}
    assert index.match("[prod] postgres") == set()
    with pytest.raises(KeyError):
        index.remove("nope")


@pytest.mark.parametrize("native", NATIVE)
def test_invalid_add_leaves_index_unchanged(native):
    index = MatchIndex({"a": AND(leaf("contains", "x"))}, native=native)
    with pytest.raises(InvalidCriteria):
        index.add("a", AND(leaf("regex", "(")))
    assert index.match("x") == {"a"}


@pytest.mark.parametrize("native", NATIVE)
def test_match_all_and_empty_literals(native):
    index = MatchIndex(
        {
            "all": AND(leaf("contains", "")),
            "ends": AND(leaf("ends_with", ""), leaf("contains", "b")),
            "starts": OR(leaf("starts_with", ""), leaf("contains", "zz")),
        },
        native=native,
    )
    assert index.match("") == {"all", "starts"}
    assert index.match("abc") == {"all", "ends", "starts"}


@pytest.mark.parametrize("native", NATIVE)
def test_unicode_case_folding_is_consistent(native):
    entries = {
        "sharp-s": AND(leaf("contains", "straße")),
        "sigma": AND(leaf("contains", "ΟΔΟΣ")),
        "dotted": AND(leaf("contains", "İstanbul")),
        "kelvin": AND(leaf("contains", "k")),  # KELVIN SIGN folds to k
        "emoji": AND(leaf("contains", "😀 PAGE")),
        "regex": AND(leaf("regex", "Straße.*up")),
    }
    index = MatchIndex(entries, native=native)
    for text in ["STRASSE", "οδος", "i̇stanbul", "K", "😀 page", "Straße is up", "ISTANBUL"]:
        assert index.match(text) == expected(entries, text), text


@pytest.mark.parametrize("native", NATIVE)
def test_text_limit_is_the_same_as_matches(native):
    entries = {"tail": AND(leaf("contains", "needle")), "end": AND(leaf("ends_with", "x"))}
    text = "x" * MAX_TEXT_LENGTH + "needle"
    assert MatchIndex(entries, native=native).match(text) == expected(entries, text) == {"end"}


@pytest.mark.parametrize("native", NATIVE)
def test_many_adds_and_removes_rebuild_correctly(native):
    index = MatchIndex(native=native)
    entries = {}
    for i in range(300):
        entries[i] = AND(leaf("contains", f"word{i}"), OR(leaf("regex", f"host-{i}\\b")))
        index.add(i, entries[i])
    for i in range(0, 300, 3):
        index.remove(i)
        del entries[i]
    text = " ".join(f"word{i} host-{i}" for i in range(0, 300, 2))
    assert index.match(text) == expected(entries, text)
    for i in range(0, 300, 3):
        entries[i] = AND(leaf("contains", f"WORD{i}"))
        index.add(i, entries[i])
    assert index.match(text) == expected(entries, text)


@settings(max_examples=100, deadline=None)
@given(st.data(), st.dictionaries(st.integers(0, 30), trees, max_size=12))
def test_index_returns_exactly_what_matches_accepts(data, entries):
    native_index = MatchIndex(entries, native=True)
    pure_index = MatchIndex(entries, native=False)
    pieces = [p for tree in entries.values() for p in tree_literals(tree)]
    for _ in range(6):
        text = data.draw(texts_for(pieces))
        want = expected(entries, text)
        assert native_index.match(text) == want, text
        assert pure_index.match(text) == want, text


@settings(max_examples=80, deadline=None)
@given(st.data(), st.lists(st.tuples(st.integers(0, 8), st.none() | trees), max_size=25))
def test_index_stays_exact_under_add_and_remove(data, operations):
    entries = {}
    indexes = [MatchIndex(native=True), MatchIndex(native=False)]
    for key, tree in operations:
        for index in indexes:
            if tree is None:
                if key in entries:
                    index.remove(key)
            else:
                index.add(key, tree)
        if tree is None:
            entries.pop(key, None)
        else:
            entries[key] = tree
    pieces = [p for tree in entries.values() for p in tree_literals(tree)]
    for _ in range(4):
        text = data.draw(texts_for(pieces))
        for index in indexes:
            assert len(index) == len(entries)
            assert index.match(text) == expected(entries, text)


@pytest.mark.parametrize(
    ("pattern", "factors"),
    [
        (r"^db-\d+ (?:down|slow) after timeout", {" down after timeout", " slow after timeout"}),
        ("error.*timeout", {"timeout"}),
        ("abc+d", {"abc"}),
        ("abc*d", {"ab"}),
        ("abc?de", {"ab"}),
        ("abc{2}de", {"ab"}),
        (r"host\.example", {"host.example"}),
        ("[xyz]+tail", {"tail"}),
        ("(?:a|b)c(?:d|e)f+g", {"acdf", "acef", "bcdf", "bcef"}),
        ("(?P<n>ab|cd)ef", {"abef", "cdef"}),
        (r"(a\|b)q", {"a|bq"}),
        ("(?:a|)bc", {"bc"}),  # an empty branch makes the group optional
        ("(a|b)+xyz", {"xyz"}),
        ("x(?=abc)yz", {"yz"}),  # a lookahead is zero-width: x and yz are not adjacent text
        ("(?:ab|cd)?ef", {"ef"}),
        ("(?i)timeout", None),
        ("a(?i)bcdef", None),  # inline flags anywhere apply to the whole pattern
        ("(?i:ab)cd", None),  # any flag group makes it give up
        ("abc|def", None),
        ("(?x) a b c d", None),
        (r"\p{L}+word", None),
        ("[[:alpha:]]xyz", None),
        ("abc{e<=1}", None),
        ("x{1|yzw}", None),
        ("a", None),  # too short to be worth it
    ],
)
def test_required_literals(pattern, factors):
    found = required_literals(pattern)
    assert (None if found is None else set(found)) == factors


@settings(max_examples=200, deadline=None)
@given(st.data(), regexes)
def test_required_literals_are_in_every_match(data, pattern):
    factors = required_literals(pattern)
    compiled = regex.compile(pattern, cache_pattern=False)
    pieces = tree_literals(AND(leaf("regex", pattern)))
    for _ in range(5):
        text = data.draw(texts_for(pieces) | st.text(alphabet=ALPHABET, max_size=12))
        if factors is not None and compiled.search(text):
            assert any(factor in text for factor in factors)


@pytest.mark.parametrize("native", NATIVE)
def test_catastrophic_regex_times_out_as_no_match_in_the_index_too(native):
    entries = {
        "slow": OR(leaf("regex", "(a|aa)+$"), leaf("contains", "zzz")),
        "fast": AND(leaf("contains", "aaa")),
    }
    index = MatchIndex(entries, native=native)
    text = "a" * 5000 + "!"
    assert index.match(text) == expected(entries, text) == {"fast"}
    assert index.match(text + " zzz") == {"slow", "fast"}
