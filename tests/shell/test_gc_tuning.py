"""The garbage collector's settings of ``sleuth serve`` and ``sleuth worker`` (gc_tuning).

Each check runs in a child interpreter: the settings are process-wide, and this test process
keeps the interpreter's defaults.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from sleuth_shell.gc_tuning import OLDER_THRESHOLDS, YOUNG_THRESHOLD


def run_child(code: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_startup_heap_is_frozen_and_the_thresholds_raised() -> None:
    out = run_child(
        """
        import gc, json
        import sleuth_shell.app  # the heap a server builds before tuning
        from sleuth_shell.gc_tuning import tune_for_serving
        default = gc.get_threshold()
        settings = tune_for_serving()
        print(json.dumps({
            "default": default, "now": gc.get_threshold(), "reported": settings.thresholds,
            "frozen": settings.frozen, "count": gc.get_freeze_count(),
            "line": settings.describe(),
        }))
        """
    )
    assert out["default"] == [700, 10, 10]
    assert out["now"] == out["reported"] == [YOUNG_THRESHOLD, *OLDER_THRESHOLDS]
    # The app's modules alone are well over 100,000 objects; all of them left the collector's view.
    assert isinstance(out["frozen"], int) and out["frozen"] > 100_000
    assert out["count"] == out["frozen"]
    assert out["line"] == f"gc young {YOUNG_THRESHOLD}, {out['frozen']} startup objects frozen"


def test_cycles_made_after_tuning_are_still_collected() -> None:
    made = 3 * YOUNG_THRESHOLD // 2  # enough allocations for a young pass to run by itself
    out = run_child(
        f"""
        import gc, json, weakref
        from sleuth_shell.gc_tuning import tune_for_serving
        tune_for_serving()

        class Node:
            pass

        freed = []
        for _ in range({made}):
            a, b = Node(), Node()
            a.other, b.other = b, a  # a cycle: reference counting alone never frees it
            weakref.finalize(a, freed.append, 1)
            del a, b
        automatic = len(freed)
        gc.collect()
        print(json.dumps({{"automatic": automatic, "all": len(freed)}}))
        """
    )
    assert out["automatic"] > 0  # the raised threshold still triggers passes on its own
    assert out["all"] == made  # and nothing is leaked
