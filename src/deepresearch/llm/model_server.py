"""An OpenAI-compatible model server on the embedded runtime: ``deepresearch model-server``.

The same prebuilt llama.cpp that runs in-process also serves ``/v1/chat/completions`` (streaming,
``response_format``, ``logprobs``) over HTTP, so a team can share one loaded model, and the server
path of deepresearch (``LLM_PROVIDER=custom``) can be tried on a real model with nothing compiled.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from deepresearch.llm.embedded import RuntimeOptions, start_server

__all__ = ["RuntimeOptions", "ServedModel", "resolve", "serve_model"]
from deepresearch.llm.model_files import locate_model, model_info


@dataclass(frozen=True)
class ServedModel:
    """What :func:`serve_model` serves: a GGUF file under a model id."""

    path: Path
    model_id: str


def resolve(model: str, cache_dir: Path) -> ServedModel:
    """A known embedded model's name (joined and verified) or a GGUF path, with the id it is served as."""
    candidate = Path(model).expanduser()
    if candidate.suffix == ".gguf":
        return ServedModel(candidate, candidate.stem)
    model_info(model)
    return ServedModel(locate_model(model, cache_dir=cache_dir), model)


def serve_model(
    served: ServedModel,
    options: RuntimeOptions,
    *,
    stop: threading.Event,
    ready: Callable[[str], None] = lambda address: None,
) -> None:
    """Serve ``served`` until ``stop`` is set; ``ready`` gets the base URL (``…/v1``) once it listens."""
    server = start_server(served.path, replace(options, alias=served.model_id))
    try:
        ready(f"{server.listening_address}/v1")
        stop.wait()
    finally:
        del server
