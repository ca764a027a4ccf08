"""The hybrid chain: order, fallback notices, is_fallback flags, merging, and the research loop's view."""

from __future__ import annotations

import json

import pytest

from deepresearch import research
from deepresearch.errors import SearchError
from deepresearch.llm.testing import ScriptedModel
from deepresearch.search.base import SearchBackend, SearchHit, SearchOutcome
from deepresearch.search.chain import SearchChain, merge_duplicates
from deepresearch.search.pages import search_outcome
from deepresearch.search.searxng import SearxngSearch
from deepresearch.search.testing import StaticSearch, hit
from deepresearch.search.wikipedia import WikipediaSearch
from deepresearch.settings import Settings
from tests.search.replay import ReplayServer, Reply


class Named(StaticSearch):
    """A StaticSearch with its own engine name."""

    def __init__(self, name: str, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.name = name


class Answering(SearchBackend):
    """An engine with its own answer, like Tavily."""

    name = "answering"

    def search(self, query: str, *, limit: int = 5) -> list[SearchHit]:
        return self.search_detailed(query, limit=limit).hits

    def search_detailed(self, query: str, *, limit: int = 5) -> SearchOutcome:
        hits = [hit("https://example.org/answer", "Answer page", "text")]
        return SearchOutcome(hits=hits, answer="The engine says 42.", answer_backend=self.name)


PAGE = hit("https://example.org/page", "Page", "page text")


def failing(name: str) -> Named:
    return Named(name, fail_on=["q"])


def test_first_engine_with_hits_wins_and_is_not_a_fallback() -> None:
    first, second = Named("tavily", default=[PAGE]), Named("duckduckgo", default=[PAGE])
    outcome = SearchChain([first, second]).search_detailed("q", limit=5)
    assert [h.is_fallback for h in outcome.hits] == [False]
    assert outcome.notices == [] and second.queries == []


def test_each_fallback_is_a_notice_and_fallback_hits_are_flagged() -> None:
    chain = SearchChain([failing("tavily"), Named("duckduckgo"), Named("wikipedia", default=[PAGE])])
    outcome = chain.search_detailed("q", limit=5)
    assert [h.is_fallback for h in outcome.hits] == [True]
    assert outcome.notices == [
        "tavily failed for 'q' (scripted failure for 'q'); fell back to duckduckgo",
        "duckduckgo failed for 'q' (no results); fell back to wikipedia",
    ]


def test_engines_are_tried_in_the_configured_order() -> None:
    engines = [failing("searxng"), failing("tavily"), Named("wikipedia", default=[PAGE])]
    chain = SearchChain(engines)
    chain.search("q")
    assert chain.order == ["searxng", "tavily", "wikipedia"]
    assert [len(e.queries) for e in engines] == [1, 1, 1]


def test_every_engine_failing_is_one_error_naming_each() -> None:
    chain = SearchChain([failing("tavily"), failing("wikipedia")])
    with pytest.raises(SearchError, match="every engine failed for 'q'") as caught:
        chain.search("q")
    assert "tavily: scripted failure" in str(caught.value) and "wikipedia: scripted failure" in str(
        caught.value
    )


def test_every_engine_finding_nothing_is_an_empty_result() -> None:
    assert SearchChain([Named("a"), Named("b")]).search_detailed("q") == SearchOutcome(hits=[])


def test_the_answering_engines_answer_travels_through_the_chain() -> None:
    outcome = search_outcome(SearchChain([failing("duckduckgo"), Answering()]), "q", limit=3)
    assert outcome.answer == "The engine says 42." and outcome.answer_backend == "answering"
    assert outcome.hits[0].is_fallback
    assert outcome.messages()[-1].startswith(
        "answering's own answer (the engine's words, not a cited source)"
    )


def test_duplicates_by_normalised_url_are_merged() -> None:
    hits = [
        SearchHit(url="https://Example.org/a/?utm_source=x", title="A", snippet="s"),
        SearchHit(url="https://example.org/a#top", title="A again", content="full text"),
        SearchHit(url="https://example.org/b", title="B"),
    ]
    merged = merge_duplicates(hits)
    assert [h.title for h in merged] == ["A", "B"]
    assert merged[0].content == "full text"
    chain = SearchChain([Named("x", default=hits)])
    assert len(chain.search("q", limit=5)) == 2


def test_limit_applies_after_merging() -> None:
    many = [hit(f"https://example.org/{i}", str(i), "t") for i in range(8)]
    assert len(SearchChain([Named("x", default=many)]).search("q", limit=3)) == 3


def test_real_engines_fall_back_over_http(replay: ReplayServer) -> None:
    replay.add(
        "/search", Reply(status=503, body="<html>Service Unavailable</html>", content_type="text/html")
    )
    replay.add_fixture("/w/api.php", "wikipedia_perito_moreno.json")
    chain = SearchChain([SearxngSearch(replay.url), WikipediaSearch(api_url=replay.url + "/w/api.php")])
    outcome = chain.search_detailed("Perito Moreno", limit=2)
    assert [h.url for h in outcome.hits] == [
        "https://en.wikipedia.org/wiki/Perito_Moreno_Glacier",
        "https://en.wikipedia.org/wiki/Perito_Moreno",
    ]
    assert all(h.is_fallback and h.backend == "wikipedia" for h in outcome.hits)
    assert len(outcome.notices) == 1 and outcome.notices[0].startswith(
        "searxng failed for 'Perito Moreno' (searxng: HTTP 503"
    )
    assert outcome.notices[0].endswith("fell back to wikipedia")


def test_the_research_loop_shows_fallbacks_and_keeps_the_flag(settings: Settings) -> None:
    plan = json.dumps({"tasks": [{"title": "Clock", "intent": "find when", "query": "clock built"}]})
    source = hit(
        "https://example.org/clock", "Prague clock", "The Prague astronomical clock was built in 1410."
    )
    chain = SearchChain([Named("tavily", fail_on=["clock built"]), Named("wikipedia", default=[source])])
    result = research(
        "When was the Prague astronomical clock built?",
        settings=settings,
        model=ScriptedModel({"plan": plan}),
        search=chain,
        fetch_full_page=False,
        max_web_research_loops=1,
    )
    assert any(
        "tavily failed for 'clock built'" in n and "fell back to wikipedia" in n for n in result.notices
    )
    assert result.sources and all(s.is_fallback for s in result.sources)


def test_closing_a_chain_closes_every_engine_and_a_plain_backend_closes_as_a_no_op() -> None:
    closed: list[str] = []

    class Closing(StaticSearch):
        def close(self) -> None:
            closed.append(self.name)

    first, second = Closing(), Closing()
    second.name = "second"
    SearchChain([first, second]).close()
    assert closed == ["static", "second"]
    StaticSearch().close()


def test_a_backend_must_implement_search_or_search_detailed() -> None:
    with pytest.raises(TypeError, match="Nothing must implement search"):

        class Nothing(SearchBackend):
            name = "nothing"

    class OnlyDetailed(SearchBackend):
        name = "detailed"

        def search_detailed(self, query: str, *, limit: int = 5) -> SearchOutcome:
            return SearchOutcome(hits=[PAGE], notices=["a notice"])

    assert OnlyDetailed().search("q") == [PAGE]
    assert StaticSearch(default=[PAGE]).search_detailed("q") == SearchOutcome(hits=[PAGE])
