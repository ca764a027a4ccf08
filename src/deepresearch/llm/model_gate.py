"""The front of ``deepresearch model-server``: what every request passes before it reaches the model.

The llama.cpp runtime serves one request at a time (one slot) and takes what it is given: a
``max_tokens`` of a million with ``ignore_eos``, a 20 MB prompt. So it listens on a loopback port
of its own, with a random key, and clients talk to this gate, which:

- checks the bearer key, when the server has one (``MODEL_SERVER_API_KEY``);
- refuses a body over :attr:`GateLimits.max_body_bytes` (``413``) before reading the rest of it;
- caps every generation's ``max_tokens`` / ``max_completion_tokens`` / ``n_predict`` at
  :attr:`GateLimits.max_tokens` (and sets it where the request sets none);
- gives each request the model in turn, first come first served, and cuts it off once it has
  held the model :attr:`GateLimits.request_seconds` (``504``, or an error event in a stream): the
  upstream connection is closed, which stops the generation;
- forwards only the routes an OpenAI-compatible client or deepresearch uses.

Errors are OpenAI-shaped (``{"error": {"message", "type", "code"}}``), so clients show them.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

GENERATION_ROUTES = (
    "/v1/chat/completions",
    "/chat/completions",
    "/v1/completions",
    "/completions",
    "/completion",
)
OTHER_POST_ROUTES = ("/tokenize", "/detokenize", "/apply-template")
GET_ROUTES = ("/v1/models", "/models", "/health", "/props")
TOKEN_FIELDS = ("max_tokens", "max_completion_tokens", "n_predict")


@dataclass(frozen=True)
class GateLimits:
    """What one client may ask of the shared model (``model-server --help`` names each option)."""

    max_tokens: int = 2048
    max_body_bytes: int = 2**20
    request_seconds: float = 300.0


class _RefusedError(Exception):
    def __init__(self, status: int, message: str, code: str) -> None:
        super().__init__(message)
        self.status, self.code = status, code


def capped_tokens(body: dict[str, Any], cap: int) -> dict[str, Any]:
    """``body`` with every token count a server reads at most ``cap`` (llama.cpp prefers
    ``n_predict`` to ``max_tokens``, so each is capped; ``-1``, absent or not a count means
    ``cap``)."""
    out = dict(body)
    for name in TOKEN_FIELDS:
        value = out.get(name)
        if name in out and not (isinstance(value, int) and not isinstance(value, bool) and 0 < value <= cap):
            out[name] = cap
    if not any(name in out for name in TOKEN_FIELDS):
        out["max_tokens"] = cap
    return out


def gate_app(upstream: str, upstream_key: str, api_key: str | None, limits: GateLimits) -> Starlette:
    """The gate in front of the runtime at ``upstream`` (``http://127.0.0.1:PORT``)."""
    gate = _Gate(upstream, upstream_key, api_key, limits)
    routes = [Route(path, gate.generate, methods=["POST"]) for path in GENERATION_ROUTES]
    routes += [Route(path, gate.forward, methods=["POST"]) for path in OTHER_POST_ROUTES]
    routes += [Route(path, gate.forward, methods=["GET"]) for path in GET_ROUTES]

    async def unknown(request: Request, exc: Exception) -> Response:
        return _error(
            404 if not isinstance(exc, HTTPException) else exc.status_code, "no such route", "not_found"
        )

    return Starlette(routes=routes, lifespan=gate.lifespan, exception_handlers={404: unknown, 405: unknown})


class _Gate:
    def __init__(self, upstream: str, upstream_key: str, api_key: str | None, limits: GateLimits) -> None:
        self.upstream, self.upstream_key, self.api_key, self.limits = upstream, upstream_key, api_key, limits
        self.slot = asyncio.Semaphore(1)
        self.client: httpx.AsyncClient | None = None

    @asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        headers = {"Authorization": f"Bearer {self.upstream_key}"}
        async with httpx.AsyncClient(base_url=self.upstream, headers=headers, timeout=None) as client:
            self.client = client
            yield

    async def forward(self, request: Request) -> Response:
        try:
            self._authorize(request)
            body = await self._body(request) if request.method == "POST" else None
        except _RefusedError as refused:
            return _error(refused.status, str(refused), refused.code)
        return await self._send(request, body, stream=False)

    async def generate(self, request: Request) -> Response:
        try:
            self._authorize(request)
            body = await self._json(request)
        except _RefusedError as refused:
            return _error(refused.status, str(refused), refused.code)
        body = capped_tokens(body, self.limits.max_tokens)
        await self.slot.acquire()
        if body.get("stream"):
            return await self._stream(request, body)
        try:
            return await self._send(request, json.dumps(body).encode(), stream=False)
        finally:
            self.slot.release()

    def _authorize(self, request: Request) -> None:
        if not self.api_key:
            return
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not secrets.compare_digest(given.encode(), self.api_key.encode()):
            raise _RefusedError(401, "missing or wrong key: send Authorization: Bearer <key>", "unauthorized")

    async def _body(self, request: Request) -> bytes:
        cap = self.limits.max_body_bytes
        too_big = _RefusedError(
            413, f"the request body is over the {cap:,}-byte limit (--max-body-kb)", "too_large"
        )
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise too_big
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > cap:
                raise too_big
            chunks.append(chunk)
        return b"".join(chunks)

    async def _json(self, request: Request) -> dict[str, Any]:
        try:
            body = json.loads(await self._body(request))
        except (ValueError, RecursionError):
            body = None
        if not isinstance(body, dict):
            raise _RefusedError(400, "the request body must be a JSON object", "invalid_request")
        return body

    def _upstream_request(self, request: Request, body: bytes | None) -> httpx.Request:
        assert self.client is not None
        headers = {"Content-Type": "application/json"} if body is not None else {}
        return self.client.build_request(request.method, request.url.path, content=body, headers=headers)

    async def _send(self, request: Request, body: bytes | None, *, stream: bool) -> Response:
        assert self.client is not None
        try:
            answer = await asyncio.wait_for(
                self.client.send(self._upstream_request(request, body)), self.limits.request_seconds
            )
        except TimeoutError:
            return _error(504, self._too_long(), "timeout")
        except httpx.HTTPError as exc:
            return _error(502, f"the model runtime did not answer: {exc}", "upstream")
        kept = {k: v for k, v in answer.headers.items() if k.lower() == "content-type"}
        return Response(answer.content, answer.status_code, headers=kept)

    async def _stream(self, request: Request, body: dict[str, Any]) -> Response:
        """Streamed generations: the slot is held until the stream ends, is cut off, or the client
        leaves."""
        assert self.client is not None
        deadline = time.monotonic() + self.limits.request_seconds
        try:
            upstream = await asyncio.wait_for(
                self.client.send(self._upstream_request(request, json.dumps(body).encode()), stream=True),
                self.limits.request_seconds,
            )
        except TimeoutError:
            self.slot.release()
            return _error(504, self._too_long(), "timeout")
        except httpx.HTTPError as exc:
            self.slot.release()
            return _error(502, f"the model runtime did not answer: {exc}", "upstream")
        media = upstream.headers.get("content-type", "text/event-stream")

        async def done() -> None:
            await upstream.aclose()
            self.slot.release()

        return _HeldStream(self._relay(upstream, deadline), upstream.status_code, media, done)

    async def _relay(self, upstream: httpx.Response, deadline: float) -> AsyncIterator[bytes]:
        chunks = upstream.aiter_raw()
        while True:
            try:
                chunk = await asyncio.wait_for(anext(chunks), max(0.0, deadline - time.monotonic()))
            except StopAsyncIteration:
                return
            except TimeoutError:
                error = {"error": {"message": self._too_long(), "type": "server_error", "code": "timeout"}}
                yield f"data: {json.dumps(error)}\n\n".encode()
                return
            yield chunk

    def _too_long(self) -> str:
        seconds = self.limits.request_seconds
        return f"the request held the model past this server's limit of {seconds:g} s (--request-timeout)"


class _HeldStream(StreamingResponse):
    """A stream that holds the model: ``done`` (close upstream, free the slot) runs however the
    response ends, the client leaving before the first byte included."""

    def __init__(
        self, content: AsyncIterator[bytes], status: int, media_type: str, done: Callable[[], Awaitable[None]]
    ) -> None:
        super().__init__(content, status, media_type=media_type)
        self._done = done

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self._done()


def _error(status: int, message: str, code: str) -> JSONResponse:
    kind = "invalid_request_error" if status < 500 else "server_error"
    return JSONResponse({"error": {"message": message, "type": kind, "code": code}}, status)
