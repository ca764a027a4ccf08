"""langgraph.json and its graph factory: the graph LangGraph's server loads builds each run's parts
from the settings, takes the run's JSON context as setting overrides, and runs a thread."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.pregel import Pregel

from deepresearch.index.store import DocumentIndex
from deepresearch.llm.testing import ScriptedModel
from deepresearch.search.local import LocalSearch
from deepresearch.settings import Settings
from deepresearch.studio import SettingsBoundGraph, bind_settings

from .conftest import PASSAGES, QUESTION
from .fakeopenai import FakeOpenAI, research_responder, serve

ROOT = Path(__file__).resolve().parents[1]


def load_factory() -> object:
    """What LangGraph's server does with the spec: import the module and take the attribute."""
    config = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
    module, attribute = config["graphs"]["deepresearch"].split(":")
    return getattr(importlib.import_module(module), attribute)


def run_with_overrides(
    graph: SettingsBoundGraph, overrides: dict[str, object], config: RunnableConfig | None = None
) -> Any:
    """Run the question as LangGraph's server does: the run's JSON context (settings overrides)
    where LangGraph's typed API takes a ResearchContext; the bound graph builds one from it."""
    invoke: Callable[..., Any] = graph.invoke
    return invoke({"question": QUESTION}, config, context=overrides)


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    index = tmp_path / "index.sqlite"
    with DocumentIndex(index) as store:
        store.add_documents(PASSAGES)
    with serve(FakeOpenAI(responder=research_responder())) as url:
        for name, value in {
            "DEEPRESEARCH_HOME": str(tmp_path / "home"),
            "INDEX_PATH": str(index),
            "LLM_PROVIDER": "custom",
            "LLM_BASE_URL": url,
            "LLM_MODEL_ID": "fake-model",
            "MAX_WEB_RESEARCH_LOOPS": "2",
        }.items():
            monkeypatch.setenv(name, value)
        yield


def test_langgraph_json_names_a_factory_that_runs_a_question(env: None) -> None:
    factory = load_factory()
    graph = factory({})  # type: ignore[operator]
    assert isinstance(graph, Pregel)
    state = graph.invoke({"question": QUESTION})
    assert "1410" in state["report"].markdown
    assert state["language"] == "en" and 1 <= state["round"] <= 2


def test_the_runs_json_context_overrides_settings(env: None) -> None:
    graph = load_factory()({})  # type: ignore[operator]
    state = graph.invoke(
        {"question": QUESTION}, context={"max_web_research_loops": 1, "relevance_threshold": 100}
    )
    assert state["round"] == 1 and not state["another_round"]


def test_a_thread_with_a_checkpointer_keeps_its_state(settings: Settings, local_search: LocalSearch) -> None:
    graph = bind_settings(settings, model=ScriptedModel(), search=local_search)
    threaded = graph.copy({"checkpointer": InMemorySaver()})
    assert isinstance(threaded, SettingsBoundGraph) and threaded.settings is settings
    config: RunnableConfig = {"configurable": {"thread_id": "t1"}}
    run_with_overrides(threaded, {"max_web_research_loops": 1}, config)
    saved = threaded.get_state(config).values
    assert saved["report"].markdown.startswith(f"# {QUESTION}")
    assert [node for node in graph.get_graph().nodes if not node.startswith("__")] == [
        "plan", "review_plan", "search_task", "gather", "summarize_task", "judge", "requery", "write_report",
    ]  # fmt: skip


def test_an_unknown_override_in_the_context_is_an_error(
    settings: Settings, local_search: LocalSearch
) -> None:
    from deepresearch.errors import ConfigurationError

    graph = bind_settings(settings, model=ScriptedModel(), search=local_search)
    with pytest.raises(ConfigurationError, match="no_such_setting"):
        run_with_overrides(graph, {"no_such_setting": 1})
