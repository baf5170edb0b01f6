"""Alert intake, the pure part: webhook and chat bodies in, normalised events out.

- :func:`parse_alerts` - a webhook delivery -> its :class:`AlertEvent` s (PROVIDER_A PagerDuty V3,
  PROVIDER_B Opsgenie, PROVIDER_C FireHydrant, PROVIDER_D Rootly: one each; ALERTMANAGER and
  GRAFANA: one per entry of ``alerts``; GENERIC and any body not of its provider's shape: any JSON
  object); :func:`parse_alert` its first.
- :func:`parse_chat_event` - a chat Events API delivery -> :class:`ChatChallenge` or
  :class:`ChatEvent`.
- :func:`parse_change_delivery` - a GitHub or GitLab delivery -> the change records (commits,
  deploys) it announces.
- :mod:`.signatures` - ``verify_*`` / ``sign_*`` for each provider's native signature and Sleuth's
  own ``X-Service-Webhook-Signature`` / ``?token=`` scheme; the clock is passed in.

Unreadable bodies raise :class:`~sleuth_core.errors.InvalidAlertPayload` (a ``CoreError``: 400).
See docs/integrations.md for what each adapter reads.
"""

from sleuth_core.intake._values import MAX_FIELDS_LENGTH, MAX_TITLE_LENGTH, parse_time
from sleuth_core.intake.changes import (
    CHANGE_SOURCES,
    ChangeDelivery,
    ChangeSource,
    parse_change_delivery,
)
from sleuth_core.intake.chat import ChatChallenge, ChatEvent, ChatKind, parse_chat_event
from sleuth_core.intake.event import AlertEvent, AlertKind, AlertSource
from sleuth_core.intake.monitoring import prometheus_expression
from sleuth_core.intake.providers import parse_alert, parse_alerts
from sleuth_core.intake.signatures import (
    GRAFANA_SIGNATURE_HEADERS,
    GRAFANA_TIMESTAMP_HEADERS,
    NATIVE_SIGNATURE_HEADERS,
    REPLAY_WINDOW,
    bearer_token,
    sign_chat,
    sign_firehydrant,
    sign_generic,
    sign_github,
    sign_grafana,
    sign_pagerduty,
    sign_rootly,
    verify_chat,
    verify_firehydrant,
    verify_generic,
    verify_github,
    verify_gitlab,
    verify_grafana,
    verify_native,
    verify_pagerduty,
    verify_rootly,
)

__all__ = [
    "CHANGE_SOURCES",
    "GRAFANA_SIGNATURE_HEADERS",
    "GRAFANA_TIMESTAMP_HEADERS",
    "MAX_FIELDS_LENGTH",
    "MAX_TITLE_LENGTH",
    "NATIVE_SIGNATURE_HEADERS",
    "REPLAY_WINDOW",
    "AlertEvent",
    "AlertKind",
    "AlertSource",
    "ChangeDelivery",
    "ChangeSource",
    "ChatChallenge",
    "ChatEvent",
    "ChatKind",
    "bearer_token",
    "parse_alert",
    "parse_alerts",
    "parse_change_delivery",
    "parse_chat_event",
    "parse_time",
    "prometheus_expression",
    "sign_chat",
    "sign_firehydrant",
    "sign_generic",
    "sign_github",
    "sign_grafana",
    "sign_pagerduty",
    "sign_rootly",
    "verify_chat",
    "verify_firehydrant",
    "verify_generic",
    "verify_github",
    "verify_gitlab",
    "verify_grafana",
    "verify_native",
    "verify_pagerduty",
    "verify_rootly",
]
