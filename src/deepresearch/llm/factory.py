"""Building the configured model, with its wrappers, from one Settings object.

``build_model(settings)`` returns one ChatModel; the graph never sees what is inside:

* a leaf per distinct model: :class:`OpenAICompatModel` from the provider preset
  (:mod:`deepresearch.llm.presets`) or the in-process :class:`EmbeddedModel`;
* around each leaf, :class:`PacedModel` when ``LLM_MIN_INTERVAL_SECONDS`` > 0 (one gate for the
  whole process), then :class:`CachedModel` when ``LLM_CACHE`` is ``read`` or ``readwrite`` (so
  hits skip the pacing);
* over them, :class:`StepRouter` when ``PLANNER_MODEL`` / ``SUMMARIZER_MODEL`` / ``JUDGE_MODEL`` /
  ``WRITER_MODEL`` name models other than the default.

For a server provider a role model is a model id on the same server; for ``embedded`` it is a
known embedded model name (``smollm2``, ``qwen0.5b``, ``qwen1.5b``) or a path to a GGUF file.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deepresearch.llm.base import ChatModel
from deepresearch.llm.presets import server_config, server_endpoint
from deepresearch.settings import Settings

__all__ = ["build_model", "default_threads", "model_writes", "role_models", "server_endpoint"]

PREFIX_FOLDER = "prefixes"
"""Under the cache folder: the embedded models' kept prompt openings (``EmbeddedModel.prefix_dir``)."""
ROLE_SETTINGS = {
    "planner": "planner_model",
    "summarizer": "summarizer_model",
    "judge": "judge_model",
    "writer": "writer_model",
    "reader": "reader_model",
}


def build_model(settings: Settings) -> ChatModel:
    """The model a research run uses, built from ``settings`` now (raises ConfigurationError or
    ModelNotAvailableError with the fix when a setting is missing or wrong)."""
    leaf = _embedded_leaf if settings.llm_provider == "embedded" else _server_leaf
    built: dict[str | None, ChatModel] = {}

    def model(name: str | None) -> ChatModel:
        if name not in built:
            built[name] = _wrapped(settings, *leaf(settings, name))
        return built[name]

    default, default_name = model(None), _default_name(settings)
    by_role = {role: model(name) for role, name in role_models(settings).items() if name != default_name}
    if not by_role:
        return default
    from deepresearch.llm.router import StepRouter

    return StepRouter(default, by_role)


def model_writes(settings: Settings) -> bool:
    """Whether the configured model judges and writes prose, or plans while code does the rest.

    A server model and a GGUF of the user's do; a bundled model only where its entry says so
    (:attr:`~deepresearch.llm.model_files.ModelFile.writes`, set by measurement).
    """
    if settings.llm_provider != "embedded" or settings.embedded_model_path is not None:
        return True
    from deepresearch.llm.model_files import EMBEDDED_MODELS

    info = EMBEDDED_MODELS.get(settings.embedded_model)
    return info is not None and info.writes


def role_models(settings: Settings) -> dict[str, str]:
    """The roles that have their own model, and the model each names (the reader's: see
    :func:`reader_model`)."""
    chosen = {role: getattr(settings, field) for role, field in ROLE_SETTINGS.items()}
    chosen["reader"] = reader_model(settings)
    return {role: str(name) for role, name in chosen.items() if name}


def reader_model(settings: Settings) -> str | None:
    """The model that reads where the answer line abstains: ``READER_MODEL``, else with
    ``ANSWER_READER=auto`` on the embedded provider the installed bundled model that measured as a
    reader (:func:`~deepresearch.llm.model_files.default_reader`); None when there is none or the
    reader is off."""
    if settings.answer_reader == "off":
        return None
    if settings.reader_model or settings.llm_provider != "embedded" or settings.embedded_model_path:
        return settings.reader_model
    from deepresearch.llm.model_files import default_reader

    return default_reader()


def _default_name(settings: Settings) -> str | None:
    if settings.llm_provider != "embedded":
        return settings.resolved_model_id()
    return str(settings.embedded_model_path) if settings.embedded_model_path else settings.embedded_model


