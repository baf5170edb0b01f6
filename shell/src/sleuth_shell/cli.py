"""The ``sleuth`` command line: operator commands printing JSON, and ``serve``.

Every ``admin`` command prints one JSON object on stdout (lists as ``{"items": [...]}``, timestamps
as the API prints them) and exits 0; on error it prints a message on stderr and exits 1 (2 for
usage errors). All of them read ``SLEUTH_DATABASE_URL`` and bring the schema up to date first.
Only ``create-org`` creates a SQLite database; every other command (``serve`` and ``worker``
too) refuses a SQLite file that does not exist, so a command run in the wrong directory or with
the wrong URL never leaves an empty ``./sleuth.db`` behind. Long steps (migrations, ``load-demo``)
report progress on stderr when it is a terminal.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar
from urllib.parse import urlsplit

import click

from sleuth_core.ids import encode_global_id
from sleuth_shell import __version__
from sleuth_shell.domain import INTEGRATION_KINDS, PLANS, SUBSCRIPTION_TYPES

# The database, configuration and agent stacks are imported by the commands that use them (a
# command imports only what it needs): `sleuth --help`, a usage error and each command start
# without the rest (docs/decisions.md, "The CLI imports per command").
if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncSession

    from sleuth_shell.agents.base import Agent
    from sleuth_shell.config import Settings
    from sleuth_shell.gc_tuning import GcSettings

T = TypeVar("T")


def _fail(message: str) -> NoReturn:
    click.echo(f"Error: {message}", err=True)
    sys.exit(1)


def load_settings() -> Settings:
    """Settings from the environment; exits with a clear message for a bad value."""
    from sleuth_shell.config import ConfigError, Settings

    try:
        return Settings.from_env()
    except ConfigError as exc:
        _fail(str(exc))


def _interactive() -> bool:
    """Whether stderr is a terminal (progress is shown there only then)."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _progress(message: str) -> None:
    click.echo(f"sleuth: {message}", err=True)


@contextmanager
def _migration_progress() -> Iterator[None]:
    """In a terminal, show each migration Alembic applies ("Running upgrade 0005 -> 0006")."""
    if not _interactive():
        yield
        return
    logger = logging.getLogger("alembic.runtime.migration")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("sleuth: migrating the database: %(message)s"))
    previous = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)


