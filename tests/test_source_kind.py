"""Kinds of sources, from URL and metadata alone (the rules of deepresearch.sourcekind)."""

from __future__ import annotations

import pytest

from deepresearch.answers.ground import ground_answer
from deepresearch.citations import Source
from deepresearch.sourcekind import KIND_ORDER, kind_rank, source_kind


@pytest.mark.parametrize(
    ("url", "backend", "kind"),
    [
        ("http://arxiv.org/abs/2101.00001v1", "arxiv", "scholarly"),
        ("https://example.org/paper", "semantic_scholar", "scholarly"),
        ("https://doi.org/10.1000/xyz", "searxng", "scholarly"),
        ("https://www.nature.com/articles/x", "duckduckgo", "scholarly"),
        ("https://de.wikipedia.org/wiki/Gletscher", "wikipedia", "reference"),
        ("https://plato.stanford.edu/entries/ice/", "tavily", "reference"),
        ("https://www.bbc.co.uk/news/science-1", "tavily", "news"),
        ("https://news.example.com/ice", "tavily", "news"),
        ("https://news.ycombinator.com/item?id=1", "tavily", "forum"),
        ("https://cooking.stackexchange.com/q/1", "tavily", "forum"),
        ("https://forum.example.com/t/ice/3", "tavily", "forum"),
        ("https://github.com/org/repo/issues/12", "tavily", "forum"),
        ("https://github.com/org/repo", "tavily", "unknown"),
        ("https://www.foreign-review.example/issues/2020", "tavily", "unknown"),
        ("doc://passage-7", "local", "unknown"),
    ],
)
def test_kind_from_url_and_backend(url: str, backend: str, kind: str) -> None:
    assert source_kind(url, backend) == kind


def test_publication_metadata_makes_a_page_scholarly() -> None:
    assert (
        source_kind("https://lab.example.edu/p.pdf", "tavily", authors=["A. Ruiz"], year=2020) == "scholarly"
    )
    assert source_kind("https://lab.example.edu/p.pdf", "tavily", authors=["A. Ruiz"]) == "unknown"


def test_order_puts_forums_last() -> None:
    assert KIND_ORDER[0] == "scholarly" and KIND_ORDER[-1] == "forum"
    assert kind_rank("reference") < kind_rank("news") < kind_rank("unknown") < kind_rank("forum")
    assert kind_rank("nonsense") == kind_rank("unknown")


def test_when_two_sources_disagree_equally_the_more_credible_one_is_stated() -> None:
    forum = Source(
        id=1, url="https://forum.example.com/t/9", title="Mill Hollow thread", content=MILL.format(year=1788)
    )
    paper = Source(
        id=2,
        url="https://doi.org/10.1000/mill",
        title="Mill Hollow survey",
        content=MILL.format(year=1791),
    )
    for order in ([forum, paper], [paper, forum]):
        answer = ground_answer("When was the Mill Hollow water mill built?", order)
        assert answer.text == "1791" and answer.source_id == 2, order


def test_a_better_supported_answer_wins_whatever_its_source() -> None:
    forum = Source(
        id=1,
        url="https://forum.example.com/t/9",
        title="Mill Hollow water mill",
        content="The Mill Hollow water mill was built in 1788 by the Avery family.",
    )
    paper = Source(
        id=2, url="https://doi.org/10.1000/x", title="Survey", content="Some mill dates from 1791."
    )
    assert ground_answer("When was the Mill Hollow water mill built?", [paper, forum]).text == "1788"


MILL = "The Mill Hollow water mill was built in {year}."
