"""The ``sleuth`` command line: operator commands printing JSON, and ``serve``.

Every ``admin`` command prints one JSON object on stdout and exits 0; on error it prints a message
on stderr and exits 1 (2 for usage errors). All of them read ``SLEUTH_DATABASE_URL`` and bring the
schema up to date first.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn, TypeVar

import click
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_core.ids import encode_global_id
from sleuth_shell import __version__, admin
from sleuth_shell.agents.base import Agent
from sleuth_shell.config import PLANS, ConfigError, Settings
from sleuth_shell.db import create_engine, create_session_factory, migrate
from sleuth_shell.domain import INTEGRATION_KINDS, SUBSCRIPTION_TYPES
from sleuth_shell.urls import ingest_url

T = TypeVar("T")


def _fail(message: str) -> NoReturn:
    click.echo(f"Error: {message}", err=True)
    sys.exit(1)


def load_settings() -> Settings:
    """Settings from the environment; exits with a clear message for a bad value."""
    try:
        return Settings.from_env()
    except ConfigError as exc:
        _fail(str(exc))


def prepare_database(settings: Settings) -> None:
    """Create or upgrade the schema at ``settings.database_url``; exit with a message on failure."""
    try:
        migrate(settings.database_url)
    except Exception as exc:
        _fail(f"cannot prepare the database at {settings.database_url}: {exc}")


def _run(settings: Settings, action: Callable[[AsyncSession], Awaitable[T]]) -> T:
    async def go() -> T:
        engine = create_engine(settings.database_url)
        try:
            async with create_session_factory(engine)() as session:
                return await action(session)
        finally:
            await engine.dispose()

    try:
        return asyncio.run(go())
    except admin.AdminError as exc:
        _fail(str(exc))


def _print(obj: dict[str, Any]) -> None:
    click.echo(json.dumps(obj))


def _admin_settings() -> Settings:
    settings = load_settings()
    prepare_database(settings)
    return settings


@click.group()
@click.version_option(__version__, prog_name="sleuth")
def main() -> None:
    """Sleuth: an AI investigation assistant for on-call teams."""


@main.group("admin")
def admin_group() -> None:
    """Operator commands. Each prints one JSON object."""


@admin_group.command("create-org")
@click.argument("name")
@click.option("--plan", type=click.Choice(PLANS), default="free", show_default=True)
def create_org(name: str, plan: str) -> None:
    """Create organization NAME (with its Default team)."""
    settings = _admin_settings()
    org = _run(settings, lambda s: admin.create_org(s, name, plan))
    _print({"id": org.id, "name": org.name, "plan": org.plan, "signing_secret": org.signing_secret})


@admin_group.command("create-team")
@click.argument("org")
@click.argument("team")
def create_team(org: str, team: str) -> None:
    """Create team TEAM in organization ORG."""
    settings = _admin_settings()
    row = _run(settings, lambda s: admin.create_team(s, org, team))
    _print({"id": row.id, "global_id": encode_global_id("Team", row.id), "name": row.name})


@admin_group.command("create-key")
@click.argument("org")
@click.option("--admin", "is_admin", is_flag=True, help="The key may edit the advanced settings.")
@click.option("--team", default=None, help="Attribute interaction credits to this team.")
def create_key(org: str, is_admin: bool, team: str | None) -> None:
    """Create an API key for ORG. The key is printed once and stored only as a hash."""
    settings = _admin_settings()
    row, key = _run(settings, lambda s: admin.create_key(s, org, admin=is_admin, team_name=team))
    _print({"key": key, "org": org, "admin": row.admin, "team": team})


def _subscription_json(settings: Settings, row: Any) -> dict[str, Any]:
    """A subscription as the webhook commands print it (never the provider secret)."""
    return {
        "type": row.type,
        "remote_id": row.remote_id,
        "name": row.name,
        "secret": row.secret,
        "ingest_url": ingest_url(settings.public_url, row.type, row.remote_id),
    }


@admin_group.command("add-webhook")
@click.argument("org")
@click.option("--type", "subscription_type", type=click.Choice(SUBSCRIPTION_TYPES), required=True)
@click.option("--name", required=True)
@click.option(
    "--provider-secret",
    default=None,
    help="The signing secret the provider issued (checked against its native signature).",
)
def add_webhook(org: str, subscription_type: str, name: str, provider_secret: str | None) -> None:
    """Add a webhook subscription (a provider source, or CHAT for the chat workspace).

    The provider secret is stored but never printed.
    """
    settings = _admin_settings()
    row = _run(
        settings,
        lambda s: admin.add_webhook(
            s, org, subscription_type, name, provider_secret=provider_secret
        ),
    )
    _print(_subscription_json(settings, row))


@admin_group.command("set-webhook-secret")
@click.argument("org")
@click.argument("remote_id")
@click.option(
    "--provider-secret",
    required=True,
    help="The signing secret the provider issued (replaces any earlier one).",
)
def set_webhook_secret(org: str, remote_id: str, provider_secret: str) -> None:
    """Set the provider signing secret of ORG's webhook subscription REMOTE_ID.

    Prints the subscription as add-webhook does; the provider secret is stored but never printed.
    """
    settings = _admin_settings()
    row = _run(settings, lambda s: admin.set_webhook_secret(s, org, remote_id, provider_secret))
    _print(_subscription_json(settings, row))


@admin_group.command("add-integration")
@click.argument("org")
@click.option("--kind", type=click.Choice(INTEGRATION_KINDS), required=True)
@click.option("--name", required=True)
@click.option("--url", default=None, help="Incoming-webhook URL (ALT_WEBHOOK).")
@click.option("--channel", default=None, help="Chat channel ID, C... or G... (CHAT_ALERT).")
def add_integration(org: str, kind: str, name: str, url: str | None, channel: str | None) -> None:
    """Add a notification integration: an alt webhook URL or a chat channel."""
    settings = _admin_settings()
    row = _run(
        settings, lambda s: admin.add_integration(s, org, kind, name, url=url, channel=channel)
    )
    _print(
        {
            "id": encode_global_id("NotificationIntegration", row.id),
            "name": row.name,
            "kind": row.kind,
            "created_at": row.created_at.isoformat(),
        }
    )


@admin_group.command("load-demo")
@click.argument("org")
def load_demo(org: str) -> None:
    """Load the sample runbooks and a day of logs (with an incident) into organization ORG."""
    from sleuth_shell.demo import load_demo as load

    async def go(session: AsyncSession) -> dict[str, int]:
        return await load(session, (await admin.get_org(session, org)).id)

    _print(_run(_admin_settings(), go))


def load_checked_agent(settings: Settings) -> Agent:
    """The configured agent, loaded and validated with its cost model; exits with one clear line
    on stderr when it cannot be (unknown name, bad ``SLEUTH_AGENT_COSTS``, missing LLM settings)."""
    from sleuth_shell.services import load_configured_agent

    try:
        return load_configured_agent(settings)
    except ConfigError as exc:
        _fail(str(exc))


def startup_line(command: str, settings: Settings, agent: Agent) -> str:
    """The one line ``sleuth serve``/``worker`` log at start: database kind, agent, public URL,
    inline workers."""
    from sleuth_shell.db.dialect import dialect_name

    inline = "on" if settings.workers_inline else "off"
    if command == "worker":
        inline = "n/a (this process is the worker)"
    return (
        f"sleuth {command}: database {dialect_name(settings.database_url)}, "
        f"agent {settings.agent} ({type(agent).__name__}), public URL {settings.public_url}, "
        f"inline workers {inline}"
    )


@main.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, type=click.IntRange(0, 65535), show_default=True)
def serve(host: str, port: int) -> None:
    """Run the HTTP API (checking the configuration and migrating the database first)."""
    import uvicorn

    from sleuth_shell.app import create_app

    settings = load_settings()
    agent = load_checked_agent(settings)
    prepare_database(settings)
    app = create_app(settings, agent=agent)
    click.echo(startup_line("serve", settings, agent), err=True)
    uvicorn.run(app, host=host, port=port, log_level="info")


@main.command("worker")
@click.option(
    "--concurrency",
    default=32,
    type=click.IntRange(1, 256),
    show_default=True,
    help="Jobs run at the same time.",
)
def worker(concurrency: int) -> None:
    """Run only the job worker (scale-out; pair with SLEUTH_WORKERS_INLINE=false on serve).

    Works every due job (background and scheduled interactions, digest runs, notifications) from
    the database in SLEUTH_DATABASE_URL until SIGINT or SIGTERM, then stops gracefully. Checks the
    configuration (the agent and its cost model included) before anything else.
    """
    import logging

    from sleuth_shell.runtime import Runtime, run_worker
    from sleuth_shell.services import build_services

    settings = load_settings()
    agent = load_checked_agent(settings)
    prepare_database(settings)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    click.echo(startup_line("worker", settings, agent), err=True)

    async def go() -> None:
        engine = create_engine(settings.database_url)
        try:
            services = build_services(settings, create_session_factory(engine), agent=agent)
            runtime = Runtime(services, worker_options={"concurrency": concurrency})
            await run_worker(runtime)
        finally:
            await engine.dispose()

    asyncio.run(go())