def sqlite_file(database_url: str) -> Path | None:
    """The file a ``sqlite:///`` URL names (``None`` for PostgreSQL or an in-memory database)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(database_url)
    except ArgumentError:
        return None
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    if url.database.startswith("file:"):
        return None
    return Path(url.database)


def check_database_exists(settings: Settings) -> None:
    """Exit with a clear message when ``SLEUTH_DATABASE_URL`` names a SQLite file that does not
    exist (only ``sleuth admin create-org`` creates one)."""
    path = sqlite_file(settings.database_url)
    if path is None or path.exists():
        return
    hint = ""
    demo = Path(".demo", "sleuth.db")
    if demo.exists():
        hint = (
            f" The `make demo` database is {demo}: "
            f"export SLEUTH_DATABASE_URL=sqlite:///{demo.resolve()}"
        )
    _fail(
        f"no database at {path} (SLEUTH_DATABASE_URL={settings.database_url}). "
        "Set SLEUTH_DATABASE_URL to your database, or create one with "
        f"`sleuth admin create-org NAME`.{hint}"
    )


def prepare_database(settings: Settings, *, create: bool = False) -> None:
    """Upgrade the schema at ``settings.database_url`` (``create``: also make a missing SQLite
    file); exit with a message on failure."""
    from sleuth_shell.db import migrate

    if not create:
        check_database_exists(settings)
    try:
        with _migration_progress():
            migrate(settings.database_url)
    except Exception as exc:
        _fail(f"cannot prepare the database at {settings.database_url}: {exc}")


def _run(settings: Settings, action: Callable[[AsyncSession], Awaitable[T]]) -> T:
    import asyncio

    from sleuth_shell import admin
    from sleuth_shell.db import create_engine, create_session_factory
    from sleuth_shell.db.hot_reads import dispose_engine

    async def go() -> T:
        engine = create_engine(settings.database_url)
        try:
            async with create_session_factory(engine)() as session:
                return await action(session)
        finally:
            await dispose_engine(engine)

    try:
        return asyncio.run(go())
    except admin.AdminError as exc:
        _fail(str(exc))


def _print(obj: dict[str, Any]) -> None:
    """One JSON object on stdout, encoded as the API encodes (datetimes ``...Z``)."""
    import msgspec

    click.echo(msgspec.json.encode(obj).decode("utf-8"))


def _admin_settings(*, create: bool = False) -> Settings:
    settings = load_settings()
    prepare_database(settings, create=create)
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
    """Create organization NAME (with its Default team). The one command that creates a new
    SQLite database when SLEUTH_DATABASE_URL names a file that does not exist yet."""
    from sleuth_shell import admin

    settings = _admin_settings(create=True)
    org = _run(settings, lambda s: admin.create_org(s, name, plan))
    _print({"id": org.id, "name": org.name, "plan": org.plan, "signing_secret": org.signing_secret})


@admin_group.command("create-team")
@click.argument("org")
@click.argument("team")
def create_team(org: str, team: str) -> None:
    """Create team TEAM in organization ORG."""
    from sleuth_shell import admin

    settings = _admin_settings()
    row = _run(settings, lambda s: admin.create_team(s, org, team))
    _print({"id": row.id, "global_id": encode_global_id("Team", row.id), "name": row.name})


@admin_group.command("create-key")
@click.argument("org")
@click.option("--admin", "is_admin", is_flag=True, help="The key may edit the advanced settings.")
@click.option("--team", default=None, help="Attribute interaction credits to this team.")
def create_key(org: str, is_admin: bool, team: str | None) -> None:
    """Create an API key for ORG. The key is printed once and stored only as a hash."""
    from sleuth_shell import admin

    settings = _admin_settings()
    row, key = _run(settings, lambda s: admin.create_key(s, org, admin=is_admin, team_name=team))
    _print({"key": key, "org": org, "admin": row.admin, "team": team})


def _subscription_json(settings: Settings, row: Any) -> dict[str, Any]:
    """A subscription as the webhook commands print it (never the provider secret)."""
    from sleuth_shell.urls import ingest_url

    return {
        "type": row.type,
        "remote_id": row.remote_id,
        "name": row.name,
        "secret": row.secret,
        "ingest_url": ingest_url(settings.public_url, row.type, row.remote_id),
        **({"service": row.service} if row.service else {}),
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
@click.option(
    "--service",
    default=None,
    help="GITHUB/GITLAB: the service changes are recorded on (default: the repository's name).",
)
def add_webhook(
    org: str, subscription_type: str, name: str, provider_secret: str | None, service: str | None
) -> None:
    """Add a webhook subscription: an alert source (PROVIDER_A..D, ALERTMANAGER, GRAFANA,
    GENERIC), a change source (GITHUB, GITLAB), or CHAT for the chat workspace.

    The provider secret is stored but never printed. For GITHUB give the printed ``secret`` as
    the webhook's secret; for GITLAB as its secret token.
    """
    from sleuth_shell import admin

    settings = _admin_settings()
    row = _run(
        settings,
        lambda s: admin.add_webhook(
            s, org, subscription_type, name, provider_secret=provider_secret, service=service
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
    from sleuth_shell import admin

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
    from sleuth_shell import admin

    settings = _admin_settings()
    row = _run(
        settings, lambda s: admin.add_integration(s, org, kind, name, url=url, channel=channel)
    )
    _print(
        {
            "id": encode_global_id("NotificationIntegration", row.id),
            "name": row.name,
            "kind": row.kind,
            "created_at": row.created_at,
        }
    )


@admin_group.command("load-demo")
@click.argument("org")
def load_demo(org: str) -> None:
    """Load the sample runbooks and a day of logs (with an incident) into organization ORG."""
    from sleuth_shell import admin
    from sleuth_shell.demo import load_demo as load

    progress = _progress if _interactive() else None

    async def go(session: AsyncSession) -> dict[str, int]:
        return await load(session, (await admin.get_org(session, org)).id, progress=progress)

    _print(_run(_admin_settings(), go))


def _org_json(org: Any) -> dict[str, Any]:
    return {"id": org.id, "name": org.name, "plan": org.plan, "created_at": org.created_at}


def _key_json(row: Any, team: str | None) -> dict[str, Any]:
    """An API key as the key commands print it: never the key itself (only its prefix)."""
    return {
        "id": row.id,
        "prefix": row.prefix,
        "admin": row.admin,
        "team": team,
        "created_at": row.created_at,
        "last_used_at": row.last_used_at,
        "revoked_at": row.revoked_at,
    }


def _webhook_json(settings: Settings, row: Any) -> dict[str, Any]:
    """A subscription as the list prints it: also whether a provider secret is set (never the
    secret itself) and when it was made."""
    return {
        **_subscription_json(settings, row),
        "provider_secret_set": row.provider_secret is not None,
        "created_at": row.created_at,
    }


def _integration_json(row: Any) -> dict[str, Any]:
    """A notification integration as the API lists it, plus what it posts to: the channel, or
    only the host of an alt webhook URL (such URLs often carry a token)."""
    target = (
        {"url_host": urlsplit(row.url or "").hostname}
        if row.kind == "ALT_WEBHOOK"
        else {"channel": row.channel_id}
    )
    return {
        "id": encode_global_id("NotificationIntegration", row.id),
        "name": row.name,
        "kind": row.kind,
        "created_at": row.created_at,
        **target,
    }


@admin_group.command("list-orgs")
def list_orgs() -> None:
    """List every organization: {"items": [{id, name, plan, created_at}]}."""
    from sleuth_shell import admin

    rows = _run(_admin_settings(), admin.list_orgs)
    _print({"items": [_org_json(org) for org in rows]})


@admin_group.command("set-plan")
@click.argument("org")
@click.argument("plan")
def set_plan(org: str, plan: str) -> None:
    """Put organization ORG on PLAN (free, team or enterprise); prints the organization."""
    from sleuth_shell import admin

    row = _run(_admin_settings(), lambda s: admin.set_plan(s, org, plan))
    _print(_org_json(row))


@admin_group.command("set-budget")
@click.argument("org")
@click.argument("team")
@click.argument("credits", required=False)
@click.option("--clear", is_flag=True, help="Remove the team's budget.")
def set_budget(org: str, team: str, credits: str | None, clear: bool) -> None:
    """Set TEAM's monthly budget of CREDITS for automated runs (0 allows none; --clear removes
    it); prints {"org", "team", "budget"} (budget null when cleared)."""
    from sleuth_shell import admin

    amount: float | None = None
    if not clear:
        try:
            amount = float(credits) if credits is not None else None
        except ValueError:
            amount = None
        if amount is None:
            _fail(f"Invalid budget: {credits} (a number of credits, or --clear)")
    _run(_admin_settings(), lambda s: admin.set_budget(s, org, team, amount))
    _print({"org": org, "team": team, "budget": amount})


@admin_group.command("list-teams")
@click.argument("org")
def list_teams(org: str) -> None:
    """List ORG's teams: {"items": [{id, global_id, name, created_at}]}."""
    from sleuth_shell import admin

    rows = _run(_admin_settings(), lambda s: admin.list_teams(s, org))
    _print(
        {
            "items": [
                {
                    "id": team.id,
                    "global_id": encode_global_id("Team", team.id),
                    "name": team.name,
                    "created_at": team.created_at,
                }
                for team in rows
            ]
        }
    )


