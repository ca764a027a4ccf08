"""``JOBS_BACKEND=local``: a queue and ``MAX_CONCURRENT_JOBS`` threads in the API process, SQLite.

Every job and every event it streams is written to the :class:`~deepresearch.jobs.store.JobStore`
before anyone sees it. Each run is checkpointed under ``thread_id = job id``; when the server
starts, jobs left ``running`` (the process died or was stopped) resume from their last checkpoint
and jobs left ``queued`` are queued again. A job interrupted ``max_job_attempts`` times is failed.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import TYPE_CHECKING, Any

from deepresearch.errors import QueueFullError
from deepresearch.jobs.base import Notifier
from deepresearch.jobs.runner import JobRunner, status_event

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

    from deepresearch.jobs.rows import JobRow
    from deepresearch.jobs.store import JobStore
    from deepresearch.service import Service

logger = logging.getLogger(__name__)


class LocalBackend:
    """Runs queued jobs on threads, at most ``settings.max_concurrent_jobs`` at a time."""

    def __init__(self, service: Service, store: JobStore, checkpointer: BaseCheckpointSaver[Any]) -> None:
        self.service = service
        self.store = store
        self.checkpointer = checkpointer
        self.notifier = Notifier()
        self.runner = JobRunner(service, store, checkpointer, self.notifier.publish)
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._workers: list[threading.Thread] = []

    def start(self) -> list[str]:
        """Re-queue unfinished jobs (running ones resume) and start the workers; returns their ids.

        A job whose cancel was asked before the server stopped is finished as cancelled instead."""
        recovered = []
        for job in self.store.unfinished():
            if job.cancel_requested:
                self.runner.cancelled(job.id, "cancelled (asked before the server restarted)")
                continue
            recovered.append(job.id)
            self._queue.put(job.id)
        for number in range(self.service.settings.max_concurrent_jobs):
            worker = threading.Thread(target=self._work, name=f"deepresearch-job-{number}", daemon=True)
            worker.start()
            self._workers.append(worker)
        threading.Thread(target=self._keep, name="deepresearch-job-endings", daemon=True).start()
        if recovered:
            logger.info("re-queued %d unfinished job(s) from %s", len(recovered), self.store.path)
        return recovered

    def stop(self, timeout: float = 10.0) -> None:
        """Interrupt running jobs (they stay ``running`` and resume at the next start) and join."""
        self.runner.stop_all()
        for _ in self._workers:
            self._queue.put(None)
        deadline = time.monotonic() + timeout
        for worker in self._workers:
            worker.join(max(0.0, deadline - time.monotonic()))

    def close(self) -> None:
        from deepresearch.durable import close_checkpointer

        self.store.close()
        close_checkpointer(self.checkpointer)

    def submit(self, topic: str, overrides: dict[str, Any], *, review_plan: bool = False) -> JobRow:
        """Queue a job; :class:`QueueFullError` when ``MAX_QUEUED_JOBS`` are already waiting."""
        limit = self.service.settings.max_queued_jobs
        if self.store.count("queued") >= limit:
            raise QueueFullError(f"{limit} jobs are already queued (MAX_QUEUED_JOBS); try again later")
        job = self.store.create(topic, overrides=overrides, review_plan=review_plan)
        self.runner.append(job.id, status_event("queued", "Queued", position=self._queue.qsize() + 1))
        self._queue.put(job.id)
        return job

    def record_dry_run(self, topic: str, overrides: dict[str, Any], checks: list[dict[str, Any]]) -> JobRow:
        """Store a finished dry-run job: ``completed`` when every check passed, else ``failed``."""
        return self.runner.record_dry_run(topic, overrides, checks)

    def continue_review(self, job_id: str, decision: dict[str, Any]) -> JobRow:
        """Queue a job awaiting review again; it resumes from its checkpoint with ``decision``."""
        self.runner.continue_review(job_id, decision)
        self._queue.put(job_id)
        return self.store.require(job_id)

    def cancel(self, job_id: str) -> JobRow:
        """Cancel a queued job now, or stop a running one (its model call in flight included).

        The request is stored first, so a job cancelled while running stays cancelled even if the
        server stops before the run notices."""
        job = self.store.require(job_id)
        if job.status == "queued":
            self.runner.cancelled(job_id, "cancelled before it started")
        elif job.status == "awaiting_review":
            self.runner.cancelled(job_id, "cancelled while waiting for plan review")
        elif job.status == "running" and self.store.request_cancel(job_id):
            self.runner.signal_cancel(job_id)
        return self.store.require(job_id)

    def _work(self) -> None:
        while True:
            job_id = self._queue.get()
            if job_id is None or self.runner.stopping.is_set():
                return
            try:
                self.runner.run_guarded(job_id)
            except Exception:  # the worker must outlive any one job; the log has it
                logger.exception("job %s: the job runner failed", job_id)

    def _keep(self) -> None:
        """Write the endings a full disk held back (:meth:`JobRunner.flush_unwritten`) as soon as
        the store takes writes again."""
        interval = self.service.options.storage_retry_seconds
        while not self.runner.stopping.wait(interval):
            if self.runner.unwritten():
                try:
                    self.runner.flush_unwritten()
                except Exception:  # tried again next round; the log has it
                    logger.exception("writing the endings of jobs failed")
