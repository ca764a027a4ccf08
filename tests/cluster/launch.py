"""Processes of a test cluster: ``python -m tests.cluster.launch api|worker --home H --redis R --database D``.

Both run the real code (``create_app`` under uvicorn; ``run_worker``, a Celery worker on threads)
with the scripted model (each call takes ``--delay`` s) and the static search double, the seams
the tests may replace. An API process writes its port to ``--port-file`` once it listens.
"""

from __future__ import annotations

import argparse
import socket
from pathlib import Path
from typing import Any

from deepresearch.llm.testing import ScriptedModel
from deepresearch.settings import Settings

from ..server.helpers import static_search

LEASE_SECONDS = 2.0


def cluster_settings(home: Path, redis_url: str, database_url: str) -> Settings:
    values: dict[str, Any] = {
        "deepresearch_home": home,
        "jobs_backend": "celery",
        "redis_url": redis_url,
        "database_url": database_url,
        "job_lease_seconds": LEASE_SECONDS,
        "summary_mode": "model",
        "model_judge": True,
        "max_web_research_loops": 2,
        "max_queued_jobs": 1000,
    }
    return Settings.load(values)


def api(args: argparse.Namespace, settings: Settings) -> None:
    import uvicorn

    from deepresearch.server import ServerOptions, create_app

    app = create_app(
        settings,
        model=ScriptedModel(delay=args.delay),
        search=static_search(),
        options=ServerOptions(heartbeat_seconds=1.0),
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    args.port_file.write_text(str(sock.getsockname()[1]))
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


def worker(args: argparse.Namespace, settings: Settings) -> None:
    from deepresearch.jobs.worker import run_worker

    run_worker(
        settings,
        concurrency=args.concurrency,
        name=args.name,
        loglevel="INFO",
        model=ScriptedModel(delay=args.delay),
        search=static_search(),
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("role", choices=("api", "worker"))
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--redis", required=True)
    parser.add_argument("--database", required=True)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--name", default="worker")
    parser.add_argument("--port-file", type=Path)
    args = parser.parse_args()
    settings = cluster_settings(args.home, args.redis, args.database)
    (api if args.role == "api" else worker)(args, settings)


if __name__ == "__main__":
    main()
