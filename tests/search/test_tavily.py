"""Tavily backend: the real tavily-python client against recorded answers on 127.0.0.1."""

from __future__ import annotations

import pytest

from deepresearch.errors import SearchError
from deepresearch.search.pages import search_outcome
from deepresearch.search.ratelimit import RateLimitedError
from tests.search.replay import ReplayServer, Reply

pytest.importorskip("tavily")

from deepresearch.search.tavily import TavilySearch


def backend(replay: ReplayServer) -> TavilySearch:
    return TavilySearch("tvly-test-key", base_url=replay.url)


def test_results_become_hits_and_the_answer_is_kept_apart(replay: ReplayServer) -> None:
    replay.add_fixture("/search", "tavily_search_messi.json")
    outcome = backend(replay).search_detailed("Who is Leo Messi?", limit=5)
    [only] = outcome.hits
    assert only.url == "https://www.britannica.com/facts/Lionel-Messi"
    assert only.title == "Lionel Messi Facts | Britannica"
    assert only.snippet.startswith("Lionel Messi, an Argentine footballer")
    assert only.score == pytest.approx(0.81025416)
    assert only.content is None and only.backend == "tavily" and not only.is_fallback
    assert outcome.answer is not None and outcome.answer.startswith("Lionel Messi, born in 1987")
    assert outcome.answer_backend == "tavily"
    assert all(outcome.answer not in (h.snippet, h.title, h.url) for h in outcome.hits)


def test_the_answer_is_shown_labelled_not_as_a_source(replay: ReplayServer) -> None:
    replay.add_fixture("/search", "tavily_search_messi.json")
    messages = search_outcome(backend(replay), "Who is Leo Messi?", limit=5).messages()
    assert len(messages) == 1
    assert messages[0].startswith("tavily's own answer (the engine's words, not a cited source): Lionel")


def test_no_answer_means_no_message(replay: ReplayServer) -> None:
    replay.add_fixture("/search", "tavily_search_what_is_tavily.json")
    outcome = backend(replay).search_detailed("What is Tavily?", limit=5)
    assert [h.url for h in outcome.hits] == ["https://tavily.com"]
    assert outcome.answer is None and outcome.messages() == []


def test_request_carries_key_limit_and_answer_flag(replay: ReplayServer) -> None:
    replay.add_fixture("/search", "tavily_search_what_is_tavily.json")
    backend(replay).search("What is Tavily?", limit=3)
    seen = replay.requests[0]
    assert seen.method == "POST" and seen.headers["authorization"] == "Bearer tvly-test-key"
    body = seen.json()
    assert body["query"] == "What is Tavily?" and body["max_results"] == 3
    assert body["include_answer"] is True and body["search_depth"] == "basic"


def test_queries_over_400_characters_are_cut_on_a_word_boundary(replay: ReplayServer) -> None:
    replay.add_fixture("/search", "tavily_search_what_is_tavily.json")
    long_query = "history of the astronomical clock in Prague and its makers " * 10
    outcome = backend(replay).search_detailed(long_query, limit=1)
    sent = replay.requests[0].json()["query"]
    assert len(sent) <= 400 and long_query.startswith(sent) and not sent.endswith(" ")
    assert long_query[len(sent)] == " "
    assert outcome.notices == [
        f"tavily: query shortened to {len(sent)} of {len(long_query)} characters (tavily limit)"
    ]


def test_429_is_a_rate_limit(replay: ReplayServer) -> None:
    replay.add_fixture("/search", "tavily_rate_limit.json", status=429, headers={"Retry-After": "7"})
    with pytest.raises(RateLimitedError, match="rate limit"):
        backend(replay).search("What is Tavily?")


def test_refused_key_names_the_setting(replay: ReplayServer) -> None:
    replay.add(
        "/search",
        Reply(status=401, body='{"detail": {"error": "Unauthorized: missing or invalid API key."}}'),
    )
    with pytest.raises(SearchError, match="TAVILY_API_KEY"):
        backend(replay).search("What is Tavily?")


@pytest.mark.parametrize("status", [432, 500])
def test_other_failures_are_search_errors(replay: ReplayServer, status: int) -> None:
    replay.add("/search", Reply(status=status, body='{"detail": {"error": "nope"}}'))
    with pytest.raises(SearchError, match="tavily"):
        backend(replay).search("What is Tavily?")


def test_unreachable_api_is_a_search_error() -> None:
    with pytest.raises(SearchError, match="tavily"):
        TavilySearch("tvly-test-key", base_url="http://127.0.0.1:9").search("x")
