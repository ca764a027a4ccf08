"""Any OpenAI-compatible chat server (Ollama, LM Studio, vLLM, llama.cpp's server, DeepSeek, ...).

One client for all of them; presets (:mod:`deepresearch.llm.presets`) are configuration, not
subclasses. ``openai`` and transport errors are mapped here to :class:`ModelError` /
:class:`ModelNotAvailableError` with messages that say what to fix (base URL, API key, model id)
and never contain the API key; log lines never contain it either.

Structured output: a server that rejects a ``response_format`` shape (400/422/500 mentioning it)
is asked again with the next, plainer shape, down to none at all; with ``tool_calling`` the
schema goes out as a forced function tool first, and a server that rejects tools falls back to
``response_format``. Rejections are remembered for later calls on the same object. The prompt
still carries the schema; that is the caller's job.

Resilience: ``timeout`` bounds each request in total — connect, headers and every byte of the
answer (a server that drips its answer is cut off; see :class:`DeadlineTransport`); 429, 5xx and
connection errors are retried with
backoff by :class:`~deepresearch.retry.RetryPolicy` (``Retry-After`` honoured), in one loop
(:meth:`OpenAICompatModel._retried`) for answers and streams alike; a stream is retried only
before its first chunk. The SDK's own retries are off, so this policy is the only one: the SDK
would retry a timeout (multiplying ``LLM_TIMEOUT`` on a server that is stuck), fall back to its own
backoff when a server asks to wait longer than it allows (instead of ending the call at once), not
retry a stream that drops before its first chunk, log nothing at warning level, and sleep on a
clock no caller can replace.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import re
import threading
import time
from collections.abc import Callable, Generator, Iterator, Mapping
from typing import Any, Literal, NoReturn, TypeVar

import httpx
import openai
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from deepresearch.errors import ModelError, ModelNotAvailableError, ModelTimeoutError
from deepresearch.llm.base import ChatModelBase, Completion, Message, ModelCall, Usage
from deepresearch.retry import RetryPolicy, retry_after, retryable_status
from deepresearch.settings import mask_secret

__all__ = ["JsonMode", "OpenAICompatModel", "mask_secret"]

JsonMode = Literal["json_schema", "json_object", "none"]

NO_KEY = "no-key"
FORMAT_REJECTION_STATUSES = frozenset({400, 422, 500, 501})
FORMAT_WORDS = ("response_format", "json_schema", "json_object", "schema", "grammar")
TOOL_WORDS = ("tool", "function")
LOG_DETAIL_CHARS = 160
PROBE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
}
_log = logging.getLogger("deepresearch.llm")


def _http_errors(name: str) -> tuple[type[Exception], ...]:
    """``httpx``'s (and ``httpx2``'s, which ``openai`` 3.x sends through) error class ``name``:
    transport errors escape the SDK while a stream is being read."""
    errors: list[type[Exception]] = [getattr(httpx, name)]
    with contextlib.suppress(ImportError):
        errors.append(getattr(importlib.import_module("httpx2"), name))
    return tuple(errors)


def _sdk_http() -> Any:
    """The HTTP library the ``openai`` SDK sends through (``httpx2`` from 3.x, ``httpx`` before)."""
    client = next(c for c in openai.DefaultHttpxClient.__mro__ if c.__name__ == "Client")
    return importlib.import_module(client.__module__.split(".")[0])


_HTTP = _sdk_http()
_ByteStream: Any = _HTTP.SyncByteStream
_Transport: Any = _HTTP.BaseTransport


class _DeadlineStream(_ByteStream):  # type: ignore[misc]
    """A response body that raises ``ReadTimeout`` once its request's total deadline has passed."""

    def __init__(self, inner: Any, deadline: float, seconds: float, request: Any) -> None:
        self.inner = inner
        self.deadline = deadline
        self.seconds = seconds
        self.request = request

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            if time.monotonic() > self.deadline:
                raise _HTTP.ReadTimeout(f"no complete answer within {self.seconds:g}s", request=self.request)
            yield chunk

    def close(self) -> None:
        self.inner.close()


