"""Background research jobs: a queue, ``MAX_CONCURRENT_JOBS`` worker threads, durable runs.

Every job and every event it streams is written to the :class:`JobStore` before anyone sees it.
Each run is checkpointed under ``thread_id = job id``; when the server starts, jobs left ``running``
(the process died or was stopped) resume from their last checkpoint and jobs left ``queued`` are
queued again. A job interrupted ``max_job_attempts`` times is failed with the reason.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from deepresearch.agent import research_stream
from deepresearch.durable import Durability, has_checkpoint
from deepresearch.errors import ConfigurationError, DeepResearchError, QueueFullError
from deepresearch.server.service import Service
from deepresearch.server.store import JobRow, JobStatus, JobStore, StoredEvent

logger = logging.getLogger(__name__)


class Notifier:
    """Hands each event a worker thread stores to the job's live streams, on the event loop."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._inboxes: dict[str, set[asyncio.Queue[StoredEvent]]] = {}

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    @contextmanager
    def subscribe(self, job_id: str) -> Iterator[asyncio.Queue[StoredEvent]]:
        """A queue that receives every event of ``job_id`` stored from now on (loop thread only)."""
        inbox: asyncio.Queue[StoredEvent] = asyncio.Queue()
        self._inboxes.setdefault(job_id, set()).add(inbox)
        try:
            yield inbox
        finally:
            inboxes = self._inboxes.get(job_id, set())
            inboxes.discard(inbox)
            if not inboxes:
                self._inboxes.pop(job_id, None)

    def publish(self, stored: StoredEvent) -> None:
        """Thread-safe; a no-op when nobody listens or the loop is gone."""
        loop = self._loop
        if loop is None or stored.job_id not in self._inboxes:
            return
        try:
            loop.call_soon_threadsafe(self._deliver, stored)
        except RuntimeError:
            return

    def _deliver(self, stored: StoredEvent) -> None:
        for inbox in self._inboxes.get(stored.job_id, ()):
            inbox.put_nowait(stored)


