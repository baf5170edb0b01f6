"""Server-side browser sessions (table ``web_sessions``) and their CSRF tokens.

Signing in with an organization API key opens a session: the browser gets a cookie holding a
random 256-bit token (never the key); the database keeps only the token's SHA-256, the API key it
was opened with, a per-session CSRF token and the expiry time. Each request resolves the cookie to
the key's current principal (so a revoked key or a removed admin flag counts at once). Signing out
deletes the row; expired rows are refused and removed on the next sign-in.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.db.models import ApiKey, Organization, WebSession

__all__ = [
    "COOKIE_NAME",
    "LOGIN_CSRF_COOKIE",
    "SESSION_LIFETIME",
    "SessionPrincipal",
    "csrf_matches",
    "end_session",
    "new_token",
    "open_session",
    "resolve_session",
]

#: The session cookie (HttpOnly, SameSite=Lax, Secure over https).
COOKIE_NAME = "sleuth_session"
#: The sign-in form's double-submit CSRF cookie (there is no session yet to hold a token).
LOGIN_CSRF_COOKIE = "sleuth_login_csrf"
#: How long a sign-in lasts; afterwards the browser is sent to the sign-in form again.
SESSION_LIFETIME = timedelta(hours=12)
_MAX_TOKEN_LENGTH = 128


@dataclass(frozen=True, slots=True)
class SessionPrincipal:
    """Who a session belongs to, read fresh from its API key on every request."""

    org_id: int
    org_name: str
    plan: str
    key_id: int
    admin: bool
    team_id: int | None
    csrf_token: str
    expires_at: datetime


def new_token() -> str:
    """A fresh random token (43 URL-safe characters, 256 bits)."""
    return secrets.token_urlsafe(32)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def csrf_matches(expected: str | None, given: str | None) -> bool:
    """Constant-time comparison of a CSRF token with the one a form sent back."""
    if not expected or not given:
        return False
    return hmac.compare_digest(expected.encode("utf-8"), given.encode("utf-8"))


async def open_session(session: AsyncSession, api_key_id: int, org_id: int, now: datetime) -> str:
    """Create a session for the key (committed) and return the cookie token.

    Expired sessions of the same key are deleted on the way.
    """
    await session.execute(
        delete(WebSession).where(WebSession.api_key_id == api_key_id, WebSession.expires_at <= now)
    )
    token = new_token()
    session.add(
        WebSession(
            token_hash=_hash(token),
            org_id=org_id,
            api_key_id=api_key_id,
            csrf_token=new_token(),
            created_at=now,
            expires_at=now + SESSION_LIFETIME,
        )
    )
    await session.commit()
    return token


async def resolve_session(
    factory: async_sessionmaker[AsyncSession], token: str | None, now: datetime
) -> SessionPrincipal | None:
    """The principal of a live session, or None for a missing, unknown or expired token."""
    if not token or len(token) > _MAX_TOKEN_LENGTH:
        return None
    async with factory() as session:
        row = (
            await session.execute(
                select(WebSession, ApiKey, Organization)
                .join(ApiKey, ApiKey.id == WebSession.api_key_id)
                .join(Organization, Organization.id == WebSession.org_id)
                .where(WebSession.token_hash == _hash(token), ApiKey.revoked_at.is_(None))
            )
        ).first()
    if row is None:
        return None
    web, key, org = row
    if web.expires_at <= now or key.org_id != org.id:
        return None
    return SessionPrincipal(
        org_id=org.id,
        org_name=org.name,
        plan=org.plan,
        key_id=key.id,
        admin=key.admin,
        team_id=key.team_id,
        csrf_token=web.csrf_token,
        expires_at=web.expires_at,
    )


async def end_session(factory: async_sessionmaker[AsyncSession], token: str | None) -> None:
    """Delete the session (signing out); unknown tokens are ignored."""
    if not token or len(token) > _MAX_TOKEN_LENGTH:
        return
    async with factory() as session:
        await session.execute(delete(WebSession).where(WebSession.token_hash == _hash(token)))
        await session.commit()
