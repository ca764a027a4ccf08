"""``/mcp``: the MCP server on the HTTP service, when the ``mcp`` package is installed."""

from __future__ import annotations

import importlib.util
import logging

from fastapi import FastAPI

from deepresearch.jobs.base import JobsBackend
from deepresearch.service import Service

_log = logging.getLogger("deepresearch.server")


def install_mcp(app: FastAPI, service: Service, manager: JobsBackend) -> bool:
    """Mount MCP's streamable HTTP at ``/mcp`` (same token as the API); ``False`` without ``mcp``."""
    if importlib.util.find_spec("mcp") is None:
        _log.info("no /mcp: pip install 'deepresearch-offline[mcp]' to serve MCP")
        return False
    from deepresearch.server.mcp.http import mount_mcp

    mount_mcp(app, service, manager)
    return True
