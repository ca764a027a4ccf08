"""A small fault-injecting OpenAI-compatible server for tests, on 127.0.0.1.

The ``openai`` SDK sends through ``httpx2``, so only a real socket sees its requests. Each POST to
``/v1/chat/completions`` is answered by the next scripted :class:`Reply` (``FakeOpenAI.script``),
else by ``FakeOpenAI.responder``; a reply can be text, a stream (chunks given exactly, so tags can
be split across them), a tool call, an HTTP error with headers, a delay past the client's
timeout, or a stream that breaks off. :func:`research_responder` answers like a model that follows
every research step's instructions, with per-step overrides for the faults under test.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from deepresearch.llm.base import Message
from deepresearch.llm.testing import ModelCall, default_answer, distinct_plan

REPLY = "Hello from fake"
JSON_REPLY = '{"queries": ["a", "b"]}'


@dataclass(frozen=True)
class Reply:
    """One answer. ``content`` is the text (a stream sends ``chunks`` when given, else its words);
    ``status`` >= 400 sends ``error`` as an OpenAI error body; ``delay`` waits first; ``drop_after``
    closes a stream's connection after that many chunks without finishing it; ``drip`` sends the
    answer one byte at a time, ``drip`` seconds apart (a server that never quite stalls)."""

    content: str = REPLY
    chunks: Sequence[str] | None = None
    status: int = 200
    error: str = "internal error"
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    tool_arguments: str | None = None
    usage: bool = True
    drop_after: int | None = None
    drip: float = 0.0


Responder = Callable[[dict[str, Any]], Reply]


def default_responder(body: dict[str, Any]) -> Reply:
    return Reply(JSON_REPLY if "response_format" in body else REPLY)


@dataclass
class FakeOpenAI:
    """What the fake server does, and what it received."""

    api_key: str | None = None
    models: list[str] = field(default_factory=lambda: ["fake-model"])
    rejects: Callable[[dict[str, Any]], bool] = lambda body: False
    rejection: str = "response_format is not supported by this server"
    script: list[Reply] = field(default_factory=list)
    responder: Responder = default_responder
    routes: dict[str, Any] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    open_connections: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self.script:
                return self.script.pop(0)
        return self.responder(body)

    def connected(self, change: int) -> None:
        """A client connected (``+1``) or its connection ended (``-1``)."""
        with self._lock:
            self.open_connections += change

    def record(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            self.times.append(time.monotonic())


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        return


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def setup(self) -> None:
            super().setup()
            fake.connected(+1)

        def finish(self) -> None:
            fake.connected(-1)
            super().finish()

        def do_GET(self) -> None:
            if self.path in fake.routes:
                self._json(200, fake.routes[self.path])
            elif self.path == "/v1/models":
                data = [{"id": m, "object": "model", "owned_by": "fake"} for m in fake.models]
                self._json(200, {"object": "list", "data": data})
            else:
                self._json(404, {"error": {"message": "no such route"}})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path in fake.routes:
                self._json(200, fake.routes[self.path])
                return
            fake.record(body, {k.lower(): v for k, v in self.headers.items()})
            refusal = self._refusal(body)
            if refusal is not None:
                self._json(*refusal)
                return
            self._answer(body, fake.next_reply(body))

        def _refusal(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
            if self.path != "/v1/chat/completions":
                return 404, {"error": {"message": "no such route"}}
            if fake.api_key and self.headers["Authorization"] != f"Bearer {fake.api_key}":
                key = self.headers["Authorization"].removeprefix("Bearer ")
                return 401, _error(f"Incorrect API key provided: {key}", "invalid_request_error")
            if body["model"] not in fake.models:
                return 404, _error(f"model '{body['model']}' not found", "not_found")
            if fake.rejects(body):
                return 500, _error(fake.rejection, "server_error")
            return None

        def _answer(self, body: dict[str, Any], reply: Reply) -> None:
            time.sleep(reply.delay)
            if reply.status >= 400:
                self._json(reply.status, _error(reply.error, "server_error"), reply.headers)
            elif body.get("stream"):
                self._stream(reply)
            else:
                self._json(200, completion(body, reply), drip=reply.drip)

        def _json(
            self,
            status: int,
            payload: dict[str, Any],
            headers: Mapping[str, str] | None = None,
            drip: float = 0.0,
        ) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self._write(data, drip)

        def _write(self, data: bytes, drip: float) -> None:
            if not drip:
                self.wfile.write(data)
                return
            for index in range(len(data)):
                self.wfile.write(data[index : index + 1])
                self.wfile.flush()
                time.sleep(drip)

        def _stream(self, reply: Reply) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            pieces = list(reply.chunks) if reply.chunks is not None else _words(reply.content)
            for index, piece in enumerate(["", *pieces]):
                if reply.drop_after is not None and index > reply.drop_after:
                    self.close_connection = True
                    return
                self._chunk(f"data: {json.dumps(_chunk(piece))}\n\n", reply.drip)
            self._chunk("data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")

        def _chunk(self, text: str, drip: float = 0.0) -> None:
            data = text.encode()
            self._write(f"{len(data):x}\r\n".encode() + data + b"\r\n", drip)
            self.wfile.flush()

    return Handler


@contextmanager
def serve(fake: FakeOpenAI) -> Iterator[str]:
    """Run ``fake`` on 127.0.0.1 for the ``with`` block; yields the base URL (ending in ``/v1``)."""
    server = _Server(("127.0.0.1", 0), _handler(fake))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    text = reply.content
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if reply.tool_arguments is not None:
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": "submit", "arguments": reply.tool_arguments},
        }
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
    prompt = sum(len(str(m["content"]).split()) for m in body["messages"])
    payload: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }
    if reply.usage:
        produced = len(text.split())
        payload["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": produced,
            "total_tokens": prompt + produced,
        }
    return payload


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind}}


def _words(text: str) -> list[str]:
    words = text.split(" ")
    return [words[0], *(f" {w}" for w in words[1:])] if text else []


def _chunk(piece: str) -> dict[str, Any]:
    delta = {"role": "assistant", "content": piece} if piece == "" else {"content": piece}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "fake-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
    }


STEP_MARKERS = (
    ("choose the research role", "role"),
    ("split the question", "plan"),
    ("write web search queries", "queries"),
    ("judge whether collected evidence", "judge"),
    ("summarise what sources say", "summarize"),
    ("writing a research report", "report"),
    ("answer the question with a short phrase", "answer"),
)


def step_of(body: dict[str, Any]) -> str:
    """Which research step sent ``body``, read from its system prompt."""
    system = " ".join(str(m["content"]) for m in body["messages"] if m["role"] == "system").lower()
    return next((step for marker, step in STEP_MARKERS if marker in system), "other")


StepAnswer = Reply | Callable[[dict[str, Any]], Reply]


def research_responder(overrides: Mapping[str, StepAnswer] | None = None) -> Responder:
    """Answer every research step well (as :func:`default_answer` does), except the steps in
    ``overrides``, which get their own reply."""

    def respond(body: dict[str, Any]) -> Reply:
        step = step_of(body)
        answer = (overrides or {}).get(step)
        if answer is not None:
            return answer(body) if callable(answer) else answer
        messages = [Message(m["role"], str(m["content"])) for m in body["messages"]]
        if step == "plan":
            question = messages[-1].content.rsplit("Question: ", 1)[-1]
            return Reply(
                json.dumps({"role": "general_researcher", "focus": "", "tasks": distinct_plan(question)})
            )
        call = ModelCall(step, messages, None, int(body.get("max_tokens") or 0))
        return Reply(default_answer(call))

    return respond
