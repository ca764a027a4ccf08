"""Running the service with uvicorn (what ``deepresearch serve`` calls)."""

from __future__ import annotations

import logging

from deepresearch.settings import Settings


def serve(settings: Settings, *, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info") -> None:
    """Serve :func:`deepresearch.server.create_app` on ``host:port`` until interrupted.

    Uvicorn's access log shows method, path and status only; request bodies and headers (the
    bearer token) are never logged.
    """
    import uvicorn

    from deepresearch.server.app import create_app
    from deepresearch.server.security import LOOPBACK_HOSTS

    if host not in LOOPBACK_HOSTS and not settings.api_token:
        logging.getLogger(__name__).warning(
            "serving %s without API_TOKEN: only requests whose Host is a loopback name or in "
            "ALLOWED_HOSTS are answered; set API_TOKEN before letting other machines in",
            host,
        )
    uvicorn.run(create_app(settings), host=host, port=port, log_level=log_level, timeout_graceful_shutdown=5)
