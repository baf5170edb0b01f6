"""A SQLAlchemy Core statement compiled once for one dialect, run on a driver cursor directly.

The hot reads (:mod:`sleuth_shell.db.hot_reads`) and the direct writes
(:mod:`sleuth_shell.db.direct_writes`) skip SQLAlchemy's per-execute machinery but keep its meaning:
:class:`CompiledStatement` holds the SQL, the positional parameter order, the values the statement
carries itself, the engine's bind processors and the result processors of the columns it returns
(a ``SELECT``'s columns, or a DML statement's ``RETURNING`` columns): JSON, UTC datetimes.

>>> from sqlalchemy import Column, Integer, MetaData, String, Table, bindparam, select
>>> from sqlalchemy.dialects import sqlite
>>> things = Table("things", MetaData(), Column("id", Integer), Column("name", String))
>>> stmt = CompiledStatement(
...     select(things.c.name).where(things.c.id == bindparam("pk")), sqlite.dialect()
... )
>>> stmt.sql, stmt.arguments({"pk": 7}), stmt.row(["gear"])
('SELECT things.name \\nFROM things \\nWHERE things.id = ?', [7], {'name': 'gear'})
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from operator import itemgetter
from typing import Any

from sqlalchemy import DateTime, Float, Numeric, Select
from sqlalchemy.engine import Dialect

__all__ = ["CompiledStatement"]

_UNSET = object()


class CompiledStatement:
    """``statement`` compiled for ``dialect`` (see the module doc)."""

    def __init__(self, statement: Any, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        # IN lists the statement carries (expanding parameters) rendered once, for good.
        state = compiled.construct_expanded_state(compiled.construct_params(_check=False))
        self.sql: str = state.statement
        self.order: tuple[str, ...] = tuple(state.positiontup or ())
        # Values the statement carries itself (literals such as a strftime format, IN lists).
        self.defaults: dict[str, Any] = dict(state.parameters)
        processors = {**compiled._bind_processors, **state.processors}
        self.bind: dict[str, Callable[[Any], Any]] = {
            name: processor for name, processor in processors.items() if callable(processor)
        }
        columns = (
            list(statement.selected_columns)
            if isinstance(statement, Select)
            else list(compiled.returning or ())
        )
        self.names: tuple[str, ...] = tuple(str(column.key) for column in columns)
        self.convert: tuple[Callable[[Any], Any] | None, ...] = tuple(
            _result_processor(column.type, dialect) for column in columns
        )
        # The columns that have a converter: (position, name, converter).
        self._converted = tuple(
            (i, name, convert)
            for i, (name, convert) in enumerate(zip(self.names, self.convert, strict=True))
            if convert is not None
        )

    def arguments(self, params: Mapping[str, Any]) -> list[Any]:
        """The positional arguments for ``params`` (named), bind processors applied."""
        out = []
        for name in self.order:
            value = params[name] if name in params else self.defaults[name]
            processor = self.bind.get(name)
            out.append(processor(value) if processor is not None else value)
        return out

    def arguments_many(self, rows: Sequence[Mapping[str, Any]]) -> list[Any]:
        """:meth:`arguments` of every row (each row must give every parameter), for an
        ``executemany``: the values fetched by one ``itemgetter`` per row, the bind processors
        applied to the columns that have one (once for a value that is the very object of the
        row before: the rows of a batch share their timestamps)."""
        if not self.order:
            return [() for _ in rows]
        getter = itemgetter(*self.order)
        processed = [(i, self.bind[name]) for i, name in enumerate(self.order) if name in self.bind]
        if len(self.order) == 1:
            singles = [(getter(row),) for row in rows]
            if not processed:
                return singles
            return [(processed[0][1](value),) for (value,) in singles]
        if not processed:
            return [getter(row) for row in rows]
        last: list[tuple[Any, Any]] = [(_UNSET, None)] * len(processed)
        out = []
        for row in rows:
            values = list(getter(row))
            for n, (i, processor) in enumerate(processed):
                value = values[i]
                before, result = last[n]
                if value is not before:
                    result = processor(value)
                    last[n] = (value, result)
                values[i] = result
            out.append(values)
        return out

    def values(self, values: Sequence[Any]) -> tuple[Any, ...]:
        """A row as a tuple, each column converted like SQLAlchemy's result would."""
        return tuple(
            convert(value) if convert is not None and value is not None else value
            for convert, value in zip(self.convert, values, strict=True)
        )

    def row(self, values: Sequence[Any]) -> dict[str, Any]:
        """A row as a dict keyed by column name, converted like SQLAlchemy's result would."""
        out = dict(zip(self.names, values, strict=True))
        for i, name, convert in self._converted:
            value = values[i]
            if value is not None:
                out[name] = convert(value)
        return out


#: How many distinct stored SQLite datetime texts each datetime column's converter keeps parsed.
DATETIME_CACHE_SIZE = 4096


def _result_processor(type_: Any, dialect: Dialect) -> Callable[[Any], Any] | None:
    """The column type's own result processor; on SQLite, a datetime column's (stored text ->
    datetime) memoised on the text: a pure function of it, and datetimes are immutable (the rows
    of hot reads repeat their instants: the same agent read again, the points of one scrape)."""
    convert: Callable[[Any], Any] | None = type_._cached_result_processor(
        dialect, _declared_coltype(type_, dialect)
    )
    if convert is not None and dialect.name == "sqlite" and type_._type_affinity is DateTime:
        return lru_cache(maxsize=DATETIME_CACHE_SIZE)(convert)
    return convert


#: The PostgreSQL type OIDs of ``double precision`` and ``numeric``.
_PG_FLOAT8, _PG_NUMERIC = 701, 1700


def _declared_coltype(type_: Any, dialect: Dialect) -> int | None:
    """The driver's column type a result processor is chosen for, where it needs one: asyncpg's
    numeric processors depend on the type the server sends (and refuse ``None``); a prebuilt
    statement's column is read as declared, ``Float`` as ``double precision`` and ``Numeric`` as
    ``numeric``, as a session's result would pick for such a column."""
    if dialect.name != "postgresql":
        return None
    if isinstance(type_, Float):  # not a Numeric subclass in SQLAlchemy 2.1
        return _PG_FLOAT8
    return _PG_NUMERIC if isinstance(type_, Numeric) else None
