"""Persistence: engine and sessions, the schema (``models``), migrations, dialect specifics."""

from sleuth_shell.db.engine import create_engine, create_session_factory
from sleuth_shell.db.migrate import migrate, migrate_async

__all__ = ["create_engine", "create_session_factory", "migrate", "migrate_async"]
