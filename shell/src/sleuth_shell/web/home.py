"""The home page: recent investigations, running and scheduled work, recent questions, alert
agents and digests of the viewer's organization.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, get
from litestar.response import Template
from sqlalchemy import select

from sleuth_core.ids import encode_global_id
from sleuth_shell.db.models import (
    AlertResponder,
    Digest,
    DigestRun,
    Interaction,
    Investigation,
    utcnow,
)
from sleuth_shell.statuses import DIGEST_RUN, INTERACTION, INVESTIGATION
from sleuth_shell.web.guard import PAGE_OPTIONS, ViewerDep, page
from sleuth_shell.web.render import next_fire
from sleuth_shell.web.rows import latest

__all__ = ["ROUTES"]


@get("/", **PAGE_OPTIONS)
async def home_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Recent investigations, running and scheduled work, recent questions, agents, digests."""
    org = viewer.org_id
    async with request.app.state.session_factory() as session:
        investigations = await latest(session, Investigation, Investigation.org_id == org, 10)
        running_inv = await latest(
            session,
            Investigation,
            (Investigation.org_id == org) & Investigation.status.in_(INVESTIGATION.unfinished),
            10,
        )
        running_runs = (
            await session.execute(
                select(DigestRun, Digest)
                .join(Digest, Digest.id == DigestRun.digest_id)
                .where(DigestRun.org_id == org, DigestRun.status.in_(DIGEST_RUN.unfinished))
                .order_by(DigestRun.id.desc())
                .limit(10)
            )
        ).all()
        running_questions = await latest(
            session,
            Interaction,
            (Interaction.org_id == org) & Interaction.status.in_(INTERACTION.unfinished),
            10,
            newest=Interaction.created_at,
        )
        questions = await latest(
            session, Interaction, Interaction.org_id == org, 8, newest=Interaction.created_at
        )
        agents = (
            await session.scalars(
                select(AlertResponder)
                .where(AlertResponder.org_id == org)
                .order_by(AlertResponder.name)
            )
        ).all()
        digests = (
            await session.scalars(select(Digest).where(Digest.org_id == org).order_by(Digest.name))
        ).all()
    now = utcnow()
    return page(
        "home.html",
        viewer,
        "home",
        title="Home",
        investigations=[(encode_global_id("Investigation", i.id), i) for i in investigations],
        running_inv=[(encode_global_id("Investigation", i.id), i) for i in running_inv],
        running_runs=[
            (encode_global_id("Digest", d.id), encode_global_id("DigestRun", r.id), r, d)
            for r, d in running_runs
        ],
        running_questions=running_questions,
        questions=questions,
        agents=[(encode_global_id("AlertResponder", a.id), a) for a in agents],
        digests=[
            (encode_global_id("Digest", d.id), d, next_fire(d.schedule, now)) for d in digests
        ],
    )


ROUTES: list[Any] = [home_page]
