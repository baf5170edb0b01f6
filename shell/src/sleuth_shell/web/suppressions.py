"""Suppressions: the active ones, a form to add one and an End now button on each.

The form becomes the body of ``POST /api/v1/suppressions`` and goes through the operation its
handler calls (:func:`create_suppression`); End now is ``DELETE /api/v1/suppressions/{id}``
(:func:`end_suppression`). A refused form shows the API's error text.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template
from sqlalchemy import select

from sleuth_core.errors import CoreError
from sleuth_core.ids import encode_global_id
from sleuth_shell.api.suppressions import (
    SuppressionCreate,
    active_suppressions,
    create_suppression,
    end_suppression,
)
from sleuth_shell.db.models import AlertResponder
from sleuth_shell.errors import ApiError
from sleuth_shell.web.guard import PAGE_OPTIONS, Viewer, ViewerDep, form_data, form_page

__all__ = ["ROUTES"]


async def _page(
    request: Request[Any, Any, Any],
    viewer: Viewer,
    form: dict[str, str],
    error: str | None = None,
) -> Template:
    async with request.app.state.session_factory() as session:
        rows = await active_suppressions(session, viewer.org_id)
        agents = (
            await session.execute(
                select(AlertResponder.id, AlertResponder.name)
                .where(AlertResponder.org_id == viewer.org_id)
                .order_by(AlertResponder.name)
            )
        ).all()
    names = {pk: name for pk, name in agents}
    return form_page(
        "suppressions.html",
        viewer,
        "alerts",
        title="Suppressions",
        suppressions=[
            (
                encode_global_id("Suppression", row.id),
                row,
                names.get(row.alert_responder_id, "every agent")
                if row.alert_responder_id is not None
                else "every agent",
            )
            for row in rows
        ],
        agents=[(encode_global_id("AlertResponder", pk), name) for pk, name in agents],
        form=form,
        error=error,
        notice=request.query_params.get("notice"),
    )


_BLANK = {"text_matches": "", "expires_at": "", "reason": "", "alert_responder_id": ""}


@get("/suppressions", **PAGE_OPTIONS)
async def suppressions_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """The active suppressions and the form to add one."""
    return await _page(request, viewer, dict(_BLANK))


@post("/suppressions", status_code=200, **PAGE_OPTIONS)
async def add_suppression(request: Request[Any, Any, Any], viewer: ViewerDep) -> Response[Any]:
    """Add a suppression (as ``POST /api/v1/suppressions``)."""
    data = await form_data(request, viewer)
    form = {key: data.get(key, "") for key in _BLANK}
    expires: str | int = form["expires_at"].strip()
    if isinstance(expires, str) and expires.isdigit():
        expires = int(expires)  # Unix seconds, as the API takes them
    body: dict[str, Any] = {
        "matching_criteria": {
            "text_matches": [p.strip() for p in form["text_matches"].splitlines() if p.strip()]
        },
        "expires_at": expires,
        "reason": form["reason"],
    }
    if form["alert_responder_id"]:
        body["alert_responder_id"] = form["alert_responder_id"]
    error: str | None = None
    async with request.app.state.session_factory() as session:
        try:
            await create_suppression(
                session, viewer.org_id, msgspec.convert(body, SuppressionCreate)
            )
        except (ApiError, CoreError, msgspec.ValidationError) as exc:
            await session.rollback()
            error = exc.detail if isinstance(exc, ApiError) else str(exc)
    if error is not None:
        return await _page(request, viewer, form, error)
    return Redirect(path="/suppressions?notice=added", status_code=303)


@post("/suppressions/{suppression_id:str}/end", status_code=303, **PAGE_OPTIONS)
async def end_suppression_now(
    request: Request[Any, Any, Any], viewer: ViewerDep, suppression_id: FromPath[str]
) -> Response[Any]:
    """End a suppression now (as ``DELETE /api/v1/suppressions/{id}``)."""
    await form_data(request, viewer)
    async with request.app.state.session_factory() as session:
        await end_suppression(session, viewer.org_id, suppression_id)
    return Redirect(path="/suppressions?notice=ended", status_code=303)


ROUTES: list[Any] = [suppressions_page, add_suppression, end_suppression_now]
