"""OpenAICompatModel against a real OpenAI-compatible HTTP server on 127.0.0.1.

The ``openai`` SDK sends through ``httpx2``, so only a real socket sees its requests.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from deepresearch.errors import ModelError, ModelNotAvailableError
from deepresearch.llm.base import ChatModel, Message
from deepresearch.llm.openai_compat import OpenAICompatModel, mask_secret

SECRET = "sk-test-secret-0123456789abcdef"
SCHEMA = {"type": "object", "properties": {"queries": {"type": "array"}}}
REPLY = "Hello from fake"
JSON_REPLY = '{"queries": ["a", "b"]}'


@dataclass
class FakeOpenAI:
    """What the fake server does, and what it received."""

    api_key: str | None = None
    models: list[str] = field(default_factory=lambda: ["fake-model"])
    rejects: Callable[[dict[str, Any]], bool] = lambda body: False
    delay: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            if self.path != "/v1/models":
                self._json(404, {"error": {"message": "no such route"}})
                return
            data = [{"id": m, "object": "model", "owned_by": "fake"} for m in fake.models]
            self._json(200, {"object": "list", "data": data})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            fake.requests.append(body)
            fake.headers.append({k.lower(): v for k, v in self.headers.items()})
            time.sleep(fake.delay)
            if self.path != "/v1/chat/completions":
                self._json(404, {"error": {"message": "no such route"}})
            elif fake.api_key and self.headers["Authorization"] != f"Bearer {fake.api_key}":
                key = self.headers["Authorization"].removeprefix("Bearer ")
                message = f"Incorrect API key provided: {key}"
                self._json(401, {"error": {"message": message, "type": "invalid_request_error"}})
            elif body["model"] not in fake.models:
                self._json(404, {"error": {"message": f"model '{body['model']}' not found"}})
            elif fake.rejects(body):
                message = "response_format is not supported by this server"
                self._json(500, {"error": {"message": message, "type": "server_error"}})
            elif body.get("stream"):
                self._stream(REPLY)
            else:
                self._json(200, _completion(body))

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, text: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            words = text.split(" ")
            pieces = [words[0]] + [f" {w}" for w in words[1:]]
            for piece in ["", *pieces]:
                self.wfile.write(f"data: {json.dumps(_chunk(piece))}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")

    return Handler


def _completion(body: dict[str, Any]) -> dict[str, Any]:
    text = JSON_REPLY if "response_format" in body else REPLY
    prompt = sum(len(m["content"].split()) for m in body["messages"])
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": len(text.split()),
            "total_tokens": prompt + len(text.split()),
        },
    }


def _chunk(piece: str) -> dict[str, Any]:
    delta = {"role": "assistant", "content": piece} if piece == "" else {"content": piece}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "fake-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
    }


@pytest.fixture
def fake() -> FakeOpenAI:
    return FakeOpenAI()


@pytest.fixture
def base_url(fake: FakeOpenAI) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _model(base_url: str, **overrides: Any) -> OpenAICompatModel:
    options: dict[str, Any] = {
        "api_key": None,
        "model": "fake-model",
        "max_retries": 0,
        "timeout": 10.0,
    }
    options.update(overrides)
    return OpenAICompatModel(base_url=base_url, **options)


QUESTION = [Message("system", "Be brief."), Message("user", "Say hello please")]


def test_is_a_chat_model(base_url: str) -> None:
    assert isinstance(_model(base_url), ChatModel)


def test_complete_round_trip_with_usage(base_url: str, fake: FakeOpenAI) -> None:
    completion = _model(base_url).complete(QUESTION, max_tokens=32)

    assert completion.text == REPLY
    assert completion.finish_reason == "stop"
    assert completion.usage.as_dict() == {"prompt_tokens": 5, "completion_tokens": 3, "calls": 1}
    sent = fake.requests[0]
    assert sent["max_tokens"] == 32
    assert sent["temperature"] == 0.0
    assert sent["messages"][1] == {"role": "user", "content": "Say hello please"}
    assert "response_format" not in sent


def test_schema_is_sent_as_json_object_with_schema_hint(base_url: str, fake: FakeOpenAI) -> None:
    completion = _model(base_url).complete(QUESTION, schema=SCHEMA)

    assert json.loads(completion.text) == {"queries": ["a", "b"]}
    assert fake.requests[0]["response_format"] == {"type": "json_object", "schema": SCHEMA}


def test_json_schema_mode_sends_json_schema(base_url: str, fake: FakeOpenAI) -> None:
    _model(base_url, json_mode="json_schema").complete(QUESTION, schema=SCHEMA)

    sent = fake.requests[0]["response_format"]
    assert sent["type"] == "json_schema"
    assert sent["json_schema"]["schema"] == SCHEMA


def test_json_mode_none_sends_no_response_format(base_url: str, fake: FakeOpenAI) -> None:
    _model(base_url, json_mode="none").complete(QUESTION, schema=SCHEMA)

    assert "response_format" not in fake.requests[0]


def test_stream_yields_deltas(base_url: str, fake: FakeOpenAI) -> None:
    chunks = list(_model(base_url).stream(QUESTION, max_tokens=16))

    assert chunks == ["Hello", " from", " fake"]
    assert fake.requests[0]["stream"] is True
    assert fake.requests[0]["max_tokens"] == 16


def test_rejected_response_format_is_dropped_and_remembered(base_url: str, fake: FakeOpenAI) -> None:
    fake.rejects = lambda body: "response_format" in body
    model = _model(base_url)

    first = model.complete(QUESTION, schema=SCHEMA)
    second = model.complete(QUESTION, schema=SCHEMA)

    assert first.text == second.text == REPLY
    formats = [r.get("response_format") for r in fake.requests]
    assert formats == [
        {"type": "json_object", "schema": SCHEMA},
        {"type": "json_object"},
        None,
        None,
    ]


def test_rejected_json_schema_falls_back_to_json_object(base_url: str, fake: FakeOpenAI) -> None:
    fake.rejects = lambda body: body.get("response_format", {}).get("type") == "json_schema"
    model = _model(base_url, json_mode="json_schema")

    model.complete(QUESTION, schema=SCHEMA)
    model.complete(QUESTION, schema=SCHEMA)

    types = [r["response_format"]["type"] for r in fake.requests]
    assert types == ["json_schema", "json_object", "json_object"]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_unreachable_server_names_url_not_key() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    model = _model(url, api_key=SECRET)

    with pytest.raises(ModelNotAvailableError) as caught:
        model.complete(QUESTION)

    message = str(caught.value)
    assert isinstance(caught.value, ModelError)
    assert url in message
    assert "base URL" in message
    assert SECRET not in message


def test_unreachable_server_while_streaming() -> None:
    model = _model(f"http://127.0.0.1:{_closed_port()}/v1")

    with pytest.raises(ModelNotAvailableError):
        list(model.stream(QUESTION))


def test_wrong_key_says_llm_api_key_and_masks_it(base_url: str, fake: FakeOpenAI) -> None:
    fake.api_key = "the-right-key"

    with pytest.raises(ModelNotAvailableError) as caught:
        _model(base_url, api_key=SECRET).complete(QUESTION)

    message = str(caught.value)
    assert "LLM_API_KEY" in message
    assert SECRET not in message
    assert mask_secret(SECRET) in message


def test_unknown_model_lists_the_offered_ones(base_url: str, fake: FakeOpenAI) -> None:
    with pytest.raises(ModelNotAvailableError) as caught:
        _model(base_url, model="no-such-model").complete(QUESTION)

    message = str(caught.value)
    assert "'no-such-model'" in message
    assert "fake-model" in message
    assert "LLM_MODEL" in message


def test_wrong_path_says_fix_the_base_url(base_url: str) -> None:
    with pytest.raises(ModelNotAvailableError) as caught:
        _model(base_url.removesuffix("/v1")).complete(QUESTION)

    assert "base URL" in str(caught.value)


def test_timeout_is_a_model_error(base_url: str, fake: FakeOpenAI) -> None:
    fake.delay = 2.0

    with pytest.raises(ModelError) as caught:
        _model(base_url, timeout=0.3).complete(QUESTION)

    assert "did not answer" in str(caught.value)


def test_no_key_sends_a_placeholder_not_the_environment(
    base_url: str, fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "key-from-environment")

    _model(base_url).complete(QUESTION)

    assert fake.headers[0]["authorization"] == "Bearer no-key"


def test_list_models(base_url: str) -> None:
    assert _model(base_url).list_models() == ["fake-model"]


def test_repr_masks_the_key(base_url: str) -> None:
    assert SECRET not in repr(_model(base_url, api_key=SECRET))


@pytest.mark.parametrize(
    ("secret", "shown"),
    [(None, "(none)"), ("short", "****"), (SECRET, "****cdef")],
)
def test_mask_secret(secret: str | None, shown: str) -> None:
    assert mask_secret(secret) == shown