class DeadlineTransport(_Transport):  # type: ignore[misc]
    """Sends requests with a total deadline of ``seconds`` each: connect, the headers and every
    chunk of the body (streamed or not) must arrive within it, counted from when the request was
    sent. Each single wait is bounded by the client's per-phase timeout as well, so a request that
    stalls ends within ``seconds`` plus at most one read timeout; its connection is then closed,
    which tells the server to stop generating."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.inner = _HTTP.HTTPTransport()

    def handle_request(self, request: Any) -> Any:
        deadline = time.monotonic() + self.seconds
        response = self.inner.handle_request(request)
        response.stream = _DeadlineStream(response.stream, deadline, self.seconds, request)
        return response

    def close(self) -> None:
        self.inner.close()


TRANSPORT_ERRORS = _http_errors("TransportError")
TIMEOUT_ERRORS: tuple[type[Exception], ...] = (
    openai.APITimeoutError,
    *_http_errors("TimeoutException"),
)
CONNECTION_ERRORS: tuple[type[Exception], ...] = (openai.APIConnectionError, *TRANSPORT_ERRORS)
CALL_ERRORS: tuple[type[Exception], ...] = (openai.OpenAIError, *TRANSPORT_ERRORS)
"""What a call can raise: the SDK's errors, and transport errors while a stream is read."""
T = TypeVar("T")


def _never(_exc: Exception) -> bool:
    return False


