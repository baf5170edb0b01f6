"""Write the outside-vocabulary incidents of `evals/rca/tune_ext/` and `evals/rca/heldout_ext/`.

Run ``PYTHONPATH=core/src:shell/src:. python -m evals.rca.ext_build`` from the repository root
(``--split tune`` or ``--split heldout`` rewrites one split). Deterministic: every incident has its
own seed. The stories live in `evals.rca.ext.tune` (and `evals.rca.ext.tune5`,
`evals.rca.ext.tune7`, `evals.rca.ext.tune9` and `evals.rca.ext.tune11`, a fifth, a seventh, a
ninth and an eleventh examiner's) and `evals.rca.ext.heldout` (and `evals.rca.ext.heldout6`,
`evals.rca.ext.heldout8`, `evals.rca.ext.heldout10` and `evals.rca.ext.heldout11`, a sixth, an
eighth, a tenth and an eleventh examiner's; the held-out modules are never opened while tuning the
engine); the JSON files are the source of truth.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

from evals.rca.kit import write

HERE = Path(__file__).parent
SPLITS = {
    "tune": (
        "tune_ext",
        (
            "evals.rca.ext.tune",
            "evals.rca.ext.tune5",
            "evals.rca.ext.tune7",
            "evals.rca.ext.tune9",
            "evals.rca.ext.tune11",
        ),
        "TUNE",
    ),
    "heldout": (
        "heldout_ext",
        (
            "evals.rca.ext.heldout",
            "evals.rca.ext.heldout6",
            "evals.rca.ext.heldout8",
            "evals.rca.ext.heldout10",
            "evals.rca.ext.heldout11",
        ),
        "HELDOUT",
    ),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="all")
    args = parser.parse_args(argv)
    for split in SPLITS if args.split == "all" else [args.split]:
        folder, modules, name = SPLITS[split]
        makers = [m for module in modules for m in getattr(importlib.import_module(module), name)]
        directory = HERE / folder
        directory.mkdir(exist_ok=True)
        for old in directory.glob("*.json"):
            old.unlink()
        for make in makers:
            path = write(make().payload(), directory)
            print(f"{path.relative_to(HERE)}: {path.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
