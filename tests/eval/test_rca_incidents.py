"""The frozen root-cause incidents (evals/rca/) follow their format: fast, no database.

The files (about 40 MB of JSON) are read when the tests run, not when they are collected: every
xdist worker collects every module, so reading them at import parsed them once per worker. The
module runs on one worker (its ``xdist_group``), which reads each file once.
"""

from __future__ import annotations

import functools
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from evals import rca_run  # noqa: E402
from evals.rca import schema  # noqa: E402

pytestmark = pytest.mark.xdist_group("rca_incidents")

#: Every incident file, in the order of ``schema.load`` (split by split, by file name).
FILES = [path for directory in schema.SPLITS.values() for path in sorted(directory.glob("*.json"))]

Splits = dict[str, list[dict[str, Any]]]


@functools.cache
def _read(path: Path) -> dict[str, Any]:
    incident: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return incident


@pytest.fixture(scope="module")
def by_split() -> Splits:
    """``schema.load(split)`` for every split, read once (the format test reads the same)."""
    return {
        split: [_read(path) for path in sorted(directory.glob("*.json"))]
        for split, directory in schema.SPLITS.items()
    }


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.stem)
def test_incident_follows_the_format(path: Path) -> None:
    incident = _read(path)
    assert incident["id"] == path.stem  # the test's id is the incident's
    assert schema.problems(incident) == []


def test_files_are_named_by_id_and_small(by_split: Splits) -> None:
    for directory in schema.SPLITS.values():
        for path in directory.glob("*.json"):
            assert path.stat().st_size <= schema.MAX_BYTES, path.name
    for split, incidents in by_split.items():
        names = sorted(p.stem for p in schema.SPLITS[split].glob("*.json"))
        assert names == sorted(str(i["id"]) for i in incidents)


def test_ids_are_unique_across_splits_and_the_mix_is_as_documented(by_split: Splits) -> None:
    ids = [inc["id"] for split in by_split.values() for inc in split]
    assert len(ids) == len(set(ids))
    assert len(by_split["tune"]) >= 12
    assert len(by_split["held-out"]) >= 8
    everything = [inc for split in ("tune", "held-out") for inc in by_split[split]]
    verdicts = Counter(inc["truth"]["verdict"] for inc in everything)  # type: ignore[index]
    code = sum(
        1
        for inc in everything
        if inc["truth"]["verdict"] == "change"  # type: ignore[index]
        and _kind(inc, inc["truth"]["change_id"]) == "commit"  # type: ignore[index]
    )
    assert verdicts["external"] >= len(everything) // 3 - 1
    assert code >= len(everything) // 2 - 1


def test_the_outside_vocabulary_splits_state_categories_and_cover_the_classes(
    by_split: Splits,
) -> None:
    """`tune_ext` (14+) and `heldout_ext` (54+): every incident has a failure category; together
    they hold code and config causes, outside causes, nothing-wrong and no-cause incidents, and
    each of the eight categories but ``unknown`` in both splits."""
    assert len(by_split["tune-ext"]) >= 14
    assert len(by_split["held-out-ext"]) >= 54
    for split in schema.EXT_SPLITS:
        incidents = by_split[split]
        assert all("category" in inc["truth"] for inc in incidents)  # type: ignore[operator]
        categories = Counter(inc["truth"]["category"] for inc in incidents)  # type: ignore[index]
        assert set(schema.CATEGORIES) - {"unknown"} <= set(categories), categories
        verdicts = Counter(inc["truth"]["verdict"] for inc in incidents)  # type: ignore[index]
        assert verdicts["change"] >= len(incidents) // 3
        assert verdicts["external"] >= len(incidents) // 4
        assert verdicts["healthy"] >= 2
    held = Counter(inc["truth"]["verdict"] for inc in by_split["held-out-ext"])  # type: ignore[index]
    assert held["none"] >= 1


def _kind(incident: dict[str, object], change_id: str) -> str:
    records = incident["changes"]["records"]  # type: ignore[index]
    return next(c["kind"] for c in records if c["id"] == change_id)


