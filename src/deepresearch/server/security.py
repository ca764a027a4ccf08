"""Limits and safety of the service: body size, bearer token, CORS, and secret redaction."""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import FastAPI, HTTPException, Security, status
from fastapi.middleware.cors import CORSMiddleware
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from deepresearch.errors import ConfigurationError
from deepresearch.settings import Settings

bearer_scheme = HTTPBearer(auto_error=False, description="The server's API_TOKEN, when one is set.")


def token_guard(settings: Settings) -> Callable[..., Awaitable[None]]:
    """A dependency that requires ``Authorization: Bearer <API_TOKEN>`` when a token is set."""
    expected = settings.api_token.get_secret_value() if settings.api_token else ""

    async def require_token(
        credentials: Annotated[HTTPAuthorizationCredentials | None, Security(bearer_scheme)],
    ) -> None:
        if not expected:
            return
        given = credentials.credentials if credentials else ""
        if not secrets.compare_digest(given.encode(), expected.encode()):
            raise HTTPException(
                status.HTTP_401_UNAUTHORIZED,
                "missing or wrong bearer token: send Authorization: Bearer <API_TOKEN>",
                headers={"WWW-Authenticate": "Bearer"},
            )

    return require_token


def install_cors(app: FastAPI, settings: Settings) -> list[str]:
    """Allow the origins in ``CORS_ORIGINS`` (comma-separated); none when it is empty.

    ``*`` allows any origin but never with credentials; explicit origins may send credentials.
    Returns the allowed origins.
    """
    origins = cors_origins(settings)
    if not origins:
        return []
    refuse_open_cors(settings)
    wildcard = "*" in origins
    app.add_middleware(
        CORSMiddleware,
        allow_origins=["*"] if wildcard else origins,
        allow_credentials=not wildcard,
        allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
        allow_headers=["Authorization", "Content-Type", "Last-Event-ID"],
        max_age=600,
    )
    return ["*"] if wildcard else origins


def refuse_open_cors(settings: Settings) -> None:
    """:class:`ConfigurationError` for ``CORS_ORIGINS=*`` without ``API_TOKEN``: every web site
    its users visit could then start runs and read every report."""
    if "*" in cors_origins(settings) and not settings.api_token:
        raise ConfigurationError(
            "CORS_ORIGINS=* without API_TOKEN would let any web site you visit start runs and read "
            "reports: set API_TOKEN, or list the origins that may call the service in CORS_ORIGINS"
        )


LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
CROSS_SITE = frozenset({"cross-site", "same-site"})


def cors_origins(settings: Settings) -> list[str]:
    """``CORS_ORIGINS`` as a list of origins without trailing slashes."""
    return [o.strip().rstrip("/") for o in settings.cors_origins.split(",") if o.strip()]


class BrowserGuardMiddleware:
    """For a server without ``API_TOKEN``: whoever reaches it may use it, so make sure a web page
    the user happens to visit cannot.

    - ``Host`` must be a loopback name (``localhost``, ``127.0.0.1``, ``[::1]``) or one listed in
      ``ALLOWED_HOSTS``: a DNS-rebinding page reaches 127.0.0.1 under its own host name;
    - a request a browser sends from another origin (``Origin`` not this server and not in
      ``CORS_ORIGINS``), or marks as cross-site (``Sec-Fetch-Site``) without such an origin, is
      refused, the ``EventSource``/``<img>`` GETs that start a run included.

    Refusals are 403 with ``code`` ``forbidden``; tools that send neither header pass.
    """

    def __init__(self, app: ASGIApp, *, hosts: frozenset[str], origins: frozenset[str]) -> None:
        self.app = app
        self.hosts = LOOPBACK_HOSTS | {h.lower() for h in hosts}
        self.origins = origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        reason = self.refusal(Headers(scope=scope))
        if reason is None:
            await self.app(scope, receive, send)
            return
        body = json.dumps({"detail": reason, "code": "forbidden"}).encode()
        await Response(body, 403, media_type="application/json")(scope, receive, send)

    def refusal(self, headers: Headers) -> str | None:
        """Why a request with ``headers`` is refused, or ``None``."""
        host = headers.get("host", "")
        if _host_name(host) not in self.hosts:
            return (
                f"host {host!r} is not served without a token: set API_TOKEN, or list the host in "
                "ALLOWED_HOSTS"
            )
        origin = headers.get("origin")
        if origin is not None and not self._origin_ok(origin.rstrip("/"), host):
            return f"cross-origin request from {origin!r} refused: set API_TOKEN or list it in CORS_ORIGINS"
        if origin is None and headers.get("sec-fetch-site", "").lower() in CROSS_SITE:
            return "cross-site browser request refused: set API_TOKEN to serve other sites"
        return None

    def _origin_ok(self, origin: str, host: str) -> bool:
        if "*" in self.origins or origin in self.origins:
            return True
        return origin.partition("://")[2].lower() == host.lower()


def _host_name(host: str) -> str:
    """``"127.0.0.1:8000"`` → ``127.0.0.1``, ``"[::1]:8000"`` → ``::1``, lower-cased."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def browser_guarded(settings: Settings) -> bool:
    """Whether a server with ``settings`` has the browser guard: it has no ``API_TOKEN``."""
    return settings.api_token is None or not settings.api_token.get_secret_value()


def install_browser_guard(app: FastAPI, settings: Settings) -> bool:
    """Guard a server that has no ``API_TOKEN`` (see :class:`BrowserGuardMiddleware`); True if installed."""
    if not browser_guarded(settings):
        return False
    hosts = frozenset(h.strip() for h in settings.allowed_hosts.split(",") if h.strip())
    app.add_middleware(BrowserGuardMiddleware, hosts=hosts, origins=frozenset(cors_origins(settings)))
    return True


class BodyLimitMiddleware:
    """Answers 413 to a request body larger than ``max_bytes`` (by Content-Length or as it streams).

    A streamed body is cut off at the limit: the 413 goes out at once, and whatever the app answers
    to the truncated request (frameworks turn the error into a 400) is dropped.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._reject(send)
            return
        received = 0
        started = rejected = False

        async def limited_receive() -> Message:
            nonlocal received, rejected
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes and not rejected:
                    rejected = True
                    if not started:
                        await self._reject(send)
                    raise _TooLargeError
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if rejected:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except _TooLargeError:
            return

    async def _reject(self, send: Send) -> None:
        body = json.dumps(
            {
                "detail": f"request body too large: the limit is {self.max_bytes} bytes (MAX_BODY_BYTES)",
                "code": "payload_too_large",
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class _TooLargeError(Exception):
    pass


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
