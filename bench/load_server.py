"""Load bench for the HTTP service (not a test): concurrent SSE streams and concurrent jobs.

The server runs in a child process around the scripted model double with a fixed latency per call,
so the numbers measure the service (threads, SSE, SQLite, checkpoints), not a model. Reports
errors, event latency (client receive time minus the server's ``time`` stamp on each event),
time to first event, run duration, and the server's memory (RSS now and peak).

    .venv/bin/python bench/load_server.py --streams 100 --jobs 100 --latency 0.05
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

TOPIC = "When was the Prague astronomical clock built?"
OUT = Path(__file__).resolve().parent / "out"


@dataclass
class StreamStats:
    latencies: list[float] = field(default_factory=list)
    first_event: list[float] = field(default_factory=list)
    durations: list[float] = field(default_factory=list)
    events: int = 0
    errors: list[str] = field(default_factory=list)


def serve(home: Path, port_file: Path, latency: float, concurrency: int) -> None:
    """Child process: the app around ``ScriptedModel(delay=latency)`` on a free port."""
    import uvicorn

    from deepresearch.llm.testing import ScriptedModel
    from deepresearch.search.testing import StaticSearch, hit
    from deepresearch.server import ServerOptions, create_app
    from deepresearch.settings import Settings

    def search(query: str) -> list[Any]:
        slug = "-".join(query.lower().split())[:40]
        return [hit(f"https://example.org/{slug}/{n}", f"{query} {n}", f"{query}: page {n}.") for n in (1, 2)]

    settings = Settings.load(
        {"deepresearch_home": home, "max_concurrent_jobs": min(concurrency, 64), "summary_mode": "model"}
    )
    options = ServerOptions(max_direct_runs=concurrency)
    app = create_app(
        settings, model=ScriptedModel(delay=latency), search=StaticSearch(default=search), options=options
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port_file.write_text(str(sock.getsockname()[1]))
    uvicorn.Server(uvicorn.Config(app, log_level="warning", backlog=2048)).run(sockets=[sock])


async def read_events(
    response: httpx.Response, stats: StreamStats, started: float
) -> tuple[str | None, float | None]:
    """Read SSE until done/error, recording each event's latency; return (final type, first event)."""
    first: float | None = None
    event_type: str | None = None
    async for line in response.aiter_lines():
        if line.startswith("event:"):
            event_type = line[6:].strip()
        elif line.startswith("data:"):
            body = json.loads(line[5:].strip())
            stats.latencies.append(time.time() - body["time"])
            stats.events += 1
            first = first if first is not None else time.monotonic() - started
            if event_type in ("done", "error"):
                return event_type, first
    return None, first


async def one_stream(client: httpx.AsyncClient, n: int, stats: StreamStats) -> None:
    started = time.monotonic()
    first: float | None = None
    try:
        async with client.stream("POST", "/research/stream", json={"topic": f"{TOPIC} #{n}"}) as response:
            if response.status_code != 200:
                stats.errors.append(f"stream {n}: HTTP {response.status_code}")
                return
            final, first = await read_events(response, stats, started)
            if final != "done":
                stats.errors.append(f"stream {n}: ended with {final}")
    except httpx.HTTPError as exc:
        stats.errors.append(f"stream {n}: {type(exc).__name__}: {exc}")
        return
    stats.first_event.append(first or 0.0)
    stats.durations.append(time.monotonic() - started)


async def one_job(client: httpx.AsyncClient, n: int, stats: StreamStats) -> None:
    started = time.monotonic()
    first: float | None = None
    try:
        created = await client.post("/tasks", json={"topic": f"{TOPIC} job #{n}"})
        if created.status_code != 202:
            stats.errors.append(f"job {n}: HTTP {created.status_code}")
            return
        job_id = created.json()["id"]
        async with client.stream("GET", f"/tasks/{job_id}/events") as response:
            final, first = await read_events(response, stats, started)
        status = (await client.get(f"/tasks/{job_id}")).json()["status"]
        if final != "done" or status != "completed":
            stats.errors.append(f"job {n}: final event {final}, status {status}")
            return
    except httpx.HTTPError as exc:
        stats.errors.append(f"job {n}: {type(exc).__name__}: {exc}")
        return
    stats.first_event.append(first or 0.0)
    stats.durations.append(time.monotonic() - started)


