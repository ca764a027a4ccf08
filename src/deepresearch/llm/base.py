"""The chat model seam.

A model is anything with ``complete`` and ``stream``. ``step`` names the research step that calls
(``role``, ``plan``, ``summarize``, ``judge``, ``queries``, ``report``, ``answer``); real models
ignore it, the scripted doubles in :mod:`deepresearch.llm.testing` answer by it, and usage is
accounted by it. ``schema`` is a JSON schema: a model that can constrain its decoding to it must
(llama.cpp grammar, ``response_format``); the structured-output ladder parses and validates the
text either way.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass
class Usage:
    """Tokens and calls. ``cached`` counts calls answered from the on-disk cache (no tokens);
    ``cached_prompt_tokens`` the prompt tokens a runtime did not read again, its prompt cache
    holding them (OpenAI's ``prompt_tokens_details.cached_tokens``)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    cached: int = 0
    cached_prompt_tokens: int = 0

    def add(self, other: Usage) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.calls += other.calls
        self.cached += other.cached
        self.cached_prompt_tokens += other.cached_prompt_tokens

    def as_dict(self) -> dict[str, int]:
        data = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "calls": self.calls,
        }
        if self.cached:
            data["cached"] = self.cached
        if self.cached_prompt_tokens:
            data["cached_prompt_tokens"] = self.cached_prompt_tokens
        return data


@dataclass(frozen=True)
class Completion:
    """A whole answer. ``model`` names the model that wrote it when a wrapper routed the call."""

    text: str
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    model: str = ""


@dataclass(frozen=True)
class ModelCall:
    """One call's arguments, so a wrapper can hand them on without restating the signature."""

    step: str
    messages: list[Message]
    schema: dict[str, Any] | None = None
    max_tokens: int = 512

    @property
    def prompt(self) -> str:
        return "\n".join(m.content for m in self.messages)

    def complete(self, model: ChatModel) -> Completion:
        """Send this call to ``model`` as a completion."""
        return model.complete(self.messages, step=self.step, schema=self.schema, max_tokens=self.max_tokens)

    def stream(self, model: ChatModel) -> Iterator[str]:
        """Send this call to ``model`` as a stream (a stream has no schema)."""
        return model.stream(self.messages, step=self.step, max_tokens=self.max_tokens)


@runtime_checkable
class ChatModel(Protocol):
    """What the research loop needs from a model."""

    name: str

    def complete(
        self,
        messages: list[Message],
        *,
        step: str = "",
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
    ) -> Completion:
        """Return the whole answer. With ``schema``, constrain decoding to it where possible."""
        ...

    def stream(
        self,
        messages: list[Message],
        *,
        step: str = "",
        max_tokens: int = 512,
    ) -> Iterator[str]:
        """Yield the answer as text chunks."""
        ...


class ChatModelBase:
    """A :class:`ChatModel` written against :class:`ModelCall`: the signature lives here once, a
    model implements :meth:`on_complete` and :meth:`on_stream` (wrappers:
    :class:`~deepresearch.llm.wrapper.ModelWrapper`)."""

    name: str

    def complete(
        self,
        messages: list[Message],
        *,
        step: str = "",
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
    ) -> Completion:
        return self.on_complete(ModelCall(step, list(messages), schema, max_tokens))

    def stream(self, messages: list[Message], *, step: str = "", max_tokens: int = 512) -> Iterator[str]:
        return self.on_stream(ModelCall(step, list(messages), None, max_tokens))

    def on_complete(self, call: ModelCall) -> Completion:
        """The whole answer to ``call``."""
        raise NotImplementedError

    def on_stream(self, call: ModelCall) -> Iterator[str]:
        """The answer to ``call`` as text chunks."""
        raise NotImplementedError

    def close(self) -> None:
        """Free what the model holds (connections, loaded weights); nothing by default. A run
        closes the model it built when it ends; a model passed in stays its owner's to close."""
