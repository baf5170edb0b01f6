"""Credits and billing: the usage ledger, its rollups, and the credit-usage report.

- :mod:`sleuth_shell.billing.ledger` writes usage (:func:`record_usage`) and keeps the daily and
  monthly rollups current.
- :mod:`sleuth_shell.billing.usage` answers ``POST /api/v1/billing/credit-usage`` from the rollups,
  reading only the partial days at the edges of the range from the raw ledger.

See ``docs/billing.md`` for the model (features, attribution, exact sums).
"""

from sleuth_shell.billing.ledger import (
    CREDIT_RESOLUTION,
    FEATURE_CHAT_TRIGGER,
    FEATURE_DIGEST,
    FEATURE_FILTER,
    FEATURE_INTERACTION,
    FEATURE_INVESTIGATION,
    FEATURES,
    UNATTRIBUTED_TEAM_KEY,
    quantize_credits,
    rebuild_rollups,
    record_usage,
)

__all__ = [
    "CREDIT_RESOLUTION",
    "FEATURES",
    "FEATURE_CHAT_TRIGGER",
    "FEATURE_DIGEST",
    "FEATURE_FILTER",
    "FEATURE_INTERACTION",
    "FEATURE_INVESTIGATION",
    "UNATTRIBUTED_TEAM_KEY",
    "quantize_credits",
    "rebuild_rollups",
    "record_usage",
]
