"""``langgraph dev`` (LangGraph's in-memory API server, the one Studio talks to) loads langgraph.json
and runs a thread of the research graph on loopback, against a model server on loopback and the
local index. The CLI lives in its own venv (``.venv-studio``, made by ``scripts/install.sh`` for
``EXTRAS=dev``): its server pins a jsonschema-rs that the API fuzz tests cannot use."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from deepresearch.index.store import DocumentIndex

from .conftest import PASSAGES, QUESTION
from .fakeopenai import FakeOpenAI, research_responder, serve

ROOT = Path(__file__).resolve().parents[1]
LANGGRAPH = Path(os.environ.get("STUDIO_VENV", ROOT / ".venv-studio")) / "bin" / "langgraph"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ok(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"langgraph dev exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            if httpx.get(url + "/ok", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise AssertionError("langgraph dev did not answer within 120 s")


@pytest.mark.skipif(not LANGGRAPH.exists(), reason="no .venv-studio: EXTRAS=dev scripts/install.sh makes it")
def test_langgraph_dev_serves_the_graph_and_runs_a_thread(tmp_path: Path) -> None:
    index = tmp_path / "index.sqlite"
    with DocumentIndex(index) as store:
        store.add_documents(PASSAGES)
    port, log = free_port(), tmp_path / "langgraph-dev.log"
    with serve(FakeOpenAI(responder=research_responder())) as model_url:
        env = {
            **{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")},
            "DEEPRESEARCH_HOME": str(tmp_path / "home"),
            "INDEX_PATH": str(index),
            "LLM_PROVIDER": "custom",
            "LLM_BASE_URL": model_url,
            "LLM_MODEL_ID": "fake-model",
            "LANGGRAPH_CLI_NO_ANALYTICS": "1",
            "LANGSMITH_TRACING": "false",
        }
        config = ["--config", str(ROOT / "langgraph.json")]
        command = [str(LANGGRAPH), "dev", "--no-browser", "--no-reload", "--port", str(port), *config]
        with log.open("wb") as out:  # its state (.langgraph_api/) goes to tmp_path, not the checkout
            process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            wait_ok(url, process, log)
            with httpx.Client(base_url=url, timeout=120) as client:
                [assistant] = client.post("/assistants/search", json={"graph_id": "deepresearch"}).json()
                thread = client.post("/threads", json={}).json()
                body = {"assistant_id": assistant["assistant_id"], "input": {"question": QUESTION}}
                body["context"] = {"max_web_research_loops": 1}
                state = client.post(f"/threads/{thread['thread_id']}/runs/wait", json=body).json()
                assert "__error__" not in state, state
                assert state["round"] == 1 and "1410" in json.dumps(state["report"])
                saved = client.get(f"/threads/{thread['thread_id']}/state").json()
                assert saved["values"]["question"] == QUESTION
        finally:
            process.terminate()
            process.wait(30)
