"""Operator actions behind ``sleuth admin``: organizations, teams, API keys, webhooks, integrations.

Each function takes an open session, does its work, commits, and returns the stored row. Bad input
raises :class:`AdminError` whose message is meant for the operator. Test factories use these too, so
the data tests run against is the data the CLI makes.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any, TypeVar
from urllib.parse import urlsplit

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.ids import decode_global_id
from sleuth_shell.db.models import (
    AlertResponder,
    ApiKey,
    Digest,
    NotificationIntegration,
    Organization,
    Team,
    TeamBudget,
    WebhookSubscription,
    utcnow,
)
from sleuth_shell.domain import (
    CHANGE_SOURCE_TYPES,
    DEFAULT_TEAM,
    INTEGRATION_KINDS,
    PLANS,
    SUBSCRIPTION_TYPES,
    is_channel_id,
)

__all__ = [
    "API_KEY_PREFIX",
    "AdminError",
    "add_integration",
    "add_webhook",
    "create_key",
    "create_org",
    "create_team",
    "generate_api_key",
    "get_org",
    "hash_api_key",
    "list_integrations",
    "list_keys",
    "list_orgs",
    "list_teams",
    "list_webhooks",
    "remove_integration",
    "remove_webhook",
    "revoke_key",
    "set_budget",
    "set_plan",
    "set_webhook_secret",
    "update_integration",
    "update_webhook",
]

#: Every API key starts with this, so leaked keys are easy to recognise (and to scan for).
API_KEY_PREFIX = "slk_"
_MAX_NAME = 200
_Row = TypeVar("_Row", Team, WebhookSubscription, NotificationIntegration)
#: Longest provider signing secret accepted (the column is ``String(512)``).
MAX_PROVIDER_SECRET = 512


class AdminError(Exception):
    """An operator command cannot be carried out; ``str()`` says why."""


def generate_api_key() -> str:
    """A new random API key (``slk_`` + 43 URL-safe characters, 256 bits)."""
    return API_KEY_PREFIX + secrets.token_urlsafe(32)


def hash_api_key(key: str) -> str:
    """The SHA-256 hex digest under which a key is stored and looked up."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _check_name(what: str, name: str) -> str:
    name = name.strip()
    if not name:
        raise AdminError(f"{what} name must not be empty")
    if len(name) > _MAX_NAME:
        raise AdminError(f"{what} name must be at most {_MAX_NAME} characters")
    return name


async def get_org(session: AsyncSession, name: str) -> Organization:
    """The organization called ``name``; :class:`AdminError` if there is none."""
    org = await session.scalar(select(Organization).where(Organization.name == name))
    if org is None:
        raise AdminError(f"Unknown organization: {name}")
    return org


async def _get_team(session: AsyncSession, org: Organization, name: str) -> Team:
    team = await session.scalar(select(Team).where(Team.org_id == org.id, Team.name == name))
    if team is None:
        raise AdminError(f"Unknown team: {name}")
    return team


async def create_org(session: AsyncSession, name: str, plan: str = "free") -> Organization:
    """Create an organization (with its ``Default`` team and a webhook signing secret)."""
    name = _check_name("Organization", name)
    if plan not in PLANS:
        raise AdminError(f"Unknown plan: {plan} (use one of {', '.join(PLANS)})")
    if await session.scalar(select(Organization.id).where(Organization.name == name)):
        raise AdminError(f"Organization already exists: {name}")
    org = Organization(name=name, plan=plan, signing_secret=secrets.token_hex(32))
    session.add(org)
    await session.flush()
    session.add(Team(org_id=org.id, name=DEFAULT_TEAM))
    await session.commit()
    return org


async def create_team(session: AsyncSession, org_name: str, team_name: str) -> Team:
    """Create team ``team_name`` in organization ``org_name``."""
    org = await get_org(session, org_name)
    team_name = _check_name("Team", team_name)
    exists = await session.scalar(
        select(Team.id).where(Team.org_id == org.id, Team.name == team_name)
    )
    if exists:
        raise AdminError(f"Team already exists: {team_name}")
    team = Team(org_id=org.id, name=team_name)
    session.add(team)
    await session.commit()
    return team


