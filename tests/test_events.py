"""Every event a run streams has the documented shape of its type (deepresearch.events.EVENT_DATA)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from deepresearch import research_stream
from deepresearch.errors import SearchError
from deepresearch.events import EVENT_DATA, EVENT_TYPES, Event, event
from deepresearch.llm.testing import ScriptedModel
from deepresearch.search.base import SearchHit
from deepresearch.search.local import LocalSearch
from deepresearch.search.testing import StaticSearch
from deepresearch.settings import Settings

from .conftest import QUESTION

WEAK = json.dumps({"tasks": [{"task_id": i, "relevance": 0, "explanation": "weak"} for i in range(1, 6)]})


def test_every_event_type_has_a_documented_data_shape() -> None:
    assert set(EVENT_DATA) == set(EVENT_TYPES)


def test_a_two_round_run_streams_every_progress_event_in_its_documented_shape(
    settings: Settings, local_search: LocalSearch
) -> None:
    events = list(
        research_stream(
            QUESTION,
            settings=settings,
            model=ScriptedModel({"judge": WEAK}),
            search=local_search,
            max_web_research_loops=2,
            model_judge=True,
            relevance_threshold=100,
            summary_mode="model",
        )
    )
    seen = {e.type for e in events}
    assert seen == set(EVENT_TYPES) - {"error"}
    for item in events:
        item.typed_data()
    assert [e.seq for e in events] == list(range(1, len(events) + 1))


def _unreachable(query: str) -> list[SearchHit]:
    raise SearchError(f"no network for {query!r}")


def test_a_failed_run_ends_with_an_error_event_in_its_shape(settings: Settings) -> None:
    events = list(
        research_stream(
            QUESTION,
            settings=settings,
            model=ScriptedModel(),
            search=StaticSearch(default=_unreachable),
            max_web_research_loops=1,
        )
    )
    last = events[-1]
    assert last.type == "error"
    assert last.typed_data().model_dump()["code"] == "search_error"


def test_an_event_with_a_field_its_type_does_not_document_fails_validation() -> None:
    stray = Event.numbered(1, event("report_chunk", step="report", content="text", colour="red"))
    with pytest.raises(ValidationError, match="colour"):
        stray.typed_data()
