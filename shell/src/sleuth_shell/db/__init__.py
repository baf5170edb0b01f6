"""Persistence: engine and sessions, the schema (``models``), migrations, dialect specifics."""

from sleuth_shell.db import agent_versions as _agent_versions  # noqa: F401  (registers the listener)
from sleuth_shell.db.engine import create_engine, create_session_factory
from sleuth_shell.db.migrate import migrate, migrate_async

__all__ = ["create_engine", "create_session_factory", "migrate", "migrate_async"]
