"""A cluster of real processes on loopback: API nodes and Celery workers over one Redis and one
PostgreSQL database, sharing one ``DEEPRESEARCH_HOME`` (notes and run folders)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from ..server.helpers import SseMessage, read_events, wait_for

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Node:
    process: subprocess.Popen[bytes]
    log: Path
    url: str = ""

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30)

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, nothing is handed back."""
        self.process.kill()
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


@dataclass
class Cluster:
    home: Path
    redis_url: str
    database_url: str
    tmp: Path
    nodes: list[Node] = field(default_factory=list)

    def _spawn(self, role: str, name: str, *extra: str) -> Node:
        log = self.tmp / f"{name}.log"
        command = [
            sys.executable, "-m", "tests.cluster.launch", role, "--home", str(self.home),
            "--redis", self.redis_url, "--database", self.database_url, "--name", name, *extra,
        ]  # fmt: skip
        with log.open("wb") as out:
            process = subprocess.Popen(command, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
        node = Node(process, log)
        self.nodes.append(node)
        return node

    def api(self, name: str, delay: float = 0.05) -> Node:
        port_file = self.tmp / f"{name}.port"
        node = self._spawn("api", name, "--port-file", str(port_file), "--delay", str(delay))
        port = wait_for(lambda: _alive(node) and port_file.is_file() and port_file.read_text(), timeout=90)
        node.url = f"http://127.0.0.1:{port}"
        with node.client() as client:
            wait_for(lambda: _answers(client), timeout=60)
        return node

    def worker(self, name: str, *, delay: float = 0.05, concurrency: int = 2) -> Node:
        node = self._spawn("worker", name, "--delay", str(delay), "--concurrency", str(concurrency))
        wait_for(lambda: _alive(node) and b"ready" in node.log.read_bytes(), timeout=90)
        return node

    def close(self) -> None:
        for node in self.nodes:
            node.stop()


def _alive(node: Node) -> bool:
    if node.process.poll() is not None:
        raise AssertionError(f"{node.log.name} exited:\n{node.log.read_text(errors='replace')[-3000:]}")
    return True


def _answers(client: httpx.Client) -> bool:
    try:
        return client.get("/healthz").status_code == 200
    except httpx.TransportError:
        return False


def follow(
    client: httpx.Client, job_id: str, last_event_id: int | None = None, **kwargs: Any
) -> list[SseMessage]:
    headers = {"Last-Event-ID": str(last_event_id)} if last_event_id else {}
    with client.stream("GET", f"/tasks/{job_id}/events", headers=headers) as response:
        if response.status_code == 204:
            return []
        return read_events(response, **kwargs)
