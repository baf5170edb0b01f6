"""Held-out incidents (written before tuning; only ever scored)."""

from __future__ import annotations

from collections.abc import Callable

from evals.rca.kit import Incident

HELDOUT: list[Callable[[], Incident]] = []
