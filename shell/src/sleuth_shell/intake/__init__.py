"""Alert intake, the service part: provider webhook deliveries in, investigations out.

- :mod:`.service` - subscription lookup, authentication, delivery record, matching and
  :func:`~sleuth_shell.investigations.open_investigation` per matching agent.
- :mod:`.batch` - group commit: the deliveries of concurrent requests recorded, and their
  investigations opened, in one transaction.
- :mod:`.agent_index` - each organization's ACTIVE webhook agents in the core's ``MatchIndex``,
  cached per process and kept current through the organization's agent version.

The pure part (adapters, signatures) is :mod:`sleuth_core.intake`; the route is
:mod:`sleuth_shell.api.webhooks`; docs/alert-intake.md is the operator's guide.
"""

from sleuth_shell.intake.agent_index import AgentIndexCache
from sleuth_shell.intake.batch import DeliveryBatcher
from sleuth_shell.intake.service import (
    INTAKE_TYPES,
    Subscription,
    authenticate,
    find_subscription,
    receive_alert,
)

__all__ = [
    "INTAKE_TYPES",
    "AgentIndexCache",
    "DeliveryBatcher",
    "Subscription",
    "authenticate",
    "find_subscription",
    "receive_alert",
]
