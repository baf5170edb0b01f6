"""Write the frozen root-cause incidents of `evals/rca/` (deterministic: seeded per incident).

Run ``PYTHONPATH=core/src:shell/src:. python -m evals.rca.build`` from the repository root; it
rewrites ``evals/rca/tune/*.json`` and ``evals/rca/heldout/*.json``. The JSON files are the source
of truth (the runner only reads them); this script is how they were made, each incident's story
spelled out in code. Held-out incidents live in `evals.rca.heldout` and were written before any
tuning.
"""

from __future__ import annotations

import sys
from pathlib import Path

from evals.rca import heldout, tune
from evals.rca.kit import write

HERE = Path(__file__).parent


def main() -> int:
    for split, makers in (("tune", tune.TUNE), ("heldout", heldout.HELDOUT)):
        directory = HERE / split
        directory.mkdir(exist_ok=True)
        for old in directory.glob("*.json"):
            old.unlink()
        for make in makers:
            path = write(make().payload(), directory)
            print(f"{path.relative_to(HERE)}: {path.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
