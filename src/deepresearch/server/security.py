"""Limits and safety of the service: body size, bearer token, CORS, and secret redaction."""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import FastAPI, HTTPException, Security, status
from fastapi.middleware.cors import CORSMiddleware
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from deepresearch.settings import SECRET_FIELDS, Settings, mask_secret

bearer_scheme = HTTPBearer(auto_error=False, description="The server's API_TOKEN, when one is set.")


class Redactor:
    """Replaces every configured secret value (API keys, the API token) with its masked form.

    Applied to everything the service sends or stores from a run, so a secret echoed in an
    upstream error message never reaches a client or the jobs database.
    """

    def __init__(self, settings: Settings) -> None:
        raw = (getattr(settings, name) for name in SECRET_FIELDS)
        values = {s.get_secret_value() for s in raw if s is not None}
        self._pairs = sorted(((v, mask_secret(v) or "***") for v in values if v), key=lambda p: -len(p[0]))

    def text(self, value: str) -> str:
        for secret, masked in self._pairs:
            value = value.replace(secret, masked)
        return value

    def data(self, value: Any) -> Any:
        """``value`` (JSON-like) with secrets masked in every string, keys included."""
        if not self._pairs:
            return value
        return json.loads(self.text(json.dumps(value, ensure_ascii=False)))


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
    origins = [o.strip().rstrip("/") for o in settings.cors_origins.split(",") if o.strip()]
    if not origins:
        return []
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
                    raise _TooLarge
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if rejected:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except _TooLarge:
            return

    async def _reject(self, send: Send) -> None:
        body = json.dumps(
            {"detail": f"request body too large: the limit is {self.max_bytes} bytes (MAX_BODY_BYTES)"}
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


class _TooLarge(Exception):
    pass


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
