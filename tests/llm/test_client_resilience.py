"""OpenAICompatModel's retries, timeouts, streams, tool calling and secrecy, on a real socket."""

from __future__ import annotations

import json
import logging
import socket
import time
from typing import Any

import pytest

from deepresearch.errors import ModelError, ModelNotAvailableError, ModelTimeoutError
from deepresearch.llm.base import Message
from deepresearch.llm.openai_compat import OpenAICompatModel
from deepresearch.retry import MAX_RETRY_AFTER, RetryPolicy, retry_after

from ..closing import Models
from ..fakeopenai import FakeOpenAI, Reply

SECRET = "sk-resilience-0123456789abcdef-XYZ"
SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
HELLO = [Message("user", "Say hello")]


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def _model(
    models: Models, base_url: str, sleeps: Sleeps | None = None, **overrides: Any
) -> OpenAICompatModel:
    options: dict[str, Any] = {"api_key": None, "model": "fake-model", "max_retries": 2, "timeout": 5.0}
    if sleeps is not None:
        options["sleep"] = sleeps
    return models.keep(OpenAICompatModel(base_url=base_url, **{**options, **overrides}))


def test_5xx_is_retried_with_backoff(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    fake.script = [Reply(status=503, error="warming up"), Reply(status=502, error="bad gateway")]
    sleeps = Sleeps()

    assert _model(models, base_url, sleeps, retry_base_delay=0.5).complete(HELLO).text == "Hello from fake"

    assert len(fake.requests) == 3
    assert 0.5 <= sleeps[0] <= 0.625 and 1.0 <= sleeps[1] <= 1.25


def test_retries_stop_after_max_retries_with_the_status(
    base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    fake.script = [Reply(status=500, error="down")] * 3

    with pytest.raises(ModelError, match="HTTP 500"):
        _model(models, base_url, Sleeps(), max_retries=1).complete(HELLO)

    assert len(fake.requests) == 2


def test_429_honours_retry_after(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    fake.script = [Reply(status=429, error="rate limited", headers={"Retry-After": "7"})]
    sleeps = Sleeps()

    _model(models, base_url, sleeps).complete(HELLO)

    assert len(sleeps) == 1 and 7.0 <= sleeps[0] <= 7.0 * 1.25


def test_429_asking_for_too_long_is_a_clear_error_at_once(
    base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    wait = str(int(MAX_RETRY_AFTER * 2))
    fake.script = [Reply(status=429, error="quota", headers={"Retry-After": wait})]
    sleeps = Sleeps()

    with pytest.raises(ModelError, match="rate limiting"):
        _model(models, base_url, sleeps).complete(HELLO)

    assert sleeps == [] and len(fake.requests) == 1


def test_other_4xx_are_not_retried(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    fake.script = [Reply(status=400, error="bad request")]

    with pytest.raises(ModelError, match="HTTP 400"):
        _model(models, base_url, Sleeps()).complete(HELLO)

    assert len(fake.requests) == 1


def test_a_timeout_is_not_retried(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    fake.script = [Reply(delay=2.0)]
    started = time.monotonic()

    with pytest.raises(ModelError, match="did not answer within 0.5s"):
        _model(models, base_url, Sleeps(), timeout=0.5).complete(HELLO)

    assert time.monotonic() - started < 1.8
    assert len(fake.requests) == 1


@pytest.mark.parametrize("streamed", [False, True])
def test_an_answer_dripped_a_byte_at_a_time_is_cut_off_at_the_total_deadline(
    base_url: str, fake: FakeOpenAI, streamed: bool, models: Models
) -> None:
    """Each byte arrives well within the read timeout; only a deadline over the whole call ends it."""
    fake.script = [Reply(content="x" * 200, drip=0.1)]
    model = _model(models, base_url, Sleeps(), timeout=1.0)
    started = time.monotonic()

    with pytest.raises(ModelTimeoutError, match="did not answer within 1s"):
        if streamed:
            list(model.stream(HELLO))
        else:
            model.complete(HELLO)

    assert time.monotonic() - started < 2.5
    assert len(fake.requests) == 1


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_connection_errors_are_retried_then_named(base_url: str, models: Models) -> None:
    sleeps = Sleeps()
    url = f"http://127.0.0.1:{_closed_port()}/v1"

    with pytest.raises(ModelNotAvailableError, match="Cannot reach"):
        _model(models, url, sleeps).complete(HELLO)

    assert len(sleeps) == 2


def test_a_stream_is_retried_before_its_first_chunk(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    fake.script = [Reply(status=500, error="busy"), Reply(chunks=["Hel", "lo"])]

    assert list(_model(models, base_url, Sleeps()).stream(HELLO)) == ["Hel", "lo"]
    assert len(fake.requests) == 2


def test_a_stream_dropped_before_any_content_is_retried(
    base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    fake.script = [Reply(chunks=["never"], drop_after=0), Reply(chunks=["Hi"])]

    assert list(_model(models, base_url, Sleeps()).stream(HELLO)) == ["Hi"]


def test_a_stream_refused_on_every_try_names_the_status(
    base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    fake.script = [Reply(status=503, error="overloaded")] * 3
    sleeps = Sleeps()

    with pytest.raises(ModelError, match="HTTP 503") as caught:
        list(_model(models, base_url, sleeps).stream(HELLO))

    assert "broke off" not in str(caught.value)
    assert len(fake.requests) == 3 and len(sleeps) == 2


def test_a_stream_without_content_yields_nothing(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    fake.script = [Reply(chunks=[])]

    assert list(_model(models, base_url, Sleeps()).stream(HELLO)) == []
    assert len(fake.requests) == 1


def test_a_stream_broken_after_its_first_chunk_is_not_retried(
    base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    fake.script = [Reply(chunks=["Hel", "lo", " there"], drop_after=1)]
    received: list[str] = []

    with pytest.raises(ModelError, match="broke off a stream"):
        received.extend(_model(models, base_url, Sleeps()).stream(HELLO))

    assert received == ["Hel"]
    assert len(fake.requests) == 1


def test_usage_is_counted_when_the_server_sends_none(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    fake.script = [Reply("twelve chars", usage=False)]

    usage = _model(models, base_url).complete([Message("user", "x" * 40)]).usage

    assert (usage.prompt_tokens, usage.completion_tokens, usage.calls) == (10, 3, 1)


def test_extra_body_goes_into_every_request(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    model = _model(models, base_url, extra_body={"options": {"num_ctx": 8192}})

    model.complete(HELLO, schema=SCHEMA)
    list(model.stream(HELLO))

    assert [r["options"] for r in fake.requests] == [{"num_ctx": 8192}] * 2
    assert fake.requests[0]["response_format"]["schema"] == SCHEMA


def test_json_schema_ladder_ends_in_plain_text(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    fake.rejects = lambda body: "response_format" in body
    model = _model(models, base_url, json_mode="json_schema")

    assert model.structured_mode() == "json_schema"
    model.complete(HELLO, schema=SCHEMA)

    sent = [r.get("response_format") for r in fake.requests]
    assert [f["type"] if f else None for f in sent] == ["json_schema", "json_object", "json_object", None]
    assert sent[1] == {"type": "json_object", "schema": SCHEMA}
    assert model.structured_mode() == "none"


def test_probe_reports_the_accepted_shape(base_url: str, fake: FakeOpenAI, models: Models) -> None:
    fake.rejects = lambda body: body.get("response_format", {}).get("type") == "json_schema"

    assert _model(models, base_url, json_mode="json_schema").probe_structured() == "json_object + schema"


def test_tool_calling_sends_a_forced_tool_and_reads_its_arguments(
    base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    fake.script = [Reply("", tool_arguments='{"ok": true}')]
    model = _model(models, base_url, tool_calling=True)

    completion = model.complete(HELLO, step="judge", schema=SCHEMA)

    assert json.loads(completion.text) == {"ok": True}
    sent = fake.requests[0]
    assert sent["tools"][0]["function"] == {
        "name": "submit_judge",
        "description": "Submit the answer.",
        "parameters": SCHEMA,
    }
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "submit_judge"}}
    assert model.structured_mode() == "tools"


def test_a_missing_tool_call_returns_the_content_for_the_ladder(
    base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    fake.script = [Reply('I think {"ok": true}')]

    assert (
        _model(models, base_url, tool_calling=True).complete(HELLO, schema=SCHEMA).text
        == 'I think {"ok": true}'
    )


def test_rejected_tools_fall_back_to_response_format_once(
    base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    fake.rejects = lambda body: "tools" in body
    fake.rejection = "tool calling is not supported"
    model = _model(models, base_url, tool_calling=True)

    model.complete(HELLO, schema=SCHEMA)
    model.complete(HELLO, schema=SCHEMA)

    assert ["tools" in r for r in fake.requests] == [True, False, False]
    assert fake.requests[1]["response_format"]["type"] == "json_object"
    assert model.structured_mode() == "json_object + schema"


def test_no_log_line_and_no_error_holds_the_key(
    base_url: str, fake: FakeOpenAI, caplog: pytest.LogCaptureFixture, models: Models
) -> None:
    fake.script = [Reply(status=500, error=f"boom for key {SECRET}")] * 3
    caplog.set_level(logging.DEBUG)

    with pytest.raises(ModelError) as caught:
        _model(models, base_url, Sleeps(), api_key=SECRET).complete(HELLO)

    assert SECRET not in str(caught.value)
    assert SECRET not in caplog.text
    assert "retry 1/2" in caplog.text


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after": "Thu, 01 Jan 1970 00:01:40 GMT"}, 40.0),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_forms(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after(headers, now=lambda: 60.0) == seconds


def test_backoff_grows_and_is_capped() -> None:
    policy = RetryPolicy(max_retries=10, base_delay=1.0, max_delay=4.0)

    assert 1.0 <= policy.backoff(0) <= 1.25
    assert 2.0 <= policy.backoff(1) <= 2.5
    assert policy.backoff(5) == 4.0
