from typing import Any

class BearerTokenGenerator:
    def __init__(
        self,
        access_token_generator: Any,
        refresh_token_generator: Any = ...,
        expires_generator: Any = ...,
    ) -> None: ...
    def __call__(self, *args: Any, **kwargs: Any) -> dict[str, Any]: ...
