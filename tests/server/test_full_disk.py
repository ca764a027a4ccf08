"""A full disk under a running ``deepresearch serve``: the job that could not write its failure is
failed once space returns, new jobs are refused with 507 ``storage_full``, and ``/readyz`` says
not ready while writes fail.

How the disk is filled: ``RLIMIT_FSIZE`` set to 0 on the server process from outside
(``prlimit``), then lifted. A tiny tmpfs needs root and a mount; ``PRAGMA max_page_count`` needs a
hook into the server's own connection and fills only one database. The file-size limit is a real
kernel refusal of every write to a regular file by that process — the jobs database, its WAL and
the checkpoints alike, as a full disk refuses them (Python ignores ``SIGXFSZ``, so the write fails
with ``EFBIG``, which SQLite reports as a disk I/O error) — and lifting it is space returning.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from deepresearch.index.store import DocumentIndex

from ..conftest import PASSAGES
from ..fakeopenai import FakeOpenAI, Reply, research_responder, serve, step_of
from .helpers import wait_for, wait_job
from .test_serve_command import _free_port

TOPIC = "When was the Prague astronomical clock built?"


class HeldModel:
    """Answers every step well, but holds the first summary until :meth:`release`."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.released = threading.Event()
        self.answer = research_responder()

    def __call__(self, body: dict[str, Any]) -> Reply:
        if step_of(body) == "summarize" and not self.reached.is_set():
            self.reached.set()
            self.released.wait(60)
        return self.answer(body)


@pytest.fixture
def server(tmp_path: Path, home: Path) -> Iterator[tuple[httpx.Client, int, HeldModel]]:
    index = tmp_path / "index.sqlite"
    with DocumentIndex(index) as store:
        store.add_documents(PASSAGES)
    held = HeldModel()
    port = _free_port()
    with serve(FakeOpenAI(responder=held)) as model_url:
        env = {
            **os.environ,
            "DEEPRESEARCH_HOME": str(home),
            "INDEX_PATH": str(index),
            "LLM_PROVIDER": "custom",
            "LLM_BASE_URL": model_url,
            "LLM_MODEL_ID": "fake-model",
            "MAX_WEB_RESEARCH_LOOPS": "1",
        }
        command = [sys.executable, "-m", "deepresearch.cli.main", "serve", "--port", str(port)]
        process = subprocess.Popen(
            command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
                wait_for(lambda: _answers(client, "/healthz"), timeout=60)
                yield client, process.pid, held
        finally:
            held.released.set()
            process.terminate()
            process.wait(timeout=30)


def _answers(client: httpx.Client, path: str) -> bool:
    try:
        return client.get(path).status_code == 200
    except httpx.TransportError:
        return False


def _disk(pid: int, *, full: bool) -> None:
    hard = resource.prlimit(pid, resource.RLIMIT_FSIZE)[1]
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (0 if full else hard, hard))


def _storage(client: httpx.Client) -> tuple[int, dict[str, Any]]:
    answer = client.get("/readyz")
    check = next(c for c in answer.json()["checks"] if c["name"] == "storage")
    return answer.status_code, check


def test_a_full_disk_fails_the_job_once_space_returns_and_refuses_new_ones(
    server: tuple[httpx.Client, int, HeldModel],
) -> None:
    client, pid, held = server
    assert client.get("/readyz").status_code == 200
    job = client.post("/tasks", json={"topic": TOPIC}).json()
    assert held.reached.wait(60), "the job never reached its summary"

    _disk(pid, full=True)
    held.released.set()
    refused = client.post("/tasks", json={"topic": TOPIC})
    status, storage = _storage(client)
    stuck = client.get(f"/tasks/{job['id']}").json()["status"]

    assert refused.status_code == 507, refused.text
    assert refused.json()["code"] == "storage_full" and "free space" in refused.json()["detail"]
    assert status == 503 and not storage["ok"] and "cannot be written" in storage["detail"]
    assert stuck == "running", "its failure could not be written yet"

    _disk(pid, full=False)
    failed = wait_job(client, job["id"], ("failed", "completed"), timeout=30)

    assert failed["status"] == "failed" and "free space" in failed["error"], failed["error"]
    assert wait_for(lambda: _storage(client)[0] == 200, timeout=10)
    assert client.post("/tasks", json={"topic": TOPIC}).status_code in (200, 201, 202)
