"""Leave-one-batch-out check of the root-cause engine's verdict weights (`evals/rca/README.md`).

Run it as ``PYTHONPATH=core/src:shell/src:. python -m evals.rca_cv`` from the repository root.
Each incident of the tune splits (``tune`` and ``tune-ext``; never a held-out split) is read once
through the API as `evals.rca_run` reads it, and the engine's input (`sleuth_core.rca.Evidence`)
kept, so every setting below is scored on the very same evidence. A setting overrides some of
the engine's weights and cut-offs (module constants of `sleuth_core.rca.engine`: the least
relatedness for a verdict, the gains of a mechanism, a stack frame or time, the strength from
which an outside sign is strong ...); the empty setting is the engine as it is. ``tune-ext`` is
cut into its examiners' batches (the folds); for each fold, the setting that scores best on the
other batches and on ``tune`` is chosen (the engine as it is on a tie) and scored on the fold it
was not chosen on. The cross-validated figure sums those held-out folds; the fitted figure
(chosen and scored on everything) is printed beside it.

The score a setting is chosen by, per incident: 1 for the culprit named (change-caused) or a
correct abstention (no change at fault), minus 1 for an innocent change blamed, plus a half for
the right category.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pickle
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from evals import rca_run
from sleuth_core.rca import Evidence, engine
from sleuth_shell.agents import rca as rca_agent
from sleuth_shell.investigations import DEFAULT_PROMPT
from sleuth_shell.services import Services

#: The examiners' batches of ``tune-ext`` (first and last incident number, inclusive).
FOLDS: tuple[tuple[str, int, int], ...] = (
    ("xt01-14", 1, 14),
    ("xt15-36", 15, 36),
    ("xt37-48", 37, 48),
    ("xt49-60", 49, 60),
    ("xt61-72", 61, 72),
    ("xt73-84", 73, 84),
    ("xt85-96", 85, 96),
    ("xt97-108", 97, 108),
    ("xt109-120", 109, 120),
)
CACHE = Path("/tmp/sleuth-rca-cv-evidence.pickle")

Record = tuple[str, dict[str, Any], Evidence]  # (split, incident, evidence)


def fold_of(split: str, incident_id: str) -> str:
    """The batch an incident belongs to ("tune" for the first split, always trained on)."""
    if split != "tune-ext":
        return split
    number = int(incident_id[2:].split("-", 1)[0])
    return next(name for name, first, last in FOLDS if first <= number <= last)


async def _capture(splits: Sequence[str]) -> list[Record]:
    if any(not s.startswith("tune") for s in splits):
        raise SystemExit("only the tune splits are read here")
    seen: list[Evidence] = []
    original = rca_agent.run_engine

    def recording(gathered: rca_agent.Gathered) -> Any:
        seen.append(gathered.evidence)
        return original(gathered)

    async def investigate(services: Services, org_id: int, incident: dict[str, Any]) -> Any:
        outcome = rca_run.Outcome(incident)
        ctx = services.agent_context(org_id, now=rca_run.parse(incident["now"]))
        alert = incident["alert"]
        seen.clear()
        result = await services.agent.investigate(
            ctx, DEFAULT_PROMPT, json.dumps(alert["payload"]), title=alert["title"]
        )
        outcome.analysis = result.analysis
        outcome.sources = {"evidence": seen[0]}
        return outcome

    rca_agent.run_engine = recording  # type: ignore[assignment]
    rca_run.investigate = investigate  # type: ignore[assignment]
    try:
        run = await rca_run.run_all(splits)
    finally:
        rca_agent.run_engine = original  # type: ignore[assignment]
    return [
        (split, outcome.incident, outcome.sources["evidence"])
        for split, outcomes in run.outcomes.items()
        for outcome in outcomes
    ]


def analysis_of(evidence: Evidence) -> dict[str, Any]:
    result = engine.analyze(evidence)
    return {
        "verdict": result.verdict,
        "change_id": result.change_id,
        "category": result.category,
        "service": result.service,
    }


def marks(records: Sequence[Record]) -> list[dict[str, bool | None]]:
    return [rca_run.verdicts(incident, analysis_of(ev)) for _, incident, ev in records]


def objective(scored: Iterable[dict[str, bool | None]]) -> float:
    total = 0.0
    for m in scored:
        total += 1.0 if (m["culprit"] or m["abstain"]) else 0.0
        total -= 1.0 if m["innocent"] else 0.0
        total += 0.5 if m["category"] else 0.0
    return total


def figures(scored: Sequence[dict[str, bool | None]]) -> str:
    def pct(metric: str) -> str:
        share = rca_run.share([m[metric] for m in scored])
        return "    -" if share is None else f"{share * 100:4.0f}%"

    return " ".join(pct(m) for m in ("culprit", "innocent", "wrong_abstain", "abstain", "category"))


Setting = tuple[tuple[str, float], ...]


def with_setting(setting: Setting, run: Callable[[], Any]) -> Any:
    saved = {name: getattr(engine, name) for name, _ in setting}
    for name, value in setting:
        setattr(engine, name, value)
    try:
        return run()
    finally:
        for name, value in saved.items():
            setattr(engine, name, value)


#: The constants swept (each alone, at these multiples of its value).
SWEPT = (
    "LIKELY_AT",
    "STRONG_AT",
    "_STRONG_OUTSIDE",
    "_SURFACE_ONLY",
    "_MECHANISM_GAIN",
    "_RETUNE_GAIN",
    "_FRAME_GAIN",
    "_PROXIMITY_GAIN",
    "_QUIET_SHARE",
    "_OPAQUE_GAIN",
    "_CONFIG_GAIN",
)
MULTIPLES = (0.6, 0.8, 0.9, 1.1, 1.25, 1.5)


#: With ``--pairs``: the least relatedness for a verdict and the share of relatedness a change
#: tied by words alone keeps, moved together (words weighing less, the cut-off lower).
PAIRS = (("LIKELY_AT", (0.4, 0.45, 0.5)), ("_SURFACE_ONLY", (0.45, 0.6, 0.75)))


def grid(pairs: bool = False) -> list[Setting]:
    if pairs:
        (a, avalues), (b, bvalues) = PAIRS
        return [()] + [((a, x), (b, y)) for x in avalues for y in bvalues if (x, y) != (0.5, 0.75)]
    settings: list[Setting] = [()]
    for name in SWEPT:
        value = getattr(engine, name)
        for k in MULTIPLES:
            changed = round(value * k, 4)
            if name in ("LIKELY_AT", "STRONG_AT", "_SURFACE_ONLY", "_QUIET_SHARE"):
                changed = min(changed, 0.95)
            settings.append(((name, changed),))
    return settings


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--recapture", action="store_true", help="read the incidents again")
    parser.add_argument("--rescore", action="store_true", help="the engine changed: score again")
    parser.add_argument("--pairs", action="store_true", help="sweep two constants together")
    parser.add_argument("--top", type=int, default=0, help="list the best settings per batch")
    args = parser.parse_args(argv)
    if args.recapture or not CACHE.exists():
        records = asyncio.run(_capture(["tune", "tune-ext"]))
        CACHE.write_bytes(pickle.dumps(records))
    records = pickle.loads(CACHE.read_bytes())
    folds = {fold_of(split, inc["id"]) for split, inc, _ in records}
    started = time.perf_counter()
    per_setting: dict[Setting, list[dict[str, bool | None]]] = {}
    scored = CACHE.with_suffix(".pairs" if args.pairs else ".marks")
    if scored.exists() and not args.recapture and not args.rescore:
        per_setting = pickle.loads(scored.read_bytes())
    for setting in grid(args.pairs):
        if setting not in per_setting:
            per_setting[setting] = with_setting(setting, lambda: marks(records))
    scored.write_bytes(pickle.dumps(per_setting))
    print(f"{len(per_setting)} settings scored in {time.perf_counter() - started:.0f} s")
    names = [fold_of(split, inc["id"]) for split, inc, _ in records]

    def score_on(setting: Setting, keep: Callable[[str], bool]) -> float:
        return objective(m for m, f in zip(per_setting[setting], names, strict=True) if keep(f))

    header = "                          culprit innocent wrong.abs abstain category"
    print(header)
    cv: list[dict[str, bool | None]] = []
    tiered: list[dict[str, bool | None]] = []
    for fold, _, _ in FOLDS:
        if fold not in folds:
            continue
        best = max(per_setting, key=lambda s: (score_on(s, lambda f, k=fold: f != k), not s))
        held = [m for m, f in zip(per_setting[best], names, strict=True) if f == fold]
        base = [m for m, f in zip(per_setting[()], names, strict=True) if f == fold]
        cv += held
        tiered += base
        print(f"{fold:10} as it is        {figures(base)}")
        chosen = ", ".join(f"{n}={v}" for n, v in best) or "as it is"
        print(f"{fold:10} chosen {chosen:28} {figures(held)}")
    print(f"cross-validated (tune-ext) {figures(cv)}  objective {objective(cv):.1f}")
    print(f"engine as it is (tune-ext) {figures(tiered)}  objective {objective(tiered):.1f}")
    fitted = max(per_setting, key=lambda s: (score_on(s, lambda f: True), not s))
    print(f"fitted on all: {fitted}  objective {score_on(fitted, lambda f: True):.1f}")
    print(f"as it is on all: objective {score_on((), lambda f: True):.1f}")
    if args.top:
        ranked = sorted(per_setting, key=lambda s: -score_on(s, lambda f: True))[: args.top]
        order = ["tune", *(name for name, _, _ in FOLDS)]
        print("setting                        all " + " ".join(f"{f[2:]:>7}" for f in order))
        for setting in ranked:
            cells = " ".join(f"{score_on(setting, lambda f, o=o: f == o):7.1f}" for o in order)
            name = ", ".join(f"{n}={v}" for n, v in setting) or "as it is"
            print(f"{name:28} {score_on(setting, lambda f: True):5.1f} {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
