"""At most ``LLM_MAX_CONCURRENCY`` model calls in flight at once (a stream holds its slot until it ends).

Servers that run one or two requests at a time (llama.cpp, a small vLLM) time out the rest when
parallel research branches, and parallel jobs, all call at once. The slots come from
:func:`deepresearch.limits.call_slots`: process-wide, or cluster-wide in Redis for
``JOBS_BACKEND=celery``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

from deepresearch.llm.base import ChatModel, Completion, ModelCall
from deepresearch.llm.wrapper import ModelWrapper


class LimitedModel(ModelWrapper):
    """Each call first takes a slot from ``slots()`` and gives it back when it has finished."""

    def __init__(self, inner: ChatModel, slots: Callable[[], AbstractContextManager[Any]]) -> None:
        super().__init__(inner)
        self._slots = slots

    def on_complete(self, call: ModelCall) -> Completion:
        with self._slots():
            return call.complete(self.inner)

    def on_stream(self, call: ModelCall) -> Iterator[str]:
        with self._slots():
            yield from call.stream(self.inner)
