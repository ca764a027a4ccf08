"""A process-wide minimum interval between model calls (``LLM_MIN_INTERVAL_SECONDS``).

Hosted APIs with per-minute limits answer 429 to bursts; parallel research branches make bursts.
Every :class:`PacedModel` of the process shares :data:`PROCESS_GATE`, so two runs (or two models
of one run) together keep the interval, not each on its own.
"""

from __future__ import annotations

from collections.abc import Iterator

from deepresearch.llm.base import ChatModel, Completion, ModelCall
from deepresearch.llm.wrapper import ModelWrapper
from deepresearch.retry import IntervalGate

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
