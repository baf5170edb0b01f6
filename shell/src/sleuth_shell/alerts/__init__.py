"""The alert log: stored alerts and the decisions agents made about them (see :mod:`.service`).

Written by the intake (:mod:`sleuth_shell.alerts.decisions`); read here by the API, the pages and
the retention job.
"""

from sleuth_shell.alerts.service import (
    DECISIONS,
    DRY_RUN_DEFAULT,
    DRY_RUN_EXAMPLES,
    DRY_RUN_MAX,
    GLOBAL_TYPE,
    InvestigateRefused,
    StoredAlert,
    alerts_of_investigation,
    dry_run,
    investigate_alert,
    list_alerts,
    prune_alert_log,
    read_alert,
    retention_cutoff,
    trace_alert,
)

__all__ = [
    "DECISIONS",
    "DRY_RUN_DEFAULT",
    "DRY_RUN_EXAMPLES",
    "DRY_RUN_MAX",
    "GLOBAL_TYPE",
    "InvestigateRefused",
    "StoredAlert",
    "alerts_of_investigation",
    "dry_run",
    "investigate_alert",
    "list_alerts",
    "prune_alert_log",
    "read_alert",
    "retention_cutoff",
    "trace_alert",
]
