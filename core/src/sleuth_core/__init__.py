"""sleuth_core: the pure core of Sleuth.

No I/O, no framework, no event loop: every function takes plain values (the clock included) and
returns plain values. Modules:

- :mod:`sleuth_core.ids` - Relay-style Global IDs.
- :mod:`sleuth_core.matching` - wildcard patterns and AND/OR rule trees, evaluation, ``MatchIndex``.
- :mod:`sleuth_core.cron` - five-field cron with Monday = 0.
- :mod:`sleuth_core.render` - citations, ``§`` removal, ``Sources:``, chat and alt renderings.
- :mod:`sleuth_core.credits` - credit-usage ranges and aggregation.
- :mod:`sleuth_core.settings` - advanced-settings validation and chat-trigger evaluation.
- :mod:`sleuth_core.intake` - provider webhook and chat bodies -> normalised events; signatures.
- :mod:`sleuth_core.rca` - root-cause analysis: onset, suspects, verdict (``analyze``).
- :mod:`sleuth_core.stacktrace` - stack traces and exception texts -> frames and exceptions.
- :mod:`sleuth_core.errors` - the error hierarchy (``CoreError`` and subclasses).
"""

__version__ = "0.1.0"