async def create_key(
    session: AsyncSession, org_name: str, *, admin: bool = False, team_name: str | None = None
) -> tuple[ApiKey, str]:
    """Create an API key; returns the stored row and the plain key (shown once, never stored)."""
    org = await get_org(session, org_name)
    team = await _get_team(session, org, team_name) if team_name is not None else None
    key = generate_api_key()
    row = ApiKey(
        org_id=org.id,
        key_hash=hash_api_key(key),
        prefix=key[: len(API_KEY_PREFIX) + 6],
        admin=admin,
        team_id=team.id if team else None,
    )
    session.add(row)
    await session.commit()
    return row, key


def _check_provider_secret(secret: str) -> str:
    if not secret or secret != secret.strip():
        raise AdminError("Provider secret must not be empty or start or end with whitespace")
    if len(secret) > MAX_PROVIDER_SECRET:
        raise AdminError(f"Provider secret must be at most {MAX_PROVIDER_SECRET} characters")
    if not secret.isprintable():
        raise AdminError("Provider secret must not contain control characters")
    return secret


def _check_service(subscription_type: str, service: str | None) -> str | None:
    if service is None:
        return None
    if subscription_type not in CHANGE_SOURCE_TYPES:
        raise AdminError(
            f"--service is for change sources ({', '.join(CHANGE_SOURCE_TYPES)}); an alert's "
            "service comes from the alert itself"
        )
    service = service.strip()
    if not service or len(service) > 200 or not service.isprintable():
        raise AdminError("Service must be 1-200 printable characters")
    return service


async def add_webhook(
    session: AsyncSession,
    org_name: str,
    subscription_type: str,
    name: str,
    *,
    provider_secret: str | None = None,
    service: str | None = None,
) -> WebhookSubscription:
    """Create a webhook subscription with a fresh ``remote_id`` and secret.

    ``provider_secret`` is the signing secret the provider issued for its native signature;
    ``service`` (``GITHUB`` and ``GITLAB`` only) the service their changes are recorded on.
    """
    org = await get_org(session, org_name)
    if subscription_type not in SUBSCRIPTION_TYPES:
        raise AdminError(
            f"Unknown webhook type: {subscription_type} "
            f"(use one of {', '.join(SUBSCRIPTION_TYPES)})"
        )
    service = _check_service(subscription_type, service)
    row = WebhookSubscription(
        org_id=org.id,
        type=subscription_type,
        remote_id="wh_" + secrets.token_hex(10),
        name=_check_name("Webhook", name),
        secret=secrets.token_urlsafe(32),
        provider_secret=(
            _check_provider_secret(provider_secret) if provider_secret is not None else None
        ),
        service=service,
    )
    session.add(row)
    await session.commit()
    return row


async def _webhook(session: AsyncSession, org: Organization, remote_id: str) -> WebhookSubscription:
    row = await session.scalar(
        select(WebhookSubscription).where(
            WebhookSubscription.org_id == org.id, WebhookSubscription.remote_id == remote_id
        )
    )
    if row is None:
        raise AdminError(f"Unknown webhook subscription: {remote_id}")
    return row


async def set_webhook_secret(
    session: AsyncSession, org_name: str, remote_id: str, provider_secret: str
) -> WebhookSubscription:
    """Set (or replace) the provider signing secret of ``org_name``'s subscription ``remote_id``."""
    org = await get_org(session, org_name)
    secret = _check_provider_secret(provider_secret)
    row = await _webhook(session, org, remote_id)
    row.provider_secret = secret
    await session.commit()
    return row


async def update_webhook(
    session: AsyncSession,
    org_name: str,
    remote_id: str,
    *,
    name: str,
    service: str | None,
    provider_secret: str | None = None,
) -> WebhookSubscription:
    """Rename ``org_name``'s subscription ``remote_id`` and set its ``service`` (``None``: none),
    with the checks of :func:`add_webhook`; ``provider_secret`` replaces the provider's signing
    secret when given. The type, ingest URL and Sleuth's own secret never change (the provider
    keeps sending to the same URL)."""
    org = await get_org(session, org_name)
    row = await _webhook(session, org, remote_id)
    checked_name = _check_name("Webhook", name)
    checked_service = _check_service(row.type, service)
    secret = _check_provider_secret(provider_secret) if provider_secret is not None else None
    row.name = checked_name
    row.service = checked_service
    if secret is not None:
        row.provider_secret = secret
    await session.commit()
    return row


