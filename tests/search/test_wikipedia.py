"""Wikipedia backend against recorded MediaWiki search answers served on 127.0.0.1."""

from __future__ import annotations

import pytest

from deepresearch.errors import SearchError
from deepresearch.search.wikipedia import WikipediaSearch, article_url, clean_snippet, language_for
from tests.search.replay import ReplayServer, Reply


def backend(replay: ReplayServer, language: str | None = None) -> WikipediaSearch:
    return WikipediaSearch(api_url=replay.url + "/{lang}/w/api.php", language=language)


def test_recorded_answer_becomes_article_hits(replay: ReplayServer) -> None:
    replay.add_fixture("/en/w/api.php", "wikipedia_perito_moreno.json")
    hits = backend(replay).search("Perito Moreno", limit=3)
    assert [h.url for h in hits] == [
        "https://en.wikipedia.org/wiki/Perito_Moreno_Glacier",
        "https://en.wikipedia.org/wiki/Perito_Moreno",
        "https://en.wikipedia.org/wiki/Perito_Moreno,_Santa_Cruz",
    ]
    first = hits[0]
    assert first.title == "Perito Moreno Glacier"
    assert first.snippet.startswith("The Perito Moreno Glacier (Spanish: Glaciar Perito Moreno)")
    assert "<span" not in first.snippet
    assert first.backend == "wikipedia" and first.content is None and not first.is_fallback


def test_request_is_a_mediawiki_list_search(replay: ReplayServer) -> None:
    replay.add_fixture("/en/w/api.php", "wikipedia_perito_moreno.json")
    backend(replay).search("Perito Moreno", limit=4)
    query = replay.requests[0].query
    assert query["action"] == ["query"] and query["list"] == ["search"] and query["format"] == ["json"]
    assert query["srsearch"] == ["Perito Moreno"] and query["srlimit"] == ["4"]
    assert replay.requests[0].headers["user-agent"].startswith("deepresearch/")


def test_entities_and_markup_are_removed_from_snippets(replay: ReplayServer) -> None:
    replay.add_fixture("/en/w/api.php", "wikipedia_ertan_saban.json")
    [only] = backend(replay).search("ertan", limit=5)
    assert only.url == "https://en.wikipedia.org/wiki/Ertan_Saban"
    assert only.snippet.startswith("ethnic origin.)\"Ertan Saban: Allah'ın verdiği kalp")
    assert "&quot;" not in only.snippet


def test_query_script_picks_the_wiki(replay: ReplayServer) -> None:
    replay.add_fixture("/ja/w/api.php", "wikipedia_ja_gn125.json")
    hits = backend(replay).search("スズキ GN125 オートバイ", limit=2)
    assert replay.requests[0].path == "/ja/w/api.php"
    assert hits[0].url == "https://ja.wikipedia.org/wiki/%E3%82%B9%E3%82%BA%E3%82%AD%E3%83%BBGN"
    assert hits[0].title == "スズキ・GN"


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Perito Moreno glacier", "en"),
        ("Пражские куранты", "ru"),
        ("布拉格天文钟 建造", "zh"),
        ("スズキ GN125 オートバイ", "ja"),
        ("東京タワーの高さ", "ja"),
        ("서울 남산 타워", "ko"),
        ("Ακρόπολη Αθηνών", "el"),
        ("GN125 2024", "en"),
        ("Python 和 Rust", "en"),
    ],
)
def test_language_for_script(text: str, lang: str) -> None:
    assert language_for(text) == lang


def test_article_url_encoding() -> None:
    assert article_url("C++ (programming language)", "en") == (
        "https://en.wikipedia.org/wiki/C%2B%2B_(programming_language)"
    )
    assert clean_snippet('a <span class="searchmatch">b</span> &amp; c') == "a b & c"


def test_long_queries_are_cut_to_300_characters(replay: ReplayServer) -> None:
    replay.add_fixture("/en/w/api.php", "wikipedia_perito_moreno.json")
    outcome = backend(replay, "en").search_detailed("glacier " * 60, limit=1)
    sent = replay.requests[0].query["srsearch"][0]
    assert len(sent) <= 300 and sent.endswith("glacier")
    assert outcome.notices and "wikipedia" in outcome.notices[0]


def test_api_error_object_is_a_search_error(replay: ReplayServer) -> None:
    error = '{"error": {"code": "missingparam", "info": "The \\"srsearch\\" parameter must be set."}}'
    replay.add("/en/w/api.php", Reply(body=error))
    with pytest.raises(SearchError, match="missingparam"):
        backend(replay, "en").search("x")


@pytest.mark.parametrize(
    "reply",
    [Reply(status=503, body="<html>Wikimedia Error</html>"), Reply(body="not json"), Reply(body="[]")],
)
def test_failures_become_search_errors(replay: ReplayServer, reply: Reply) -> None:
    replay.add("/en/w/api.php", reply)
    with pytest.raises(SearchError, match="wikipedia"):
        backend(replay, "en").search("x")


def test_unreachable_server_is_a_search_error() -> None:
    wiki = WikipediaSearch(api_url="http://127.0.0.1:9/w/api.php", timeout=2)
    with pytest.raises(SearchError, match="wikipedia: request to"):
        wiki.search("x")
