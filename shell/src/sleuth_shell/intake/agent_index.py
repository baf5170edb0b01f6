"""Each organization's webhook alert agents in the core's ``MatchIndex``, cached per process.

One :class:`AgentIndexCache` per application. Per organization it holds one
:class:`~sleuth_core.matching.index.MatchIndex` per webhook source ``(type, remote_id)`` (an agent
subscribed to two sources sits in both), every agent's status, and the organization's agent
version it reflects. PAUSED agents are indexed too: the alert log records ``paused`` for an alert
a paused agent would have matched, and ``not_matched`` for one it would not have
(:meth:`AgentIndexCache.route`).

Kept current without a rebuild per alert and across workers and nodes: every alert reads the
organization's version (``agent_index_versions``, bumped in the same transaction as every agent
change by :mod:`sleuth_shell.db.agent_versions`) in the query that finds its subscription. When
the cache is behind, :meth:`AgentIndexCache.refresh` reads which agents changed since its version
(``alert_responder_changes``) and reloads only those: an agent that is gone or no longer a
webhook agent leaves every index; any other is re-added under its current sources and rules. A
cache more than :data:`~sleuth_shell.db.agent_versions.KEEP_CHANGES` versions behind, a
"reload all" change (a team deleted) or a first use loads the organization in full. An agent
change is therefore seen by the next alert on any node.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.errors import InvalidCriteria
from sleuth_core.matching.index import MatchIndex
from sleuth_shell.db.agent_versions import KEEP_CHANGES, RELOAD_ALL
from sleuth_shell.db.models import AlertResponder, AlertResponderChange

__all__ = ["AgentIndexCache", "Routing", "Source"]

log = logging.getLogger(__name__)

#: A webhook source: ``(type, remote_id)``.
Source = tuple[str, str]

_COLUMNS = (
    AlertResponder.id,
    AlertResponder.status,
    AlertResponder.match_rules,
    AlertResponder.webhook_sources,
)


def _sources(value: Any) -> tuple[Source, ...]:
    found: list[Source] = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict):
            pair = (str(item.get("type", "")), str(item.get("remote_id", "")))
            if all(pair) and pair not in found:
                found.append(pair)
    return tuple(found)


@dataclass(frozen=True, slots=True)
class Routing:
    """An alert's agents: ``subscribed`` (every agent subscribed to its source, ACTIVE or PAUSED)
    and ``matched`` (those of them whose rules match its text), ids ascending."""

    subscribed: tuple[int, ...] = ()
    matched: tuple[int, ...] = ()


@dataclass
class _OrgAgents:
    version: int = -1
    indexes: dict[Source, MatchIndex[int]] = field(default_factory=dict)
    sources_of: dict[int, tuple[Source, ...]] = field(default_factory=dict)
    status_of: dict[int, str] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def remove(self, agent_id: int) -> None:
        self.status_of.pop(agent_id, None)
        for source in self.sources_of.pop(agent_id, ()):
            index = self.indexes.get(source)
            if index is not None and agent_id in index:
                index.remove(agent_id)

    def put(self, agent_id: int, status: str, rules: Any, sources: Any) -> None:
        self.remove(agent_id)
        wanted = _sources(sources)
        if status not in ("ACTIVE", "PAUSED") or not wanted or not isinstance(rules, dict):
            return
        self.status_of[agent_id] = status
        added: list[Source] = []
        for source in wanted:
            try:
                self.indexes.setdefault(source, MatchIndex()).add(agent_id, rules)
            except InvalidCriteria:  # stored rules were validated on write; skip, never crash
                log.warning("alert agent %s has rules the index refuses; skipped", agent_id)
                break
            added.append(source)
        self.sources_of[agent_id] = tuple(added)


class AgentIndexCache:
    """Per-process cache of every organization's webhook agents (see the module docstring)."""

    def __init__(self) -> None:
        self._orgs: dict[int, _OrgAgents] = {}
        self.full_loads = 0
        """How many full loads happened (for tests and benchmarks)."""
        self.partial_loads = 0
        """How many incremental reloads happened."""

    async def match(
        self, session: AsyncSession, org_id: int, version: int, source: Source, text: str
    ) -> list[int]:
        """Ids of ``org_id``'s ACTIVE agents subscribed to ``source`` whose rules match
        ``text``, ascending; the cache is first brought up to ``version`` (the organization's
        current agent version, read with the subscription)."""
        org = await self.refresh(session, org_id, version)
        found = self.route(org_id, source, text)
        return [agent for agent in found.matched if org.status_of.get(agent) == "ACTIVE"]

    def behind(self, org_id: int, version: int) -> bool:
        """Whether ``org_id``'s agents must be read (:meth:`refresh`) before :meth:`route` answers
        for ``version``: the only time the intake needs a database session for matching."""
        org = self._orgs.get(org_id)
        return org is None or org.version < version

    def route(self, org_id: int, source: Source, text: str | None) -> Routing:
        """The agents subscribed to ``source`` and those of them (ACTIVE or PAUSED) whose rules
        match ``text`` (none when ``text`` is None: an event nobody matches), as the cache has
        them (:meth:`refresh` brings it up to a version first)."""
        org = self._orgs.get(org_id)
        index = org.indexes.get(source) if org is not None else None
        if index is None:
            return Routing()
        subscribed = tuple(sorted(index))
        matched = tuple(sorted(index.match(text))) if text is not None else ()
        return Routing(subscribed, matched)

    async def refresh(self, session: AsyncSession, org_id: int, version: int) -> _OrgAgents:
        """Bring ``org_id`` up to at least ``version``."""
        org = self._orgs.setdefault(org_id, _OrgAgents())
        if org.version >= version:
            return org
        async with org.lock:  # one reload per organization at a time in this process
            if org.version >= version:
                return org
            if org.version < 0 or version - org.version > KEEP_CHANGES:
                await self._load_all(session, org_id, version)
                return self._orgs[org_id]
            changed = list(
                await session.scalars(
                    select(AlertResponderChange.alert_responder_id).where(
                        AlertResponderChange.org_id == org_id,
                        AlertResponderChange.version > org.version,
                        AlertResponderChange.version <= version,
                    )
                )
            )
            if RELOAD_ALL in changed or len(changed) < version - org.version:
                await self._load_all(session, org_id, version)  # pruned or "reload all"
                return self._orgs[org_id]
            await self._reload(session, org_id, org, set(changed))
            org.version = version
            self.partial_loads += 1
            return org

    async def _rows(self, session: AsyncSession, org_id: int, ids: Iterable[int] | None) -> Any:
        query = select(*_COLUMNS).where(AlertResponder.org_id == org_id)
        if ids is not None:
            query = query.where(AlertResponder.id.in_(list(ids)))
        return (await session.execute(query)).all()

    async def _load_all(self, session: AsyncSession, org_id: int, version: int) -> None:
        fresh = _OrgAgents(version=version, lock=self._orgs[org_id].lock)
        for agent_id, status, rules, sources in await self._rows(session, org_id, None):
            fresh.put(agent_id, status, rules, sources)
        self._orgs[org_id] = fresh
        self.full_loads += 1

    async def _reload(
        self, session: AsyncSession, org_id: int, org: _OrgAgents, ids: set[int]
    ) -> None:
        rows = await self._rows(session, org_id, ids)
        seen = set()
        for agent_id, status, rules, sources in rows:
            org.put(agent_id, status, rules, sources)
            seen.add(agent_id)
        for agent_id in ids - seen:  # deleted
            org.remove(agent_id)
