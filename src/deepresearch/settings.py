"""One validated settings object.

Values come from, in rising priority: defaults, a ``.env`` file, the environment (the seed's names:
``LLM_PROVIDER``, ``SEARCH_API``, ``MAX_WEB_RESEARCH_LOOPS`` ...), and per-call overrides. Settings are
read when a :class:`Settings` is built, never at import time. Unknown override keys are an error.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from deepresearch.errors import ConfigurationError

Provider = Literal["embedded", "custom", "openai", "ollama", "lmstudio"]
SummaryMode = Literal["auto", "extractive", "model"]

DEFAULT_EMBEDDED_MODEL = "smollm2"
SECRET_FIELDS = (
    "llm_api_key",
    "openai_api_key",
    "tavily_api_key",
    "perplexity_api_key",
    "api_token",
    "database_url",
    "redis_url",
)


class Settings(BaseSettings):
    """Every knob of a research run. Field names are the environment variable names, lower-cased."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        validate_default=True,
        allow_inf_nan=False,
    )

    llm_provider: Provider = "embedded"
    local_llm: str | None = None
    llm_model_id: str | None = None
    llm_base_url: str | None = None
    llm_api_key: SecretStr | None = None
    openai_api_key: SecretStr | None = None
    ollama_base_url: str = "http://localhost:11434"
    lmstudio_base_url: str = "http://localhost:1234/v1"
    llm_timeout: float = Field(120.0, gt=0, le=3600)
    llm_max_retries: int = Field(2, ge=0, le=10)
    llm_min_interval_seconds: float = Field(0.0, ge=0, le=600)
    llm_max_concurrency: int = Field(0, ge=0, le=1024)
    llm_cache: Literal["off", "read", "readwrite"] = "off"
    llm_price_prompt_per_mtok: float | None = Field(None, ge=0, le=10_000)
    llm_price_completion_per_mtok: float | None = Field(None, ge=0, le=10_000)
    llm_temperature: float = Field(0.0, ge=0, le=2)
    llm_json_mode: Literal["auto", "json_schema", "json_object", "none"] = "auto"
    ollama_num_ctx: int = Field(8192, ge=512, le=1_048_576)
    planner_model: str | None = None
    summarizer_model: str | None = None
    judge_model: str | None = None
    writer_model: str | None = None
    embedded_model: str = DEFAULT_EMBEDDED_MODEL
    embedded_model_path: Path | None = None
    embedded_n_ctx: int | None = Field(None, ge=512, le=1_048_576)
    embedded_threads: int | None = Field(None, ge=1, le=1024)
    strip_thinking_tokens: bool = True
    use_tool_calling: bool = False
    model_judge: bool | None = None
    summary_mode: SummaryMode = "auto"
    answer_chooser: Literal["code", "model"] = "code"

    search_api: str = "local"
    search_order: str = "tavily,duckduckgo,searxng,wikipedia"
    search_min_interval_seconds: float | None = Field(None, ge=0, le=600)
    search_max_retries: int = Field(3, ge=0, le=10)
    tavily_api_key: SecretStr | None = None
    perplexity_api_key: SecretStr | None = None
    searxng_url: str | None = None
    fetch_allow_hosts: str = ""
    fetch_timeout: float = Field(15.0, gt=0, le=600)
    fetch_max_bytes: int = Field(5_000_000, ge=1024, le=1_000_000_000)
    fetch_cache: bool = True
    index_embeddings: bool = False
    index_path: Path | None = None
    index_max_file_mb: int = Field(64, ge=1, le=65_536)
    index_max_unpacked_mb: int = Field(256, ge=1, le=65_536)
    max_results_per_query: int = Field(10, ge=1, le=50)
    fetch_full_page: bool = True
    max_tokens_per_source: int = Field(2000, ge=50, le=1_000_000)

    max_web_research_loops: int = Field(3, ge=1, le=10)
    relevance_threshold: float = Field(50.0, ge=0, le=100)
    task_concurrency: int = Field(4, ge=1, le=32)
    max_question_chars: int = Field(2000, ge=20, le=1_000_000)

    deepresearch_home: Path = Path("~/.deepresearch")
    enable_notes: bool = True
    notes_workspace: Path | None = None
    runs_workspace: Path | None = None
    research_run_retention_days: int = Field(7, ge=0, le=36_500)

    api_token: SecretStr | None = None
    cors_origins: str = ""
    max_concurrent_jobs: int = Field(2, ge=1, le=64)
    max_body_bytes: int = Field(65_536, ge=1024, le=100_000_000)
    max_queued_jobs: int = Field(100, ge=1, le=100_000)
    allowed_hosts: str = ""
    request_search_apis: str = ""

    jobs_backend: Literal["local", "celery"] = "local"
    redis_url: SecretStr | None = None
    database_url: SecretStr | None = None
    job_lease_seconds: float = Field(30.0, ge=1, le=3600)

    @field_validator("search_api", "llm_provider", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @classmethod
    def load(cls, overrides: Mapping[str, Any] | None = None) -> Settings:
        """Build from env/.env with ``overrides`` on top; raise ConfigurationError on bad values."""
        given = {k: v for k, v in (overrides or {}).items() if v is not None}
        unknown = sorted(set(given) - set(cls.model_fields))
        if unknown:
            hints = "".join(f" ({name}: did you mean {near}?)" for name in unknown if (near := nearest(name)))
            raise ConfigurationError(
                f"unknown setting(s): {', '.join(unknown)}{hints}. "
                f"Known settings: {', '.join(sorted(cls.model_fields))}"
            )
        try:
            return cls(**given)
        except ValidationError as exc:
            raise ConfigurationError(_explain(exc)) from None

    def with_overrides(self, **overrides: Any) -> Settings:
        """A copy with ``overrides`` applied and validated (unknown keys are an error)."""
        merged = {**self.model_dump(exclude_unset=True), **overrides}
        return Settings.load(merged)

    @property
    def home(self) -> Path:
        return self.deepresearch_home.expanduser()

    @property
    def resolved_notes_workspace(self) -> Path:
        return (self.notes_workspace or self.home / "notes").expanduser()

    @property
    def resolved_runs_workspace(self) -> Path:
        return (self.runs_workspace or self.home / "runs").expanduser()

    @property
    def resolved_index_path(self) -> Path:
        return (self.index_path or self.home / "index.sqlite").expanduser()

    @property
    def uses_default_index(self) -> bool:
        return self.index_path is None

    def resolved_model_id(self) -> str | None:
        """The seed's rule: ``LLM_MODEL_ID`` first, then ``LOCAL_LLM``."""
        return self.llm_model_id or self.local_llm

    @property
    def cache_dir(self) -> Path:
        """Model-call and page caches live here."""
        return self.home / "cache"

    @property
    def jobs_db_path(self) -> Path:
        return self.home / "jobs.sqlite"

    def request_search_backends(self) -> list[str]:
        """The search backends a request may choose: ``SEARCH_API`` and ``REQUEST_SEARCH_APIS``."""
        listed = (name.strip().lower() for name in self.request_search_apis.split(","))
        return list(dict.fromkeys([self.search_api, *(name for name in listed if name)]))


REQUEST_SETTINGS: Mapping[str, str] = {
    "search_api": "the search backend: SEARCH_API or one the server lists in REQUEST_SEARCH_APIS",
    "max_web_research_loops": "research rounds, at most the server's MAX_WEB_RESEARCH_LOOPS",
    "max_results_per_query": "hits kept per query, at most the server's MAX_RESULTS_PER_QUERY",
    "relevance_threshold": "the judge's bar for enough evidence, 0-100",
    "summary_mode": "auto, extractive or model",
    "model_judge": "whether the model judges relevance too",
    "fetch_full_page": "false reads only the search snippets (it cannot switch reading on)",
}
"""What one request to the service may set: everything else is server-only. The topic is the
request's own field, and the report's language follows the topic's."""

_AT_MOST_THE_SERVERS = ("max_web_research_loops", "max_results_per_query", "fetch_full_page")


def nearest(name: str) -> str | None:
    """The setting whose name is closest to ``name`` (a likely misspelling), in ``name``'s case."""
    known = list(Settings.model_fields)
    found = difflib.get_close_matches(name.lower(), known, n=1, cutoff=0.8)
    if not found:
        return None
    return found[0].upper() if name.isupper() else found[0]


def misspelled_settings(environ: Mapping[str, str], dotenv: Path | None = Path(".env")) -> list[str]:
    """Warnings for environment variables and ``.env`` keys that look like a setting but are none
    (``LLM_PROVIDR``): they would be ignored silently. Only names that share a setting's first word
    (``LLM_``, ``EMBEDDED_``, ``SEARCH_`` …) are considered, so ``PATH`` or ``HOME`` never are."""
    known = {name.upper() for name in Settings.model_fields}
    prefixes = {name.split("_", 1)[0] + "_" for name in known}
    names = {(name, "environment") for name in environ} | {(name, ".env") for name in _dotenv_keys(dotenv)}
    warnings = []
    for name, where in sorted(names):
        if name in known or not name.startswith(tuple(prefixes)):
            continue
        near = nearest(name)
        if near is not None:
            warnings.append(f"{name} (in the {where}) is no setting: did you mean {near}?")
    return warnings


def _dotenv_keys(path: Path | None) -> list[str]:
    if path is None or not path.is_file():
        return []
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    keys = (line.removeprefix("export ").split("=", 1)[0].strip() for line in lines if "=" in line)
    return [key for key in keys if key and not key.startswith("#")]


def request_settings(base: Settings, overrides: Mapping[str, Any]) -> Settings:
    """``base`` (the server's settings) with one request's ``overrides``, which may only name
    :data:`REQUEST_SETTINGS` and only stay within the server's own limits.

    Raises :class:`ConfigurationError` naming the setting: unknown, server-only, invalid, above
    the server's value, or a search backend the server did not enable.
    """
    given = {k: v for k, v in overrides.items() if v is not None}
    unknown = sorted(set(given) - set(Settings.model_fields))
    if unknown:
        raise ConfigurationError(f"unknown setting(s): {', '.join(unknown)}")
    locked = sorted(set(given) - set(REQUEST_SETTINGS))
    if locked:
        raise ConfigurationError(
            f"setting(s) {', '.join(locked)} can only be set on the server, not per request; "
            f"a request may set: {', '.join(REQUEST_SETTINGS)}"
        )
    resolved = base.with_overrides(**given) if given else base
    for name in _AT_MOST_THE_SERVERS:
        if getattr(resolved, name) > getattr(base, name):
            raise ConfigurationError(
                f"{name} = {getattr(resolved, name)!r} is above this server's {name.upper()} "
                f"({getattr(base, name)!r}); a request may only lower it"
            )
    enabled = base.request_search_backends()
    if resolved.search_api not in enabled:
        raise ConfigurationError(
            f"search_api {resolved.search_api!r} is not enabled on this server; choose one of "
            f"{', '.join(enabled)} (the operator lists more in REQUEST_SEARCH_APIS)"
        )
    return resolved


def mask_secret(secret: SecretStr | str | None) -> str | None:
    """The one way a secret is shown (settings, logs, errors, ``doctor``); ``None`` when unset.

    At most a quarter of it shows: ``sk-proj-abcdefghijklmnopqrstuvwxyz0123`` → ``sk-p…0123``,
    ``abcdefghijkl3456`` → ``…3456``, anything shorter than 16 characters → ``***``.
    """
    if secret is None:
        return None
    raw = secret.get_secret_value() if isinstance(secret, SecretStr) else secret
    if not raw:
        return None
    if len(raw) >= 32:
        return f"{raw[:4]}…{raw[-4:]}"
    return f"…{raw[-4:]}" if len(raw) >= 16 else "***"


def _explain(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        name = ".".join(str(p) for p in error["loc"]) or "settings"
        parts.append(f"{name.upper()}: {error['msg']} (got {error.get('input')!r})")
    return "invalid setting(s): " + "; ".join(parts)
