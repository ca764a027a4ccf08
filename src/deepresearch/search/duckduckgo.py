"""DuckDuckGo through the ``ddgs`` package (the ``web`` extra).

``ddgs`` is a metasearch library that scrapes result pages. Its default ``engines="auto"`` asks
DuckDuckGo's upstreams and other engines and merges them, which survives one engine blocking us;
``engines="duckduckgo"`` asks DuckDuckGo alone. DuckDuckGo's "202 Ratelimit" answer
(``RatelimitException``, or any ddgs error naming a rate limit) becomes :class:`RateLimitedError`.
ddgs reports every engine refusing as "No results found.", which we return as no hits so that a
chain moves on; anything else ddgs raises becomes :class:`SearchError`.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from deepresearch.errors import ConfigurationError, SearchError
from deepresearch.search.base import SearchBackend, SearchHit, SearchOutcome
from deepresearch.search.query import guard_query
from deepresearch.search.ratelimit import RateLimitedError
from deepresearch.search.registry import register_engine

MAX_QUERY_CHARS = 500
DEFAULT_TIMEOUT = 10
MIN_INTERVAL = 1.0
"""Seconds between two searches: ddgs scrapes result pages, and DuckDuckGo answers "202 Ratelimit"
to a burst; one search a second is what the run asks of it."""
MISSING = "duckduckgo needs the ddgs package: pip install 'deepresearch-offline[web]' (or ddgs)"
_RATELIMIT = re.compile(r"\b(202\s+ratelimit|ratelimit|rate limit|429)\b", re.IGNORECASE)
_NO_RESULTS = "no results found"


class DDGSLike(Protocol):
    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]: ...


class DuckDuckGoSearch(SearchBackend):
    """:class:`~deepresearch.search.base.SearchBackend` over ``ddgs.DDGS().text``.

    ``client`` replaces the ``DDGS`` instance (tests pass a double with a recorded result list).
    """

    name = "duckduckgo"
    max_query_chars: int | None = MAX_QUERY_CHARS
    min_interval = MIN_INTERVAL

    def __init__(
        self,
        *,
        region: str = "us-en",
        safesearch: str = "moderate",
        engines: str = "auto",
        timeout: int = DEFAULT_TIMEOUT,
        client: DDGSLike | None = None,
    ) -> None:
        self.options = {"region": region, "safesearch": safesearch, "backend": engines}
        self._client = client or _ddgs_client(timeout)
        self._errors = _vendor_errors(required=client is None)

    def search_detailed(self, query: str, *, limit: int = 5) -> SearchOutcome:
        """Hits plus a notice when the query had to be shortened."""
        sent, notices = guard_query(query, self.max_query_chars, self.name)
        return SearchOutcome(hits=parse_results(self._call(sent, limit), limit), notices=notices)

    def _call(self, query: str, limit: int) -> list[dict[str, Any]]:
        try:
            results = self._client.text(query, max_results=limit, **self.options)
        except self._errors as exc:
            if _NO_RESULTS in str(exc).lower():
                return []
            raise _mapped(exc) from exc
        if not isinstance(results, list):
            raise SearchError(f"duckduckgo: ddgs returned {type(results).__name__}, not a list")
        return results


def parse_results(results: list[Any], limit: int) -> list[SearchHit]:
    """ddgs text results (``title``, ``href``, ``body``) as hits, first occurrence of a URL kept."""
    hits: list[SearchHit] = []
    seen: set[str] = set()
    for item in results:
        hit = _hit(item) if isinstance(item, dict) else None
        if hit is not None and hit.url not in seen:
            seen.add(hit.url)
            hits.append(hit)
    return hits[:limit]


def is_rate_limit(exc: BaseException) -> bool:
    """True for ddgs' RatelimitException and for messages naming a rate limit (``202 Ratelimit``)."""
    return type(exc).__name__ == "RatelimitException" or bool(_RATELIMIT.search(str(exc)))


def _hit(item: dict[str, Any]) -> SearchHit | None:
    url = str(item.get("href") or item.get("url") or "").strip()
    if not url.startswith(("http://", "https://")):
        return None
    title = " ".join(str(item.get("title") or "").split())
    return SearchHit(
        url=url,
        title=title or url,
        snippet=" ".join(str(item.get("body") or "").split()),
        backend=DuckDuckGoSearch.name,
    )


def _mapped(exc: Exception) -> SearchError:
    if is_rate_limit(exc):
        return RateLimitedError(f"duckduckgo: rate limited ({exc})")
    if type(exc).__name__ == "TimeoutException":
        return SearchError(f"duckduckgo: timed out ({exc})")
    return SearchError(f"duckduckgo: {type(exc).__name__}: {exc}")


def _ddgs_client(timeout: int) -> DDGSLike:
    try:
        from ddgs import DDGS
    except ImportError as exc:
        raise ConfigurationError(MISSING) from exc
    client: DDGSLike = DDGS(timeout=timeout)
    return client


def _vendor_errors(*, required: bool) -> tuple[type[Exception], ...]:
    """ddgs' base exception; without ddgs an injected client's errors pass through unmapped."""
    try:
        from ddgs.exceptions import DDGSException
    except ImportError as exc:
        if required:
            raise ConfigurationError(MISSING) from exc
        return ()
    return (DDGSException,)


BACKEND = register_engine(
    "duckduckgo",
    "DuckDuckGo",
    DuckDuckGoSearch,
    summary="DuckDuckGo and other engines through ddgs (`web` extra)",
)
