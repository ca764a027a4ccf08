"""DuckDuckGo backend: our adapter around a DDGS-like client with ddgs' documented result shape.

ddgs scrapes HTML pages, which cannot be recorded here; the double returns the result list that
ddgs' README documents and raises ddgs' own exceptions.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from deepresearch.errors import SearchError
from deepresearch.retry import IntervalGate, RetryPolicy
from deepresearch.search.duckduckgo import DuckDuckGoSearch, is_rate_limit
from deepresearch.search.ratelimit import RateLimitedError, Throttled
from tests.search.replay import fixture_json

exceptions = pytest.importorskip("ddgs.exceptions")

README_RESULTS: list[dict[str, str]] = fixture_json("ddgs_text_readme.json")
RATELIMIT_202 = "https://html.duckduckgo.com/html 202 Ratelimit"


class FakeDDGS:
    """Answers ``text()`` from a script of results or exceptions; records every call."""

    def __init__(self, *script: list[dict[str, Any]] | Exception) -> None:
        self.script = list(script)
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        self.calls.append((query, kwargs))
        step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if isinstance(step, Exception):
            raise step
        return step


def test_results_become_hits() -> None:
    client = FakeDDGS(README_RESULTS)
    [only] = DuckDuckGoSearch(client=client).search("live free or die", limit=5)
    assert only.url == "https://www.thesun.co.uk/"
    assert only.title == "News, sport, celebrities and gossip | The Sun"
    assert only.snippet.startswith("Get the latest news, exclusives")
    assert only.backend == "duckduckgo" and only.content is None
    query, kwargs = client.calls[0]
    assert query == "live free or die" and kwargs["max_results"] == 5 and kwargs["backend"] == "auto"


def test_duplicates_and_non_web_links_are_dropped_and_limit_holds() -> None:
    doubled = [*README_RESULTS, *README_RESULTS, {"title": "x", "href": "javascript:void(0)", "body": ""}]
    client = FakeDDGS(doubled)
    assert len(DuckDuckGoSearch(client=client).search("q", limit=5)) == 1


def test_202_ratelimit_is_a_rate_limit() -> None:
    client = FakeDDGS(exceptions.RatelimitException(RATELIMIT_202))
    with pytest.raises(RateLimitedError, match="202 Ratelimit"):
        DuckDuckGoSearch(client=client).search("q")


def test_a_ratelimit_message_in_a_generic_ddgs_error_is_a_rate_limit() -> None:
    client = FakeDDGS(exceptions.DDGSException(RATELIMIT_202))
    with pytest.raises(RateLimitedError):
        DuckDuckGoSearch(client=client).search("q")


def test_no_results_found_is_an_empty_result() -> None:
    client = FakeDDGS(exceptions.DDGSException("No results found."))
    assert DuckDuckGoSearch(client=client).search("q") == []


def test_other_ddgs_errors_are_search_errors() -> None:
    client = FakeDDGS(exceptions.TimeoutException("https://html.duckduckgo.com/html timed out"))
    with pytest.raises(SearchError, match="timed out"):
        DuckDuckGoSearch(client=client).search("q")


def test_202_then_results_is_retried_with_backoff() -> None:
    client = FakeDDGS(exceptions.RatelimitException(RATELIMIT_202), README_RESULTS)
    slept: list[float] = []
    backend = Throttled(
        DuckDuckGoSearch(client=client),
        gate=IntervalGate(0.0, sleep=slept.append),
        policy=RetryPolicy(max_retries=2, base_delay=0.5),
        sleep=slept.append,
        rng=random.Random(3),
    )
    outcome = backend.search_detailed("q", limit=5)
    assert [h.url for h in outcome.hits] == ["https://www.thesun.co.uk/"]
    assert len(client.calls) == 2 and len(slept) == 1 and 0.5 <= slept[0] <= 0.625
    assert "duckduckgo rate-limited the search" in outcome.notices[0]


def test_long_queries_are_cut() -> None:
    client = FakeDDGS(README_RESULTS)
    outcome = DuckDuckGoSearch(client=client).search_detailed("word " * 200)
    assert len(client.calls[0][0]) <= 500 and outcome.notices


@pytest.mark.parametrize(
    ("message", "expected"),
    [(RATELIMIT_202, True), ("HTTP 429 Too Many Requests", True), ("No results found.", False)],
)
def test_is_rate_limit(message: str, expected: bool) -> None:
    assert is_rate_limit(exceptions.DDGSException(message)) is expected
