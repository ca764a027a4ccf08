"""A ``deepresearch worker``: a Celery worker (threads pool) that runs research jobs.

The research loop waits on the model and the web, so one process runs ``concurrency`` jobs on
threads. Each job is claimed with a lease in PostgreSQL; a keeper thread renews this worker's
leases every third of ``JOB_LEASE_SECONDS``, stops the jobs whose cancel was asked (the Redis
cancel message is the fast path, this is the sure one), and queues again the jobs whose worker
died (their lease ran out). On a warm shutdown (SIGTERM) running jobs stop at their next step and
are handed back at once, to resume from their checkpoint on another worker.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from deepresearch.errors import ConfigurationError, UnavailableError
from deepresearch.jobs.celery_backend import QUEUE, TASK, Broker, celery_app, require_urls
from deepresearch.jobs.postgres import PostgresJobStore, connection_pool, migrate, postgres_checkpointer
from deepresearch.jobs.redis_bus import RedisBus
from deepresearch.jobs.runner import JobRunner
from deepresearch.limits import TEAM_EXTRA

if TYPE_CHECKING:
    from deepresearch.llm.base import ChatModel
    from deepresearch.search.base import SearchBackend
    from deepresearch.service import ServerOptions, Service
    from deepresearch.settings import Settings

logger = logging.getLogger(__name__)


@dataclass
class WorkerRuntime:
    """What one worker process holds: its job runner, store, bus and Celery app."""

    runner: JobRunner
    store: PostgresJobStore
    bus: RedisBus
    broker: Broker
    checkpointer: Any
    stopped: threading.Event = field(default_factory=threading.Event)

    def start(self) -> None:
        warm_up()
        self.bus.listen_cancels(self.runner.signal_cancel)
        threading.Thread(target=self._keep, name="deepresearch-lease-keeper", daemon=True).start()

    def _keep(self) -> None:
        interval = max(0.2, self.store.lease_seconds / 3)
        while not self.stopped.wait(interval):
            try:
                self.keep_once()
            except Exception:  # the next round tries again; a lease has slack
                logger.exception("renewing leases failed")

    def keep_once(self) -> None:
        """Renew this worker's leases, stop what must stop, queue again what lost its worker or its
        broker message, and write the endings of jobs a full disk held back."""
        self.runner.flush_unwritten()
        for job_id in self.store.renew(self.runner.running()):
            if self.store.require(job_id).cancel_requested:
                self.runner.signal_cancel(job_id)
            else:
                self.runner.signal_lost(job_id)
        for job_id in self.store.reclaim_expired():
            logger.warning("job %s lost its worker; queued again to resume from its checkpoint", job_id)
            self._send(job_id)
        for job_id in self.broker.unsent(self.store.requeue_stranded()):
            logger.warning(
                "job %s was queued with no broker message (lost, or never sent); sent again", job_id
            )
            self._send(job_id)

    def _send(self, job_id: str) -> None:
        """Best effort: a job the broker refuses now stays unmarked and is sent in a later round."""
        with contextlib.suppress(UnavailableError):
            self.broker.send(job_id)

    def hand_back(self, job_id: str) -> None:
        """A run stopped because this worker is stopping: let another worker resume it now."""
        if self.store.release(job_id):
            self._send(job_id)

    def shutdown(self) -> None:
        self.runner.stop_all()

    def close(self) -> None:
        self.stopped.set()
        self.bus.close()
        self.store.close()


def warm_up() -> None:
    """Import and build what every run needs before taking jobs (measured: ~4 s on a loaded
    2-core machine, paid otherwise by the first job of each worker)."""
    import importlib

    from deepresearch.graph.builder import build_graph

    build_graph()
    for name in (
        "deepresearch.llm.openai_compat",
        "deepresearch.search.factory",
        "deepresearch.fetch.extract",
    ):
        importlib.import_module(name)


def build_runtime(service: Service) -> WorkerRuntime:
    """Connect to Redis and PostgreSQL (migrating it) and register the job task on a Celery app
    that runs jobs with ``service``."""
    settings = service.settings
    redis_url, database_url = require_urls(settings)
    pool = connection_pool(database_url, max_size=20)
    migrate(pool)
    owner = f"{socket.gethostname()}:{threading.get_native_id()}:{id(pool):x}"
    store = PostgresJobStore(pool, owner=owner, lease_seconds=settings.job_lease_seconds)
    checkpointer = postgres_checkpointer(pool)
    bus = RedisBus(redis_url)
    app = celery_app(redis_url)
    broker = Broker(app, bus)
    runtime: WorkerRuntime
    runner = JobRunner(
        service,
        store,
        checkpointer,
        bus.publish_event,
        on_interrupted=lambda job_id: runtime.hand_back(job_id),
    )
    runtime = WorkerRuntime(runner, store, bus, broker, checkpointer)

    @app.task(name=TASK, acks_late=True, reject_on_worker_lost=True)  # type: ignore[untyped-decorator]
    def run_job(job_id: str) -> None:
        runtime.broker.taken(job_id)
        runtime.runner.run_guarded(job_id)

    return runtime


def run_worker(
    settings: Settings,
    *,
    concurrency: int = 4,
    name: str | None = None,
    loglevel: str = "INFO",
    model: ChatModel | None = None,
    search: SearchBackend | None = None,
    options: ServerOptions | None = None,
) -> None:
    """Run a worker in this process until it is stopped (SIGTERM: warm shutdown, jobs handed back)."""
    try:
        from celery import signals
    except ImportError as exc:
        raise ConfigurationError(TEAM_EXTRA) from exc

    from deepresearch.service import ServerOptions, Service

    runtime = build_runtime(Service(settings, model, search, options or ServerOptions()))
    runtime.start()
    signals.worker_shutting_down.connect(lambda **_: runtime.shutdown(), weak=False)
    argv = [
        "worker",
        "--pool=threads",
        f"--concurrency={concurrency}",
        f"--queues={QUEUE}",
        f"--loglevel={loglevel}",
        "--without-gossip",
        "--without-mingle",
        f"--hostname={name or 'deepresearch'}@%h",
    ]
    try:
        runtime.broker.app.worker_main(argv)
    finally:
        runtime.close()
