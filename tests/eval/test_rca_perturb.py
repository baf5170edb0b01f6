"""The perturbation families of the tune splits (`evals/rca/perturb.py`): each rewrite is a valid
incident of the same story, the same every run: fast, no database."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from evals.rca import schema  # noqa: E402
from evals.rca.perturb import FAMILIES, perturb  # noqa: E402


@functools.cache
def _tune() -> list[dict[str, Any]]:
    """``schema.load("tune")[:4] + schema.load("tune-ext")[::6]``, reading only those files, once
    per test process and not at collection (every xdist worker collects every module)."""
    paths = sorted(schema.SPLITS["tune"].glob("*.json"))[:4]
    paths += sorted(schema.SPLITS["tune-ext"].glob("*.json"))[::6]
    return [json.loads(path.read_text(encoding="utf-8")) for path in paths]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_perturbed_incident_follows_the_format_and_keeps_its_truth(family: str) -> None:
    for incident in _tune():
        before = json.dumps(incident, sort_keys=True)
        changed = perturb(incident, family)
        assert json.dumps(incident, sort_keys=True) == before  # the input is left alone
        problems = schema.problems(changed)
        if family == "severity":  # the file format spells levels one way; the API takes aliases
            problems = [p for p in problems if "level" not in p and "no errors" not in p]
        if family == "warn-level":  # errors logged as warnings: the point of the family
            problems = [p for p in problems if "no errors" not in p]
        assert problems == [], (family, incident["id"])
        assert perturb(incident, family) == changed  # deterministic
        ids = {c["id"] for c in changed["changes"]["records"]}
        truth = changed["truth"]
        assert truth["change_id"] is None or truth["change_id"] in ids
        assert set(truth["accept"]) <= ids
        assert truth["verdict"] == incident["truth"]["verdict"]


def test_rename_leaves_no_service_name_and_time_moves_every_timestamp() -> None:
    first = sorted(schema.SPLITS["tune-ext"].glob("*.json"))[0]  # schema.load("tune-ext")[0]
    incident = json.loads(first.read_text(encoding="utf-8"))
    renamed = json.dumps(perturb(incident, "rename"))
    services = {r["service"] for r in incident["logs"]["records"]}
    assert all(f'"{s}"' not in renamed for s in services)
    shifted = perturb(incident, "time")
    assert shifted["alert"]["fired_at"] != incident["alert"]["fired_at"]
    assert shifted["now"][:10] != incident["now"][:10]


def test_only_the_tune_splits_are_perturbed(monkeypatch: pytest.MonkeyPatch) -> None:
    from evals import rca_run

    loaded: list[str] = []

    def load(split: str) -> list[dict[str, object]]:
        loaded.append(split)
        return []

    monkeypatch.setattr(rca_run.schema, "load", load)

    async def nothing(*_args: object, **_kwargs: object) -> None:
        return None

    monkeypatch.setattr(rca_run, "migrate_async", nothing)
    monkeypatch.setattr(rca_run, "create_engine", lambda _url: _Disposable())
    monkeypatch.setattr(rca_run, "create_session_factory", lambda _engine: _Sessions())
    monkeypatch.setattr(rca_run, "create_app", _App)
    monkeypatch.setattr(rca_run, "AsyncTestClient", _Client)
    import asyncio

    run = asyncio.run(rca_run.run_all(["tune", "held-out-ext"], ["rename"]))
    assert sorted(run.outcomes) == ["held-out-ext", "tune", "tune~rename"]


class _Disposable:
    async def dispose(self) -> None:
        return None


class _Sessions:
    def __call__(self) -> _Sessions:
        return self

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *_exc: object) -> None:
        return None


class _App:
    def __init__(self, _settings: object) -> None:
        self.state = type("State", (), {"services": None})()


class _Client:
    def __init__(self, app: object, raise_server_exceptions: bool) -> None:
        del app, raise_server_exceptions

    async def __aenter__(self) -> _Client:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        return None
