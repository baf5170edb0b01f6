"""Errors raised by sleuth_core.

Every error derives from :class:`CoreError`; ``str(error)`` is a message a user can act on, and the
service returns it unchanged as the HTTP ``detail``::

    CoreError
     ├── InvalidCriteria      matching criteria, patterns, rule trees, regexes
     ├── InvalidSchedule      cron expressions
     ├── InvalidRange         credit-usage start/end (messages are the SPEC's billing details)
     ├── InvalidSettings      the advanced-settings document
     ├── InvalidAlertPayload  an inbound alert or chat body the intake cannot read
     └── InvalidSources       agent output the renderer refuses (source ids, markdown type)
"""

from __future__ import annotations


class CoreError(ValueError):
    """Base class of every error sleuth_core raises. ``str()`` is the user-facing message."""


class InvalidCriteria(CoreError):
    """Matching criteria (``text_matches``, ``match_rules``, a regex, ...) are not acceptable."""


class InvalidSchedule(CoreError):
    """A cron expression is not acceptable. The message names the field and the problem."""


class InvalidRange(CoreError):
    """A credit-usage range is missing, malformed, reversed or too long."""


class InvalidSettings(CoreError):
    """The advanced-settings document is not acceptable."""


class InvalidAlertPayload(CoreError):
    """An inbound webhook or chat body is not JSON or lacks what its provider always sends."""


class InvalidSources(CoreError):
    """An agent's answer cannot be rendered: colliding or mistyped source ids, non-str markdown.

    Raised by :func:`sleuth_core.render.render_answer`; a run that gets it ends ``FAILED``.
    """
