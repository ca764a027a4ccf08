"""``JOBS_BACKEND=celery``: jobs run on ``deepresearch worker`` processes (Celery, Redis broker).

The API side (:class:`CeleryBackend`) stores a job in PostgreSQL and sends its id to the broker;
any worker takes it (:mod:`deepresearch.jobs.worker`). Tasks are acknowledged late and rejected
when their worker is lost, so the broker delivers them again; a worker that dies holding a job
also stops renewing its lease, and the other workers hand the job on as soon as the lease runs out.
Every delivery of one job but the one holding the live lease is a no-op.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from deepresearch.errors import ConfigurationError, DeepResearchError, QueueFullError
from deepresearch.jobs.base import Notifier
from deepresearch.jobs.postgres import PostgresJobStore, connection_pool, migrate
from deepresearch.jobs.redis_bus import RedisBus
from deepresearch.jobs.runner import JobRunner, status_event
from deepresearch.limits import TEAM_EXTRA

if TYPE_CHECKING:
    from celery import Celery

    from deepresearch.jobs.store import JobRow
    from deepresearch.service import Service
    from deepresearch.settings import Settings

logger = logging.getLogger(__name__)

TASK = "deepresearch.run_job"
QUEUE = "deepresearch"
VISIBILITY_TIMEOUT = 3600.0
"""When Redis gives an unacknowledged task to another worker; leases usually hand a dead worker's
job on much sooner, and a second delivery of a live job is a no-op."""


def require_urls(settings: Settings) -> tuple[str, str]:
    """``(REDIS_URL, DATABASE_URL)``; :class:`ConfigurationError` saying what to set when missing."""
    missing = [name for name in ("redis_url", "database_url") if getattr(settings, name) is None]
    if missing:
        names = " and ".join(n.upper() for n in missing)
        raise ConfigurationError(
            f"JOBS_BACKEND=celery needs {names}: e.g. REDIS_URL=redis://localhost:6379/0 and "
            "DATABASE_URL=postgresql://user:pass@localhost:5432/deepresearch (or JOBS_BACKEND=local)"
        )
    assert settings.redis_url is not None and settings.database_url is not None
    return settings.redis_url.get_secret_value(), settings.database_url.get_secret_value()


def celery_app(redis_url: str) -> Celery:
    """A Celery app on the Redis broker at ``redis_url``, configured for long, resumable jobs."""
    try:
        from celery import Celery
    except ImportError as exc:
        raise ConfigurationError(TEAM_EXTRA) from exc
    app = Celery("deepresearch", broker=redis_url, set_as_current=False)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_ignore_result=True,
        task_default_queue=QUEUE,
        worker_prefetch_multiplier=1,
        worker_hijack_root_logger=False,
        broker_connection_retry_on_startup=True,
        broker_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT},
    )
    return app


def enqueue(app: Celery, job_id: str) -> None:
    app.send_task(TASK, args=[job_id], queue=QUEUE)


class CeleryBackend:
    """The API node's side: store in PostgreSQL, queue in Redis, live events from Redis."""

    def __init__(self, service: Service, store: PostgresJobStore, bus: RedisBus, app: Celery) -> None:
        self.service = service
        self.store = store
        self.bus = bus
        self.app = app
        self.notifier = Notifier()
        self.runner = JobRunner(service, store, None, bus.publish_event)

    @classmethod
    def from_settings(cls, service: Service) -> CeleryBackend:
        redis_url, database_url = require_urls(service.settings)
        pool = connection_pool(database_url)
        migrate(pool)
        store = PostgresJobStore(pool, lease_seconds=service.settings.job_lease_seconds)
        return cls(service, store, RedisBus(redis_url), celery_app(redis_url))

    def start(self) -> list[str]:
        """Follow every job's events through Redis; the workers pick up unfinished jobs."""
        self.bus.listen_events(self.notifier.publish)
        return []

    def stop(self, timeout: float = 10.0) -> None:
        self.bus.close()

    def close(self) -> None:
        self.store.close()

    def submit(self, topic: str, overrides: dict[str, Any], *, review_plan: bool = False) -> JobRow:
        limit = self.service.settings.max_queued_jobs
        queued = self.store.count("queued")
        if queued >= limit:
            raise QueueFullError(f"{limit} jobs are already queued (MAX_QUEUED_JOBS); try again later")
        job = self.store.create(topic, overrides=overrides, review_plan=review_plan)
        self.runner.append(job.id, status_event("queued", "Queued", position=queued + 1))
        try:
            enqueue(self.app, job.id)
        except Exception as exc:  # noqa: BLE001 - kombu raises many kinds; the job records which
            message = f"could not queue the job on the broker (REDIS_URL): {type(exc).__name__}: {exc}"
            self.runner.fail(job.id, self.service.redactor.text(message), "internal")
            raise DeepResearchError(self.service.redactor.text(message)) from None
        return job

    def continue_review(self, job_id: str, decision: dict[str, Any]) -> JobRow:
        """Queued again with its reviewed plan; a broker that is down now leaves it to the
        workers' keeper, which sends stranded queued jobs again."""
        self.runner.continue_review(job_id, decision)
        try:
            enqueue(self.app, job_id)
        except Exception as exc:  # noqa: BLE001 - requeued later by a worker's keeper
            logger.warning("job %s: could not queue it on the broker now: %s", job_id, exc)
        return self.store.require(job_id)

    def record_dry_run(self, topic: str, overrides: dict[str, Any], checks: list[dict[str, Any]]) -> JobRow:
        return self.runner.record_dry_run(topic, overrides, checks)

    def cancel(self, job_id: str) -> JobRow:
        """Stored first (any worker sees it), then told to every worker through Redis."""
        job = self.store.require(job_id)
        if job.status == "awaiting_review":
            self.runner.cancelled(job_id, "cancelled while waiting for plan review")
        elif not job.finished and self.store.request_cancel(job_id):
            if job.status == "queued":
                self.runner.cancelled(job_id, "cancelled before it started")
            self.bus.publish_cancel(job_id)
        return self.store.require(job_id)
