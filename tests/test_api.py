"""The public Python API: names, seed compatibility, settings precedence, limits and cleanup."""

from __future__ import annotations

import json
import os
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import deepresearch
from deepresearch import (
    Configuration,
    ConfigurationError,
    DeepResearchAgent,
    DeepResearchError,
    Settings,
    research,
    run_deep_research,
)
from deepresearch.llm.testing import ScriptedModel
from deepresearch.runs import RunStore
from deepresearch.search.base import SearchBackend, SearchHit
from deepresearch.search.local import LocalSearch

from .conftest import QUESTION


def test_public_names_are_importable() -> None:
    for name in deepresearch.__all__:
        assert hasattr(deepresearch, name), name
    assert {"research", "research_stream", "Settings"} <= set(deepresearch.__all__)


def test_overrides_win_over_environment_and_unknown_keys_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAX_WEB_RESEARCH_LOOPS", "2")
    monkeypatch.setenv("SEARCH_API", "LOCAL")
    assert Settings.load().max_web_research_loops == 2
    assert Settings.load().search_api == "local"
    assert Settings.load({"max_web_research_loops": 1}).max_web_research_loops == 1
    with pytest.raises(ConfigurationError, match="unknown setting"):
        Settings.load({"max_loops": 1})
    with pytest.raises(ConfigurationError, match="unknown setting"):
        research(QUESTION, model=ScriptedModel(), max_loops=1)


def test_dotenv_is_read(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("RELEVANCE_THRESHOLD=70\nSOMETHING_ELSE=1\n", encoding="utf-8")
    assert Settings.load().relevance_threshold == 70


def test_seed_names_still_work(settings: Settings, local_search: LocalSearch) -> None:
    config = Configuration.from_env({"deepresearch_home": str(settings.home), "max_web_research_loops": 1})
    agent = DeepResearchAgent(config, model=ScriptedModel(), search=local_search)
    result = agent.run(QUESTION)
    assert result.report_markdown and result.todo_items and result.running_summary
    events = list(agent.run_stream(QUESTION))
    assert events[0]["type"] == "status" and events[-1]["type"] == "done"
    assert all(isinstance(e, dict) for e in events)
    assert callable(run_deep_research)


def test_task_concurrency_bounds_parallel_searches(settings: Settings, local_search: LocalSearch) -> None:
    tracker = _ConcurrencyTracker(local_search)
    plan = json.dumps(
        {
            "tasks": [
                {"title": f"t{i}", "intent": "i", "query": q}
                for i, q in enumerate(["Karel Purkyně", "Prague clock", "Vltava river", "Prague capital"])
            ]
        }
    )
    research(
        QUESTION,
        settings=settings,
        model=ScriptedModel({"plan": plan}),
        search=tracker,
        max_web_research_loops=1,
        task_concurrency=1,
    )
    assert tracker.peak == 1
    meeting = _ConcurrencyTracker(local_search, meet=True)
    research(
        QUESTION,
        settings=settings,
        model=ScriptedModel({"plan": plan}),
        search=meeting,
        max_web_research_loops=1,
        task_concurrency=4,
    )
    assert meeting.peak > 1


def test_old_run_folders_are_removed_and_notes_kept(settings: Settings, local_search: LocalSearch) -> None:
    store = RunStore(settings.resolved_runs_workspace)
    old = store.create("old question", now=datetime.now(timezone.utc) - timedelta(days=30))
    recent = store.create("recent question", now=datetime.now(timezone.utc) - timedelta(days=1))
    first = research(
        QUESTION, settings=settings, model=ScriptedModel(), search=local_search, max_web_research_loops=1
    )
    notes_before = sorted(os.listdir(settings.resolved_notes_workspace))
    research(
        QUESTION, settings=settings, model=ScriptedModel(), search=local_search, max_web_research_loops=1
    )
    assert not old.path.exists()
    assert recent.path.exists() and Path(first.run_dir or "").exists()
    assert set(notes_before) <= set(os.listdir(settings.resolved_notes_workspace))


def test_missing_model_file_fails_with_the_fix(
    settings: Settings, local_search: LocalSearch, tmp_path: Path
) -> None:
    with pytest.raises(DeepResearchError) as caught:
        research(
            QUESTION,
            settings=settings,
            search=local_search,
            embedded_model_path=str(tmp_path / "missing.gguf"),
        )
    assert "missing.gguf" in str(caught.value)


def test_missing_index_names_the_fix(settings: Settings, tmp_path: Path) -> None:
    with pytest.raises(DeepResearchError, match="deepresearch index"):
        research(QUESTION, settings=settings, model=ScriptedModel(), index_path=str(tmp_path / "none.sqlite"))


def test_with_nothing_indexed_the_demo_corpus_gets_its_own_index(settings: Settings) -> None:
    result = research(QUESTION, settings=settings, model=ScriptedModel(), max_web_research_loops=1)
    assert (settings.home / "demo-index.sqlite").exists()
    assert not settings.resolved_index_path.exists(), "the user's index file stays the user's"
    assert any("demo corpus" in n for n in result.notices)
    assert any(s.doc_id and s.doc_id.startswith(("hotpotqa:", "musique:")) for s in result.sources)


class _ConcurrencyTracker(SearchBackend):
    """Counts searches in flight. With ``meet``, a search waits (up to 30 s) until a second one is
    in flight, so overlap shows however slowly the threads run."""

    name = "tracker"

    def __init__(self, inner: LocalSearch, *, meet: bool = False) -> None:
        self.inner, self.meet, self.active, self.peak = inner, meet, 0, 0
        self.state = threading.Condition()

    def search(self, query: str, *, limit: int = 5) -> list[SearchHit]:
        with self.state:
            self.active += 1
            self.peak = max(self.peak, self.active)
            self.state.notify_all()
            if self.meet:
                self.state.wait_for(lambda: self.peak > 1, timeout=30)
        try:
            return self.inner.search(query, limit=limit)
        finally:
            with self.state:
                self.active -= 1
