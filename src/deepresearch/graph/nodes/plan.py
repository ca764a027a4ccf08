"""The opening node: the run's role and plan (see :mod:`deepresearch.graph.planning`)."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from deepresearch.events import event
from deepresearch.graph.context import ResearchContext
from deepresearch.graph.planning import PLANNING, Opening, open_question
from deepresearch.graph.state import ResearchState


def plan_research(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """Role and tasks from the opening call: the one the run sent before the graph was built
    (whose status the run has shown), when there is one, else a call made now."""
    ctx, started = runtime.context, time.perf_counter()
    opening = ctx.take_opening()
    if opening is None:
        runtime.stream_writer(event("status", step="plan", message=PLANNING))
        opening = open_question(
            ctx.model,
            state["question"],
            state["language"],
            strip_think=ctx.settings.strip_thinking_tokens,
            choose_role=ctx.model_chooses_role,
            model_plans=ctx.model_plans,
        )
        ctx.load_reader()
    return _emit(opening, runtime, started)


def _emit(opening: Opening, runtime: Runtime[ResearchContext], started: float) -> dict[str, Any]:
    role, tasks = opening.role, opening.tasks
    runtime.stream_writer(event("status", step="role", message=f"Role: {role.label}", role=role.model_dump()))
    runtime.stream_writer(event("todo_list", step="plan", tasks=[t.model_dump() for t in tasks]))
    return {
        "role": role,
        "tasks": tasks,
        "active_task_ids": [t.id for t in tasks],
        "round": 1,
        "fallbacks": opening.fallbacks,
        "timings": {"plan": time.perf_counter() - started},
    }
