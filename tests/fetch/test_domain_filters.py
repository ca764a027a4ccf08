"""SEARCH_INCLUDE_DOMAINS / SEARCH_EXCLUDE_DOMAINS: a hit of a domain left out is never fetched.

The listener is the fixture site on 127.0.0.1. ``localhost`` resolves to it here too, so one
server plays two domains; ``example.org`` cannot resolve on this machine, so a fetch of it would
end in a "could not read" notice: its absence shows that no fetch was tried.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch import research
from deepresearch.errors import ConfigurationError
from deepresearch.llm.testing import ScriptedModel
from deepresearch.result import ResearchResult
from deepresearch.search.base import SearchHit
from deepresearch.search.domains import DomainFilter
from deepresearch.search.testing import StaticSearch
from deepresearch.settings import Settings, request_settings

from .server import FixtureServer

QUESTION = "When was the Prague astronomical clock built?"


def _run(tmp_path: Path, hits: list[SearchHit], **overrides: object) -> ResearchResult:
    settings = Settings.load(
        {
            "deepresearch_home": tmp_path / "home",
            "fetch_allow_hosts": "127.0.0.1,localhost",
            "max_web_research_loops": 1,
            **overrides,
        }
    )
    return research(QUESTION, settings=settings, model=ScriptedModel(), search=StaticSearch(default=hits))


def _hit(url: str) -> SearchHit:
    return SearchHit(url=url, title="Orloj", snippet="A page about the clock in Prague.", backend="static")


def _routes(site: FixtureServer, *paths: str) -> None:
    for path in paths:
        site.routes[path] = site.routes["/article.html"]


def test_an_excluded_domain_is_never_fetched_and_the_rest_is_read(
    site: FixtureServer, tmp_path: Path
) -> None:
    _routes(site, "/excluded-a.html", "/kept-a.html")
    hits = [_hit(f"http://localhost:{site.port}/excluded-a.html"), _hit(site.url("/kept-a.html"))]
    result = _run(tmp_path, hits, search_exclude_domains="localhost")
    assert "/excluded-a.html" not in site.hits
    assert site.hits.get("/kept-a.html", 0) >= 1
    assert [s.url for s in result.sources] == [site.url("/kept-a.html")]
    assert any("left out" in n and "localhost" in n for n in result.notices)


def test_without_the_exclusion_the_same_hit_is_fetched(site: FixtureServer, tmp_path: Path) -> None:
    _routes(site, "/control.html")
    _run(tmp_path, [_hit(f"http://localhost:{site.port}/control.html")])
    assert site.hits.get("/control.html", 0) >= 1


def test_example_org_excluded_is_neither_fetched_nor_cited(site: FixtureServer, tmp_path: Path) -> None:
    _routes(site, "/kept-b.html")
    hits = [_hit("https://www.example.org/orloj"), _hit(site.url("/kept-b.html"))]
    unfiltered = _run(tmp_path / "all", hits)
    assert any("could not read https://www.example.org/orloj" in n for n in unfiltered.notices)
    result = _run(tmp_path / "filtered", hits, search_exclude_domains="example.org")
    assert not any("could not read" in n for n in result.notices), "example.org was never asked for"
    assert all("example.org" not in s.url for s in result.sources)
    assert "example.org" not in result.report_markdown.split("## References", 1)[1]


def test_include_domains_read_only_those(site: FixtureServer, tmp_path: Path) -> None:
    _routes(site, "/only-local.html", "/other-ip.html")
    hits = [_hit(f"http://localhost:{site.port}/only-local.html"), _hit(site.url("/other-ip.html"))]
    result = _run(tmp_path, hits, search_include_domains="localhost")
    assert "/other-ip.html" not in site.hits
    assert [s.url for s in result.sources] == [f"http://localhost:{site.port}/only-local.html"]


def test_domain_matching_covers_subdomains_only() -> None:
    rules = DomainFilter(exclude=("example.org",))
    assert not rules.allows("https://www.example.org/a") and not rules.allows("http://EXAMPLE.org./")
    assert rules.allows("https://badexample.org/") and rules.allows("local://doc-1")
    only = DomainFilter(include=("arxiv.org",), exclude=("export.arxiv.org",))
    assert only.allows("https://arxiv.org/abs/1") and not only.allows("https://export.arxiv.org/x")
    assert not only.allows("https://example.com/")


def test_a_request_may_narrow_the_lists_but_never_widen_them(tmp_path: Path) -> None:
    server = Settings.load(
        {
            "deepresearch_home": tmp_path,
            "search_exclude_domains": "example.org",
            "search_include_domains": "org",
        }
    )
    narrowed = request_settings(
        server, {"search_exclude_domains": "spam.org", "search_include_domains": "wiki.org"}
    )
    assert narrowed.exclude_domains() == ("example.org", "spam.org")
    assert narrowed.include_domains() == ("wiki.org",)
    assert request_settings(server, {"search_exclude_domains": ""}).exclude_domains() == ("example.org",)
    with pytest.raises(ConfigurationError, match="outside this server's SEARCH_INCLUDE_DOMAINS"):
        request_settings(server, {"search_include_domains": "example.com"})
    with pytest.raises(ConfigurationError, match="not a domain"):
        Settings.load({"search_exclude_domains": "two words"})
