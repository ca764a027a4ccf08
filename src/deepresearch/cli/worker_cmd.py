"""``deepresearch worker``: run research jobs for the API nodes (``JOBS_BACKEND=celery``)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from deepresearch.cli.console import err, friendly_errors


def worker_command(
    concurrency: Annotated[
        int, typer.Option(min=1, max=256, help="Jobs this worker runs at once, on threads.")
    ] = 4,
    name: Annotated[str | None, typer.Option(help="Worker name (default: deepresearch@host).")] = None,
    loglevel: Annotated[str, typer.Option(help="Celery log level.")] = "INFO",
) -> None:
    """Run research jobs queued by the API nodes until stopped (SIGTERM hands running jobs back).

    Needs REDIS_URL, DATABASE_URL and the team extra; DEEPRESEARCH_HOME (notes and run folders)
    must be a path every worker and API node shares.
    """
    from deepresearch.errors import ConfigurationError
    from deepresearch.jobs.worker import run_worker
    from deepresearch.settings import Settings

    with friendly_errors():
        settings = Settings.load()
        if settings.jobs_backend != "celery":
            raise ConfigurationError(
                "a worker serves JOBS_BACKEND=celery; set JOBS_BACKEND=celery, REDIS_URL and DATABASE_URL"
            )
        home = escape(str(settings.home))
        err.print(f"[dim]deepresearch worker: {concurrency} job(s) at once, notes under {home}[/dim]")
        run_worker(settings, concurrency=concurrency, name=name, loglevel=loglevel)
