"""The authorization server: authlib's grants and endpoints over Litestar requests.

authlib has no Litestar integration, so this module is that glue and nothing more: a
:class:`RequestData` (method, URL, headers, parameters) read from the Litestar request,
:class:`SleuthAuthorizationServer` implementing authlib's ``create_oauth2_request``,
``create_json_request`` and ``handle_response``, and the storage hooks every authlib grant and
endpoint asks for, answered from one :class:`~sleuth_shell.oauth.store.Exchange`. authlib decides
everything OAuth: client authentication (RFC 6749), the authorization-code grant with PKCE
(RFC 7636; here S256 only, always required), refresh tokens (rotated on every use), revocation
(RFC 7009) and client registration (RFC 7591). What Sleuth adds is policy: redirect URIs
(:mod:`.policy`), the RFC 8707 ``resource`` (only the MCP endpoint), a used code or rotated
refresh token presented again revokes its whole grant.

The request's URL as authlib sees it is built from ``SLEUTH_PUBLIC_URL`` (the issuer), so a
service behind a TLS-terminating proxy is judged by its public ``https`` address; authlib refuses
plain ``http`` except on a loopback host.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from authlib.oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import (
    InvalidGrantError,
    InvalidRequestError,
    JsonPayload,
    JsonRequest,
    OAuth2Error,
    OAuth2Payload,
    OAuth2Request,
)
from authlib.oauth2.rfc6749.grants import AuthorizationCodeGrant, RefreshTokenGrant
from authlib.oauth2.rfc6749.util import extract_basic_authorization
from authlib.oauth2.rfc6750 import BearerTokenGenerator
from authlib.oauth2.rfc7009 import RevocationEndpoint
from authlib.oauth2.rfc7591 import (
    ClientMetadataClaims,
    ClientRegistrationEndpoint,
    InvalidClientMetadataError,
    InvalidRedirectURIError,
)
from authlib.oauth2.rfc7636 import CodeChallenge
from litestar import Request, Response
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sleuth_shell.oauth.policy import (
    ACCESS_TOKEN_LIFETIME,
    ACCESS_TOKEN_PREFIX,
    AUTH_METHODS,
    CODE_LIFETIME,
    REFRESH_TOKEN_PREFIX,
    SCOPE,
    authorization_server_metadata,
    hash_secret,
    redirect_uri_problem,
    resource_matches,
)
from sleuth_shell.oauth.store import (
    Approver,
    ClientRecord,
    CodeRecord,
    Exchange,
    TokenRecord,
    commit_exchange,
    load_exchange,
)

__all__ = [
    "AuthorizationProblem",
    "ConsentRequest",
    "RequestData",
    "SleuthAuthorizationServer",
    "check_authorization",
    "complete_authorization",
    "read_request",
    "register_client",
    "revoke",
    "token",
]

log = logging.getLogger("sleuth.oauth")
_MAX_VALUES = 64
_BAD_CHARS = "A parameter holds characters OAuth does not allow (RFC 6749 appendix A)."
_SAFE_DESCRIPTION = frozenset(
    chr(c) for c in [*range(0x20, 0x22), *range(0x23, 0x5C), *range(0x5D, 0x7F)]
)


def _describe(text: str) -> str:
    """``text`` as an RFC 6749 ``error_description`` (restricted ASCII; others become ``?``)."""
    return "".join(c if c in _SAFE_DESCRIPTION else "?" for c in text)


@dataclass(frozen=True)
class RequestData:
    """What authlib sees of one Litestar request: the method, the URL under the public URL, the
    headers (case-insensitive) and the parameters (query string, or the form of a POST), or the
    JSON body of a registration."""

    method: str
    uri: str
    headers: Mapping[str, str]
    values: dict[str, list[str]]
    body: Any = None
    remote_addr: str | None = None

    def first(self, name: str) -> str | None:
        values = self.values.get(name)
        return values[0] if values else None


async def read_request(
    request: Request[Any, Any, Any], public_url: str, *, json_body: bool = False
) -> RequestData:
    """Read ``request`` for authlib: a POST's form (or JSON body), else its query string."""
    values: dict[str, list[str]] = {}
    body: Any = None
    if request.method == "POST" and not json_body:
        form = await request.form()
        for key, value in form.multi_items():
            if isinstance(value, str):
                values.setdefault(key, []).append(value)
    elif json_body:
        raw = await request.body()
        try:
            body = json.loads(raw) if raw else None
        except (ValueError, UnicodeDecodeError):
            body = None
    else:
        for key, value in request.query_params.multi_items():
            values.setdefault(key, []).append(value)
    if len(values) > _MAX_VALUES:
        values = dict(list(values.items())[:_MAX_VALUES])
    query = request.url.query
    client = request.client
    return RequestData(
        method=request.method,
        uri=public_url + request.url.path + (f"?{query}" if query else ""),
        headers=request.headers,
        values=values,
        body=body,
        remote_addr=client.host if client else None,
    )


