"""SearXNG backend against a recorded JSON answer served on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from deepresearch.errors import SearchError
from deepresearch.search.searxng import SearxngSearch, parse_results
from tests.search.replay import ReplayServer, Reply, fixture_json


def test_recorded_answer_becomes_hits(replay: ReplayServer) -> None:
    replay.add_fixture("/search", "searxng_startpage_climate_tech.json")
    [only] = SearxngSearch(replay.url + "/").search("climate tech", limit=5)
    assert only.url == "https://www.nasdaq.com/solutions/listings/resources/blogs/what-is-climate-tech"
    assert only.title == "What is Climate Tech? | Nasdaq"
    assert only.snippet.startswith("Climate tech refers to technologies")
    assert only.backend == "searxng" and only.score == 1.0


def test_request_asks_for_json(replay: ReplayServer) -> None:
    replay.add_fixture("/search", "searxng_startpage_climate_tech.json")
    SearxngSearch(replay.url, language="en").search("climate tech")
    query = replay.requests[0].query
    assert query == {"q": ["climate tech"], "format": ["json"], "language": ["en"]}


def test_result_objects_from_other_engines_parse_the_same() -> None:
    recorded = fixture_json("searxng_startpage_climate_tech.json")
    google = fixture_json("searxng_google_result.json")
    data = {**recorded, "results": [*recorded["results"], google, {"title": "no url"}]}
    hits = parse_results(data, limit=5)
    assert [h.url for h in hits][-1] == "https://www.spectroscopyonline.com/view/why-sky-blue"
    assert len(hits) == 2 and parse_results(data, limit=1) == hits[:1]


def test_403_says_how_to_enable_json(replay: ReplayServer) -> None:
    replay.add("/search", Reply(status=403, body="<html>Forbidden</html>", content_type="text/html"))
    with pytest.raises(SearchError, match=r"search.formats: \[html, json\]"):
        SearxngSearch(replay.url).search("q")


def test_nothing_but_unresponsive_engines_is_an_error(replay: ReplayServer) -> None:
    body = {**fixture_json("searxng_startpage_climate_tech.json"), "results": []}
    body["unresponsive_engines"] = [["duckduckgo", "CAPTCHA"], ["brave", "too many requests"]]
    replay.add("/search", Reply(body=json.dumps(body)))
    with pytest.raises(SearchError, match="CAPTCHA"):
        SearxngSearch(replay.url).search("q")


def test_nothing_at_all_is_an_empty_result(replay: ReplayServer) -> None:
    body = {**fixture_json("searxng_startpage_climate_tech.json"), "results": []}
    replay.add("/search", Reply(body=json.dumps(body)))
    assert SearxngSearch(replay.url).search("q") == []


def test_html_instead_of_json_is_an_error(replay: ReplayServer) -> None:
    replay.add("/search", Reply(body="<!DOCTYPE html><html>results</html>", content_type="text/html"))
    with pytest.raises(SearchError, match="not JSON"):
        SearxngSearch(replay.url).search("q")