@admin_group.command("list-keys")
@click.argument("org")
def list_keys(org: str) -> None:
    """List ORG's API keys (revoked ones too): {"items": [{id, prefix, admin, team, created_at,
    last_used_at, revoked_at}]}. The keys themselves are stored only as hashes."""
    from sleuth_shell import admin

    rows = _run(_admin_settings(), lambda s: admin.list_keys(s, org))
    _print({"items": [_key_json(row, team) for row, team in rows]})


@admin_group.command("revoke-key")
@click.argument("org")
@click.argument("key_id")
def revoke_key(org: str, key_id: str) -> None:
    """Revoke ORG's API key KEY_ID (the id list-keys prints). It stops working at once, on every
    node; prints the key as list-keys does."""
    from sleuth_shell import admin

    row, team = _run(_admin_settings(), lambda s: admin.revoke_key(s, org, key_id))
    _print(_key_json(row, team))


@admin_group.command("list-webhooks")
@click.argument("org")
def list_webhooks(org: str) -> None:
    """List ORG's webhook subscriptions: {"items": [{type, remote_id, name, secret, ingest_url,
    provider_secret_set, created_at}]} (never the provider's secret)."""
    from sleuth_shell import admin

    settings = _admin_settings()
    rows = _run(settings, lambda s: admin.list_webhooks(s, org))
    _print({"items": [_webhook_json(settings, row) for row in rows]})


