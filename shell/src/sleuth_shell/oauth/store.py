"""Storage of the OAuth authorization server: what one OAuth request reads, and what it writes.

authlib's grants and endpoints are synchronous; the database is not. One OAuth request is
therefore an :class:`Exchange`: everything the request can ask for (the clients it names, the
code or tokens it presents, each with the approving key's current state) is read first
(:func:`load_exchange`), authlib then runs against that snapshot and records what it decides
(new client, grant and code, token, code used, refresh token rotated, revocation), and
:func:`commit_exchange` writes all of it in one transaction. The writes that a concurrent request
could race (using a code, rotating a refresh token) are conditional updates whose row count is
checked: the loser's transaction is rolled back and it answers ``invalid_grant``.

Codes, tokens and client secrets are stored as SHA-256 digests only.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from authlib.oauth2.rfc6749 import AuthorizationCodeMixin, ClientMixin, TokenMixin
from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from sleuth_shell.db.hot_reads import HotRead, HotReader
from sleuth_shell.db.models import (
    ApiKey,
    OAuthClient,
    OAuthCode,
    OAuthGrant,
    OAuthToken,
    Organization,
)
from sleuth_shell.oauth.policy import (
    ACCESS_TOKEN_PREFIX,
    REFRESH_TOKEN_LIFETIME,
    hash_secret,
    redirect_uri_matches,
)

__all__ = [
    "Approver",
    "Authorization",
    "ClientRecord",
    "CodeRecord",
    "Exchange",
    "TokenPrincipal",
    "TokenRecord",
    "commit_exchange",
    "list_authorizations",
    "load_exchange",
    "lookup_access_token",
    "revoke_authorization",
]

log = logging.getLogger("sleuth.oauth")
_MAX_TOKEN_LENGTH = 256
#: How long a rotated refresh token or a used code is kept after it stops working: presented again
#: within this time, it revokes its grant; afterwards it is deleted and is merely unknown.
KEEP_SPENT = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class Approver:
    """Who approved a grant: the API key's organization, the key, its admin flag and team."""

    org_id: int
    key_id: int
    admin: bool
    team_id: int | None
    grant_id: int | None = None


@dataclass(slots=True)
class ClientRecord(ClientMixin):
    """A registered client, as authlib asks about it."""

    pk: int | None
    client_id: str
    secret_hash: str | None
    name: str | None
    redirect_uris: list[str]
    grant_types: list[str]
    response_types: list[str]
    auth_method: str
    scope: str

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> str | None:
        return self.redirect_uris[0] if len(self.redirect_uris) == 1 else None

    def get_allowed_scope(self, scope: str | None) -> str:
        allowed = set(self.scope.split())
        if not scope:
            return self.scope
        return " ".join(s for s in scope.split() if s in allowed)

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return redirect_uri_matches(self.redirect_uris, redirect_uri)

    def check_client_secret(self, client_secret: str) -> bool:
        if self.secret_hash is None:
            return False
        return hmac.compare_digest(self.secret_hash, hash_secret(client_secret))

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method == self.auth_method

    def check_response_type(self, response_type: str) -> bool:
        return response_type in self.response_types

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type in self.grant_types


@dataclass(slots=True)
class CodeRecord(AuthorizationCodeMixin):
    """A stored authorization code; ``approver`` is None once its grant or key is revoked."""

    code_hash: str
    grant_id: int
    client_id: str
    redirect_uri: str
    scope: str
    code_challenge: str
    code_challenge_method: str
    expires_at: datetime
    used_at: datetime | None
    approver: Approver | None

    def get_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_scope(self) -> str:
        return self.scope


@dataclass(slots=True)
class TokenRecord(TokenMixin):
    """A stored access/refresh token pair; ``approver`` is None once its grant or key is revoked."""

    id: int
    grant_id: int
    client_id: str
    scope: str
    access_expires_at: datetime
    refresh_expires_at: datetime
    rotated_at: datetime | None
    revoked_at: datetime | None
    approver: Approver | None
    presented_as: str
    """``access_token`` or ``refresh_token``: which of the two was looked up."""

    def check_client(self, client: ClientRecord) -> bool:
        return bool(client.client_id == self.client_id)

    def get_scope(self) -> str:
        return self.scope

    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    def get_user(self) -> Approver | None:
        return self.approver