def _check_target(kind: str, url: str | None, channel: str | None) -> None:
    if kind == "ALT_WEBHOOK":
        parts = urlsplit(url or "")
        if parts.scheme not in {"http", "https"} or not parts.netloc:
            raise AdminError("ALT_WEBHOOK needs --url with an absolute http(s) URL")
        if channel is not None:
            raise AdminError("ALT_WEBHOOK takes --url, not --channel")
    else:
        if not is_channel_id(channel):
            raise AdminError("CHAT_ALERT needs --channel with a channel ID starting with C or G")
        if url is not None:
            raise AdminError("CHAT_ALERT takes --channel, not --url")


async def add_integration(
    session: AsyncSession,
    org_name: str,
    kind: str,
    name: str,
    *,
    url: str | None = None,
    channel: str | None = None,
) -> NotificationIntegration:
    """Create a notification integration (``ALT_WEBHOOK``: ``url``; ``CHAT_ALERT``: ``channel``)."""
    org = await get_org(session, org_name)
    if kind not in INTEGRATION_KINDS:
        raise AdminError(
            f"Unknown integration kind: {kind} (use one of {', '.join(INTEGRATION_KINDS)})"
        )
    _check_target(kind, url, channel)
    row = NotificationIntegration(
        org_id=org.id,
        name=_check_name("Integration", name),
        kind=kind,
        url=url if kind == "ALT_WEBHOOK" else None,
        channel_id=channel if kind == "CHAT_ALERT" else None,
    )
    session.add(row)
    await session.commit()
    return row


async def _integration(
    session: AsyncSession, org: Organization, integration_id: str
) -> NotificationIntegration:
    pk = decode_global_id(integration_id, "NotificationIntegration")
    if pk is None:
        pk = _parse_id("notification integration", integration_id)
    row = await session.scalar(
        select(NotificationIntegration).where(
            NotificationIntegration.id == pk, NotificationIntegration.org_id == org.id
        )
    )
    if row is None:
        raise AdminError(f"Unknown notification integration: {integration_id}")
    return row


async def update_integration(
    session: AsyncSession,
    org_name: str,
    integration_id: str,
    *,
    name: str,
    url: str | None = None,
    channel: str | None = None,
) -> NotificationIntegration:
    """Rename the organization's integration ``integration_id`` (Global ID or number) and replace
    its target, with the checks of :func:`add_integration`; its kind stays (the agents and digests
    that notify it keep doing so)."""
    org = await get_org(session, org_name)
    row = await _integration(session, org, integration_id)
    checked_name = _check_name("Integration", name)
    _check_target(row.kind, url, channel)
    row.name = checked_name
    row.url = url if row.kind == "ALT_WEBHOOK" else None
    row.channel_id = channel if row.kind == "CHAT_ALERT" else None
    await session.commit()
    return row


async def list_orgs(session: AsyncSession) -> list[Organization]:
    """Every organization, oldest first."""
    return list(await session.scalars(select(Organization).order_by(Organization.id)))


async def set_plan(session: AsyncSession, org_name: str, plan: str) -> Organization:
    """Put organization ``org_name`` on ``plan`` (its rate limit follows at once)."""
    if plan not in PLANS:
        raise AdminError(f"Unknown plan: {plan} (use one of {', '.join(PLANS)})")
    org = await get_org(session, org_name)
    org.plan = plan
    await session.commit()
    return org


#: Largest monthly budget accepted, in credits.
MAX_BUDGET = 1e12


async def set_budget(
    session: AsyncSession, org_name: str, team_name: str, credits: float | None
) -> Team:
    """Set team ``team_name``'s monthly budget for automated runs to ``credits`` (0 allows none;
    ``None`` removes the budget); the team."""
    org = await get_org(session, org_name)
    team = await _get_team(session, org, team_name)
    if credits is None:
        await session.execute(TeamBudget.__table__.delete().where(TeamBudget.team_id == team.id))
    else:
        if not 0 <= credits <= MAX_BUDGET or credits != credits:
            raise AdminError(f"Invalid budget: {credits} (a number of credits from 0 to 1e12)")
        budget = await session.get(TeamBudget, team.id)
        if budget is None:
            session.add(TeamBudget(team_id=team.id, org_id=org.id, credits=float(credits)))
        else:
            budget.credits = float(credits)
    await session.commit()
    return team


async def _rows_of(session: AsyncSession, org_name: str, model: type[_Row]) -> list[_Row]:
    """The organization's rows of ``model``, oldest first (by id)."""
    org = await get_org(session, org_name)
    table: Any = model
    return list(
        await session.scalars(select(model).where(table.org_id == org.id).order_by(table.id))
    )


