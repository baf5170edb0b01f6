"""Server-side browser sessions (table ``web_sessions``) and their CSRF tokens.

Signing in with an organization API key opens a session: the browser gets a cookie holding a
random 256-bit token (never the key) signed with HMAC-SHA256 (:func:`sign_token`); the database
keeps only the token's SHA-256, the API key it was opened with, a per-session CSRF token and the
expiry time. A cookie whose signature does not verify (tampered, unsigned, or signed with a key
that has since been rotated) counts as signed out before the database is asked. Each request
resolves the cookie to the key's current principal (so a revoked key or a removed admin flag
counts at once). Signing out deletes the row; expired rows are refused and removed on the next
sign-in.

The signing key comes from ``SLEUTH_SECRET_KEY``, or, when that is unset, from a random secret
generated once and kept in the database (table ``server_secrets``), so every node shares it
(:func:`load_signing_key`).

>>> key = signing_key("x" * 32)
>>> cookie = sign_token("abc", key)
>>> verify_token(cookie, key), verify_token(cookie + "0", key), verify_token("abc", key)
('abc', None, None)
>>> verify_token(cookie, signing_key("y" * 32)) is None
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.db.models import ApiKey, Organization, WebSession
from sleuth_shell.db.server_secrets import GENERATED_SECRET_NAME, load_server_secret

__all__ = [
    "COOKIE_NAME",
    "LOGIN_CSRF_COOKIE",
    "SESSION_LIFETIME",
    "SIGNING_SECRET_NAME",
    "SessionPrincipal",
    "csrf_matches",
    "end_session",
    "load_signing_key",
    "new_token",
    "open_session",
    "resolve_session",
    "sign_token",
    "signing_key",
    "verify_token",
]

#: The session cookie (HttpOnly, SameSite=Lax, Secure over https).
COOKIE_NAME = "sleuth_session"
#: The sign-in form's double-submit CSRF cookie (there is no session yet to hold a token).
LOGIN_CSRF_COOKIE = "sleuth_login_csrf"
#: How long a sign-in lasts; afterwards the browser is sent to the sign-in form again.
SESSION_LIFETIME = timedelta(hours=12)
_MAX_TOKEN_LENGTH = 128
#: The ``server_secrets`` row holding the generated signing secret.
SIGNING_SECRET_NAME = GENERATED_SECRET_NAME
_KEY_CONTEXT = b"sleuth web session cookie v1"
_SIGNATURE_CHARS = 43  # unpadded URL-safe base64 of 32 bytes


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


def signing_key(secret: str) -> bytes:
    """The HMAC key derived from a secret (``SLEUTH_SECRET_KEY`` or the generated one)."""
    return hmac.new(secret.encode("utf-8"), _KEY_CONTEXT, hashlib.sha256).digest()


def _signature(token: str, key: bytes) -> str:
    digest = hmac.new(key, token.encode("utf-8"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def sign_token(token: str, key: bytes) -> str:
    """The cookie value for a session token: ``<token>.<HMAC-SHA256 signature>``."""
    return f"{token}.{_signature(token, key)}"


def verify_token(cookie: str | None, key: bytes) -> str | None:
    """The session token inside a signed cookie value, or None when the signature does not verify
    (missing, unsigned, tampered, oversized, or signed with another key). Constant-time compare."""
    if not cookie or len(cookie) > _MAX_TOKEN_LENGTH + 1 + _SIGNATURE_CHARS:
        return None
    token, dot, signature = cookie.rpartition(".")
    if not dot or not token or len(signature) != _SIGNATURE_CHARS:
        return None
    expected = _signature(token, key)
    if not hmac.compare_digest(expected.encode("ascii"), signature.encode("ascii", "replace")):
        return None
    return token


async def load_signing_key(
    factory: async_sessionmaker[AsyncSession], configured: str | None
) -> bytes:
    """The cookie-signing key, derived from the server secret: ``configured``
    (``SLEUTH_SECRET_KEY``) when set, else the database's generated secret
    (:func:`sleuth_shell.db.server_secrets.load_server_secret`)."""
    return signing_key(await load_server_secret(factory, configured))


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
