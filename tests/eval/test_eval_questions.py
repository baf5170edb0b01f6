"""The evaluation's questions agree with the written corpora they are asked over (no agent runs).

A question whose expected fact is not in its expected source can never pass, and an ``absent``
string that the asked window holds, or that the service never logs, tests nothing; both are
mistakes in the question, found here rather than read as the agent's failures.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from evals import brackenmoor, ferncombe, halberd, kestrel, larkspur, tidewater  # noqa: E402
from evals.rca.schema import CATEGORIES  # noqa: E402

# The corpora checked here (the Larkspur, Halberd, Ferncombe and Brackenmoor questions, those the
# tuner wrote over the tune corpora and examinerq5's multi-part questions over five corpora), and
# the splits that ask over them.
CORPORA: dict[str, Any] = {
    "brackenmoor": brackenmoor,
    "ferncombe": ferncombe,
    "halberd": halberd,
    "kestrel": kestrel,
    "larkspur": larkspur,
    "tidewater": tidewater,
}
# The corpora written wholly by outside examiners and checked here question by question.
EXAMINED = ("larkspur", "halberd", "ferncombe", "brackenmoor")
SPLITS = ("questions_tune_ext.json", "questions_heldout_ext.json")
# Authors whose questions are checked over whichever corpus they ask (not only the examined ones).
CHECKED_AUTHORS = ("tuner", "examinerq5")


def _questions() -> list[dict[str, Any]]:
    out = []
    for name in SPLITS:
        data = json.loads((ROOT / "evals" / name).read_text(encoding="utf-8"))
        # Every question over an examined corpus, and the questions the tuner and examinerq5
        # wrote over the others.
        out.extend(
            q
            for q in data["questions"]
            if q["corpus"] in EXAMINED or q.get("author") in CHECKED_AUTHORS
        )
    return out


QUESTIONS = _questions()


def _ts(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _line(record: dict[str, Any]) -> str:
    return f"{record['message']} {json.dumps(record['attributes'])}"


@pytest.mark.parametrize(
    ("corpus", "tune", "held"),
    [
        ("larkspur", 16, 19),
        ("halberd", 18, 19),
        ("ferncombe", 19, 18),
        ("brackenmoor", 18, 18),
    ],
)
def test_the_corpus_is_asked_in_both_splits(corpus: str, tune: int, held: int) -> None:
    by_split = {
        name: [
            q
            for q in json.loads((ROOT / "evals" / name).read_text(encoding="utf-8"))["questions"]
            if q["corpus"] == corpus and q.get("author") != "tuner"
        ]
        for name in SPLITS
    }
    assert len(by_split["questions_tune_ext.json"]) == tune
    assert len(by_split["questions_heldout_ext.json"]) == held
    for qs in by_split.values():
        kinds = {q["kind"] for q in qs}
        assert kinds == {"fact", "logs", "cause", "abstain"}
        assert sum(q["kind"] == "abstain" for q in qs) >= 1


@pytest.mark.parametrize(
    ("corpus", "author"),
    [
        ("halberd", "examinerq3"),
        ("ferncombe", "examinerq2"),
        ("brackenmoor", "examinerq4"),
    ],
)
def test_examiner_questions_are_unique_and_well_formed(corpus: str, author: str) -> None:
    """Each split's questions over a corpus one examiner wrote (Halberd, Ferncombe,
    Brackenmoor): ids and wording unique across both splits, at least five multi-part fact
    questions (one with parts answered by different runbooks), a past incident asked of its
    postmortem, every log window in ISO 8601 with a category on each cause."""
    every = [
        q
        for name in SPLITS
        for q in json.loads((ROOT / "evals" / name).read_text(encoding="utf-8"))["questions"]
    ]
    assert len({q["id"] for q in every}) == len(every)
    assert len({q["question"] for q in every}) == len(every)
    for name in SPLITS:
        data = json.loads((ROOT / "evals" / name).read_text(encoding="utf-8"))["questions"]
        # The examiner's questions: examinerq5's multi-part questions over the same corpus are
        # checked on their own below, and the tuner's own are not the examiner's.
        qs = [
            q
            for q in data
            if q["corpus"] == corpus and q.get("author") not in ("examinerq5", "tuner")
        ]
        assert all(q["author"] == author for q in qs)
        multi = [q for q in qs if q["kind"] == "fact" and len(q.get("parts", [])) >= 2]
        assert len(multi) >= 5
        assert any(len({p.get("source") for p in q["parts"]} - {None}) > 1 for q in multi)
        assert any(q.get("source", "").startswith("Postmortem ") for q in qs)
        for q in qs:
            if q["kind"] == "cause":
                assert q["category"] and q["logs"], q["id"]


@pytest.mark.parametrize("question", QUESTIONS, ids=[q["id"] for q in QUESTIONS])
def test_expected_facts_are_in_the_expected_source(question: dict[str, Any]) -> None:
    corpus = CORPORA[question["corpus"]]
    docs = dict(corpus.runbooks())
    if "source" in question:
        assert question["source"] in docs, question["source"]
        parts = question.get("parts") or [
            {"facts": question["facts"], "source": question["source"]}
        ]
        assert [f for p in parts for f in p.get("facts", [])] == question["facts"]
        for part in parts:
            if "missing" in part:  # a part the corpus does not answer
                continue
            assert part["source"] in docs, part["source"]
            for fact in part["facts"]:
                assert fact in docs[part["source"]], (fact, part["source"])
    if "logs" not in question:
        return
    window = question["logs"]
    start, end = _ts(window["start"]), _ts(window["end"])
    records = corpus.generate_logs()
    assert corpus.START <= start < end <= corpus.END
    inside = [
        _line(r)
        for r in records
        if r["service"] == window["service"] and start <= r["timestamp"] < end
    ]
    outside = [
        _line(r)
        for r in records
        if r["service"] == window["service"] and not start <= r["timestamp"] < end
    ]
    assert inside, "nothing logged in the asked window"
    for fact in question["facts"]:
        if question["kind"] == "logs":  # what the service logged in the window
            assert any(fact in line for line in inside), fact
        else:  # a cause: in the window's own records, or in the data around them
            assert any(fact in _line(r) for r in records), fact
    for absent in question.get("absent", []):
        assert not any(absent.lower() in line.lower() for line in inside), absent
        assert any(absent.lower() in line.lower() for line in outside), absent


@pytest.mark.parametrize(
    "question",
    [q for q in QUESTIONS if q["kind"] == "cause"],
    ids=[q["id"] for q in QUESTIONS if q["kind"] == "cause"],
)
def test_why_questions_name_a_known_failure_category(question: dict[str, Any]) -> None:
    """A "why" question's category is one the root-cause engine can state, never healthy."""
    assert question.get("category") in set(CATEGORIES) - {"healthy"}, question.get("category")


