"""Small shared vocabulary of the service: enumerations and identifier checks."""

from __future__ import annotations

import unicodedata
from typing import Literal, get_args

__all__ = [
    "ALERT_SOURCE_TYPES",
    "ALERT_STATUSES",
    "API_KEY_HEADER",
    "CHANGE_SOURCE_TYPES",
    "DEFAULT_TEAM",
    "INTEGRATION_KINDS",
    "MAX_PK",
    "PLANS",
    "SUBSCRIPTION_TYPES",
    "AlertSourceType",
    "ChangeSourceType",
    "is_channel_id",
    "normalize_name",
]

#: Largest primary key a table can hold (32-bit ``INTEGER`` on PostgreSQL); larger IDs name nothing.
MAX_PK = 2**31 - 1

#: The request header that carries an organization API key (and the callback's copy of it).
API_KEY_HEADER = "X-Service-Org-Api-Key"

#: The team every organization gets on creation; unattributed interactions are charged to it.
DEFAULT_TEAM = "Default"

#: Webhook sources whose subscriptions can feed webhook-based alert agents: the four incident
#: providers, Prometheus Alertmanager, Grafana Alerting and any JSON (``GENERIC``).
AlertSourceType = Literal[
    "PROVIDER_A",
    "PROVIDER_B",
    "PROVIDER_C",
    "PROVIDER_D",
    "ALERTMANAGER",
    "GRAFANA",
    "GENERIC",
]
ALERT_SOURCE_TYPES: tuple[str, ...] = get_args(AlertSourceType)
#: Webhook sources that feed change records (commits, deploys), never alert agents.
ChangeSourceType = Literal["GITHUB", "GITLAB"]
CHANGE_SOURCE_TYPES: tuple[str, ...] = get_args(ChangeSourceType)
#: Every webhook subscription type; ``CHAT`` is the chat workspace connection, not an alert source.
SUBSCRIPTION_TYPES: tuple[str, ...] = (*ALERT_SOURCE_TYPES, *CHANGE_SOURCE_TYPES, "CHAT")
#: The organization plans, in increasing order of their default rate limits.
PLANS: tuple[str, ...] = ("free", "team", "enterprise")
#: Notification integration kinds.
INTEGRATION_KINDS: tuple[str, ...] = ("ALT_WEBHOOK", "CHAT_ALERT")
#: Alert agent statuses.
ALERT_STATUSES: tuple[str, ...] = ("ACTIVE", "PAUSED")

_MAX_CHANNEL_ID = 64


def is_channel_id(value: object) -> bool:
    """Whether ``value`` is a chat channel ID: ``C`` (public) or ``G`` (private) + letters/digits,
    2-64 characters in all. The one channel-ID rule: alert agents, digests, interactions,
    notification integrations and the chat outbox all check with it.

    >>> is_channel_id("C0123ABC"), is_channel_id("G9"), is_channel_id("D123"), is_channel_id("C")
    (True, True, False, False)
    """
    return (
        isinstance(value, str)
        and 2 <= len(value) <= _MAX_CHANNEL_ID
        and value[0] in "CG"
        and value[1:].isascii()
        and value[1:].isalnum()
    )


def normalize_name(value: str) -> str:
    """The form a name is stored and compared in: Unicode NFC, without surrounding whitespace.
    So "Café agent" typed as NFC or NFD, or with a trailing space, is one name.

    >>> normalize_name("Cafe\u0301 agent ") == normalize_name("Caf\u00e9 agent")
    True
    """
    return unicodedata.normalize("NFC", value).strip()
