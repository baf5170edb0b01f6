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


def verify_generic(
    body: bytes,
    header: str | None,
    token: str | None,
    secret: str,
    *,
    bearer: str | None = None,
) -> bool:
    """Sleuth's own scheme, for every type: ``X-Service-Webhook-Signature: v1=<hex>`` of the
    body, or the ``?token=`` query parameter, or ``bearer`` (an ``Authorization: Bearer``
    credential, see :func:`bearer_token`) equal to the secret.

    >>> verify_generic(b"{}", None, None, "s3cret", bearer="s3cret")
    True
    """
    if header:
        scheme, _, given = header.strip().partition("=")
        if scheme == "v1" and _equal(_hex(secret, body), given):
            return True
    found = False
    for candidate in (token, bearer):
        if candidate is not None and hmac.compare_digest(
            candidate.encode("utf-8"), secret.encode("utf-8")
        ):
            found = True
    return found


def bearer_token(header: str | None) -> str | None:
    """The credentials of an ``Authorization: Bearer <credentials>`` header, else ``None``.

    >>> bearer_token("Bearer abc"), bearer_token("bearer  abc "), bearer_token("Basic abc")
    ('abc', 'abc', None)
    """
    if not header:
        return None
    scheme, _, credentials = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not credentials.strip():
        return None
    return credentials.strip()


#: Header names Grafana's webhook contact point is documented and configured to sign with (its
#: HMAC header name is configurable; these are the two spellings in use), and the timestamp header
#: names Sleuth reads when the contact point is set to send one.
GRAFANA_SIGNATURE_HEADERS = ("x-grafana-alerting-signature", "x-grafana-alert-signature")
GRAFANA_TIMESTAMP_HEADERS = (
    "x-grafana-alerting-timestamp",
    "x-grafana-alerting-signature-timestamp",
    "x-grafana-alert-timestamp",
)


def sign_grafana(body: bytes, secret: str, timestamp: int | None = None) -> str:
    """Grafana's HMAC signature: hex HMAC-SHA256 of the body, or of ``<timestamp>:<body>`` when
    the contact point sends a timestamp header."""
    signed = body if timestamp is None else f"{timestamp}:".encode("ascii") + body
    return _hex(secret, signed)


def verify_grafana(
    body: bytes, header: str | None, timestamp: str | None, secret: str, *, now: float
) -> bool:
    """GRAFANA: the contact point's HMAC (lower-case hex, no prefix) of the raw body, or of
    ``<timestamp>:<body>`` when a timestamp header came, which must then be within
    :data:`REPLAY_WINDOW` seconds of ``now``."""
    if not header:
        return False
    if timestamp is None:
        return _equal(_hex(secret, body), header)
    if _fresh(timestamp, now) is None:
        return False
    return _equal(_hex(secret, f"{timestamp.strip()}:".encode("ascii") + body), header)


def sign_github(body: bytes, secret: str) -> str:
    """``X-Hub-Signature-256`` value: ``sha256=<hex HMAC-SHA256(body)>``.

    >>> sign_github(b"Hello, World!", "It's a Secret to Everybody")
    'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17'
    """
    return "sha256=" + _hex(secret, body)


def verify_github(body: bytes, header: str | None, secret: str) -> bool:
    """GITHUB: ``X-Hub-Signature-256`` is ``sha256=`` and the lower-case hex HMAC-SHA256 of the
    raw body, keyed with the webhook secret."""
    if not header:
        return False
    scheme, _, given = header.strip().partition("=")
    return scheme == "sha256" and _equal(_hex(secret, body), given)


def verify_gitlab(header: str | None, secret: str) -> bool:
    """GITLAB: ``X-Gitlab-Token`` is the webhook's secret token itself (not a signature),
    compared in constant time."""
    if not header:
        return False
    return hmac.compare_digest(header.encode("utf-8"), secret.encode("utf-8"))


#: Header carrying each webhook type's native signature (lower-case).
NATIVE_SIGNATURE_HEADERS: Mapping[str, str] = {
    "PROVIDER_A": "x-pagerduty-signature",
    "PROVIDER_C": "fh-signature",
    "PROVIDER_D": "x-rootly-signature",
    "CHAT": "x-chat-signature",
    "GRAFANA": "x-grafana-alerting-signature",
    "GITHUB": "x-hub-signature-256",
    "GITLAB": "x-gitlab-token",
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
    if source == "GITHUB":
        return verify_github(body, header, secret)
    if source == "GITLAB":
        return verify_gitlab(header, secret)
    if source == "GRAFANA":
        signature = next((lowered[h] for h in GRAFANA_SIGNATURE_HEADERS if h in lowered), None)
        stamp = next((lowered[h] for h in GRAFANA_TIMESTAMP_HEADERS if h in lowered), None)
        return verify_grafana(body, signature, stamp, secret, now=now)
    return False
