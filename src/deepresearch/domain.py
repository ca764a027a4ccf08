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
AnswerKind = Literal["yesno", "choice", "date", "number", "place", "person", "entity"]
"""What kind of answer a question asks for (``answers/question.py`` decides it, candidates are cut by it)."""
DROPPED = "dropped at plan review"
"""The ``skip_reason`` of a task a person dropped at plan review: never searched, judged or reported
as evidence, only listed as dropped."""


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


class Scores(BaseModel):
    """How relevant the evidence is: the judge's numbers for a task, or their mean for a round."""

    relevance: float = Field(
        description="The blended relevance, 0-100 (code's, or code's and the model's mean)."
    )
    code_relevance: float = Field(
        description="Share of sources that hold most of the query's key terms, 0-100."
    )
    model_relevance: float | None = Field(
        default=None, description="The model judge's relevance, 0-100, when it judged."
    )
    relevant: int = Field(default=0, description="Sources judged relevant.")
    total: int = Field(default=0, description="Sources judged.")


class TaskJudgement(Scores):
    """The judge's verdict on one task after a round."""

    task_id: int
    explanation: str = ""
    gaps: list[str] = Field(default_factory=list, description="Key terms no source of the task holds.")
    next_query: str = Field(default="", description="The model judge's query for the next round, when thin.")


class RoundEvaluation(Scores):
    """The judge's verdict on a round: the tasks' mean, whether the sources answer, whether enough."""

    round: int
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
    read_not_cited: list[int] = Field(
        default_factory=list, description="Source ids read, about the question, not cited."
    )
    off_topic: list[int] = Field(default_factory=list, description="Source ids read, off the question.")
    removed_citations: int = 0
    insight_marks: list[str] = Field(default_factory=list)
