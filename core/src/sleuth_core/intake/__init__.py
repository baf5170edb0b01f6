"""Alert intake, the pure part: webhook and chat bodies in, normalised events out.

- :func:`parse_alert` - a provider's webhook body -> :class:`AlertEvent` (PROVIDER_A PagerDuty V3,
  PROVIDER_B Opsgenie, PROVIDER_C FireHydrant, PROVIDER_D Rootly, GENERIC any JSON object).
- :func:`parse_chat_event` - a chat Events API delivery -> :class:`ChatChallenge` or
  :class:`ChatEvent`.
- :mod:`.signatures` - ``verify_*`` / ``sign_*`` for each provider's native signature and Sleuth's
  own ``X-Service-Webhook-Signature`` / ``?token=`` scheme; the clock is passed in.

Unreadable bodies raise :class:`~sleuth_core.errors.InvalidAlertPayload` (a ``CoreError``: 400).
See docs/integrations.md for what each adapter reads.
"""

from sleuth_core.intake._values import MAX_FIELDS_LENGTH, MAX_TITLE_LENGTH, parse_time
from sleuth_core.intake.chat import ChatChallenge, ChatEvent, ChatKind, parse_chat_event
from sleuth_core.intake.event import AlertEvent, AlertKind, AlertSource
from sleuth_core.intake.providers import parse_alert
from sleuth_core.intake.signatures import (
    NATIVE_SIGNATURE_HEADERS,
    REPLAY_WINDOW,
    sign_chat,
    sign_firehydrant,
    sign_generic,
    sign_pagerduty,
    sign_rootly,
    verify_chat,
    verify_firehydrant,
    verify_generic,
    verify_native,
    verify_pagerduty,
    verify_rootly,
)

__all__ = [
    "MAX_FIELDS_LENGTH",
    "MAX_TITLE_LENGTH",
    "NATIVE_SIGNATURE_HEADERS",
    "REPLAY_WINDOW",
    "AlertEvent",
    "AlertKind",
    "AlertSource",
    "ChatChallenge",
    "ChatEvent",
    "ChatKind",
    "parse_alert",
    "parse_chat_event",
    "parse_time",
    "sign_chat",
    "sign_firehydrant",
    "sign_generic",
    "sign_pagerduty",
    "sign_rootly",
    "verify_chat",
    "verify_firehydrant",
    "verify_generic",
    "verify_native",
    "verify_pagerduty",
    "verify_rootly",
]
