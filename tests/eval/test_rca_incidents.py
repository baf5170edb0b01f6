"""The frozen root-cause incidents (evals/rca/) follow their format: fast, no database."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from evals.rca import schema  # noqa: E402

INCIDENTS = {split: schema.load(split) for split in schema.SPLITS}


@pytest.mark.parametrize(
    "incident",
    [inc for split in INCIDENTS.values() for inc in split],
    ids=lambda inc: str(inc["id"]),
)
def test_incident_follows_the_format(incident: dict[str, object]) -> None:
    assert schema.problems(incident) == []


def test_files_are_named_by_id_and_small() -> None:
    for directory in schema.SPLITS.values():
        for path in directory.glob("*.json"):
            assert path.stat().st_size <= schema.MAX_BYTES, path.name
    for split, incidents in INCIDENTS.items():
        names = sorted(p.stem for p in schema.SPLITS[split].glob("*.json"))
        assert names == sorted(str(i["id"]) for i in incidents)


def test_ids_are_unique_across_splits_and_the_mix_is_as_documented() -> None:
    ids = [inc["id"] for split in INCIDENTS.values() for inc in split]
    assert len(ids) == len(set(ids))
    assert len(INCIDENTS["tune"]) >= 12
    assert len(INCIDENTS["held-out"]) >= 8
    everything = [inc for split in INCIDENTS.values() for inc in split]
    verdicts = Counter(inc["truth"]["verdict"] for inc in everything)  # type: ignore[index]
    code = sum(
        1
        for inc in everything
        if inc["truth"]["verdict"] == "change"  # type: ignore[index]
        and _kind(inc, inc["truth"]["change_id"]) == "commit"  # type: ignore[index]
    )
    assert verdicts["external"] >= len(everything) // 3 - 1
    assert code >= len(everything) // 2 - 1


def _kind(incident: dict[str, object], change_id: str) -> str:
    records = incident["changes"]["records"]  # type: ignore[index]
    return next(c["kind"] for c in records if c["id"] == change_id)


def test_the_checker_catches_a_culprit_after_the_onset() -> None:
    incident = next(i for i in INCIDENTS["tune"] if i["truth"]["verdict"] == "change")  # type: ignore[index]
    broken = {**incident, "truth": {**incident["truth"], "onset": "2000-01-01T00:00:00Z"}}  # type: ignore[dict-item]
    assert any("after the onset" in p for p in schema.problems(broken))
