"""The garbage collector's settings for a long-running ``sleuth serve`` or ``sleuth worker``.

CPython frees almost every object by reference counting; its cyclic collector only exists for
reference cycles, and by default it runs a young-generation pass every 700 net container
allocations and a full pass over the whole heap every hundred or so of those. A server process
pays for both in ways that have nothing to do with cycles:

- the heap it built at startup (modules, Litestar's routes and signatures, SQLAlchemy's tables
  and compiled statements, pydantic models, regular expressions: about 184,000
  objects in ``serve``) is traversed by every full pass, although none of it ever becomes garbage;
- one request allocates far more than 700 containers (a root-cause answer reads about 5,000 metric
  points and 1,500 log lines as tuples), so young passes run many times within one request and
  promote request-scoped objects that would have been freed by reference counting a moment
  later, and the promoted ones then cost the older generations' passes.

:func:`tune_for_serving`, called by the two commands once the application is built (before the
first request or job), moves the startup heap into the permanent generation (``gc.freeze()``,
what the Python documentation recommends for long-lived processes) and raises the young
generation's threshold to :data:`YOUNG_THRESHOLD`. Cycles are still found and freed: the
collector runs, less often, over what the requests allocated. The cost is memory: at
most :data:`YOUNG_THRESHOLD` more container objects alive between passes (a few megabytes).
Measured effect: docs/performance.md (sync interactions, "Fifth round"); decision:
docs/decisions.md ("The serving processes' garbage collector").

The settings are the process's own; embedders that build the app themselves keep the
interpreter's defaults. The test processes use the same thresholds, without the freeze
(tests/conftest.py).

>>> import gc
>>> before = gc.get_threshold()
>>> settings = tune_for_serving()
>>> gc.get_threshold()[0] == YOUNG_THRESHOLD and settings.frozen >= 0
True
>>> gc.unfreeze(); gc.set_threshold(*before)
"""

from __future__ import annotations

import gc
from dataclasses import dataclass

__all__ = ["YOUNG_THRESHOLD", "GcSettings", "tune_for_serving"]

#: Net container allocations between two young-generation passes (CPython's default is 700).
YOUNG_THRESHOLD = 20_000
#: Young passes per middle-generation pass, middle passes per full pass (defaults: 10, 10).
OLDER_THRESHOLDS = (20, 20)


@dataclass(frozen=True)
class GcSettings:
    """What :func:`tune_for_serving` set: the thresholds and how many objects it froze."""

    thresholds: tuple[int, int, int]
    frozen: int

    def describe(self) -> str:
        """For the startup line: ``gc young 20000, 312345 startup objects frozen``."""
        return f"gc young {self.thresholds[0]}, {self.frozen} startup objects frozen"


def tune_for_serving() -> GcSettings:
    """Collect what startup left, freeze the rest, raise the thresholds (see the module doc)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
    return GcSettings(gc.get_threshold(), gc.get_freeze_count())
