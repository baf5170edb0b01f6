"""Hot reads: one prebuilt ``SELECT`` run with as little machinery between it and the driver as
possible, for the request paths that are read far more often than anything else.

An ORM ``AsyncSession`` read costs about 1 ms on two busy cores (session set-up,
a greenlet switch per call, result and session bookkeeping, close with its reset); the same query
through :mod:`sqlite3` costs about 30 us. :class:`HotRead` keeps SQLAlchemy's meaning (the
statement, its bind and result type processing: JSON columns, UTC datetimes) and drops the rest:

- **SQLite (a file):** the statement is compiled once for the engine's dialect and run on one
  plain :mod:`sqlite3` connection per process, on the event loop thread. In WAL mode (which
  :func:`~sleuth_shell.db.dialect.install_connection_setup` sets) a reader never waits for the
  writer, so the call cannot block the loop on a lock; like the inline reads of
  :mod:`sleuth_shell.db.sqlite_reads`, a ``SELECT`` that meets a WAL checkpoint restart (rare,
  short) is the one exception. Each call is its own snapshot (autocommit: no transaction is left
  open, so the reader never holds the WAL back) and sees every commit made before it began.
- **PostgreSQL:** the statement is compiled once for the engine's dialect (``$n`` parameters) and
  run on a connection of the reader's own :func:`asyncpg.create_pool` pool, with the JSON codecs
  SQLAlchemy's asyncpg dialect installs (its own functions install them) and asyncpg's
  per-connection prepared-statement cache: one round trip per read, no pre-ping, no ``ROLLBACK`` or
  reset query on release (the connection is in autocommit: nothing is left to roll back). The
  engine's pool costs more per read: a checkout, SQLAlchemy's execution context and its greenlet
  switches, the reset on return. Connections stay open between reads (up to
  :data:`HOT_POOL_SIZE`), so a busy server never opens one per request. A connection the server
  dropped (restart, idle timeout) fails its read once; the pool discards it and the read is tried
  again on a fresh connection, which is what a ping on checkout would be for.
  The ``first`` reads of one statement made in the same turn of the event loop (the requests
  that arrived together) are **one round trip**: their parameter sets go as arrays to the
  statement's batched form (``unnest(...) WITH ORDINALITY``, and for each set the statement's
  first row joined ``LATERAL``: each set is filtered by its own parameters, an organization's
  read never sees another's rows), and each reader gets the row of its set. A statement with a
  list (``IN``) parameter, a parameter of no type or one inside a nested ``SELECT`` (which the
  ``LATERAL`` would not correlate) is never batched. A read alone runs the statement itself; a
  batch that fails is read again one set at a time, so a value one reader gave that the
  statement refuses fails that reader only. The batch starts once every task ready
  in the turn has run, and each read is still its own snapshot taken after it began. Under
  ``wrk -c50`` on two cores the batches were of 1 to 33 reads (about 4 on average): the
  round trip's client work (a send, a receive, the pool's acquire and release) and the server's
  per-statement work are paid once per batch instead of once per request.
- **An in-memory SQLite database** (which a second connection could not see): the statement runs
  on a pooled ``AsyncConnection`` of the engine (Core, no ORM session).

A write that is one statement on PostgreSQL (a data-modifying CTE: every change of the operation
in one statement, atomic in autocommit) runs as a :class:`HotWrite`: alone (never batched), one
round trip on the reader's pool instead of a session's ``BEGIN``, statements and ``COMMIT``.

>>> from sqlalchemy import Column, Integer, MetaData, String, Table, bindparam, select
>>> things = Table("things", MetaData(), Column("id", Integer), Column("name", String))
>>> read = HotRead(select(things).where(things.c.id == bindparam("pk")))
>>> read.parameters
('pk',)
"""

from __future__ import annotations

import asyncio
import copy
import sqlite3
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from datetime import UTC, datetime
from functools import lru_cache
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, TypeVar, cast

from sqlalchemy import DateTime, Select, String, bindparam, select
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
)

from sleuth_shell.db.compiled import CompiledStatement
from sleuth_shell.db.dialect import SQLITE_BUSY_TIMEOUT_MS

if TYPE_CHECKING:
    import asyncpg  # type: ignore[import-untyped]
    from sqlalchemy.dialects.postgresql.asyncpg import PGDialect_asyncpg

