"""Root-cause analysis: when a failure began, which change (if any) caused it, and how sure.

Pure and deterministic: `analyze` takes an `Evidence` (the alert, per-service error series and
error signatures, metric series, change records, outside signals, dependency hints) and returns an
`Analysis`:

1. **Onset** - per service, the change point of its error counts (baseline median and MAD over
   the early part of a long look-back, then a one-sided CUSUM), sharpened to the first sighting
   of the error messages that are new since; a saturation or latency metric of a failing service
   that shifted earlier (a slow leak) moves the onset back to that shift.
2. **Suspects** - every change, at the time it reached production (a commit at the deploy that
   shipped it, also another service's deploy), scored by its relatedness to the failure's
   signature (the terms of the new error messages, exception types, shifted metric names and
   the alert; rare compound identifiers count most), whether it is on the first failing service
   or one it calls, and its lead time. Changes after the onset, unshipped commits and changes
   that touch nothing the failure shows (decoys) are ruled out, each with the reason.
3. **Verdict** - ``change`` when the best suspect's relatedness reaches `LIKELY_AT` (and outside
   evidence is not stronger), ``external`` when the evidence points outside (TLS or DNS errors, a
   provider status notice naming what fails, a traffic surge, host saturation, a poison record,
   unrelated services failing together), else ``unknown``. Never a change on weak relatedness.

>>> from datetime import UTC, datetime, timedelta
>>> t0 = datetime(2026, 3, 14, 6, 0, tzinfo=UTC)
>>> at = lambda m: t0 + timedelta(minutes=m)
>>> errors = ErrorSeries("api", 300, tuple((at(5 * i), 0.0 if i < 60 else 25.0) for i in range(72)))
>>> sig = ErrorSignature("api", "x509: certificate has expired", 250, at(300), at(359))
>>> decoy = Change("c0ffee1", "api", "commit", at(290), "Tweak banner text", ("ui/banner.tsx",))
>>> alert = Alert("API down", "api", at(360))
>>> result = analyze(Evidence(alert, (errors,), (sig,), changes=(decoy,)))
>>> result.verdict, result.change_id, result.external_cause
('external', None, 'TLS certificate errors (an expired or invalid certificate)')
"""

from sleuth_core.rca.engine import LIKELY_AT, STRONG_AT, analyze
from sleuth_core.rca.model import (
    Alert,
    Analysis,
    Change,
    Confidence,
    ErrorSeries,
    ErrorSignature,
    Evidence,
    ExternalSignal,
    MetricPoints,
    Onset,
    Suspect,
    Verdict,
)
from sleuth_core.rca.signals import (
    ChangePoint,
    change_point,
    change_terms,
    message_template,
    relatedness,
    signature_terms,
)

__all__ = [
    "LIKELY_AT",
    "STRONG_AT",
    "Alert",
    "Analysis",
    "Change",
    "ChangePoint",
    "Confidence",
    "ErrorSeries",
    "ErrorSignature",
    "Evidence",
    "ExternalSignal",
    "MetricPoints",
    "Onset",
    "Suspect",
    "Verdict",
    "analyze",
    "change_point",
    "change_terms",
    "message_template",
    "relatedness",
    "signature_terms",
]
