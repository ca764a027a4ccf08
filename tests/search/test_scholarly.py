"""arXiv, Semantic Scholar and PubMed against their recorded answers served on 127.0.0.1.

Where each answer comes from is in tests/fixtures/search/README.md. Hits keep the real services'
URLs; only the API address points at the local server.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch import research
from deepresearch.errors import SearchError
from deepresearch.llm.testing import ScriptedModel
from deepresearch.search.arxiv import ArxivSearch, search_expression
from deepresearch.search.factory import build_search
from deepresearch.search.pubmed import PubMedSearch
from deepresearch.search.ratelimit import RateLimitedError, Throttled
from deepresearch.search.registry import parse_order
from deepresearch.search.semantic_scholar import SemanticScholarSearch
from deepresearch.settings import Settings
from tests.search.replay import ReplayServer, Reply, fixture_text

EUTILS = "/entrez/eutils/"


def arxiv(replay: ReplayServer) -> ArxivSearch:
    return ArxivSearch(api_url=replay.url + "/api/query")


def scholar(replay: ReplayServer, key: str = "") -> SemanticScholarSearch:
    return SemanticScholarSearch(key, api_url=replay.url + "/graph/v1/paper/search")


def pubmed(replay: ReplayServer, key: str = "") -> PubMedSearch:
    return PubMedSearch(key, api_url=replay.url + EUTILS)


def test_arxiv_entry_becomes_an_abstract_with_authors_venue_and_year(replay: ReplayServer) -> None:
    replay.add(
        "/api/query",
        Reply(
            body=fixture_text("arxiv_checkerboard.xml"), content_type="application/atom+xml; charset=utf-8"
        ),
    )
    [only] = arxiv(replay).search("checkerboard order quenched disorder", limit=3)
    assert only.url == "http://arxiv.org/abs/cond-mat/0603029v1"
    assert only.title.startswith("From stripe to checkerboard order on the square lattice")
    assert only.content is not None and only.content.startswith("We discuss the effects of quenched disorder")
    assert only.authors == ("Adrian Del Maestro", "Bernd Rosenow", "Subir Sachdev")
    assert only.venue == "Phys. Rev. B 74, 024520 (2006)" and only.year == 2006
    assert only.backend == "arxiv"


def test_arxiv_request_ands_the_content_words(replay: ReplayServer) -> None:
    replay.add("/api/query", Reply(body=fixture_text("arxiv_checkerboard.xml")))
    arxiv(replay).search("What is checkerboard order?", limit=4)
    query = replay.requests[0].query
    assert query["search_query"] == ["all:checkerboard AND all:order"]
    assert query["max_results"] == ["4"] and query["sortBy"] == ["relevance"]
    assert search_expression("the of and") == ""


def test_arxiv_error_feed_and_garbage_are_search_errors(replay: ReplayServer) -> None:
    error = (
        '<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/api/errors#x</id>'
        "<title>Error</title><summary>incorrect id format for 1234.12345</summary></entry></feed>"
    )
    replay.add("/api/query", Reply(body=error), Reply(body="<html>busy</html>"), Reply(body="not xml"))
    for match in ("incorrect id format", "expected an Atom feed", "not an Atom feed"):
        with pytest.raises(SearchError, match=match):
            arxiv(replay).search("quantum dots")


def test_semantic_scholar_papers_carry_abstract_authors_venue_year(replay: ReplayServer) -> None:
    replay.add_fixture("/graph/v1/paper/search", "semantic_scholar_search_turing.json")
    hits = scholar(replay).search("turing", limit=4)
    first = hits[0]
    assert first.url == "https://www.semanticscholar.org/paper/7cbc2a7843411a1768ab762930707af0a3c33a19"
    assert first.title.startswith("Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B")
    assert first.content is not None and first.content.startswith(
        "Pretrained general-purpose language models"
    )
    assert first.authors[:2] == ("Shaden Smith", "M. Patwary") and first.venue == "arXiv.org"
    assert first.year == 2022
    no_abstract = hits[3]
    assert no_abstract.title == "The Church-Turing Thesis"
    assert no_abstract.content is None, "a paper without an abstract is read through the fetcher"
    assert no_abstract.year == 2021 and no_abstract.authors == ("Bernhard Reus",)


def test_semantic_scholar_request_and_optional_key(replay: ReplayServer) -> None:
    replay.add_fixture("/graph/v1/paper/search", "semantic_scholar_search_turing.json")
    scholar(replay).search("Turing-complete attention", limit=3)
    scholar(replay, key="s2-key").search("turing", limit=3)
    first, keyed = replay.requests
    assert first.query["query"] == ["Turing complete attention"] and first.query["limit"] == ["3"]
    assert "abstract" in first.query["fields"][0].split(",")
    assert "x-api-key" not in first.headers and keyed.headers["x-api-key"] == "s2-key"


def test_semantic_scholar_429_is_a_rate_limit(replay: ReplayServer) -> None:
    body = '{"message": "Too Many Requests", "code": "429"}'
    replay.add("/graph/v1/paper/search", Reply(status=429, body=body))
    with pytest.raises(RateLimitedError):
        scholar(replay).search("turing")


def test_pubmed_searches_then_fetches_abstracts(replay: ReplayServer) -> None:
    replay.add(
        EUTILS + "esearch.fcgi",
        Reply(body=fixture_text("pubmed_esearch_biopython.xml"), content_type="text/xml"),
    )
    replay.add(
        EUTILS + "efetch.fcgi",
        Reply(body=fixture_text("pubmed_efetch_two_articles.xml"), content_type="text/xml"),
    )
    hits = pubmed(replay).search("biopython", limit=2)
    search, fetch = replay.requests
    assert search.query["db"] == ["pubmed"] and search.query["term"] == ["biopython"]
    assert search.query["retmax"] == ["2"] and search.query["tool"] == ["deepresearch"]
    assert fetch.query["id"] == ["41282813,41148224"] and fetch.query["retmode"] == ["xml"]
    assert "api_key" not in search.query
    by_url = {hit.url: hit for hit in hits}
    article = by_url["https://pubmed.ncbi.nlm.nih.gov/9997/"]
    assert article.title.startswith("Magnetic studies of Chromatium flavocytochrome C552")
    assert article.content is not None and article.content.startswith("Electron paramagnetic resonance")
    assert article.authors == ("T C Strekas",) and article.venue == "Biochimica et biophysica acta"
    assert article.year == 1976
    no_abstract = by_url["https://pubmed.ncbi.nlm.nih.gov/12091962/"]
    assert no_abstract.content is None and no_abstract.year == 1990


def test_pubmed_key_is_sent_and_no_ids_means_no_fetch(replay: ReplayServer) -> None:
    empty = "<eSearchResult><Count>0</Count><RetMax>0</RetMax><RetStart>0</RetStart><IdList/></eSearchResult>"
    replay.add(EUTILS + "esearch.fcgi", Reply(body=empty))
    assert pubmed(replay, key="ncbi-key").search("nothing at all") == []
    [only] = replay.requests
    assert only.query["api_key"] == ["ncbi-key"]


def test_pubmed_error_answers_are_search_errors(replay: ReplayServer) -> None:
    refused = "<eSearchResult><ERROR>Invalid query</ERROR></eSearchResult>"
    replay.add(EUTILS + "esearch.fcgi", Reply(body=refused), Reply(status=500, body="oops"))
    with pytest.raises(SearchError, match="Invalid query"):
        pubmed(replay).search("x")
    with pytest.raises(SearchError, match="HTTP 500"):
        pubmed(replay).search("x")


@pytest.mark.parametrize(
    ("api", "extra", "interval"),
    [
        ("arxiv", {}, 3.0),
        ("semantic_scholar", {}, 1.0),
        ("semantic_scholar", {"semantic_scholar_api_key": "k"}, 1.0),
        ("pubmed", {}, 2 / 3),
        ("pubmed", {"ncbi_api_key": "k"}, 0.2),
    ],
)
def test_each_builds_paced_as_its_service_documents(
    tmp_path: Path, api: str, extra: dict[str, str], interval: float
) -> None:
    settings = Settings.load({"deepresearch_home": tmp_path, "search_api": api, **extra})
    backend = build_search(settings)
    assert isinstance(backend, Throttled) and backend.name == api
    assert backend.gate.interval == pytest.approx(interval) and backend.max_parallel == 1
    backend.close()


def test_scholarly_engines_may_stand_in_search_order() -> None:
    assert parse_order("arxiv, semantic_scholar,pubmed,wikipedia") == [
        "arxiv",
        "semantic_scholar",
        "pubmed",
        "wikipedia",
    ]


def test_a_run_on_arxiv_cites_the_abstract_and_names_its_authors(
    replay: ReplayServer, tmp_path: Path
) -> None:
    replay.add("/api/query", Reply(body=fixture_text("arxiv_checkerboard.xml")))
    result = research(
        "Does quenched disorder restore the rotational symmetry of checkerboard order?",
        settings=Settings.load({"deepresearch_home": tmp_path}),
        model=ScriptedModel(),
        search=arxiv(replay),
        max_web_research_loops=1,
    )
    references = result.report_markdown.split("## References", 1)[1]
    assert (
        "1. [From stripe to checkerboard order on the square lattice in the presence of quenched "
        "disorder](http://arxiv.org/abs/cond-mat/0603029v1) — Adrian Del Maestro, Bernd Rosenow, "
        "Subir Sachdev; Phys. Rev. B 74, 024520 (2006) · scholarly"
    ) in references
    [source] = result.sources
    assert source.authors == ["Adrian Del Maestro", "Bernd Rosenow", "Subir Sachdev"] and source.year == 2006
    assert source.kind == "scholarly"
    assert "random potential can lead to the formation of domains" in result.report_markdown
