"""Change records: the deploys, commits, feature-flag flips and config changes of an organization.

`sleuth_shell.changes.ingest` validates and stores what ``POST /api/v1/changes`` receives (one
record per ``(org, change id)``: sending a record again replaces it); `sleuth_shell.changes.store`
is the `~sleuth_shell.agents.base.ChangeStore` agents, the API and the pages read.
"""
