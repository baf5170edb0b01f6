"""Engine and session factory creation from a database URL."""

from __future__ import annotations

import json
import time
from typing import Any

import msgspec
from sqlalchemy import event
from sqlalchemy.engine import URL
from sqlalchemy.exc import InvalidatePoolError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.ext.asyncio import create_async_engine as _create_async_engine

from sleuth_shell.db.dialect import async_url, install_connection_setup
from sleuth_shell.db.sqlite_reads import connect_inline_reads

__all__ = [
    "PING_AFTER_IDLE",
    "POOL_OVERFLOW",
    "POOL_SIZE",
    "create_engine",
    "create_session_factory",
    "json_text",
    "json_value",
    "ping_when_idle",
]

#: Connections an engine keeps open.
POOL_SIZE = 10
#: Connections an engine may open beyond :data:`POOL_SIZE` under load (closed when returned).
POOL_OVERFLOW = 40
#: Seconds a pooled PostgreSQL connection may sit unused before its next checkout pings it.
PING_AFTER_IDLE = 1.0
_RETURNED_AT = "sleuth_returned_at"
_JSON = msgspec.json.Encoder()
_JSON_READ = msgspec.json.Decoder()


def json_text(value: Any) -> str:
    """The text a ``JSON`` column stores for ``value``: the JSON ``json.dumps`` writes, in
    msgspec's compact form (a tenth of the time: a batch of 512 OTLP log records carries 512
    attribute objects).

    Values msgspec refuses (a key that is not a string or a number, a lone surrogate), output
    that holds a ``null`` (which a non-finite float also becomes in msgspec, where ``json.dumps``
    writes ``NaN``) and output that does not read back equal to ``value`` are written by
    ``json.dumps``, so that every value reads back as before and what ``json.dumps`` refuses is
    refused (``TypeError``). msgspec writes a datetime, date, time, Decimal, UUID, bytes, set,
    Enum or dataclass natively (as a string, list or object, never through an ``enc_hook``); none
    of them reads back equal, so each goes to ``json.dumps``, which refuses it (an ``IntEnum`` or
    ``StrEnum`` reads back equal and is written as its value, as ``json.dumps`` writes it; a tuple
    reads back as a list and is written by ``json.dumps``).

    >>> json_text({"service": "api", "ok": True, "n": 3})
    '{"service":"api","ok":true,"n":3}'
    >>> json_text({"x": float("nan")})
    '{"x": NaN}'
    """
    try:
        text = _JSON.encode(value)
    except (TypeError, ValueError, OverflowError):  # UnicodeEncodeError is a ValueError
        return json.dumps(value)
    if b"null" in text or _JSON_READ.decode(text) != value:
        return json.dumps(value)
    return text.decode()


def json_value(text: str | bytes) -> Any:
    """The value of a ``JSON`` column's stored text: what ``json.loads`` reads, read by msgspec
    (about a tenth of the time; an agent read carries three JSON columns).

    msgspec reads every JSON text to the value ``json.loads`` reads (integers of any size, the
    last of duplicate keys, the same floats) or refuses it; what it refuses (``NaN``,
    ``Infinity``, a number too large for a float, a lone surrogate escape, which ``json.dumps``
    writes or ``json.loads`` reads) is read by ``json.loads``.

    >>> json_value('{"rules": [], "n": 12345678901234567890}')
    {'rules': [], 'n': 12345678901234567890}
    >>> json_value('{"x": NaN}')
    {'x': nan}
    """
    try:
        return _JSON_READ.decode(text)
    except msgspec.MsgspecError:
        return json.loads(text)


def create_engine(url: str | URL, *, echo: bool = False) -> AsyncEngine:
    """Create the async engine for ``url`` (``sqlite:///...`` or ``postgresql://...``).

    The driver is chosen by :func:`sleuth_shell.db.dialect.async_url` and every connection is set
    up by :func:`sleuth_shell.db.dialect.install_connection_setup` (SQLite pragmas).

    PostgreSQL connections that sat in the pool for more than :data:`PING_AFTER_IDLE` seconds are
    pinged on checkout (:func:`ping_when_idle`: an idle timeout or a server restart drops them);
    one returned a moment ago is not (the asyncpg dialect's ping is three round trips, a
    ``BEGIN``, a ``;`` and a ``ROLLBACK``, more than most sessions' own work). SQLite
    connections are files in this process and cannot go stale, so they are never pinged.
    SQLite reads run on the event loop thread (:mod:`sleuth_shell.db.sqlite_reads`).

    The pool keeps :data:`POOL_SIZE` connections and opens up to :data:`POOL_OVERFLOW` more under
    load, enough for the HTTP requests and a worker's 32 concurrent jobs of one process; on SQLite
    the ones opened under load are kept open (file handles of this process, cheap to keep and
    costly to reopen).
    """
    parsed = async_url(url)
    if parsed.get_backend_name() == "sqlite":
        # Every connection is kept: an overflow connection closed on return and opened again on
        # the next burst costs a thread start and the pragmas' thread hops (a file connection
        # holds no server resources, only its idle thread).
        engine = _create_async_engine(
            parsed,
            echo=echo,
            connect_args={"async_creator_fn": connect_inline_reads},
            # The same ceiling, but connections opened under load stay open: opening one is a
            # thread start, a file open and the schema parse, which the worker's 32 jobs
            # otherwise paid again and again (see docs/performance.md).
            pool_size=POOL_SIZE + POOL_OVERFLOW,
            max_overflow=0,
            json_serializer=json_text,
            json_deserializer=json_value,
        )
    else:
        engine = _create_async_engine(
            parsed,
            echo=echo,
            pool_size=POOL_SIZE,
            max_overflow=POOL_OVERFLOW,
            json_serializer=json_text,
            json_deserializer=json_value,
        )
        ping_when_idle(engine)
    install_connection_setup(engine)
    return engine


def ping_when_idle(engine: AsyncEngine, after: float = PING_AFTER_IDLE) -> None:
    """Ping a connection on checkout when it sat in ``engine``'s pool for more than ``after``
    seconds (SQLAlchemy's ``pool_pre_ping``, for the connections that can have gone stale).

    A ping that fails raises :class:`~sqlalchemy.exc.InvalidatePoolError` (a
    ``DisconnectionError``), which makes the pool discard the connection (and every connection
    pooled before it) and check out a fresh one. A connection used a moment ago that the server has
    since dropped (a restart under load) fails its statement instead; SQLAlchemy then invalidates
    every connection the pool held before, so the next checkouts connect afresh.
    """
    pool = engine.sync_engine.pool
    dialect = engine.dialect

    def returned(_dbapi_connection: Any, record: Any) -> None:
        record.info[_RETURNED_AT] = time.monotonic()

    def checked_out(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        returned_at = record.info.pop(_RETURNED_AT, None)
        if returned_at is None or time.monotonic() - returned_at <= after:
            return
        try:
            dialect.do_ping(dbapi_connection)
        except Exception as exc:
            # Like SQLAlchemy's own pre-ping: every connection pooled before now is suspect
            # (a server restart dropped them all), so each is replaced at its next checkout.
            raise InvalidatePoolError(f"a pooled connection failed its ping: {exc}") from exc

    event.listen(pool, "checkin", returned)
    event.listen(pool, "checkout", checked_out)


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Return the session factory the app and workers use (objects stay usable after commit)."""
    return async_sessionmaker(engine, expire_on_commit=False)