class JobManager:
    """Runs queued jobs, at most ``settings.max_concurrent_jobs`` at a time."""

    def __init__(self, service: Service, store: JobStore, checkpointer: BaseCheckpointSaver[Any]) -> None:
        self.service = service
        self.store = store
        self.checkpointer = checkpointer
        self.notifier = Notifier()
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._workers: list[threading.Thread] = []
        self._cancels: dict[str, threading.Event] = {}
        self._stopping = threading.Event()
        self._lock = threading.Lock()

    def start(self) -> list[str]:
        """Re-queue unfinished jobs (running ones resume) and start the workers; returns their ids.

        A job whose cancel was asked before the server stopped is finished as cancelled instead."""
        recovered = []
        for job in self.store.unfinished():
            if job.cancel_requested:
                self._cancelled(job.id, "cancelled (asked before the server restarted)")
                continue
            recovered.append(job.id)
            self._queue.put(job.id)
        for number in range(self.service.settings.max_concurrent_jobs):
            worker = threading.Thread(target=self._work, name=f"deepresearch-job-{number}", daemon=True)
            worker.start()
            self._workers.append(worker)
        if recovered:
            logger.info("re-queued %d unfinished job(s) from %s", len(recovered), self.store.path)
        return recovered

    def stop(self, timeout: float = 10.0) -> None:
        """Interrupt running jobs (they stay ``running`` and resume at the next start) and join."""
        self._stopping.set()
        with self._lock:
            for cancel in self._cancels.values():
                cancel.set()
        for _ in self._workers:
            self._queue.put(None)
        deadline = time.monotonic() + timeout
        for worker in self._workers:
            worker.join(max(0.0, deadline - time.monotonic()))

    def submit(self, topic: str, overrides: dict[str, Any]) -> JobRow:
        """Queue a job; :class:`QueueFullError` when ``MAX_QUEUED_JOBS`` are already waiting."""
        limit = self.service.settings.max_queued_jobs
        if self.store.count("queued") >= limit:
            raise QueueFullError(f"{limit} jobs are already queued (MAX_QUEUED_JOBS); try again later")
        job = self.store.create(topic, overrides=overrides)
        self._append(job.id, _status_event("queued", "Queued", position=self._queue.qsize() + 1))
        self._queue.put(job.id)
        return job

    def record_dry_run(self, topic: str, overrides: dict[str, Any], checks: list[dict[str, Any]]) -> JobRow:
        """Store a finished dry-run job: ``completed`` when every check passed, else ``failed``."""
        job = self.store.create(topic, overrides=overrides, dry_run=True)
        ready = all(c["ok"] for c in checks)
        result = {"dry_run": True, "ready": ready, "checks": checks}
        if ready:
            self._finish(job.id, "completed", {"type": "done", "step": "done", "data": result}, result=result)
        else:
            failing = "; ".join(f"{c['name']}: {c['detail']}" for c in checks if not c["ok"])
            message = f"not ready: {failing}"
            data = {**result, "message": message, "code": ConfigurationError.code, "cancelled": False}
            event = {"type": "error", "step": "error", "data": data}
            self._finish(job.id, "failed", event, result=result, error=message)
        return self.store.require(job.id)

    def cancel(self, job_id: str) -> JobRow:
        """Cancel a queued job now, or stop a running one (its model call in flight included).

        The request is stored first, so a job cancelled while running stays cancelled even if the
        server stops before the run notices."""
        job = self.store.require(job_id)
        if job.status == "queued":
            self._cancelled(job_id, "cancelled before it started")
        elif job.status == "running" and self.store.request_cancel(job_id):
            with self._lock:
                cancel = self._cancels.get(job_id)
            if cancel is not None:
                cancel.set()
        return self.store.require(job_id)

    def _cancelled(self, job_id: str, message: str) -> None:
        event = _error_event(message, code="cancelled", cancelled=True)
        self._finish(job_id, "cancelled", event, error=message)

    def _work(self) -> None:
        while True:
            job_id = self._queue.get()
            if job_id is None or self._stopping.is_set():
                return
            try:
                self._run(job_id)
            except Exception as exc:  # noqa: BLE001 - recorded on the job and in the log
                redact = self.service.redactor.text
                logger.error("job %s failed in the job runner:\n%s", job_id, redact(traceback.format_exc()))
                self._fail(job_id, f"internal error: {type(exc).__name__}: {redact(str(exc))}", "internal")

    def _run(self, job_id: str) -> None:
        job = self.store.get(job_id)
        if job is None or job.finished or not self.store.mark_running(job_id):
            return
        attempts = job.attempts + 1
        if attempts > self.service.options.max_job_attempts:
            message = f"the server stopped {job.attempts} times while running this job; gave up"
            self._fail(job_id, message, "internal")
            return
        cancel = threading.Event()
        with self._lock:
            self._cancels[job_id] = cancel
        if self.store.require(job_id).cancel_requested:
            cancel.set()
        try:
            self._drive(job, cancel)
        finally:
            with self._lock:
                self._cancels.pop(job_id, None)

    def _drive(self, job: JobRow, cancel: threading.Event) -> None:
        try:
            settings = self.service.resolve(job.overrides)
        except ConfigurationError as exc:
            self._fail(job.id, f"the job's settings are no longer valid: {exc}", exc.code)
            return
        durable = Durability(
            self.checkpointer,
            job.id,
            resume=has_checkpoint(self.checkpointer, job.id),
            run_dir=Path(job.run_dir) if job.run_dir else None,
        )
        try:
            events = research_stream(
                job.topic,
                settings=settings,
                model=self.service.model,
                search=self.service.search,
                cancel=cancel,
                durable=durable,
            )
        except DeepResearchError as exc:
            self._fail(job.id, self.service.redactor.text(str(exc)), exc.code)
            return
        for item in events:
            if not self._handle(job, item.as_dict()):
                return

    def _handle(self, job: JobRow, event: dict[str, Any]) -> bool:
        """Store one event and finish the job on ``done``/``error``; False stops the run's loop."""
        event = self.service.redactor.data(event)
        data = event.get("data", {})
        if event["type"] == "error" and data.get("cancelled") and self._interrupted(job.id):
            self._append(job.id, _status_event("interrupted", "Server stopping; the job resumes on restart"))
            return False
        if event["type"] == "done":
            self._finish(job.id, "completed", event, result=data.get("result"))
        elif event["type"] == "error":
            status: JobStatus = "cancelled" if data.get("cancelled") else "failed"
            self._finish(job.id, status, event, error=data.get("message", "research failed"))
        else:
            self._append(job.id, event)
        if event["type"] == "status" and data.get("run_dir") and not job.run_dir:
            self.store.set_run_dir(job.id, data["run_dir"])
        return event["type"] not in ("done", "error")

    def _interrupted(self, job_id: str) -> bool:
        """Stopped by the server shutting down (the job resumes later), not by its user."""
        return self._stopping.is_set() and not self.store.require(job_id).cancel_requested

    def _append(self, job_id: str, event: dict[str, Any]) -> StoredEvent:
        stored = self.store.append_event(job_id, event, time.time())
        self.notifier.publish(stored)
        return stored

    def _finish(
        self,
        job_id: str,
        status: JobStatus,
        event: dict[str, Any],
        *,
        result: Any = None,
        error: str | None = None,
    ) -> None:
        """Finish the job with its last ``event`` (one transaction); a no-op once finished."""
        stored = self.store.finish(job_id, status, event, time.time(), result=result, error=error)
        self._forget_checkpoints(job_id)
        if stored is not None:
            self.notifier.publish(stored)

    def _fail(self, job_id: str, message: str, code: str) -> None:
        self._finish(job_id, "failed", _error_event(message, code=code), error=message)

    def _forget_checkpoints(self, job_id: str) -> None:
        try:
            self.checkpointer.delete_thread(job_id)
        except Exception as exc:  # noqa: BLE001 - checkpoints of a finished job are only clutter
            logger.warning("could not delete the checkpoints of job %s: %s", job_id, exc)


def _status_event(step: str, message: str, **data: Any) -> dict[str, Any]:
    return {"type": "status", "step": step, "data": {"message": message, **data}}


def _error_event(message: str, *, code: str, cancelled: bool = False) -> dict[str, Any]:
    data = {"message": message, "code": code, "cancelled": cancelled}
    return {"type": "error", "step": "error", "data": data}
