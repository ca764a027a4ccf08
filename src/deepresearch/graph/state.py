"""The research state shared by every node, with explicit reducers.

Nodes return partial updates. ``tasks`` merge by id (a node returns the tasks it changed);
``sources`` is the append-only registry (:func:`deepresearch.citations.register_sources`);
``queries_run`` only grows. The round counter is plain state written by the planner and the
re-query node, never by a router.
"""

from __future__ import annotations

import operator
from typing import Annotated, Literal

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from deepresearch.citations import Source, register_sources

TaskStatus = Literal["pending", "in_progress", "completed", "skipped", "failed"]


class ResearchRole(BaseModel):
    type: str = "general_researcher"
    label: str = "General researcher"
    instructions: str = ""
    is_fallback: bool = False


class TodoItem(BaseModel):
    id: int
    title: str
    intent: str
    query: str
    status: TaskStatus = "pending"
    queries: list[str] = Field(default_factory=list)
    source_ids: list[int] = Field(default_factory=list)
    summary: str = ""
    skip_reason: str | None = None
    note_id: str | None = None
    is_fallback: bool = False


class TaskJudgement(BaseModel):
    task_id: int
    relevance: float
    code_relevance: float
    model_relevance: float | None = None
    relevant: int = 0
    total: int = 0
    explanation: str = ""
    gaps: list[str] = Field(default_factory=list)
    next_query: str = ""
    """The model judge's query for the next round when this task's evidence is thin."""


class RoundEvaluation(BaseModel):
    round: int
    relevance: float
    code_relevance: float
    model_relevance: float | None = None
    relevant: int = 0
    total: int = 0
    tasks: list[TaskJudgement] = Field(default_factory=list)
    answered: bool = True
    enough: bool = False


class ReportResult(BaseModel):
    """The rendered report. ``cited`` lists source ids in report order: ``[k]`` names ``cited[k-1]``."""

    markdown: str
    answer: str = ""
    answer_status: str = ""
    answer_source_id: int | None = None
    cited: list[int] = Field(default_factory=list)
    removed_citations: int = 0
    insight_marks: list[str] = Field(default_factory=list)


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