class OpenAICompatModel(ChatModelBase):
    """A ChatModel over the ``/v1/chat/completions`` endpoint of an OpenAI-compatible server.

    ``api_key=None`` sends a placeholder (local servers need none; the SDK would otherwise read
    its own environment variable). ``max_retries`` extra attempts follow 429, 5xx and connection
    errors, ``retry_base_delay`` seconds apart at first. ``json_mode`` picks the first
    ``response_format`` shape tried when a schema is given. ``extra_body`` is merged into every
    request (Ollama's ``options``). ``sleep`` is how retries wait (tests pass a recorder).
    """

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        model: str,
        timeout: float = 120.0,
        temperature: float = 0.0,
        max_retries: int = 2,
        json_mode: JsonMode = "json_object",
        tool_calling: bool = False,
        extra_body: Mapping[str, Any] | None = None,
        retry_base_delay: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
        url_setting: str = "LLM_BASE_URL",
    ) -> None:
        self.name = model
        self.url_setting = url_setting
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.temperature = temperature
        self.json_mode: JsonMode = json_mode
        self.tool_calling = tool_calling
        self.extra_body = dict(extra_body or {})
        self.retry = RetryPolicy(max_retries=max_retries, base_delay=retry_base_delay)
        self._sleep = sleep
        self._api_key = api_key
        self._rejected_formats = 0
        self._tools_rejected = False
        self._closed = False
        self._flag_lock = threading.Lock()
        self._client = openai.OpenAI(
            api_key=api_key or NO_KEY,
            base_url=self.base_url,
            timeout=timeout,
            max_retries=0,  # self.retry is the one policy (see the module's docstring)
            http_client=openai.DefaultHttpxClient(transport=DeadlineTransport(timeout), timeout=timeout),
        )

    def __repr__(self) -> str:
        return (
            f"OpenAICompatModel(base_url={self.base_url!r}, model={self.model!r}, "
            f"api_key={mask_secret(self._api_key)!r})"
        )

    def on_complete(self, call: ModelCall) -> Completion:
        """Return the whole answer; with a schema, ask for JSON in the richest accepted shape."""
        params, schema = self._params(call.messages, call.max_tokens), call.schema
        if schema is not None and self.tool_calling and not self._tools_rejected:
            answered = self._complete_with_tool(params, schema, call.step)
            if answered is not None:
                return answered
        for level, response_format in self._formats(schema):
            try:
                return self._completion(params, self._send(params, {"response_format": response_format}))
            except openai.APIStatusError as exc:
                if not _rejects(exc, FORMAT_WORDS):
                    self._raise(exc)
                self._reject_format(level, exc)
            except openai.OpenAIError as exc:
                self._raise(exc)
        try:
            return self._completion(params, self._send(params, {}))
        except openai.OpenAIError as exc:
            self._raise(exc)

    def on_stream(self, call: ModelCall) -> Iterator[str]:
        """Yield content deltas as the server sends them; retried only before the first one."""
        params = self._params(call.messages, call.max_tokens)
        try:
            first, rest = self._retried(lambda: _first(self._stream_once(params)))
        except CALL_ERRORS as exc:
            self._raise(exc)
        with contextlib.closing(rest):
            if first is None:
                return
            yield first
            try:
                yield from rest
            except CALL_ERRORS as exc:
                self._raise(exc, streaming=True)

    def structured_mode(self) -> str:
        """How a schema is sent now: ``tools``, ``json_schema``, ``json_object + schema``,
        ``json_object`` or ``none`` (what earlier rejections left)."""
        if self.tool_calling and not self._tools_rejected:
            return "tools"
        ladder = _format_ladder(self.json_mode, PROBE_SCHEMA)[self._rejected_formats :]
        return _format_label(ladder[0]) if ladder else "none"

    def probe_structured(self) -> str:
        """Make one tiny structured call and return :meth:`structured_mode` after it."""
        question = [Message("user", 'Reply with the JSON object {"ok": true} and nothing else.')]
        self.complete(question, step="probe", schema=PROBE_SCHEMA, max_tokens=16)
        return self.structured_mode()

    def list_models(self) -> list[str]:
        """Return the model ids the server offers (``GET /models``)."""
        try:
            return [model.id for model in self._client.models.list()]
        except openai.OpenAIError as exc:
            self._raise(exc)

    def close(self) -> None:
        """Close the HTTP connections; a call still in flight (one a cancelled run abandoned) then
        fails once, and is not retried."""
        self._closed = True
        self._client.close()

    def _params(self, messages: list[Message], max_tokens: int) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": [m.as_dict() for m in messages],
            "max_tokens": max_tokens,
            "temperature": self.temperature,
        }

    def _complete_with_tool(
        self, params: dict[str, Any], schema: dict[str, Any], step: str
    ) -> Completion | None:
        name = _tool_name(step)
        function = {"name": name, "description": "Submit the answer.", "parameters": schema}
        tool = {"type": "function", "function": function}
        forced = {"type": "function", "function": {"name": name}}
        try:
            request = {**params, "tools": [tool], "tool_choice": forced}
            return self._completion(params, self._send(request, {}))
        except openai.APIStatusError as exc:
            if not _rejects(exc, TOOL_WORDS):
                self._raise(exc)
            self._tools_rejected = True
            _log.warning("%s rejected tools (%s); using response_format", self.base_url, self._brief(exc))
        except openai.OpenAIError as exc:
            self._raise(exc)
        return None

    def _formats(self, schema: dict[str, Any] | None) -> list[tuple[int, dict[str, Any]]]:
        if schema is None:
            return []
        ladder = _format_ladder(self.json_mode, schema)
        return list(enumerate(ladder))[self._rejected_formats :]

    def _reject_format(self, level: int, exc: openai.APIStatusError) -> None:
        with self._flag_lock:
            self._rejected_formats = max(self._rejected_formats, level + 1)
        _log.warning(
            "%s rejected response_format (HTTP %s: %s); next: %s",
            self.base_url,
            exc.status_code,
            self._brief(exc),
            self.structured_mode(),
        )

    def _send(self, params: dict[str, Any], extra: dict[str, Any]) -> ChatCompletion:
        """One answer, retried unless the server rejected the request's shape (the caller then
        asks again with a plainer one)."""
        body = {**self.extra_body, **extra} or None

        def rejected(exc: Exception) -> bool:
            return isinstance(exc, openai.APIStatusError) and _rejects_shape(exc, params, extra)

        def send() -> ChatCompletion:
            response: ChatCompletion = self._client.chat.completions.create(**params, extra_body=body)
            return response

        return self._retried(send, final=rejected)

    def _retried(self, attempt: Callable[[], T], *, final: Callable[[Exception], bool] = _never) -> T:
        """``attempt()``, called again after :meth:`_retry_delay` while it raises a retryable error
        that ``final`` does not claim; the last error is raised as it came."""
        tries = 0
        while True:
            try:
                return attempt()
            except CALL_ERRORS as exc:
                delay = None if final(exc) else self._retry_delay(exc, tries)
                if delay is None:
                    raise
                self._wait(exc, delay, tries)
            tries += 1

    def _stream_once(self, params: dict[str, Any]) -> Generator[str, None, None]:
        body = dict(self.extra_body) or None
        chunks = self._client.chat.completions.create(**params, stream=True, extra_body=body)
        with chunks:
            for chunk in chunks:
                delta = _delta(chunk)
                if delta:
                    yield delta

    def _retry_delay(self, exc: Exception, attempt: int) -> float | None:
        """Seconds to wait before attempt ``attempt + 2``, or ``None`` when ``exc`` is final."""
        if attempt >= self.retry.max_retries or isinstance(exc, TIMEOUT_ERRORS) or self._closed:
            return None
        if isinstance(exc, openai.APIStatusError):
            if not retryable_status(exc.status_code):
                return None
            return self.retry.delay(attempt, retry_after(exc.response.headers))
        if isinstance(exc, CONNECTION_ERRORS):
            return self.retry.backoff(attempt)
        return None

    def _wait(self, exc: Exception, delay: float, attempt: int) -> None:
        _log.warning(
            "%s: %s; retry %d/%d in %.1fs",
            self.base_url,
            self._what(exc),
            attempt + 1,
            self.retry.max_retries,
            delay,
        )
        self._sleep(delay)

    def _what(self, exc: Exception) -> str:
        if isinstance(exc, openai.APIStatusError):
            return f"HTTP {exc.status_code} ({self._brief(exc)})"
        return f"{type(exc).__name__} ({self._brief(exc)})"

    def _completion(self, params: dict[str, Any], response: ChatCompletion) -> Completion:
        completion = _completion(response, _prompt_chars(params))
        _log.debug(
            "%s %s: %d prompt + %d completion tokens, finish %s",
            self.base_url,
            self.model,
            completion.usage.prompt_tokens,
            completion.usage.completion_tokens,
            completion.finish_reason,
        )
        return completion

    def _raise(self, exc: Exception, *, streaming: bool = False) -> NoReturn:
        raise self._translate(exc, streaming=streaming) from None

    def _translate(self, exc: Exception, *, streaming: bool = False) -> ModelError:
        where = f"The model server at {self.base_url}"
        detail = self._detail(exc)
        if isinstance(exc, TIMEOUT_ERRORS):
            return ModelTimeoutError(
                f"{where} did not answer within {self.timeout:g}s (LLM_TIMEOUT covers the connection "
                "and the whole answer): raise LLM_TIMEOUT or use a smaller model."
            )
        if streaming:
            return ModelError(f"{where} broke off a stream after it started ({detail}); not retried.")
        if isinstance(exc, CONNECTION_ERRORS):
            return ModelNotAvailableError(
                f"Cannot reach the model server at {self.base_url} ({detail}): start the "
                f"server or fix the base URL ({self.url_setting})."
            )
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return ModelNotAvailableError(
                f"{where} refused the API key {mask_secret(self._api_key) or '(none)'} ({detail}): set "
                "LLM_API_KEY to a valid key for this server."
            )
        if isinstance(exc, openai.NotFoundError):
            return ModelNotAvailableError(self._not_found_message(detail))
        if isinstance(exc, openai.RateLimitError):
            return ModelError(f"{where} is rate limiting ({detail}): wait or raise LLM_MIN_INTERVAL_SECONDS.")
        if isinstance(exc, openai.APIStatusError):
            return ModelError(f"{where} answered HTTP {exc.status_code} ({detail}).")
        return ModelError(f"{where} sent an unusable answer ({detail}).")

    def _not_found_message(self, detail: str) -> str:
        try:
            available = [model.id for model in self._client.models.list()]
        except openai.OpenAIError:
            return (
                f"{self.base_url} has no chat endpoint ({detail}): fix the base URL "
                f"({self.url_setting}); OpenAI-compatible servers usually end it in /v1."
            )
        offered = ", ".join(available[:20]) or "none"
        return (
            f"The model server at {self.base_url} has no model {self.model!r} ({detail}): set "
            f"LLM_MODEL_ID to one it offers: {offered}."
        )

    def _detail(self, exc: Exception) -> str:
        return self._mask(_error_text(exc))

    def _brief(self, exc: Exception) -> str:
        """The error on one line, for logs (servers put tracebacks in their error bodies)."""
        text = " ".join(self._detail(exc).split())
        return text if len(text) <= LOG_DETAIL_CHARS else f"{text[: LOG_DETAIL_CHARS - 1]}…"

    def _mask(self, text: str) -> str:
        if self._api_key and self._api_key in text:
            return text.replace(self._api_key, mask_secret(self._api_key) or "***")
        return text