Write = Callable[[AsyncSession], Awaitable[bool]]


@dataclass
class Exchange:
    """One OAuth request's view of storage (see the module doc)."""

    now: datetime
    clients: dict[str, ClientRecord] = field(default_factory=dict)
    codes: dict[str, CodeRecord] = field(default_factory=dict)
    tokens: dict[str, TokenRecord] = field(default_factory=dict)
    writes: list[Write] = field(default_factory=list)
    granted: list[tuple[Approver, ClientRecord]] = field(default_factory=list)

    def client(self, client_id: str | None) -> ClientRecord | None:
        return self.clients.get(client_id or "")

    def code(self, code: str | None) -> CodeRecord | None:
        return self.codes.get(hash_secret(code)) if code else None

    def token(self, value: str | None) -> TokenRecord | None:
        return self.tokens.get(hash_secret(value)) if value else None

    def add_client(self, client: ClientRecord, metadata: dict[str, Any]) -> None:
        """Register ``client`` (its secret already hashed)."""
        self.clients[client.client_id] = client

        async def write(session: AsyncSession) -> bool:
            session.add(
                OAuthClient(
                    client_id=client.client_id,
                    client_secret_hash=client.secret_hash,
                    client_name=client.name,
                    redirect_uris=client.redirect_uris,
                    grant_types=client.grant_types,
                    response_types=client.response_types,
                    token_endpoint_auth_method=client.auth_method,
                    scope=client.scope,
                    client_metadata=metadata,
                    created_at=self.now,
                )
            )
            return True

        self.writes.append(write)

    def add_grant(
        self,
        approver: Approver,
        client: ClientRecord,
        *,
        code: str,
        redirect_uri: str,
        scope: str,
        code_challenge: str,
        code_challenge_method: str,
        expires_at: datetime,
        remote_addr: str | None,
    ) -> None:
        """Record an approval (the audit row) and the authorization code it issues."""
        self.granted.append((approver, client))

        async def write(session: AsyncSession) -> bool:
            client_pk = (
                await session.execute(
                    select(OAuthClient.id).where(OAuthClient.client_id == client.client_id)
                )
            ).scalar_one()
            grant = OAuthGrant(
                org_id=approver.org_id,
                api_key_id=approver.key_id,
                client_id=client_pk,
                scope=scope,
                redirect_uri=redirect_uri,
                remote_addr=remote_addr,
                created_at=self.now,
            )
            session.add(grant)
            await session.flush()
            session.add(
                OAuthCode(
                    code_hash=hash_secret(code),
                    grant_id=grant.id,
                    redirect_uri=redirect_uri,
                    scope=scope,
                    code_challenge=code_challenge,
                    code_challenge_method=code_challenge_method,
                    expires_at=expires_at,
                )
            )
            log.info(
                "oauth grant %s: organization %s, API key %s approved client %s (%s) for %r "
                "from %s",
                grant.id,
                approver.org_id,
                approver.key_id,
                client.client_id,
                client.name or "unnamed",
                scope,
                remote_addr or "unknown address",
            )
            return True

        self.writes.append(write)

    def use_code(self, code: CodeRecord) -> None:
        """Mark ``code`` used; fails (the request loses) when another request used it first."""
        now = self.now

        async def write(session: AsyncSession) -> bool:
            result = await session.execute(
                update(OAuthCode)
                .where(OAuthCode.code_hash == code.code_hash, OAuthCode.used_at.is_(None))
                .values(used_at=now)
            )
            return bool(result.rowcount == 1)  # type: ignore[attr-defined]

        self.writes.append(write)

    def add_token(self, grant_id: int, token: dict[str, Any]) -> None:
        """Store an issued token pair (hashes only) under ``grant_id``, and prune the grant's
        rows nobody can use any more (refresh expired, or rotated or codes expired more than
        :data:`KEEP_SPENT` ago: kept that long so a copied one is recognised)."""
        now = self.now
        refresh = token.get("refresh_token")

        async def write(session: AsyncSession) -> bool:
            await session.execute(
                delete(OAuthToken).where(
                    OAuthToken.grant_id == grant_id,
                    (OAuthToken.refresh_expires_at <= now)
                    | (OAuthToken.rotated_at <= now - KEEP_SPENT),
                )
            )
            await session.execute(
                delete(OAuthCode).where(
                    OAuthCode.grant_id == grant_id, OAuthCode.expires_at <= now - KEEP_SPENT
                )
            )
            session.add(
                OAuthToken(
                    grant_id=grant_id,
                    access_token_hash=hash_secret(token["access_token"]),
                    refresh_token_hash=hash_secret(refresh) if refresh else None,
                    scope=token.get("scope") or "",
                    created_at=now,
                    access_expires_at=now + timedelta(seconds=int(token["expires_in"])),
                    refresh_expires_at=now + REFRESH_TOKEN_LIFETIME,
                )
            )
            return True

        self.writes.append(write)

    def rotate(self, token: TokenRecord) -> None:
        """Mark a refresh token used; fails when another request rotated it first."""
        now = self.now

        async def write(session: AsyncSession) -> bool:
            result = await session.execute(
                update(OAuthToken)
                .where(
                    OAuthToken.id == token.id,
                    OAuthToken.rotated_at.is_(None),
                    OAuthToken.revoked_at.is_(None),
                )
                .values(rotated_at=now, revoked_at=now)
            )
            return bool(result.rowcount == 1)  # type: ignore[attr-defined]

        self.writes.append(write)

    def revoke_token(self, token: TokenRecord) -> None:
        """Revoke one token pair."""
        now = self.now

        async def write(session: AsyncSession) -> bool:
            await session.execute(
                update(OAuthToken)
                .where(OAuthToken.id == token.id, OAuthToken.revoked_at.is_(None))
                .values(revoked_at=now)
            )
            return True

        self.writes.append(write)

    def revoke_grant(self, grant_id: int, reason: str) -> None:
        """Revoke a grant and every token issued under it."""
        now = self.now

        async def write(session: AsyncSession) -> bool:
            await _revoke_grant(session, grant_id, now)
            log.warning("oauth grant %s revoked: %s", grant_id, reason)
            return True

        self.writes.append(write)