@admin_group.command("remove-webhook")
@click.argument("org")
@click.argument("remote_id")
def remove_webhook(org: str, remote_id: str) -> None:
    """Delete ORG's webhook subscription REMOTE_ID (refused while an alert agent uses it);
    prints it as it was."""
    from sleuth_shell import admin

    settings = _admin_settings()
    row = _run(settings, lambda s: admin.remove_webhook(s, org, remote_id))
    _print(_webhook_json(settings, row))


def _data_source_json(row: Any) -> dict[str, Any]:
    """A data source as the API shows it (never its header values)."""
    return {
        "id": encode_global_id("DataSource", row.id),
        "name": row.name,
        "kind": row.kind,
        "url": row.url,
        "service_label": row.service_label,
        "header_names": list(row.header_names or []),
        "created_at": row.created_at,
    }


@admin_group.command("add-data-source")
@click.argument("org")
@click.option("--name", required=True)
@click.option("--url", required=True, help="Base URL of a Prometheus-compatible HTTP API.")
@click.option(
    "--header",
    "headers",
    multiple=True,
    metavar="NAME=VALUE",
    help="A header sent with every request (repeatable); stored encrypted, never printed.",
)
@click.option("--service-label", default=None, help="The label naming a service (default service).")
def add_data_source(
    org: str, name: str, url: str, headers: tuple[str, ...], service_label: str | None
) -> None:
    """Add a data source (kind prometheus) that investigations query, as POST
    /api/v1/data-sources does (docs/data-sources.md)."""
    import asyncio

    from sleuth_shell import admin
    from sleuth_shell.datasources import store as datasource_store
    from sleuth_shell.db import create_engine, create_session_factory
    from sleuth_shell.db.hot_reads import dispose_engine

    settings = _admin_settings()
    given: dict[str, str] = {}
    for item in headers:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            # Never echoed: what was typed may hold the secret.
            _fail("--header must be NAME=VALUE (e.g. Authorization=Bearer ...)")
        given[key.strip()] = value
    body: dict[str, Any] = {"name": name, "kind": "prometheus", "url": url, "headers": given}
    if service_label is not None:
        body["service_label"] = service_label

    async def go() -> Any:
        engine = create_engine(settings.database_url)
        try:
            sessions = create_session_factory(engine)
            cipher = await datasource_store.load_cipher(sessions, settings.secret_key)
            async with sessions() as session:
                owner = await admin.get_org(session, org)
                data = datasource_store.parse_create(body)
                return await datasource_store.create(session, owner.id, data, cipher)
        finally:
            await dispose_engine(engine)

    try:
        row = asyncio.run(go())
    except (
        admin.AdminError,
        datasource_store.DataSourceError,
        datasource_store.DataSourceConflict,
    ) as exc:
        _fail(str(exc))
    _print(_data_source_json(row))


@admin_group.command("list-data-sources")
@click.argument("org")
def list_data_sources(org: str) -> None:
    """List ORG's data sources: {"items": [{id, name, kind, url, service_label, header_names,
    created_at}]}."""
    from sleuth_shell import admin
    from sleuth_shell.datasources import store as datasource_store

    async def rows(session: AsyncSession) -> Any:
        return await datasource_store.list_all(session, (await admin.get_org(session, org)).id)

    _print({"items": [_data_source_json(r) for r in _run(_admin_settings(), rows)]})


@admin_group.command("list-integrations")
@click.argument("org")
def list_integrations(org: str) -> None:
    """List ORG's notification integrations: {"items": [{id, name, kind, created_at, channel |
    url_host}]}."""
    from sleuth_shell import admin

    rows = _run(_admin_settings(), lambda s: admin.list_integrations(s, org))
    _print({"items": [_integration_json(row) for row in rows]})


@admin_group.command("remove-integration")
@click.argument("org")
@click.argument("integration_id")
def remove_integration(org: str, integration_id: str) -> None:
    """Delete ORG's notification integration INTEGRATION_ID (its Global ID); alert agents and
    digests stop notifying it. Prints it as it was."""
    from sleuth_shell import admin

    row = _run(_admin_settings(), lambda s: admin.remove_integration(s, org, integration_id))
    _print(_integration_json(row))


def load_checked_agent(settings: Settings) -> Agent:
    """The configured agent, loaded and validated with its cost model; exits with one clear line
    on stderr when it cannot be (unknown name, bad ``SLEUTH_AGENT_COSTS``, missing LLM settings)."""
    from sleuth_shell.config import ConfigError
    from sleuth_shell.services import load_configured_agent

    try:
        return load_configured_agent(settings)
    except ConfigError as exc:
        _fail(str(exc))


