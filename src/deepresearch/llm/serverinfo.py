"""What a model server says about itself: its models and the context window it runs with.

Best effort, for ``deepresearch doctor``: every lookup has a short timeout and a server that does
not offer an endpoint is simply not asked again. Sources of the context window, first found wins:

* Ollama: ``/api/ps`` (the window of the loaded model: what requests really get; its ``/v1``
  endpoint may ignore ``options.num_ctx``), then ``num_ctx`` in ``/api/show``'s parameters;
* a ``/models`` entry: ``max_model_len`` (vLLM), ``loaded_context_length`` / ``context_length``
  (LM Studio and others), ``meta.n_ctx`` / ``meta.n_ctx_train`` (llama.cpp's server);
* llama.cpp's ``/props`` (``default_generation_settings.n_ctx``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from deepresearch.llm.presets import ServerConfig

LOOKUP_TIMEOUT = 5.0
_ENTRY_FIELDS = ("max_model_len", "loaded_context_length", "context_length", "max_context_length", "n_ctx")


@dataclass(frozen=True)
class ServerModels:
    """``GET /models``: the HTTP status (0 when nothing answered), the entries, or the error."""

    status: int
    entries: list[dict[str, Any]]
    error: str = ""

    @property
    def answered(self) -> bool:
        return 0 < self.status < 400

    def ids(self) -> list[str]:
        return [str(entry.get("id")) for entry in self.entries if entry.get("id")]

    def entry(self, model: str) -> dict[str, Any] | None:
        return next((e for e in self.entries if e.get("id") == model), None)


@dataclass(frozen=True)
class ContextWindow:
    """The context window in tokens (``None`` when the server does not say) and where it came from."""

    tokens: int | None
    source: str


def list_models(config: ServerConfig) -> ServerModels:
    """Ask ``{base_url}/models`` with the configured key; never raises."""
    try:
        response = httpx.get(f"{config.base_url}/models", headers=_auth(config), timeout=LOOKUP_TIMEOUT)
    except httpx.HTTPError as exc:
        return ServerModels(0, [], type(exc).__name__)
    data = _json(response)
    entries = data.get("data") if isinstance(data, dict) else None
    listed = [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
    return ServerModels(response.status_code, listed)


def context_window(config: ServerConfig, models: ServerModels) -> ContextWindow:
    """The window the server runs ``config.model`` with, as far as it tells."""
    if config.provider == "ollama":
        found = _ollama_window(config)
        if found.tokens is not None:
            return found
    entry = models.entry(config.model) or {}
    for name in _ENTRY_FIELDS:
        tokens = _int(entry.get(name)) or _int((entry.get("meta") or {}).get(name))
        if tokens:
            return ContextWindow(tokens, f"/models {name}")
    tokens = _int((entry.get("meta") or {}).get("n_ctx_train"))
    if tokens:
        return ContextWindow(tokens, "/models meta.n_ctx_train (the model's maximum)")
    return _llama_cpp_props(config)


def server_root(config: ServerConfig) -> str:
    """The base URL without its trailing ``/v1``."""
    return config.base_url.removesuffix("/v1")


def _ollama_window(config: ServerConfig) -> ContextWindow:
    running = _get(f"{server_root(config)}/api/ps", config)
    for model in running.get("models", []) if isinstance(running, dict) else []:
        if isinstance(model, dict) and config.model in (model.get("name"), model.get("model")):
            tokens = _int(model.get("context_length"))
            if tokens:
                return ContextWindow(tokens, "Ollama /api/ps (loaded model)")
    shown = _post(f"{server_root(config)}/api/show", config, {"model": config.model})
    parameters = str(shown.get("parameters", "")) if isinstance(shown, dict) else ""
    for line in parameters.splitlines():
        name, _, value = line.strip().partition(" ")
        if name == "num_ctx" and _int(value.strip()):
            return ContextWindow(_int(value.strip()), "Ollama /api/show num_ctx")
    return ContextWindow(None, "Ollama reported no context window")


def _llama_cpp_props(config: ServerConfig) -> ContextWindow:
    props = _get(f"{server_root(config)}/props", config)
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    tokens = _int(settings.get("n_ctx")) if isinstance(settings, dict) else None
    if tokens:
        return ContextWindow(tokens, "/props n_ctx")
    return ContextWindow(None, "the server does not report it")


def _get(url: str, config: ServerConfig) -> Any:
    try:
        return _json(httpx.get(url, headers=_auth(config), timeout=LOOKUP_TIMEOUT))
    except httpx.HTTPError:
        return None


def _post(url: str, config: ServerConfig, body: dict[str, Any]) -> Any:
    try:
        return _json(httpx.post(url, json=body, headers=_auth(config), timeout=LOOKUP_TIMEOUT))
    except httpx.HTTPError:
        return None


def _json(response: httpx.Response) -> Any:
    if response.status_code >= 400:
        return None
    try:
        return response.json()
    except ValueError:
        return None


def _auth(config: ServerConfig) -> dict[str, str]:
    return {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value > 0 else None
    if isinstance(value, str) and value.isdigit():
        return int(value) or None
    return None
