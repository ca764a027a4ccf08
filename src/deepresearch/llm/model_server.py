"""An OpenAI-compatible model server on the embedded runtime: ``deepresearch model-server``.

The same prebuilt llama.cpp that runs in-process also serves ``/v1/chat/completions`` (streaming,
``response_format``, ``logprobs``) over HTTP, so a team can share one loaded model, and the server
path of deepresearch (``LLM_PROVIDER=custom``) can be tried on a real model with nothing compiled.
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from deepresearch.llm.embedded import RuntimeOptions, start_server
from deepresearch.llm.model_files import locate_model, model_info
from deepresearch.llm.model_gate import GateLimits, gate_app

__all__ = ["GateLimits", "RuntimeOptions", "ServedModel", "is_loopback", "resolve", "serve_model"]


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
    limits: GateLimits,
    *,
    ready: Callable[[str], None] = lambda address: None,
) -> None:
    """Serve ``served`` on ``options.host:options.port`` behind the gate (:mod:`.model_gate`) until
    SIGINT or SIGTERM; ``ready`` gets the base URL (``…/v1``) once it listens.

    The runtime itself listens on a free loopback port and takes only a random key made here, so
    every request goes through the gate's key, size, token and time limits."""
    import uvicorn

    inner_key = secrets.token_urlsafe(24)
    inner = replace(options, alias=served.model_id, host="127.0.0.1", port=0, api_keys=(inner_key,))
    server = start_server(served.path, inner)
    try:
        app = gate_app(str(server.listening_address), inner_key, _key(options), limits)
        config = uvicorn.Config(app, host=options.host, port=options.port, log_level="warning")
        sock = config.bind_socket()
        ready(f"http://{_url_host(options.host)}:{sock.getsockname()[1]}/v1")
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        del server


def _key(options: RuntimeOptions) -> str | None:
    return options.api_keys[0] if options.api_keys else None


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or address to bind) is reachable only from this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
