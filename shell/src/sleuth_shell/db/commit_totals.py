"""The deferred additions of one transaction: upserts that add to shared rows (the usage
rollups), summed per row and written just before the commit (see
:meth:`sleuth_shell.db.executor.Executor.add_at_commit`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

__all__ = ["CommitTotals"]


class CommitTotals:
    """The deferred additions of one transaction (:meth:`Executor.add_at_commit`).

    :meth:`drain` gives each ``(statement, params)`` to run before the commit, sorted by
    ``order`` and then ``key``: every transaction locks the shared rows in that one order, so two
    cannot deadlock over them.
    """

    __slots__ = ("_rows",)

    def __init__(self) -> None:
        self._rows: dict[tuple[int, tuple[Any, ...], int], tuple[Any, dict[str, Any]]] = {}

    def add(
        self,
        order: int,
        statement: Any,
        key: tuple[Any, ...],
        params: Mapping[str, Any],
        totals: Sequence[str],
    ) -> None:
        slot = (order, key, id(statement))
        found = self._rows.get(slot)
        if found is None:
            self._rows[slot] = (statement, dict(params))
            return
        summed = found[1]
        for name in totals:
            summed[name] += params[name]

    def drain(self) -> Iterator[tuple[Any, dict[str, Any]]]:
        rows, self._rows = self._rows, {}
        for slot in sorted(rows, key=lambda slot: slot[:2]):
            yield rows[slot]
