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

from evals import ferncombe, halberd, kestrel, larkspur, tidewater  # noqa: E402
from evals.rca.schema import CATEGORIES  # noqa: E402

# The corpora checked here (the Larkspur, Halberd and Ferncombe questions, and those the tuner
# wrote over the tune corpora), and the splits that ask over them.
CORPORA: dict[str, Any] = {
    "ferncombe": ferncombe,
    "halberd": halberd,
    "kestrel": kestrel,
    "larkspur": larkspur,
    "tidewater": tidewater,
}
# The corpora written wholly by outside examiners and checked here question by question.
EXAMINED = ("larkspur", "halberd", "ferncombe")
SPLITS = ("questions_tune_ext.json", "questions_heldout_ext.json")


def _questions() -> list[dict[str, Any]]:
    out = []
    for name in SPLITS:
        data = json.loads((ROOT / "evals" / name).read_text(encoding="utf-8"))
        # Every question over an examined corpus, and the questions the tuner wrote over the tune
        # corpora.
        out.extend(
            q for q in data["questions"] if q["corpus"] in EXAMINED or q.get("author") == "tuner"
        )
    return out


QUESTIONS = _questions()


def _ts(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _line(record: dict[str, Any]) -> str:
    return f"{record['message']} {json.dumps(record['attributes'])}"


@pytest.mark.parametrize(
    ("corpus", "tune", "held"), [("larkspur", 14, 16), ("halberd", 16, 16), ("ferncombe", 16, 16)]
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
    ("corpus", "author"), [("halberd", "examinerq3"), ("ferncombe", "examinerq2")]
)
def test_examiner_questions_are_unique_and_well_formed(corpus: str, author: str) -> None:
    """Each split's questions over a corpus one examiner wrote (Halberd, Ferncombe): ids and
    wording unique across both splits, at least five multi-part fact questions (one with parts
    answered by different runbooks), a past incident asked of its postmortem, every log window in
    ISO 8601 with a category on each cause."""
    every = [
        q
        for name in SPLITS
        for q in json.loads((ROOT / "evals" / name).read_text(encoding="utf-8"))["questions"]
    ]
    assert len({q["id"] for q in every}) == len(every)
    assert len({q["question"] for q in every}) == len(every)
    for name in SPLITS:
        data = json.loads((ROOT / "evals" / name).read_text(encoding="utf-8"))["questions"]
        # The examiner's questions (the tuner's own over the same corpus are not theirs).
        qs = [q for q in data if q["corpus"] == corpus and q.get("author") != "tuner"]
        assert all(q["author"] == author for q in qs)
        multi = [q for q in qs if q["kind"] == "fact" and len(q.get("parts", [])) >= 2]
        assert len(multi) >= 5
        assert any(len({p["source"] for p in q["parts"]}) > 1 for q in multi)
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
        assert [f for p in parts for f in p["facts"]] == question["facts"]
        for part in parts:
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
    }
    key = keys[question["id"]].lower()
    assert not any(key in text.lower() for _, text in corpus.runbooks())
    assert not any(key in _line(r).lower() for r in corpus.generate_logs())
