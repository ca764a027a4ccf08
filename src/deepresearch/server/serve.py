"""Running the service with uvicorn (what ``deepresearch serve`` calls)."""

from __future__ import annotations

from deepresearch.settings import Settings


def serve(settings: Settings, *, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info") -> None:
    """Serve :func:`deepresearch.server.create_app` on ``host:port`` until interrupted.

    Uvicorn's access log shows method, path and status only; request bodies and headers (the
    bearer token) are never logged.
    """
    import uvicorn

    from deepresearch.server.app import create_app

    uvicorn.run(create_app(settings), host=host, port=port, log_level=log_level, timeout_graceful_shutdown=5)
