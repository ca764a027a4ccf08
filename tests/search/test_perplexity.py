"""Perplexity backend against recorded Sonar chat-completion answers served on 127.0.0.1."""

from __future__ import annotations

import pytest

from deepresearch.errors import SearchError
from deepresearch.search.perplexity import PerplexitySearch
from deepresearch.search.ratelimit import RateLimitedError
from tests.search.replay import ReplayServer, Reply


def backend(replay: ReplayServer) -> PerplexitySearch:
    return PerplexitySearch("pplx-test-key", base_url=replay.url)


def test_search_results_become_hits_and_the_reply_is_the_answer(replay: ReplayServer) -> None:
    replay.add_fixture("/chat/completions", "perplexity_sonar_atp.json")
    outcome = backend(replay).search_detailed("top 10 men's tennis players", limit=3)
    assert [(h.url, h.title) for h in outcome.hits] == [
        ("https://www.espn.com/tennis/rankings", "Men's Tennis ATP Rankings 2025"),
        (
            "https://en.wikipedia.org/wiki/List_of_ATP_number_1_ranked_singles_tennis_players",
            "List of ATP number 1 ranked singles tennis players - Wikipedia",
        ),
        ("https://www.tntsports.co.uk/tennis/atp/standings.shtml", "ATP 2025 World Ranking - Tennis"),
    ]
    assert all(h.backend == "perplexity" and h.content is None for h in outcome.hits)
    assert outcome.answer is not None and outcome.answer.startswith("The current top 10 men's tennis players")
    assert all("Jannik Sinner" not in h.snippet for h in outcome.hits)


def test_bare_citations_become_hits_titled_by_their_url(replay: ReplayServer) -> None:
    replay.add_fixture("/chat/completions", "perplexity_sonar_stars.json")
    outcome = backend(replay).search_detailed("How many stars are there in our galaxy?", limit=10)
    assert [h.url for h in outcome.hits] == [
        "https://imagine.gsfc.nasa.gov/science/objects/milkyway1.html",
        "https://www.esa.int/Science_Exploration/Space_Science/Herschel/How_many_stars_are_there_in_the_Universe",
        "https://www.space.com/25959-how-many-stars-are-in-the-milky-way.html",
        "https://www.youtube.com/watch?v=Py2nZYmvTKg",
        "https://bigthink.com/starts-with-a-bang/overestimated-stars-in-universe/",
    ]
    assert all(h.title == h.url and h.snippet == "" for h in outcome.hits)
    assert outcome.answer is not None and "100 billion and 400 billion stars" in outcome.answer
    assert outcome.messages()[-1].startswith(
        "perplexity's own answer (the engine's words, not a cited source)"
    )


def test_request_is_a_sonar_chat_completion(replay: ReplayServer) -> None:
    replay.add_fixture("/chat/completions", "perplexity_sonar_stars.json")
    backend(replay).search("How many stars are there in our galaxy?", limit=2)
    seen = replay.requests[0]
    assert seen.method == "POST" and seen.headers["authorization"] == "Bearer pplx-test-key"
    body = seen.json()
    assert body["model"] == "sonar"
    assert body["messages"][-1] == {"role": "user", "content": "How many stars are there in our galaxy?"}


def test_429_is_a_rate_limit_with_its_retry_after(replay: ReplayServer) -> None:
    replay.add(
        "/chat/completions", Reply(status=429, body='{"error": "rate limited"}', headers={"Retry-After": "4"})
    )
    with pytest.raises(RateLimitedError) as caught:
        backend(replay).search("q")
    assert caught.value.retry_after == 4.0


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(status=401, body='{"error": {"message": "Invalid API key"}}'), "HTTP 401"),
        (Reply(body='{"results": []}'), "no 'choices'"),
        (Reply(body="<html>gateway</html>", content_type="text/html"), "not JSON"),
    ],
)
def test_failures_are_search_errors(replay: ReplayServer, reply: Reply, message: str) -> None:
    replay.add("/chat/completions", reply)
    with pytest.raises(SearchError, match=message):
        backend(replay).search("q")
