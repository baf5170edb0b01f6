from typing import Any

class OAuth2Error(Exception):
    error: str | None
    description: str | None
    redirect_uri: str | None
    state: str | None
    status_code: int
    def __init__(
        self,
        description: str | None = ...,
        uri: str | None = ...,
        status_code: int | None = ...,
        state: str | None = ...,
        redirect_uri: str | None = ...,
        redirect_fragment: bool = ...,
        error: str | None = ...,
    ) -> None: ...
    def __call__(self, uri: str | None = ...) -> tuple[int, Any, list[tuple[str, str]]]: ...

class InvalidGrantError(OAuth2Error): ...
class InvalidRequestError(OAuth2Error): ...

class OAuth2Payload:
    @property
    def data(self) -> Any: ...
    @property
    def datalist(self) -> Any: ...
    @property
    def client_id(self) -> Any: ...
    @property
    def redirect_uri(self) -> Any: ...
    @property
    def scope(self) -> Any: ...
    @property
    def state(self) -> Any: ...

class OAuth2Request:
    method: str
    uri: str
    headers: Any
    payload: Any
    client: Any
    user: Any
    scope: Any
    auth_method: Any
    def __init__(self, method: str, uri: str, body: Any = ..., headers: Any = ...) -> None: ...
    def __getattr__(self, name: str) -> Any: ...

class JsonPayload:
    @property
    def data(self) -> Any: ...

class JsonRequest:
    method: str
    uri: str
    headers: Any
    payload: Any
    def __init__(self, method: str, uri: str, headers: Any = ...) -> None: ...

class ClientMixin: ...
class AuthorizationCodeMixin: ...
class TokenMixin: ...

class AuthorizationServer:
    scopes_supported: list[str] | None
    def __init__(self, scopes_supported: list[str] | None = ...) -> None: ...
    def __getattr__(self, name: str) -> Any: ...
