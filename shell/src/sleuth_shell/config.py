"""Service settings, read once from the environment (DESIGN.md section 2) and passed around.

Nothing reads the environment at import time: :meth:`Settings.from_env` is called by the CLI (and
by tests with an explicit mapping), and the resulting frozen object is handed to
:func:`sleuth_shell.app.create_app`.

>>> s = Settings.from_env({"SLEUTH_PUBLIC_URL": "https://sleuth.example.com/"})
>>> s.public_url, s.database_url, s.rate_limit_for("team")
('https://sleuth.example.com', 'sqlite:///./sleuth.db', 600)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from sleuth_shell.domain import PLANS

__all__ = ["MIN_SECRET_KEY_LENGTH", "PLANS", "ConfigError", "Settings"]

#: The shortest ``SLEUTH_SECRET_KEY`` accepted.
MIN_SECRET_KEY_LENGTH = 32
#: Most ``sleuth worker`` children one ``sleuth serve`` may start (``SLEUTH_WORKER_PROCESSES``).
MAX_WORKER_PROCESSES = 64

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


class ConfigError(ValueError):
    """An environment variable holds a value Sleuth cannot use. ``str()`` names the variable."""


class Settings(BaseModel):
    """Everything the service is configured with. Immutable; build it with :meth:`from_env`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    database_url: str = "sqlite:///./sleuth.db"
    """SQLAlchemy URL (``sqlite:///path`` or ``postgresql://...``); the shell picks the driver."""
    public_url: str = "http://127.0.0.1:8000"
    """Base of every ``url``/``link`` the service returns, without a trailing slash."""
    agent: str = "retrieval"
    """Name of the agent (an entry point in the ``sleuth.agents`` group) that answers."""
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = None
    llm_max_rounds: int = 6
    """``SLEUTH_LLM_MAX_ROUNDS``: rounds of tool calls the ``openai`` agent may make per
    operation before it must answer."""
    llm_max_tool_calls: int = 24
    """``SLEUTH_LLM_MAX_TOOL_CALLS``: tool calls the ``openai`` agent may make per operation."""
    agent_costs: str = ""
    """``SLEUTH_AGENT_COSTS``: the built-in agents' cost overrides, ``name=value,...`` (parsed and
    checked by :class:`sleuth_shell.agents.sources.CostModel` when the agent is loaded at start)."""
    allow_private_urls: bool = False
    """Allow callbacks and alt webhooks to loopback and private addresses (tests, development)."""
    workers_inline: bool = True
    """``SLEUTH_WORKERS_INLINE``: ``sleuth serve`` works the job queue itself (in
    ``worker_processes`` child processes, or in the serving process when that is 0); ``false``
    leaves the jobs to separate ``sleuth worker`` processes."""
    worker_processes: int = 1
    """``SLEUTH_WORKER_PROCESSES``: how many ``sleuth worker`` children ``sleuth serve`` starts
    (0: the worker runs inside the serving process, on the same core as the HTTP requests)."""
    rate_limits: dict[str, int] = Field(
        default_factory=lambda: {"free": 60, "team": 600, "enterprise": 6000}
    )
    """Requests per window for each plan."""
    rate_limit_window: int = 60
    """Length of the rate-limit window in seconds."""
    oauth_rate_limit: int = 300
    """``SLEUTH_OAUTH_RATE_LIMIT``: requests per window each client address may make to the OAuth
    endpoints (metadata, registration, consent, token, revocation), whatever key it presents."""
    chat_bot_token: str | None = Field(default=None, repr=False)
    """Bot token of the chat platform; when set, chat messages go to its Web API, not the outbox."""
    chat_api_url: str = "https://slack.com/api"
    """Base URL of the chat platform's Web API (``chat.postMessage`` is appended)."""
    redis_url: str | None = None
    """Redis holding the rate-limit counters shared by every node (``None``: per-process memory)."""
    alert_retention_days: int = 30
    """``SLEUTH_ALERT_RETENTION_DAYS``: stored alerts (the alert log) and webhook and chat
    delivery records older than this many days are pruned by the ``alerts.prune`` job."""
    fast_path: bool = True
    """``SLEUTH_FAST_PATH``: on SQLite, a synchronous run's own write transactions (its row, its
    completion with usage and notification jobs) run on the driver connection directly
    (:mod:`sleuth_shell.db.direct_writes`); ``false`` runs the same statements through a session.
    The stored rows are the same either way."""
    secret_key: str | None = Field(default=None, repr=False)
    """``SLEUTH_SECRET_KEY``: the key browser-session cookies are signed with (at least 32
    characters). ``None``: a random key generated once and kept in the database."""

    def rate_limit_for(self, plan: str) -> int:
        """Return the request limit per window for ``plan`` (unknown plans get ``free``'s)."""
        return self.rate_limits.get(plan, self.rate_limits["free"])

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Read the settings from ``environ`` (default: ``os.environ``).

        Raises :class:`ConfigError` naming the variable and the problem for any bad value.
        """
        env = os.environ if environ is None else environ

        def text(name: str, default: str | None) -> str | None:
            value = env.get(name)
            if value is None:
                return default
            value = value.strip()
            return value or default

        def flag(name: str, default: bool) -> bool:
            value = env.get(name)
            if value is None:
                return default
            lowered = value.strip().lower()
            if lowered in _TRUE:
                return True
            if lowered in _FALSE:
                return False
            raise ConfigError(f"{name} must be true or false, got {value!r}")

        def http_url(name: str, default: str) -> str:
            value = text(name, default) or default
            parts = urlsplit(value)
            if parts.scheme not in {"http", "https"} or not parts.netloc or parts.query:
                raise ConfigError(f"{name} must be an absolute http(s) URL, got {value!r}")
            return value

        def positive_int(name: str, default: int) -> int:
            value = env.get(name)
            if value is None or not value.strip():
                return default
            try:
                number = int(value.strip())
            except ValueError:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}") from None
            if number <= 0:
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")
            return number

        database_url = text("SLEUTH_DATABASE_URL", "sqlite:///./sleuth.db")
        processes_text = (env.get("SLEUTH_WORKER_PROCESSES") or "").strip()
        try:
            worker_processes = int(processes_text) if processes_text else 1
        except ValueError:
            worker_processes = -1
        if not 0 <= worker_processes <= MAX_WORKER_PROCESSES:
            raise ConfigError(
                f"SLEUTH_WORKER_PROCESSES must be an integer from 0 to {MAX_WORKER_PROCESSES},"
                f" got {env.get('SLEUTH_WORKER_PROCESSES')!r}"
            )
        assert database_url is not None
        scheme = database_url.split(":", 1)[0].lower()
        if not database_url.count(":") or scheme.split("+")[0] not in {"sqlite", "postgresql"}:
            raise ConfigError(
                "SLEUTH_DATABASE_URL must be a sqlite:/// or postgresql:// URL, "
                f"got {database_url!r}"
            )

        public_url = http_url("SLEUTH_PUBLIC_URL", "http://127.0.0.1:8000")

        agent = text("SLEUTH_AGENT", "retrieval")
        assert agent is not None
        llm = {
            "llm_base_url": text("SLEUTH_LLM_BASE_URL", None),
            "llm_model": text("SLEUTH_LLM_MODEL", None),
            "llm_api_key": text("SLEUTH_LLM_API_KEY", None),
        }
        llm_max_rounds = positive_int("SLEUTH_LLM_MAX_ROUNDS", 6)
        llm_max_tool_calls = positive_int("SLEUTH_LLM_MAX_TOOL_CALLS", 24)
        if llm_max_rounds > 50:
            raise ConfigError(f"SLEUTH_LLM_MAX_ROUNDS must be at most 50, got {llm_max_rounds}")
        if llm_max_tool_calls > 500:
            raise ConfigError(
                f"SLEUTH_LLM_MAX_TOOL_CALLS must be at most 500, got {llm_max_tool_calls}"
            )
        agent_costs = text("SLEUTH_AGENT_COSTS", "") or ""
        base = llm["llm_base_url"]
        if base is not None and urlsplit(base).scheme not in {"http", "https"}:
            raise ConfigError(f"SLEUTH_LLM_BASE_URL must be an http(s) URL, got {base!r}")

        chat_api_url = http_url("SLEUTH_CHAT_API_URL", "https://slack.com/api")

        defaults = cls.model_fields["rate_limits"].get_default(call_default_factory=True)
        rate_limits = {
            plan: positive_int(f"SLEUTH_RATE_LIMIT_{plan.upper()}", defaults[plan])
            for plan in PLANS
        }
        redis_url = text("SLEUTH_REDIS_URL", None)
        if redis_url is not None and urlsplit(redis_url).scheme not in {"redis", "rediss", "unix"}:
            raise ConfigError(
                f"SLEUTH_REDIS_URL must be a redis://, rediss:// or unix:// URL, got {redis_url!r}"
            )
        secret_key = text("SLEUTH_SECRET_KEY", None)
        if secret_key is not None and len(secret_key) < MIN_SECRET_KEY_LENGTH:
            raise ConfigError(
                f"SLEUTH_SECRET_KEY must be at least {MIN_SECRET_KEY_LENGTH} characters long "
                f"(got {len(secret_key)}); generate one with: "
                'python -c "import secrets; print(secrets.token_urlsafe(48))"'
            )
        return cls(
            database_url=database_url,
            public_url=public_url.rstrip("/"),
            agent=agent,
            agent_costs=agent_costs,
            allow_private_urls=flag("SLEUTH_ALLOW_PRIVATE_URLS", False),
            workers_inline=flag("SLEUTH_WORKERS_INLINE", True),
            worker_processes=worker_processes,
            rate_limits=rate_limits,
            rate_limit_window=positive_int("SLEUTH_RATE_LIMIT_WINDOW", 60),
            oauth_rate_limit=positive_int("SLEUTH_OAUTH_RATE_LIMIT", 300),
            chat_bot_token=text("SLEUTH_CHAT_BOT_TOKEN", None),
            chat_api_url=chat_api_url.rstrip("/"),
            redis_url=redis_url,
            llm_max_rounds=llm_max_rounds,
            llm_max_tool_calls=llm_max_tool_calls,
            secret_key=secret_key,
            fast_path=flag("SLEUTH_FAST_PATH", True),
            alert_retention_days=positive_int("SLEUTH_ALERT_RETENTION_DAYS", 30),
            **llm,
        )
