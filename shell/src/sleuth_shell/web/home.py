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
    utcnow,
)
from sleuth_shell.db.paging import PageRequest
from sleuth_shell.interactions.queries import list_interactions
from sleuth_shell.investigations.queries import list_investigations
from sleuth_shell.statuses import DIGEST_RUN, INTERACTION, INVESTIGATION
from sleuth_shell.web.guard import PAGE_OPTIONS, ViewerDep, page
from sleuth_shell.web.render import next_fire

__all__ = ["ROUTES"]


@get("/", **PAGE_OPTIONS)
async def home_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """Recent investigations, running and scheduled work, recent questions, agents, digests."""
    org = viewer.org_id
    async with request.app.state.session_factory() as session:
        recent = await list_investigations(session, org, PageRequest(limit=10))
        investigations = [item.row for item in recent.items]
        running = await list_investigations(
            session, org, PageRequest(limit=10), status=INVESTIGATION.unfinished
        )
        running_inv = [item.row for item in running.items]
        running_runs = (
            await session.execute(
                select(DigestRun, Digest)
                .join(Digest, Digest.id == DigestRun.digest_id)
                .where(DigestRun.org_id == org, DigestRun.status.in_(DIGEST_RUN.unfinished))
                .order_by(DigestRun.id.desc())
                .limit(10)
            )
        ).all()
        unfinished = await list_interactions(
            session, org, PageRequest(limit=10), status=INTERACTION.unfinished
        )
        running_questions = [row for (row,) in unfinished.rows]
        recent_questions = await list_interactions(session, org, PageRequest(limit=8))
        questions = [row for (row,) in recent_questions.rows]
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