def default_threads() -> int:
    """Generation threads: half the cores, at least one. Measured on 2 cores (bench/embedded_probe.py,
    docs/BENCHMARKS.md): one thread generates faster than two (SmolLM2 60 against 27 tokens/s,
    Qwen 0.5B 18 against 16), while two read the prompt ~1.8x faster (:func:`default_batch_threads`)."""
    return max(1, (os.cpu_count() or 2) // 2)


def default_batch_threads() -> int:
    """Prompt-reading threads: all cores."""
    return max(1, os.cpu_count() or 1)


Leaf = tuple[ChatModel, dict[str, Any]]


def _server_leaf(settings: Settings, name: str | None) -> Leaf:
    from deepresearch.llm.openai_compat import OpenAICompatModel

    config = server_config(settings, name)
    model = OpenAICompatModel(
        base_url=config.base_url,
        api_key=config.api_key,
        model=config.model,
        timeout=settings.llm_timeout,
        temperature=settings.llm_temperature,
        max_retries=settings.llm_max_retries,
        json_mode=config.json_mode,
        tool_calling=settings.use_tool_calling,
        extra_body=config.extra_body,
        url_setting=config.url_setting,
    )
    return model, config.identity(settings)


def _embedded_leaf(settings: Settings, name: str | None) -> Leaf:
    from deepresearch.llm.embedded import EMBEDDED_MODELS, EmbeddedModel

    n_ctx = settings.embedded_n_ctx
    options: dict[str, Any] = {
        "n_ctx": n_ctx,
        "n_threads": settings.embedded_threads or default_threads(),
        "n_threads_batch": settings.embedded_threads or default_batch_threads(),
        "temperature": settings.llm_temperature,
        "prefix_dir": settings.cache_dir / PREFIX_FOLDER,
    }
    path = _embedded_path(settings, name, set(EMBEDDED_MODELS))
    model = (
        EmbeddedModel(path, **options)
        if path is not None
        else EmbeddedModel.from_name(name or settings.embedded_model, cache_dir=settings.cache_dir, **options)
    )
    identity = {
        "provider": "embedded",
        "model": model.name,
        "n_ctx": model.n_ctx,
        **_file_identity(model.model_path),
    }
    return model, {**identity, "temperature": settings.llm_temperature}


def _embedded_path(settings: Settings, name: str | None, known: set[str]) -> Path | None:
    if name is not None:
        return None if name in known else Path(name).expanduser()
    return settings.embedded_model_path.expanduser() if settings.embedded_model_path else None


def _file_identity(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    stat = path.stat()
    return {"file": str(path), "size": stat.st_size, "mtime": int(stat.st_mtime)}


def _wrapped(settings: Settings, model: ChatModel, identity: dict[str, Any]) -> ChatModel:
    wrappers: list[Callable[[ChatModel], ChatModel]] = []
    if settings.llm_min_interval_seconds > 0:
        from deepresearch.limits import model_gate
        from deepresearch.llm.pacing import PROCESS_GATE, PacedModel

        gate = model_gate(settings.llm_min_interval_seconds, settings.shared_redis_url) or PROCESS_GATE
        wrappers.append(lambda inner: PacedModel(inner, settings.llm_min_interval_seconds, gate=gate))
    if settings.llm_max_concurrency > 0:
        from deepresearch.limits import call_slots
        from deepresearch.llm.limited import LimitedModel

        hold = 2 * settings.llm_timeout
        slots = call_slots("llm", settings.llm_max_concurrency, settings.shared_redis_url, hold_seconds=hold)
        wrappers.append(lambda inner: LimitedModel(inner, slots))
    if settings.llm_cache != "off":
        from deepresearch.llm.cache import CachedModel, CacheMode

        directory = settings.cache_dir / "llm"
        mode: CacheMode = "read" if settings.llm_cache == "read" else "readwrite"
        wrappers.append(lambda inner: CachedModel(inner, directory, mode=mode, identity=identity))
    for wrap in wrappers:
        model = wrap(model)
    return model
