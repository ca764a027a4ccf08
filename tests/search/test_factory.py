"""SEARCH_API wiring: every engine builds, missing settings name their variable, hybrid skips."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.errors import ConfigurationError, SearchError
from deepresearch.search.chain import SearchChain, build_chain
from deepresearch.search.factory import build_search
from deepresearch.search.ratelimit import Throttled
from deepresearch.search.registry import BACKENDS, parse_order
from deepresearch.settings import Settings

KEYS = ("TAVILY_API_KEY", "PERPLEXITY_API_KEY", "SEARXNG_URL", "SEARCH_ORDER")


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)


def load(tmp_path: Path, **overrides: object) -> Settings:
    return Settings.load({"deepresearch_home": tmp_path / "home", **overrides})


@pytest.mark.parametrize(
    ("api", "extra", "engine"),
    [
        ("wikipedia", {}, "WikipediaSearch"),
        ("duckduckgo", {}, "DuckDuckGoSearch"),
        ("searxng", {"searxng_url": "http://127.0.0.1:8888"}, "SearxngSearch"),
        ("tavily", {"tavily_api_key": "tvly-test"}, "TavilySearch"),
        ("perplexity", {"perplexity_api_key": "pplx-test"}, "PerplexitySearch"),
    ],
)
def test_each_web_engine_builds_behind_a_rate_limiter(
    tmp_path: Path, api: str, extra: dict[str, str], engine: str
) -> None:
    if api in ("duckduckgo", "tavily"):
        pytest.importorskip({"duckduckgo": "ddgs", "tavily": "tavily"}[api])
    settings = load(tmp_path, search_api=api, search_min_interval_seconds=0.25, search_max_retries=5, **extra)
    backend = build_search(settings)
    assert isinstance(backend, Throttled) and backend.name == api
    assert type(backend.backend).__name__ == engine
    assert backend.gate.interval == 0.25 and backend.policy.max_retries == 5
    backend.close()


@pytest.mark.parametrize(
    ("api", "variable"),
    [("tavily", "TAVILY_API_KEY"), ("perplexity", "PERPLEXITY_API_KEY"), ("searxng", "SEARXNG_URL")],
)
def test_missing_key_or_url_names_the_variable(tmp_path: Path, api: str, variable: str) -> None:
    with pytest.raises(ConfigurationError, match=variable):
        build_search(load(tmp_path, search_api=api))


def test_keys_come_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERPLEXITY_API_KEY", "pplx-from-env")
    backend = build_search(load(tmp_path, search_api="perplexity"))
    assert backend.name == "perplexity"
    backend.close()


def test_unknown_api_lists_the_choices(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="hybrid") as caught:
        build_search(load(tmp_path, search_api="bing"))
    assert all(name in str(caught.value) for name in BACKENDS.names())


def test_hybrid_skips_engines_without_keys_and_says_so(tmp_path: Path) -> None:
    notices: list[str] = []
    settings = load(tmp_path, search_api="hybrid", search_order="tavily, searxng, wikipedia")
    backend = build_search(settings, notice=notices.append)
    assert isinstance(backend, SearchChain) and backend.order == ["wikipedia"]
    assert any("tavily" in n and "TAVILY_API_KEY" in n for n in notices)
    assert any("searxng" in n and "SEARXNG_URL" in n for n in notices)
    assert notices[-1] == "hybrid search order: wikipedia"
    backend.close()


def test_hybrid_default_order_with_every_key(tmp_path: Path) -> None:
    pytest.importorskip("tavily")
    pytest.importorskip("ddgs")
    settings = load(
        tmp_path, search_api="hybrid", tavily_api_key="tvly-x", searxng_url="http://127.0.0.1:8888"
    )
    chain = build_chain(settings)
    assert chain.order == ["tavily", "duckduckgo", "searxng", "wikipedia"]
    chain.close()


def test_hybrid_can_include_the_local_index_and_notes(tmp_path: Path) -> None:
    chain = build_chain(load(tmp_path, search_api="hybrid", search_order="wikipedia,local,notes"))
    assert chain.order == ["wikipedia", "local", "notes"]
    assert chain.backends[1].search("Prague", limit=1)
    chain.close()
    with pytest.raises(SearchError):
        chain.backends[1].search("Prague", limit=1)


def test_hybrid_with_no_usable_engine_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="no usable engine"):
        build_search(load(tmp_path, search_api="hybrid", search_order="tavily,perplexity"))


@pytest.mark.parametrize("order", ["tavily,bing", "", " , "])
def test_bad_order_is_a_configuration_error(order: str) -> None:
    with pytest.raises(ConfigurationError, match="SEARCH_ORDER"):
        parse_order(order)


def test_order_is_normalised_and_deduplicated() -> None:
    assert parse_order(" Wikipedia,tavily ,wikipedia") == ["wikipedia", "tavily"]


@pytest.mark.parametrize(
    ("api", "extra", "interval", "parallel"),
    [
        ("searxng", {"searxng_url": "http://127.0.0.1:8888"}, 0.0, None),
        ("perplexity", {"perplexity_api_key": "pplx-test"}, 0.0, None),
        ("wikipedia", {}, 0.0, 1),
        ("duckduckgo", {}, 1.0, None),
    ],
)
def test_each_engine_is_paced_as_it_asks_unless_the_operator_sets_an_interval(
    tmp_path: Path, api: str, extra: dict[str, str], interval: float, parallel: int | None
) -> None:
    if api == "duckduckgo":
        pytest.importorskip("ddgs")
    backend = build_search(load(tmp_path, search_api=api, **extra))
    assert isinstance(backend, Throttled)
    assert (backend.gate.interval, backend.max_parallel) == (interval, parallel)
    backend.close()
    chosen = build_search(load(tmp_path, search_api=api, search_min_interval_seconds=2.5, **extra))
    assert isinstance(chosen, Throttled) and chosen.gate.interval == 2.5
    chosen.close()
