"""The MCP server on the HTTP service: streamable HTTP at ``/mcp``, behind the service's token.

The route is added to the FastAPI app with a bearer-token gate (the same ``API_TOKEN`` as the
REST routes) and the MCP session manager runs inside the app's lifespan.
"""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from mcp.server.transport_security import TransportSecuritySettings
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from deepresearch.jobs.base import JobsBackend
from deepresearch.server.mcp.server import build_server
from deepresearch.service import Service

MCP_PATH = "/mcp"
UNAUTHORIZED = "missing or wrong bearer token: send Authorization: Bearer <API_TOKEN>"


def mount_mcp(app: FastAPI, service: Service, manager: JobsBackend) -> None:
    """Serve MCP at ``/mcp`` on ``app``. Host and Origin checks are the service's own
    (``ALLOWED_HOSTS``, ``CORS_ORIGINS``), so the SDK's loopback-only default is off."""
    server = build_server(service, manager)
    starlette_app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    endpoint = next(r for r in starlette_app.routes if isinstance(r, Route) and r.path == MCP_PATH)
    token = service.settings.api_token
    gated = TokenGate(endpoint.app, token.get_secret_value() if token else None)
    app.router.routes.append(Route(MCP_PATH, endpoint=gated))
    _run_sessions_with(app, server)


class TokenGate:
    """Lets a request through to ``inner`` only with ``Authorization: Bearer <token>`` (when set)."""

    def __init__(self, inner: ASGIApp, token: str | None) -> None:
        self.inner = inner
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.token is None or self._authorized(scope):
            await self.inner(scope, receive, send)
            return
        response = JSONResponse(
            {
                "detail": "missing or wrong bearer token: send Authorization: Bearer <API_TOKEN>",
                "code": "unauthorized",
            },
            status_code=401,
            headers={"WWW-Authenticate": "Bearer"},
        )
        await response(scope, receive, send)

    def _authorized(self, scope: Scope) -> bool:
        headers = dict(scope.get("headers") or [])
        given = headers.get(b"authorization", b"").decode("latin-1")
        scheme, _, value = given.partition(" ")
        expected = self.token or ""
        return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), expected.encode())


def _run_sessions_with(app: FastAPI, server: Any) -> None:
    original = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(instance: Any) -> AsyncIterator[Any]:
        async with original(instance) as state, server.session_manager.run():
            yield state

    app.router.lifespan_context = lifespan