def _format_ladder(mode: JsonMode, schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``response_format`` shapes to try, richest first; none left means plain text.

    ``json_object`` with a ``schema`` key is llama.cpp's (and llama-cpp-python's) way of asking
    for grammar-constrained JSON; servers that do not know the key ignore it or reject it.
    """
    json_object: list[dict[str, Any]] = [{"type": "json_object", "schema": schema}, {"type": "json_object"}]
    if mode == "json_schema":
        named: dict[str, Any] = {"name": "response", "schema": schema, "strict": False}
        return [{"type": "json_schema", "json_schema": named}, *json_object]
    if mode == "json_object":
        return json_object
    return []


def _format_label(response_format: dict[str, Any]) -> str:
    kind = str(response_format.get("type"))
    return f"{kind} + schema" if kind == "json_object" and "schema" in response_format else kind


def _rejects_shape(exc: openai.APIStatusError, params: dict[str, Any], extra: dict[str, Any]) -> bool:
    if "response_format" in extra and _rejects(exc, FORMAT_WORDS):
        return True
    return "tools" in params and _rejects(exc, TOOL_WORDS)


def _rejects(exc: openai.APIStatusError, words: tuple[str, ...]) -> bool:
    if exc.status_code not in FORMAT_REJECTION_STATUSES:
        return False
    text = _error_text(exc).lower()
    return any(word in text for word in words)


def _tool_name(step: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", step)[:40]
    return f"submit_{cleaned}" if cleaned else "submit"


def _error_text(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    if exc.__cause__ is not None:
        text = f"{text} {exc.__cause__}"
    return text[:500]


def _completion(response: ChatCompletion, prompt_chars: int) -> Completion:
    """The answer and its usage: the server's, or counted (characters / 4) when it sent none."""
    choice = response.choices[0] if response.choices else None
    text = _answer_text(choice.message) if choice else ""
    usage = response.usage
    if usage is not None:
        counted = Usage(usage.prompt_tokens, usage.completion_tokens, 1)
    else:
        counted = Usage(prompt_chars // 4, (len(text) + 3) // 4, 1)
    return Completion(text=text, usage=counted, finish_reason=choice.finish_reason if choice else None)


def _prompt_chars(params: dict[str, Any]) -> int:
    return sum(len(str(m.get("content", ""))) for m in params["messages"])


def _answer_text(message: Any) -> str:
    """The content, or the arguments of the first tool call when the model called a tool."""
    calls = getattr(message, "tool_calls", None) or []
    for call in calls:
        function = getattr(call, "function", None)
        arguments = getattr(function, "arguments", None)
        if isinstance(arguments, str) and arguments.strip():
            return arguments
    content = message.content
    return content if isinstance(content, str) else ""


def _first(deltas: Generator[str, None, None]) -> tuple[str | None, Generator[str, None, None]]:
    """The first delta (None when the stream ended without one) and the rest: what an error before
    the first delta interrupts is retried; after it, the caller has seen text, and it is not."""
    return next(deltas, None), deltas


def _delta(chunk: ChatCompletionChunk) -> str:
    if not chunk.choices:
        return ""
    return chunk.choices[0].delta.content or ""
