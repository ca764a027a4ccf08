"""Running one stored job, the same way on every backend.

A :class:`JobRunner` claims a job (``mark_running``: one more attempt), drives the durable research
run under ``thread_id = job id`` (resuming from its last checkpoint when there is one), stores each
event before publishing it, and finishes the job with its last event in one transaction. A run
stopped because its process is stopping (not by its user) is left ``running`` for a later attempt.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepresearch.agent import AWAITING_REVIEW, research_stream
from deepresearch.durable import Durability, has_checkpoint
from deepresearch.errors import ConfigurationError, ConflictError, DeepResearchError, StorageFullError
from deepresearch.events import event as new_event

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

    from deepresearch.jobs.base import JobStoreLike
    from deepresearch.jobs.rows import JobRow, JobStatus, StoredEvent
    from deepresearch.service import Service

logger = logging.getLogger(__name__)

Publish = Callable[["StoredEvent"], None]


@dataclass(frozen=True)
class _Ending:
    """How a job ends: what :meth:`JobRunner.finish` writes."""

    status: JobStatus
    event: dict[str, Any]
    result: Any = None
    error: str | None = None


class JobRunner:
    """Runs jobs of ``store`` with ``service``'s parts; ``publish`` hands each stored event on.

    ``stopping`` is set when the process shuts down: runs then stop at their next step and stay
    ``running`` (``on_interrupted`` is told, so a backend can hand the job to another worker).
    """

    def __init__(
        self,
        service: Service,
        store: JobStoreLike,
        checkpointer: BaseCheckpointSaver[Any] | None,
        publish: Publish,
        *,
        on_interrupted: Callable[[str], None] | None = None,
    ) -> None:
        self.service = service
        self.store = store
        self.checkpointer = checkpointer
        self.publish = publish
        self.stopping = threading.Event()
        self._on_interrupted = on_interrupted
        self._cancels: dict[str, threading.Event] = {}
        self._lost: set[str] = set()
        self._unwritten: dict[str, _Ending] = {}
        self._lock = threading.Lock()

    def running(self) -> list[str]:
        """Ids of the jobs this runner is driving now."""
        with self._lock:
            return list(self._cancels)

    def signal_cancel(self, job_id: str) -> bool:
        """Stop ``job_id`` at its next step if this runner drives it; True when it does."""
        with self._lock:
            cancel = self._cancels.get(job_id)
        if cancel is not None:
            cancel.set()
        return cancel is not None

    def signal_lost(self, job_id: str) -> None:
        """This process no longer holds ``job_id`` (its lease ran out and another worker took it):
        stop the run and write nothing more for it."""
        with self._lock:
            self._lost.add(job_id)
        self.signal_cancel(job_id)

    def stop_all(self) -> None:
        """Interrupt every run (the process is stopping); they resume on a later attempt."""
        self.stopping.set()
        with self._lock:
            for cancel in self._cancels.values():
                cancel.set()

    def run_guarded(self, job_id: str) -> None:
        """:meth:`run`, with an unexpected failure recorded on the job and in the log; a job whose
        progress could not be stored (a full disk) is failed, once that can be written."""
        try:
            self.run(job_id)
        except StorageFullError as exc:
            logger.error("job %s stopped: %s", job_id, exc)
            self.fail(job_id, f"the job stopped: its progress could not be stored: {exc}", exc.code)
        except Exception as exc:  # noqa: BLE001 - recorded on the job and in the log
            redact = self.service.redactor.text
            logger.error("job %s failed in the job runner:\n%s", job_id, redact(traceback.format_exc()))
            self.fail(job_id, f"internal error: {type(exc).__name__}: {redact(str(exc))}", "internal")

    def run(self, job_id: str) -> None:
        """Claim and run ``job_id``; a no-op when it finished or another process holds it."""
        job = self.store.get(job_id)
        if job is None or job.finished or not self.store.mark_running(job_id):
            return
        attempts = job.attempts + 1
        if attempts > self.service.options.max_job_attempts:
            self.fail(job_id, f"the job was stopped {job.attempts} times while running; gave up", "internal")
            return
        cancel = threading.Event()
        with self._lock:
            self._cancels[job_id] = cancel
        if self.store.require(job_id).cancel_requested or self.stopping.is_set():
            cancel.set()
        try:
            self._drive(job, cancel)
        finally:
            with self._lock:
                self._cancels.pop(job_id, None)
                self._lost.discard(job_id)

    def _drive(self, job: JobRow, cancel: threading.Event) -> None:
        from deepresearch.graph.review import interrupt_reviewer

        try:
            settings = self.service.resolve(job.overrides)
        except ConfigurationError as exc:
            self.fail(job.id, f"the job's settings are no longer valid: {exc}", exc.code)
            return
        try:
            events = research_stream(
                job.topic,
                settings=settings,
                model=self.service.model,
                search=self.service.search,
                cancel=cancel,
                durable=self._durability(job),
                review_plan=interrupt_reviewer if job.review_plan else None,
            )
        except DeepResearchError as exc:
            self.fail(job.id, self.service.redactor.text(str(exc)), exc.code)
            return
        try:
            for item in events:
                if not self._handle(job, item.as_dict(), item.key):
                    return
        finally:
            close = getattr(events, "close", None)
            if close is not None:
                close()

    def _durability(self, job: JobRow) -> Durability | None:
        if self.checkpointer is None:
            return None
        return Durability(
            self.checkpointer,
            job.id,
            resume=has_checkpoint(self.checkpointer, job.id),
            run_dir=Path(job.run_dir) if job.run_dir else None,
            decision=job.plan_decision,
        )

    def _handle(self, job: JobRow, event: dict[str, Any], key: str | None = None) -> bool:
        """Store one event (once per ``key``: a step done again after a resume repeats its events)
        and finish the job on ``done``/``error``; False stops the run's loop."""
        event = self.service.redactor.data(event)
        data = event.get("data", {})
        if event["type"] == "error" and data.get("cancelled") and job.id in self._lost:
            return False
        if event["type"] == "error" and data.get("cancelled") and self._interrupted(job.id):
            self.append(
                job.id,
                status_event(
                    "interrupted", "Stopping; the job resumes at the next start or on another worker"
                ),
            )
            if self._on_interrupted is not None:
                self._on_interrupted(job.id)
            return False
        if event["type"] == "status" and event.get("step") == AWAITING_REVIEW:
            self._publish(self.store.await_review(job.id, event, time.time()))
            return False
        if event["type"] == "done":
            self.finish(job.id, "completed", event, result=data.get("result"))
        elif event["type"] == "error":
            status: JobStatus = "cancelled" if data.get("cancelled") else "failed"
            self.finish(job.id, status, event, error=data.get("message", "research failed"))
        else:
            self.append(job.id, event, key=key)
        if event["type"] == "status" and data.get("run_dir") and not job.run_dir:
            self.store.set_run_dir(job.id, data["run_dir"])
        return event["type"] not in ("done", "error")

    def _interrupted(self, job_id: str) -> bool:
        """Stopped by the process shutting down (the job resumes later), not by its user."""
        return self.stopping.is_set() and not self.store.require(job_id).cancel_requested

    def append(self, job_id: str, event: dict[str, Any], *, key: str | None = None) -> StoredEvent:
        stored = self.store.append_event(job_id, event, time.time(), key=key)
        self.publish(stored)
        return stored

    def continue_review(self, job_id: str, decision: dict[str, Any]) -> None:
        """Move a job awaiting review back to ``queued`` with ``decision`` (the backend then runs
        it); :class:`ConflictError` when it is not awaiting review."""
        event = status_event("plan_reviewed", "Plan reviewed; the research continues")
        stored = self.store.resume_review(job_id, decision, event, time.time())
        if stored is None:
            raise ConflictError(f"job {job_id} is not awaiting plan review")
        self.publish(stored)

    def _publish(self, stored: StoredEvent | None) -> None:
        if stored is not None:
            self.publish(stored)

    def finish(
        self,
        job_id: str,
        status: JobStatus,
        event: dict[str, Any],
        *,
        result: Any = None,
        error: str | None = None,
    ) -> None:
        """Finish the job with its last ``event`` (one transaction); a no-op once finished.

        When the store takes no writes (:class:`StorageFullError`) the ending is kept here and
        written by :meth:`flush_unwritten` once writes succeed again, so the job does not stay
        ``running`` for ever."""
        ending = _Ending(status, event, result, error)
        try:
            self._write_ending(job_id, ending)
        except StorageFullError as exc:
            with self._lock:
                self._unwritten[job_id] = ending
            logger.error("job %s could not be finished (%s); it is, once writes succeed again", job_id, exc)

    def unwritten(self) -> list[str]:
        """Ids of the jobs whose ending waits for the store to take writes again."""
        with self._lock:
            return list(self._unwritten)

    def flush_unwritten(self) -> int:
        """Write the endings kept by :meth:`finish` (oldest first); how many were written. Stops at
        the first that still cannot be written."""
        with self._lock:
            pending = list(self._unwritten.items())
        for done, (job_id, ending) in enumerate(pending):
            try:
                self._write_ending(job_id, ending)
            except StorageFullError:
                return done
        return len(pending)

    def _write_ending(self, job_id: str, ending: _Ending) -> None:
        stored = self.store.finish(
            job_id, ending.status, ending.event, time.time(), result=ending.result, error=ending.error
        )
        with self._lock:
            self._unwritten.pop(job_id, None)
        self._forget_checkpoints(job_id)
        if stored is not None:
            self.publish(stored)

    def fail(self, job_id: str, message: str, code: str) -> None:
        self.finish(job_id, "failed", error_event(message, code=code), error=message)

    def cancelled(self, job_id: str, message: str) -> None:
        self.finish(
            job_id, "cancelled", error_event(message, code="cancelled", cancelled=True), error=message
        )

    def record_dry_run(self, topic: str, overrides: dict[str, Any], checks: list[dict[str, Any]]) -> JobRow:
        """Store a finished dry-run job: ``completed`` when every check passed, else ``failed``."""
        job = self.store.create(topic, overrides=overrides, dry_run=True)
        ready = all(c["ok"] for c in checks)
        result: dict[str, Any] = {"dry_run": True, "ready": ready, "checks": checks}
        if ready:
            self.finish(job.id, "completed", new_event("done", step="done", **result), result=result)
        else:
            failing = "; ".join(f"{c['name']}: {c['detail']}" for c in checks if not c["ok"])
            message = f"not ready: {failing}"
            code = ConfigurationError.code
            failed = new_event("error", step="error", **result, message=message, code=code, cancelled=False)
            self.finish(job.id, "failed", failed, result=result, error=message)
        return self.store.require(job.id)

    def _forget_checkpoints(self, job_id: str) -> None:
        if self.checkpointer is None:
            return
        try:
            self.checkpointer.delete_thread(job_id)
        except Exception as exc:  # noqa: BLE001 - checkpoints of a finished job are only clutter
            logger.warning("could not delete the checkpoints of job %s: %s", job_id, exc)


def status_event(step: str, message: str, **data: Any) -> dict[str, Any]:
    return new_event("status", step=step, message=message, **data)


def error_event(message: str, *, code: str, cancelled: bool = False) -> dict[str, Any]:
    return new_event("error", step="error", message=message, code=code, cancelled=cancelled)
