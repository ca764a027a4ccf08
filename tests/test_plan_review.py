"""Plan review: the plan is shown before any search; accepted, trimmed or edited, the research
follows the reviewed plan; through the Python API, the CLI (stdin), and a LangGraph interrupt
resumed from a checkpoint."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from deepresearch import research
from deepresearch.domain import TodoItem
from deepresearch.errors import InvalidQuestionError
from deepresearch.graph.builder import build_graph
from deepresearch.graph.review import DROPPED, decision_reviewer, interrupt_reviewer
from deepresearch.graph.state import ResearchState
from deepresearch.index.store import DocumentIndex
from deepresearch.llm.testing import ScriptedModel
from deepresearch.search.base import SearchHit
from deepresearch.search.local import LocalSearch
from deepresearch.search.testing import StaticSearch
from deepresearch.settings import Settings
from deepresearch.text import language_of

from .conftest import PASSAGES, QUESTION
from .fakeopenai import FakeOpenAI, research_responder, serve

EDITED = "Prague Orloj construction year"


def spying(local_search: LocalSearch) -> StaticSearch:
    def passthrough(query: str) -> list[SearchHit]:
        return local_search.search(query, limit=10)

    return StaticSearch(default=passthrough)


def test_the_reviewer_sees_the_plan_before_any_search_and_shapes_the_run(
    settings: Settings, local_search: LocalSearch
) -> None:
    search = spying(local_search)
    seen: list[list[TodoItem]] = []

    def review(tasks: list[TodoItem]) -> Sequence[TodoItem]:
        assert search.queries == [], "the plan is reviewed before any search"
        seen.append(tasks)
        return [tasks[0].model_copy(update={"query": EDITED})]

    result = research(
        QUESTION, settings=settings, model=ScriptedModel(), search=search, max_web_research_loops=1,
        review_plan=review,
    )  # fmt: skip
    planned = seen[0]
    assert len(planned) >= 2
    assert search.queries[0] == EDITED and planned[1].query not in search.queries
    by_id = {t.id: t for t in result.todo_items}
    assert by_id[planned[1].id].status == "skipped" and by_id[planned[1].id].skip_reason == DROPPED
    assert DROPPED in result.report_markdown, "the report says a task was dropped"


def test_dropping_every_task_is_an_error(settings: Settings, local_search: LocalSearch) -> None:
    with pytest.raises(InvalidQuestionError, match="dropped every task"):
        research(
            QUESTION, settings=settings, model=ScriptedModel(), search=local_search, review_plan=lambda t: []
        )


def test_a_json_decision_keeps_and_edits_by_id() -> None:
    plan = [
        TodoItem(id=1, title="A", intent="a", query="qa"),
        TodoItem(id=2, title="B", intent="b", query="qb"),
    ]
    assert decision_reviewer({"accept": True})(plan) == plan
    [kept] = decision_reviewer({"tasks": [{"id": 2, "query": "new"}]})(plan)
    assert (kept.id, kept.title, kept.query) == (2, "B", "new")
    with pytest.raises(InvalidQuestionError, match="task 7"):
        decision_reviewer({"tasks": [{"id": 7}]})(plan)


def test_an_interrupted_run_waits_with_its_plan_and_resumes_from_the_checkpoint(
    settings: Settings, local_search: LocalSearch
) -> None:
    from deepresearch.agent import _build_context

    search = spying(local_search)
    settings = settings.with_overrides(max_web_research_loops=1)
    config: RunnableConfig = {"configurable": {"thread_id": "review-1"}}
    inputs: ResearchState = {"question": QUESTION, "language": language_of(QUESTION), "notices": []}
    saver = InMemorySaver()
    with ExitStack() as stack:
        context = _build_context(settings, ScriptedModel(), search, stack, [])
        context.plan_reviewer = interrupt_reviewer
        first = build_graph(checkpointer=saver).invoke(inputs, config, context=context)
        [waiting] = first["__interrupt__"]
        shown = waiting.value["tasks"]
        assert len(shown) >= 2 and search.queries == []
    with ExitStack() as stack:  # a new graph and context: as after a restart, from the checkpoint
        context = _build_context(settings, ScriptedModel(), search, stack, [])
        context.plan_reviewer = interrupt_reviewer
        decision = {"tasks": [{"id": shown[0]["id"], "query": EDITED}]}
        final = build_graph(checkpointer=saver).invoke(Command(resume=decision), config, context=context)
    assert search.queries[0] == EDITED and "report" in final
    assert {t.id for t in final["tasks"] if t.status == "skipped"} >= {t["id"] for t in shown[1:]}


@pytest.fixture
def cli_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    index = tmp_path / "index.sqlite"
    with DocumentIndex(index) as store:
        store.add_documents(PASSAGES)
    with serve(FakeOpenAI(responder=research_responder())) as url:
        yield {
            **os.environ,
            "DEEPRESEARCH_HOME": str(tmp_path / "home"),
            "INDEX_PATH": str(index),
            "LLM_PROVIDER": "custom",
            "LLM_BASE_URL": url,
            "LLM_MODEL_ID": "fake-model",
            "MAX_WEB_RESEARCH_LOOPS": "1",
        }


def cli(env: dict[str, str], stdin: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "deepresearch.cli.main", "research", QUESTION, "--review-plan", "--json"]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, env=env, timeout=120)


def test_cli_review_drops_and_edits_from_the_terminal(cli_env: dict[str, str]) -> None:
    done = cli(cli_env, f"d 2\nq 1 {EDITED}\nhuh\n\n")
    assert done.returncode == 0, done.stderr
    assert "Plan" in done.stderr and "d N" in done.stderr and "not understood" in done.stderr
    result = json.loads(done.stdout)
    tasks = {t["id"]: t for t in result["todo_items"]}
    assert tasks[2]["status"] == "skipped" and tasks[2]["skip_reason"] == DROPPED
    assert tasks[1]["query"] == EDITED and EDITED in result["queries_run"]


def test_cli_review_accepts_on_enter_and_stops_on_x(cli_env: dict[str, str]) -> None:
    accepted = cli(cli_env, "\n")
    assert accepted.returncode == 0
    assert all(t["skip_reason"] != DROPPED for t in json.loads(accepted.stdout)["todo_items"])
    stopped = cli(cli_env, "x\n")
    assert stopped.returncode != 0 and "stopped at plan review" in stopped.stderr


def test_a_dropped_task_stays_dropped_in_later_rounds(settings: Settings, local_search: LocalSearch) -> None:
    search = spying(local_search)
    planned: list[TodoItem] = []

    def keep_first(tasks: list[TodoItem]) -> Sequence[TodoItem]:
        planned.extend(tasks)
        return tasks[:1]

    result = research(
        QUESTION, settings=settings, model=ScriptedModel(), search=search, max_web_research_loops=3,
        relevance_threshold=100, review_plan=keep_first,
    )  # fmt: skip
    assert result.rounds >= 2, "a later round ran"
    dropped = {t.id for t in planned[1:]}
    kept = [t for t in result.todo_items if t.id in dropped]
    assert kept and all(t.status == "skipped" and t.skip_reason == DROPPED for t in kept)
    assert not {t.query for t in planned[1:]} & set(search.queries)


def test_cli_clarify_asks_what_a_broad_question_should_focus_on(cli_env: dict[str, str]) -> None:
    command = [
        sys.executable,
        "-m",
        "deepresearch.cli.main",
        "research",
        "Prague clock",
        "--clarify",
        "--json",
    ]
    done = subprocess.run(
        command, input="its builder\n", capture_output=True, text=True, env=cli_env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "The question is broad" in done.stderr
    assert json.loads(done.stdout)["question"] == "Prague clock: its builder"


@pytest.mark.parametrize(
    ("question", "answer", "asked", "researched"),
    [
        ("quantum computing", "error correction\n", True, "quantum computing: error correction"),
        ("quantum computing?", "\n", True, "quantum computing?"),
        (
            "When was the astronomical clock in Prague built?",
            "ignored\n",
            False,
            "When was the astronomical clock in Prague built?",
        ),
    ],
)
def test_clarify_only_asks_about_broad_questions(
    question: str, answer: str, asked: bool, researched: str
) -> None:
    from io import StringIO

    from rich.console import Console

    from deepresearch.cli.review import clarify

    shown = StringIO()
    lines = iter([answer])
    assert clarify(question, Console(file=shown), read=lambda: next(lines)) == researched
    assert ("broad" in shown.getvalue()) is asked
