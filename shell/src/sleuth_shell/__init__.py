"""sleuth_shell: the Sleuth service around sleuth_core (HTTP API, storage, jobs, agents, CLI)."""

__version__ = "0.1.0"
