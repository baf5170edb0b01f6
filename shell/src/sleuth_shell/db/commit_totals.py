"""The deferred writes of one transaction, written just before the commit: upserts that add to
shared rows (the usage rollups), summed per row (see
:meth:`sleuth_shell.db.executor.Executor.add_at_commit`), and new rows, one ``executemany`` per
statement (see :meth:`sleuth_shell.db.executor.Executor.insert_at_commit`)."""

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

    __slots__ = ("_inserts", "_rows")

    def __init__(self) -> None:
        self._rows: dict[tuple[int, tuple[Any, ...], int], tuple[Any, dict[str, Any]]] = {}
        self._inserts: dict[int, tuple[Any, list[Mapping[str, Any]]]] = {}

    def insert(self, statement: Any, params: Mapping[str, Any]) -> None:
        """Add the row ``params`` of ``statement`` (a prebuilt ``INSERT``) to the transaction's
        rows of that statement."""
        found = self._inserts.get(id(statement))
        if found is None:
            self._inserts[id(statement)] = (statement, [params])
        else:
            found[1].append(params)

    def drain_inserts(self) -> list[tuple[Any, list[Mapping[str, Any]]]]:
        """Each statement with its rows, in the order of each statement's first row (written
        before the additions of :meth:`drain`)."""
        inserts, self._inserts = self._inserts, {}
        return list(inserts.values())

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
