"""Plan review: a person accepts, drops or edits the planned tasks before any search runs.

The ``review_plan`` node sits between planning and the first searches, so the plan it shows is
already checkpointed: a reviewer that stops the run (LangGraph's ``interrupt``, for jobs that wait
for a person) resumes into this node alone and never re-plans. Without a reviewer the node does
nothing. A reviewer returns the tasks to research: a subset of the plan by ``id``, each with its
title, intent and query possibly edited; a dropped task is kept as ``skipped`` so the report says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langgraph.runtime import Runtime

from deepresearch.domain import DROPPED, TodoItem
from deepresearch.errors import InvalidQuestionError
from deepresearch.events import event
from deepresearch.graph.context import ResearchContext
from deepresearch.graph.state import ResearchState

PlanReviewer = Callable[[list[TodoItem]], Sequence[TodoItem]]
"""Gets the planned tasks, returns the ones to research (edited or not)."""

EDITABLE = ("title", "intent", "query")


def review_plan(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """Hand the plan to the run's reviewer, if it has one, and research what comes back."""
    reviewer = runtime.context.plan_reviewer
    if reviewer is None:
        return {}
    planned = [t for t in state.get("tasks", []) if t.id in set(state.get("active_task_ids", []))]
    tasks = reviewed(planned, reviewer(list(planned)))
    kept = [t.id for t in tasks if t.status != "skipped"]
    runtime.stream_writer(event("todo_list", step="review", tasks=[t.model_dump() for t in tasks]))
    return {"tasks": tasks, "active_task_ids": kept}


def reviewed(planned: Sequence[TodoItem], chosen: Sequence[TodoItem]) -> list[TodoItem]:
    """``planned`` with ``chosen``'s edits applied and the others marked dropped.

    Raises :class:`InvalidQuestionError` when a task id is not in the plan or nothing is kept."""
    known = {t.id: t for t in planned}
    unknown = sorted(t.id for t in chosen if t.id not in known)
    if unknown:
        raise InvalidQuestionError(f"plan review named task(s) {unknown} that the plan does not have")
    if not chosen:
        raise InvalidQuestionError("plan review dropped every task: nothing is left to research")
    edits = {t.id: {k: getattr(t, k).strip() or getattr(known[t.id], k) for k in EDITABLE} for t in chosen}
    return [
        task.model_copy(update=edits[task.id])
        if task.id in edits
        else task.model_copy(update={"status": "skipped", "skip_reason": DROPPED})
        for task in planned
    ]


def decision_reviewer(decision: Mapping[str, Any]) -> PlanReviewer:
    """A reviewer from a JSON decision: ``{"accept": true}`` keeps the plan, ``{"tasks": [{"id": 1,
    "query": "..."}, ...]}`` keeps the listed tasks with the fields given (the HTTP API's shape)."""

    def review(planned: list[TodoItem]) -> Sequence[TodoItem]:
        if decision.get("accept") and "tasks" not in decision:
            return planned
        known = {t.id: t for t in planned}
        chosen = []
        for item in decision.get("tasks") or []:
            base = known.get(int(item["id"]))
            if base is None:
                raise InvalidQuestionError(f"plan review named task {item['id']} that the plan does not have")
            chosen.append(base.model_copy(update={k: str(item[k]) for k in EDITABLE if item.get(k)}))
        return chosen

    return review


def interrupt_reviewer(planned: list[TodoItem]) -> Sequence[TodoItem]:
    """A reviewer that stops the run with LangGraph's ``interrupt`` (the plan as its value) and
    reviews with the decision it is resumed with (``Command(resume={"accept": true})`` or
    ``{"tasks": [...]}``, see :func:`decision_reviewer`). Needs a checkpointer; a job waiting for a
    person survives restarts in it."""
    from langgraph.types import interrupt

    shown = [t.model_dump(include={"id", "title", "intent", "query"}) for t in planned]
    decision = interrupt({"tasks": shown})
    return decision_reviewer(decision if isinstance(decision, Mapping) else {"accept": True})(planned)


__all__ = ["DROPPED", "PlanReviewer", "decision_reviewer", "interrupt_reviewer", "review_plan", "reviewed"]