__all__ = [
    "HotRead",
    "HotReader",
    "HotStatements",
    "HotWrite",
    "dispose_engine",
    "hot_reader_of",
    "hot_statements",
    "shared_reader",
    "timestamp_parser",
]

#: A reader waiting for its batch: its parameters and the future of its first row.
_Waiting = tuple[Mapping[str, Any], "asyncio.Future[dict[str, Any] | None]"]

#: Most connections the PostgreSQL hot-read pool opens (kept open while in use: a read takes one
#: for one round trip, so a few serve many concurrent requests).
HOT_POOL_SIZE = 16


_V = TypeVar("_V")
#: A value per dialect: by the dialect's id, with a weak reference to the dialect.
_PerDialect = dict[int, tuple["weakref.ref[Dialect]", _V]]


def _per_dialect(cache: _PerDialect[_V], dialect: Dialect, build: Callable[[], _V]) -> _V:
    """``cache``'s value for ``dialect``, built on first use. Keyed by the dialect's id and checked
    against a weak reference to it: a new dialect given the id of one already collected (engines
    made and disposed in turn) gets a value of its own, not the other back end's."""
    found = cache.get(id(dialect))
    if found is None or found[0]() is not dialect:
        found = cache[id(dialect)] = (weakref.ref(dialect), build())
    return found[1]


