"""Readiness checks shared by ``deepresearch doctor`` and the service's ``/readyz``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from deepresearch.doctor.check import Check
from deepresearch.errors import ConfigurationError, DeepResearchError
from deepresearch.settings import Settings

if TYPE_CHECKING:
    from deepresearch.llm.presets import ServerConfig
    from deepresearch.llm.serverinfo import ServerModels
    from deepresearch.service import Service


__all__ = ["Check", "readiness", "run_checks"]

MIN_CONTEXT_TOKENS = 4096
"""Enough for the longest prompt sent (the report: 8 sources x 1,500 characters) and its answer."""


def run_checks(settings: Settings, *, probe: bool = True) -> list[Check]:
    """Provider, model, structured output, context window, search index and workspaces (and, for
    ``JOBS_BACKEND=celery``, the broker and the database).

    With ``probe`` (the default, for ``deepresearch doctor``) one tiny structured call tells which
    constrained decoding the server accepts; a readiness endpoint polled often passes ``False``.
    """
    from deepresearch.doctor.cluster import cluster_checks

    checks = [_provider(settings), *_model_checks(settings, probe), _index(settings), _workspaces(settings)]
    return [*checks, _answer_weights(), *cluster_checks(settings), *_misspelled()]


def _answer_weights() -> Check:
    """Whether the answer line's fitted confidence matches the code's declared features."""
    from deepresearch.answers.learned import weights_notice

    notice = weights_notice()
    if notice is None:
        return Check("answer weights", True, "the fitted confidence matches the code's declared features")
    return Check(
        "answer weights", False, notice, "reinstall deepresearch, or refit: python evals/refit.py --write"
    )


def _misspelled() -> list[Check]:
    """A failed ``environment`` check per variable that looks like a setting but is none."""
    from deepresearch.settings import misspelled_settings

    found = misspelled_settings(os.environ)
    return [Check("environment", False, warning, "rename it (it is ignored as it is)") for warning in found]


def readiness(service: Service, settings: Settings | None = None) -> list[Check]:
    """The doctor's checks for ``/readyz`` (no probe call); a part injected into the app replaces the
    checks of its setting, and secrets are masked."""
    checks = run_checks(settings or service.settings, probe=False)
    if service.model is not None:
        name = getattr(service.model, "name", type(service.model).__name__)
        checks = [c for c in checks if c.name not in ("provider", "model")]
        checks.insert(0, Check("model", True, f"model supplied by the application ({name})"))
    if service.search is not None:
        name = getattr(service.search, "name", type(service.search).__name__)
        checks = [c for c in checks if c.name != "search"]
        checks.insert(1, Check("search", True, f"search backend supplied by the application ({name})"))
    return [
        Check(c.name, c.ok, service.redactor.text(c.detail), service.redactor.text(c.fix)) for c in checks
    ]


def _provider(settings: Settings) -> Check:
    if settings.llm_provider == "embedded":
        name = str(settings.embedded_model_path or settings.embedded_model)
        return Check("provider", True, f"embedded (in-process llama.cpp), model {name}{_roles(settings)}")
    from deepresearch.llm.presets import server_config

    try:
        config = server_config(settings)
    except ConfigurationError as exc:
        return Check("provider", False, settings.llm_provider, str(exc))
    return Check("provider", True, f"{config.describe()}{_roles(settings)}")


def _roles(settings: Settings) -> str:
    from deepresearch.llm.factory import role_models

    chosen = role_models(settings)
    return "; per role: " + ", ".join(f"{r}={m}" for r, m in chosen.items()) if chosen else ""


def _model_checks(settings: Settings, probe: bool) -> list[Check]:
    if settings.llm_provider == "embedded":
        from deepresearch.doctor.embedded import embedded_checks

        return embedded_checks(settings, probe)
    from deepresearch.llm.presets import server_config

    try:
        config = server_config(settings)
    except ConfigurationError as exc:
        return [Check("model", False, "no server configured", str(exc))]
    return _server_checks(settings, config, probe)


def _server_checks(settings: Settings, config: ServerConfig, probe: bool) -> list[Check]:
    from deepresearch.llm.serverinfo import list_models

    models = list_models(config)
    answers = _server_answers(config, models)
    if not answers.ok:
        return [answers]
    checks = [answers]
    if probe:
        checks.append(_structured(settings, config))
    checks.append(_context(settings, config, models))
    return checks


def _server_answers(config: ServerConfig, models: ServerModels) -> Check:
    url = f"{config.base_url}/models"
    if models.status == 0:
        return Check(
            "model",
            False,
            f"{config.base_url} does not answer ({models.error})",
            f"start the server or fix {config.url_setting}",
        )
    if not models.answered:
        return Check("model", False, f"{url} answered {models.status}", "check LLM_API_KEY and LLM_BASE_URL")
    offered = models.ids()
    if not offered or config.model in offered:
        return Check("model", True, f"{url} answered {models.status}; model {config.model} is served")
    listing = ", ".join(offered[:10])
    if config.provider == "custom":
        detail = (
            f"{url} answered; {config.model} is not listed ({listing}); single-model servers ignore the name"
        )
        return Check("model", True, detail)
    return Check(
        "model", False, f"{config.model} is not served; offered: {listing}", "set LLM_MODEL_ID to one of them"
    )


def _structured(settings: Settings, config: ServerConfig) -> Check:
    from deepresearch.llm.openai_compat import OpenAICompatModel

    model = OpenAICompatModel(
        base_url=config.base_url,
        api_key=config.api_key,
        model=config.model,
        timeout=min(settings.llm_timeout, 60.0),
        max_retries=0,
        json_mode=config.json_mode,
        tool_calling=settings.use_tool_calling,
        extra_body=config.extra_body,
    )
    try:
        mode = model.probe_structured()
    except DeepResearchError as exc:
        return Check("structured", False, f"a one-line test call failed: {exc}", "see the model check")
    finally:
        model.close()
    if mode == "none":
        detail = "no constrained decoding accepted: prompt-only JSON, then extraction, repair and one retry"
        return Check("structured", True, detail, "use a server that supports response_format")
    return Check("structured", True, f"constrained decoding: {mode}")


def _context(settings: Settings, config: ServerConfig, models: ServerModels) -> Check:
    from deepresearch.llm.serverinfo import context_window

    window = context_window(config, models)
    wanted = config.context_window or MIN_CONTEXT_TOKENS
    if window.tokens is None:
        asked = f"; asked for {config.context_window} (OLLAMA_NUM_CTX)" if config.context_window else ""
        return Check("context", True, f"unknown: {window.source}{asked}")
    detail = f"{window.tokens} tokens ({window.source})"
    if window.tokens >= wanted:
        return Check("context", True, detail)
    return Check("context", False, f"{detail}, below the {wanted} needed", _context_fix(config, wanted))


def _context_fix(config: ServerConfig, wanted: int) -> str:
    if config.provider == "ollama":
        return (
            f"start Ollama with OLLAMA_CONTEXT_LENGTH={wanted} (its /v1 endpoint may ignore "
            f"options.num_ctx), or add PARAMETER num_ctx {wanted} to the model's Modelfile"
        )
    return f"start the server with a context of at least {wanted} tokens (e.g. llama.cpp --ctx-size {wanted})"


def _index(settings: Settings) -> Check:
    """Which index research will search: yours (INDEX_PATH or the default file) or, when you have
    indexed nothing, the bundled demo corpus's own index; never both."""
    if settings.search_api != "local":
        return _backend(settings)
    path = settings.resolved_index_path
    if settings.demo_corpus and settings.uses_default_index:
        return _demo_index(settings)
    if not path.exists():
        if settings.uses_default_index:
            return _demo_index(settings)
        return Check("search", False, f"no index at {path}", f"run: deepresearch index PATH --index {path}")
    from deepresearch.index.corpus import is_demo_corpus_file
    from deepresearch.index.store import DocumentIndex

    try:
        with DocumentIndex.open_existing(path) as index:
            count, files = index.count(), index.indexed_files()
    except DeepResearchError as exc:
        return Check("search", False, str(exc), f"rebuild it: deepresearch index PATH --index {path}")
    demo = sum(is_demo_corpus_file(f) for f in files)
    legacy = f"; {demo} demo-corpus file(s) from an older version are dropped on first use" if demo else ""
    return Check(
        "search",
        count > 0,
        f"your local index {path}: {count} passages from {len(files)} file(s){legacy}",
        "" if count else "run: deepresearch index PATH",
    )


def _backend(settings: Settings) -> Check:
    """A backend other than the index: registered, with the settings it needs set."""
    from deepresearch.search.registry import backend_spec, check_search_settings, missing_settings

    try:
        check_search_settings(settings)
    except ConfigurationError as exc:
        return Check("search", False, str(exc), "see: deepresearch backends")
    missing = missing_settings(backend_spec(settings.search_api), settings)
    if missing:
        needs = ", ".join(missing)
        return Check("search", False, f"SEARCH_API={settings.search_api} needs {needs}", f"set {needs}")
    return Check("search", True, f"SEARCH_API={settings.search_api}")


def _demo_index(settings: Settings) -> Check:
    from deepresearch.index.corpus import demo_index_path

    demo = demo_index_path(settings)
    state = "built" if demo.exists() else "built on first use"
    if settings.demo_corpus:
        return Check(
            "search", True, f"DEMO_CORPUS is on: research searches the bundled demo corpus ({demo}, {state})"
        )
    detail = (
        f"you have indexed nothing (no {settings.resolved_index_path}, no INDEX_PATH): research searches "
        f"the bundled demo corpus ({demo}, {state}); index your documents with: deepresearch index PATH"
    )
    return Check("search", True, detail)


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
