"""``JOBS_BACKEND=celery``: jobs run on ``deepresearch worker`` processes (Celery, Redis broker).

The API side (:class:`CeleryBackend`) stores a job in PostgreSQL and sends its id to the broker;
any worker takes it (:mod:`deepresearch.jobs.worker`). Tasks are acknowledged late and rejected
when their worker is lost, so the broker delivers them again; a worker that dies holding a job
also stops renewing its lease, and the other workers hand the job on as soon as the lease runs out.
Every delivery of one job but the one holding the live lease is a no-op.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from deepresearch.errors import ConfigurationError, QueueFullError, UnavailableError
from deepresearch.jobs.base import Notifier
from deepresearch.jobs.postgres import PostgresJobStore, connection_pool, migrate
from deepresearch.jobs.redis_bus import PREFIX, RedisBus
from deepresearch.jobs.runner import JobRunner, status_event
from deepresearch.limits import TEAM_EXTRA

if TYPE_CHECKING:
    from celery import Celery

    from deepresearch.jobs.rows import JobRow
    from deepresearch.service import Service
    from deepresearch.settings import Settings

TASK = "deepresearch.run_job"
QUEUE = "deepresearch"
VISIBILITY_TIMEOUT = 3600.0
"""When Redis gives an unacknowledged task to another worker; leases usually hand a dead worker's
job on much sooner, and a second delivery of a live job is a no-op."""
SENT = f"{PREFIX}:sent:"
SENT_SECONDS = 24 * 3600
"""How long a job's "sent" mark lives if no worker takes the job (then it is sent once more)."""


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


class Broker:
    """Sends job ids to the workers' queue and marks each one sent, in the same Redis.

    A mark shares its message's fate (a Redis restarted without persistence, or flushed, loses
    both), so a queued job without a mark has no message: the workers' keepers find those
    (:meth:`unsent`) and send them again within a lease period. A worker removes the mark when it
    takes the job (:meth:`taken`), so a job queued again later is judged by its new message alone.
    """

    def __init__(self, app: Celery, bus: RedisBus) -> None:
        self.app = app
        self.bus = bus

    def send(self, job_id: str) -> None:
        """:class:`UnavailableError` when the broker cannot take it now."""
        import redis
        from kombu.exceptions import KombuError

        try:
            self.app.send_task(TASK, args=[job_id], queue=QUEUE)
            self.bus.client.set(SENT + job_id, 1, ex=SENT_SECONDS)
        except (KombuError, redis.RedisError, OSError) as exc:
            self.bus.outage.failed(exc)
            raise UnavailableError(
                f"the broker (REDIS_URL) cannot take jobs now: {type(exc).__name__}: {exc}"
            ) from exc
        self.bus.outage.answered()

    def taken(self, job_id: str) -> None:
        import redis

        try:
            self.bus.client.delete(SENT + job_id)
        except redis.RedisError as exc:
            self.bus.outage.failed(exc)

    def unsent(self, job_ids: list[str]) -> list[str]:
        """Those of ``job_ids`` whose message is not in the broker; none while Redis is down."""
        import redis

        if not job_ids:
            return []
        try:
            pipe = self.bus.client.pipeline(transaction=False)
            for job_id in job_ids:
                pipe.exists(SENT + job_id)
            found = pipe.execute()
        except redis.RedisError as exc:
            self.bus.outage.failed(exc)
            return []
        return [job_id for job_id, present in zip(job_ids, found, strict=True) if not present]


class CeleryBackend:
    """The API node's side: store in PostgreSQL, queue in Redis, live events from Redis."""

    def __init__(self, service: Service, store: PostgresJobStore, bus: RedisBus, app: Celery) -> None:
        self.service = service
        self.store = store
        self.bus = bus
        self.app = app
        self.broker = Broker(app, bus)
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
            self.broker.send(job.id)
        except UnavailableError:
            self.store.discard(job.id)
            raise
        return job

    def continue_review(self, job_id: str, decision: dict[str, Any]) -> JobRow:
        """Queued again with its reviewed plan; a broker that is down now leaves it unmarked, and
        a worker's keeper sends it once Redis answers."""
        self.runner.continue_review(job_id, decision)
        with contextlib.suppress(UnavailableError):
            self.broker.send(job_id)
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
