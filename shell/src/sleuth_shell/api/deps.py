"""Typed handler parameters for the app-level dependencies (Litestar's explicit markers).

>>> # async def handler(principal: CurrentPrincipal, db_session: DbSession) -> ...
"""

from __future__ import annotations

from typing import TypeAlias

from litestar.di import NamedDependency
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.auth import Principal
from sleuth_shell.config import Settings
from sleuth_shell.services import Services

__all__ = ["AppServices", "AppSettings", "CurrentPrincipal", "DbSession"]

#: The authenticated caller (``principal`` dependency).
CurrentPrincipal: TypeAlias = NamedDependency[Principal]
#: A database session for the request (``db_session`` dependency); commit explicitly.
DbSession: TypeAlias = NamedDependency[AsyncSession]
#: The service settings (``settings`` dependency).
AppSettings: TypeAlias = NamedDependency[Settings]
#: The service container (``services`` dependency): agent, stores, outbound HTTP, sessions.
AppServices: TypeAlias = NamedDependency[Services]
