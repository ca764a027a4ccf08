"""Scale-out measured as a team runs it: jobs per minute and event latency with 1, 2 and 4 workers.

Everything is a real process on 127.0.0.1: redis-server and PostgreSQL (temporary data dirs, as the
tests start them), two API nodes (``deepresearch serve`` with ``JOBS_BACKEND=celery``), N workers
(``deepresearch worker --concurrency C``), and an OpenAI-compatible model server that answers every
call after a fixed delay (tests/fakeopenai.py, answering each step like a model that follows the
prompts); search is the local index of the demo corpus. Jobs are submitted through the first API
node and followed (SSE) through the second. Each worker count gets ``--waves`` x N x C jobs, so
perfect scaling keeps the wall time flat and multiplies jobs per minute by N.

Event latency: from the moment the worker stored an event (its ``time``) to the moment the client
on the other API node read it.

    .venv/bin/python bench/scale.py --workers 1 2 4 --delay 1.0
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.cluster.services import (  # noqa: E402
    create_database,
    free_port,
    missing,
    postgres_server,
    redis_server,
)
from tests.fakeopenai import FakeOpenAI, research_responder, serve  # noqa: E402

from deepresearch.index.loaders import demo_corpus_path  # noqa: E402
from deepresearch.index.store import DocumentIndex  # noqa: E402

HEADER = "| workers | jobs | completed | complete streams | wall s | jobs/min | event p50 ms | p99 ms |"
QUESTION = "When was the astronomical clock built in the city where Karel Purkyně died? ({n})"


@dataclass
class Run:
    workers: int
    jobs: int
    wall: float = 0.0
    completed: int = 0
    latencies: list[float] = field(default_factory=list)
    complete_streams: int = 0

    def line(self) -> str:
        lat = sorted(self.latencies)
        p50 = statistics.median(lat) * 1000 if lat else float("nan")
        p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))] * 1000 if lat else float("nan")
        return (
            f"| {self.workers} | {self.jobs} | {self.completed} | {self.complete_streams} | "
            f"{self.wall:.1f} | {self.jobs_per_minute:.1f} | {p50:.0f} | {p99:.0f} |"
        )

    @property
    def jobs_per_minute(self) -> float:
        return 60 * self.completed / self.wall if self.wall else 0.0


def env_for(
    home: Path, model_url: str, index: Path, redis_url: str, database_url: str, loops: int
) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")}
    return {
        **keep,
        "DEEPRESEARCH_HOME": str(home),
        "JOBS_BACKEND": "celery",
        "REDIS_URL": redis_url,
        "DATABASE_URL": database_url,
        "LLM_PROVIDER": "custom",
        "LLM_BASE_URL": model_url,
        "LLM_MODEL_ID": "fake-model",
        "LLM_API_KEY": "bench",
        "RELEVANCE_THRESHOLD": "100",
        "SEARCH_API": "local",
        "INDEX_PATH": str(index),
        "MAX_WEB_RESEARCH_LOOPS": str(loops),
        "MAX_QUEUED_JOBS": "10000",
    }


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(command, env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)


def wait_until(check: object, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():  # type: ignore[operator]
                return
        except (httpx.HTTPError, OSError):
            pass
        time.sleep(0.2)
    raise SystemExit(f"{what} did not come up within {timeout:.0f} s")


def api_node(env: dict[str, str], work: Path, name: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [sys.executable, "-m", "deepresearch.cli.main", "serve", "--port", str(port)]
    process = start(command, env, work / f"{name}.log")
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: httpx.get(f"{url}/healthz").status_code == 200, name)
    return process, url


def worker(env: dict[str, str], work: Path, name: str, concurrency: int) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-m",
        "deepresearch.cli.main",
        "worker",
        f"--concurrency={concurrency}",
        f"--name={name}",
    ]
    log = work / f"{name}.log"
    process = start(command, env, log)
    wait_until(lambda: b" ready." in log.read_bytes(), name)
    return process


async def follow(client: httpx.AsyncClient, job_id: str, run: Run) -> None:
    seqs: list[int] = []
    last = ""
    async with client.stream("GET", f"/tasks/{job_id}/events", timeout=None) as response:
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                body = json.loads(line[5:])
                run.latencies.append(time.time() - body["time"])
                seqs.append(body["seq"])
                last = body["type"]
                if last in ("done", "error"):
                    break
    run.completed += last == "done"
    run.complete_streams += seqs == list(range(1, len(seqs) + 1)) and last == "done"


async def drive(submit_url: str, follow_url: str, run: Run) -> None:
    limits = httpx.Limits(max_connections=run.jobs + 10)
    async with (
        httpx.AsyncClient(base_url=submit_url) as a,
        httpx.AsyncClient(base_url=follow_url, limits=limits) as b,
    ):
        started = time.monotonic()
        ids = []
        for n in range(run.jobs):
            response = await a.post("/tasks", json={"topic": QUESTION.format(n=n)})
            response.raise_for_status()
            ids.append(response.json()["id"])
        await asyncio.gather(*(follow(b, job_id, run) for job_id in ids))
        run.wall = time.monotonic() - started


def one_config(
    args: argparse.Namespace, count: int, base_env: dict[str, str], pg_url: str, work: Path
) -> Run:
    database = create_database(pg_url, f"bench_{count}_{int(time.time())}")
    env = {**base_env, "DATABASE_URL": database}
    run = Run(workers=count, jobs=args.waves * count * args.concurrency if not args.jobs else args.jobs)
    processes: list[subprocess.Popen[bytes]] = []
    try:
        submit, submit_url = api_node(env, work, f"api-a-{count}")
        other, follow_url = api_node(env, work, f"api-b-{count}")
        processes += [submit, other]
        processes += [worker(env, work, f"w{i}-{count}", args.concurrency) for i in range(count)]
        asyncio.run(drive(submit_url, follow_url, run))
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(30)
    return run


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--concurrency", type=int, default=2, help="jobs per worker at once")
    parser.add_argument("--waves", type=int, default=3, help="jobs per worker slot")
    parser.add_argument("--jobs", type=int, default=0, help="a fixed job count instead of waves")
    parser.add_argument("--delay", type=float, default=1.0, help="seconds per model call")
    parser.add_argument("--loops", type=int, default=1)
    args = parser.parse_args()
    if reason := missing():
        raise SystemExit(reason)
    work = Path(tempfile.mkdtemp(prefix="dr-scale-"))
    index = work / "demo.sqlite"
    DocumentIndex(index).index_paths([demo_corpus_path()])
    answer = research_responder()
    fake = FakeOpenAI(responder=lambda body: replace(answer(body), delay=args.delay))
    with ExitStack() as stack:
        model_url = stack.enter_context(serve(fake))
        redis_url = stack.enter_context(redis_server())
        pg_url = stack.enter_context(postgres_server())
        base = env_for(work / "home", model_url, index, redis_url, pg_url, args.loops)
        print(f"model {args.delay:.1f} s per call, {args.concurrency} jobs per worker, logs in {work}")
        print(HEADER)
        print("|---|---|---|---|---|---|---|---|")
        runs = []
        for count in args.workers:
            runs.append(one_config(args, count, base, pg_url, work))
            print(runs[-1].line(), flush=True)
        first = runs[0]
        for run in runs[1:]:
            ideal = first.jobs_per_minute * run.workers / first.workers
            print(f"{run.workers} workers: {run.jobs_per_minute / ideal:.0%} of linear")


if __name__ == "__main__":
    main()
