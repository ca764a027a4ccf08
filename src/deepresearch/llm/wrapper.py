"""The base of every model that wraps another (cache, meter, pacing, routing, cancel).

:class:`ModelWrapper` holds the :class:`~deepresearch.llm.base.ChatModel` signature once: it packs
each call into a :class:`~deepresearch.llm.base.ModelCall` and hands it to :meth:`~ModelWrapper.
on_complete` / :meth:`~ModelWrapper.on_stream`, which by default send it on to ``inner``. A wrapper
overrides only the hook it changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from deepresearch.llm.base import ChatModel, Completion, Message, ModelCall


class ModelWrapper:
    """A ChatModel that delegates to ``inner``; subclasses override ``on_complete``/``on_stream``."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner
        self.name = inner.name

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
        return call.complete(self.model_for(call.step))

    def on_stream(self, call: ModelCall) -> Iterator[str]:
        return call.stream(self.model_for(call.step))

    def model_for(self, step: str) -> ChatModel:
        """The model that answers ``step`` below this wrapper (a router picks one per step)."""
        return self.inner

    def leaf_for(self, step: str) -> ChatModel:
        """The innermost model that answers ``step``, through every wrapper below this one."""
        model = self.model_for(step)
        return model.leaf_for(step) if isinstance(model, ModelWrapper) else model
