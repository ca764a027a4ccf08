"""``deepresearch mcp``: research tools for assistants over MCP on stdin/stdout."""

from __future__ import annotations

import importlib.util

from deepresearch.cli.console import friendly_errors
from deepresearch.errors import ConfigurationError


def mcp_command() -> None:
    """Serve research tools over MCP on stdin/stdout (for desktop chat apps and IDE agents).

    Tools: research, start_research, research_status, get_report, search_notes; completed
    reports are resources. Configure it like any run (LLM_PROVIDER, SEARCH_API, ...)."""
    from deepresearch.settings import Settings

    with friendly_errors():
        if importlib.util.find_spec("mcp") is None:
            from deepresearch.server.mcp import MISSING

            raise ConfigurationError(MISSING)
        settings = Settings.load()
    from deepresearch.server.mcp.stdio import run_stdio

    run_stdio(settings)
