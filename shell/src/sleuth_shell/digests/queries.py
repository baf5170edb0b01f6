"""The reads of digest runs, once for every front-end: the API (one run of a digest), the web app
(a digest's latest runs, one run's page) and MCP (a run by its ID, under its digest when the URL
names one). Every read is scoped to one organization."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.db.models import Digest, DigestRun

__all__ = ["DigestRunRead", "latest_runs", "load_digest_run"]


@dataclass(frozen=True)
class DigestRunRead:
    """A digest run with its digest."""

    run: DigestRun
    digest: Digest


async def load_digest_run(
    session: AsyncSession, org_id: int, run_pk: int, digest_pk: int | None = None
) -> DigestRunRead | None:
    """The organization's digest run ``run_pk`` (under digest ``digest_pk`` when given), or None."""
    query = (
        select(DigestRun, Digest)
        .join(Digest, Digest.id == DigestRun.digest_id)
        .where(DigestRun.id == run_pk, DigestRun.org_id == org_id, Digest.org_id == org_id)
    )
    if digest_pk is not None:
        query = query.where(Digest.id == digest_pk)
    found = (await session.execute(query)).first()
    if found is None:
        return None
    run, digest = found
    return DigestRunRead(run, digest)


async def latest_runs(
    session: AsyncSession, org_id: int, digest_pk: int, limit: int
) -> Sequence[DigestRun]:
    """The newest ``limit`` runs of the organization's digest ``digest_pk`` (newest first)."""
    return (
        await session.scalars(
            select(DigestRun)
            .where(DigestRun.digest_id == digest_pk, DigestRun.org_id == org_id)
            .order_by(DigestRun.id.desc())
            .limit(limit)
        )
    ).all()
