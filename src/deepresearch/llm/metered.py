"""Usage accounting around any ChatModel: tokens and calls per call, per step and in total.

Completions carry the server's usage (or a count when the server sent none); streams are
counted by characters / 4. Each call is also logged at DEBUG on ``deepresearch.llm.usage``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from deepresearch.llm.base import ChatModel, Completion, ModelCall, Usage
from deepresearch.llm.wrapper import ModelWrapper

_log = logging.getLogger("deepresearch.llm.usage")


@dataclass(frozen=True)
class CallRecord:
    """One model call as accounted: which step, which model, what it cost, how long it took."""

    step: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cached: bool = False
    streamed: bool = False


class MeteredModel(ModelWrapper):
    """Wraps a model; counts usage per call and per step (streams by characters / 4)."""

    def __init__(self, inner: ChatModel) -> None:
        super().__init__(inner)
        self.by_step: dict[str, Usage] = {}
        self.calls: list[CallRecord] = []
        self._lock = threading.Lock()

    def on_complete(self, call: ModelCall) -> Completion:
        started = time.perf_counter()
        completion = call.complete(self.inner)
        usage = completion.usage
        if usage.calls == 0:
            usage = Usage(usage.prompt_tokens, usage.completion_tokens, 1, usage.cached)
        seconds = round(time.perf_counter() - started, 3)
        model = completion.model or self.leaf_for(call.step).name
        record = CallRecord(
            call.step or "other",
            model,
            usage.prompt_tokens,
            usage.completion_tokens,
            seconds,
            cached=bool(usage.cached),
        )
        self._record(call.step, usage, record)
        return completion

    def on_stream(self, call: ModelCall) -> Iterator[str]:
        produced, started = 0, time.perf_counter()
        try:
            for chunk in call.stream(self.inner):
                produced += len(chunk)
                yield chunk
        finally:
            prompt = len(call.prompt) // 4
            usage = Usage(prompt, max(1, produced // 4) if produced else 0, 1)
            seconds = round(time.perf_counter() - started, 3)
            model = self.leaf_for(call.step).name
            record = CallRecord(
                call.step or "other", model, prompt, usage.completion_tokens, seconds, streamed=True
            )
            self._record(call.step, usage, record)

    def total(self) -> Usage:
        total = Usage()
        with self._lock:
            for usage in self.by_step.values():
                total.add(usage)
        return total

    def as_dict(self) -> dict[str, Any]:
        """Totals, ``by_step`` and ``per_call`` (one record per call, in order; JSON-safe)."""
        with self._lock:
            steps = {step: usage.as_dict() for step, usage in self.by_step.items()}
            calls = [asdict(call) for call in self.calls]
        return {**self.total().as_dict(), "by_step": steps, "per_call": calls}

    def _record(self, step: str, usage: Usage, call: CallRecord) -> None:
        with self._lock:
            self.by_step.setdefault(step or "other", Usage()).add(usage)
            self.calls.append(call)
        _log.debug(
            "%s via %s: %d prompt + %d completion tokens in %.2fs%s",
            call.step,
            call.model,
            call.prompt_tokens,
            call.completion_tokens,
            call.seconds,
            " (cached)" if call.cached else "",
        )
