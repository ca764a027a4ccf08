"""Any OpenAI-compatible chat server (Ollama, LM Studio, vLLM, llama.cpp's server, DeepSeek, ...).

One client for all of them; presets are configuration, not subclasses. ``openai`` errors are
mapped here to :class:`ModelError` / :class:`ModelNotAvailableError` with messages that say what
to fix (base URL, API key, model id) and never contain the API key.

Structured output: a server that rejects a ``response_format`` shape (400/422/500 mentioning it)
is asked again with the next, plainer shape, down to none at all; the rejection is remembered for
later calls on the same object. The prompt still carries the schema; that is the caller's job.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any, Literal, NoReturn

import openai
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from deepresearch.errors import ModelError, ModelNotAvailableError
from deepresearch.llm.base import Completion, Message, Usage

__all__ = ["JsonMode", "OpenAICompatModel", "mask_secret"]

JsonMode = Literal["json_schema", "json_object", "none"]

NO_KEY = "no-key"
FORMAT_REJECTION_STATUSES = frozenset({400, 422, 500})
FORMAT_WORDS = ("response_format", "json_schema", "json_object", "schema", "grammar")


def mask_secret(secret: str | None) -> str:
    """Return a form of ``secret`` safe to show: at most its last four characters."""
    if not secret:
        return "(none)"
    return f"****{secret[-4:]}" if len(secret) >= 16 else "****"


class OpenAICompatModel:
    """A ChatModel over the ``/v1/chat/completions`` endpoint of an OpenAI-compatible server.

    ``api_key=None`` sends a placeholder (local servers need none; the SDK would otherwise read
    its own environment variable). ``max_retries`` is the SDK's retry count for connection
    errors, 408/409/429 and 5xx. ``json_mode`` picks the first ``response_format`` shape tried
    when a schema is given.
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
    ) -> None:
        self.name = model
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.temperature = temperature
        self.json_mode: JsonMode = json_mode
        self._api_key = api_key
        self._rejected_formats = 0
        self._flag_lock = threading.Lock()
        self._client = openai.OpenAI(
            api_key=api_key or NO_KEY,
            base_url=self.base_url,
            timeout=timeout,
            max_retries=max_retries,
        )

    def __repr__(self) -> str:
        return (
            f"OpenAICompatModel(base_url={self.base_url!r}, model={self.model!r}, "
            f"api_key={mask_secret(self._api_key)!r})"
        )

    def complete(
        self,
        messages: list[Message],
        *,
        step: str = "",
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
    ) -> Completion:
        """Return the whole answer; with ``schema``, ask for JSON in the richest accepted shape."""
        params = self._params(messages, max_tokens)
        for level, response_format in self._formats(schema):
            try:
                return _completion(self._send(params, response_format))
            except openai.APIStatusError as exc:
                if not _rejects_format(exc):
                    self._raise(exc)
                self._reject_format(level)
            except openai.OpenAIError as exc:
                self._raise(exc)
        return self._complete_plain(params)

    def stream(
        self,
        messages: list[Message],
        *,
        step: str = "",
        max_tokens: int = 512,
    ) -> Iterator[str]:
        """Yield content deltas as the server sends them."""
        params = self._params(messages, max_tokens)
        try:
            chunks = self._client.chat.completions.create(**params, stream=True)
            with chunks:
                for chunk in chunks:
                    delta = _delta(chunk)
                    if delta:
                        yield delta
        except openai.OpenAIError as exc:
            self._raise(exc)

    def list_models(self) -> list[str]:
        """Return the model ids the server offers (``GET /models``)."""
        try:
            return [model.id for model in self._client.models.list()]
        except openai.OpenAIError as exc:
            self._raise(exc)

    def close(self) -> None:
        """Close the HTTP connections."""
        self._client.close()

    def _params(self, messages: list[Message], max_tokens: int) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": [m.as_dict() for m in messages],
            "max_tokens": max_tokens,
            "temperature": self.temperature,
        }

    def _formats(self, schema: dict[str, Any] | None) -> list[tuple[int, dict[str, Any]]]:
        if schema is None:
            return []
        ladder = _format_ladder(self.json_mode, schema)
        return list(enumerate(ladder))[self._rejected_formats :]

    def _reject_format(self, level: int) -> None:
        with self._flag_lock:
            self._rejected_formats = max(self._rejected_formats, level + 1)

    def _complete_plain(self, params: dict[str, Any]) -> Completion:
        try:
            return _completion(self._send(params))
        except openai.OpenAIError as exc:
            self._raise(exc)

    def _send(self, params: dict[str, Any], response_format: dict[str, Any] | None = None) -> ChatCompletion:
        extra = {"response_format": response_format} if response_format else None
        response: ChatCompletion = self._client.chat.completions.create(**params, extra_body=extra)
        return response

    def _raise(self, exc: openai.OpenAIError) -> NoReturn:
        raise self._translate(exc) from None

    def _translate(self, exc: openai.OpenAIError) -> ModelError:
        where = f"The model server at {self.base_url}"
        detail = self._mask(_error_text(exc))
        if isinstance(exc, openai.APITimeoutError):
            return ModelError(
                f"{where} did not answer within {self.timeout:g}s: raise the timeout or use a smaller model."
            )
        if isinstance(exc, openai.APIConnectionError):
            return ModelNotAvailableError(
                f"Cannot reach the model server at {self.base_url} ({detail}): start the "
                "server or fix the base URL (LLM_BASE_URL)."
            )
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return ModelNotAvailableError(
                f"{where} refused the API key {mask_secret(self._api_key)} ({detail}): set "
                "LLM_API_KEY to a valid key for this server."
            )
        if isinstance(exc, openai.NotFoundError):
            return ModelNotAvailableError(self._not_found_message(detail))
        if isinstance(exc, openai.RateLimitError):
            return ModelError(f"{where} is rate limiting ({detail}): wait or lower concurrency.")
        if isinstance(exc, openai.APIStatusError):
            return ModelError(f"{where} answered HTTP {exc.status_code} ({detail}).")
        return ModelError(f"{where} sent an unusable answer ({detail}).")

    def _not_found_message(self, detail: str) -> str:
        try:
            available = [model.id for model in self._client.models.list()]
        except openai.OpenAIError:
            return (
                f"{self.base_url} has no chat endpoint ({detail}): fix the base URL "
                "(LLM_BASE_URL); OpenAI-compatible servers usually end it in /v1."
            )
        offered = ", ".join(available[:20]) or "none"
        return (
            f"The model server at {self.base_url} has no model {self.model!r} ({detail}): set "
            f"LLM_MODEL to one it offers: {offered}."
        )

    def _mask(self, text: str) -> str:
        if self._api_key and self._api_key in text:
            return text.replace(self._api_key, mask_secret(self._api_key))
        return text


