"""Readiness checks shared by ``deepresearch doctor`` and the service's ``/readyz``."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

from deepresearch.errors import ConfigurationError, DeepResearchError
from deepresearch.settings import Settings, mask_secret


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def run_checks(settings: Settings) -> list[Check]:
    checks: list[Callable[[Settings], Check]] = [_provider, _model, _index, _workspaces]
    return [check(settings) for check in checks]


def _provider(settings: Settings) -> Check:
    if settings.llm_provider == "embedded":
        name = str(settings.embedded_model_path or settings.embedded_model)
        return Check("provider", True, f"embedded (in-process llama.cpp), model {name}")
    from deepresearch.llm.factory import server_endpoint

    try:
        base_url, key = server_endpoint(settings)
    except ConfigurationError as exc:
        return Check("provider", False, settings.llm_provider, str(exc))
    model = settings.resolved_model_id() or "(no model set)"
    detail = f"{settings.llm_provider} at {base_url}, key {mask_secret(key) or 'none'}, model {model}"
    return Check("provider", True, detail)


def _model(settings: Settings) -> Check:
    if settings.llm_provider != "embedded":
        return _server_answers(settings)
    if importlib.util.find_spec("llama_cpp") is None:
        return Check(
            "model",
            False,
            "llama-cpp-python is not installed",
            "pip install 'deepresearch[embedded]' (compiles llama.cpp, ~7 minutes once)",
        )
    if settings.embedded_model_path is not None:
        path = settings.embedded_model_path.expanduser()
        ok = path.is_file()
        return Check(
            "model",
            ok,
            f"GGUF file {path}",
            "" if ok else "set EMBEDDED_MODEL_PATH to an existing .gguf file",
        )
    from deepresearch.llm.embedded import locate_model

    try:
        path = locate_model(settings.embedded_model)
    except DeepResearchError as exc:
        return Check("model", False, str(exc), str(exc))
    return Check("model", True, f"{settings.embedded_model}: {path} ({path.stat().st_size // 2**20} MB)")


def _server_answers(settings: Settings) -> Check:
    from deepresearch.llm.factory import server_endpoint

    try:
        base_url, key = server_endpoint(settings)
    except ConfigurationError as exc:
        return Check("model", False, "no server configured", str(exc))
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        response = httpx.get(f"{base_url}/models", headers=headers, timeout=5.0)
    except httpx.HTTPError as exc:
        return Check(
            "model",
            False,
            f"{base_url} does not answer ({type(exc).__name__})",
            "start the server or fix LLM_BASE_URL / OLLAMA_BASE_URL / LMSTUDIO_BASE_URL",
        )
    ok = response.status_code < 400
    fix = "" if ok else "check LLM_API_KEY and LLM_MODEL_ID"
    return Check("model", ok, f"{base_url}/models answered {response.status_code}", fix)


def _index(settings: Settings) -> Check:
    if settings.search_api != "local":
        return Check("search", True, f"SEARCH_API={settings.search_api}")
    path = settings.resolved_index_path
    if not path.exists():
        if settings.uses_default_index:
            return Check(
                "search", True, f"local index {path} will be built from the demo corpus on first use"
            )
        return Check("search", False, f"no index at {path}", f"run: deepresearch index PATH --index {path}")
    from deepresearch.index.store import DocumentIndex

    try:
        with DocumentIndex.open_existing(path) as index:
            count = index.count()
    except DeepResearchError as exc:
        return Check("search", False, str(exc), f"rebuild it: deepresearch index PATH --index {path}")
    return Check(
        "search",
        count > 0,
        f"local index {path}: {count} passages",
        "" if count else "run: deepresearch index PATH",
    )


def _workspaces(settings: Settings) -> Check:
    paths = [settings.resolved_runs_workspace]
    if settings.enable_notes:
        paths.append(settings.resolved_notes_workspace)
    bad = [p for p in paths if not _writable(p)]
    if bad:
        return Check(
            "workspaces",
            False,
            f"not writable: {', '.join(map(str, bad))}",
            "set DEEPRESEARCH_HOME (or NOTES_WORKSPACE / RUNS_WORKSPACE) to a writable folder",
        )
    return Check("workspaces", True, ", ".join(map(str, paths)))


def _writable(path: Path) -> bool:
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return os.access(probe, os.W_OK)