class HotReader:
    """The process's hot-read path to one database (see the module doc); one per engine."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.dialect = engine.dialect  # a property of the async engine: read once
        self._path = self._file_of(engine)
        self._local = threading.local()
        self._remote = engine.url.get_backend_name() == "postgresql"
        self._pool: asyncpg.Pool | None = None  # opened on the first read
        self._pool_lock = asyncio.Lock()
        self._waiting: dict[HotRead, list[_Waiting]] = {}
        """The ``first`` reads of each statement waiting for this turn's batch (PostgreSQL)."""
        self._batches: set[asyncio.Task[None]] = set()
        """The batches being read (kept referenced until they finish)."""

    async def _remote_pool(self) -> asyncpg.Pool:
        pool = self._pool
        if pool is None:
            async with self._pool_lock:
                if self._pool is None:
                    # The driver is the ``postgres`` extra: imported only for a PostgreSQL engine.
                    import asyncpg

                    dialect: PGDialect_asyncpg = self.engine.dialect  # type: ignore[assignment]

                    async def codecs(connection: asyncpg.Connection) -> None:
                        # The dialect's own codec set-up, given the driver connection the way
                        # its adapted connection carries it.
                        adapted = SimpleNamespace(_connection=connection)
                        await dialect.setup_asyncpg_json_codec(adapted)  # type: ignore[no-untyped-call]
                        await dialect.setup_asyncpg_jsonb_codec(adapted)  # type: ignore[no-untyped-call]

                    url = self.engine.url.set(drivername="postgresql")
                    self._pool = await asyncpg.create_pool(
                        url.render_as_string(hide_password=False),
                        min_size=0,
                        max_size=HOT_POOL_SIZE,
                        init=codecs,
                        reset=_keep_session,
                    )
                pool = self._pool
        return pool

    def _inline(self, sql: str, arguments: Any, many: bool) -> list[Any]:
        """``sql`` on this thread's SQLite connection: every raw row (``many``) or at most the
        first."""
        cursor = self._connection().execute(sql, arguments)
        try:
            if many:
                return cursor.fetchall()
            first = cursor.fetchone()
            return [] if first is None else [first]
        finally:
            cursor.close()

    async def _run(
        self, read: HotRead, params: Mapping[str, Any], many: bool
    ) -> list[dict[str, Any]]:
        """``read`` on the PostgreSQL pool (or the engine's, for an in-memory SQLite database),
        rows as dicts."""
        if not self._remote:
            async with self.engine.connect() as connection:
                return await _rows(connection, read.statement, params, many)
        compiled = read._for(self.dialect)
        return [compiled.row(record) for record in await self._fetch(compiled, params, many)]

    async def _fetch(
        self, compiled: CompiledStatement, params: Mapping[str, Any], many: bool = True
    ) -> list[asyncpg.Record]:
        """``compiled`` on the PostgreSQL pool: every record (``many``) or at most the first; a
        read that meets a dropped connection is tried once more on a fresh one."""
        arguments = compiled.arguments(params)
        pool = await self._remote_pool()
        for attempt in (1, 2):
            connection = await pool.acquire()
            try:
                if many:
                    return list(await connection.fetch(compiled.sql, *arguments))
                record = await connection.fetchrow(compiled.sql, *arguments)
                return [] if record is None else [record]
            except Exception as exc:
                dropped = isinstance(exc, _dropped_errors()) or _gone(connection)
                if dropped and not _gone(connection):
                    connection.terminate()  # the pool opens a fresh one in its place
                if attempt == 2 or not dropped:
                    raise
            finally:
                await pool.release(connection)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _first(self, read: HotRead, params: Mapping[str, Any]) -> dict[str, Any] | None:
        """``read``'s first row on the PostgreSQL pool, read in one round trip with the other
        ``first`` reads of the same statement made in this turn of the event loop (the module
        doc)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[dict[str, Any] | None] = loop.create_future()
        waiting = self._waiting.get(read)
        if waiting is None:
            waiting = self._waiting[read] = []
            # Run once every task ready in this turn has had its go (call_soon's callbacks run in
            # the next turn): the requests that arrived together are then all waiting here.
            loop.call_soon(self._start_batch, read)
        waiting.append((params, future))
        return await future

    def _start_batch(self, read: HotRead) -> None:
        waiting = self._waiting.pop(read)
        task = asyncio.get_running_loop().create_task(self._read_batch(read, waiting))
        self._batches.add(task)
        task.add_done_callback(self._batches.discard)

    async def _read_batch(self, read: HotRead, waiting: list[_Waiting]) -> None:
        """Answer every reader of ``waiting``: one read when alone, else ``read``'s batched
        statement; when that fails, each reads alone (all at once), so that a value one reader
        gave that the statement refuses fails that reader only."""
        try:
            rows: list[dict[str, Any] | None] | None = None
            if len(waiting) > 1:
                try:
                    # In the try: a batched form that fails to compile fails no reader.
                    batched = read._batched_for(self.dialect)
                    if batched is not None:
                        rows = await self._batch_rows(read, batched, waiting)
                except Exception:
                    rows = None  # each reads alone below
            if rows is not None:
                for (_params, future), row in zip(waiting, rows, strict=True):
                    if not future.done():
                        future.set_result(row)
                return
            await asyncio.gather(
                *(self._read_alone(read, params, future) for params, future in waiting)
            )
        finally:  # cancelled (the loop shutting down): no reader is left waiting
            for _params, future in waiting:
                future.cancel()

    async def _read_alone(
        self, read: HotRead, params: Mapping[str, Any], future: asyncio.Future[Any]
    ) -> None:
        """``read``'s first row for one reader, into its ``future`` (unless it went away)."""
        if future.done():
            return
        compiled = read._for(self.dialect)
        try:
            records = await self._fetch(compiled, params, many=False)
        except Exception as exc:
            if not future.done():
                future.set_exception(exc)
        else:
            if not future.done():
                future.set_result(compiled.row(records[0]) if records else None)

    async def _batch_rows(
        self,
        read: HotRead,
        batched: tuple[CompiledStatement, tuple[str, ...]],
        waiting: list[_Waiting],
    ) -> list[dict[str, Any] | None]:
        """The first row of each reader's parameters (None where there is none), by the
        batched statement: the parameter sets as arrays, each row led by its set's ordinal."""
        compiled = read._for(self.dialect)
        statement, names = batched
        defaults = compiled.defaults  # what a reader that does not give a parameter reads with
        arrays = {
            name + _BATCH_SUFFIX: [
                params[name] if name in params else defaults[name] for params, _future in waiting
            ]
            for name in names
        }
        rows: list[dict[str, Any] | None] = [None] * len(waiting)
        for record in await self._fetch(statement, arrays):
            values = tuple(record)
            rows[values[0] - 1] = compiled.row(values[1:])
        return rows

    async def aclose(self) -> None:
        """Close this thread's SQLite connection and the PostgreSQL pool."""
        self.close()
        # The batches being read, and those asked for in this turn (their start is scheduled):
        # answered before the pool closes, so none opens a pool after it.
        while self._batches or self._waiting:
            if self._batches:
                await asyncio.gather(*self._batches, return_exceptions=True)
            else:
                await asyncio.sleep(0)
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    @staticmethod
    def _file_of(engine: AsyncEngine) -> str | None:
        url = engine.url
        if url.get_backend_name() != "sqlite":
            return None
        database = url.database or ""
        if not database or database == ":memory:" or "mode=memory" in database:
            return None
        return database

    @property
    def inline(self) -> bool:
        """Whether reads run on a plain sqlite3 connection on the calling thread."""
        return self._path is not None

    @property
    def remote(self) -> bool:
        """Whether reads run on this reader's PostgreSQL pool."""
        return self._remote

    def _connection(self) -> sqlite3.Connection:
        # One connection per thread: the event loop's thread in the service (tests may run apps
        # on other loops in other threads).
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            assert self._path is not None
            connection = sqlite3.connect(self._path, isolation_level=None, check_same_thread=True)
            connection.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            connection.execute("PRAGMA query_only = ON")
            self._local.connection = connection
        return connection

    def close(self) -> None:
        """Close this thread's connection (others close when their threads end)."""
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            self._local.connection = None
            connection.close()


