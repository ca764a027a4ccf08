"""``deepresearch mcp``: the MCP server over stdin/stdout, with the service's job runner beside it.

Jobs started with ``start_research`` run in this process and live in the same jobs database as
``deepresearch serve`` (``DEEPRESEARCH_HOME/jobs.sqlite``), so past reports are shared.
"""

from __future__ import annotations

from deepresearch.llm.base import ChatModel
from deepresearch.search.base import SearchBackend
from deepresearch.settings import Settings


def run_stdio(
    settings: Settings, *, model: ChatModel | None = None, search: SearchBackend | None = None
) -> None:
    """Serve MCP on stdio until the client closes it."""
    from deepresearch.jobs.factory import jobs_backend
    from deepresearch.server.mcp.server import build_server
    from deepresearch.service import Service

    service = Service(settings, model, search)
    manager = jobs_backend(service)
    manager.start()
    try:
        build_server(service, manager).run("stdio")
    finally:
        manager.stop()
        manager.close()
