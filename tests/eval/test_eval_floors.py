"""The answer-quality evaluation (evals/, `make eval`) as a CI check: scores stay above floors.

The floors sit a little below what the retrieval agent reaches today (evals/README.md records the
scores), so a change that makes answers worse fails here. The held-out split has its own floors.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from evals import run as evaluation  # noqa: E402

# split -> metric -> lowest acceptable share over all questions of the split.
FLOORS: dict[str, dict[str, float]] = {
    "tune": {"source": 0.95, "facts": 0.95, "lead": 0.85, "abstain": 0.95, "support": 0.95},
    "held-out": {"source": 0.9, "facts": 0.85, "lead": 0.85, "abstain": 0.9, "support": 0.9},
    # 32 fresh outside questions (Ferncombe, Halberd) joined the split at 94/90/87/98/97/88
    # (source/facts/lead/abstain/support/parts) on the 115; after wip/answers6
    # 100/100/97/100/100/100. Brackenmoor's 16 (examinerq4, untouched 87/87/87/94/100/88) and
    # examinerq5's 12 multi-part questions, 7 with a part the corpus does not answer (untouched
    # 67/50/50/75/100/8), joined: 96/94/92/97/100/86 on the 143. The tuner's 62 multi-part
    # questions of wip/answers7 joined (205: main's agent 95/91/88/98/100/85); after
    # wip/answers7 99/99/98/100/100/99.
    "tune-ext": {
        "source": 0.95,
        "facts": 0.95,
        "lead": 0.9,
        "abstain": 0.95,
        "support": 0.98,
        "parts": 0.95,
    },
    # Lowered when the Larkspur questions (written by an examiner who never read the agent) were
    # added and scored untouched: held-out-ext facts 80%, lead 77%, parts 71%; after wip/answers5
    # facts 77%, lead 73%, parts 65% (11 of 17), evals/README.md.
    # The Ferncombe and Halberd held-out questions (32) joined untouched at 88/73/67/95/97/61 on
    # the 64; after wip/answers6 (tuned on the two corpora's tune questions only)
    # 95/85/85/97/100/77. Brackenmoor's 16 (untouched 87/80/80/94/100/67) and examinerq5's 12
    # (untouched 92/83/83/92/100/25) joined: 93/84/84/96/100/63 on the 92; after wip/answers7
    # (a part not found said so; tuned on tune and tune-ext only) 95/86/83/96/100/78.
    "held-out-ext": {
        "source": 0.9,
        "facts": 0.8,
        "lead": 0.8,
        "abstain": 0.9,
        "support": 0.95,
        "parts": 0.7,
    },
}


# One xdist worker runs the whole module (``make test`` runs ``--dist loadgroup``), so its
# module-scoped evaluation run is set up once, not once per worker.
pytestmark = pytest.mark.xdist_group("eval_floors")


@pytest.fixture(scope="module")
def outcomes() -> dict[str, list[evaluation.Outcome]]:
    return asyncio.run(evaluation.run_all(list(FLOORS)))


def test_question_sets_are_big_enough_and_disjoint() -> None:
    tune = evaluation.load_questions("tune")
    held = evaluation.load_questions("held-out")
    assert len(tune) + len(held) >= 40
    assert not {q["question"] for q in tune} & {q["question"] for q in held}
    for question in [*tune, *held]:
        assert question["kind"] in evaluation.KINDS
        assert question["kind"] == "abstain" or "source" in question or "logs" in question


CORPUS_NAMES = ("demo", "kestrel", "tidewater", "larkspur", "halberd", "ferncombe", "brackenmoor")


def test_every_question_file_follows_the_format() -> None:
    """All four splits: unique ids and questions, a known corpus and kind, an expected source or
    log window, and for a multi-part question a part per asked thing, each with facts that the
    question's own facts cover."""
    questions = [q for split in evaluation.SPLITS for q in evaluation.load_questions(split)]
    assert len({q["id"] for q in questions}) == len(questions)
    assert len({q["question"] for q in questions}) == len(questions)
    assert len(evaluation.load_questions("tune-ext")) >= 25
    assert len(evaluation.load_questions("held-out-ext")) >= 12
    for q in questions:
        assert q["corpus"] in CORPUS_NAMES, q["id"]
        assert q["kind"] in evaluation.KINDS, q["id"]
        assert q["kind"] == "abstain" or "source" in q or "logs" in q, q["id"]
        if "parts" in q:
            assert len(q["parts"]) >= 2, q["id"]
            for part in q["parts"]:
                if "missing" in part:  # a part the corpus does not answer: what names it
                    assert part["missing"] and "facts" not in part, q["id"]
                    assert all(w.lower() in q["question"].lower() for w in part["missing"])
                    continue
                assert part["facts"] and set(part["facts"]) <= set(q["facts"]), q["id"]
            assert any("missing" not in part for part in q["parts"]), q["id"]


@pytest.mark.parametrize("split", list(FLOORS))
def test_scores_stay_above_their_floors(
    outcomes: dict[str, list[evaluation.Outcome]], split: str
) -> None:
    scores = evaluation.summarize(outcomes[split])["all"]
    report = evaluation.render(split, outcomes[split])
    for metric, floor in FLOORS[split].items():
        value = scores[metric]
        assert value is not None and value >= floor, f"{metric} below {floor}\n{report}"


def test_a_part_the_corpus_does_not_answer_is_answered_by_saying_so_by_name() -> None:
    says = evaluation._says_not_found
    answer = "the limit is 500 [1].\ni could not find who is on call for the warehouse."
    assert says(answer, ["warehouse", "on call"])
    assert not says(answer, ["warehouse", "pager"])  # a word of the part not named
    # Not-found and the part's words on different lines: not a statement about that part.
    assert not says("i could not find the runbook.\nthe warehouse is on call.", ["warehouse"])