def test_the_checker_catches_a_culprit_after_the_onset(by_split: Splits) -> None:
    incident = next(i for i in by_split["tune"] if i["truth"]["verdict"] == "change")  # type: ignore[index]
    broken = {**incident, "truth": {**incident["truth"], "onset": "2000-01-01T00:00:00Z"}}  # type: ignore[dict-item]
    assert any("after the onset" in p for p in schema.problems(broken))


def test_the_naive_baselines_stay_weak(by_split: Splits) -> None:
    """The incidents keep the hidden set's shape: blaming the latest deploy before the alert
    rarely finds the culprit (issue 10: about one in twenty), blaming the alerting service's last
    deploy sometimes (about one in five)."""
    everything = [inc for split in by_split.values() for inc in split]
    latest = rca_run.summarize_baseline(
        everything, lambda i: rca_run.baseline(i, alerting_only=False)
    )
    alerting = rca_run.summarize_baseline(
        everything, lambda i: rca_run.baseline(i, alerting_only=True)
    )
    assert latest["culprit"] is not None and latest["culprit"] <= 0.15
    assert alerting["culprit"] is not None and 0.1 <= alerting["culprit"] <= 0.4
    assert latest["innocent"] is not None and latest["innocent"] >= 0.6


def test_scoring_rules(by_split: Splits) -> None:
    """Naming the deploy that shipped the culprit counts; naming a decoy is an innocent blamed;
    an outside cause is abstained on only without a change id."""
    incident = next(i for i in by_split["tune"] if i["id"] == "t01-orders-pool-leak")
    truth = incident["truth"]
    deploy = {"verdict": "change", "change_id": truth["accept"][0]}
    assert rca_run.verdicts(incident, deploy)["culprit"] is True
    decoy = {"verdict": "change", "change_id": truth["decoys"][0]}
    assert rca_run.verdicts(incident, decoy) | {} == {
        "culprit": False,
        "innocent": True,
        "decoys": True,
        "wrong_abstain": False,
        "abstain": None,
        "external": None,
        "category": None,
        "service": False,
    }
    outside = next(i for i in by_split["tune"] if i["truth"]["verdict"] == "external")
    assert rca_run.verdicts(outside, {"verdict": "unknown", "change_id": None})["abstain"]
    assert not rca_run.verdicts(outside, {"verdict": "external", "change_id": "x"})["abstain"]
    assert rca_run.verdicts(incident, {"verdict": "unknown", "change_id": None})["wrong_abstain"]


def test_scoring_rules_for_categories_and_healthy_incidents(by_split: Splits) -> None:
    """The category counts only when the analysis states the truth's; a healthy incident is
    abstained on by a healthy (or unknown) verdict without a change id."""
    healthy = next(i for i in by_split["tune-ext"] if i["truth"]["verdict"] == "healthy")
    right = {"verdict": "healthy", "change_id": None, "category": "healthy"}
    marks = rca_run.verdicts(healthy, right)
    assert marks["abstain"] is True and marks["category"] is True
    assert marks["culprit"] is None and marks["wrong_abstain"] is None
    assert rca_run.verdicts(healthy, {"verdict": "unknown", "change_id": None})["category"] is False
    decoy = {"verdict": "change", "change_id": healthy["truth"]["decoys"][0]}  # type: ignore[index]
    assert rca_run.verdicts(healthy, decoy)["decoys"] is True
    assert rca_run.verdicts(healthy, decoy)["abstain"] is False


def test_the_checker_catches_a_category_that_contradicts_the_verdict(by_split: Splits) -> None:
    incident = next(i for i in by_split["tune-ext"] if i["truth"]["verdict"] == "change")
    broken = {**incident, "truth": {**incident["truth"], "category": "healthy"}}  # type: ignore[dict-item]
    assert any("healthy" in p for p in schema.problems(broken))
    broken = {**incident, "truth": {**incident["truth"], "category": "gremlins"}}  # type: ignore[dict-item]
    assert any("not one of" in p for p in schema.problems(broken))


def test_first_sentence() -> None:
    assert rca_run.first_sentence("**No change** explains this [[source:2]]. More.") == (
        "No change explains this."
    )
