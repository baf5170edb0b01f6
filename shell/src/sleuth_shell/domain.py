"""Small shared vocabulary of the service: enumerations and identifier checks."""

from __future__ import annotations

__all__ = [
    "ALERT_STATUSES",
    "API_KEY_HEADER",
    "DEFAULT_TEAM",
    "INTEGRATION_KINDS",
    "MAX_PK",
    "SUBSCRIPTION_TYPES",
    "WEBHOOK_PROVIDER_TYPES",
    "is_channel_id",
]

#: Largest primary key a table can hold (32-bit ``INTEGER`` on PostgreSQL); larger IDs name nothing.
MAX_PK = 2**31 - 1

#: The request header that carries an organization API key (and the callback's copy of it).
API_KEY_HEADER = "X-Service-Org-Api-Key"

#: The team every organization gets on creation; unattributed interactions are charged to it.
DEFAULT_TEAM = "Default"

#: Webhook providers whose subscriptions can feed webhook-based alert agents.
WEBHOOK_PROVIDER_TYPES: tuple[str, ...] = ("PROVIDER_A", "PROVIDER_B", "PROVIDER_C", "PROVIDER_D")
#: Every webhook subscription type; ``CHAT`` is the chat workspace connection, not an alert source.
SUBSCRIPTION_TYPES: tuple[str, ...] = (*WEBHOOK_PROVIDER_TYPES, "CHAT")
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
