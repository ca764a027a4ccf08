"""The embedded model's checks: runtime installed, model file found and verified, and one real
generated token in a child process, so a runtime that crashes on this CPU (a signal) is reported
with its fix instead of killing the caller."""

from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import sys
from pathlib import Path

from deepresearch.doctor.check import Check
from deepresearch.errors import DeepResearchError
from deepresearch.settings import Settings

PROBE_TIMEOUT_SECONDS = 180
_INSTALL = "pip install 'deepresearch-offline[embedded]'"


def embedded_checks(settings: Settings, probe: bool) -> list[Check]:
    """``model`` (and, with ``probe``, ``generate``), then ``structured`` and ``context``."""
    model, path = _embedded_model(settings)
    if not model.ok or path is None:
        return [model]
    checks = [model]
    if probe:
        checks.append(generate_check(path, settings))
    return [*checks, _structured(), _context(settings)]


def _embedded_model(settings: Settings) -> tuple[Check, Path | None]:
    if importlib.util.find_spec("xllamacpp") is None:
        return Check("model", False, "the llama.cpp runtime (xllamacpp) is not installed", _INSTALL), None
    if settings.embedded_model_path is not None:
        path = settings.embedded_model_path.expanduser()
        ok = path.is_file()
        fix = "" if ok else "set EMBEDDED_MODEL_PATH to an existing .gguf file"
        return Check("model", ok, f"GGUF file {path}", fix), path if ok else None
    from deepresearch.llm.model_files import locate_model, model_info

    try:
        info = model_info(settings.embedded_model)
        path = locate_model(settings.embedded_model, cache_dir=settings.cache_dir)
    except DeepResearchError as exc:
        return Check("model", False, str(exc), str(exc)), None
    size = path.stat().st_size // 2**20
    detail = f"{settings.embedded_model}: {info.title}, {path} ({size} MB, sha256 verified)"
    return Check("model", True, detail), path


def generate_check(path: Path, settings: Settings) -> Check:
    """Load ``path`` in a child process and generate one token; a crash becomes a failed check."""
    command = [sys.executable, "-m", "deepresearch.doctor.embedded_probe", str(path)]
    if settings.embedded_threads:
        command.append(str(settings.embedded_threads))
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PROBE_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        return Check("generate", False, f"no token within {PROBE_TIMEOUT_SECONDS} s", _slow_fix())
    if done.returncode < 0:
        return _crashed(-done.returncode)
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return Check("generate", False, f"the model did not generate: {reason}", reason)
    try:
        result = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        fix = f"run `{' '.join(command)}` to see what it prints"
        return Check("generate", False, f"the probe printed no result: {done.stdout[-200:]!r}", fix)
    detail = f"one token in {result['seconds']:.1f} s (load included): {result['text']!r}"
    return Check("generate", True, detail)


def _crashed(number: int) -> Check:
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    return Check(
        "generate",
        False,
        f"the llama.cpp runtime crashed with {name} while generating one token",
        "reinstall the portable runtime (`pip install --force-reinstall --no-cache-dir xllamacpp`); if it "
        "still crashes, set EMBEDDED_THREADS=1 or use a model server (LLM_PROVIDER=custom), and report "
        "the CPU (`grep -m1 'model name' /proc/cpuinfo`)",
    )


def _slow_fix() -> str:
    return "close what keeps the cores busy, set EMBEDDED_THREADS, or choose a smaller EMBEDDED_MODEL"


def _structured() -> Check:
    return Check("structured", True, "constrained decoding: llama.cpp grammar from each step's JSON schema")


def _context(settings: Settings) -> Check:
    tokens = settings.embedded_n_ctx
    size = f"{tokens} tokens (EMBEDDED_N_CTX)" if tokens else "the model's own size (EMBEDDED_N_CTX unset)"
    return Check("context", True, f"{size}; longer prompts are cut in the middle, never rejected")