async def list_teams(session: AsyncSession, org_name: str) -> list[Team]:
    """The organization's teams, oldest first."""
    return await _rows_of(session, org_name, Team)


async def list_keys(session: AsyncSession, org_name: str) -> list[tuple[ApiKey, str | None]]:
    """The organization's API keys (revoked ones too), oldest first, each with its team's name."""
    org = await get_org(session, org_name)
    rows = await session.execute(
        select(ApiKey, Team.name)
        .outerjoin(Team, Team.id == ApiKey.team_id)
        .where(ApiKey.org_id == org.id)
        .order_by(ApiKey.id)
    )
    return [(key, team) for key, team in rows.all()]


def _parse_id(what: str, value: str) -> int:
    text = value.strip()
    if not (text.isascii() and text.isdigit()) or not 0 < int(text) < 2**31:
        raise AdminError(f"Unknown {what}: {value}")
    return int(text)


async def revoke_key(
    session: AsyncSession, org_name: str, key_id: str
) -> tuple[ApiKey, str | None]:
    """Revoke the organization's API key ``key_id`` (its ``id`` in :func:`list_keys`).

    Sets ``revoked_at``; authentication reads the database on every request, so the key stops
    working at once on every node. Revoking a revoked key changes nothing. The row is kept, so
    the interactions made with the key stay attributed to it.
    """
    org = await get_org(session, org_name)
    pk = _parse_id("API key", key_id)
    row = (
        await session.execute(
            select(ApiKey, Team.name)
            .outerjoin(Team, Team.id == ApiKey.team_id)
            .where(ApiKey.id == pk, ApiKey.org_id == org.id)
        )
    ).first()
    if row is None:
        raise AdminError(f"Unknown API key: {key_id}")
    key, team = row
    if key.revoked_at is None:
        key.revoked_at = utcnow()
        await session.commit()
    return key, team


async def list_webhooks(session: AsyncSession, org_name: str) -> list[WebhookSubscription]:
    """The organization's webhook subscriptions, oldest first."""
    return await _rows_of(session, org_name, WebhookSubscription)


async def remove_webhook(
    session: AsyncSession, org_name: str, remote_id: str
) -> WebhookSubscription:
    """Delete the organization's webhook subscription ``remote_id``; returns it as it was.

    Refused while an alert agent lists it in its ``webhook_sources`` (the agent would be left
    listening to nothing): change or delete those agents first.
    """
    org = await get_org(session, org_name)
    row = await _webhook(session, org, remote_id)
    agents = await session.scalars(
        select(AlertResponder).where(AlertResponder.org_id == org.id).order_by(AlertResponder.id)
    )
    users = [
        agent.name
        for agent in agents
        if any(
            isinstance(source, dict) and source.get("remote_id") == remote_id
            for source in agent.webhook_sources or []
        )
    ]
    if users:
        raise AdminError(
            f"Webhook subscription {remote_id} is a source of alert agents: {', '.join(users)} "
            "(remove it from their webhook_sources first)"
        )
    await session.execute(delete(WebhookSubscription).where(WebhookSubscription.id == row.id))
    await session.commit()
    return row


async def list_integrations(session: AsyncSession, org_name: str) -> list[NotificationIntegration]:
    """The organization's notification integrations, oldest first."""
    return await _rows_of(session, org_name, NotificationIntegration)


async def remove_integration(
    session: AsyncSession, org_name: str, integration_id: str
) -> NotificationIntegration:
    """Delete the organization's notification integration ``integration_id`` (its Global ID, as
    the API and ``list-integrations`` print it, or its number); returns it as it was.

    Alert agents and digests that notified it stop doing so: it is taken out of their
    ``notification_integration_ids`` (left absent when it was the only one).
    """
    org = await get_org(session, org_name)
    row = await _integration(session, org, integration_id)
    pk = row.id
    owners: list[AlertResponder | Digest] = [
        *await session.scalars(select(AlertResponder).where(AlertResponder.org_id == org.id)),
        *await session.scalars(select(Digest).where(Digest.org_id == org.id)),
    ]
    for owner in owners:
        ids = owner.notification_integration_ids
        if ids and any(int(i) == pk for i in ids):
            owner.notification_integration_ids = [i for i in ids if int(i) != pk] or None
    await session.execute(delete(NotificationIntegration).where(NotificationIntegration.id == pk))
    await session.commit()
    return row
