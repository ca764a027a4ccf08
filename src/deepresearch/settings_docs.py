"""Every setting, described once: ``docs/SETTINGS.md`` is generated from this and the Settings model.

Names, types and defaults come from :class:`~deepresearch.settings.Settings`, so they cannot drift;
the sentences come from :data:`DESCRIPTIONS`, and a test fails when a setting has none. Regenerate
the page with ``deepresearch settings --markdown > docs/SETTINGS.md``.
"""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin

from pydantic.fields import FieldInfo

from deepresearch.settings import SECRET_FIELDS, Settings, mask_secret

GROUPS: dict[str, tuple[str, ...]] = {
    "Model": (
        "llm_provider", "local_llm", "llm_model_id", "llm_base_url", "llm_api_key", "openai_api_key",
        "ollama_base_url", "lmstudio_base_url", "llm_timeout", "llm_max_retries",
        "llm_min_interval_seconds", "llm_max_concurrency", "llm_cache", "llm_price_prompt_per_mtok",
        "llm_price_completion_per_mtok", "llm_temperature",
        "llm_json_mode", "ollama_num_ctx",
        "planner_model", "summarizer_model", "judge_model", "writer_model",
    ),
    "Embedded model": ("embedded_model", "embedded_model_path", "embedded_n_ctx", "embedded_threads"),
    "Research behaviour": (
        "strip_thinking_tokens", "use_tool_calling", "model_judge", "summary_mode", "answer_chooser",
        "max_web_research_loops", "relevance_threshold", "task_concurrency", "max_question_chars",
    ),
    "Search and reading": (
        "search_api", "search_order", "search_min_interval_seconds", "search_max_retries",
        "tavily_api_key", "perplexity_api_key", "searxng_url", "fetch_allow_hosts", "fetch_timeout",
        "fetch_max_bytes", "fetch_cache", "fetch_full_page", "max_results_per_query",
        "max_tokens_per_source", "index_embeddings", "index_path", "index_max_file_mb",
        "index_max_unpacked_mb",
    ),
    "Files": (
        "deepresearch_home", "enable_notes", "notes_workspace", "runs_workspace",
        "research_run_retention_days",
    ),
    "Service": (
        "api_token", "cors_origins", "max_concurrent_jobs", "max_body_bytes", "max_queued_jobs",
        "allowed_hosts", "request_search_apis",
    ),
    "Running for a team": ("jobs_backend", "redis_url", "database_url", "job_lease_seconds"),
}  # fmt: skip