class HotRead:
    """A prebuilt ``SELECT`` (named ``bindparam`` parameters) for :class:`HotReader`."""

    def __init__(self, statement: Select[*tuple[Any, ...]]) -> None:
        self.statement = statement
        self.parameters: tuple[str, ...] = tuple(
            sorted(statement.compile().construct_params(_check=False).keys())
        )
        # Compiled forms per dialect (:func:`_per_dialect`).
        self._compiled: _PerDialect[CompiledStatement] = {}
        self._batched: _PerDialect[tuple[CompiledStatement, tuple[str, ...]] | None] = {}

    def _batched_for(self, dialect: Dialect) -> tuple[CompiledStatement, tuple[str, ...]] | None:
        """The statement for many parameter sets at once (:func:`_batched`) compiled for
        ``dialect``, and the names of the parameters it takes as arrays; None for a statement
        without parameters or with a list (``IN``) one."""

        def build() -> tuple[CompiledStatement, tuple[str, ...]] | None:
            built = _batched(self.statement)
            return None if built is None else (CompiledStatement(built[0], dialect), built[1])

        return _per_dialect(self._batched, dialect, build)

    def _for(self, dialect: Dialect) -> CompiledStatement:
        return _per_dialect(
            self._compiled, dialect, lambda: CompiledStatement(self.statement, dialect)
        )

    async def first(self, reader: HotReader, params: Mapping[str, Any]) -> dict[str, Any] | None:
        """The first row as a dict keyed by column name, or None."""
        if reader.inline:
            compiled = self._for(reader.dialect)
            raw = reader._inline(compiled.sql, compiled.arguments(params), False)
            return compiled.row(raw[0]) if raw else None
        if reader.remote:
            return await reader._first(self, params)
        rows = await reader._run(self, params, many=False)
        return rows[0] if rows else None

    async def all(self, reader: HotReader, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Every row, each a dict keyed by column name."""
        if reader.inline:
            compiled = self._for(reader.dialect)
            raw = reader._inline(compiled.sql, compiled.arguments(params), True)
            return [compiled.row(values) for values in raw]
        return await reader._run(self, params, many=True)


class HotWrite(HotRead):
    """A prebuilt statement that is a whole write transaction by itself (on PostgreSQL, a
    ``SELECT`` whose data-modifying CTEs make every change of an operation), run on
    :class:`HotReader`'s PostgreSQL pool like a hot read: one round trip, in autocommit, so the
    statement commits as it ends and is atomic on its own (no ``BEGIN``, no ``COMMIT``, no
    session). Each call runs the statement itself (never in a batch, as concurrent ``first``
    reads are: a data-modifying CTE must stay at the top level). PostgreSQL only (the SQLite
    reads are ``query_only``: a write there is a
    :func:`~sleuth_shell.db.executor.write_transaction`).

    The statement must be safe to run twice: like a read, it is tried once more on a fresh
    connection when its connection was dropped, and the first try may have committed."""

    async def first(self, reader: HotReader, params: Mapping[str, Any]) -> dict[str, Any] | None:
        """Run the statement; its first row as a dict keyed by column name, or None."""
        if not reader.remote:
            raise ValueError("HotWrite runs on a PostgreSQL reader only")
        rows = await reader._run(self, params, many=False)
        return rows[0] if rows else None

    async def all(self, reader: HotReader, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Run the statement; every row, each a dict keyed by column name."""
        if not reader.remote:
            raise ValueError("HotWrite runs on a PostgreSQL reader only")
        return await reader._run(self, params, many=True)


_BATCH_SUFFIX = "_batch"
_BATCH_ORDINAL = "batch_n"


def _batched(statement: Select[Any]) -> tuple[Select[Any], tuple[str, ...]] | None:
    """``statement`` (a ``SELECT`` of scalar ``bindparam`` parameters) for many parameter sets in
    one round trip on PostgreSQL: the sets as arrays (``<name>_batch``) unnested with their
    ordinal, and for each set ``statement``'s first row (``LIMIT 1``, as ``fetchrow``) joined
    laterally; the rows are the ordinal followed by ``statement``'s columns."""
    from sqlalchemy import func, true
    from sqlalchemy.dialects.postgresql import ARRAY
    from sqlalchemy.sql import visitors
    from sqlalchemy.sql.elements import BindParameter

    binds: dict[str, BindParameter[Any]] = {}

    def found(element: Any) -> None:
        binds[element.key] = element

    visitors.traverse(statement, {}, {"bindparam": found})
    if any(bind.expanding for bind in binds.values()):
        return None
    # The parameters each reader gives: every named one, a default it carries included (a reader
    # may give another value); anonymous values of the statement (literals) stay as they are.
    names = sorted(name for name, bind in binds.items() if bind.required or not bind.unique)
    if not names or any(binds[name].type._isnull for name in names):
        return None  # nothing to batch, or a parameter of no type (no array type to send it as)
    if _in_nested_select(statement, set(names)):
        # A subquery is not correlated to the sets (it would read every set's parameters:
        # another reader's, another organization's, rows); such a statement is read alone.
        return None
    keys = (
        func.unnest(
            *(
                bindparam(name + _BATCH_SUFFIX, type_=ARRAY(_item_type(binds[name].type)))
                for name in names
            )
        )
        .table_valued(*names, with_ordinality=_BATCH_ORDINAL)
        .render_derived(name="batch_keys")
    )

    def replace(element: Any, **_kw: Any) -> Any:
        if isinstance(element, BindParameter) and element.key in names:
            return keys.c[element.key]
        return None

    each_set = cast(Select[Any], visitors.replacement_traverse(statement, {}, replace))
    # Correlated explicitly: a statement whose only FROM is its parameters would otherwise read
    # them from an ``unnest`` of its own (every set given the first set's row).
    each = each_set.correlate(keys).limit(1).lateral("batch_row")
    batched = select(keys.c[_BATCH_ORDINAL], *each.c).select_from(keys).join(each, true())
    return batched, tuple(names)


def _in_nested_select(statement: Select[Any], names: set[str]) -> bool:
    """Whether one of the parameters ``names`` is inside a ``SELECT`` nested in ``statement``
    (a subquery, ``IN (SELECT ...)``, ``EXISTS``)."""
    from sqlalchemy.sql import visitors
    from sqlalchemy.sql.elements import BindParameter
    from sqlalchemy.sql.selectable import SelectBase

    for element in visitors.iterate(statement):
        if element is not statement and isinstance(element, SelectBase):
            for inner in visitors.iterate(element):
                if isinstance(inner, BindParameter) and inner.key in names:
                    return True
    return False


def _item_type(type_: Any) -> Any:
    """``type_`` as the element type of a parameters' array: a string type without its length,
    as a parameter's own cast is (SQLAlchemy renders ``$1::VARCHAR``); ``VARCHAR(64)[]`` would
    cut a longer value to 64 characters, which could then equal a stored value."""
    if isinstance(type_, String) and type_.length is not None:
        unbounded = copy.copy(type_)
        unbounded.length = None
        return unbounded
    return type_


def _gone(connection: asyncpg.Connection) -> bool:
    """Whether a pooled connection is closed (or already handed back: the pool releases a
    connection whose socket was lost)."""
    import asyncpg

    try:
        return bool(connection.is_closed())
    except asyncpg.InterfaceError:
        return True


def _dropped_errors() -> tuple[type[Exception], ...]:
    """The asyncpg errors of a connection the server dropped or is dropping (its end, an
    administrator's or a shutdown's termination), whether or not the client has seen it close."""
    import asyncpg

    return (
        asyncpg.exceptions.PostgresConnectionError,
        asyncpg.exceptions.OperatorInterventionError,
        asyncpg.exceptions.InterfaceError,
        ConnectionError,
    )


async def _keep_session(connection: asyncpg.Connection) -> None:
    """The pool's reset on release: nothing (the reads leave no session state; asyncpg rolls
    back an open transaction itself before calling this)."""


async def _rows(
    connection: AsyncConnection,
    statement: Select[*tuple[Any, ...]],
    params: Mapping[str, Any],
    many: bool,
) -> list[dict[str, Any]]:
    result = await connection.execute(statement, dict(params))
    if many:
        return [dict(row) for row in result.mappings()]
    row = result.mappings().first()
    return [] if row is None else [dict(row)]


_shared: weakref.WeakKeyDictionary[AsyncEngine, HotReader] = weakref.WeakKeyDictionary()


def shared_reader(engine: AsyncEngine) -> HotReader:
    """The process's :class:`HotReader` of ``engine`` (one per engine: the application's and the
    stores' hot reads share the connection)."""
    reader = _shared.get(engine)
    if reader is None:
        reader = _shared[engine] = HotReader(engine)
    return reader


async def dispose_engine(engine: AsyncEngine) -> None:
    """Close ``engine``'s :func:`shared_reader`, if it has one (the stores' reads on PostgreSQL
    open its pool), then dispose of ``engine``: how every owner of an engine closes it.

    The reader is also forgotten: it refers to its engine, so the weak key alone would never let
    the pair go (a process that makes and disposes engine after engine, as the test suite does,
    would keep every one with its compiled statements). A later :func:`shared_reader` of the
    same engine makes a new reader."""
    reader = _shared.pop(engine, None)
    if reader is not None:
        await reader.aclose()
    await engine.dispose()


_SQLITE_DATETIME = cast(
    Callable[[Any], datetime],
    DateTime().dialect_impl(sqlite.dialect()).result_processor(sqlite.dialect(), None),
)
"""SQLAlchemy's own parser of SQLite's stored datetime text (what the column type runs)."""


#: How many distinct stored timestamp texts the process keeps parsed (one per scrape minute of
#: the metric points, one per second of the log lines; ~150 bytes each).
TIMESTAMP_CACHE_SIZE = 32768


@lru_cache(maxsize=TIMESTAMP_CACHE_SIZE)
def _parse_stored(raw: str) -> datetime:
    """SQLite's stored datetime text as an aware UTC datetime: a pure function of the text,
    memoised on it (like the tokenisers, docs/decisions.md); datetimes are immutable."""
    return _SQLITE_DATETIME(raw).replace(tzinfo=UTC)


def timestamp_parser() -> Callable[[Any], datetime]:
    """A converter of stored timestamps to aware UTC datetimes, the values the ``UTCDateTime``
    column type returns: SQLite's stored text (a column read as text, see
    :meth:`HotStatements.timestamp`) parsed once per distinct text in the process (the rows of
    a read share their instants: metric points one per scrape, log lines one per second; reads
    of the same hours share them too), a driver's datetime (PostgreSQL) made aware UTC."""
    parse_stored = _parse_stored

    def parse(raw: Any) -> datetime:
        if isinstance(raw, str):
            return parse_stored(raw)
        value = cast(datetime, raw)
        if value.tzinfo is UTC:
            return value
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)

    return parse


