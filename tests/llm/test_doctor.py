"""``deepresearch doctor`` against a fake server: provider, key masked, server, structured, context."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

from deepresearch.doctor import Check, run_checks
from deepresearch.settings import Settings

from ..fakeopenai import FakeOpenAI

SECRET = "sk-doctor-" + "d" * 30 + "LAST"


def _checks(tmp_path: Path, **values: Any) -> dict[str, Check]:
    settings = Settings.load({"deepresearch_home": tmp_path / "home", **values})
    return {c.name: c for c in run_checks(settings)}


def _custom(tmp_path: Path, base_url: str, **values: Any) -> dict[str, Check]:
    preset = {"llm_provider": "custom", "llm_base_url": base_url, "llm_model_id": "fake-model"}
    return _checks(tmp_path, **{**preset, **values})


def test_names_provider_url_masked_key_and_model(tmp_path: Path, base_url: str) -> None:
    checks = _custom(tmp_path, base_url, llm_api_key=SECRET, writer_model="fake-model")

    provider = checks["provider"].detail
    assert base_url in provider and "fake-model" in provider and "writer=fake-model" in provider
    assert "LAST" in provider
    assert SECRET not in json.dumps([c.as_dict() for c in checks.values()])
    assert checks["model"].ok and "served" in checks["model"].detail


def test_reports_the_constrained_decoding_the_server_accepts(
    tmp_path: Path, base_url: str, fake: FakeOpenAI
) -> None:
    fake.rejects = lambda body: body.get("response_format", {}).get("type") == "json_schema"

    checks = _custom(tmp_path, base_url)

    assert checks["structured"].ok
    assert checks["structured"].detail == "constrained decoding: json_object + schema"


def test_reports_when_no_constrained_decoding_is_accepted(
    tmp_path: Path, base_url: str, fake: FakeOpenAI
) -> None:
    fake.rejects = lambda body: "response_format" in body

    assert "no constrained decoding" in _custom(tmp_path, base_url)["structured"].detail


def test_context_window_from_llama_cpp_props(tmp_path: Path, base_url: str, fake: FakeOpenAI) -> None:
    fake.routes["/props"] = {"default_generation_settings": {"n_ctx": 8192}}

    context = _custom(tmp_path, base_url)["context"]

    assert context.ok and context.detail == "8192 tokens (/props n_ctx)"


def test_a_small_context_window_is_flagged(tmp_path: Path, base_url: str, fake: FakeOpenAI) -> None:
    fake.routes["/props"] = {"default_generation_settings": {"n_ctx": 512}}

    context = _custom(tmp_path, base_url)["context"]

    assert not context.ok and "--ctx-size 4096" in context.fix


def test_unknown_context_window_is_said(tmp_path: Path, base_url: str) -> None:
    context = _custom(tmp_path, base_url)["context"]

    assert context.ok and context.detail.startswith("unknown")


def test_ollama_loaded_context_below_num_ctx_says_how_to_fix(
    tmp_path: Path, base_url: str, fake: FakeOpenAI
) -> None:
    fake.routes["/api/ps"] = {"models": [{"name": "fake-model", "context_length": 2048}]}
    root = base_url.removesuffix("/v1")

    checks = _checks(tmp_path, llm_provider="ollama", ollama_base_url=root, llm_model_id="fake-model")

    assert fake.headers[0]["authorization"] == "Bearer ollama"
    context = checks["context"]
    assert not context.ok
    assert "2048 tokens (Ollama /api/ps" in context.detail
    assert "OLLAMA_CONTEXT_LENGTH=8192" in context.fix


def test_ollama_context_from_show_parameters(tmp_path: Path, base_url: str, fake: FakeOpenAI) -> None:
    fake.routes["/api/show"] = {"parameters": "temperature 0.7\nnum_ctx 16384"}
    root = base_url.removesuffix("/v1")

    checks = _checks(tmp_path, llm_provider="ollama", ollama_base_url=root, llm_model_id="fake-model")

    assert checks["context"].ok and checks["context"].detail.startswith("16384 tokens")


def test_a_model_the_server_does_not_offer(tmp_path: Path, base_url: str) -> None:
    checks = _checks(tmp_path, llm_provider="lmstudio", lmstudio_base_url=base_url, llm_model_id="other")

    assert not checks["model"].ok and "fake-model" in checks["model"].detail


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_a_silent_server_fails_the_model_check_only(tmp_path: Path) -> None:
    checks = _custom(tmp_path, f"http://127.0.0.1:{_closed_port()}/v1")

    assert not checks["model"].ok and "does not answer" in checks["model"].detail
    assert "structured" not in checks and "context" not in checks


def test_probe_off_makes_no_model_call(tmp_path: Path, base_url: str, fake: FakeOpenAI) -> None:
    settings = Settings.load(
        {
            "llm_provider": "custom",
            "llm_base_url": base_url,
            "llm_model_id": "fake-model",
            "deepresearch_home": tmp_path,
        }
    )

    names = [c.name for c in run_checks(settings, probe=False)]

    assert names == ["provider", "model", "context", "search", "workspaces", "answer weights"]
    assert fake.requests == []
