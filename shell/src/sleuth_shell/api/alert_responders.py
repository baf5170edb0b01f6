"""Alert agents: ``/api/v1/alert-responders`` (create, get, list, update, delete, enable, disable).

An agent is webhook-based (``webhook_sources``: the org's alert-source subscriptions) or chat-based
(``chat_channel_id``); the kinds never mix. ``matching_criteria`` is normalised by
:func:`sleuth_core.matching.normalize_criteria`, which returns both ``text_matches`` and
``match_rules``.

The runbook is stored exactly as set (DESIGN 4): ``runbook_active`` says a custom runbook was set,
``runbook_prompt`` and ``runbook_impact_prompt`` hold its members (NULL when not set). Absent,
``null`` or ``{}`` (on create; ``null`` or ``{}`` on update) means no custom runbook: GET returns
``runbook: null``, and otherwise only the members that were set, never the default prompt filled
in. Investigations run with :data:`DEFAULT_PROMPT` when no ``investigation_prompt`` was set
(:func:`~sleuth_shell.investigations.investigation_prompt`).
"""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace
from typing import Any, Literal, cast

import msgspec
from litestar import Controller, Request, delete, get, post, put
from litestar.params import FromPath, FromQuery
from msgspec import UNSET, UnsetType
from sqlalchemy import Integer, bindparam, func, literal, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_core.ids import encode_global_id
from sleuth_core.matching import normalize_criteria
from sleuth_shell.api.body import StrictBody
from sleuth_shell.api.common import (
    check_channel_id,
    check_text,
    decode_id_or_404,
    encode_integration_ids,
    find_team_id,
    load_owned,
    resolve_integration_ids,
    resolve_team,
)
from sleuth_shell.api.deps import AppSettings, CurrentPrincipal, DbSession
from sleuth_shell.auth import provide_principal
from sleuth_shell.config import Settings
from sleuth_shell.db.agent_versions import bump_ctes, bump_with
from sleuth_shell.db.executor import write_transaction
from sleuth_shell.db.hot_reads import HotRead, HotReader, HotWrite, hot_reader_of
from sleuth_shell.db.models import AlertResponder, Team, WebhookSubscription, utcnow
from sleuth_shell.domain import (
    ALERT_SOURCE_TYPES,
    CHANGE_SOURCE_TYPES,
    AlertSourceType,
    ChangeSourceType,
    normalize_name,
)
from sleuth_shell.errors import ApiError, bad_request, conflict, error_responses, not_found
from sleuth_shell.investigations import (
    DEFAULT_PROMPT,
    investigation_prompt,
    stop_pending_investigations,
    stop_pending_statement,
)
from sleuth_shell.urls import alert_responder_url

__all__ = [
    "DEFAULT_PROMPT",
    "GLOBAL_TYPE",
    "ROUTES",
    "AlertResponderCreate",
    "AlertResponderUpdate",
    "create_alert_responder",
    "delete_alert_responder",
    "effective_prompt",
    "load_alert_responder",
    "set_alert_responder_status",
    "update_alert_responder",
]

GLOBAL_TYPE = "AlertResponder"
THING = "Alert responder"
MAX_PROMPT_LENGTH = 20_000
MAX_WEBHOOK_SOURCES = 50
MAX_BOT_ID_LENGTH = 64

#: Subscription types a webhook source may name: the alert sources (``ALERT_SOURCE_TYPES``),
#: and the change sources, which are refused with a detail saying why (they feed change records).
ProviderType = Literal[AlertSourceType, ChangeSourceType]


def effective_prompt(agent: AlertResponder) -> str:
    """The prompt an investigation of ``agent`` runs with."""
    return investigation_prompt(agent)


# --- request and response shapes ---------------------------------------------------------------


class WebhookSource(msgspec.Struct):
    """A webhook subscription of the organization (see GET /api/v1/webhook-subscriptions)."""

    type: ProviderType
    remote_id: str


class Runbook(msgspec.Struct, kw_only=True):
    """The investigation runbook; ``{}`` means no custom runbook (the default prompt applies).
    Both members are optional and stored and returned as set."""

    investigation_prompt: str | UnsetType = UNSET
    impact_and_severity_prompt: str | UnsetType | None = UNSET


