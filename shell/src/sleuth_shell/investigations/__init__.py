"""Investigations: one run of an alert agent on one alert (see :mod:`.service`)."""

from sleuth_shell.investigations.service import (
    DEDUP_WINDOW,
    DEFAULT_PROMPT,
    INVESTIGATION,
    InvestigationOutcome,
    Opening,
    OpeningAgent,
    investigation_name,
    investigation_prompt,
    open_investigation,
    open_investigations,
    open_investigations_detailed,
    stop_investigation,
    stop_pending_investigations,
    stop_pending_statement,
)

__all__ = [
    "DEDUP_WINDOW",
    "DEFAULT_PROMPT",
    "INVESTIGATION",
    "InvestigationOutcome",
    "Opening",
    "OpeningAgent",
    "investigation_name",
    "investigation_prompt",
    "open_investigation",
    "open_investigations",
    "open_investigations_detailed",
    "stop_investigation",
    "stop_pending_investigations",
    "stop_pending_statement",
]
