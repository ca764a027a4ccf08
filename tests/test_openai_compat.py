"""OpenAICompatModel against a real OpenAI-compatible HTTP server on 127.0.0.1.

The ``openai`` SDK sends through ``httpx2``, so only a real socket sees its requests.
"""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest

from deepresearch.errors import ModelError, ModelNotAvailableError
from deepresearch.llm.base import ChatModel, Message
from deepresearch.llm.openai_compat import OpenAICompatModel
from deepresearch.settings import mask_secret

from .closing import Models
from .fakeopenai import REPLY, FakeOpenAI, Reply

SECRET = "sk-test-secret-0123456789abcdef"
SCHEMA = {"type": "object", "properties": {"queries": {"type": "array"}}}


def _model(models: Models, base_url: str, **overrides: Any) -> OpenAICompatModel:
    options: dict[str, Any] = {
        "api_key": None,
        "model": "fake-model",
        "max_retries": 0,
        "timeout": 10.0,
    }
    options.update(overrides)
    return models.keep(OpenAICompatModel(base_url=base_url, **options))


QUESTION = [Message("system", "Be brief."), Message("user", "Say hello please")]


def test_is_a_chat_model(base_url: str, models: Models) -> None:
    assert isinstance(_model(models, base_url), ChatModel)


def test_complete_round_trip_with_usage(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    completion = _model(models, base_url).complete(QUESTION, max_tokens=32)

    assert completion.text == REPLY
    assert completion.finish_reason == "stop"
    assert completion.usage.as_dict() == {"prompt_tokens": 5, "completion_tokens": 3, "calls": 1}
    sent = fake.requests[0]
    assert sent["max_tokens"] == 32
    assert sent["temperature"] == 0.0
    assert sent["messages"][1] == {"role": "user", "content": "Say hello please"}
    assert "response_format" not in sent


def test_schema_is_sent_as_json_object_with_schema_hint(
    base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    completion = _model(models, base_url).complete(QUESTION, schema=SCHEMA)

    assert json.loads(completion.text) == {"queries": ["a", "b"]}
    assert fake.requests[0]["response_format"] == {"type": "json_object", "schema": SCHEMA}


def test_json_schema_mode_sends_json_schema(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    _model(models, base_url, json_mode="json_schema").complete(QUESTION, schema=SCHEMA)

    sent = fake.requests[0]["response_format"]
    assert sent["type"] == "json_schema"
    assert sent["json_schema"]["schema"] == SCHEMA


def test_json_mode_none_sends_no_response_format(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    _model(models, base_url, json_mode="none").complete(QUESTION, schema=SCHEMA)

    assert "response_format" not in fake.requests[0]


def test_stream_yields_deltas(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    chunks = list(_model(models, base_url).stream(QUESTION, max_tokens=16))

    assert chunks == ["Hello", " from", " fake"]
    assert fake.requests[0]["stream"] is True
    assert fake.requests[0]["max_tokens"] == 16


def test_rejected_response_format_is_dropped_and_remembered(
    base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    fake.rejects = lambda body: "response_format" in body
    model = _model(models, base_url)

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


def test_rejected_json_schema_falls_back_to_json_object(
    base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    fake.rejects = lambda body: body.get("response_format", {}).get("type") == "json_schema"
    model = _model(models, base_url, json_mode="json_schema")

    model.complete(QUESTION, schema=SCHEMA)
    model.complete(QUESTION, schema=SCHEMA)

    types = [r["response_format"]["type"] for r in fake.requests]
    assert types == ["json_schema", "json_object", "json_object"]
    assert fake.requests[1]["response_format"]["schema"] == SCHEMA


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_unreachable_server_names_url_not_key(models: Models) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    model = _model(models, url, api_key=SECRET)

    with pytest.raises(ModelNotAvailableError) as caught:
        model.complete(QUESTION)

    message = str(caught.value)
    assert isinstance(caught.value, ModelError)
    assert url in message
    assert "base URL" in message
    assert SECRET not in message


def test_unreachable_server_while_streaming(models: Models) -> None:
    model = _model(models, f"http://127.0.0.1:{_closed_port()}/v1")

    with pytest.raises(ModelNotAvailableError):
        list(model.stream(QUESTION))


def test_wrong_key_says_llm_api_key_and_masks_it(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    fake.api_key = "the-right-key"

    with pytest.raises(ModelNotAvailableError) as caught:
        _model(models, base_url, api_key=SECRET).complete(QUESTION)

    message = str(caught.value)
    assert "LLM_API_KEY" in message
    assert SECRET not in message
    assert str(mask_secret(SECRET)) in message


def test_unknown_model_lists_the_offered_ones(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    with pytest.raises(ModelNotAvailableError) as caught:
        _model(models, base_url, model="no-such-model").complete(QUESTION)

    message = str(caught.value)
    assert "'no-such-model'" in message
    assert "fake-model" in message
    assert "LLM_MODEL" in message


def test_wrong_path_says_fix_the_base_url(base_url: str, models: Models) -> None:
    with pytest.raises(ModelNotAvailableError) as caught:
        _model(models, base_url.removesuffix("/v1")).complete(QUESTION)

    assert "base URL" in str(caught.value)


def test_timeout_is_a_model_error(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    fake.script = [Reply(delay=2.0)]

    with pytest.raises(ModelError) as caught:
        _model(models, base_url, timeout=0.3).complete(QUESTION)

    assert "did not answer" in str(caught.value)


def test_no_key_sends_a_placeholder_not_the_environment(
    base_url: str, fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, models: Models
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "key-from-environment")

    _model(models, base_url).complete(QUESTION)

    assert fake.headers[0]["authorization"] == "Bearer no-key"


def test_list_models(base_url: str, models: Models) -> None:
    assert _model(models, base_url).list_models() == ["fake-model"]


def test_repr_masks_the_key(base_url: str, models: Models) -> None:
    assert SECRET not in repr(_model(models, base_url, api_key=SECRET))


@pytest.mark.parametrize(
    ("secret", "shown"),
    [(None, None), ("", None), ("short", "***"), (SECRET, "…cdef"), (SECRET * 2, "sk-t…cdef")],
)
def test_mask_secret_shows_at_most_a_quarter(secret: str | None, shown: str | None) -> None:
    assert mask_secret(secret) == shown
