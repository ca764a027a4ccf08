"""Building the configured search backend."""

from __future__ import annotations

from collections.abc import Callable

from deepresearch.errors import ConfigurationError
from deepresearch.index.corpus import local_index_path
from deepresearch.index.dense import embedder_for
from deepresearch.index.store import DocumentIndex
from deepresearch.limits import interval_gate
from deepresearch.search.base import SearchBackend
from deepresearch.search.chain import SearchChain
from deepresearch.search.local import LocalSearch
from deepresearch.search.notes import NotesSearch
from deepresearch.search.ratelimit import Throttled, pacing_of, search_policy
from deepresearch.settings import Settings

WEB = ("duckduckgo", "tavily", "perplexity", "searxng", "wikipedia")
AVAILABLE = ("local", "notes", *WEB, "hybrid")
IN_CHAIN = ("local", "notes", *WEB)

Notice = Callable[[str], None]


def build_search(settings: Settings, notice: Notice | None = None) -> SearchBackend:
    """The configured backend; its ``close()`` releases what it owns (clients, the index).

    ``local``: the user's index (``INDEX_PATH``, which must exist, or ``<home>/index.sqlite``);
    with neither, the bundled demo corpus's own index, built the first time it is needed.
    ``notes`` searches the notes of earlier runs. Web engines are wrapped in a per-engine rate
    limiter with retries. ``hybrid`` chains the engines of ``SEARCH_ORDER``, skipping (with a
    notice) those that lack a key, a URL or their package.
    """
    api = settings.search_api
    if api == "local":
        return _local(settings, notice)
    if api == "notes":
        return NotesSearch.from_settings(settings)
    if api == "hybrid":
        return build_chain(settings, notice)
    if api in WEB:
        return build_web_backend(api, settings)
    raise ConfigurationError(f"SEARCH_API={api!r} is not available; choose one of: {', '.join(AVAILABLE)}")


def build_web_backend(name: str, settings: Settings) -> Throttled:
    """One web engine behind its own rate limiter, paced as the engine asks (see
    :func:`~deepresearch.search.ratelimit.pacing_of`) unless ``SEARCH_MIN_INTERVAL_SECONDS`` is
    set (shared by every process through Redis with ``JOBS_BACKEND=celery``); ConfigurationError
    names a missing setting."""
    engine = _engine(name, settings)
    interval, parallel = pacing_of(engine, settings.search_min_interval_seconds)
    policy = search_policy(settings.search_max_retries)
    gate = interval_gate(f"search:{name}", interval, settings.shared_redis_url)
    return Throttled(engine, gate=gate, policy=policy, max_parallel=parallel)


def build_chain(settings: Settings, notice: Notice | None = None) -> SearchChain:
    """The ``hybrid`` chain in ``SEARCH_ORDER`` (closing it closes every engine); engines that
    cannot be built (no key, no URL, no package) are skipped with a notice."""
    built: list[SearchBackend] = []
    skipped: list[str] = []
    for name in parse_order(settings.search_order):
        try:
            built.append(_chain_engine(name, settings, notice))
        except ConfigurationError as exc:
            skipped.append(f"{name} ({exc})")
    if not built:
        raise ConfigurationError(f"SEARCH_API=hybrid has no usable engine: {'; '.join(skipped)}")
    if notice and skipped:
        notice(f"hybrid search skips {'; '.join(skipped)}")
    chain = SearchChain(built)
    if notice:
        notice(f"hybrid search order: {' → '.join(chain.order)}")
    return chain


def _chain_engine(name: str, settings: Settings, notice: Notice | None) -> SearchBackend:
    if name == "local":
        return _local(settings, notice)
    if name == "notes":
        return NotesSearch.from_settings(settings)
    return build_web_backend(name, settings)


def parse_order(order: str) -> list[str]:
    """``SEARCH_ORDER`` as a list of engine names, duplicates dropped; unknown names are an error."""
    names = list(dict.fromkeys(part.strip().lower() for part in order.split(",") if part.strip()))
    unknown = [name for name in names if name not in IN_CHAIN]
    if unknown or not names:
        raise ConfigurationError(
            f"SEARCH_ORDER={order!r}: unknown engine(s) {', '.join(unknown) or '(none given)'}; "
            f"use a comma-separated list of: {', '.join(IN_CHAIN)}"
        )
    return names


def _engine(name: str, settings: Settings) -> SearchBackend:
    if name == "tavily":
        from deepresearch.search.tavily import TavilySearch

        return TavilySearch(_secret(settings, "tavily_api_key", "TAVILY_API_KEY", name))
    if name == "perplexity":
        from deepresearch.search.perplexity import PerplexitySearch

        return PerplexitySearch(_secret(settings, "perplexity_api_key", "PERPLEXITY_API_KEY", name))
    if name == "searxng":
        from deepresearch.search.searxng import SearxngSearch

        if not settings.searxng_url:
            raise ConfigurationError("searxng needs SEARXNG_URL, e.g. SEARXNG_URL=http://localhost:8080")
        return SearxngSearch(settings.searxng_url)
    if name == "duckduckgo":
        from deepresearch.search.duckduckgo import DuckDuckGoSearch

        return DuckDuckGoSearch()
    from deepresearch.search.wikipedia import WikipediaSearch

    return WikipediaSearch()


def _secret(settings: Settings, field: str, env: str, engine: str) -> str:
    secret = getattr(settings, field)
    value = secret.get_secret_value().strip() if secret is not None else ""
    if not value:
        raise ConfigurationError(f"{engine} needs an API key: set {env}")
    return str(value)


def _local(settings: Settings, notice: Notice | None) -> LocalSearch:
    """Search the index :func:`~deepresearch.index.corpus.local_index_path` chooses: yours, or
    the demo corpus's own when you have indexed nothing; never both."""
    embedder = embedder_for(settings, notice)
    path = local_index_path(settings, notice, embedder)
    index = DocumentIndex.open_existing(path, embedder)
    if embedder is not None and notice and not index.has_vectors():
        notice(
            f"INDEX_EMBEDDINGS is on but {path} has no vectors, so search is BM25 only; "
            "add them with: deepresearch index --embeddings PATH"
        )
    return LocalSearch(index, owns_index=True)
