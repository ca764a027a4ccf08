"""A process-wide minimum interval between model calls (``LLM_MIN_INTERVAL_SECONDS``).

Hosted APIs with per-minute limits answer 429 to bursts; parallel research branches make bursts.
Every :class:`PacedModel` of the process shares :data:`PROCESS_GATE`, so two runs (or two models
of one run) together keep the interval, not each on its own.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

from deepresearch.llm.base import ChatModel, Completion, ModelCall
from deepresearch.llm.wrapper import ModelWrapper


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


class PacedModel(ModelWrapper):
    """Wraps a model; each call (a stream: before its request) first takes a slot from ``gate``."""

    def __init__(self, inner: ChatModel, interval: float, *, gate: IntervalGate = PROCESS_GATE) -> None:
        super().__init__(inner)
        self.interval = interval
        self._gate = gate

    def on_complete(self, call: ModelCall) -> Completion:
        self._gate.wait(self.interval)
        return call.complete(self.inner)

    def on_stream(self, call: ModelCall) -> Iterator[str]:
        self._gate.wait(self.interval)
        yield from call.stream(self.inner)
