"""Usage accounting around any ChatModel: tokens and calls, per step and in total."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from deepresearch.llm.base import ChatModel, Completion, Message, Usage


class MeteredModel:
    """Wraps a model; counts usage per step (streams are counted by characters / 4)."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner
        self.name = inner.name
        self.by_step: dict[str, Usage] = {}
        self._lock = threading.Lock()

    def complete(
        self,
        messages: list[Message],
        *,
        step: str = "",
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
    ) -> Completion:
        completion = self.inner.complete(messages, step=step, schema=schema, max_tokens=max_tokens)
        usage = completion.usage
        if usage.calls == 0:
            usage = Usage(usage.prompt_tokens, usage.completion_tokens, 1)
        self._record(step, usage)
        return completion

    def stream(self, messages: list[Message], *, step: str = "", max_tokens: int = 512) -> Iterator[str]:
        produced = 0
        try:
            for chunk in self.inner.stream(messages, step=step, max_tokens=max_tokens):
                produced += len(chunk)
                yield chunk
        finally:
            prompt = sum(len(m.content) for m in messages) // 4
            self._record(step, Usage(prompt, max(1, produced // 4) if produced else 0, 1))

    def total(self) -> Usage:
        total = Usage()
        with self._lock:
            for usage in self.by_step.values():
                total.add(usage)
        return total

    def as_dict(self) -> dict[str, Any]:
        with self._lock:
            steps = {step: usage.as_dict() for step, usage in self.by_step.items()}
        return {**self.total().as_dict(), "by_step": steps}

    def _record(self, step: str, usage: Usage) -> None:
        with self._lock:
            self.by_step.setdefault(step or "other", Usage()).add(usage)