class HotStatements:
    """Prebuilt ``SELECT`` statements of a store, run on the hot-read path.

    A statement is built once per *shape* (a hashable key: which filters, how many values in each
    ``IN`` list) with named ``bindparam`` parameters, and compiled once per dialect. It runs on
    the engine's :class:`HotReader` (:func:`shared_reader`): on a SQLite file the process's plain
    :mod:`sqlite3` connection, on PostgreSQL a connection of the reader's pool (one round trip,
    autocommit: no ``BEGIN``, ``ROLLBACK`` or pool reset, the statement prepared once per
    connection), with SQLAlchemy's bind processors for the parameters and result processors for
    the columns; rows come back as tuples. Elsewhere (in-memory SQLite, a session factory bound
    to something other than an engine) it runs through a session of ``sessions``. Each call is
    its own snapshot of committed data, as a short session of its own would be.
    """

    #: How many compiled shapes a store keeps (``IN`` lists of many lengths make many shapes).
    MAX_SHAPES = 256

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        bind = sessions.kw.get("bind")
        self._reader: HotReader | None = None
        """The engine's reader when it runs reads inline (a SQLite file)."""
        self._remote: HotReader | None = None
        """The engine's reader when it runs reads on its PostgreSQL pool."""
        if isinstance(bind, AsyncEngine):
            reader = shared_reader(bind)
            if reader.inline:
                self._reader = reader
            elif reader.remote:
                self._remote = reader
        self._built: OrderedDict[Hashable, tuple[Select[Any], CompiledStatement | None]] = (
            OrderedDict()
        )
        self._texts: dict[str, CompiledStatement] = {}
        """The text statements compiled for PostgreSQL, by their SQL (a few fixed texts)."""

    @property
    def dialect(self) -> str:
        """The database's dialect name (``sqlite``, ``postgresql``)."""
        bind = self._sessions.kw.get("bind")
        name = getattr(getattr(bind, "dialect", None), "name", None)
        return str(name) if name else "sqlite"

    @property
    def inline(self) -> bool:
        """Whether statements run on the plain sqlite3 connection."""
        return self._reader is not None

    def timestamp(self, column: Any) -> Any:
        """``column`` as the rows should carry it for :func:`timestamp_parser`: on the inline
        path its stored text (parsed once per distinct value), else the column itself."""
        if self._reader is None:
            return column
        from sqlalchemy import String, type_coerce

        return type_coerce(column, String)

    def _get(
        self, key: Hashable, build: Callable[[], Select[Any]]
    ) -> tuple[Select[Any], CompiledStatement | None]:
        found = self._built.get(key)
        if found is None:
            statement = build()
            reader = self._reader or self._remote
            compiled = CompiledStatement(statement, reader.dialect) if reader is not None else None
            found = self._built[key] = (statement, compiled)
            if len(self._built) > self.MAX_SHAPES:
                self._built.popitem(last=False)
        else:
            self._built.move_to_end(key)
        return found

    async def rows(
        self, key: Hashable, build: Callable[[], Select[Any]], params: Mapping[str, Any]
    ) -> list[tuple[Any, ...]]:
        """Every row of the statement of shape ``key`` (``build`` makes it) with ``params``."""
        statement, compiled = self._get(key, build)
        if compiled is not None and self._reader is not None:
            raw = self._reader._inline(compiled.sql, compiled.arguments(params), True)
            if not any(compiled.convert):
                return raw
            return [compiled.values(values) for values in raw]
        if compiled is not None and self._remote is not None:
            records = await self._remote._fetch(compiled, params)
            if not any(compiled.convert):
                return [tuple(record) for record in records]
            return [compiled.values(record) for record in records]
        async with self._sessions() as session:
            result = await session.execute(statement, dict(params))
            return [tuple(row) for row in result.all()]

    async def text_rows(
        self, sql: str, statement: Any, params: Mapping[str, Any]
    ) -> list[tuple[Any, ...]]:
        """Rows of a text statement with ``:name`` parameters and plain columns: ``sql`` on the
        inline path (SQLite), else ``statement`` (its ``text()`` form; on PostgreSQL compiled once
        and run on the reader's pool) or, elsewhere, through a session."""
        if self._reader is not None:
            return self._reader._inline(sql, dict(params), True)
        if self._remote is not None:
            compiled = self._texts.get(sql)
            if compiled is None:
                compiled = self._texts[sql] = CompiledStatement(statement, self._remote.dialect)
            return [tuple(record) for record in await self._remote._fetch(compiled, params)]
        async with self._sessions() as session:
            result = await session.execute(statement, dict(params))
            return [tuple(row) for row in result.all()]


_statements: weakref.WeakKeyDictionary[async_sessionmaker[AsyncSession], HotStatements] = (
    weakref.WeakKeyDictionary()
)


def hot_statements(sessions: async_sessionmaker[AsyncSession]) -> HotStatements:
    """A :class:`HotStatements` of ``sessions`` shared by the modules of this process that read
    through it (one per session factory)."""
    found = _statements.get(sessions)
    if found is None:
        found = _statements[sessions] = HotStatements(sessions)
    return found


def hot_reader_of(app: Any) -> HotReader:
    """The :class:`HotReader` of a Sleuth Litestar application (``app.state.hot_reader``)."""
    reader = app.state["hot_reader"]  # item access: a dict lookup, not State's __getattr__
    assert isinstance(reader, HotReader)
    return reader
