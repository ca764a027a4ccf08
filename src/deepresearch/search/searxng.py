"""SearXNG through its JSON API (``GET {SEARXNG_URL}/search?q=…&format=json``).

The instance must allow the JSON format (``search.formats: [html, json]`` in its settings.yml);
otherwise it answers 403, which we report with that fix. Engines that an instance could not
reach are listed in ``unresponsive_engines``; when nothing came back they are named in the error.
"""

from __future__ import annotations

from typing import Any

import httpx

from deepresearch.errors import SearchError
from deepresearch.search.base import SearchBackend, SearchHit, SearchOutcome
from deepresearch.search.http import (
    DEFAULT_TIMEOUT,
    ClientOwner,
    SearchHTTPError,
    request_json,
    result_hit,
    text_field,
)
from deepresearch.search.query import guard_query
from deepresearch.search.registry import register_engine

MAX_QUERY_CHARS = 500


class SearxngSearch(ClientOwner, SearchBackend):
    """:class:`~deepresearch.search.base.SearchBackend` over one SearXNG instance at ``base_url``."""

    name = "searxng"
    max_query_chars: int | None = MAX_QUERY_CHARS

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        language: str | None = None,
        client: httpx.Client | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.language = language
        self._use_client(client, timeout)

    def search_detailed(self, query: str, *, limit: int = 5) -> SearchOutcome:
        """Hits plus a notice when the query was shortened; the instance's ``answers`` are dropped."""
        sent, notices = guard_query(query, self.max_query_chars, self.name)
        data = self._get(sent)
        hits = parse_results(data, limit)
        if not hits and data.get("unresponsive_engines"):
            raise SearchError(f"searxng: no results; unresponsive engines: {data['unresponsive_engines']}")
        return SearchOutcome(hits=hits, notices=notices)

    def _get(self, query: str) -> dict[str, Any]:
        params = {"q": query, "format": "json", **({"language": self.language} if self.language else {})}
        try:
            return request_json(self._client, self.name, "GET", f"{self.base_url}/search", params=params)
        except SearchHTTPError as exc:
            if exc.status_code == 403:
                raise SearchError(
                    f"{exc} — enable the JSON format on the instance (search.formats: [html, json])"
                ) from exc
            raise


def parse_results(data: dict[str, Any], limit: int) -> list[SearchHit]:
    """SearXNG ``results`` as hits; items without an http(s) URL are skipped."""
    results = data.get("results")
    if not isinstance(results, list):
        raise SearchError("searxng: answer has no 'results' list")
    kept = [item for item in results if isinstance(item, dict) and _has_web_url(item)]
    hits = [result_hit(item, SearxngSearch.name) for item in kept]
    return hits[:limit]


def _has_web_url(item: dict[str, Any]) -> bool:
    return text_field(item, "url").startswith(("http://", "https://"))


BACKEND = register_engine(
    "searxng",
    "SearXNG",
    SearxngSearch,
    summary="your SearXNG instance, e.g. http://localhost:8080",
    needs=("searxng_url",),
)
