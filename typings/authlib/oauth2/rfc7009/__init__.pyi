from typing import Any, ClassVar

class RevocationEndpoint:
    ENDPOINT_NAME: ClassVar[str]
    server: Any
    def __init__(self, server: Any = ...) -> None: ...
    def __getattr__(self, name: str) -> Any: ...