class _Payload(OAuth2Payload):
    def __init__(self, data: RequestData) -> None:
        self._data = {key: values[0] for key, values in data.values.items() if values}
        self._datalist = data.values

    @property
    def data(self) -> dict[str, str]:
        return self._data

    @property
    def datalist(self) -> dict[str, list[str]]:
        return self._datalist


class _OAuth2Request(OAuth2Request):
    def __init__(self, data: RequestData) -> None:
        super().__init__(method=data.method, uri=data.uri, headers=data.headers)
        self.payload = _Payload(data)
        self.remote_addr = data.remote_addr

    @property
    def args(self) -> dict[str, str]:
        return dict(self.payload.data)

    @property
    def form(self) -> dict[str, str]:
        return dict(self.payload.data)


class _JsonPayload(JsonPayload):
    def __init__(self, body: Any) -> None:
        self._body = body

    @property
    def data(self) -> Any:
        return self._body


class _JsonRequest(JsonRequest):
    def __init__(self, data: RequestData) -> None:
        super().__init__(data.method, data.uri, data.headers)
        self.payload = _JsonPayload(data.body)


class InvalidTargetError(OAuth2Error):
    """RFC 8707 section 2: the ``resource`` is not this server's protected resource."""

    error = "invalid_target"


class SleuthAuthorizationServer(AuthorizationServer):
    """authlib's authorization server for one request, answering storage from ``exchange``."""

    def __init__(self, exchange: Exchange, public_url: str) -> None:
        super().__init__(scopes_supported=[SCOPE])
        self.exchange = exchange
        self.public_url = public_url
        self.register_token_generator(
            "default",
            BearerTokenGenerator(
                access_token_generator=lambda **_: ACCESS_TOKEN_PREFIX + secrets.token_urlsafe(32),
                refresh_token_generator=lambda **_: (
                    REFRESH_TOKEN_PREFIX + secrets.token_urlsafe(32)
                ),
                expires_generator=lambda client, grant_type: int(
                    ACCESS_TOKEN_LIFETIME.total_seconds()
                ),
            ),
        )
        self.register_grant(_CodeGrant, [_S256Only(required=True), _resource_check])
        self.register_grant(_RefreshGrant, [_resource_check])
        self.register_endpoint(_Revocation)
        self.register_endpoint(_Registration(self))

    def query_client(self, client_id: str) -> ClientRecord | None:
        return self.exchange.client(client_id)

    def save_token(self, token: dict[str, Any], request: OAuth2Request) -> None:
        approver: Approver = request.user
        assert approver.grant_id is not None
        self.exchange.add_token(approver.grant_id, token)

    def create_oauth2_request(self, request: RequestData | OAuth2Request) -> OAuth2Request:
        if isinstance(request, OAuth2Request):
            return request
        return _OAuth2Request(request)

    def create_json_request(self, request: RequestData) -> JsonRequest:
        return _JsonRequest(request)

    def handle_response(
        self, status: int, body: Any, headers: list[tuple[str, str]] | Mapping[str, str]
    ) -> Response[bytes]:
        if isinstance(body, dict):
            content = json.dumps({k: v for k, v in body.items() if v is not None}).encode()
        else:
            content = (body or "").encode() if isinstance(body, str) else bytes(body or b"")
        pairs = dict(headers.items() if isinstance(headers, Mapping) else headers)
        media_type = pairs.pop("Content-Type", "application/json" if content else "text/plain")
        return Response(content, status_code=status, headers=pairs, media_type=media_type)

    def handle_error_response(self, request: Any, error: OAuth2Error) -> Response[bytes]:
        """An OAuth error as its response (a redirect when it carries the client's URI)."""
        return self.handle_response(*error(None))

    def send_signal(self, name: str, *args: Any, **kwargs: Any) -> None:
        """authlib's signals (client authenticated, token revoked): nothing listens."""