async def phase(base: str, count: int, worker: Any) -> tuple[StreamStats, float]:
    stats = StreamStats()
    limits = httpx.Limits(max_connections=count * 2 + 10, max_keepalive_connections=count * 2 + 10)
    timeout = httpx.Timeout(600.0, connect=60.0)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=timeout) as client:
        started = time.monotonic()
        await asyncio.gather(*(worker(client, n, stats) for n in range(count)))
    return stats, time.monotonic() - started


def memory(pid: int) -> dict[str, float]:
    """RSS now and peak (VmHWM) in MiB, and the thread count, from /proc."""
    values: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = round(int(rest.split()[0]) / 1024, 1)
        elif key == "Threads":
            values["threads"] = int(rest)
    return values


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summary(name: str, stats: StreamStats, wall: float, count: int) -> dict[str, Any]:
    ms = [v * 1000 for v in stats.latencies]
    return {
        "phase": name,
        "clients": count,
        "ok": len(stats.durations),
        "errors": len(stats.errors),
        "error_samples": stats.errors[:5],
        "events": stats.events,
        "event_latency_ms_p50": round(percentile(ms, 0.5), 2),
        "event_latency_ms_p99": round(percentile(ms, 0.99), 2),
        "event_latency_ms_max": round(max(ms), 2) if ms else None,
        "first_event_s_p50": round(percentile(stats.first_event, 0.5), 3),
        "run_s_p50": round(statistics.median(stats.durations), 3) if stats.durations else None,
        "run_s_max": round(max(stats.durations), 3) if stats.durations else None,
        "wall_s": round(wall, 2),
    }


def wait_ready(base: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit("the server exited during start-up")
        try:
            if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit("the server did not answer /healthz within 60 s")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--streams", type=int, default=100, help="concurrent /research/stream clients")
    parser.add_argument("--jobs", type=int, default=100, help="concurrent /tasks jobs (each followed by SSE)")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per scripted model call")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--home", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.home, args.port_file, args.latency, max(args.streams, args.jobs))
        return
    with tempfile.TemporaryDirectory(prefix="deepresearch-load-") as tmp:
        run_bench(args, Path(tmp))


def run_bench(args: argparse.Namespace, tmp: Path) -> None:
    port_file = tmp / "port"
    command = [
        sys.executable,
        __file__,
        "--serve",
        "--home",
        str(tmp / "home"),
        "--port-file",
        str(port_file),
    ]
    command += ["--latency", str(args.latency), "--streams", str(args.streams), "--jobs", str(args.jobs)]
    process = subprocess.Popen(command)
    try:
        while not port_file.is_file() or not port_file.read_text():
            time.sleep(0.05)
        base = f"http://127.0.0.1:{port_file.read_text()}"
        wait_ready(base, process)
        results: dict[str, Any] = {"latency_per_model_call_s": args.latency, "cpus": os.cpu_count()}
        results["memory_idle"] = memory(process.pid)
        streams, wall = asyncio.run(phase(base, args.streams, one_stream))
        results["streams"] = summary("streams", streams, wall, args.streams)
        results["memory_after_streams"] = memory(process.pid)
        jobs, wall = asyncio.run(phase(base, args.jobs, one_job))
        results["jobs"] = summary("jobs", jobs, wall, args.jobs)
        results["memory_after_jobs"] = memory(process.pid)
    finally:
        process.terminate()
        process.wait(30)
    report(results)


def report(results: dict[str, Any]) -> None:
    OUT.mkdir(exist_ok=True)
    (OUT / "load_server.json").write_text(json.dumps(results, indent=2))
    print(f"scripted model latency {results['latency_per_model_call_s']} s/call, {results['cpus']} CPUs")
    for name in ("streams", "jobs"):
        r = results[name]
        print(
            f"{name:8} clients={r['clients']} ok={r['ok']} errors={r['errors']} events={r['events']} "
            f"latency p50={r['event_latency_ms_p50']} ms p99={r['event_latency_ms_p99']} ms "
            f"max={r['event_latency_ms_max']} ms first-event p50={r['first_event_s_p50']} s "
            f"run p50={r['run_s_p50']} s max={r['run_s_max']} s wall={r['wall_s']} s"
        )
        for sample in r["error_samples"]:
            print(f"  error: {sample}")
    for key in ("memory_idle", "memory_after_streams", "memory_after_jobs"):
        print(f"{key:22} {results[key]}")
    print(f"written to {OUT / 'load_server.json'}")


if __name__ == "__main__":
    main()
