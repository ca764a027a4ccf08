"""The service's jobs: the backend ``JOBS_BACKEND`` names (:mod:`deepresearch.jobs`).

``local`` (the default) runs jobs on threads of this process with SQLite; ``celery`` hands them to
Celery workers and keeps their state in PostgreSQL (see :mod:`deepresearch.jobs`).
"""

from __future__ import annotations

from deepresearch.jobs.base import JobsBackend, Notifier
from deepresearch.jobs.local import LocalBackend

JobManager = LocalBackend
"""The local backend under its earlier name."""

__all__ = ["JobManager", "JobsBackend", "LocalBackend", "Notifier"]
