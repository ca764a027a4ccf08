"""Where research jobs run: ``local`` (threads + SQLite, the default) or ``celery`` (workers, PostgreSQL,
Redis). :mod:`deepresearch.jobs.base` holds the seam; the Celery parts import only with the
``[team]`` extra installed."""
