"""The alert agent form: create (``/alert-responders/new``) and edit
(``/alert-responders/{id}/edit``) an agent, and preview its criteria.

The form is turned into the API's own request body (:class:`AlertResponderCreate` /
:class:`AlertResponderUpdate`) and handed to the operations the API handlers call
(:func:`create_alert_responder`, :func:`update_alert_responder`), so the rules and the error texts
are the API's. Preview runs the criteria dry run of ``POST /api/v1/alert-responders/dry-run``
(:func:`run_dry_run`) and shows which stored alerts match, with the matched text highlighted.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import msgspec
from litestar import Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect, Template
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.errors import CoreError
from sleuth_core.ids import encode_global_id
from sleuth_shell.api.alert_responders import (
    AlertResponderCreate,
    AlertResponderUpdate,
    create_alert_responder,
    delete_alert_responder,
    load_alert_responder,
    update_alert_responder,
)
from sleuth_shell.api.alerts import DryRunBody, run_dry_run
from sleuth_shell.db.models import (
    AlertResponder,
    NotificationIntegration,
    Team,
    WebhookSubscription,
)
from sleuth_shell.domain import ALERT_SOURCE_TYPES
from sleuth_shell.errors import ApiError
from sleuth_shell.web.alerts import highlight, leaf_spans
from sleuth_shell.web.guard import (
    PAGE_OPTIONS,
    Viewer,
    ViewerDep,
    delete_form,
    form_data,
    form_page,
    form_refusal,
)

__all__ = ["ROUTES", "form_body"]

#: The caps and the group window: number fields, empty when not set.
NUMBERS = ("max_runs_per_hour", "max_runs_per_day", "group_window_seconds")
#: Stored alerts the preview examines (the dry run's default).
PREVIEW_LIMIT = 500


def _number(text: str) -> int | str:
    """A whole number as typed, else the text itself (the API's decoding then refuses it)."""
    try:
        return int(text.strip())
    except ValueError:
        return text


def form_body(form: dict[str, Any], *, create: bool) -> dict[str, Any]:
    """The API request body the form's values stand for (``form`` as :func:`_read_form` gives).

    Empty optional fields are left out on create and cleared (``null``) on edit, as a client of
    ``PUT`` sends the record it wants.

    >>> form = {**_blank_form(), "name": "db", "team_name": "sre", "sources": ["GENERIC x1"],
    ...         "text_matches": "db-*\\n\\n timeout ", "max_runs_per_hour": "5"}
    >>> body = form_body(form, create=True)
    >>> body["matching_criteria"], body["webhook_sources"], body["max_runs_per_hour"]
    ({'text_matches': ['db-*', 'timeout']}, [{'type': 'GENERIC', 'remote_id': 'x1'}], 5)
    >>> "max_runs_per_day" in body, form_body(form, create=False)["max_runs_per_day"]
    (False, None)
    """
    body: dict[str, Any] = {"name": form["name"]}
    if create:
        body["team_name"] = form["team_name"]
    if form["criteria_kind"] == "rules":
        body["matching_criteria"] = {"match_rules": _rules(form["match_rules"])}
    else:
        patterns = [line.strip() for line in form["text_matches"].splitlines() if line.strip()]
        body["matching_criteria"] = {"text_matches": patterns}
    sources = [s.split(" ", 1) for s in form["sources"] if " " in s]
    if sources or form["is_webhook"]:
        body["webhook_sources"] = [{"type": t, "remote_id": r} for t, r in sources]
    if form["chat_channel_id"].strip() or form["is_chat"]:
        body["chat_channel_id"] = form["chat_channel_id"].strip()
    runbook = {
        key: form[field]
        for key, field in (
            ("investigation_prompt", "runbook_prompt"),
            ("impact_and_severity_prompt", "impact_prompt"),
        )
        if form[field].strip()
    }
    if runbook or not create:
        body["runbook"] = runbook or None
    if form["integrations"] or not create:
        body["notification_integration_ids"] = list(form["integrations"])
    for name in NUMBERS:
        if form[name].strip():
            body[name] = _number(form[name])
        elif not create:
            body[name] = None
    if form["investigate"]:
        body["investigate"] = form["investigate"]
    elif not create:
        body["investigate"] = None
    return body


class _Refused(Exception):
    """The form cannot become a request body (the message says why)."""


def _rules(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise _Refused(f"match_rules: Not valid JSON: {exc}") from None


def _blank_form() -> dict[str, Any]:
    form: dict[str, Any] = {
        "name": "",
        "team_name": "",
        "sources": [],
        "chat_channel_id": "",
        "criteria_kind": "patterns",
        "text_matches": "",
        "match_rules": "",
        "runbook_prompt": "",
        "impact_prompt": "",
        "integrations": [],
        "investigate": "",
        "is_webhook": False,
        "is_chat": False,
    }
    form.update(dict.fromkeys(NUMBERS, ""))
    return form


def _agent_form(agent: AlertResponder) -> dict[str, Any]:
    """The form filled in with ``agent`` as stored."""
    form = _blank_form()
    sources = [s for s in agent.webhook_sources if isinstance(s, dict)]
    form.update(
        name=agent.name,
        sources=[f"{s.get('type')} {s.get('remote_id')}" for s in sources],
        chat_channel_id=agent.chat_channel_id or "",
        criteria_kind="patterns" if agent.text_matches else "rules",
        text_matches="\n".join(agent.text_matches),
        match_rules=json.dumps(agent.match_rules, indent=2, ensure_ascii=False),
        runbook_prompt=(agent.runbook_prompt or "") if agent.runbook_active else "",
        impact_prompt=(agent.runbook_impact_prompt or "") if agent.runbook_active else "",
        integrations=[
            encode_global_id("NotificationIntegration", int(i))
            for i in agent.notification_integration_ids or []
        ],
        investigate=agent.investigate or "",
        is_webhook=agent.chat_channel_id is None,
        is_chat=agent.chat_channel_id is not None,
    )
    for name in NUMBERS:
        value = getattr(agent, name)
        form[name] = "" if value is None else str(value)
    return form


async def _read_form(
    request: Request[Any, Any, Any], viewer: Viewer, base: dict[str, Any]
) -> tuple[dict[str, Any], str]:
    """The posted form over ``base`` (CSRF checked) and the button pressed."""
    data = await form_data(request, viewer)
    multi = await request.form()
    form = dict(base)
    for key in form:
        if key in data and isinstance(form[key], str):
            form[key] = data[key]
    form["sources"] = [str(v) for v in multi.getall("sources", [])]
    form["integrations"] = [str(v) for v in multi.getall("integrations", [])]
    return form, data.get("action", "save")


async def _choices(session: AsyncSession, org_id: int) -> dict[str, Any]:
    teams = (
        await session.scalars(select(Team.name).where(Team.org_id == org_id).order_by(Team.name))
    ).all()
    subscriptions = (
        await session.scalars(
            select(WebhookSubscription)
            .where(
                WebhookSubscription.org_id == org_id,
                WebhookSubscription.type.in_(ALERT_SOURCE_TYPES),
            )
            .order_by(WebhookSubscription.name)
        )
    ).all()
    integrations = (
        await session.scalars(
            select(NotificationIntegration)
            .where(NotificationIntegration.org_id == org_id)
            .order_by(NotificationIntegration.name)
        )
    ).all()
    return {
        "teams": list(teams),
        # Plain values, not rows: a refused save rolls back, which expires every loaded row.
        "subscriptions": [
            (f"{s.type} {s.remote_id}", {"name": s.name, "type": s.type, "remote_id": s.remote_id})
            for s in subscriptions
        ],
        "integrations": [
            (encode_global_id("NotificationIntegration", i.id), {"name": i.name, "kind": i.kind})
            for i in integrations
        ],
    }


async def _preview(session: AsyncSession, org_id: int, form: dict[str, Any]) -> dict[str, Any]:
    """The dry run of the form's criteria over its sources' stored alerts."""
    body = form_body(form, create=True)
    dry = {
        "matching_criteria": body["matching_criteria"],
        "limit": PREVIEW_LIMIT,
        **{k: body[k] for k in ("webhook_sources", "chat_channel_id") if body.get(k)},
    }
    result = await run_dry_run(session, org_id, msgspec.convert(dry, DryRunBody))
    return {
        "examined": result["examined"],
        "matched": result["matched"],
        "examples": [
            {
                "id": encode_global_id("Alert", pk),
                "title": title,
                "pieces": highlight(text, leaf_spans(trace)),
            }
            for pk, title, text, trace in result["examples"]
        ],
    }


def _form_page(
    viewer: Viewer,
    form: dict[str, Any],
    choices: dict[str, Any],
    *,
    gid: str | None,
    error: str | None = None,
    preview: dict[str, Any] | None = None,
) -> Template:
    return form_page(
        "agent_form.html",
        viewer,
        "agents",
        title=f"Edit {form['name']}" if gid else "New alert agent",
        form=form,
        gid=gid,
        error=error,
        preview=preview,
        **choices,
    )


async def _submit(
    request: Request[Any, Any, Any], viewer: Viewer, base: dict[str, Any], gid: str | None
) -> Response[Any]:
    """Preview or save the posted form: the agent's page after a save, else the form again
    (with the preview, or with the API's error and nothing changed)."""
    form, action = await _read_form(request, viewer, base)
    settings = request.app.state.settings
    async with request.app.state.session_factory() as session:
        choices = await _choices(session, viewer.org_id)
        try:
            if action == "preview":
                preview = await _preview(session, viewer.org_id, form)
                return _form_page(viewer, form, choices, gid=gid, preview=preview)
            body = form_body(form, create=gid is None)
            if gid is None:
                agent = await create_alert_responder(
                    session, viewer.org_id, msgspec.convert(body, AlertResponderCreate)
                )
            else:
                agent = await update_alert_responder(
                    session,
                    viewer.org_id,
                    viewer.org_name,
                    settings.public_url,
                    gid,
                    msgspec.convert(body, AlertResponderUpdate),
                )
            target = encode_global_id("AlertResponder", agent.id)
        except (ApiError, CoreError, msgspec.ValidationError, _Refused) as exc:
            detail = await form_refusal(session, exc)
            return _form_page(viewer, form, choices, gid=gid, error=detail)
    return Redirect(path=f"/alert-responders/{quote(target, safe='=')}", status_code=303)


@get("/alert-responders/new", **PAGE_OPTIONS)
async def new_agent_page(request: Request[Any, Any, Any], viewer: ViewerDep) -> Template:
    """The empty form for a new alert agent."""
    async with request.app.state.session_factory() as session:
        choices = await _choices(session, viewer.org_id)
    form = _blank_form()
    if choices["teams"]:
        form["team_name"] = choices["teams"][0]
    return _form_page(viewer, form, choices, gid=None)


@post("/alert-responders/new", status_code=200, **PAGE_OPTIONS)
async def create_agent(request: Request[Any, Any, Any], viewer: ViewerDep) -> Response[Any]:
    """Create the agent (as ``POST /api/v1/alert-responders``) or preview its criteria."""
    return await _submit(request, viewer, _blank_form(), None)


async def _stored_agent(
    request: Request[Any, Any, Any], viewer: Viewer, responder_id: str
) -> AlertResponder:
    async with request.app.state.session_factory() as session:
        return await load_alert_responder(session, viewer.org_id, responder_id)


@get("/alert-responders/{responder_id:str}/edit", **PAGE_OPTIONS)
async def edit_agent_page(
    request: Request[Any, Any, Any], viewer: ViewerDep, responder_id: FromPath[str]
) -> Template:
    """The form filled in with the agent as stored."""
    agent = await _stored_agent(request, viewer, responder_id)
    async with request.app.state.session_factory() as session:
        choices = await _choices(session, viewer.org_id)
    return _form_page(viewer, _agent_form(agent), choices, gid=responder_id)


@post("/alert-responders/{responder_id:str}/edit", status_code=200, **PAGE_OPTIONS)
async def update_agent(
    request: Request[Any, Any, Any], viewer: ViewerDep, responder_id: FromPath[str]
) -> Response[Any]:
    """Save the agent (as ``PUT /api/v1/alert-responders/{id}``) or preview its criteria."""
    agent = await _stored_agent(request, viewer, responder_id)
    return await _submit(request, viewer, _agent_form(agent), responder_id)


@post("/alert-responders/{responder_id:str}/delete", status_code=303, **PAGE_OPTIONS)
async def delete_agent(
    request: Request[Any, Any, Any], viewer: ViewerDep, responder_id: FromPath[str]
) -> Response[Any]:
    """Delete the agent (as ``DELETE /api/v1/alert-responders/{id}``: its pending
    investigations stop)."""
    return await delete_form(
        request,
        viewer,
        lambda session: delete_alert_responder(session, viewer.org_id, responder_id),
        "/alert-responders",
    )


ROUTES: list[Any] = [new_agent_page, create_agent, edit_agent_page, update_agent, delete_agent]