async def _revoke_grant(session: AsyncSession, grant_id: int, now: datetime) -> None:
    await session.execute(
        update(OAuthGrant)
        .where(OAuthGrant.id == grant_id, OAuthGrant.revoked_at.is_(None))
        .values(revoked_at=now)
    )
    await session.execute(
        update(OAuthToken)
        .where(OAuthToken.grant_id == grant_id, OAuthToken.revoked_at.is_(None))
        .values(revoked_at=now)
    )


def _client_record(row: OAuthClient) -> ClientRecord:
    return ClientRecord(
        pk=row.id,
        client_id=row.client_id,
        secret_hash=row.client_secret_hash,
        name=row.client_name,
        redirect_uris=[str(u) for u in row.redirect_uris],
        grant_types=[str(g) for g in row.grant_types],
        response_types=[str(r) for r in row.response_types],
        auth_method=row.token_endpoint_auth_method,
        scope=row.scope,
    )


def _approver(grant: OAuthGrant, key: ApiKey) -> Approver | None:
    if grant.revoked_at is not None or key.revoked_at is not None:
        return None
    return Approver(
        org_id=grant.org_id,
        key_id=key.id,
        admin=key.admin,
        team_id=key.team_id,
        grant_id=grant.id,
    )


async def load_exchange(
    session: AsyncSession,
    now: datetime,
    *,
    client_ids: set[str],
    codes: set[str] = frozenset(),  # type: ignore[assignment]
    tokens: set[str] = frozenset(),  # type: ignore[assignment]
) -> Exchange:
    """Read what an OAuth request names: ``client_ids``, the ``codes`` and ``tokens`` it presents
    (with their grants, clients and approving keys)."""
    exchange = Exchange(now=now)
    wanted = {c for c in client_ids if c and len(c) <= 64}
    if wanted:
        for row in (
            await session.scalars(select(OAuthClient).where(OAuthClient.client_id.in_(wanted)))
        ).all():
            exchange.clients[row.client_id] = _client_record(row)
    code_hashes = {hash_secret(c) for c in codes if c and len(c) <= _MAX_TOKEN_LENGTH}
    if code_hashes:
        rows = await session.execute(
            select(OAuthCode, OAuthGrant, ApiKey, OAuthClient)
            .join(OAuthGrant, OAuthGrant.id == OAuthCode.grant_id)
            .join(ApiKey, ApiKey.id == OAuthGrant.api_key_id)
            .join(OAuthClient, OAuthClient.id == OAuthGrant.client_id)
            .where(OAuthCode.code_hash.in_(code_hashes))
        )
        for code, grant, key, client in rows.all():
            exchange.codes[code.code_hash] = CodeRecord(
                code_hash=code.code_hash,
                grant_id=grant.id,
                client_id=client.client_id,
                redirect_uri=code.redirect_uri,
                scope=code.scope,
                code_challenge=code.code_challenge,
                code_challenge_method=code.code_challenge_method,
                expires_at=code.expires_at,
                used_at=code.used_at,
                approver=_approver(grant, key),
            )
    token_hashes = {hash_secret(t) for t in tokens if t and len(t) <= _MAX_TOKEN_LENGTH}
    if token_hashes:
        pairs = await session.execute(
            select(OAuthToken, OAuthGrant, ApiKey, OAuthClient)
            .join(OAuthGrant, OAuthGrant.id == OAuthToken.grant_id)
            .join(ApiKey, ApiKey.id == OAuthGrant.api_key_id)
            .join(OAuthClient, OAuthClient.id == OAuthGrant.client_id)
            .where(
                OAuthToken.access_token_hash.in_(token_hashes)
                | OAuthToken.refresh_token_hash.in_(token_hashes)
            )
        )
        for pair, grant, key, client in pairs.all():
            for digest, kind in (
                (pair.access_token_hash, "access_token"),
                (pair.refresh_token_hash, "refresh_token"),
            ):
                if digest in token_hashes:
                    exchange.tokens[digest] = TokenRecord(
                        id=pair.id,
                        grant_id=grant.id,
                        client_id=client.client_id,
                        scope=pair.scope,
                        access_expires_at=pair.access_expires_at,
                        refresh_expires_at=pair.refresh_expires_at,
                        rotated_at=pair.rotated_at,
                        revoked_at=pair.revoked_at,
                        approver=_approver(grant, key),
                        presented_as=kind,
                    )
    return exchange