@pytest.mark.parametrize(
    "question",
    [q for q in QUESTIONS if q["kind"] == "abstain"],
    ids=[q["id"] for q in QUESTIONS if q["kind"] == "abstain"],
)
def test_unanswerable_questions_ask_for_what_no_runbook_holds(question: dict[str, Any]) -> None:
    """The thing asked for (its key word) is in no runbook and no log line of the corpus."""
    corpus = CORPORA[question["corpus"]]
    keys = {
        "wt37": "antenna",
        "wh32": "APN",
        "wt50": "escalator",
        "wt198": "fax",
        "wh147": "bailiff",
        "wt99": "centrifuge",
        "wh48": "wifi",
        "wt214": "carbon",
        "wh163": "insurance",
    }
    key = keys[question["id"]].lower()
    assert not any(key in text.lower() for _, text in corpus.runbooks())
    assert not any(key in _line(r).lower() for r in corpus.generate_logs())


def test_examinerq5_questions_are_multi_part_facts_some_with_a_missing_part() -> None:
    """examinerq5's 24 questions (12 a split, over all five examined-style corpora): each a fact
    question of two or three parts, 7 a split with exactly one part the corpus does not answer,
    the others answered whole from different runbooks or from a table and a ``key: value`` line."""
    for name, prefix in (("questions_tune_ext.json", "wt"), ("questions_heldout_ext.json", "wh")):
        data = json.loads((ROOT / "evals" / name).read_text(encoding="utf-8"))["questions"]
        qs = [q for q in data if q.get("author") == "examinerq5"]
        assert len(qs) == 12
        assert {q["corpus"] for q in qs} == {
            "tidewater",
            "larkspur",
            "halberd",
            "ferncombe",
            "brackenmoor",
        }
        for q in qs:
            assert q["id"].startswith(prefix) and q["kind"] == "fact", q["id"]
            assert 2 <= len(q["parts"]) <= 3, q["id"]
            missing = [p["missing"] for p in q["parts"] if "missing" in p]
            assert len(missing) <= 1 and all(1 <= len(m) <= 3 for m in missing), q["id"]
        assert sum(any("missing" in p for p in q["parts"]) for q in qs) == 7


# What each part the corpus does not answer asks for: no line of the corpus (runbook line, or a
# service's logged message with its attributes) holds all of these together.
MISSING: dict[str, tuple[str, ...]] = {
    "wt215": ("passphrase",),
    "wt217": ("replication factor",),
    "wt218": ("firmware",),
    "wt220": ("merchant",),
    "wt222": ("contract",),
    "wt224": ("haemoglobin",),
    "wt225": ("northwind", "endpoint"),
    "wh164": ("credit",),
    "wh166": ("student",),
    "wh167": ("manufacturer",),
    "wh169": ("grow",),
    "wh171": ("fined",),
    "wh173": ("interface",),
    "wh174": ("gateway",),
}


def test_a_missing_part_asks_for_what_the_corpus_does_not_hold() -> None:
    every = [
        q
        for name in SPLITS
        for q in json.loads((ROOT / "evals" / name).read_text(encoding="utf-8"))["questions"]
    ]
    partial = [q for q in every if any("missing" in p for p in q.get("parts", []))]
    assert {q["id"] for q in partial} == set(MISSING)
    for q in partial:
        corpus = CORPORA[q["corpus"]]
        lines = [line.lower() for _, text in corpus.runbooks() for line in text.splitlines()]
        lines += [f"{r['service']} {_line(r)}".lower() for r in corpus.generate_logs()]
        terms = MISSING[q["id"]]
        held = [line for line in lines if all(t in line for t in terms)]
        assert not held, (q["id"], held[:3])
