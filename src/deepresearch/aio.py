"""The research API for asyncio programs: ``aresearch()`` and ``aresearch_stream()``.

The same runs as :func:`~deepresearch.agent.research` and :func:`~deepresearch.agent.research_stream`
(one code path), driven from a worker thread so the event loop never blocks on a model call or a
search; each event is handed to the loop as it comes. Leaving the stream early (``break``, the
task cancelled) stops the run at its next step.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import AsyncGenerator, Callable, Iterator
from typing import Any, ParamSpec, TypeVar

from deepresearch.agent import EventSink, research, research_stream, result_of
from deepresearch.errors import DeepResearchError
from deepresearch.events import Event
from deepresearch.result import ResearchResult

_END = object()
P = ParamSpec("P")
T = TypeVar("T")


def _arguments_of(blocking: Callable[P, object]) -> Callable[[Callable[..., T]], Callable[P, T]]:
    """The decorated function takes ``blocking``'s arguments (for type checkers and for
    :func:`inspect.signature`), so the asyncio API and the blocking one share one argument list."""

    def take(fn: Callable[..., T]) -> Callable[P, T]:
        returns = inspect.signature(fn).return_annotation
        signature = inspect.signature(blocking).replace(return_annotation=returns)
        fn.__signature__ = signature  # type: ignore[attr-defined]
        return fn

    return take


@_arguments_of(research_stream)
async def aresearch_stream(
    question: str, *, cancel: threading.Event | None = None, **arguments: Any
) -> AsyncGenerator[Event, None]:
    """The run's events as an async generator; the last is ``done`` or ``error``.

    Bad input raises at the first ``__anext__`` (as ``research_stream``, whose arguments it takes,
    raises when called). ``review_plan`` is called from the worker thread."""
    stop = cancel if cancel is not None else threading.Event()
    events = research_stream(question, cancel=stop, **arguments)
    queue: asyncio.Queue[Any] = asyncio.Queue()
    _pump(events, queue, asyncio.get_running_loop(), stop)
    try:
        while (item := await queue.get()) is not _END:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()


@_arguments_of(research)
async def aresearch(question: str, *, on_event: EventSink | None = None, **arguments: Any) -> ResearchResult:
    """Run a whole research without blocking the event loop and return its result; a failed run
    raises as :func:`~deepresearch.agent.research` does, whose arguments it takes. ``on_event``
    sees every event."""
    async for item in aresearch_stream(question, **arguments):
        if (result := result_of(item, on_event)) is not None:
            return result
    raise DeepResearchError("the research stream ended without a result")


def _pump(
    events: Iterator[Event], queue: asyncio.Queue[Any], loop: asyncio.AbstractEventLoop, stop: threading.Event
) -> None:
    """Drain ``events`` on a daemon thread into ``queue`` (on ``loop``), then put the end mark.

    Once ``loop`` is closed nobody listens any more: the run is stopped and still drained to its
    end, so it records how it ended (``error.json``, cancelled) instead of being left mid-step."""

    def hand(item: Any) -> bool:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:  # the loop is closed: nobody is listening any more
            return False
        return True

    def drive() -> None:
        try:
            for item in events:
                if not hand(item):
                    stop.set()
        except BaseException as exc:  # noqa: BLE001 - raised again in the consuming task
            hand(exc)
        hand(_END)

    threading.Thread(target=drive, name="deepresearch-aresearch", daemon=True).start()
