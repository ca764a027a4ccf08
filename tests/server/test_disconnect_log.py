"""A client that leaves a stream mid-call leaves no false trail in the server's log: the run stops,
its model client is closed, and the call it abandoned is not reported as retried (it was not, and
must not be). A real ``deepresearch serve`` against a slow model server on 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from deepresearch.index.store import DocumentIndex

from ..conftest import PASSAGES
from ..fakeopenai import FakeOpenAI, Reply, research_responder, serve
from .helpers import wait_for
from .test_serve_command import _free_port


def test_a_client_leaving_mid_call_logs_no_retry(tmp_path: Path, home: Path) -> None:
    index = tmp_path / "index.sqlite"
    with DocumentIndex(index) as store:
        store.add_documents(PASSAGES)
    asked = threading.Event()
    answer = research_responder()

    def slow(body: dict[str, Any]) -> Reply:
        asked.set()
        reply = answer(body)
        return Reply(reply.content, delay=3.0)

    fake = FakeOpenAI(responder=slow)
    port, log = _free_port(), tmp_path / "serve.log"
    with serve(fake) as model_url, log.open("wb") as out:
        env = {
            **os.environ,
            "DEEPRESEARCH_HOME": str(home),
            "INDEX_PATH": str(index),
            "LLM_PROVIDER": "custom",
            "LLM_BASE_URL": model_url,
            "LLM_MODEL_ID": "fake-model",
        }
        command = [sys.executable, "-m", "deepresearch.cli.main", "serve", "--port", str(port)]
        process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
                wait_for(lambda: _up(client), timeout=60)
                with client.stream(
                    "GET", "/research/stream", params={"topic": PASSAGES[1]["title"]}
                ) as stream:
                    next(stream.iter_lines())
                    assert asked.wait(30), "no model call started"
            time.sleep(5)
        finally:
            process.terminate()
            process.wait(timeout=30)
    text = log.read_text(encoding="utf-8", errors="replace")
    assert "retry" not in text and "Traceback" not in text, text
    assert len(fake.requests) == 1, "the abandoned call was sent again"


def _up(client: httpx.Client) -> bool:
    try:
        return client.get("/healthz").status_code == 200
    except httpx.TransportError:
        return False
