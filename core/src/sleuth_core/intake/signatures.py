"""Webhook signature checks (INTEGRATIONS 1-5, DESIGN 5); the clock is passed in.

Every ``verify_*`` returns ``True`` or ``False`` and never raises: a missing or malformed header
is simply ``False`` (the service answers 401 ``Invalid webhook token``). Digests are compared with
:func:`hmac.compare_digest`. The ``sign_*`` functions produce the header values a provider would
send, for tests and demos.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections.abc import Mapping

#: Largest accepted ``|now - timestamp|`` in seconds for timestamped schemes (Rootly, chat).
REPLAY_WINDOW = 300


def _hex(secret: str, data: bytes) -> str:
    return hmac.new(secret.encode("utf-8"), data, hashlib.sha256).hexdigest()


def _equal(expected: str, given: str) -> bool:
    return hmac.compare_digest(expected.encode("ascii"), given.strip().lower().encode("utf-8"))


def _fresh(timestamp: str, now: float) -> int | None:
    """The header timestamp as an int when it is within :data:`REPLAY_WINDOW` of ``now``."""
    stripped = timestamp.strip()
    if not stripped.isascii() or not stripped.isdigit() or len(stripped) > 12:
        return None
    value = int(stripped)
    if not math.isfinite(now) or abs(now - value) > REPLAY_WINDOW:
        return None
    return value


def sign_pagerduty(body: bytes, secret: str) -> str:
    """``X-PagerDuty-Signature`` value: ``v1=<hex HMAC-SHA256(body)>``."""
    return "v1=" + _hex(secret, body)


def verify_pagerduty(body: bytes, header: str | None, secret: str) -> bool:
    """PROVIDER_A: any of the comma-separated ``v1=<hex>`` values matches (secret rotation)."""
    if not header:
        return False
    expected = _hex(secret, body)
    found = False
    for part in header.split(","):
        scheme, _, value = part.strip().partition("=")
        if scheme == "v1" and _equal(expected, value):
            found = True  # keep comparing: the time taken does not depend on which one matched
    return found


def sign_firehydrant(body: bytes, secret: str) -> str:
    """``fh-signature`` value: hex HMAC-SHA256 of the body."""
    return _hex(secret, body)


def verify_firehydrant(body: bytes, header: str | None, secret: str) -> bool:
    """PROVIDER_C: ``fh-signature`` is the hex HMAC-SHA256 of the raw body."""
    return bool(header) and _equal(_hex(secret, body), header or "")


def sign_rootly(body: bytes, secret: str, timestamp: int) -> str:
    """``X-Rootly-Signature`` value: ``t=<unix>,v1=<hex HMAC-SHA256(t + body)>``."""
    return f"t={timestamp},v1=" + _hex(secret, str(timestamp).encode("ascii") + body)


def verify_rootly(body: bytes, header: str | None, secret: str, *, now: float) -> bool:
    """PROVIDER_D: ``t=<unix>,v1=<hex>`` over the timestamp immediately followed by the body.

    ``t`` must be within :data:`REPLAY_WINDOW` seconds of ``now`` (Unix seconds).
    """
    if not header:
        return False
    parts = dict(part.strip().partition("=")[::2] for part in header.split(","))
    timestamp, given = parts.get("t", ""), parts.get("v1", "")
    if not given or _fresh(timestamp, now) is None:
        return False
    return _equal(_hex(secret, timestamp.strip().encode("ascii") + body), given)


def sign_chat(body: bytes, secret: str, timestamp: int) -> str:
    """``X-Chat-Signature`` value: ``v0=<hex HMAC-SHA256("v0:{timestamp}:" + body)>``."""
    return "v0=" + _hex(secret, f"v0:{timestamp}:".encode("ascii") + body)


def verify_chat(
    body: bytes, signature: str | None, timestamp: str | None, secret: str, *, now: float
) -> bool:
    """Chat deliveries: ``X-Chat-Signature: v0=<hex>`` over ``v0:{timestamp}:{body}``, with
    ``X-Chat-Request-Timestamp`` within :data:`REPLAY_WINDOW` seconds of ``now``."""
    if not signature or not timestamp or _fresh(timestamp, now) is None:
        return False
    scheme, _, given = signature.strip().partition("=")
    if scheme != "v0":
        return False
    return _equal(_hex(secret, f"v0:{timestamp.strip()}:".encode("ascii") + body), given)


def sign_generic(body: bytes, secret: str) -> str:
    """``X-Service-Webhook-Signature`` value: ``v1=<hex HMAC-SHA256(body)>``."""
    return "v1=" + _hex(secret, body)


def verify_generic(body: bytes, header: str | None, token: str | None, secret: str) -> bool:
    """Sleuth's own scheme, for every type: ``X-Service-Webhook-Signature: v1=<hex>`` of the
    body, or the ``?token=`` query parameter equal to the secret."""
    if header:
        scheme, _, given = header.strip().partition("=")
        if scheme == "v1" and _equal(_hex(secret, body), given):
            return True
    if token is not None:
        return hmac.compare_digest(token.encode("utf-8"), secret.encode("utf-8"))
    return False


#: Header carrying each webhook type's native signature (lower-case).
NATIVE_SIGNATURE_HEADERS: Mapping[str, str] = {
    "PROVIDER_A": "x-pagerduty-signature",
    "PROVIDER_C": "fh-signature",
    "PROVIDER_D": "x-rootly-signature",
    "CHAT": "x-chat-signature",
}


def verify_native(
    source: str, headers: Mapping[str, str], body: bytes, secret: str, *, now: float
) -> bool:
    """Check ``source``'s native signature in ``headers`` (any case). ``False`` for a type
    without one (``PROVIDER_B`` signs nothing) and when the header is missing."""
    lowered = {key.lower(): value for key, value in headers.items()}
    header = lowered.get(NATIVE_SIGNATURE_HEADERS.get(source, ""))
    if source == "PROVIDER_A":
        return verify_pagerduty(body, header, secret)
    if source == "PROVIDER_C":
        return verify_firehydrant(body, header, secret)
    if source == "PROVIDER_D":
        return verify_rootly(body, header, secret, now=now)
    if source == "CHAT":
        timestamp = lowered.get("x-chat-request-timestamp")
        return verify_chat(body, header, timestamp, secret, now=now)
    return False