def startup_line(
    command: str, settings: Settings, agent: Agent, gc_settings: GcSettings | None = None
) -> str:
    """The one line ``sleuth serve``/``worker`` log at start: database kind, agent, public URL,
    inline workers, and the garbage collector's settings when the command tuned it."""
    from sleuth_shell.db.dialect import dialect_name

    if command == "worker":
        inline = "n/a (this process is the worker)"
    elif not settings.workers_inline:
        inline = "off"
    elif serve_worker_processes(settings):
        count = serve_worker_processes(settings)
        inline = f"on ({count} worker process{'es' if count > 1 else ''})"
    else:
        inline = "on (in this process)"
    return (
        f"sleuth {command}: database {dialect_name(settings.database_url)}, "
        f"agent {settings.agent} ({type(agent).__name__}), public URL {settings.public_url}, "
        f"inline workers {inline}" + (f", {gc_settings.describe()}" if gc_settings else "")
    )


def serve_worker_processes(settings: Settings) -> int:
    """How many ``sleuth worker`` children ``sleuth serve`` starts: ``SLEUTH_WORKER_PROCESSES``
    when it works the queue itself, none for an in-memory SQLite database (not shared)."""
    if not settings.workers_inline:
        return 0
    if ":memory:" in settings.database_url or "mode=memory" in settings.database_url:
        return 0
    return settings.worker_processes


@main.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, type=click.IntRange(0, 65535), show_default=True)
def serve(host: str, port: int) -> None:
    """Run the HTTP API (checking the configuration and migrating the database first)."""
    from sleuth_shell.gc_tuning import tune_for_serving

    settings = load_settings()
    agent = load_checked_agent(settings)
    # Imported once the configuration is known to be good: a refused one fails without them.
    import uvicorn

    from sleuth_shell.app import create_app
    from sleuth_shell.jobs.processes import WorkerProcesses

    prepare_database(settings)
    count = serve_worker_processes(settings)
    processes = (
        WorkerProcesses(count, [sys.executable, "-m", "sleuth_shell", "worker"]) if count else None
    )
    app = create_app(settings, agent=agent, worker_processes=processes)
    click.echo(startup_line("serve", settings, agent, tune_for_serving()), err=True)
    from uvicorn.config import LOGGING_CONFIG

    from sleuth_shell.access_log import serving_log_config

    uvicorn.run(
        app, host=host, port=port, log_level="info", log_config=serving_log_config(LOGGING_CONFIG)
    )


@main.command("worker")
@click.option(
    "--concurrency",
    default=32,
    type=click.IntRange(1, 256),
    show_default=True,
    help="Jobs run at the same time.",
)
@click.option("--wake-fd", type=int, default=None, hidden=True)
def worker(concurrency: int, wake_fd: int | None) -> None:
    """Run only the job worker (scale-out; pair with SLEUTH_WORKERS_INLINE=false on serve).

    Works every due job (background and scheduled interactions, digest runs, notifications) from
    the database in SLEUTH_DATABASE_URL until SIGINT or SIGTERM, then stops gracefully. Checks the
    configuration (the agent and its cost model included) before anything else.
    """
    import asyncio

    from sleuth_shell.db import create_engine, create_session_factory
    from sleuth_shell.db.hot_reads import dispose_engine
    from sleuth_shell.gc_tuning import tune_for_serving
    from sleuth_shell.runtime import Runtime, run_worker
    from sleuth_shell.services import build_services

    settings = load_settings()
    agent = load_checked_agent(settings)
    if wake_fd is None:  # a child of `sleuth serve` (--wake-fd) starts after it migrated
        prepare_database(settings)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    # One line per callback POST would flood the log (and cost CPU) under load; the job log says
    # what failed.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    line = startup_line("worker", settings, agent, tune_for_serving())
    if wake_fd is not None:
        line = line.replace("sleuth worker:", f"sleuth worker (of sleuth serve {os.getppid()}):", 1)
    click.echo(line, err=True)

    async def go() -> None:
        engine = create_engine(settings.database_url)
        try:
            services = build_services(settings, create_session_factory(engine), agent=agent)
            runtime = Runtime(services, worker_options={"concurrency": concurrency})
            await run_worker(runtime, wake_fd=wake_fd)
        finally:
            await dispose_engine(engine)

    asyncio.run(go())
