"""arXiv through its Atom API (``GET /api/query?search_query=...``), keyless.

Each entry becomes a hit whose text is the paper's abstract (no page is fetched), with its
authors, its journal reference (or "arXiv" and the primary category) as the venue, and the year it
was first published. arXiv's terms of use ask for at most one request every three seconds over a
single connection: the class says so (``min_interval``, ``max_parallel``) and the factory paces it.
The query is the question's content words, each searched in every field and joined with ``AND``
(at most :data:`MAX_TERMS`), sorted by relevance. The feed is parsed with the standard library;
arXiv's feed has no DTD and ElementTree resolves no external entity.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import httpx

from deepresearch.errors import SearchError
from deepresearch.search.base import SearchBackend, SearchHit, SearchOutcome
from deepresearch.search.http import DEFAULT_TIMEOUT, ClientOwner, check_status, preview
from deepresearch.search.registry import register_engine
from deepresearch.text import key_terms

API_URL = "https://export.arxiv.org/api/query"
MAX_TERMS = 5
MIN_INTERVAL = 3.0
SNIPPET_CHARS = 300

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
_YEAR = re.compile(r"^(\d{4})")


class ArxivSearch(ClientOwner, SearchBackend):
    """:class:`~deepresearch.search.base.SearchBackend` over arXiv's Atom API; ``api_url`` lets
    tests point it at a local server."""

    name = "arxiv"
    min_interval = MIN_INTERVAL
    max_parallel = 1

    def __init__(
        self,
        *,
        api_url: str = API_URL,
        timeout: float = DEFAULT_TIMEOUT,
        client: httpx.Client | None = None,
    ) -> None:
        self.api_url = api_url
        self._use_client(client, timeout)

    def search_detailed(self, query: str, *, limit: int = 5) -> SearchOutcome:
        """The entries arXiv ranks first for the query's content words."""
        expression = search_expression(query)
        if not expression:
            return SearchOutcome(hits=[], notices=[f"arxiv: no searchable words in {query!r}"])
        params: dict[str, str | int] = {
            "search_query": expression,
            "start": 0,
            "max_results": limit,
            "sortBy": "relevance",
        }
        try:
            response = self._client.get(self.api_url, params=params)
        except httpx.HTTPError as exc:
            raise SearchError(f"arxiv: request to {self.api_url} failed: {exc}") from exc
        check_status(response, self.name)
        return SearchOutcome(hits=parse_feed(response.text)[:limit])


def search_expression(query: str) -> str:
    """``all:w1 AND all:w2 ...`` for the query's first :data:`MAX_TERMS` content words."""
    terms = [term for term in (re.sub(r"[^\w.-]", "", word) for word in key_terms(query)) if term]
    return " AND ".join(f"all:{term}" for term in terms[:MAX_TERMS])


def parse_feed(text: str) -> list[SearchHit]:
    """Hits from an Atom feed of the arXiv API; a body that is no feed raises SearchError."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise SearchError(f"arxiv: answer is not an Atom feed: {preview(text)}") from exc
    if root.tag != f"{ATOM}feed":
        raise SearchError(f"arxiv: expected an Atom feed, got <{root.tag}>")
    entries = [_hit(entry) for entry in root.findall(f"{ATOM}entry")]
    return [hit for hit in entries if hit is not None]


def _hit(entry: ET.Element) -> SearchHit | None:
    url = _alternate_link(entry) or _text(entry, f"{ATOM}id")
    title = _text(entry, f"{ATOM}title")
    abstract = _text(entry, f"{ATOM}summary")
    if title == "Error":
        raise SearchError(f"arxiv: the API refused the query: {abstract or 'no reason given'}")
    if not url.startswith(("http://", "https://")) or not title:
        return None
    return SearchHit(
        url=url,
        title=title,
        snippet=abstract[:SNIPPET_CHARS],
        content=abstract or None,
        backend=ArxivSearch.name,
        authors=_authors(entry),
        venue=_text(entry, f"{ARXIV}journal_ref") or _category_venue(entry),
        year=_year(_text(entry, f"{ATOM}published")),
    )


def _authors(entry: ET.Element) -> tuple[str, ...]:
    names = (_text(author, f"{ATOM}name") for author in entry.findall(f"{ATOM}author"))
    return tuple(name for name in names if name)


def _alternate_link(entry: ET.Element) -> str:
    for link in entry.findall(f"{ATOM}link"):
        if link.get("rel") == "alternate" and link.get("href"):
            return str(link.get("href"))
    return ""


def _category_venue(entry: ET.Element) -> str:
    primary = entry.find(f"{ARXIV}primary_category")
    term = primary.get("term") if primary is not None else None
    return f"arXiv ({term})" if term else "arXiv"


def _text(element: ET.Element, tag: str) -> str:
    found = element.find(tag)
    return " ".join((found.text or "").split()) if found is not None else ""


def _year(date: str) -> int | None:
    match = _YEAR.match(date)
    return int(match.group(1)) if match else None


BACKEND = register_engine(
    "arxiv",
    "arXiv",
    ArxivSearch,
    summary="arXiv's Atom API: preprints' abstracts, authors and year (one request per 3 s)",
)
