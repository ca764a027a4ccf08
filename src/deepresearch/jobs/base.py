"""The job seam: what the routes and the SSE stream need from a jobs backend, whatever runs the jobs.

Two backends implement :class:`JobsBackend`: ``local`` (SQLite and threads in the API process, the
default) and ``celery`` (Celery workers on a Redis broker, jobs, events and checkpoints in
PostgreSQL, live events through Redis). The routes, the SSE format and the web page do not know
which one runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar, Protocol

from deepresearch.errors import JobNotFoundError
from deepresearch.jobs.rows import OPEN, JobRow, JobStatus, StoredEvent, dump_json, utc_now


class JobStoreLike(Protocol):
    """Jobs and their numbered events, in SQLite (:class:`~deepresearch.jobs.store.JobStore`) or
    PostgreSQL (:class:`~deepresearch.jobs.postgres.PostgresJobStore`), as the types of
    :mod:`deepresearch.jobs.rows`.

    Both stores subclass it and inherit :meth:`require`, :meth:`finish` and :meth:`append_event`:
    each gives its SQL for :attr:`_FINISH` and its transactions in :meth:`_moved` and
    :meth:`_appended`."""

    def create(
        self, topic: str, *, overrides: dict[str, Any], dry_run: bool = False, review_plan: bool = False
    ) -> JobRow: ...
    def get(self, job_id: str) -> JobRow | None: ...
    def require(self, job_id: str) -> JobRow:
        """The job; :class:`~deepresearch.errors.JobNotFoundError` when there is none."""
        job = self.get(job_id)
        if job is None:
            raise JobNotFoundError.of(job_id)
        return job

    def recent(self, *, limit: int = 50, offset: int = 0, status: str | None = None) -> list[JobRow]: ...
    def count(self, status: JobStatus) -> int: ...
    def request_cancel(self, job_id: str) -> bool: ...
    def unfinished(self) -> list[JobRow]: ...
    def mark_running(self, job_id: str) -> bool: ...
    def set_run_dir(self, job_id: str, run_dir: str) -> None: ...
    def finish(
        self,
        job_id: str,
        status: JobStatus,
        event: dict[str, Any],
        now: float,
        *,
        result: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> StoredEvent | None:
        """Move an unfinished job to a terminal ``status`` and store its last ``event`` in the same
        transaction (whoever reads the event sees the job finished); None when it had already
        finished, and then nothing is stored."""
        values = (status, utc_now(), dump_json(result), error, job_id, *OPEN)
        return self._moved(self._FINISH, values, job_id, event, now)

    def await_review(self, job_id: str, event: dict[str, Any], now: float) -> StoredEvent | None: ...
    def resume_review(
        self, job_id: str, decision: dict[str, Any], event: dict[str, Any], now: float
    ) -> StoredEvent | None: ...
    def append_event(
        self, job_id: str, event: dict[str, Any], now: float, *, key: str | None = None
    ) -> StoredEvent:
        """Store ``event`` as the job's next event (its ``seq`` is replaced by the job's); one whose
        ``key`` (see :attr:`deepresearch.events.Event.key`) is stored already is not stored again,
        and the stored one is returned."""
        return self._appended(job_id, event, now, key)

    def probe_writes(self) -> str | None:
        """Why a write to the store fails now, or None (``/readyz``); a store without a probe
        says None."""
        return None

    def events(self, job_id: str, *, after: int = 0, limit: int = 500) -> list[StoredEvent]: ...
    def event_types(self, job_id: str) -> Sequence[tuple[str, dict[str, Any]]]: ...
    def close(self) -> None: ...

    _FINISH: ClassVar[str]
    """The UPDATE of :meth:`finish`: its values are the status, the time, the result (JSON), the
    error, the job's id and :data:`~deepresearch.jobs.rows.OPEN`; it changes only an open job."""

    def _moved(
        self, sql: str, values: Sequence[Any], job_id: str, event: dict[str, Any], now: float
    ) -> StoredEvent | None:
        """In one transaction: ``sql``, an UPDATE of the job's row, then, when it changed the row,
        ``event`` stored as the job's next; None when it changed nothing."""
        ...

    def _appended(self, job_id: str, event: dict[str, Any], now: float, key: str | None) -> StoredEvent:
        """In one transaction: :meth:`append_event`."""
        ...


class Notifier:
    """Hands each stored event to the job's live streams in this process, on the event loop.

    Thread-safe on the publishing side: the local backend publishes from its worker threads, the
    Celery backend from the thread that listens to Redis.
    """

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._inboxes: dict[str, set[asyncio.Queue[StoredEvent]]] = {}

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def listening(self, job_id: str) -> bool:
        return job_id in self._inboxes

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


class JobsBackend(Protocol):
    """Where jobs run and where their state lives; the ``/tasks`` routes talk only to this."""

    @property
    def store(self) -> JobStoreLike: ...

    @property
    def notifier(self) -> Notifier: ...

    def start(self) -> list[str]:
        """Begin serving; returns the ids of jobs picked up again (the local backend's restart)."""
        ...

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving: interrupt or stop following running jobs (they resume later)."""
        ...

    def close(self) -> None:
        """Release the databases and connections (after :meth:`stop`)."""
        ...

    def submit(self, topic: str, overrides: dict[str, Any], *, review_plan: bool = False) -> JobRow:
        """Queue a job; :class:`~deepresearch.errors.QueueFullError` when too many wait.
        ``review_plan`` stops it at ``awaiting_review`` once planned."""
        ...

    def continue_review(self, job_id: str, decision: dict[str, Any]) -> JobRow:
        """Queue a job ``awaiting_review`` again with its reviewed plan;
        :class:`~deepresearch.errors.ConflictError` when it is not awaiting review."""
        ...

    def record_dry_run(
        self, topic: str, overrides: dict[str, Any], checks: list[dict[str, Any]]
    ) -> JobRow: ...

    def cancel(self, job_id: str) -> JobRow:
        """Cancel a queued job now, or ask the process running it to stop at its next step."""
        ...
