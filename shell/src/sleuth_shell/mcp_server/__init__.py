"""The MCP server for coding agents at ``/mcp``.

:mod:`.server` serves it, :mod:`.tools` defines the tools, :mod:`.reads` queries what they read.
"""

from sleuth_shell.mcp_server.server import McpEndpoint

__all__ = ["McpEndpoint"]
