"""The ``sleuth`` command line: operator commands printing JSON, ``serve`` and ``worker``."""

from __future__ import annotations

import click

from sleuth_shell import __version__


@click.group()
@click.version_option(__version__, prog_name="sleuth")
def main() -> None:
    """Sleuth: an AI investigation assistant for on-call teams."""