class RunbookOut(msgspec.Struct, kw_only=True):
    """The runbook as set: only the members that were given."""

    investigation_prompt: str | UnsetType = UNSET
    impact_and_severity_prompt: str | UnsetType = UNSET


class MatchingCriteria(msgspec.Struct, kw_only=True):
    """Give ``text_matches`` (wildcards, all must match) or ``match_rules`` (a rule tree)."""

    text_matches: list[str] | UnsetType | None = UNSET
    match_rules: dict[str, Any] | UnsetType | None = UNSET
    chat_bot_app_user_id: str | UnsetType | None = UNSET


class MatchingCriteriaOut(msgspec.Struct, kw_only=True):
    text_matches: list[str]
    match_rules: dict[str, Any]
    chat_bot_app_user_id: str | UnsetType = UNSET


class AlertResponderCreate(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Create an alert agent: ``webhook_sources`` or ``chat_channel_id``, not both."""

    team_name: str
    name: str
    matching_criteria: MatchingCriteria
    webhook_sources: list[WebhookSource] | UnsetType | None = UNSET
    chat_channel_id: str | UnsetType | None = UNSET
    runbook: Runbook | UnsetType | None = UNSET
    notification_integration_ids: list[str] | UnsetType | None = UNSET
    max_runs_per_hour: int | UnsetType | None = UNSET
    max_runs_per_day: int | UnsetType | None = UNSET
    group_window_seconds: int | UnsetType | None = UNSET
    investigate: str | UnsetType | None = UNSET


class AlertResponderUpdate(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Only the given fields change. ``runbook: null`` deactivates the custom runbook.

    The read-only members of the record (:data:`READ_ONLY`) may come back as GET returned them (a
    declarative client sends the record it read); any other value of them is 400."""

    id: str | UnsetType = UNSET
    url: str | UnsetType = UNSET
    organization_name: str | UnsetType = UNSET
    team_name: str | UnsetType = UNSET
    status: str | UnsetType = UNSET
    created_at: datetime | UnsetType = UNSET
    updated_at: datetime | UnsetType = UNSET
    name: str | UnsetType = UNSET
    runbook: Runbook | UnsetType | None = UNSET
    matching_criteria: MatchingCriteria | UnsetType = UNSET
    webhook_sources: list[WebhookSource] | UnsetType | None = UNSET
    chat_channel_id: str | UnsetType | None = UNSET
    notification_integration_ids: list[str] | UnsetType | None = UNSET
    max_runs_per_hour: int | UnsetType | None = UNSET
    max_runs_per_day: int | UnsetType | None = UNSET
    group_window_seconds: int | UnsetType | None = UNSET
    investigate: str | UnsetType | None = UNSET


#: Members of GET's record that a PUT may carry only unchanged.
READ_ONLY = ("id", "url", "organization_name", "team_name", "status", "created_at", "updated_at")


class AlertResponderRef(msgspec.Struct):
    id: str
    url: str
    name: str
    status: str


class AlertResponderStatus(msgspec.Struct):
    id: str
    status: str


class AlertResponderRecord(msgspec.Struct, kw_only=True):
    """The full alert agent."""

    id: str
    url: str
    organization_name: str
    team_name: str
    name: str
    runbook: RunbookOut | None
    matching_criteria: MatchingCriteriaOut
    webhook_sources: list[WebhookSource]
    chat_channel_id: str | None
    notification_integration_ids: list[str] | UnsetType = UNSET
    max_runs_per_hour: int | UnsetType = UNSET
    max_runs_per_day: int | UnsetType = UNSET
    group_window_seconds: int | UnsetType = UNSET
    investigate: str | UnsetType = UNSET
    status: str
    created_at: datetime
    updated_at: datetime


class AlertResponderListItem(msgspec.Struct):
    id: str
    name: str
    team_name: str
    status: str
    url: str


class AlertResponderList(msgspec.Struct):
    alert_responders: list[AlertResponderListItem]


class Success(msgspec.Struct):
    success: bool


# --- validation ----------------------------------------------------------------------------------


def _criteria(value: MatchingCriteria, *, chat: bool) -> dict[str, Any]:
    raw = {
        field: getattr(value, field)
        for field in ("text_matches", "match_rules", "chat_bot_app_user_id")
        if getattr(value, field) is not UNSET and getattr(value, field) is not None
    }
    bot_id = raw.get("chat_bot_app_user_id")
    if bot_id is not None:
        if not chat:
            raise bad_request("chat_bot_app_user_id is only allowed on chat alert agents")
        if "\x00" in bot_id:
            raise bad_request("chat_bot_app_user_id must not contain NUL characters")
        if len(bot_id) > MAX_BOT_ID_LENGTH:
            raise bad_request(
                f"chat_bot_app_user_id must be at most {MAX_BOT_ID_LENGTH} characters"
            )
    return normalize_criteria(raw)


def _runbook(value: Runbook | UnsetType | None) -> tuple[str | None, str | None, bool]:
    """``(investigation prompt, impact prompt, active)`` of a runbook given on create or update:
    each member as set (None when absent or null); ``active`` is False when none was set."""
    if not isinstance(value, Runbook):
        return None, None, False
    prompt: str | None = None
    if isinstance(value.investigation_prompt, str):
        prompt = check_text(
            value.investigation_prompt, "runbook.investigation_prompt", max_length=MAX_PROMPT_LENGTH
        )
    impact: str | None = None
    if isinstance(value.impact_and_severity_prompt, str):
        impact = check_text(
            value.impact_and_severity_prompt,
            "runbook.impact_and_severity_prompt",
            max_length=MAX_PROMPT_LENGTH,
        )
    return prompt, impact, prompt is not None or impact is not None


async def _webhook_sources(
    session: AsyncSession, org_id: int, sources: list[WebhookSource]
) -> list[dict[str, str]]:
    if not sources:
        raise bad_request("webhook_sources must not be empty")
    if len(sources) > MAX_WEBHOOK_SOURCES:
        raise bad_request(f"webhook_sources may list at most {MAX_WEBHOOK_SOURCES} sources")
    known = {
        (row.type, row.remote_id)
        for row in (
            await session.execute(
                select(WebhookSubscription.type, WebhookSubscription.remote_id).where(
                    WebhookSubscription.org_id == org_id,
                    WebhookSubscription.type.in_(ALERT_SOURCE_TYPES),
                )
            )
        ).all()
    }
    result: list[dict[str, str]] = []
    for source in sources:
        if source.type in CHANGE_SOURCE_TYPES:
            raise bad_request(
                f"Webhook source {source.type} {source.remote_id} is a change source: "
                f"{source.type} subscriptions record commits and deploys, not alerts, "
                "so they cannot be an alert agent's webhook_sources"
            )
        if (source.type, source.remote_id) not in known:
            raise bad_request(f"Unknown webhook source: {source.type} {source.remote_id}")
        item = {"type": source.type, "remote_id": source.remote_id}
        if item not in result:
            result.append(item)
    return result


#: The bounds an agent may set (DESIGN 7), each NULL (absent) unless set.
BOUNDS = ("max_runs_per_hour", "max_runs_per_day", "group_window_seconds", "investigate")
#: Largest accepted cap and group window.
MAX_RUNS = 1_000_000
MAX_GROUP_WINDOW = 7 * 24 * 3600
INVESTIGATE_MODES = ("always", "on_request")


def _bounds(data: AlertResponderCreate | AlertResponderUpdate) -> dict[str, Any]:
    """The bounds given in ``data``, checked: name -> value (None: cleared with null)."""
    found: dict[str, Any] = {}
    for name in BOUNDS:
        value = getattr(data, name)
        if value is UNSET:
            continue
        if value is None:
            found[name] = None
        elif name == "investigate":
            if value not in INVESTIGATE_MODES:
                raise bad_request('investigate must be "always" or "on_request"')
            found[name] = value
        elif name == "group_window_seconds":
            if isinstance(value, bool) or not 0 <= value <= MAX_GROUP_WINDOW:
                raise bad_request(
                    f"group_window_seconds must be a whole number from 0 to {MAX_GROUP_WINDOW}"
                )
            found[name] = value
        else:
            if isinstance(value, bool) or not 1 <= value <= MAX_RUNS:
                raise bad_request(f"{name} must be a whole number from 1 to {MAX_RUNS}")
            found[name] = value
    return found


def _given(value: Any) -> bool:
    return value is not UNSET and value is not None


# --- reading -------------------------------------------------------------------------------------


async def load_alert_responder(session: AsyncSession, org_id: int, alert_id: str) -> AlertResponder:
    """The organization's alert agent with Global ID ``alert_id``; 404 ``Alert responder not
    found``."""
    return await load_owned(session, AlertResponder, org_id, alert_id, GLOBAL_TYPE, THING)


def _ref(agent: AlertResponder, public_url: str) -> AlertResponderRef:
    gid = encode_global_id(GLOBAL_TYPE, agent.id)
    return AlertResponderRef(
        id=gid, url=alert_responder_url(public_url, gid), name=agent.name, status=agent.status
    )


def _runbook_out(agent: AlertResponder) -> RunbookOut | None:
    """The runbook exactly as set: None when no custom runbook was set."""
    prompt, impact = agent.runbook_prompt, agent.runbook_impact_prompt
    if not agent.runbook_active or (prompt is None and impact is None):
        return None
    return RunbookOut(
        investigation_prompt=prompt if prompt is not None else UNSET,
        impact_and_severity_prompt=impact if impact is not None else UNSET,
    )


def _record(
    agent: AlertResponder,
    team_name: str,
    org_name: str,
    public_url: str,
    global_id: str | None = None,
) -> AlertResponderRecord:
    """The agent as the API shows it; ``global_id``: its Global ID when the caller has it."""
    gid = global_id if global_id is not None else encode_global_id(GLOBAL_TYPE, agent.id)
    is_chat = agent.chat_channel_id is not None
    criteria = MatchingCriteriaOut(
        text_matches=list(agent.text_matches),
        match_rules=dict(agent.match_rules),
        chat_bot_app_user_id=(
            agent.chat_bot_app_user_id if is_chat and agent.chat_bot_app_user_id else UNSET
        ),
    )
    return AlertResponderRecord(
        id=gid,
        url=alert_responder_url(public_url, gid),
        organization_name=org_name,
        team_name=team_name,
        name=agent.name,
        runbook=_runbook_out(agent),
        matching_criteria=criteria,
        webhook_sources=[
            WebhookSource(type=s["type"], remote_id=s["remote_id"]) for s in agent.webhook_sources
        ],
        chat_channel_id=agent.chat_channel_id,
        notification_integration_ids=(
            encode_integration_ids(agent.notification_integration_ids)
            if agent.notification_integration_ids  # none configured ([] or null): omitted
            else UNSET
        ),
        **{
            name: getattr(agent, name)
            for name in BOUNDS
            if getattr(agent, name, None) is not None  # only when set
        },
        status=agent.status,
        created_at=agent.created_at,
        updated_at=agent.updated_at,
    )


async def _check_read_only(
    session: AsyncSession,
    agent: AlertResponder,
    data: AlertResponderUpdate,
    org_name: str,
    public_url: str,
) -> None:
    """400 naming the first read-only member ``data`` carries with a value other than GET's."""
    given = [member for member in READ_ONLY if getattr(data, member) is not UNSET]
    if not given:
        return
    current = _record(agent, await _team_name(session, agent.team_id), org_name, public_url)
    for member in given:
        if getattr(data, member) != getattr(current, member):
            raise bad_request(f"{member} is read-only: send it unchanged or leave it out")


async def _team_name(session: AsyncSession, team_id: int) -> str:
    name = await session.scalar(select(Team.name).where(Team.id == team_id))
    return name or ""


#: The hot read (``GET /alert-responders/{id}``): the agent's columns and its team's name in one
#: round trip, as a Core statement built once (no per-request statement building or ORM loading).
_agents, _teams = AlertResponder.__table__, Team.__table__
_GET_ONE = HotRead(
    select(*_agents.columns, _teams.c.name.label("team_name"))
    .join(_teams, _teams.c.id == _agents.c.team_id)
    .where(_agents.c.id == bindparam("pk"), _agents.c.org_id == bindparam("org_id"))
)


# --- operations (the API's handlers and the alert agent form call these) ---------------------


async def _find(
    session: AsyncSession, org_id: int, team_id: int, name: str
) -> AlertResponder | None:
    found: AlertResponder | None = await session.scalar(
        select(AlertResponder).where(
            AlertResponder.org_id == org_id,
            AlertResponder.team_id == team_id,
            AlertResponder.name == name,
        )
    )
    return found


async def create_alert_responder(
    session: AsyncSession, org_id: int, data: AlertResponderCreate
) -> AlertResponder:
    """Create an alert agent from ``data`` (committed), or return the existing one of that name
    in that team; bad input is 400 :class:`ApiError` (or a core error) with the API's detail."""
    team = await resolve_team(session, org_id, data.team_name)
    name = normalize_name(check_text(data.name, "name"))
    webhook = _given(data.webhook_sources) and bool(data.webhook_sources)
    chat = _given(data.chat_channel_id)
    if webhook and chat:
        raise bad_request("Use either webhook_sources or chat_channel_id, not both")
    if not webhook and not chat:
        raise bad_request("Either webhook_sources or chat_channel_id is required")
    sources: list[dict[str, str]] = []
    channel: str | None = None
    if webhook:
        assert isinstance(data.webhook_sources, list)
        sources = await _webhook_sources(session, org_id, data.webhook_sources)
    else:
        assert isinstance(data.chat_channel_id, str)
        channel = check_channel_id(data.chat_channel_id)
    criteria = _criteria(data.matching_criteria, chat=chat)
    bounds = _bounds(data)
    prompt, impact, active = _runbook(data.runbook)
    integrations: list[int] | None = None
    if _given(data.notification_integration_ids):
        assert isinstance(data.notification_integration_ids, list)
        integrations = (
            await resolve_integration_ids(session, org_id, data.notification_integration_ids)
            or None
        )

    # Plain values, not ORM attributes: a rollback expires every loaded row.
    team_id = team.id
    existing = await _find(session, org_id, team_id, name)
    if existing is not None:
        return existing
    agent = AlertResponder(
        org_id=org_id,
        team_id=team_id,
        name=name,
        runbook_prompt=prompt,
        runbook_active=active,
        runbook_impact_prompt=impact,
        text_matches=criteria["text_matches"],
        match_rules=criteria["match_rules"],
        chat_bot_app_user_id=criteria.get("chat_bot_app_user_id"),
        chat_channel_id=channel,
        webhook_sources=sources,
        notification_integration_ids=integrations,
        status="ACTIVE",
        **bounds,
    )
    session.add(agent)
    try:
        await session.commit()
    except IntegrityError:
        # A concurrent create of the same name won the race: return its agent.
        await session.rollback()
        existing = await _find(session, org_id, team_id, name)
        if existing is None:
            raise
        return existing
    return agent


#: The status read of :func:`set_alert_responder_status` (one round trip, no transaction).
_STATUS = HotRead(
    select(_agents.c.status).where(
        _agents.c.id == bindparam("pk"), _agents.c.org_id == bindparam("org_id")
    )
)
#: The status change of :func:`set_alert_responder_status`: the agent's id when it changed.
_CHANGE_STATUS = (
    update(_agents)
    .where(
        _agents.c.id == bindparam("pk"),
        _agents.c.org_id == bindparam("owner"),
        _agents.c.status != bindparam("new_status"),
    )
    .values(status=bindparam("new_status"), updated_at=bindparam("now"))
    .returning(_agents.c.id)
)
_EXISTS = select(_agents.c.id).where(
    _agents.c.id == bindparam("pk"), _agents.c.org_id == bindparam("org_id")
)
#: The agent row's lock of :func:`delete_alert_responder` (``FOR UPDATE``: nothing on SQLite).
_LOCK = select(_agents.c.id).where(_agents.c.id == bindparam("pk")).with_for_update()


def _one_statement(status: Literal["ACTIVE", "PAUSED"]) -> HotWrite:
    """PostgreSQL: the whole status change as one statement, its effects as data-modifying CTEs
    of the agent's lookup: :data:`_CHANGE_STATUS`, the agent-version bump of a change
    (:func:`~sleuth_shell.db.agent_versions.bump_ctes`) and for a pause the stop of the agent's
    pending investigations (:func:`~sleuth_shell.investigations.stop_pending_statement`, of the
    agent only when it is the organization's). Answers the agent's id (no row: no such agent),
    the new version (``NULL``: nothing changed) and the investigations stopped; the columns read
    the CTEs in the two-statement order (status, version, investigations), so the row locks are
    taken in that order."""
    changed = _CHANGE_STATUS.cte("changed")
    recorded, pruned = bump_ctes(changed, bindparam("pk", type_=Integer))
    columns: list[Any] = [
        _agents.c.id,
        select(recorded.c.version).scalar_subquery().label("version"),
    ]
    ctes = [changed, recorded, pruned]
    if status == "PAUSED":
        stopped = (
            stop_pending_statement(_EXISTS.scalar_subquery())
            .returning(literal(1, Integer).label("one"))
            .cte("stopped")
        )
        ctes.append(stopped)
        columns.append(select(func.count()).select_from(stopped).scalar_subquery().label("stopped"))
    statement = select(*columns).where(
        _agents.c.id == bindparam("pk"), _agents.c.org_id == bindparam("org_id")
    )
    return HotWrite(statement.add_cte(*ctes))


#: :func:`_one_statement` of each status, built once.
_ONE_STATEMENT = {status: _one_statement(status) for status in ("ACTIVE", "PAUSED")}


async def set_alert_responder_status(
    reader: HotReader,
    session_factory: async_sessionmaker[AsyncSession],
    org_id: int,
    alert_id: str,
    status: Literal["ACTIVE", "PAUSED"],
    *,
    fast: bool,
) -> None:
    """Give the agent ``alert_id`` ``status`` (committed): enable (API) and resume (web form) set
    ACTIVE, disable and pause set PAUSED and stop the agent's pending investigations. 404 ``Alert
    responder not found``.

    The effects, on every database: an ``UPDATE ... RETURNING`` that changes the status (and
    ``updated_at``) only when it differs; a change bumps the organization's agent version and
    records the change (:mod:`sleuth_shell.db.agent_versions`, as the ORM hook does for every
    other agent change); a pause always stops whatever investigation is still pending; an agent
    that is not the organization's is 404 and changes nothing. Enabling an agent that is already
    ACTIVE writes nothing.

    - **PostgreSQL:** one statement (:func:`_one_statement`) on the hot reader's pool, in
      autocommit: one round trip, no session, no ``BEGIN`` or ``COMMIT``. Running it twice is
      harmless (the status guard: a second run changes nothing), as a :class:`HotWrite` needs.
    - **Elsewhere (SQLite):** an enable first reads the agent's status through the hot reader (no
      transaction, no write lock) and answers an ACTIVE agent at once; otherwise one write
      transaction of the same prebuilt statements
      (:func:`~sleuth_shell.db.executor.write_transaction`: with ``fast`` the direct writer, no
      session): the status ``UPDATE``, the bump when it changed
      (:func:`~sleuth_shell.db.agent_versions.bump_with`), a lookup of the agent when it did not
      (404), the stop of pending investigations for a pause, the commit.
    """
    pk = decode_id_or_404(alert_id, GLOBAL_TYPE, THING)
    params = {"pk": pk, "org_id": org_id}
    now = utcnow()
    if reader.remote:
        values = {**params, "owner": org_id, "new_status": status, "now": now}
        if await _ONE_STATEMENT[status].first(reader, values) is None:
            raise not_found(THING)
        return
    if status == "ACTIVE":
        row = await _STATUS.first(reader, params)
        if row is None:
            raise not_found(THING)
        if row["status"] == status:
            return
    async with write_transaction(session_factory, fast=fast) as executor:
        changed = await executor.execute(
            _CHANGE_STATUS, {"pk": pk, "owner": org_id, "new_status": status, "now": now}
        )
        if changed:
            await bump_with(executor, org_id, [pk])
        elif not await executor.execute(_EXISTS, params):
            raise not_found(THING)
        if status == "PAUSED":
            await stop_pending_investigations(executor, pk)
        await executor.commit()


async def delete_alert_responder(session: AsyncSession, org_id: int, alert_id: str) -> None:
    """Delete an alert agent, stopping its pending investigations; an ID that names nothing
    (already deleted, unknown, malformed) is already deleted."""
    try:
        agent = await load_alert_responder(session, org_id, alert_id)
    except ApiError:
        return
    # The agent row locked before its investigations (PostgreSQL; SQLite has one writer), in the
    # order a status change takes them: the other order deadlocks with a concurrent pause. A
    # delete that won the row meanwhile left nothing to do.
    if await session.scalar(_LOCK, {"pk": agent.id}) is None:
        return
    await stop_pending_investigations(session, agent.id)
    await session.delete(agent)
    await session.commit()


async def update_alert_responder(
    session: AsyncSession,
    org_id: int,
    org_name: str,
    public_url: str,
    alert_id: str,
    data: AlertResponderUpdate,
) -> AlertResponder:
    """Change the given fields of the agent ``alert_id`` (committed); 404 / 400 / 409
    :class:`ApiError` with the API's detail."""
    agent = await load_alert_responder(session, org_id, alert_id)
    await _check_read_only(session, agent, data, org_name, public_url)
    is_chat = agent.chat_channel_id is not None
    # [] is what GET returns for a chat agent: sending it back changes nothing.
    if is_chat and _given(data.webhook_sources) and data.webhook_sources:
        raise bad_request("webhook_sources cannot be set on a chat alert agent")
    if not is_chat and _given(data.chat_channel_id):
        raise bad_request("chat_channel_id cannot be set on a webhook alert agent")

    if data.name is not UNSET:
        assert isinstance(data.name, str)
        name = normalize_name(check_text(data.name, "name"))
        if name != agent.name:
            clash = await _find(session, org_id, agent.team_id, name)
            if clash is not None:
                raise conflict(f"An alert responder named {name} already exists in this team")
            agent.name = name
    for bound, value in _bounds(data).items():
        setattr(agent, bound, value)
    if data.runbook is not UNSET:
        # null or {} clears the custom runbook; otherwise it becomes exactly what was sent.
        agent.runbook_prompt, agent.runbook_impact_prompt, agent.runbook_active = _runbook(
            data.runbook
        )
    if data.matching_criteria is not UNSET:
        assert isinstance(data.matching_criteria, MatchingCriteria)
        criteria = _criteria(data.matching_criteria, chat=is_chat)
        agent.text_matches = criteria["text_matches"]
        agent.match_rules = criteria["match_rules"]
        agent.chat_bot_app_user_id = criteria.get("chat_bot_app_user_id")
    if _given(data.webhook_sources) and not is_chat:
        assert isinstance(data.webhook_sources, list)
        agent.webhook_sources = await _webhook_sources(session, org_id, data.webhook_sources)
    if _given(data.chat_channel_id):
        assert isinstance(data.chat_channel_id, str)
        agent.chat_channel_id = check_channel_id(data.chat_channel_id)
    if data.notification_integration_ids is None:
        agent.notification_integration_ids = None
    elif data.notification_integration_ids is not UNSET:
        assert isinstance(data.notification_integration_ids, list)
        agent.notification_integration_ids = (
            await resolve_integration_ids(session, org_id, data.notification_integration_ids)
            or None  # an empty list configures none: stored (and shown) as absent
        )
    name = agent.name  # read before a rollback expires the row
    try:
        await session.commit()
    except IntegrityError:
        # A concurrent rename (or create) took the name between the check and the commit.
        await session.rollback()
        raise conflict(f"An alert responder named {name} already exists in this team") from None
    return agent


# --- routes --------------------------------------------------------------------------------------


class AlertResponderController(Controller):
    """Alert agents."""

    path = "/alert-responders"
    tags = ("alert agents",)

    @post("/", operation_id="createAlertResponder", responses=error_responses(413), status_code=200)
    async def create(
        self,
        principal: CurrentPrincipal,
        db_session: DbSession,
        settings: AppSettings,
        data: StrictBody[AlertResponderCreate],
    ) -> AlertResponderRef:
        """Create an alert agent, or return the existing one of that name in that team."""
        agent = await create_alert_responder(db_session, principal.org_id, data)
        return _ref(agent, settings.public_url)

    @get("/", operation_id="listAlertResponders", responses=error_responses())
    async def list_all(
        self,
        principal: CurrentPrincipal,
        db_session: DbSession,
        settings: AppSettings,
        team_name: FromQuery[str | None] = None,
    ) -> AlertResponderList:
        """List the organization's alert agents, optionally of one team."""
        query = (
            select(AlertResponder, Team.name)
            .join(Team, Team.id == AlertResponder.team_id)
            .where(AlertResponder.org_id == principal.org_id)
        )
        if team_name is not None:
            team_id = await find_team_id(db_session, principal.org_id, team_name)
            if team_id is None:  # no such team: it has no agents
                return AlertResponderList(alert_responders=[])
            query = query.where(AlertResponder.team_id == team_id)
        rows = (await db_session.execute(query.order_by(AlertResponder.id))).all()
        items = []
        for agent, name_of_team in rows:
            gid = encode_global_id(GLOBAL_TYPE, agent.id)
            items.append(
                AlertResponderListItem(
                    id=gid,
                    name=agent.name,
                    team_name=name_of_team,
                    status=agent.status,
                    url=alert_responder_url(settings.public_url, gid),
                )
            )
        return AlertResponderList(alert_responders=items)

    @get("/{alert_id:str}", operation_id="getAlertResponder", responses=error_responses(404))
    async def get_one(
        self,
        request: Request[Any, Any, Any],
        alert_id: FromPath[str],
    ) -> AlertResponderRecord:
        """The full alert agent.

        The hottest read of the API, so no dependencies (Litestar's dependency resolution cost
        more than the read): the principal and settings straight from the request, the row
        through :class:`~sleuth_shell.db.hot_reads.HotRead`.
        """
        principal = provide_principal(request)
        settings: Settings = request.app.state["settings"]
        pk = decode_id_or_404(alert_id, GLOBAL_TYPE, THING)
        row = await _GET_ONE.first(
            hot_reader_of(request.app), {"pk": pk, "org_id": principal.org_id}
        )
        if row is None:
            raise not_found(THING)
        # The row has every column of the agent: read it like one (no ORM instance to build).
        agent = cast(AlertResponder, SimpleNamespace(**row))
        # ``alert_id`` decoded, so it is the agent's canonical Global ID (decode_global_id
        # refuses any other spelling): no need to encode it again.
        return _record(
            agent, row["team_name"], principal.org_name, settings.public_url, global_id=alert_id
        )

    @put(
        "/{alert_id:str}",
        operation_id="updateAlertResponder",
        responses=error_responses(404, 409, 413),
    )
    async def update_one(
        self,
        request: Request[Any, Any, Any],
        alert_id: FromPath[str],
        db_session: DbSession,
        data: StrictBody[AlertResponderUpdate],
    ) -> AlertResponderRef:
        """Change the given fields of an alert agent (the principal and settings from the
        request, as in :meth:`enable`)."""
        principal = provide_principal(request)
        settings: Settings = request.app.state["settings"]
        agent = await update_alert_responder(
            db_session, principal.org_id, principal.org_name, settings.public_url, alert_id, data
        )
        return _ref(agent, settings.public_url)

    @delete(
        "/{alert_id:str}",
        operation_id="deleteAlertResponder",
        responses=error_responses(),
        status_code=200,
    )
    async def delete_one(
        self, request: Request[Any, Any, Any], alert_id: FromPath[str], db_session: DbSession
    ) -> Success:
        """Delete an alert agent; succeeds for any ID (already deleted, unknown, malformed).
        The principal from the request, as in :meth:`enable`."""
        await delete_alert_responder(db_session, provide_principal(request).org_id, alert_id)
        return Success(success=True)

    @post(
        "/{alert_id:str}/enable",
        operation_id="enableAlertResponder",
        responses=error_responses(404),
        status_code=200,
    )
    async def enable(
        self, request: Request[Any, Any, Any], alert_id: FromPath[str]
    ) -> AlertResponderStatus:
        """Set the agent ACTIVE: it processes alerts again.

        The principal straight from the request, as in :meth:`get_one`, and no ``db_session``
        dependency: :func:`set_alert_responder_status` opens a session only for a change.
        """
        await _set_status(request, alert_id, "ACTIVE")
        return AlertResponderStatus(id=alert_id, status="ACTIVE")

    @post(
        "/{alert_id:str}/disable",
        operation_id="disableAlertResponder",
        responses=error_responses(404),
        status_code=200,
    )
    async def disable(
        self, request: Request[Any, Any, Any], alert_id: FromPath[str]
    ) -> AlertResponderStatus:
        """Set the agent PAUSED: it ignores alerts until enabled (as :meth:`enable`)."""
        await _set_status(request, alert_id, "PAUSED")
        return AlertResponderStatus(id=alert_id, status="PAUSED")


async def _set_status(
    request: Request[Any, Any, Any], alert_id: str, status: Literal["ACTIVE", "PAUSED"]
) -> None:
    app = request.app
    await set_alert_responder_status(
        hot_reader_of(app),
        app.state["session_factory"],
        provide_principal(request).org_id,
        alert_id,
        status,
        fast=app.state["settings"].fast_path,
    )


ROUTES = [AlertResponderController]