async def commit_exchange(session: AsyncSession, exchange: Exchange) -> bool:
    """Write what the request decided, in one transaction. False (and nothing written) when a
    conditional write found its row already changed by another request."""
    if not exchange.writes:
        return True
    for write in exchange.writes:
        if not await write(session):
            await session.rollback()
            return False
    await session.commit()
    return True


@dataclass(frozen=True, slots=True)
class TokenPrincipal:
    """What an access token acts as: the approving key's organization, plan, key, team, admin."""

    org_id: int
    org_name: str
    plan: str
    key_id: int
    admin: bool
    team_id: int | None


_ACCESS_LOOKUP = HotRead(
    select(
        OAuthToken.access_expires_at,
        ApiKey.id.label("key_id"),
        ApiKey.admin,
        ApiKey.team_id,
        Organization.id.label("org_id"),
        Organization.name.label("org_name"),
        Organization.plan,
    )
    .join(OAuthGrant, OAuthGrant.id == OAuthToken.grant_id)
    .join(ApiKey, ApiKey.id == OAuthGrant.api_key_id)
    .join(Organization, Organization.id == ApiKey.org_id)
    .where(
        OAuthToken.access_token_hash == bindparam("token_hash"),
        OAuthToken.revoked_at.is_(None),
        OAuthGrant.revoked_at.is_(None),
        ApiKey.revoked_at.is_(None),
    )
)


