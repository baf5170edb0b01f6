"""Callback signing: ``X-Service-Signature: v1=<hex HMAC-SHA256 of the exact body bytes>``.

The key is the organization's ``signing_secret`` (printed by ``sleuth admin create-org``). The
signature covers the body exactly as sent; ``X-Service-Timestamp`` (Unix seconds) tells the receiver
when the attempt was made, so it can refuse stale deliveries.
"""

from __future__ import annotations

import hashlib
import hmac

__all__ = ["SIGNATURE_HEADER", "TIMESTAMP_HEADER", "sign", "verify"]

SIGNATURE_HEADER = "X-Service-Signature"
TIMESTAMP_HEADER = "X-Service-Timestamp"


def sign(body: bytes, secret: str) -> str:
    """The ``X-Service-Signature`` value for ``body``: ``v1=`` and the hex HMAC-SHA256."""
    digest = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return f"v1={digest}"


def verify(body: bytes, secret: str, signature: str) -> bool:
    """True when ``signature`` is the valid ``v1=`` signature of ``body`` (constant-time)."""
    return hmac.compare_digest(sign(body, secret), signature.strip())