DESCRIPTIONS: dict[str, str] = {
    "llm_provider": "Which model runs the research: `embedded` (llama.cpp in-process, no server), "
    "`custom` (any OpenAI-compatible server at `LLM_BASE_URL`), `openai`, `ollama` or `lmstudio`.",
    "local_llm": "Model name for the server providers (the seed project's name); `LLM_MODEL_ID` wins.",
    "llm_model_id": "Model name sent to the server (`gpt-4o-mini`, `qwen2.5:7b`, ...).",
    "llm_base_url": "OpenAI-compatible base URL with `/v1` (vLLM, llama.cpp server, DeepSeek, ...); "
    "with `openai` it replaces api.openai.com.",
    "llm_api_key": "Key sent to `LLM_BASE_URL` (or to OpenAI); never sent to Ollama or LM Studio.",
    "openai_api_key": "OpenAI's usual variable: used by `LLM_PROVIDER=openai` when `LLM_API_KEY` is "
    "unset and no `LLM_BASE_URL` is given (it is never sent to any other server).",
    "ollama_base_url": "Where Ollama listens (`/v1` is added).",
    "lmstudio_base_url": "Where LM Studio's OpenAI-compatible server listens.",
    "llm_timeout": "Seconds one model call may take before it is abandoned.",
    "llm_price_prompt_per_mtok": "Price per million prompt tokens; with the completion price, the CLI "
    "shows the run's cost beside its token counts.",
    "llm_price_completion_per_mtok": "Price per million completion tokens (see `LLM_PRICE_PROMPT_PER_MTOK`).",
    "llm_max_retries": "Retries of a failed model call (connection errors, 429, 5xx), with backoff.",
    "llm_min_interval_seconds": "Least time between two model calls (for rate-limited APIs); 0 is none.",
    "llm_max_concurrency": "Most model calls in flight at once, for servers that run few requests at "
    "a time; 0 is no limit. With `JOBS_BACKEND=celery` the limit holds across every worker (Redis).",
    "llm_cache": "Cache model calls on disk under `DEEPRESEARCH_HOME/cache`: `off`, `read` (reuse only) "
    "or `readwrite`; a re-run of the same question then costs no tokens.",
    "llm_temperature": "Sampling temperature of every model call.",
    "llm_json_mode": "First rung of the structured-output ladder: `auto` (json_schema, then "
    "json_object, then prompt only), or force `json_schema`, `json_object` or `none`.",
    "ollama_num_ctx": "Context window asked of Ollama in every request (its small default truncates "
    "prompts silently).",
    "planner_model": "Model for the role and plan step (default: `LLM_MODEL_ID`).",
    "summarizer_model": "Model for the per-task summaries (default: `LLM_MODEL_ID`).",
    "judge_model": "Model for judging relevance and writing new queries (default: `LLM_MODEL_ID`).",
    "writer_model": "Model for the report (default: `LLM_MODEL_ID`).",
    "embedded_model": "Bundled in-process model: `smollm2` (SmolLM2-135M-Instruct), `qwen0.5b` or `qwen1.5b` "
    "(Qwen2.5-Coder-Instruct); see the README for what each costs and gets right.",
    "embedded_model_path": "A GGUF file to run in-process instead of the bundled model.",
    "embedded_n_ctx": "Context window of the in-process model, in tokens (default: the model's own "
    "entry, 8192, never above what the GGUF was trained for).",
    "embedded_threads": "CPU threads for the in-process model, prompt and generation alike "
    "(default: all cores read the prompt, half of them generate: measured fastest on 2 cores).",
    "strip_thinking_tokens": "Remove `<think>...</think>` from model output before it is used.",
    "use_tool_calling": "Ask servers for structured output through tool calls instead of JSON modes.",
    "model_judge": "Let the model score relevance too (default: on for servers, off for the embedded "
    "model, whose scores measured no better than chance).",
    "summary_mode": "Task summaries: `auto` (extractive for the embedded model, model-written for "
    "servers), `extractive` or `model`.",
    "answer_chooser": "Who picks the embedded model's answer among code's candidates: `code` or "
    "`model` (under a grammar that allows only them).",
    "max_web_research_loops": "Research rounds at most (search, read, judge, re-query).",
    "relevance_threshold": "The judge's bar (0-100) below which a task's evidence is thin and re-queried.",
    "task_concurrency": "Tasks researched at once.",
    "max_question_chars": "Longest question accepted.",
    "search_api": "Search backend: `local` (your index), `notes`, `duckduckgo`, `wikipedia`, "
    "`tavily`, `perplexity`, `searxng`, or `hybrid` (the chain in `SEARCH_ORDER`).",
    "search_order": "The fallback chain of `SEARCH_API=hybrid`; engines without keys are skipped.",
    "search_min_interval_seconds": "Least time between two searches on one engine (default: each "
    "engine's own need, e.g. 1 s for DuckDuckGo).",
    "search_max_retries": "Retries of a failed search, with backoff.",
    "tavily_api_key": "Key for `SEARCH_API=tavily`.",
    "perplexity_api_key": "Key for `SEARCH_API=perplexity`.",
    "searxng_url": "Your SearXNG instance for `SEARCH_API=searxng`, e.g. `http://localhost:8080`.",
    "fetch_allow_hosts": "Comma-separated hosts the page fetcher may read although they are private, "
    "loopback or link-local (refused otherwise).",
    "fetch_timeout": "Seconds one page fetch may take.",
    "fetch_max_bytes": "Largest page read, in bytes.",
    "fetch_cache": "Keep fetched pages under `DEEPRESEARCH_HOME/cache/pages`.",
    "fetch_full_page": "Read each hit's page; `false` keeps only the search snippets.",
    "max_results_per_query": "Search hits kept per query.",
    "max_tokens_per_source": "Text kept per source, in tokens (about 4 characters each).",
    "index_max_file_mb": "`deepresearch index` skips (and names) a file larger than this, in MB.",
    "index_max_unpacked_mb": "`deepresearch index` skips a .docx whose parts unpack to more than this, in MB "
    "(a zip bomb).",
    "index_embeddings": "Also embed passages with MiniLM for hybrid search (`deepresearch-offline[dense]`).",
    "index_path": "The local index file `SEARCH_API=local` searches (default "
    "`DEEPRESEARCH_HOME/index.sqlite`, or the bundled demo corpus while you have indexed nothing).",
    "deepresearch_home": "Where the index, notes, runs, caches and the jobs database live.",
    "enable_notes": "Keep a note per task and the report as notes.",
    "notes_workspace": "Folder of the notes (default `DEEPRESEARCH_HOME/notes`).",
    "runs_workspace": "Folder of the run folders (default `DEEPRESEARCH_HOME/runs`).",
    "research_run_retention_days": "Days a run folder is kept; 0 keeps them forever.",
    "api_token": "Bearer token the service (HTTP API, MCP endpoint) requires; unset means no auth.",
    "cors_origins": "Comma-separated browser origins allowed to call the service from other sites.",
    "max_concurrent_jobs": "Research jobs the service runs at once; the rest wait in the queue.",
    "max_body_bytes": "Largest request body the service accepts.",
    "max_queued_jobs": "Jobs that may wait; beyond it the service answers 429.",
    "allowed_hosts": "Comma-separated Host names the service answers (DNS-rebinding guard); empty "
    "allows loopback names only when bound to loopback.",
    "request_search_apis": "Search backends a request may choose besides `SEARCH_API`.",
    "jobs_backend": "Where `/tasks` jobs run: `local` (threads of the API process, SQLite under "
    "`DEEPRESEARCH_HOME`) or `celery` (`deepresearch worker` processes, state in PostgreSQL, events "
    "through Redis; needs the `team` extra). With `celery`, `DEEPRESEARCH_HOME` (or `NOTES_WORKSPACE` "
    "and `RUNS_WORKSPACE`) must be a path every API node and worker shares.",
    "redis_url": "Redis for `JOBS_BACKEND=celery`: the Celery broker, live events, cancels and the "
    "cluster-wide rate limits (`redis://host:6379/0`).",
    "database_url": "PostgreSQL for `JOBS_BACKEND=celery`: jobs, events and checkpoints "
    "(`postgresql://user:pass@host:5432/deepresearch`); migrated on start.",
    "job_lease_seconds": "How long a worker's hold on a running job lasts unrenewed: a job whose worker "
    "died is resumed by another worker after at most this long.",
}