def is_access_token(value: str) -> bool:
    """Whether ``value`` has the shape of an access token (not an API key)."""
    return value.startswith(ACCESS_TOKEN_PREFIX)


async def lookup_access_token(
    reader: HotReader, token: str, now: datetime
) -> TokenPrincipal | None:
    """The principal of a live access token: None for an unknown, expired or revoked token, or
    one whose grant or approving key was revoked. Read on every request (no cache), so any
    revocation counts at once."""
    if not token or len(token) > _MAX_TOKEN_LENGTH:
        return None
    row = await _ACCESS_LOOKUP.first(reader, {"token_hash": hash_secret(token)})
    if row is None or row["access_expires_at"] <= now:
        return None
    return TokenPrincipal(
        org_id=row["org_id"],
        org_name=row["org_name"],
        plan=row["plan"],
        key_id=row["key_id"],
        admin=bool(row["admin"]),
        team_id=row["team_id"],
    )


@dataclass(frozen=True, slots=True)
class Authorization:
    """A live grant as the settings page lists it."""

    grant_id: int
    client_name: str
    client_id: str
    redirect_uri: str
    api_key_id: int
    key_prefix: str
    created_at: datetime
    last_issued_at: datetime | None


async def list_authorizations(
    session: AsyncSession, org_id: int, *, key_id: int | None = None
) -> list[Authorization]:
    """The organization's live grants (only ``key_id``'s when given), newest first."""
    query = (
        select(OAuthGrant, OAuthClient, ApiKey)
        .join(OAuthClient, OAuthClient.id == OAuthGrant.client_id)
        .join(ApiKey, ApiKey.id == OAuthGrant.api_key_id)
        .where(
            OAuthGrant.org_id == org_id,
            OAuthGrant.revoked_at.is_(None),
            ApiKey.revoked_at.is_(None),
        )
        .order_by(OAuthGrant.id.desc())
    )
    if key_id is not None:
        query = query.where(OAuthGrant.api_key_id == key_id)
    rows = (await session.execute(query)).all()
    ids = [grant.id for grant, _client, _key in rows]
    issued: dict[int, datetime] = {}
    if ids:
        for grant_id, created in (
            await session.execute(
                select(OAuthToken.grant_id, OAuthToken.created_at)
                .where(OAuthToken.grant_id.in_(ids))
                .order_by(OAuthToken.id)
            )
        ).all():
            issued[grant_id] = created
    # A grant whose code was never exchanged has no tokens; it is listed all the same.
    return [
        Authorization(
            grant_id=grant.id,
            client_name=client.client_name or client.client_id,
            client_id=client.client_id,
            redirect_uri=grant.redirect_uri,
            api_key_id=key.id,
            key_prefix=key.prefix,
            created_at=grant.created_at,
            last_issued_at=issued.get(grant.id),
        )
        for grant, client, key in rows
    ]


async def revoke_authorization(
    session: AsyncSession,
    org_id: int,
    grant_id: int,
    now: datetime,
    *,
    key_id: int | None,
    by_key_id: int,
) -> bool:
    """Revoke the organization's grant ``grant_id`` (only if it was approved with ``key_id``,
    when given) and its tokens, on behalf of API key ``by_key_id`` (logged); False when there is
    no such live grant."""
    query = select(OAuthGrant).where(
        OAuthGrant.id == grant_id, OAuthGrant.org_id == org_id, OAuthGrant.revoked_at.is_(None)
    )
    if key_id is not None:
        query = query.where(OAuthGrant.api_key_id == key_id)
    grant = (await session.scalars(query)).first()
    if grant is None:
        return False
    await _revoke_grant(session, grant.id, now)
    await session.commit()
    log.info(
        "oauth grant %s revoked on the settings page: organization %s, by API key %s",
        grant_id,
        org_id,
        by_key_id,
    )
    return True
