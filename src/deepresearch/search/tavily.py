"""Tavily through the ``tavily-python`` client (the ``web`` extra).

Tavily returns ranked results with a query-focused excerpt (``content``) and, when asked, its own
``answer``. The answer is kept on the :class:`SearchOutcome` as the engine's answer — shown to the
user, never turned into a source. Queries are cut to Tavily's 400 characters on a word boundary.
HTTP 429 becomes :class:`RateLimitedError` (retried by :class:`Throttled`); a bad key, a refused
plan or a timeout becomes :class:`SearchError`.
"""

from __future__ import annotations

from typing import Any, Protocol

from deepresearch.errors import ConfigurationError, SearchError
from deepresearch.search.base import SearchBackend, SearchHit, SearchOutcome
from deepresearch.search.http import result_hit, text_field
from deepresearch.search.query import guard_query
from deepresearch.search.ratelimit import RateLimitedError
from deepresearch.search.registry import register_engine

MAX_QUERY_CHARS = 400
VENDOR_ERRORS = (
    "UsageLimitExceededError",
    "InvalidAPIKeyError",
    "MissingAPIKeyError",
    "BadRequestError",
    "ForbiddenError",
    "TimeoutError",
)
DEFAULT_TIMEOUT = 30.0
MISSING = "tavily needs the tavily-python package: pip install 'deepresearch-offline[web]' (or tavily-python)"


class TavilyClientLike(Protocol):
    def search(self, query: str, **kwargs: Any) -> dict[str, Any]: ...


class TavilySearch(SearchBackend):
    """:class:`~deepresearch.search.base.SearchBackend` over the Tavily search API.

    ``base_url`` defaults to Tavily's own (https://api.tavily.com); tests point it at a local
    server. ``client`` replaces the ``TavilyClient`` entirely.
    """

    name = "tavily"
    max_query_chars: int | None = MAX_QUERY_CHARS

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str | None = None,
        search_depth: str = "basic",
        include_answer: bool = True,
        include_raw_content: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        client: TavilyClientLike | None = None,
    ) -> None:
        self.options: dict[str, Any] = {
            "search_depth": search_depth,
            "include_answer": include_answer,
            "include_raw_content": include_raw_content,
            "timeout": timeout,
        }
        self._errors = _vendor_errors()
        self._client = client or _tavily_client(api_key, base_url)

    def search_detailed(self, query: str, *, limit: int = 5) -> SearchOutcome:
        """Hits, Tavily's own answer (when it gave one) and a notice if the query was cut."""
        sent, notices = guard_query(query, self.max_query_chars, self.name)
        data = self._call(sent, limit)
        answer = text_field(data, "answer") or None
        return SearchOutcome(
            hits=parse_results(data, limit), notices=notices, answer=answer, answer_backend=self.name
        )

    def close(self) -> None:
        close = getattr(self._client, "close", None)
        if callable(close):
            close()

    def _call(self, query: str, limit: int) -> dict[str, Any]:
        try:
            data = self._client.search(query, max_results=limit, **self.options)
        except self._errors as exc:
            raise _mapped(exc) from exc
        if not isinstance(data, dict):
            raise SearchError(f"tavily: expected a JSON object, got {type(data).__name__}")
        return data


def parse_results(data: dict[str, Any], limit: int) -> list[SearchHit]:
    """Tavily ``results`` as hits; ``raw_content``, when present, becomes the hit's content."""
    results = data.get("results")
    if not isinstance(results, list):
        raise SearchError("tavily: answer has no 'results' list")
    kept = [item for item in results if isinstance(item, dict) and text_field(item, "url")]
    hits = [result_hit(item, TavilySearch.name) for item in kept]
    return hits[:limit]


def _tavily_client(api_key: str, base_url: str | None) -> TavilyClientLike:
    try:
        from tavily import TavilyClient
    except ImportError as exc:
        raise ConfigurationError(MISSING) from exc
    client: TavilyClientLike = TavilyClient(api_key=api_key, api_base_url=base_url)
    return client


def _vendor_errors() -> tuple[type[Exception], ...]:
    try:
        import requests
        from tavily import errors
    except ImportError as exc:
        raise ConfigurationError(MISSING) from exc
    found = tuple(getattr(errors, name) for name in VENDOR_ERRORS if hasattr(errors, name))
    return (*found, requests.RequestException)


def _mapped(exc: Exception) -> SearchError:
    kind = type(exc).__name__
    if kind in ("UsageLimitExceededError", "TavilyKeylessLimitError"):
        retry_after = getattr(exc, "retry_after", None) or getattr(exc, "retry_after_seconds", None)
        seconds = float(retry_after) if isinstance(retry_after, int | float) else None
        return RateLimitedError(f"tavily: rate limit ({exc or kind})", retry_after=seconds)
    if kind in ("InvalidAPIKeyError", "MissingAPIKeyError"):
        return SearchError(f"tavily: the API key was refused ({exc or kind}); check TAVILY_API_KEY")
    return SearchError(f"tavily: {kind}: {exc}")


BACKEND = register_engine(
    "tavily", "Tavily", TavilySearch, summary="Tavily's search API (`web` extra)", needs=("tavily_api_key",)
)
