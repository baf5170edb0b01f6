"""Settings from the environment, and their validation."""

from __future__ import annotations

import pytest

from sleuth_shell.config import ConfigError, Settings
from sleuth_shell.db.dialect import async_url


def test_defaults() -> None:
    settings = Settings.from_env({})
    assert settings.database_url == "sqlite:///./sleuth.db"
    assert settings.public_url == "http://127.0.0.1:8000"
    assert settings.agent == "retrieval"
    assert settings.llm_base_url is settings.llm_model is settings.llm_api_key is None
    assert settings.allow_private_urls is False
    assert settings.workers_inline is True
    assert settings.worker_processes == 1
    assert settings.rate_limits == {"free": 60, "team": 600, "enterprise": 6000}
    assert settings.rate_limit_window == 60
    assert settings.rate_limit_for("nonexistent") == 60


def test_values_are_read() -> None:
    settings = Settings.from_env(
        {
            "SLEUTH_DATABASE_URL": "postgresql://u@h/db",
            "SLEUTH_PUBLIC_URL": "https://sleuth.example.com/",
            "SLEUTH_AGENT": "openai",
            "SLEUTH_LLM_BASE_URL": "https://llm.example.com/v1",
            "SLEUTH_LLM_MODEL": "m",
            "SLEUTH_LLM_API_KEY": "k",
            "SLEUTH_ALLOW_PRIVATE_URLS": "yes",
            "SLEUTH_WORKERS_INLINE": "false",
            "SLEUTH_WORKER_PROCESSES": "3",
            "SLEUTH_RATE_LIMIT_TEAM": "1000",
            "SLEUTH_RATE_LIMIT_WINDOW": "30",
            "SLEUTH_LLM_MAX_ROUNDS": "3",
            "SLEUTH_LLM_MAX_TOOL_CALLS": "10",
        }
    )
    assert (settings.llm_max_rounds, settings.llm_max_tool_calls) == (3, 10)
    assert settings.public_url == "https://sleuth.example.com"
    assert (settings.agent, settings.llm_model, settings.llm_api_key) == ("openai", "m", "k")
    assert settings.allow_private_urls is True and settings.workers_inline is False
    assert settings.worker_processes == 3
    assert Settings.from_env({"SLEUTH_WORKER_PROCESSES": "0"}).worker_processes == 0
    assert settings.rate_limit_for("team") == 1000 and settings.rate_limit_window == 30


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("SLEUTH_DATABASE_URL", "mysql://x/y", "SLEUTH_DATABASE_URL must be a sqlite"),
        ("SLEUTH_DATABASE_URL", "nonsense", "SLEUTH_DATABASE_URL must be a sqlite"),
        ("SLEUTH_PUBLIC_URL", "sleuth.example.com", "SLEUTH_PUBLIC_URL must be an absolute"),
        ("SLEUTH_ALLOW_PRIVATE_URLS", "maybe", "SLEUTH_ALLOW_PRIVATE_URLS must be true or false"),
        ("SLEUTH_WORKERS_INLINE", "2", "SLEUTH_WORKERS_INLINE must be true or false"),
        ("SLEUTH_WORKER_PROCESSES", "-1", "SLEUTH_WORKER_PROCESSES must be an integer from 0"),
        ("SLEUTH_WORKER_PROCESSES", "65", "SLEUTH_WORKER_PROCESSES must be an integer from 0"),
        ("SLEUTH_WORKER_PROCESSES", "two", "SLEUTH_WORKER_PROCESSES must be an integer from 0"),
        ("SLEUTH_RATE_LIMIT_FREE", "-1", "SLEUTH_RATE_LIMIT_FREE must be a positive integer"),
        ("SLEUTH_RATE_LIMIT_WINDOW", "soon", "SLEUTH_RATE_LIMIT_WINDOW must be a positive"),
        ("SLEUTH_LLM_BASE_URL", "ftp://x", "SLEUTH_LLM_BASE_URL must be an http"),
        ("SLEUTH_LLM_MAX_ROUNDS", "0", "SLEUTH_LLM_MAX_ROUNDS must be a positive integer"),
        ("SLEUTH_LLM_MAX_ROUNDS", "51", "SLEUTH_LLM_MAX_ROUNDS must be at most 50"),
        ("SLEUTH_LLM_MAX_TOOL_CALLS", "many", "SLEUTH_LLM_MAX_TOOL_CALLS must be a positive"),
    ],
)
def test_bad_values_name_the_variable(name: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Settings.from_env({name: value})


def test_settings_are_frozen() -> None:
    settings = Settings.from_env({})
    with pytest.raises(Exception, match="frozen"):
        settings.agent = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("sqlite:///./sleuth.db", "sqlite+aiosqlite:///./sleuth.db"),
        ("sqlite:////abs/x.db", "sqlite+aiosqlite:////abs/x.db"),
        ("postgresql://u:p@h:5432/d", "postgresql+asyncpg://u:***@h:5432/d"),
        ("postgres://u@h/d", "postgresql+asyncpg://u@h/d"),
        ("postgresql+psycopg://u@h/d", "postgresql+asyncpg://u@h/d"),
    ],
)
def test_async_driver_is_chosen(url: str, expected: str) -> None:
    assert str(async_url(url)) == expected


def test_unsupported_database() -> None:
    with pytest.raises(ValueError, match="unsupported database"):
        async_url("mysql://x/y")


def test_secret_key_is_read_checked_and_never_shown() -> None:
    assert Settings.from_env({}).secret_key is None
    secret = "s3cr3t-" + "k" * 40
    settings = Settings.from_env({"SLEUTH_SECRET_KEY": f"  {secret} "})
    assert settings.secret_key == secret
    assert secret not in repr(settings)
    with pytest.raises(ConfigError, match="SLEUTH_SECRET_KEY must be at least 32 characters"):
        Settings.from_env({"SLEUTH_SECRET_KEY": "short"})
