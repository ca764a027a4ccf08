"""deepresearch as an MCP server (``deepresearch-offline[mcp]``): ``deepresearch mcp`` speaks MCP over
stdio; ``deepresearch serve`` also answers MCP's streamable HTTP at ``/mcp``, behind the same token.

The ``mcp`` package is imported only by the modules below, so the rest of deepresearch works
without it.
"""

from __future__ import annotations

MISSING = "the MCP server needs the mcp package: pip install 'deepresearch-offline[mcp]'"
