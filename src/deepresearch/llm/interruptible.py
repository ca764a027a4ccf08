"""Model calls that a cancel interrupts while they are in flight.

A blocking model call (a server still generating, a local model mid-answer) cannot be stopped from
outside its thread. :class:`InterruptibleModel` runs every call in a worker thread and waits for
whichever comes first, the answer or the run's ``cancel`` event; on cancel the caller gets
:class:`~deepresearch.errors.ResearchCancelledError` at once and the worker is left to end by itself
(a server call ends at its own total deadline, ``LLM_TIMEOUT``; a stream is closed at its next chunk).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TypeVar

from deepresearch.errors import ResearchCancelledError
from deepresearch.llm.base import ChatModel, Completion, ModelCall
from deepresearch.llm.wrapper import ModelWrapper

POLL_SECONDS = 0.05
_T = TypeVar("_T")
_END = object()


class InterruptibleModel(ModelWrapper):
    """``inner`` with every call abandoned as soon as ``cancel`` is set."""

    def __init__(self, inner: ChatModel, cancel: threading.Event) -> None:
        super().__init__(inner)
        self.cancel = cancel

    def on_complete(self, call: ModelCall) -> Completion:
        return self._wait(_in_thread(lambda: call.complete(self.inner), f"model-{call.step or 'call'}"))

    def on_stream(self, call: ModelCall) -> Iterator[str]:
        self._check()
        chunks: queue.Queue[object] = queue.Queue()
        stop = threading.Event()
        worker = threading.Thread(target=_pump, args=(call.stream(self.inner), chunks, stop), daemon=True)
        worker.start()
        try:
            while (item := self._next(chunks)) is not _END:
                if isinstance(item, BaseException):
                    raise item
                yield str(item)
        finally:
            stop.set()

    def _wait(self, future: Future[_T]) -> _T:
        while True:
            self._check()
            try:
                return future.result(POLL_SECONDS)
            except FutureTimeout:
                continue

    def _next(self, chunks: queue.Queue[object]) -> object:
        while True:
            self._check()
            try:
                return chunks.get(timeout=POLL_SECONDS)
            except queue.Empty:
                continue

    def _check(self) -> None:
        if self.cancel.is_set():
            raise ResearchCancelledError("the research run was cancelled")


def _in_thread(function: Callable[[], _T], name: str) -> Future[_T]:
    future: Future[_T] = Future()

    def run() -> None:
        try:
            future.set_result(function())
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller, who re-raises it
            future.set_exception(exc)

    threading.Thread(target=run, name=name, daemon=True).start()
    return future


def _pump(source: Iterator[str], chunks: queue.Queue[object], stop: threading.Event) -> None:
    try:
        for chunk in source:
            if stop.is_set():
                break
            chunks.put(chunk)
    except BaseException as exc:  # noqa: BLE001 - handed to the reading caller, who re-raises it
        chunks.put(exc)
        return
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()
    chunks.put(_END)
