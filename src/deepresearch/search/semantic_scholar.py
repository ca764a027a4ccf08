"""Semantic Scholar through its Academic Graph API (``GET /graph/v1/paper/search``).

Each paper becomes a hit whose text is its abstract, with its authors, venue and year. A paper
with no abstract (Semantic Scholar may not redistribute some) is read through the fetch guard
instead: its open-access PDF when it has one, else its Semantic Scholar page.

Rate limits, as Semantic Scholar documents them: without a key every client shares one pool, which
answers 429 when it is busy (retried with backoff by :class:`~deepresearch.search.ratelimit.Throttled`);
with ``SEMANTIC_SCHOLAR_API_KEY`` (sent as ``x-api-key``) a client gets 1 request per second. Either
way this backend asks for one request per second, one at a time.
"""

from __future__ import annotations

from typing import Any

import httpx

from deepresearch.errors import SearchError
from deepresearch.search.base import SearchBackend, SearchHit, SearchOutcome
from deepresearch.search.http import DEFAULT_TIMEOUT, ClientOwner, request_json, text_field
from deepresearch.search.query import guard_query
from deepresearch.search.registry import BackendSpec, Notice, register_backend, setting_text
from deepresearch.settings import Settings

API_URL = "https://api.semanticscholar.org/graph/v1/paper/search"
FIELDS = "title,abstract,authors,venue,year,url,openAccessPdf,externalIds"
MAX_LIMIT = 100
MAX_QUERY_CHARS = 300
MIN_INTERVAL = 1.0
SNIPPET_CHARS = 300


class SemanticScholarSearch(ClientOwner, SearchBackend):
    """:class:`~deepresearch.search.base.SearchBackend` over Semantic Scholar's paper search;
    ``api_key`` is optional, ``api_url`` lets tests point it at a local server."""

    name = "semantic_scholar"
    max_query_chars: int | None = MAX_QUERY_CHARS
    min_interval = MIN_INTERVAL
    max_parallel = 1

    def __init__(
        self,
        api_key: str = "",
        *,
        api_url: str = API_URL,
        timeout: float = DEFAULT_TIMEOUT,
        client: httpx.Client | None = None,
    ) -> None:
        self.api_url = api_url
        self._use_client(client, timeout, {"x-api-key": api_key} if api_key else None)

    def search_detailed(self, query: str, *, limit: int = 5) -> SearchOutcome:
        """The papers Semantic Scholar ranks first, with a notice when the query was cut."""
        sent, notices = guard_query(query.replace("-", " "), self.max_query_chars, self.name)
        params: dict[str, str | int] = {"query": sent, "limit": min(limit, MAX_LIMIT), "fields": FIELDS}
        data = request_json(self._client, self.name, "GET", self.api_url, params=params)
        return SearchOutcome(hits=parse_search(data)[:limit], notices=notices)


def parse_search(data: dict[str, Any]) -> list[SearchHit]:
    """Hits from a ``/paper/search`` answer; an answer without a ``data`` list raises SearchError
    (``error`` and ``message`` are how the API states a refusal)."""
    papers = data.get("data")
    if papers is None and "total" in data:
        return []
    if not isinstance(papers, list):
        reason = text_field(data, "error") or text_field(data, "message") or "no 'data' list"
        raise SearchError(f"semantic_scholar: {reason}")
    hits = [_hit(paper) for paper in papers if isinstance(paper, dict)]
    return [hit for hit in hits if hit is not None]


def _hit(paper: dict[str, Any]) -> SearchHit | None:
    title = text_field(paper, "title")
    page = text_field(paper, "url")
    if not title or not page.startswith(("http://", "https://")):
        return None
    abstract = " ".join(text_field(paper, "abstract").split())
    year = paper.get("year")
    return SearchHit(
        url=page if abstract else (_open_pdf(paper) or page),
        title=title,
        snippet=abstract[:SNIPPET_CHARS],
        content=abstract or None,
        backend=SemanticScholarSearch.name,
        authors=_authors(paper),
        venue=text_field(paper, "venue"),
        year=year if isinstance(year, int) and not isinstance(year, bool) else None,
    )


def _authors(paper: dict[str, Any]) -> tuple[str, ...]:
    listed = paper.get("authors")
    if not isinstance(listed, list):
        return ()
    names = (text_field(author, "name") for author in listed if isinstance(author, dict))
    return tuple(name for name in names if name)


def _open_pdf(paper: dict[str, Any]) -> str:
    pdf = paper.get("openAccessPdf")
    url = text_field(pdf, "url") if isinstance(pdf, dict) else ""
    return url if url.startswith(("http://", "https://")) else ""


def build(settings: Settings, notice: Notice | None) -> SearchBackend:
    """The backend, keyed when ``SEMANTIC_SCHOLAR_API_KEY`` is set."""
    return SemanticScholarSearch(setting_text(settings, "semantic_scholar_api_key"))


BACKEND = register_backend(
    BackendSpec(
        "semantic_scholar",
        "Semantic Scholar",
        build,
        summary="Semantic Scholar's paper search: abstracts, authors, venue, year (key optional)",
        web=True,
        paced=True,
    )
)
