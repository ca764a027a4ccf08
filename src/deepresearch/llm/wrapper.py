"""The base of every model that wraps another (cache, meter, pacing, routing, cancel).

:class:`ModelWrapper` is a :class:`~deepresearch.llm.base.ChatModelBase` (which holds the
``ChatModel`` signature once and hands each call on as a :class:`~deepresearch.llm.base.ModelCall`)
whose :meth:`~ModelWrapper.on_complete` and :meth:`~ModelWrapper.on_stream` send the call on to
``inner``. A wrapper overrides only the hook it changes.
"""

from __future__ import annotations

from collections.abc import Iterator

from deepresearch.llm.base import ChatModel, ChatModelBase, Completion, ModelCall


class ModelWrapper(ChatModelBase):
    """A ChatModel that delegates to ``inner``; subclasses override ``on_complete``/``on_stream``."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner
        self.name = inner.name

    def on_complete(self, call: ModelCall) -> Completion:
        return call.complete(self.model_for(call.step))

    def on_stream(self, call: ModelCall) -> Iterator[str]:
        return call.stream(self.model_for(call.step))

    def model_for(self, step: str) -> ChatModel:
        """The model that answers ``step`` below this wrapper (a router picks one per step)."""
        return self.inner

    def close(self) -> None:
        """Close every model below this wrapper."""
        for model in self.wrapped():
            if isinstance(model, ChatModelBase):
                model.close()

    def wrapped(self) -> list[ChatModel]:
        """The models this wrapper hands calls to (a router: each distinct one)."""
        return [self.inner]

    def leaf_for(self, step: str) -> ChatModel:
        """The innermost model that answers ``step``, through every wrapper below this one."""
        model = self.model_for(step)
        return model.leaf_for(step) if isinstance(model, ModelWrapper) else model
