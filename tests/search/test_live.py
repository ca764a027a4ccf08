"""One live query per engine. Skipped without network (a 2 s connect to the engine's host, DNS
included) or without the engine's key.

They check that the recorded shapes are still what the engines send: real URLs come back and the
adapters read them. A rate limit on a shared IP skips rather than fails.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import pytest

from deepresearch.search.base import SearchBackend, SearchHit, SearchOutcome
from deepresearch.search.pages import search_outcome
from deepresearch.search.perplexity import PerplexitySearch
from deepresearch.search.ratelimit import RateLimitedError
from deepresearch.search.searxng import SearxngSearch
from deepresearch.search.wikipedia import WikipediaSearch
from tests.search.replay import reachable

pytestmark = pytest.mark.network
QUERY = "Prague astronomical clock history"


def online_or_skip(host: str, port: int = 443) -> None:
    if not reachable(host, port):
        pytest.skip(f"no network: cannot connect to {host}:{port} within 2 s")


def env_or_skip(name: str) -> str:
    value = os.environ.get(name, "").strip()
    if not value:
        pytest.skip(f"{name} is not set")
    return value


def live(backend: SearchBackend) -> SearchOutcome:
    try:
        return search_outcome(backend, QUERY, limit=3)
    except RateLimitedError as exc:
        pytest.skip(f"{backend.name} rate-limited this machine: {exc}")


def assert_web_hits(hits: list[SearchHit], backend: str) -> None:
    assert hits, f"{backend} returned nothing for {QUERY!r}"
    assert all(h.url.startswith(("http://", "https://")) and h.backend == backend for h in hits)


def test_live_wikipedia() -> None:
    online_or_skip("en.wikipedia.org")
    outcome = live(WikipediaSearch())
    assert_web_hits(outcome.hits, "wikipedia")
    assert any("clock" in h.title.lower() for h in outcome.hits)
    assert all(h.url.startswith("https://en.wikipedia.org/wiki/") for h in outcome.hits)


def test_live_duckduckgo() -> None:
    pytest.importorskip("ddgs")
    online_or_skip("html.duckduckgo.com")
    from deepresearch.search.duckduckgo import DuckDuckGoSearch

    assert_web_hits(live(DuckDuckGoSearch()).hits, "duckduckgo")


def test_live_tavily() -> None:
    pytest.importorskip("tavily")
    online_or_skip("api.tavily.com")
    from deepresearch.search.tavily import TavilySearch

    outcome = live(TavilySearch(env_or_skip("TAVILY_API_KEY")))
    assert_web_hits(outcome.hits, "tavily")
    assert outcome.answer


def test_live_perplexity() -> None:
    key = env_or_skip("PERPLEXITY_API_KEY")
    online_or_skip("api.perplexity.ai")
    outcome = live(PerplexitySearch(key))
    assert_web_hits(outcome.hits, "perplexity")
    assert outcome.answer


def test_live_searxng() -> None:
    url = env_or_skip("SEARXNG_URL")
    parts = urlsplit(url)
    online_or_skip(parts.hostname or "localhost", parts.port or (443 if parts.scheme == "https" else 80))
    assert_web_hits(live(SearxngSearch(url)).hits, "searxng")


def assert_papers(hits: list[SearchHit], backend: str) -> None:
    assert_web_hits(hits, backend)
    assert any(h.authors and h.year for h in hits), f"{backend} hits carry no authors or year"


def test_live_arxiv() -> None:
    online_or_skip("export.arxiv.org")
    from deepresearch.search.arxiv import ArxivSearch

    assert_papers(live(ArxivSearch()).hits, "arxiv")


def test_live_semantic_scholar() -> None:
    online_or_skip("api.semanticscholar.org")
    from deepresearch.search.semantic_scholar import SemanticScholarSearch

    key = os.environ.get("SEMANTIC_SCHOLAR_API_KEY", "").strip()
    assert_papers(live(SemanticScholarSearch(key)).hits, "semantic_scholar")


def test_live_pubmed() -> None:
    online_or_skip("eutils.ncbi.nlm.nih.gov")
    from deepresearch.search.pubmed import PubMedSearch

    outcome = live(PubMedSearch(os.environ.get("NCBI_API_KEY", "").strip()))
    assert_papers(outcome.hits, "pubmed")
    assert all(h.url.startswith("https://pubmed.ncbi.nlm.nih.gov/") for h in outcome.hits)
