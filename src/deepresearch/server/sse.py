"""Server-Sent Events: a run's events bridged from its worker thread, and a job's stored events.

Every SSE message is ``event: <type>``, ``id: <seq>``, ``data: <event JSON with "time">``.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.concurrency import run_in_threadpool

from deepresearch.events import Event
from deepresearch.jobs.base import JobsBackend
from deepresearch.jobs.rows import StoredEvent
from deepresearch.service import Redactor

STORE_BATCH = 500
IDLE_RECHECK_SECONDS = 5.0
FINAL = frozenset({"done", "error"})


def sse_message(body: dict[str, Any], stamp: float) -> ServerSentEvent:
    payload = {**body, "time": round(stamp, 6)}
    return ServerSentEvent(
        data=json.dumps(payload, ensure_ascii=False), event=str(body["type"]), id=str(body["seq"])
    )


def sse_response(messages: AsyncIterator[ServerSentEvent], heartbeat: float) -> EventSourceResponse:
    """An SSE response with a ``: ping`` comment every ``heartbeat`` seconds; proxies must not buffer."""
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return EventSourceResponse(messages, ping=heartbeat, headers=headers)


class ThreadedRun:
    """Drives a run's blocking event iterator in its own thread and hands the events to the loop.

    The thread waits for one of ``slots`` before it starts; setting ``cancel`` (what a client
    disconnect does) stops the run at its next step, or before it starts.
    """

    def __init__(
        self,
        events: Iterator[Event],
        cancel: threading.Event,
        slots: threading.Semaphore,
        redactor: Redactor,
        on_finish: Callable[[], None] | None = None,
    ) -> None:
        self._events = events
        self._on_finish = on_finish
        self.cancel = cancel
        self._slots = slots
        self._redactor = redactor
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[tuple[dict[str, Any], float] | None] = asyncio.Queue()
        self.finished = threading.Event()
        threading.Thread(target=self._drive, name="deepresearch-stream", daemon=True).start()

    def _drive(self) -> None:
        try:
            with self._slots:
                if self.cancel.is_set():
                    return
                for item in self._events:
                    if not self._hand_over((self._redactor.data(item.as_dict()), time.time())):
                        self.cancel.set()
        finally:
            if self._on_finish is not None:
                self._on_finish()
            self.finished.set()
            self._hand_over(None)

    def _hand_over(self, item: tuple[dict[str, Any], float] | None) -> bool:
        try:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, item)
        except RuntimeError:
            return False
        return True

    async def __aiter__(self) -> AsyncIterator[tuple[dict[str, Any], float]]:
        while (item := await self._queue.get()) is not None:
            yield item


async def run_messages(run: ThreadedRun) -> AsyncIterator[ServerSentEvent]:
    """The run's events as SSE messages; leaving early (client gone) cancels the run."""
    try:
        async for body, stamp in run:
            yield sse_message(body, stamp)
    finally:
        run.cancel.set()


async def job_messages(manager: JobsBackend, job_id: str, after: int) -> AsyncIterator[ServerSentEvent]:
    """The job's stored events with ``seq > after``, then new ones as they are stored, until the
    job's last event (``done``/``error``) was sent.

    Live events come straight from the :class:`Notifier` (subscribed before the replay, so none
    falls between); a gap or a quiet spell is filled from the store.
    """
    with manager.notifier.subscribe(job_id) as inbox:
        async for stored in _stored_after(manager, job_id, after):
            yield sse_message(stored.body, stored.time)
            after = stored.seq
            if stored.type in FINAL:
                return
        while True:
            try:
                live = [await asyncio.wait_for(inbox.get(), IDLE_RECHECK_SECONDS)]
            except asyncio.TimeoutError:
                live = []
            if not live or live[0].seq > after + 1:
                live = [e async for e in _stored_after(manager, job_id, after)]
            for stored in live:
                if stored.seq <= after:
                    continue
                yield sse_message(stored.body, stored.time)
                after = stored.seq
                if stored.type in FINAL:
                    return
            if not live and await _finished(manager, job_id):
                return


async def _stored_after(manager: JobsBackend, job_id: str, after: int) -> AsyncIterator[StoredEvent]:
    while True:
        batch = await run_in_threadpool(manager.store.events, job_id, after=after, limit=STORE_BATCH)
        for stored in batch:
            yield stored
            after = stored.seq
        if len(batch) < STORE_BATCH:
            return


async def _finished(manager: JobsBackend, job_id: str) -> bool:
    job = await run_in_threadpool(manager.store.get, job_id)
    return job is None or job.finished
