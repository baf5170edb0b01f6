"""Data sources: the organization's own observability systems, queried at investigation time.

- :mod:`~sleuth_shell.datasources.store`: the API bodies' validation, storage, the connection test;
- :mod:`~sleuth_shell.datasources.crypto`: request headers encrypted at rest (key derived from the
  server secret);
- :mod:`~sleuth_shell.datasources.prometheus`: the Prometheus HTTP API client (``httpx``);
- :mod:`~sleuth_shell.datasources.pull`: `PrometheusPull`, the agents' ``DataSources``: what to
  query for a failure, time-boxed and bounded;
- :mod:`~sleuth_shell.datasources.snapshots`: every query result kept as an evidence snapshot
  with its SHA-256.
"""
