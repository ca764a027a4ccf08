"""The research state shared by every node, with explicit reducers.

The domain types it holds (tasks, judgements, the report) live in :mod:`deepresearch.domain`.

Nodes return partial updates. ``tasks`` merge by id (a node returns the tasks it changed);
``sources`` is the append-only registry (:func:`deepresearch.citations.register_sources`);
``queries_run`` only grows. The round counter is plain state written by the planner and the
re-query node, never by a router; whether another round follows is the judge's decision
(``another_round``), made against the run's ``MAX_WEB_RESEARCH_LOOPS``, the one round limit.
"""

from __future__ import annotations

import operator
from typing import Annotated

from typing_extensions import TypedDict

from deepresearch.citations import Source, register_sources
from deepresearch.domain import ReportResult, ResearchRole, RoundEvaluation, TodoItem


def merge_tasks(current: list[TodoItem], update: list[TodoItem]) -> list[TodoItem]:
    by_id = {task.id: task for task in current}
    for task in update:
        by_id[task.id] = task
    return sorted(by_id.values(), key=lambda t: t.id)


def add_unique(current: list[str], update: list[str]) -> list[str]:
    return list(dict.fromkeys([*current, *update]))


def merge_timings(current: dict[str, float], update: dict[str, float]) -> dict[str, float]:
    merged = dict(current)
    for key, seconds in update.items():
        merged[key] = round(merged.get(key, 0.0) + seconds, 4)
    return merged


class ResearchState(TypedDict, total=False):
    question: str
    language: str
    role: ResearchRole
    tasks: Annotated[list[TodoItem], merge_tasks]
    active_task_ids: list[int]
    sources: Annotated[list[Source], register_sources]
    queries_run: Annotated[list[str], add_unique]
    round: int
    another_round: bool
    evaluations: Annotated[list[RoundEvaluation], operator.add]
    notices: Annotated[list[str], operator.add]
    fallbacks: Annotated[list[str], operator.add]
    report: ReportResult
    timings: Annotated[dict[str, float], merge_timings]


class TaskInput(TypedDict):
    """What the fan-out sends to one task's branch."""

    question: str
    language: str
    role: ResearchRole
    round: int
    task: TodoItem
    sources: list[Source]
