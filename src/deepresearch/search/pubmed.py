"""PubMed through NCBI's E-utilities: ``esearch.fcgi`` finds PMIDs, ``efetch.fcgi`` returns them.

Each article becomes a hit at ``https://pubmed.ncbi.nlm.nih.gov/<PMID>/`` whose text is its
abstract (labelled parts kept: "METHODS: ..."), with its authors, journal and year. An article
with no abstract is read from its PubMed page through the fetch guard.

Rate limits, as NCBI documents them: 3 requests per second without a key, 10 with ``NCBI_API_KEY``.
One search is two requests, so this backend asks for 2/3 s (0.2 s with a key) between searches,
one at a time. Requests carry ``tool=deepresearch``, as NCBI asks of every client. The XML is
parsed with the standard library, which reads no external DTD or entity.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import httpx

from deepresearch.errors import SearchError
from deepresearch.search.base import SearchBackend, SearchHit, SearchOutcome
from deepresearch.search.http import DEFAULT_TIMEOUT, ClientOwner, check_status, preview
from deepresearch.search.query import guard_query
from deepresearch.search.registry import BackendSpec, Notice, register_backend, setting_text
from deepresearch.settings import Settings

API_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/"
ARTICLE_URL = "https://pubmed.ncbi.nlm.nih.gov/{pmid}/"
TOOL = "deepresearch"
REQUESTS_PER_SEARCH = 2
RATE_WITHOUT_KEY = 3.0
RATE_WITH_KEY = 10.0
MAX_QUERY_CHARS = 500
SNIPPET_CHARS = 300
_YEAR = re.compile(r"(\d{4})")


class PubMedSearch(ClientOwner, SearchBackend):
    """:class:`~deepresearch.search.base.SearchBackend` over PubMed; ``api_key`` is optional,
    ``api_url`` (the E-utilities folder) lets tests point it at a local server."""

    name = "pubmed"
    max_query_chars: int | None = MAX_QUERY_CHARS
    max_parallel = 1

    def __init__(
        self,
        api_key: str = "",
        *,
        api_url: str = API_URL,
        timeout: float = DEFAULT_TIMEOUT,
        client: httpx.Client | None = None,
    ) -> None:
        self.api_key = api_key
        self.api_url = api_url.rstrip("/") + "/"
        rate = RATE_WITH_KEY if api_key else RATE_WITHOUT_KEY
        self.min_interval = REQUESTS_PER_SEARCH / rate
        self._use_client(client, timeout)

    def search_detailed(self, query: str, *, limit: int = 5) -> SearchOutcome:
        """The articles PubMed ranks most relevant, in that order."""
        sent, notices = guard_query(query, self.max_query_chars, self.name)
        pmids = parse_esearch(self._get("esearch.fcgi", term=sent, retmax=limit, sort="relevance"))
        if not pmids:
            return SearchOutcome(hits=[], notices=notices)
        articles = self._get("efetch.fcgi", id=",".join(pmids[:limit]), retmode="xml", rettype="abstract")
        return SearchOutcome(hits=_ranked(parse_efetch(articles), pmids)[:limit], notices=notices)

    def _get(self, tool: str, **params: str | int) -> str:
        url = self.api_url + tool
        common: dict[str, str | int] = {"db": "pubmed", "tool": TOOL}
        if self.api_key:
            common["api_key"] = self.api_key
        try:
            response = self._client.get(url, params={**common, **params})
        except httpx.HTTPError as exc:
            raise SearchError(f"pubmed: request to {url} failed: {exc}") from exc
        check_status(response, self.name)
        return response.text


def parse_esearch(text: str) -> list[str]:
    """The PMIDs of an ``esearch`` answer, best first; its ``ERROR`` raises SearchError."""
    root = _xml(text, "eSearchResult")
    error = root.findtext("ERROR")
    if error:
        raise SearchError(f"pubmed: esearch refused the query: {error.strip()}")
    return [pmid.strip() for pmid in (e.text for e in root.iterfind("IdList/Id")) if pmid and pmid.strip()]


def parse_efetch(text: str) -> list[SearchHit]:
    """Hits from an ``efetch`` ``PubmedArticleSet``."""
    root = _xml(text, "PubmedArticleSet")
    hits = [_hit(article) for article in root.iterfind("PubmedArticle")]
    return [hit for hit in hits if hit is not None]


def _hit(article: ET.Element) -> SearchHit | None:
    pmid = _flat(article.find("MedlineCitation/PMID"))
    title = _flat(article.find("MedlineCitation/Article/ArticleTitle"))
    if not pmid.isdigit() or not title:
        return None
    found = article.find("MedlineCitation/Article")
    assert found is not None
    abstract = _abstract(found)
    return SearchHit(
        url=ARTICLE_URL.format(pmid=pmid),
        title=title,
        snippet=abstract[:SNIPPET_CHARS],
        content=abstract or None,
        backend=PubMedSearch.name,
        authors=_authors(found),
        venue=_flat(found.find("Journal/Title")) or _flat(found.find("Journal/ISOAbbreviation")),
        year=_year(found),
    )


def _abstract(article: ET.Element) -> str:
    parts = []
    for part in article.iterfind("Abstract/AbstractText"):
        text, label = _flat(part), (part.get("Label") or "").strip()
        if text:
            parts.append(f"{label}: {text}" if label else text)
    return " ".join(parts)


def _authors(article: ET.Element) -> tuple[str, ...]:
    names = []
    for author in article.iterfind("AuthorList/Author"):
        person = " ".join(filter(None, (_flat(author.find("ForeName")), _flat(author.find("LastName")))))
        name = person or _flat(author.find("CollectiveName"))
        if name:
            names.append(name)
    return tuple(names)


def _year(article: ET.Element) -> int | None:
    date = article.find("Journal/JournalIssue/PubDate")
    text = (_flat(date.find("Year")) or _flat(date.find("MedlineDate"))) if date is not None else ""
    match = _YEAR.search(text or _flat(article.find("ArticleDate/Year")))
    return int(match.group(1)) if match else None


def _ranked(hits: list[SearchHit], pmids: list[str]) -> list[SearchHit]:
    rank = {ARTICLE_URL.format(pmid=pmid): i for i, pmid in enumerate(pmids)}
    return sorted(hits, key=lambda hit: rank.get(hit.url, len(rank)))


def _xml(text: str, root_tag: str) -> ET.Element:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise SearchError(f"pubmed: answer is not XML: {preview(text)}") from exc
    if root.tag != root_tag:
        raise SearchError(f"pubmed: expected <{root_tag}>, got <{root.tag}>: {preview(text)}")
    return root


def _flat(element: ET.Element | None) -> str:
    """An element's text with its inline markup (``<i>``, ``<sup>``) flattened, on one line."""
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


def build(settings: Settings, notice: Notice | None) -> SearchBackend:
    """The backend, keyed (10 requests/s) when ``NCBI_API_KEY`` is set."""
    return PubMedSearch(setting_text(settings, "ncbi_api_key"))


BACKEND = register_backend(
    BackendSpec(
        "pubmed",
        "PubMed",
        build,
        summary="PubMed via NCBI E-utilities: abstracts, authors, journal, year (NCBI_API_KEY optional)",
        web=True,
        paced=True,
    )
)
