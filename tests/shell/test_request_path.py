"""The fast request path keeps its guarantees: cached keys are revoked in bounded time (at once on
the revoking node), unknown keys are never cached, SQLite reads run inline but writes do not."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from litestar import Litestar
from litestar.testing import TestClient
from sqlalchemy import delete, select, text

from sleuth_shell.auth import PrincipalCache, RevocationWatch, forget_api_keys
from sleuth_shell.db import create_engine, create_session_factory
from sleuth_shell.db.models import ApiKey, Organization, utcnow
from sleuth_shell.db.sqlite_reads import InlineReadConnection
from tests.shell.conftest import Factory, OrgHandle

GET = "/api/v1/webhook-subscriptions"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _delete_key(factory: Factory, key_id: int) -> None:
    async def go(session):  # type: ignore[no-untyped-def]
        await session.execute(delete(ApiKey).where(ApiKey.id == key_id))
        await session.commit()

    factory.run(go)


def _key_id(factory: Factory, org: OrgHandle) -> int:
    return int(factory.run(lambda s: s.scalar(select(ApiKey.id).where(ApiKey.org_id == org.id))))


def test_revoked_key_stops_at_once_on_the_node_that_forgets_it(
    app: Litestar, client: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    assert client.get(GET, headers=org.headers).status_code == 200  # now cached
    key_id = _key_id(factory, org)
    _delete_key(factory, key_id)
    # Another node deleted the row: this node trusts its cache until the TTL passes...
    assert client.get(GET, headers=org.headers).status_code == 200
    # ...but a revocation made in this process takes effect at once.
    forget_api_keys(key_ids={key_id})
    response = client.get(GET, headers=org.headers)
    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid API key"}


def test_revoked_key_stops_once_the_ttl_has_passed(
    app: Litestar, client: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    clock = FakeClock()
    app.state.principal_cache = PrincipalCache(ttl=5.0, clock=clock)
    assert client.get(GET, headers=org.headers).status_code == 200
    _delete_key(factory, _key_id(factory, org))
    clock.now += 4.9
    assert client.get(GET, headers=org.headers).status_code == 200
    clock.now += 0.2
    assert client.get(GET, headers=org.headers).status_code == 401


def test_a_cached_key_is_not_hashed_again_and_a_revoked_one_is_refused(
    app: Litestar,
    client: TestClient[Litestar],
    factory: Factory,
    org: OrgHandle,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sleuth_shell.auth as auth

    hashed: list[str] = []
    real = auth.hash_api_key

    def counting(key: str) -> str:
        hashed.append(key)
        return real(key)

    monkeypatch.setattr(auth, "hash_api_key", counting)
    assert client.get(GET, headers=org.headers).status_code == 200
    assert client.get(GET, headers=org.headers).status_code == 200
    assert len(hashed) == 1  # the second request found the key itself in the cache
    key_id = _key_id(factory, org)
    _delete_key(factory, key_id)
    forget_api_keys(key_ids={key_id})  # found by key id, whatever the cache is keyed by
    assert client.get(GET, headers=org.headers).status_code == 401
    assert len(hashed) == 2  # looked up again, by hash, and refused


def test_unknown_keys_are_not_cached(
    app: Litestar, client: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    fresh_key = "slk_" + "x" * 43
    assert client.get(GET, headers={"X-Service-Org-Api-Key": fresh_key}).status_code == 401
    # A key created after a failed attempt works at once.
    new_key = factory.key(org)
    assert client.get(GET, headers={"X-Service-Org-Api-Key": new_key}).status_code == 200


def test_forgetting_an_org_drops_all_its_keys_and_only_them() -> None:
    from sleuth_shell.auth import Principal

    cache = PrincipalCache(ttl=60.0, clock=FakeClock())

    def principal(org_id: int, key_id: int) -> Principal:
        return Principal(org_id, f"o{org_id}", "free", key_id, False, None, f"k{key_id}")

    cache.put("a", principal(1, 10))
    cache.put("b", principal(1, 11))
    cache.put("c", principal(2, 20))
    forget_api_keys(org_ids={1})
    assert cache.get("a") is None and cache.get("b") is None
    assert cache.get("c") == principal(2, 20)


def test_cache_is_bounded() -> None:
    from sleuth_shell.auth import Principal

    cache = PrincipalCache(ttl=60.0, max_entries=2, clock=FakeClock())
    for i in range(3):
        cache.put(str(i), Principal(i, "o", "free", i, False, None, "k"))
    assert cache.get("0") is None
    assert cache.get("1") is not None and cache.get("2") is not None


def test_sqlite_reads_and_uncontended_writes_are_inline_a_contended_write_waits_on_the_thread(
    migrated_url: str, org: OrgHandle
) -> None:
    """Reads and a write transaction nobody else is writing run without aiosqlite's thread; when
    another connection (another process) holds SQLite's write lock for long, the first write waits
    for it on the thread, so the event loop keeps running (here: it is what releases that lock);
    a lock released within a few milliseconds is waited out on the loop, without the thread."""
    if not migrated_url.startswith("sqlite"):
        return
    database = migrated_url.removeprefix("sqlite:///")

    async def go() -> tuple[int, int, int, int, str]:
        engine = create_engine(migrated_url)
        try:
            sessions = create_session_factory(engine)
            async with sessions() as session:
                conn = await session.connection()
                raw = (await conn.get_raw_connection()).driver_connection
                assert isinstance(raw, InlineReadConnection)
                hops = 0
                original = type(raw).__mro__[1]._execute

                async def counting(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
                    nonlocal hops
                    hops += 1
                    return await original(self, fn, *args, **kwargs)

                type(raw).__mro__[1]._execute = counting  # type: ignore[method-assign]
                update = text("UPDATE organizations SET name = name WHERE id = :id")
                try:
                    name = await session.scalar(
                        select(Organization.name).where(Organization.id == org.id)
                    )
                    read_hops = hops
                    await session.execute(update, {"id": org.id})
                    await session.commit()
                    write_hops = hops - read_hops

                    other = sqlite3.connect(database, isolation_level=None)
                    other.execute("BEGIN IMMEDIATE")  # another process is writing
                    before = hops
                    pending = asyncio.ensure_future(session.execute(update, {"id": org.id}))
                    while hops == before:  # the write went to the thread to wait there
                        await asyncio.sleep(0.01)
                    assert not pending.done()
                    other.execute("COMMIT")
                    other.close()
                    await pending
                    await session.commit()
                    contended_hops = hops - before

                    # A short contention (the other process commits within a few milliseconds)
                    # is waited out on the event loop: no thread hop at all.
                    other = sqlite3.connect(database, isolation_level=None)
                    other.execute("BEGIN IMMEDIATE")
                    asyncio.get_running_loop().call_later(0.003, other.execute, "COMMIT")
                    before = hops
                    await session.execute(update, {"id": org.id})
                    await session.commit()
                    other.close()
                    short_contention_hops = hops - before
                finally:
                    type(raw).__mro__[1]._execute = original  # type: ignore[method-assign]
                return read_hops, write_hops, contended_hops, short_contention_hops, str(name)
        finally:
            await engine.dispose()

    read_hops, write_hops, contended_hops, short_contention_hops, name = asyncio.run(go())
    assert name == org.name
    assert read_hops == 0
    assert write_hops == 0  # the UPDATE and the COMMIT ran on the event loop thread
    assert contended_hops == 1  # only the first write, which had to wait for the other writer
    assert short_contention_hops == 0


def test_wal_reads_see_committed_writes_of_other_connections(tmp_path: Path) -> None:
    async def go() -> list[int]:
        engine = create_engine(f"sqlite:///{tmp_path / 'x.db'}")
        try:
            async with engine.begin() as conn:
                await conn.execute(text("CREATE TABLE t (v INTEGER)"))
            seen = []
            async with engine.connect() as reader, engine.connect() as writer:
                for value in (1, 2):
                    await writer.execute(text("INSERT INTO t VALUES (:v)"), {"v": value})
                    await writer.commit()
                    seen.append(
                        int((await reader.execute(text("SELECT count(*) FROM t"))).scalar_one())
                    )
                    await reader.rollback()
            return seen
        finally:
            await engine.dispose()

    assert asyncio.run(go()) == [1, 2]


def test_revocation_watch_forgets_keys_revoked_by_another_process(
    app: Litestar, client: TestClient[Litestar], factory: Factory, org: OrgHandle
) -> None:
    """`sleuth admin revoke-key` runs in its own process: the watch's poll, not the TTL, makes
    every serving process refuse the key."""
    assert client.get(GET, headers=org.headers).status_code == 200  # now cached
    key_id = _key_id(factory, org)

    async def revoke(session):  # type: ignore[no-untyped-def]
        key = await session.get(ApiKey, key_id)
        key.revoked_at = utcnow()
        await session.commit()

    factory.run(revoke)
    assert client.get(GET, headers=org.headers).status_code == 200  # still cached
    watch = RevocationWatch(app.state.hot_reader)
    with client.portal() as portal:
        assert portal.call(watch.poll) == {key_id}
    response = client.get(GET, headers=org.headers)
    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid API key"}
