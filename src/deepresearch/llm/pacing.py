"""A process-wide minimum interval between model calls (``LLM_MIN_INTERVAL_SECONDS``).

Hosted APIs with per-minute limits answer 429 to bursts; parallel research branches make bursts.
Every :class:`PacedModel` of the process shares :data:`PROCESS_GATE`, so two runs (or two models
of one run) together keep the interval, not each on its own.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from deepresearch.llm.base import ChatModel, Completion, Message


class IntervalGate:
    """Hands out call slots at least ``interval`` seconds apart, in arrival order."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._clock = clock
        self._sleep = sleep
        self._last: float | None = None
        self._lock = threading.Lock()

    def wait(self, interval: float) -> float:
        """Block until ``interval`` seconds have passed since the previous slot; return the wait."""
        with self._lock:
            now = self._clock()
            start = now if self._last is None else max(now, self._last + interval)
            self._last = start
        waited = start - now
        if waited > 0:
            self._sleep(waited)
        return waited


PROCESS_GATE = IntervalGate()


class PacedModel:
    """Wraps a model; each call (a stream: before its request) first takes a slot from ``gate``."""

    def __init__(self, inner: ChatModel, interval: float, *, gate: IntervalGate = PROCESS_GATE) -> None:
        self.inner = inner
        self.name = inner.name
        self.interval = interval
        self._gate = gate

    def complete(
        self,
        messages: list[Message],
        *,
        step: str = "",
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
    ) -> Completion:
        self._gate.wait(self.interval)
        return self.inner.complete(messages, step=step, schema=schema, max_tokens=max_tokens)

    def stream(self, messages: list[Message], *, step: str = "", max_tokens: int = 512) -> Iterator[str]:
        self._gate.wait(self.interval)
        yield from self.inner.stream(messages, step=step, max_tokens=max_tokens)
