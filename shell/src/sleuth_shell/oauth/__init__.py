"""The OAuth 2.1 authorization server that guards the MCP endpoint (docs/mcp.md).

:mod:`.policy` holds the rules that need no storage (lifetimes, redirect URIs, metadata),
:mod:`.store` the storage (clients, grants, codes, tokens; hashed at rest), :mod:`.server` the
authlib glue and the endpoints' flows, :mod:`.routes` the JSON endpoints. The consent page is
:mod:`sleuth_shell.web.oauth`.
"""
