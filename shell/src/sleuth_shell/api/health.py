"""``GET /health``: liveness, no API key, not rate limited."""

from __future__ import annotations

import msgspec
from litestar import get


class Health(msgspec.Struct):
    """The service is up."""

    status: str


@get("/health", operation_id="health", opt={"skip_rate_limit": True}, tags=["health"])
async def health() -> Health:
    """Liveness check: ``{"status": "ok"}``."""
    return Health(status="ok")


ROUTES = [health]
