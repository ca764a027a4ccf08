"""The jobs backend ``JOBS_BACKEND`` names, built when the service is."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deepresearch.jobs.base import JobsBackend
    from deepresearch.service import Service

CHECKPOINTS_FILE = "checkpoints.sqlite"


def jobs_backend(service: Service) -> JobsBackend:
    """``local``: SQLite files next to ``jobs.sqlite`` and threads; ``celery``: PostgreSQL, Redis and
    the workers (needs ``REDIS_URL``, ``DATABASE_URL`` and the ``team`` extra)."""
    settings = service.settings
    if settings.jobs_backend == "celery":
        from deepresearch.jobs.celery_backend import CeleryBackend

        return CeleryBackend.from_settings(service)
    from deepresearch.durable import sqlite_checkpointer
    from deepresearch.jobs.local import LocalBackend
    from deepresearch.jobs.store import JobStore

    checkpointer = sqlite_checkpointer(settings.jobs_db_path.with_name(CHECKPOINTS_FILE))
    return LocalBackend(service, JobStore(settings.jobs_db_path), checkpointer)
