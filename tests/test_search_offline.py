"""A run whose every search fails (an offline machine) fails with the search's error; it does not
complete with an empty report and a wall of notices."""

from __future__ import annotations

import pytest

from deepresearch import research, research_stream
from deepresearch.errors import SearchError
from deepresearch.llm.testing import ScriptedModel
from deepresearch.search.base import SearchHit
from deepresearch.search.testing import StaticSearch
from deepresearch.settings import Settings

from .conftest import QUESTION

DNS = "[Errno -3] Temporary failure in name resolution"


def offline(query: str) -> list[SearchHit]:
    raise SearchError(f"duckduckgo: {DNS}")


def test_every_search_failing_fails_the_run_with_the_cause(settings: Settings) -> None:
    search = StaticSearch(default=offline)
    with pytest.raises(SearchError) as raised:
        research(QUESTION, settings=settings, model=ScriptedModel(), search=search, max_web_research_loops=2)
    message = str(raised.value)
    assert "no search succeeded" in message and DNS in message and "SEARCH_API=local" in message
    assert len(search.queries) >= 3


def test_the_stream_ends_with_an_error_not_a_report(settings: Settings) -> None:
    events = list(
        research_stream(
            QUESTION, settings=settings, model=ScriptedModel(), search=StaticSearch(default=offline)
        )
    )
    types = [e.type for e in events]
    assert types[-1] == "error" and "done" not in types and "final_report" not in types
    assert events[-1].data["code"] == "search_error"


def test_some_searches_failing_still_reports_what_was_read(settings: Settings, local_search: object) -> None:
    from deepresearch.search.local import LocalSearch

    assert isinstance(local_search, LocalSearch)
    calls = {"n": 0}

    def flaky(query: str) -> list[SearchHit]:
        calls["n"] += 1
        if calls["n"] == 1:
            raise SearchError(DNS)
        return local_search.search(query, limit=10)

    result = research(
        QUESTION,
        settings=settings,
        model=ScriptedModel(),
        search=StaticSearch(default=flaky),
        max_web_research_loops=1,
    )
    assert result.sources and any(DNS in n for n in result.notices)
