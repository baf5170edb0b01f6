"""The server secret: ``SLEUTH_SECRET_KEY``, or the secret the service generated for itself.

Keys the service derives for its own use (the session-cookie signing key, the key that encrypts
data-source headers at rest) all come from :func:`load_server_secret`, each with a context of its
own. When ``SLEUTH_SECRET_KEY`` is unset, a random secret is generated once and kept in the
database (table ``server_secrets``, row ``session_signing``), so every node shares it.
"""

from __future__ import annotations

import secrets

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.db.models import ServerSecret

__all__ = ["GENERATED_SECRET_NAME", "load_server_secret"]

#: The ``server_secrets`` row holding the generated secret (named for its first use).
GENERATED_SECRET_NAME = "session_signing"


async def load_server_secret(
    factory: async_sessionmaker[AsyncSession], configured: str | None
) -> str:
    """``configured`` (``SLEUTH_SECRET_KEY``) when set, else the database's generated secret,
    created on first use (a node that loses the insert race reads the winner's row, so every
    node ends up with the same secret)."""
    if configured:
        return configured
    async with factory() as session:
        stored = await session.get(ServerSecret, GENERATED_SECRET_NAME)
        if stored is not None:
            return stored.value
        session.add(ServerSecret(name=GENERATED_SECRET_NAME, value=secrets.token_urlsafe(48)))
        try:
            await session.commit()
        except IntegrityError:
            await session.rollback()
        stored = (
            await session.execute(
                select(ServerSecret).where(ServerSecret.name == GENERATED_SECRET_NAME)
            )
        ).scalar_one()
        return stored.value