def _resource_check(grant: Any) -> None:
    """Grant extension: an RFC 8707 ``resource`` must name the MCP endpoint; the authorization
    request must carry its ``redirect_uri`` (OAuth 2.1)."""

    def check(grant: Any, *_: Any) -> None:
        server: SleuthAuthorizationServer = grant.server
        for value in grant.request.payload.datalist.get("resource", []):
            if not resource_matches(server.public_url, value):
                raise InvalidTargetError(
                    description=_describe(
                        f"The resource must be {server.public_url}/mcp, got {value}"
                    )
                )

    def check_authorization(grant: Any, redirect_uri: str) -> None:
        if not grant.request.payload.redirect_uri:
            raise InvalidRequestError("Missing 'redirect_uri' in request.")
        check(grant)

    if isinstance(grant, AuthorizationCodeGrant):
        grant.register_hook("after_validate_authorization_request_payload", check_authorization)
    grant.register_hook("after_validate_token_request", check)


class _S256Only(CodeChallenge):
    """PKCE required on every authorization request, with S256 (``plain`` is refused)."""

    SUPPORTED_CODE_CHALLENGE_METHOD: ClassVar[list[str]] = ["S256"]
    DEFAULT_CODE_CHALLENGE_METHOD = "S256"

    def validate_code_challenge(self, grant: Any, redirect_uri: str) -> None:
        data = grant.request.payload.data
        if not data.get("code_challenge"):
            raise InvalidRequestError("Missing 'code_challenge': PKCE (S256) is required.")
        if data.get("code_challenge_method") != "S256":
            raise InvalidRequestError(
                "Unsupported 'code_challenge_method': only S256 is supported."
            )
        super().validate_code_challenge(grant, redirect_uri)

    def get_authorization_code_challenge(self, authorization_code: CodeRecord) -> str:
        return authorization_code.code_challenge

    def get_authorization_code_challenge_method(self, authorization_code: CodeRecord) -> str:
        return authorization_code.code_challenge_method


