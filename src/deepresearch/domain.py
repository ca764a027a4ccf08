"""The research domain: what a run is about, below every package that works on it.

A role, the tasks (the TODO list the user sees), the judge's verdicts per task and per round, and
the rendered report. The graph's state (:mod:`deepresearch.graph.state`), the result
(:mod:`deepresearch.result`), the prompts, the report renderer, the notes and durable checkpoints
all speak these types; none of them needs the graph package for it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

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