def _format_ladder(mode: JsonMode, schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``response_format`` shapes to try, richest first; none left means plain text."""
    if mode == "json_schema":
        return [
            {
                "type": "json_schema",
                "json_schema": {"name": "response", "schema": schema, "strict": False},
            },
            {"type": "json_object"},
        ]
    if mode == "json_object":
        return [{"type": "json_object", "schema": schema}, {"type": "json_object"}]
    return []


def _rejects_format(exc: openai.APIStatusError) -> bool:
    if exc.status_code not in FORMAT_REJECTION_STATUSES:
        return False
    text = _error_text(exc).lower()
    return any(word in text for word in FORMAT_WORDS)


def _error_text(exc: openai.OpenAIError) -> str:
    text = str(exc)
    if exc.__cause__ is not None:
        text = f"{text} {exc.__cause__}"
    return text[:500]


def _completion(response: ChatCompletion) -> Completion:
    choice = response.choices[0] if response.choices else None
    usage = response.usage
    return Completion(
        text=(choice.message.content or "") if choice else "",
        usage=Usage(
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            calls=1,
        ),
        finish_reason=choice.finish_reason if choice else None,
    )


def _delta(chunk: ChatCompletionChunk) -> str:
    if not chunk.choices:
        return ""
    return chunk.choices[0].delta.content or ""
