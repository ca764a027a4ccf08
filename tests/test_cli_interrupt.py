"""Ctrl-C during ``deepresearch research``, as a person presses it: a real process gets SIGINT
while a model call is in flight (the fake server drips its answer for 100 s), stops within about
a second and says, in one line, what it was doing and where its partial run folder is."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import deepresearch

from .fakeopenai import FakeOpenAI, Reply, research_responder, step_of

QUESTION = "When did the ferry across the Lomma sound first sail?"
DRIP = Reply(content="x" * 2000, drip=0.05)  # 100 s per answer, one byte at a time
LINE = re.compile(
    r"^research interrupted while (?P<doing>[a-z ]+?)(?: \(round \d+\))?; partial run folder: (?P<dir>.+)$"
)


def _start(tmp_path: Path, base_url: str) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "LLM_PROVIDER": "custom",
        "LLM_BASE_URL": base_url,
        "LLM_MODEL_ID": "fake-model",
        "DEEPRESEARCH_HOME": str(tmp_path / "home"),
        "PYTHONPATH": str(Path(deepresearch.__file__).resolve().parents[1]),
    }
    command = [sys.executable, "-m", "deepresearch.cli.main", "research", QUESTION, "--loops", "1"]
    return subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _wait_for_step(fake: FakeOpenAI, step: str, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while not any(step_of(body) == step for body in list(fake.requests)):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"no {step} call reached the server"
        time.sleep(0.05)
    time.sleep(0.3)  # the call is in flight, its answer dripping


@pytest.mark.parametrize(
    ("step", "doing"),
    [("plan", "planning"), ("summarize", "searching and summarising"), ("judge", "judging the evidence")],
)
def test_ctrl_c_stops_at_once_and_says_where_the_partial_run_is(
    tmp_path: Path, fake: FakeOpenAI, base_url: str, step: str, doing: str
) -> None:
    fake.responder = research_responder({step: DRIP})
    process = _start(tmp_path, base_url)
    _wait_for_step(fake, step, process)
    pressed = time.monotonic()
    process.send_signal(signal.SIGINT)
    try:
        _, stderr = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    stopped = time.monotonic() - pressed

    assert process.returncode == 130
    assert stopped < 2.0, f"took {stopped:.1f} s to stop"
    said = [line for line in stderr.splitlines() if "interrupted" in line]
    assert len(said) == 1, stderr
    match = LINE.match(said[0])
    assert match is not None, said[0]
    assert match["doing"] == doing
    assert Path(match["dir"]).is_dir() and Path(match["dir"]).parent == tmp_path / "home" / "runs"
    assert "Traceback" not in stderr
