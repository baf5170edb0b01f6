import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from test_matching_strategies import ALPHABET, regexes, texts_for, tree_literals, trees

import sleuth_core.matching.index as index_module
from sleuth_core.errors import InvalidCriteria
from sleuth_core.matching import MAX_TEXT_LENGTH, MatchIndex, matches
from sleuth_core.matching.prefilter import required_literal_sets, required_literals

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


@pytest.mark.parametrize(
    ("pattern", "sets"),
    [
        ("checkout.*svc7.*timeout", [{"checkout"}, {"svc7"}, {"timeout"}]),
        (r"^checkout.*svc7.*timeout$", [{"checkout"}, {"svc7"}, {"timeout"}]),
        ("(?:a|b)c.*de.*x", [{"ac", "bc"}, {"de"}]),  # "x" is too short to be worth a set
        ("ab.*cd.*ab", [{"ab"}, {"cd"}]),  # the same set twice is kept once
        ("a.*b", None),
        ("(?i)ab.*cd", None),
    ],
)
def test_required_literal_sets(pattern, sets):
    found = required_literal_sets(pattern)
    assert (None if found is None else [set(s) for s in found]) == sets


@settings(max_examples=200, deadline=None)
@given(st.data(), regexes)
def test_every_required_literal_set_is_in_every_match(data, pattern):
    sets = required_literal_sets(pattern)
    compiled = regex.compile(pattern, cache_pattern=False)
    pieces = tree_literals(AND(leaf("regex", pattern)))
    for _ in range(5):
        text = data.draw(texts_for(pieces) | st.text(alphabet=ALPHABET, max_size=12))
        if sets is not None and compiled.search(text):
            assert all(any(factor in text for factor in s) for s in sets)


@pytest.fixture
def searched(monkeypatch):
    """The regex leaves the index runs, in order (a counter around its one regex search)."""
    calls = []
    search = index_module.search_regex

    def counting(compiled, text):
        calls.append(compiled.pattern)
        return search(compiled, text)

    monkeypatch.setattr(index_module, "search_regex", counting)
    return calls


@pytest.mark.parametrize("native", NATIVE)
def test_a_regex_runs_only_when_all_its_literal_parts_occur(native, searched):
    # The intake benchmark's inner-star agents: every alert holds "checkout" and "timeout", so a
    # prefilter on one literal would run all 250 regexes on every alert.
    entries = {n: AND(leaf("regex", f"checkout.*svc{n:04d}y.*timeout")) for n in range(250)}
    entries["other"] = AND(leaf("regex", "alpha.*beta"))
    index = MatchIndex(entries, native=native)
    text = "p1 incident checkout svc0042y svc0107x latency timeout"
    assert index.match(text) == expected(entries, text) == {42}
    assert searched == ["checkout.*svc0042y.*timeout"]

    searched.clear()
    text = "timeout then checkout of svc0042y, svc0043y, svc0044y and alpha"
    assert index.match(text) == expected(entries, text) == set()
    # Only the three whose literal parts all occur ran (and failed on the order); not "alpha.*beta"
    assert sorted(searched) == [f"checkout.*svc{n:04d}y.*timeout" for n in (42, 43, 44)]

    searched.clear()
    for text in ("checkout timeout", "alpha gamma", "beta alpha", "svc0001y timeout"):
        index.match(text)
    assert searched == ["alpha.*beta"]  # "beta alpha": both parts occur, in the wrong order


@pytest.mark.parametrize("native", NATIVE)
def test_literal_parts_are_checked_after_adds_and_removes(native, searched):
    index = MatchIndex(native=native)
    for n in range(20):
        index.add(n, AND(leaf("regex", f"shared.*part{n:02d}.*common")))
    for n in range(0, 20, 2):
        index.remove(n)
    index.add("late", AND(leaf("regex", "shared.*late.*common")))
    text = "shared part07 part08 common"
    assert index.match(text) == {7}
    assert searched == ["shared.*part07.*common"]
    index.remove(7)
    searched.clear()
    assert index.match(text) == set()
    assert searched == []
    assert index.match("shared late common") == {"late"}


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