def undocumented() -> list[str]:
    """Settings with no description or no group (a test keeps this empty)."""
    grouped = {name for names in GROUPS.values() for name in names}
    return sorted(n for n in Settings.model_fields if n not in DESCRIPTIONS or n not in grouped)


def settings_markdown() -> str:
    """The whole ``docs/SETTINGS.md`` page."""
    lines = [
        "# Settings",
        "",
        "Every setting is an environment variable (or a line in `.env`, or a keyword override in",
        "Python: `research(question, max_web_research_loops=2)`). Overrides win over the environment,",
        "which wins over `.env`; unknown override names are an error. Secrets are shown masked.",
        "",
        "Generated from the `Settings` model by `deepresearch settings --markdown`; do not edit by hand.",
    ]
    for group, names in GROUPS.items():
        lines += ["", f"## {group}", "", "| variable | type | default | what it does |", "| --- " * 4 + "|"]
        lines += [_row(name, Settings.model_fields[name]) for name in names]
    return "\n".join(lines) + "\n"


def settings_text(settings: Settings) -> str:
    """The settings in force, as ``.env`` lines under their descriptions; secrets masked."""
    lines: list[str] = []
    for group, names in GROUPS.items():
        lines += [f"# --- {group} ---"]
        for name in names:
            lines += [f"# {DESCRIPTIONS[name]}", f"{name.upper()}={_current(settings, name)}"]
        lines.append("")
    return "\n".join(lines)


def _current(settings: Settings, name: str) -> str:
    value = getattr(settings, name)
    if name in SECRET_FIELDS:
        return mask_secret(value) or ""
    if value is None:
        return ""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _row(name: str, field: FieldInfo) -> str:
    return f"| `{name.upper()}` | {_type(field.annotation)} | {_default(field)} | {DESCRIPTIONS[name]} |"


def _default(field: FieldInfo) -> str:
    value = field.default
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`" if str(value) != "" else '`""`'


def _type(annotation: Any) -> str:
    args = [a for a in get_args(annotation) if a is not type(None)]
    if get_origin(annotation) is Literal:
        return " \\| ".join(f"`{a}`" for a in get_args(annotation))
    if get_origin(annotation) in (Union, types.UnionType):
        return _type(args[0]) if len(args) == 1 else " \\| ".join(_type(a) for a in args)
    names = {"SecretStr": "secret", "Path": "path", "str": "text", "bool": "bool"}
    name = getattr(annotation, "__name__", str(annotation))
    return names.get(name, name)
