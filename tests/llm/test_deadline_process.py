"""``deepresearch research`` as a real process against a model server that drips its answers: every
call ends at LLM_TIMEOUT, the run falls back where it must, and the command finishes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from ..conftest import QUESTION
from ..fakeopenai import FakeOpenAI, Reply, research_responder

REPO = Path(__file__).resolve().parents[2]
DRIP = Reply(content="x" * 2000, drip=0.05)  # 100 s per answer, one byte at a time


def test_the_cli_finishes_when_the_model_server_drips(
    tmp_path: Path, fake: FakeOpenAI, base_url: str
) -> None:
    fake.responder = research_responder({"plan": DRIP, "role": DRIP})
    env = {
        **os.environ,
        "LLM_PROVIDER": "custom",
        "LLM_BASE_URL": base_url,
        "LLM_MODEL_ID": "fake-model",
        "LLM_TIMEOUT": "1.5",
        "LLM_MAX_RETRIES": "0",
        "DEEPRESEARCH_HOME": str(tmp_path / "home"),
    }
    command = [sys.executable, "-m", "deepresearch.cli.main", "research", QUESTION, "--loops", "1"]
    started = time.monotonic()
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=90)
    elapsed = time.monotonic() - started

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("#")
    assert elapsed < 60
    assert fake.requests, "the server was never asked"
