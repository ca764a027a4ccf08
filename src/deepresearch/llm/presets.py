"""Server presets: configuration over the one OpenAI-compatible client, not subclasses.

=========  =====================================  ==============  ===========================
provider   base URL                               API key         structured output tried first
=========  =====================================  ==============  ===========================
ollama     ``OLLAMA_BASE_URL`` + ``/v1``          ``ollama``      ``json_schema`` (Ollama turns
                                                                  it into ``format``)
lmstudio   ``LMSTUDIO_BASE_URL``                  ``lm-studio``   ``json_schema``
openai     ``LLM_BASE_URL`` or api.openai.com     ``LLM_API_KEY`` ``json_schema``
custom     ``LLM_BASE_URL`` (vLLM, llama.cpp,     ``LLM_API_KEY`` ``json_schema``, then
           DeepSeek, ...)                                         ``json_object`` + schema
=========  =====================================  ==============  ===========================

``LLM_API_KEY`` belongs to ``LLM_BASE_URL`` (or api.openai.com): it is never sent to the Ollama or
LM Studio address, which get their placeholder keys. A server behind an authenticating proxy is
``LLM_PROVIDER=custom`` with ``LLM_BASE_URL`` and ``LLM_API_KEY``.

Every server falls down the same ladder when it rejects a shape (llama-cpp-python's server
answers 500 to ``json_schema`` and accepts ``json_object`` with a schema); ``LLM_JSON_MODE``
picks the first rung by hand. Ollama gets ``options.num_ctx`` (``OLLAMA_NUM_CTX``) in every
request, because its small default context silently truncates prompts; Ollama's ``/v1`` endpoint
may ignore it, which ``deepresearch doctor`` detects from ``/api/ps`` and ``/api/show``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import SecretStr

from deepresearch.errors import ConfigurationError
from deepresearch.llm.openai_compat import JsonMode
from deepresearch.settings import Settings, mask_secret

OPENAI_URL = "https://api.openai.com/v1"
PRESET_KEYS = {"ollama": "ollama", "lmstudio": "lm-studio"}


URL_SETTINGS = {"ollama": "OLLAMA_BASE_URL", "lmstudio": "LMSTUDIO_BASE_URL"}
"""The setting that names each preset's server address (``LLM_BASE_URL`` for the others)."""


@dataclass(frozen=True)
class ServerConfig:
    """Everything needed to build an :class:`OpenAICompatModel` for one model on one server."""

    provider: str
    base_url: str
    api_key: str | None
    model: str
    json_mode: JsonMode
    extra_body: dict[str, Any] = field(default_factory=dict)
    context_window: int | None = None

    @property
    def url_setting(self) -> str:
        """The setting a user changes to point at another server."""
        return URL_SETTINGS.get(self.provider, "LLM_BASE_URL")

    def describe(self) -> str:
        """One line for people and logs; the key is masked."""
        key = mask_secret(self.api_key) or "none"
        return f"{self.provider} at {self.base_url} (key {key}), model {self.model}"

    def identity(self, settings: Settings) -> dict[str, Any]:
        """What makes two requests to this server the same request, for the call cache."""
        return {
            "provider": self.provider,
            "base_url": self.base_url,
            "model": self.model,
            "temperature": settings.llm_temperature,
            "json_mode": self.json_mode,
            "tool_calling": settings.use_tool_calling,
            "extra_body": self.extra_body,
        }


def server_endpoint(settings: Settings) -> tuple[str, str | None]:
    """The base URL (with ``/v1``) and API key a provider preset resolves to; ``LLM_API_KEY`` only
    ever goes with ``LLM_BASE_URL`` or OpenAI's own API."""
    if settings.llm_provider == "ollama":
        url = settings.ollama_base_url.rstrip("/")
        return (url if url.endswith("/v1") else f"{url}/v1"), PRESET_KEYS["ollama"]
    if settings.llm_provider == "lmstudio":
        return settings.lmstudio_base_url.rstrip("/"), PRESET_KEYS["lmstudio"]
    if settings.llm_provider == "openai" and not settings.llm_base_url:
        key = _key(settings) or _secret(settings.openai_api_key)
        if not key:
            raise ConfigurationError(
                "LLM_PROVIDER=openai needs OPENAI_API_KEY or LLM_API_KEY "
                "(or set LLM_BASE_URL to another server)"
            )
        return OPENAI_URL, key
    if not settings.llm_base_url:
        raise ConfigurationError(
            f"LLM_PROVIDER={settings.llm_provider} needs LLM_BASE_URL (e.g. http://127.0.0.1:8000/v1) "
            "and LLM_MODEL_ID"
        )
    return settings.llm_base_url.rstrip("/"), _key(settings)


def server_config(settings: Settings, model: str | None = None) -> ServerConfig:
    """The preset for ``settings.llm_provider``, for ``model`` (default: the resolved model id:
    ``LLM_MODEL_ID``, then ``LOCAL_LLM``). Raises ConfigurationError naming the missing setting."""
    if settings.llm_provider == "embedded":
        raise ConfigurationError("LLM_PROVIDER=embedded runs in-process and has no server")
    base_url, api_key = server_endpoint(settings)
    chosen = model or settings.resolved_model_id()
    if not chosen:
        raise ConfigurationError(
            f"LLM_PROVIDER={settings.llm_provider} needs a model name: set LLM_MODEL_ID (or LOCAL_LLM)"
        )
    ollama = settings.llm_provider == "ollama"
    return ServerConfig(
        provider=settings.llm_provider,
        base_url=base_url,
        api_key=api_key,
        model=chosen,
        json_mode=json_mode(settings),
        extra_body={"options": {"num_ctx": settings.ollama_num_ctx}} if ollama else {},
        context_window=settings.ollama_num_ctx if ollama else None,
    )


def json_mode(settings: Settings) -> JsonMode:
    """``LLM_JSON_MODE`` when set; ``auto`` starts every preset at ``json_schema``."""
    return "json_schema" if settings.llm_json_mode == "auto" else settings.llm_json_mode


def _key(settings: Settings) -> str | None:
    return _secret(settings.llm_api_key)


def _secret(value: SecretStr | None) -> str | None:
    return value.get_secret_value() if value else None
