"""Building the research graph. Routers are pure functions of the state."""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import Callable
from typing import Any, get_type_hints

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send, StreamWriter

from deepresearch.domain import TodoItem
from deepresearch.graph.context import ResearchContext
from deepresearch.graph.nodes.judge import judge
from deepresearch.graph.nodes.plan import plan_research
from deepresearch.graph.nodes.report import write_report
from deepresearch.graph.nodes.requery import requery
from deepresearch.graph.nodes.research import gather, search_task, summarize_task
from deepresearch.graph.review import review_plan
from deepresearch.graph.state import ResearchState, TaskInput

ResearchGraph = CompiledStateGraph[ResearchState, ResearchContext, ResearchState, ResearchState]
Node = Callable[[Any, Runtime[ResearchContext]], dict[str, Any]]


def build_graph(checkpointer: BaseCheckpointSaver[str] | None = None) -> ResearchGraph:
    """The compiled graph: role and plan → (search ∥ → summarise ∥ → judge → requery?)* → report.

    On the critical path, model calls only: one for role and plan, per round the summaries (in
    parallel) and the judge (whose answer carries the next round's queries), then the report."""
    graph = StateGraph(ResearchState, context_schema=ResearchContext)
    _add(graph, "plan", plan_research)
    _add(graph, "review_plan", review_plan)
    _add(graph, "search_task", search_task)
    graph.add_node("gather", gather)
    _add(graph, "summarize_task", summarize_task)
    _add(graph, "judge", judge)
    _add(graph, "requery", requery)
    _add(graph, "write_report", write_report)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "review_plan")
    graph.add_conditional_edges("review_plan", fan_out_search, ["search_task", "write_report"])
    graph.add_edge("search_task", "gather")
    graph.add_conditional_edges("gather", fan_out_summaries, ["summarize_task", "judge"])
    graph.add_edge("summarize_task", "judge")
    graph.add_conditional_edges("judge", after_judge, ["requery", "write_report"])
    graph.add_conditional_edges("requery", fan_out_search, ["search_task", "write_report"])
    graph.add_edge("write_report", END)
    return graph.compile(checkpointer=checkpointer)


def _add(
    graph: StateGraph[ResearchState, ResearchContext, ResearchState, ResearchState], name: str, node: Node
) -> None:
    graph.add_node(name, keyed(node), input_schema=_input_schema(node))


def keyed(node: Node) -> Node:
    """``node`` with a ``key`` on every event it writes: its task's id (LangGraph derives it from
    the checkpoint the step started from, so a step run again after a resume has the same one),
    the event's type and its ordinal among the task's events of that type. A job stores each key
    once (see :meth:`deepresearch.jobs.base.JobStoreLike.append_event`)."""

    def run(state: Any, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
        info = runtime.execution_info
        if info is None:
            return node(state, runtime)
        return node(state, runtime.override(stream_writer=_keyed_writer(runtime.stream_writer, info.task_id)))

    return run


def _keyed_writer(write: StreamWriter, task_id: str) -> StreamWriter:
    counts: Counter[str] = Counter()

    def stamped(chunk: Any) -> None:
        kind = str(chunk.get("type"))
        counts[kind] += 1
        write({**chunk, "key": f"{task_id}:{kind}:{counts[kind]}"})

    return stamped


def _input_schema(node: Node) -> Any:
    """The type of ``node``'s first parameter: what LangGraph reads its input as (it would infer
    it from the node itself; :func:`keyed` hides the annotation)."""
    first = next(iter(inspect.signature(node).parameters))
    return get_type_hints(node)[first]


def fan_out_search(state: ResearchState) -> list[Send] | str:
    active = _active(state)
    if not active:
        return "write_report"
    return [Send("search_task", _task_input(state, task)) for task in active]


def fan_out_summaries(state: ResearchState) -> list[Send] | str:
    with_sources = [t for t in _active(state) if _sources_of(state, t)]
    if not with_sources:
        return "judge"
    return [Send("summarize_task", _task_input(state, task)) for task in with_sources]


def after_judge(state: ResearchState) -> str:
    """Another round when the judge asked for one (it knows the round limit), else the report."""
    return "requery" if state.get("another_round") else "write_report"


def _active(state: ResearchState) -> list[TodoItem]:
    ids = set(state.get("active_task_ids", []))
    return [t for t in state.get("tasks", []) if t.id in ids]


def _sources_of(state: ResearchState, task: TodoItem) -> list[Any]:
    return [s for s in state.get("sources", []) if task.id in s.task_ids]


def _task_input(state: ResearchState, task: TodoItem) -> TaskInput:
    return TaskInput(
        question=state["question"],
        language=state["language"],
        role=state["role"],
        round=state["round"],
        task=task,
        sources=_sources_of(state, task),
    )