class _CodeGrant(AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS: ClassVar[list[str]] = list(AUTH_METHODS)

    @property
    def _exchange(self) -> Exchange:
        exchange: Exchange = self.server.exchange
        return exchange

    def save_authorization_code(self, code: str, request: OAuth2Request) -> None:
        data = request.payload.data
        self._exchange.add_grant(
            request.user,
            request.client,
            code=code,
            redirect_uri=request.payload.redirect_uri,
            scope=request.scope or SCOPE,
            code_challenge=data["code_challenge"],
            code_challenge_method=data["code_challenge_method"],
            expires_at=self._exchange.now + CODE_LIFETIME,
            remote_addr=getattr(request, "remote_addr", None),
        )

    def query_authorization_code(self, code: str, client: ClientRecord) -> CodeRecord | None:
        record = self._exchange.code(code)
        if record is None or record.client_id != client.client_id:
            return None
        if record.used_at is not None:
            # RFC 6749 section 4.1.2: a code used twice revokes what it was exchanged for.
            self._exchange.revoke_grant(record.grant_id, "authorization code used twice")
            return None
        if record.expires_at <= self._exchange.now or record.approver is None:
            return None
        return record

    def delete_authorization_code(self, authorization_code: CodeRecord) -> None:
        self._exchange.use_code(authorization_code)

    def authenticate_user(self, authorization_code: CodeRecord) -> Approver | None:
        return authorization_code.approver


class _RefreshGrant(RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS: ClassVar[list[str]] = list(AUTH_METHODS)
    INCLUDE_NEW_REFRESH_TOKEN = True

    @property
    def _exchange(self) -> Exchange:
        exchange: Exchange = self.server.exchange
        return exchange

    def authenticate_refresh_token(self, refresh_token: str) -> TokenRecord | None:
        record = self._exchange.token(refresh_token)
        if record is None or record.presented_as != "refresh_token":
            return None
        if record.rotated_at is not None:
            # A rotated refresh token presented again was copied: end the grant (OAuth 2.1 4.3.1).
            self._exchange.revoke_grant(record.grant_id, "rotated refresh token used again")
            return None
        if (
            record.revoked_at is not None
            or record.refresh_expires_at <= self._exchange.now
            or record.approver is None
        ):
            return None
        return record

    def authenticate_user(self, refresh_token: TokenRecord) -> Approver | None:
        return refresh_token.approver

    def revoke_old_credential(self, refresh_token: TokenRecord) -> None:
        self._exchange.rotate(refresh_token)


class _Revocation(RevocationEndpoint):
    CLIENT_AUTH_METHODS: ClassVar[list[str]] = list(AUTH_METHODS)

    def query_token(self, token_string: str, token_type_hint: str | None) -> TokenRecord | None:
        exchange: Exchange = self.server.exchange
        return exchange.token(token_string)

    def revoke_token(self, token: TokenRecord, request: OAuth2Request) -> None:
        exchange: Exchange = self.server.exchange
        if token.presented_as == "refresh_token":
            # RFC 7009 section 2.1: revoking a refresh token ends the grant's access tokens too.
            exchange.revoke_grant(token.grant_id, "refresh token revoked by its client")
        else:
            exchange.revoke_token(token)


_LIST_CLAIMS = ("redirect_uris", "grant_types", "response_types", "contacts")
_TEXT_CLAIMS = (
    "token_endpoint_auth_method",
    "client_name",
    "client_uri",
    "logo_uri",
    "scope",
    "tos_uri",
    "policy_uri",
    "jwks_uri",
    "software_id",
    "software_version",
)


class _ClientClaims(ClientMetadataClaims):
    """RFC 7591 metadata with Sleuth's redirect-URI policy and a bounded client name; each
    claim's JSON type is checked before authlib reads it."""

    def validate(self, now: Any = None, leeway: int = 0) -> None:
        for name in _LIST_CLAIMS:
            value = self.get(name)
            if value is not None and not (
                isinstance(value, list) and all(isinstance(v, str) for v in value)
            ):
                if name == "redirect_uris":
                    raise InvalidRedirectURIError("redirect_uris must be a list of strings.")
                raise InvalidClientMetadataError(f"{name} must be a list of strings.")
        for name in _TEXT_CLAIMS:
            value = self.get(name)
            if value is not None and not isinstance(value, str):
                raise InvalidClientMetadataError(f"{name} must be a string.")
        if "jwks" in self and not isinstance(self["jwks"], dict):
            raise InvalidClientMetadataError("jwks must be an object.")
        super().validate(now, leeway)

    def validate_redirect_uris(self) -> None:
        uris = self.get("redirect_uris")
        if not isinstance(uris, list) or not uris or len(uris) > 10:
            raise InvalidRedirectURIError("redirect_uris must list 1 to 10 redirect URIs.")
        for uri in uris:
            if not isinstance(uri, str) or len(uri) > 2000:
                raise InvalidRedirectURIError("Each redirect URI must be a string (2000 chars).")
            problem = redirect_uri_problem(uri)
            if problem is not None:
                raise InvalidRedirectURIError(_describe(problem))

    def validate_client_name(self) -> None:
        name = self.get("client_name")
        if name is not None and (not isinstance(name, str) or len(name) > 200):
            raise InvalidClientMetadataError("client_name must be a string of 200 characters.")


class _Registration(ClientRegistrationEndpoint):
    """Open dynamic client registration (anyone may register; a person approves each use)."""

    def __init__(self, server: SleuthAuthorizationServer) -> None:
        super().__init__(server, claims_classes=[_ClientClaims])

    def authenticate_token(self, request: JsonRequest) -> str:
        return "open registration"

    def get_server_metadata(self) -> dict[str, Any]:
        return authorization_server_metadata(self.server.public_url)

    def generate_client_secret(self, request: JsonRequest) -> str | None:
        method = request.payload.data.get("token_endpoint_auth_method", "client_secret_basic")
        return None if method == "none" else secrets.token_urlsafe(32)

    def save_client(
        self, client_info: dict[str, Any], client_metadata: dict[str, Any], request: JsonRequest
    ) -> ClientRecord:
        secret = client_info.get("client_secret")
        record = ClientRecord(
            pk=None,
            client_id=client_info["client_id"],
            secret_hash=hash_secret(secret) if secret else None,
            name=client_metadata.get("client_name"),
            redirect_uris=list(client_metadata["redirect_uris"]),
            grant_types=list(client_metadata.get("grant_types") or ["authorization_code"]),
            response_types=list(client_metadata.get("response_types") or ["code"]),
            auth_method=client_metadata["token_endpoint_auth_method"],
            scope=client_metadata.get("scope") or SCOPE,
        )
        extra = {
            key: value
            for key, value in client_metadata.items()
            if key not in {"redirect_uris", "grant_types", "response_types", "client_name"}
        }
        self.server.exchange.add_client(record, extra)
        log.info("oauth client %s registered (%s)", record.client_id, record.name or "unnamed")
        return record


# --- the endpoints' flows -------------------------------------------------------------------


@dataclass
class _Run:
    """One OAuth request against storage: load, let authlib decide, commit."""

    factory: async_sessionmaker[AsyncSession]
    public_url: str
    now: datetime
    client_ids: set[str] = field(default_factory=set)
    codes: set[str] = field(default_factory=set)
    tokens: set[str] = field(default_factory=set)

    async def __call__(
        self, decide: Callable[[SleuthAuthorizationServer], Response[bytes]]
    ) -> Response[bytes]:
        async with self.factory() as session:
            exchange = await load_exchange(
                session,
                self.now,
                client_ids={c for c in self.client_ids if c},
                codes={c for c in self.codes if c},
                tokens={t for t in self.tokens if t},
            )
            server = SleuthAuthorizationServer(exchange, self.public_url)
            try:
                response = decide(server)
            except OAuth2Error as error:
                response = server.handle_error_response(None, error)
            except ValueError:
                # authlib quotes parameters into error descriptions, which refuse characters
                # outside RFC 6749's set (quotes, backslashes, non-ASCII): such input is invalid.
                exchange.writes.clear()
                response = server.handle_error_response(None, InvalidRequestError(_BAD_CHARS))
            if not await commit_exchange(session, exchange):
                return server.handle_error_response(
                    None, InvalidGrantError("The grant was used by another request.")
                )
        return response


def _client_ids(data: RequestData) -> set[str]:
    ids = {data.first("client_id") or ""}
    try:
        basic_id, _secret = extract_basic_authorization(data.headers)
    except ValueError:  # not UTF-8: authlib refuses the same header again, as invalid_request
        basic_id = None
    if basic_id:
        ids.add(basic_id)
    return ids


async def token(
    factory: async_sessionmaker[AsyncSession], public_url: str, data: RequestData, now: datetime
) -> Response[bytes]:
    """The token endpoint (authorization code or refresh token in, token pair out)."""
    run = _Run(
        factory,
        public_url,
        now,
        client_ids=_client_ids(data),
        codes={data.first("code") or ""},
        tokens={data.first("refresh_token") or ""},
    )
    return await run(lambda server: server.create_token_response(data))


async def revoke(
    factory: async_sessionmaker[AsyncSession], public_url: str, data: RequestData, now: datetime
) -> Response[bytes]:
    """The RFC 7009 revocation endpoint."""
    run = _Run(
        factory,
        public_url,
        now,
        client_ids=_client_ids(data),
        tokens={data.first("token") or ""},
    )
    return await run(
        lambda server: server.create_endpoint_response(RevocationEndpoint.ENDPOINT_NAME, data)
    )


async def register_client(
    factory: async_sessionmaker[AsyncSession], public_url: str, data: RequestData, now: datetime
) -> Response[bytes]:
    """The RFC 7591 registration endpoint (a JSON object in, the client's information out)."""

    def decide(server: SleuthAuthorizationServer) -> Response[bytes]:
        if not isinstance(data.body, dict):
            raise InvalidClientMetadataError("The request body must be a JSON object.")
        response: Response[bytes] = server.create_endpoint_response(
            ClientRegistrationEndpoint.ENDPOINT_NAME, data
        )
        return response

    return await _Run(factory, public_url, now)(decide)


@dataclass(frozen=True)
class ConsentRequest:
    """A valid authorization request, for the consent page to show."""

    client_id: str
    client_name: str
    redirect_uri: str
    scope: str
    params: dict[str, str]


class AuthorizationProblem(Exception):
    """An authorization request that cannot go back to its client (unknown client, redirect URI
    not registered): the person is shown ``str(self)``."""


#: The authorization request's parameters the consent form carries back.
_AUTHORIZE_PARAMS = (
    "response_type",
    "client_id",
    "redirect_uri",
    "scope",
    "state",
    "code_challenge",
    "code_challenge_method",
    "resource",
)


def _consent_grant(server: SleuthAuthorizationServer, data: RequestData) -> Any:
    """authlib's validation of an authorization request: the grant, a redirect carrying the error
    to the client, or :class:`AuthorizationProblem` when the client cannot be trusted with it."""
    try:
        return server.get_consent_grant(request=data, end_user=None)
    except OAuth2Error as error:
        if error.redirect_uri:
            return server.handle_error_response(None, error)
        raise AuthorizationProblem(error.description or error.error) from error
    except ValueError as error:  # see _Run: a parameter with characters OAuth does not allow
        raise AuthorizationProblem(_BAD_CHARS) from error


async def check_authorization(
    factory: async_sessionmaker[AsyncSession], public_url: str, data: RequestData, now: datetime
) -> ConsentRequest | Response[bytes]:
    """Validate an authorization request before the person is asked (the consent page), or the
    error redirect to the client. Raises :class:`AuthorizationProblem`."""
    async with factory() as session:
        exchange = await load_exchange(session, now, client_ids={data.first("client_id") or ""})
    server = SleuthAuthorizationServer(exchange, public_url)
    try:
        grant = _consent_grant(server, data)
    except OAuth2Error as error:  # e.g. plain http to a non-loopback issuer
        raise AuthorizationProblem(error.description or error.error) from error
    if isinstance(grant, Response):
        return grant
    client: ClientRecord = grant.request.client
    return ConsentRequest(
        client_id=client.client_id,
        client_name=client.name or client.client_id,
        redirect_uri=grant.redirect_uri,
        scope=grant.request.scope or SCOPE,
        params={name: value for name in _AUTHORIZE_PARAMS if (value := data.first(name))},
    )


async def complete_authorization(
    factory: async_sessionmaker[AsyncSession],
    public_url: str,
    data: RequestData,
    approver: Approver | None,
    now: datetime,
) -> Response[bytes]:
    """The person's answer: with ``approver`` a code is issued (a grant is recorded), without it
    the client is told ``access_denied``; either way a redirect to the client."""

    def decide(server: SleuthAuthorizationServer) -> Response[bytes]:
        grant = _consent_grant(server, data)
        if isinstance(grant, Response):
            return grant
        response: Response[bytes] = server.create_authorization_response(
            request=grant.request, grant_user=approver, grant=grant
        )
        return response

    return await _Run(factory, public_url, now, client_ids={data.first("client_id") or ""})(decide)
